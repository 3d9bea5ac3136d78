"""Weight-mode queues and flexible auto queue creation in a running cluster: jobs naming a queue under a parent with
``auto-queue-creation-v2.enabled`` run in a dynamic queue created on submission, idle dynamic queues are removed by the
AutoCreatedQueueDeletionPolicy monitor, and the REST scheduler page shows weights and dynamic queues. The scheduler
side (Hadoop's TestCapacitySchedulerNewQueueAutoCreation) is in
tests/conformance/test_hadoop_new_queue_auto_creation.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yarnball.actors._queuedeletion import spawn_queue_deletion_monitor
from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher.cli import main
from yarnball.launcher.web._schedulerinfo import scheduler_info
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.testing import captured_events

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "auto-queues"
CS = "yarn.scheduler.capacity."
USERS = {
    f"{CS}root.queues": "prod,users",
    f"{CS}root.prod.capacity": "2w",
    f"{CS}root.users.capacity": "1w",
    f"{CS}root.users.auto-queue-creation-v2.enabled": "true",
}
DELETION = {
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    "yarn.resourcemanager.scheduler.monitor.policies": "AutoCreatedQueueDeletionPolicy",
    f"{CS}auto-queue-creation-v2.queue-expiration-time": "30",
}


def build(conf: dict[str, str], backend: str = "embedded", **extra: Any) -> Cluster:
    builder = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8)
    builder.job("prod", queue="root.prod", user="etl", submit_ms=0, tasks=[task_spec(4, 20_000)])
    builder.job("alice", queue="root.users.alice", user="alice", submit_ms=1_000, tasks=[task_spec(2, 10_000)])
    builder.job("nobody", queue="root.prod.nobody", user="x", submit_ms=2_000, tasks=[task_spec(1, 1_000)])
    # keeps the run going past the expiration of the idle dynamic queue (a run ends with its last application)
    builder.job("late", queue="root.prod", user="etl", submit_ms=120_000, tasks=[task_spec(1, 1_000)])
    workload = builder.build()
    cluster = Cluster(conf, workload.nodes, seed=4, backend=backend, latency_ms=1, **extra)
    cluster.submit_workload(workload)
    return cluster


def states(cluster: Cluster) -> dict[str, str]:
    return {a.name: a.state.value for a in cluster.applications}


def test_job_in_a_missing_queue_under_an_auto_creating_parent_runs() -> None:
    """root.users.alice is created on submission (weight 1 under users' 1/3) and the job finishes; a queue under
    root.prod, which may not create queues, is refused as unknown."""
    cluster = build(USERS)
    with captured_events():
        cluster.run(until_ms=300_000)
    assert states(cluster) == {"prod": "FINISHED", "alice": "FINISHED", "nobody": "FAILED", "late": "FINISHED"}
    alice = cluster.scheduler.get_queue("root.users.alice")
    assert alice is not None and alice.dynamic
    assert alice.abs_cap == pytest.approx(1 / 3, abs=1e-6)
    nobody = next(a for a in cluster.applications if a.name == "nobody")
    assert "unknown queue: root.prod.nobody" in nobody.diagnostics


def test_without_auto_creation_the_job_is_refused() -> None:
    """The control run: the same job with auto creation off is refused as submitted to an unknown queue."""
    conf = {**USERS, f"{CS}root.users.auto-queue-creation-v2.enabled": "false"}
    cluster = build(conf)
    with captured_events():
        cluster.run(until_ms=300_000)
    assert states(cluster)["alice"] == "FAILED"
    assert cluster.scheduler.get_queue("root.users.alice") is None


def test_idle_dynamic_queue_is_removed_by_the_deletion_monitor() -> None:
    """With the AutoCreatedQueueDeletionPolicy monitor, root.users.alice leaves once idle for longer than the
    expiration time after its last submission (two monitor rounds after it became eligible)."""
    cluster = build({**USERS, **DELETION})
    with captured_events() as logs:
        cluster.run(until_ms=300_000)
    deleted = [e for e in logs if e["event"] == "auto_created_queue_deleted"]
    assert [e["queue"] for e in deleted] == ["root.users.alice"]
    # The monitor runs every expiration time (30 s, AutoCreatedQueueDeletionPolicy.init): alice's queue, idle from
    # ~12 s, is marked by the 30 s round and removed by the 60 s one (idle 59 s since its submission at 1 s).
    assert deleted[0]["sim_ms"] == 60_000
    assert cluster.scheduler.get_queue("root.users.alice") is None
    assert states(cluster)["alice"] == "FINISHED"


def test_same_run_on_the_sharded_backend() -> None:
    """Creation and deletion happen in the RM's turn: the in-process shard hosts give the embedded run."""
    runs = []
    for backend, extra in (("embedded", {}), ("inprocess", {"hosts": 2})):
        cluster = build({**USERS, **DELETION}, backend, **extra)
        with captured_events() as logs:
            cluster.run(until_ms=300_000)
        apps = sorted((a.name, a.state.value, a.finish_time) for a in cluster.applications)
        deleted = [(e["queue"], e["sim_ms"]) for e in logs if e["event"] == "auto_created_queue_deleted"]
        runs.append((cluster.now, apps, deleted))
    assert runs[0] == runs[1]
    assert runs[0][2]


def test_rest_scheduler_page_shows_weights_and_dynamic_queues() -> None:
    """CapacitySchedulerQueueInfo: weight, normalizedWeight, mode, creationMethod and autoCreationEligibility."""
    cluster = build(USERS)
    with captured_events():
        cluster.run(until_ms=5_000)  # alice's queue exists
    metrics = {m.path: m for m in cluster.queues}
    info = scheduler_info(cluster, metrics, preemption=False)["schedulerInfo"]
    queues = {q["queuePath"]: q for q in info["queues"]["queue"]}
    prod, users = queues["root.prod"], queues["root.users"]
    assert (prod["weight"], prod["normalizedWeight"], prod["mode"]) == (2.0, pytest.approx(2 / 3), "weight")
    assert (users["autoCreationEligibility"], users["creationMethod"]) == ("flexible", "static")
    alice = users["queues"]["queue"][0]
    assert (alice["queuePath"], alice["creationMethod"], alice["normalizedWeight"]) == (
        "root.users.alice",
        "dynamicFlexible",
        1.0,
    )
    assert alice["capacities"]["queueCapacitiesByPartition"][0]["weight"] == 1.0


def test_mixed_modes_are_refused_at_start() -> None:
    """Weights beside a percentage sibling: Hadoop's message, before the cluster starts."""
    with pytest.raises(ConfigurationError, match="mixed of  weight mode, percentage and absolute mode"):
        build({**USERS, f"{CS}root.prod.capacity": "50"})


def test_cli_runs_the_example(tmp_path: Path) -> None:
    """examples/auto-queues: the jobs of root.users.alice and .bob run in dynamic queues, both queues are removed
    when idle, and alice's is created again for her last job."""
    out = tmp_path / "out"
    args = ["simulate", "--tracetype", "SLS", "--tracelocation", str(EXAMPLE / "trace.json")]
    args += ["--nodes", str(ROOT / "examples" / "traces" / "sample-nodes.json"), "--conf-dir", str(EXAMPLE / "conf")]
    assert main([*args, "--output-dir", str(out), "--no-plots", "--no-progress"]) == 0
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    finals = [e.get("final_status") for e in events if e["event"] == "application_finished"]
    assert finals == ["SUCCEEDED"] * 4
    deleted = [e["queue"] for e in events if e["event"] == "auto_created_queue_deleted"]
    assert sorted(deleted) == ["root.users.alice", "root.users.bob"]
    created = [e["event"] for e in events if e["event"].startswith("Created dynamic queue")]
    assert created == [f"Created dynamic queue root.users.{u}" for u in ("alice", "bob", "alice")]


def test_work_preserving_rm_restart_creates_the_dynamic_queue_again() -> None:
    """A restarted RM's scheduler is built from the file (no dynamic queue); recovering the application re-creates
    its dynamic queue (CapacityScheduler.addApplication on recovery), the job finishes, and the deletion monitor
    works on the new scheduler."""
    workload = (
        WorkloadBuilder()
        .nodes(2, memory_mb=4096, vcores=4)
        .job("alice", queue="root.users.alice", user="alice", tasks=[task_spec(6, 30_000)])
        .job("late", queue="root.prod", user="etl", submit_ms=150_000, tasks=[task_spec(1, 1_000)])
        .build()
    )
    conf = {**USERS, **DELETION, "yarn.resourcemanager.recovery.enabled": "true"}
    cluster = Cluster(conf, workload.nodes, seed=3)
    cluster.submit_workload(workload)
    cluster.inject([{"at_ms": 10_000, "kind": "rm_restart", "target": "rm", "down_ms": 3000}])
    with captured_events() as logs:
        cluster.run()
    assert [e for e in logs if e["event"] == "application_recovered"]
    created = [e["sim_ms"] for e in logs if e["event"] == "Created dynamic queue root.users.alice"]
    assert len(created) == 2 and created[1] >= 13_000  # at submission, then at recovery
    assert states(cluster) == {"alice": "FINISHED", "late": "FINISHED"}
    assert [e["queue"] for e in logs if e["event"] == "auto_created_queue_deleted"] == ["root.users.alice"]


def test_deletion_monitor_runs_every_expiration_time_AutoCreatedQueueDeletionPolicy_init() -> None:
    """Hadoop's AutoCreatedQueueDeletionPolicy.init sets its monitoring interval to queue-expiration-time x 1000 ms
    (300 s by default); yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval is
    QueueManagementDynamicEditPolicy's and does not change it. Failed before: the monitor ran every 1.5 s, from the
    queue-management key."""
    expiration = f"{CS}auto-queue-creation-v2.queue-expiration-time"
    management = "yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval"
    cases = (({}, 300_000), ({expiration: "30"}, 30_000), ({expiration: "30", management: "500"}, 30_000))
    for extra, interval in cases:
        conf = {**USERS, **{k: v for k, v in DELETION.items() if k != expiration}, **extra}
        cluster = build(conf)
        with captured_events():
            cluster.run(until_ms=1)
        monitor = cluster.rm.queue_deletion_monitor
        assert monitor is not None and monitor.interval_ms == interval


def test_deletion_monitor_refuses_a_non_positive_expiration_time() -> None:
    """A zero expiration time would be a zero monitoring period (Hadoop's scheduleAtFixedRate refuses it): the
    error names the expiration-time key."""
    cluster = build({**USERS, **DELETION, f"{CS}auto-queue-creation-v2.queue-expiration-time": "0"})
    with pytest.raises(ConfigurationError, match=r"queue-expiration-time: .* got 0"):
        spawn_queue_deletion_monitor(cluster.rm)
