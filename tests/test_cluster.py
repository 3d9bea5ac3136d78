"""The Cluster end to end: RM, NMs and AMs as actors in virtual time, driven by traces and by Python."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from yarnball.actors import configure_logging
from yarnball.actors._appmaster import ApplicationMaster
from yarnball.actors._logging import close_logging
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import TraceDefaults, WorkloadBuilder, load_workload, task_spec
from yarnball.protocols import (
    Configuration,
    ContainerExitStatus,
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


def run_trace(shared_data: Path, trace_type: str, trace: str, seed: int = 1) -> Cluster:
    conf = Configuration.from_conf_dir(shared_data / "sls" / "sample-conf")
    workload = load_workload(
        trace_type,
        [shared_data / "sls" / trace],
        shared_data / "sls" / "nodes.json",
        TraceDefaults.from_configuration(conf),
        seed,
    )
    cluster = Cluster(conf, workload.nodes, seed=seed)
    cluster.submit_workload(workload)
    with captured_events():
        cluster.run(until_ms=24 * 3600 * 1000)
    return cluster


@pytest.mark.parametrize(
    ("trace_type", "trace", "jobs"),
    [("SLS", "inputsls.json", 2), ("SYNTH", "syn.json", 10), ("RUMEN", "2jobs2min-rumen-jh.json", 2)],
)
def test_shared_sample_traces_run_to_completion(shared_data: Path, trace_type: str, trace: str, jobs: int) -> None:
    """Every job of the shared SLS, SYNTH and Rumen samples finishes SUCCEEDED on nodes.json with the sample conf."""
    cluster = run_trace(shared_data, trace_type, trace)
    apps = cluster.applications
    assert len(apps) == jobs
    assert all(
        a.state is YarnApplicationState.FINISHED and a.final_status is FinalApplicationStatus.SUCCEEDED for a in apps
    )
    counters = cluster.rm.counters
    assert counters["containers_allocated"] >= sum(t.count for j in cluster.jobs.values() for t in j.tasks) + jobs
    assert cluster.running_containers == 0


def test_rumen_job_without_attempts_is_reported_with_reason(shared_data: Path) -> None:
    """The Rumen job SLS cannot build an AM for is reported with SLS's reason, and the others run."""
    cluster = run_trace(shared_data, "RUMEN", "2jobs2min-rumen-jh.json")
    assert [(s.job_id, s.reason) for s in cluster.skipped] == [
        ("job_1369942127770_1207", "Invalid map task, no attempt for a mapper!")
    ]


def test_same_seed_gives_identical_event_log(shared_data: Path, tmp_path: Path) -> None:
    """Two runs of the SYNTH sample with one seed write byte-identical event logs; another seed differs."""

    def digest(name: str, seed: int) -> str:
        path = tmp_path / name
        configure_logging(json_path=path)
        conf = Configuration.from_conf_dir(shared_data / "sls" / "sample-conf")
        workload = load_workload(
            "SYNTH", [shared_data / "sls" / "syn.json"], None, TraceDefaults.from_configuration(conf), seed
        )
        cluster = Cluster(conf, workload.nodes, seed=seed)
        cluster.submit_workload(workload)
        cluster.run(until_ms=3_600_000)
        close_logging()
        return hashlib.sha256(path.read_bytes()).hexdigest()

    assert digest("a.jsonl", 5) == digest("b.jsonl", 5)
    assert digest("a.jsonl", 5) != digest("c.jsonl", 6)


def small_cluster(
    conf: dict[str, str] | None = None, nodes: int = 4, **node_kw: int
) -> tuple[Cluster, WorkloadBuilder]:
    builder = WorkloadBuilder().nodes(nodes, memory_mb=node_kw.get("memory_mb", 8192), vcores=node_kw.get("vcores", 8))
    return Cluster(Configuration(conf or TWO_QUEUES), builder.build().nodes, seed=3), builder


def test_unknown_and_parent_queue_submissions_are_rejected_and_others_run() -> None:
    """Jobs to an unknown or a parent queue are rejected with YARN's words; a good job still finishes."""
    cluster, builder = small_cluster()
    builder.job("good", queue="a", tasks=[task_spec(2, 5000)])
    builder.job("lost", queue="nosuch", tasks=[task_spec(1, 5000)])
    builder.job("parent", queue="b", tasks=[task_spec(1, 5000)])
    cluster.submit_workload(builder.build())
    with captured_events() as events:
        cluster.run(until_ms=600_000)
    by_name = {a.name: a for a in cluster.applications}
    assert by_name["good"].final_status is FinalApplicationStatus.SUCCEEDED
    assert by_name["lost"].state is YarnApplicationState.FAILED
    assert "to unknown queue: nosuch" in by_name["lost"].diagnostics
    assert by_name["parent"].state is YarnApplicationState.FAILED
    assert "to non-leaf queue" in by_name["parent"].diagnostics
    assert cluster.rm.counters["apps_rejected"] == 2
    assert sum(e["event"] == "application_rejected" for e in events) == 2


def test_submit_acl_rejects_user_without_access() -> None:
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
    cluster, builder = small_cluster(conf)
    builder.job("by-alice", queue="a", user="alice", tasks=[task_spec(1, 1000)])
    builder.job("by-mallory", queue="a", user="mallory", tasks=[task_spec(1, 1000)])
    cluster.submit_workload(builder.build())
    with captured_events():
        cluster.run(until_ms=600_000)
    by_name = {a.name: a for a in cluster.applications}
    assert by_name["by-alice"].final_status is FinalApplicationStatus.SUCCEEDED
    assert by_name["by-mallory"].state is YarnApplicationState.FAILED
    assert "mallory" in by_name["by-mallory"].diagnostics


def test_lost_node_containers_are_rerun_and_job_finishes() -> None:
    """A node dying mid-job is expired by the RM; its containers are lost and the AM reruns those tasks."""
    conf = dict(TWO_QUEUES)
    conf["yarn.nm.liveness-monitor.expiry-interval-ms"] = "30000"
    cluster, builder = small_cluster(conf, nodes=3)
    builder.job("j", queue="a", tasks=[task_spec(6, 120_000)])
    cluster.submit_workload(builder.build())
    victim = "node1"
    cluster.fail_node(victim, at_ms=20_000)
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    (app,) = cluster.applications
    assert any(e["event"] == "node_lost" and e["node"].startswith(victim) for e in events)
    assert cluster.rm.counters["nodes_lost"] == 1
    assert cluster.rm.counters["containers_lost"] >= 1
    assert app.state is YarnApplicationState.FINISHED
    assert app.final_status is FinalApplicationStatus.SUCCEEDED
    am = cluster.masters[0]
    # either a task ran on the lost node and was rerun, or the AM itself was there and attempt 2 ran the job
    assert am.failed_task_attempts >= 1 or str(app.current_attempt_id).endswith("_000002")


def test_killed_application_releases_its_containers() -> None:
    """KillApplication ends the app KILLED and every container of it is cleaned up on the NMs."""
    from yarnball.protocols import KillApplicationRequest

    cluster, builder = small_cluster()
    builder.job("victim", queue="a", tasks=[task_spec(4, 600_000)])
    builder.job("bystander", queue="a", submit_ms=1000, tasks=[task_spec(1, 900_000)])  # keeps the run going
    cluster.submit_workload(builder.build())
    with captured_events():
        cluster.run(until_ms=30_000)
        victim = next(a for a in cluster.applications if a.name == "victim")
        assert cluster.running_containers >= 4
        cluster.rm.ref.tell(KillApplicationRequest(application_id=victim.application_id))
        cluster.run(until_ms=60_000)
    app = next(a for a in cluster.applications if a.name == "victim")
    assert app.state is YarnApplicationState.KILLED
    left = [
        c
        for nm in cluster.nodes
        for c in nm.containers
        if c.application_attempt_id.application_id == app.application_id
    ]
    assert left == []
    assert cluster.running_containers == 2  # the bystander's AM and task


class CountingAM(ApplicationMaster):
    """A user AM: asks for three containers, runs them 10 s each, counts completions, finishes."""

    def __init__(self, **kw: object) -> None:
        super().__init__(name="counting", queue="a", **kw)  # type: ignore[arg-type]
        self.done: list[int] = []

    def on_registered(self, response: object) -> None:
        self.add_container_request(Resource(2048, 1), priority=1, count=3)

    def on_containers_allocated(self, containers: tuple) -> None:  # type: ignore[type-arg]
        for c in containers:
            self.start_container(c, duration_ms=10_000)

    def on_containers_completed(self, statuses: tuple) -> None:  # type: ignore[type-arg]
        self.done.extend(s.exit_status for s in statuses)
        if len(self.done) == 3:
            self.finish()


def test_user_application_master_runs_in_virtual_time() -> None:
    """A plain-Python AM gets its containers, sees them complete SUCCESS and finishes its application."""
    cluster, _ = small_cluster()
    am = cluster.submit(CountingAM(submit_at_ms=5_000))
    with captured_events():
        end = cluster.run()
    assert am.done == [ContainerExitStatus.SUCCESS] * 3
    (app,) = cluster.applications
    assert app.final_status is FinalApplicationStatus.SUCCEEDED
    assert 15_000 <= end <= 25_000  # submit at 5 s, ~1-2 s of heartbeats, 10 s of work, unregister


class CrashingAM(CountingAM):
    """Its first attempt's AM process dies right after registering."""

    def on_registered(self, response: object) -> None:
        if self.attempt_id is not None and self.attempt_id.attempt_id == 1:
            assert self.am_container is not None
            self.kernel.lookup(f"nm-{self.am_container.node_id.host}").tell(
                __import__("yarnball.protocols", fromlist=["x"]).ContainerProcessExited(
                    container_id=self.am_container.id, exit_status=1
                ),
                self.ref,
            )
            return
        super().on_registered(response)


def test_failed_am_attempt_is_retried_up_to_max_attempts() -> None:
    """An AM container exiting 1 fails the attempt; the RM launches attempt 2, which finishes the job."""
    cluster, _ = small_cluster()
    am = cluster.submit(CrashingAM())
    with captured_events() as events:
        cluster.run(until_ms=600_000)
    (app,) = cluster.applications
    assert str(app.current_attempt_id).endswith("_000002")
    assert app.final_status is FinalApplicationStatus.SUCCEEDED
    assert any(e["event"] == "attempt_failed" for e in events)
    assert am.done == [ContainerExitStatus.SUCCESS] * 3


def test_bad_capacity_configuration_is_rejected_at_build() -> None:
    """A queue tree whose children do not sum to 100 stops the cluster from being built, with Hadoop's words."""
    from yarnball.errors import ConfigurationError

    conf = dict(TWO_QUEUES)
    conf["yarn.scheduler.capacity.root.a.capacity"] = "60"
    with pytest.raises(ConfigurationError, match="Illegal capacity"):
        Cluster(Configuration(conf))
