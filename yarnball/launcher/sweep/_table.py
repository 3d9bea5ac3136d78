"""The results table: ``sweep.csv`` / ``sweep.json`` (one row per scenario) and the aggregates across seeds.

Aggregates group the scenarios that differ only by seed (a *combination*) and give, per metric, the mean over the
seeds that ran without error and the half-width of its 95% confidence interval, Student's t with n - 1 degrees of
freedom (``t * s / sqrt(n)``; none with fewer than two seeds).
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yarnball.launcher.sweep._scenario import METRICS

__all__ = ["aggregate", "mean_ci95", "row_columns", "t_critical_95", "write_tables"]

# Two-sided 95% quantiles of Student's t (t_{0.975, df}), as printed in every statistics table.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_T95_LARGE = ((40, 2.021), (60, 2.000), (120, 1.980))


def t_critical_95(df: int) -> float:
    """t_{0.975, df}: exact table values up to 30 degrees of freedom, then the next smaller tabulated df."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df <= len(_T95):
        return _T95[df - 1]
    value = _T95[-1]
    for limit, t in _T95_LARGE:
        if df >= limit:
            value = t
    return value if df < 1000 else 1.960


def mean_ci95(values: Sequence[float]) -> tuple[float | None, float | None]:
    """The mean and the half-width of its 95% confidence interval (None when it cannot be computed)."""
    if not values:
        return None, None
    mean = statistics.fmean(values)
    if len(values) < 2:
        return round(mean, 6), None
    half = t_critical_95(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return round(mean, 6), round(half, 6)


def row_columns(axes: Sequence[str]) -> list[str]:
    """sweep.csv's columns: scenario, the parameters, status, error, attempts, the metrics, the command."""
    return ["scenario", *axes, "status", "error", "attempts", *(m for m, _d in METRICS), "command"]


def aggregate(rows: Sequence[dict[str, Any]], axes: Sequence[str]) -> list[dict[str, Any]]:
    """One entry per combination (every axis but the seed), in the rows' order: n, failed, mean and CI per metric."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    keys = [a for a in axes if a != "seed"]
    for row in rows:
        groups.setdefault(tuple(str(row[a]) for a in keys), []).append(row)
    out = []
    for combo, members in groups.items():
        ok = [r for r in members if r["status"] != "error"]
        entry: dict[str, Any] = dict(zip(keys, combo, strict=True))
        entry["n"] = len(ok)
        entry["failed"] = len(members) - len(ok)
        for metric, _direction in METRICS:
            values = [float(r[metric]) for r in ok if r.get(metric) is not None]
            entry[f"{metric}_mean"], entry[f"{metric}_ci95"] = mean_ci95(values)
        out.append(entry)
    return out


def write_tables(
    output_dir: Path, rows: Sequence[dict[str, Any]], aggregates: Sequence[dict[str, Any]], axes: Sequence[str]
) -> None:
    """Write ``sweep.csv``, ``aggregates.csv`` and ``sweep.json`` (rows, aggregates and the metric directions)."""
    columns = row_columns(axes)
    _write_csv(output_dir / "sweep.csv", columns, ([r.get(c) for c in columns] for r in rows))
    agg_columns = [a for a in axes if a != "seed"] + ["n", "failed"]
    for metric, _d in METRICS:
        agg_columns += [f"{metric}_mean", f"{metric}_ci95"]
    _write_csv(output_dir / "aggregates.csv", agg_columns, ([a.get(c) for c in agg_columns] for a in aggregates))
    document = {
        "axes": list(axes),
        "metrics": {m: d for m, d in METRICS},
        "scenarios": [{c: r.get(c) for c in columns} for r in rows],
        "aggregates": list(aggregates),
    }
    (output_dir / "sweep.json").write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def _write_csv(path: Path, header: Sequence[str], rows: Any) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow(["" if v is None else v for v in row])
