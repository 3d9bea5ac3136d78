"""Hadoop's TestReservations: reservations and reservations-continue-look-all-nodes, step by step.

Hadoop builds ``root.<newRoot>.a`` (100 % all the way down) over a mocked scheduler context, submits spied
FiCaSchedulerApps and calls ``a.assignContainers`` on mocked 8 GB nodes, committing each proposal with
``TestUtils.applyResourceCommitRequest``. Here the same tree runs in a CapacityScheduler: each ``assignContainers``
is one NODE_UPDATE heartbeat from that node (every ask is off-switch, and one off-switch assignment per heartbeat is
the default, so a heartbeat assigns what one ``assignContainers`` call does). The asks are the tests' own: an AM at
priority 1, maps at 5, reduces at 10. Each step lists what Hadoop asserts after it.
"""

from __future__ import annotations

from typing import Any

from test_capacity_scheduler_helpers import GB, add_node, ask, attempt_id, heartbeat, make_conf, make_scheduler, submit

from yarnball.policies.capacity import CapacityScheduler
from yarnball.policies.capacity._context import ResourceLimits

QUEUE = "root.r.a"


def started(nodes: int, *, continue_look: bool = True, user_limits: bool = False, users=("user_0", "user_0")):
    a: dict[str, object] = {"capacity": 100, "maximum-capacity": 100}
    if user_limits:
        a.update({"minimum-user-limit-percent": 25, "user-limit-factor": 0.25})
    extra: dict[str, Any] = {}
    if not continue_look:
        extra["yarn.scheduler.capacity.reservations-continue-look-all-nodes"] = "false"
    cs = make_scheduler({"root.r": {"capacity": 100, "maximum-capacity": 100}, QUEUE: a}, **extra)
    nids = [add_node(cs, i, 8 * GB, 16) for i in range(nodes)]
    for n, user in enumerate(users):
        submit(cs, n, queue="a", user=user, am_mb=None)
    return cs, nids


MR_ASKS = [(2, 1, 1), (5, 2, 10), (3, 2, 5)]  # (GB, containers, priority): AM, reduces, maps


def check(cs: CapacityScheduler, nids: list, step: str, expect: dict[str, Any]) -> int:
    """Hadoop's assertions after one step; returns how many were made."""
    metrics = {q.path: q for q in cs.queue_metrics()}[QUEUE]
    made = 0

    def eq(got: object, want: object, what: str) -> None:
        nonlocal made
        assert got == want, f"{step}: {what}: {got} != {want}"
        made += 1

    if "used" in expect:
        eq(cs.get_queue(QUEUE).used_m, expect["used"] * GB, "a.getUsedResources")
    for n, gb in enumerate(expect.get("apps", ())):
        eq(cs.attempts[attempt_id(n)].used_m, gb * GB, f"app_{n}.getCurrentConsumption")
    eq(metrics.reserved.memory_mb, expect["reserved"] * GB, "getReservedMB")
    eq(metrics.allocated.memory_mb, expect["allocated"] * GB, "getAllocatedMB")
    eq(metrics.available.memory_mb, expect["available"] * GB, "getAvailableMB")
    if "headroom" in expect:
        eq(cs.headroom(attempt_id(0)).memory_mb, expect["headroom"] * GB, "app_0.getHeadroom")
    if "reserved_on_0" in expect:
        reserved = cs.nodes[nids[0]].reserved
        got = None if reserved is None else reserved.mem // GB
        eq(got, expect["reserved_on_0"], "node_0.getReservedContainer")
    for i, gb in enumerate(expect["nodes"]):
        eq(cs.node_report(nids[i]).used.memory_mb, gb * GB, f"node_{i}.getAllocatedResource")
    if "reduces" in expect:
        eq(cs.attempts[attempt_id(0)].get_outstanding_asks_count(10), expect["reduces"], "getOutstandingAsksCount")
    return made


def run(cs: CapacityScheduler, nids: list, steps: list[tuple[str, int, dict[str, Any]]]) -> int:
    made = 0
    for step, node, expect in steps:
        heartbeat(cs, nids[node])
        made += check(cs, nids, step, expect)
    return made


def mr_job(cs: CapacityScheduler) -> None:
    for gb, n, priority in MR_ASKS:
        cs.allocate(attempt_id(0), [ask(gb * GB, n, priority=priority)], [])


# The first three steps of testReservation and testReservationNoContinueLook (3 nodes, 24 GB).
FIRST_STEPS: list[tuple[str, int, dict[str, Any]]] = [
    ("only AM", 0, {"used": 2, "apps": (2,), "reserved": 0, "allocated": 2, "available": 22, "nodes": (2, 0, 0)}),
    ("1 map", 0, {"used": 5, "apps": (5,), "reserved": 0, "allocated": 5, "available": 19, "nodes": (5, 0, 0)}),
    ("1 map to node_1", 1, {"used": 8, "apps": (8,), "reserved": 0, "allocated": 8, "available": 16,
                            "headroom": 16, "reserved_on_0": None, "nodes": (5, 3, 0), "reduces": 2}),
    ("reduce reserved on node_0", 0, {"used": 13, "apps": (8,), "reserved": 5, "allocated": 8, "available": 11,
                                      "headroom": 11, "reserved_on_0": 5, "nodes": (5, 3, 0), "reduces": 2}),
    ("reduce on node_2", 2, {"used": 18, "apps": (13,), "reserved": 5, "allocated": 13, "available": 6,
                             "headroom": 6, "reserved_on_0": 5, "nodes": (5, 3, 5), "reduces": 1}),
]  # fmt: skip


def test_reservation_testReservation():
    cs, nids = started(3)
    mr_job(cs)
    last = ("node_1 unreserves node_0", 1, {"used": 18, "apps": (18,), "reserved": 0, "allocated": 18,
                                            "available": 6, "headroom": 6, "reserved_on_0": None,
                                            "nodes": (5, 8, 5), "reduces": 0})  # fmt: skip
    assert run(cs, nids, [*FIRST_STEPS, last]) == 60


def test_reservation_no_continue_look_testReservationNoContinueLook():
    """reservations-continue-look-all-nodes off: node_1 does not unreserve node_0 (the app may be stuck)."""
    cs, nids = started(3, continue_look=False)
    mr_job(cs)
    last = ("node_1 keeps node_0's reservation", 1, {"used": 18, "apps": (13,), "reserved": 5, "allocated": 13,
                                                     "available": 6, "headroom": 6, "reserved_on_0": 5,
                                                     "nodes": (5, 3, 5), "reduces": 1})  # fmt: skip
    assert run(cs, nids, [*FIRST_STEPS, last]) == 60


def test_assign_containers_need_to_unreserve_testAssignContainersNeedToUnreserve():
    """Two nodes (16 GB): node_1 could take the reduce only by giving up node_0's reservation first."""
    cs, nids = started(2)
    mr_job(cs)
    steps: list[tuple[str, int, dict[str, Any]]] = [
        ("only AM", 0, {"used": 2, "apps": (2,), "reserved": 0, "allocated": 2, "available": 14, "nodes": (2, 0)}),
        ("1 map", 0, {"used": 5, "apps": (5,), "reserved": 0, "allocated": 5, "available": 11, "nodes": (5, 0)}),
        ("1 map to node_1", 1, {"used": 8, "apps": (8,), "reserved": 0, "allocated": 8, "available": 8,
                                "headroom": 8, "reserved_on_0": None, "nodes": (5, 3), "reduces": 2}),
        ("reduce reserved on node_0", 0, {"used": 13, "apps": (8,), "reserved": 5, "allocated": 8, "available": 3,
                                          "headroom": 3, "reserved_on_0": 5, "nodes": (5, 3), "reduces": 2}),
        ("unreserve, then allocate on node_1", 1, {"used": 13, "apps": (13,), "reserved": 0, "allocated": 13,
                                                   "available": 3, "headroom": 3, "reserved_on_0": None,
                                                   "nodes": (5, 8), "reduces": 1}),
    ]  # fmt: skip
    assert run(cs, nids, steps) == 44


def test_reservation_limit_other_users_testReservationLimitOtherUsers():
    """user_0 over its limit with a reservation does not stop user_1's app (user limit 25 %, factor 0.25)."""
    cs, nids = started(3, user_limits=True, users=("user_0", "user_1"))
    for n in (0, 1):
        cs.allocate(attempt_id(n), [ask(2 * GB, 1, priority=1)], [])
    steps: list[tuple[str, int, dict[str, Any]]] = [
        ("AM of app_0", 0, {"used": 2, "apps": (2, 0), "reserved": 0, "allocated": 2, "available": 22,
                            "nodes": (2, 0, 0)}),
        ("AM of app_1", 1, {"used": 4, "apps": (2, 2), "reserved": 0, "allocated": 4, "available": 20,
                            "nodes": (2, 2, 0)}),
    ]  # fmt: skip
    made = run(cs, nids, steps)
    cs.allocate(attempt_id(0), [ask(8 * GB, 2, priority=5)], [])
    cs.allocate(attempt_id(1), [ask(2 * GB, 2, priority=5)], [])
    steps = [
        ("reservation for app_0", 0, {"used": 12, "apps": (2, 2), "reserved": 8, "allocated": 4, "available": 12,
                                      "nodes": (2, 2, 0)}),
        ("user_0 over its limit, app_1 assigned", 1, {"used": 14, "apps": (2, 4), "reserved": 8, "allocated": 6,
                                                      "available": 10, "nodes": (2, 4, 0)}),
    ]  # fmt: skip
    made += run(cs, nids, steps)
    assert made == 36


def test_assign_to_queue_testAssignToQueue():
    """The first four steps of testAssignContainersNeedToUnreserve, then ``canAssignToThisQueue`` at the 13 GB limit
    with 3 GB that could be unreserved: allowed (headroom 0) while reservations-continue-look-all-nodes is on,
    refused once a refresh turns it off (``refreshQueuesTurnOffReservationsContLook``)."""
    cs, nids = started(2)
    for gb, n, priority in MR_ASKS:
        cs.allocate(attempt_id(0), [ask(gb * GB, n, priority=priority)], [])
    steps: list[tuple[str, int, dict[str, Any]]] = [
        ("only AM", 0, {"used": 2, "apps": (2,), "reserved": 0, "allocated": 2, "available": 14, "nodes": (2, 0)}),
        ("1 map", 0, {"used": 5, "apps": (5,), "reserved": 0, "allocated": 5, "available": 11, "nodes": (5, 0)}),
        ("1 map to node_1", 1, {"used": 8, "apps": (8,), "reserved": 0, "allocated": 8, "available": 8,
                                "reserved_on_0": None, "nodes": (5, 3)}),
        ("reduce reserved on node_0", 0, {"used": 13, "apps": (8,), "reserved": 5, "allocated": 8, "available": 3,
                                          "headroom": 3, "nodes": (5, 3)}),
    ]  # fmt: skip
    made = run(cs, nids, steps)
    a = cs.get_queue(QUEUE)
    limits = ResourceLimits(13 * GB, 13)
    assert a.can_assign_to_this_queue(cs._ctx, limits, 3 * GB, 0)
    assert limits.headroom_m == 0
    made += refresh_turning_off_continue_look(cs)
    assert not a.can_assign_to_this_queue(cs._ctx, ResourceLimits(13 * GB, 13), 3 * GB, 0)
    assert made + 3 == 37


def refresh_turning_off_continue_look(cs: CapacityScheduler) -> int:
    """``refreshQueuesTurnOffReservationsContLook``: the leaf's and its parent's getReservationContinueLooking, true
    before and false after a refresh that sets reservations-continue-look-all-nodes to false. yarnball keeps the
    setting once, scheduler-wide (Hadoop copies it into every queue), so each pair of assertions reads it once."""
    assert cs._ctx.continue_looking is True
    cs.reinitialize(
        make_conf(
            {"root.r": {"capacity": 100, "maximum-capacity": 100}, QUEUE: {"capacity": 100, "maximum-capacity": 100}},
            **{"yarn.scheduler.capacity.reservations-continue-look-all-nodes": "false"},
        )
    )
    assert cs._ctx.continue_looking is False
    return 4


def test_continue_looking_reservations_after_queue_refresh_testContinueLookingReservationsAfterQueueRefresh():
    cs, _ = started(1)
    assert refresh_turning_off_continue_look(cs) == 4


def test_reservations_none_available_testReservationsNoneAvailable():
    """Two calls with a 10 GB limit from the parent (``a.assignContainers(..., new ResourceLimits(10 GB))``, made on
    the leaf as Hadoop makes them): no reservation when one would need unreserving first; later, at the queue limit,
    an 8 GB ask reserved on node_0 stops further reservations."""
    cs, nids = started(3)
    for gb, n, priority in ((2, 1, 1), (3, 2, 5), (5, 1, 10), (8, 2, 12)):
        cs.allocate(attempt_id(0), [ask(gb * GB, n, priority=priority)], [])
    leaf = cs.get_queue(QUEUE)

    def limited(node: int) -> None:
        leaf.assign(cs._ctx, cs.nodes[nids[node]], ResourceLimits(10 * GB, 10))

    made = run(cs, nids, [
        ("only AM", 0, {"used": 2, "apps": (2,), "reserved": 0, "allocated": 2, "available": 22,
                        "nodes": (2, 0, 0)}),
        ("1 map", 0, {"used": 5, "apps": (5,), "reserved": 0, "allocated": 5, "available": 19, "nodes": (5, 0, 0)}),
        ("1 map to node_1", 1, {"used": 8, "apps": (8,), "reserved": 0, "allocated": 8, "available": 16,
                                "headroom": 16, "nodes": (5, 3, 0)}),
    ])  # fmt: skip
    limited_expect = {"used": 8, "apps": (8,), "reserved": 0, "allocated": 8, "available": 16, "headroom": 2,
                      "nodes": (5, 3, 0)}  # fmt: skip
    for node in (0, 2):  # node_0: would need to unreserve; node_2: nothing to unreserve
        limited(node)
        made += check(cs, nids, f"10 GB limit on node_{node}", limited_expect)
    made += run(cs, nids, [
        ("5 GB on node_2", 2, {"used": 13, "apps": (13,), "reserved": 0, "allocated": 13, "available": 11,
                               "headroom": 11, "nodes": (5, 3, 5)}),
        ("8 GB reserved on node_0", 0, {"used": 21, "apps": (13,), "reserved": 8, "allocated": 13, "available": 3,
                                        "headroom": 3, "nodes": (5, 3, 5)}),
        ("queue limit: no more reservations", 2, {"used": 21, "apps": (13,), "reserved": 8, "allocated": 13,
                                                  "available": 3, "headroom": 3, "nodes": (5, 3, 5)}),
    ])  # fmt: skip
    assert made == 70


def test_assign_to_user_testAssignToUser():
    """The four steps of testAssignToQueue (a 5 GB reduce reserved on node_0), then ``canAssignToUser`` with the
    test's own user limits: 14 GB (not over: nothing to unreserve), 12 GB (13 GB used with 5 reserved: allowed, 1 GB
    and 4 vcores to unreserve), and 12 GB again once a refresh turns reservations-continue-look-all-nodes off
    (refused). ``can_assign_to_user_within`` takes the limit as Hadoop's signature does."""
    cs, nids = started(2)
    mr_job(cs)
    steps: list[tuple[str, int, dict[str, Any]]] = [
        ("only AM", 0, {"used": 2, "apps": (2,), "reserved": 0, "allocated": 2, "available": 14, "nodes": (2, 0)}),
        ("1 map", 0, {"used": 5, "apps": (5,), "reserved": 0, "allocated": 5, "available": 11, "nodes": (5, 0)}),
        ("1 map to node_1", 1, {"used": 8, "apps": (8,), "reserved": 0, "allocated": 8, "available": 8,
                                "reserved_on_0": None, "nodes": (5, 3)}),
        ("reduce reserved on node_0", 0, {"used": 13, "apps": (8,), "reserved": 5, "allocated": 8, "available": 3,
                                          "headroom": 3, "nodes": (5, 3)}),
    ]  # fmt: skip
    made = run(cs, nids, steps)
    app = cs.attempts[attempt_id(0)]
    assert app.reserved_m == 5 * GB  # app_0.getCurrentReservation
    a = cs.get_queue(QUEUE)
    made += 1
    for limit_gb, allowed, unreserve in ((14, True, (0, 0)), (12, True, (1 * GB, 4))):
        limits = ResourceLimits(cs._ctx.cluster_m, cs._ctx.cluster_v)
        assert a.can_assign_to_user_within(cs._ctx, app, limit_gb * GB, 0, limits) is allowed
        assert (limits.unres_m, limits.unres_v) == unreserve  # getAmountNeededUnreserve
        made += 2
    made += refresh_turning_off_continue_look(cs) - 4  # the refresh only (its own 4 assertions are not this test's)
    limits = ResourceLimits(cs._ctx.cluster_m, cs._ctx.cluster_v)
    assert a.can_assign_to_user_within(cs._ctx, app, 12 * GB, 0, limits) is False
    assert (limits.unres_m, limits.unres_v) == (0, 0)
    assert made + 2 == 37
