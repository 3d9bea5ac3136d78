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
    """Write ``cluster_utilization.png`` and ``queue_usage.png`` into ``out_dir``; return their paths."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    rows = recorder.cluster_rows
    seconds = [r.time_ms / 1000.0 for r in rows]
    mem = [100.0 * r.allocated_memory_mb / r.total_memory_mb if r.total_memory_mb else 0.0 for r in rows]
    vc = [100.0 * r.allocated_vcores / r.total_vcores if r.total_vcores else 0.0 for r in rows]

    written: list[Path] = []
    fig, ax = plt.subplots(figsize=(10, 4))
    try:
        ax.step(seconds, mem, where="post", label="memory")
        ax.step(seconds, vc, where="post", label="vcores")
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel("allocated (% of cluster)")
        ax.set_ylim(0, 105)
        ax.set_title("Cluster utilization")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right")
        fig.tight_layout()
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
    times = [r.time_ms for r in rows]
    fig, ax = plt.subplots(figsize=(10, 4))
    try:
        for queue in leaves:
            values = series[queue]
            ax.step(seconds, [values.get(t, 0.0) for t in times], where="post", label=queue)
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel("allocated memory (GB)")
        ax.set_title("Allocated memory per leaf queue")
        ax.grid(True, alpha=0.3)
        if leaves:
            ax.legend(loc="upper right", fontsize="small")
        fig.tight_layout()
        path = out_dir / "queue_usage.png"
        fig.savefig(path, **_SAVE)
        written.append(path)
    finally:
        plt.close(fig)
    return written
