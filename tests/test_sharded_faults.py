"""Fault schedules on shard hosts (launcher/_shardfaults.py): the embedded run's event log, byte for byte, and the
kinds no shard host can apply refused with the entry and the backend named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yarnball.actors._logging import close_logging, configure_logging, merge_event_logs
from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher._sharded import ShardedBackend
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import Configuration

CONF = {
    "yarn.nm.liveness-monitor.expiry-interval-ms": "20000",
    "yarn.resourcemanager.connect.retry-interval.ms": "4000",
    "yarn.client.nodemanager-connect.retry-interval-ms": "3000",
}


def build(backend: str, faults: list[dict[str, Any]], hosts: int = 3, latency_ms: float = 1) -> Cluster:
    builder = WorkloadBuilder().nodes(6, memory_mb=8192, vcores=8)
    for i in range(4):
        builder.job(f"j{i}", submit_ms=i * 3000, tasks=[task_spec(8, 20_000 + i * 1000)])
    workload = builder.build()
    extra = {} if backend == "embedded" else {"hosts": hosts}
    cluster = Cluster(Configuration(CONF), workload.nodes, seed=5, backend=backend, latency_ms=latency_ms, **extra)
    cluster.submit_workload(workload)
    cluster.inject(faults)
    return cluster


def _message(kind: str, link: str, message: str, at_ms: int, **params: Any) -> dict[str, Any]:
    return {"at_ms": at_ms, "kind": kind, "target": link, "message": message, "duration_ms": 8000, **params}


SCHEDULES = {
    "node_lost": [{"at_ms": 9000, "kind": "node_lost", "target": "node2"}],
    "node_restart": [{"at_ms": 9000, "kind": "node_restart", "target": "node3", "down_ms": 4000}],
    "node_decommission": [{"at_ms": 7000, "kind": "node_decommission", "target": "node1", "timeout_s": 10}],
    "am_crash": [{"at_ms": 12_000, "kind": "am_crash", "target": "j1"}],
    "allocate": [
        _message("message_drop", "am->rm", "AllocateRequest", 5000, probability=0.5),
        _message("message_duplicate", "rm->am", "AllocateResponse", 9000, probability=0.5, delay_ms=1500),
    ],
    "heartbeat": [
        _message("message_drop", "nm->rm", "NodeHeartbeatRequest", 5000, probability=0.3),
        _message("message_delay", "rm->nm", "NodeHeartbeatResponse", 8000, probability=0.3, delay_ms=700),
        _message("message_duplicate", "nm->rm", "NodeHeartbeatRequest", 14_000, probability=0.2, delay_ms=1500),
    ],
    "containers": [
        _message("message_drop", "am->nm", "StartContainersRequest", 2000, probability=0.5),
        _message("message_drop", "nm->am", "StartContainersResponse", 6000, probability=0.5),
    ],
}


def _events(path: Path) -> bytes:
    return path.read_bytes()


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_a_faulted_sharded_run_logs_what_the_embedded_run_logs(name: str, tmp_path: Path) -> None:
    """Three shard hosts and the embedded kernel, one seed and latency, one schedule: the same event log byte for
    byte (so the same faults hit the same messages and actors), and the faults really bit."""
    faults = SCHEDULES[name]
    configure_logging(json_path=tmp_path / "embedded.jsonl", level="debug")
    embedded = build("embedded", faults)
    embedded.run(until_ms=3_600_000)
    close_logging()
    configure_logging(json_path=tmp_path / "raw.jsonl", level="debug", event_keys=True)
    sharded = build("inprocess", faults)
    sharded.run(until_ms=3_600_000)
    close_logging()
    assert isinstance(sharded.runtime, ShardedBackend)
    merge_event_logs([tmp_path / "raw.jsonl"], tmp_path / "merged.jsonl", stop_key=sharded._query("stop_key"),
                     presorted=False)
    expected = _events(tmp_path / "embedded.jsonl")
    injected = [json.loads(line) for line in expected.splitlines() if b'"fault_injected"' in line]
    assert injected and all(e.get("applied", True) for e in injected)
    assert _events(tmp_path / "merged.jsonl") == expected
    assert sharded.counters == embedded.counters


def test_one_host_without_latency_is_the_embedded_run_with_its_shortcuts_off() -> None:
    """One shard host at latency 0 skips like the embedded cluster; a fault schedule turns the skipping off on both."""
    faults = SCHEDULES["heartbeat"] + SCHEDULES["am_crash"]
    embedded = build("embedded", faults, latency_ms=0)
    embedded.run(until_ms=3_600_000)
    sharded = build("inprocess", faults, hosts=1, latency_ms=0)
    sharded.run(until_ms=3_600_000)
    assert sharded.counters == embedded.counters
    assert sorted((a.name, a.finish_time) for a in sharded.applications) == sorted(
        (a.name, a.finish_time) for a in embedded.applications
    )


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ({"at_ms": 5, "kind": "container_fail", "target": "j1"}, "fault 1: kind 'container_fail' with target 'j1'"),
        (
            {"at_ms": 5, "kind": "am_crash", "target": "application_1700000000000_0001"},
            "fault 1: kind 'am_crash' with target 'application_1700000000000_0001'",
        ),
        (
            {"at_ms": 5, "kind": "rm_restart", "target": "rm", "down_ms": 1000},
            "fault 1: kind 'rm_restart' with target 'rm'",
        ),
    ],
)
def test_kinds_no_shard_host_can_apply_are_refused_naming_entry_and_backend(entry: dict[str, Any], needle: str) -> None:
    cluster = build("inprocess", [])
    with pytest.raises(ConfigurationError, match=f"{needle} is not supported on the inprocess backend"):
        cluster.inject([{"at_ms": 1, "kind": "node_lost", "target": "node0"}, entry])


def test_cli_refuses_an_unsupported_kind_on_ray_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.fault_helpers import TRACE
    from yarnball.launcher.cli import main

    schedule = tmp_path / "faults.json"
    schedule.write_text(json.dumps([{"at_ms": 1000, "kind": "container_fail", "target": "synth_000001"}]))
    argv = ["simulate", "--tracelocation", str(TRACE / "sample-sls.json"), "--nodes", str(TRACE / "sample-nodes.json"),
            "--output-dir", str(tmp_path / "out"), "--backend", "ray", "--faults", str(schedule), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "fault 0: kind 'container_fail'" in err and "is not supported on the ray backend" in err
    assert not (tmp_path / "out").exists()
