"""Queue refresh in a running cluster: ``Cluster.refresh_queues`` and ``yarnball simulate --refresh-queues``.

The refresh is a RefreshQueuesRequest told to the RM (AdminService), so it is ordered in the event log and gives the
same run on every backend. The scheduler side (Hadoop's reinitialize tests) is in
tests/conformance/test_hadoop_refresh_queues.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher.cli import main
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.policies.capacity import QueueState
from yarnball.testing import captured_events

CS = "yarn.scheduler.capacity."
TWO = {f"{CS}root.queues": "a,b", f"{CS}root.a.capacity": "50", f"{CS}root.b.capacity": "50"}
# b stopped, c added (a takes b's share while b drains)
STOP_B_ADD_C = {
    f"{CS}root.queues": "a,b,c",
    f"{CS}root.a.capacity": "50",
    f"{CS}root.b.capacity": "0",
    f"{CS}root.b.state": "STOPPED",
    f"{CS}root.c.capacity": "50",
}
WITHOUT_B = {f"{CS}root.queues": "a", f"{CS}root.a.capacity": "100"}


def build(backend: str = "embedded", **extra: object) -> Cluster:
    builder = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8)
    builder.job("b_early", queue="b", submit_ms=0, tasks=[task_spec(4, 30_000)])
    builder.job("b_late", queue="b", submit_ms=20_000, tasks=[task_spec(2, 5_000)])
    builder.job("c_late", queue="c", submit_ms=20_000, tasks=[task_spec(2, 5_000)])
    workload = builder.build()
    cluster = Cluster(TWO, workload.nodes, seed=2, backend=backend, latency_ms=1, **extra)
    cluster.submit_workload(workload)
    return cluster


def states(cluster: Cluster) -> dict[str, str]:
    return {a.name: a.state.value for a in cluster.applications}


def test_without_a_refresh_queue_c_is_unknown() -> None:
    """The control run: c does not exist, so c_late is rejected, and b_late runs in b."""
    cluster = build()
    with captured_events():
        cluster.run(until_ms=600_000)
    assert states(cluster) == {"b_early": "FINISHED", "b_late": "FINISHED", "c_late": "FAILED"}


def test_timed_refresh_adds_a_queue_and_stops_one_that_drains() -> None:
    """At 10 s b is stopped (b_early drains and finishes, b_late is refused: STOPPED) and c appears (c_late runs)."""
    cluster = build()
    cluster.refresh_queues(STOP_B_ADD_C, at_ms=10_000)
    with captured_events() as logs:
        cluster.run(until_ms=600_000)
    assert states(cluster) == {"b_early": "FINISHED", "b_late": "FAILED", "c_late": "FINISHED"}
    refreshed = [e for e in logs if e["event"] == "queues_refreshed"]
    assert len(refreshed) == 1 and refreshed[0]["queues"] == ["root", "root.a", "root.b", "root.c"]
    rejected = next(a for a in cluster.applications if a.name == "b_late")
    assert "Queue root.b is STOPPED. Cannot accept submission of application" in rejected.diagnostics
    assert cluster.scheduler.get_queue("b").state == QueueState.STOPPED  # drained by the end
    assert cluster.rm.counters["queue_refreshes"] == 1


def test_refused_refresh_is_logged_with_hadoops_message_and_changes_nothing() -> None:
    """Removing the RUNNING queue b is refused (validateQueueHierarchy); b keeps working."""
    cluster = build()
    cluster.refresh_queues(WITHOUT_B, at_ms=10_000)
    with captured_events() as logs:
        cluster.run(until_ms=600_000)
    refused = [e for e in logs if e["event"] == "queues_refresh_refused"]
    assert [e["diagnostics"] for e in refused] == [
        "Failed to re-init queues : root.b cannot be deleted from the capacity scheduler configuration, as the "
        "queue is not yet in stopped state. Current State : RUNNING"
    ]
    assert states(cluster)["b_late"] == "FINISHED"
    assert cluster.rm.counters["queue_refreshes_refused"] == 1


def test_refresh_between_runs_returns_or_raises() -> None:
    """Without at_ms, between runs: applied at once; a refused one raises ConfigurationError and changes nothing."""
    cluster = build()
    with captured_events():
        cluster.run(until_ms=5_000)
        with pytest.raises(ConfigurationError, match=r"root\.b cannot be deleted"):
            cluster.refresh_queues(WITHOUT_B)
        assert cluster.scheduler.get_queue("b") is not None
        response = cluster.refresh_queues(STOP_B_ADD_C)
        assert response.accepted
        assert cluster.scheduler.get_queue("b").state == QueueState.DRAINING  # b_early is still running
        cluster.run(until_ms=600_000)
    assert states(cluster) == {"b_early": "FINISHED", "b_late": "FAILED", "c_late": "FINISHED"}


def test_bad_refresh_configuration_is_refused_at_once() -> None:
    """A configuration that could not start a cluster raises at once, naming the key."""
    cluster = build()
    bad = {**TWO, f"{CS}root.a.capacity": "70"}
    with pytest.raises(ConfigurationError, match="root"):
        cluster.refresh_queues(bad, at_ms=1_000)


def test_refresh_gives_the_same_run_on_the_sharded_backend() -> None:
    """The request is ordered as the RM's own message: the in-process shard hosts give the embedded run."""
    runs = []
    for backend, extra in (("embedded", {}), ("inprocess", {"hosts": 2})):
        cluster = build(backend, **extra)
        cluster.refresh_queues(STOP_B_ADD_C, at_ms=10_000)
        with captured_events():
            cluster.run(until_ms=600_000)
        apps = sorted((a.name, a.state.value, a.finish_time) for a in cluster.applications)
        runs.append((cluster.now, apps, cluster.counters))
    assert runs[0] == runs[1]
    assert {name: state for name, state, _ in runs[0][1]} == {
        "b_early": "FINISHED",
        "b_late": "FAILED",
        "c_late": "FINISHED",
    }


def _write_conf(directory: Path, props: dict[str, str]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    body = "".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props.items())
    (directory / "capacity-scheduler.xml").write_text(f"<configuration>{body}</configuration>")
    return directory


def _sls_trace(path: Path) -> Path:
    jobs = [
        {"am.type": "mapreduce", "job.start.ms": 0, "job.end.ms": 40_000, "job.queue.name": "b", "job.id": "job_b",
         "job.user": "u", "job.tasks": [{"container.host": "/rack0/node0", "container.start.ms": 1000,
                                          "container.end.ms": 30_000, "container.priority": 20,
                                          "container.type": "map"}]},
        {"am.type": "mapreduce", "job.start.ms": 20_000, "job.end.ms": 40_000, "job.queue.name": "c",
         "job.id": "job_c", "job.user": "u", "job.tasks": [{"container.host": "/rack0/node0",
                                                            "container.start.ms": 21_000, "container.end.ms": 30_000,
                                                            "container.priority": 20, "container.type": "map"}]},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(j) for j in jobs))
    return path


def test_cli_refresh_queues(tmp_path: Path) -> None:
    """``--refresh-queues AT_MS:CONF_DIR``: the refresh is in events.jsonl and the job in the new queue runs."""
    conf = _write_conf(tmp_path / "conf", TWO)
    refresh = _write_conf(tmp_path / "refresh", STOP_B_ADD_C)
    trace = _sls_trace(tmp_path / "trace.json")
    out = tmp_path / "out"
    args = ["simulate", "--tracetype", "SLS", "--tracelocation", str(trace), "--output-dir", str(out)]
    args += ["--conf-dir", str(conf), "--no-plots", "--no-progress", "--refresh-queues", f"10000:{refresh}"]
    assert main(args) == 0
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert [e["source"] for e in events if e["event"] == "queues_refreshed"] == [str(refresh)]
    finals = {e["application"]: e.get("final_status") for e in events if e["event"] == "application_finished"}
    assert len(finals) == 2 and set(finals.values()) == {"SUCCEEDED"}


@pytest.mark.parametrize("spec", ["10000", "x:dir", "-5:dir", "10000:"])
def test_cli_refresh_queues_bad_spec_exits_2(tmp_path: Path, spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    trace = _sls_trace(tmp_path / "trace.json")
    args = ["simulate", "--tracetype", "SLS", "--tracelocation", str(trace), "--output-dir", str(tmp_path / "o")]
    assert main([*args, "--no-progress", "--refresh-queues", spec]) == 2
    assert "--refresh-queues" in capsys.readouterr().err


def test_cli_refresh_queues_bad_conf_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A refresh conf dir that fails the start-up checks is a user error, reported with its file."""
    trace = _sls_trace(tmp_path / "trace.json")
    bad = _write_conf(tmp_path / "bad", {**TWO, f"{CS}root.a.capacity": "70"})
    args = ["simulate", "--tracetype", "SLS", "--tracelocation", str(trace), "--output-dir", str(tmp_path / "o")]
    assert main([*args, "--no-progress", "--refresh-queues", f"5000:{bad}"]) == 2
    assert str(bad / "capacity-scheduler.xml") in capsys.readouterr().err


def _activation_run(extra: dict[str, str]) -> tuple[object, ...]:
    """Applications pending on a 5% AM limit in queue a until a refresh at 9.5 s raises it (and adds c)."""
    builder = WorkloadBuilder().nodes(6, memory_mb=8192, vcores=8)
    for i in range(8):
        builder.job(f"a{i}", queue="a", submit_ms=i * 2000, tasks=[task_spec(6, 15_000)])
    builder.job("c1", queue="c", submit_ms=30_000, tasks=[task_spec(3, 5_000)])
    workload = builder.build()
    conf = {**TWO, f"{CS}root.a.maximum-am-resource-percent": "0.05", **extra}
    cluster = Cluster(conf, workload.nodes, seed=2)
    cluster.submit_workload(workload)
    new = {**STOP_B_ADD_C, f"{CS}root.b.state": "RUNNING", f"{CS}root.b.capacity": "10", f"{CS}root.c.capacity": "40"}
    cluster.refresh_queues({**new, f"{CS}root.a.maximum-am-resource-percent": "1.0"}, at_ms=9_500)
    with captured_events():
        cluster.run(until_ms=900_000)
    return cluster.now, sorted((a.name, a.state.value, a.finish_time) for a in cluster.applications)


def test_refresh_gives_the_same_run_with_the_shortcuts_off() -> None:
    """Pending applications activated by a refresh get the same containers at the same times whether idle NM/AM
    heartbeats are skipped (actors' shortcuts, on by default) or all processed."""
    off = {
        "yarnball.simulation.skip-idle-heartbeats": "false",
        "yarnball.simulation.skip-idle-am-heartbeats": "false",
        "yarnball.simulation.dormant-idle-ams": "false",
        "yarnball.simulation.lazy-running-reports": "false",
    }
    with_shortcuts = _activation_run({})
    assert with_shortcuts == _activation_run(off)
    assert {state for _, state, _ in with_shortcuts[1]} == {"FINISHED"}
