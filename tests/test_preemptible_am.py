"""The AM author's preemption API: checkpoint, release, resume; the checkpointing and restarting MR AMs."""

from __future__ import annotations

from pathlib import Path

import pytest

from yarnball.actors import (
    Checkpoint,
    CheckpointingMRAppMaster,
    FileSystemCheckpointStore,
    Kernel,
    PreemptibleAppMaster,
    RestartingMRAppMaster,
    TaskWork,
    mapreduce_tasks,
)
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Container,
    ContainerId,
    FinalApplicationStatus,
    NodeId,
    Priority,
    Resource,
    YarnApplicationState,
)
from yarnball.testing import captured_events

CONF = {
    "yarn.scheduler.capacity.root.queues": "q1,q2",
    "yarn.scheduler.capacity.root.q1.capacity": "50",
    "yarn.scheduler.capacity.root.q2.capacity": "50",
    "yarn.scheduler.capacity.root.q1.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.q1.user-limit-factor": "2",
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
}
NODES = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8).build().nodes


def contend(am_class: type[PreemptibleAppMaster], **kwargs: object) -> tuple[Cluster, PreemptibleAppMaster]:
    cluster = Cluster(CONF, NODES, seed=5)
    big = am_class(name="big", queue="q1", tasks=mapreduce_tasks(31, 4, map_ms=300_000, reduce_ms=60_000), **kwargs)
    cluster.submit(big)
    cluster.submit(
        RestartingMRAppMaster(name="small", queue="q2", submit_at_ms=60_000, tasks=mapreduce_tasks(8, map_ms=60_000))
    )
    with captured_events():
        cluster.run(until_ms=7_200_000)
    return cluster, big


def test_checkpointing_am_gives_containers_back_and_loses_no_work() -> None:
    """The checkpointing AM releases every container it is asked for, so none is killed and no work is lost."""
    cluster, big = contend(CheckpointingMRAppMaster)
    assert big.released_for_preemption > 0
    assert cluster.rm.counters["containers_preempted"] == 0
    assert big.work_lost_ms == 0
    assert big.checkpoints_saved == big.released_for_preemption
    assert big.work_resumed_ms > 0


def test_restarting_am_is_killed_and_loses_work() -> None:
    """The restarting AM keeps its containers: they are killed and their work is redone from zero."""
    cluster, big = contend(RestartingMRAppMaster)
    assert cluster.rm.counters["containers_preempted"] > 0
    assert big.work_lost_ms > 0
    assert big.checkpoints_saved == 0 and big.work_resumed_ms == 0


@pytest.mark.parametrize("am_class", [CheckpointingMRAppMaster, RestartingMRAppMaster])
def test_every_task_completes_and_preemption_is_no_failure(am_class: type[PreemptibleAppMaster]) -> None:
    """All tasks finish, the job succeeds, and preempted attempts are not failed attempts."""
    cluster, big = contend(am_class)
    report = next(a for a in cluster.applications if a.application_id == big.application_id)
    assert report.state is YarnApplicationState.FINISHED
    assert report.final_status is FinalApplicationStatus.SUCCEEDED
    assert big.completed_tasks == len(big.tasks)
    assert big.preempted_task_attempts > 0 and big.failed_task_attempts == 0


def test_checkpointing_finishes_sooner_than_restarting() -> None:
    """Resuming from checkpoints finishes the preempted job earlier than restarting its tasks."""
    c1, ckpt = contend(CheckpointingMRAppMaster)
    c2, restart = contend(RestartingMRAppMaster)
    end1 = next(a.finish_time for a in c1.applications if a.application_id == ckpt.application_id)
    end2 = next(a.finish_time for a in c2.applications if a.application_id == restart.application_id)
    assert end1 < end2


def test_reduces_start_after_every_map(tmp_path: Path) -> None:
    """MapReduce phases: the first reduce finishes after the last map."""
    _, big = contend(CheckpointingMRAppMaster, store=FileSystemCheckpointStore(tmp_path))
    last_map = max(t for k, t in big.done.items() if "_m_" in k)
    first_reduce = min(t for k, t in big.done.items() if "_r_" in k)
    assert first_reduce > last_map


def test_file_store_checkpoints_are_removed_when_tasks_finish(tmp_path: Path) -> None:
    """With the file system store, checkpoints are written during the run and deleted once each task succeeds."""
    store = FileSystemCheckpointStore(tmp_path)
    saved: list[str] = []
    original = store.save

    def spy(cp):  # type: ignore[no-untyped-def]
        saved.append(cp.task_id)
        original(cp)

    store.save = spy  # type: ignore[method-assign]
    _, big = contend(CheckpointingMRAppMaster, store=store)
    assert saved and big.completed_tasks == len(big.tasks)
    assert list(tmp_path.iterdir()) == []


def test_resumed_task_runs_only_the_remaining_work_plus_restore_overhead() -> None:
    """resume_task starts the container for work - saved + restore overhead."""
    am = CheckpointingMRAppMaster(name="x", tasks=mapreduce_tasks(1, map_ms=10_000), restore_overhead_ms=500)
    Kernel().spawn(am, "x")  # attached, never run: now == 0
    am.store.save(Checkpoint(task_id="task_m_000000", work_done_ms=4000))
    started: list[float | None] = []
    am.start_container = lambda c, duration_ms=None, context=None: started.append(duration_ms)  # type: ignore[method-assign]
    cid = ContainerId(ApplicationAttemptId(ApplicationId(1, 1), 1), 2)
    base = am.resume_task(
        am.tasks[0], Container(id=cid, node_id=NodeId("h", 0), resource=Resource(1024, 1), priority=Priority(20))
    )
    assert base == 4000
    assert started == [10_000 - 4000 + 500]
    assert am.progress_ms(cid) == 4000  # nothing new done yet, the saved part counts


def test_task_work_must_be_positive() -> None:
    """A task with no work is refused."""
    with pytest.raises(ValueError, match="work_ms"):
        TaskWork(task_id="t", work_ms=0)


def test_an_am_needs_tasks() -> None:
    """A PreemptibleAppMaster without tasks is refused."""
    with pytest.raises(ValueError, match="at least one task"):
        CheckpointingMRAppMaster(name="empty", tasks=[])


def _allocate_to(am: PreemptibleAppMaster, *sizes: Resource) -> tuple[list[str], list[ContainerId]]:
    """Hand ``am`` one container per size at priority 20; return the tasks started and the containers released."""
    Kernel().spawn(am, am.name)
    started: list[str] = []
    am.resume_task = lambda task, container: started.append(task.task_id) or 0  # type: ignore[method-assign]
    am.pending.extend(am.tasks)
    attempt = ApplicationAttemptId(ApplicationId(1, 1), 1)
    containers = tuple(
        Container(id=ContainerId(attempt, i + 2), node_id=NodeId("h", 0), resource=size, priority=Priority(20))
        for i, size in enumerate(sizes)
    )
    am.on_containers_allocated(containers)
    return started, list(am._release)


def test_allocated_container_too_small_for_the_task_is_released() -> None:
    """A container at the task's priority but smaller than the task is given back, not run (getMatchingRequests)."""
    am = CheckpointingMRAppMaster(name="x", tasks=mapreduce_tasks(1, map_ms=1000, resource=Resource(2048, 1)))
    started, released = _allocate_to(am, Resource(1024, 1))
    assert started == [] and len(released) == 1
    assert [t.task_id for t in am.pending] == ["task_m_000000"]


def test_allocated_container_rounded_up_still_matches_the_task() -> None:
    """A container larger than the ask (the RM rounds up to its increment) serves the task at that priority."""
    am = CheckpointingMRAppMaster(name="x", tasks=mapreduce_tasks(1, map_ms=1000, resource=Resource(1000, 1)))
    started, released = _allocate_to(am, Resource(1024, 1))
    assert started == ["task_m_000000"] and released == []


def test_two_task_sizes_at_one_priority_are_refused() -> None:
    """Tasks of different sizes at one priority are refused: YARN's RM keeps one ask per priority."""
    tasks = [TaskWork(task_id="a", work_ms=1), TaskWork(task_id="b", work_ms=1, resource=Resource(2048, 1))]
    with pytest.raises(ValueError, match="different resources at priority 20"):
        CheckpointingMRAppMaster(name="x", tasks=tasks)


# q1's guarantee (20% of 16 GB) is far below its 6 GB AM container and its AM allowance (10% of that) even more,
# so when q2 claims its share the 10 x 1 GB tasks are not enough and the AM container is selected too.
AM_CONF = {
    "yarn.scheduler.capacity.root.queues": "q1,q2",
    "yarn.scheduler.capacity.root.q1.capacity": "20",
    "yarn.scheduler.capacity.root.q2.capacity": "80",
    "yarn.scheduler.capacity.root.q1.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.q1.user-limit-factor": "5",
    "yarn.scheduler.capacity.root.q1.maximum-am-resource-percent": "0.1",
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round": "1.0",
    "yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor": "1.0",
}


class _Timed(RestartingMRAppMaster):
    """Records when each task attempt started and when the AM container died."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.started: dict[ContainerId, float] = {}
        self.deaths: list[float] = []
        self.runs_at_death: list[list[ContainerId]] = []
        self.lost_at_restart: list[float] = []

    def resume_task(self, task: TaskWork, container: Container) -> int:
        self.started[container.id] = self.now
        return super().resume_task(task, container)

    def on_attempt_restarted(self) -> None:
        # The AM container's ContainerTerminated and the new attempt's launch happen at one simulated time here;
        # their order among same-time events is the kernel's canonical one, so the death may not be seen yet.
        self.deaths.append(self._am_died_at if self._am_died_at is not None else self.now)
        self.runs_at_death.append(list(self.runs))
        before = self.work_lost_ms
        super().on_attempt_restarted()
        self.lost_at_restart.append(self.work_lost_ms - before)


def am_preempted(am_class: type[PreemptibleAppMaster]) -> tuple[Cluster, PreemptibleAppMaster]:
    cluster = Cluster(AM_CONF, WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8).build().nodes, seed=5)
    big = am_class(name="big", queue="q1", am_resource=Resource(6144, 1), tasks=mapreduce_tasks(10, map_ms=600_000))
    cluster.submit(big)
    cluster.submit(
        RestartingMRAppMaster(name="small", queue="q2", submit_at_ms=60_000, tasks=mapreduce_tasks(11, map_ms=60_000))
    )
    with captured_events():
        cluster.run(until_ms=7_200_000)
    return cluster, big


def test_preempted_am_container_starts_a_new_attempt_that_resumes_from_checkpoints() -> None:
    """The AM container is taken; later attempts resume the checkpointed tasks; no task or attempt failure counts."""
    cluster, big = am_preempted(CheckpointingMRAppMaster)
    assert big.attempt_id is not None and big.attempt_id.attempt_id > 1
    assert cluster.rm.counters["containers_preempted"] >= 1
    assert cluster.rm.apps[big.application_id].counted_failures == 0
    assert big.checkpoints_saved > 0 and big.work_resumed_ms > 0
    assert big.failed_task_attempts == 0 and big.work_lost_ms == 0
    assert big.completed_tasks == 10
    report = next(a for a in cluster.applications if a.application_id == big.application_id)
    assert report.final_status is FinalApplicationStatus.SUCCEEDED


def test_work_lost_with_the_am_is_counted_up_to_its_death_not_the_next_launch() -> None:
    """Tasks that die with a preempted AM lose exactly their run time until the AM container died."""
    cluster, big = am_preempted(_Timed)
    assert big.deaths and big.runs_at_death[0]
    expected = [sum(died - big.started[cid] for cid in cids) for died, cids in zip(big.deaths, big.runs_at_death)]
    assert big.lost_at_restart == expected
    assert expected[0] > 0
    assert big.failed_task_attempts == 0
    assert cluster.rm.apps[big.application_id].counted_failures == 0
