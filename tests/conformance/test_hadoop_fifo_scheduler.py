"""Hadoop's ``TestFifoScheduler`` (``scheduler/fifo/TestFifoScheduler.java``), its outcome-based methods, on
yarnball's FifoScheduler (shared/reference/fair.md §7), plus the FIFO behaviours the CapacityScheduler does not share
(application-id order over priorities, no AM limit, no moves, no preemption monitor)."""

from __future__ import annotations

import pytest

from yarnball.errors import ConfigurationError, SchedulingError
from yarnball.policies.fifo import FifoScheduler
from yarnball.policies.scheduler import ContainerAllocated, monitor_policies, validate_scheduler_configuration
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    NodeAddedSchedulerEvent,
    NodeId,
    NodeRemovedSchedulerEvent,
    NodeResourceUpdateSchedulerEvent,
    NodeUpdateSchedulerEvent,
    Priority,
    Resource,
    ResourceRequest,
    keys,
)

GB = 1024
FIFO = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"


def fifo(**settings: object) -> FifoScheduler:
    return FifoScheduler(Configuration(dict(settings)), cluster_timestamp=1)


def add_node(s: FifoScheduler, i: int, mem: int = 4 * GB, vcores: int = 4, rack: str = "/rack1") -> NodeId:
    nid = NodeId(f"host{i}", 1234)
    s.handle(NodeAddedSchedulerEvent(node_id=nid, rack_name=rack, total_resource=Resource(mem, vcores)))
    return nid


def attempt(n: int) -> ApplicationAttemptId:
    return ApplicationAttemptId(ApplicationId(1, n), 1)


def submit(s: FifoScheduler, n: int, priority: int = 0, queue: str = "default") -> list:
    out = s.handle(
        AppAddedSchedulerEvent(
            application_id=ApplicationId(1, n), queue=queue, user="user", priority=Priority(priority)
        )
    )
    return out + s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt(n)))


def rr(mb: int, n: int, name: str = ANY, priority: int = 1) -> ResourceRequest:
    return ResourceRequest(
        priority=Priority(priority), capability=Resource(mb, 1), resource_name=name, num_containers=n
    )


def update(s: FifoScheduler, nid: NodeId) -> list[ContainerAllocated]:
    return [x for x in s.handle(NodeUpdateSchedulerEvent(node_id=nid)) if isinstance(x, ContainerAllocated)]


def test_conf_validation() -> None:
    """testConfValidation: minimum > maximum is refused with Hadoop's message."""
    with pytest.raises(ConfigurationError) as err:
        fifo(**{keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 2048, keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: 1024})
    assert (
        "Invalid resource scheduler memory allocation configuration, yarn.scheduler.minimum-allocation-mb=2048, "
        "yarn.scheduler.maximum-allocation-mb=1024, min and max should be greater than 0, max should be no smaller "
        "than min."
    ) in str(err.value)
    with pytest.raises(ConfigurationError, match="minimum-allocation-mb=0"):
        fifo(**{keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 0})


def test_node_local_assignment() -> None:
    """testNodeLocalAssignment: host, rack and ANY asks for 3 containers of 1 GB on a 4 GB node: all 3 node-local,
    1 GB left."""
    s = fifo()
    nid = add_node(s, 0)
    submit(s, 1)
    s.allocate(attempt(1), [rr(GB, 3, "host0"), rr(GB, 3, "/rack1"), rr(GB, 3)], [])
    got = update(s, nid)
    assert [a.locality for a in got] == ["NODE_LOCAL"] * 3
    assert s.nodes[nid].unalloc_m == GB
    assert s.attempts[attempt(1)].keys == {}  # every ask satisfied


def test_update_resource_on_node() -> None:
    """testUpdateResourceOnNode: a node shrunk to 1 GB takes one 1 GB container only."""
    s = fifo()
    nid = add_node(s, 0)
    s.handle(NodeResourceUpdateSchedulerEvent(node_id=nid, total_resource=Resource(GB, 1)))
    submit(s, 1)
    s.allocate(attempt(1), [rr(GB, 3)], [])
    assert len(update(s, nid)) == 1
    assert s.cluster_resource == Resource(GB, 1)


def test_minimum_allocation_normalises_memory_and_one_vcore() -> None:
    """testNonDefaultMinimumAllocation: with a 512 MB minimum an ask of 700 MB / 3 vcores becomes 1024 MB / 1 vcore
    (DefaultResourceCalculator, the minimum as increment)."""
    s = fifo(**{keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 512})
    nid = add_node(s, 0)
    submit(s, 1)
    s.allocate(attempt(1), [ResourceRequest(priority=Priority(1), capability=Resource(700, 3), num_containers=1)], [])
    (got,) = update(s, nid)
    assert got.container.resource == Resource(1024, 1)


def test_placement_is_memory_only() -> None:
    """assignContainer divides the unallocated memory only: 4 containers of 1 GB on a 4 GB node with 1 vcore."""
    s = fifo()
    nid = add_node(s, 0, 4 * GB, 1)
    submit(s, 1)
    s.allocate(attempt(1), [rr(GB, 4)], [])
    assert len(update(s, nid)) == 4


def test_headroom() -> None:
    """testHeadroom: after a heartbeat every application's headroom is the cluster resource minus the used resource."""
    s = fifo()
    nid = add_node(s, 0, 10 * GB, 10)
    submit(s, 1)
    submit(s, 2)
    s.allocate(attempt(1), [rr(GB, 1)], [])
    s.allocate(attempt(2), [rr(2 * GB, 1)], [])
    update(s, nid)
    assert s.allocate(attempt(1), [], []).headroom == Resource(7 * GB, 8)
    assert s.allocate(attempt(2), [], []).headroom == Resource(7 * GB, 8)


def test_black_list_nodes() -> None:
    """testBlackListNodes: no container on a blacklisted host."""
    s = fifo()
    n0 = add_node(s, 0)
    n1 = add_node(s, 1)
    submit(s, 1)
    s.allocate(attempt(1), [rr(GB, 1)], [], blacklist_additions=["host0"])
    assert update(s, n0) == []
    assert [a.container.node_id for a in update(s, n1)] == [n1]


def test_priorities_ignored_applications_in_id_order() -> None:
    """Applications are served in application-id order whatever their priority (the CapacityScheduler would serve
    the higher-priority application 2 first)."""
    s = fifo()
    submit(s, 1, priority=0)
    submit(s, 2, priority=10)
    s.allocate(attempt(2), [rr(2 * GB, 2)], [])
    s.allocate(attempt(1), [rr(2 * GB, 2)], [])
    nid = add_node(s, 0)
    assert [a.attempt_id for a in update(s, nid)] == [attempt(1), attempt(1)]


def test_lower_priority_keys_wait_when_a_key_gets_nothing() -> None:
    """A key that gets no container ends the application's turn: its lower-priority keys are not tried."""
    s = fifo()
    add_node(s, 0, 8 * GB)  # (the maximum allocation is capped by the largest node)
    small = add_node(s, 1, 3 * GB)
    submit(s, 1)
    assert not s.allocate(attempt(1), [rr(4 * GB, 1, priority=1), rr(GB, 1, priority=2)], []).errors
    assert update(s, small) == []


def test_no_am_limit_and_any_queue_name() -> None:
    """Every application is accepted into ``default`` whatever queue it names, and its AM allocated: no AM limit."""
    s = fifo()
    nid = add_node(s, 0, 10 * GB)
    for n in range(1, 11):
        assert submit(s, n, queue="no-such-queue")
        s.allocate(attempt(n), [rr(GB, 1, priority=0)], [])
    assert sum(a.is_am for a in update(s, nid)) == 10
    (metrics,) = s.queue_metrics()
    assert (metrics.path, metrics.apps_running, metrics.allocated.memory_mb) == ("default", 10, 10 * GB)


def test_remove_node_and_attempt() -> None:
    """testReconnectedNode / testAddAndRemoveAppFromFiFoScheduler: a removed node leaves the cluster, a removed
    attempt its containers; an unknown attempt's removal is only logged."""
    s = fifo()
    n0 = add_node(s, 0)
    add_node(s, 1)
    submit(s, 1)
    s.allocate(attempt(1), [rr(GB, 2)], [])
    update(s, n0)
    s.handle(NodeRemovedSchedulerEvent(node_id=n0))
    assert s.cluster_resource == Resource(4 * GB, 4) and s.attempts[attempt(1)].live == {}
    s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt(1)))
    assert attempt(1) not in s.attempts
    s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt(1)))  # logged, ignored


def test_move_not_supported() -> None:
    """AbstractYarnScheduler.moveApplication: the FifoScheduler does not move applications."""
    s = fifo()
    submit(s, 1)
    with pytest.raises(SchedulingError, match="does not support moving apps between queues"):
        s.move_application(ApplicationId(1, 1), "other")


def test_reinitialize_rereads_the_allocation_limits_only() -> None:
    """FifoScheduler.reinitialize (AbstractYarnScheduler.refreshMaximumAllocation): the maximum allocation is read
    again, the minimum is not."""
    s = fifo()
    s.reinitialize(
        Configuration({keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: 4096, keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 2048})
    )
    assert s.get_maximum_allocation().memory_mb == 4096
    assert s.minimum_allocation.memory_mb == 1024


def test_preemption_monitor_refuses_the_fifo_scheduler() -> None:
    """ProportionalCapacityPreemptionPolicy.init refuses a scheduler that is no CapacityScheduler: the RM fails."""
    conf = Configuration({keys.RM_SCHEDULER: FIFO, keys.RM_SCHEDULER_ENABLE_MONITORS: "true"})
    with pytest.raises(ConfigurationError, match=f"Class {FIFO} not instance of .*capacity.CapacityScheduler"):
        monitor_policies(conf)
    with pytest.raises(ConfigurationError, match="not instance of"):
        validate_scheduler_configuration(conf)


def test_rest_fifo_scheduler_info() -> None:
    """FifoSchedulerInfo: the fields of fair.md §7, their values from the allocation limits and the nodes."""
    s = fifo()
    assert s.fifo_scheduler_info()["usedCapacity"] == 0.0  # empty cluster: 0.0, not NaN
    nid = add_node(s, 0)
    add_node(s, 1)
    submit(s, 1)
    s.allocate(attempt(1), [rr(GB, 1)], [])
    update(s, nid)
    assert s.fifo_scheduler_info() == {
        "type": "fifoScheduler",
        "capacity": 1.0,
        "usedCapacity": 0.125,
        "qstate": "RUNNING",
        "minQueueMemoryCapacity": 1024,
        "maxQueueMemoryCapacity": 4096,
        "numNodes": 2,
        "usedNodeCapacity": 1024,
        "availNodeCapacity": 7168,
        "totalNodeCapacity": 8192,
        "numContainers": 1,
    }
