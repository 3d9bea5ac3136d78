"""The web UI in a real browser: headless Chromium (Debian's ``chromium``) loads the pages from a real socket and
``--dump-dom`` gives the DOM after the scripts ran; ``--virtual-time-budget`` runs the live chart page's 1000 ms
polling timers in the browser's virtual time, so no test waits on the wall clock."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
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


def chromium_args() -> list[str]:
    """Headless Chromium as root in a container, with a fresh profile."""
    return [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        f"--user-data-dir={tempfile.mkdtemp(prefix='yarnball-chromium-')}",
    ]


def dump_dom(url: str, *, budget_ms: int = 0) -> str:
    args = chromium_args()
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
    body = re.search(r'<table id="apps"[^>]*>.*?<tbody>(.*?)</tbody>', apps, re.S).group(1)  # type: ignore[union-attr]
    assert body.count("<tr") == len(finished.apps)  # (those past the first page are there, hidden)
    body = re.search(r'<table id="nodes"[^>]*>.*?<tbody>(.*?)</tbody>', nodes, re.S).group(1)  # type: ignore[union-attr]
    assert body.count("<tr") == len(finished.nodes)
    assert 'class="bar"' in sched and "Queue: default" in sched and "'root.default' Queue Status" in sched
    assert "Cluster overview" in about and 'id="metricsoverview"' in about


# Where the screenshots of every page go (a test artifact folder; git ignores it). CI may point it elsewhere.
ARTIFACTS = Path(os.environ.get("YARNBALL_TEST_ARTIFACTS", Path(__file__).resolve().parents[1] / "test-artifacts"))
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def screenshot(url: str, path: Path) -> str:
    """Load ``url`` in headless Chromium, write a PNG screenshot to ``path``; return Chromium's console log."""
    args = [
        *chromium_args(),
        "--hide-scrollbars",
        "--window-size=1280,900",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=3000",
        f"--screenshot={path}",
        url,
    ]
    done = subprocess.run(args, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


def test_every_page_loads_without_a_javascript_error_and_is_screenshot(finished: Snapshot) -> None:
    """Each web UI page, and the live chart page, loads in Chromium with no uncaught JavaScript error or console
    error; a screenshot of each goes to the test artifact folder."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    app_id = sorted(finished.apps)[0]
    pages = {
        "cluster": "/cluster",
        "apps": "/cluster/apps",
        "app": f"/cluster/app/{app_id}",
        "scheduler": "/cluster/scheduler",
        "nodes": "/cluster/nodes",
        "simulate": "/simulate",
    }
    with ThreadServer(build_app(StaticSource(finished))) as url:
        for name, path in pages.items():
            target = ARTIFACTS / f"web-{name}.png"
            target.unlink(missing_ok=True)
            log = screenshot(url + path, target)
            console_errors = [
                line for line in log.splitlines() if "Uncaught" in line or ("CONSOLE" in line and ":ERROR:" in line)
            ]
            assert not console_errors, (name, console_errors)
            assert target.read_bytes()[:8] == PNG_MAGIC, name
            assert target.stat().st_size > 5_000, name  # a rendered page, not a blank one


HARNESS = """<!DOCTYPE html><html><body><pre id="result"></pre>
<iframe id="page" src="/cluster/apps" width="1400" height="900"></iframe><script>
var frame = document.getElementById("page");
frame.onload = function () {
  var d = frame.contentDocument, out = {};
  function ids() {
    return Array.from(d.querySelectorAll("#apps tbody tr")).filter(function (r) { return !r.hidden; })
      .map(function (r) { return r.cells[0].textContent; });
  }
  function header(name) {
    return Array.from(d.querySelectorAll("#apps thead th")).find(function (th) { return th.textContent === name; });
  }
  function pager(label) {
    return Array.from(d.querySelectorAll(".dt-pager button")).find(function (b) { return b.textContent === label; });
  }
  out.initial = ids(); out.info = d.querySelector(".dt-info").textContent;
  header("StartTime").click(); out.startAsc = ids();
  header("StartTime").click(); out.startDesc = ids(); out.hash = frame.contentWindow.location.hash;
  pager("Next").click(); out.page2 = ids();
  var search = d.getElementById("apps-search");
  search.value = "@SEARCH@"; search.dispatchEvent(new Event("input")); out.found = ids();
  out.foundInfo = d.querySelector(".dt-info").textContent;
  document.getElementById("result").textContent = JSON.stringify(out);
};
</script></body></html>"""


def test_apps_table_sorts_searches_and_pages_in_the_browser() -> None:
    """The applications table starts newest first, 20 rows a page (DataTables' aaSorting and iDisplayLength); a click
    on StartTime sorts by the time's number, a second click reverses it, Next shows the next 20, and the search box
    keeps the rows that contain its text; the state goes to the URL's fragment."""
    import json

    from aiohttp import web

    from yarnball.launcher import Cluster
    from yarnball.launcher.workloads import synthetic_workload

    workload = synthetic_workload(45, 4, seed=2, maps=(1, 2), reduces=(0, 0), map_ms=(1_000, 5_000), load=0.5)
    cluster = Cluster({}, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run()
    snap = take_snapshot(cluster, done=True)
    apps = list(snap.apps.values())
    assert len(apps) == 45
    target = apps[17]["id"]
    webapp = build_app(StaticSource(snap))

    async def harness(request: web.Request) -> web.Response:
        return web.Response(text=HARNESS.replace("@SEARCH@", target), content_type="text/html")

    webapp.router.add_get("/harness", harness)
    with ThreadServer(webapp) as url:
        dom = dump_dom(url + "/harness", budget_ms=5_000)
    result = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    assert result is not None and result.group(1), dom[-2000:]
    out = json.loads(result.group(1).replace("&amp;", "&"))
    ids = [a["id"] for a in apps]  # (the server's order: by id)
    assert out["initial"] == ids[::-1][:20]
    assert out["info"] == "Showing 1 to 20 of 45 entries"
    by_start = sorted(range(45), key=lambda i: (apps[i]["startedTime"], i))
    assert out["startAsc"] == [ids[i] for i in by_start][:20]
    by_start_desc = sorted(range(45), key=lambda i: (-apps[i]["startedTime"], i))
    assert out["startDesc"] == [ids[i] for i in by_start_desc][:20]
    assert out["page2"] == [ids[i] for i in by_start_desc][20:40]
    assert out["hash"] == "#apps.sort=7.desc"
    assert out["found"] == [target]
    assert out["foundInfo"] == "Showing 1 to 1 of 1 entries (filtered from 45 total entries)"
