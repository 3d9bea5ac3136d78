"""HTML for the RM web UI pages and the run report: the tables of Hadoop's RM pages over REST-shaped dicts.

The inputs are the plain dicts of the REST answers (``clusterMetrics``, ``schedulerInfo``, ``app``, ``node``), so
the live pages (launcher/web/_ui.py) and the offline report (launcher/web/report.py) show the same tables. Column
captions are Hadoop's (rest.md §5: ``MetricsOverviewTable``, ``RMAppsBlock``, ``CapacitySchedulerPage``,
``NodesPage``). Times read as the RM's pages show them, and the applications and nodes tables sort, search and page
as the RM's DataTables do (launcher/web/_datatable.py). No script or stylesheet is loaded from anywhere: both are
inline.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import Any, NamedTuple

from yarnball.launcher.web._datatable import PAGE_LENGTHS, TABLE_JS, hadoop_date

__all__ = [
    "APP_COLUMNS",
    "APP_RUN_COLUMNS",
    "CSS",
    "NODE_COLUMNS",
    "NODE_COLUMNS_OPPORTUNISTIC",
    "Sorted",
    "app_id_cell",
    "app_run_cells",
    "apps_table",
    "metrics_strip",
    "nodes_table",
    "page",
    "queue_tree",
    "table",
    "time_cell",
    "tracking_cell",
]

CSS = """
body{font-family:Arial,Helvetica,sans-serif;font-size:13px;margin:0;color:#222}
header{background:#2e5e8c;color:#fff;padding:8px 16px}header a{color:#fff;margin-right:14px}
main{padding:12px 16px}h1{font-size:20px;margin:4px 0}h2{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:4px 0 12px}th,td{border:1px solid #ccc;padding:3px 6px;text-align:left}
th{background:#e8eef4}td.num{text-align:right}
.bar{position:relative;height:16px;background:#fff;border:1px solid #999;margin:2px 0}
.bar .cap{position:absolute;top:0;bottom:0;border-right:1px dashed #333}
.bar .used{position:absolute;top:0;bottom:0;background:#5cb85c}.bar .used.over{background:#f0ad4e}
.queue{margin-left:18px}.queue .label{font-weight:bold}
img{max-width:100%}
.dt-top label{margin-right:18px}.dt-bottom button{margin:0 2px}.dt-bottom button.current{font-weight:bold}
.dt-info{margin-right:18px}th.sorting_asc::after{content:" \\25B2"}th.sorting_desc::after{content:" \\25BC"}
td[data-sort]{white-space:nowrap}
"""

#: The headers of :func:`app_run_cells`, which both applications tables show.
APP_RUN_COLUMNS: tuple[str, ...] = (
    "StartTime",
    "LaunchTime",
    "FinishTime",
    "State",
    "FinalStatus",
    "Running Containers",
    "Allocated CPU VCores",
    "Allocated Memory MB",
    "Reserved CPU VCores",
    "Reserved Memory MB",
)
APP_COLUMNS: tuple[str, ...] = (
    "ID",
    "User",
    "Name",
    "Application Type",
    "Application Tags",
    "Queue",
    "Application Priority",
    *APP_RUN_COLUMNS,
    "% of Queue",
    "% of Cluster",
    "Progress",
    "Tracking UI",
)
_NODE_FIRST = (
    "Node Labels",
    "Rack",
    "Node State",
    "Node Address",
    "Node HTTP Address",
    "Last health-update",
    "Health-report",
)
NODE_COLUMNS: tuple[str, ...] = (
    *_NODE_FIRST,
    "Containers",
    "Allocation Tags",
    "Mem Used",
    "Mem Avail",
    "Mem Total",
    "Phys Mem Used %",
    "VCores Used",
    "VCores Avail",
    "VCores Total",
    "Phys VCores Used %",
    "Version",
)
NODE_COLUMNS_OPPORTUNISTIC: tuple[str, ...] = (
    *_NODE_FIRST,
    "Running Containers (G)",
    "Allocation Tags",
    "Mem Used (G)",
    "Mem Avail (G)",
    "Mem Total",
    "Phys Mem Used %",
    "VCores Used (G)",
    "VCores Avail (G)",
    "VCores Total",
    "Phys VCores Used %",
    "Running Containers (O)",
    "Mem Used (O)",
    "VCores Used (O)",
    "Queued Containers",
    "Version",
)


class Sorted(NamedTuple):
    """A cell shown as ``text`` and sorted by ``key`` (its ``data-sort``)."""

    text: str
    key: int | float


def time_cell(ms: int) -> Sorted:
    """A time as the RM's pages show it (``renderHadoopDate``), sorted by its number."""
    return Sorted(hadoop_date(ms), ms)


def _cell(value: Any) -> str:
    if isinstance(value, Sorted):
        return f'<td data-sort="{value.key}">{escape(value.text)}</td>'
    if isinstance(value, bool):
        return f"<td>{'true' if value else 'false'}</td>"
    if isinstance(value, int | float):
        return f'<td class="num">{escape(str(value))}</td>'
    if isinstance(value, tuple) and len(value) == 2:  # (html, already escaped) for links
        return f"<td>{value[1]}</td>"
    return f"<td>{escape(str(value))}</td>"


def table(
    columns: Sequence[str], rows: Iterable[Sequence[Any]], *, table_id: str = "", data_table: str | None = None
) -> str:
    """A table; with ``data_table`` (its initial order, e.g. ``"0.desc"``, or ``""`` for the rows' own) it sorts,
    searches and pages in the browser, 20 rows a page (launcher/web/_datatable.py; it needs a ``table_id``)."""
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
    ident = f' id="{escape(table_id)}"' if table_id else ""
    if data_table is not None:
        ident += f' data-page="{PAGE_LENGTHS[0]}"' + (f' data-order="{escape(data_table)}"' if data_table else "")
    return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _res(memory: int, vcores: int) -> str:
    return f"<memory:{memory}, vCores:{vcores}>"


def metrics_strip(m: dict[str, Any], *, link: str = "") -> str:
    """``MetricsOverviewTable``: "Cluster Metrics" and "Cluster Nodes Metrics"."""
    cluster = table(
        (
            "Apps Submitted",
            "Apps Pending",
            "Apps Running",
            "Apps Completed",
            "Containers Running",
            "Used Resources",
            "Total Resources",
            "Reserved Resources",
            "Physical Mem Used %",
            "Physical VCores Used %",
        ),
        [
            (
                m["appsSubmitted"],
                m["appsPending"],
                m["appsRunning"],
                m["appsCompleted"] + m["appsFailed"] + m["appsKilled"],  # "Apps Completed" counts all three
                m["containersAllocated"],
                _res(m["allocatedMB"], m["allocatedVirtualCores"]),
                _res(m["totalMB"], m["totalVirtualCores"]),
                _res(m["reservedMB"], m["reservedVirtualCores"]),
                m["utilizedMBPercent"],
                m["utilizedVirtualCoresPercent"],
            )
        ],
        table_id="metricsoverview",
    )
    states = ("", "decommissioning", "decommissioned", "lost", "unhealthy", "rebooted", "shutdown")
    keys = (
        "activeNodes",
        "decommissioningNodes",
        "decommissionedNodes",
        "lostNodes",
        "unhealthyNodes",
        "rebootedNodes",
        "shutdownNodes",
    )
    cells = []
    for state, key in zip(states, keys, strict=True):
        href = f"{link}nodes" + (f"/{state}" if state else "")
        cells.append(("link", f'<a href="{escape(href)}">{m[key]}</a>') if link else m[key])
    nodes = table(
        (
            "Active Nodes",
            "Decommissioning Nodes",
            "Decommissioned Nodes",
            "Lost Nodes",
            "Unhealthy Nodes",
            "Rebooted Nodes",
            "Shutdown Nodes",
        ),
        [cells],
        table_id="nodemetricsoverview",
    )
    return f"<h2>Cluster Metrics</h2>{cluster}<h2>Cluster Nodes Metrics</h2>{nodes}"


def _na(value: int) -> Any:
    return Sorted("N/A", -1) if value == -1 else value


def app_id_cell(a: dict[str, Any], link: str) -> Any:
    """An applications table's ID cell: a link to the application's page under ``link`` (none when empty)."""
    return ("link", f'<a href="{escape(link)}app/{escape(a["id"])}">{escape(a["id"])}</a>') if link else a["id"]


def app_run_cells(a: dict[str, Any]) -> tuple[Any, ...]:
    """The cells the RM's applications tables share (``RMAppsBlock``, ``FairSchedulerAppsBlock``), from StartTime to
    Reserved Memory MB: the times, the states, and the containers and resources (N/A for -1)."""
    return (
        time_cell(a["startedTime"]),
        time_cell(a["launchTime"]),
        time_cell(a["finishedTime"]),
        a["state"],
        a["finalStatus"],
        _na(a["runningContainers"]),
        _na(a["allocatedVCores"]),
        _na(a["allocatedMB"]),
        _na(a["reservedVCores"]),
        _na(a["reservedMB"]),
    )


def tracking_cell(a: dict[str, Any]) -> str:
    """The Tracking UI cell (``UNASSIGNED`` shows as ``Unassigned``)."""
    return {"UNASSIGNED": "Unassigned"}.get(a["trackingUI"], a["trackingUI"])


def apps_table(apps: Iterable[dict[str, Any]], *, link: str = "") -> str:
    """``RMAppsBlock``'s ``#apps`` table."""
    rows = []
    for a in apps:
        rows.append(
            (
                app_id_cell(a, link),
                a["user"],
                a["name"],
                a["applicationType"],
                a["applicationTags"],
                a["queue"],
                a["priority"],
                *app_run_cells(a),
                f"{a['queueUsagePercentage']:.1f}",
                f"{a['clusterUsagePercentage']:.1f}",
                f"{a['progress']:.1f}%",
                tracking_cell(a),
            )
        )
    return table(APP_COLUMNS, rows, table_id="apps", data_table="0.desc")  # appsTableInit: aaSorting [[0, 'desc']]


def nodes_table(nodes: Iterable[dict[str, Any]], *, opportunistic: bool = False) -> str:
    """``NodesPage``: the (G)/(O) columns when opportunistic allocation is on."""
    rows = []
    for n in nodes:
        total_m = n["totalResource"]["memory"]
        total_v = n["totalResource"]["vCores"]
        first = [
            ",".join(n["nodeLabels"]),
            n["rack"],
            n["state"],
            n["id"],
            n["nodeHTTPAddress"] or "N/A",
            time_cell(n["lastHealthUpdate"]),
            n["healthReport"],
        ]
        usage = [
            n["numContainers"],
            "",
            n["usedMemoryMB"],
            n["availMemoryMB"],
            total_m,
            f"{100 * n['memUtilization']:.1f}",
            n["usedVirtualCores"],
            n["availableVirtualCores"],
            total_v,
            f"{100 * n['cpuUtilization']:.1f}",
        ]
        if opportunistic:
            usage += [
                n["numRunningOpportContainers"],
                n["usedMemoryOpportGB"],
                n["usedVirtualCoresOpport"],
                n["numQueuedContainers"],
            ]
        rows.append(first + usage + [n["version"]])
    columns = NODE_COLUMNS_OPPORTUNISTIC if opportunistic else NODE_COLUMNS
    return table(columns, rows, table_id="nodes", data_table="")


def queue_tree(info: dict[str, Any]) -> str:
    """``CapacitySchedulerPage``'s "Application Queues": one bar per queue (outer width by absolute max capacity,
    dashed mark at the absolute capacity, filled by the absolute used capacity, orange over capacity), then each
    leaf's "Queue Status" table. A ``fifoScheduler`` info is ``DefaultSchedulerPage``'s box instead
    (:func:`fifo_queue`). A ``fairScheduler`` info is ``FairSchedulerPage``'s (launcher/web/_fairpage.py,
    ``scheduler_queue_tree`` chooses)."""
    if info.get("type") == "fifoScheduler":
        return fifo_queue(info)
    parts = [f'<div class="queue"><span class="label">Queue: root</span> {info["usedCapacity"]:.1f}% used']
    for q in (info.get("queues") or {}).get("queue", []):
        parts.append(_queue_block(q))
    parts.append("</div>")
    return "".join(parts)


def fifo_queue(info: dict[str, Any]) -> str:
    """``DefaultSchedulerPage``: the "FifoScheduler Queue" bar (filled by ``usedCapacity``, a fraction) and the
    ``'default' Queue Status`` table of ``FifoSchedulerInfo``'s fields."""
    used = 100.0 * float(info["usedCapacity"])
    bar = (
        f'<div class="bar" style="width:80.0%" title="Capacity: 100.0%">'
        f'<div class="used" style="width:{min(used, 100.0):.1f}%"></div></div>'
    )
    rows = [
        ("Queue State", info["qstate"]),
        ("Minimum Queue Memory Capacity", info["minQueueMemoryCapacity"]),
        ("Maximum Queue Memory Capacity", info["maxQueueMemoryCapacity"]),
        ("Number of Nodes", info["numNodes"]),
        ("Used Node Capacity", info["usedNodeCapacity"]),
        ("Available Node Capacity", info["availNodeCapacity"]),
        ("Total Node Capacity", info["totalNodeCapacity"]),
        ("Number of Node Containers", info["numContainers"]),
    ]
    status = "<h2>'default' Queue Status</h2>" + table(("", ""), rows, table_id="status-default")
    return f'<div class="queue"><span class="label">FifoScheduler Queue</span> {used:.1f}% used{bar}</div>' + status


def _queue_block(q: dict[str, Any]) -> str:
    abs_max = max(float(q["absoluteMaxCapacity"]), 1e-9)
    width = 80.0 * abs_max / 100.0
    cap = 100.0 * float(q["absoluteCapacity"]) / abs_max
    used = min(100.0, 100.0 * float(q["absoluteUsedCapacity"]) / abs_max)
    over = " over" if q["absoluteUsedCapacity"] > q["absoluteCapacity"] else ""
    path = q.get("queuePath", q["queueName"])
    name = path[5:] if path.startswith("root.") else path
    bar = (
        f'<div class="bar" style="width:{width:.1f}%" title="Absolute Capacity: {q["absoluteCapacity"]:.1f}%">'
        f'<div class="used{over}" style="width:{used:.1f}%"></div>'
        f'<div class="cap" style="width:{cap:.1f}%"></div></div>'
    )
    parts = [
        f'<div class="queue"><span class="label">Queue: {escape(name)}</span> '
        f"{q['absoluteUsedCapacity']:.1f}% used{bar}"
    ]
    if q.get("type") == "capacitySchedulerLeafQueueInfo":
        parts.append(_leaf_status(q, path))
    for child in (q.get("queues") or {}).get("queue", []):
        parts.append(_queue_block(child))
    parts.append("</div>")
    return "".join(parts)


def _leaf_status(q: dict[str, Any], path: str) -> str:
    def r(key: str) -> str:
        return _res(q[key]["memory"], q[key]["vCores"])

    rows = [
        ("Queue State", q["state"]),
        ("Used Capacity", f"{q['usedCapacity']:.1f}%"),
        ("Configured Capacity", f"{q['capacity']:.1f}%"),
        ("Configured Max Capacity", f"{q['maxCapacity']:.1f}%"),
        ("Effective Capacity", r("minEffectiveCapacity")),
        ("Effective Max Capacity", r("maxEffectiveCapacity")),
        ("Absolute Used Capacity", f"{q['absoluteUsedCapacity']:.1f}%"),
        ("Absolute Configured Capacity", f"{q['absoluteCapacity']:.1f}%"),
        ("Absolute Configured Max Capacity", f"{q['absoluteMaxCapacity']:.1f}%"),
        ("Used Resources", q["usedResources"]),
        ("Configured Max Application Master Limit", f"{100 * q['configuredMaxAMResourceLimit']:.1f}"),
        ("Max Application Master Resources", r("AMResourceLimit")),
        ("Used Application Master Resources", r("usedAMResource")),
        ("Max Application Master Resources Per User", r("userAMResourceLimit")),
        ("Num Schedulable Applications", q["numActiveApplications"]),
        ("Num Non-Schedulable Applications", q["numPendingApplications"]),
        ("Num Containers", q["numContainers"]),
        ("Max Applications", q["maxApplications"]),
        ("Max Applications Per User", q["maxApplicationsPerUser"]),
        ("Configured Minimum User Limit Percent", f"{q['userLimit']}%"),
        ("Configured User Limit Factor", q["userLimitFactor"]),
        ("Ordering Policy", q["orderingPolicyInfo"]),
        ("Preemption", "disabled" if q["preemptionDisabled"] else "enabled"),
        ("Default Application Priority", q["defaultPriority"]),
    ]
    status = f"<h2>'{escape(path)}' Queue Status</h2>" + table(("", ""), rows, table_id=f"status-{path}")
    users = (q.get("users") or {}).get("user", [])
    user_rows = [
        (
            u["username"],
            _res(u["resourcesUsed"]["memory"], u["resourcesUsed"]["vCores"]),
            _res(u["AMResourceUsed"]["memory"], u["AMResourceUsed"]["vCores"]),
            u["numActiveApplications"],
            u["numPendingApplications"],
        )
        for u in users
    ]
    active = table(
        ("User Name", "Used Resource", "Used AM Resource", "Schedulable Apps", "Non-Schedulable Apps"),
        user_rows,
        table_id=f"users-{path}",
    )
    return status + "<h2>Active Users Info</h2>" + active


def page(title: str, body: str, *, nav: bool = True, base: str = "/cluster/", script: bool = True) -> str:
    """A whole HTML page with the inline stylesheet and the left-nav links of ``NavBlock`` (as a top bar), and
    unless ``script`` is false the inline script of its tables (launcher/web/_datatable.py)."""
    links = ""
    if nav:
        items = (("About", "cluster"), ("Nodes", "nodes"), ("Applications", "apps"), ("Scheduler", "scheduler"))
        links = "".join(f'<a href="{base}{href}">{label}</a>' for label, href in items)
        links += '<a href="/simulate">Simulation charts</a>'
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head>"
        f"<body><header><b>yarnball</b> &nbsp; {links}</header><main><h1>{escape(title)}</h1>{body}</main>"
        + (f"<script>{TABLE_JS}</script>" if script else "")
        + "</body></html>"
    )
