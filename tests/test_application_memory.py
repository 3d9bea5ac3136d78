"""What applications hold as a long run goes: an application the RM removed (``max-completed-applications``) is
freed with its AM by reference counting, a registered AM's task specs share their values, a finished AM lets them go
and a waiting application holds a few kilobytes."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from yarnball.actors import configure_logging
from yarnball.actors._slsam import MRAppMaster
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import JobSpec, synthetic_jobs, synthetic_nodes
from yarnball.launcher.workloads._packed import PackedTasks, TaskValues
from yarnball.protocols import ContainerId

OPTIONS: dict[str, Any] = {
    "maps": (5, 10),
    "reduces": (0, 2),
    "map_ms": (1_000, 9_000),
    "reduce_ms": (1_000, 6_000),
    "load": 1.0,
}


@pytest.fixture(autouse=True)
def _quiet() -> None:
    configure_logging(level="warning")


@pytest.mark.parametrize("fed", [True, False])
def test_a_removed_application_leaves_no_garbage_for_the_collector(fed: bool) -> None:
    """With the cyclic collector off for the whole run, the AMs alive at its end are those of the applications the
    RM still holds: each removed one was freed by reference counting (a cycle through its heartbeat timer kept it,
    its tasks and asks until a full collection, which a run's tuned collector does not make)."""
    nodes = synthetic_nodes(8)
    jobs = list(synthetic_jobs(20, nodes, 1, **OPTIONS))
    cluster = Cluster({"yarn.resourcemanager.max-completed-applications": "2"}, nodes, seed=1)
    gc.collect()
    gc.disable()
    try:
        if fed:
            cluster.submit_jobs(iter(jobs))
        else:
            for job in jobs:
                cluster.submit_job(job)
        cluster.run()
        # (this run's AMs: a module fixture elsewhere in the suite may hold a cluster of its own)
        alive = sum(1 for o in gc.get_objects() if type(o) is MRAppMaster and o.kernel is cluster.kernel)
    finally:
        gc.enable()
    assert cluster.rm.apps_done == 20 and len(cluster.rm.apps) == 2
    assert alive == len(cluster.masters) == 2


def _job_tasks(tasks: int) -> JobSpec:
    nodes = synthetic_nodes(50)
    job = next(iter(synthetic_jobs(1, nodes, 3, maps=(tasks, tasks), reduces=(0, 0))))
    # as a trace reader gives them: every task its own strings and resource (decoded, not shared)
    return msgspec.json.decode(msgspec.json.encode(job), type=JobSpec)


def test_unpacked_task_specs_share_their_values() -> None:
    """A registered AM's unpacked specs (1,000 tasks on 50 hosts) take ~150 bytes a task, not ~500: the host
    names, racks, task type and resource are the feed's one copy of each."""
    job = _job_tasks(1000)
    values = TaskValues()
    packed = PackedTasks(job.tasks, values)
    assert packed.unpack() == job.tasks
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tasks = packed.unpack()
        per_task = (tracemalloc.get_traced_memory()[0] - base) / len(tasks)
    finally:
        tracemalloc.stop()
    assert tasks == job.tasks
    assert per_task < 200, per_task
    assert len(values.values) <= 50  # (one shape a host: type, resource, hosts, rack, execution type)


def test_a_finished_am_lets_its_unpacked_specs_go() -> None:
    nodes = synthetic_nodes(4)
    cluster = Cluster({}, nodes, seed=1)
    cluster.submit_jobs(iter(synthetic_jobs(3, nodes, 1, **OPTIONS)))
    cluster.run()
    assert cluster.rm.apps_done == 3
    for am in cluster.masters:
        assert isinstance(am._tasks, PackedTasks)  # packed again: unpacked only while the job ran
        assert am.completed_tasks == am.total_tasks > 0


def _many_jobs(n: int, nodes: tuple[object, ...]) -> Iterator[JobSpec]:
    for i, job in enumerate(synthetic_jobs(n, nodes, 5, maps=(100, 100), reduces=(10, 10))):  # type: ignore[arg-type]
        yield msgspec.structs.replace(job, submit_ms=100 * i)


def test_a_waiting_application_holds_a_few_kilobytes() -> None:
    """300 jobs of 110 tasks on 2 nodes: nearly all wait in their queue (ACCEPTED, their AM not started). Each
    costs, AM, RM application, attempt and scheduler application together, ~10 kB: the tasks stay packed."""
    nodes = synthetic_nodes(2)
    cluster = Cluster({}, nodes, seed=1)
    cluster.run(until_ms=2_000)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        cluster.submit_jobs(_many_jobs(300, nodes))
        cluster.run(until_ms=40_000)
        gc.collect()
        used = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    waiting = sum(1 for app in cluster.rm.apps.values() if app.state.value == "ACCEPTED")
    assert len(cluster.rm.apps) == 300 and waiting >= 290
    assert used / len(cluster.rm.apps) < 12_000, used / len(cluster.rm.apps)


def test_scheduler_attempts_share_their_empty_preemption_marks_and_blacklist() -> None:
    """A waiting attempt holds no set of its own for its preemption marks or its AM's blacklist (216 bytes each):
    all share one empty frozenset until the first mark or addition, which makes the attempt's own set."""
    nodes = synthetic_nodes(2)
    cluster = Cluster({}, nodes, seed=1)
    cluster.submit_jobs(_many_jobs(6, nodes))
    cluster.run(until_ms=20_000)
    attempts = [app.attempt for app in cluster.scheduler.applications.values() if app.attempt is not None]
    assert len(attempts) == 6
    first, second = attempts[0], attempts[1]
    assert first.preempt is second.preempt is first.blacklist and not first.preempt
    cid = next(iter(first.live), None) or ContainerId(first.attempt_id, 99)
    first.mark_preempted(cid)
    first.update_blacklist(["node0"], [])
    assert set(first.preempt) == {cid} and set(first.blacklist) == {"node0"}
    assert not second.preempt and not second.blacklist and second.preempt is second.blacklist
    first.clear_preempted()
    first.update_blacklist([], ["node0"])
    assert not first.preempt and not first.blacklist
