"""The cluster behaviour suite, run on every backend with one latency: embedded, the shard hosts in this process (one
host, two) and two Ray shard hosts (the Ray lane). Each test uses only what every backend has (``applications``,
``counters``, ``queues``, the outputs and the REST answers)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from yarnball.actors._appmaster import ApplicationMaster
from yarnball.errors import ConfigurationError, YarnballError
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import NodeSpec, TraceDefaults, WorkloadBuilder, load_workload, task_spec
from yarnball.protocols import (
    Configuration,
    ContainerProcessExited,
    FinalApplicationStatus,
    Resource,
    YarnApplicationState,
)
from yarnball.testing import captured_events

TWO_QUEUES = {
    "yarn.scheduler.capacity.root.queues": "a,b",
    "yarn.scheduler.capacity.root.a.capacity": "50",
    "yarn.scheduler.capacity.root.b.capacity": "50",
    "yarn.scheduler.capacity.root.b.queues": "b1",
    "yarn.scheduler.capacity.root.b.b1.capacity": "100",
}
LATENCY_MS = 50  # the same on every backend (so they agree); 50 ms keeps the Ray windows few


@pytest.fixture(name="make_cluster")
def fixture_make_cluster(backend: Any) -> Iterator[Any]:
    """Build clusters on the test's backend; every one is closed at the end of the test."""
    made: list[Cluster] = []

    def make(conf: Any, nodes: Sequence[NodeSpec], seed: int = 3) -> Cluster:
        cluster = Cluster(conf, nodes, seed=seed, latency_ms=LATENCY_MS, **backend.options)
        made.append(cluster)
        return cluster

    with captured_events():
        yield make
    for cluster in made:
        cluster.close()


def small(make_cluster: Any, conf: dict[str, str] | None = None, nodes: int = 4) -> tuple[Cluster, WorkloadBuilder]:
    builder = WorkloadBuilder().nodes(nodes, memory_mb=8192, vcores=8)
    return make_cluster(Configuration(conf or TWO_QUEUES), builder.build().nodes), builder


def test_sls_sample_trace_runs_to_completion(make_cluster: Any, shared_data: Path) -> None:
    """Both jobs of the shared SLS sample finish SUCCEEDED and no container is left running."""
    conf = Configuration.from_conf_dir(shared_data / "sls" / "sample-conf")
    sls = shared_data / "sls"
    workload = load_workload(
        "SLS", [sls / "inputsls.json"], sls / "nodes.json", TraceDefaults.from_configuration(conf), 1
    )
    cluster = make_cluster(conf, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run(until_ms=3_600_000)
    apps = cluster.applications
    assert len(apps) == 2
    assert all(a.final_status is FinalApplicationStatus.SUCCEEDED for a in apps)
    assert cluster.running_containers == 0


def test_unknown_and_parent_queue_submissions_are_rejected(make_cluster: Any) -> None:
    """Jobs to an unknown or a parent queue are rejected with YARN's words; a good job still finishes."""
    cluster, builder = small(make_cluster)
    builder.job("good", queue="a", tasks=[task_spec(2, 5000)])
    builder.job("lost", queue="nosuch", tasks=[task_spec(1, 5000)])
    builder.job("parent", queue="b", tasks=[task_spec(1, 5000)])
    cluster.submit_workload(builder.build())
    cluster.run(until_ms=600_000)
    by_name = {a.name: a for a in cluster.applications}
    assert by_name["good"].final_status is FinalApplicationStatus.SUCCEEDED
    assert "to unknown queue: nosuch" in by_name["lost"].diagnostics
    assert "to non-leaf queue" in by_name["parent"].diagnostics
    assert cluster.counters["apps_rejected"] == 2


def test_submit_acl_rejects_user_without_access(make_cluster: Any) -> None:
    """With yarn.acl.enable, a user outside the queue's submit ACL is rejected; an allowed user runs."""
    conf = dict(TWO_QUEUES)
    conf.update(
        {
            "yarn.acl.enable": "true",
            "yarn.admin.acl": " ",
            "yarn.scheduler.capacity.root.acl_submit_applications": " ",
            "yarn.scheduler.capacity.root.acl_administer_queue": " ",
            "yarn.scheduler.capacity.root.a.acl_submit_applications": "alice",
        }
    )
    cluster, builder = small(make_cluster, conf)
    builder.job("by-alice", queue="a", user="alice", tasks=[task_spec(1, 1000)])
    builder.job("by-mallory", queue="a", user="mallory", tasks=[task_spec(1, 1000)])
    cluster.submit_workload(builder.build())
    cluster.run(until_ms=600_000)
    by_name = {a.name: a for a in cluster.applications}
    assert by_name["by-alice"].final_status is FinalApplicationStatus.SUCCEEDED
    assert by_name["by-mallory"].state is YarnApplicationState.FAILED


def test_lost_node_is_expired_and_the_job_still_finishes(make_cluster: Any) -> None:
    """A node dying mid-job is expired by the RM, its containers are lost, and the job still succeeds."""
    conf = dict(TWO_QUEUES)
    conf["yarn.nm.liveness-monitor.expiry-interval-ms"] = "30000"
    cluster, builder = small(make_cluster, conf, nodes=3)
    builder.job("j", queue="a", tasks=[task_spec(6, 60_000)])
    cluster.submit_workload(builder.build())
    cluster.fail_node("node1", at_ms=20_000)
    cluster.run(until_ms=3_600_000)
    (app,) = cluster.applications
    assert cluster.counters["nodes_lost"] == 1
    assert cluster.counters["containers_lost"] >= 1
    assert app.final_status is FinalApplicationStatus.SUCCEEDED


def test_run_until_then_continue(make_cluster: Any) -> None:
    """run(until_ms) stops at that time with work still running; a second run finishes it."""
    cluster, builder = small(make_cluster)
    builder.job("long", queue="a", tasks=[task_spec(3, 60_000)])
    cluster.submit_workload(builder.build())
    assert cluster.run(until_ms=30_000) == 30_000
    assert cluster.now == 30_000
    assert cluster.running_containers == 4  # the AM and three tasks
    end = cluster.run()
    assert end > 60_000
    assert cluster.applications[0].final_status is FinalApplicationStatus.SUCCEEDED


class CountingAM(ApplicationMaster):
    """A user AM: asks for three containers, runs them 10 s each, finishes when all three completed."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(name="counting", queue="a", **kw)
        self.done: list[int] = []

    def on_registered(self, response: object) -> None:
        self.add_container_request(Resource(2048, 1), priority=1, count=3)

    def on_containers_allocated(self, containers: tuple[Any, ...]) -> None:
        for c in containers:
            self.start_container(c, duration_ms=10_000)

    def on_containers_completed(self, statuses: tuple[Any, ...]) -> None:
        self.done.extend(s.exit_status for s in statuses)
        if len(self.done) == 3:
            self.finish()


class CrashingAM(CountingAM):
    """Its first attempt's AM process dies right after registering."""

    def on_registered(self, response: object) -> None:
        if self.attempt_id is not None and self.attempt_id.attempt_id == 1:
            assert self.am_container is not None
            self.kernel.lookup(f"nm-{self.am_container.node_id.host}").tell(
                ContainerProcessExited(container_id=self.am_container.id, exit_status=1), self.ref
            )
            return
        super().on_registered(response)


def test_user_application_master_runs(make_cluster: Any) -> None:
    """A plain-Python AM (shipped to its host) gets its containers and finishes its application."""
    cluster, _ = small(make_cluster)
    cluster.submit(CountingAM(submit_at_ms=5_000))
    end = cluster.run()
    (app,) = cluster.applications
    assert app.final_status is FinalApplicationStatus.SUCCEEDED
    assert 15_000 <= end <= 25_000


def test_failed_am_attempt_is_retried(make_cluster: Any) -> None:
    """An AM container exiting 1 fails the attempt; attempt 2 finishes the job."""
    cluster, _ = small(make_cluster)
    cluster.submit(CrashingAM())
    cluster.run(until_ms=600_000)
    (app,) = cluster.applications
    assert str(app.current_attempt_id).endswith("_000002")
    assert app.final_status is FinalApplicationStatus.SUCCEEDED


def test_bad_capacity_configuration_is_rejected_at_build(backend: Any) -> None:
    """A queue tree whose children do not sum to 100 stops the cluster from being built, with Hadoop's words."""
    conf = dict(TWO_QUEUES)
    conf["yarn.scheduler.capacity.root.a.capacity"] = "60"
    with pytest.raises(ConfigurationError, match="Illegal capacity"):
        Cluster(Configuration(conf), latency_ms=LATENCY_MS, **backend.options)


PREEMPTION = {
    "yarn.scheduler.capacity.root.queues": "q1,q2",
    "yarn.scheduler.capacity.root.q1.capacity": "50",
    "yarn.scheduler.capacity.root.q2.capacity": "50",
    "yarn.scheduler.capacity.root.q1.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.q1.user-limit-factor": "2",
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
}


def test_preemption_gives_a_starved_queue_its_share(make_cluster: Any) -> None:
    """With the preemption monitor on, a job over its queue's share loses containers to a job arriving in the other
    queue, and both jobs still succeed."""
    cluster, builder = small(make_cluster, PREEMPTION)
    builder.job("big", queue="q1", tasks=[task_spec(31, 400_000)])
    builder.job("late", queue="q2", submit_ms=60_000, tasks=[task_spec(8, 60_000)])
    cluster.submit_workload(builder.build())
    cluster.run(until_ms=3_600_000)
    assert cluster.counters["containers_preempted"] > 0
    assert all(a.final_status is FinalApplicationStatus.SUCCEEDED for a in cluster.applications)


def test_opportunistic_tasks_get_opportunistic_containers(make_cluster: Any, tmp_path: Path) -> None:
    """With opportunistic allocation on, a trace's OPPORTUNISTIC tasks run in OPPORTUNISTIC containers (counted in
    summary.json) and the job finishes."""
    conf = {
        **TWO_QUEUES,
        "yarn.resourcemanager.opportunistic-container-allocation.enabled": "true",
        "yarn.nodemanager.opportunistic-containers-max-queue-length": "10",
    }
    cluster, builder = small(make_cluster, conf, nodes=2)
    builder.job("j", queue="a", tasks=[task_spec(3, 2_000, execution_type="OPPORTUNISTIC"), task_spec(2, 2_000)])
    cluster.submit_workload(builder.build())
    cluster.record_metrics(1_000)
    cluster.run()
    summary = cluster.write_outputs(tmp_path, wall_seconds=1.0, plots=False)
    assert summary["containers"]["opportunistic_allocated"] >= 3
    assert cluster.applications[0].final_status is FinalApplicationStatus.SUCCEEDED


def test_a_fault_schedule_loses_a_node(make_cluster: Any) -> None:
    """A node_lost fault from a schedule kills the node's NM: the RM expires it and the job finishes elsewhere."""
    conf = dict(TWO_QUEUES)
    conf["yarn.nm.liveness-monitor.expiry-interval-ms"] = "30000"
    cluster, builder = small(make_cluster, conf, nodes=3)
    builder.job("j", queue="a", tasks=[task_spec(6, 60_000)])
    cluster.submit_workload(builder.build())
    cluster.inject([{"at_ms": 20_000, "kind": "node_lost", "target": "node1"}])
    cluster.run(until_ms=3_600_000)
    assert cluster.counters["nodes_lost"] == 1
    assert cluster.applications[0].final_status is FinalApplicationStatus.SUCCEEDED


def test_a_fault_on_an_unknown_node_is_refused_before_the_run(make_cluster: Any) -> None:
    """A fault naming a node the cluster does not have is refused at inject, naming the entry and the field."""
    cluster, _ = small(make_cluster)
    with pytest.raises(YarnballError, match="target"):
        cluster.inject([{"at_ms": 1_000, "kind": "node_lost", "target": "nosuch"}])


def test_rest_answers_after_the_run(make_cluster: Any, tmp_path: Path) -> None:
    """The RM's REST answers (cluster-state.json, /ws/v1/cluster's shapes) list the finished and the rejected
    application and every node."""
    from yarnball.launcher.web.report import write_state

    cluster, builder = small(make_cluster)
    builder.job("good", queue="a", tasks=[task_spec(2, 5_000)])
    builder.job("lost", queue="nosuch", tasks=[task_spec(1, 5_000)])
    cluster.submit_workload(builder.build())
    cluster.run(until_ms=600_000)
    state = json.loads(write_state(tmp_path, cluster).read_text(encoding="utf-8"))
    apps = {a["name"]: a for a in state["apps"]["app"]}
    assert (apps["good"]["state"], apps["good"]["finalStatus"]) == ("FINISHED", "SUCCEEDED")
    assert apps["lost"]["state"] == "FAILED"
    assert state["clusterMetrics"]["appsCompleted"] == 1
    assert len(state["nodes"]["node"]) == 4


def test_queue_refresh_at_a_time_changes_capacities(make_cluster: Any) -> None:
    """A queue refresh scheduled at a simulated time changes the queues' capacities from then on."""
    cluster, builder = small(make_cluster)
    builder.job("j", queue="a", tasks=[task_spec(2, 5_000)])
    cluster.submit_workload(builder.build())
    refreshed = dict(TWO_QUEUES)
    refreshed["yarn.scheduler.capacity.root.a.capacity"] = "30"
    refreshed["yarn.scheduler.capacity.root.b.capacity"] = "70"
    cluster.refresh_queues(refreshed, at_ms=1_000)
    cluster.run(until_ms=600_000)
    capacity = {q.queue_name: q.capacity for q in cluster.queues}
    assert capacity["a"] * 70 == pytest.approx(capacity["b"] * 30)  # 30 % and 70 %, whatever the unit
