"""SLS's real-time charts (``SLSWebApp``): ``/simulate`` polls ``/simulateMetrics`` and draws the live charts.

``/simulateMetrics`` is one flat JSON object with ``SLSWebApp.generateRealTimeTrackingMetrics``'s keys (rest.md §6):
``time`` (simulated ms, as in ``realtimetrack.json``), ``running.applications``/``running.containers``, cluster and
per-leaf-queue allocated memory (GB) and vcores, the node usage bands of ``NodeUsageRanges`` and the scheduler
timecost keys. As in ``realtimetrack.json`` the ``jvm.*`` and wall-clock ``scheduler.*`` values are 0 (there is no
JVM, and wall-clock costs are not deterministic). The page polls every 1000 ms (``setTimeout`` re-armed after each
reply; a Stop button halts it), keeps every point and draws the ten charts as inline SVG; ``?u=m`` puts the x axis
in minutes. No script or stylesheet comes from the network (SLS loads d3 and Bootstrap; the drawing is inline here).
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from yarnball.launcher.web._html import page
from yarnball.launcher.web._rest import SOURCE
from yarnball.launcher.web._snapshot import SnapshotView
from yarnball.protocols._schedulerevents import SchedulerEventType

__all__ = ["BANDS", "add_sls_routes", "sls_metrics"]

#: NodeUsageRanges: a node's allocated/total falls in one band.
BANDS: tuple[str, ...] = (
    "unused",
    "1to19pctUsed",
    "20to39pctUsed",
    "40to59pctUsed",
    "60to79pctUsed",
    "80to99pctUsed",
    "full",
)


def _band(used: int, total: int) -> str:
    """``NodeUsageRanges.getRangeName``-style banding of used/total (0%, 1-19%, ..., 80-99%, 100%)."""
    if total <= 0 or used <= 0:
        return "unused"
    if used >= total:
        return "full"
    pct = 100.0 * used / total
    if pct < 20:
        return "1to19pctUsed"
    return f"{int(pct // 20) * 20}to{int(pct // 20) * 20 + 19}pctUsed"


def _leaves(info: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for q in (info.get("queues") or {}).get("queue", []):
        out += _leaves(q) if "queues" in q else [q]
    return out


def sls_metrics(snap: SnapshotView) -> dict[str, Any]:
    """The flat ``/simulateMetrics`` record of one snapshot."""
    m = snap.metrics
    running_apps = m["appsRunning"]
    rec: dict[str, Any] = {
        "time": int(snap.now_ms),
        "jvm.free.memory": 0.0,
        "jvm.max.memory": 0.0,
        "jvm.total.memory": 0.0,
        "running.applications": running_apps,
        "running.containers": m["containersAllocated"],
        "cluster.allocated.memory": m["allocatedMB"] / 1024,
        "cluster.allocated.vcores": float(m["allocatedVirtualCores"]),
        "cluster.available.memory": m["availableMB"] / 1024,
        "cluster.available.vcores": float(m["availableVirtualCores"]),
    }
    for q in sorted(_leaves(snap.scheduler["schedulerInfo"]), key=lambda q: q["queuePath"]):
        used = q["resourcesUsed"]
        rec[f"queue.{q['queueName']}.allocated.memory"] = used["memory"] / 1024
        rec[f"queue.{q['queueName']}.allocated.vcores"] = used["vCores"]
    for kind in ("memory", "vcores"):
        counts = dict.fromkeys(BANDS, 0)
        for n in snap.nodes.values():
            if n["state"] != "RUNNING":
                continue
            total = n["totalResource"]["memory" if kind == "memory" else "vCores"]
            used = n["usedMemoryMB"] if kind == "memory" else n["usedVirtualCores"]
            counts[_band(used, total)] += 1
        for band in BANDS:
            rec[f"nodes.{kind}.{band}"] = counts[band]
    rec["scheduler.allocate.timecost"] = 0.0
    rec["scheduler.commit.success.timecost"] = 0.0
    rec["scheduler.commit.failure.timecost"] = 0.0
    rec["scheduler.commit.success.throughput"] = 0
    rec["scheduler.commit.failure.throughput"] = 0
    rec["scheduler.handle.timecost"] = 0.0
    for e in SchedulerEventType:
        rec[f"scheduler.handle-{e.value}.timecost"] = 0.0
    return rec


#: The ten charts of simulate.html.template: (element id, title, key prefixes or keys, y unit, stacked)
CHARTS: tuple[tuple[str, str, tuple[str, ...], str, bool], ...] = (
    (
        "area-running",
        "Cluster running applications & containers",
        ("running.applications", "running.containers"),
        "count",
        False,
    ),
    ("area-jvm", "JVM memory", ("jvm.free.memory", "jvm.max.memory", "jvm.total.memory"), "GB", False),
    (
        "area-memory",
        "Cluster allocated & available memory",
        ("cluster.allocated.memory", "cluster.available.memory"),
        "GB",
        True,
    ),
    (
        "area-vcores",
        "Cluster allocated & available vcores",
        ("cluster.allocated.vcores", "cluster.available.vcores"),
        "vcores",
        True,
    ),
    ("area-queue-memory", "Queue allocated memory", ("queue.*.allocated.memory",), "GB", True),
    ("area-queue-vcores", "Queue allocated vcores", ("queue.*.allocated.vcores",), "vcores", True),
    (
        "area-timecost",
        "Scheduler allocate & handle & commit operation timecost",
        (
            "scheduler.allocate.timecost",
            "scheduler.handle-*.timecost",
            "scheduler.commit.success.timecost",
            "scheduler.commit.failure.timecost",
        ),
        "ms",
        False,
    ),
    (
        "area-throughput",
        "Scheduler commit success/failure operation throughput",
        ("scheduler.commit.success.throughput", "scheduler.commit.failure.throughput"),
        "per s",
        False,
    ),
    ("area-nodes-memory", "Cluster nodes memory usage", tuple(f"nodes.memory.{b}" for b in BANDS), "nodes", True),
    ("area-nodes-vcores", "Cluster nodes vcores usage", tuple(f"nodes.vcores.{b}" for b in BANDS), "nodes", True),
)

_SCRIPT = """
var charts = @CHARTS@, points = [], stopped = false, unit = @UNIT@;
function keysOf(spec, rec) {
  var out = [];
  spec.forEach(function (k) {
    if (k.indexOf('*') < 0) { if (k in rec) out.push(k); return; }
    var parts = k.split('*');
    Object.keys(rec).sort().forEach(function (r) {
      if (r.indexOf(parts[0]) === 0 && r.slice(-parts[1].length) === parts[1] && r.length > k.length - 1) out.push(r);
    });
  });
  return out;
}
var colors = ['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd','#8c564b','#e377c2','#7f7f7f','#bcbd22','#17becf'];
function draw() {
  if (!points.length) return;
  var t0 = points[0].time, tn = points[points.length - 1].time;
  charts.forEach(function (c) {
    var el = document.getElementById(c[0]), keys = keysOf(c[2], points[points.length - 1]);
    var w = 560, h = 200, pad = 30, ymax = 0;
    var tops = points.map(function (p) {
      var acc = 0, row = [];
      keys.forEach(function (k) {
        var v = +p[k] || 0;
        acc = c[4] ? acc + v : v;
        row.push(acc);
        ymax = Math.max(ymax, acc);
      });
      return row;
    });
    ymax = ymax || 1;
    var sx = function (t) { return pad + (w - 2 * pad) * (tn > t0 ? (t - t0) / (tn - t0) : 0); };
    var sy = function (v) { return h - pad - (h - 2 * pad) * v / ymax; };
    var svg = '<svg xmlns="http://www.w3.org/2000/svg" width="' + w + '" height="' + h + '">';
    svg += '<rect width="' + w + '" height="' + h + '" fill="#fff" stroke="#ccc"/>';
    keys.forEach(function (k, i) {
      var d = points.map(function (p, j) {
        return (j ? 'L' : 'M') + sx(p.time).toFixed(1) + ',' + sy(tops[j][i]).toFixed(1);
      }).join('');
      svg += '<path class="series" data-key="' + k + '" fill="none" stroke="' + colors[i % colors.length] +
             '" d="' + d + '"/>';
    });
    svg += '<text x="' + pad + '" y="' + (h - 8) + '" font-size="11">' + ((tn - t0) / unit).toFixed(1) +
           (unit === 60000 ? ' min' : ' s') + ' (' + c[3] + '), ' + keys.length + ' series, ' +
           points.length + ' points</text></svg>';
    el.innerHTML = svg;
  });
}
function poll() {
  if (stopped) return;
  fetch('simulateMetrics').then(function (r) { return r.json(); }).then(function (rec) {
    points.push(rec); draw();
    if (rec.done) { stopped = true; document.getElementById('status').textContent = 'run finished'; return; }
    setTimeout(poll, 1000);
  }).catch(function () { setTimeout(poll, 1000); });
}
document.getElementById('stop').onclick = function () { stopped = true; };
poll();
"""


def _simulate_page(unit_ms: int) -> str:
    blocks = "".join(
        f'<div class="chart"><h2>{title}</h2><div id="{ident}"></div></div>' for ident, title, *_ in CHARTS
    )
    charts = json.dumps([[c[0], c[1], list(c[2]), c[3], c[4]] for c in CHARTS])
    script = _SCRIPT.replace("@CHARTS@", charts).replace("@UNIT@", str(unit_ms))
    body = f'<p><button id="stop">Stop</button> <span id="status">polling every 1000 ms</span></p>{blocks}'
    return page("Simulation charts", body, base="/cluster/").replace("</body>", f"<script>{script}</script></body>")


async def get_simulate_metrics(request: web.Request) -> web.Response:
    snap = request.app[SOURCE].latest()
    rec = sls_metrics(snap)
    rec["done"] = snap.done  # (yarnball's: lets the page stop polling a finished run)
    return web.Response(text=json.dumps(rec), content_type="text/json", charset="utf-8")


async def get_simulate(request: web.Request) -> web.Response:
    unit = 60000 if request.query.get("u") == "m" else 1000
    return web.Response(text=_simulate_page(unit), content_type="text/html", charset="utf-8")


def add_sls_routes(webapp: web.Application) -> None:
    webapp.router.add_get("/simulate", get_simulate)
    webapp.router.add_get("/simulateMetrics", get_simulate_metrics)
