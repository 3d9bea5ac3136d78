"""SLS's per-metric CSV files (Dropwizard CsvReporter layout) and realtimetrack.json's timecost fields."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher._cluster import Cluster
from yarnball.launcher._outputs import MetricsRecorder, write_outputs
from yarnball.launcher._slsmetrics import WALL_CLOCK_PREFIX, replay_timecosts
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import Configuration, keys
from yarnball.protocols._schedulerevents import SchedulerEventType

HISTOGRAM_HEADER = ["t", "count", "max", "mean", "min", "stddev", "p50", "p75", "p95", "p98", "p99", "p999"]
TWO_QUEUES = {
    "yarn.scheduler.capacity.root.queues": "a,b",
    "yarn.scheduler.capacity.root.a.capacity": "60",
    "yarn.scheduler.capacity.root.b.capacity": "40",
}


def _run(out: Path, conf: dict[str, str] | None = None) -> tuple[Cluster, dict[str, Any]]:
    wl = (
        WorkloadBuilder()
        .nodes(3)
        .job("j1", queue="a", tasks=[task_spec(4, 5_000)])
        .job("j2", queue="b", submit_ms=2_000, tasks=[task_spec(3, 3_000)])
        .build()
    )
    cluster = Cluster(Configuration({**TWO_QUEUES, **(conf or {})}), wl.nodes, seed=3)
    cluster.submit_workload(wl)
    recorder = MetricsRecorder(cluster, 1000, track_jobs=("j1",))
    recorder.start()
    cluster.run()
    summary = write_outputs(out, cluster, recorder, wall_seconds=1.0, seed=3, workload=wl, plots=False)
    return cluster, summary


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(name="out", scope="module")
def fixture_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sls") / "out"
    _run(out)
    return out


def test_sls_metric_files_are_named_and_headed_as_its_csv_reporter_writes_them(out: Path) -> None:
    """metrics/<metric name>.csv for SchedulerMetrics' registrations: gauges 't,value', counters 't,count',
    samplers the histogram columns."""
    metrics = out / "metrics"
    gauges = [
        "variable.jvm.free.memory",
        "variable.cluster.allocated.memory",
        "variable.cluster.available.vcores",
        "variable.running.application",
        "variable.running.container",
        "variable.app.j1.live.containers",
    ]
    counters = [
        "counter.scheduler.operation.allocate",
        "counter.scheduler.operation.handle",
        *(f"counter.scheduler.operation.handle.{e.value}" for e in SchedulerEventType),
        "counter.queue.a.allocated.memory",
        "counter.queue.b.pending.cores",
    ]
    samplers = [f"{WALL_CLOCK_PREFIX}allocate.timecost", f"{WALL_CLOCK_PREFIX}handle.NODE_UPDATE.timecost"]
    for names, header in ((gauges, "t,value"), (counters, "t,count"), (samplers, ",".join(HISTOGRAM_HEADER))):
        for name in names:
            assert (metrics / f"{name}.csv").read_text().splitlines()[0] == header, name


def test_gauges_are_the_cluster_samples(out: Path) -> None:
    """variable.cluster.* and variable.running.* hold cluster.csv's figures (MB), one line per sample, t in s."""
    cluster = _rows(out / "metrics" / "cluster.csv")
    for gauge, column in (
        ("variable.cluster.allocated.memory", "cluster.allocated.memory"),
        ("variable.cluster.available.vcores", "cluster.available.vcores"),
        ("variable.running.container", "running.containers"),
        ("variable.running.application", "running.applications"),
    ):
        rows = _rows(out / "metrics" / f"{gauge}.csv")
        assert [(r["t"], r["value"]) for r in rows] == [(str(int(c["time"]) // 1000), c[column]) for c in cluster]
    assert max(int(c["cluster.allocated.memory"]) for c in cluster) > 0


def test_operation_counters_follow_scheduler_ops(out: Path) -> None:
    """counter.scheduler.operation.{allocate,handle,handle.<TYPE>} are scheduler_ops.csv's cumulative counts;
    'handle' sums every scheduler event type."""
    ops: dict[int, dict[str, int]] = {}
    for r in _rows(out / "metrics" / "scheduler_ops.csv"):
        ops.setdefault(int(r["time"]), {})[r["op"]] = int(r["count"])
    last_time = max(ops)
    last = ops[last_time]
    events = {e.value for e in SchedulerEventType}

    def final(name: str) -> int:
        return int(_rows(out / "metrics" / f"counter.scheduler.operation.{name}.csv")[-1]["count"])

    assert final("allocate") == last["allocate"] > 0
    assert final("handle.NODE_UPDATE") == last["NODE_UPDATE"] > 0
    assert final("handle") == sum(n for op, n in last.items() if op in events)


def test_queue_counters_are_the_leaf_queues_resources(out: Path) -> None:
    """counter.queue.<leaf>.{allocated,pending}.{memory,cores} follow queues.csv for that leaf."""
    queues = [r for r in _rows(out / "metrics" / "queues.csv") if r["queue"] == "root.a"]
    for metric, column in (("allocated.memory", "allocated.memory"), ("pending.cores", "pending.vcores")):
        rows = _rows(out / "metrics" / f"counter.queue.a.{metric}.csv")
        assert [r["count"] for r in rows] == [q[column] for q in queues]
    assert max(int(q["allocated.memory"]) for q in queues) > 0


def test_the_summary_lists_the_sls_metric_files(out: Path) -> None:
    """summary.json's outputs name every file written into metrics/."""
    summary = json.loads((out / "summary.json").read_text())
    written = {f"metrics/{p.name}" for p in (out / "metrics").iterdir()}
    assert written <= set(summary["outputs"])


@dataclass
class _Sample:
    time_ms: int


class _Recorder:
    def __init__(self, times: list[int], timecost_rows: list[tuple[int, str, int, float]]) -> None:
        self.cluster_rows = [_Sample(t) for t in times]
        self.timecost_rows = timecost_rows


U = 2.0**-20  # a call duration in seconds that, and its multiples, floats hold exactly


def test_sampler_histograms_are_sls_windows_of_per_period_timer_means() -> None:
    """Each sample updates the histogram with the mean ns per call since the previous one (the last mean when
    there was no call), and reports Dropwizard's statistics over the window."""
    rows = [
        (1000, "allocate", 2, 2 * U),  # 2 calls of U each
        (2000, "allocate", 2, 2 * U),  # none: the timer still says U
        (3000, "allocate", 3, 6 * U),  # 1 call of 4U
    ]
    *_, (time_ms, samplers) = replay_timecosts(_Recorder([0, 1000, 2000, 3000], rows))
    assert time_ms == 3000
    a, b = int(U * 1e9), int(4 * U * 1e9)
    window = [0, a, a, b]  # no call yet at t=0
    mean = sum(window) / 4
    count, max_, mean_s, min_, stddev, p50, p75, *_ = samplers["allocate"].row()
    assert (count, max_, min_) == ("4", str(b), "0")
    assert float(mean_s) == pytest.approx(mean, abs=1e-6)
    assert float(stddev) == pytest.approx(math.sqrt(sum((v - mean) ** 2 for v in window) / 3), abs=1e-6)
    # UniformSnapshot.getValue: pos = q * (n + 1) over the sorted window, interpolated between neighbours
    assert float(p50) == pytest.approx(a, abs=1e-6)
    assert float(p75) == pytest.approx(a + 0.75 * (b - a), abs=1e-6)
    assert samplers["allocate"].statistics()[0] == pytest.approx(mean)


def test_sampler_window_keeps_the_last_60_updates() -> None:
    """SchedulerMetrics.SAMPLING_SIZE: the statistics cover the last 60 updates; count keeps every update."""
    times = [1000 * i for i in range(1, 62)]
    # one NODE_UPDATE per period: the first takes 5U, the 60 after it U each
    rows = [(t, "NODE_UPDATE", i, (i + 4) * U) for i, t in enumerate(times, start=1)]
    replay = replay_timecosts(_Recorder(times, rows))
    _, first = next(replay)
    assert first["handle.NODE_UPDATE"].row()[1] == str(int(5 * U * 1e9))
    *_, (_, samplers) = replay
    count, max_, _mean, min_, *_ = samplers["handle.NODE_UPDATE"].row()
    assert count == "61"
    assert (max_, min_) == (str(int(U * 1e9)), str(int(U * 1e9)))  # the 5U update has left the window
    assert samplers["handle"].row()[:2] == ["61", str(int(U * 1e9))]  # 'handle' sums every event type


def test_realtimetrack_timecosts_stay_zero_by_default(out: Path) -> None:
    """Without yarnball.sls.realtimetrack.timecost, realtimetrack.json's timecost fields are 0 (deterministic)."""
    records = json.loads((out / "realtimetrack.json").read_text())
    assert {r["scheduler.allocate.timecost"] for r in records} == {0.0}
    assert (out / "metrics" / f"{WALL_CLOCK_PREFIX}allocate.timecost.csv").is_file()


def test_realtimetrack_timecosts_are_the_sampler_means_when_asked(tmp_path: Path) -> None:
    """With the key true, each record's scheduler.*.timecost is its sampler's window mean, in ms."""
    out = tmp_path / "out"
    _run(out, {keys.YARNBALL_SLS_REALTIMETRACK_TIMECOST: "true"})
    records = json.loads((out / "realtimetrack.json").read_text())
    for field, name in (
        ("scheduler.allocate.timecost", "allocate"),
        ("scheduler.handle-NODE_UPDATE.timecost", "handle.NODE_UPDATE"),
    ):
        sampler = _rows(out / "metrics" / f"{WALL_CLOCK_PREFIX}{name}.timecost.csv")
        means = {int(r["t"]): float(r["mean"]) / 1e6 for r in sampler}
        assert any(r[field] > 0 for r in records), field
        for r in records:
            assert r[field] == pytest.approx(means[r["time"] // 1000], abs=1e-9), (field, r["time"])
