"""Serving a cluster on shard hosts (virtual time, the in-process backend: the Ray backend's logic without Ray):
the REST view assembled from the hosts equals the embedded cluster's, the run served in slices of windows is the run
``cluster.run`` makes (also when it runs out of events), writes reach the RM on host 0, the server answers while the
hosts start, and the run report equals the embedded one. Submissions: tests/test_web_sharded_submit.py. The Ray and
live-mode lane is tests/test_web_ray.py."""

from __future__ import annotations

import asyncio
import itertools
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient, TestServer

from tests.web_helpers import NODES, TRACE
from yarnball.errors import SimulationError
from yarnball.launcher import Cluster, _sharded
from yarnball.launcher._sharded import InProcessHosts
from yarnball.launcher.web._driver import SLICE_WALL_S, LiveSource, drive
from yarnball.launcher.web._server import build_app, serve_cluster
from yarnball.launcher.web._shardsource import ShardedSource, drive_sharded
from yarnball.launcher.web._snapshot import take_snapshot
from yarnball.launcher.workloads import TraceDefaults, WorkloadBuilder, load_workload, task_spec
from yarnball.protocols import Configuration, YarnApplicationState

APPS = "/ws/v1/cluster/apps"
OUTPUTS = ("jobruntime.csv", "realtimetrack.json", "metrics/cluster.csv", "metrics/queues.csv", "summary.json")
SECTIONS = ("cluster_info", "metrics", "scheduler", "apps", "attempts", "nodes", "node_managers")


def bundled(backend: str = "inprocess", conf: Configuration | None = None) -> Cluster:
    """The bundled trace, seed 0, latency 1 ms (the sharded backends' default), on ``backend`` (2 hosts if sharded)."""
    conf = conf if conf is not None else Configuration()
    workload = load_workload("SLS", str(TRACE), str(NODES), TraceDefaults.from_configuration(conf), 0)
    extra: dict[str, Any] = {} if backend == "embedded" else {"backend": backend, "hosts": 2}
    cluster = Cluster(conf, workload.nodes, seed=0, latency_ms=1, **extra)
    cluster.submit_workload(workload)
    return cluster


def fixed_slices() -> Any:
    """A wall clock under which every slice "takes" SLICE_WALL_S: 1 s slices, no real clock involved."""
    ticks = itertools.count()
    return lambda: next(ticks) * SLICE_WALL_S


@pytest.mark.parametrize("until_ms", [60_000, None])
def test_rest_view_from_the_hosts_equals_the_embedded_one(until_ms: float | None) -> None:
    """Every section the hosts compute (host 0's RM sections, each host's NM views) equals the embedded cluster's
    snapshot at the same moment of the same run: mid-run with containers on the NMs, and at the end."""
    embedded = bundled("embedded")
    embedded.run(until_ms=until_ms)
    expected = take_snapshot(embedded)
    sharded = bundled()
    source = ShardedSource(sharded)
    end = asyncio.run(drive_sharded(sharded, source, until_ms=until_ms))
    got = source.latest()
    assert end == embedded.now and got.now_ms == expected.now_ms
    for name in SECTIONS:
        assert getattr(got, name) == getattr(expected, name), name
    if until_ms is not None:  # (the mid-run view has work on the NMs of both hosts to compare)
        assert sum(len(v["containers"]) for v in got.node_managers.values()) > 0


def test_web_ui_pages_from_the_hosts_are_the_embedded_pages() -> None:
    """Every web UI page and SLS's metrics record, drawn from the hosts' sections, is the page the embedded server
    draws at the same moment of the same run, byte for byte."""
    embedded = bundled("embedded")
    sharded = bundled()
    embedded_source, sharded_source = LiveSource(embedded), ShardedSource(sharded)
    app_id = "application_1700000000000_0007"
    pages = ["/cluster", "/cluster/apps", "/cluster/apps/RUNNING", f"/cluster/app/{app_id}", "/cluster/scheduler"]
    pages += ["/cluster/nodes", "/simulateMetrics", f"/ws/v1/cluster/apps/{app_id}/appattempts", "/ws/v1/cluster"]

    async def fetch(source: Any) -> list[tuple[int, str]]:
        async with TestClient(TestServer(build_app(source))) as client:
            return [((r := await client.get(page)).status, await r.text()) for page in pages]

    async def go() -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
        await drive(embedded, embedded_source, until_ms=60_000)
        await drive_sharded(sharded, sharded_source, until_ms=60_000)
        return await fetch(embedded_source), await fetch(sharded_source)

    expected, got = asyncio.run(go())
    assert [status for status, _ in got] == [200] * len(pages)
    assert got == expected


def test_served_run_is_the_run_cluster_run_makes() -> None:
    """Driving the shard hosts in slices of windows, with requests between them, processes the same events on
    every host and finishes every application at the same time as one ``run()``."""
    plain = bundled()
    plain.run()
    served = bundled()
    source = ShardedSource(served)

    async def go() -> int:
        async with TestClient(TestServer(build_app(source))) as client:
            run = asyncio.ensure_future(drive_sharded(served, source, wall_clock=fixed_slices()))
            answers = 0
            while not run.done():
                assert (await client.get("/ws/v1/cluster/metrics")).status == 200
                answers += 1
            await run
            return answers

    answers = asyncio.run(go())
    assert answers > 10 and source.generation > 10  # requests were answered between many slices
    assert served.now == plain.now
    assert [s["events"] for s in served.host_stats()] == [s["events"] for s in plain.host_stats()]
    assert [(a.application_id, a.state, a.finish_time) for a in served.applications] == [
        (a.application_id, a.state, a.finish_time) for a in plain.applications
    ]


def test_served_run_writes_the_outputs_of_the_plain_run(tmp_path: Path) -> None:
    """The outputs (host 0's metrics sampled in its kernel, the job runtimes) of a sharded run served in slices
    are byte for byte those of the same run without serving."""

    def outputs(name: str, serve: bool) -> dict[str, bytes]:
        cluster = bundled()
        cluster.record_metrics(1000)  # type: ignore[attr-defined]
        if serve:
            asyncio.run(drive_sharded(cluster, ShardedSource(cluster), wall_clock=fixed_slices()))
        else:
            cluster.run()
        cluster.write_outputs(tmp_path / name, wall_seconds=0.0, plots=False)  # type: ignore[attr-defined]
        return {f: (tmp_path / name / f).read_bytes() for f in OUTPUTS}

    assert outputs("served", True) == outputs("plain", False)


def test_kill_reaches_the_rm_on_host_0_while_the_run_goes_on() -> None:
    """A kill sent while the slices run is a message to the RM on host 0, answered 202 after the slice that
    delivers it; the application ends KILLED with ClientRMService's diagnostics and the run goes on to its end."""
    cluster = bundled()
    source = ShardedSource(cluster)
    app_id = "application_1700000000000_0007"  # the trace's longest job (user3's, ends at 58.98 s)

    async def go() -> tuple[int, dict[str, Any], dict[str, Any]]:
        async with TestClient(TestServer(build_app(source))) as client:
            await drive_sharded(cluster, source, until_ms=5000)
            before = (await (await client.get(f"{APPS}/{app_id}")).json())["app"]
            run = asyncio.ensure_future(drive_sharded(cluster, source, wall_clock=fixed_slices()))
            await asyncio.sleep(0)  # the driver starts its slices
            r = await client.put(f"{APPS}/{app_id}/state", params={"user.name": "someone"}, json={"state": "KILLED"})
            assert not run.done()
            await run
            after = (await (await client.get(f"{APPS}/{app_id}")).json())["app"]
            return r.status, before, after

    status, before, after = asyncio.run(go())
    assert before["state"] == "RUNNING"
    assert status == 202
    assert after["state"] == "KILLED" and after["finalStatus"] == "KILLED"
    assert after["diagnostics"] == f"Application {app_id} was killed by user someone"
    report = next(a for a in cluster.applications if str(a.application_id) == app_id)
    assert report.state is YarnApplicationState.KILLED
    assert cluster.counters["apps_killed"] == 1 and cluster.finished()


def test_refusals_are_remote_exceptions() -> None:
    """A write to a run paused between two drives is answered (the windows that deliver it run, as the embedded
    server runs its kernel); once the run has ended a write is refused (503 YarnException saying so); bad ids are
    400/404 as on the embedded server."""
    cluster = bundled()
    source = ShardedSource(cluster)
    app_id = "application_1700000000000_0007"

    async def go() -> dict[str, tuple[int, dict[str, Any]]]:
        async with TestClient(TestServer(build_app(source))) as client:
            await drive_sharded(cluster, source, until_ms=5000)
            out: dict[str, tuple[int, dict[str, Any]]] = {}

            async def record(name: str, response: Any) -> None:
                out[name] = (response.status, await response.json())

            kill, me = {"state": "KILLED"}, {"user.name": "a"}
            await record("kill-paused", await client.put(f"{APPS}/{app_id}/state", params=me, json=kill))
            await record("killed", await client.get(f"{APPS}/{app_id}"))
            await drive_sharded(cluster, source)
            other = "application_1700000000000_0001"
            await record("kill-ended", await client.put(f"{APPS}/{other}/state", params=me, json=kill))
            await record("bad-app", await client.get(f"{APPS}/application_bad"))
            await record("unknown-app", await client.get(f"{APPS}/application_1700000000000_9999"))
            await record("unknown-node", await client.get("/ws/v1/node/nohost:0/info"))
            await record("bad-node", await client.get("/ws/v1/cluster/nodes/nohost"))
            await record("bad-state", await client.get("/ws/v1/cluster/nodes", params={"states": "BOGUS"}))
            return out

    out = asyncio.run(go())
    assert out["kill-paused"][0] == 202 and out["killed"][1]["app"]["state"] == "KILLED"
    status, body = out["kill-ended"]
    assert status == 503 and body["RemoteException"]["exception"] == "YarnException"
    assert "has ended" in body["RemoteException"]["message"]
    assert [out[k][0] for k in ("bad-app", "unknown-app", "unknown-node", "bad-node", "bad-state")] == [
        400,
        404,
        404,
        400,
        400,
    ]
    assert out["unknown-app"][1]["RemoteException"]["exception"] == "NotFoundException"


def test_serve_cluster_runs_a_sharded_cluster_to_its_end() -> None:
    """``serve_cluster`` (what ``Cluster.serve`` and ``--webapp`` call) takes a sharded cluster: it binds a free port,
    runs the cluster to the same end as ``run()`` and hands the run to ``on_finished``."""
    plain = bundled()
    plain.run()
    cluster = bundled()
    seen: dict[str, Any] = {}
    result = serve_cluster(
        cluster,
        "127.0.0.1",
        0,
        keep_serving=False,
        on_started=lambda url: seen.setdefault("url", url),
        on_finished=lambda wall: seen.setdefault("finished", cluster.finished()),
    )
    assert result.end_ms == plain.now and not result.interrupted
    assert seen["url"] == result.url and seen["url"].startswith("http://127.0.0.1:") and not seen["url"].endswith(":0")
    assert seen["finished"] is True


def test_live_snapshot_is_kept_for_its_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    """In live mode a snapshot (and every section fetched into it) is reused for LIVE_SNAPSHOT_S of wall time, so a
    client polling faster costs the hosts no more copies; after the interval the next request gets a new one."""
    from yarnball.launcher.web import _shardsource

    cluster = bundled()
    calls: list[str] = []
    real_call = cluster.group.call

    def counting_call(index: int, method: str, *args: Any) -> Any:
        calls.append(args[0])
        return real_call(index, method, *args)

    monkeypatch.setattr(cluster.group, "call", counting_call)
    now = [100.0]
    monkeypatch.setattr(_shardsource.time, "monotonic", lambda: now[0])
    source = ShardedSource(cluster)
    source.live = True  # (the in-process backend has no wall clock; the caching is the source's own)
    first = source.latest()
    for _ in range(5):  # five polls within the interval: one snapshot, one host call
        now[0] += _shardsource.LIVE_SNAPSHOT_S / 10
        assert source.latest() is first
        assert "totalMB" in source.latest().metrics
    assert calls == ["sections"]
    now[0] += _shardsource.LIVE_SNAPSHOT_S
    second = source.latest()
    assert second is not first and source.snapshots_taken == 2
    second.metrics  # noqa: B018
    assert calls == ["sections", "sections"]


def test_cli_clock_wall_needs_the_ray_backend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--clock wall` (live mode) without `--backend ray` exits 2 naming both options."""
    from yarnball.launcher import cli

    argv = ["simulate", "--tracelocation", str(TRACE), "--output-dir", str(tmp_path / "o"), "--clock", "wall"]
    assert cli.main(argv) == 2
    assert "--clock wall (live mode) needs --backend ray" in capsys.readouterr().err


def test_host_calls_refuse_what_they_do_not_know() -> None:
    """The web layer's host calls name what they expected: an unknown call, an unknown section, RM sections asked
    of a host without the RM."""
    cluster = bundled()
    group = cluster.group  # type: ignore[attr-defined]
    with pytest.raises(SimulationError, match="unknown web host call 'bogus'; expected sections"):
        group.call(0, "web", "bogus")
    with pytest.raises(SimulationError, match=r"unknown REST view sections \['queues'\]"):
        group.call(0, "web", "sections", ["metrics", "queues"])
    with pytest.raises(SimulationError, match="shard host 1 has no ResourceManager"):
        group.call(1, "web", "sections", ["metrics"])


def test_paced_sharded_run_follows_the_pace_and_ends_as_run() -> None:
    """``pace`` (``--pace X`` with ``--backend ray``) sets each slice's end to X times the wall time since the start,
    and the run still ends as ``run()`` does."""
    plain = bundled()
    plain.run()
    cluster = bundled()
    source = ShardedSource(cluster)
    ticks = itertools.count()
    # Every reading of the fake wall clock adds 0.5 s; a slice reads it three times (its target, its start and end),
    # so slice k ends at 20 x (0.5 + 1.5 (k - 1)) s = 10 s + 30 s (k - 1) of simulated time.
    end = asyncio.run(drive_sharded(cluster, source, pace=20.0, wall_clock=lambda: next(ticks) * 0.5))
    slices = next(k for k in itertools.count(1) if 10_000 + 30_000 * (k - 1) >= plain.now)
    assert end == plain.now
    assert source.generation == slices  # one advance between slices, and the final one
    assert [s["events"] for s in cluster.host_stats()] == [s["events"] for s in plain.host_stats()]


class HeldHosts(InProcessHosts):
    """In-process hosts whose start waits until the test releases it (Ray's seconds of startup, without a clock)."""

    release = threading.Event()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        assert HeldHosts.release.wait(60), "the test never released the hosts"
        super().__init__(*args, **kwargs)


def test_server_answers_while_the_hosts_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """While the shard hosts start (in a thread), the server answers at once as Hadoop's RM between starting its web
    app and becoming active: clusterInfo STARTED/INITIALIZING, no nodes or applications, the configured queue tree,
    the web UI saying the cluster is starting, writes refused with a 503 saying so; once the hosts are up it answers
    from them (ACTIVE) and the run is the one ``run()`` makes."""
    plain = bundled()
    plain.run()
    monkeypatch.setattr(_sharded, "InProcessHosts", HeldHosts)
    HeldHosts.release = threading.Event()
    cluster = bundled()
    source = ShardedSource(cluster)

    async def go() -> dict[str, Any]:
        async with TestClient(TestServer(build_app(source))) as client:
            run = asyncio.ensure_future(drive_sharded(cluster, source, wall_clock=fixed_slices()))
            await asyncio.sleep(0)  # the driver hands the start to its thread, which waits
            seen: dict[str, Any] = {"started": cluster.hosts_started}
            paths = {"info": "/ws/v1/cluster/info", "metrics": "/ws/v1/cluster/metrics", "apps": APPS}
            paths |= {"nodes": "/ws/v1/cluster/nodes", "sched": "/ws/v1/cluster/scheduler"}
            for name, path in paths.items():
                seen[name] = await (await client.get(path)).json()
            seen["page"] = await (await client.get("/cluster")).text()
            new = await client.post(f"{APPS}/new-application", params={"user.name": "a"})
            seen["new"] = (new.status, (await new.json())["RemoteException"])
            seen["still"] = not run.done() and not source.ready
            HeldHosts.release.set()
            await run
            seen["info_after"] = await (await client.get("/ws/v1/cluster/info")).json()
            seen["sched_after"] = await (await client.get("/ws/v1/cluster/scheduler")).json()
            return seen

    seen = asyncio.run(go())
    assert seen["started"] is False and seen["still"]
    info = seen["info"]["clusterInfo"]
    assert (info["state"], info["haState"]) == ("STARTED", "INITIALIZING")
    assert seen["info_after"]["clusterInfo"]["haState"] == "ACTIVE"
    assert set(info) == set(seen["info_after"]["clusterInfo"])  # the same ClusterInfo shape
    metrics = seen["metrics"]["clusterMetrics"]
    assert metrics["totalNodes"] == metrics["totalMB"] == metrics["appsSubmitted"] == 0
    assert seen["apps"] == {"apps": {}} and seen["nodes"] == {"nodes": {}}

    def queue_names(body: dict[str, Any]) -> list[str]:
        return [q["queueName"] for q in body["scheduler"]["schedulerInfo"]["queues"]["queue"]]

    assert queue_names(seen["sched"]) == queue_names(seen["sched_after"]) == ["default"]
    assert "The cluster is starting" in seen["page"] and "INITIALIZING" in seen["page"]
    status, error = seen["new"]
    assert status == 503 and error["exception"] == "YarnException" and "starting" in error["message"]
    assert cluster.now == plain.now
    assert [s["events"] for s in cluster.host_stats()] == [s["events"] for s in plain.host_stats()]


def stuck_cluster() -> Cluster:
    """One node too small for the AM container of its only application (2 hosts, 1 ms): it never starts."""
    workload = WorkloadBuilder().nodes(1, memory_mb=1024, vcores=1)
    workload.job("stuck", submit_ms=0, tasks=[task_spec(1, 1000)], am_memory_mb=2048)
    built = workload.build()
    cluster = Cluster(Configuration(), built.nodes, seed=0, latency_ms=1, backend="inprocess", hosts=2)
    cluster.submit_workload(built)
    cluster.record_metrics(1000)  # type: ignore[attr-defined]
    return cluster


def test_served_run_with_an_unfinished_application_ends_where_run_does(tmp_path: Path) -> None:
    """A run whose application can never start does not run out of events (the RM's liveness monitors tick every
    expiry/3, as Hadoop's AbstractLivenessMonitor), so it ends at ``until_ms``; served in slices of windows it ends
    there too, with the outputs of the unserved run, byte for byte."""

    def outputs(name: str, serve: bool) -> dict[str, bytes]:
        cluster = stuck_cluster()
        if serve:
            source = ShardedSource(cluster)
            end = asyncio.run(drive_sharded(cluster, source, until_ms=250_000, wall_clock=fixed_slices()))
            assert source.generation > 100  # (1 s slices: served between many of them)
        else:
            end = cluster.run(until_ms=250_000)
        assert end == cluster.now == 250_000 and not cluster.finished() and not cluster.idle()  # type: ignore[attr-defined]
        (report,) = cluster.applications
        assert report.state is YarnApplicationState.ACCEPTED
        cluster.write_outputs(tmp_path / name, wall_seconds=0.0, plots=False)  # type: ignore[attr-defined]
        return {f: (tmp_path / name / f).read_bytes() for f in OUTPUTS}

    assert outputs("served", True) == outputs("plain", False)


def test_report_of_a_sharded_run_is_the_embedded_report(tmp_path: Path) -> None:
    """``write_state`` reads a sharded cluster's final REST answers from its hosts, so the run report
    (cluster-state.json and report.html) of a sharded run is byte for byte the embedded run's, as its outputs are."""
    from yarnball.launcher._outputs import MetricsRecorder, write_outputs
    from yarnball.launcher.web.report import write_report, write_state

    def report(backend: str) -> tuple[bytes, bytes]:
        cluster = bundled(backend)
        out = tmp_path / backend / "run"  # (the page's title names the directory)
        if backend == "embedded":
            recorder = MetricsRecorder(cluster, 1000)
            recorder.start()
            cluster.run()
            write_outputs(out, cluster, recorder, wall_seconds=0.0, seed=0, plots=False)
        else:
            cluster.record_metrics(1000)  # type: ignore[attr-defined]
            cluster.run()
            cluster.write_outputs(out, wall_seconds=0.0, plots=False)  # type: ignore[attr-defined]
        write_state(out, cluster)
        write_report(out)
        return (out / "cluster-state.json").read_bytes(), (out / "report.html").read_bytes()

    sharded = report("inprocess")
    assert b'id="nodes"' in sharded[1]
    assert sharded == report("embedded")
