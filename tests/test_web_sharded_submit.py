"""Submitting an application through the REST API to a cluster on shard hosts (the in-process backend: the Ray
backend's logic without Ray): the AM is placed on a host and the application runs as on the embedded cluster, and
the refusals are the embedded server's. The Ray lane (virtual and live) is in tests/test_web_ray.py."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient, TestServer

from tests.test_web_sharded import SECTIONS, bundled, fixed_slices
from tests.test_web_submit import context, ds_command
from yarnball.launcher.web._driver import LiveSource, drive
from yarnball.launcher.web._restsubmit import DS_APP_MASTER, RestShellAppMaster
from yarnball.launcher.web._server import build_app
from yarnball.launcher.web._shardsource import ShardedSource, drive_sharded
from yarnball.protocols import Configuration, keys

APPS = "/ws/v1/cluster/apps"
ME = {"user.name": "alice"}


def source_of(cluster: Any) -> Any:
    return LiveSource(cluster) if hasattr(cluster, "kernel") else ShardedSource(cluster)


def driver_of(cluster: Any) -> Any:
    return drive if hasattr(cluster, "kernel") else drive_sharded


def submit_paused(backend: str, containers: int = 2, seconds: float = 3.0) -> dict[str, Any]:
    """The bundled trace paused at 5 s; new-application and POST /apps there; then the run to its end."""
    cluster = bundled(backend)
    source, run = source_of(cluster), driver_of(cluster)

    async def go() -> dict[str, Any]:
        async with TestClient(TestServer(build_app(source))) as client:
            await run(cluster, source, until_ms=5000)
            new = await client.post(f"{APPS}/new-application", params=ME)
            app_id = (await new.json())["application-id"]
            sub = await client.post(APPS, params=ME, json=context(app_id, ds_command(containers, seconds)))
            accepted = (await (await client.get(f"{APPS}/{app_id}")).json())["app"]
            end = await run(cluster, source)
            listed = (await (await client.get(APPS)).json())["apps"]["app"]
            snap = source.latest()
            return {
                "app_id": app_id,
                "statuses": (new.status, sub.status, sub.headers.get("Location", "")),
                "accepted": accepted,
                "listed": listed,
                "end": end,
                "view": {name: getattr(snap, name) for name in SECTIONS},
                "finished": cluster.finished(),
            }

    return asyncio.run(go())


def test_rest_submission_on_the_hosts_runs_as_on_the_embedded_cluster() -> None:
    """new-application and POST /apps on a sharded run paused at 5 s place the distributed shell's AM on a host; the
    application runs its containers and ends FINISHED/SUCCEEDED, the run goes on until it is done, and everything
    the REST API shows at the end (every app, node, queue and NM view) is what the embedded server shows after the
    same submission at the same moment."""
    embedded = submit_paused("embedded")
    sharded = submit_paused("inprocess")
    app_id = sharded["app_id"]
    new_status, sub_status, location = sharded["statuses"]
    assert (new_status, sub_status) == (200, 202) and location.endswith(f"{APPS}/{app_id}")
    assert sharded["accepted"]["user"] == "alice" and sharded["accepted"]["state"] in ("SUBMITTED", "ACCEPTED")
    final = next(a for a in sharded["listed"] if a["id"] == app_id)
    assert (final["state"], final["finalStatus"], final["name"]) == ("FINISHED", "SUCCEEDED", "ds-rest")
    cluster_ts = 1_700_000_000_000  # (the REST timestamps are ms since the epoch from the cluster timestamp)
    assert sharded["finished"] and 5000 < final["finishedTime"] - cluster_ts <= sharded["end"]
    assert sharded["end"] == embedded["end"] and app_id == embedded["app_id"]
    for name in SECTIONS:
        assert sharded["view"][name] == embedded["view"][name], name


def test_rest_submission_while_the_slices_run_reaches_finished() -> None:
    """A submission sent while the driver runs the slices of windows is applied between two of them: the AM starts
    on its host, the application finishes, and the run does not end before it."""
    cluster = bundled()
    source = ShardedSource(cluster)

    async def go() -> tuple[int, dict[str, Any], float]:
        async with TestClient(TestServer(build_app(source))) as client:
            await drive_sharded(cluster, source, until_ms=5000)
            app_id = (await (await client.post(f"{APPS}/new-application", params=ME)).json())["application-id"]
            run = asyncio.ensure_future(drive_sharded(cluster, source, wall_clock=fixed_slices()))
            await asyncio.sleep(0)  # the driver starts its slices
            sub = await client.post(APPS, params=ME, json=context(app_id, ds_command(1, 40.0)))
            assert not run.done()
            end = await run
            return sub.status, (await (await client.get(f"{APPS}/{app_id}")).json())["app"], end

    status, app, end = asyncio.run(go())
    assert status == 202
    assert (app["state"], app["finalStatus"]) == ("FINISHED", "SUCCEEDED")
    assert cluster.finished() and end >= 40_000  # the 40 s container ran before the run ended
    assert sum(isinstance(m, RestShellAppMaster) for m in cluster.masters) == 1


def refusals(backend: str) -> tuple[list[tuple[int, str, str]], dict[str, Any]]:
    """The embedded submission test's refused bodies, and a submission the queue's ACL refuses, on ``backend``."""
    conf = Configuration(
        {
            keys.YARN_ACL_ENABLE: "true",
            keys.YARN_ADMIN_ACL: " ",
            "yarn.scheduler.capacity.root.acl_submit_applications": " ",
            "yarn.scheduler.capacity.root.acl_administer_queue": " ",
            # the trace's users may submit, alice (the REST caller) may not
            "yarn.scheduler.capacity.root.default.acl_submit_applications": "user0,user1,user2,user3",
        }
    )
    cluster = bundled(backend, conf)
    source, run = source_of(cluster), driver_of(cluster)

    async def go() -> tuple[list[tuple[int, str, str]], dict[str, Any]]:
        async with TestClient(TestServer(build_app(source))) as client:
            await run(cluster, source, until_ms=5000)
            app_id = (await (await client.post(f"{APPS}/new-application", params=ME)).json())["application-id"]
            cases: list[tuple[dict[str, str], Any]] = [
                ({}, context(app_id, ds_command(1, 1))),
                (ME, "not json"),
                (ME, context("application_x", ds_command(1, 1))),
                (ME, context(app_id, "java org.apache.hadoop.mapreduce.v2.app.MRAppMaster")),
                (ME, context(app_id, f"java {DS_APP_MASTER} --shell_command ls")),
                (ME, context(app_id, f"java {DS_APP_MASTER} --shell_command sleep --shell_args -3")),
                (ME, {"application-id": app_id}),
            ]
            out = []
            for params, body in cases:
                kwargs = {"data": body} if isinstance(body, str) else {"json": body}
                r = await client.post(APPS, params=params, **kwargs)
                e = (await r.json())["RemoteException"]
                out.append((r.status, e["exception"], e["message"]))
            refused = await client.post(APPS, params=ME, json=context(app_id, ds_command(1, 1)))
            assert refused.status == 202  # the RM refuses it: it ends FAILED (ClientRMService, RMAppManager)
            await run(cluster, source, until_ms=10_000)
            app = (await (await client.get(f"{APPS}/{app_id}")).json())["app"]
            return out, app

    return asyncio.run(go())


def test_submission_refusals_on_the_hosts_are_the_embedded_ones() -> None:
    """Every body the embedded server refuses is refused on shard hosts with the same status, exception and message,
    before any AM starts; a submission the queue's ACL refuses is accepted and ends FAILED with the RM's diagnostics,
    as on the embedded cluster."""
    embedded_out, embedded_app = refusals("embedded")
    sharded_out, sharded_app = refusals("inprocess")
    assert [s for s, _, _ in sharded_out] == [401] + [400] * 6
    assert sharded_out == embedded_out
    assert sharded_app["state"] == "FAILED" and "alice" in sharded_app["diagnostics"]
    assert {k: sharded_app[k] for k in ("state", "finalStatus", "diagnostics", "user", "queue")} == {
        k: embedded_app[k] for k in ("state", "finalStatus", "diagnostics", "user", "queue")
    }


def test_submission_to_an_ended_sharded_run_is_refused() -> None:
    """Once a run on shard hosts has ended (the RM saw every application finish), POST /apps and new-application are
    503 YarnExceptions saying so, and no AM is started (a sharded run is not driven again after its end)."""
    cluster = bundled()
    source = ShardedSource(cluster)

    async def go() -> list[tuple[int, str, str]]:
        async with TestClient(TestServer(build_app(source))) as client:
            await drive_sharded(cluster, source)
            out = []
            for r in (
                await client.post(f"{APPS}/new-application", params=ME),
                await client.post(APPS, params=ME, json=context("application_1700000000000_0099", ds_command(1, 1))),
            ):
                e = (await r.json())["RemoteException"]
                out.append((r.status, e["exception"], e["message"]))
            return out

    out = asyncio.run(go())
    assert [(s, e) for s, e, _ in out] == [(503, "YarnException")] * 2
    assert all("has ended" in m for _, _, m in out)
    assert not any(isinstance(m, RestShellAppMaster) for m in cluster.masters)
