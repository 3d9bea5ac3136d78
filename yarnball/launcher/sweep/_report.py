"""Comparison plots and ``report.md`` of a sweep.

``plots/jct_by_combination.png``: one box of job completion times per combination (all seeds pooled);
``plots/jct_by_AXIS.png``: one box per value of each axis that has more than one (the other axes and the seeds
pooled). ``report.md`` names the best and worst combination for every metric, by the mean over seeds.
matplotlib is imported only here.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yarnball.launcher.sweep._scenario import METRICS

__all__ = ["combination_label", "write_plots", "write_report"]

_SAVE: dict[str, Any] = {"dpi": 100, "metadata": {"Software": None}}


def combination_label(entry: dict[str, Any], axes: Sequence[str]) -> str:
    """``trace=sample, preemption=on, layout=two-queues`` (the axes with one value are left out when others vary)."""
    return ", ".join(f"{a}={entry[a]}" for a in axes if a != "seed")


def write_plots(output_dir: Path, rows: Sequence[dict[str, Any]], axes: Sequence[str]) -> list[Path]:
    """Write the box plots of job completion time; return their paths (none when no scenario finished a job)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    ok = [r for r in rows if r["status"] != "error" and r.get("jct_seconds")]
    if not ok:
        return []
    plots = output_dir / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    varying = [a for a in axes if a != "seed" and len({str(r[a]) for r in rows}) > 1]
    written = []

    def boxes(groups: dict[str, list[float]], title: str, name: str) -> None:
        # Each box's label gets its share of the width: one line per axis (about 0.06 in per character at 8
        # points), the figure widened up to 16 in to fit them; past that, one slanted line each, the figure taller.
        labels = [g.replace(", ", "\n") for g in groups]
        widest = max(len(line) for label in labels for line in label.splitlines())
        width = min(16.0, max(6.4, len(groups) * max(1.1, 0.06 * widest + 0.2) + 1.5))
        slanted = 0.06 * widest + 0.2 > (width - 1.5) / len(groups)
        longest = max(len(g) for g in groups)
        height = 4.5 + (0.06 * longest * 0.5 if slanted else 0.0)  # sin(30 degrees) of the slanted labels
        fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
        ax.boxplot(list(groups.values()), showmeans=True)
        if slanted:
            ax.set_xticks(range(1, len(groups) + 1), list(groups), fontsize=8, rotation=30, ha="right")
            for tick in ax.get_xticklabels():
                tick.set_rotation_mode("anchor")
        else:
            ax.set_xticks(range(1, len(groups) + 1), labels, fontsize=8 if widest > 12 else 10)
        ax.set_ylabel("job completion time (s)")
        ax.grid(axis="y", alpha=0.3)
        ax.set_title(textwrap.fill(title, width=int(width * 11)), fontsize=10)  # ~11 characters per inch
        path = plots / name
        fig.savefig(path, **_SAVE)
        plt.close(fig)
        written.append(path)

    shown = varying or [a for a in axes if a != "seed"][:1]
    by_combo: dict[str, list[float]] = {}
    for r in ok:
        by_combo.setdefault(", ".join(f"{a}={r[a]}" for a in shown), []).extend(r["jct_seconds"])
    title = "Job completion time per combination (seeds pooled; triangle = mean)"
    boxes(by_combo, title, "jct_by_combination.png")
    for axis in varying:
        groups: dict[str, list[float]] = {}
        for r in ok:
            groups.setdefault(str(r[axis]), []).extend(r["jct_seconds"])
        boxes(groups, f"Job completion time by {axis} (other axes and seeds pooled)", f"jct_by_{axis}.png")
    return written


def write_report(
    output_dir: Path,
    source: str,
    rows: Sequence[dict[str, Any]],
    aggregates: Sequence[dict[str, Any]],
    axes: Sequence[str],
    plots: Sequence[Path],
) -> Path:
    """Write ``report.md``: the counts, the best and worst combination per metric, the failures, the plots."""
    failed = [r for r in rows if r["status"] == "error"]
    retried = sum(1 for r in rows if r["status"] == "retried")
    seeds = len({str(r["seed"]) for r in rows})
    lines = [
        "# Sweep report",
        "",
        f"Spec `{source}`: {len(rows)} scenarios ({len(aggregates)} combinations x {seeds} seeds), "
        f"{len(rows) - len(failed)} ok ({retried} after a retry), {len(failed)} failed. "
        "Means over the seeds that ran, with the half-width of the 95% confidence interval (Student's t); "
        "all rows are in `sweep.csv`, the aggregates in `aggregates.csv`.",
        "",
        "| metric | better | best combination | mean ± 95% CI | worst combination | mean ± 95% CI |",
        "|---|---|---|---|---|---|",
    ]
    for metric, direction in METRICS:
        ranked = [a for a in aggregates if a.get(f"{metric}_mean") is not None]
        if not ranked:
            lines.append(f"| {metric} | {direction or '-'} | (no results) | | | |")
            continue
        ranked.sort(key=lambda a: a[f"{metric}_mean"], reverse=direction == "max")
        best, worst = ranked[0], ranked[-1]
        better = {"min": "lower", "max": "higher"}.get(direction or "", "- (lowest / highest)")
        if best[f"{metric}_mean"] == worst[f"{metric}_mean"]:
            lines.append(f"| {metric} | {better} | all {len(ranked)} combinations equal | {_pm(best, metric)} | | |")
            continue
        lines.append(
            f"| {metric} | {better} | {combination_label(best, axes)} | {_pm(best, metric)} "
            f"| {combination_label(worst, axes)} | {_pm(worst, metric)} |"
        )
    if failed:
        lines += ["", "## Failed scenarios", ""]
        lines += [f"- `{r['scenario']}`: {r['error']}" for r in failed]
    if plots:
        lines += ["", "## Plots", ""]
        lines += [f"![{p.stem}]({p.relative_to(output_dir).as_posix()})" for p in plots]
    path = output_dir / "report.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _pm(entry: dict[str, Any], metric: str) -> str:
    mean, half = entry[f"{metric}_mean"], entry[f"{metric}_ci95"]
    text = f"{mean:,.4g}"
    return text + (f" ± {half:,.2g}" if half is not None else "") + f" (n={entry['n']})"
