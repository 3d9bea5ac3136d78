"""Embedded and sharded runs agree when NM heartbeats coincide with other events of the same simulated time."""

from __future__ import annotations

from pathlib import Path

import pytest

from yarnball.actors._heartbeats import HEARTBEAT, HeartbeatClock
from yarnball.actors._kernel import Kernel
from yarnball.actors._logging import close_logging, configure_logging, merge_event_logs
from yarnball.launcher import Cluster
from yarnball.launcher._sharded import ShardedBackend
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import Configuration
from yarnball.testing import captured_events

INTERVAL_MS = 1000  # yarn.resourcemanager.nodemanagers.heartbeat-interval-ms default
LATENCY_MS = 500  # a divisor of the interval: replies land on phase points too


def coinciding(backend: str, latency_ms: float = LATENCY_MS) -> Cluster:
    """Nodes defined in an order unlike their start order; start delays, submit times and task durations multiples
    of the latency (a divisor of the heartbeat interval), so heartbeats tie with AM heartbeats, container
    completions and message deliveries."""
    builder = WorkloadBuilder().nodes(6, memory_mb=4096, vcores=4)
    for i in range(5):
        builder.job(
            f"j{i}",
            submit_ms=i * INTERVAL_MS,
            tasks=[task_spec(4, LATENCY_MS), task_spec(3, (i + 1) * INTERVAL_MS - LATENCY_MS)],
        )
    workload = builder.build()
    extra = {} if backend == "embedded" else {"hosts": 2}
    cluster = Cluster(Configuration(), seed=5, backend=backend, latency_ms=latency_ms, **extra)
    # Later-defined nodes start first: definition order and registration order disagree.
    for i, spec in enumerate(workload.nodes):
        cluster.add_node(spec, start_delay_ms=(len(workload.nodes) - i) % 3 * INTERVAL_MS + i % 2 * latency_ms)
    cluster.submit_workload(workload)
    return cluster


def run_logged(cluster: Cluster, path: Path, *, event_keys: bool = False) -> None:
    configure_logging(json_path=path, level="debug", event_keys=event_keys)
    try:
        cluster.run(until_ms=3_600_000)
    finally:
        close_logging()


def test_coinciding_heartbeats_give_byte_identical_event_logs(tmp_path: Path) -> None:
    """With same-time heartbeats, AM heartbeats and deliveries, two shard hosts log exactly the embedded events."""
    embedded = coinciding("embedded")
    run_logged(embedded, tmp_path / "embedded.jsonl")
    sharded = coinciding("inprocess")
    run_logged(sharded, tmp_path / "raw.jsonl", event_keys=True)
    assert isinstance(sharded.runtime, ShardedBackend)
    stop_key = sharded._query("stop_key")
    merge_event_logs([tmp_path / "raw.jsonl"], tmp_path / "merged.jsonl", stop_key=stop_key, presorted=False)
    expected = (tmp_path / "embedded.jsonl").read_bytes()
    assert expected.count(b"\n") > 40
    assert (tmp_path / "merged.jsonl").read_bytes() == expected


def outcomes(backends: tuple[str, ...], latency_ms: float) -> list[tuple[object, ...]]:
    results = []
    for backend in backends:
        cluster = coinciding(backend, latency_ms)
        cluster.run(until_ms=3_600_000)
        apps = sorted((str(a.application_id), a.state.value, a.finish_time) for a in cluster.applications)
        results.append((cluster.now, apps, cluster.counters))
        cluster.close()
    return results


@pytest.mark.parametrize("latency_ms", [INTERVAL_MS, LATENCY_MS, 250])
def test_coinciding_heartbeats_give_equal_results(latency_ms: float) -> None:
    """End time, every application's finish time and the RM counters agree embedded vs two shard hosts."""
    embedded, sharded = outcomes(("embedded", "inprocess"), latency_ms)
    assert sharded == embedded
    assert embedded[2]["apps_finished"] == 5


@pytest.mark.ray
def test_coinciding_heartbeats_give_equal_results_on_ray(ray_cluster: None) -> None:
    """Two Ray shard hosts give the embedded results for the coinciding scenario too."""
    with captured_events():
        embedded, ray = outcomes(("embedded", "ray"), LATENCY_MS)
    assert ray == embedded


def test_defined_nodes_take_priorities_in_definition_order() -> None:
    """A node defined before it starts takes its definition index, not its start order."""
    clock = HeartbeatClock(Kernel(), skip=False)
    assert clock.define("b") == 0
    assert clock.define("a") == 1
    assert clock.define("b") == 0  # defining again keeps the index
    assert clock.priority_of("a") == HEARTBEAT + 1
    assert clock.priority_of("unknown") is None
