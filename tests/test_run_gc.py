"""The garbage collector during a run: the setup frozen, run thresholds, and the caller's settings restored."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from yarnball.launcher import Cluster
from yarnball.launcher._gc import RUN_THRESHOLDS
from yarnball.launcher.workloads import WorkloadBuilder, synthetic_workload, task_spec
from yarnball.protocols import Configuration

CALLER_THRESHOLDS = (1234, 5, 6)


@pytest.fixture(name="caller_gc")
def fixture_caller_gc() -> Iterator[None]:
    """The embedding program's own collector settings, put back after the test whatever happens."""
    saved = gc.get_threshold()
    gc.set_threshold(*CALLER_THRESHOLDS)
    yield
    gc.set_threshold(*saved)
    gc.unfreeze()


def small_cluster() -> Cluster:
    builder = WorkloadBuilder().nodes(3, memory_mb=8192, vcores=8)
    builder.job("j", tasks=[task_spec(4, 10_000)])
    workload = builder.build()
    cluster = Cluster(Configuration(), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    return cluster


def test_run_freezes_the_setup_and_restores_the_callers_collector(caller_gc: None) -> None:
    """Inside run() the setup is frozen and the run thresholds apply; afterwards the caller's thresholds are back
    and nothing is left frozen."""
    assert gc.get_freeze_count() == 0
    cluster = small_cluster()
    seen: list[tuple[tuple[int, int, int], int]] = []
    cluster.every(1000, lambda: seen.append((gc.get_threshold(), gc.get_freeze_count())))
    cluster.run()
    assert seen and all(thresholds == RUN_THRESHOLDS and frozen > 0 for thresholds, frozen in seen)
    assert gc.get_threshold() == CALLER_THRESHOLDS
    assert gc.get_freeze_count() == 0


def test_a_failing_run_restores_the_collector(caller_gc: None) -> None:
    """An exception out of the run still gives the caller its thresholds back and unfreezes the setup."""
    cluster = small_cluster()
    seen: list[tuple[int, int, int]] = []

    def fail() -> None:
        seen.append(gc.get_threshold())
        raise RuntimeError("driver callback failed")

    cluster.every(1000, fail, start_ms=500)
    with pytest.raises(RuntimeError, match="driver callback failed"):
        cluster.run()
    assert seen == [RUN_THRESHOLDS]
    assert gc.get_threshold() == CALLER_THRESHOLDS
    assert gc.get_freeze_count() == 0


def test_objects_the_caller_froze_stay_frozen(caller_gc: None) -> None:
    """A program that froze its own objects keeps exactly them frozen: run() neither adds nor releases any (and
    still runs with its thresholds)."""
    gc.freeze()
    frozen = gc.get_freeze_count()
    cluster = small_cluster()
    during: list[int] = []
    cluster.every(1000, lambda: during.append(gc.get_freeze_count()))
    cluster.every(1000, lambda: during.append(-1) if gc.get_threshold() != RUN_THRESHOLDS else None)
    cluster.run()
    # Frozen objects that die leave the permanent generation, so the count may drop a little; freezing the
    # cluster would add thousands, unfreezing would drop it to 0.
    assert during and all(frozen - 100 <= count <= frozen for count in during)
    assert frozen - 100 <= gc.get_freeze_count() <= frozen
    assert gc.get_threshold() == CALLER_THRESHOLDS


def test_a_busy_run_leaves_no_cyclic_garbage(caller_gc: None) -> None:
    """RUN_THRESHOLDS rest on this: the per-container objects of a run (messages, statuses, timers, tasks, asks,
    containers at RM, NM and AM) are freed by reference counting, so a collection during the run finds nothing to
    free. A change that leaves a cycle per container (a timer holding its owner, say) fails here, with the types
    it left."""
    # bench/bench_simulation.py's busy workload, small: MapReduce jobs arriving faster than 40 nodes run them
    workload = synthetic_workload(
        60, 40, 1, maps=(20, 60), reduces=(0, 5), map_ms=(2_000, 8_000), reduce_ms=(4_000, 10_000), load=1.5
    )
    cluster = Cluster(Configuration(), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run(until_ms=20_000)  # submissions, registrations and the first containers: the setup's own objects
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        cluster.run(until_ms=40_000)
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert cluster.rm.counters["containers_allocated"] > 500  # busy: containers came and went meanwhile
    assert not garbage, sorted({type(o).__qualname__ for o in garbage})
