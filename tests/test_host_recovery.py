"""Shard host recovery (launcher/_hostrecovery.py): a host killed mid-run is rebuilt by replay and the run's outputs
equal a run without the failure; past the recording bound the run stops cleanly, as without recovery."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from tests.test_ray_backend import write_trace
from yarnball.errors import SimulationError
from yarnball.launcher import Cluster, _sharded
from yarnball.launcher._hostrecovery import recovering
from yarnball.launcher.cli import main
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import Configuration, keys
from yarnball.testing import captured_events

#: Every output that is a function of the inputs and the seed (launcher/_outputs.py).
EXACT_OUTPUTS = (
    "events.jsonl",
    "jobruntime.csv",
    "realtimetrack.json",
    "metrics/cluster.csv",
    "metrics/queues.csv",
    "metrics/applications.csv",
)
#: summary.json fields measured on the wall clock.
WALL_FIELDS = ("wall_seconds", "speedup")
#: The ray section's fields measured on the wall clock (the rest count windows, actors, events and messages).
RAY_WALL_FIELDS = ("window_overhead_us_median", "window_overhead_us_mean", "host_busy_fraction", "host_restarts")


def run(
    tmp: Path, name: str, monkeypatch: pytest.MonkeyPatch, *conf: str, kill_at: int | None = None
) -> tuple[Path, int, list[int]]:
    """`yarnball simulate --backend ray --hosts 2` on the small trace; with ``kill_at``, host 1's actor is killed
    with ray.kill after that many windows (from the coordinator's after-window hook). Returns (output dir, exit
    code, the windows at which the kill happened)."""
    out = tmp / name
    killed: list[int] = []
    original = _sharded.ShardedBackend._start

    def start(self: _sharded.ShardedBackend) -> Any:
        group: Any = original(self)
        if kill_at is not None and getattr(group, "after_window", "absent") is None:

            def after_window(windows: int) -> None:
                if windows == kill_at:
                    killed.append(windows)
                    group.kill(1)

            group.after_window = after_window
        return group

    monkeypatch.setattr(_sharded.ShardedBackend, "_start", start)
    argv = ["simulate", "--tracelocation", str(write_trace(tmp / "trace.json")), "--output-dir", str(out)]
    argv += ["--seed", "7", "--latency-ms", "1", "--no-plots", "--no-progress", "--log-level", "debug"]
    argv += ["--backend", "ray", "--hosts", "2"]
    for item in conf:
        argv += ["--conf", item]
    code = main(argv)
    monkeypatch.setattr(_sharded.ShardedBackend, "_start", original)
    return out, code, killed


def summary(out: Path) -> dict[str, Any]:
    data = json.loads((out / "summary.json").read_text())
    for key in WALL_FIELDS:
        data.pop(key, None)
    for key in RAY_WALL_FIELDS:
        data["ray"].pop(key, None)
    for host in data["ray"]["per_host"]:
        host.pop("busy_fraction", None)
    return data  # type: ignore[no-any-return]


@pytest.mark.ray
@pytest.mark.parametrize("compile_after", ["-1", "0"], ids=["plain-calls", "compiled-graph"])
def test_host_killed_mid_run_is_rebuilt_and_outputs_equal_a_run_without_failure(
    ray_cluster: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compile_after: str
) -> None:
    """ray.kill on host 1 after 300 windows: the run completes (exit 0), host_restarts is 1, and events.jsonl,
    jobruntime.csv, the metrics and summary.json (wall-clock fields aside) equal the run without the kill."""
    conf = f"{keys.RAY_COMPILED_GRAPH_AFTER_WINDOWS}={compile_after}"
    base, code, _ = run(tmp_path, "base", monkeypatch, conf)
    assert code == 0
    failed, code, killed = run(tmp_path, "failed", monkeypatch, conf, kill_at=300)
    assert killed == [300]
    assert code == 0
    restarted = json.loads((failed / "summary.json").read_text())["ray"]
    assert restarted["host_restarts"] == 1
    assert json.loads((base / "summary.json").read_text())["ray"]["host_restarts"] == 0
    assert restarted["windows"] > 300  # the kill happened mid-run
    assert (base / "jobruntime.csv").read_bytes().count(b"\n") == 4  # header + three finished jobs
    for name in EXACT_OUTPUTS:
        assert (failed / name).read_bytes() == (base / name).read_bytes(), f"{name} differs after the recovery"
    assert summary(failed) == summary(base)
    assert not list(failed.glob("events.jsonl.host*"))


@pytest.mark.ray
def test_host_death_past_the_recording_bound_stops_the_run_cleanly(
    ray_cluster: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the recording bounded at 10 kB, a host killed after 300 windows cannot be rebuilt: the CLI exits 2 with
    one error naming the dead host and the bound, and host 0's outputs so far are written."""
    conf = f"{keys.RAY_HOST_RECOVERY_MAX_BYTES}=10000"
    out, code, killed = run(tmp_path, "bounded", monkeypatch, conf, kill_at=300)
    assert killed == [300]
    assert code == 2
    err = capsys.readouterr().err
    assert "shard host 1 of 2 died" in err
    assert f"the host cannot be rebuilt: the recording passed {keys.RAY_HOST_RECOVERY_MAX_BYTES}=10000 bytes" in err
    assert (out / "metrics" / "cluster.csv").is_file()
    assert (out / "events.jsonl").stat().st_size > 0


def test_a_bad_recording_bound_is_an_error_naming_the_key() -> None:
    bad = Configuration({keys.RAY_HOST_RECOVERY_MAX_BYTES: "-1"})
    with pytest.raises(SimulationError, match=f"{keys.RAY_HOST_RECOVERY_MAX_BYTES} must be >= 0 bytes, got -1"):
        recovering(_sharded.InProcessHosts(0, bad, {}), bad)


@pytest.mark.ray
def test_host_killed_between_runs_is_rebuilt_with_the_same_state(ray_cluster: None) -> None:
    """Cluster API: host 1 killed between two run() calls (after 5 s) is rebuilt when the next run finds it dead;
    the applications, RM counters and every host's events and messages equal an unbroken run's."""
    builder = WorkloadBuilder().nodes(6, memory_mb=8192, vcores=8)
    builder.job("long", tasks=[task_spec(4, 120_000)])
    builder.job("short", tasks=[task_spec(3, 10_000)], submit_ms=2_000)
    workload = builder.build()

    def outcome(kill: bool) -> tuple[Any, ...]:
        cluster = Cluster(Configuration(), workload.nodes, seed=1, backend="ray", hosts=2, latency_ms=50)
        cluster.submit_workload(workload)
        try:
            with captured_events():
                cluster.run(until_ms=5_000)
                if kill:
                    cluster.kill_host(1)  # type: ignore[attr-defined]
                cluster.run(until_ms=40_000)
                stats = cluster.window_stats()  # type: ignore[attr-defined]
            return cluster.applications, cluster.counters, cluster.host_stats(), stats["host_restarts"]  # type: ignore[attr-defined]
        finally:
            cluster.close()

    *killed, restarts = outcome(True)
    *expected, none = outcome(False)
    assert (restarts, none) == (1, 0)
    assert killed == expected
    assert sum(s["messages_in"] for s in expected[2]) > 0


class KillableHosts(_sharded.InProcessHosts):
    """In-process hosts that can die like a Ray actor: a dead host's calls raise SimulationError and it is named
    in ``dead``; ``replace`` builds a fresh one (what RayHosts does with a new actor)."""

    def __init__(self, hosts: int, conf: Configuration, options: dict[str, Any]) -> None:
        super().__init__(hosts, conf, options)
        self.conf, self.options = conf, options
        self.dead: set[int] = set()

    def kill(self, index: int) -> None:
        self.dead.add(index)

    def replace(self, index: int) -> None:
        self.views[index] = _sharded.HostView(index, self.size, self.conf, self.options)
        self.dead.discard(index)

    def run_window(self, end: Any, inclusive: bool, inbound: Any, active: list[bool]) -> Any:
        alive = [a and i not in self.dead for i, a in enumerate(active)]
        results = super().run_window(end, inclusive, inbound, alive)  # the survivors run their part, as on Ray
        if alive != active:
            raise SimulationError(f"shard host {min(self.dead)} of {self.size} died")
        return results

    def call(self, index: int, method: str, *args: Any) -> Any:
        if index in self.dead:
            raise SimulationError(f"shard host {index} of {self.size} died")
        return super().call(index, method, *pickle.loads(pickle.dumps(args)))  # copied, as Ray would


def inprocess_outcome(kill_at: int | None, victim: int = 2, tamper: bool = False) -> tuple[Any, ...]:
    """A 3-host in-process run with host ``victim`` killed after ``kill_at`` windows; ``tamper`` corrupts its first
    recorded window digest before the kill (so the replay cannot match it)."""
    from yarnball.launcher._hostrecovery import RecoveringHosts

    builder = WorkloadBuilder().nodes(8, memory_mb=8192, vcores=8)
    builder.job("long", tasks=[task_spec(6, 30_000)])
    builder.job("short", tasks=[task_spec(3, 8_000)], submit_ms=1_500)
    workload = builder.build()
    cluster = Cluster(Configuration(), workload.nodes, seed=3, backend="inprocess", hosts=3, latency_ms=20)
    cluster.submit_workload(workload)
    options = {"cluster_timestamp": cluster.cluster_timestamp, "latency_ms": 20.0, "placement": {}}  # type: ignore[attr-defined]
    group = RecoveringHosts(KillableHosts(3, cluster.conf, options), 1 << 30)
    cluster._group = group  # type: ignore[attr-defined]

    def after_window(windows: int) -> None:
        if windows == kill_at:
            if tamper:
                ops = group.ops[victim]  # type: ignore[index]
                index = next(i for i, op in enumerate(ops) if op[0] == "window")
                ops[index] = (*ops[index][:4], b"\0" * 16)
            group.kill(victim)

    group.after_window = after_window
    with captured_events():
        cluster.run()
        assert kill_at is None or cluster.windows > kill_at  # type: ignore[attr-defined]
        return cluster.applications, cluster.counters, cluster.host_stats(), group.host_restarts


@pytest.mark.parametrize("victim", [0, 2], ids=["rm-host", "nm-host"])
def test_inprocess_host_killed_mid_run_is_rebuilt_by_replay(victim: int) -> None:
    """Without Ray: host 0 (the RM's) or 2 of 3 killed after 200 windows is rebuilt by replay; applications, RM
    counters and every host's actors, events and messages equal the unbroken run's."""
    *killed, restarts = inprocess_outcome(200, victim)
    *expected, none = inprocess_outcome(None)
    assert (restarts, none) == (1, 0)
    assert killed == expected
    assert expected[2][2]["messages_in"] > 0


def test_a_replay_that_differs_from_the_recording_stops_the_run() -> None:
    """A rebuilt host whose replayed batches differ from the recorded digests cannot stand in for the dead one:
    the run stops with a SimulationError naming the host and the operation."""
    with pytest.raises(SimulationError, match="rebuilt shard host 2 sent different batches than the first time"):
        inprocess_outcome(200, tamper=True)


def test_the_recovering_group_shows_the_inner_groups_attributes() -> None:
    """What the coordinator reads from its group (compiled, local, ...) is the wrapped group's."""
    from yarnball.launcher._hostrecovery import RecoveringHosts

    inner = _sharded.InProcessHosts(0, Configuration(), {})
    inner.compiled = True  # type: ignore[attr-defined]
    group = RecoveringHosts(inner, 0)
    assert group.compiled is True
    with pytest.raises(AttributeError):
        group.no_such_attribute  # noqa: B018
