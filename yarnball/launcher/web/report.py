"""``yarnball report OUTPUT_DIR``: a finished run's outputs as one self-contained HTML page, ``report.html``.

Everything is inside the file: the stylesheet inline, the run's PNG plots as ``data:`` URIs, an inline SVG chart of
cluster memory drawn from ``metrics/cluster.csv``; nothing is loaded from the network. It shows the summary, the
charts, and the queue, application and node tables (and a FairScheduler run's fair shares per queue, from
summary.json's ``queues``). ``yarnball simulate --report`` also writes ``cluster-state.json``, the final answers of
the REST API (``/ws/v1/cluster/metrics``, ``/scheduler``, ``/apps``, ``/nodes``), and the report then shows the web
UI's own tables (metrics strip, queue bars, apps, nodes); without it the tables come from ``metrics/queues.csv``,
``metrics/applications.csv`` and (opportunistic runs) ``nodes.csv``.
"""

from __future__ import annotations

import base64
import csv
import json
from html import escape
from pathlib import Path
from typing import Any

from yarnball.errors import ConfigurationError
from yarnball.launcher.web._fairpage import scheduler_queue_tree
from yarnball.launcher.web._html import apps_table, metrics_strip, nodes_table, page, table
from yarnball.launcher.web._snapshot import take_snapshot

__all__ = ["REPORT_FILE", "STATE_FILE", "write_report", "write_state"]

REPORT_FILE = "report.html"
STATE_FILE = "cluster-state.json"


def write_state(out_dir: Path, cluster: Any) -> Path:
    """Write the final REST answers of ``cluster`` to ``OUTPUT_DIR/cluster-state.json`` (deterministic). A cluster
    on Ray shard hosts answers from its hosts (launcher/web/_shardsource.py), with the embedded cluster's answers."""
    from yarnball.launcher.web._shardsource import ShardedSource, is_sharded

    snap: Any = ShardedSource(cluster).latest() if is_sharded(cluster) else take_snapshot(cluster, done=True)
    state = {
        "clusterInfo": snap.cluster_info,
        "clusterMetrics": snap.metrics,
        "scheduler": snap.scheduler,
        "apps": {"app": list(snap.apps.values())},
        "nodes": {"node": list(snap.nodes.values())},
        "opportunistic": snap.opportunistic,
        "simulatedMs": snap.now_ms,
    }
    path = Path(out_dir) / STATE_FILE
    path.write_text(json.dumps(state, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    return path


_INCOMPLETE = (
    '<p id="incomplete"><strong>Incomplete run:</strong> this directory has no <code>_SUCCESS</code> marker; the run '
    "was interrupted (or is still running), so some outputs may be missing or partial.</p>"
)


def _read_csv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _summary_block(summary: dict[str, Any]) -> str:
    apps, cont, util = summary["applications"], summary["containers"], summary["utilization"]
    rows = [
        ("Simulated seconds", summary["simulated_seconds"]),
        ("Wall seconds", summary["wall_seconds"]),
        ("Seed", summary["seed"]),
        ("Nodes", summary["cluster"]["nodes"]),
        ("Cluster memory (MB)", summary["cluster"]["memory_mb"]),
        ("Cluster vcores", summary["cluster"]["vcores"]),
        ("Applications submitted", apps["submitted"]),
        ("Applications finished", apps["finished"]),
        ("Applications failed", apps["failed"]),
        ("Applications killed", apps["killed"]),
        ("Applications rejected", apps["rejected"]),
        ("Applications unfinished", apps["unfinished"]),
        ("Containers allocated", cont["allocated"]),
        ("Containers completed", cont["completed"]),
        ("Containers killed", cont["killed"]),
        ("Containers preempted", cont["preempted"]),
        ("Memory utilization (mean)", f"{100 * util['memory_mean']:.1f}%"),
        ("VCores utilization (mean)", f"{100 * util['vcores_mean']:.1f}%"),
    ]
    return "<h2>Summary</h2>" + table(("", ""), rows, table_id="summary")


def _job_times_block(times: dict[str, Any] | None) -> str:
    """summary.json's job_times: one row per measure, overall and then per queue, in simulated seconds."""
    if not times:
        return ""
    from yarnball.launcher._jobtimes import JOB_TIME_MEASURES

    stats = ("count", "mean", "median", "p95", "p99", "max")
    scopes = [("all queues", times["overall"]), *times["by_queue"].items()]
    rows = [
        (scope, label, *(by_measure[measure][s] if by_measure[measure][s] is not None else "" for s in stats))
        for scope, by_measure in scopes
        for measure, label in JOB_TIME_MEASURES
    ]
    note = "<p>Simulated seconds; percentiles interpolate linearly between the closest ranks.</p>"
    return "<h2>Job times</h2>" + note + table(("Queue", "Time", *stats), rows, table_id="job-times")


def _fair_shares_block(queues: dict[str, Any] | None) -> str:
    """summary.json's ``queues`` (FairScheduler runs): each queue's mean fair share and usage over the run and its
    shares at the end, memory in MB (``<memory:MB, vCores:N>`` as the scheduler page prints a resource)."""
    if not queues:
        return ""

    def res(r: dict[str, int]) -> str:
        return f"<memory:{r['memory_mb']}, vCores:{r['vcores']}>"

    rows = [
        (
            name,
            q["fair_share_memory_mb_mean"],
            q["usage_memory_mb_mean"],
            res(q["steady_fair_share"]),
            res(q["fair_share"]),
            res(q["min_share"]),
            res(q["max_share"]),
        )
        for name, q in queues.items()
    ]
    columns = (
        "Queue",
        "Mean Fair Share MB",
        "Mean Used MB",
        "Steady Fair Share",
        "Instantaneous Fair Share (end)",
        "Min Resources",
        "Max Resources",
    )
    return "<h2>Fair shares</h2>" + table(columns, rows, table_id="fair-shares")


def _svg_chart(rows: list[dict[str, str]]) -> str:
    """Allocated and total cluster memory over simulated time, as an inline SVG polyline chart."""
    points = [(float(r["time"]), float(r["cluster.allocated.memory"]), float(r["cluster.total.memory"])) for r in rows]
    if not points:
        return ""
    w, h, pad = 720.0, 220.0, 30.0
    t_max = max(p[0] for p in points) or 1.0
    y_max = max(max(p[1], p[2]) for p in points) or 1.0

    def xy(t: float, y: float) -> str:
        return f"{pad + (w - 2 * pad) * t / t_max:.1f},{h - pad - (h - 2 * pad) * y / y_max:.1f}"

    alloc = " ".join(xy(t, a) for t, a, _ in points)
    total = " ".join(xy(t, c) for t, _, c in points)
    return (
        f'<svg id="memory-chart" xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
        f'viewBox="0 0 {w:.0f} {h:.0f}" role="img" aria-label="Cluster memory">'
        f'<rect x="0" y="0" width="{w:.0f}" height="{h:.0f}" fill="#fff" stroke="#ccc"/>'
        f'<polyline fill="none" stroke="#999" stroke-dasharray="4 3" points="{total}"/>'
        f'<polyline fill="none" stroke="#2e5e8c" stroke-width="1.5" points="{alloc}"/>'
        f'<text x="{pad}" y="18" font-size="12">Cluster memory allocated (blue) and total (dashed), MB; '
        f"0-{t_max / 1000:,.0f} s simulated</text></svg>"
    )


def _images(out: Path) -> str:
    parts = []
    for png in sorted(out.glob("*.png")):
        data = base64.b64encode(png.read_bytes()).decode("ascii")
        parts.append(
            f'<figure><img alt="{escape(png.stem)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{escape(png.name)}</figcaption></figure>"
        )
    return "".join(parts)


def _queues_from_csv(rows: list[dict[str, str]]) -> str:
    last: dict[str, dict[str, str]] = {}
    for r in rows:
        last[r["queue"]] = r  # rows are in time order: the last one per queue is the final state
    columns = (
        "Queue",
        "Leaf",
        "Allocated MB",
        "Allocated VCores",
        "Pending MB",
        "Reserved MB",
        "Running Apps",
        "Pending Apps",
    )
    body = [
        (
            q,
            r["leaf"] == "1",
            int(r["allocated.memory"]),
            int(r["allocated.vcores"]),
            int(r["pending.memory"]),
            int(r["reserved.memory"]),
            int(r["running.applications"]),
            int(r["pending.applications"]),
        )
        for q, r in sorted(last.items())
    ]
    return table(columns, body, table_id="queues")


def write_report(out_dir: Path, *, incomplete: bool = False) -> Path:
    """Write ``OUTPUT_DIR/report.html`` from the run's outputs and return its path; ``incomplete``: the run did not
    finish (no ``_SUCCESS``), which the page says at its top."""
    out = Path(out_dir)
    summary_path = out / "summary.json"
    if not summary_path.is_file():
        raise ConfigurationError(f"{summary_path}: not found; expected the --output-dir of a finished yarnball run")
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ConfigurationError(f"{summary_path}: not valid JSON ({err})") from err
    state_path = out / STATE_FILE
    state = json.loads(state_path.read_text(encoding="utf-8")) if state_path.is_file() else None
    parts = [
        _INCOMPLETE if incomplete else "",
        _summary_block(summary),
        _job_times_block(summary.get("job_times")),
        _fair_shares_block(summary.get("queues")),  # FairScheduler runs
        "<h2>Charts</h2>",
        _svg_chart(_read_csv(out / "metrics" / "cluster.csv")),
        _images(out),
    ]
    if state is not None:
        parts.insert(0, metrics_strip(state["clusterMetrics"]))
        parts += ["<h2>Application Queues</h2>", scheduler_queue_tree(state["scheduler"]["schedulerInfo"])]
        parts += ["<h2>Applications</h2>", apps_table(state["apps"]["app"])]
        parts += ["<h2>Nodes</h2>", nodes_table(state["nodes"]["node"], opportunistic=state["opportunistic"])]
    else:
        parts += ["<h2>Application Queues</h2>", _queues_from_csv(_read_csv(out / "metrics" / "queues.csv"))]
        apps = _read_csv(out / "metrics" / "applications.csv")
        columns = tuple(apps[0]) if apps else ("application_id",)
        parts += ["<h2>Applications</h2>", table(columns, [tuple(r.values()) for r in apps], table_id="apps")]
        nodes = _read_csv(out / "metrics" / "nodes.csv")
        if nodes:
            parts += ["<h2>Nodes</h2>", table(tuple(nodes[0]), [tuple(r.values()) for r in nodes], table_id="nodes")]
        else:
            parts.append(f"<p>No node table: run with --report to record the final node states ({STATE_FILE}).</p>")
    html = page(f"yarnball run report: {out.name}", "".join(parts), nav=False, script=False)  # (a static file)
    path = out / REPORT_FILE
    path.write_text(html, encoding="utf-8")
    return path
