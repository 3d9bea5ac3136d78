"""Submitting a distributed shell through the RM REST API: new-application, then POST /apps."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest

pytest.importorskip("aiohttp")

import aiohttp
from aiohttp.test_utils import TestClient, TestServer

from tests.web_helpers import build_cluster
from yarnball.launcher.web._driver import LiveSource, drive
from yarnball.launcher.web._restsubmit import DS_APP_MASTER, RestShellAppMaster, parse_shell_command
from yarnball.launcher.web._server import _serve, build_app

APPS = "/ws/v1/cluster/apps"


def ds_command(containers: int, seconds: float, memory: int = 512) -> str:
    """The AM command line DistributedShell's Client writes (plus the shell command yarnball reads from it)."""
    return (
        f"{{{{JAVA_HOME}}}}/bin/java -Xmx10m {DS_APP_MASTER} --container_memory {memory} --container_vcores 1 "
        f"--num_containers {containers} --priority 0 --shell_command sleep --shell_args {seconds} "
        "1><LOG_DIR>/AppMaster.stdout 2><LOG_DIR>/AppMaster.stderr"
    )


def context(app_id: str, command: str, **extra: Any) -> dict[str, Any]:
    return {
        "application-id": app_id,
        "application-name": "ds-rest",
        "queue": "default",
        "am-container-spec": {"commands": {"command": command}},
        "resource": {"memory": 1024, "vCores": 1},
        "application-type": "YARN",
        **extra,
    }


def submit_midrun(containers: int, seconds: float) -> tuple[dict[str, Any], Any]:
    cluster, _ = build_cluster()
    source = LiveSource(cluster)

    async def go() -> dict[str, Any]:
        async with TestClient(TestServer(build_app(source))) as client:
            await drive(cluster, source, until_ms=5000)
            new = await client.post(f"{APPS}/new-application", params={"user.name": "alice"})
            new_body = await new.json()
            app_id = new_body["application-id"]
            body = context(app_id, ds_command(containers, seconds))
            sub = await client.post(APPS, params={"user.name": "alice"}, json=body)
            again = await client.post(APPS, params={"user.name": "alice"}, json=body)
            accepted = (await (await client.get(f"{APPS}/{app_id}")).json())["app"]
            await drive(cluster, source)
            final = (await (await client.get(f"{APPS}/{app_id}")).json())["app"]
            return {
                "new": (new.status, new_body),
                "submit": (sub.status, sub.headers.get("Location"), await sub.text()),
                "again": again.status,
                "accepted": accepted,
                "final": final,
            }

    return asyncio.run(go()), cluster


def test_submitted_shell_runs_its_containers_for_its_sleep() -> None:
    """new-application gives an id and the maximum capability; POST /apps is a 202 with Location; the app (user
    from user.name) runs num_containers containers of the sleep's length and ends FINISHED/SUCCEEDED."""
    out, cluster = submit_midrun(containers=3, seconds=7)
    status, new_body = out["new"]
    assert status == 200 and set(new_body) == {"application-id", "maximum-resource-capability"}
    maximum = cluster.rm.maximum_allocation
    assert new_body["maximum-resource-capability"] == {"memory": maximum.memory_mb, "vCores": maximum.vcores}
    app_id = new_body["application-id"]
    sub_status, location, text = out["submit"]
    assert sub_status == 202 and text == "" and location.endswith(f"{APPS}/{app_id}")
    assert out["again"] == 202  # ClientRMService: an earlier submitted application is acknowledged again
    assert out["accepted"]["user"] == "alice" and out["accepted"]["name"] == "ds-rest"
    final = out["final"]
    assert final["state"] == "FINISHED" and final["finalStatus"] == "SUCCEEDED"
    am = next(m for m in cluster.masters if isinstance(m, RestShellAppMaster))
    assert sum(isinstance(m, RestShellAppMaster) for m in cluster.masters) == 1
    assert am.succeeded == 3 and am.container_resource.memory_mb == 512 and am.duration_ms == 7000
    assert final["elapsedTime"] >= 7000  # at least one sleep long


def test_a_longer_sleep_runs_longer() -> None:
    """The sleep time read from the command line is the containers' run time."""
    short, _ = submit_midrun(containers=1, seconds=2)
    long, _ = submit_midrun(containers=1, seconds=20)
    assert long["final"]["elapsedTime"] - short["final"]["elapsedTime"] >= 17000


def test_parse_shell_command_reads_distributed_shell_options() -> None:
    spec = parse_shell_command(
        f"java {DS_APP_MASTER} --num_containers 4 --container_memory 256 --container_vcores 2 --priority 3 "
        "--container_type OPPORTUNISTIC --shell_command 'sleep 1.5'"
    )
    assert (spec.num_containers, spec.memory_mb, spec.vcores, spec.priority) == (4, 256, 2, 3)
    assert spec.container_type.value == "OPPORTUNISTIC" and spec.sleep_ms == 1500


def test_submissions_yarnball_cannot_run_are_refused() -> None:
    """Missing caller, unparsable bodies, non-shell AMs, other shell commands, bad options: RemoteExceptions, and
    no application or AM is started."""
    cluster, _ = build_cluster()
    source = LiveSource(cluster)

    async def go() -> list[tuple[int, str, str]]:
        async with TestClient(TestServer(build_app(source))) as client:
            await drive(cluster, source, until_ms=5000)
            app_id = (await (await client.post(f"{APPS}/new-application", params={"user.name": "a"})).json())[
                "application-id"
            ]
            me = {"user.name": "a"}
            cases: list[tuple[dict[str, str], Any]] = [
                ({}, context(app_id, ds_command(1, 1))),
                (me, "not json"),
                (me, ["x"]),
                (me, context("", ds_command(1, 1))),
                (me, context("application_x", ds_command(1, 1))),
                (me, context(app_id, "java org.apache.hadoop.mapreduce.v2.app.MRAppMaster")),
                (me, context(app_id, f"java {DS_APP_MASTER} --shell_command ls")),
                (me, context(app_id, f"java {DS_APP_MASTER} --num_containers 0 --shell_command 'sleep 1'")),
                (me, context(app_id, f"java {DS_APP_MASTER} --shell_command sleep --shell_args -3")),
                (me, context(app_id, ds_command(1, 1), **{"max-app-attempts": "many"})),
                (me, {"application-id": app_id}),
            ]
            out = []
            for params, body in cases:
                kwargs = {"data": body} if isinstance(body, str) else {"json": body}
                r = await client.post(APPS, params=params, **kwargs)
                e = (await r.json())["RemoteException"]
                out.append((r.status, e["exception"], e["message"]))
            info = await client.get("/ws/v1/cluster/info")
            assert info.status == 200
            return out

    out = asyncio.run(go())
    assert [s for s, _, _ in out] == [401] + [400] * 10
    assert out[0][1] == "AuthorizationException" and {e for _, e, _ in out[1:]} == {"BadRequestException"}
    assert "DistributedShell" in out[5][2] and "sleep <seconds>" in out[6][2]
    assert not any(isinstance(m, RestShellAppMaster) for m in cluster.masters)
    assert not any(a.user == "a" for a in cluster.rm.apps.values())


def test_a_submission_after_the_run_ended_runs() -> None:
    """The server keeps serving a finished run; a submission then wakes the driver and the application runs to its
    end (the server stops on SIGINT as the CLI's does)."""
    cluster, _ = build_cluster()
    seen: dict[str, Any] = {}

    async def client_side(url: str) -> None:
        try:
            async with aiohttp.ClientSession() as session:
                me = {"user.name": "bob"}
                new = await (await session.post(url + APPS + "/new-application", params=me)).json()
                app_id = new["application-id"]
                r = await session.post(url + APPS, params=me, json=context(app_id, ds_command(2, 3)))
                seen["status"] = r.status
                while True:  # each request waits for the slices in between; no wall-clock sleep
                    app = (await (await session.get(f"{url}{APPS}/{app_id}")).json())["app"]
                    if app["state"] in ("FINISHED", "FAILED", "KILLED"):
                        break
                seen["final"] = app
        finally:
            os.kill(os.getpid(), signal.SIGINT)

    tasks: list[asyncio.Future[None]] = []
    result = asyncio.run(
        _serve(
            cluster,
            "127.0.0.1",
            0,
            until_ms=None,
            pace=None,
            keep_serving=True,
            on_progress=None,
            on_started=lambda url: None,
            on_finished=None,
            on_serving_final=lambda url: tasks.append(asyncio.ensure_future(client_side(url))),
        )
    )
    assert not result.interrupted and seen["status"] == 202
    assert seen["final"]["state"] == "FINISHED" and seen["final"]["user"] == "bob"
    assert cluster.finished()
