"""The web UI in a real browser: headless Chromium (Debian's ``chromium``) loads the pages from a real socket and
``--dump-dom`` gives the DOM after the scripts ran; ``--virtual-time-budget`` runs the live chart page's 1000 ms
polling timers in the browser's virtual time, so no test waits on the wall clock."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from web_helpers import ThreadServer, build_cluster

from yarnball.launcher.web._driver import StaticSource
from yarnball.launcher.web._server import build_app
from yarnball.launcher.web._sls import CHARTS
from yarnball.launcher.web._snapshot import Snapshot, take_snapshot

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)


def dump_dom(url: str, *, budget_ms: int = 0) -> str:
    args = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        f"--user-data-dir={tempfile.mkdtemp(prefix='yarnball-chromium-')}",
    ]
    if budget_ms:
        args.append(f"--virtual-time-budget={budget_ms}")
    done = subprocess.run([*args, "--dump-dom", url], capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class SteppingSource:
    """Each snapshot asked for advances the run by 20 s of simulated time first (the live page's polls drive it)."""

    def __init__(self) -> None:
        self.cluster, _ = build_cluster()
        self.cluster.begin_run()
        self.polls = 0

    def latest(self) -> Snapshot:
        self.polls += 1
        if not self.cluster.finished():
            self.cluster.kernel.run(until=self.cluster.kernel.now + 20_000)
        return take_snapshot(self.cluster, done=self.cluster.finished())


def test_live_charts_poll_and_draw() -> None:
    """/simulate polls /simulateMetrics every 1000 ms (browser virtual time) and draws every chart's series."""
    source = SteppingSource()
    with ThreadServer(build_app(source)) as url:
        dom = dump_dom(url + "/simulate", budget_ms=6_000)
    assert source.polls >= 4, source.polls
    for ident, *_ in CHARTS:
        block = re.search(rf'<div id="{ident}">(.*?)</div>', dom, re.S)
        assert block is not None and "<svg" in block.group(1), ident
    running = re.search(r'<div id="area-running">(.*?)</div>', dom, re.S).group(1)  # type: ignore[union-attr]
    assert 'data-key="running.applications"' in running and 'data-key="running.containers"' in running
    points = int(re.search(r"(\d+) points", running).group(1))  # type: ignore[union-attr]
    assert points == source.polls
    queue = re.search(r'<div id="area-queue-memory">(.*?)</div>', dom, re.S).group(1)  # type: ignore[union-attr]
    assert 'data-key="queue.default.allocated.memory"' in queue


@pytest.fixture(scope="module")
def finished() -> Any:
    cluster, _ = build_cluster()
    cluster.run()
    return take_snapshot(cluster, done=True)


def test_pages_render_in_the_browser(finished: Snapshot) -> None:
    """The Applications, Scheduler and Nodes pages render with one row per application and node, the queue bars
    and the metrics strip."""
    with ThreadServer(build_app(StaticSource(finished))) as url:
        apps = dump_dom(url + "/cluster/apps")
        sched = dump_dom(url + "/cluster/scheduler")
        nodes = dump_dom(url + "/cluster/nodes")
        about = dump_dom(url + "/")  # the redirect to /cluster
    body = re.search(r'<table id="apps">.*?<tbody>(.*?)</tbody>', apps, re.S).group(1)  # type: ignore[union-attr]
    assert body.count("<tr>") == len(finished.apps)
    body = re.search(r'<table id="nodes">.*?<tbody>(.*?)</tbody>', nodes, re.S).group(1)  # type: ignore[union-attr]
    assert body.count("<tr>") == len(finished.nodes)
    assert 'class="bar"' in sched and "Queue: default" in sched and "'root.default' Queue Status" in sched
    assert "Cluster overview" in about and 'id="metricsoverview"' in about
