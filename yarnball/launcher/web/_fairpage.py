"""The FairScheduler's scheduler page: Hadoop's ``FairSchedulerPage`` and ``FairSchedulerAppsBlock`` over the REST
``FairSchedulerInfo`` (``/ws/v1/cluster/scheduler``) and the applications' fair shares.

``FairSchedulerPage.QueuesBlock``: the "Application Queues" box with its legend (steady fair share: a solid border,
instantaneous fair share: dashed, used: green, orange when over the instantaneous fair share, max capacity: the
bar), ``root``'s bar (``<x%> used`` of the cluster's memory), then a bar per queue, depth first: its width is the
queue's max resources over the cluster's memory x 80%, the steady and instantaneous shares and the usage are drawn
relative to that, titled ``Steady Fair Share:<x%> Instantaneous Fair Share:<y%>``. Each leaf has its ``'<queue>'
Queue Status`` table (``LeafQueueBlock``) and each parent its own shorter one (``ParentQueueBlock``).
``FairSchedulerAppsBlock``: the applications the scheduler holds (not NEW, NEW_SAVING or SUBMITTED, and known to
it), with their fair share (MB) after the queue.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

from yarnball.launcher.web._html import APP_RUN_COLUMNS, app_id_cell, app_run_cells, queue_tree, table, tracking_cell

__all__ = ["FAIR_APP_COLUMNS", "app_fair_shares", "fair_apps_table", "fair_queues", "scheduler_queue_tree"]

_INT_MAX = 2**31 - 1
_Q_MAX_WIDTH = 0.8  # FairSchedulerPage.Q_MAX_WIDTH
_Q_STATS_POS = _Q_MAX_WIDTH + 0.05
_Q_GIVEN = "left:0%;background:none;border:1px solid rgba(0,0,0,1)"
_Q_INSTANTANEOUS_FS = "left:0%;background:none;border:1px dashed rgba(0,0,0,1)"
_Q_OVER = "background:rgba(255, 140, 0, 0.8)"
_Q_UNDER = "background:rgba(50, 205, 50, 0.8)"
_STEADY = "Steady Fair Share"
_INSTANTANEOUS = "Instantaneous Fair Share"
# FairSchedulerPage.postHead's stylesheet, for this block's bars (the page's own stylesheet is launcher/web/_html.py's)
_CSS = (
    "<style>#cs ul{list-style:none;padding-left:18px}#cs li{margin:2px 0}"
    "#cs a.fsq{display:inline-block;position:relative;height:16px;border:1px solid #999;background:#e6e6e6;"
    "margin:2px;color:#222;text-decoration:none}"
    "#cs a.fsq span{position:absolute;top:0;bottom:0}#cs a.fsq span.q{position:relative;padding:0 4px;"
    "font-size:11px;white-space:nowrap}"
    "#cs .qrow{position:relative}.qstats{font-size:80%;position:absolute;top:3px}"
    ".qlegend{padding:0 1em;margin:0 0.5em}</style>"
)


def _fraction(part: int, whole: int) -> float:
    """``(float) part / whole`` as ``FairSchedulerQueueInfo`` divides (0 for an empty cluster, not NaN)."""
    return part / whole if whole else 0.0


def _percent(f: float) -> str:
    return f"{f * 100:.1f}%"  # FairSchedulerPage.percent


def _width(f: float) -> str:
    return f"width:{f * 100:.1f}%"  # FairSchedulerPage.width


def _res(r: dict[str, Any]) -> str:
    """``Resource.toString()``."""
    return f"<memory:{r['memory']}, vCores:{r['vCores']}>"


def _fractions(q: dict[str, Any]) -> tuple[float, float, float, float]:
    """``getMaxResourcesFraction``, ``getSteadyFairShareMemoryFraction``, ``getFairShareMemoryFraction``,
    ``getUsedMemoryFraction``: memory over the cluster's memory."""
    cluster = int(q["clusterResources"]["memory"])
    return tuple(  # type: ignore[return-value]
        _fraction(int(q[key]["memory"]), cluster)
        for key in ("maxResources", "steadyFairResources", "fairResources", "usedResources")
    )


def _status(q: dict[str, Any]) -> str:
    """``LeafQueueBlock`` / ``ParentQueueBlock``: the queue's ``'<queue>' Queue Status`` info table."""
    leaf = q.get("type") == "fairSchedulerLeafQueueInfo"
    rows: list[tuple[str, Any]] = [("Used Resources:", _res(q["usedResources"]))]
    if leaf:
        rows += [
            ("Demand Resources:", _res(q["demandResources"])),
            ("AM Used Resources:", _res(q["amUsedResources"])),
            ("AM Max Resources:", _res(q["amMaxResources"])),
            ("Num Active Applications:", q["numActiveApps"]),
            ("Num Pending Applications:", q["numPendingApps"]),
        ]
    rows += [
        ("Min Resources:", _res(q["minResources"])),
        ("Max Resources:", _res(q["maxResources"])),
        ("Max Container Allocation:", _res(q["maxContainerAllocation"])),
        ("Reserved Resources:", _res(q["reservedResources"])),
    ]
    if int(q["maxApps"]) < _INT_MAX:  # shown only when limited
        rows.append(("Max Running Applications:", q["maxApps"]))
    rows += [(f"{_STEADY}:", _res(q["steadyFairResources"])), (f"{_INSTANTANEOUS}:", _res(q["fairResources"]))]
    if leaf:
        rows.append(("Preemptable:", bool(q["preemptable"])))
    name = str(q["queueName"])
    return f"<h2>'{escape(name)}' Queue Status</h2>" + table(("", ""), rows, table_id=f"status-{name}")


def _queue_block(q: dict[str, Any]) -> str:
    """``QueueBlock``: one queue's bar and status, then its children's."""
    capacity, steady, instantaneous, used = _fractions(q)

    def inner(f: float) -> float:
        return f / capacity if capacity else 0.0

    name = str(q["queueName"])
    title = f"{_STEADY}:{_percent(steady)} {_INSTANTANEOUS}:{_percent(instantaneous)}"
    colour = _Q_OVER if used > instantaneous else _Q_UNDER
    bar = (
        f'<a class="fsq" style="{_width(capacity * _Q_MAX_WIDTH)}" title="{escape(title)}">'
        f'<span class="steady" style="{_Q_GIVEN};font-size:1px;{_width(inner(steady))}"></span>'
        f'<span class="instantaneous" style="{_Q_INSTANTANEOUS_FS};font-size:1px;{_width(inner(instantaneous))}">'
        "</span>"
        f'<span class="used" style="{_width(inner(used))};font-size:1px;left:0%;{colour}"></span>'
        f'<span class="q">{escape(name)}</span></a>'
        f'<span class="qstats" style="left:{_Q_STATS_POS * 100:.1f}%">{_percent(used)} used</span>'
    )
    children = (q.get("childQueues") or {}).get("queue", [])
    below = "".join(_queue_block(c) for c in children)
    return f'<li class="qrow" data-queue="{escape(name)}">{bar}{_status(q)}' + (
        f"<ul>{below}</ul></li>" if below else "</li>"
    )


def fair_queues(info: dict[str, Any]) -> str:
    """``FairSchedulerPage.QueuesBlock`` for a ``fairScheduler`` ``schedulerInfo``: the legend, root's bar and
    every queue's bar and status table."""
    root = info["rootQueue"]
    used = _fraction(int(root["usedResources"]["memory"]), int(root["clusterResources"]["memory"]))
    legend = (
        '<li style="margin-bottom: 1em"><span style="font-weight: bold">Legend:</span>'
        f'<span class="qlegend" style="{_Q_GIVEN}" title="The steady fair shares consider all queues, both active '
        f'(with running applications) and inactive.">{_STEADY}</span>'
        f'<span class="qlegend" style="{_Q_INSTANTANEOUS_FS}" title="The instantaneous fair shares consider only '
        f'active queues (with running applications).">{_INSTANTANEOUS}</span>'
        f'<span class="qlegend" style="{_Q_UNDER}">Used</span>'
        f'<span class="qlegend" style="{_Q_OVER}">Used (over fair share)</span>'
        '<span class="qlegend" style="border:1px solid #999;background:#e6e6e6">Max Capacity</span></li>'
    )
    root_bar = (
        f'<li class="qrow" data-queue="root"><a class="fsq" style="{_width(_Q_MAX_WIDTH)}">'
        f'<span class="used" style="{_width(min(used, 1.0))};left:0%;{_Q_OVER if used > 1 else _Q_UNDER}"></span>'
        f'<span class="q">root</span></a>'
        f'<span class="qstats" style="left:{_Q_STATS_POS * 100:.1f}%">{_percent(used)} used</span>'
    )
    children = "".join(_queue_block(c) for c in (root.get("childQueues") or {}).get("queue", []))
    return f'{_CSS}<div id="cs"><ul>{legend}{root_bar}<ul>{children}</ul></li></ul></div>'


def scheduler_queue_tree(info: dict[str, Any]) -> str:
    """The scheduler page's "Application Queues" for any ``schedulerInfo``: ``FairSchedulerPage``'s for the
    FairScheduler, else ``CapacitySchedulerPage``'s or ``DefaultSchedulerPage``'s (launcher/web/_html.py)."""
    return fair_queues(info) if info.get("type") == "fairScheduler" else queue_tree(info)


# -- FairSchedulerAppsBlock --------------------------------------------------------------------------------------------
FAIR_APP_COLUMNS: tuple[str, ...] = (
    "ID",
    "User",
    "Name",
    "Application Type",
    "Queue",
    "Fair Share",
    *APP_RUN_COLUMNS,
    "Progress",
    "Tracking UI",
)
_NOT_YET_SCHEDULED = frozenset({"NEW", "NEW_SAVING", "SUBMITTED"})


def app_fair_shares(scheduler: Any) -> dict[str, int]:
    """``FairSchedulerInfo.getAppFairShare``: each application the FairScheduler holds, by id, with its current
    attempt's fair share (MB); empty for another scheduler."""
    fs_apps = getattr(scheduler, "fs_apps", None)
    if fs_apps is None:
        return {}
    return {fs_app.name: int(fs_app.fair_share.memory_mb) for fs_app in fs_apps.values()}


def fair_apps_table(apps: Iterable[dict[str, Any]], fair_shares: Mapping[str, int], *, link: str = "") -> str:
    """``FairSchedulerAppsBlock``'s ``#apps`` table: the applications past SUBMITTED that the scheduler holds
    (``getAppFairShare`` is ``INVALID_FAIR_SHARE`` for the others, which are skipped), with their fair share."""
    rows = []
    for a in apps:
        share = fair_shares.get(a["id"])
        if a["state"] in _NOT_YET_SCHEDULED or share is None:
            continue
        rows.append(
            (
                app_id_cell(a, link),
                a["user"],
                a["name"],
                a["applicationType"],
                a["queue"],
                share,
                *app_run_cells(a),
                f"{a['progress']:.1f}%",
                tracking_cell(a),
            )
        )
    return table(FAIR_APP_COLUMNS, rows, table_id="apps", data_table="0.desc")
