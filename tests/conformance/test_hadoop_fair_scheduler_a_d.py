"""Hadoop's ``TestFairScheduler`` (``scheduler/fair/``), its methods testA... to testD... not ported in
test_hadoop_fair_scheduler.py, on yarnball's FairScheduler built as ``FairSchedulerTestBase`` builds Hadoop's
(tests/conformance/fs_harness_a_d.py). Method names are Hadoop's, snake-cased."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.fs_harness_a_d import AM_PRIORITY, GB, Harness, rr
from yarnball.errors import ConfigurationError
from yarnball.policies.fair._dominantresourcefairnesspolicy import DominantResourceFairnessPolicy
from yarnball.policies.fair._fsleafqueue import multiply_and_round_up
from yarnball.policies.fair._policies import parse as parse_policy
from yarnball.protocols import ANY, AppAttemptRemovedSchedulerEvent, Configuration, Resource, keys


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
    n1 = h.add_node(1024, 1, 1, "127.0.0.1")
    assert h.s.cluster_resource.memory_mb == 1024
    h.add_node(512, 1, 2, "127.0.0.2")
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
    att1, _ = h.add_app("queueFSZeroWithMax", "user1", am)
    h.request_existing(att1, GB, 1, AM_PRIORITY)
    h.heartbeat(nid)
    assert zero_max.fair_share.memory_mb == 0
    expected = multiply_and_round_up(zero_max.max_share, zero_max.max_am_share)
    m = metrics("root.queueFSZeroWithMax")
    assert (m.max_am_share.memory_mb, m.max_am_share.vcores) == (expected.memory_mb, expected.vcores)
    assert m.am_used.memory_mb == am.memory_mb

    zero_avl = h.leaf("queueFSZeroWithAVL", True)
    att2, _ = h.add_app("queueFSZeroWithAVL", "user1", am)
    h.request_existing(att2, GB, 1, AM_PRIORITY)
    h.heartbeat(nid)
    expected = multiply_and_round_up(
        Resource(mem_capacity - am.memory_mb, cpu_capacity - am.vcores), zero_avl.max_am_share
    )
    assert zero_avl.fair_share.memory_mb == 0
    m = metrics("root.queueFSZeroWithAVL")
    assert (m.max_am_share.memory_mb, m.max_am_share.vcores) == (expected.memory_mb, expected.vcores)
    assert m.am_used.memory_mb == am.memory_mb

    non_zero = h.leaf("queueFSNonZero", True)
    att3, _ = h.add_app("queueFSNonZero", "user1", am)
    h.request_existing(att3, GB, 1, AM_PRIORITY)
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


def test_container_reservation_attempt_exceeding_queue_max(tmp_path: Path) -> None:
    """testContainerReservationAttemptExceedingQueueMax: no reservation for an app whose queue is at its max."""
    h = Harness(tmp_path, _two_queues("2048mb,5vcores", "2048mb,10vcores"))
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
    assert h.reservation(att1) == 0


def test_container_reservation_not_exceeding_queue_max(tmp_path: Path) -> None:
    """testContainerReservationNotExceedingQueueMax: a reservation within the queue's max stays; once a reload
    lowers the max below it, the reservation is released and the node serves another queue."""
    h = Harness(tmp_path, _two_queues("3072mb,10vcores", "2048mb,10vcores"))
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
    assert h.reservation(att1) == 1024
    h.heartbeat(nid)
    assert h.reservation(att1) == 1024
    h.write_allocations(_two_queues("2048mb,10vcores", "2048mb,10vcores"))
    h.reinitialize()
    h.request(1024, "queue2", "user2", 1)
    h.heartbeat(nid)
    assert h.queue("queue1").resource_usage.memory_mb == 2048
    assert h.reservation(att1) == 0
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
    n1 = h.add_node(8192, 8, 1, "127.0.0.1")
    n2 = h.add_node(8192, 8, 2, "127.0.0.2")
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
    n1 = h.add_node(1024, 1, 1, "127.0.0.1")
    n2 = h.add_node(1024, 1, 2, "127.0.0.2")
    att = h.request(1024, "queue1", "user1", 0)
    h.request_existing_ask(att, rr(1024, 1, n1.host, 1, relax=True))
    h.request_existing_ask(att, rr(1024, 1, "rack1", 1, relax=False))
    h.request_existing_ask(att, rr(1024, 1, ANY, 1, relax=False))
    h.s.update()
    for _ in range(10):
        h.heartbeat(n2)
        assert h.live(att) == 0
    h.s.allocate(att, [rr(1024, 0, n1.host), rr(1024, 0, "rack1"), rr(1024, 1, ANY)], [])
    h.heartbeat(n2)
    assert h.live(att) == 1


def _am_strict_locality(tmp_path: Path, node: bool, invalid: bool) -> None:
    """testAMStrictLocality(node, invalid): an AM asked strictly on node2 or its rack lands there; asked on an
    unknown host or rack, nowhere."""
    h = Harness(tmp_path)
    n1 = h.add_node(1024, 1, 1, "127.0.0.1", rack=1)
    n2 = h.add_node(1024, 1, 2, "127.0.0.2", rack=2)
    reqs = [
        rr(1024, 1, ANY, 1, relax=False),
        rr(1024, 1, "invalid" if not node and invalid else "rack2", 1, relax=not node),
    ]
    if node:
        reqs.append(rr(1024, 1, "invalid" if invalid else n2.host, 1, relax=True))
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
    nid = h.add_node(8192, 5, 1, "host1")
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
