"""The PreemptionMonitor end to end: enabling keys, PreemptionMessages, kills after max_wait, marks, counting."""

from __future__ import annotations

import math

import pytest

from yarnball.actors import RestartingMRAppMaster, mapreduce_tasks
from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher._outputs import MetricsRecorder, build_summary
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import (
    ANY,
    ContainerExitStatus,
    ContainerStatus,
    KillApplicationRequest,
    PreemptionMessage,
    Resource,
)
from yarnball.testing import captured_events

QUEUES = {
    "yarn.scheduler.capacity.root.queues": "q1,q2",
    "yarn.scheduler.capacity.root.q1.capacity": "50",
    "yarn.scheduler.capacity.root.q2.capacity": "50",
    "yarn.scheduler.capacity.root.q1.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.q1.user-limit-factor": "2",
}
ON = {**QUEUES, "yarn.resourcemanager.scheduler.monitor.enable": "true"}
NODES = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8).build().nodes
MAX_WAIT = 15_000  # Hadoop's default max_wait_before_kill
INTERVAL = 3_000  # Hadoop's default monitoring_interval


class RecordingAM(RestartingMRAppMaster):
    """Ignores PreemptionMessages and records when each container was named and how it ended."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.sizes: dict[object, Resource] = {}
        self.ended: list[tuple[float, ContainerStatus]] = []

    def on_preemption_message(self, message: PreemptionMessage) -> None:
        super().on_preemption_message(message)
        for cid in self.preempted_containers(message):
            self.sizes[cid] = self.runs[cid].container.resource

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        self.ended.extend((self.now, s) for s in statuses)
        super().on_containers_completed(statuses)


def run_two_apps(conf: dict[str, str], *, task_mb: int = 1024, until_ms: int = 3_600_000) -> tuple[Cluster, list]:
    cluster = Cluster(conf, NODES, seed=3)
    big = RecordingAM(
        name="app1",
        queue="q1",
        tasks=mapreduce_tasks(32 * 1024 // task_mb - 1, map_ms=400_000, resource=Resource(task_mb, 1)),
    )
    small = RecordingAM(name="app2", queue="q2", submit_at_ms=60_000, tasks=mapreduce_tasks(8, map_ms=60_000))
    cluster.submit(big)
    cluster.submit(small)
    with captured_events():
        cluster.run(until_ms=until_ms)
    return cluster, [big, small]


def mark_times(am: RecordingAM) -> dict[object, float]:
    first: dict[object, float] = {}
    for t, message in am.preemption_messages:
        for cid in am.preempted_containers_in(message):
            first.setdefault(cid, t)
    return first


def _named(message: PreemptionMessage) -> list[object]:
    ids = []
    for contract in (message.strict_contract, message.contract):
        if contract is not None:
            ids += [pc.id for pc in contract.containers]
    return ids


RecordingAM.preempted_containers_in = staticmethod(_named)  # type: ignore[attr-defined]


def test_monitor_is_disabled_by_default() -> None:
    """Without yarn.resourcemanager.scheduler.monitor.enable no monitor runs and nothing is preempted."""
    cluster, (big, _small) = run_two_apps(QUEUES)
    assert cluster.rm.preemption_monitor is None
    assert cluster.rm.counters["containers_preempted"] == 0
    assert big.preemption_messages == []


def test_unknown_monitor_policy_is_rejected() -> None:
    """A policy class yarnball does not implement is a ConfigurationError naming the key."""
    conf = {**ON, "yarn.resourcemanager.scheduler.monitor.policies": "org.example.MyPolicy"}
    with pytest.raises(ConfigurationError, match=r"yarn\.resourcemanager\.scheduler\.monitor\.policies"):
        Cluster(conf, NODES)


def test_monitor_policy_by_simple_class_name_is_accepted() -> None:
    """The policy may be named by its simple class name too."""
    conf = {**ON, "yarn.resourcemanager.scheduler.monitor.policies": "ProportionalCapacityPreemptionPolicy"}
    assert Cluster(conf, NODES).rm.preemption_monitor is not None


def test_monitor_runs_every_monitoring_interval() -> None:
    """The monitor runs one round per monitoring_interval from time 0."""
    conf = {**ON, "yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval": "5000"}
    cluster = Cluster(conf, NODES)
    cluster.submit(RecordingAM(name="a", queue="q1", tasks=mapreduce_tasks(1, map_ms=100_000)))
    cluster.run(until_ms=50_000)
    assert cluster.rm.preemption_monitor.rounds == 50_000 // 5000 + 1


def _round_times(cluster: Cluster) -> list[float]:
    monitor = cluster.rm.preemption_monitor
    times: list[float] = []
    edit = monitor.edit_schedule

    def recording() -> object:
        times.append(monitor.now)
        return edit()

    monitor.edit_schedule = recording  # type: ignore[method-assign]
    return times


def test_changed_monitoring_interval_is_picked_up_as_scheduling_monitor_does() -> None:
    """A new interval is read by the next round and rescheduled (delay 0) one old period later (YARN-7370)."""
    conf = {**ON, "yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval": "5000"}
    cluster = Cluster(conf, NODES)
    cluster.submit(RecordingAM(name="a", queue="q1", tasks=mapreduce_tasks(1, map_ms=100_000)))
    times = _round_times(cluster)
    cluster.run(until_ms=12_000)
    cluster.rm.scheduler.conf.conf.set("yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval", 2000)
    cluster.run(until_ms=27_000)
    # 15 s: the round reads 2 s; 20 s: PolicyInvoker sees the change, reschedules, runs at once; then every 2 s.
    assert times == [0, 5000, 10_000, 15_000, 20_000, 22_000, 24_000, 26_000]
    assert cluster.rm.preemption_monitor.interval_ms == 2000


def test_non_positive_new_monitoring_interval_stops_the_monitor() -> None:
    """A changed interval of 0 stops the monitor, as scheduleAtFixedRate throws after the old task was cancelled."""
    cluster = Cluster(ON, NODES)
    cluster.submit(RecordingAM(name="a", queue="q1", tasks=mapreduce_tasks(1, map_ms=100_000)))
    times = _round_times(cluster)
    cluster.run(until_ms=1000)
    cluster.rm.scheduler.conf.conf.set("yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval", 0)
    cluster.run(until_ms=30_000)
    assert times == [0, 3000]


def test_preemption_message_contracts() -> None:
    """Strict and negotiable contracts name the same marked containers; the request is Hadoop's
    (priority -1, '*', minimum allocation, ceil(total / minimum) containers)."""
    cluster, (big, _) = run_two_apps(ON, task_mb=2048)
    assert big.preemption_messages
    for _, message in big.preemption_messages:
        strict = [pc.id for pc in message.strict_contract.containers]
        negotiable = [pc.id for pc in message.contract.containers]
        assert strict == negotiable and strict
        (request,) = (r.resource_request for r in message.contract.resource_request)
        total = sum(big.sizes[c].memory_mb for c in strict)
        assert request.priority.priority == -1
        assert request.resource_name == ANY
        assert request.capability == cluster.scheduler.minimum_allocation
        assert request.num_containers == math.ceil(total / 1024) == 2 * len(strict)


def test_each_mark_reaches_the_am_once() -> None:
    """A container is named in one PreemptionMessage only (the scheduler forgets a mark once pulled)."""
    _, (big, _) = run_two_apps(ON)
    named = [c for _, m in big.preemption_messages for c in m.strict_contract.containers]
    assert len(named) == len(set(named)) > 0


def test_containers_still_held_are_killed_after_max_wait_with_preempted() -> None:
    """A marked container the AM keeps ends PREEMPTED (-102) max_wait_before_kill after its mark, within a
    monitoring interval and an AM heartbeat or two."""
    cluster, (big, _) = run_two_apps(ON)
    marked = mark_times(big)
    preempted = [(t, s) for t, s in big.ended if s.exit_status == ContainerExitStatus.PREEMPTED]
    assert preempted
    for t, status in preempted:
        waited = t - marked[status.container_id]
        assert MAX_WAIT <= waited <= MAX_WAIT + INTERVAL + 2 * big.heartbeat_interval_ms
        assert status.diagnostics == "Container preempted by scheduler"
    assert cluster.rm.counters["containers_preempted"] == len(preempted) == cluster.rm.preemption_monitor.killed


def test_the_node_manager_really_kills_the_preempted_container() -> None:
    """Within two NM heartbeats of the kill, the preempted container is gone from its NodeManager."""
    cluster = Cluster(ON, NODES, seed=3)
    big = cluster.submit(RecordingAM(name="app1", queue="q1", tasks=mapreduce_tasks(31, map_ms=400_000)))
    cluster.submit(RecordingAM(name="app2", queue="q2", submit_at_ms=60_000, tasks=mapreduce_tasks(8, map_ms=60_000)))
    checked = 0
    with captured_events():
        for t in range(1000, 150_000, 1000):
            cluster.run(until_ms=t)
            for ended_at, status in big.ended:
                if status.exit_status == ContainerExitStatus.PREEMPTED and ended_at <= t - 2000:
                    assert all(status.container_id not in nm.containers for nm in cluster.node_managers.values())
                    checked += 1
    assert checked > 0


def test_summary_counts_preempted_containers() -> None:
    """summary.json's containers.preempted is the number of containers killed by preemption."""
    cluster = Cluster(ON, NODES, seed=3)
    cluster.submit(RecordingAM(name="app1", queue="q1", tasks=mapreduce_tasks(31, map_ms=400_000)))
    cluster.submit(RecordingAM(name="app2", queue="q2", submit_at_ms=60_000, tasks=mapreduce_tasks(8, map_ms=60_000)))
    recorder = MetricsRecorder(cluster, 10_000)
    recorder.start()
    with captured_events():
        cluster.run(until_ms=3_600_000)
    killed_by_monitor = sum(
        1 for am in cluster.masters for _, s in am.ended if s.exit_status == ContainerExitStatus.PREEMPTED
    )
    summary = build_summary(cluster, recorder, wall_seconds=1.0, seed=3)
    assert summary["containers"]["preempted"] == killed_by_monitor > 0


def test_preempted_tasks_are_not_task_failures() -> None:
    """Preempted task attempts are counted apart and never as failures (MAPREDUCE-5900)."""
    _, (big, _small) = run_two_apps(ON)
    assert big.preempted_task_attempts > 0
    assert big.failed_task_attempts == 0
    assert big.completed_tasks == len(big.tasks)


def test_sls_am_does_not_count_preemption_as_failure() -> None:
    """SLS's MR AM reruns a preempted task without counting a failed attempt."""
    builder = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8)
    builder.job("app1", queue="q1", tasks=[task_spec(31, 400_000, memory_mb=1024, vcores=1)])
    builder.job("app2", queue="q2", submit_ms=60_000, tasks=[task_spec(8, 60_000, memory_mb=1024, vcores=1)])
    workload = builder.build()
    cluster = Cluster(ON, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    with captured_events():
        cluster.run(until_ms=3_600_000)
    am1 = cluster.masters[0]
    assert am1.preempted_task_attempts == cluster.rm.counters["containers_preempted"] > 0
    assert am1.failed_task_attempts == 0


def test_marks_are_dropped_when_no_longer_needed() -> None:
    """When the under-served application goes away, marked containers are not killed and the marks are dropped."""
    cluster = Cluster(ON, NODES, seed=3)
    big = cluster.submit(RecordingAM(name="app1", queue="q1", tasks=mapreduce_tasks(31, map_ms=200_000)))
    small = cluster.submit(
        RecordingAM(name="app2", queue="q2", submit_at_ms=60_000, tasks=mapreduce_tasks(8, map_ms=60_000))
    )
    monitor = cluster.rm.preemption_monitor
    with captured_events():
        while not big.preemption_messages and cluster.now < 120_000:
            cluster.run(until_ms=cluster.now + 500)
        assert monitor.state.marks
        cluster.rm.ref.tell(KillApplicationRequest(application_id=small.application_id))
        cluster.run(until_ms=cluster.now + 2 * MAX_WAIT + 2 * INTERVAL)
    assert monitor.killed == 0
    assert cluster.rm.counters["containers_preempted"] == 0
    assert monitor.state.marks == {}


def test_marks_of_released_containers_are_dropped_at_once() -> None:
    """A marked container the AM releases is never killed and its mark goes at the next round."""
    from yarnball.actors import CheckpointingMRAppMaster

    cluster = Cluster(ON, NODES, seed=3)
    big = cluster.submit(CheckpointingMRAppMaster(name="a1", queue="q1", tasks=mapreduce_tasks(31, map_ms=400_000)))
    cluster.submit(RecordingAM(name="app2", queue="q2", submit_at_ms=60_000, tasks=mapreduce_tasks(8, map_ms=60_000)))
    monitor = cluster.rm.preemption_monitor
    with captured_events():
        cluster.run(until_ms=200_000)
    assert big.released_for_preemption > 0
    assert monitor.killed == 0 and cluster.rm.counters["containers_preempted"] == 0
    live = {str(c) for c in cluster.rm.live}
    assert set(monitor.state.marks) <= live


def test_same_seed_same_preemption() -> None:
    """Two runs with the same seed mark and kill the same containers at the same times."""

    def run() -> list:
        _, (big, _) = run_two_apps(ON)
        return [(t, str(s.container_id), s.exit_status) for t, s in big.ended]

    assert run() == run()
