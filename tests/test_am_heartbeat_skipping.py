"""Skipped AM heartbeats (yarnball.simulation.skip-idle-am-heartbeats): results equal sending every allocate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from service_spies import spyable_ams
from skipping_helpers import TWO_QUEUES, sls_outputs_equal_both_ways

from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder, synthetic_workload, task_spec
from yarnball.launcher.workloads._model import Workload
from yarnball.protocols import Configuration, keys
from yarnball.testing import captured_events

AM_SKIP = keys.SIMULATION_SKIP_IDLE_AM_HEARTBEATS
QUEUES = TWO_QUEUES
PREEMPTION = {
    **QUEUES,
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill": "2000",
}


def _run(workload: Workload, skip: bool, props: dict[str, object] | None = None, *, fail: tuple = ()) -> dict:
    """Run ``workload``; return events, every non-empty allocate response, apps, counters and AM-side state."""
    conf = Configuration({**(props or {}), AM_SKIP: "true" if skip else "false"})
    cluster = Cluster(conf, workload.nodes, seed=3)
    rm = cluster.rm
    responses: list[tuple[Any, ...]] = []
    serve = spyable_ams(rm).serve_allocate

    def served(msg: Any) -> Any:
        r = serve(msg)
        if r.allocated_containers or r.completed_container_statuses or r.preemption_message or r.am_command:
            responses.append((rm.now, str(msg.application_attempt_id), r.response_id, repr(r)))
        return r

    rm.application_master_service.serve_allocate = served  # type: ignore[method-assign]
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
        "responses": responses,
        "apps": [(a.application_id, a.state, a.final_status, a.start_time, a.finish_time) for a in apps],
        "counters": dict(rm.counters),
        "ops": {k: v for k, v in ops.items() if k != "allocate"},
        "allocates": ops.get("allocate", 0),
        "skipped": cluster.heartbeats.skipped_allocates,
        "ams": [(am.attempt_id, am.response_id, am.headroom, am.num_cluster_nodes) for am in cluster.masters],
        "attempts": [(str(a.attempt_id), a.response_id, a.last_heartbeat, a.state) for a in rm.attempts.values()],
    }


def _assert_same(a: dict, b: dict) -> None:
    for key in ("end", "responses", "apps", "counters", "ops", "ams", "attempts", "events"):
        assert a[key] == b[key], key


@pytest.fixture(scope="module")
def busy_runs() -> tuple[dict, dict]:
    workload = synthetic_workload(60, 40, seed=5, queues=("a", "b"), maps=(1, 30), reduces=(0, 6), load=1.5)
    return _run(workload, True, QUEUES), _run(workload, False, QUEUES)


def test_busy_synthetic_trace_gives_identical_results(busy_runs: tuple[dict, dict]) -> None:
    """A busy two-queue trace: events, every non-empty response, apps, ids and AM headroom match."""
    skipped, full = busy_runs
    assert len(full["responses"]) > 300
    _assert_same(skipped, full)


def test_skipping_sends_fewer_allocates(busy_runs: tuple[dict, dict]) -> None:
    """With skipping on, idle allocates do not reach the scheduler; each skipped one is an allocate saved."""
    skipped, full = busy_runs
    assert full["skipped"] == 0 and skipped["skipped"] > 0
    assert skipped["allocates"] + skipped["skipped"] == full["allocates"]
    assert skipped["allocates"] < full["allocates"] * 0.8


def test_preemption_messages_are_identical() -> None:
    """With the preemption monitor on, preemption messages and kills happen at the same heartbeats."""
    workload = synthetic_workload(40, 20, seed=7, queues=("a", "b"), maps=(5, 30), reduces=(0, 4), load=2.0)
    skipped, full = _run(workload, True, PREEMPTION), _run(workload, False, PREEMPTION)
    assert any("PreemptionMessage(" in r[3] for r in full["responses"])
    assert full["counters"].get("containers_preempted", 0) > 0
    _assert_same(skipped, full)


def test_idle_ams_are_not_expired_and_long_tasks_skip_most_allocates() -> None:
    """Long tasks under a short AM expiry: no AM times out, and most allocates are skipped."""
    b = WorkloadBuilder().nodes(4, memory_mb=4096, vcores=4)
    for j in range(3):
        b.job(f"j{j}", submit_ms=1000 * j, tasks=[task_spec(3, 200_000 + 10_000 * j)])
    props = {keys.RM_AM_EXPIRY_INTERVAL_MS: "30000"}
    skipped, full = _run(b.build(), True, props), _run(b.build(), False, props)
    assert all(a[2] == "SUCCEEDED" or getattr(a[2], "value", None) == "SUCCEEDED" for a in full["apps"])
    assert skipped["skipped"] > 0.8 * full["allocates"]
    _assert_same(skipped, full)


def test_a_lost_am_node_restarts_the_attempt_identically() -> None:
    """A node failure that kills AM containers and tasks: attempts, reruns and response ids match."""
    b = WorkloadBuilder().nodes(4, memory_mb=4096, vcores=4)
    for j in range(4):
        b.job(f"j{j}", submit_ms=500 * j, tasks=[task_spec(4, 120_000)])
    workload = b.build()
    props = {keys.RM_AM_MAX_ATTEMPTS: "2"}
    fail = (("node0", 60_500), ("node2", 90_250))
    skipped, full = _run(workload, True, props, fail=fail), _run(workload, False, props, fail=fail)
    assert full["counters"].get("nodes_lost", 0) > 0
    _assert_same(skipped, full)


def test_modelled_latency_switches_am_skipping_off() -> None:
    """With a modelled latency skipping is not proven: every allocate is sent."""
    workload = WorkloadBuilder().nodes(2).job("j", tasks=[task_spec(1, 30_000)]).build()
    cluster = Cluster(Configuration({AM_SKIP: "true"}), workload.nodes, seed=1)
    cluster.kernel.default_latency = 1
    cluster.submit_workload(workload)
    cluster.run()
    assert cluster.heartbeats.skip_am is False and cluster.heartbeats.skipped_allocates == 0


def test_a_malformed_am_switch_names_the_key() -> None:
    """A non-boolean value of the AM switch is rejected with the key in the message."""
    with pytest.raises(ConfigurationError, match=AM_SKIP):
        Cluster(Configuration({AM_SKIP: "perhaps"}), WorkloadBuilder().nodes(1).build().nodes)


def test_the_am_switch_defaults_to_on() -> None:
    """AM skipping is on unless switched off (keys.DEFAULT_SIMULATION_SKIP_IDLE_AM_HEARTBEATS)."""
    assert keys.DEFAULT_SIMULATION_SKIP_IDLE_AM_HEARTBEATS is True
    assert Cluster(Configuration(), ()).heartbeats.skip_am is True


SLS = ("inputsls.json", "SLS"), ("2jobs2min-rumen-jh.json", "RUMEN"), ("syn.json", "SYNTH"), ("sls_dag.json", "SLS")


@pytest.mark.parametrize(("trace", "trace_type"), SLS)
def test_sls_samples_give_identical_outputs(
    shared_data: Path, tmp_path: Path, trace: str, trace_type: str, capsys: Any
) -> None:
    """The shared SLS samples through the CLI: every output file is byte-identical with AM skipping on and off."""
    ops_on, ops_off = sls_outputs_equal_both_ways(shared_data, tmp_path, trace, trace_type, AM_SKIP)
    assert ops_on["allocate"] <= ops_off["allocate"]  # a short trace may have no idle allocate at all
