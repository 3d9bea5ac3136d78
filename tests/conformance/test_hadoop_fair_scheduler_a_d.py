"""Hadoop's ``TestFairScheduler`` (``scheduler/fair/``), its methods testA... to testD... not ported in
test_hadoop_fair_scheduler.py, on yarnball's FairScheduler built as ``FairSchedulerTestBase`` builds Hadoop's
(tests/conformance/fair_scheduler_harness.py). Method names are Hadoop's, snake-cased."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fair_scheduler_harness import AM_PRIORITY, GB, Harness, rr

from tests.fair_queue_helpers import FakeFSApp
from yarnball.errors import ConfigurationError
from yarnball.policies.fair._configurableresource import ConfigurableResource
from yarnball.policies.fair._dominantresourcefairnesspolicy import DominantResourceFairnessPolicy
from yarnball.policies.fair._fsleafqueue import multiply_and_round_up
from yarnball.policies.fair._fsqueuestate import dump_state
from yarnball.policies.fair._placement import DefaultPlacementRule
from yarnball.policies.fair._policies import parse as parse_policy
from yarnball.policies.scheduler import COMPLETED_APPLICATION, AppRejected, abnormal_status
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    AppRemovedSchedulerEvent,
    Configuration,
    NodeId,
    Resource,
    keys,
)


def test_conf_validation() -> None:
    """testConfValidation: a minimum allocation above the maximum is refused, memory and vcores."""
    from yarnball.policies.fair._fairscheduler import validate_conf

    conf = Configuration(
        {keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: "2048", keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: "1024"}
    )
    with pytest.raises(ConfigurationError, match="Invalid resource scheduler memory"):
        validate_conf(conf)
    conf = Configuration(
        {keys.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES: "2", keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES: "1"}
    )
    with pytest.raises(ConfigurationError, match="Invalid resource scheduler vcores"):
        validate_conf(conf)


def test_aggregate_capacity_tracking(tmp_path: Path) -> None:
    """testAggregateCapacityTracking: the cluster resource follows nodes added and removed."""
    h = Harness(tmp_path)
    n1 = h.add_node(1024, 1, host="127.0.0.1")
    assert h.s.cluster_resource.memory_mb == 1024
    h.add_node(512, 1, host="127.0.0.2")
    assert h.s.cluster_resource.memory_mb == 1536
    h.remove_node(n1)
    assert h.s.cluster_resource.memory_mb == 512


def _child_max(mem: int, vcores: int) -> str:
    return f"<queue name='queueA' type='parent'><maxChildResources>{mem}mb,{vcores}vcores</maxChildResources></queue>"


def test_child_max_resources(tmp_path: Path) -> None:
    """testChildMaxResources: dynamic children of a parent get its maxChildResources, updated on reload."""
    h = Harness(tmp_path, _child_max(2048, 2))
    nid = h.add_node(8 * GB, 8)
    att1 = h.request(1024, "queueA.queueB", "user1", 8)
    att2 = h.request(1024, "queueA.queueC", "user1", 8)
    h.s.update()
    for _ in range(4):
        h.heartbeat(nid)
    assert (h.live(att1), h.live(att2)) == (2, 2)
    h.heartbeat(nid)  # a 5th heartbeat allocates nothing more
    assert (h.live(att1), h.live(att2)) == (2, 2)
    h.write_allocations(_child_max(3072, 3))
    h.reinitialize()
    h.s.update()
    h.heartbeat(nid)
    h.heartbeat(nid)
    assert (h.live(att1), h.live(att2)) == (3, 3)
    h.write_allocations(_child_max(1024, 1))
    h.heartbeat(nid)  # the file is rewritten but not reloaded yet
    assert h.s.queue_metrics()[0].containers_allocated == 6
    h.reinitialize()
    h.s.update()
    h.heartbeat(nid)
    assert (h.live(att1), h.live(att2)) == (3, 3)  # no preemption


def test_compute_max_am_resource(tmp_path: Path) -> None:
    """testComputeMaxAMResource: a zero-weight queue's AM limit is maxAMShare x min(maxShare, the cluster's
    available resource); a weighted queue's is maxAMShare x its fair share."""
    h = Harness(
        tmp_path,
        "<queue name='queueFSZeroWithMax'><weight>0</weight><maxAMShare>0.5</maxAMShare>"
        "<maxResources>4096 mb 4 vcores</maxResources></queue>"
        "<queue name='queueFSZeroWithAVL'><weight>0.0</weight><maxAMShare>0.5</maxAMShare></queue>"
        "<queue name='queueFSNonZero'><weight>1</weight><maxAMShare>0.5</maxAMShare></queue>"
        "<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>",
    )
    mem_capacity, cpu_capacity = 20 * GB, 20
    nid = h.add_node(mem_capacity, cpu_capacity)
    h.s.update()
    am = Resource(GB, 1)

    def metrics(name: str):  # type: ignore[no-untyped-def]
        return next(m for m in h.s.queue_metrics() if m.path == name)

    zero_max = h.leaf("queueFSZeroWithMax", True)
    att1, _ = h.add_app("queueFSZeroWithMax", "user1", am=am)
    h.ask_existing(att1, GB, AM_PRIORITY, vcores=1)
    h.heartbeat(nid)
    assert zero_max.fair_share.memory_mb == 0
    expected = multiply_and_round_up(zero_max.max_share, zero_max.max_am_share)
    m = metrics("root.queueFSZeroWithMax")
    assert (m.max_am_share.memory_mb, m.max_am_share.vcores) == (expected.memory_mb, expected.vcores)
    assert m.am_used.memory_mb == am.memory_mb

    zero_avl = h.leaf("queueFSZeroWithAVL", True)
    att2, _ = h.add_app("queueFSZeroWithAVL", "user1", am=am)
    h.ask_existing(att2, GB, AM_PRIORITY, vcores=1)
    h.heartbeat(nid)
    expected = multiply_and_round_up(
        Resource(mem_capacity - am.memory_mb, cpu_capacity - am.vcores), zero_avl.max_am_share
    )
    assert zero_avl.fair_share.memory_mb == 0
    m = metrics("root.queueFSZeroWithAVL")
    assert (m.max_am_share.memory_mb, m.max_am_share.vcores) == (expected.memory_mb, expected.vcores)
    assert m.am_used.memory_mb == am.memory_mb

    non_zero = h.leaf("queueFSNonZero", True)
    att3, _ = h.add_app("queueFSNonZero", "user1", am=am)
    h.ask_existing(att3, GB, AM_PRIORITY, vcores=1)
    h.heartbeat(nid)
    assert non_zero.fair_share.memory_mb != 0
    expected = multiply_and_round_up(non_zero.fair_share, non_zero.max_am_share)
    m = metrics("root.queueFSNonZero")
    assert (m.max_am_share.memory_mb, m.max_am_share.vcores) == (expected.memory_mb, expected.vcores)
    assert m.am_used.memory_mb == am.memory_mb


def _two_queues(max1: str, max2: str) -> str:
    return (
        f"<queue name='root'><queue name='queue1'><maxResources>{max1}</maxResources></queue>"
        f"<queue name='queue2'><maxResources>{max2}</maxResources></queue></queue>"
    )


def _full_node_then_queue1_asks(h: Harness) -> tuple[NodeId, ApplicationAttemptId]:
    """The two methods' common start: on a node of 3 GB, an application of queue1 gets 2 GB and one of queue2 the
    last 1 GB, then another application of queue1 asks 1 GB (each an update and a heartbeat); the node and that
    application."""
    nid = h.add_node(3072, 5)
    h.request(2048, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.queue("queue1").resource_usage.memory_mb == 2048
    h.request(1024, "queue2", "user2", 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.queue("queue2").resource_usage.memory_mb == 1024
    att1 = h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nid)
    return nid, att1


def test_container_reservation_attempt_exceeding_queue_max(tmp_path: Path) -> None:
    """testContainerReservationAttemptExceedingQueueMax: no reservation for an app whose queue is at its max."""
    h = Harness(tmp_path, _two_queues("2048mb,5vcores", "2048mb,10vcores"))
    _, att1 = _full_node_then_queue1_asks(h)
    assert h.current_reservation(att1).memory_mb == 0


def test_container_reservation_not_exceeding_queue_max(tmp_path: Path) -> None:
    """testContainerReservationNotExceedingQueueMax: a reservation within the queue's max stays; once a reload
    lowers the max below it, the reservation is released and the node serves another queue."""
    h = Harness(tmp_path, _two_queues("3072mb,10vcores", "2048mb,10vcores"))
    nid, att1 = _full_node_then_queue1_asks(h)
    assert h.current_reservation(att1).memory_mb == 1024
    h.heartbeat(nid)
    assert h.current_reservation(att1).memory_mb == 1024
    h.write_allocations(_two_queues("2048mb,10vcores", "2048mb,10vcores"))
    h.reinitialize()
    h.request(1024, "queue2", "user2", 1)
    h.heartbeat(nid)
    assert h.queue("queue1").resource_usage.memory_mb == 2048
    assert h.current_reservation(att1).memory_mb == 0
    assert h.queue("queue2").resource_usage.memory_mb == 1024


def test_configure_root_queue(tmp_path: Path) -> None:
    """testConfigureRootQueue: root's own policy and preemption settings override the defaults."""
    h = Harness(
        tmp_path,
        "<defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy>"
        "<defaultFairSharePreemptionTimeout>300</defaultFairSharePreemptionTimeout>"
        "<defaultMinSharePreemptionTimeout>200</defaultMinSharePreemptionTimeout>"
        "<defaultFairSharePreemptionThreshold>.6</defaultFairSharePreemptionThreshold>"
        "<queue name='root'><schedulingPolicy>drf</schedulingPolicy>"
        "<fairSharePreemptionTimeout>100</fairSharePreemptionTimeout>"
        "<fairSharePreemptionThreshold>.5</fairSharePreemptionThreshold>"
        "<minSharePreemptionTimeout>120</minSharePreemptionTimeout>"
        "<queue name='child1'><minResources>1024mb,1vcores</minResources></queue>"
        "<queue name='child2'><minResources>1024mb,4vcores</minResources></queue></queue>",
    )
    root = h.s.queue_manager.root_queue
    assert isinstance(root.policy, DominantResourceFairnessPolicy)
    assert h.s.queue_manager.get_leaf_queue("child1", False) is not None
    assert h.s.queue_manager.get_leaf_queue("child2", False) is not None
    assert root.fair_share_preemption_timeout == 100000
    assert root.min_share_preemption_timeout == 120000
    assert root.fair_share_preemption_threshold == pytest.approx(0.5, abs=0.01)


def _decrease_on_the_fly(tmp_path: Path, before: str, after: str) -> None:
    """testDecreaseQueueSettingOnTheFlyInternal: a lowered limit stops no running app; waiting apps start only
    once the running ones are below the new limit."""
    h = Harness(tmp_path, before)
    nid = h.add_node(8192, 8)
    att1 = h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(att1) == 1
    att2 = h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nid)
    att3 = h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nid)
    att4 = h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nid)
    assert (h.live(att2), h.live(att3), h.live(att4)) == (1, 1, 0)
    h.write_allocations(after)
    h.reinitialize()
    for att, expected in ((att2, 1), (att3, 1), (att4, 0)):
        h.s.update()
        h.heartbeat(nid)
        assert h.live(att) == expected
    for removed, expected in ((att1, 0), (att2, 0), (att3, 1)):
        h.s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=removed, final_attempt_state="FINISHED"))
        h.s.update()
        h.heartbeat(nid)
        assert h.live(att4) == expected


def test_decrease_queue_max_running_apps_on_the_fly(tmp_path: Path) -> None:
    """testDecreaseQueueMaxRunningAppsOnTheFly: queue1's maxRunningApps 3 -> 1."""
    _decrease_on_the_fly(
        tmp_path,
        "<queue name='root'><queue name='queue1'><maxRunningApps>3</maxRunningApps></queue></queue>",
        "<queue name='root'><queue name='queue1'><maxRunningApps>1</maxRunningApps></queue></queue>",
    )


def test_decrease_user_max_running_apps_on_the_fly(tmp_path: Path) -> None:
    """testDecreaseUserMaxRunningAppsOnTheFly: user1's maxRunningApps 3 -> 1."""
    queue = "<queue name='root'><queue name='queue1'><maxRunningApps>10</maxRunningApps></queue></queue>"
    _decrease_on_the_fly(
        tmp_path,
        queue + "<user name='user1'><maxRunningApps>3</maxRunningApps></user>",
        queue + "<user name='user1'><maxRunningApps>1</maxRunningApps></user>",
    )


def test_dynamic_max_assign(tmp_path: Path) -> None:
    """testDynamicMaxAssign: with dynamic max assign, maxAssign is ignored; each heartbeat assigns up to half the
    node's unallocated resource (plus one)."""
    h = Harness(tmp_path, **{keys.ASSIGN_MULTIPLE: "true"})
    nid = h.add_node(8192, 8)
    att = h.request(1024, "root.default", "user", 12, vcores=1)
    h.s.max_assign = 2
    h.s.update()
    h.heartbeat(nid)
    assert h.live(att) == 5  # floor(8 / 2) + 1
    h.s.max_assign = 4
    h.s.update()
    h.heartbeat(nid)
    assert h.live(att) == 7  # floor(3 / 2) + 1 more
    h.s.update()
    h.heartbeat(nid)
    assert h.live(att) == 8


def test_assign_container(tmp_path: Path) -> None:
    """testAssignContainer: a fifo leaf serves its first app first; the fair parent's children share evenly."""
    h = Harness(tmp_path)
    n1 = h.add_node(8192, 8, host="127.0.0.1")
    n2 = h.add_node(8192, 8, host="127.0.0.2")
    att1 = h.request(1024, "fifo", "user1", 4)
    att2 = h.request(1024, "fairParent.fairChild1", "user1", 4)
    att3 = h.request(1024, "fairParent.fairChild2", "user1", 4)
    att4 = h.request(1024, "fifo", "user1", 4)
    h.leaf("fifo", True).set_policy(parse_policy("fifo"))
    h.s.update()
    for i in range(8):
        h.heartbeat(n1)
        h.heartbeat(n2)
        if (i + 1) % 2 == 0:
            if i < 4:
                assert (h.live(att1), h.live(att4)) == (i + 1, 0), i
            else:
                assert (h.live(att1), h.live(att4)) == (4, i - 3), i
            assert (h.live(att2), h.live(att3)) == ((i + 1) // 2, (i + 1) // 2), i


def test_cancel_strict_locality(tmp_path: Path) -> None:
    """testCancelStrictLocality: a strict node ask never lands elsewhere until the AM relaxes it."""
    h = Harness(tmp_path)
    n1 = h.add_node(1024, 1, host="127.0.0.1")
    n2 = h.add_node(1024, 1, host="127.0.0.2")
    att = h.request(1024, "queue1", "user1", 0)
    h.ask_strictly_on(att, n1.host)
    h.s.update()
    for _ in range(10):
        h.heartbeat(n2)
        assert h.live(att) == 0
    h.s.allocate(att, [rr(1024, n1.host, n=0), rr(1024, "rack1", n=0), rr(1024, ANY)], [])
    h.heartbeat(n2)
    assert h.live(att) == 1


def _am_strict_locality(tmp_path: Path, node: bool, invalid: bool) -> None:
    """testAMStrictLocality(node, invalid): an AM asked strictly on node2 or its rack lands there; asked on an
    unknown host or rack, nowhere."""
    h = Harness(tmp_path)
    n1 = h.add_node(1024, 1, host="127.0.0.1", rack=1)
    n2 = h.add_node(1024, 1, host="127.0.0.2", rack=2)
    reqs = [
        rr(1024, ANY, 1, 1, relax=False),
        rr(1024, "invalid" if not node and invalid else "rack2", 1, 1, relax=not node),
    ]
    if node:
        reqs.append(rr(1024, "invalid" if invalid else n2.host, 1, 1, relax=True))
    att = h.request_asks(reqs, "queue1", "user1", update=False)
    h.s.update()
    h.heartbeat(n2)
    expected = 0 if invalid else 1
    assert h.live(att) == expected
    assert len(h.s.nodes[n2].containers) == expected
    assert len(h.s.nodes[n1].containers) == 0


def test_am_strict_locality_rack(tmp_path: Path) -> None:
    """testAMStrictLocalityRack."""
    _am_strict_locality(tmp_path, False, False)


def test_am_strict_locality_node(tmp_path: Path) -> None:
    """testAMStrictLocalityNode."""
    _am_strict_locality(tmp_path, True, False)


def test_am_strict_locality_rack_invalid(tmp_path: Path) -> None:
    """testAMStrictLocalityRackInvalid."""
    _am_strict_locality(tmp_path, False, True)


def test_am_strict_locality_node_invalid(tmp_path: Path) -> None:
    """testAMStrictLocalityNodeInvalid."""
    _am_strict_locality(tmp_path, True, True)


def test_basic_drf_assignment(tmp_path: Path) -> None:
    """testBasicDRFAssignment: under DRF the app with the smaller dominant share is served."""
    h = Harness(tmp_path)
    nid = h.add_node(8192, 5, host="host1")
    att1 = h.request(2048, "queue1", "user1", 2, vcores=1)
    att2 = h.request(1024, "queue1", "user1", 2, vcores=2)
    h.queue("queue1").set_policy(parse_policy("drf"))
    h.s.update()
    expected = [(1, 0), (1, 1), (2, 1)]
    for live in expected:
        h.heartbeat(nid)
        assert (h.live(att1), h.live(att2)) == live


def test_basic_drf_with_queues(tmp_path: Path) -> None:
    """testBasicDRFWithQueues: two apps on one queue, one on another, DRF at root and in queue1."""
    h = Harness(tmp_path)
    nid = h.add_node(8192, 7)
    att1 = h.request(3072, "queue1", "user1", 2, vcores=1)
    att2 = h.request(2048, "queue1", "user1", 2, vcores=2)
    att3 = h.request(1024, "queue2", "user1", 2, vcores=2)
    drf = parse_policy("drf")
    h.queue("root").set_policy(drf)
    h.queue("queue1").set_policy(drf)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(att1) == 1
    h.heartbeat(nid)
    assert h.live(att3) == 1
    h.heartbeat(nid)
    assert h.live(att3) == 2
    h.heartbeat(nid)
    assert h.live(att2) == 1


def test_drf_hierarchical_queues(tmp_path: Path) -> None:
    """testDRFHierarchicalQueues: DRF at root, queue1 and queue1.subqueue1 (start times 3 ms apart)."""
    h = Harness(tmp_path)
    nid = h.add_node(12288, 12)
    atts = []
    for mem, vcores, queue in ((3074, 1, "queue1.subqueue1"), (1024, 3, "queue1.subqueue1"),
                               (2048, 2, "queue1.subqueue2"), (1024, 2, "queue2")):  # fmt: skip
        atts.append(h.request(mem, queue, "user1", 2, vcores=vcores))
        h.clock.ms += 3  # Thread.sleep(3): distinct start times
    att1, att2, att3, att4 = atts
    drf = parse_policy("drf")
    for name in ("root", "queue1", "queue1.subqueue1"):
        h.queue(name).set_policy(drf)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(att1) == 1  # asked first
    h.heartbeat(nid)
    assert h.live(att4) == 1  # queue2
    h.heartbeat(nid)
    assert h.live(att4) == 2  # queue2's dominant share (memory) still below queue1's (cpu)
    h.heartbeat(nid)
    assert h.live(att3) == 1  # queue1.subqueue2 is behind queue1.subqueue1
    h.heartbeat(nid)
    assert h.live(att3) == 2
    h.heartbeat(nid)
    assert h.live(att2) == 1
    h.heartbeat(nid)  # the CPU is used up
    assert [h.live(a) for a in atts] == [1, 1, 2, 2]


def test_default_rule_initializes_properly_when_policy_not_configured(tmp_path: Path) -> None:
    """testDefaultRuleInitializesProperlyWhenPolicyNotConfigured: without a policy in the file and with undeclared
    pools refused, the default rule has its queue."""
    h = Harness(tmp_path, "", **{keys.ALLOW_UNDECLARED_POOLS: "false"})
    defaults = [r for r in h.s.alloc_conf.placement_policy.rules if isinstance(r, DefaultPlacementRule)]
    assert defaults
    for rule in defaults:
        assert rule.default_queue_name is not None


def test_blacklist_nodes(tmp_path: Path) -> None:
    """testBlacklistNodes: the blacklist changes without asks, and a blacklisted host gets no container."""
    h = Harness(tmp_path)
    host = "127.0.0.1"
    nid = h.add_node(16 * GB, 16, host=host)
    att = h.request(GB, "root.default", "user", 1)
    attempt = h.s.attempts[att]
    h.s.allocate(att, [], [], [host], [])
    assert host in attempt.blacklist
    h.s.allocate(att, [], [], [], [host])
    assert host not in attempt.blacklist
    update = [rr(GB, host, 1, 0)]
    h.s.allocate(att, update, [], [host], [])
    assert host in attempt.blacklist
    h.s.update()
    h.heartbeat(nid)
    assert h.live(att) == 0
    h.s.allocate(att, update, [], [], [host])
    assert host not in attempt.blacklist
    h.request(GB, "root.default", "user", 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(att) == 1


def test_add_and_remove_app_from_fair_scheduler(tmp_path: Path) -> None:
    """testAddAndRemoveAppFromFairScheduler (TestSchedulerUtils.verifyAppAddedAndRemovedFromScheduler)."""
    h = Harness(tmp_path)
    app_id = ApplicationId(1, 1)
    h.s.handle(AppAddedSchedulerEvent(application_id=app_id, queue="default", user="user"))
    app = h.s.applications.get(app_id)
    assert app is not None and app.user == "user"
    h.s.handle(AppRemovedSchedulerEvent(application_id=app_id, final_state="FINISHED"))
    assert app_id not in h.s.applications


def test_double_removal(tmp_path: Path) -> None:
    """testDoubleRemoval: a second APP_ATTEMPT_REMOVED of a stopped attempt changes nothing."""
    h = Harness(tmp_path)
    att, _ = h.add_app("user1", "user1")
    fs_app = h.app(att)
    removed = AppAttemptRemovedSchedulerEvent(application_attempt_id=att, final_attempt_state="FINISHED")
    apps = h.s.get_apps_in_queue("user1")
    assert apps is not None and att in apps
    assert not fs_app.attempt.stopped
    h.s.handle(removed)
    assert att not in (h.s.get_apps_in_queue("user1") or [])
    assert fs_app.attempt.stopped
    h.s.handle(removed)
    assert fs_app.queue.name.endswith("user1")


def test_container_allocation_with_container_id_leap(tmp_path: Path) -> None:
    """testContainerAllocationWithContainerIdLeap: a reservation takes a container id; the container allocated
    elsewhere afterwards takes the next one."""
    h = Harness(tmp_path, **{keys.RESERVABLE_NODES: "0.50"})
    n1 = h.add_node(3072, 10, host="127.0.0.1")
    n2 = h.add_node(3072, 10, host="127.0.0.2")
    app1 = h.request(2048, "queue1", "user1", 2)
    h.s.update()
    h.heartbeat(n1)
    h.heartbeat(n2)
    app2 = h.request(2048, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    h.heartbeat(n2)
    assert h.queue("queue1").resource_usage.memory_mb == 4096
    reserved1 = h.s.nodes[n1].reserved
    assert reserved1 is not None
    assert h.s.nodes[n2].reserved is None
    for _ in range(10):
        h.heartbeat(n1)
        h.heartbeat(n2)
    h.s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=app1, final_attempt_state="KILLED"))
    assert h.queue("queue1").resource_usage.memory_mb == 0
    h.heartbeat(n2)
    live = list(h.s.attempts[app2].live.values())
    assert len(live) == 1
    assert all(rmc.node.node_id == n2 for rmc in live)
    max_id = max(rmc.cid.container_id for rmc in live)
    assert max_id == reserved1.cid.container_id + 1


def test_dump_state(tmp_path: Path) -> None:
    """testDumpState: FSLeafQueue's and FSParentQueue's dumpState."""
    h = Harness(tmp_path, "<queue name='parent'><queue name='child1'><weight>1</weight></queue></queue>")
    child1 = h.leaf("parent.child1")
    resource = Resource(4 * GB, 4)
    child1.raw_max_share = ConfigurableResource(resource)
    app = FakeFSApp(child1, demand=resource, usage=resource, pending=False)
    child1.add_app(app, True)
    child1.update_demand()
    child = (
        "{Name: root.parent.child1, Weight: 1.0, Policy: fair, FairShare: <memory:0, vCores:0>, "
        "SteadyFairShare: <memory:0, vCores:0>, MaxShare: <memory:4096, vCores:4>, MinShare: <memory:0, vCores:0>, "
        "ResourceUsage: <memory:4096, vCores:4>, Demand: <memory:4096, vCores:4>, Runnable: 1, NumPendingApps: 0, "
        "NonRunnable: 0, MaxAMShare: 0.5, MaxAMResource: <memory:0, vCores:0>, AMResourceUsage: <memory:0, vCores:0>, "
        f"LastTimeAtMinShare: {h.clock()}}}"
    )
    assert dump_state(child1) == child
    parent = h.queue("parent")
    parent.raw_max_share = ConfigurableResource(resource)
    parent.update_demand()
    parent_line = (
        "{Name: root.parent, Weight: 1.0, Policy: fair, FairShare: <memory:0, vCores:0>, "
        "SteadyFairShare: <memory:0, vCores:0>, MaxShare: <memory:4096, vCores:4>, MinShare: <memory:0, vCores:0>, "
        "ResourceUsage: <memory:4096, vCores:4>, Demand: <memory:4096, vCores:4>, MaxAMShare: 0.5, Runnable: 0}"
    )
    assert dump_state(parent) == parent_line + ", " + child


def test_completed_container_on_removed_node(tmp_path: Path) -> None:
    """testCompletedContainerOnRemovedNode: completing a container after its node left does not fail."""
    h = Harness(tmp_path)
    nid = h.add_node(2048, 1, host="127.0.0.2")
    att, _ = h.add_app("root.queue1", "user1")
    h.s.allocate(att, [rr(1024, nid.host), rr(1024, "rack1", relax=False), rr(1024, ANY, relax=False)], [])
    h.s.update()
    h.heartbeat(nid)
    live = list(h.s.attempts[att].live.values())
    assert len(live) == 1
    rmc = live[0]
    assert rmc.node.node_id == nid
    h.remove_node(nid)
    h.s.complete_container(rmc, abnormal_status(rmc.cid, COMPLETED_APPLICATION), notify=True)
    # FSAppAttempt.containerCompleted ignores the second completion: no usage goes twice, no second status
    assert h.queue("root.queue1").resource_usage == Resource(0, 0)
    assert h.s.queue_manager.root_queue.resource_usage == Resource(0, 0)
    assert len(h.s.attempts[att].completed) == 1


def _app_rejected_zero_capacity(tmp_path: Path, resources: str) -> None:
    """testAppRejectedToQueueWithZeroCapacityOfResource: an AM asking for a resource the queue has none of is
    rejected at submission, with Hadoop's message."""
    h = Harness(
        tmp_path,
        f"<queue name='queueA'><minResources>{resources}</minResources><maxResources>{resources}</maxResources>"
        "<weight>2.0</weight></queue>"
        "<queue name='queueB'><minResources>1 mb 1 vcores</minResources><weight>0.0</weight></queue>",
    )
    _, out = h.add_app("root.queueA", "user1", am=Resource(5 * GB, 3))
    h.s.update()
    rejected = [x for x in out if isinstance(x, AppRejected)]
    assert len(rejected) == 1
    assert re.fullmatch(
        r"Cannot submit application application[\d_]+ to queue root.queueA because it has zero amount of resource "
        r"for a requested resource! Invalid requested AM resources: .+, maximum queue resources: .+",
        rejected[0].diagnostics,
    )


def test_app_rejected_to_queue_with_zero_capacity_of_vcores(tmp_path: Path) -> None:
    """testAppRejectedToQueueWithZeroCapacityOfVcores."""
    _app_rejected_zero_capacity(tmp_path, "10000 mb,0vcores")


def test_app_rejected_to_queue_with_zero_capacity_of_memory(tmp_path: Path) -> None:
    """testAppRejectedToQueueWithZeroCapacityOfMemory."""
    _app_rejected_zero_capacity(tmp_path, "0 mb,2vcores")
