"""Jobs submitted as the run reaches them (Cluster.submit_jobs, launcher/_jobfeed.py; synthetic_jobs): the same
jobs, ids and run as a workload submitted at once, with the later jobs' AMs not built until shortly before."""

from __future__ import annotations

import gc
import importlib.util
import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnball.actors import configure_logging
from yarnball.actors._logging import close_logging
from yarnball.errors import SimulationError
from yarnball.launcher import Cluster, _jobfeed
from yarnball.launcher._jobfeed import LOOKAHEAD_MS
from yarnball.launcher.workloads import (
    JobSpec,
    NodeSpec,
    SyntheticJobs,
    TaskSpec,
    TraceDefaults,
    synthetic_jobs,
    synthetic_nodes,
    synthetic_workload,
)
from yarnball.launcher.workloads._draw import UniformDraw
from yarnball.launcher.workloads._packed import PackedTasks, TaskValues
from yarnball.protocols import ExecutionType, keys

OPTIONS = {"maps": (1, 8), "reduces": (0, 3), "map_ms": (1_000, 9_000), "reduce_ms": (1_000, 6_000), "load": 2.0}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), jobs=st.integers(0, 30), nodes=st.integers(1, 50))
def test_synthetic_jobs_are_the_workloads_jobs(seed: int, jobs: int, nodes: int) -> None:
    """synthetic_jobs, made one at a time, gives exactly synthetic_workload's jobs (ids, times, tasks), in order."""
    workload = synthetic_workload(jobs, nodes, seed, queues=("a", "b"), opportunistic_fraction=0.2, **OPTIONS)
    assert synthetic_nodes(nodes) == workload.nodes
    lazy = synthetic_jobs(jobs, workload.nodes, seed, queues=("a", "b"), opportunistic_fraction=0.2, **OPTIONS)
    assert tuple(lazy) == workload.jobs


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ranges=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 2**40))))
def test_the_uniform_draw_is_randoms_own(seed: int, ranges: list[tuple[int, int]]) -> None:
    """UniformDraw gives what Random.randrange / randint give from the same generator, one for one (n = 1 and powers
    of two included: each still takes its random bits)."""
    ranges += [(0, 0), (5, 5), (0, 1), (0, 255), (3, 2**32)]
    ours, theirs = random.Random(seed), random.Random(seed)
    draw = UniformDraw(ours)
    for lo, width in ranges:
        assert draw.integer(lo, lo + width) == theirs.randint(lo, lo + width)
        assert draw.below(width + 1) == theirs.randrange(width + 1)
    assert ours.random() == theirs.random()  # (the same state after)


def _reference_jobs(num_jobs: int, nodes: Sequence[NodeSpec], seed: int, fraction: float) -> Iterator[JobSpec]:
    """synthetic_jobs' trace drawn with Random's own methods, as its definition reads (OPTIONS' ranges)."""
    rng = random.Random(seed)
    d = TraceDefaults()
    container, am = d.container_resource, d.am_resource
    slots = len(nodes) * min(d.nm_memory_mb // container.memory_mb, d.nm_vcores // container.vcores)
    (m0, m1), (r0, r1) = OPTIONS["maps"], OPTIONS["reduces"]
    (a0, a1), (b0, b1) = OPTIONS["map_ms"], OPTIONS["reduce_ms"]
    mean_work = (m0 + m1) / 2 * (a0 + a1) / 2 + (r0 + r1) / 2 * (b0 + b1) / 2
    gap = mean_work / (slots * OPTIONS["load"])
    now = 0.0
    for i in range(num_jobs):
        if i:
            now += rng.expovariate(1.0 / gap)
        tasks = []
        for _ in range(rng.randint(m0, m1)):
            node = nodes[rng.randrange(len(nodes))]
            opportunistic = fraction > 0 and rng.random() < fraction
            etype = ExecutionType.OPPORTUNISTIC if opportunistic else ExecutionType.GUARANTEED
            priority = 19 if opportunistic else 20  # MapReduce's PRIORITY_OPPORTUNISTIC_MAP and PRIORITY_MAP
            where = (node.hostname,), node.rack
            tasks.append(TaskSpec(1, rng.randint(a0, a1), priority, "map", container, *where, etype))
        reduces = rng.randint(r0, r1)
        if reduces:
            tasks.append(TaskSpec(reduces, rng.randint(b0, b1), 10, "reduce", container))
        queue = rng.choices(["default"], [1.0])[0]
        user = f"user{rng.randrange(4)}"
        name = f"synthetic_{i:06d}"
        yield JobSpec(f"synth_{i:06d}", "mapreduce", user, queue, int(now), None, am, tuple(tasks), name=name)


@pytest.mark.parametrize("fraction", [0.0, 0.3])
def test_synthetic_jobs_draw_as_randoms_methods_would(fraction: float) -> None:
    """The synthetic trace is the one its definition's Random calls give (the generator draws its numbers faster,
    not other numbers): the same jobs for the same seed in every version."""
    nodes = synthetic_nodes(37)
    ours = tuple(synthetic_jobs(60, nodes, 11, opportunistic_fraction=fraction, **OPTIONS))
    assert ours == tuple(_reference_jobs(60, nodes, 11, fraction))
    assert any(t.execution_type is ExecutionType.OPPORTUNISTIC for j in ours for t in j.tasks) == (fraction > 0)


def test_the_feed_takes_the_synthetic_jobs_packed_as_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fed a synthetic trace, the feed makes no task spec of a job before its AM unpacks them: it takes each job's
    tasks packed as drawn (SyntheticJobs.next_packed), which unpack to the specs iterating gives."""
    nodes = synthetic_nodes(6)
    packed = synthetic_jobs(12, nodes, 4, opportunistic_fraction=0.3, **OPTIONS)
    values = TaskValues()
    drawn = [packed.next_packed(values) for _ in range(12)]
    assert packed.next_packed(values) is None
    jobs = list(synthetic_jobs(12, nodes, 4, opportunistic_fraction=0.3, **OPTIONS))
    assert [(job, tasks.unpack(), tasks.total) for job, tasks in filter(None, drawn)] == [
        (msgspec.structs.replace(job, tasks=()), job.tasks, job.num_containers) for job in jobs
    ]

    def no_specs(self: object) -> None:
        raise AssertionError("a job made as specs")

    monkeypatch.setattr(SyntheticJobs, "__next__", no_specs)
    cluster = Cluster({}, nodes, seed=4)
    cluster.submit_jobs(synthetic_jobs(12, nodes, 4, **OPTIONS))
    cluster.run()
    assert cluster.rm.apps_done == 12


def test_packed_tasks_unpack_to_the_same_specs_with_shared_shapes() -> None:
    """A job's packed tasks unpack to equal specs, each shape (type, resource, hosts, rack, execution type) kept once
    in the feed's values; task specs are not tracked by the cyclic collector."""
    nodes = synthetic_nodes(5)
    jobs = list(synthetic_jobs(8, nodes, 2, opportunistic_fraction=0.5, **OPTIONS))
    values = TaskValues()
    packed = [PackedTasks(job.tasks, values) for job in jobs]
    assert [p.unpack() for p in packed] == [job.tasks for job in jobs]
    assert [p.total for p in packed] == [job.num_containers for job in jobs]
    shapes = {(t.task_type, t.resource, t.hosts, t.rack, t.execution_type) for job in jobs for t in job.tasks}
    assert len(values.values) == len(shapes) <= 5 * 2 + 1
    first, again = packed[0].unpack(), packed[0].unpack()
    assert all(a.hosts is b.hosts and a.resource is b.resource for a, b in zip(first, again))
    assert not gc.is_tracked(jobs[0].tasks[0])


def _run(tmp_path: Path, name: str, seed: int, how: str, start_ms: int) -> tuple[bytes, list[str], float]:
    """The run of a synthetic workload submitted at once (``eager``), fed from its jobs (``fed``), or fed from the
    synthetic trace packing each job's tasks as it draws them (``drawn``)."""
    workload = synthetic_workload(40, 8, seed, **OPTIONS)
    log = tmp_path / f"{name}.jsonl"
    configure_logging(json_path=log, level="debug")
    try:
        cluster = Cluster({}, workload.nodes, seed=seed)
        if start_ms:
            cluster.run(until_ms=start_ms)
        if how == "fed":
            cluster.submit_jobs(iter(workload.jobs))
        elif how == "drawn":
            cluster.submit_jobs(synthetic_jobs(40, workload.nodes, seed, **OPTIONS))
        else:
            cluster.submit_workload(workload)
        cluster.run()
    finally:
        close_logging()
    actors = [am.id for am in cluster.masters]
    return log.read_bytes(), actors, cluster.now


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 1000), start_ms=st.sampled_from([0, 2_000]))
def test_a_fed_run_is_the_run_of_the_workload_submitted_at_once(
    tmp_path_factory: pytest.TempPathFactory, seed: int, start_ms: int
) -> None:
    """The same event log (debug level: every submission, allocation and finish), byte for byte, the same AM ids and
    the same end, whether the jobs were fed as the run went (as specs, or packed as the synthetic trace draws them)
    or submitted at once (also after a first run)."""
    tmp_path = tmp_path_factory.mktemp("feed")
    eager = _run(tmp_path, "eager", seed, "eager", start_ms)
    assert _run(tmp_path, "fed", seed, "fed", start_ms) == eager
    assert _run(tmp_path, "drawn", seed, "drawn", start_ms) == eager
    assert sum(1 for line in eager[0].splitlines() if json.loads(line)["event"] == "application_finished") == 40


def test_jobs_made_ahead_in_batches_change_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The feed makes the trace's jobs PULL_BATCH at a time: the run is the same whatever the batch."""
    eager = _run(tmp_path, "eager", 5, "eager", 0)
    for batch in (1, 7):
        monkeypatch.setattr(_jobfeed, "PULL_BATCH", batch)
        assert _run(tmp_path, f"drawn-{batch}", 5, "drawn", 0) == eager


def test_the_feed_makes_at_most_a_batch_of_jobs_ahead() -> None:
    """A long trace is read a batch at a time, not whole: a job is made (read from the iterator) at most
    PULL_BATCH jobs before it is due within the lookahead."""
    nodes = synthetic_nodes(4)
    jobs = list(synthetic_jobs(300, nodes, 2, **{**OPTIONS, "load": 0.2}))
    taken = [0]

    def counted() -> Iterator[JobSpec]:
        for job in jobs:
            taken[0] += 1
            yield job

    cluster = Cluster({}, nodes, seed=2)
    cluster.submit_jobs(counted())
    due = sum(1 for j in jobs if j.submit_ms <= LOOKAHEAD_MS)
    assert due < _jobfeed.PULL_BATCH and taken[0] == _jobfeed.PULL_BATCH
    cluster.run(until_ms=jobs[150].submit_ms)
    spawned = len(cluster.masters)
    assert spawned < taken[0] <= spawned + _jobfeed.PULL_BATCH


def test_a_later_jobs_am_is_built_shortly_before_its_submit_time() -> None:
    """Only the jobs due within the lookahead have an AM; the others come as the clock nears them."""
    nodes = synthetic_nodes(4)
    jobs = list(synthetic_jobs(30, nodes, 2, **{**OPTIONS, "load": 0.2}))
    assert jobs[-1].submit_ms > 3 * LOOKAHEAD_MS  # (the scenario: a trace longer than the lookahead)
    cluster = Cluster({}, nodes, seed=2)
    cluster.submit_jobs(iter(jobs))
    due = [j for j in jobs if j.submit_ms <= LOOKAHEAD_MS]
    assert [am.name for am in cluster.masters] == [j.job_id for j in due]
    cluster.run(until_ms=2 * LOOKAHEAD_MS)
    assert len(cluster.masters) == sum(1 for j in jobs if j.submit_ms <= 3 * LOOKAHEAD_MS)
    cluster.run()
    assert cluster.rm.apps_done == 30 and cluster.finished()


def test_jobs_out_of_submit_time_order_are_refused() -> None:
    """A job due before the feed's clock (out of submit time order) is a clear error naming both jobs."""
    nodes = synthetic_nodes(2)
    jobs = list(synthetic_jobs(3, nodes, 1, **{**OPTIONS, "load": 0.05}))
    late, early = jobs[-1], jobs[0]
    assert late.submit_ms > 2 * LOOKAHEAD_MS
    cluster = Cluster({}, nodes, seed=1)
    cluster.submit_jobs(iter([late, early]))
    with pytest.raises(SimulationError, match=f"job '{early.job_id}' .* comes after job '{late.job_id}'"):
        cluster.run()


def _bench() -> object:
    path = Path(__file__).resolve().parent.parent / "bench" / "bench_simulation.py"
    spec = importlib.util.spec_from_file_location("bench_simulation", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_100000_node_benchmark_rejects_no_job() -> None:
    """bench_simulation.py --nodes 100000 --warmup-seconds 30 --sim-seconds 20 has more jobs than Hadoop's
    maximum-applications (10,000): its configuration raises the limit to the job count."""
    bench = _bench()
    jobs = bench.busy_job_count(100_000, 30 + 20, (5_000, 60_000), (10_000, 120_000), 1.5)  # type: ignore[attr-defined]
    assert jobs == 17_752 > keys.DEFAULT_MAXIMUM_SYSTEM_APPLICATIONS
    assert bench.max_applications(jobs) >= jobs  # type: ignore[attr-defined]
    assert bench.max_applications(100) == keys.DEFAULT_MAXIMUM_SYSTEM_APPLICATIONS  # type: ignore[attr-defined]
