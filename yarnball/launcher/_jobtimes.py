"""Job completion and waiting times: what a user compares between two runs, overall and per queue.

One computation for every place that shows them: ``summary.json`` ``job_times``, the terminal summary, report.html
and a sweep's results row. Times are in simulated seconds. A percentile interpolates linearly between the closest
ranks (numpy's default, ``statistics.quantiles(method="inclusive")``).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from yarnball.protocols import YarnApplicationState

__all__ = ["JOB_TIME_MEASURES", "distribution", "job_times", "percentile"]

_DIGITS = 6

# summary.json's names for the three times, with what each measures (report.html and the terminal say it so).
JOB_TIME_MEASURES: tuple[tuple[str, str], ...] = (
    ("completion_s", "completion (submit to finish)"),
    ("am_wait_s", "wait for the AM (submit to AM launch)"),
    ("first_task_wait_s", "wait for the first task (submit to first non-AM container)"),
)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile with linear interpolation between closest ranks (numpy's default)."""
    data = sorted(values)
    pos = (len(data) - 1) * q / 100.0
    low = int(pos)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (pos - low)


def distribution(values: Sequence[float]) -> dict[str, Any]:
    """``{"count", "mean", "median", "p95", "p99", "max"}`` of ``values`` (rounded; None but the count when empty)."""
    if not values:
        return {"count": 0, "mean": None, "median": None, "p95": None, "p99": None, "max": None}
    return {
        "count": len(values),
        "mean": _r(statistics.fmean(values)),
        "median": _r(statistics.median(values)),
        "p95": _r(percentile(values, 95)),
        "p99": _r(percentile(values, 99)),
        "max": _r(max(values)),
    }


def job_times(apps: Iterable[Any]) -> dict[str, Any]:
    """``{"overall": {measure: distribution}, "by_queue": {queue: {measure: distribution}}}`` over the RM's
    applications (``RMApp``): completion for those that FINISHED (the rows of jobruntime.csv), the waits for those
    whose AM was launched / that got a task container, whatever their state at the end."""
    overall: dict[str, list[float]] = {m: [] for m, _ in JOB_TIME_MEASURES}
    by_queue: dict[str, dict[str, list[float]]] = {}
    for app in apps:
        if getattr(app, "rejected", False):
            continue  # refused at submission: it never waited in a queue
        queue = by_queue.setdefault(app.queue, {m: [] for m, _ in JOB_TIME_MEASURES})
        for measure, value in _times(app):
            overall[measure].append(value)
            queue[measure].append(value)
    return {
        "overall": {m: distribution(v) for m, v in overall.items()},
        "by_queue": {q: {m: distribution(v) for m, v in by_queue[q].items()} for q in sorted(by_queue)},
    }


def _times(app: Any) -> list[tuple[str, float]]:
    submit = app.submit_time
    out = []
    if app.state is YarnApplicationState.FINISHED and app.finish_time is not None:
        out.append(("completion_s", (app.finish_time - submit) / 1000.0))
    if app.launch_time is not None:
        out.append(("am_wait_s", (app.launch_time - submit) / 1000.0))
    if app.first_task_time is not None:
        out.append(("first_task_wait_s", (app.first_task_time - submit) / 1000.0))
    return out


def _r(value: float) -> float:
    return round(float(value), _DIGITS)
