"""Hadoop's ``TestFairScheduler`` (``scheduler/fair/``), its methods testN... to testZ... that schedule, reserve,
place and share (the others are in test_hadoop_fair_scheduler_n_z_apps.py), on yarnball's FairScheduler
(shared/reference/fair.md). Method names are Hadoop's, snake-cased; the cluster, the asks and the expected numbers
are the Java test's, on the ``FairSchedulerTestBase`` of fair_scheduler_harness.py."""

from __future__ import annotations

from pathlib import Path

from fair_scheduler_harness import (
    GB,
    STATIC_DEFAULT,
    Harness,
    rr,
)

from yarnball.policies.fair._fsqueuemetrics import fs_queue_metrics
from yarnball.policies.scheduler import AppRejected
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    ApplicationId,
    keys,
)


# -- testN... -----------------------------------------------------------------------------------------------------
def test_non_min_zero_resources_settings(tmp_path: Path) -> None:
    """TestFairScheduler.testNonMinZeroResourcesSettings."""
    s = Harness(
        tmp_path,
        **{
            keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 256,
            keys.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES: 1,
            keys.RM_SCHEDULER_INCREMENT_ALLOCATION_MB: 512,
            keys.RM_SCHEDULER_INCREMENT_ALLOCATION_VCORES: 2,
        },
    ).s
    assert (s.minimum_allocation.memory_mb, s.minimum_allocation.vcores) == (256, 1)
    assert (s.increment.memory_mb, s.increment.vcores) == (512, 2)


# -- testS... (first part) -----------------------------------------------------------------------------------------
def test_simple_fair_share_calculation(tmp_path: Path) -> None:
    """TestFairScheduler.testSimpleFairShareCalculation."""
    h = Harness(tmp_path)
    h.add_node(10 * GB)
    h.request(10 * GB, "queue1", "user1")
    h.request(10 * GB, "queue2", "user1")
    h.request(10 * GB, "root.default", "user1")
    h.s.update()
    root = h.s.queue_manager.root_queue
    root.steady_fair_share = h.s.cluster_resource
    root.recompute_steady_shares()
    queues = h.s.queue_manager.leaf_queues
    assert len(queues) == 3
    for q in queues:
        metrics = fs_queue_metrics(q)
        assert q.fair_share.memory_mb == 3414 and metrics.fair_share.memory_mb == 3414
        assert q.steady_fair_share.memory_mb == 3414 and metrics.steady_fair_share.memory_mb == 3414


def test_queue_info(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueInfo."""
    h = Harness(
        tmp_path, "<queue name='queueA'><weight>.25</weight></queue><queue name='queueB'><weight>.75</weight></queue>"
    )
    n1 = h.add_node(8 * GB, 8)
    h.request(1 * GB, "queueA", "user1")
    h.request(6 * GB, "queueB", "user1")
    h.s.update()
    a, b = fs_queue_metrics(h.leaf("queueA")), fs_queue_metrics(h.leaf("queueB"))
    assert (a.capacity, a.used_capacity) == (0.25, 0.0)
    assert (a.containers_allocated, a.allocated.memory_mb) == (0, 0)
    assert (b.capacity, b.used_capacity) == (0.75, 0.0)
    h.heartbeat(n1, 2)
    h.s.queue_metrics()  # the container counts are refreshed with the reports
    a, b = fs_queue_metrics(h.leaf("queueA")), fs_queue_metrics(h.leaf("queueB"))
    assert (a.capacity, a.used_capacity) == (0.25, 0.5)
    assert (a.containers_allocated, a.allocated.memory_mb) == (1, 1024)
    assert (b.capacity, b.used_capacity) == (0.75, 1.0)
    assert (b.containers_allocated, b.allocated.memory_mb) == (1, 6144)


def test_simple_hierarchical_fair_share_calculation(tmp_path: Path) -> None:
    """TestFairScheduler.testSimpleHierarchicalFairShareCalculation."""
    h = Harness(tmp_path)
    capacity = 10 * 24
    h.add_node(capacity)
    h.request(10 * GB, "parent.queue2", "user1")
    h.request(10 * GB, "parent.queue3", "user1")
    h.request(10 * GB, "root.default", "user1")
    h.s.update()
    qm = h.s.queue_manager
    qm.root_queue.steady_fair_share = h.s.cluster_resource
    qm.root_queue.recompute_steady_shares()
    assert len(qm.leaf_queues) == 3
    for name, share in (("default", capacity // 2), ("parent.queue2", capacity // 4), ("parent.queue3", capacity // 4)):
        q = qm.get_leaf_queue(name, True)
        assert q is not None
        metrics = fs_queue_metrics(q)
        assert (q.fair_share.memory_mb, metrics.fair_share.memory_mb) == (share, share)
        assert (q.steady_fair_share.memory_mb, metrics.steady_fair_share.memory_mb) == (share, share)


def test_scheduler_root_queue_metrics(tmp_path: Path) -> None:
    """TestFairScheduler.testSchedulerRootQueueMetrics."""
    h = Harness(tmp_path)
    n1 = h.add_node(1024, host="host1", port=1)
    h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    h.request(1024, "queue2", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    root = h.s.queue_metrics()[0]
    assert root.reserved.memory_mb == 1024
    n2 = h.add_node(1024, host="host2", port=2)
    h.heartbeat(n2)
    assert h.s.queue_metrics()[0].reserved.memory_mb == 1024
    h.heartbeat(n1)
    assert h.s.queue_metrics()[0].reserved.memory_mb == 0


def test_simple_container_allocation(tmp_path: Path) -> None:
    """TestFairScheduler.testSimpleContainerAllocation."""
    h = Harness(tmp_path)
    n1 = h.add_node(1024, 4, host="127.0.0.1", port=1)
    n2 = h.add_node(512, 2, host="127.0.0.2", port=2)
    h.request(512, "queue1", "user1", 2, vcores=2)
    h.s.update()
    h.heartbeat(n1)
    # asked for less than the increment allocation: DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB
    assert h.usage("queue1").memory_mb == 1024
    h.heartbeat(n2)
    queue1 = h.s.queue_manager.get_queue("root.queue1")
    assert queue1 is not None
    assert (queue1.resource_usage.memory_mb, queue1.resource_usage.vcores) == (1024, 2)
    metrics = {m.path: m for m in h.s.queue_metrics()}
    assert (metrics["root.queue1"].allocated.memory_mb, metrics["root.queue1"].allocated.vcores) == (1024, 2)
    root = metrics["root"]
    assert (root.allocated.memory_mb, root.allocated.vcores) == (1024, 2)
    assert (root.available.memory_mb, root.available.vcores) == (512, 4)


def test_simple_container_reservation(tmp_path: Path) -> None:
    """TestFairScheduler.testSimpleContainerReservation."""
    h = Harness(tmp_path)
    n1 = h.add_node(1024, host="127.0.0.1", port=1)
    h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    assert h.usage("queue1").memory_mb == 1024
    aid = h.request(1024, "queue2", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    assert h.usage("queue2").memory_mb == 0
    assert h.current_reservation(aid).memory_mb == 1024
    n2 = h.add_node(1024, host="127.0.0.2", port=2)
    h.heartbeat(n2)
    assert h.usage("queue2").memory_mb == 1024
    assert h.current_reservation(aid).memory_mb == 1024
    h.heartbeat(n1)
    assert h.current_reservation(aid).memory_mb == 0


# -- testO... and testR... (first part) -------------------------------------------------------------------------------
def test_off_switch_app_reservation_threshold(tmp_path: Path) -> None:
    """TestFairScheduler.testOffSwitchAppReservationThreshold."""
    h = Harness(tmp_path, **{keys.RESERVABLE_NODES: 0.5})
    nodes = [h.add_node(3072, host=f"127.0.0.{i}", port=1) for i in (1, 2, 3)]
    for nid in nodes:
        h.request(2048, "queue1", "user1", 1)
        h.s.update()
        h.heartbeat(nid)
    assert h.usage("queue1").memory_mb == 6144
    aid = h.request(2048, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nodes[0])
    assert h.reservations(aid) == 1
    h.s.update()
    h.heartbeat(nodes[1])
    assert h.reservations(aid) == 2
    h.s.update()
    h.heartbeat(nodes[2])
    assert h.reservations(aid) == 2  # ceil(3 x 0.5): no third reservation
    n4 = h.add_node(3072, host="127.0.0.4", port=1)
    h.s.update()
    h.heartbeat(n4)
    assert h.usage("queue1").memory_mb == 8192
    for nid in nodes:
        h.heartbeat(nid)
    h.s.update()
    assert h.reservations(aid) == 0


def test_rack_local_app_reservation_threshold(tmp_path: Path) -> None:
    """TestFairScheduler.testRackLocalAppReservationThreshold. Hadoop's fifth node repeats the fourth's id
    (127.0.0.4:1), which replaces it in the ClusterNodeTracker with an empty node, and then heartbeats "node4": here
    the fifth node has its own id and is the one heartbeating (yarnball ignores a node added twice)."""
    h = Harness(tmp_path, **{keys.RESERVABLE_NODES: 0.5})
    n1 = h.add_node(3072, host="127.0.0.1", port=1, rack=1)
    others = [h.add_node(3072, host=f"127.0.0.{i}", port=1, rack=2) for i in (2, 3, 4)]
    for nid in [n1, *others]:
        h.request(2048, "queue1", "user1", 1)
        h.s.update()
        h.heartbeat(nid)
    assert h.usage("queue1").memory_mb == 8192
    # an application asking for rack2 only (strict), never served
    rack_only = h.add("queue1", "user1")
    h.ask(rack_only, rr(2048, "rack2", 1, 1, False))
    aid = h.request(2048, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    assert h.reservations(aid) == 1
    h.s.update()
    h.heartbeat(others[0])
    assert h.reservations(aid) == 2
    h.s.update()
    h.heartbeat(others[1])
    assert h.reservations(aid) == 2
    n5 = h.add_node(3072, host="127.0.0.5", port=1, rack=2)
    h.s.update()
    h.heartbeat(n5)
    assert h.usage("queue1").memory_mb == 10240
    for nid in [n1, *others]:
        h.heartbeat(nid)
    h.s.update()
    assert h.reservations(aid) == 0


def test_reservation_threshold_with_assign_multiple(tmp_path: Path) -> None:
    """TestFairScheduler.testReservationThresholdWithAssignMultiple."""
    h = Harness(tmp_path, **{keys.RESERVABLE_NODES: 0, keys.ASSIGN_MULTIPLE: "true", keys.DYNAMIC_MAX_ASSIGN: "false"})
    n1 = h.add_node(4096, 4, host="127.0.0.1", port=1, rack=1)
    n2 = h.add_node(4096, 4, host="127.0.0.2", port=1, rack=2)
    aid = h.request(1024, "queue1", "user1", 10)
    h.s.update()
    h.heartbeat(n1)
    h.s.update()
    h.heartbeat(n2)
    assert h.usage("queue1").memory_mb == 8192
    assert h.reservations(aid) == 0


def test_reservation_threshold_gates_reservations(tmp_path: Path) -> None:
    """TestFairScheduler.testReservationThresholdGatesReservations."""
    h = Harness(
        tmp_path,
        "<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>",
        **{keys.RM_SCHEDULER_RESERVATION_THRESHOLD_INCREMENT_MULTIPLE: 2},
    )
    n1 = h.add_node(4096, 4, host="127.0.0.1", port=1)
    h.request(4096, "queue1", "user1", 1, 1, vcores=4)
    h.s.update()
    h.heartbeat(n1)
    assert h.usage("queue1").memory_mb == 4096
    aid = h.request(1024, "queue2", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    assert h.usage("queue2").memory_mb == 0
    assert h.reservations(aid) == 0
    h.ask_existing(aid, 1024, 1, vcores=3)  # above the threshold in vcores
    h.s.update()
    h.heartbeat(n1)
    assert h.usage("queue2").memory_mb == 0
    assert h.s.attempts[aid].reserved_v == 3
    n2 = h.add_node(1024, 4, host="127.0.0.2", port=2)
    h.heartbeat(n2)
    queue2 = h.s.queue_manager.get_queue("root.queue2")
    assert queue2 is not None and queue2.resource_usage.vcores == 3
    assert h.s.attempts[aid].reserved_v == 3
    h.heartbeat(n1)
    assert h.s.attempts[aid].reserved_v == 0


# -- testQ... (first part) and testN... ---------------------------------------------------------------------------
def test_queueu_name_with_periods(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueuNameWithPeriods (Hadoop's spelling). The allocation file declares
    ``root.default``, the static leaf 3.3's ``QueueManager.initialize`` created (trunk does not, YARN-7769)."""
    h = Harness(tmp_path, STATIC_DEFAULT)
    assert len(h.s.queue_manager.leaf_queues) == 1
    for queue, leaves in ((".A", 1), ("A.", 1), ("A.B", 2)):
        aid = h.new_attempt_id()
        h.s.handle(AppAddedSchedulerEvent(application_id=aid.application_id, queue=queue, user="user1"))
        assert len(h.s.queue_manager.leaf_queues) == leaves, queue
        assert aid not in h.s.fs_apps
    assert [ApplicationId(0, 3)] == list(h.s.applications)  # only "A.B" was accepted


def simple_groups(user: str) -> tuple[str, ...]:
    """Hadoop's test ``SimpleGroupsMapping``."""
    if user == "admins":
        return ("root",)
    if user == "nosecondarygroupuser":
        return ("primarygrouponly",)
    return (f"{user}group", f"{user}subgroup1", f"{user}subgroup2")


def test_queue_placement_with_policy(tmp_path: Path) -> None:
    """TestFairScheduler.testQueuePlacementWithPolicy: the policies set in the test are the allocation file's."""
    queues = "".join(
        f"<queue name='{q}'/>" for q in ("user1", "user3group", "user4subgroup1", "user4subgroup2", "user5subgroup2")
    )
    h = Harness(
        tmp_path,
        queues + "<queuePlacementPolicy><rule name='specified' create='true'/><rule name='user' create='false'/>"
        "<rule name='primaryGroup' create='false'/><rule name='secondaryGroupExistingQueue' create='false'/>"
        "<rule name='default' create='true'/></queuePlacementPolicy>",
    )
    h.s.user_groups = simple_groups
    for queue, user, placed in (
        ("somequeue", "user1", "root.somequeue"),
        ("default", "user1", "root.user1"),
        ("default", "user3", "root.user3group"),
        ("default", "user4", "root.user4subgroup1"),
        ("default", "user5", "root.user5subgroup2"),
        ("default", "otheruser", "root.default"),
    ):
        assert h.app(h.request(1024, queue, user)).queue.name == placed, (queue, user)
    h.reinitialize(
        queues + "<queuePlacementPolicy><rule name='user' create='false'/><rule name='specified' create='true'/>"
        "<rule name='default' create='true'/></queuePlacementPolicy>"
    )
    for queue, user, placed in (
        ("somequeue", "user1", "root.user1"),
        ("somequeue", "otheruser", "root.somequeue"),
        ("default", "otheruser", "root.default"),
    ):
        assert h.app(h.request(1024, queue, user)).queue.name == placed, (queue, user)


def test_nested_user_queue(tmp_path: Path) -> None:
    """TestFairScheduler.testNestedUserQueue (``assignToQueue`` is the submission's placement)."""
    h = Harness(
        tmp_path,
        "<queue name='user1group' type='parent'><minResources>1024mb,0vcores</minResources></queue>"
        "<queuePlacementPolicy><rule name='specified' create='false'/>"
        "<rule name='nestedUserQueue'><rule name='primaryGroup' create='false'/></rule>"
        "<rule name='default'/></queuePlacementPolicy>",
    )
    h.s.user_groups = simple_groups
    assert h.app(h.add("root.default", "user1")).queue.name == "root.user1group.user1"


# -- testS... (second part), testQ..., testU..., testR..., testN... -----------------------------------------------
def test_steady_fair_share_with_reload_and_node_add_remove(tmp_path: Path) -> None:
    """TestFairScheduler.testSteadyFairShareWithReloadAndNodeAddRemove (``root.default`` declared, as 3.3 creates
    it: it takes its steady share beside the children)."""
    tree = "<defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy><queue name='root'>"
    tree += "<schedulingPolicy>drf</schedulingPolicy>" + STATIC_DEFAULT + "{}</queue>"
    h = Harness(
        tmp_path,
        tree.format("<queue name='child1'><weight>1</weight></queue><queue name='child2'><weight>1</weight></queue>"),
    )

    def steady(name: str) -> int:
        return h.leaf(name).steady_fair_share.memory_mb

    assert (steady("child1"), steady("child2")) == (0, 0)
    n1 = h.add_node(6144, host="127.0.0.1", port=1)
    assert h.s.cluster_resource.memory_mb == 6144
    assert (steady("child1"), steady("child2")) == (2048, 2048)
    h.reinitialize(
        tree.format(
            "<queue name='child1'><weight>1</weight></queue><queue name='child2'><weight>2</weight></queue>"
            "<queue name='child3'><weight>2</weight></queue>"
        )
    )
    assert (steady("child1"), steady("child2"), steady("child3")) == (1024, 2048, 2048)
    h.remove_node(n1)
    assert h.s.cluster_resource.memory_mb == 0
    assert (steady("child1"), steady("child2")) == (0, 0)


def test_steady_fair_share_with_queue_created_runtime(tmp_path: Path) -> None:
    """TestFairScheduler.testSteadyFairShareWithQueueCreatedRuntime (``root.default`` declared, as 3.3 creates it)."""
    h = Harness(tmp_path, STATIC_DEFAULT, **{keys.USER_AS_DEFAULT_QUEUE: "true"})
    h.add_node(6144, host="127.0.0.1", port=1)
    assert h.s.cluster_resource.memory_mb == 6144
    assert h.s.queue_manager.root_queue.steady_fair_share.memory_mb == 6144
    assert h.leaf("default").steady_fair_share.memory_mb == 6144
    h.with_am(h.new_attempt_id(), "default", "user1", None)
    assert h.leaf("default").steady_fair_share.memory_mb == 3072
    assert h.leaf("user1").steady_fair_share.memory_mb == 3072


def test_queue_demand_calculation(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueDemandCalculation. Hadoop's third ask comes from a second attempt of application
    2 (appattempt 2_2), which its ``addApplicationAttempt`` adds to root.queue2 beside the first; here it is an
    application of its own (yarnball's attempt replaces the previous one, as the RM's attempts do)."""
    h = Harness(tmp_path)
    min_req = 1024  # YarnConfiguration.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB
    id11 = h.add("root.queue1", "user1")
    h.ask(id11, rr(min_req * 2, ANY, 1, 1, True))
    id21 = h.add("root.queue2", "user1")
    h.ask(id21, rr(2 * min_req, "foo", 1, 1, False), rr(2 * min_req, ANY, 1, 1, False))
    id22 = h.add("root.queue2", "user1")
    h.ask(id22, rr(min_req, "bar", 2, 2, True), rr(min_req, ANY, 2, 2, True))
    h.s.update()
    assert h.s.queue_manager.get_queue("root.queue1").demand.memory_mb == 2 * min_req  # type: ignore[union-attr]
    assert h.s.queue_manager.get_queue("root.queue2").demand.memory_mb == 4 * min_req  # type: ignore[union-attr]


def test_user_max_running_apps(tmp_path: Path) -> None:
    """TestFairScheduler.testUserMaxRunningApps."""
    h = Harness(tmp_path, "<user name='user1'><maxRunningApps>1</maxRunningApps></user>")
    nid = h.add_node(8192, 8, host="127.0.0.1", port=1)
    a1 = h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(a1) == 1
    a2 = h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(a2) == 0
    h.ask_existing(a1, 1024, 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(a1) == 2


def test_reservation_with_multiple_priorities(tmp_path: Path) -> None:
    """TestFairScheduler.testReservationWithMultiplePriorities."""
    h = Harness(tmp_path)
    nid = h.add_node(2048, 2, host="host1", port=1)
    a1 = h.request(1024, "queue", "user", 1, 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(a1) == 1
    a2 = h.request(2048, "queue1", "user1", 1, 2, vcores=2)
    h.s.update()
    h.heartbeat(nid)
    assert h.reservations(a2) == 1
    h.ask_existing(a2, 2048, 1, vcores=2)  # a higher priority
    [container] = list(h.s.attempts[a1].live)
    h.s.update_requests(a1, [], [container])
    h.heartbeat(nid)
    live = list(h.s.attempts[a2].live.values())
    assert len(live) == 1
    assert live[0].priority.priority == 2  # the reservation's (lower) priority


def test_not_allow_submit_application(tmp_path: Path) -> None:
    """TestFairScheduler.testNotAllowSubmitApplication: the scheduler rejects the submission (the RMApp then
    fails)."""
    h = Harness(
        tmp_path,
        "<queue name='root'><aclSubmitApps> </aclSubmitApps><aclAdministerApps> </aclAdministerApps>"
        "<queue name='queue1'><aclSubmitApps>userallow</aclSubmitApps>"
        "<aclAdministerApps>userallow</aclAdministerApps></queue></queue>",
    )
    out = h.s.handle(AppAddedSchedulerEvent(application_id=ApplicationId(1, 1), queue="queue1", user="usernotallow"))
    assert [type(x) for x in out] == [AppRejected]
    assert ApplicationId(1, 1) not in h.s.applications


def test_remove_node_updates_root_queue_metrics(tmp_path: Path) -> None:
    """TestFairScheduler.testRemoveNodeUpdatesRootQueueMetrics."""
    h = Harness(tmp_path)

    def available() -> tuple[int, int]:
        root = h.s.queue_metrics()[0]
        return root.available.memory_mb, root.available.vcores

    assert available() == (0, 0)
    nid = h.add_node(1024, 4, host="127.0.0.1", port=1)
    assert available() == (1024, 4)
    h.s.update()
    assert available() == (1024, 4)
    h.remove_node(nid)
    assert available() == (0, 0)
    h.s.update()
    assert available() == (0, 0)


def test_strict_locality(tmp_path: Path) -> None:
    """TestFairScheduler.testStrictLocality."""
    h = Harness(tmp_path)
    n1 = h.add_node(1024, host="127.0.0.1", port=1)
    n2 = h.add_node(1024, host="127.0.0.2", port=2)
    aid = h.request(1024, "queue1", "user1", 0)
    h.ask_strictly_on(aid, "127.0.0.1")
    h.s.update()
    for _ in range(10):
        h.heartbeat(n2)
        assert h.live(aid) == 0
        assert h.reservations(aid) == 0
    h.heartbeat(n1)
    assert h.live(aid) == 1


def test_reservations_strict_locality(tmp_path: Path) -> None:
    """TestFairScheduler.testReservationsStrictLocality."""
    h = Harness(tmp_path)
    n1 = h.add_node(1024, 1, host="host1", port=1)
    h.add_node(1024, 1, host="host2", port=2)
    aid = h.request(1024, "queue1", "user1", 0)
    h.ask_strictly_on(aid, "host2")
    h.s.update()
    h.heartbeat(n1)
    assert h.live(aid) == 0
    h.heartbeat(n1)
    assert h.reservations(aid) == 0


def test_no_more_cpu_on_node(tmp_path: Path) -> None:
    """TestFairScheduler.testNoMoreCpuOnNode."""
    h = Harness(tmp_path)
    nid = h.add_node(2048, 1, host="127.0.0.1", port=1)
    aid = h.request(1024, "default", "user1", 2)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(aid) == 1
    h.heartbeat(nid)
    assert h.live(aid) == 1
