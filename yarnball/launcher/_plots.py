"""PNG plots of a run: cluster utilisation and per-queue usage over simulated time.

matplotlib is imported inside :func:`write_plots` (with the non-interactive Agg backend) so that ``import yarnball``
stays fast and never touches a display. The PNGs carry no timestamp, so they are byte-identical for one seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yarnball.launcher._outputs import MetricsRecorder

__all__ = ["write_plots"]

_SAVE: dict[str, Any] = {"dpi": 100, "metadata": {"Software": None}}


def write_plots(out_dir: Path, recorder: MetricsRecorder) -> list[Path]:
    """Write ``cluster_utilization.png`` and ``queue_usage.png`` into ``out_dir``; return their paths. In a
    FairScheduler run ``queue_usage.png`` also draws each leaf queue's instantaneous fair share (dashed, in the
    queue's colour) beside its usage."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    rows = recorder.cluster_rows
    seconds = [r.time_ms / 1000.0 for r in rows]
    mem = [100.0 * r.allocated_memory_mb / r.total_memory_mb if r.total_memory_mb else 0.0 for r in rows]
    vc = [100.0 * r.allocated_vcores / r.total_vcores if r.total_vcores else 0.0 for r in rows]

    written: list[Path] = []
    # Memory and vcores in two panels: in many runs they move together, and one line would hide the other.
    fig, (ax_mem, ax_vc) = plt.subplots(2, 1, figsize=(10, 5.5), sharex=True, layout="constrained")
    try:
        for ax, values, what, colour in ((ax_mem, mem, "memory", "C0"), (ax_vc, vc, "vcores", "C1")):
            ax.step(seconds, values, where="post", color=colour)
            ax.set_ylabel(f"{what} allocated\n(% of cluster)")
            ax.set_ylim(0, 105)
            ax.grid(True, alpha=0.3)
        ax_vc.set_xlabel("simulated time (s)")
        fig.suptitle("Cluster utilization")
        path = out_dir / "cluster_utilization.png"
        fig.savefig(path, **_SAVE)
        written.append(path)
    finally:
        plt.close(fig)

    leaves = recorder.leaf_queues()
    series: dict[str, dict[int, float]] = {q: {} for q in leaves}
    for q in recorder.queue_rows:
        if q.leaf:
            series[q.queue][q.time_ms] = q.allocated_memory_mb / 1024.0
    fair: dict[str, dict[int, float]] = {}
    for f in recorder.fair_rows:  # FairScheduler runs only (launcher/_fairmetrics.py)
        if f.leaf:
            fair.setdefault(f.queue, {})[f.time_ms] = f.fair_share[0] / 1024.0
    times = [r.time_ms for r in rows]
    columns = min(4, max(1, len(leaves)))
    legend_rows = -(-len(leaves) // columns)
    # The legend goes below the plot, where it covers no data; the figure grows with its rows.
    fig, ax = plt.subplots(figsize=(10, 4 + 0.25 * legend_rows), layout="constrained")
    try:
        for queue in leaves:
            usage = series[queue]
            (line,) = ax.step(seconds, [usage.get(t, 0.0) for t in times], where="post", label=queue)
            share = fair.get(queue)
            if share is not None:
                values = [share.get(t, 0.0) for t in times]
                ax.step(seconds, values, where="post", color=line.get_color(), linestyle="--", linewidth=1)
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel("memory (GB)" if fair else "allocated memory (GB)")
        ax.set_title(
            "Allocated memory (solid) and fair share (dashed) per leaf queue" if fair
            else "Allocated memory per leaf queue"
        )
        ax.grid(True, alpha=0.3)
        if leaves:
            fig.legend(loc="outside lower center", ncols=columns, fontsize="small", frameon=False)
        path = out_dir / "queue_usage.png"
        fig.savefig(path, **_SAVE)
        written.append(path)
    finally:
        plt.close(fig)
    return written
