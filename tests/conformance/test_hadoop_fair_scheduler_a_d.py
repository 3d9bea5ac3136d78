"""Hadoop's ``TestFairScheduler`` (``scheduler/fair/``), its methods testA... to testD... not ported in
test_hadoop_fair_scheduler.py, on yarnball's FairScheduler built as ``FairSchedulerTestBase`` builds Hadoop's
(tests/conformance/fs_harness_a_d.py). Method names are Hadoop's, snake-cased."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.fs_harness_a_d import AM_PRIORITY, GB, Harness
from yarnball.errors import ConfigurationError
from yarnball.policies.fair._fsleafqueue import multiply_and_round_up
from yarnball.protocols import Configuration, Resource, keys


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
