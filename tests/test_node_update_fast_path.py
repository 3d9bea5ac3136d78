"""NODE_UPDATEs that only mark launched containers RUNNING (CapacityScheduler.node_update_launched_only)."""

from __future__ import annotations

from typing import Any

import pytest
from service_spies import spyable_services
from test_capacity_scheduler_helpers import GB, add_node, ask, attempt_id, heartbeat, make_scheduler, submit

from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.policies.capacity import CapacityScheduler
from yarnball.policies.scheduler import _factory
from yarnball.protocols import ContainerState, ContainerStatus, NodeId, NodeUpdateSchedulerEvent
from yarnball.testing import captured_events


def _running(cid: Any) -> ContainerStatus:
    return ContainerStatus(container_id=cid, state=ContainerState.RUNNING)


def _snapshot(cs: CapacityScheduler) -> tuple[Any, ...]:
    states = sorted((str(cid), rmc.state) for cid, rmc in cs._ctx.containers.items())
    return states, cs.queue_metrics()


def _full_node_with_asks() -> tuple[CapacityScheduler, NodeId, Any]:
    """A 2 GB node filled by app 1's AM and one task; app 1 still asks for more. Returns the task's id."""
    cs = make_scheduler(**{"yarn.scheduler.capacity.maximum-am-resource-percent": 1.0})
    n0 = add_node(cs, 0, 2 * GB, 8)
    submit(cs, 1)
    heartbeat(cs, n0)
    pulled = cs.allocate(attempt_id(1), [ask(GB, 3)], []).containers
    heartbeat(cs, n0)
    pulled += cs.allocate(attempt_id(1), [], []).containers
    assert len(pulled) == 2 and cs.nodes[n0].unalloc_m == 0
    return cs, n0, pulled[-1].id


def test_a_full_node_only_marks_the_launched_container_running() -> None:
    """On a full node the shortcut marks the container RUNNING and leaves the scheduler as handle() would."""
    fast, n0, cid = _full_node_with_asks()
    full, _, _ = _full_node_with_asks()
    assert fast._ctx.containers[cid].state != "RUNNING"
    assert fast.node_update_launched_only(n0, [_running(cid)])
    assert full.handle(NodeUpdateSchedulerEvent(node_id=n0, newly_launched_containers=(_running(cid),))) == []
    assert fast._ctx.containers[cid].state == "RUNNING"
    assert _snapshot(fast) == _snapshot(full)


def test_a_node_with_room_and_asks_takes_the_full_event() -> None:
    """With room for a container and asks pending, the shortcut declines and changes nothing."""
    cs = make_scheduler()
    n0 = add_node(cs, 0, 8 * GB, 8)
    submit(cs, 1)
    heartbeat(cs, n0)
    cid = cs.allocate(attempt_id(1), [ask(GB, 2)], []).containers[0].id
    before = _snapshot(cs)
    assert not cs.node_update_launched_only(n0, [_running(cid)])
    assert _snapshot(cs) == before


def test_a_reserved_node_takes_the_full_event() -> None:
    """A node holding a reservation may allocate from it: the shortcut declines."""
    cs = make_scheduler(**{"yarn.scheduler.capacity.maximum-am-resource-percent": 1.0})
    n0 = add_node(cs, 0, 2 * GB, 8)
    add_node(cs, 1, 2 * GB, 8)  # the queue could hold the ask, node 0 cannot right now
    submit(cs, 1)
    heartbeat(cs, n0)
    cs.allocate(attempt_id(1), [ask(2 * GB, 1)], [])
    heartbeat(cs, n0)  # 1 GB free, 2 GB asked: reserved
    assert cs.nodes[n0].reserved is not None
    before = _snapshot(cs)
    assert not cs.node_update_launched_only(n0, [])
    assert _snapshot(cs) == before


def test_an_unknown_node_takes_the_full_event() -> None:
    """A node the scheduler does not know: the shortcut declines."""
    cs = make_scheduler()
    assert not cs.node_update_launched_only(NodeId("nowhere", 1), [])


def _run(fast: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    hits: list[int] = []
    states: list[Any] = []

    class Counting(CapacityScheduler):
        """Takes the shortcut (counting its hits) when ``fast``, else declines it: every NODE_UPDATE in full."""

        def node_update_launched_only(self, node_id: NodeId, launched: Any) -> bool:
            if fast and super().node_update_launched_only(node_id, launched):
                hits.append(1)
                return True
            return False

    workload = synthetic_workload(30, 30, seed=11, maps=(1, 25), reduces=(0, 5), load=2.0)
    with monkeypatch.context() as m:
        m.setattr(_factory, "CapacityScheduler", Counting)  # the cluster builds a Counting
        with spyable_services():  # (node_heartbeat is replaced below)
            cluster = Cluster({}, workload.nodes, seed=2)
    scheduler, rm = cluster.scheduler, cluster.rm
    tracker = rm.resource_tracker
    node_heartbeat = tracker.node_heartbeat

    def beat(node_id: Any, statuses: Any, status: Any = None) -> Any:
        response = node_heartbeat(node_id, statuses, status)
        node = scheduler.nodes.get(node_id)
        if node is not None:  # the states of the node's containers after each heartbeat
            states.append((rm.now, str(node_id), sorted((str(c), r.state) for c, r in node.containers.items())))
        return response

    tracker.node_heartbeat = beat  # type: ignore[method-assign]
    tracker.build_chain()
    cluster.submit_workload(workload)
    with captured_events() as events:
        end = cluster.run(until_ms=1_800_000)
    return {
        "end": end,
        "events": events,
        "states": states,
        "apps": [(a.application_id, a.state, a.final_status, a.finish_time) for a in cluster.applications],
        "counters": dict(rm.counters),
        "ops": dict(rm.op_counts),
        "queues": cluster.queues,
        "hits": len(hits),
    }


def test_busy_runs_equal_with_and_without_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy run taking the shortcut equals one handling every NODE_UPDATE in full, container states included."""
    on, off = _run(True, monkeypatch), _run(False, monkeypatch)
    assert on["hits"] > 100 and off["hits"] == 0
    assert on["counters"]["containers_allocated"] > 300
    for key in ("end", "events", "states", "apps", "counters", "ops", "queues"):
        assert on[key] == off[key], key
