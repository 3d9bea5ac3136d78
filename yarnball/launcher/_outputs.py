"""What a simulation leaves behind: metrics sampled in simulated time and SLS-compatible output files.

:class:`MetricsRecorder` samples the cluster every ``yarn.sls.metrics.record.interval.ms`` of *simulated* time (SLS's
``SchedulerMetrics`` samples every wall-clock second, because SLS runs in real time). :func:`write_outputs` turns the
samples and the ResourceManager's final state into:

- ``realtimetrack.json``: SLS's ``MetricsLogRunnable`` format (a JSON array, one record per sample, SLSWebApp's keys;
  ``launcher/_slsmetrics.py``);
- ``jobruntime.csv``: SLS's ``SchedulerMetrics.addAMRuntime`` rows;
- ``metrics/cluster.csv``, ``metrics/queues.csv``, ``metrics/scheduler_ops.csv``, ``metrics/applications.csv``
  (and ``metrics/tracked_jobs.csv`` for ``--track-jobs``);
- ``metrics/scheduler_timecost.csv``: wall-clock cost of scheduler calls;
- ``metrics/<metric name>.csv``: SLS's per-metric CSV files (its Dropwizard CsvReporter layout,
  ``launcher/_slsmetrics.py``), the ``sampler.scheduler.operation.*.timecost.csv`` ones measured in wall-clock time;
- ``summary.json`` (counts, utilisation, job completion and waiting times: ``launcher/_summary.py``) and the PNG
  plots.

Everything except ``summary.json``'s ``wall_seconds``/``speedup``, ``scheduler_timecost.csv`` and the ``sampler.*``
files is a function of the inputs and the seed: rows are ordered by time and by name, never by set or hash order, and
floats are rounded. (``realtimetrack.json`` too, unless ``yarnball.sls.realtimetrack.timecost`` asks for its
measured timecost fields.)
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnball._logs import get_logger
from yarnball.launcher._completed import output_applications
from yarnball.launcher._fairmetrics import (
    FairQueueSample,
    fair_queue_summary,
    fair_samples,
    fs_op_durations_summary,
)
from yarnball.launcher._nodereport import NODE_REPORT_COLUMNS, node_report
from yarnball.launcher._slsmetrics import write_realtimetrack, write_sls_metric_csvs
from yarnball.launcher._summary import build_summary, jobs_by_id, ms_field, round_float, security_summary
from yarnball.policies.opportunistic import OpportunisticSchedulerMetrics
from yarnball.protocols import YarnApplicationState, keys

__all__ = [
    "ClusterSample",
    "MetricsRecorder",
    "QueueSample",
    "build_summary",  # (launcher/_summary.py)
    "security_summary",  # (launcher/_summary.py)
    "write_outputs",
]

log = get_logger(__name__)


@dataclass(slots=True, frozen=True)
class ClusterSample:
    """The whole cluster at one sample time (memory in MB)."""

    time_ms: int
    total_memory_mb: int
    total_vcores: int
    allocated_memory_mb: int
    allocated_vcores: int
    available_memory_mb: int
    available_vcores: int
    pending_memory_mb: int
    pending_vcores: int
    reserved_memory_mb: int
    reserved_vcores: int
    running_applications: int
    pending_applications: int
    running_containers: int


@dataclass(slots=True, frozen=True)
class QueueSample:
    """One queue (leaf or parent) at one sample time (memory in MB)."""

    time_ms: int
    queue: str
    leaf: bool
    allocated_memory_mb: int
    allocated_vcores: int
    pending_memory_mb: int
    pending_vcores: int
    available_memory_mb: int
    available_vcores: int
    reserved_memory_mb: int
    reserved_vcores: int
    apps_running: int
    apps_pending: int


CLUSTER_COLUMNS = (
    "time",
    "cluster.total.memory",
    "cluster.total.vcores",
    "cluster.allocated.memory",
    "cluster.allocated.vcores",
    "cluster.available.memory",
    "cluster.available.vcores",
    "cluster.pending.memory",
    "cluster.pending.vcores",
    "cluster.reserved.memory",
    "cluster.reserved.vcores",
    "running.applications",
    "pending.applications",
    "running.containers",
)
QUEUE_COLUMNS = (
    "time",
    "queue",
    "leaf",
    "allocated.memory",
    "allocated.vcores",
    "pending.memory",
    "pending.vcores",
    "available.memory",
    "available.vcores",
    "reserved.memory",
    "reserved.vcores",
    "running.applications",
    "pending.applications",
)


class MetricsRecorder:
    """Samples cluster, queue, scheduler-operation and tracked-job metrics every ``interval_ms`` of simulated time.

    ``cluster`` is a :class:`yarnball.launcher._cluster.Cluster` (anything with ``.kernel``, ``.rm``, ``.every``).
    Call :meth:`start` before running the cluster. Samples are kept in memory: a day of simulated time at 1 s is
    86,400 cluster rows, a few MB.
    """

    def __init__(self, cluster: Any, interval_ms: int = 1000, *, track_jobs: Sequence[str] = ()) -> None:
        if interval_ms <= 0:
            raise ValueError(f"interval_ms must be positive, got {interval_ms}")
        self.cluster = cluster
        self.interval_ms = int(interval_ms)
        self.track_jobs: tuple[str, ...] = tuple(dict.fromkeys(track_jobs))
        self.cluster_rows: list[ClusterSample] = []
        self.queue_rows: list[QueueSample] = []
        self.fair_rows: list[FairQueueSample] = []  # FairScheduler runs: each queue's shares (launcher/_fairmetrics.py)
        self.op_rows: list[tuple[int, str, int]] = []  # (time, op, cumulative count)
        # Wall-clock cost, kept apart because it differs from run to run: (time, op, cumulative count, seconds).
        self.timecost_rows: list[tuple[int, str, int, float]] = []
        self.tracked_rows: list[tuple[int, str, str, int]] = []  # (time, job id, application id, live containers)
        # OpportunisticSchedulerMetrics (when opportunistic containers are on): one snapshot per sample, latency
        # quantiles over the allocations since the previous sample.
        self.opportunistic_rows: list[dict[str, int]] = []
        self._latency_seen = 0
        self._last_time: int | None = None
        self._started = False

    def start(self) -> None:
        """Take the first sample now and then one every ``interval_ms`` of simulated time."""
        if self._started:
            return
        self._started = True
        self.sample()
        self.cluster.every(self.interval_ms, self.sample)

    # -- sampling ------------------------------------------------------------------------------------------------
    def sample(self) -> None:
        """Record one sample at the kernel's current time (a second call at the same time is ignored)."""
        now = int(self.cluster.kernel.now)
        if now == self._last_time:
            return
        self._last_time = now
        rm = self.cluster.rm
        lazy = getattr(rm.heartbeats, "lazy", None)
        if lazy is not None:
            lazy.settle_all()  # deferred RUNNING reports' heartbeats count in op_counts (_shortcuts/_lazyrunning.py)
        scheduler = rm.scheduler
        queues = sorted(scheduler.queue_metrics(), key=lambda q: q.path)
        root = next((q for q in queues if q.path == "root"), None)
        leaves = [q for q in queues if q.is_leaf]
        total = scheduler.cluster_resource
        if root is not None:
            alloc_m, alloc_v = root.allocated.memory_mb, root.allocated.vcores
            res_m, res_v = root.reserved.memory_mb, root.reserved.vcores
        else:
            alloc_m = sum(q.allocated.memory_mb for q in leaves)
            alloc_v = sum(q.allocated.vcores for q in leaves)
            res_m = sum(q.reserved.memory_mb for q in leaves)
            res_v = sum(q.reserved.vcores for q in leaves)
        self.cluster_rows.append(
            ClusterSample(
                time_ms=now,
                total_memory_mb=total.memory_mb,
                total_vcores=total.vcores,
                allocated_memory_mb=alloc_m,
                allocated_vcores=alloc_v,
                # Hadoop's root QueueMetrics: available = cluster resource - allocated.
                available_memory_mb=total.memory_mb - alloc_m,
                available_vcores=total.vcores - alloc_v,
                pending_memory_mb=sum(q.pending.memory_mb for q in leaves),
                pending_vcores=sum(q.pending.vcores for q in leaves),
                reserved_memory_mb=res_m,
                reserved_vcores=res_v,
                running_applications=sum(q.apps_running for q in leaves),
                pending_applications=sum(q.apps_pending for q in leaves),
                running_containers=len(rm.live),
            )
        )
        for q in queues:
            self.queue_rows.append(
                QueueSample(
                    time_ms=now,
                    queue=q.path,
                    leaf=q.is_leaf,
                    allocated_memory_mb=q.allocated.memory_mb,
                    allocated_vcores=q.allocated.vcores,
                    pending_memory_mb=q.pending.memory_mb,
                    pending_vcores=q.pending.vcores,
                    available_memory_mb=q.available.memory_mb,
                    available_vcores=q.available.vcores,
                    reserved_memory_mb=q.reserved.memory_mb,
                    reserved_vcores=q.reserved.vcores,
                    apps_running=q.apps_running,
                    apps_pending=q.apps_pending,
                )
            )
        self.fair_rows += fair_samples(now, queues, total)
        for op in sorted(rm.op_counts):
            count = rm.op_counts[op]
            self.op_rows.append((now, op, count))
            self.timecost_rows.append((now, op, count, float(rm.op_seconds[op])))
        if self.track_jobs:
            self._sample_tracked(now, rm)
        opp = getattr(rm, "opportunistic", None)
        if opp is not None:
            self.opportunistic_rows.append({"time": now, **opp.metrics.snapshot(self._latency_seen)})
            self._latency_seen = len(opp.metrics.latencies)

    def _sample_tracked(self, now: int, rm: Any) -> None:
        # SLS's variable.app.<jobId>.live.containers: the running attempt's live containers (AM included).
        by_job = {app.context.application_name: app_id for app_id, app in rm.apps.items()}
        live: dict[Any, int] = {}
        for cid in rm.live:
            app_id = cid.application_attempt_id.application_id
            live[app_id] = live.get(app_id, 0) + 1
        for job_id in self.track_jobs:
            app_id = by_job.get(job_id)
            if app_id is not None:
                self.tracked_rows.append((now, job_id, str(app_id), live.get(app_id, 0)))

    # -- aggregates ----------------------------------------------------------------------------------------------
    def utilization(self) -> dict[str, float]:
        """Mean and peak allocated/total over the samples where the cluster has resources."""
        mem = [r.allocated_memory_mb / r.total_memory_mb for r in self.cluster_rows if r.total_memory_mb > 0]
        vc = [r.allocated_vcores / r.total_vcores for r in self.cluster_rows if r.total_vcores > 0]
        return {
            "memory_mean": round_float(sum(mem) / len(mem)) if mem else 0.0,
            "vcores_mean": round_float(sum(vc) / len(vc)) if vc else 0.0,
            "memory_peak": round_float(max(mem)) if mem else 0.0,
            "vcores_peak": round_float(max(vc)) if vc else 0.0,
        }

    def leaf_queues(self) -> list[str]:
        """Paths of the leaf queues seen in the samples, sorted."""
        return sorted({q.queue for q in self.queue_rows if q.leaf})


# -- writers -----------------------------------------------------------------------------------------------------
def write_outputs(
    out_dir: str | os.PathLike[str],
    cluster: Any,
    recorder: MetricsRecorder,
    *,
    wall_seconds: float,
    seed: int,
    workload: Any | None = None,
    plots: bool = True,
) -> dict[str, Any]:
    """Write every output file into ``out_dir`` (created if needed) and return the summary that was written."""
    out = Path(out_dir)
    metrics = out / "metrics"
    metrics.mkdir(parents=True, exist_ok=True)
    timecosts = _realtimetrack_timecosts(cluster)
    write_realtimetrack(out / "realtimetrack.json", recorder, timecosts=timecosts)
    jobs = jobs_by_id(cluster, workload)
    write_jobruntime(out / "jobruntime.csv", cluster, jobs)
    _write_csv(metrics / "cluster.csv", CLUSTER_COLUMNS, (_cluster_row(r) for r in recorder.cluster_rows))
    _write_csv(metrics / "queues.csv", QUEUE_COLUMNS, (_queue_row(r) for r in recorder.queue_rows))
    _write_csv(metrics / "scheduler_ops.csv", ("time", "op", "count"), recorder.op_rows)
    _write_csv(
        metrics / "scheduler_timecost.csv",
        ("time", "op", "count", "wall_seconds"),
        ((t, op, n, f"{s:.9f}") for t, op, n, s in recorder.timecost_rows),
    )
    _write_csv(metrics / "applications.csv", APPLICATION_COLUMNS, _application_rows(cluster))
    sls_files = write_sls_metric_csvs(metrics, recorder)  # SLS's CsvReporter layout, one file per metric
    opportunistic = getattr(cluster.rm, "opportunistic", None) is not None
    if opportunistic:
        # The RM Nodes page at the end of the run, with its opportunistic columns (only when the feature is on).
        rows = ([r[c] for c in NODE_REPORT_COLUMNS] for r in node_report(cluster))
        _write_csv(metrics / "nodes.csv", NODE_REPORT_COLUMNS, rows)
        # OpportunisticSchedulerMetrics over time (policies/opportunistic/_metrics.py)
        columns = ("time", *OpportunisticSchedulerMetrics().snapshot())
        opp_rows = ([r[c] for c in columns] for r in recorder.opportunistic_rows)
        _write_csv(metrics / "opportunistic_scheduler.csv", columns, opp_rows)
    if recorder.track_jobs:
        _write_csv(
            metrics / "tracked_jobs.csv", ("time", "job_id", "application_id", "live.containers"), recorder.tracked_rows
        )
    plot_files: list[str] = []
    if plots:
        from yarnball.launcher._plots import write_plots  # matplotlib is imported only when plots are written

        plot_files = [p.name for p in write_plots(out, recorder)]
    summary = build_summary(cluster, recorder, wall_seconds=wall_seconds, seed=seed, workload=workload)
    fair = fair_queue_summary(recorder.fair_rows)
    if fair:  # a FairScheduler run: each queue's FSQueueMetrics shares (launcher/_fairmetrics.py)
        summary["queues"] = fair
    durations = fs_op_durations_summary(cluster.rm.scheduler)
    if durations is not None:  # a FairScheduler run: its FSOpDurations (policies/fair/_fsopdurations.py)
        summary["fs_op_durations"] = durations
    if opportunistic:
        # The whole run's OpportunisticSchedulerMetrics (latency quantiles over every allocation).
        summary["opportunistic_scheduler_metrics"] = cluster.rm.opportunistic.metrics.snapshot()
    faults = getattr(cluster, "faults", None)
    if faults is not None:  # a run with a fault schedule (launcher/_faultinjector.py): what it injected
        summary["faults"] = faults.summary()
    summary["outputs"] = sorted(
        [
            "jobruntime.csv",
            "metrics/applications.csv",
            "metrics/cluster.csv",
            "metrics/queues.csv",
            "metrics/scheduler_ops.csv",
            "metrics/scheduler_timecost.csv",
            "realtimetrack.json",
            "summary.json",
            *(["metrics/tracked_jobs.csv"] if recorder.track_jobs else []),
            *(["metrics/nodes.csv", "metrics/opportunistic_scheduler.csv"] if opportunistic else []),
            *(["events.jsonl"] if (out / "events.jsonl").is_file() else []),
            *(f"metrics/{name}" for name in sls_files),
            *plot_files,
        ]
    )
    (out / "summary.json").write_text(json.dumps(summary, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    return summary


JOBRUNTIME_COLUMNS = ("JobID", "real_start_time", "real_end_time", "simulate_start_time", "simulate_end_time")


def write_jobruntime(path: Path, cluster: Any, jobs: dict[str, Any]) -> None:
    """``jobruntime.csv`` with SLS's header; one row per application that reached FINISHED, in finish order.

    SLS writes the row in AMSimulator.lastStep: trace start/end (``job.start.ms``/``job.end.ms``) against the
    simulated submit (``firstStep``) and finish times, all in ms. SLS puts the YARN application id in ``JobID``;
    here it is the trace's job id, which is what the header names and what ``--track-jobs`` takes (the
    application id of every job is in ``metrics/applications.csv``). A trace without an end time gives -1.
    """
    rows = []
    for app_id, app in output_applications(cluster).items():
        if app.state is not YarnApplicationState.FINISHED or app.finish_time is None:
            continue
        job_id = app.context.application_name or str(app_id)
        job = jobs.get(job_id)
        real_start = job.submit_ms if job is not None else -1
        real_end = job.end_ms if job is not None and job.end_ms is not None else -1
        rows.append((int(app.finish_time), app_id.id, job_id, real_start, real_end, int(app.submit_time)))
    rows.sort()
    _write_csv(path, JOBRUNTIME_COLUMNS, ((j, rs, re_, ss, fin) for fin, _n, j, rs, re_, ss in rows))


APPLICATION_COLUMNS = (
    "job_id",
    "application_id",
    "queue",
    "user",
    "state",
    "final_status",
    "submit_time",
    "launch_time",
    "finish_time",
    "attempts",
    "diagnostics",
)


def _application_rows(cluster: Any) -> Iterable[tuple[Any, ...]]:
    for app_id, app in sorted(output_applications(cluster).items(), key=lambda kv: (kv[0].cluster_timestamp, kv[0].id)):
        yield (
            app.context.application_name,
            str(app_id),
            app.queue,
            app.user,
            app.state.value,
            app.final_status.value,
            ms_field(app.submit_time),
            ms_field(app.launch_time),
            ms_field(app.finish_time),
            len(app.attempts),
            app.diagnostics,
        )


# -- helpers -----------------------------------------------------------------------------------------------------
def _realtimetrack_timecosts(cluster: Any) -> bool:
    """Whether realtimetrack.json gets the measured scheduler timecosts (off: the file stays deterministic)."""
    conf = getattr(cluster.rm, "conf", None)
    if conf is None:
        return False
    return conf.get_bool(keys.YARNBALL_SLS_REALTIMETRACK_TIMECOST, keys.DEFAULT_YARNBALL_SLS_REALTIMETRACK_TIMECOST)


def _cluster_row(r: ClusterSample) -> tuple[int, ...]:
    return (
        r.time_ms,
        r.total_memory_mb,
        r.total_vcores,
        r.allocated_memory_mb,
        r.allocated_vcores,
        r.available_memory_mb,
        r.available_vcores,
        r.pending_memory_mb,
        r.pending_vcores,
        r.reserved_memory_mb,
        r.reserved_vcores,
        r.running_applications,
        r.pending_applications,
        r.running_containers,
    )


def _queue_row(r: QueueSample) -> tuple[Any, ...]:
    return (
        r.time_ms,
        r.queue,
        int(r.leaf),
        r.allocated_memory_mb,
        r.allocated_vcores,
        r.pending_memory_mb,
        r.pending_vcores,
        r.available_memory_mb,
        r.available_vcores,
        r.reserved_memory_mb,
        r.reserved_vcores,
        r.apps_running,
        r.apps_pending,
    )


def _write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
