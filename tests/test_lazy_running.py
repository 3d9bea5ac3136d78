"""Lazily settled RUNNING reports (_shortcuts/_lazyrunning.py): runs equal the phase-point heartbeats they replace."""

from __future__ import annotations

import hashlib
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from service_spies import spyable_services
from skipping_helpers import TWO_QUEUES, assert_same_except, sls_outputs_equal_both_ways

from yarnball.actors._kernel import NORMAL
from yarnball.actors._shortcuts._lazyrunning import LazyRunning
from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder, synthetic_workload, task_spec
from yarnball.launcher.workloads._model import Workload
from yarnball.protocols import Configuration, KillApplicationRequest, keys
from yarnball.testing import captured_events

LAZY = keys.SIMULATION_LAZY_RUNNING_REPORTS
PREEMPTION = {
    **TWO_QUEUES,
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill": "2000",
}
AFTER_HEARTBEATS = 10**9  # a probe priority above every node's heartbeat


def _short() -> Workload:
    return synthetic_workload(40, 30, seed=7, queues=("a", "b"), maps=(1, 25), reduces=(0, 5), load=1.5)


def _long() -> Workload:
    return synthetic_workload(
        30, 20, seed=3, queues=("a", "b"), maps=(5, 30), reduces=(1, 6), load=6,
        map_ms=(300_000, 900_000), reduce_ms=(300_000, 900_000),
    )  # fmt: skip


def _seen(cluster: Cluster) -> str:
    """A digest of every piece of state a deferred report touches, as an observer would read it."""
    rm = cluster.rm
    states = sorted((str(cid), rmc.state) for cid, rmc in rm.scheduler._ctx.containers.items())
    nodes = sorted((str(n), node.response_id, node.last_heartbeat) for n, node in rm.nodes.items())
    nms = sorted((h, nm.response_id) for h, nm in cluster.node_managers.items())
    seen = (sorted(map(str, rm.unlaunched)), states, nodes, nms, rm.op_counts["NODE_UPDATE"], cluster.heartbeats.real)
    return hashlib.sha256(repr(seen).encode()).hexdigest()


def _probe(cluster: Cluster, period: float, priority: int, out: list[Any], settle: bool) -> None:
    """Every ``period`` ms at ``priority``: settle what has passed (as every RM reader does) and record the state."""
    kernel = cluster.kernel

    def look(_: Any) -> None:
        lazy = cluster.heartbeats.lazy
        if settle and lazy is not None:
            lazy.settle_all()
        out.append((kernel.now, priority, _seen(cluster)))
        kernel.schedule(period, look, priority=priority, owner="probe")

    kernel.schedule(period, look, priority=priority, owner="probe")


def _run(
    workload: Workload,
    lazy: bool,
    props: dict[str, object] | None = None,
    *,
    until_ms: float = 1_800_000,
    probes: bool = False,
    settle: bool = True,
    setup: Any = None,
    spyable: bool = False,
) -> dict[str, Any]:
    with spyable_services() if spyable else nullcontext():  # (``setup`` may replace the services' methods)
        cluster = Cluster(
            Configuration({**TWO_QUEUES, **(props or {}), LAZY: "true" if lazy else "false"}), workload.nodes, seed=4
        )
    seen: list[Any] = []
    if probes:
        _probe(cluster, 997, NORMAL, seen, settle)
        _probe(cluster, 1000, AFTER_HEARTBEATS, seen, settle)
    cluster.submit_workload(workload)
    if setup is not None:
        setup(cluster)
    with captured_events() as events:
        end = cluster.run(until_ms=until_ms)
    rm = cluster.rm
    lazy_part = cluster.heartbeats.lazy
    return {
        "end": end,
        "events": events,
        "apps": [
            (a.application_id, a.state, a.final_status, a.start_time, a.finish_time) for a in cluster.applications
        ],
        "counters": dict(rm.counters),
        "ops": {op: n for op, n in rm.op_counts.items()},
        "seen": _seen(cluster),
        "probes": seen,
        "heartbeats": (cluster.heartbeats.real, cluster.heartbeats.virtual_count),
        "deferred": 0 if lazy_part is None else lazy_part.deferred,
        "processed": cluster.kernel.events_processed,
    }


@pytest.fixture(scope="module")
def short_runs() -> tuple[dict, dict]:
    return _run(_short(), True), _run(_short(), False)


def test_short_tasks_are_identical(short_runs: tuple[dict, dict]) -> None:
    """A busy short-task trace: logs, results, response ids, op counts and RMContainer states match."""
    on, off = short_runs
    assert off["counters"]["containers_allocated"] > 300
    assert_same_except(on, off, "deferred", "processed")


def test_deferred_reports_leave_out_their_heartbeat_events(short_runs: tuple[dict, dict]) -> None:
    """Reports are deferred, and exactly one kernel event fewer is processed per deferred heartbeat or fewer."""
    on, off = short_runs
    assert on["deferred"] > 100 and off["deferred"] == 0
    assert 0 < off["processed"] - on["processed"] <= on["deferred"]


def test_long_tasks_are_identical_at_every_probe() -> None:
    """Long tasks on full nodes: the state a reader sees at any position (before and after the heartbeats of a
    millisecond) is the same as with the phase-point heartbeats."""
    on = _run(_long(), True, until_ms=600_000, probes=True)
    off = _run(_long(), False, until_ms=600_000, probes=True)
    assert on["deferred"] > 100 and len(on["probes"]) > 1000
    assert_same_except(on, off, "deferred", "processed")


def test_an_unsettled_reader_would_see_the_difference() -> None:
    """The probes above do detect a missing settle: without it the state they read differs."""
    on = _run(_long(), True, until_ms=120_000, probes=True, settle=False)
    off = _run(_long(), False, until_ms=120_000, probes=True, settle=False)
    assert on["probes"] != off["probes"]
    assert on["seen"] == off["seen"]  # (the end of the run settles)


def _late_launches(cluster: Cluster) -> None:
    for nm in cluster.node_managers.values():
        nm.localization_ms = 2_600  # launched 2.6 s after allocation: near the 3 s allocation expiry


EXPIRY = {keys.RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS: "3000"}


class _Unsettled(LazyRunning):
    """Defers as LazyRunning does but never settles (a Python subclass: compiled, LazyRunning's methods cannot be
    replaced)."""

    def settle_all(self) -> None:
        pass


def _unsettled(cluster: Cluster) -> None:
    _Unsettled(cluster.heartbeats, cluster.rm)  # (it makes itself the clock's ``lazy``)


def test_the_allocation_expirer_sees_settled_reports() -> None:
    """The container-allocation expirer, checking between a deferred report's phase point and its settle, expires
    the same containers; without settling first it would expire launched ones."""
    on = _run(_short(), True, EXPIRY, until_ms=200_000, setup=_late_launches)
    off = _run(_short(), False, EXPIRY, until_ms=200_000, setup=_late_launches)
    assert on["deferred"] > 50
    assert_same_except(on, off, "deferred", "processed")
    broken = _run(_short(), True, EXPIRY, until_ms=200_000, setup=lambda c: (_late_launches(c), _unsettled(c)))
    assert broken["deferred"] > 50  # (the subclass defers as LazyRunning does)
    expired = [e for e in broken["events"] if e["event"] == "container_expired"]
    assert len(expired) > len([e for e in off["events"] if e["event"] == "container_expired"])


def test_preemption_and_kills_are_identical() -> None:
    """The preemption monitor's marks and kills, and an application killed mid-run, give the same results."""

    def kill(cluster: Cluster) -> None:
        def send(_: Any) -> None:
            app = cluster.masters[3].application_id
            cluster.rm.ref.tell(KillApplicationRequest(application_id=app))

        cluster.kernel.schedule(150_250, send)

    workload = synthetic_workload(40, 20, seed=7, queues=("a", "b"), maps=(5, 30), reduces=(0, 4), load=2.0)
    on = _run(workload, True, PREEMPTION, until_ms=900_000, setup=kill)
    off = _run(workload, False, PREEMPTION, until_ms=900_000, setup=kill)
    assert off["counters"].get("containers_preempted", 0) > 0 and off["counters"].get("apps_killed", 0) == 1
    assert on["deferred"] > 50
    assert_same_except(on, off, "deferred", "processed")


def test_node_loss_and_decommission_are_identical() -> None:
    """A node that dies and one that is decommissioned while holding deferred reports: expiry, kills, reruns match."""

    def events(cluster: Cluster) -> None:
        cluster.fail_node("node3", 60_500)
        nm = cluster.node_managers["node5"]
        cluster.kernel.schedule(90_250, lambda _: nm.decommission(), owner=nm.id)

    props = {keys.RM_NM_EXPIRY_INTERVAL_MS: "30000", keys.RM_AM_MAX_ATTEMPTS: "2"}
    on = _run(_long(), True, props, until_ms=600_000, setup=events)
    off = _run(_long(), False, props, until_ms=600_000, setup=events)
    assert off["counters"].get("nodes_lost", 0) == 1 and off["counters"].get("nodes_shutdown", 0) == 1
    assert on["deferred"] > 50
    assert_same_except(on, off, "deferred", "processed")


@pytest.mark.parametrize("stop_ms", [61_000, 61_321, 250_999])
def test_a_run_stopped_and_resumed_is_identical(stop_ms: int) -> None:
    """Stopped at ``until`` (at and between phase points) the settled state matches; resuming gives the same."""
    results = {}
    for lazy in (True, False):
        b = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4)
        for j in range(3):
            b.job(f"j{j}", submit_ms=3_000 * j, tasks=[task_spec(2, 300_000)])
        workload = b.build()
        cluster = Cluster(Configuration({LAZY: "true" if lazy else "false"}), workload.nodes, seed=4)
        cluster.submit_workload(workload)
        cluster.run(until_ms=stop_ms)
        middle = _seen(cluster)
        cluster.run(until_ms=stop_ms + 7_000)
        cluster.run()
        results[lazy] = (middle, _seen(cluster), cluster.now)
    assert results[True] == results[False]


def test_a_modelled_latency_defers_nothing() -> None:
    """With an NM<->RM latency every RUNNING report has its heartbeat."""

    def latency(cluster: Cluster) -> None:
        cluster.kernel.default_latency = 5

    on = _run(_short(), True, until_ms=120_000, setup=latency)
    off = _run(_short(), False, until_ms=120_000, setup=latency)
    assert on["deferred"] == 0 and on["processed"] == off["processed"]
    assert_same_except(on, off, "deferred", "processed")


def test_every_heartbeat_processed_defers_nothing() -> None:
    """With skipping off (every heartbeat processed) nothing is deferred."""
    props = {keys.SIMULATION_SKIP_IDLE_HEARTBEATS: "false"}
    on = _run(_short(), True, props, until_ms=120_000)
    assert on["deferred"] == 0


def test_a_replaced_heartbeat_handler_keeps_every_heartbeat() -> None:
    """An RM whose node-heartbeat handling is replaced on the instance (a test spy) sees every heartbeat."""
    seen: list[Any] = []

    def spy(cluster: Cluster) -> None:
        rm = cluster.rm
        tracker = rm.resource_tracker
        original = tracker.node_heartbeat

        def beat(node_id: Any, statuses: Any, status: Any = None) -> Any:
            seen.append(node_id)
            return original(node_id, statuses, status)

        tracker.node_heartbeat = beat  # type: ignore[method-assign]
        tracker.build_chain()

    on = _run(_short(), True, until_ms=120_000, setup=spy, spyable=True)
    assert on["deferred"] == 0 and len(seen) == sum(on["heartbeats"]) > 0  # (real and virtual heartbeats)


def test_a_malformed_switch_names_the_key() -> None:
    """A non-boolean value of the switch is rejected with the key in the message."""
    with pytest.raises(ConfigurationError, match=LAZY):
        Cluster(Configuration({LAZY: "sometimes"}), WorkloadBuilder().nodes(1).build().nodes)


def test_the_switch_defaults_to_on() -> None:
    """Deferral is on unless switched off (keys.DEFAULT_SIMULATION_LAZY_RUNNING_REPORTS)."""
    assert keys.DEFAULT_SIMULATION_LAZY_RUNNING_REPORTS is True
    assert isinstance(Cluster(Configuration(), ()).heartbeats.lazy, LazyRunning)
    assert Cluster(Configuration({LAZY: "false"}), ()).heartbeats.lazy is None


def test_sls_sample_gives_identical_outputs(shared_data: Path, tmp_path: Path) -> None:
    """An SLS sample through the CLI: every output file byte-identical with the switch on and off."""
    sls_outputs_equal_both_ways(shared_data, tmp_path, "inputsls.json", "SLS", LAZY)
