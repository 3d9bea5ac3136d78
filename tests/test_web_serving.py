"""Serving a run while it goes on: snapshots between kernel slices, the CLI's --webapp/--pace/--report flags,
``yarnball report``, and a YARN REST client we did not write (yarn-api-client) reading the API."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient, TestServer
from web_helpers import NODES, TRACE, ThreadServer, build_cluster

from yarnball.launcher import cli
from yarnball.launcher.web import _driver
from yarnball.launcher.web._driver import LiveSource, StaticSource, drive, paced_target
from yarnball.launcher.web._server import build_app, parse_address
from yarnball.launcher.web._snapshot import take_snapshot

METRICS = "/ws/v1/cluster/metrics"


def test_sliced_run_equals_one_run() -> None:
    """Driving the kernel in slices from asyncio processes the same events and ends at the same time as run()."""
    plain, _ = build_cluster()
    end = plain.run()
    sliced, _ = build_cluster()
    end2 = asyncio.run(drive(sliced, LiveSource(sliced)))
    assert end2 == end
    assert sliced.kernel.events_processed == plain.kernel.events_processed
    assert [(a.application_id, a.state, a.finish_time) for a in sliced.applications] == [
        (a.application_id, a.state, a.finish_time) for a in plain.applications
    ]


def test_requests_are_answered_while_the_run_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client polling /metrics during the run sees snapshots taken between slices: simulated time never goes
    back, apps move from submitted to completed, and the last answer is the finished run."""
    # Slices of at most 1 simulated second: ~190 pauses for requests however fast this machine runs the kernel
    # (the compiled build finishes the whole run in a handful of 20 ms wall-time slices otherwise).
    monkeypatch.setattr(_driver, "MAX_SLICE_MS", 1000.0)
    cluster, _ = build_cluster()
    source = LiveSource(cluster)

    async def go() -> tuple[list[dict[str, Any]], float, bool]:
        async with TestClient(TestServer(build_app(source))) as client:
            run = asyncio.ensure_future(drive(cluster, source))
            seen = []
            while not run.done():
                r = await client.get(METRICS)
                seen.append((await r.json())["clusterMetrics"])
                assert source.latest().now_ms == cluster.kernel.now  # answered between slices, at the slice's time
            end = run.result()
            final = (await (await client.get(METRICS)).json())["clusterMetrics"]
            seen.append(final)
            return seen, end, source.latest().done

    seen, end, done = asyncio.run(go())
    assert done and end == cluster.kernel.now
    assert len(seen) > 2, "no answer came while the run was going on"
    completed = [m["appsCompleted"] for m in seen]
    assert completed == sorted(completed) and completed[0] < completed[-1] == len(cluster.masters)
    assert any(m["appsRunning"] > 0 for m in seen)


def test_one_snapshot_per_slice() -> None:
    """Requests within one pause share one snapshot; a new slice makes a new one."""
    cluster, _ = build_cluster()
    source = LiveSource(cluster)
    cluster.begin_run()
    a, b = source.latest(), source.latest()
    assert a is b and source.snapshots_taken == 1
    cluster.kernel.run(until=5000)
    assert source.latest() is a  # until the driver says the kernel ran
    source.advance()
    c = source.latest()
    assert c is not a and c.now_ms == 5000 and source.snapshots_taken == 2


def test_snapshot_is_plain_data_frozen_in_time() -> None:
    """A snapshot keeps what it saw: running the cluster further does not change it."""
    cluster, _ = build_cluster()
    cluster.run(until_ms=30_000)
    snap = take_snapshot(cluster)
    before = json.dumps([snap.metrics, snap.apps, snap.nodes, snap.scheduler], sort_keys=True)
    cluster.run()
    assert json.dumps([snap.metrics, snap.apps, snap.nodes, snap.scheduler], sort_keys=True) == before
    assert take_snapshot(cluster).metrics != snap.metrics


def test_paced_target() -> None:
    """--pace X: after w wall seconds the simulated clock should be X * w seconds past its start."""
    assert paced_target(1000.0, 2.0, 10.0) == 21_000.0
    assert paced_target(0.0, 0.5, 0.5) == 250.0


def test_parse_address() -> None:
    """[HOST:]PORT, the host 127.0.0.1 by default."""
    assert parse_address("8088") == ("127.0.0.1", 8088)
    assert parse_address("0.0.0.0:9000") == ("0.0.0.0", 9000)
    assert parse_address("[::1]:80") == ("::1", 80)


# -- the CLI -----------------------------------------------------------------------------------------------------------
def _simulate(out: Path, *extra: str) -> int:
    return cli.main(
        [
            "simulate",
            "--tracelocation",
            str(TRACE),
            "--nodes",
            str(NODES),
            "--output-dir",
            str(out),
            "--no-progress",
            "--no-plots",
            *extra,
        ]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--webapp-exit"], "--webapp-exit needs --webapp"),
        (["--webapp", "host:port"], "--webapp: expected [HOST:]PORT"),
        (["--webapp", "70000"], "out of range"),
        (["--pace", "0"], "--pace: expected a positive factor"),
    ],
)
def test_cli_refuses_bad_web_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """Bad --webapp/--pace values exit 2 with one line saying what was expected."""
    assert _simulate(tmp_path / "out", *args) == 2
    assert message in capsys.readouterr().err


def test_cli_without_aiohttp_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--webapp without aiohttp installed names the extra to install and exits 2."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "aiohttp" else real(name, *a))
    assert _simulate(tmp_path / "out", "--webapp", "0") == 2
    assert "pip install -e '.[web]'" in capsys.readouterr().err


def test_cli_webapp_run_has_the_outputs_of_a_plain_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """simulate --webapp 0 --webapp-exit serves, announces the URL, and writes the same outputs as without it."""
    assert _simulate(tmp_path / "plain") == 0
    assert _simulate(tmp_path / "web", "--webapp", "127.0.0.1:0", "--webapp-exit") == 0
    err = capsys.readouterr().err
    assert re.search(r"serving the RM REST API at http://127\.0\.0\.1:\d+/ws/v1/cluster", err)
    for name in (
        "events.jsonl",
        "jobruntime.csv",
        "realtimetrack.json",
        "metrics/cluster.csv",
        "metrics/applications.csv",
        "metrics/queues.csv",
    ):
        assert (tmp_path / "plain" / name).read_bytes() == (tmp_path / "web" / name).read_bytes(), name


def test_cli_pace_without_webapp_runs_to_the_end(tmp_path: Path) -> None:
    """--pace alone paces the run (here fast: 1e9 x real time) and gives the same outputs."""
    assert _simulate(tmp_path / "plain") == 0
    assert _simulate(tmp_path / "paced", "--pace", "1e9") == 0
    for name in ("events.jsonl", "metrics/applications.csv"):
        assert (tmp_path / "plain" / name).read_bytes() == (tmp_path / "paced" / name).read_bytes(), name


# -- the report --------------------------------------------------------------------------------------------------------
def _rows(html: str, table_id: str) -> int:
    m = re.search(rf'<table id="{table_id}"[^>]*>(.*?)</table>', html, re.S)
    assert m is not None, f"no table {table_id}"
    return m.group(1).split("<tbody>", 1)[1].count("<tr>")


def test_simulate_report_is_one_self_contained_page(tmp_path: Path) -> None:
    """simulate --report writes report.html: no http(s) src/href, no external script or style, the PNG plots as
    data URIs, one application row per application and one node row per node."""
    out = tmp_path / "out"
    assert (
        cli.main(
            [
                "simulate",
                "--tracelocation",
                str(TRACE),
                "--nodes",
                str(NODES),
                "--output-dir",
                str(out),
                "--no-progress",
                "--report",
            ]
        )
        == 0
    )
    html = (out / "report.html").read_text(encoding="utf-8")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script" not in html and "<link" not in html
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs and html.count("data:image/png;base64,") == len(pngs)
    assert "<svg" in html
    assert _rows(html, "apps") == summary["applications"]["submitted"]
    assert _rows(html, "nodes") == summary["cluster"]["nodes"]
    assert "Queue: default" in html
    state = json.loads((out / "cluster-state.json").read_text(encoding="utf-8"))
    assert state["clusterMetrics"]["appsCompleted"] == summary["applications"]["finished"]


def test_report_command_from_outputs_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """yarnball report OUTPUT_DIR works on a run made without --report (tables from the metrics CSVs)."""
    out = tmp_path / "out"
    assert _simulate(out) == 0
    assert cli.main(["report", str(out)]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert _rows(html, "apps") == summary["applications"]["submitted"]
    assert _rows(html, "queues") == 2  # root and root.default
    assert "report.html" in capsys.readouterr().out


def test_report_of_a_directory_without_a_run_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """yarnball report on a directory without summary.json names the file and exits 2."""
    assert cli.main(["report", str(tmp_path)]) == 2
    assert "summary.json: not found" in capsys.readouterr().err


# -- a client we did not write -----------------------------------------------------------------------------------------
def test_yarn_api_client_reads_the_api() -> None:
    """yarn-api-client's ResourceManager (requests-based) finds the RM active and reads metrics, apps, nodes and
    the scheduler's queue from a real socket."""
    yarn_api_client = pytest.importorskip("yarn_api_client")
    cluster, _ = build_cluster()
    cluster.run()
    app = build_app(StaticSource(take_snapshot(cluster, done=True)))
    with ThreadServer(app) as url:
        rm = yarn_api_client.ResourceManager(service_endpoints=[url], timeout=30)
        metrics = rm.cluster_metrics().data["clusterMetrics"]
        assert metrics["appsCompleted"] == len(cluster.masters)
        apps = rm.cluster_applications(states=["FINISHED"]).data["apps"]["app"]
        assert len(apps) == len(cluster.masters)
        one = rm.cluster_application(apps[0]["id"]).data["app"]
        assert one["id"] == apps[0]["id"]
        attempts = rm.cluster_application_attempts(apps[0]["id"]).data["appAttempts"]["appAttempt"]
        assert attempts[0]["appAttemptId"].startswith("appattempt_")
        assert len(rm.cluster_nodes().data["nodes"]["node"]) == len(cluster.node_managers)
        assert rm.cluster_scheduler_queue("default")["type"] == "capacitySchedulerLeafQueueInfo"
        with pytest.raises(yarn_api_client.errors.APIError, match="NotFoundException"):
            rm.cluster_application("application_1700000000000_9999")


def test_lazy_snapshot_refuses_a_later_moment() -> None:
    """A live (lazy) snapshot computes sections on demand while the kernel stays put, and refuses to compute one
    after the kernel moved on instead of mixing two moments."""
    cluster, _ = build_cluster()
    cluster.run(until_ms=20_000)
    snap = take_snapshot(cluster, lazy=True)
    metrics = snap.metrics
    assert metrics == take_snapshot(cluster).metrics
    cluster.run(until_ms=40_000)
    assert snap.metrics is metrics  # computed before: still the 20 s state
    with pytest.raises(RuntimeError, match="moved on"):
        _ = snap.apps


def test_cli_keeps_serving_the_final_state_until_sigterm(tmp_path: Path) -> None:
    """Without --webapp-exit the command says the run ended and where it still serves; the final state answers
    there; SIGTERM stops it with status 0."""
    import os
    import signal
    import urllib.request

    env = {**os.environ, "PYTHONPATH": str(Path(cli.__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "yarnball.launcher",
            "simulate",
            "--tracelocation",
            str(TRACE),
            "--nodes",
            str(NODES),
            "--output-dir",
            str(tmp_path / "out"),
            "--no-progress",
            "--no-plots",
            "--webapp",
            "127.0.0.1:0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = None
        assert proc.stderr is not None
        for line in proc.stderr:  # blocks until the server says the run has ended
            m = re.search(r"still serving its final state at (http://\S+)/cluster", line)
            if m:
                url = m.group(1)
                break
        assert url is not None, "the command never said it was still serving"
        with urllib.request.urlopen(url + "/ws/v1/cluster/metrics", timeout=60) as r:
            metrics = json.loads(r.read())["clusterMetrics"]
        summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
        assert metrics["appsCompleted"] == summary["applications"]["finished"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_cluster_serve_python_api() -> None:
    """Cluster.serve(port) runs the cluster while serving and returns its end time (keep_serving=False: no wait)."""
    plain_run, _ = build_cluster()
    end = plain_run.run()
    cluster, _ = build_cluster()
    assert cluster.serve(0, keep_serving=False) == end
    assert cluster.finished()
