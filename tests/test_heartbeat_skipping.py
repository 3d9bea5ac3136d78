"""Skipped heartbeats (yarnball.simulation.skip-idle-heartbeats): results equal a run that processes every heartbeat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from service_spies import spyable_services
from skipping_helpers import TWO_QUEUES, sls_outputs_equal_both_ways

from yarnball.actors._resourcemanager import ResourceManager
from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder, synthetic_workload, task_spec
from yarnball.launcher.workloads._model import Workload
from yarnball.protocols import Configuration, keys
from yarnball.testing import captured_events

SKIP = keys.SIMULATION_SKIP_IDLE_HEARTBEATS

# Files that count scheduler operations (NODE_UPDATE is what skipping saves) or wall-clock costs.


def _run(workload: Workload, skip: bool, props: dict[str, object] | None = None, *, fail: tuple = ()) -> dict:
    """Run ``workload`` and return everything observable: events, allocations, completions, apps and counters."""
    conf = Configuration({**(props or {}), SKIP: "true" if skip else "false"})
    allocations: list[tuple[float, str, str, bool]] = []
    completions: list[tuple[float, str, int, str]] = []
    with spyable_services():  # (on_allocated and container_done are replaced below)
        cluster = Cluster(conf, workload.nodes, seed=3)
    rm = cluster.rm
    on_allocated, container_done = rm.dispatcher.on_allocated, rm.dispatcher.container_done

    def allocated(note: Any) -> None:
        allocations.append((rm.now, note.container.node_id.host, str(note.container.id), note.is_am))
        on_allocated(note)

    def done(cid: Any, status: Any) -> None:
        completions.append((rm.now, str(cid), status.exit_status, status.diagnostics))
        container_done(cid, status)

    rm.dispatcher.on_allocated = allocated  # type: ignore[method-assign]
    rm.dispatcher.container_done = done  # type: ignore[method-assign]
    cluster.submit_workload(workload)
    for host, at_ms in fail:
        cluster.fail_node(host, at_ms)
    with captured_events() as events:
        end = cluster.run(until_ms=3_600_000)
    ops = dict(rm.op_counts)
    apps = cluster.applications
    return {
        "end": end,
        "events": events,
        "allocations": allocations,
        "completions": completions,
        "apps": [(a.application_id, a.state, a.final_status, a.start_time, a.finish_time) for a in apps],
        "counters": dict(rm.counters),
        "ops": {k: v for k, v in ops.items() if k != "NODE_UPDATE"},
        "node_updates": ops.get("NODE_UPDATE", 0),
        "heartbeats": (cluster.heartbeats.real, cluster.heartbeats.virtual_count),
    }


def _assert_same(a: dict, b: dict) -> None:
    for key in ("end", "allocations", "completions", "apps", "counters", "ops", "events"):
        assert a[key] == b[key], key


def _busy() -> Workload:
    return synthetic_workload(60, 40, seed=5, queues=("a", "b"), maps=(1, 30), reduces=(0, 6), load=1.5)


QUEUES = TWO_QUEUES


@pytest.fixture(scope="module")
def busy_runs() -> tuple[dict, dict]:
    workload = _busy()
    return _run(workload, True, QUEUES), _run(workload, False, QUEUES)


def test_busy_synthetic_trace_gives_identical_results(busy_runs: tuple[dict, dict]) -> None:
    """A busy synthetic trace with locality and two queues: allocations, completions, apps and events match."""
    skipped, full = busy_runs
    assert len(full["allocations"]) > 500  # the workload really keeps the scheduler busy
    _assert_same(skipped, full)


def test_skipping_processes_fewer_node_updates(busy_runs: tuple[dict, dict]) -> None:
    """With skipping on, far fewer NODE_UPDATEs reach the scheduler than with every heartbeat processed."""
    skipped, full = busy_runs
    assert skipped["node_updates"] < full["node_updates"] * 0.8
    assert skipped["node_updates"] == sum(skipped["heartbeats"])  # each NODE_UPDATE is one real or virtual beat


def test_every_heartbeat_is_processed_when_switched_off(busy_runs: tuple[dict, dict]) -> None:
    """Switched off, every node heartbeats every second: about nodes x simulated seconds NODE_UPDATEs."""
    _, full = busy_runs
    assert full["heartbeats"][1] == 0
    assert full["node_updates"] >= 40 * (full["end"] / 1000 - 2)


def test_reservations_give_identical_results() -> None:
    """Large asks on small nodes make reservations; results still match with skipping."""
    b = WorkloadBuilder().nodes(6, racks=2, memory_mb=4096, vcores=4)
    for j in range(8):
        tasks = [task_spec(6, 20_000 + 1000 * j, memory_mb=1024), task_spec(2, 15_000, memory_mb=3072, priority=10)]
        b.job(f"job{j}", submit_ms=3000 * j, tasks=tasks, user=f"u{j % 2}")
    skipped, full = _run(b.build(), True), _run(b.build(), False)
    assert full["counters"].get("containers_reserved", 0) > 0
    _assert_same(skipped, full)


def test_locality_requests_give_identical_results() -> None:
    """Node-local asks with delay scheduling (opportunity counters) match with skipping."""
    b = WorkloadBuilder().nodes(8, racks=2, memory_mb=4096, vcores=4)
    for j in range(10):
        tasks = [task_spec(1, 30_000, host=f"/rack{i % 2}/node{i}") for i in range(j % 8, j % 8 + 4)]
        b.job(f"job{j}", submit_ms=2000 * j, tasks=tasks)
    props = {"yarn.scheduler.capacity.node-locality-delay": "3"}
    skipped, full = _run(b.build(), True, props), _run(b.build(), False, props)
    _assert_same(skipped, full)


def test_a_dormant_node_is_not_expired() -> None:
    """An idle NM that stops heartbeating to the RM is still alive: no node is lost over a long idle gap."""
    b = WorkloadBuilder().nodes(3, memory_mb=4096, vcores=4)
    b.job("early", submit_ms=0, tasks=[task_spec(2, 5_000)]).job("late", submit_ms=1_500_000, tasks=[task_spec(2)])
    skipped, full = _run(b.build(), True), _run(b.build(), False)
    assert skipped["counters"].get("nodes_lost", 0) == 0
    assert skipped["heartbeats"][0] + skipped["heartbeats"][1] < full["node_updates"] / 10
    _assert_same(skipped, full)


def test_a_failed_node_expires_at_the_same_time_with_the_same_last_heartbeat() -> None:
    """A node that dies while dormant is lost exactly when, and as, it is in a run without skipping."""
    b = WorkloadBuilder().nodes(4, memory_mb=4096, vcores=4)
    b.job("a", submit_ms=0, tasks=[task_spec(4, 900_000)]).job("b", submit_ms=800_000, tasks=[task_spec(3, 5_000)])
    workload = b.build()
    skipped, full = _run(workload, True, fail=(("node1", 300_500),)), _run(workload, False, fail=(("node1", 300_500),))
    lost = [e for e in full["events"] if e["event"] == "node_lost"]
    assert lost and lost == [e for e in skipped["events"] if e["event"] == "node_lost"]
    _assert_same(skipped, full)


def test_modelled_latency_switches_skipping_off() -> None:
    """With an NM<->RM latency heartbeats are not atomic, so every heartbeat is processed."""
    workload = WorkloadBuilder().nodes(2).job("j", tasks=[task_spec(1, 3_000)]).build()
    cluster = Cluster(Configuration({SKIP: "true"}), workload.nodes, seed=1)
    cluster.kernel.default_latency = 1
    cluster.submit_workload(workload)
    cluster.run()
    assert cluster.heartbeats.skip is False and cluster.heartbeats.virtual_count == 0


def test_a_malformed_switch_names_the_key() -> None:
    """A non-boolean value of the switch is rejected with the key in the message."""
    with pytest.raises(ConfigurationError, match=SKIP):
        Cluster(Configuration({SKIP: "sometimes"}), WorkloadBuilder().nodes(1).build().nodes)


def test_the_switch_defaults_to_on() -> None:
    """Skipping is on unless switched off (keys.DEFAULT_SIMULATION_SKIP_IDLE_HEARTBEATS)."""
    assert keys.DEFAULT_SIMULATION_SKIP_IDLE_HEARTBEATS is True
    assert Cluster(Configuration(), ()).heartbeats.skip is True


def test_needs_heartbeat_is_false_for_a_full_node_and_true_with_cleanup() -> None:
    """The RM's predicate: no room and no cleanup is a no-op; queued cleanup needs the heartbeat."""
    workload = WorkloadBuilder().nodes(1, memory_mb=1024, vcores=1).job("j", tasks=[task_spec(1, 60_000)]).build()
    cluster = Cluster(Configuration(), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run(until_ms=5_000)  # the AM fills the only node; the task waits
    rm: ResourceManager = cluster.rm
    node_id = next(iter(rm.nodes))
    assert cluster.scheduler.has_pending() and not rm.needs_heartbeat(node_id)
    rm.nodes[node_id].queue_app_cleanup(next(iter(rm.apps)))
    assert rm.needs_heartbeat(node_id)


SLS = ("inputsls.json", "SLS"), ("2jobs2min-rumen-jh.json", "RUMEN"), ("syn.json", "SYNTH")


@pytest.mark.parametrize(("trace", "trace_type"), SLS)
def test_sls_samples_give_identical_outputs(
    shared_data: Path, tmp_path: Path, trace: str, trace_type: str, capsys: Any
) -> None:
    """The shared SLS samples through the CLI: every output file is byte-identical with skipping on and off."""
    ops_on, ops_off = sls_outputs_equal_both_ways(shared_data, tmp_path, trace, trace_type, SKIP)
    assert ops_on["NODE_UPDATE"] < ops_off["NODE_UPDATE"]


def _submit_at_a_phase_point(skip: bool) -> list[tuple[float, str]]:
    workload = synthetic_workload(3, 30, seed=2, maps=(5, 10), reduces=(0, 0))
    with spyable_services():  # (on_allocated is replaced below)
        cluster = Cluster(Configuration({SKIP: str(skip).lower()}), workload.nodes, seed=4)
    cluster.run(until_ms=1500)
    beat = max(cluster.heartbeats.beats.values(), key=lambda b: b.priority)
    cluster.run(until_ms=beat.start + 2 * beat.interval)  # stop exactly at a phase point of the last node
    allocations: list[tuple[float, str]] = []
    on_allocated = cluster.rm.dispatcher.on_allocated

    def allocated(note: Any) -> None:
        allocations.append((cluster.now, str(note.container.node_id)))
        on_allocated(note)

    cluster.rm.dispatcher.on_allocated = allocated  # type: ignore[method-assign]
    cluster.submit_workload(workload)
    cluster.run()
    return allocations


def test_submitting_after_a_run_stopped_at_a_phase_point_matches() -> None:
    """Heartbeats at the time a run stopped have happened: asks submitted then are not served at that time again."""
    assert _submit_at_a_phase_point(True) == _submit_at_a_phase_point(False)
