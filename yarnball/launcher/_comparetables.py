"""The tables of ``yarnball simulate --compare`` (launcher/_compare.py): per-queue job times from each run's
``summary.json`` ``job_times`` (launcher/_jobtimes.py) and per-queue shares of the cluster from each run's
``metrics/queues.csv`` and ``metrics/cluster.csv``, written as ``compare.csv``, ``queue_share.csv`` and
``compare.md``."""

from __future__ import annotations

import csv
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = [
    "ALL",
    "CAPACITY",
    "COMPARE_COLUMNS",
    "CONVERTED",
    "FAIR",
    "RUNS",
    "SCHEDULER_NAMES",
    "QueueRow",
    "ShareSeries",
    "queue_rows",
    "share_series",
    "write_tables",
]

FAIR: Final = "fair"
CAPACITY: Final = "capacity"
RUNS: Final = (FAIR, CAPACITY)
CONVERTED: Final = "fs2cs"
ALL: Final = "all"  # the row over every queue (a queue's name is its path, root.<...>, so it cannot clash)
COMPARE_COLUMNS: Final = (
    "queue",
    "scheduler",
    "jobs",
    "completion_mean_s",
    "completion_p50_s",
    "completion_p95_s",
    "am_wait_mean_s",
    "am_wait_p50_s",
    "am_wait_p95_s",
    "memory_share_mean_pct",
)
SCHEDULER_NAMES: Final = {FAIR: "FairScheduler", CAPACITY: "CapacityScheduler"}


@dataclass(frozen=True, slots=True)
class QueueRow:
    """One queue under one scheduler: finished jobs, completion and AM wait (mean, p50, p95; None without jobs) and
    the mean share of the cluster's memory (%) over the window both runs span."""

    queue: str
    scheduler: str
    jobs: int
    completion: tuple[float | None, float | None, float | None]
    am_wait: tuple[float | None, float | None, float | None]
    memory_share_pct: float

    def cells(self) -> list[str]:
        return [self.queue, self.scheduler, str(self.jobs), *map(_num, self.completion), *map(_num, self.am_wait),
                _num(self.memory_share_pct)]  # fmt: skip


@dataclass(frozen=True, slots=True)
class ShareSeries:
    """Each leaf queue's share of the cluster's memory (%) per run, on the sample times of both runs (simulated ms).

    A run's value at a time is its last sample at or before it; after the run's last sample it is 0 (the run is
    over and holds nothing), so both runs span one window."""

    times_ms: list[int]
    queues: list[str]
    shares: dict[str, dict[str, list[float]]]  # run -> queue -> % at each time

    def mean(self, run: str, queue: str | None = None) -> float:
        """The time-weighted mean share of ``queue`` (of every leaf when None) in ``run`` over the window."""
        values = self.shares[run][queue] if queue is not None else self.total(run)
        span = self.times_ms[-1] - self.times_ms[0] if len(self.times_ms) > 1 else 0
        if span <= 0:
            return values[0] if values else 0.0
        area = sum(v * (b - a) for v, a, b in zip(values, self.times_ms, self.times_ms[1:], strict=False))
        return area / span

    def total(self, run: str) -> list[float]:
        columns = list(self.shares[run].values())
        return [sum(c[i] for c in columns) for i in range(len(self.times_ms))]


def share_series(run_dirs: Mapping[str, Path]) -> ShareSeries:
    """Each leaf's allocated memory over the cluster's total memory, from ``metrics/queues.csv`` and
    ``metrics/cluster.csv`` of each run's directory."""
    samples: dict[str, tuple[list[int], dict[str, list[float]]]] = {}
    leaves: set[str] = set()
    for run, directory in run_dirs.items():
        totals = {int(r["time"]): int(r["cluster.total.memory"]) for r in _read(directory / "metrics" / "cluster.csv")}
        by_queue: dict[str, dict[int, float]] = {}
        for r in _read(directory / "metrics" / "queues.csv"):
            if r["leaf"] != "1":
                continue
            t = int(r["time"])
            total = totals.get(t, 0)
            by_queue.setdefault(r["queue"], {})[t] = 100.0 * int(r["allocated.memory"]) / total if total else 0.0
        times = sorted(totals)
        samples[run] = (times, {q: [v.get(t, 0.0) for t in times] for q, v in by_queue.items()})
        leaves |= set(by_queue)
    grid = sorted({t for times, _ in samples.values() for t in times})
    queues = sorted(leaves)
    shares: dict[str, dict[str, list[float]]] = {}
    for run, (times, values) in samples.items():
        shares[run] = {q: _resample(times, values.get(q), grid) for q in queues}
    return ShareSeries(grid, queues, shares)


def _resample(times: list[int], values: list[float] | None, grid: list[int]) -> list[float]:
    if not values:
        return [0.0] * len(grid)
    out = []
    for t in grid:
        i = bisect_right(times, t) - 1
        out.append(values[i] if 0 <= i and t <= times[-1] else 0.0)
    return out


def queue_rows(summaries: Mapping[str, dict[str, Any]], series: ShareSeries) -> list[QueueRow]:
    """Per queue (those with jobs or a share in either run, by path), the FairScheduler's row then the
    CapacityScheduler's; then the rows over every queue (``all``)."""
    by_queue: dict[str, dict[str, dict[str, Any]]] = {}
    for run, summary in summaries.items():
        for name, times in summary["job_times"]["by_queue"].items():
            by_queue.setdefault(_leaf_path(name, series.queues), {})[run] = times
    used = {q for q in series.queues if any(any(series.shares[run][q]) for run in RUNS)}
    rows = []
    for queue in sorted(set(by_queue) | used):
        for run in RUNS:
            rows.append(_row(queue, run, by_queue.get(queue, {}).get(run), series.mean(run, queue)))
    for run in RUNS:
        rows.append(_row(ALL, run, summaries[run]["job_times"]["overall"], series.mean(run)))
    return rows


def _leaf_path(name: str, leaves: Sequence[str]) -> str:
    """A job's queue as a leaf's path: an application may name its leaf by its short name (``prod`` for
    ``root.prod``), which the CapacityScheduler accepts and the FairScheduler's placement turns into the path."""
    if name in leaves:
        return name
    if f"root.{name}" in leaves:
        return f"root.{name}"
    return next((q for q in leaves if q.rsplit(".", 1)[-1] == name), name)


def _row(queue: str, run: str, times: dict[str, Any] | None, share: float) -> QueueRow:
    def three(measure: str) -> tuple[float | None, float | None, float | None]:
        d = (times or {}).get(measure) or {}
        return d.get("mean"), d.get("median"), d.get("p95")

    jobs = int(((times or {}).get("completion_s") or {}).get("count", 0))
    return QueueRow(queue, run, jobs, three("completion_s"), three("am_wait_s"), round(share, 6))


def write_tables(
    out: Path, rows: Sequence[QueueRow], series: ShareSeries, warnings: Sequence[str], capacity_conf: str | None
) -> None:
    """``compare.csv``, ``queue_share.csv`` and ``compare.md`` into ``out``."""
    with (out / "compare.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(COMPARE_COLUMNS)
        writer.writerows(row.cells() for row in rows)
    with (out / "queue_share.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["time", "queue", *(f"{run}.memory.pct" for run in RUNS)])
        for i, t in enumerate(series.times_ms):
            for q in series.queues:
                writer.writerow([t, q, *(f"{series.shares[run][q][i]:.3f}" for run in RUNS)])
    (out / "compare.md").write_text(_markdown(rows, warnings, capacity_conf), encoding="utf-8")


def _markdown(rows: Sequence[QueueRow], warnings: Sequence[str], capacity_conf: str | None) -> str:
    where = f"of `{capacity_conf}`" if capacity_conf is not None else f"converted by fs2cs (`{CONVERTED}/`)"
    lines = [
        f"# {SCHEDULER_NAMES[RUNS[0]]} and {SCHEDULER_NAMES[RUNS[1]]} {where}",
        "",
        "Times in simulated seconds: completion is submission to finish, AM wait submission to the AM's launch. "
        "Memory is the queue's mean share of the cluster's memory over the span of both runs.",
        "",
        "| queue | scheduler | jobs | completion mean | p50 | p95 | AM wait mean | p50 | p95 | memory % |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        c, w = row.completion, row.am_wait
        cells = [row.queue, SCHEDULER_NAMES[row.scheduler], str(row.jobs), *map(_md, c), *map(_md, w),
                 f"{row.memory_share_pct:.1f}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    if capacity_conf is None:
        lines += ["", "## What fs2cs did not convert", ""]
        lines += [f"- {w}" for w in warnings] or ["- nothing: every setting converted"]
    return "\n".join(lines) + "\n"


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def _md(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))
