"""Hadoop's ``TestFairScheduler`` (``scheduler/fair/``), its methods testN... to testZ... on running-app limits, the
AM share, removed and decommissioning nodes, moves, queue names, reservation metrics and demand (the others are in
test_hadoop_fair_scheduler_n_z.py), on yarnball's FairScheduler. Method names are Hadoop's, snake-cased; the cluster,
the asks and the expected numbers are the Java test's, on the ``FairSchedulerTestBase`` of
fair_scheduler_harness.py."""

from __future__ import annotations

from pathlib import Path

from fair_scheduler_harness import (
    AM_PRIORITY,
    GB,
    STATIC_DEFAULT,
    AMs,
    Harness,
    rr,
)

from yarnball.policies.fair import ConfigurableResource, FakeFSApp
from yarnball.policies.scheduler import AppAccepted
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    ContainerExpiredSchedulerEvent,
    NodeResourceUpdateSchedulerEvent,
    NodeUpdateSchedulerEvent,
    Resource,
    keys,
)


def test_request_am_resource_in_zero_fair_share_queue(tmp_path: Path) -> None:
    """TestFairScheduler.testRequestAMResourceInZeroFairShareQueue."""
    h = Harness(
        tmp_path,
        "<queue name='queue1'><weight>0.0</weight><maxResources>4096mb,10vcores</maxResources>"
        "<maxAMShare>0.5</maxAMShare></queue>"
        "<queue name='queue2'><weight>2.0</weight></queue><queue name='queue3'><weight>0.000001</weight></queue>",
    )
    nid = h.add_node(8192, 20, port=0)
    h.s.update()
    h.request(1024, "root.queue2", "user2", 1)
    h.s.update()
    h.heartbeat(nid)
    am = Resource(1024, 1)
    cases = ((1, "root.queue1", 3 * 1024, 0), (2, "root.queue1", 2 * 1024, 1), (3, "root.queue3", 1024, 1))
    for n, queue, mb, running in cases:
        aid = ApplicationAttemptId(ApplicationId(1, 100 + n), 1)
        h.with_am(aid, queue, "user1", am)
        h.ask_existing(aid, mb, AM_PRIORITY)
        h.s.update()
        h.heartbeat(nid)
        assert h.live(aid) == running, (n, queue)


def verify_app_runnable(h: Harness, aid: ApplicationAttemptId, runnable: bool) -> None:
    app = h.app(aid)
    assert app.queue.is_runnable_app(app) == runnable
    assert app.queue.is_non_runnable_app(app) == (not runnable)


def verify_queue_num_runnable(h: Harness, name: str, runnable: int, non_runnable: int) -> None:
    leaf = h.leaf(name)
    assert (leaf.num_runnable_apps, leaf.num_non_runnable_apps) == (runnable, non_runnable)


def test_user_and_queue_max_running_apps(tmp_path: Path) -> None:
    """TestFairScheduler.testUserAndQueueMaxRunningApps."""
    h = Harness(
        tmp_path,
        "<queue name='queue1'><maxRunningApps>2</maxRunningApps></queue>"
        "<user name='user1'><maxRunningApps>1</maxRunningApps></user>",
    )
    a1 = h.request(1024, "queue1", "user1")
    verify_app_runnable(h, a1, True)
    verify_queue_num_runnable(h, "queue1", 1, 0)
    a2 = h.request(1024, "queue2", "user1")  # exceeds the user's limit
    verify_app_runnable(h, a2, False)
    verify_queue_num_runnable(h, "queue2", 0, 1)
    a3 = h.request(1024, "queue1", "user2")
    verify_app_runnable(h, a3, True)
    verify_queue_num_runnable(h, "queue1", 2, 0)
    a4 = h.request(1024, "queue1", "user2")  # exceeds the queue's limit
    verify_app_runnable(h, a4, False)
    verify_queue_num_runnable(h, "queue1", 2, 1)
    h.remove(a1)
    verify_app_runnable(h, a2, True)
    verify_queue_num_runnable(h, "queue2", 1, 0)
    verify_app_runnable(h, a4, True)
    verify_queue_num_runnable(h, "queue1", 2, 0)
    a5 = h.request(1024, "queue1", "user2")
    verify_app_runnable(h, a5, False)
    verify_queue_num_runnable(h, "queue1", 2, 1)


def test_queue_max_am_share(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueMaxAMShare."""
    h = Harness(tmp_path, "<queue name='queue1'><maxAMShare>0.2</maxAMShare></queue>")
    nid = h.add_node(20480, 20, port=0)
    h.s.update()
    queue1 = h.leaf("queue1")
    assert queue1.fair_share.memory_mb == 0
    h.request(1 * GB, "root.default", "user1")
    h.s.update()
    h.heartbeat(nid)
    ams = AMs(h)
    none = Resource(0, 0)

    ams.submit(1, "queue1", Resource(1024, 1))
    h.heartbeat(nid)
    assert ams.state(1, queue1) == (1024, 1, 1024)
    ams.submit(2, "queue1", Resource(1024, 1))
    h.heartbeat(nid)
    assert ams.state(2, queue1) == (1024, 1, 2048)
    ams.submit(3, "queue1", Resource(1024, 1))  # exceeds the queue's AM share
    h.heartbeat(nid)
    assert ams.state(3, queue1) == (0, 0, 2048)
    h.ask_existing(ams.ids[1], 1024, 1)  # a non-AM container still runs
    h.s.update()
    h.heartbeat(nid)
    assert (ams.live(1), queue1.am_resource_usage.memory_mb) == (2, 2048)
    h.s.update()
    h.remove(ams.ids[1])  # app3's AM runs in its place
    h.heartbeat(nid)
    assert ams.live(1) == 0 and ams.usage(1) == none
    assert ams.state(3, queue1) == (1024, 1, 2048)
    ams.submit(4, "queue1", Resource(2048, 2))
    h.heartbeat(nid)
    assert ams.state(4, queue1) == (0, 0, 2048)
    assert ams.usage(4) == none
    ams.submit(5, "queue1", Resource(2048, 2))
    h.heartbeat(nid)
    assert ams.state(5, queue1) == (0, 0, 2048)
    assert ams.usage(5) == none
    h.s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=ams.ids[4], final_attempt_state="KILLED"))
    h.s.update()
    h.heartbeat(nid)
    assert (ams.live(5), ams.usage(5), queue1.am_resource_usage.memory_mb) == (0, none, 2048)
    h.remove(ams.ids[2])
    h.remove(ams.ids[3])
    h.s.update()
    h.heartbeat(nid)
    assert (ams.live(2), ams.usage(2), ams.live(3), ams.usage(3)) == (0, none, 0, none)
    assert ams.state(5, queue1) == (2048, 1, 2048)
    h.ask_existing(ams.ids[5], 1024, 1)
    assert ams.live(5) == 1
    # the AM container ends before the non-AM one is allocated
    [am_container] = list(h.s.attempts[ams.ids[5]].live)
    h.s.handle(ContainerExpiredSchedulerEvent(container_id=am_container))
    assert (ams.live(5), ams.usage(5), queue1.am_resource_usage.memory_mb) == (0, none, 2048)
    h.s.update()
    h.heartbeat(nid)
    # the non-AM container is not refused for the AM share, and does not count in it
    assert (ams.live(5), queue1.am_resource_usage.memory_mb) == (1, 2048)
    ams.submit(6, "queue1", Resource(1860, 2))  # normalised to 2048 MB
    h.heartbeat(nid)
    assert (ams.live(6), ams.usage(6)) == (0, none)
    assert ams.state(6, queue1) == (0, 0, 2048)
    h.remove(ams.ids[5])
    h.remove(ams.ids[6])
    h.s.update()
    assert queue1.am_resource_usage.memory_mb == 0


def test_queue_max_am_share_default(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueMaxAMShareDefault."""
    h = Harness(
        tmp_path,
        "<queue name='queue1'></queue><queue name='queue2'><maxAMShare>0.4</maxAMShare></queue>"
        "<queue name='queue3'><maxResources>10240 mb 4 vcores</maxResources></queue>"
        "<queue name='queue4'></queue><queue name='queue5'></queue>"
        "<defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy>",
        **{keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES: 6},
    )
    nid = h.add_node(8192, 10, port=0)
    h.s.update()
    for name in ("queue1", "queue2", "queue3", "queue4", "queue5"):
        assert h.leaf(name).fair_share.memory_mb == 0, name
    for queue in ("root.queue3", "root.queue4", "root.queue5"):
        h.request(1 * GB, queue, "user1")
        h.s.update()
        h.heartbeat(nid)
    ams = AMs(h)
    # the fair share is 2048 MB and the default maxAMShare 0.5: accepted
    ams.submit(1, "queue1", Resource(1024, 1), "test1")
    h.heartbeat(nid)
    assert (ams.am_mb(1), ams.live(1), h.leaf("queue1").am_resource_usage.memory_mb) == (1024, 1, 1024)
    # the fair share is 1639 MB and maxAMShare 0.4: refused
    ams.submit(2, "queue2", Resource(1024, 1), "test1")
    h.heartbeat(nid)
    assert (ams.am_mb(2), ams.live(2), h.leaf("queue2").am_resource_usage.memory_mb) == (0, 0, 0)
    h.remove(ams.ids[2])
    h.s.update()
    # 6 vcores: all the available ones
    aid3 = ApplicationAttemptId(ApplicationId(1, 103), 1)
    h.with_am(aid3, "queue3", "test1", Resource(1024, 1))
    h.ask_existing(aid3, 1024, AM_PRIORITY, vcores=6)
    h.s.update()
    h.heartbeat(nid)
    assert (h.app(aid3).am_resource.memory_mb, h.live(aid3), h.leaf("queue3").am_resource_usage.memory_mb) == (0, 0, 0)
    # 5 vcores: more than the queue's maxResources (4)
    aid4 = ApplicationAttemptId(ApplicationId(1, 104), 1)
    h.with_am(aid4, "queue3", "test1", Resource(1024, 1))
    h.ask_existing(aid4, 1024, AM_PRIORITY, vcores=5)
    h.s.update()
    h.heartbeat(nid)
    assert (h.app(aid4).am_resource.memory_mb, h.live(aid4), h.leaf("queue3").am_resource_usage.memory_mb) == (0, 0, 0)


def test_queue_max_am_share_with_container_reservation(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueMaxAMShareWithContainerReservation (the 16 steps of its comment)."""
    h = Harness(tmp_path, "<queue name='queue1'><maxAMShare>0.5</maxAMShare></queue>", **{keys.RESERVABLE_NODES: 1})
    n1 = h.add_node(10240, 10, host="127.0.0.1", port=1)
    n2 = h.add_node(10240, 10, host="127.0.0.2", port=2)
    n3 = h.add_node(5120, 5, host="127.0.0.3", port=3)
    h.s.update()
    queue1 = h.leaf("queue1")
    ams = AMs(h)

    ams.submit(1, "queue1", Resource(1024, 1))
    h.heartbeat(n1)
    assert ams.state(1, queue1) == (1024, 1, 1024)
    ams.submit(2, "queue1", Resource(1024, 1))
    h.heartbeat(n2)
    assert ams.state(2, queue1) == (1024, 1, 2048)
    ams.submit(3, "queue1", Resource(10240, 1))
    h.heartbeat(n1)  # app3 reserves node1
    h.heartbeat(n2)  # and node2
    assert ams.state(3, queue1) == (0, 0, 2048)
    ams.submit(4, "queue1", Resource(5120, 1))
    h.heartbeat(n1)  # node1 is reserved by app3
    assert ams.state(4, queue1) == (0, 0, 2048)
    h.s.update()
    h.heartbeat(n3)
    assert ams.state(4, queue1) == (5120, 1, 7168)
    h.remove(ams.ids[1])
    assert queue1.am_resource_usage.memory_mb == 6144
    ams.submit(5, "queue1", Resource(1024, 1))
    h.heartbeat(n1)  # app3, over the AM share now, drops its reservation on node1; app5 gets node1
    assert ams.state(5, queue1) == (1024, 1, 7168)
    h.remove(ams.ids[3])
    assert queue1.am_resource_usage.memory_mb == 7168
    ams.submit(6, "queue1", Resource(10240, 1))
    h.heartbeat(n1)  # app6 cannot reserve: over the AM share
    assert ams.state(6, queue1) == (0, 0, 7168)
    ams.submit(7, "queue1", Resource(1024, 1))
    h.heartbeat(n1)
    assert ams.state(7, queue1) == (1024, 1, 8192)
    h.remove(ams.ids[4])
    assert queue1.am_resource_usage.memory_mb == 3072
    h.remove(ams.ids[5])
    assert queue1.am_resource_usage.memory_mb == 2048
    h.s.update()
    h.heartbeat(n1)  # app6 reserves node1
    h.heartbeat(n2)  # and node2
    ams.submit(8, "queue1", Resource(1024, 1))
    h.heartbeat(n1)  # node1 is reserved by app6
    assert ams.state(8, queue1) == (0, 0, 2048)
    h.s.update()
    h.heartbeat(n2)  # so is node2
    assert ams.state(8, queue1) == (0, 0, 2048)
    h.remove(ams.ids[2])
    assert queue1.am_resource_usage.memory_mb == 1024
    h.s.update()
    h.heartbeat(n2)  # app6's reservation on node2 becomes its container
    assert ams.state(6, queue1) == (10240, 1, 11264)
    h.s.update()
    h.heartbeat(n1)  # app6 drops its reservation on node1; app8 gets node1
    assert ams.state(8, queue1) == (1024, 1, 12288)


# -- testSchedulingOnRemovedNode ... testUpdateDemand --------------------------------------------------------------
def test_scheduling_on_removed_node(tmp_path: Path) -> None:
    """TestFairScheduler.testSchedulingOnRemovedNode: ``attemptScheduling`` on a node removed meanwhile places
    nothing, and the application is then removed cleanly."""
    h = Harness(tmp_path)
    assert not h.s.continuous_scheduling
    aid = h.add("root.queue1", "user1")
    h.ask(aid, rr(1024, ANY, 1, 1, True, vcores=8))
    nid = h.add_node(8 * 1024, 8, host="127.0.0.1", port=1)
    node = h.s.nodes[nid]
    h.remove_node(nid)
    h.s.attempt_scheduling(node)
    assert h.live(aid) == 0 and not node.containers
    h.remove(aid)
    assert aid not in h.s.attempts


def test_resource_usage_by_move_app(tmp_path: Path) -> None:
    """TestFairScheduler.testResourceUsageByMoveApp."""
    h = Harness(tmp_path)
    nid = h.add_node(1 * GB, 4, host="127.0.0.1", port=1)
    aid = h.request(1 * GB, "parent1.queue1", "user1", 2, vcores=2)
    h.s.update()
    h.heartbeat(nid)
    qm = h.s.queue_manager
    parent1 = qm.get_parent_queue("parent1", True)
    parent2 = qm.get_parent_queue("parent2", True)
    queue2 = qm.get_leaf_queue("parent2.queue2", True)
    queue1 = qm.get_leaf_queue("parent1.queue1", True)
    assert parent1 is not None and parent2 is not None and queue1 is not None and queue2 is not None

    def usage() -> tuple[int, int, int, int]:
        return tuple(q.resource_usage.memory_mb for q in (parent2, queue2, parent1, queue1))  # type: ignore[return-value]

    assert usage() == (0, 0, 1 * GB, 1 * GB)
    h.s.move_application(aid.application_id, "parent2.queue2")
    assert usage() == (1 * GB, 1 * GB, 0, 0)


def test_queue_name_with_trailing_space(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueNameWithTrailingSpace (``root.default`` declared, as 3.3 creates it)."""
    h = Harness(tmp_path, STATIC_DEFAULT)
    assert len(h.s.queue_manager.leaf_queues) == 1
    for queue, accepted, leaves in (("A", True, 2), ("A ", False, 2), ("B.C", True, 3), ("A\u00a0", False, 3)):
        aid = h.new_attempt_id()
        h.s.handle(AppAddedSchedulerEvent(application_id=aid.application_id, queue=queue, user="user1"))
        assert len(h.s.queue_manager.leaf_queues) == leaves, queue
        assert (aid.application_id in h.s.applications) == accepted, queue
        if accepted:
            h.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=aid))
            leaf = h.s.queue_manager.get_leaf_queue(queue, True)
            assert leaf is not None and leaf.num_runnable_apps == 1
            assert aid in h.s.fs_apps
        else:
            assert aid not in h.s.fs_apps


def test_user_as_default_queue_with_leading_trailing_space_user_name(tmp_path: Path) -> None:
    """TestFairScheduler.testUserAsDefaultQueueWithLeadingTrailingSpaceUserName: the placed queue is the
    application's (``AppAccepted``'s queue, what RMAppManager copies into the RMApp)."""
    h = Harness(tmp_path, STATIC_DEFAULT, **{keys.USER_AS_DEFAULT_QUEUE: "true"})
    for n, user in enumerate(("  user1", "user1  ", "user1"), start=1):
        aid = h.new_attempt_id()
        out = h.s.handle(AppAddedSchedulerEvent(application_id=aid.application_id, queue="default", user=user))
        h.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=aid))
        assert [x.queue for x in out if isinstance(x, AppAccepted)] == ["root.user1"]
        assert h.leaf("user1").num_runnable_apps == n
        assert h.leaf("default").num_runnable_apps == 0


def test_removed_node_decomissioning_node(tmp_path: Path) -> None:
    """TestFairScheduler.testRemovedNodeDecomissioningNode (Hadoop's spelling): a heartbeat of a node the scheduler
    no longer tracks (removed in a race, then DECOMMISSIONING) is ignored."""
    h = Harness(tmp_path)
    nid = h.add_node(8 * GB, 4, host="host_decom", port=1234)
    h.heartbeat(nid)
    h.remove_node(nid)
    assert h.s.handle(NodeUpdateSchedulerEvent(node_id=nid)) == []
    assert nid not in h.s.nodes


def test_resource_update_decommissioning_node(tmp_path: Path) -> None:
    """TestFairScheduler.testResourceUpdateDecommissioningNode: a DECOMMISSIONING node's total resource becomes
    what its containers use (nothing here). Hadoop's ``nodeUpdate`` dispatches the RMNodeResourceUpdateEvent; in
    yarnball the RM sends the NODE_RESOURCE_UPDATE (actors/_decommission.py), which the port sends as the RM does."""
    h = Harness(tmp_path)
    nid = h.add_node(8 * GB, 4, host="host_0", port=1234)
    h.heartbeat(nid)
    node = h.s.nodes[nid]
    used = Resource(node.total_m - node.unalloc_m, node.total_v - node.unalloc_v)
    h.s.handle(NodeResourceUpdateSchedulerEvent(node_id=nid, total_resource=used))
    h.heartbeat(nid)
    assert (node.total_m - node.unalloc_m, node.total_v - node.unalloc_v) == (0, 0)
    assert (node.total_m, node.total_v) == (0 * GB, 0)
    assert (node.unalloc_m, node.unalloc_v) == (0, 0)


def test_reservation_metrics(tmp_path: Path) -> None:
    """TestFairScheduler.testReservationMetrics: root's reserved containers, MB and vcores."""
    h = Harness(tmp_path)
    nid = h.add_node(4096, 4, host="127.0.0.1", port=1)
    aid = h.new_attempt_id()
    h.with_am(aid, "default", "user1", None)
    h.s.update()
    h.heartbeat(nid)
    h.ask_existing(aid, 1024, 1, vcores=1)
    h.s.update()
    h.heartbeat(nid)

    def reserved() -> tuple[int, int, int]:
        root = h.s.queue_metrics()[0]
        return h.s.queue_manager.root_queue.reserved_containers, root.reserved.memory_mb, root.reserved.vcores

    assert reserved() == (0, 0, 0)
    h.ask_existing(aid, 4096, 1, vcores=4)
    h.s.update()
    h.heartbeat(nid)
    assert reserved() == (1, 4096, 4)
    h.s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=aid, final_attempt_state="KILLED"))
    assert reserved() == (0, 0, 0)


def test_update_demand(tmp_path: Path) -> None:
    """TestFairScheduler.testUpdateDemand: a parent's demand is capped at its max share, its children's are
    updated. The test's mocked attempts (demand 8 GB, no usage) are ``FakeFSApp``s."""
    h = Harness(tmp_path)
    max_resource = Resource(1024 * 8, 1)  # Resources.createResource(8 GB): 1 vcore
    max_conf = ConfigurableResource(max_resource)
    qm = h.s.queue_manager
    queue1 = qm.get_parent_queue("queue1", True)
    a_queue = qm.get_leaf_queue("queue1.a", True)
    b_queue = qm.get_leaf_queue("queue1.b", True)
    assert queue1 is not None and a_queue is not None and b_queue is not None
    for leaf in (a_queue, b_queue):
        leaf.raw_max_share = max_conf
        leaf.add_app(FakeFSApp(leaf, demand=max_resource), True)
    queue1.raw_max_share = max_conf
    queue1.update_demand()
    assert queue1.demand == max_resource
    assert a_queue.demand == max_resource and b_queue.demand == max_resource
