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
from bisect import bisect_left, insort
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from yarnball.launcher._fairmetrics import write_fair_metric_csvs
from yarnball.protocols._schedulerevents import SchedulerEventType

__all__ = [
    "SAMPLER_NAMES",
    "WALL_CLOCK_PREFIX",
    "replay_timecosts",
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

    __slots__ = ("_stats", "_sum", "_sumsq", "count", "sorted", "timer_mean_ns", "window")

    def __init__(self) -> None:
        self.count = 0
        self.timer_mean_ns = 0.0
        self.window: deque[int] = deque()
        self.sorted: list[int] = []  # the window's values in order (kept with bisect, not re-sorted)
        self._sum = 0
        self._sumsq = 0
        self._stats: tuple[Any, ...] | None = None  # the window's statistics, kept while its values do not change

    def update(self, calls: int, seconds: float) -> None:
        # SchedulerMetrics.HistogramsRunnable: histogram.update((int) timer.getSnapshot().getMean()) once per
        # period. The timer's mean is over its last window.size calls; here it is the mean of the calls made since
        # the previous sample (the recorder keeps cumulative counts and seconds, not each call), and it keeps its
        # last value through a period without calls, as SLS's reservoir does.
        self.count += 1
        if calls > 0:
            self.timer_mean_ns = seconds * 1e9 / calls
        value = int(self.timer_mean_ns)
        window = self.window
        window.append(value)
        if len(window) > _SAMPLING_SIZE:
            dropped = window.popleft()
            if dropped == value:
                return  # the same values: the same statistics (an idle operation, mostly)
            del self.sorted[bisect_left(self.sorted, dropped)]
            self._sum -= dropped
            self._sumsq -= dropped * dropped
        insort(self.sorted, value)
        self._sum += value
        self._sumsq += value * value
        self._stats = None

    def statistics(self) -> tuple[float, str]:
        """The window's mean (ns) and ``CsvReporter.reportHistogram``'s columns after ``count`` (``max,mean,min,
        stddev,p50,p75,p95,p98,p99,p999``, ``UniformSnapshot`` statistics) as one CSV fragment."""
        stats = self._stats
        if stats is None:
            values = self.sorted
            n = len(values)
            mean = self._sum / n if n else 0.0
            # sample variance from exact integer sums: (n * sum(v^2) - sum(v)^2) / (n (n - 1))
            stddev = math.sqrt((n * self._sumsq - self._sum * self._sum) / (n * (n - 1))) if n > 1 else 0.0
            quantiles = ",".join(f"{_uniform_quantile(values, q):.6f}" for q in _QUANTILES)
            low, high = (values[0], values[-1]) if n else (0, 0)
            stats = (mean, f"{high},{mean:.6f},{low},{stddev:.6f},{quantiles}")
            self._stats = stats
        return stats

    def row(self) -> list[str]:
        """This sampler's CSV columns after ``t``, as text."""
        return [str(self.count), *self.statistics()[1].split(",")]


#: The samplers SLS registers: allocate, handle (every scheduler event) and one per SchedulerEventType.
SAMPLER_NAMES = ("allocate", "handle", *(f"handle.{e}" for e in _EVENT_TYPES))


def replay_timecosts(recorder: Any) -> Iterator[tuple[int, dict[str, _Sampler]]]:
    """SLS's scheduler timecost samplers, replayed from the recorder's cumulative (count, wall seconds) per op:
    after each sample time (in order), that time and the samplers by name (:data:`SAMPLER_NAMES`).

    ``allocate`` times ``CapacityScheduler.allocate``; ``handle`` every scheduler event; ``handle.<TYPE>`` one
    event type (``SLSSchedulerCommons.allocate``/``handle`` wrap the same calls in their timers).
    """
    # every sample time (the first ones may precede any scheduler call), with the ops counted by then
    by_time: dict[int, list[tuple[str, int, float]]] = {r.time_ms: [] for r in recorder.cluster_rows}
    for t, op, count, seconds in recorder.timecost_rows:
        by_time.setdefault(t, []).append((op, count, seconds))
    samplers = {name: _Sampler() for name in SAMPLER_NAMES}
    by_op = {"allocate": samplers["allocate"], **{e: samplers[f"handle.{e}"] for e in _EVENT_TYPES}}
    handle = samplers["handle"]
    last: dict[str, tuple[int, float]] = {}
    for t in sorted(by_time):
        handle_calls, handle_seconds = 0, 0.0
        updated = set()
        for op, count, seconds in by_time[t]:
            sampler = by_op.get(op)
            if sampler is None:
                continue  # not an SLS timer (continuous_scheduling)
            n0, s0 = last.get(op, (0, 0.0))
            last[op] = (count, seconds)
            sampler.update(count - n0, seconds - s0)
            updated.add(op)
            if op in _HANDLE_OPS:
                handle_calls += count - n0
                handle_seconds += seconds - s0
        handle.update(handle_calls, handle_seconds)
        for op, sampler in by_op.items():
            if op not in updated:
                sampler.update(0, 0.0)
        yield t, samplers


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
    - a FairScheduler run's ``variable.queue.<queue>.{demand,usage,minshare,maxshare,fairshare}.{memory,vcores}``
      (SLS's ``FairSchedulerMetrics``; launcher/_fairmetrics.py);
    - ``variable.app.<jobId>.live.containers`` for ``--track-jobs`` (SLS also has ``reserved.containers``, which
      yarnball does not track per job).

    Histograms ``sampler.scheduler.operation.{allocate,handle,handle.<TYPE>}.timecost``: measured wall-clock
    nanoseconds (:func:`replay_timecosts`), not deterministic.
    """
    metrics_dir.mkdir(parents=True, exist_ok=True)
    written: list[str] = []

    def series(name: str, header: str, rows: Iterable[tuple[Any, ...]]) -> None:
        with open(metrics_dir / f"{name}.csv", "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(("t", header))
            writer.writerows(rows)
        written.append(name)

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

    histograms = {name: f"{WALL_CLOCK_PREFIX}{name}.timecost" for name in SAMPLER_NAMES}

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

    # a FairScheduler run: FairSchedulerMetrics' variable.queue.* gauges (launcher/_fairmetrics.py)
    fair_files = write_fair_metric_csvs(metrics_dir, recorder.fair_rows, names)

    for job in recorder.track_jobs:
        rows_j = [(time_ms // 1000, live) for time_ms, job_id, _app, live in recorder.tracked_rows if job_id == job]
        series(f"variable.app.{job}.live.containers", "value", rows_j)

    with ExitStack() as stack:  # the samplers are replayed once, a line to each file per sample
        files = {}
        for name, stem in histograms.items():
            files[name] = f = stack.enter_context(open(metrics_dir / f"{stem}.csv", "w", encoding="utf-8"))
            f.write(",".join(("t", *_HISTOGRAM_HEADER)) + "\n")
        for time_ms, samplers in replay_timecosts(recorder):
            second = time_ms // 1000
            for name, f in files.items():
                sampler = samplers[name]
                f.write(f"{second},{sampler.count},{sampler.statistics()[1]}\n")
    return sorted([*(f"{name}.csv" for name in [*written, *histograms.values()]), *fair_files])


def write_realtimetrack(path: Path, recorder: Any, *, timecosts: bool = False) -> None:
    """``realtimetrack.json`` exactly shaped as SLS's MetricsLogRunnable writes it: ``[rec\\n,rec\\n...]``.

    Keys and units follow SLSWebApp.generateRealTimeTrackingMetrics: memory in GB (MB / 1024), vcores as counts,
    one ``queue.<name>.allocated.{memory,vcores}`` pair per leaf queue (SLS's tracker queue set holds leaf names).
    Departures: ``time`` is simulated ms since the start (SLS: wall-clock epoch ms); the ``jvm.*`` fields are 0.0
    (there is no JVM). The ``scheduler.allocate.timecost``, ``scheduler.handle.timecost`` and
    ``scheduler.handle-<TYPE>.timecost`` fields are 0 unless ``timecosts`` is true: then they are the means (ms) of
    the measured sampler windows, as SLS computes them (:func:`replay_timecosts`), and the file is no longer the
    same from run to run. ``scheduler.commit.*`` are always 0: yarnball's CapacityScheduler commits each
    allocation where it decides it, with no separate commit step to time or count.
    """
    leaves = recorder.leaf_queues()
    names = _queue_display_names(leaves)
    by_time: dict[int, dict[str, Any]] = {}
    for q in recorder.queue_rows:
        if q.leaf:
            by_time.setdefault(q.time_ms, {})[q.queue] = q
    means: dict[int, dict[str, float]] = {}
    if timecosts:  # SLSWebApp: each sampler's histogram mean / 1e6, in ms
        for time_ms, samplers in replay_timecosts(recorder):
            means[time_ms] = {name: samplers[name].statistics()[0] / 1_000_000 for name in SAMPLER_NAMES}
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
        cost = means.get(r.time_ms, {})
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
