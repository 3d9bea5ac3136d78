"""Reporting of opportunistic containers: the Nodes page columns, nodes.csv and summary.json counts."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from yarnball import Cluster
from yarnball.actors import DistributedShellAppMaster
from yarnball.launcher._nodereport import NODE_REPORT_COLUMNS, node_report
from yarnball.launcher._outputs import MetricsRecorder, write_outputs
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import ExecutionType, keys

ENABLED = {
    keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
    keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
}


def _cluster(conf: dict[str, str]) -> Cluster:
    wl = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build()
    c = Cluster(conf, wl.nodes, seed=2)
    c.submit(DistributedShellAppMaster(name="o", num_containers=16, container_type=ExecutionType.OPPORTUNISTIC,
                                       duration_ms=20_000, promote_after_ms=25_000))  # fmt: skip
    c.submit(DistributedShellAppMaster(name="p", num_containers=2, container_type=ExecutionType.OPPORTUNISTIC,
                                       duration_ms=60_000, promote_after_ms=1_000, submit_at_ms=30_000))  # fmt: skip
    return c


def test_node_report_shows_opportunistic_columns_mid_run() -> None:
    """While OPPORTUNISTIC containers run and queue, the Nodes page counts them per node."""
    c = _cluster(ENABLED)
    c.run(until_ms=10_000)
    rows = node_report(c)
    assert [r["Node Address"] for r in rows] == ["node0:0", "node1:0"]
    assert sum(r["Running Containers (O)"] for r in rows) == 7  # 8 slots minus the AM container
    assert sum(r["Mem Used (O)"] for r in rows) == 7 * 1024
    assert sum(r["VCores Used (O)"] for r in rows) == 7
    assert sum(r["Queued Containers"] for r in rows) > 0
    assert sum(r["Running Containers (G)"] for r in rows) == 1  # the AM container


def test_outputs_write_nodes_csv_and_summary_counts(tmp_path: Path) -> None:
    """With the feature on, nodes.csv has the Nodes page columns and summary.json counts O containers."""
    c = _cluster(ENABLED)
    recorder = MetricsRecorder(c)
    recorder.start()
    c.run()
    summary = write_outputs(tmp_path, c, recorder, wall_seconds=1.0, seed=2, plots=False)
    with open(tmp_path / "metrics" / "nodes.csv", newline="", encoding="utf-8") as f:
        header = next(csv.reader(f))
    assert tuple(header) == NODE_REPORT_COLUMNS
    counts = json.loads((tmp_path / "summary.json").read_text())["containers"]
    assert counts == summary["containers"]
    assert counts["opportunistic_allocated"] >= 18
    assert counts["promoted"] >= 2
    assert counts["opportunistic_killed"] >= 0
    assert "metrics/nodes.csv" in summary["outputs"]


def test_default_run_reports_zero_and_no_nodes_csv(tmp_path: Path) -> None:
    """With the feature off the counts are 0 and no nodes.csv is written."""
    c = _cluster({})
    recorder = MetricsRecorder(c)
    recorder.start()
    c.run()
    summary = write_outputs(tmp_path, c, recorder, wall_seconds=1.0, seed=2, plots=False)
    assert {k: summary["containers"][k] for k in ("opportunistic_allocated", "opportunistic_killed", "promoted")} == {
        "opportunistic_allocated": 0,
        "opportunistic_killed": 0,
        "promoted": 0,
    }
    assert not (tmp_path / "metrics" / "nodes.csv").exists()
