"""CapacityScheduler delay scheduling and reservations."""

from __future__ import annotations

from test_capacity_scheduler_helpers import (
    GB,
    add_node,
    ask,
    attempt_id,
    heartbeat,
    make_scheduler,
    submit,
    two_rack_scheduler,
)

from yarnball.policies.capacity import ContainerReserved
from yarnball.protocols import (
    ContainerState,
    ContainerStatus,
    KillReservedContainerEvent,
    NodeUpdateSchedulerEvent,
)


def _ask_host0(cs, n: int = 1, priority: int = 1, relax: bool = True):
    cs.allocate(
        attempt_id(n),
        [
            ask(GB, 1, priority, name="host0"),
            ask(GB, 1, priority, name="/r0", relax=relax),
            ask(GB, 1, priority, relax=relax),
        ],
        [],
    )


def test_node_local_allocated_at_once():
    """A heartbeat from the asked host allocates immediately."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    _ask_host0(cs)
    assert str(heartbeat(cs, nodes[0])[0].container.node_id) == "host0:8041"


def test_rack_local_waits_node_locality_delay():
    """Rack-local only after more than node-locality-delay (2) missed opportunities."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    _ask_host0(cs)
    assert heartbeat(cs, nodes[1]) == []
    assert heartbeat(cs, nodes[1]) == []
    got = heartbeat(cs, nodes[1])
    assert str(got[0].container.node_id) == "host1:8041"


def test_off_switch_waits_rack_additional_delay():
    """Off-switch only after more than node-locality-delay + rack-locality-additional-delay (3) misses."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    _ask_host0(cs)
    for _ in range(3):
        assert heartbeat(cs, nodes[2]) == []
    assert str(heartbeat(cs, nodes[2])[0].container.node_id) == "host2:8041"


def test_locality_wait_factor_without_rack_additional_delay():
    """Default rack-locality-additional-delay -1: off-switch once outstanding x (uniqueAsks-1)/nodes < missed."""
    cs = make_scheduler(**{"yarn.scheduler.capacity.node-locality-delay": 40})
    nodes = [add_node(cs, i, rack="/r0" if i < 2 else "/r1") for i in range(4)]
    submit(cs, 1, am_mb=None)
    _ask_host0(cs)
    # 1 outstanding, 3 unique asks, 4 nodes: wait = min(4, 1 x 0.5) = 0.5 < 1 missed opportunity.
    assert len(heartbeat(cs, nodes[2])) == 1


def test_relax_locality_false_never_leaves_the_host():
    """relax_locality=False on the rack and ANY asks: only host0 may run the container."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    _ask_host0(cs, relax=False)
    for _ in range(10):
        assert heartbeat(cs, nodes[2]) == []
        assert heartbeat(cs, nodes[1]) == []
    assert len(heartbeat(cs, nodes[0])) == 1


def test_locality_delay_skips_application_testLocalityDelaySkipsApplication():
    """A delayed app is skipped, and the next app in FIFO order gets the node."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    submit(cs, 2, am_mb=None)
    _ask_host0(cs, 1)
    cs.allocate(attempt_id(2), [ask(GB, 1)], [])
    got = heartbeat(cs, nodes[2])
    assert [a.attempt_id for a in got] == [attempt_id(2)]


def test_delayed_app_does_not_try_lower_priority_keys():
    """testApplicationPriorityScheduling: a delayed key stops the app; its lower-priority ANY ask waits too."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    _ask_host0(cs, 1, priority=1)
    cs.allocate(attempt_id(1), [ask(GB, 1, priority=2)], [])
    assert heartbeat(cs, nodes[2]) == []


def test_node_local_allocation_resets_missed_opportunities():
    """Node-local allocation resets the key's scheduling opportunities."""
    cs, nodes = two_rack_scheduler()
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 2, name="host0"), ask(GB, 2, name="/r0"), ask(GB, 2)], [])
    heartbeat(cs, nodes[2])
    heartbeat(cs, nodes[0])
    assert cs.get_application(attempt_id(1)).opportunities[(1, -1)] == 0


# -- reservations ------------------------------------------------------------------------------------------------
def _full_node():
    cs = make_scheduler(**{"yarn.scheduler.capacity.maximum-am-resource-percent": 1.0})
    n0 = add_node(cs, 0, 4 * GB)
    add_node(cs, 1, 4 * GB)  # the queue could hold the ask, node 0 cannot right now
    submit(cs, 1)  # 1 GB AM
    heartbeat(cs, n0)
    am = cs.allocate(attempt_id(1), [ask(4 * GB, 1)], []).containers[0]
    return cs, n0, am


def test_reservation_counts_as_queue_usage_testReservation():
    """A 4 GB ask on a node with 3 GB free is reserved; queue used = 1 GB allocated + 4 GB reserved."""
    cs, n0, _ = _full_node()
    out = cs.handle(NodeUpdateSchedulerEvent(node_id=n0))
    assert [type(n) for n in out] == [ContainerReserved]
    leaf = cs.queues["root.default"]
    assert (leaf.used_m, leaf.reserved_m) == (5 * GB, 4 * GB)
    assert cs.nodes[n0].reserved is not None


def test_reservation_fulfilled_when_node_frees_up():
    """When the AM container completes, the reservation turns into the container (same id)."""
    cs, n0, am = _full_node()
    heartbeat(cs, n0)
    reserved_id = cs.nodes[n0].reserved.cid
    done = ContainerStatus(container_id=am.id, state=ContainerState.COMPLETE, exit_status=0)
    heartbeat(cs, n0, completed=(done,))  # frees 1 GB, then fulfils the reservation
    assert cs.nodes[n0].reserved is None
    got = cs.allocate(attempt_id(1), [], []).containers
    assert [c.id for c in got] == [reserved_id]
    leaf = cs.queues["root.default"]
    assert (leaf.used_m, leaf.reserved_m) == (4 * GB, 0)


def test_reservation_on_node_blocks_other_apps():
    """While a node holds a reservation, no other app gets that node."""
    cs, n0, _ = _full_node()
    heartbeat(cs, n0)
    submit(cs, 2, am_mb=None)
    cs.allocate(attempt_id(2), [ask(GB, 1)], [])
    assert heartbeat(cs, n0) == []


def test_excess_reservation_dropped_when_ask_withdrawn():
    """An ask set to zero makes the reservation excess; the next heartbeat releases it."""
    cs, n0, _ = _full_node()
    heartbeat(cs, n0)
    cs.allocate(attempt_id(1), [ask(4 * GB, 0)], [])
    heartbeat(cs, n0)
    assert cs.nodes[n0].reserved is None
    assert cs.queues["root.default"].used_m == 1 * GB


def test_kill_reserved_container_event():
    """KILL_RESERVED_CONTAINER cancels the reservation and its usage."""
    cs, n0, _ = _full_node()
    heartbeat(cs, n0)
    cid = cs.nodes[n0].reserved.cid
    cs.handle(KillReservedContainerEvent(container_id=cid))
    assert cs.nodes[n0].reserved is None and cs.queues["root.default"].reserved_m == 0


def test_reservation_ends_the_heartbeat():
    """A reservation stops the assign-multiple loop even below the assignment limits."""
    cs = make_scheduler(
        **{
            "yarn.scheduler.capacity.maximum-am-resource-percent": 1.0,
            "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments": 100,
        }
    )
    n0 = add_node(cs, 0, 4 * GB)
    add_node(cs, 1, 4 * GB)
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(3 * GB, 1, priority=1), ask(2 * GB, 1, priority=2), ask(GB, 1, priority=3)], [])
    out = cs.handle(NodeUpdateSchedulerEvent(node_id=n0))
    assert [type(n).__name__ for n in out] == ["ContainerAllocated", "ContainerReserved"]
