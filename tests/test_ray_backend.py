"""The Ray backend: same outputs as embedded for one seed, a dead shard host, and logging inside the workers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from yarnball.actors._appmaster import ApplicationMaster
from yarnball.errors import SimulationError
from yarnball.launcher import Cluster
from yarnball.launcher._shard import host_of
from yarnball.launcher.cli import main
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import Configuration, keys
from yarnball.testing import captured_events

pytestmark = pytest.mark.ray

DETERMINISTIC_OUTPUTS = (
    "events.jsonl",
    "jobruntime.csv",
    "realtimetrack.json",
    "metrics/cluster.csv",
    "metrics/queues.csv",
    "metrics/applications.csv",
    "metrics/scheduler_ops.csv",
)


def write_trace(path: Path) -> Path:
    """A small SLS trace: three MapReduce jobs on four nodes, about 40 simulated seconds."""
    jobs = []
    for j in range(3):
        start = j * 4000
        tasks = [
            {
                "container.host": f"/default-rack/node{1 + (t % 4)}",
                "container.start.ms": start + 1000,
                "container.end.ms": start + 1000 + 15_000 + 1000 * t,
                "container.priority": 20,
                "container.type": "map" if t < 3 else "reduce",
            }
            for t in range(4)
        ]
        jobs.append(
            {
                "am.type": "mapreduce",
                "job.start.ms": start,
                "job.end.ms": start + 30_000,
                "job.queue.name": "default",
                "job.id": f"job_{j + 1}",
                "job.user": "default",
                "job.tasks": tasks,
            }
        )
    path.write_text("\n".join(json.dumps(job) for job in jobs), encoding="utf-8")
    return path


def simulate(trace: Path, out: Path, *extra: str) -> None:
    argv = ["simulate", "--tracelocation", str(trace), "--output-dir", str(out), "--seed", "7"]
    argv += ["--latency-ms", "1", "--no-plots", "--no-progress", "--log-level", "debug", *extra]
    assert main(argv) == 0


def test_golden_outputs_equal_on_embedded_and_ray_with_1_and_2_hosts(ray_cluster: None, tmp_path: Path) -> None:
    """One seed: embedded, 1 Ray host and 2 Ray hosts write byte-identical event logs and results files."""
    trace = write_trace(tmp_path / "trace.json")
    simulate(trace, tmp_path / "embedded")
    simulate(trace, tmp_path / "ray1", "--backend", "ray", "--hosts", "1")
    simulate(trace, tmp_path / "ray2", "--backend", "ray", "--hosts", "2")
    expected = {name: (tmp_path / "embedded" / name).read_bytes() for name in DETERMINISTIC_OUTPUTS}
    assert expected["jobruntime.csv"].count(b"\n") == 4  # header + three finished jobs
    assert expected["events.jsonl"].count(b"\n") > 20
    for run in ("ray1", "ray2"):
        for name in DETERMINISTIC_OUTPUTS:
            assert (tmp_path / run / name).read_bytes() == expected[name], f"{run}/{name} differs from embedded"
        summary = json.loads((tmp_path / run / "summary.json").read_text())
        base = json.loads((tmp_path / "embedded" / "summary.json").read_text())
        for key in ("applications", "containers", "utilization", "simulated_seconds", "outputs"):
            assert summary[key] == base[key]
    assert not list((tmp_path / "ray2").glob("events.jsonl.host*"))  # the host parts were merged away


#: Host recovery off (launcher/_hostrecovery.py): a dead host stops the run.
NO_RECOVERY = {keys.RAY_HOST_RECOVERY_MAX_BYTES: "0"}


def test_dead_shard_host_stops_the_run_with_an_error_naming_it(ray_cluster: None) -> None:
    """With host recovery off, killing shard host 1 mid-run makes the next run raise SimulationError naming host 1."""
    builder = WorkloadBuilder().nodes(6, memory_mb=8192, vcores=8)
    builder.job("long", tasks=[task_spec(4, 120_000)])
    workload = builder.build()
    cluster = Cluster(Configuration(NO_RECOVERY), workload.nodes, seed=1, backend="ray", hosts=2, latency_ms=50)
    cluster.submit_workload(workload)
    try:
        with captured_events():
            cluster.run(until_ms=5_000)
            cluster.kill_host(1)  # type: ignore[attr-defined]
            with pytest.raises(SimulationError, match=r"shard host 1 of 2 died.*recovery is off"):
                cluster.run(until_ms=60_000)
    finally:
        cluster.close()


def test_cli_with_dead_host_exits_2_and_keeps_outputs_so_far(ray_cluster: None, tmp_path: Path) -> None:
    """A host dying under `yarnball simulate --backend ray` is a one-line error; host 0's outputs are written."""
    from yarnball.launcher import _sharded

    original = _sharded.ShardedBackend._windows
    calls = {"n": 0}

    def kill_after_some_windows(self: _sharded.ShardedBackend, *args: object) -> float:
        group = self._start()
        real_run_window = group.run_window

        def run_window(*a: object) -> object:
            calls["n"] += 1
            if calls["n"] == 50:
                group.kill(1)  # type: ignore[attr-defined]
            return real_run_window(*a)  # type: ignore[arg-type]

        group.run_window = run_window  # type: ignore[method-assign]
        return original(self, *args)  # type: ignore[arg-type]

    _sharded.ShardedBackend._windows = kill_after_some_windows  # type: ignore[method-assign]
    try:
        trace = write_trace(tmp_path / "trace.json")
        argv = ["simulate", "--tracelocation", str(trace), "--output-dir", str(tmp_path / "out"), "--no-progress"]
        argv += ["--conf", f"{keys.RAY_HOST_RECOVERY_MAX_BYTES}=0"]  # recovery off
        assert main([*argv, "--backend", "ray", "--hosts", "2", "--no-plots"]) == 2
    finally:
        _sharded.ShardedBackend._windows = original  # type: ignore[method-assign]
    assert (tmp_path / "out" / "metrics" / "cluster.csv").is_file()
    assert (tmp_path / "out" / "events.jsonl").stat().st_size > 0


class TalkativeAM(ApplicationMaster):
    """An AM that logs when it registers and then finishes at once."""

    def on_registered(self, response: object) -> None:
        self.log.info("talkative_am_registered")
        self.finish()


def test_every_host_logs_from_its_own_worker(ray_cluster: None, tmp_path: Path) -> None:
    """Logging is configured inside each host's Ray worker: an AM on host 1 and the RM on host 0 both reach the
    merged log."""
    log = tmp_path / "events.jsonl"
    name = next(n for n in (f"talk{i}" for i in range(100)) if host_of(f"am-{n}-0", 2) == 1)
    nodes = WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8).build().nodes
    cluster = Cluster(Configuration(), nodes, seed=2, backend="ray", hosts=2, latency_ms=20, event_log=log)
    cluster.submit(TalkativeAM(name=name))
    cluster.run(until_ms=60_000)
    parts = [Path(f"{log}.host{i}") for i in range(2)]
    assert all(p.stat().st_size > 0 for p in parts)
    cluster.close()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert any(r["event"] == "talkative_am_registered" and r["actor"] == f"am-{name}-0" for r in records)
    assert any(r.get("actor") == "rm" for r in records)


def test_importing_yarnball_and_the_cluster_does_not_import_ray() -> None:
    """Only choosing the Ray backend imports Ray."""
    code = "import sys, yarnball, yarnball.launcher._sharded; print('ray' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_cli_joins_an_existing_ray_cluster_by_address(ray_cluster: str, tmp_path: Path) -> None:
    """`yarnball simulate --backend ray --address <gcs>` in another process joins the session's Ray as a new job and
    writes the embedded run's results."""
    import os

    from ray._private import state  # the GCS job table; ray.util.state needs the dashboard, which is off here

    trace = write_trace(tmp_path / "trace.json")
    simulate(trace, tmp_path / "embedded")
    jobs_before = {job["JobID"] for job in state.jobs()}
    argv = ["simulate", "--tracelocation", str(trace), "--output-dir", str(tmp_path / "joined"), "--seed", "7"]
    argv += ["--latency-ms", "1", "--no-plots", "--no-progress", "--log-level", "debug"]
    argv += ["--backend", "ray", "--hosts", "2", "--address", ray_cluster]
    paths = [str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    done = subprocess.run(
        [sys.executable, "-m", "yarnball.launcher", *argv], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    new_jobs = [job for job in state.jobs() if job["JobID"] not in jobs_before]
    assert len(new_jobs) == 1 and new_jobs[0]["IsDead"]  # it ran as a driver of this cluster and left
    for name in DETERMINISTIC_OUTPUTS:
        assert (tmp_path / "joined" / name).read_bytes() == (tmp_path / "embedded" / name).read_bytes(), name


def compiled_conf(after_windows: int) -> Configuration:
    return Configuration({keys.RAY_COMPILED_GRAPH_AFTER_WINDOWS: str(after_windows)})


def test_compiled_window_loop_gives_the_embedded_results(ray_cluster: None) -> None:
    """Windows driven through a Ray Compiled Graph (from the first window, or after 30 plain ones) end at the
    embedded kernel's time with its applications and counters, and the summary's ray section says so."""
    builder = WorkloadBuilder().nodes(6, memory_mb=8192, vcores=8)
    for i in range(3):
        builder.job(f"j{i}", submit_ms=i * 3000, tasks=[task_spec(5, 20_000 + i * 1000)])
    workload = builder.build()

    def outcome(conf: Configuration, backend: str) -> tuple[object, ...]:
        extra = {} if backend == "embedded" else {"hosts": 2}
        cluster = Cluster(conf, workload.nodes, seed=4, backend=backend, latency_ms=5, **extra)
        cluster.submit_workload(workload)
        try:
            with captured_events():
                cluster.run(until_ms=600_000)
            apps = sorted((str(a.application_id), a.state.value, a.finish_time) for a in cluster.applications)
            stats = cluster.window_stats() if backend == "ray" else {}  # type: ignore[attr-defined]
            return (cluster.now, apps, cluster.counters), stats
        finally:
            cluster.close()

    expected, _ = outcome(Configuration(), "embedded")
    for after, in_driver in ((0, True), (30, True), (0, False)):
        conf = compiled_conf(after)
        conf.set(keys.RAY_RM_HOST_IN_DRIVER, str(in_driver).lower())
        got, stats = outcome(conf, "ray")
        assert got == expected, f"compiled after {after} windows, host 0 in the driver: {in_driver}"
        assert stats["compiled_graph"] is True
        assert stats["rm_host_in_driver"] is in_driver
        assert stats["windows"] > 30
        assert stats["cross_host_messages"] > 0
        assert stats["window_overhead_us_median"] > 0
        assert len(stats["per_host"]) == 2 and all(0 < b < 1 for b in stats["host_busy_fraction"])
    _, plain = outcome(compiled_conf(-1), "ray")
    assert plain["compiled_graph"] is False


def test_dead_shard_host_in_the_compiled_loop_is_named(ray_cluster: None) -> None:
    """A host killed while the window loop is compiled, recovery off: the next run raises SimulationError naming
    host 1."""
    builder = WorkloadBuilder().nodes(6, memory_mb=8192, vcores=8)
    builder.job("long", tasks=[task_spec(4, 120_000)])
    workload = builder.build()
    conf = compiled_conf(0)
    conf.set(keys.RAY_HOST_RECOVERY_MAX_BYTES, "0")
    cluster = Cluster(conf, workload.nodes, seed=1, backend="ray", hosts=2, latency_ms=50)
    cluster.submit_workload(workload)
    try:
        with captured_events():
            cluster.run(until_ms=5_000)
            assert cluster.window_stats()["compiled_graph"] is True  # type: ignore[attr-defined]
            cluster.kill_host(1)  # type: ignore[attr-defined]
            with pytest.raises(SimulationError, match="shard host 1 of 2 died"):
                cluster.run(until_ms=60_000)
    finally:
        cluster.close()


def test_ray_summary_reports_the_window_protocol(ray_cluster: None, tmp_path: Path) -> None:
    """`simulate --backend ray --hosts 2` writes ray.windows, the overhead median, busy fractions and the messages
    between hosts into summary.json; the embedded summary has no ray section."""
    trace = write_trace(tmp_path / "trace.json")
    simulate(trace, tmp_path / "embedded")
    simulate(trace, tmp_path / "ray2", "--backend", "ray", "--hosts", "2")
    assert "ray" not in json.loads((tmp_path / "embedded" / "summary.json").read_text())
    ray_stats = json.loads((tmp_path / "ray2" / "summary.json").read_text())["ray"]
    assert ray_stats["windows"] > 100
    assert ray_stats["window_overhead_us_median"] > 0 and ray_stats["window_overhead_us_mean"] > 0
    assert len(ray_stats["host_busy_fraction"]) == 2
    assert ray_stats["cross_host_messages"] > 0
    per_host = ray_stats["per_host"]
    assert sum(h["messages_out"] for h in per_host) == ray_stats["cross_host_messages"]
    assert sum(h["messages_in"] for h in per_host) == ray_stats["cross_host_messages"]
    assert all(h["messages_out_per_window"] > 0 and h["events_per_window"] > 0 for h in per_host)


class FakeCompiledGraph:
    torn_down = False

    def teardown(self) -> None:
        self.torn_down = True


@pytest.mark.parametrize(("compiled_ms", "kept"), [(2.0, False), (0.5, True)])
def test_compiled_loop_is_kept_only_if_its_windows_cost_less_than_plain_calls(compiled_ms: float, kept: bool) -> None:
    """After its trial windows the compiled loop is torn down (and not compiled again) when its mean overhead is
    above the plain calls' before it, and kept when below."""
    from collections import deque

    from yarnball.launcher._ray import TRIAL_WINDOWS, RayHosts

    hosts = RayHosts.__new__(RayHosts)
    graph = FakeCompiledGraph()
    hosts._dag, hosts.compile_after = graph, 1000
    hosts._plain_overheads = deque([0.001] * TRIAL_WINDOWS)
    hosts._compiled_overheads = [compiled_ms / 1000] * TRIAL_WINDOWS
    hosts._judge()
    assert (hosts._dag is graph) is kept
    assert graph.torn_down is not kept
    assert hosts.compile_after == (1000 if kept else -1)


def test_rm_host_in_driver_keeps_the_drivers_logging_and_cannot_be_killed(ray_cluster: None, tmp_path: Path) -> None:
    """Host 0 in the driver's process writes its own event log part through its own logging configuration, swapped
    in around each call: the driver's configuration is the same object before and after, and host 0 cannot be
    killed like an actor."""
    import structlog

    nodes = WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8).build().nodes
    log = tmp_path / "events.jsonl"
    with captured_events():
        before = structlog.get_config()["processors"]
        cluster = Cluster(Configuration(), nodes, seed=2, backend="ray", hosts=2, latency_ms=20, event_log=log)
        cluster.submit(TalkativeAM(name="talk"))
        try:
            cluster.run(until_ms=60_000)
            assert structlog.get_config()["processors"] is before
            assert Path(f"{log}.host0").stat().st_size > 0
            with pytest.raises(SimulationError, match="host 0 runs in the driver"):
                cluster.kill_host(0)  # type: ignore[attr-defined]
        finally:
            cluster.close()
    assert any(json.loads(line).get("actor") == "rm" for line in log.read_text().splitlines())
