"""CapacityScheduler limits: user limit (Hadoop's worked example), headroom, AM limits, maximum applications."""

from __future__ import annotations

from test_capacity_scheduler_helpers import (
    GB,
    add_node,
    ask,
    attempt_id,
    heartbeat,
    make_scheduler,
    submit,
)

from yarnball.policies.capacity import AppRejected, LeafQueue
from yarnball.protocols import AppAttemptRemovedSchedulerEvent

TWO_QUEUES_8_5 = {
    "root.a": {"capacity": 8.5, "minimum-user-limit-percent": 50, "user-limit-factor": 2},
    "root.b": {"capacity": 91.5},
}


def _user_used(cs, queue: str, user: str) -> int:
    leaf = cs.queues[queue]
    assert isinstance(leaf, LeafQueue)
    return leaf.users[user].used_m


def test_user_limit_worked_example_testUserLimits():
    """TestLeafQueue.testUserLimits: UL 1024, then 2048 (user_0 skipped, user_1 served), then 3072."""
    cs = make_scheduler(TWO_QUEUES_8_5)
    n0 = add_node(cs, 0, 8 * GB)
    add_node(cs, 1, 8 * GB)
    submit(cs, 1, "a", user="user_0", am_mb=None)
    submit(cs, 2, "a", user="user_1", am_mb=None)
    cs.allocate(attempt_id(1), [ask(3 * GB, 2)], [])
    cs.allocate(attempt_id(2), [ask(1 * GB, 2)], [])
    leaf = cs.queues["root.a"]
    assert (leaf.eff_min_m, leaf.active_users) == (1392, 2)
    heartbeat(cs, n0)
    assert leaf.computed_user_limit(cs._ctx)[0] == 2048
    assert (_user_used(cs, "root.a", "user_0"), _user_used(cs, "root.a", "user_1")) == (3 * GB, 0)
    heartbeat(cs, n0)
    assert (_user_used(cs, "root.a", "user_0"), _user_used(cs, "root.a", "user_1")) == (3 * GB, 1 * GB)
    assert leaf.computed_user_limit(cs._ctx)[0] == 3072
    heartbeat(cs, n0)
    assert (_user_used(cs, "root.a", "user_0"), _user_used(cs, "root.a", "user_1")) == (6 * GB, 1 * GB)


def test_user_limit_first_value_is_rounded_up_to_minimum_allocation():
    """First step of the worked example: max(512, 696) rounds up to 1024."""
    cs = make_scheduler(TWO_QUEUES_8_5)
    add_node(cs, 0, 8 * GB)
    add_node(cs, 1, 8 * GB)
    submit(cs, 1, "a", user="user_0", am_mb=None)
    submit(cs, 2, "a", user="user_1", am_mb=None)
    cs.allocate(attempt_id(1), [ask(3 * GB, 2)], [])
    cs.allocate(attempt_id(2), [ask(1 * GB, 2)], [])
    assert cs.queues["root.a"].computed_user_limit(cs._ctx)[0] == 1024


def test_single_user_gets_one_container_over_its_limit():
    """used > limit is strict: with UL 8 GB (factor 1, 50% queue) a user stops at 9 GB, not 8."""
    cs = make_scheduler(
        {"root.a": {"capacity": 50}, "root.b": {"capacity": 50}},
        **{"yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments": 100},
    )
    n0 = add_node(cs, 0, 16 * GB, 16)
    submit(cs, 1, "a", am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 20)], [])
    heartbeat(cs, n0)
    assert _user_used(cs, "root.a", "user") == 9 * GB


def test_user_limit_factor_lets_user_exceed_queue_guarantee():
    """user-limit-factor 2 allows a single user twice the queue's guarantee (plus one container)."""
    cs = make_scheduler(
        {"root.a": {"capacity": 25, "user-limit-factor": 2}, "root.b": {"capacity": 75}},
        **{"yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments": 100},
    )
    n0 = add_node(cs, 0, 16 * GB, 16)
    submit(cs, 1, "a", am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 20)], [])
    heartbeat(cs, n0)
    assert _user_used(cs, "root.a", "user") == 9 * GB


def test_headroom_is_user_limit_minus_usage():
    """getHeadroom: min(UL - user used, queue limit - queue used), rounded down to the minimum allocation."""
    cs = make_scheduler({"root.a": {"capacity": 50}, "root.b": {"capacity": 50}})
    n0 = add_node(cs, 0, 16 * GB, 16)
    submit(cs, 1, "a", am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 3)], [])
    heartbeat(cs, n0)
    heartbeat(cs, n0)
    alloc = cs.allocate(attempt_id(1), [], [])
    assert alloc.headroom.memory_mb == 8 * GB - 2 * GB


def test_headroom_capped_by_cluster_free_resource():
    """Headroom never exceeds what is free in the cluster."""
    cs = make_scheduler({"root.a": {"capacity": 50, "user-limit-factor": 2}, "root.b": {"capacity": 50}})
    n0 = add_node(cs, 0, 4 * GB, 16)
    submit(cs, 1, "b", am_mb=None)
    cs.allocate(attempt_id(1), [ask(3 * GB, 1)], [])
    heartbeat(cs, n0)
    submit(cs, 2, "a", am_mb=None)
    assert cs.allocate(attempt_id(2), [], []).headroom.memory_mb == 1 * GB


def test_am_limit_keeps_second_application_pending():
    """maximum-am-resource-percent 0.1 of 10 GB = 1 GB: the second AM waits in the pending list."""
    cs = make_scheduler()
    add_node(cs, 0, 10 * GB)
    submit(cs, 1)
    submit(cs, 2)
    leaf = cs.queues["root.default"]
    assert (leaf.am_limit_m, len(leaf.active), len(leaf.pending)) == (1024, 1, 1)
    metrics = {m.path: m for m in cs.queue_metrics()}
    assert (metrics["root.default"].apps_running, metrics["root.default"].apps_pending) == (1, 1)


def test_finishing_attempt_activates_pending_application():
    """Removing the active attempt releases its AM usage and activates the pending one."""
    cs = make_scheduler()
    add_node(cs, 0, 10 * GB)
    submit(cs, 1)
    submit(cs, 2)
    cs.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt_id(1)))
    leaf = cs.queues["root.default"]
    assert [a.attempt_id for a in leaf.active] == [attempt_id(2)]
    assert leaf.pending == []


def test_first_application_activates_even_if_am_limit_too_small():
    """An AM larger than the AM limit still starts when nothing else runs (Hadoop's warning path)."""
    cs = make_scheduler()
    add_node(cs, 0, 4 * GB)
    cs.set_am_resource(attempt_id(1).application_id, __import__("yarnball").protocols.Resource(2 * GB, 1))
    submit(cs, 1, am_mb=2 * GB)
    assert len(cs.queues["root.default"].active) == 1


def test_nothing_activates_on_an_empty_cluster():
    """CLUSTER_RESOURCE_EMPTY: attempts stay pending until a node registers."""
    cs = make_scheduler()
    submit(cs, 1, am_mb=None)
    leaf = cs.queues["root.default"]
    assert (len(leaf.active), len(leaf.pending)) == (0, 1)
    add_node(cs, 0)
    assert (len(leaf.active), len(leaf.pending)) == (1, 0)


def test_user_am_limit_lets_other_users_start():
    """Per-user AM limit with 2 active users and min-user-limit-percent 50: 10 GB x 0.5 x 0.5 -> 3 GB per user."""
    cs = make_scheduler(
        {"root.default": {"capacity": 100, "minimum-user-limit-percent": 50, "maximum-am-resource-percent": 0.5}}
    )
    add_node(cs, 0, 10 * GB)
    submit(cs, 1, user="y")
    for n in range(2, 6):
        submit(cs, n, user="x")
    leaf = cs.queues["root.default"]
    assert leaf.user_am_limit(cs._ctx, leaf.users["x"])[0] == 3 * GB
    assert [a.attempt_id.application_id.id for a in leaf.active] == [1, 2, 3, 4]
    assert [a.attempt_id.application_id.id for a in leaf.pending] == [5]


def test_maximum_applications_per_queue_counts_pending_and_active():
    """maximum-applications 2: a pending app still counts; the third submission is rejected."""
    cs = make_scheduler({"root.default": {"capacity": 100, "maximum-applications": 2}})
    add_node(cs, 0, 10 * GB)
    submit(cs, 1)
    submit(cs, 2)
    out = submit(cs, 3, am_mb=None)
    rejected = [n for n in out if isinstance(n, AppRejected)]
    assert rejected[0].diagnostics == (
        "org.apache.hadoop.security.AccessControlException: Queue root.default already has 2 applications, "
        "cannot accept submission of application: application_1_0003"
    )


def test_maximum_applications_per_user():
    """maxApplicationsPerUser = maxApps x 50% x 1: the user's third app is refused with Hadoop's words."""
    cs = make_scheduler(
        {"root.default": {"capacity": 100, "maximum-applications": 4, "minimum-user-limit-percent": 50}}
    )
    add_node(cs, 0, 10 * GB)
    submit(cs, 1, user="u")
    submit(cs, 2, user="u")
    out = submit(cs, 3, user="u", am_mb=None)
    assert isinstance(out[0], AppRejected)
    assert out[0].diagnostics.endswith(
        "Queue root.default already has 2 applications from user u cannot accept submission of application: "
        "application_1_0003"
    )
    assert not isinstance(submit(cs, 4, user="v", am_mb=None)[0], AppRejected)


def test_maximum_applications_derived_from_absolute_capacity():
    """maxApplications = (int)(10000 x absoluteCapacity) in float arithmetic."""
    cs = make_scheduler({"root.a": {"capacity": 10}, "root.b": {"capacity": 90}})
    add_node(cs, 0)
    assert cs.queues["root.a"].max_apps == 1000
    assert cs.queues["root.b"].max_apps == 9000


def test_maximum_system_applications():
    """yarn.scheduler.capacity.maximum-applications counts every accepted application."""
    cs = make_scheduler(**{"yarn.scheduler.capacity.maximum-applications": 1})
    add_node(cs, 0)
    submit(cs, 1)
    out = submit(cs, 2, am_mb=None)
    assert out[0] == AppRejected(
        out[0].application_id,
        "Maximum system application limit reached,cannot accept submission of application: application_1_0002",
    )
