"""The RM REST API of the web layer on a finished run of the bundled trace, checked against rest.md's tables.

The expected element names and types are read from shared/reference/rest.md (Hadoop's documentation and beans);
the expected counts from the same run's summary.json and metrics/applications.csv. Requests go through aiohttp's
in-process test client.
"""

from __future__ import annotations

import asyncio
import csv
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient, TestServer
from web_helpers import (
    REST_MD,
    build_cluster,
    check_fields,
    doc_fields,
    doc_prose_names,
    doc_remote_exception_keys,
    doc_statitem_keys,
)

from yarnball.launcher._outputs import MetricsRecorder, write_outputs
from yarnball.launcher.web._datatable import hadoop_date
from yarnball.launcher.web._driver import StaticSource
from yarnball.launcher.web._server import build_app
from yarnball.launcher.web._snapshot import take_snapshot

pytestmark = pytest.mark.skipif(not REST_MD.is_file(), reason="shared/reference/rest.md is not beside the repo")

BASE = "/ws/v1/cluster"


class Run:
    def __init__(self, out: Path) -> None:
        cluster, workload = build_cluster()
        recorder = MetricsRecorder(cluster, 1000)
        recorder.start()
        cluster.run()
        self.summary = write_outputs(out, cluster, recorder, wall_seconds=1.0, seed=0, workload=workload, plots=False)
        with open(out / "metrics" / "applications.csv", encoding="utf-8") as f:
            self.app_rows = list(csv.DictReader(f))
        self.snapshot = take_snapshot(cluster, done=True)
        self.cluster = cluster

    def get(self, *paths: str | tuple[str, dict[str, str]]) -> list[tuple[int, str, str]]:
        """GET each path (optionally with headers) from a fresh app over this run; (status, content type, body)."""

        async def go() -> list[tuple[int, str, str]]:
            async with TestClient(TestServer(build_app(StaticSource(self.snapshot)))) as client:
                out = []
                for p in paths:
                    path, headers = (p, {}) if isinstance(p, str) else p
                    r = await client.get(path, headers=headers, allow_redirects=False)
                    out.append((r.status, r.headers.get("Content-Type", ""), await r.text()))
                return out

        return asyncio.run(go())

    def json(self, path: str) -> Any:
        ((status, ctype, body),) = self.get(path)
        assert status == 200, (path, status, body)
        assert ctype == "application/json; charset=utf-8"
        return json.loads(body)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return Run(tmp_path_factory.mktemp("web-run"))


def _queues(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for q in (node.get("queues") or {}).get("queue", []):
        out.append(q)
        out += _queues(q)
    return out


# -- shapes ------------------------------------------------------------------------------------------------------------
def test_cluster_info_has_the_documented_fields(run: Run) -> None:
    """/info and the base path answer clusterInfo with every field of rest.md §3.1, the id the cluster timestamp."""
    fields = doc_fields("### 3.1")
    for path in (BASE, BASE + "/info"):
        info = run.json(path)["clusterInfo"]
        check_fields(info, fields, path)
        assert info["id"] == info["startedOn"] == run.cluster.rm.cluster_timestamp


def test_metrics_fields_and_counts_match_the_summary(run: Run) -> None:
    """clusterMetrics has rest.md §3.2's fields; its counts are summary.json's; totalMB = avail + alloc + reserved."""
    m = run.json(BASE + "/metrics")["clusterMetrics"]
    check_fields(m, doc_fields("### 3.2"), "clusterMetrics")
    s = run.summary
    assert m["appsSubmitted"] == s["applications"]["submitted"]
    assert m["appsCompleted"] == s["applications"]["finished"]
    assert m["appsFailed"] == s["applications"]["failed"]
    assert m["appsKilled"] == s["applications"]["killed"]
    assert m["appsRunning"] + m["appsPending"] == s["applications"]["unfinished"]
    assert m["totalMB"] == s["cluster"]["memory_mb"]
    assert m["totalVirtualCores"] == s["cluster"]["vcores"]
    assert m["activeNodes"] == m["totalNodes"] == s["cluster"]["nodes"]
    assert m["containersAllocated"] == s["containers"]["running_at_end"]
    assert m["totalMB"] == m["availableMB"] + m["allocatedMB"] + m["reservedMB"]


def test_scheduler_queue_tree_has_the_documented_fields(run: Run) -> None:
    """The capacity scheduler tree: root info, parent fields on every queue, leaf-only fields and users on leaves."""
    info = run.json(BASE + "/scheduler")["scheduler"]["schedulerInfo"]
    assert info["type"] == "capacityScheduler" and info["queueName"] == "root"
    queues = _queues(info)
    assert queues, "the tree has no queues"
    parent_fields = [f for f in doc_fields("### 3.3", after="Parent-queue objects") if f.name != "queues"]
    leaf_fields = doc_fields("### 3.3", after="Leaf-only additions")
    user_fields = doc_prose_names("### 3.3", "User object")
    leaves = [q for q in queues if "queues" not in q]
    for q in queues:
        check_fields(q, parent_fields, q["queuePath"])
    for q in leaves:
        assert q["type"] == "capacitySchedulerLeafQueueInfo"
        check_fields(q, leaf_fields, q["queuePath"])
    conf_leaves = {
        p for p in run.cluster.scheduler.conf.get_queue_paths() if not run.cluster.scheduler.conf.get_queues(p)
    }
    assert {q["queuePath"] for q in leaves} == conf_leaves
    # The trace's users all ran in the one leaf; at the end each has no applications left, so none is listed.
    default = next(q for q in leaves if q["queueName"] == "default")
    assert default["numApplications"] == 0 and default["users"] == {}
    assert user_fields == ["username", "resourcesUsed", "numActiveApplications", "numPendingApplications"]


def test_scheduler_users_while_running(run: Run) -> None:
    """Mid-run, the leaf lists its users (rest.md's user object) with the applications they have in the queue."""
    cluster, _ = build_cluster()
    cluster.run(until_ms=60_000)
    snap = take_snapshot(cluster)
    leaf = _queues(snap.scheduler["schedulerInfo"])[0]
    users = leaf["users"]["user"]
    names = doc_prose_names("### 3.3", "User object")
    for u in users:
        assert set(names) <= set(u), (names, u)
        assert isinstance(u["username"], str) and {"memory", "vCores"} <= set(u["resourcesUsed"])
        assert isinstance(u["numActiveApplications"], int) and isinstance(u["numPendingApplications"], int)
    by_user = Counter(a["user"] for a in snap.apps.values() if a["state"] in ("ACCEPTED", "RUNNING"))
    assert {u["username"]: u["numActiveApplications"] + u["numPendingApplications"] for u in users} == dict(by_user)
    assert leaf["numApplications"] == sum(by_user.values())


def test_apps_list_every_application_with_the_documented_fields(run: Run) -> None:
    """/apps lists every submitted application (rest.md §3.4's fields), ids and states as applications.csv."""
    apps = run.json(BASE + "/apps")["apps"]["app"]
    assert len(apps) == run.summary["applications"]["submitted"]
    fields = doc_fields("### 3.4", after="App object")
    for a in apps:
        check_fields(a, fields, a["id"])
    assert [(a["id"], a["state"], a["user"], a["queue"]) for a in apps] == [
        (r["application_id"], r["state"], r["user"], r["queue"]) for r in run.app_rows
    ]
    ts = run.cluster.rm.cluster_timestamp
    for a, r in zip(apps, run.app_rows, strict=True):
        assert a["startedTime"] == ts + int(r["submit_time"])
        assert a["finishedTime"] == ts + int(r["finish_time"])
        assert a["elapsedTime"] == a["finishedTime"] - a["startedTime"]


def test_app_and_attempts(run: Run) -> None:
    """/apps/{id} is the listed app; its attempts carry rest.md §3.5's fields and the AM container's node."""
    first = run.app_rows[0]["application_id"]
    (_, _, one_app), (_, _, listed) = run.get(f"{BASE}/apps/{first}", BASE + "/apps?limit=1")  # (one server)
    app = json.loads(one_app)["app"]
    assert app == json.loads(listed)["apps"]["app"][0]
    attempts = run.json(f"{BASE}/apps/{first}/appattempts")["appAttempts"]["appAttempt"]
    assert len(attempts) == int(run.app_rows[0]["attempts"])
    for t in attempts:
        check_fields(t, doc_fields("### 3.5"), t["appAttemptId"])
        assert t["nodeId"] == app["masterNodeId"]
    one = run.json(f"{BASE}/apps/{first}/appattempts/{attempts[0]['appAttemptId']}")["appAttempt"]
    assert one == attempts[0]
    assert run.json(f"{BASE}/apps/{first}/state") == {"state": app["state"]}


def test_apps_query_parameters(run: Run) -> None:
    """states, finalStatus, user, queue, limit, time ranges and applicationTypes filter as RMWebServices.getApps."""
    rows = run.app_rows
    by_state = Counter(r["state"] for r in rows)

    def ids(query: str) -> list[str]:
        body = run.json(f"{BASE}/apps?{query}")["apps"]
        return [a["id"] for a in body.get("app", [])]

    for state, n in by_state.items():
        assert len(ids(f"states={state.lower()}")) == n
        assert len(ids(f"state={state}")) == n
    assert ids("states=RUNNING,ACCEPTED") == []
    assert len(ids("finalStatus=SUCCEEDED")) == sum(r["final_status"] == "SUCCEEDED" for r in rows)
    user = rows[0]["user"]
    assert ids(f"user={user}") == [r["application_id"] for r in rows if r["user"] == user]
    assert ids("limit=5") == [r["application_id"] for r in rows[:5]]
    assert ids("queue=default") == []  # only unfinished apps are listed under a queue filter
    ts = run.cluster.rm.cluster_timestamp
    cut = ts + int(rows[len(rows) // 2]["submit_time"])
    assert ids(f"startedTimeBegin={cut}") == [r["application_id"] for r in rows if ts + int(r["submit_time"]) >= cut]
    assert ids(f"startedTimeEnd={cut}") == [r["application_id"] for r in rows if ts + int(r["submit_time"]) <= cut]
    fcut = ts + int(rows[0]["finish_time"])
    assert ids(f"finishedTimeEnd={fcut}") == [r["application_id"] for r in rows if ts + int(r["finish_time"]) <= fcut]
    assert len(ids("applicationTypes=mapreduce")) == len(rows)
    assert ids("applicationTypes=spark") == []
    app = run.json(f"{BASE}/apps?limit=1&deSelects=resourceRequests")["apps"]["app"][0]
    assert "resourceRequests" not in app and "user" in app


def test_appstatistics(run: Run) -> None:
    """/appstatistics lists every YarnApplicationState with its count (rest.md §3.7's statItem keys)."""
    items = run.json(BASE + "/appstatistics")["appStatInfo"]["statItem"]
    by_state = Counter(r["state"] for r in run.app_rows)
    assert all(list(i) == doc_statitem_keys() for i in items)
    assert {i["state"]: i["count"] for i in items if i["count"]} == dict(by_state)
    assert {i["type"] for i in items} == {"*"}
    one = run.json(BASE + "/appstatistics?states=finished&applicationTypes=MAPREDUCE")["appStatInfo"]["statItem"]
    assert one == [{"state": "FINISHED", "type": "mapreduce", "count": by_state["FINISHED"]}]


def test_nodes(run: Run) -> None:
    """/nodes lists every node (rest.md §3.8's fields, D2-only ones aside); states filters; /nodes/{id} is one."""
    nodes = run.json(BASE + "/nodes")["nodes"]["node"]
    assert len(nodes) == run.summary["cluster"]["nodes"]
    fields = [f for f in doc_fields("### 3.8") if "D2 only" not in f.meaning]
    for n in nodes:
        check_fields(n, fields, n["id"])
    assert sum(n["totalResource"]["memory"] for n in nodes) == run.summary["cluster"]["memory_mb"]
    assert len(run.json(BASE + "/nodes?states=running")["nodes"]["node"]) == len(nodes)
    assert run.json(BASE + "/nodes?states=LOST,DECOMMISSIONED") == {"nodes": {}}
    assert run.json(f"{BASE}/nodes/{nodes[3]['id']}")["node"] == nodes[3]


def test_xml_answers(run: Run) -> None:
    """Accept: application/xml gives the same beans as XML: <apps><app>..., xsi:type on the scheduler info."""
    (status, ctype, body), (_, _, sched) = run.get(
        (BASE + "/apps", {"Accept": "application/xml"}), (BASE + "/scheduler", {"Accept": "application/xml"})
    )
    assert status == 200 and ctype == "application/xml; charset=utf-8"
    root = ET.fromstring(body)
    assert root.tag == "apps"
    apps = root.findall("app")
    assert [a.findtext("id") for a in apps] == [r["application_id"] for r in run.app_rows]
    info = ET.fromstring(sched).find("schedulerInfo")
    assert info is not None
    assert info.get("{http://www.w3.org/2001/XMLSchema-instance}type") == "capacityScheduler"


def test_tracking_url_is_the_proxy_url_on_the_servers_own_address(run: Run) -> None:
    """trackingUrl is the RM web proxy's URL of the app on the address the server runs on, in JSON and in XML."""

    async def go() -> tuple[int, list[dict[str, Any]], str]:
        async with TestClient(TestServer(build_app(StaticSource(run.snapshot)), host="127.0.0.1")) as client:
            apps = await (await client.get(BASE + "/apps")).json()
            xml = await (await client.get(BASE + "/apps", headers={"Accept": "application/xml"})).text()
            return client.server.port, apps["apps"]["app"], xml

    port, apps, xml = asyncio.run(go())
    assert port != 8088
    for a in apps:
        assert a["trackingUrl"] == f"http://127.0.0.1:{port}/proxy/{a['id']}/"
    urls = [e.text for e in ET.fromstring(xml).iter("trackingUrl")]
    assert urls == [a["trackingUrl"] for a in apps]


# -- errors ------------------------------------------------------------------------------------------------------------
BAD = "org.apache.hadoop.yarn.webapp.BadRequestException"
NOT_FOUND = "org.apache.hadoop.yarn.webapp.NotFoundException"
ILLEGAL = "java.lang.IllegalArgumentException"


def test_errors_are_remote_exceptions_and_the_server_goes_on(run: Run) -> None:
    """Malformed ids and parameters are 400s, unknown ids and paths 404s, each a RemoteException body (rest.md §1);
    the same server then still answers."""
    unknown = "application_1700000000000_9999"
    cases = [
        (f"{BASE}/apps/application_x_1", 400, BAD, "Invalid ApplicationId: application_x_1"),
        (f"{BASE}/apps/bogus", 400, BAD, "Invalid ApplicationId: bogus"),
        (f"{BASE}/apps/{unknown}", 404, NOT_FOUND, f"java.lang.Exception: app with id: {unknown} not found"),
        (f"{BASE}/apps/{unknown}/appattempts", 404, NOT_FOUND, None),
        (f"{BASE}/apps?states=bogus", 400, BAD, "Invalid application-state bogus"),
        (f"{BASE}/apps?limit=0", 400, BAD, "limit value must be greater then 0"),
        (f"{BASE}/apps?limit=ten", 400, BAD, "limit value must be a number!"),
        (f"{BASE}/apps?startedTimeBegin=-1", 400, BAD, "startedTimeBegin must be greater than 0"),
        (f"{BASE}/apps?startedTimeBegin=5&startedTimeEnd=4", 400, BAD, "startedTimeEnd must be greater than"),
        (f"{BASE}/apps?finishedTimeEnd=-3", 400, BAD, "finishTimeEnd must be greater than 0"),
        (f"{BASE}/apps?finalStatus=DONE", 400, ILLEGAL, "FinalApplicationStatus.DONE"),
        (f"{BASE}/apps?queue=nosuch", 400, BAD, "Unknown queue: nosuch"),
        (f"{BASE}/apps?deSelects=bogus", 400, BAD, "Invalid deSelects string bogus"),
        (f"{BASE}/appstatistics?applicationTypes=a,b", 400, BAD, "at most one applicationType"),
        (f"{BASE}/appstatistics?states=nope", 400, BAD, "Invalid application-state nope"),
        (f"{BASE}/nodes?states=bogus", 400, ILLEGAL, "NodeState.BOGUS"),
        (f"{BASE}/nodes/nohost:1", 404, NOT_FOUND, "nodeId, nohost:1, is not found"),
        (f"{BASE}/nodes/noport", 400, ILLEGAL, "Invalid NodeId [noport]"),
        (f"{BASE}/bogus", 404, NOT_FOUND, None),
        (f"{BASE}/apps/{run.app_rows[0]['application_id']}/appattempts/appattempt_1", 400, BAD, None),
    ]
    answers = run.get(*[c[0] for c in cases], BASE + "/info")
    keys = doc_remote_exception_keys()
    for (path, status, java, text), (got, ctype, body) in zip(cases, answers, strict=False):
        assert got == status, (path, got, body)
        assert ctype.startswith("application/json")
        err = json.loads(body)["RemoteException"]
        assert list(err) == keys
        assert err["javaClassName"] == java and err["exception"] == java.rsplit(".", 1)[1], (path, err)
        if text is not None:
            assert text in err["message"], (path, err)
    assert answers[-1][0] == 200


def test_xml_remote_exception(run: Run) -> None:
    """An error asked for as XML is a <RemoteException> with the same three children."""
    ((status, _, body),) = run.get((f"{BASE}/apps/nope", {"Accept": "application/xml"}))
    assert status == 400
    root = ET.fromstring(body)
    assert root.tag == "RemoteException"
    assert [c.tag for c in root] == doc_remote_exception_keys()


def test_web_ui_pages(run: Run) -> None:
    """/ redirects to /cluster; the About, Applications, application, Scheduler and Nodes pages answer HTML whose
    tables hold one row per application and node."""
    first = run.app_rows[0]["application_id"]
    answers = run.get(
        "/",
        "/cluster",
        "/cluster/apps",
        f"/cluster/app/{first}",
        "/cluster/scheduler",
        "/cluster/nodes",
        "/cluster/apps/FINISHED",
        "/cluster/nodes/lost",
    )
    assert answers[0][0] == 302
    for status, ctype, _ in answers[1:]:
        assert status == 200 and ctype.startswith("text/html")
    apps_page = answers[2][2]
    assert apps_page.count("<tr>") - apps_page.count("<thead><tr>") >= len(run.app_rows)
    assert all(r["application_id"] in apps_page for r in run.app_rows)
    nodes_page = answers[5][2]
    assert all(n["id"] in nodes_page for n in run.snapshot.nodes.values())
    assert "Queue: default" in answers[4][2]
    assert "Running Containers (O)" not in nodes_page  # opportunistic allocation is off in this run


def test_web_ui_shows_times_as_the_rm_does_and_sorts_them_by_number(run: Run) -> None:
    """StartTime, LaunchTime and FinishTime read as the RM's pages render them ("Sat Nov 28 16:44:35 +0000 2026",
    "N/A" for 0) and sort by their number; the applications table is a paged, sortable one, newest first."""
    assert hadoop_date(1795884275999) == "Sat Nov 28 16:44:35 +0000 2026"
    assert hadoop_date(0) == "N/A"
    first = run.app_rows[0]["application_id"]
    (_, _, apps_page), (_, _, app_page) = run.get("/cluster/apps", f"/cluster/app/{first}")
    assert '<table id="apps" data-page="20" data-order="0.desc">' in apps_page
    for a in run.snapshot.apps.values():
        for key in ("startedTime", "launchTime", "finishedTime"):
            assert f'<td data-sort="{a[key]}">{hadoop_date(a[key])}</td>' in apps_page, (a["id"], key)
        assert f">{a['startedTime']}<" not in apps_page
    app = run.snapshot.apps[first]
    assert f"<td>Started</td><td>{hadoop_date(app['startedTime'])}</td>" in app_page
    assert f"<td>Finished</td><td>{hadoop_date(app['finishedTime'])}</td>" in app_page


def _doc_sls_keys(queues: list[str]) -> set[str]:
    """rest.md §6's chart keys, with <q>, <EVENT> and <band> expanded."""
    text = REST_MD.read_text(encoding="utf-8")
    section = text[text.index("## 6. SLS") : text.index("## 7.")]
    charts = section[section.index("Ten charts") :]
    keys: set[str] = set()
    for line in charts.splitlines():
        if not line.startswith("| ") or line.startswith("| #"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 3 or not cells[0].isdigit():
            continue
        for key in re.findall(r"`([a-z.<>A-Z_-]+)`", cells[2]):
            if "<q>" in key:
                keys |= {key.replace("<q>", q) for q in queues}
            elif "<EVENT>" in key:
                events = re.search(r"for ([A-Z_, ]+),", cells[2])
                assert events is not None
                keys |= {key.replace("<EVENT>", e.strip()) for e in events.group(1).split(",")}
            elif "<band>" in key:
                bands = re.findall(r"`(unused|\w+pctUsed|full)`", section)
                keys |= {key.replace("<band>", b) for b in bands}
            else:
                keys.add(key)
    return keys


def test_simulate_metrics_has_the_sls_keys(run: Run) -> None:
    """/simulateMetrics is one flat object with every key of SLS's ten charts (rest.md §6), in SLS's units."""
    ((status, ctype, body),) = run.get("/simulateMetrics")
    assert status == 200 and ctype.startswith("text/json")
    rec = json.loads(body)
    expected = _doc_sls_keys(["default"])
    assert len(expected) > 30 and expected <= set(rec), sorted(expected - set(rec))
    m = run.snapshot.metrics
    assert rec["time"] == int(run.snapshot.now_ms)
    assert rec["cluster.available.memory"] == m["availableMB"] / 1024
    bands = [k for k in rec if k.startswith("nodes.memory.")]
    assert sum(rec[k] for k in bands) == m["activeNodes"] == rec["nodes.memory.unused"]  # all idle at the end
