"""The PNG plots can be read: no line hidden under another, no legend over the data, no label over another."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher._cluster import Cluster
from yarnball.launcher._outputs import MetricsRecorder
from yarnball.launcher._plots import write_plots
from yarnball.launcher.sweep._report import write_plots as write_sweep_plots
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import Configuration
from yarnball.testing import captured_events

matplotlib = pytest.importorskip("matplotlib")


@pytest.fixture(name="figures")
def fixture_figures(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """The figures the writers make, kept open (drawn) instead of closed, in order."""
    import matplotlib.pyplot as plt

    kept: list[Any] = []

    def keep(fig: Any) -> None:
        fig.canvas.draw()
        kept.append(fig)

    monkeypatch.setattr(plt, "close", keep)
    yield kept
    monkeypatch.undo()
    plt.close("all")


def _recorder() -> MetricsRecorder:
    """Four queues with long names, all busy at once: the legend has something to cover."""
    names = [f"queue_with_a_long_name_{i}" for i in range(4)]
    conf = Configuration()
    conf.set("yarn.scheduler.capacity.root.queues", ",".join(names))
    for name in names:
        conf.set(f"yarn.scheduler.capacity.root.{name}.capacity", "25")
        conf.set(f"yarn.scheduler.capacity.root.{name}.maximum-capacity", "100")
    builder = WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8)
    for i, name in enumerate(names):
        builder.job(f"j{i}", queue=name, tasks=[task_spec(6, 30_000)])
    workload = builder.build()
    with captured_events():
        cluster = Cluster(conf, workload.nodes, seed=0)
        cluster.submit_workload(workload)
        recorder = MetricsRecorder(cluster, 1000)
        recorder.start()
        cluster.run(until_ms=600_000)
    return recorder


def _labels_apart(ax: Any, texts: list[Any], renderer: Any) -> bool:
    """Whether neighbouring tick labels (same size, same angle, one tick apart) miss each other: two equal
    rectangles slanted by an angle and a distance dx apart do not meet when dx * cos(angle) >= their width or
    dx * sin(angle) >= their height."""
    positions = sorted(ax.transData.transform((x, 0))[0] for x in ax.get_xticks())
    dx = min(b - a for a, b in itertools.pairwise(positions))
    angle = math.radians(texts[0].get_rotation())
    sizes = []
    for text in texts:  # each label's own width and height, unslanted
        text.set_rotation(0)
        box = text.get_window_extent(renderer)
        text.set_rotation(math.degrees(angle))
        sizes.append((box.width, box.height))
    width, height = max(w for w, _ in sizes), max(h for _, h in sizes)
    return dx * math.cos(angle) >= width or dx * math.sin(angle) >= height


def _overlap(a: Any, b: Any) -> bool:
    return bool(a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1)


def test_memory_and_vcores_are_each_in_their_own_panel(tmp_path: Path, figures: list[Any]) -> None:
    """cluster_utilization.png: memory and vcores are drawn in two panels, so equal series stay visible."""
    write_plots(tmp_path, _recorder())
    utilization = figures[0]
    assert len(utilization.axes) == 2
    assert [len(ax.get_lines()) for ax in utilization.axes] == [1, 1]
    assert ["memory" in ax.get_ylabel() for ax in utilization.axes] == [True, False]


def test_queue_legend_covers_no_data(tmp_path: Path, figures: list[Any]) -> None:
    """queue_usage.png: the legend lies outside the plotting area."""
    write_plots(tmp_path, _recorder())
    queues = figures[1]
    (ax,) = queues.axes
    renderer = queues.canvas.get_renderer()
    legends = [*queues.legends, *([ax.get_legend()] if ax.get_legend() else [])]
    assert len(legends) == 1
    assert not _overlap(legends[0].get_window_extent(renderer), ax.get_window_extent(renderer))


@pytest.mark.parametrize("values", [1, 2, 3], ids=["one-box", "eight-boxes", "eighteen-boxes"])
def test_sweep_plot_labels_do_not_overlap_and_the_title_fits(tmp_path: Path, figures: list[Any], values: int) -> None:
    """A sweep's box plot: no two x labels overlap and the title lies inside the figure, however many boxes."""
    axes = {
        "trace": ["two-queue-long-name", "sample-sls-trace", "third-trace"][:values],
        "preemption": ["off", "on-aggressive"][: min(values, 2)],
        "layout": ["even-50-50", "skewed-80-20", "third-layout"][:values],
        "seed": [1],
    }
    rows = []
    for n, combo in enumerate(itertools.product(*axes.values())):
        row = dict(zip(axes, combo, strict=True))
        rows.append({**row, "status": "ok", "jct_seconds": [10.0 + n, 20.0 + 2 * n, 35.0 + n]})
    write_sweep_plots(tmp_path, rows, list(axes))
    fig = figures[0]
    (ax,) = fig.axes
    renderer = fig.canvas.get_renderer()
    texts = [t for t in ax.get_xticklabels() if t.get_text()]
    assert len(texts) == len(rows)
    if len(texts) > 1:
        assert _labels_apart(ax, texts, renderer)
    labels = [t.get_window_extent(renderer) for t in texts]
    title, frame = ax.title.get_window_extent(renderer), fig.bbox
    assert frame.x0 <= title.x0 and title.x1 <= frame.x1 and title.y1 <= frame.y1
    assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 for b in labels)
