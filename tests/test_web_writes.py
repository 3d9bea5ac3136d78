"""The RM REST API's write side: kill, move and priority as ClientRMService requests, with queue ACLs."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient, TestServer

from tests.web_helpers import build_cluster
from yarnball.launcher.web._driver import SLICE_WALL_S, LiveSource, StaticSource, drive
from yarnball.launcher.web._server import build_app
from yarnball.launcher.web._snapshot import take_snapshot
from yarnball.protocols import Configuration, YarnApplicationState

APPS = "/ws/v1/cluster/apps"
CS = "yarn.scheduler.capacity."


def acl_conf(**extra: str) -> Configuration:
    """ACLs on, one admin, nobody administers or submits anywhere unless a test says so; two leaf queues."""
    conf = Configuration()
    conf.set("yarn.acl.enable", "true")
    conf.set("yarn.admin.acl", "yarnadmin")
    conf.set(CS + "root.queues", "default,other")
    conf.set(CS + "root.default.capacity", "50")
    conf.set(CS + "root.other.capacity", "50")
    for queue in ("root", "root.default", "root.other"):
        conf.set(f"{CS}{queue}.acl_administer_queue", " ")
        conf.set(f"{CS}{queue}.acl_submit_applications", " " if queue == "root" else "*")
    for key, value in extra.items():
        conf.set(key, value)
    return conf


Scenario = Callable[[TestClient, Any, LiveSource], Awaitable[Any]]


def serve(scenario: Scenario, conf: Configuration | None = None, *, until_ms: float = 5000) -> tuple[Any, Any]:
    """Run the bundled trace to ``until_ms`` (so its first applications are running), then play ``scenario``
    against the server; returns the scenario's result and the cluster."""
    cluster, _ = build_cluster(conf)
    source = LiveSource(cluster)

    async def go() -> Any:
        async with TestClient(TestServer(build_app(source))) as client:
            await drive(cluster, source, until_ms=until_ms)
            return await scenario(client, cluster, source)

    return asyncio.run(go()), cluster


async def running_app(client: TestClient) -> dict[str, Any]:
    apps = (await (await client.get(APPS, params={"states": "RUNNING"})).json())["apps"]["app"]
    return apps[0]


def rm_app(cluster: Any, app_id: str) -> Any:
    return next(a for a in cluster.rm.apps.values() if str(a.id) == app_id)


# -- kill ----------------------------------------------------------------------------------------------------------
def test_owner_kills_a_running_app_and_it_ends_killed() -> None:
    """PUT state KILLED by the owner: 202 and the app ends KILLED with ClientRMService's diagnostics; a repeated PUT
    is a 200 (already in the target state), as Hadoop's client loop expects."""

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        app = await running_app(client)
        url = f"{APPS}/{app['id']}/state"
        first = await client.put(url, params={"user.name": app["user"]}, json={"state": "KILLED"})
        again = await client.put(url, params={"user.name": app["user"]}, json={"state": "KILLED"})
        shown = (await (await client.get(f"{APPS}/{app['id']}")).json())["app"]
        return app, first.status, first.headers.get("Location"), await first.json(), again.status, shown

    (app, status, location, body, again, shown), cluster = serve(scenario, acl_conf())
    assert status == 202 and location is not None and location.endswith(f"/apps/{app['id']}/state")
    assert body == {"state": "KILLED"} and again == 200
    assert shown["state"] == "KILLED" and shown["finalStatus"] == "KILLED"
    assert shown["diagnostics"] == f"Application {app['id']} was killed by user {app['user']}"
    assert rm_app(cluster, app["id"]).state is YarnApplicationState.KILLED
    assert cluster.rm.counters["apps_killed"] == 1


def test_kill_while_the_run_goes_on() -> None:
    """A kill sent while the driver runs the kernel in slices is delivered between slices and answered; the run
    then goes on to its end without the killed application."""
    cluster, _ = build_cluster(acl_conf())
    source = LiveSource(cluster)
    ticks = iter(range(10**9))

    def wall_clock() -> float:  # every slice "takes" SLICE_WALL_S: fixed 1 s slices, no real clock involved
        return next(ticks) * SLICE_WALL_S

    async def go() -> tuple[int, str, float]:
        async with TestClient(TestServer(build_app(source))) as client:
            await drive(cluster, source, until_ms=5000)
            run = asyncio.ensure_future(drive(cluster, source, wall_clock=wall_clock))
            await asyncio.sleep(0)  # the driver starts its slices
            assert source.driving
            # the trace's longest job (user3's, ends at 58.98 s) is still running some slices later
            app_id = "application_1700000000000_0007"
            r = await client.put(f"{APPS}/{app_id}/state", params={"user.name": "yarnadmin"}, json={"state": "KILLED"})
            assert not run.done()
            await run
            return r.status, app_id, cluster.kernel.now

    status, app_id, end = asyncio.run(go())
    assert status == 202
    assert rm_app(cluster, app_id).state is YarnApplicationState.KILLED
    assert rm_app(cluster, app_id).diagnostics == f"Application {app_id} was killed by user yarnadmin"
    assert cluster.finished() and end == cluster.kernel.now


@pytest.mark.parametrize(
    ("who", "allowed"),
    [("owner", True), ("yarnadmin", True), ("queueadmin", True), ("mallory", False), ("submitter", False)],
)
def test_kill_acl(who: str, allowed: bool) -> None:
    """ClientRMService.checkAccess: the owner, yarn.admin.acl and acl_administer_queue (here on the parent) may
    kill; anyone else gets 403 ForbiddenException and the app runs on to FINISHED."""
    conf = acl_conf(
        **{
            f"{CS}root.acl_administer_queue": "queueadmin",
            f"{CS}root.default.acl_submit_applications": "user0,user1,user2,user3,submitter",
        }
    )

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        app = await running_app(client)
        user = app["user"] if who == "owner" else who
        r = await client.put(f"{APPS}/{app['id']}/state", params={"user.name": user}, json={"state": "KILLED"})
        body = await r.json()
        await drive(cluster, source)  # to the end of the run
        return app, user, r.status, body

    (app, user, status, body), cluster = serve(scenario, conf)
    final = rm_app(cluster, app["id"])
    if allowed:
        assert status == 202 and final.state is YarnApplicationState.KILLED
    else:
        assert status == 403
        assert body["RemoteException"]["exception"] == "ForbiddenException"
        assert body["RemoteException"]["message"] == (
            f"Unauthorized attempt to kill appid {app['id']} by remote user {user}"
        )
        assert final.state is YarnApplicationState.FINISHED and cluster.rm.counters["apps_killed"] == 0


def test_acls_off_let_anyone_kill() -> None:
    """With yarn.acl.enable false (the default) every named caller may kill."""

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        app = await running_app(client)
        r = await client.put(f"{APPS}/{app['id']}/state", params={"user.name": "mallory"}, json={"state": "KILLED"})
        return app["id"], r.status

    (app_id, status), cluster = serve(scenario, Configuration())
    assert status == 202 and rm_app(cluster, app_id).state is YarnApplicationState.KILLED


def test_the_caller_may_come_in_a_header() -> None:
    """Without user.name, the Remote-User header names the caller."""

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        app = await running_app(client)
        r = await client.put(
            f"{APPS}/{app['id']}/state", headers={"Remote-User": app["user"]}, json={"state": "KILLED"}
        )
        return app["id"], r.status

    (app_id, status), cluster = serve(scenario, acl_conf())
    assert status == 202 and rm_app(cluster, app_id).state is YarnApplicationState.KILLED


# -- refusals that are not ACLs ------------------------------------------------------------------------------------
def test_bad_writes_are_remote_exceptions_and_change_nothing() -> None:
    """Anonymous callers, bad bodies, other target states, bad and unknown ids: each a RemoteException with
    Hadoop's status and exception name; nothing changes and the server keeps answering."""

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        app = await running_app(client)
        base = f"{APPS}/{app['id']}"
        me = {"user.name": app["user"]}
        out = []
        for method, url, params, kwargs in [
            ("put", base + "/state", {}, {"json": {"state": "KILLED"}}),
            ("put", base + "/state", me, {"data": "not json"}),
            ("put", base + "/state", me, {"json": ["KILLED"]}),
            ("put", base + "/state", me, {"json": {}}),
            ("put", base + "/state", me, {"json": {"state": "FINISHED"}}),
            (
                "put",
                base + "/state",
                me,
                {"data": "<appstate><state>KILLED", "headers": {"Content-Type": "application/xml"}},
            ),
            ("put", base + "/queue", me, {"json": {"queue": ""}}),
            ("put", base + "/queue", me, {"json": {"queue": "nosuchqueue"}}),
            ("put", base + "/queue", me, {"json": {"queue": "root"}}),
            ("put", base + "/priority", me, {"json": {"priority": "high"}}),
            ("put", base + "/priority", me, {"json": {"other": 1}}),
            ("put", f"{APPS}/application_1_x/state", me, {"json": {"state": "KILLED"}}),
            ("put", f"{APPS}/application_1_9999/state", me, {"json": {"state": "KILLED"}}),
            ("put", f"{APPS}/application_1_9999/priority", me, {"json": {"priority": 1}}),
        ]:
            r = await client.request(method.upper(), url, params=params, **kwargs)
            out.append((r.status, (await r.json())["RemoteException"]))
        info = await client.get("/ws/v1/cluster/info")
        return app, out, info.status

    (app, out, info), cluster = serve(scenario, acl_conf(**{f"{CS}root.acl_submit_applications": "*"}))
    statuses = [s for s, _ in out]
    names = [e["exception"] for _, e in out]
    assert statuses == [401, 400, 400, 400, 400, 400, 400, 403, 503, 400, 400, 400, 404, 404]
    assert names[0] == "AuthorizationException" and names[-2:] == ["NotFoundException", "NotFoundException"]
    assert set(names[1:7]) == {"BadRequestException"}
    assert out[4][1]["message"] == "java.lang.Exception: Only 'KILLED' is allowed as a target state."
    # QueueACLsManager.checkAccess: no access to a target queue that does not exist
    assert out[7][1]["message"] == f"Unauthorized attempt to move appid {app['id']} by remote user {app['user']}"
    assert out[8][1]["message"] == "The specified Queue: root is not a Leaf Queue."
    assert info == 200
    final = rm_app(cluster, app["id"])
    assert final.state is YarnApplicationState.RUNNING and final.queue == "default"
    assert cluster.rm.counters["apps_killed"] == 0


def test_a_fixed_snapshot_refuses_writes() -> None:
    """A server over a finished run's snapshot (StaticSource) has no RM to send to: 503, and reads still work."""
    cluster, _ = build_cluster()
    cluster.run(until_ms=5000)
    snap = take_snapshot(cluster)
    app_id = next(iter(snap.apps))

    async def go() -> tuple[int, int]:
        async with TestClient(TestServer(build_app(StaticSource(snap)))) as client:
            r = await client.put(f"{APPS}/{app_id}/state", params={"user.name": "u"}, json={"state": "KILLED"})
            g = await client.get(f"{APPS}/{app_id}/state")
            return r.status, g.status

    assert asyncio.run(go()) == (503, 200)


def test_finished_app_cannot_be_moved() -> None:
    """Moving a finished application: 400 with ClientRMService's "App in FINISHED state cannot be moved."."""

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        await drive(cluster, source)
        app = (await (await client.get(APPS, params={"states": "FINISHED"})).json())["apps"]["app"][0]
        r = await client.put(f"{APPS}/{app['id']}/queue", params={"user.name": app["user"]}, json={"queue": "other"})
        return app["id"], r.status, await r.json()

    (app_id, status, body), cluster = serve(scenario, acl_conf())
    assert status == 400 and body["RemoteException"]["message"] == "App in FINISHED state cannot be moved."
    assert rm_app(cluster, app_id).queue == "default"


# -- move and priority ---------------------------------------------------------------------------------------------
def one_am_at_a_time(**extra: str) -> Configuration:
    """ACLs on and a default queue whose AM limit admits one application at a time: the rest wait, ACCEPTED and
    holding no containers."""
    return acl_conf(**{f"{CS}root.default.maximum-am-resource-percent": "0.001"}, **extra)


async def waiting_apps(client: TestClient) -> list[dict[str, Any]]:
    return (await (await client.get(APPS, params={"states": "ACCEPTED"})).json())["apps"]["app"]


def test_owner_moves_a_waiting_app_to_another_queue() -> None:
    """PUT queue by the owner: 200 {"queue": "other"}; the scheduler has the app in root.other, where it starts at
    once, ahead of the applications it was queued behind; it runs to FINISHED there."""

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        waiting = await waiting_apps(client)
        victim = waiting[-1]
        r = await client.put(
            f"{APPS}/{victim['id']}/queue", params={"user.name": victim["user"]}, json={"queue": "other"}
        )
        body = await r.json()
        shown = await (await client.get(f"{APPS}/{victim['id']}/queue")).json()
        leaf = cluster.rm.scheduler.applications[rm_app(cluster, victim["id"]).id].queue.path
        await drive(cluster, source)
        return waiting, victim, r.status, body, shown, leaf

    (waiting, victim, status, body, shown, leaf), cluster = serve(scenario, one_am_at_a_time())
    assert len(waiting) > 2
    assert status == 200 and body == {"queue": "other"} and shown == {"queue": "other"} and leaf == "root.other"
    moved = rm_app(cluster, victim["id"])
    assert moved.queue == "other" and moved.state is YarnApplicationState.FINISHED
    ahead = [rm_app(cluster, a["id"]) for a in waiting[:-1]]
    assert all(moved.launch_time < a.launch_time for a in ahead)


@pytest.mark.parametrize(("who", "submit_other"), [("mallory", "*"), ("owner", "nobody")])
def test_move_acl_refusals_leave_the_app_where_it_was(who: str, submit_other: str) -> None:
    """A stranger may not modify the app; the owner may, but needs submit (or administer) on the target queue."""

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        victim = (await waiting_apps(client))[-1]
        user = victim["user"] if who == "owner" else who
        r = await client.put(f"{APPS}/{victim['id']}/queue", params={"user.name": user}, json={"queue": "other"})
        return victim, user, r.status, await r.json()

    conf = one_am_at_a_time(**{f"{CS}root.other.acl_submit_applications": submit_other})
    (victim, user, status, body), cluster = serve(scenario, conf)
    assert status == 403 and body["RemoteException"]["exception"] == "ForbiddenException"
    assert (
        body["RemoteException"]["message"] == f"Unauthorized attempt to move appid {victim['id']} by remote user {user}"
    )
    app = rm_app(cluster, victim["id"])
    assert app.queue == "default" and cluster.rm.scheduler.applications[app.id].queue.path == "root.default"


def test_priority_update_reorders_the_queue() -> None:
    """PUT priority 5 on the last waiting app: 200 {"priority": 5}, shown by the app; it is the next one the queue
    starts (FIFO by priority first), before the apps submitted ahead of it."""
    conf = one_am_at_a_time(**{"yarn.cluster.max-application-priority": "10"})

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        waiting = await waiting_apps(client)
        victim = waiting[-1]
        r = await client.put(
            f"{APPS}/{victim['id']}/priority", params={"user.name": victim["user"]}, json={"priority": 5}
        )
        body = await r.json()
        shown = (await (await client.get(f"{APPS}/{victim['id']}")).json())["app"]["priority"]
        await drive(cluster, source)
        return waiting, victim, r.status, body, shown

    (waiting, victim, status, body, shown), cluster = serve(scenario, conf)
    assert status == 200 and body == {"priority": 5} and shown == 5
    raised = rm_app(cluster, victim["id"])
    assert raised.context.priority.priority == 5 and raised.state is YarnApplicationState.FINISHED
    assert all(raised.launch_time < rm_app(cluster, a["id"]).launch_time for a in waiting[:-1])


def test_priority_is_capped_and_refused_to_strangers() -> None:
    """Above yarn.cluster.max-application-priority the priority is capped (checkAndGetApplicationPriority); a
    stranger gets 403 and the priority stays."""
    conf = one_am_at_a_time(**{"yarn.cluster.max-application-priority": "3"})

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        victim = (await waiting_apps(client))[-1]
        url = f"{APPS}/{victim['id']}/priority"
        capped = await client.put(url, params={"user.name": victim["user"]}, json={"priority": 50})
        refused = await client.put(url, params={"user.name": "mallory"}, json={"priority": 1})
        xml = await client.get(url, headers={"Accept": "application/xml"})
        return victim, await capped.json(), refused.status, await refused.json(), await xml.text()

    (victim, capped, refused, body, xml), cluster = serve(scenario, conf)
    assert capped == {"priority": 3}
    assert refused == 403 and body["RemoteException"]["message"] == (
        f"Unauthorized attempt to change priority of appid {victim['id']} by remote user mallory"
    )
    assert rm_app(cluster, victim["id"]).context.priority.priority == 3
    assert "<applicationpriority><priority>3</priority></applicationpriority>" in xml


def test_xml_bodies_and_answers() -> None:
    """An XML AppState body (root appstate) kills as JSON does; with Accept: application/xml the answer is XML."""

    async def scenario(client: TestClient, cluster: Any, source: LiveSource) -> Any:
        app = await running_app(client)
        r = await client.put(
            f"{APPS}/{app['id']}/state",
            params={"user.name": app["user"]},
            data="<appstate><state>KILLED</state></appstate>",
            headers={"Content-Type": "application/xml", "Accept": "application/xml"},
        )
        return app["id"], r.status, await r.text()

    (app_id, status, text), cluster = serve(scenario, acl_conf())
    assert status == 202 and "<appstate><state>KILLED</state></appstate>" in text
    assert rm_app(cluster, app_id).state is YarnApplicationState.KILLED
