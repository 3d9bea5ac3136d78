"""What a FairScheduler run adds to the metrics outputs: each queue's ``FSQueueMetrics`` shares over time.

:func:`fair_samples` keeps, at each sample, every FairScheduler queue's demand, usage, min and max share, fair share
and steady fair share (the recorder calls it only when the scheduler's queue metrics are ``FSQueueMetrics``; the
CapacityScheduler's and the FifoScheduler's runs record nothing here and their outputs do not change). From them:

- :func:`write_fair_metric_csvs`: SLS's ``FairSchedulerMetrics`` gauges, one ``metrics/<metric name>.csv`` each in
  the ``CsvReporter`` layout (``t,value``), for every leaf queue of the samples:
  ``variable.queue.<queue>.{demand,usage,minshare,fairshare}.{memory,vcores}`` named by the queue's full name
  (``FSQueue.getName()``: ``root.sls_queue_1``) and ``variable.queue.<tracked name>.maxshare.{memory,vcores}`` named
  as SLS tracks the queue (its name as the trace gives it, here the ``counter.queue.*`` files' name, the leaf name)
  and capped at the cluster's resource, as ``FairSchedulerMetrics.registerQueueMetrics`` names and caps them;
- :func:`fair_queue_summary`: summary.json's ``queues`` section, each queue's shares at the end of the run and its
  mean fair share and usage over the samples;
- :func:`fs_op_durations_summary`: summary.json's ``fs_op_durations``, the scheduler's ``FSOpDurations`` record as
  the RM's JMX would show it at the end of the run.
"""

from __future__ import annotations

import copy
import csv
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnball.policies.fair._fairscheduler import FairScheduler

__all__ = [
    "FairQueueSample",
    "fair_queue_summary",
    "fair_samples",
    "fs_op_durations_summary",
    "write_fair_metric_csvs",
]

_DIGITS = 6  # summary floats are rounded, as the rest of summary.json


@dataclass(slots=True, frozen=True)
class FairQueueSample:
    """One FairScheduler queue's ``FSQueueMetrics`` shares at one sample time (memory in MB). ``max_share`` is
    capped at the cluster's resource (as the scheduler page and SLS's ``maxshare`` gauges show it)."""

    time_ms: int
    queue: str
    leaf: bool
    demand: tuple[int, int]
    usage: tuple[int, int]
    min_share: tuple[int, int]
    max_share: tuple[int, int]
    fair_share: tuple[int, int]
    steady_fair_share: tuple[int, int]


def _pair(r: Any) -> tuple[int, int]:
    return int(r.memory_mb), int(r.vcores)


def fair_samples(now: int, queues: Iterable[Any], cluster: Any) -> list[FairQueueSample]:
    """The FairScheduler queues' shares now, from their ``FSQueueMetrics`` (empty for another scheduler's
    ``QueueMetrics``)."""
    out = []
    for q in queues:
        if not hasattr(q, "steady_fair_share"):
            return []
        out.append(
            FairQueueSample(
                time_ms=now,
                queue=q.path,
                leaf=q.is_leaf,
                demand=_pair(q.demand),
                usage=_pair(q.allocated),
                min_share=_pair(q.min_share),
                max_share=(min(q.max_share.memory_mb, cluster.memory_mb), min(q.max_share.vcores, cluster.vcores)),
                fair_share=_pair(q.fair_share),
                steady_fair_share=_pair(q.steady_fair_share),
            )
        )
    return out


#: SLS's FairSchedulerMetrics.Metric values and the sample field each reads.
_METRICS: tuple[tuple[str, Callable[[FairQueueSample], tuple[int, int]]], ...] = (
    ("demand", lambda s: s.demand),
    ("usage", lambda s: s.usage),
    ("minshare", lambda s: s.min_share),
    ("maxshare", lambda s: s.max_share),
    ("fairshare", lambda s: s.fair_share),
)


def write_fair_metric_csvs(metrics_dir: Path, rows: Sequence[FairQueueSample], names: dict[str, str]) -> list[str]:
    """Write SLS's ``FairSchedulerMetrics`` queue gauges for the leaf queues of ``names`` (full name -> the name SLS
    tracks it by) into ``metrics_dir``; return the files' names (``<metric>.csv``). Nothing without samples."""
    by_queue: dict[str, list[FairQueueSample]] = {}
    for s in rows:
        if s.leaf and s.queue in names:
            by_queue.setdefault(s.queue, []).append(s)
    written = []
    for queue, samples in sorted(by_queue.items()):
        for metric, get in _METRICS:
            # FairSchedulerMetrics.registerQueueMetrics: maxshare is registered under the tracked queue name,
            # the others under FSQueue.getName() (the full name)
            label = names[queue] if metric == "maxshare" else queue
            for index, unit in ((0, "memory"), (1, "vcores")):
                name = f"variable.queue.{label}.{metric}.{unit}"
                with open(metrics_dir / f"{name}.csv", "w", encoding="utf-8", newline="") as f:
                    writer = csv.writer(f, lineterminator="\n")
                    writer.writerow(("t", "value"))
                    writer.writerows((s.time_ms // 1000, get(s)[index]) for s in samples)
                written.append(f"{name}.csv")
    return written


def _resource(pair: tuple[int, int]) -> dict[str, int]:
    return {"memory_mb": pair[0], "vcores": pair[1]}


def fair_queue_summary(rows: Sequence[FairQueueSample]) -> dict[str, Any]:
    """summary.json's ``queues`` of a FairScheduler run, by full queue name: ``fair_share``, ``steady_fair_share``,
    ``min_share``, ``max_share`` and ``demand`` at the last sample, and ``fair_share_memory_mb_mean`` /
    ``usage_memory_mb_mean``, the means over the samples. Empty without samples (another scheduler's run)."""
    by_queue: dict[str, list[FairQueueSample]] = {}
    for s in rows:
        by_queue.setdefault(s.queue, []).append(s)
    out: dict[str, Any] = {}
    for queue in sorted(by_queue):
        samples = by_queue[queue]
        last = samples[-1]
        out[queue] = {
            "leaf": last.leaf,
            "fair_share": _resource(last.fair_share),
            "steady_fair_share": _resource(last.steady_fair_share),
            "min_share": _resource(last.min_share),
            "max_share": _resource(last.max_share),
            "demand": _resource(last.demand),
            "fair_share_memory_mb_mean": round(sum(s.fair_share[0] for s in samples) / len(samples), _DIGITS),
            "usage_memory_mb_mean": round(sum(s.usage[0] for s in samples) / len(samples), _DIGITS),
        }
    return out


def fs_op_durations_summary(scheduler: Any) -> dict[str, Any] | None:
    """The FairScheduler's ``FSOpDurations`` metrics by their JMX names (``getMetrics(collector, true)`` on a copy,
    so writing the outputs twice gives the same values); None for another scheduler."""
    if not isinstance(scheduler, FairScheduler):
        return None
    records: list[dict[str, Any]] = []
    copy.deepcopy(scheduler.fs_op_durations).get_metrics(records, True)
    return dict(records[0]["metrics"])
