"""What a FairScheduler run writes: SLS's ``FairSchedulerMetrics`` queue gauges in ``metrics/``, the queues'
``FSQueueMetrics`` shares in summary.json, the fair shares in the plot and report.html, and the placed queue (not
the one the trace named) in every application report (REST, ApplicationReport, applications.csv, job times)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from web_helpers import REST_MD, build_cluster

from yarnball.launcher import cli
from yarnball.protocols import Configuration, keys

SLS = REST_MD.parents[1] / "data" / "sls"
LEAVES = ("root.sls_queue_1", "root.sls_queue_2", "root.sls_queue_3")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SLS's sample trace on SLS's sample configuration (which selects the FairScheduler), with plots."""
    if not SLS.is_dir():
        pytest.skip("no shared/data/sls beside the checkout")
    out = tmp_path_factory.mktemp("fair") / "out"
    argv = ["simulate", "--tracetype", "SLS", "--tracelocation", str(SLS / "inputsls.json"), "--nodes",
            str(SLS / "nodes.json"), "--conf-dir", str(SLS / "sample-conf"), "--seed", "7", "--output-dir", str(out),
            "--no-progress"]  # fmt: skip
    assert cli.main(argv) == 0
    return out


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _gauge(out: Path, name: str) -> dict[int, int]:
    return {int(r["t"]): int(r["value"]) for r in _rows(out / "metrics" / f"{name}.csv")}


def test_fair_scheduler_metrics_gauges_are_named_as_sls_names_them(out: Path) -> None:
    """FairSchedulerMetrics.registerQueueMetrics: demand, usage, minshare and fairshare under the queue's full name,
    maxshare under the name SLS tracks the queue by; one ``t,value`` file per resource; listed in the summary."""
    summary = json.loads((out / "summary.json").read_text())
    for leaf in LEAVES:
        short = leaf.removeprefix("root.")
        names = [f"variable.queue.{leaf}.{m}.{u}" for m in ("demand", "usage", "minshare", "fairshare")
                 for u in ("memory", "vcores")]  # fmt: skip
        names += [f"variable.queue.{short}.maxshare.memory", f"variable.queue.{short}.maxshare.vcores"]
        for name in names:
            path = out / "metrics" / f"{name}.csv"
            assert path.read_text().splitlines()[0] == "t,value", name
            assert f"metrics/{name}.csv" in summary["outputs"], name


def test_gauges_follow_the_queues(out: Path) -> None:
    """usage is the queue's allocated memory of queues.csv; minshare the allocation file's 1024 MB; maxshare the
    cluster's memory; fairshare positive while the queue's application runs and within the cluster."""
    queues = _rows(out / "metrics" / "queues.csv")
    cluster = {int(r["time"]) // 1000: int(r["cluster.total.memory"]) for r in _rows(out / "metrics" / "cluster.csv")}
    leaf = "root.sls_queue_1"
    allocated = {int(r["time"]) // 1000: int(r["allocated.memory"]) for r in queues if r["queue"] == leaf}
    usage = _gauge(out, f"variable.queue.{leaf}.usage.memory")
    assert usage == allocated and max(usage.values()) > 0
    assert set(_gauge(out, f"variable.queue.{leaf}.minshare.memory").values()) == {1024}
    assert _gauge(out, "variable.queue.sls_queue_1.maxshare.memory") == cluster
    fair = _gauge(out, f"variable.queue.{leaf}.fairshare.memory")
    demand = _gauge(out, f"variable.queue.{leaf}.demand.memory")
    assert all(0 <= v <= cluster[t] for t, v in fair.items())
    assert any(fair[t] > 0 for t, d in demand.items() if d > 0)


def test_summary_queues_section_has_the_fs_queue_metrics(out: Path) -> None:
    queues = json.loads((out / "summary.json").read_text())["queues"]
    assert set(queues) == {"root", *LEAVES}
    q = queues["root.sls_queue_1"]
    assert q["leaf"] is True and q["min_share"] == {"memory_mb": 1024, "vcores": 1}
    # three leaves weighted 1:1:2 (sample-conf/fair-scheduler.xml) share root's steady fair share
    steady = [queues[leaf]["steady_fair_share"]["memory_mb"] for leaf in LEAVES]
    assert steady[0] == steady[1] and steady[2] == 2 * steady[0] > 0
    assert 0 < q["usage_memory_mb_mean"] < q["fair_share_memory_mb_mean"]


def test_applications_report_the_placed_queue(out: Path) -> None:
    """The trace names sls_queue_1; the FairScheduler places it in root.sls_queue_1, which the application reports
    (RMAppManager.copyPlacementQueueToSubmissionContext); SLS's jobruntime.csv has no queue column."""
    apps = _rows(out / "metrics" / "applications.csv")
    assert [a["queue"] for a in apps] == ["root.sls_queue_1", "root.sls_queue_2"]
    by_queue = json.loads((out / "summary.json").read_text())["job_times"]["by_queue"]
    assert sorted(by_queue) == ["root.sls_queue_1", "root.sls_queue_2"]
    assert "queue" not in _rows(out / "jobruntime.csv")[0]


def test_queue_plot_draws_the_fair_shares(out: Path, tmp_path: Path) -> None:
    """queue_usage.png of a FairScheduler run differs from the same samples drawn without the fair shares."""
    from yarnball.launcher._plots import write_plots

    class _Recorder:
        def __init__(self, fair: bool) -> None:
            self.cluster_rows, self.queue_rows = recorder.cluster_rows, recorder.queue_rows
            self.fair_rows = recorder.fair_rows if fair else []

        def leaf_queues(self) -> list[str]:
            return recorder.leaf_queues()

    recorder = _recorded_fair_run()
    assert recorder.fair_rows
    (tmp_path / "with").mkdir()
    (tmp_path / "without").mkdir()
    write_plots(tmp_path / "with", _Recorder(True))  # type: ignore[arg-type]
    write_plots(tmp_path / "without", _Recorder(False))  # type: ignore[arg-type]
    def png(kind: str, name: str) -> bytes:
        return (tmp_path / kind / name).read_bytes()

    assert png("with", "queue_usage.png") != png("without", "queue_usage.png")
    assert png("with", "cluster_utilization.png") == png("without", "cluster_utilization.png")


def _recorded_fair_run() -> Any:
    from yarnball.launcher._outputs import MetricsRecorder

    cluster, _ = build_cluster(Configuration({keys.RM_SCHEDULER: "FairScheduler"}))
    recorder = MetricsRecorder(cluster, 5000)
    cluster.begin_run()
    recorder.start()
    cluster.kernel.run(until=60_000)
    return recorder


def test_report_shows_the_fair_shares(out: Path) -> None:
    from yarnball.launcher.web.report import write_report

    html = write_report(out).read_text()
    assert "<h2>Fair shares</h2>" in html and 'id="fair-shares"' in html
    for leaf in LEAVES:
        assert f"<td>{leaf}</td>" in html


def test_rest_apps_and_application_report_show_the_placed_queue() -> None:
    """The bundled trace names ``default``; the FairScheduler's default rules place each application in its user's
    queue, which REST /apps and the client protocol's ApplicationReport show."""
    from yarnball.launcher.web._snapshot import take_snapshot

    cluster, _ = build_cluster(Configuration({keys.RM_SCHEDULER: "FairScheduler"}))
    cluster.begin_run()
    cluster.kernel.run(until=30_000)
    scheduler = cluster.rm.scheduler
    snap = take_snapshot(cluster)
    placed = {str(app_id): q.name for app_id, q in scheduler.app_queues.items()}
    assert placed and all(q.startswith("root.user") for q in placed.values())
    for app_id, queue in placed.items():
        assert snap.apps[app_id]["queue"] == queue
    for app_id, app in cluster.rm.apps.items():
        if str(app_id) in placed:
            assert app.report().queue == placed[str(app_id)]
