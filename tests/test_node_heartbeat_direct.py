"""The RM's NODE_UPDATE without the event record (``CapacityScheduler.node_update``) and the heartbeats it settles."""

from __future__ import annotations

import gc
import random
import sys
from typing import Any

import pytest
from service_spies import spyable_services
from skipping_helpers import TWO_QUEUES, run_state
from test_capacity_fastpaths import DRF, QUEUES, Driver
from test_capacity_scheduler_helpers import GB, add_node, ask, attempt_id, heartbeat, make_conf, make_scheduler, submit

from yarnball.actors import _resourcetracker, _schedulerdispatcher
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.policies.capacity import CapacityScheduler
from yarnball.policies.scheduler import _factory
from yarnball.protocols import (
    Configuration,
    ContainerState,
    ContainerStatus,
    NodeId,
    NodeUpdateSchedulerEvent,
    keys,
)
from yarnball.testing import captured_events


def _run(direct: bool, props: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A busy two-queue run with the record-free NODE_UPDATE and the settling after it on or off; ``records`` counts
    the NODE_UPDATE event records the dispatcher built (the module switches are read at run time, compiled too)."""
    records = [0]
    record = _schedulerdispatcher.NodeUpdateSchedulerEvent

    def recorded(**fields: Any) -> Any:
        records[0] += 1
        return record(**fields)

    with monkeypatch.context() as m:
        m.setattr(_schedulerdispatcher, "NodeUpdateSchedulerEvent", recorded)
        if not direct:
            m.setattr(_schedulerdispatcher, "_DISPATCH", None)
            m.setattr(_resourcetracker, "SETTLE_AFTER_UPDATE", False)
        workload = synthetic_workload(40, 30, seed=7, queues=("a", "b"), maps=(1, 25), reduces=(0, 5), load=1.5)
        cluster = Cluster(Configuration({**TWO_QUEUES, **props}), workload.nodes, seed=4)
        cluster.submit_workload(workload)
        with captured_events() as events:
            end = cluster.run(until_ms=1_800_000)
        return {"end": end, "events": events, "records": records[0], **run_state(cluster)}


@pytest.mark.parametrize(
    "props",
    [
        {},
        {keys.SIMULATION_SKIP_IDLE_HEARTBEATS: "false", keys.SIMULATION_SKIP_IDLE_AM_HEARTBEATS: "false"},
        {keys.SIMULATION_DORMANT_IDLE_AMS: "false"},
        {"yarn.scheduler.capacity.root.a.ordering-policy": "fair"},
    ],
    ids=["skip", "noskip", "nodormant", "fair"],
)
def test_busy_runs_equal_with_and_without_the_direct_node_update(
    props: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy run equals the event-record path key for key: logs, results, sequences, heartbeats and op counts."""
    on, off = _run(True, props, monkeypatch), _run(False, props, monkeypatch)
    assert on["counters"]["containers_completed"] > 100
    assert on.pop("records") == 0 < off.pop("records")  # each run took its own path
    assert on == off


def test_the_direct_path_builds_no_event_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """With nothing observing dispatch, a NODE_UPDATE reporting a completion reaches the scheduler without a record."""
    built: list[Any] = []
    original = _schedulerdispatcher.NodeUpdateSchedulerEvent

    def record(**fields: Any) -> Any:
        built.append(fields)
        return original(**fields)

    monkeypatch.setattr(_schedulerdispatcher, "NodeUpdateSchedulerEvent", record)
    workload = synthetic_workload(10, 20, seed=3, maps=(1, 10), reduces=(0, 2), load=1.5)
    cluster = Cluster(Configuration({}), workload.nodes, seed=2)
    cluster.submit_workload(workload)
    cluster.run(until_ms=900_000)
    assert cluster.rm.counters["containers_completed"] > 20
    assert cluster.rm.op_counts["NODE_UPDATE"] > 20
    assert built == []


def test_an_observed_dispatch_still_sees_every_node_update() -> None:
    """A dispatch replaced on the RM (a test recording scheduler events) gets the NODE_UPDATE records back."""
    workload = synthetic_workload(10, 20, seed=3, maps=(1, 10), reduces=(0, 2), load=1.5)
    cluster = Cluster(Configuration({}), workload.nodes, seed=2)
    rm = cluster.rm
    seen: list[Any] = []
    dispatch = rm.dispatch

    def observed(event: Any) -> None:
        seen.append(event)
        dispatch(event)

    rm.dispatch = observed  # type: ignore[method-assign]
    cluster.submit_workload(workload)
    cluster.run(until_ms=900_000)
    updates = [e for e in seen if type(e) is NodeUpdateSchedulerEvent]
    completed = sum(len(e.completed_containers) for e in updates)
    assert completed == rm.counters["containers_completed"] > 20
    assert rm.op_counts["NODE_UPDATE"] >= len(updates)


class _TwinDriver(Driver):
    """Driver whose NODE_UPDATEs reach the second twin through node_update, the first through handle."""

    def _each(self, event: object) -> list[list]:
        if type(event) is not NodeUpdateSchedulerEvent:
            return super()._each(event)
        via_handle, direct = self.twins
        a = via_handle.handle(event)
        b = direct.node_update(event.node_id, event.newly_launched_containers, event.completed_containers)
        assert a == b
        self.updates += 1
        self.allocating += bool(a)
        return [a, b]


@pytest.mark.parametrize(("seed", "extra"), [(11, {}), (12, DRF)])
def test_node_update_equals_handle_on_twin_schedulers(seed: int, extra: dict[str, object]) -> None:
    """node_update returns the notifications handle returns and leaves the same scheduler, after random operations."""
    twins = [make_scheduler(QUEUES, **extra), make_scheduler(QUEUES, **extra)]
    driver = _TwinDriver(seed, twins)
    driver.updates = driver.allocating = 0
    for _ in driver.run(400):
        assert twins[0].queue_metrics() == twins[1].queue_metrics()
        states = [sorted((str(c), r.state, str(r.node.node_id)) for c, r in t._ctx.containers.items()) for t in twins]
        assert states[0] == states[1]
    assert driver.updates > 80 and driver.allocating > 10


def test_node_update_marks_launched_and_completes_finished_containers() -> None:
    """node_update marks a launched container RUNNING, frees a completed one and reuses its room at once."""
    cs = make_scheduler(**{"yarn.scheduler.capacity.maximum-am-resource-percent": 1.0})
    n0 = add_node(cs, 0, 2 * GB, 8)
    submit(cs, 1)
    heartbeat(cs, n0)
    first = cs.allocate(attempt_id(1), [ask(GB, 3)], []).containers[0]
    heartbeat(cs, n0)
    task = cs.allocate(attempt_id(1), [], []).containers[0]
    assert cs.nodes[n0].unalloc_m == 0
    running = ContainerStatus(container_id=first.id, state=ContainerState.RUNNING)
    done = ContainerStatus(container_id=task.id, state=ContainerState.COMPLETE, exit_status=0)
    notes = cs.node_update(n0, [running], [done])
    assert cs._ctx.containers[first.id].state == "RUNNING"
    assert task.id not in cs._ctx.containers
    assert [type(n).__name__ for n in notes] == ["ContainerAllocated"]  # the freed GB went to the next ask
    assert cs.allocate(attempt_id(1), [], []).completed == (done,)


def test_node_update_of_an_unknown_node_changes_nothing() -> None:
    """A NODE_UPDATE for a node the scheduler does not know returns no notification, as handle does."""
    cs = make_scheduler()
    add_node(cs, 0)
    submit(cs, 1)
    unknown = add_node(make_scheduler(), 5)
    before = cs.queue_metrics()
    assert cs.node_update(unknown) == [] == cs.handle(NodeUpdateSchedulerEvent(node_id=unknown))
    assert cs.queue_metrics() == before


@pytest.mark.parametrize("settle", [True, False])
def test_a_settled_heartbeat_is_one_the_clock_would_not_keep(settle: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whenever a dispatched heartbeat is settled, needs_heartbeat is False for its node; settling happens, and
    never with SETTLE_AFTER_UPDATE off."""
    monkeypatch.setattr(_resourcetracker, "SETTLE_AFTER_UPDATE", settle)
    workload = synthetic_workload(40, 30, seed=7, queues=("a", "b"), maps=(1, 25), reduces=(0, 5), load=1.5)
    with spyable_services():  # (handle_node_heartbeat is replaced below)
        cluster = Cluster(Configuration(TWO_QUEUES), workload.nodes, seed=4)
    rm = cluster.rm
    tracker = rm.resource_tracker
    handle = tracker.handle_node_heartbeat
    checked = [0, 0]

    def handled(node_id: Any, statuses: Any, status: Any) -> Any:
        response = handle(node_id, statuses, status)
        if tracker.settled and any(s.state is ContainerState.COMPLETE for s in statuses):
            checked[0] += 1
            assert not rm.needs_heartbeat(node_id)
        elif any(s.state is ContainerState.COMPLETE for s in statuses):
            checked[1] += 1
        return response

    tracker.handle_node_heartbeat = handled  # type: ignore[method-assign]
    cluster.submit_workload(workload)
    cluster.run(until_ms=1_800_000)
    if settle:
        assert checked[0] > 50 and checked[1] > 0  # both outcomes were exercised
    else:
        assert checked[0] == 0 and checked[1] > 50


def test_node_update_is_noop_memory_only_equals_the_calculator_form() -> None:
    """The memory-only node_update_is_noop agrees with the calculator's availableContainers/isPositive form."""
    rng = random.Random(5)
    cs = make_scheduler()
    nodes = [add_node(cs, i, rng.choice((GB // 2, GB, 3 * GB)), 4) for i in range(4)]
    submit(cs, 1)
    ctx = cs._ctx
    for step in range(60):
        nid = rng.choice(nodes)
        if step % 3 == 0:
            cs.allocate(attempt_id(1), [ask(GB, rng.randint(0, 3))], [])
        heartbeat(cs, nid)
        for n in nodes:
            node = cs.nodes[n]
            general = node.reserved is None and (
                ctx.rc.available_containers(node.unalloc_m, node.unalloc_v, ctx.min_m, ctx.min_v) <= 0
                or not ctx.rc.is_positive(cs.root.pending_m, cs.root.pending_v)
            )
            assert cs.node_update_is_noop(n) == general


def _watching_scheduler() -> Any:
    """A new CapacityScheduler subclass whose ``handle`` counts the NODE_UPDATE events it sees (``seen``)."""

    class Watching(CapacityScheduler):
        seen = 0

        def handle(self, event: object) -> list:
            if type(event) is NodeUpdateSchedulerEvent:
                Watching.seen += 1
            return super().handle(event)

    return Watching


def test_scheduler_type_without_node_update_override_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scheduler subclass overriding handle keeps the event record (its handle sees every NODE_UPDATE)."""
    Watching = _watching_scheduler()

    workload = synthetic_workload(10, 20, seed=3, maps=(1, 10), reduces=(0, 2), load=1.5)
    monkeypatch.setattr(_factory, "CapacityScheduler", Watching)  # the cluster builds a Watching
    cluster = Cluster(Configuration({}), workload.nodes, seed=2)
    cluster.submit_workload(workload)
    cluster.run(until_ms=900_000)
    assert Watching.seen > 20


def _dict_materialized(obj: object, key: str) -> bool:
    """Whether ``obj``'s attributes live in a dict object (CPython: a read of ``obj.__dict__`` makes one for good)."""
    return any(type(r) is dict and key in r for r in gc.get_referents(obj))


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's inline attribute values")
def test_a_run_keeps_the_kernel_and_scheduler_attributes_inline() -> None:
    """No hook check reads the kernel's or the scheduler's __dict__ (which would slow every attribute access)."""
    workload = synthetic_workload(10, 20, seed=3, maps=(1, 10), reduces=(0, 2), load=1.5)
    cluster = Cluster(Configuration({}), workload.nodes, seed=2)
    cluster.submit_workload(workload)
    cluster.run(until_ms=600_000)
    assert cluster.rm.counters["containers_completed"] > 20
    assert not _dict_materialized(cluster.kernel, "now")
    assert not _dict_materialized(cluster.scheduler, "_ctx")
    # (the detector itself, checked on the RM: the compiled kernel has no __dict__ at all)
    cluster.rm.__dict__  # noqa: B018
    assert _dict_materialized(cluster.rm, "conf")


def test_each_scheduler_the_dispatcher_meets_is_proven_once() -> None:
    """The dispatcher checks a scheduler's own handle once, when it first meets it: a new scheduler (as an RM restart
    makes) whose handle is overridden keeps the event record from its first NODE_UPDATE on."""
    Watching = _watching_scheduler()

    cluster = Cluster(Configuration({}), synthetic_workload(2, 1, seed=3).nodes, seed=2)
    rm = cluster.rm
    unknown = NodeId("nowhere", 1)  # (a NODE_UPDATE of an unknown node changes nothing)
    rm.dispatcher.node_update(unknown, [], [])
    assert rm.dispatcher.own_handle
    rm.scheduler = Watching(make_conf())
    rm.dispatcher.node_update(unknown, [], [])
    rm.dispatcher.node_update(unknown, [], [])
    assert Watching.seen == 2 and not rm.dispatcher.own_handle
