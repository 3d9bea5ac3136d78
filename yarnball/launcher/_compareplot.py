"""``compare.png`` of ``yarnball simulate --compare``: each leaf queue's share of the cluster's memory over simulated
time under the FairScheduler and under the CapacityScheduler, one panel per queue, and a bar chart of each queue's
mean job completion time and AM wait under both.

matplotlib is imported inside :func:`write_compare_plot` with the Agg backend, as launcher/_plots.py does; the PNG
carries no timestamp, so it is byte-identical for one seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yarnball.launcher._comparetables import ALL, RUNS, SCHEDULER_NAMES, QueueRow, ShareSeries

__all__ = ["write_compare_plot"]

_SAVE: dict[str, Any] = {"dpi": 100, "metadata": {"Software": None}}
_COLOURS = {RUNS[0]: "C0", RUNS[1]: "C1"}


def write_compare_plot(path: Path, rows: Sequence[QueueRow], series: ShareSeries) -> Path:
    """Write the comparison figure to ``path`` and return it."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    queues = list(dict.fromkeys(r.queue for r in rows if r.queue != ALL))
    columns = 2 if len(queues) > 1 else 1
    share_rows = max(1, -(-len(queues) // columns))
    seconds = [t / 1000.0 for t in series.times_ms]
    fig = plt.figure(figsize=(11, 2.4 * share_rows + 3.2), layout="constrained")
    grid = fig.add_gridspec(share_rows + 1, columns, height_ratios=[1.0] * share_rows + [1.3])
    try:
        first = None
        for i, queue in enumerate(queues):
            ax = fig.add_subplot(grid[i // columns, i % columns], sharex=first, sharey=first)
            first = first or ax
            for run in RUNS:
                values = series.shares[run].get(queue, [0.0] * len(seconds))
                ax.step(seconds, values, where="post", color=_COLOURS[run], label=SCHEDULER_NAMES[run])
            ax.set_title(queue, fontsize="medium")
            ax.set_ylim(0, 105)
            ax.set_ylabel("% of cluster\nmemory")
            ax.grid(True, alpha=0.3)
            if i // columns == share_rows - 1 or i + columns >= len(queues):
                ax.set_xlabel("simulated time (s)")
        _bars(fig.add_subplot(grid[share_rows, :]), queues, rows)
        handles = [plt.Line2D([], [], color=_COLOURS[run], label=SCHEDULER_NAMES[run]) for run in RUNS]
        fig.legend(handles=handles, loc="outside lower center", ncols=len(RUNS), frameon=False)
        fig.suptitle("Share of the cluster per queue, and job times: FairScheduler and its fs2cs conversion")
        fig.savefig(path, **_SAVE)
    finally:
        plt.close(fig)
    return path


def _bars(ax: Any, queues: list[str], rows: Sequence[QueueRow]) -> None:
    """Mean completion (solid) and mean AM wait (hatched) per queue, the two schedulers side by side."""
    by_key = {(r.queue, r.scheduler): r for r in rows}
    width = 0.2
    for k, run in enumerate(RUNS):
        for j, (measure, hatch) in enumerate((("completion", None), ("am_wait", "//"))):
            offset = (2 * k + j - 1.5) * width
            values = []
            for queue in queues:
                row = by_key.get((queue, run))
                mean = getattr(row, measure)[0] if row is not None else None
                values.append(mean or 0.0)
            ax.bar([i + offset for i in range(len(queues))], values, width, color=_COLOURS[run],
                   alpha=1.0 if hatch is None else 0.45, hatch=hatch, edgecolor=_COLOURS[run])  # fmt: skip
    ax.set_xticks(range(len(queues)), queues)
    ax.set_ylabel("mean time (s)")
    ax.set_title("Mean job completion (solid) and wait for the AM (hatched)", fontsize="medium")
    ax.grid(True, axis="y", alpha=0.3)
