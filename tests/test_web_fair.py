"""The web UI's scheduler page on a FairScheduler run: Hadoop's ``FairSchedulerPage`` (the legend, a bar per queue
sized by its max resources with its steady and instantaneous fair shares and usage, each queue's status table) and
``FairSchedulerAppsBlock`` (the scheduler's applications with their Fair Share), as HTML and in a real browser."""

from __future__ import annotations

import re
from typing import Any

import pytest
from web_helpers import build_cluster

from yarnball.launcher.web._fairpage import FAIR_APP_COLUMNS, fair_apps_table
from yarnball.launcher.web._fairpage import scheduler_queue_tree as queue_tree
from yarnball.launcher.web._snapshot import take_snapshot
from yarnball.protocols import Configuration, keys

LEAF_LABELS = (
    "Used Resources:", "Demand Resources:", "AM Used Resources:", "AM Max Resources:", "Num Active Applications:",
    "Num Pending Applications:", "Min Resources:", "Max Resources:", "Max Container Allocation:",
    "Reserved Resources:", "Steady Fair Share:", "Instantaneous Fair Share:", "Preemptable:",
)  # fmt: skip


@pytest.fixture(scope="module")
def running() -> tuple[Any, Any]:
    """The bundled trace on the FairScheduler, a minute in (applications running in their users' queues), and the
    FSAppAttempts' fair shares at that moment."""
    cluster, _ = build_cluster(Configuration({keys.RM_SCHEDULER: "FairScheduler"}))
    cluster.begin_run()
    cluster.kernel.run(until=60_000)
    shares = {fs.name: fs.fair_share.memory_mb for fs in cluster.rm.scheduler.fs_apps.values()}
    return take_snapshot(cluster), shares


def _leaves(info: dict[str, Any]) -> list[dict[str, Any]]:
    return [q for q in info["rootQueue"]["childQueues"]["queue"] if q.get("type") == "fairSchedulerLeafQueueInfo"]


def test_queue_bars_show_steady_and_instantaneous_fair_shares(running: tuple[Any, Any]) -> None:
    snap, _ = running
    info = snap.scheduler["schedulerInfo"]
    html = queue_tree(info)
    assert "Legend:" in html
    for legend in ("Steady Fair Share", "Instantaneous Fair Share", "Used", "Used (over fair share)", "Max Capacity"):
        assert f">{legend}</span>" in html, legend
    root = info["rootQueue"]
    used = 100 * root["usedResources"]["memory"] / root["clusterResources"]["memory"]
    assert re.search(rf'<span class="q">root</span></a><span class="qstats"[^>]*>{used:.1f}% used', html)
    leaves = _leaves(info)
    assert leaves
    for q in leaves:
        cluster = q["clusterResources"]["memory"]
        steady = 100 * q["steadyFairResources"]["memory"] / cluster
        fair = 100 * q["fairResources"]["memory"] / cluster
        width = 80 * q["maxResources"]["memory"] / cluster
        bar = f'<a class="fsq" style="width:{width:.1f}%" title="Steady Fair Share:{steady:.1f}% Instantaneous Fair Share:{fair:.1f}%">'  # noqa: E501
        assert bar in html, q["queueName"]
    assert any(q["fairResources"]["memory"] > 0 for q in leaves)


def test_each_queue_has_its_status_table(running: tuple[Any, Any]) -> None:
    snap, _ = running
    info = snap.scheduler["schedulerInfo"]
    html = queue_tree(info)
    for q in _leaves(info):
        name = q["queueName"]
        block = html[html.index(f"<h2>'{name}' Queue Status</h2>") :]
        block = block[: block.index("</table>")]
        labels = re.findall(r"<tr><td>([^<]+:)</td>", block)
        assert labels == list(LEAF_LABELS), name
        demand = q["demandResources"]
        assert f"<td>&lt;memory:{demand['memory']}, vCores:{demand['vCores']}&gt;</td>" in block
        assert f'<td class="num">{q["numActiveApps"]}</td>' in block


def test_apps_table_has_the_fair_share_column(running: tuple[Any, Any]) -> None:
    """FairSchedulerAppsBlock: the applications the scheduler holds, each with its attempt's fair share (MB)."""
    snap, shares = running
    assert shares and snap.app_fair_shares == shares
    html = fair_apps_table(snap.apps.values(), snap.app_fair_shares)
    head = re.findall(r"<th>([^<]+)</th>", html)
    assert head == list(FAIR_APP_COLUMNS) and head[4:6] == ["Queue", "Fair Share"]
    body = html[html.index("<tbody>") :]
    rows = re.findall(r"<tr><td>(application_\d+_\d+)</td><td>[^<]*</td><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>"
                      r'<td class="num">(\d+)</td>', body)  # fmt: skip
    assert {app_id: int(share) for app_id, _queue, share in rows} == shares
    assert all(queue.startswith("root.") for _app, queue, _share in rows)


def test_scheduler_page_renders_in_the_browser(running: tuple[Any, Any]) -> None:
    from test_web_browser import CHROMIUM, dump_dom
    from web_helpers import ThreadServer

    from yarnball.launcher.web._driver import StaticSource
    from yarnball.launcher.web._server import build_app

    if CHROMIUM is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    snap, shares = running
    with ThreadServer(build_app(StaticSource(snap))) as url:
        dom = dump_dom(url + "/cluster/scheduler")
    assert "<h1>Fair Scheduler</h1>" in dom and '<div id="cs">' in dom and "Instantaneous Fair Share" in dom
    table = re.search(r'<table id="apps"[^>]*>(.*?)</table>', dom, re.S)
    assert table is not None and re.search(r"<th[^>]*>Fair Share</th>", table.group(1))  # (the script adds attributes)
    body = re.search(r"<tbody>(.*?)</tbody>", table.group(1), re.S).group(1)  # type: ignore[union-attr]
    assert body.count("<tr") == len(shares)  # (those past the first page are there, hidden)
