"""SLS's own metric outputs: ``realtimetrack.json`` and the per-metric CSV files of its Dropwizard ``CsvReporter``.

SLS (``SchedulerMetrics``) registers its metrics in a Dropwizard (Codahale) ``MetricRegistry`` and starts a
``CsvReporter`` on ``<output>/metrics`` every ``yarn.sls.metrics.record.interval.ms``; the reporter appends one line
per metric per report to ``metrics/<metric name>.csv``, headed ``t,<columns>``: ``t,value`` for a gauge,
``t,count`` for a counter, ``t,count,max,mean,min,stddev,p50,p75,p95,p98,p99,p999`` for a histogram (``%f`` with
six decimals, ``Locale.US``). :func:`write_sls_metric_csvs` writes those files from the recorder's samples, so that
scripts written for SLS's ``metrics/`` directory read ours. ``t`` is whole simulated seconds since the start (SLS:
wall-clock epoch seconds, because it runs in real time).

What is deterministic and what is not:

- ``variable.*`` gauges, ``counter.queue.*`` and ``counter.scheduler.operation.*`` are functions of the inputs
  and the seed (the operation counts, like ``scheduler_ops.csv``, also depend on the exact shortcuts' switches);
- ``sampler.scheduler.operation.*.timecost.csv`` are measured wall-clock costs (:data:`WALL_CLOCK_PREFIX`): they
  differ from run to run, like ``scheduler_timecost.csv``;
- ``realtimetrack.json`` stays deterministic: its ``scheduler.*.timecost`` fields are 0 unless
  ``yarnball.sls.realtimetrack.timecost`` is true, which fills them from the same measured samplers (and makes the
  file differ from run to run).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yarnball.protocols._schedulerevents import SchedulerEventType

__all__ = [
    "WALL_CLOCK_PREFIX",
    "TimecostSamplers",
    "write_realtimetrack",
    "write_sls_metric_csvs",
]

#: Files of metrics/ whose contents are measured wall-clock time (kept out of byte-identical comparisons).
WALL_CLOCK_PREFIX = "sampler.scheduler.operation."

_EVENT_TYPES = tuple(e.value for e in SchedulerEventType)
_HANDLE_OPS = frozenset(_EVENT_TYPES)
_SAMPLING_SIZE = 60  # SchedulerMetrics.SAMPLING_SIZE: each sampler histogram keeps its last 60 updates
_HISTOGRAM_HEADER = ("count", "max", "mean", "min", "stddev", "p50", "p75", "p95", "p98", "p99", "p999")
_QUANTILES = (0.5, 0.75, 0.95, 0.98, 0.99, 0.999)


def _uniform_quantile(values: Sequence[int], quantile: float) -> float:
    """Dropwizard ``UniformSnapshot.getValue`` over sorted ``values`` (what a SlidingWindowReservoir returns)."""
    if not values:
        return 0.0
    pos = quantile * (len(values) + 1)
    index = int(pos)
    if index < 1:
        return float(values[0])
    if index >= len(values):
        return float(values[-1])
    lower, upper = values[index - 1], values[index]
    return lower + (pos - math.floor(pos)) * (upper - lower)


class _Sampler:
    """One ``sampler.*`` histogram: a sliding window of the last 60 per-sample timer means (ns, as ints)."""

    __slots__ = ("count", "timer_mean_ns", "window")

    def __init__(self) -> None:
        self.count = 0
        self.timer_mean_ns = 0.0
        self.window: list[int] = []

    def update(self, calls: int, seconds: float) -> None:
        # SchedulerMetrics.HistogramsRunnable: histogram.update((int) timer.getSnapshot().getMean()) once per
        # period. The timer's mean is over its last window.size calls; here it is the mean of the calls made since
        # the previous sample (the recorder keeps cumulative counts and seconds, not each call), and it keeps its
        # last value through a period without calls, as SLS's reservoir does.
        if calls > 0:
            self.timer_mean_ns = seconds * 1e9 / calls
        self.window.append(int(self.timer_mean_ns))
        if len(self.window) > _SAMPLING_SIZE:
            del self.window[0]
        self.count += 1

    def mean_ns(self) -> float:
        return sum(self.window) / len(self.window) if self.window else 0.0

    def row(self) -> tuple[Any, ...]:
        """``CsvReporter.reportHistogram``'s columns for the current window (``UniformSnapshot`` statistics)."""
        values = sorted(self.window)
        n = len(values)
        mean = self.mean_ns()
        stddev = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
        head = (self.count, values[-1] if values else 0, f"{mean:.6f}", values[0] if values else 0, f"{stddev:.6f}")
        return head + tuple(f"{_uniform_quantile(values, q):.6f}" for q in _QUANTILES)


class TimecostSamplers:
    """SLS's scheduler timecost samplers, replayed from the recorder's cumulative (count, wall seconds) per op.

    ``allocate`` times ``CapacityScheduler.allocate``; ``handle`` every scheduler event; ``handle.<TYPE>`` one
    event type (``SLSSchedulerCommons.allocate``/``handle`` wrap the same calls in their timers).
    """

    def __init__(self, recorder: Any) -> None:
        # every sample time (the first ones may precede any scheduler call), with the ops counted by then
        by_time: dict[int, dict[str, tuple[int, float]]] = {r.time_ms: {} for r in recorder.cluster_rows}
        for t, op, count, seconds in recorder.timecost_rows:
            by_time.setdefault(t, {})[op] = (count, seconds)
        self.names = ["allocate", "handle", *(f"handle.{e}" for e in _EVENT_TYPES)]
        self.samplers = {name: _Sampler() for name in self.names}
        self.times: list[int] = []
        self.rows: dict[str, list[tuple[Any, ...]]] = {name: [] for name in self.names}
        self.mean_ms: dict[int, dict[str, float]] = {}
        last: dict[str, tuple[int, float]] = {}
        for t in sorted(by_time):
            ops = by_time[t]
            delta = {op: (n - last.get(op, (0, 0.0))[0], s - last.get(op, (0, 0.0))[1]) for op, (n, s) in ops.items()}
            last.update(ops)
            handle = [d for op, d in delta.items() if op in _HANDLE_OPS]
            updates = {
                "allocate": delta.get("allocate", (0, 0.0)),
                "handle": (sum(n for n, _ in handle), sum(s for _, s in handle)),
                **{f"handle.{e}": delta.get(e, (0, 0.0)) for e in _EVENT_TYPES},
            }
            self.times.append(t)
            means: dict[str, float] = {}
            for name in self.names:
                sampler = self.samplers[name]
                sampler.update(*updates[name])
                self.rows[name].append(sampler.row())
                means[name] = sampler.mean_ns() / 1_000_000  # SLSWebApp: histogram mean / 1e6, in ms
            self.mean_ms[t] = means

    def at(self, time_ms: int) -> dict[str, float] | None:
        """The samplers' means in ms after the sample at ``time_ms`` (None if there was no sample then)."""
        return self.mean_ms.get(time_ms)


def write_sls_metric_csvs(metrics_dir: Path, recorder: Any) -> list[str]:
    """Write SLS's per-metric CSV files into ``metrics_dir``; return their names (``<metric>.csv``), sorted.

    Gauges and counters (SchedulerMetrics' registrations, memory in MB as the gauges return it):

    - ``variable.jvm.{free,max,total}.memory``: 0 (there is no JVM; kept so scripts that read them still run);
    - ``variable.cluster.{allocated,available}.{memory,vcores}``, ``variable.running.{application,container}``:
      the root queue's figures, as in ``metrics/cluster.csv``;
    - ``counter.scheduler.operation.allocate``, ``.handle`` and ``.handle.<SchedulerEventType>``: cumulative
      scheduler calls, as in ``metrics/scheduler_ops.csv``;
    - ``counter.queue.<leaf>.{pending,allocated}.{memory,cores}``: the leaf queue's pending and allocated
      resources at the sample. SLS keeps these as counters that ``SLSSchedulerCommons`` moves by each allocate
      call's asks and grants and each release; they stand for the same quantities, computed here from the
      scheduler's queue metrics.
    - ``variable.app.<jobId>.live.containers`` for ``--track-jobs`` (SLS also has ``reserved.containers``, which
      yarnball does not track per job).

    Histograms ``sampler.scheduler.operation.{allocate,handle,handle.<TYPE>}.timecost``: measured wall-clock
    nanoseconds (:class:`TimecostSamplers`), not deterministic.
    """
    metrics_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, tuple[str, list[tuple[Any, ...]]]] = {}

    def series(name: str, header: str, rows: list[tuple[Any, ...]]) -> None:
        written[name] = (header, rows)

    cluster = recorder.cluster_rows
    t = [r.time_ms // 1000 for r in cluster]
    for jvm in ("free", "max", "total"):
        series(f"variable.jvm.{jvm}.memory", "value", [(s, 0) for s in t])
    gauges = {
        "variable.cluster.allocated.memory": lambda r: r.allocated_memory_mb,
        "variable.cluster.allocated.vcores": lambda r: r.allocated_vcores,
        "variable.cluster.available.memory": lambda r: r.available_memory_mb,
        "variable.cluster.available.vcores": lambda r: r.available_vcores,
        "variable.running.application": lambda r: r.running_applications,
        "variable.running.container": lambda r: r.running_containers,
    }
    for name, get in gauges.items():
        series(name, "value", [(s, get(r)) for s, r in zip(t, cluster, strict=True)])

    ops_at: dict[int, dict[str, int]] = {}
    for time_ms, op, count in recorder.op_rows:
        ops_at.setdefault(time_ms, {})[op] = count
    counts = [ops_at.get(r.time_ms, {}) for r in cluster]
    series("counter.scheduler.operation.allocate", "count", [(s, c.get("allocate", 0)) for s, c in zip(t, counts)])
    handle = [sum(n for op, n in c.items() if op in _HANDLE_OPS) for c in counts]
    series("counter.scheduler.operation.handle", "count", list(zip(t, handle, strict=True)))
    for e in _EVENT_TYPES:
        series(f"counter.scheduler.operation.handle.{e}", "count", [(s, c.get(e, 0)) for s, c in zip(t, counts)])

    samplers = TimecostSamplers(recorder)
    for name in samplers.names:
        rows = [(ts // 1000, *row) for ts, row in zip(samplers.times, samplers.rows[name], strict=True)]
        series(f"{WALL_CLOCK_PREFIX}{name}.timecost", ",".join(_HISTOGRAM_HEADER), rows)

    names = _queue_display_names(recorder.leaf_queues())
    per_queue: dict[str, list[Any]] = {leaf: [] for leaf in names}
    for q in recorder.queue_rows:
        if q.leaf:
            per_queue[q.queue].append(q)
    for leaf, rows_q in per_queue.items():
        prefix = f"counter.queue.{names[leaf]}"
        for metric, get in (
            ("pending.memory", lambda q: q.pending_memory_mb),
            ("pending.cores", lambda q: q.pending_vcores),
            ("allocated.memory", lambda q: q.allocated_memory_mb),
            ("allocated.cores", lambda q: q.allocated_vcores),
        ):
            series(f"{prefix}.{metric}", "count", [(q.time_ms // 1000, get(q)) for q in rows_q])

    for job in recorder.track_jobs:
        rows_j = [(time_ms // 1000, live) for time_ms, job_id, _app, live in recorder.tracked_rows if job_id == job]
        series(f"variable.app.{job}.live.containers", "value", rows_j)

    for name, (header, rows) in written.items():
        with open(metrics_dir / f"{name}.csv", "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(("t", *header.split(",")))
            writer.writerows(rows)
    return sorted(f"{name}.csv" for name in written)


def write_realtimetrack(path: Path, recorder: Any, *, timecosts: bool = False) -> None:
    """``realtimetrack.json`` exactly shaped as SLS's MetricsLogRunnable writes it: ``[rec\\n,rec\\n...]``.

    Keys and units follow SLSWebApp.generateRealTimeTrackingMetrics: memory in GB (MB / 1024), vcores as counts,
    one ``queue.<name>.allocated.{memory,vcores}`` pair per leaf queue (SLS's tracker queue set holds leaf names).
    Departures: ``time`` is simulated ms since the start (SLS: wall-clock epoch ms); the ``jvm.*`` fields are 0.0
    (there is no JVM). The ``scheduler.allocate.timecost``, ``scheduler.handle.timecost`` and
    ``scheduler.handle-<TYPE>.timecost`` fields are 0 unless ``timecosts`` is true: then they are the means (ms) of
    the measured sampler windows, as SLS computes them (:class:`TimecostSamplers`), and the file is no longer the
    same from run to run. ``scheduler.commit.*`` are always 0: yarnball's CapacityScheduler commits each
    allocation where it decides it, with no separate commit step to time or count.
    """
    leaves = recorder.leaf_queues()
    names = _queue_display_names(leaves)
    by_time: dict[int, dict[str, Any]] = {}
    for q in recorder.queue_rows:
        if q.leaf:
            by_time.setdefault(q.time_ms, {})[q.queue] = q
    samplers = TimecostSamplers(recorder) if timecosts else None
    records: list[str] = []
    for r in recorder.cluster_rows:
        rec: dict[str, Any] = {
            "time": r.time_ms,
            "jvm.free.memory": 0.0,
            "jvm.max.memory": 0.0,
            "jvm.total.memory": 0.0,
            "running.applications": r.running_applications,
            "running.containers": r.running_containers,
            "cluster.allocated.memory": r.allocated_memory_mb / 1024,
            "cluster.allocated.vcores": float(r.allocated_vcores),
            "cluster.available.memory": r.available_memory_mb / 1024,
            "cluster.available.vcores": float(r.available_vcores),
        }
        queues = by_time.get(r.time_ms, {})
        for leaf in leaves:
            q = queues.get(leaf)
            rec[f"queue.{names[leaf]}.allocated.memory"] = (q.allocated_memory_mb / 1024) if q else 0.0
            rec[f"queue.{names[leaf]}.allocated.vcores"] = q.allocated_vcores if q else 0
        means = samplers.at(r.time_ms) if samplers is not None else None
        cost = means if means is not None else {}
        rec["scheduler.allocate.timecost"] = cost.get("allocate", 0.0)
        rec["scheduler.commit.success.timecost"] = 0.0
        rec["scheduler.commit.failure.timecost"] = 0.0
        rec["scheduler.commit.success.throughput"] = 0
        rec["scheduler.commit.failure.throughput"] = 0
        rec["scheduler.handle.timecost"] = cost.get("handle", 0.0)
        for e in _EVENT_TYPES:
            rec[f"scheduler.handle-{e}.timecost"] = cost.get(f"handle.{e}", 0.0)
        records.append(json.dumps(rec, separators=(",", ":")))
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("[")
        f.write("\n,".join(records))
        f.write("\n]" if records else "]")


def _queue_display_names(paths: Sequence[str]) -> dict[str, str]:
    """SLS names queues by their leaf name; a leaf name shared by two paths falls back to the full path."""
    short = [p.rsplit(".", 1)[-1] for p in paths]
    return {p: (s if short.count(s) == 1 else p) for p, s in zip(paths, short, strict=True)}
