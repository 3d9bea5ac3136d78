"""Hadoop's TestApplicationLimits: AM-limit activation (testAMResourceLimit, testActiveApplicationLimits,
testActiveLimitsWithKilledApps).

Hadoop drives one LeafQueue ``a`` (10 % of root, ``minimum-user-limit-percent`` 50, ``user-limit-factor`` 5) with
mocked FiCaSchedulerApps whose AM resource is stubbed; here they are real attempts submitted to a CapacityScheduler
(``submitApplicationAttempt`` = APP_ADDED + APP_ATTEMPT_ADDED, the AM size told first with ``set_am_resource``,
``finishApplicationAttempt`` = APP_ATTEMPT_REMOVED). The mocked apps never ask for anything, so no user is active in
Hadoop's UsersManager; the ported apps ask for nothing either, except in testAMResourceLimit, where Hadoop stubs the
active-user count (1, then 2) and the port gets it for real: each app asks for its AM container.

Hadoop's limits are Resources built by DefaultResourceCalculator.multiplyAndNormalizeUp with
``createResource(memory)``, i.e. one vcore; yarnball computes their vcores by the same arithmetic as the memory (never
compared under this calculator), so the AM-limit assertions compare memory.
"""

from __future__ import annotations

from test_capacity_scheduler_helpers import GB, add_node, app_id, attempt_id, make_scheduler, submit

from yarnball.policies.capacity import CapacityScheduler, LeafQueue
from yarnball.protocols import AppAttemptRemovedSchedulerEvent, Resource

QUEUES: dict[str, dict[str, object]] = {
    "root.a": {"capacity": 10, "minimum-user-limit-percent": 50, "user-limit-factor": 5.0},
    "root.b": {"capacity": 90},
}


def scheduler(cluster_mb: int, cluster_vcores: int) -> tuple[CapacityScheduler, LeafQueue]:
    cs = make_scheduler(QUEUES)
    add_node(cs, 0, cluster_mb, cluster_vcores)
    leaf = cs.get_queue("root.a")
    assert isinstance(leaf, LeafQueue)
    return cs, leaf


def submit_attempt(cs: CapacityScheduler, n: int, user: str, am_mb: int, ask_am: bool = False) -> None:
    cs.set_am_resource(app_id(n), Resource(am_mb, 0))
    submit(cs, n, queue="a", user=user, am_mb=am_mb if ask_am else None)


def finish(cs: CapacityScheduler, n: int) -> None:
    cs.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt_id(n)))


def counts(leaf: LeafQueue, user: str | None = None) -> tuple[int, int]:
    """(getNumActiveApplications, getNumPendingApplications), for the queue or one user."""
    if user is None:
        return len(leaf.active), len(leaf.pending)
    u = leaf.users.get(user)
    return (u.active_apps, u.pending_apps) if u is not None else (0, 0)


def user_am_limit_mb(cs: CapacityScheduler, leaf: LeafQueue, user: str) -> int:
    return leaf.user_am_limit(cs._ctx, leaf.get_user(user))[0]


def test_am_resource_limit_testAMResourceLimit():
    """80 GB: AM limit 8 GB; user AM limit 4 GB with one active user, 2 GB (the 50 % user limit) with two."""
    cs, leaf = scheduler(80 * GB, 40)
    assert leaf.am_limit_m == 8 * GB
    assert user_am_limit_mb(cs, leaf, "user_0") == 4 * GB
    submit_attempt(cs, 0, "user_0", 2 * GB, ask_am=True)
    assert counts(leaf) == (1, 0)
    assert counts(leaf, "user_0") == (1, 0)
    submit_attempt(cs, 1, "user_0", 2 * GB, ask_am=True)
    assert counts(leaf) == (2, 0)
    assert counts(leaf, "user_0") == (2, 0)
    assert leaf.am_limit_m == 8 * GB
    assert user_am_limit_mb(cs, leaf, "user_0") == 4 * GB
    submit_attempt(cs, 2, "user_1", 2 * GB, ask_am=True)
    assert counts(leaf) == (3, 0)
    assert counts(leaf, "user_1") == (1, 0)
    # a second active user: the user AM limit drops to the queue's 50 %
    assert leaf.active_users == 2
    assert leaf.am_limit_m == 8 * GB
    assert user_am_limit_mb(cs, leaf, "user_1") == 2 * GB
    submit_attempt(cs, 3, "user_1", 2 * GB, ask_am=True)
    assert counts(leaf) == (3, 1)
    assert counts(leaf, "user_1") == (1, 1)
    finish(cs, 2)
    assert counts(leaf) == (3, 0)
    assert counts(leaf, "user_1") == (1, 0)


def test_active_application_limits_testActiveApplicationLimits():
    """160 GB (Hadoop's mocked cluster, 10 x 16 GB): AM limit 16 GB, user AM limit 8 GB."""
    cs, leaf = scheduler(10 * 16 * GB, 10 * 32)
    assert leaf.am_limit_m == 16 * GB
    assert user_am_limit_mb(cs, leaf, "user_0") == 8 * GB
    steps = [
        # (action, app, user, AM GB, queue (active, pending), {user: (active, pending)})
        ("submit", 0, "user_0", 4, (1, 0), {"user_0": (1, 0)}),
        ("submit", 1, "user_0", 4, (2, 0), {"user_0": (2, 0)}),
        ("submit", 2, "user_0", 4, (2, 1), {"user_0": (2, 1)}),  # user AM limit
        ("finish", 0, None, 0, (2, 0), {"user_0": (2, 0)}),  # app_2 activated
        ("submit", 3, "user_0", 4, (2, 1), {"user_0": (2, 1)}),
        ("submit", 4, "user_1", 8, (3, 1), {"user_0": (2, 1), "user_1": (1, 0)}),
        ("submit", 5, "user_2", 8, (3, 2), {"user_0": (2, 1), "user_1": (1, 0), "user_2": (0, 1)}),  # queue limit
        ("finish", 4, None, 0, (3, 1), {"user_0": (2, 1), "user_1": (0, 0), "user_2": (1, 0)}),
    ]
    for action, n, user, am_gb, queue_counts, user_counts in steps:
        if action == "submit":
            submit_attempt(cs, n, user, am_gb * GB)
        else:
            finish(cs, n)
        assert counts(leaf) == queue_counts, (action, n)
        for name, expected in user_counts.items():
            assert counts(leaf, name) == expected, (action, n, name)


def test_active_limits_with_killed_apps_testActiveLimitsWithKilledApps():
    cs, leaf = scheduler(10 * 16 * GB, 10 * 32)

    def holds(n: int, where: list) -> bool:
        return any(a.attempt_id == attempt_id(n) for a in where)

    for n, expected in ((0, (1, 0)), (1, (2, 0))):
        submit_attempt(cs, n, "user_0", 4 * GB)
        assert counts(leaf) == expected and counts(leaf, "user_0") == expected
        assert holds(n, leaf.active)
    for n, expected in ((2, (2, 1)), (3, (2, 2))):
        submit_attempt(cs, n, "user_0", 4 * GB)
        assert counts(leaf) == expected and counts(leaf, "user_0") == expected
        assert holds(n, leaf.pending)
    finish(cs, 2)  # the third, still pending, is killed
    assert counts(leaf) == (2, 1) and counts(leaf, "user_0") == (2, 1)
    assert not holds(2, leaf.pending) and not holds(2, leaf.active)
    finish(cs, 0)  # app_3 becomes active
    assert counts(leaf) == (2, 0) and counts(leaf, "user_0") == (2, 0)
    assert holds(3, leaf.active) and not holds(3, leaf.pending) and not holds(0, leaf.active)
    finish(cs, 1)
    assert counts(leaf) == (1, 0) and counts(leaf, "user_0") == (1, 0)
    assert not holds(1, leaf.active)
    finish(cs, 3)
    assert counts(leaf) == (0, 0) and counts(leaf, "user_0") == (0, 0)
    assert not holds(3, leaf.active)
