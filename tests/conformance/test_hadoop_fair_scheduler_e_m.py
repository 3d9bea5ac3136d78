"""Hadoop's ``TestFairScheduler`` (``scheduler/fair/``), its methods ``testE...`` to ``testM...`` not ported in
test_hadoop_fair_scheduler.py, on yarnball's FairScheduler with the test's cluster (fair_scheduler_harness.py).
Method names are Hadoop's, snake-cased, in the order of Hadoop's file."""

from __future__ import annotations

from pathlib import Path

import pytest
from fair_scheduler_harness import AM_PRIORITY, GB, Harness, rr

from yarnball.errors import AllocationConfigurationException, SchedulingError
from yarnball.policies.fair._fsevents import _lowest_common_ancestor
from yarnball.policies.scheduler._utils import COMPLETED_APPLICATION, LOST_CONTAINER, abnormal_status
from yarnball.protocols import ANY, ApplicationAttemptId, Resource, keys


def test_load_configuration_on_initialize(tmp_path: Path) -> None:
    """testLoadConfigurationOnInitialize."""
    h = Harness(
        tmp_path,
        **{
            keys.ASSIGN_MULTIPLE: True,
            keys.MAX_ASSIGN: 3,
            keys.SIZE_BASED_WEIGHT: True,
            keys.LOCALITY_THRESHOLD_NODE: 0.5,
            keys.LOCALITY_THRESHOLD_RACK: 0.7,
            keys.CONTINUOUS_SCHEDULING_ENABLED: True,
            keys.CONTINUOUS_SCHEDULING_SLEEP_MS: 10,
            keys.LOCALITY_DELAY_RACK_MS: 5000,
            keys.LOCALITY_DELAY_NODE_MS: 5000,
            keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: 1024,
            keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 512,
            keys.RM_SCHEDULER_INCREMENT_ALLOCATION_MB: 128,
        },
    )
    s = h.s
    s.reinitialize(h.conf)
    assert s.assign_multiple is True
    assert s.max_assign == 3
    assert s.size_based_weight is True
    assert s.node_locality_threshold == pytest.approx(0.5, abs=0.01)
    assert s.rack_locality_threshold == pytest.approx(0.7, abs=0.01)
    assert s.continuous_scheduling
    assert s.continuous_scheduling_sleep_ms == 10
    assert s.node_locality_delay_ms == 5000
    assert s.rack_locality_delay_ms == 5000
    assert s.get_maximum_allocation().memory_mb == 1024
    assert s.minimum_allocation.memory_mb == 512
    assert s.increment.memory_mb == 128


def test_min_zero_resources_settings(tmp_path: Path) -> None:
    """testMinZeroResourcesSettings."""
    h = Harness(
        tmp_path,
        **{
            keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 0,
            keys.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES: 0,
            keys.RM_SCHEDULER_INCREMENT_ALLOCATION_MB: 512,
            keys.RM_SCHEDULER_INCREMENT_ALLOCATION_VCORES: 2,
        },
    )
    h.s.reinitialize(h.conf)
    assert (h.s.minimum_allocation.memory_mb, h.s.minimum_allocation.vcores) == (0, 0)
    assert (h.s.increment.memory_mb, h.s.increment.vcores) == (512, 2)


def _fair_shares_of_two_apps(h: Harness, mb_a: int, mb_b: int) -> tuple[int, int]:
    """The fair-share methods' common body: a node of 8 GB and 8 vcores (127.0.0.1), an application of user1 asking
    one ``mb_a`` container in queueA and one asking ``mb_b`` in queueB, an update; queueA's and queueB's fair shares
    (MB)."""
    h.add_node(8 * GB, 8, host="127.0.0.1")
    h.request(mb_a, "queueA", "user1")
    h.request(mb_b, "queueB", "user1")
    h.s.update()
    return h.leaf("queueA").fair_share.memory_mb, h.leaf("queueB").fair_share.memory_mb


def test_fair_share_with_high_max_resources(tmp_path: Path) -> None:
    """testFairShareWithHighMaxResources: max shares above the cluster leave the weighted shares alone."""
    h = Harness(
        tmp_path,
        "<queue name='queueA'><maxResources>1073741824 mb 1000 vcores</maxResources><weight>.25</weight></queue>"
        "<queue name='queueB'><maxResources>1073741824 mb 1000 vcores</maxResources><weight>.75</weight></queue>",
    )
    assert _fair_shares_of_two_apps(h, 1 * GB, 6 * GB) == (2 * GB, 6 * GB)


def test_fair_share_with_low_max_resources(tmp_path: Path) -> None:
    """testFairShareWithLowMaxResources: the shares are capped at the max shares, and so are the allocations."""
    h = Harness(
        tmp_path,
        "<queue name='queueA'><maxResources>1024 mb 1 vcores</maxResources><weight>0.75</weight></queue>"
        "<queue name='queueB'><maxResources>3072 mb 3 vcores</maxResources><weight>0.25</weight></queue>",
    )
    node = h.add_node(8 * GB, 8, host="127.0.0.1")
    att1 = h.request(1024, "queueA", "user1", 2)
    att2 = h.request(1024, "queueB", "user1", 4)
    h.s.update()
    assert h.leaf("queueA").fair_share.memory_mb == 1 * GB
    assert h.leaf("queueB").fair_share.memory_mb == 3 * GB
    h.heartbeat(node, 6)
    assert h.live(att1) == 1
    assert h.live(att2) == 3


def test_fair_share_with_zero_weight(tmp_path: Path) -> None:
    """testFairShareWithZeroWeight."""
    h = Harness(
        tmp_path, "<queue name='queueA'><weight>0.0</weight></queue><queue name='queueB'><weight>0.0</weight></queue>"
    )
    assert _fair_shares_of_two_apps(h, 2 * GB, 6 * GB) == (0, 0)


def test_fair_share_with_zero_weight_none_zero_min_res(tmp_path: Path) -> None:
    """testFairShareWithZeroWeightNoneZeroMinRes: zero weights, the fair share is the min share."""
    h = Harness(
        tmp_path,
        "<queue name='queueA'><minResources>1 mb 1 vcores</minResources><weight>0.0</weight></queue>"
        "<queue name='queueB'><minResources>1 mb 1 vcores</minResources><weight>0.0</weight></queue>",
    )
    assert _fair_shares_of_two_apps(h, 2 * GB, 6 * GB) == (1, 1)


def test_fair_share_with_none_zero_weight_none_zero_min_res(tmp_path: Path) -> None:
    """testFairShareWithNoneZeroWeightNoneZeroMinRes."""
    h = Harness(
        tmp_path,
        "<queue name='queueA'><minResources>1024 mb 1 vcores</minResources><weight>0.5</weight></queue>"
        "<queue name='queueB'><minResources>1024 mb 1 vcores</minResources><weight>0.5</weight></queue>",
    )
    assert _fair_shares_of_two_apps(h, 4 * GB, 4 * GB) == (4096, 4096)


def test_hierarchical_queues_similar_parents(tmp_path: Path) -> None:
    """testHierarchicalQueuesSimilarParents: a leaf cannot be made where a parent is, nor under a leaf."""
    h = Harness(tmp_path)
    qm = h.s.queue_manager
    leaf = qm.get_leaf_queue("parent.child", True)
    assert len(qm.leaf_queues) == 1  # the leaf counts are trunk's (no static root.default: YARN-7769)
    assert leaf is not None
    assert leaf.name == "root.parent.child"
    assert qm.get_leaf_queue("parent", True) is None
    assert len(qm.leaf_queues) == 1
    assert qm.get_leaf_queue("parent.child.grandchild", True) is None
    assert len(qm.leaf_queues) == 1
    leaf4 = qm.get_leaf_queue("parent.sister", True)
    assert leaf4 is not None
    assert leaf4.name == "root.parent.sister"
    assert len(qm.leaf_queues) == 2


def test_empty_queue_name(tmp_path: Path) -> None:
    """testEmptyQueueName: an application submitted to "" is rejected and creates no queue."""
    h = Harness(tmp_path)
    assert len(h.s.queue_manager.leaf_queues) == 0  # trunk: no queue by default
    attempt_id = h.new_attempt_id()
    assert not h.with_am(attempt_id, "", "user1")
    assert len(h.s.queue_manager.leaf_queues) == 0
    assert attempt_id not in h.s.fs_apps
    assert attempt_id.application_id not in h.s.applications


def test_fair_share_with_min_alloc(tmp_path: Path) -> None:
    """testFairShareWithMinAlloc: the min shares are the fair shares of a cluster they fill."""
    h = Harness(
        tmp_path,
        "<queue name='queueA'><minResources>1024mb,0vcores</minResources></queue>"
        "<queue name='queueB'><minResources>2048mb,0vcores</minResources></queue>",
    )
    h.add_node(3 * GB, host="127.0.0.1")
    h.request(2 * GB, "queueA", "user1")
    h.request(2 * GB, "queueB", "user1")
    h.s.update()
    assert len(h.s.queue_manager.leaf_queues) == 2  # trunk: no root.default
    assert h.leaf("queueA").fair_share.memory_mb == 1024
    assert h.leaf("queueB").fair_share.memory_mb == 2048


def test_fair_share_and_weights_in_nested_user_queue_rule(tmp_path: Path) -> None:
    """testFairShareAndWeightsInNestedUserQueueRule: user queues made by the nested rule under parentq."""
    h = Harness(
        tmp_path,
        "<queue name='parentq' type='parent'><minResources>1024mb,0vcores</minResources></queue>"
        "<queuePlacementPolicy><rule name='nestedUserQueue'><rule name='specified' create='false'/></rule>"
        "<rule name='default'/></queuePlacementPolicy>",
    )
    capacity = 16 * GB
    h.add_node(capacity, host="127.0.0.1")
    h.request(10 * GB, "root.parentq", "user1")
    h.request(10 * GB, "root.parentq", "user2")
    h.request(10 * GB, "root.default", "user3")
    h.s.update()
    root = h.s.queue_manager.root_queue
    root.steady_fair_share = h.s.cluster_resource
    root.recompute_steady_shares()
    for name in ("root.parentq.user1", "root.parentq.user2"):
        leaf = h.leaf(name)
        assert leaf.fair_share.memory_mb == capacity // 4
        assert leaf.steady_fair_share.memory_mb == capacity // 4
        assert leaf.weight == 1.0


def test_hierarchical_queue_allocation_file_parsing(tmp_path: Path) -> None:
    """testHierarchicalQueueAllocationFileParsing: the file's leaves, and lookups create none."""
    h = Harness(
        tmp_path,
        "<queue name='queueA'><minResources>2048mb,0vcores</minResources></queue>"
        "<queue name='queueB'><minResources>2048mb,0vcores</minResources>"
        "<queue name='queueC'><minResources>2048mb,0vcores</minResources></queue>"
        "<queue name='queueD'><minResources>2048mb,0vcores</minResources></queue></queue>",
    )
    qm = h.s.queue_manager
    assert len(qm.leaf_queues) == 3  # trunk: no root.default
    assert qm.get_leaf_queue("queueA", False) is not None
    assert qm.get_leaf_queue("queueB.queueC", False) is not None
    assert qm.get_leaf_queue("queueB.queueD", False) is not None
    assert qm.get_leaf_queue("default", False) is None
    assert len(qm.leaf_queues) == 3


def test_multiple_containers_waiting_for_reservation(tmp_path: Path) -> None:
    """testMultipleContainersWaitingForReservation: one of two waiting applications reserves the full node."""
    h = Harness(tmp_path)
    node = h.add_node(1024, host="127.0.0.1")
    h.request(1024, "queue1", "user1")
    h.s.update()
    h.heartbeat(node)
    att1 = h.request(1024, "queue2", "user2")
    att2 = h.request(1024, "queue3", "user3")
    h.s.update()
    h.heartbeat(node)
    assert h.current_reservation(att1).memory_mb == 1024
    assert h.current_reservation(att2).memory_mb == 0


def _max_running_apps_raised_on_the_fly(tmp_path: Path, before: str, after: str) -> None:
    """testIncreaseQueueSettingOnTheFlyInternal."""
    h = Harness(tmp_path, before)
    node = h.add_node(8192, 8, host="127.0.0.1")
    att1 = h.request(1024, "queue1", "user1")
    h.s.update()
    h.heartbeat(node)
    assert h.live(att1) == 1
    others = []
    for _ in range(3):
        others.append(h.request(1024, "queue1", "user1"))
        h.s.update()
        h.heartbeat(node)
    att2, att3, att4 = others
    assert [h.live(a) for a in others] == [0, 0, 0]
    h.reinitialize(after)
    h.s.update()
    h.heartbeat(node)
    assert h.live(att2) == 1
    h.s.update()
    h.heartbeat(node)
    assert h.live(att3) == 1
    h.s.update()
    h.heartbeat(node)
    assert h.live(att4) == 0
    h.remove(att1)
    h.s.update()
    h.heartbeat(node)
    assert h.live(att4) == 1


def test_increase_queue_max_running_apps_on_the_fly(tmp_path: Path) -> None:
    """testIncreaseQueueMaxRunningAppsOnTheFly."""
    queue = "<queue name='root'><queue name='queue1'><maxRunningApps>{}</maxRunningApps></queue></queue>"
    _max_running_apps_raised_on_the_fly(tmp_path, queue.format(1), queue.format(3))


def test_increase_user_max_running_apps_on_the_fly(tmp_path: Path) -> None:
    """testIncreaseUserMaxRunningAppsOnTheFly."""
    queue = "<queue name='root'><queue name='queue1'><maxRunningApps>10</maxRunningApps></queue></queue>"
    user = "<user name='user1'><maxRunningApps>{}</maxRunningApps></user>"
    _max_running_apps_raised_on_the_fly(tmp_path, queue + user.format(1), queue + user.format(3))


def test_multiple_nodes_single_rack_request(tmp_path: Path) -> None:
    """testMultipleNodesSingleRackRequest: node-local on node 1, then the second container on node 2."""
    h = Harness(tmp_path)
    node1 = h.add_node(1024, rack=1, host="127.0.0.1")
    node2 = h.add_node(1024, rack=1, host="127.0.0.2")
    attempt_id = h.new_attempt_id()
    assert h.with_am(attempt_id, "queue1", "user1")
    h.allocate(
        attempt_id,
        [
            rr(1024, "127.0.0.1"),
            rr(1024, "127.0.0.2"),
            rr(1024, "127.0.0.3"),
            rr(1024, "rack1"),
            rr(1024, "rack2"),
            rr(1024, ANY, n=2),
        ],
    )
    h.s.update()
    h.heartbeat(node1)
    assert h.live(attempt_id) == 1
    h.s.update()
    h.heartbeat(node2)
    assert h.live(attempt_id) == 2


def test_fifo_within_queue(tmp_path: Path) -> None:
    """testFifoWithinQueue: under the fifo policy the first application is served first."""
    h = Harness(tmp_path, "<queue name='queue1'><schedulingPolicy>fifo</schedulingPolicy></queue>")
    node = h.add_node(3072, 3, host="127.0.0.1")
    att1 = h.request(1024, "queue1", "user1", 2)
    att2 = h.request(1024, "queue1", "user1", 2)
    h.s.update()
    h.heartbeat(node)
    assert (h.live(att1), h.live(att2)) == (1, 0)
    h.heartbeat(node)
    assert (h.live(att1), h.live(att2)) == (2, 0)
    h.heartbeat(node)
    assert (h.live(att1), h.live(att2)) == (2, 1)


def test_fixed_max_assign(tmp_path: Path) -> None:
    """testFixedMaxAssign: maxAssign 2, then -1 (no limit)."""
    h = Harness(tmp_path, **{keys.ASSIGN_MULTIPLE: True, keys.DYNAMIC_MAX_ASSIGN: False})
    node = h.add_node(16384, 16, host="127.0.0.1")
    att = h.request(1024, "root.default", "user", 8)
    h.s.max_assign = 2
    h.s.update()
    h.heartbeat(node)
    assert h.live(att) == 2
    h.s.max_assign = -1
    h.s.update()
    h.heartbeat(node)
    assert h.live(att) == 8


def test_max_assign_with_zero_memory_containers(tmp_path: Path) -> None:
    """testMaxAssignWithZeroMemoryContainers: as testFixedMaxAssign with 0 MB asks."""
    h = Harness(
        tmp_path,
        **{keys.ASSIGN_MULTIPLE: True, keys.DYNAMIC_MAX_ASSIGN: False, keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 0},
    )
    node = h.add_node(16384, 16, host="127.0.0.1")
    att = h.request(0, "root.default", "user", 8)
    h.s.max_assign = 2
    h.s.update()
    h.heartbeat(node)
    assert h.live(att) == 2
    h.s.max_assign = -1
    h.s.update()
    h.heartbeat(node)
    assert h.live(att) == 8


def test_host_port_node_name(tmp_path: Path) -> None:
    """testHostPortNodeName: with yarn.scheduler.include-port-in-node-name a node is named host:port, and a strict
    ask for one never lands on the other node of the same host."""
    h = Harness(tmp_path, **{keys.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME: True})
    node1 = h.add_node(1024, rack=1, host="127.0.0.1", port=1)
    node2 = h.add_node(1024, rack=1, host="127.0.0.1", port=2)
    att = h.request(1024, "queue1", "user1", 0)
    h.ask_strictly_on(att, "127.0.0.1:1")
    for _ in range(10):
        h.heartbeat(node2)
        assert h.live(att) == 0
        assert h.reservations(att) == 0
    h.heartbeat(node1)
    assert h.live(att) == 1


def test_multiple_completed_event(tmp_path: Path) -> None:
    """testMultipleCompletedEvent: a container completed twice (KILL, then FINISHED) is released once."""
    h = Harness(tmp_path, "<queue name='queue1'><maxAMShare>0.2</maxAMShare></queue>")
    node = h.add_node(20480, 20, host="127.0.0.1")
    h.s.update()
    att1 = h.new_attempt_id()
    assert h.with_am(att1, "queue1", "user1", Resource(1024, 1))
    h.ask_existing(att1, 1024, priority=AM_PRIORITY)
    h.s.update()
    h.heartbeat(node)
    [rmc] = h.app(att1).attempt.live.values()
    h.s.complete_container(rmc, abnormal_status(rmc.cid, LOST_CONTAINER), notify=True)
    h.s.complete_container(rmc, abnormal_status(rmc.cid, COMPLETED_APPLICATION), notify=True)
    assert h.app(att1).resource_usage == Resource(0, 0)
    assert h.usage("queue1") == Resource(0, 0)


def _verify_app_runnable(h: Harness, attempt_id: ApplicationAttemptId, runnable: bool) -> None:
    """verifyAppRunnable."""
    app = h.app(attempt_id)
    assert app.queue.is_runnable_app(app) == runnable
    assert app.queue.is_non_runnable_app(app) == (not runnable)


def _verify_queue_num_runnable(h: Harness, name: str, runnable: int, non_runnable: int) -> None:
    """verifyQueueNumRunnable."""
    leaf = h.leaf(name)
    assert (leaf.num_runnable_apps, leaf.num_non_runnable_apps) == (runnable, non_runnable)


def test_max_running_apps_hierarchical_queues(tmp_path: Path) -> None:
    """testMaxRunningAppsHierarchicalQueues: the parent's limit and a child's; the earliest waiting application
    runs when room comes; a removed non-runnable application is forgotten."""
    h = Harness(
        tmp_path,
        "<queue name='queue1'><maxRunningApps>3</maxRunningApps><queue name='sub1'></queue>"
        "<queue name='sub2'></queue><queue name='sub3'><maxRunningApps>1</maxRunningApps></queue></queue>",
    )
    expected = [
        ("queue1.sub1", True, (1, 0)),
        ("queue1.sub3", True, (1, 0)),
        ("queue1.sub2", True, (1, 0)),
        ("queue1.sub2", False, (1, 1)),  # exceeds queue1's limit
        ("queue1.sub3", False, (1, 1)),  # exceeds sub3's limit
    ]
    attempts = []
    for queue, runnable, counts in expected:
        attempt_id = h.request(1024, queue, "user1")
        _verify_app_runnable(h, attempt_id, runnable)
        _verify_queue_num_runnable(h, queue, *counts)
        attempts.append(attempt_id)
        h.clock.ms += 10_000
    _att1, att2, _att3, att4, att5 = attempts
    # the app from sub2 goes first even though the removed one was in sub3: it came in first
    h.remove(att2)
    _verify_app_runnable(h, att4, True)
    _verify_queue_num_runnable(h, "queue1.sub2", 2, 0)
    _verify_app_runnable(h, att5, False)
    _verify_queue_num_runnable(h, "queue1.sub3", 0, 1)
    # removing a non-runnable app
    h.remove(att5, keep=True)
    assert len(h.s.max_running_enforcer.users_non_runnable_apps.get("user1", [])) == 0  # a multimap's get
    _verify_queue_num_runnable(h, "queue1.sub3", 0, 0)
    # it does not become runnable when there would be room for it
    h.remove(att4, keep=True)
    _verify_queue_num_runnable(h, "queue1.sub2", 1, 0)
    _verify_queue_num_runnable(h, "queue1.sub3", 0, 0)


def test_get_apps_in_queue(tmp_path: Path) -> None:
    """testGetAppsInQueue: with or without root., the subqueues' applications included."""
    h = Harness(tmp_path)
    att1 = h.request(1024, "queue1.subqueue1", "user1", vcores=1)
    att2 = h.request(1024, "queue1.subqueue2", "user1", vcores=1)
    att3 = h.request(1024, "default", "user1", vcores=1)
    assert h.s.get_apps_in_queue("queue1.subqueue1") == [att1]
    assert h.s.get_apps_in_queue("root.queue1.subqueue1") == [att1]
    assert h.s.get_apps_in_queue("user1") == [att3]
    assert h.s.get_apps_in_queue("root.user1") == [att3]
    apps = h.s.get_apps_in_queue("queue1")
    assert apps is not None and len(apps) == 2
    assert set(apps) == {att1, att2}


def test_move_would_violate_max_resources_constraints(tmp_path: Path) -> None:
    """testMoveWouldViolateMaxResourcesConstraints: the target's max share would be exceeded."""
    h = Harness(tmp_path, "<queue name='queue2'><maxResources>1024mb,1vcores</maxResources></queue>")
    old_queue = h.s.queue_manager.get_leaf_queue("queue1", True)
    assert old_queue is not None
    att = h.request(1024, "queue1", "user1", 3)
    node = h.add_node(2048, 2)
    h.heartbeat(node, 2)
    assert old_queue.resource_usage == Resource(2048, 2)
    with pytest.raises(SchedulingError, match=r"would violate queue maxShare constraints on queue root\.queue2$"):
        h.s.move_application(att.application_id, "queue2")


def _lowest_common_ancestor_of(h: Harness, a: str, b: str) -> str:
    """``findLowestCommonAncestorQueue`` of two leaves (made here; Hadoop's test mocks them by name)."""
    qa, qb = h.s.queue_manager.get_leaf_queue(a, True), h.s.queue_manager.get_leaf_queue(b, True)
    assert qa is not None and qb is not None
    ancestor = _lowest_common_ancestor(qa, qb)
    assert ancestor is not None
    return ancestor.name


def test_lowest_common_ancestor_for_non_root_parent(tmp_path: Path) -> None:
    """testLowestCommonAncestorForNonRootParent."""
    assert _lowest_common_ancestor_of(Harness(tmp_path), "root.queue1.a", "root.queue1.b") == "root.queue1"


def test_lowest_common_ancestor_root_parent(tmp_path: Path) -> None:
    """testLowestCommonAncestorRootParent."""
    assert _lowest_common_ancestor_of(Harness(tmp_path), "root.a", "root.b") == "root"


def test_lowest_common_ancestor_deeper_hierarchy(tmp_path: Path) -> None:
    """testLowestCommonAncestorDeeperHierarchy."""
    h = Harness(tmp_path)
    assert _lowest_common_ancestor_of(h, "root.queue1.a.a1", "root.queue1.b.b1") == "root.queue1"


def test_move_after_removal(tmp_path: Path) -> None:
    """testMoveAfterRemoval: a removed attempt is stopped, out of its queue, and cannot be moved."""
    h = Harness(tmp_path)
    attempt_id = h.new_attempt_id()
    assert h.with_am(attempt_id, "user1", "user1")
    attempt = h.app(attempt_id)
    h.remove(attempt_id)
    apps = h.s.get_apps_in_queue("user1")
    assert apps is not None
    assert attempt_id not in apps
    assert attempt.attempt.stopped
    assert attempt.queue.name.endswith("user1")
    with pytest.raises(SchedulingError, match=r"^Application application_0_0001 is stopped and can't be moved!$"):
        h.s.move_application(attempt_id.application_id, "default")


def test_empty_queue_name_in_config_file(tmp_path: Path) -> None:
    """testEmptyQueueNameInConfigFile: a queue named "" fails the start (the cause's message, with the file)."""
    with pytest.raises(AllocationConfigurationException, match=r"fair-scheduler.xml:.*queue name shouldn't be empty"):
        Harness(tmp_path, "<queue name=''></queue>")
