"""RM restart (issue 21's rm_restart fault): the state stores, the AM's resync, and bad schedule entries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from service_spies import spyable_ams

from yarnball.actors._rmstatestore import (
    ApplicationAttemptStateData,
    ApplicationStateData,
    FileSystemRMStateStore,
    MemoryRMStateStore,
    create_state_store,
)
from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher._faults import parse_faults
from yarnball.launcher.cli import main
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerId,
    NodeId,
    Priority,
    Resource,
    keys,
)
from yarnball.protocols._clientprotocol import ApplicationSubmissionContext
from yarnball.testing import assert_containers_conserved, captured_events

APP = ApplicationId(1700000000000, 3)
ATTEMPT = ApplicationAttemptId(APP, 1)


def _app_data() -> ApplicationStateData:
    context = ApplicationSubmissionContext(application_id=APP, application_name="job", queue="a", user="alice")
    return ApplicationStateData(context=context, submit_time=100.0, start_time=100.0)


def _master() -> Container:
    return Container(
        id=ContainerId(ATTEMPT, 1), node_id=NodeId("node1"), resource=Resource(1024, 1), priority=Priority()
    )


@pytest.mark.parametrize("kind", ["memory", "directory"])
def test_store_round_trip(kind: str, tmp_path: Path) -> None:
    """What the RM writes (application, attempt with its master container, the attempt's and the application's end)
    is what a new store over the same storage loads, and the epoch counts the starts."""
    store: Any = MemoryRMStateStore() if kind == "memory" else FileSystemRMStateStore(tmp_path)
    assert store.get_and_increment_epoch() == 0
    store.store_application(_app_data())
    store.store_attempt(ApplicationAttemptStateData(attempt_id=ATTEMPT, master_container=_master(), start_time=200.0))
    store.update_attempt(ATTEMPT, state="FAILED", diagnostics="exit 1", counted=True)
    store.update_application(APP, state="FAILED", final_status="FAILED", finish_time=300.0)
    loaded = (store if kind == "memory" else FileSystemRMStateStore(tmp_path)).load_state()
    (app,) = loaded.applications
    assert app.context.user == "alice" and app.state == "FAILED" and app.finish_time == 300.0
    (attempt,) = app.attempts
    assert attempt.master_container == _master() and (attempt.state, attempt.diagnostics) == ("FAILED", "exit 1")
    assert loaded.epoch == 1
    if kind == "directory":
        folder = tmp_path / "FSRMStateRoot" / "RMAppRoot" / str(APP)
        assert sorted(p.name for p in folder.iterdir()) == sorted([str(APP), str(ATTEMPT)])
        assert (tmp_path / "FSRMStateRoot" / "EpochNode").read_text() == "1"


def test_store_class_needs_its_uri() -> None:
    """FileSystemRMStateStore without yarn.resourcemanager.fs.state-store.uri, or an unknown store class, is a
    configuration error naming the key."""
    store = "org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore"
    conf = Configuration({keys.RM_STORE: store})
    with pytest.raises(ConfigurationError, match=keys.FS_RM_STATE_STORE_URI):
        create_state_store(conf)
    with pytest.raises(ConfigurationError, match=r"must be .*MemoryRMStateStore"):
        create_state_store(Configuration({keys.RM_STORE: "ZKRMStateStore"}))


def _one_job(conf: dict[str, str]) -> tuple[Cluster, Any]:
    workload = (
        WorkloadBuilder()
        .nodes(2, memory_mb=4096, vcores=4)
        .job("j", tasks=[task_spec(10, 60_000, memory_mb=1024, vcores=1)])
        .build()
    )
    cluster = Cluster({keys.RECOVERY_ENABLED: "true", **conf}, workload.nodes, seed=3)
    cluster.submit_workload(workload)
    return cluster, workload


def test_restart_from_directory_store(tmp_path: Path) -> None:
    """With FileSystemRMStateStore the restarted RM reads the application back from the directory, and the job's
    containers running at the restart are adopted and end SUCCESS."""
    store = "org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore"
    cluster, _ = _one_job({keys.RM_STORE: store, keys.FS_RM_STATE_STORE_URI: f"file://{tmp_path}"})
    cluster.inject([{"at_ms": 20_000, "kind": "rm_restart", "target": "rm", "down_ms": 3000}])
    with captured_events() as events:
        cluster.run()
    assert (tmp_path / "FSRMStateRoot" / "RMAppRoot").is_dir()
    (recovered,) = [e for e in events if e["event"] == "application_recovered"]
    assert recovered["state"] == "ACCEPTED"
    adopted = {e["container"] for e in events if e["event"] == "container_recovered"}
    ends = {e["container"]: e for e in events if e["event"] == "container_finished"}
    assert adopted and all(ends[c]["exit_status"] == 0 for c in adopted)
    (app,) = cluster.applications
    assert (app.state.value, app.final_status.value) == ("FINISHED", "SUCCEEDED")


def test_am_resync_resends_outstanding_asks() -> None:
    """After ApplicationMasterNotRegisteredException the AM registers again and its next allocate carries every
    outstanding ask (the ANY counts equal its pending requests), while its running containers stay its own."""
    cluster, _ = _one_job(
        {
            "yarn.scheduler.capacity.root.queues": "default,other",  # default capped at half the cluster
            "yarn.scheduler.capacity.root.default.capacity": "50",
            "yarn.scheduler.capacity.root.default.maximum-capacity": "50",
            "yarn.scheduler.capacity.root.other.capacity": "50",
        }
    )
    cluster.inject([{"at_ms": 20_000, "kind": "rm_restart", "target": "rm", "down_ms": 3000}])
    (am,) = cluster.masters
    rm = cluster.rm
    seen: list[tuple[int, int, set[Any]]] = []
    serve = spyable_ams(rm).serve_allocate

    def spy(msg: Any) -> Any:
        if rm.now >= 23_000 and msg.response_id == 0 and not seen:  # the first allocate after the re-registration
            asked = sum(r.num_containers for r in msg.ask if r.resource_name == "*")
            seen.append((asked, am.pending_requests, set(am.running)))
        return serve(msg)

    rm.application_master_service.serve_allocate = spy  # type: ignore[method-assign]
    with captured_events() as events:
        cluster.run()
    (resync,) = [e for e in events if e["event"] == "am_resync"]
    assert seen, "no allocate after the re-registration"
    asked, pending, running = seen[0]
    assert pending > 0 and asked == pending
    adopted = {e["container"] for e in events if e["event"] == "container_recovered"}
    assert adopted and {str(c) for c in running} <= adopted | {str(am.am_container.id) if am.am_container else ""}
    assert resync["sim_ms"] >= 23_000
    (app,) = cluster.applications
    assert (app.state.value, app.final_status.value) == ("FINISHED", "SUCCEEDED")


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"at_ms": 1, "kind": "rm_restart", "target": "rm", "down_ms": 5, "timeout_s": 3}, "'timeout_s'"),
        ({"at_ms": 1, "kind": "rm_restart", "target": "node1", "down_ms": 5}, "'target'"),
        ({"at_ms": 1, "kind": "rm_restart", "target": "rm", "down_ms": -5}, "'down_ms'"),
        ({"at_ms": 1, "kind": "rm_restart", "target": "rm"}, "'down_ms'"),
    ],
)
def test_bad_rm_restart_entries(entry: dict[str, Any], field: str) -> None:
    """A bad rm_restart entry is refused naming the source, its index and the field."""
    with pytest.raises(ConfigurationError, match=rf"faults.json: fault 1: field {field}"):
        parse_faults([{"at_ms": 0, "kind": "node_lost", "target": "n"}, entry], "faults.json")


def test_ray_backend_refuses_rm_restart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--backend ray`` with an rm_restart entry exits 2 naming the entry."""
    faults = tmp_path / "faults.json"
    faults.write_text('[{"at_ms": 1000, "kind": "rm_restart", "target": "rm", "down_ms": 100}]')
    root = Path(__file__).resolve().parents[1] / "examples" / "traces"
    code = main(["simulate", "--tracetype", "SLS", "--tracelocation", str(root / "sample-sls.json"), "--nodes",
                 str(root / "sample-nodes.json"), "--output-dir", str(tmp_path / "out"), "--backend", "ray",
                 "--faults", str(faults)])  # fmt: skip
    assert code == 2
    assert "fault 0: kind 'rm_restart' needs the embedded backend" in capsys.readouterr().err


def test_cli_runs_an_rm_restart(tmp_path: Path) -> None:
    """``yarnball simulate --faults`` with an rm_restart and recovery on: the run ends, summary.json counts the fault,
    and the event log (checked for the invariants by the test suite) says the RM restarted and recovered."""
    faults = tmp_path / "faults.json"
    faults.write_text('[{"at_ms": 12000, "kind": "rm_restart", "target": "rm", "down_ms": 4000}]')
    root = Path(__file__).resolve().parents[1] / "examples" / "traces"
    out = tmp_path / "out"
    code = main(["simulate", "--tracetype", "SLS", "--tracelocation", str(root / "sample-sls.json"), "--nodes",
                 str(root / "sample-nodes.json"), "--output-dir", str(out), "--seed", "1", "--log-level", "debug",
                 "--conf", f"{keys.RECOVERY_ENABLED}=true", "--faults", str(faults)])  # fmt: skip
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["faults"]["injected"] == {"rm_restart": 1}
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    (up,) = [e for e in events if e["event"] == "rm_restarted"]
    assert up["sim_ms"] == 16_000 and up["applications_recovered"] > 0


def test_recovery_without_work_preservation_restarts_the_attempt() -> None:
    """With recovery on and yarn.resourcemanager.work-preserving-recovery.enabled false (the pre-YARN-1489
    restart) the application comes back but its containers are killed: the attempt fails without counting
    (KILLED_BY_RESOURCEMANAGER) and a second attempt runs the job to success."""
    cluster, _ = _one_job({keys.RM_WORK_PRESERVING_RECOVERY_ENABLED: "false"})
    cluster.inject([{"at_ms": 20_000, "kind": "rm_restart", "target": "rm", "down_ms": 3000}])
    with captured_events() as events:
        cluster.run()
    assert not [e for e in events if e["event"] in ("container_recovered", "scheduler_ready")]
    killed = [e for e in events if e["event"] == "container_not_recovered"]
    assert killed and all(e["reason"] == "work-preserving recovery is off" for e in killed)
    (failed,) = [e for e in events if e["event"] == "attempt_failed"]
    assert failed["counted"] is False and "exitCode: -106" in failed["diagnostics"]
    (app,) = cluster.applications
    assert app.current_attempt_id is not None and app.current_attempt_id.attempt_id == 2
    assert (app.state.value, app.final_status.value) == ("FINISHED", "SUCCEEDED")


GUARD_MS = 6 * 3600 * 1000  # (a run that does not end by itself stops there and fails)


def _sample_trace_cluster(conf: dict[str, str]) -> Cluster:
    from yarnball.launcher.workloads import TraceDefaults, load_workload

    root = Path(__file__).resolve().parents[1] / "examples" / "traces"
    configuration = Configuration(conf)
    defaults = TraceDefaults.from_configuration(configuration)
    workload = load_workload("SLS", [root / "sample-sls.json"], root / "sample-nodes.json", defaults, 1)
    cluster = Cluster(configuration, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    return cluster


def test_completions_in_a_heartbeat_the_restarted_rm_resyncs_are_not_lost() -> None:
    """NM heartbeats late by 20 s (15-35 s), then an RM restart with recovery: a heartbeat answered "Node not found
    resyncing" acknowledges nothing, so the NM registers with the completions it carried, the AMs hear of them and
    every application succeeds; no container is lost (no node was)."""
    cluster = _sample_trace_cluster({keys.RECOVERY_ENABLED: "true"})
    cluster.inject([
        {"at_ms": 15_000, "kind": "message_delay", "target": "nm->rm", "message": "NodeHeartbeatRequest",
         "duration_ms": 20_000, "delay_ms": 20_000},
        {"at_ms": 60_000, "kind": "rm_restart", "target": "rm", "down_ms": 5000},
    ])  # fmt: skip
    with captured_events() as events:
        cluster.run(until_ms=GUARD_MS)
    assert cluster.finished() and cluster.now < GUARD_MS, "the run did not end by itself"
    assert cluster.counters.get("containers_lost", 0) == 0
    assert not [e for e in events if e["event"] == "container_finished" and "*lost*" in e["diagnostics"]]
    assert all(app.final_status.value == "SUCCEEDED" for app in cluster.applications)
    assert_containers_conserved(cluster)


def test_containers_of_a_node_lost_before_a_restart_end_lost() -> None:
    """A node dies at 20 s and the RM restarts with recovery at 60 s, before it expired the node: no NodeManager
    brings that node's containers back, so they end LOST (-100) yarn.nm.liveness-monitor.expiry-interval-ms after the
    restart, their AMs run the tasks again, and every application succeeds."""
    cluster = _sample_trace_cluster({keys.RECOVERY_ENABLED: "true"})
    cluster.inject([
        {"at_ms": 20_000, "kind": "node_lost", "target": "node3"},
        {"at_ms": 60_000, "kind": "rm_restart", "target": "rm", "down_ms": 5000},
    ])  # fmt: skip
    with captured_events() as events:
        cluster.run(until_ms=GUARD_MS)
    assert cluster.finished() and cluster.now < GUARD_MS, "the run did not end by itself"
    lost = [e for e in events if e["event"] == "container_finished" and "*lost*" in e["diagnostics"]]
    assert lost and {e["sim_ms"] for e in lost} == {65_000 + keys.DEFAULT_RM_NM_EXPIRY_INTERVAL_MS}
    assert cluster.counters["containers_lost"] == len(lost)
    assert all(app.final_status.value == "SUCCEEDED" for app in cluster.applications)
    assert_containers_conserved(cluster)


def test_restart_without_recovery_accounts_every_application_and_container(tmp_path: Path) -> None:
    """``yarnball simulate`` on the sample trace with an RM restart at 60 s and recovery off (Hadoop's default) ends
    by itself: the 2 jobs done before the restart are FINISHED (jobruntime.csv has them), the 38 others are lost
    (FAILED, "is lost", in failed_jobs and the event log), none is unfinished, and every container ends once."""
    faults = tmp_path / "faults.json"
    faults.write_text('[{"at_ms": 60000, "kind": "rm_restart", "target": "rm", "down_ms": 5000}]')
    root = Path(__file__).resolve().parents[1] / "examples" / "traces"
    out = tmp_path / "out"
    code = main(["simulate", "--tracelocation", str(root / "sample-sls.json"), "--nodes",
                 str(root / "sample-nodes.json"), "--output-dir", str(out), "--seed", "1", "--log-level", "debug",
                 "--no-plots", "--no-progress", "--until-ms", str(GUARD_MS), "--faults", str(faults)])  # fmt: skip
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["simulated_seconds"] < GUARD_MS / 1000, "the run did not end by itself"
    assert summary["applications"] == {
        "submitted": 40, "finished": 2, "failed": 38, "killed": 0, "rejected": 0, "unfinished": 0
    }  # fmt: skip
    assert summary["unfinished"] == [] and len(summary["failed_jobs"]) == 38
    assert all("is lost" in job["diagnostics"] for job in summary["failed_jobs"])
    rows = (out / "jobruntime.csv").read_text().splitlines()[1:]
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    finished = {e["application"]: e["state"] for e in events if e["event"] == "application_finished"}
    assert len(rows) == sum(state == "FINISHED" for state in finished.values()) == 2
    # The job times count the applications the new RM forgot too: the 2 jobruntime.csv rows, every AM launched.
    completions = sorted((int(r.split(",")[4]) - int(r.split(",")[3])) / 1000 for r in rows)
    times = summary["job_times"]["overall"]
    assert times["completion_s"]["count"] == 2 and times["completion_s"]["max"] == completions[-1]
    apps = (out / "metrics" / "applications.csv").read_text().splitlines()[1:]
    launched = [a for a in apps if a.split(",")[7] not in ("", "-1")]
    assert times["am_wait_s"]["count"] == len(launched) > 2
    assert len(finished) == 40 and sum(e["event"] == "application_lost" for e in events) == 38
    containers = summary["containers"]
    ended = sum(e["event"] == "container_finished" for e in events)
    assert containers["allocated"] == ended == sum(containers[k] for k in ("completed", "killed", "preempted", "lost"))
    assert containers["running_at_end"] == 0


FAIR = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"
FIFO = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"


@pytest.mark.parametrize("scheduler", [FAIR, FIFO])
def test_work_preserving_restart_with_the_fair_and_fifo_schedulers(scheduler: str) -> None:
    """Recovery is scheduler-generic, as Hadoop's (``AbstractYarnScheduler.recoverContainersOnNode``): with the
    FairScheduler or the FifoScheduler the restarted RM's scheduler is of the same class, adopts the running
    containers (charged to its queue and freed again when they end), numbers new ones from the epoch, and the job
    succeeds."""
    cluster, _ = _one_job({keys.RM_SCHEDULER: scheduler})
    cluster.inject([{"at_ms": 20_000, "kind": "rm_restart", "target": "rm", "down_ms": 3000}])
    with captured_events() as events:
        cluster.run(until_ms=GUARD_MS)
    assert type(cluster.rm.scheduler).__name__ == "Recovering" + scheduler.rsplit(".", 1)[1]
    adopted = {e["container"] for e in events if e["event"] == "container_recovered"}
    ends = {e["container"]: e for e in events if e["event"] == "container_finished"}
    assert adopted and all(ends[c]["exit_status"] == 0 for c in adopted)
    new = [e["container"] for e in events if e["event"] == "container_allocated" and e["sim_ms"] > 20_000]
    assert new and all(c.startswith("container_e01_") for c in new)
    (app,) = cluster.applications
    assert (app.state.value, app.final_status.value) == ("FINISHED", "SUCCEEDED")
    assert_containers_conserved(cluster)
    queues = cluster.rm.scheduler.queue_metrics()
    assert all(q.allocated.memory_mb == 0 and q.containers_allocated == 0 for q in queues), queues


@pytest.mark.parametrize("scheduler", [FAIR, FIFO])
def test_restart_without_recovery_with_the_fair_and_fifo_schedulers(scheduler: str) -> None:
    """Without recovery a restarted RM starts a fresh scheduler of the configured class: the running application is
    lost, and the run ends by itself."""
    cluster, _ = _one_job({keys.RM_SCHEDULER: scheduler, keys.RECOVERY_ENABLED: "false"})
    cluster.inject([{"at_ms": 20_000, "kind": "rm_restart", "target": "rm", "down_ms": 3000}])
    cluster.run(until_ms=GUARD_MS)
    assert cluster.finished() and cluster.now < GUARD_MS, "the run did not end by itself"
    (app,) = cluster.applications
    assert (app.state.value, app.final_status.value) == ("FAILED", "FAILED") and "is lost" in app.diagnostics
    assert not [cid for nm in cluster.nodes for cid in nm.containers]
