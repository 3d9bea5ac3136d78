"""The RM web UI routes (``RMWebApp``/``RmController``) over the same snapshots as the REST API.

``/`` redirects to ``/cluster``; ``/cluster`` and ``/cluster/cluster`` are the About page (cluster overview and the
metrics strip), ``/cluster/apps[/<STATE>]`` the Applications table, ``/cluster/app/<id>`` an application with its
attempts, ``/cluster/scheduler`` the scheduler page (the CapacityScheduler's queue bars, queue status, users;
the FairScheduler's ``FairSchedulerPage``, launcher/web/_fairpage.py) and
``/cluster/nodes[/<state>]`` the Nodes page (with Hadoop's G/O opportunistic columns when that is on). Tables are
server-rendered (Hadoop feeds DataTables from inline JS arrays; same cells), times formatted as the RM's, and the
applications and nodes tables sort, search and page in the browser (launcher/web/_datatable.py). A page reloads
itself every few seconds while the run goes on (not while its search box is being typed in; a table keeps its
state in the URL's fragment).
"""

from __future__ import annotations

from html import escape

from aiohttp import web

from yarnball.errors import RestRequestError
from yarnball.launcher.web._datatable import hadoop_date
from yarnball.launcher.web._fairpage import fair_apps_table, scheduler_queue_tree
from yarnball.launcher.web._html import apps_table, metrics_strip, nodes_table, page, table, time_cell
from yarnball.launcher.web._rest import SOURCE, _app, remote_exception
from yarnball.launcher.web._snapshot import APP_STATES, NODE_STATES, SnapshotView

__all__ = ["add_ui_routes"]

_LINK = "/cluster/"
_REFRESH_S = 3


def _html(snap: SnapshotView, title: str, body: str) -> web.Response:
    text = page(title, body, base=_LINK)
    if not snap.done:  # the page's script reloads it (launcher/web/_datatable.py); without scripts, the meta does
        refresh = f'<noscript><meta http-equiv="refresh" content="{_REFRESH_S}"></noscript>'
        text = text.replace("<head>", f'<head>{refresh}<meta name="yarnball-refresh" content="{_REFRESH_S}">', 1)
    return web.Response(text=text, content_type="text/html", charset="utf-8")


def _status_line(snap: SnapshotView) -> str:
    if getattr(snap, "starting", False):  # a Ray cluster's hosts are coming up (launcher/web/_shardsource.py)
        return (
            '<p id="starting">The cluster is starting: its shard hosts are coming up (Ray takes a few seconds). '
            "Nothing has run yet; this page refreshes itself.</p>"
        )
    state = "finished" if snap.done else "running"
    return f"<p>Simulated time: {snap.now_ms / 1000:,.1f} s ({state})</p>"


async def root(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/cluster")


async def about(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    info = snap.cluster_info
    rows = [
        ("Cluster ID", info["id"]),
        ("ResourceManager state", info["state"]),
        ("ResourceManager HA state", info["haState"]),
        ("ResourceManager HA zookeeper connection state", info["haZooKeeperConnectionState"]),
        ("ResourceManager RMStateStore", info["rmStateStoreName"]),
        ("ResourceManager started on", hadoop_date(info["startedOn"])),
        (
            "ResourceManager version",
            f"{info['resourceManagerBuildVersion']} on {info['resourceManagerVersionBuiltOn']}"[:200],
        ),
        ("Hadoop version", f"{info['hadoopBuildVersion']} on {info['hadoopVersionBuiltOn']}"),
    ]
    body = (
        _status_line(snap)
        + metrics_strip(snap.metrics, link=_LINK)
        + "<h2>Cluster overview</h2>"
        + table(("", ""), rows, table_id="about")
    )
    return _html(snap, "About the Cluster", body)


async def apps(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    state = request.match_info.get("state", "").upper()
    if state and state not in APP_STATES:
        raise web.HTTPNotFound(text=f"no such application state: {state}")
    listed = [a for a in snap.apps.values() if not state or a["state"] == state]
    title = f"{state} Applications" if state else "All Applications"
    body = _status_line(snap) + metrics_strip(snap.metrics, link=_LINK) + apps_table(listed, link=_LINK)
    return _html(snap, title, body)


async def app_page(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    try:
        a = _app(snap, request.match_info["appid"])
    except RestRequestError as err:
        return remote_exception(request, err)
    overview = [
        ("User", a["user"]),
        ("Name", a["name"]),
        ("Application Type", a["applicationType"]),
        ("Application Tags", a["applicationTags"]),
        ("Application Priority", f"{a['priority']} (Higher Integer value indicates higher priority)"),
        ("YarnApplicationState", a["state"]),
        ("Queue", a["queue"]),
        (
            "FinalStatus Reported by AM",
            "Application has not completed yet." if a["finalStatus"] == "UNDEFINED" else a["finalStatus"],
        ),
        ("Started", hadoop_date(a["startedTime"])),  # RMAppBlock: Times.format
        ("Launched", hadoop_date(a["launchTime"])),
        ("Finished", hadoop_date(a["finishedTime"])),
        ("Elapsed", f"{a['elapsedTime'] / 1000:.0f}sec"),
        ("Tracking URL", a["trackingUI"]),
        ("Diagnostics", a["diagnostics"]),
        ("Unmanaged Application", a["unmanagedApplication"]),
    ]
    attempts = [
        (
            t["appAttemptId"],
            time_cell(t["startTime"]),
            t["nodeHttpAddress"] or "N/A",
            t["logsLink"] or "N/A",
            t["blacklistedNodes"],
            t["nodesBlacklistedBySystem"],
        )
        for t in snap.attempts.get(a["id"], [])
    ]
    body = (
        "<h2>Application Overview</h2>"
        + table(("", ""), overview, table_id="overview")
        + table(
            (
                "Attempt ID",
                "Started",
                "Node",
                "Logs",
                "Nodes blacklisted by the app",
                "Nodes blacklisted by the system",
            ),
            attempts,
            table_id="attempts",
        )
    )
    return _html(snap, f"Application {escape(a['id'])}", body)


#: The scheduler page's title by ``schedulerInfo.type`` (``RmController.scheduler`` picks CapacitySchedulerPage,
#: FairSchedulerPage or the FIFO DefaultSchedulerPage by the scheduler's type).
SCHEDULER_PAGE_TITLES = {
    "capacityScheduler": "Capacity Scheduler",
    "fairScheduler": "Fair Scheduler",
    "fifoScheduler": "FIFO Scheduler",
}


async def scheduler(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    info = snap.scheduler["schedulerInfo"]
    if info.get("type") == "fairScheduler":  # FairSchedulerAppsBlock: the scheduler's applications, fair shares
        listed = fair_apps_table(snap.apps.values(), getattr(snap, "app_fair_shares", {}), link=_LINK)
    else:
        unfinished = [
            a for a in snap.apps.values() if a["state"] in ("NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED", "RUNNING")
        ]
        listed = apps_table(unfinished, link=_LINK)
    body = (
        _status_line(snap)
        + metrics_strip(snap.metrics, link=_LINK)
        + "<h2>Application Queues</h2>"
        + scheduler_queue_tree(info)
        + listed
    )
    return _html(snap, SCHEDULER_PAGE_TITLES.get(info.get("type", ""), "Scheduler"), body)


async def nodes(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    state = request.match_info.get("state", "").upper()
    if state and state not in NODE_STATES:
        raise web.HTTPNotFound(text=f"no such node state: {state}")
    # NodesPage: without a state filter UNHEALTHY nodes are hidden
    listed = [n for n in snap.nodes.values() if (n["state"] == state if state else n["state"] != "UNHEALTHY")]
    title = "Nodes of the cluster" + (f" ({state})" if state else "")
    table_html = nodes_table(listed, opportunistic=snap.opportunistic)
    body = _status_line(snap) + metrics_strip(snap.metrics, link=_LINK) + table_html
    return _html(snap, title, body)


def add_ui_routes(app: web.Application) -> None:
    app.router.add_get("/", root)
    app.router.add_get("/cluster", about)
    app.router.add_get("/cluster/", about)
    app.router.add_get("/cluster/cluster", about)
    app.router.add_get("/cluster/apps", apps)
    app.router.add_get("/cluster/apps/{state}", apps)
    app.router.add_get("/cluster/app/{appid}", app_page)
    app.router.add_get("/cluster/scheduler", scheduler)
    app.router.add_get("/cluster/nodes", nodes)
    app.router.add_get("/cluster/nodes/{state}", nodes)
