"""Hadoop's TestLeafQueue: delay scheduling, locality constraints and blacklists, scheduler-key priorities.

Over ``leaf_harness.LeafHarness`` (TestLeafQueue's set-up in a real CapacityScheduler). Hadoop's nodes are named
127.0.0.x on racks rack_x; here node ``i`` is ``host{i}`` on the rack the test gives it. Hadoop mocks the number of
cluster nodes (``getNumClusterNodes``) and heartbeats only some of them; here that many nodes are registered and the
others stay idle. ``verifyContainerAllocated`` (3 assertions: a resource, an allocation, its NodeType) is one
allocation of that locality; ``verifyNoContainerAllocated`` (2) is none. Hadoop's ``assignment.getType()`` after a
heartbeat that allocates nothing (NODE_LOCAL, the initial value) is skipped: yarnball returns no assignment then.
"""

from __future__ import annotations

from leaf_harness import NEW_ROOT, LeafHarness
from test_capacity_scheduler_helpers import GB

from yarnball.protocols import ANY
from yarnball.protocols import keys as k

A = f"{NEW_ROOT}.a"
B = f"{NEW_ROOT}.b"


def allocated(h: LeafHarness, node: int, locality: str) -> int:
    """verifyContainerAllocated(assignment, NodeType): 3 assertions."""
    got = h.assign(node)
    assert len(got) == 1 and got[0].container.resource.memory_mb > 0
    assert got[0].locality == locality
    return 3


def typed(h: LeafHarness, node: int, locality: str) -> int:
    """``assertEquals(NodeType, assignment.getType())`` after a heartbeat that allocates: 1 assertion."""
    got = h.assign(node)
    assert [a.locality for a in got] == [locality]
    return 1


def nothing(h: LeafHarness, node: int) -> int:
    """verifyNoContainerAllocated(assignment): 2 assertions."""
    assert h.assign(node) == []
    return 2


def test_application_priority_scheduling_testApplicationPriorityScheduling():
    """P1 waits for locality on node_2 and holds back P2 (node-local there); P1 goes off-switch after 3 missed
    opportunities, node-local on node_0; P2 then off-switch on node_1."""
    h = LeafHarness(A, 3, 8 * GB, racks=("rack_0", "rack_1", "rack_2"))
    h.submit(0, "user_0")
    h.asks(0, ("host0", 1, 1, True, 1), ("rack_0", 1, 1, True, 1), ("host1", 1, 1, True, 1),
           ("rack_1", 1, 1, True, 1), (ANY, 1, 2, True, 1),
           ("host2", 2, 1, True, 2), ("rack_2", 2, 1, True, 2), (ANY, 2, 1, True, 2))  # fmt: skip
    made = 0

    def keys(o1: int, n1: int, o2: int, n2: int) -> int:
        assert (h.opportunities(0, 1), h.outstanding(0, 1)) == (o1, n1)
        assert (h.opportunities(0, 2), h.outstanding(0, 2)) == (o2, n2)
        return 4

    made += nothing(h, 2) + keys(1, 2, 0, 1)
    made += nothing(h, 2) + keys(2, 2, 0, 1)
    made += allocated(h, 2, "OFF_SWITCH") + keys(3, 1, 0, 1)
    made += allocated(h, 0, "NODE_LOCAL") + keys(0, 0, 0, 1)
    made += allocated(h, 1, "OFF_SWITCH") + keys(0, 0, 1, 0)
    assert made == 33


def test_scheduling_constraints_testSchedulingConstraints():
    """Host and rack asks without ANY, then ANY 1: node-local on node_0_0; nothing on node_1_0 once ANY is 0; after a
    new ANY 1, nothing on node_0_1 (its rack's ask is used up), node-local on node_1_0."""
    h = LeafHarness(A, 3, 8 * GB, racks=("rack_0", "rack_0", "rack_1"))
    h.submit(0, "user_0")
    h.asks(0, ("host0", 1, 1), ("host1", 1, 1), ("rack_0", 1, 1), ("host2", 1, 1), ("rack_1", 1, 1))
    h.asks(0, (ANY, 1, 1))
    made = allocated(h, 0, "NODE_LOCAL")
    assert (h.opportunities(0), h.outstanding(0)) == (0, 0)
    made += 2 + nothing(h, 2)  # required(ANY) == 0
    assert (h.opportunities(0), h.outstanding(0)) == (0, 0)
    made += 2
    h.asks(0, (ANY, 1, 1))
    made += nothing(h, 1)  # required(rack_0) == 0
    assert (h.opportunities(0), h.outstanding(0)) == (1, 1)
    made += 2 + allocated(h, 2, "NODE_LOCAL")
    assert (h.opportunities(0), h.outstanding(0)) == (0, 0)
    assert made + 2 == 18


def test_locality_constraints_testLocalityConstraints():
    """relax-locality false on a rack and on ANY, and blacklisted hosts and racks: nothing allocated (and no missed
    opportunity counted) until the node-local ask on node_1_0."""
    # host_0_0 (host0, not heartbeaten), node_0_1 (host1) on rack_0; node_1_0 (host2), node_1_1 (host3) on rack_1
    h = LeafHarness(A, 4, 8 * GB, racks=("rack_0", "rack_0", "rack_1", "rack_1"))
    h.submit(0, "user_0")
    h.submit(1, "user_0")
    h.asks(0, ("host0", 1, 1, True), ("host2", 1, 1, True), ("rack_1", 1, 1, False), (ANY, 1, 1, False))
    h.blacklist(0, additions=("host0",))
    made = nothing(h, 1)  # RR(rack_0) = null and RR(ANY) relax false
    assert h.opportunities(0) == 0
    made += 1 + nothing(h, 3)  # RR(rack_1) relax false
    assert h.opportunities(0) == 0
    made += 1
    h.asks(0, ("rack_1", 1, 1, True))
    h.blacklist(0, additions=("host3",))
    made += nothing(h, 3)  # node_1_1 blacklisted
    assert h.opportunities(0) == 0
    made += 1
    h.blacklist(0, additions=("rack_1",), removals=("host3",))
    made += nothing(h, 3)  # rack_1 blacklisted
    assert h.opportunities(0) == 0
    made += 1
    h.blacklist(0, removals=("rack_1",))
    made += nothing(h, 3)  # rack_1 relaxes, but ANY does not
    assert (h.opportunities(0), h.outstanding(0)) == (0, 1)
    made += 2
    h.asks(0, ("rack_1", 1, 1, False), (ANY, 1, 1, False))
    made += allocated(h, 2, "NODE_LOCAL")
    assert (h.opportunities(0), h.outstanding(0)) == (0, 0)
    assert made + 2 == 21


def test_rack_locality_delay_scheduling_testRackLocalityDelayScheduling():
    """node-locality-delay 2, rack-locality-additional-delay 1 over 5 nodes: rack-local at the 3rd opportunity,
    off-switch at the 4th; with an additional delay of 10 the off-switch wait is capped by the 5 nodes."""
    # Hadoop's host1..host4 on rack_1, rack_2, rack_2, rack_3 are host0..host3 here (a fifth node on rack_4)
    h = LeafHarness(B, 5, 8 * GB, racks=("rack_1", "rack_2", "rack_2", "rack_3", "rack_4"),
                    **{k.NODE_LOCALITY_DELAY: 2, k.RACK_LOCALITY_ADDITIONAL_DELAY: 1})  # fmt: skip
    assert (h.cs._ctx.node_locality_delay, h.cs._ctx.rack_additional_delay) == (2, 1)
    h.submit(0, "user_1")
    h.asks(0, ("host0", 1, 1), ("rack_1", 1, 1), ("host1", 1, 1), ("rack_2", 1, 1), (ANY, 1, 3))
    assert h.outstanding(0) == 3
    made = 3 + nothing(h, 2)  # no rack-local yet
    assert (h.opportunities(0), h.outstanding(0)) == (1, 3)
    made += 2
    h.assign(2)  # still no rack-local
    assert (h.opportunities(0), h.outstanding(0)) == (2, 3)
    made += 2 + typed(h, 2, "RACK_LOCAL")
    assert (h.opportunities(0), h.outstanding(0)) == (0, 2)
    made += 2
    for _ in range(3):  # no off-switch until 3 missed opportunities
        h.assign(3)
    assert (h.opportunities(0), h.outstanding(0)) == (3, 2)
    made += 2 + typed(h, 3, "OFF_SWITCH")
    assert (h.opportunities(0), h.outstanding(0)) == (4, 1)
    made += 2
    h.cs._ctx.rack_additional_delay = 10  # doReturn(10).when(a).getRackLocalityAdditionalDelay()
    h.assign(3)
    assert (h.opportunities(0), h.outstanding(0)) == (5, 1)
    made += 2 + typed(h, 3, "OFF_SWITCH")
    assert (h.opportunities(0), h.outstanding(0)) == (6, 0)
    assert made + 2 == 22


def test_locality_delay_skips_application_testLocalityDelaySkipsApplication():
    """app_0 (submitted first) waits for node-locality on node_2; app_1's node-local ask there is allocated."""
    h = LeafHarness(A, 3, 8 * GB, racks=("rack_0", "rack_1", "rack_2"))
    h.submit(0, "user_0")
    h.submit(1, "user_0")
    h.asks(0, ("host0", 1, 1), ("rack_0", 1, 1), ("host1", 1, 1), ("rack_1", 1, 1), (ANY, 1, 3))
    h.asks(1, ("host2", 1, 1), ("rack_2", 1, 1), (ANY, 1, 1))
    made = allocated(h, 2, "NODE_LOCAL")
    assert (h.opportunities(0), h.outstanding(0)) == (1, 3)
    assert (h.live(0), h.live(1)) == (0, 1)
    assert made + 4 == 7
