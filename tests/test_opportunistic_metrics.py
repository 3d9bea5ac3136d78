"""OpportunisticSchedulerMetrics in a running cluster and in the outputs (metrics CSV, summary.json)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from test_opportunistic_rm import ENABLED, O, cluster, dshell

from yarnball.actors import DistributedShellAppMaster
from yarnball.launcher._outputs import MetricsRecorder, write_outputs
from yarnball.protocols import keys
from yarnball.testing import captured_events


def test_counts_follow_allocations_and_releases() -> None:
    """Every RM-allocated OPPORTUNISTIC container is counted once allocated (off-switch: dshell asks ANY) and once
    released when it ends; the gauge is back to 0; each allocation has a latency entry."""
    c = cluster(ENABLED)
    am = dshell(c, 6, O, duration_ms=2_000)
    with captured_events():
        c.run()
    assert am.succeeded == 6
    m = c.rm.opportunistic.metrics.snapshot()
    allocated = c.rm.opportunistic.counters["opportunistic_allocated"]
    assert m["AggregateOContainersAllocated"] == allocated >= 6
    assert m["AggregateOffSwitchOContainersAllocated"] == allocated
    assert m["AggregateNodeLocalOContainersAllocated"] == m["AggregateRackLocalOContainersAllocated"] == 0
    assert m["AggregateOContainersReleased"] == allocated
    assert m["AllocatedOContainers"] == 0
    assert m["AllocateLatencyOQuantilesNumOps"] == allocated
    assert 0 <= m["AllocateLatencyOQuantiles50thPercentileTime"] <= m["AllocateLatencyOQuantiles99thPercentileTime"]


def test_gauge_counts_running_containers_mid_run() -> None:
    """While containers run, AllocatedOContainers = allocated - released > 0."""
    c = cluster(ENABLED)
    dshell(c, 6, O, duration_ms=20_000)
    with captured_events():
        c.run(until_ms=12_000)
    m = c.rm.opportunistic.metrics
    assert m.allocated > 0
    assert m.allocated == m.aggregate_allocated - m.aggregate_released


class _NodeLocalShell(DistributedShellAppMaster):
    """Asks its OPPORTUNISTIC containers on node1 (AMRMClient adds the rack and ANY asks)."""

    def on_registered(self, response: Any) -> None:
        self.add_container_request(
            self.container_resource, 0, nodes=("node1",), execution_type=O, count=self.num_containers
        )


def test_node_local_asks_are_counted_node_local() -> None:
    """Asks naming a host are placed by the allocator's node-local loop while that node has queue room."""
    c = cluster(ENABLED)
    c.submit(_NodeLocalShell(name="local", num_containers=3, container_type=O, duration_ms=2_000))
    with captured_events():
        c.run()
    m = c.rm.opportunistic.metrics
    assert m.aggregate_node_local > 0
    assert m.aggregate_node_local + m.aggregate_rack_local + m.aggregate_off_switch == m.aggregate_allocated


def test_exported_in_metrics_csv_and_summary(tmp_path: Path) -> None:
    c = cluster(ENABLED)
    dshell(c, 6, O, duration_ms=2_000)
    recorder = MetricsRecorder(c, 1000)
    recorder.start()
    with captured_events():
        c.run()
    summary = write_outputs(tmp_path, c, recorder, wall_seconds=1.0, seed=3, plots=False)
    with (tmp_path / "metrics" / "opportunistic_scheduler.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert rows and int(rows[-1]["AggregateOContainersAllocated"]) == c.rm.opportunistic.metrics.aggregate_allocated
    # per-sample latency entries add up to every allocation
    assert (
        sum(int(r["AllocateLatencyOQuantilesNumOps"]) for r in rows) == c.rm.opportunistic.metrics.aggregate_allocated
    )
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk["opportunistic_scheduler_metrics"] == summary["opportunistic_scheduler_metrics"]
    assert on_disk["opportunistic_scheduler_metrics"]["AggregateOContainersReleased"] > 0
    assert "metrics/opportunistic_scheduler.csv" in on_disk["outputs"]


def test_not_exported_when_opportunistic_is_off(tmp_path: Path) -> None:
    c = cluster()
    dshell(c, 2, O, duration_ms=2_000)
    recorder = MetricsRecorder(c, 1000)
    recorder.start()
    with captured_events():
        c.run()
    summary = write_outputs(tmp_path, c, recorder, wall_seconds=1.0, seed=3, plots=False)
    assert "opportunistic_scheduler_metrics" not in summary
    assert not (tmp_path / "metrics" / "opportunistic_scheduler.csv").exists()


def test_latency_is_the_wait_since_the_ask() -> None:
    """One node with an NM queue of 1: the twelve containers asked at once are allocated as room appears, so the
    latency entries grow from 0 in AM-heartbeat steps (1 s); the exported percentiles are their nearest ranks."""
    conf = {**ENABLED, keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "1"}
    c = cluster(conf, nodes=1)
    dshell(c, 12, O, duration_ms=5_000)
    with captured_events():
        c.run()
    m = c.rm.opportunistic.metrics
    lat = m.latencies
    assert len(lat) == 12 and lat[0] == 0 and lat[-1] > 0
    assert lat == sorted(lat) and all(v % 1000 == 0 for v in lat)
    snap = m.snapshot()
    assert snap["AllocateLatencyOQuantiles50thPercentileTime"] == sorted(lat)[5]  # ceil(0.5 x 12) = 6th
    assert snap["AllocateLatencyOQuantiles99thPercentileTime"] == max(lat)
