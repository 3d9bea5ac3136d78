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

from test_capacity_scheduler_helpers import (
    GB,
    add_node,
    app_id,
    ask,
    attempt_id,
    make_conf,
    make_scheduler,
    node,
    submit,
)

from yarnball.policies.capacity import CapacityScheduler, LeafQueue
from yarnball.policies.capacity._context import ResourceLimits
from yarnball.policies.capacity._notifications import AppRejected
from yarnball.protocols import (
    AppAttemptRemovedSchedulerEvent,
    AppRemovedSchedulerEvent,
    NodeRemovedSchedulerEvent,
    Resource,
)

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


# -- testLimitsComputation, testHeadroom, testAMResourceLimitWithDRCAndFullParent, testApplicationLimitSubmit ----
def _metrics(cs: CapacityScheduler, path: str):
    return next(m for m in cs.queue_metrics() if m.path == path)


def test_limits_computation_testLimitsComputation():
    """AM and user AM limits, the queue's metrics, maximum applications (per user too) on 100 then 120 x 16 GB; then
    the per-queue maximum-am-resource-percent 0.5 and maximum-applications 9999 (Hadoop parses the queues again,
    yarnball refreshes them). The AM-limit metric's vcores are not checked (Hadoop's limit carries 1 vcore)."""
    cs = make_scheduler(QUEUES)
    for i in range(100):  # "Say cluster has 100 nodes of 16G each"
        add_node(cs, i, 16 * GB, 16)
    leaf = cs.get_queue("root.a")
    assert isinstance(leaf, LeafQueue)
    made = 0

    def check(got: object, want: object) -> None:
        nonlocal made
        assert got == want
        made += 1

    check(leaf.am_limit_m, 160 * GB)
    check(user_am_limit_mb(cs, leaf, "user_0"), 80 * GB)
    m = _metrics(cs, "root.a")
    check(m.am_limit.memory_mb, 160 * GB)  # getAMResourceLimitMB
    check(m.available.memory_mb, int(100 * 16 * GB * 0.1))
    for i in range(100, 120):  # "Add some nodes to the cluster & test new limits"
        add_node(cs, i, 16 * GB, 16)
    check(leaf.am_limit_m, 192 * GB)
    check(user_am_limit_mb(cs, leaf, "user_0"), 96 * GB)
    check(_metrics(cs, "root.a").available.memory_mb, int(120 * 16 * GB * 0.1))
    conf = cs.conf
    check(conf.get_maximum_applications_per_queue("root.a"), -1)  # UNDEFINED when not set
    expected_max_apps = int(10000 * 0.1)
    check(leaf.max_apps, expected_max_apps)
    check(leaf.max_apps_per_user, min(expected_max_apps, int(expected_max_apps * 0.5 * 5.0)))
    check(int(conf.get_maximum_am_resource_percent("root.a")), int(0.1))  # the global default
    # the per-queue maximum AM resource percent (the cluster back to 100 nodes)
    for i in range(100, 120):
        cs.handle(NodeRemovedSchedulerEvent(node_id=node(i)))
    half = {"root.a": {**QUEUES["root.a"], "maximum-am-resource-percent": 0.5}, "root.b": QUEUES["root.b"]}
    cs.reinitialize(make_conf(half))
    check(int(cs.conf.get_maximum_am_resource_percent("root.a")), int(0.5))
    check(leaf.am_limit_m, 800 * GB)
    check(user_am_limit_mb(cs, leaf, "user_0"), 400 * GB)
    # the per-queue maximum applications
    apps = {"root.a": {**half["root.a"], "maximum-applications": 9999}, "root.b": QUEUES["root.b"]}
    cs.reinitialize(make_conf(apps))
    check(cs.conf.get_maximum_applications_per_queue("root.a"), 9999)
    check(leaf.max_apps, 9999)
    check(leaf.max_apps_per_user, min(9999, int(9999 * 0.5 * 5.0)))
    assert made == 17


def test_headroom_testHeadroom():
    """a (10 % of 100 x 16 GB, user limit 50 %, factor 5): 80 GB of headroom for one user's apps and with a second
    user; 72 GB once 10 nodes leave. Hadoop's assignContainers calls only compute the headroom (nothing is
    committed); yarnball computes it on demand, so the port reads it without allocating. Memory compared (Hadoop's
    expected headroom carries 1 vcore)."""
    cs = make_scheduler(QUEUES)
    for i in range(100):
        add_node(cs, i, 16 * GB, 16)
    for n, user in ((0, "user_0"), (1, "user_0"), (2, "user_1")):
        cs.set_am_resource(app_id(n), Resource(0, 0))
        submit(cs, n, queue="a", user=user, am_mb=None)
        cs.allocate(attempt_id(n), [ask(1 * GB, 2)], [])
    made = 0
    for n, want in ((0, 80), (0, 80), (1, 80), (0, 80), (1, 80), (2, 80)):
        assert cs.headroom(attempt_id(n)).memory_mb == want * GB
        made += 1
    for i in range(90, 100):  # the cluster shrinks to 90 x 16 GB
        cs.handle(NodeRemovedSchedulerEvent(node_id=node(i)))
    for n in (0, 1, 2):
        assert cs.headroom(attempt_id(n)).memory_mb == 9 * 16 * GB // 2
        made += 1
    assert made == 9


def test_am_resource_limit_with_drc_and_full_parent_testAMResourceLimitWithDRCAndFullParent():
    """DominantResourceCalculator; a (30 %, AM share 30 %) handed a current limit of <1 GB, 495 vcores> by a parent
    that b has nearly filled: its AM limit is still at least 30 % of its guarantee <30 GB, 300 vcores> in each
    type. Failed before: Resources.max by dominant share took the current limit (1 GB of memory)."""
    queues = {
        "root.a": {**QUEUES["root.a"], "capacity": 30.0, "maximum-am-resource-percent": 0.3},
        "root.b": {"capacity": 70.0},
    }
    cs = make_scheduler(queues, **{"yarn.scheduler.capacity.resource-calculator":
                                   "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"})  # fmt: skip
    add_node(cs, 0, 100 * GB, 1000)
    leaf = cs.get_queue("root.a")
    assert isinstance(leaf, LeafQueue)
    leaf.set_user_limit_factor(cs._ctx, 10.0)
    leaf.update_cluster_resource(cs._ctx, ResourceLimits(1024, 495))
    expected_m, expected_v = int(30 * GB * 0.3), int(300 * 0.3)  # Resources.multiply(capacity, 0.3)
    am_m, am_v = leaf.compute_am_limit(cs._ctx)
    assert am_m >= expected_m
    assert am_v >= expected_v


def test_application_limit_submit_testApplicationLimitSubmit():
    """Submissions refused by maximum-applications: a1's own limit (1), d's per-user limit and the system limit (4),
    with Hadoop's diagnostics. Ported from the trunk version of the method: d (global-queue-max-application 20,
    maximum-applications 4, user-limit-factor 0.1) takes no application, as ``AbstractLeafQueue.
    updateMaximumApplications`` bases it on min(20, 4) = 4 and (int) (4 x 100 % x 0.1) = 0 per user (YARN-10949,
    Hadoop 3.4). The Hadoop 3.3 version of the method expected 2 applications in d: 3.3's ``LeafQueue.
    setupQueueConfigs`` took the global value alone (20 x 0.1 = 2). The node labels x, y, z of the Java test only set
    per-label capacities, which do not change these limits; the port keeps the default-partition tree."""
    queues: dict[str, dict[str, object]] = {
        "root.a": {"capacity": 50}, "root.b": {"capacity": 50}, "root.c": {"capacity": 0},
        "root.d": {"capacity": 0, "user-limit-factor": 0.1},
        "root.a.a1": {"capacity": 50, "maximum-applications": 1}, "root.a.a2": {"capacity": 50},
        "root.a.a3": {"capacity": 0},
    }  # fmt: skip
    cs = make_scheduler(queues, **{"yarn.scheduler.capacity.global-queue-max-application": 20,
                                   "yarn.scheduler.capacity.maximum-applications": 4})  # fmt: skip
    for i in range(3):
        add_node(cs, i, 4 * GB, 8)
    made = 0

    def submitted(n: int, queue: str, user: str = "user") -> str | None:
        """The rejection's diagnostics, or None when accepted."""
        out = submit(cs, n, queue=queue, user=user, am_mb=None)  # APP_ADDED, then the attempt (RMAppImpl ACCEPTED)
        rejected = [o for o in out if isinstance(o, AppRejected)]
        return rejected[0].diagnostics if rejected else None

    def accepted(n: int, queue: str, user: str = "user") -> None:
        nonlocal made
        assert submitted(n, queue, user) is None
        made += 1

    def refused(n: int, queue: str, user: str, diagnostics: str) -> None:
        """RMAppState.FAILED and the diagnostics: two Hadoop assertions."""
        nonlocal made
        assert submitted(n, queue, user) == diagnostics
        made += 2

    accepted(1, "c")  # a queue whose capacity is 0 accepts
    cs.handle(AppRemovedSchedulerEvent(application_id=app_id(1), final_state="KILLED"))
    accepted(2, "a1")
    refused(3, "a1", "user", (
        "org.apache.hadoop.security.AccessControlException: Queue root.a.a1 already has 1 applications, cannot "
        f"accept submission of application: {app_id(3)}"
    ))  # fmt: skip
    # "based on per user max app settings, app should be rejected instantly"
    refused(13, "d", "user", (
        "org.apache.hadoop.security.AccessControlException: Queue root.d already has 0 applications from user user "
        f"cannot accept submission of application: {app_id(13)}"
    ))  # fmt: skip
    accepted(11, "a2", "user2")
    accepted(12, "a2", "user2")
    assert submitted(14, "a2", "user2") is None  # a waitForState(ACCEPTED) in Hadoop, not an assertion
    refused(15, "a2", "user2", (
        f"Maximum system application limit reached,cannot accept submission of application: {app_id(15)}"
    ))  # fmt: skip
    assert made == 10
