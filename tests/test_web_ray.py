"""Serving a cluster on Ray: live mode (``clock="wall"``) answers the same REST API from its shard hosts, writes
reach the RM on host 0, ``Cluster.serve`` and ``simulate --backend ray --webapp`` work, and a virtual-time Ray run
served between windows shows the embedded cluster's state."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient, TestServer

from yarnball.actors._appmaster import ApplicationMaster
from yarnball.launcher import Cluster
from yarnball.launcher.web._server import build_app
from yarnball.launcher.web._shardsource import ShardedSource, drive_sharded
from yarnball.launcher.web._snapshot import take_snapshot
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import Configuration, FinalApplicationStatus, Resource, YarnApplicationState, keys

pytestmark = pytest.mark.ray

APPS = "/ws/v1/cluster/apps"
NODES = 3
NODE_MB = 4096
TIMEOUT_S = 60.0


class SleepAM(ApplicationMaster):
    """``count`` containers of ``duration_ms`` each, then finish (the kind of AM written for the simulation)."""

    def __init__(self, *, count: int, duration_ms: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.count = count
        self.duration_ms = duration_ms
        self.completed = 0

    def on_registered(self, response: object) -> None:
        self.add_container_request(Resource(1024, 1), priority=1, count=self.count)

    def on_containers_allocated(self, containers: tuple[Any, ...]) -> None:
        for c in containers:
            self.start_container(c, duration_ms=self.duration_ms)

    def on_containers_completed(self, statuses: tuple[Any, ...]) -> None:
        self.completed += len(statuses)
        if self.completed >= self.count:
            self.finish()


def live_cluster(ray_cluster: str) -> Cluster:
    """Three nodes on two live hosts: a short application and one that runs far longer than the test waits."""
    conf = Configuration({keys.RM_NM_HEARTBEAT_INTERVAL_MS: "100"})
    nodes = WorkloadBuilder().nodes(NODES, memory_mb=NODE_MB, vcores=4).build().nodes
    cluster = Cluster(conf, nodes, seed=1, backend="ray", address=ray_cluster, hosts=2, latency_ms=1, clock="wall")
    cluster.submit(SleepAM(name="short", count=2, duration_ms=500, heartbeat_interval_ms=100))
    cluster.submit(SleepAM(name="long", count=1, duration_ms=600_000, heartbeat_interval_ms=100))
    return cluster


async def poll(client: TestClient, path: str, condition: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
    """GET ``path`` until ``condition`` holds for its JSON body (every 50 ms, at most TIMEOUT_S)."""
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        body = await (await client.get(path)).json()
        if condition(body):
            return body  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, f"timed out waiting for {what}; last answer: {body}"
        await asyncio.sleep(0.05)


async def remote_exception(response: Any) -> tuple[int, str]:
    return response.status, (await response.json())["RemoteException"]["exception"]


def serve_live(cluster: Cluster, scenario: Callable[[TestClient, ShardedSource], Awaitable[Any]]) -> Any:
    """Serve ``cluster`` on a free port of 127.0.0.1 while it runs live; play ``scenario``, then await the run."""
    source = ShardedSource(cluster)

    async def go() -> Any:
        async with TestClient(TestServer(build_app(source), port=0)) as client:
            run = asyncio.ensure_future(drive_sharded(cluster, source, until_ms=120_000))
            try:
                result = await scenario(client, source)
            except BaseException:
                run.cancel()
                await asyncio.wait({run})
                raise
            end = await run
            final = {
                "apps": (await (await client.get(APPS)).json())["apps"]["app"],
                "metrics": (await (await client.get("/ws/v1/cluster/metrics")).json())["clusterMetrics"],
            }
            return result, end, final

    return asyncio.run(go())


def test_live_cluster_serves_the_rest_api_from_its_hosts(ray_cluster: str) -> None:
    """While a live cluster runs on two Ray hosts, /metrics, /nodes, /scheduler, /apps and the NM REST route answer
    in Hadoop's shapes with counts that agree with the cluster; bad requests are RemoteExceptions; a kill reaches
    the RM on host 0 and ends the long application, after which the run ends with the cluster's own states."""
    cluster = live_cluster(ray_cluster)

    async def scenario(client: TestClient, source: ShardedSource) -> dict[str, Any]:
        running = await poll(
            client,
            APPS,
            lambda b: any(a["name"] == "long" and a["runningContainers"] >= 2 for a in b["apps"].get("app", [])),
            "the long application's AM and container to run",
        )
        long_app = next(a for a in running["apps"]["app"] if a["name"] == "long")
        metrics = (await (await client.get("/ws/v1/cluster/metrics")).json())["clusterMetrics"]
        nodes = (await (await client.get("/ws/v1/cluster/nodes")).json())["nodes"]["node"]
        scheduler = (await (await client.get("/ws/v1/cluster/scheduler")).json())["scheduler"]["schedulerInfo"]
        # the NM route: every node's own view, from the host it runs on; the long app's containers are somewhere.
        # The RM counts a container as running from its allocation, the NM only once the AM has started it there
        # (a live run: the AM's next heartbeat, then its StartContainersRequest), so wait for the NMs to catch up.
        nm_views = [(await (await client.get(f"/ws/v1/node/{n['id']}")).json())["nodeInfo"] for n in nodes]
        long_prefix = "container_" + long_app["id"].removeprefix("application_")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            containers = []
            for n in nodes:
                body = await (await client.get(f"/ws/v1/node/{n['id']}/containers")).json()
                containers += body["containers"].get("container", [])
            if sum(c["id"].startswith(long_prefix) for c in containers) >= long_app["runningContainers"]:
                break
            assert time.monotonic() < deadline, f"timed out waiting for the NMs to run {long_app}: {containers}"
            await asyncio.sleep(0.05)
        errors = {
            "bad-app": await remote_exception(await client.get(f"{APPS}/application_bad")),
            "unknown-app": await remote_exception(await client.get(f"{APPS}/application_1700000000000_9999")),
            "unknown-node": await remote_exception(await client.get("/ws/v1/node/nohost:0/containers")),
            "bad-states": await remote_exception(await client.get("/ws/v1/cluster/nodes?states=BOGUS")),
            "kill-anonymous": await remote_exception(
                await client.put(f"{APPS}/{long_app['id']}/state", json={"state": "KILLED"})
            ),
        }
        kill = await client.put(
            f"{APPS}/{long_app['id']}/state", params={"user.name": long_app["user"]}, json={"state": "KILLED"}
        )
        killed = await poll(
            client, f"{APPS}/{long_app['id']}", lambda b: b["app"]["state"] == "KILLED", "the kill to take effect"
        )
        return {
            "long": long_app,
            "metrics": metrics,
            "nodes": nodes,
            "scheduler": scheduler,
            "nm_views": nm_views,
            "containers": containers,
            "errors": errors,
            "kill": kill.status,
            "killed": killed["app"],
            "snapshots": source.snapshots_taken,
        }

    try:
        seen, end, final = serve_live(cluster, scenario)
        reports = {str(a.application_id): a for a in cluster.applications}
        counters = cluster.counters
    finally:
        cluster.close()

    # shapes and counts while it ran
    metrics, nodes = seen["metrics"], seen["nodes"]
    assert metrics["totalNodes"] == metrics["activeNodes"] == len(nodes) == NODES
    assert metrics["totalMB"] == NODES * NODE_MB == sum(n["totalResource"]["memory"] for n in nodes)
    assert metrics["appsSubmitted"] == 2 and metrics["allocatedMB"] >= 2 * 1024
    assert {n["state"] for n in nodes} == {"RUNNING"}
    assert sorted(v["id"] for v in seen["nm_views"]) == sorted(n["id"] for n in nodes)
    assert all(v["nodeHealthy"] for v in seen["nm_views"])
    long_prefix = "container_" + seen["long"]["id"].removeprefix("application_")
    assert sum(c["id"].startswith(long_prefix) for c in seen["containers"]) == seen["long"]["runningContainers"]
    assert seen["scheduler"]["type"] == "capacityScheduler"
    assert [q["queueName"] for q in seen["scheduler"]["queues"]["queue"]] == ["default"]
    assert seen["errors"] == {
        "bad-app": (400, "BadRequestException"),
        "unknown-app": (404, "NotFoundException"),
        "unknown-node": (404, "NotFoundException"),
        "bad-states": (400, "IllegalArgumentException"),
        "kill-anonymous": (401, "AuthorizationException"),
    }
    # the write: 202, and the RM's own diagnostics
    assert seen["kill"] == 202
    assert seen["killed"]["finalStatus"] == "KILLED"
    assert (
        seen["killed"]["diagnostics"] == f"Application {seen['long']['id']} was killed by user {seen['long']['user']}"
    )
    # the end: both applications done long before the limit, and the served final state is the cluster's
    assert end < 120_000
    assert {a["id"]: (a["state"], a["finalStatus"]) for a in final["apps"]} == {
        key: (r.state.value, r.final_status.value) for key, r in reports.items()
    }
    assert sorted(r.final_status.value for r in reports.values()) == ["KILLED", "SUCCEEDED"]
    assert final["metrics"]["appsCompleted"] == counters["apps_finished"] and final["metrics"]["appsKilled"] == 1


def test_cluster_serve_runs_a_live_cluster(ray_cluster: str, capfd: pytest.CaptureFixture[str]) -> None:
    """``Cluster.serve(0)`` on a live cluster binds a free port, says where, and runs the cluster to its end."""
    conf = Configuration({keys.RM_NM_HEARTBEAT_INTERVAL_MS: "100"})
    nodes = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build().nodes
    cluster = Cluster(conf, nodes, seed=1, backend="ray", address=ray_cluster, hosts=2, clock="wall")
    cluster.submit(SleepAM(name="served", count=1, duration_ms=200, heartbeat_interval_ms=100))
    try:
        end = cluster.serve(0, keep_serving=False)
        (report,) = cluster.applications
    finally:
        cluster.close()
    err = capfd.readouterr().err
    assert "serving the RM REST API at http://127.0.0.1:" in err and "127.0.0.1:0/" not in err
    assert report.state is YarnApplicationState.FINISHED and report.final_status is FinalApplicationStatus.SUCCEEDED
    assert 200 <= end < 60_000


def test_virtual_time_ray_run_served_between_windows_shows_the_embedded_state(ray_cluster: str) -> None:
    """A virtual-time run on two Ray hosts, served in slices of windows, ends where the embedded run ends and its
    REST view at the end is the embedded cluster's, section by section."""
    builder = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8)
    for i in range(3):
        builder.job(f"j{i}", submit_ms=i * 2000, tasks=[task_spec(4, 10_000 + i * 1000)])
    workload = builder.build()
    embedded = Cluster(Configuration(), workload.nodes, seed=3, latency_ms=1)
    embedded.submit_workload(workload)
    embedded.run(until_ms=15_000)  # mid-run: containers on the NMs
    expected = take_snapshot(embedded)
    cluster = Cluster(Configuration(), workload.nodes, seed=3, backend="ray", address=ray_cluster, latency_ms=1)
    cluster.submit_workload(workload)
    source = ShardedSource(cluster)
    try:
        end = asyncio.run(drive_sharded(cluster, source, until_ms=15_000))
        got = source.latest()
        sections = {name: getattr(got, name) for name in ("metrics", "scheduler", "apps", "nodes", "node_managers")}
    finally:
        cluster.close()
    assert end == embedded.now == 15_000
    assert sum(len(v["containers"]) for v in sections["node_managers"].values()) > 0
    for name, value in sections.items():
        assert value == getattr(expected, name), name


def test_cli_serves_a_live_ray_run(ray_cluster: str, tmp_path: Path) -> None:
    """`yarnball simulate --backend ray --clock wall --webapp 0 --webapp-exit` runs the trace live while serving it,
    says where, and writes the run's outputs."""
    nodes = tmp_path / "nodes.json"  # SLS's node file: one JSON object per rack
    nodes.write_text(json.dumps({"rack": "rack1", "nodes": [{"node": "n0"}, {"node": "n1"}]}))
    trace = tmp_path / "trace.json"
    task = {"container.host": "/rack1/n0", "container.start.ms": 0, "container.end.ms": 2000}
    task |= {"container.priority": 20, "container.type": "map"}
    job = {"am.type": "mapreduce", "job.start.ms": 0, "job.end.ms": 2000, "job.queue.name": "default"}
    job |= {"job.id": "job_1", "job.user": "alice", "job.tasks": [task]}
    trace.write_text(json.dumps(job))
    argv = ["simulate", "--tracelocation", str(trace), "--nodes", str(nodes), "--output-dir", str(tmp_path / "out")]
    argv += ["--no-plots", "--no-progress", "--backend", "ray", "--hosts", "2", "--address", ray_cluster]
    argv += ["--clock", "wall", "--pace", "5", "--webapp", "0", "--webapp-exit"]
    paths = [str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    done = subprocess.run(
        [sys.executable, "-m", "yarnball.launcher", *argv], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "serving the RM REST API at http://127.0.0.1:" in done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["applications"]["finished"] == 1


def test_cancelling_a_served_live_run_stops_its_hosts(ray_cluster: str) -> None:
    """Ctrl-C while a live run is served cancels the driving task: it asks the hosts to stop, so the run (in its
    thread) returns at once instead of running its 10-minute application to the end."""
    cluster = live_cluster(ray_cluster)
    source = ShardedSource(cluster)

    async def go() -> float:
        async with TestClient(TestServer(build_app(source), port=0)) as client:
            run = asyncio.ensure_future(drive_sharded(cluster, source))
            await poll(client, "/ws/v1/cluster/metrics", lambda b: b["clusterMetrics"]["appsRunning"] >= 1, "a run")
            started = time.monotonic()
            run.cancel()
            await asyncio.wait({run})
            return time.monotonic() - started

    try:
        took = asyncio.run(go())
        assert took < 30  # (the thread is joined with a 30 s limit; a stop that did not reach the hosts hits it)
        assert 0 < cluster.now < 600_000 and not cluster.finished()
        assert sum(r.state is YarnApplicationState.RUNNING for r in cluster.applications) >= 1
    finally:
        cluster.close()


def small_workload() -> Any:
    builder = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8)
    for i in range(3):
        builder.job(f"j{i}", submit_ms=i * 2000, tasks=[task_spec(4, 10_000 + i * 1000)])
    return builder.build()


def test_rest_submission_on_a_virtual_time_ray_run_is_the_embedded_one(ray_cluster: str) -> None:
    """new-application and POST /apps on a virtual-time run on two Ray hosts, paused at 5 s, start the distributed
    shell's AM on a host; the application reaches FINISHED, the run goes on until it is done, and the REST view at the
    end is the embedded cluster's after the same submission at the same moment."""
    from tests.test_web_submit import context, ds_command
    from yarnball.launcher.web._driver import LiveSource, drive

    workload = small_workload()

    def scenario(cluster: Cluster, source: Any, run: Any) -> dict[str, Any]:
        async def go() -> dict[str, Any]:
            async with TestClient(TestServer(build_app(source))) as client:
                await run(cluster, source, until_ms=5000)
                me = {"user.name": "alice"}
                app_id = (await (await client.post(f"{APPS}/new-application", params=me)).json())["application-id"]
                sub = await client.post(APPS, params=me, json=context(app_id, ds_command(2, 3.0)))
                end = await run(cluster, source)
                listed = (await (await client.get(APPS)).json())["apps"]["app"]
                for a in listed:  # the proxy URL names this test server's own (random) port
                    assert a["trackingUrl"] == f"http://{client.host}:{client.port}/proxy/{a['id']}/"
                    a["trackingUrl"] = f"/proxy/{a['id']}/"
                snap = source.latest()
                names = ("metrics", "scheduler", "apps", "nodes", "node_managers")
                return {"status": sub.status, "app_id": app_id, "listed": listed, "end": end} | {
                    name: getattr(snap, name) for name in names
                }

        return asyncio.run(go())

    embedded = Cluster(Configuration(), workload.nodes, seed=3, latency_ms=1)
    embedded.submit_workload(workload)
    expected = scenario(embedded, LiveSource(embedded), drive)
    cluster = Cluster(Configuration(), workload.nodes, seed=3, backend="ray", address=ray_cluster, latency_ms=1)
    cluster.submit_workload(workload)
    try:
        got = scenario(cluster, ShardedSource(cluster), drive_sharded)
        finished = cluster.finished()
    finally:
        cluster.close()
    app = next(a for a in got["listed"] if a["id"] == got["app_id"])
    assert got["status"] == 202 and (app["state"], app["finalStatus"]) == ("FINISHED", "SUCCEEDED")
    assert finished and len(got["listed"]) == 4
    assert got == expected


def test_live_ray_run_serves_while_its_hosts_start_and_takes_a_submission(ray_cluster: str) -> None:
    """A served live run answers before its Ray hosts are up (clusterInfo haState INITIALIZING, no nodes, the web UI
    saying it is starting), then from the hosts (ACTIVE); a distributed shell submitted through POST /apps runs on a
    host and reaches FINISHED, shown in /apps."""
    from tests.test_web_submit import context, ds_command

    cluster = live_cluster(ray_cluster)

    async def scenario(client: TestClient, source: ShardedSource) -> dict[str, Any]:
        first = (await (await client.get("/ws/v1/cluster/info")).json())["clusterInfo"]
        seen: dict[str, Any] = {"first": first, "hosts_up_then": source.ready}
        seen["nodes_then"] = (await (await client.get("/ws/v1/cluster/nodes")).json())["nodes"]
        seen["page_then"] = await (await client.get("/cluster")).text()
        await poll(client, "/ws/v1/cluster/info", lambda b: b["clusterInfo"]["haState"] == "ACTIVE", "the hosts")
        me = {"user.name": "alice"}
        app_id = (await (await client.post(f"{APPS}/new-application", params=me)).json())["application-id"]
        sub = await client.post(APPS, params=me, json=context(app_id, ds_command(1, 0.5)))
        seen["submit"] = sub.status
        seen["app"] = (
            await poll(client, f"{APPS}/{app_id}", lambda b: b["app"]["state"] == "FINISHED", "the shell to finish")
        )["app"]
        running = await poll(
            client, APPS, lambda b: any(a["name"] == "long" for a in b["apps"].get("app", [])), "the long app"
        )
        long_app = next(a for a in running["apps"]["app"] if a["name"] == "long")
        kill = {"state": "KILLED"}
        await client.put(f"{APPS}/{long_app['id']}/state", params={"user.name": long_app["user"]}, json=kill)
        return seen

    try:
        seen, end, final = serve_live(cluster, scenario)
    finally:
        cluster.close()
    assert (seen["first"]["state"], seen["first"]["haState"]) == ("STARTED", "INITIALIZING")
    assert seen["hosts_up_then"] is False and seen["nodes_then"] == {}
    assert "The cluster is starting" in seen["page_then"]
    assert seen["submit"] == 202
    assert (seen["app"]["finalStatus"], seen["app"]["user"]) == ("SUCCEEDED", "alice")
    assert {a["name"]: a["state"] for a in final["apps"]}["ds-rest"] == "FINISHED"
    assert end < 120_000


def test_cli_ray_report_is_the_embedded_report(ray_cluster: str, tmp_path: Path) -> None:
    """`simulate --backend ray --report` writes report.html and cluster-state.json at the end as the embedded run
    does: byte for byte the embedded run's but for the wall seconds; `yarnball report` on either output directory
    (with or without cluster-state.json) gives the same page for both."""
    import re
    import shutil

    from tests.web_helpers import NODES, TRACE
    from yarnball.launcher import cli

    def simulate(name: str, *extra: str) -> Path:
        out = tmp_path / name / "out"
        argv = ["simulate", "--tracelocation", str(TRACE), "--nodes", str(NODES), "--output-dir", str(out)]
        argv += ["--no-progress", "--report", "--latency-ms", "1", *extra]
        paths = [str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
        done = subprocess.run(
            [sys.executable, "-m", "yarnball.launcher", *argv], capture_output=True, text=True, env=env, timeout=600
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return out

    def page(out: Path) -> str:  # the one line that differs between any two runs
        html = (out / "report.html").read_text(encoding="utf-8")
        return re.sub(r"(<td>Wall seconds</td><td[^>]*>)[^<]*", r"\1", html)

    embedded = simulate("embedded")
    ray = simulate("ray", "--backend", "ray", "--hosts", "2", "--address", ray_cluster)
    assert (ray / "cluster-state.json").read_bytes() == (embedded / "cluster-state.json").read_bytes()
    assert "Wall seconds" in page(ray) and page(ray) == page(embedded)
    for out in (embedded, ray):  # `yarnball report` on the directory
        written = page(out)
        assert cli.main(["report", str(out)]) == 0 and page(out) == written
        bare = out.parent / "bare" / "out"
        shutil.copytree(out, bare)
        (bare / "cluster-state.json").unlink()
        assert cli.main(["report", str(bare)]) == 0
    assert page(ray.parent / "bare" / "out") == page(embedded.parent / "bare" / "out")
