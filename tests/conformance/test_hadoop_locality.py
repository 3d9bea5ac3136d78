"""Delay scheduling and locality asks, against Hadoop's RegularContainerAllocator and LocalityAppPlacementAllocator.

- testLocalityScheduling is TestLeafQueue's own test, ported.
- The allocation's locality (NodeType) is counted in QueueMetrics' aggregate node-local, rack-local and off-switch
  containers (incrNodeTypeAggregations) and logged at debug level with each allocation.
- The rack-before-host check (RegularContainerAllocator.canAssign: "Check if we need containers on this rack" runs
  for NODE_LOCAL as for RACK_LOCAL) and location asks that outlive their key's ANY ask
  (LocalityAppPlacementAllocator.decrementOutstanding removes only the ANY entry; the placement allocator stays while
  its resourceRequestMap holds host or rack asks) have no Hadoop test of their own: the tests below follow the
  Java code paths named in their docstrings.
"""

from __future__ import annotations

import structlog
import structlog.testing
from test_capacity_scheduler_helpers import (
    GB,
    LOCALITY_DELAYS,
    add_node,
    ask,
    attempt_id,
    heartbeat,
    make_scheduler,
    submit,
    two_rack_scheduler,
)

from yarnball import Cluster
from yarnball.actors import DistributedShellAppMaster
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import keys as k

KEY = (1, -1)  # scheduler key: (priority 1, no allocation request id)


def test_node_local_refused_without_rack_ask_canAssign():
    """RegularContainerAllocator.canAssign(NODE_LOCAL): no outstanding ask on the node's rack, no node-local container;
    the host's own heartbeats then wait for off-switch (node-locality-delay 2 + rack-locality-additional-delay 1)."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 1, name="host0"), ask(GB, 1)], [])
    for _ in range(3):
        assert heartbeat(cs, nodes[0]) == []
    got = heartbeat(cs, nodes[0])
    assert [str(a.container.node_id) for a in got] == ["host0:8041"]
    # canAssign(OFF_SWITCH) does not reset the missed opportunities (a node-local allocation would have)
    assert cs.attempts[attempt_id(1)].opportunities[KEY] == 4


def test_node_local_allowed_with_rack_ask_canAssign():
    """The same asks plus the rack's: node-local at once (the control for the test above)."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 1, name="host0"), ask(GB, 1, name="/r0"), ask(GB, 1)], [])
    assert [str(a.container.node_id) for a in heartbeat(cs, nodes[0])] == ["host0:8041"]


def test_location_asks_outlive_any_decrementOutstanding():
    """LocalityAppPlacementAllocator.decrementOutstanding: when ANY reaches 0, host1 and /r0 keep their counts; an AM
    update of ANY alone brings them back, so an off-switch node waits and host1 still gets its node-local container."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    asks = [ask(GB, 1, name="host0"), ask(GB, 1, name="host1"), ask(GB, 2, name="/r0"), ask(GB, 1)]
    cs.allocate(attempt_id(1), asks, [])
    assert [str(a.container.node_id) for a in heartbeat(cs, nodes[0])] == ["host0:8041"]  # ANY 1 -> 0
    app = cs.attempts[attempt_id(1)]
    assert KEY not in app.keys  # the scheduler key is gone (AppSchedulingInfo.schedulerKeys)
    cs.allocate(attempt_id(1), [ask(GB, 1)], [])  # the AM asks for one more, ANY only
    assert app.keys[KEY].names == {"host1": [1, True], "/r0": [1, True]}
    for _ in range(3):  # host2 is off-switch for host1 and /r0: delayed
        assert heartbeat(cs, nodes[2]) == []
    assert [str(a.container.node_id) for a in heartbeat(cs, nodes[1])] == ["host1:8041"]  # NODE_LOCAL
    assert app.opportunities[KEY] == 0  # node-local resets the missed opportunities


def test_location_asks_dropped_when_am_zeroes_them():
    """An AM update with count 0 for the location asks removes them: the next ANY-only ask is not delayed."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    cs.allocate(
        attempt_id(1), [ask(GB, 1, name="host0"), ask(GB, 1, name="host1"), ask(GB, 2, name="/r0"), ask(GB, 1)], []
    )
    heartbeat(cs, nodes[0])
    cs.allocate(attempt_id(1), [ask(GB, 0, name="host1"), ask(GB, 0, name="/r0"), ask(GB, 1)], [])
    assert [str(a.container.node_id) for a in heartbeat(cs, nodes[2])] == ["host2:8041"]


def placed(cs, node) -> list[tuple[str, str]]:
    """verifyContainerAllocated(assignment, type): the containers one heartbeat allocates, with their NodeType."""
    return [(str(a.container.node_id), a.locality) for a in heartbeat(cs, node)]


def test_locality_scheduling_testLocalityScheduling():
    """TestLeafQueue.testLocalityScheduling: off-switch after the locality wait, node-local and rack-local with and
    without rack-locality-full-reset, and the off-switch delay capped by the number of nodes."""
    cs = make_scheduler(
        {"root.b": {"capacity": 80, "maximum-capacity": 99}, "root.a": {"capacity": 20}},
        # one assignment per heartbeat, as each LeafQueue.assignContainers call of the Hadoop test
        **{"yarn.scheduler.capacity.maximum-am-resource-percent": 1.0, k.ASSIGN_MULTIPLE_ENABLED: "false"},
    )
    node_0 = add_node(cs, 0, rack="rack_0")
    node_1 = add_node(cs, 1, rack="rack_1")
    node_2 = add_node(cs, 2, rack="rack_2")
    node_3 = add_node(cs, 3, rack="rack_1")
    num_nodes = 4  # the Hadoop test mocks 3 cluster nodes but heartbeats node_3 too: here all four are registered
    submit(cs, 0, "b", user="user_0", am_mb=None)
    app = cs.attempts[attempt_id(0)]
    key = KEY
    cs.allocate(
        attempt_id(0),
        [
            ask(GB, 1, name="host0"),
            ask(GB, 1, name="rack_0"),
            ask(GB, 1, name="host1"),
            ask(GB, 1, name="rack_1"),
            ask(GB, 3),  # one extra
        ],
        [],
    )

    def outstanding() -> int:
        ka = app.keys.get(key)
        return ka.any_count if ka is not None else 0

    # Start with off switch, shouldn't allocate due to delay scheduling
    for missed in (1, 2, 3):
        assert heartbeat(cs, node_2) == []
        assert (app.opportunities[key], outstanding()) == (missed, 3)
    # Another off switch, now we should allocate since missedOpportunities=3 and reqdContainers=3
    assert placed(cs, node_2) == [("host2:8041", "OFF_SWITCH")]
    assert (app.opportunities[key], outstanding()) == (4, 2)  # should NOT reset
    # NODE_LOCAL - node_0, then node_1: should reset
    assert placed(cs, node_0) == [("host0:8041", "NODE_LOCAL")]
    assert (app.opportunities[key], outstanding()) == (0, 1)
    assert placed(cs, node_1) == [("host1:8041", "NODE_LOCAL")]
    assert (app.opportunities[key], outstanding()) == (0, 0)

    # Add 1 more request to check for RACK_LOCAL
    cs.allocate(attempt_id(0), [ask(GB, 1, name="host1"), ask(GB, 3, name="rack_1"), ask(GB, 4)], [])
    assert outstanding() == 4
    # Rack-delay: doReturn(true).when(a).getRackLocalityFullReset(); doReturn(1).when(a).getNodeLocalityDelay()
    cs._ctx.rack_full_reset = True
    cs._ctx.node_locality_delay = 1
    assert heartbeat(cs, node_3) == []  # Shouldn't assign RACK_LOCAL yet
    assert (app.opportunities[key], outstanding()) == (1, 4)
    assert placed(cs, node_3) == [("host3:8041", "RACK_LOCAL")]  # RACK_LOCAL now
    assert (app.opportunities[key], outstanding()) == (0, 3)  # should reset
    assert heartbeat(cs, node_3) == []  # schedulingOpportunities got reset
    assert (app.opportunities[key], outstanding()) == (1, 3)
    cs._ctx.rack_full_reset = False  # Next time we schedule RACK_LOCAL, don't reset
    assert placed(cs, node_3) == [("host3:8041", "RACK_LOCAL")]
    assert (app.opportunities[key], outstanding()) == (2, 2)  # should NOT reset
    assert placed(cs, node_3) == [("host3:8041", "RACK_LOCAL")]
    assert (app.opportunities[key], outstanding()) == (3, 1)

    # Add a request larger than cluster size to verify OFF_SWITCH delay is capped by cluster size
    app.opportunities[key] = 0  # app_0.resetSchedulingOpportunities(schedulerKey)
    cs.allocate(attempt_id(0), [ask(GB, 100, name="host0"), ask(GB, 100, name="rack_0"), ask(GB, 100)], [])
    for i in range(num_nodes):
        assert heartbeat(cs, node_2) == []
        assert app.opportunities[key] == i + 1
    assert placed(cs, node_2) == [("host2:8041", "OFF_SWITCH")]  # OFF_SWITCH
    assert app.opportunities[key] == num_nodes + 1


def _metrics(cs, path: str):
    return next(m for m in cs.queue_metrics() if m.path == path)


def _aggregates(m) -> tuple[int, int, int]:
    return (
        m.aggregate_node_local_containers_allocated,
        m.aggregate_rack_local_containers_allocated,
        m.aggregate_off_switch_containers_allocated,
    )


def test_node_type_aggregations_incrNodeTypeAggregations():
    """QueueMetrics.incrNodeTypeAggregations: each allocation counts once by its locality, in the leaf and its
    parents; the ContainerAllocated notification names the type."""
    cs = make_scheduler(
        {"root.p": {"capacity": 100}, "root.p.a": {"capacity": 100}},
        **LOCALITY_DELAYS,
        **{k.ASSIGN_MULTIPLE_ENABLED: "false"},
    )
    n0, n1, n2 = (add_node(cs, i, rack=r) for i, r in ((0, "/r0"), (1, "/r0"), (2, "/r1")))
    submit(cs, 1, "a", am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 2, name="host0"), ask(GB, 2, name="/r0"), ask(GB, 3)], [])
    got = heartbeat(cs, n0)  # NODE_LOCAL
    for _ in range(3):
        got += heartbeat(cs, n1)  # RACK_LOCAL after node-locality-delay (2) misses
    for _ in range(4):
        got += heartbeat(cs, n2)  # OFF_SWITCH after 2 + 1 more
    assert [a.locality for a in got] == ["NODE_LOCAL", "RACK_LOCAL", "OFF_SWITCH"]
    for path in ("root.p.a", "root.p", "root"):
        assert _aggregates(_metrics(cs, path)) == (1, 1, 1)
    live = [c.id for c in cs.allocate(attempt_id(1), [], []).containers]
    cs.allocate(attempt_id(1), [], live)  # released containers stay counted (aggregate metrics)
    assert _aggregates(_metrics(cs, "root.p.a")) == (1, 1, 1)


def test_allocation_type_in_debug_event_log():
    """FiCaSchedulerApp.apply logs "allocate: ... type=NODE_LOCAL|RACK_LOCAL|OFF_SWITCH" (debug): so does the RM."""

    wl = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build()
    c = Cluster({}, wl.nodes, seed=1)
    c.submit(DistributedShellAppMaster(name="ds", num_containers=2, duration_ms=1_000))
    with structlog.testing.capture_logs() as logs:
        c.run()
    allocated = [e for e in logs if e["event"] == "container_allocated"]
    assert len(allocated) == 3  # the AM container and two task containers
    assert {e["type"] for e in allocated} <= {"NODE_LOCAL", "RACK_LOCAL", "OFF_SWITCH"}
    assert all(e["log_level"] == "debug" for e in allocated)
