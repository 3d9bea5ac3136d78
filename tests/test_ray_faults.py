"""``yarnball simulate --backend ray --faults FILE``: the embedded run's outputs, byte for byte (issue 21)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_ray_backend import DETERMINISTIC_OUTPUTS, simulate, write_trace

pytestmark = pytest.mark.ray

SCHEDULE = [
    {"at_ms": 6000, "kind": "node_lost", "target": "node2"},
    {"at_ms": 9000, "kind": "am_crash", "target": "job_2"},
    {"at_ms": 3000, "kind": "message_drop", "target": "nm->rm", "message": "NodeHeartbeatRequest",
     "duration_ms": 10_000, "probability": 0.3},
    {"at_ms": 2000, "kind": "message_drop", "target": "am->nm", "message": "StartContainersRequest",
     "duration_ms": 10_000, "probability": 0.5},
    {"at_ms": 4000, "kind": "message_duplicate", "target": "am->rm", "message": "AllocateRequest",
     "duration_ms": 10_000, "probability": 0.5, "delay_ms": 1500},
]


def test_a_faulted_ray_run_writes_the_embedded_runs_outputs(ray_cluster: None, tmp_path: Path) -> None:
    """Node loss, an AM crash and message faults on three links: 2 Ray hosts write the embedded run's event log,
    results files and fault counts."""
    trace = write_trace(tmp_path / "trace.json")
    schedule = tmp_path / "faults.json"
    schedule.write_text(json.dumps(SCHEDULE))
    conf = ["--conf", "yarn.nm.liveness-monitor.expiry-interval-ms=20000",
            "--conf", "yarn.client.nodemanager-connect.retry-interval-ms=3000"]
    simulate(trace, tmp_path / "embedded", "--faults", str(schedule), *conf)
    simulate(trace, tmp_path / "ray", "--faults", str(schedule), "--backend", "ray", "--hosts", "2", *conf)
    for name in DETERMINISTIC_OUTPUTS:
        expected = (tmp_path / "embedded" / name).read_bytes()
        assert (tmp_path / "ray" / name).read_bytes() == expected, f"ray/{name} differs from embedded"
    events = (tmp_path / "embedded" / "events.jsonl").read_text()
    assert '"node_lost"' in events and '"fault_injected"' in events
    faults = [json.loads((tmp_path / run / "summary.json").read_text())["faults"] for run in ("embedded", "ray")]
    assert faults[0] == faults[1] and faults[0]["scheduled"] == len(SCHEDULE)
    assert set(faults[0]["injected"]) == {f["kind"] for f in SCHEDULE}
