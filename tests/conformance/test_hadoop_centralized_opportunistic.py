"""Hadoop's TestCentralizedOpportunisticContainerAllocator (the per-AM-heartbeat limit tests), ported.

createNodeQueueLoadMonitor(numNodes, queueLength, queueCapacity) becomes a NodeQueueLoadMonitor with nodes h1..hN
on rack "default", each reporting that queue length and capacity (QUEUE_LENGTH comparator).
"""

from __future__ import annotations

import random

from yarnball.policies.opportunistic import (
    CentralizedOpportunisticContainerAllocator,
    LoadComparator,
    NodeQueueLoadMonitor,
    OpportunisticContainerContext,
    OpportunisticSchedulerMetrics,
)
from yarnball.protocols import (
    ExecutionType,
    ExecutionTypeRequest,
    NodeId,
    OpportunisticContainersStatus,
    Priority,
    Resource,
    ResourceRequest,
)

OPPORTUNISTIC = ExecutionTypeRequest(execution_type=ExecutionType.OPPORTUNISTIC)


def create_resource_request(allocation_id: int, location: str, num_containers: int) -> ResourceRequest:
    return ResourceRequest(
        priority=Priority(1),
        capability=Resource(1024, 1),
        resource_name=location,
        num_containers=num_containers,
        relax_locality=True,
        execution_type_request=OPPORTUNISTIC,
        allocation_request_id=allocation_id,
    )


def create_node_queue_load_monitor(num_nodes: int, queue_length: int, queue_capacity: int) -> NodeQueueLoadMonitor:
    m = NodeQueueLoadMonitor(LoadComparator.QUEUE_LENGTH, num_nodes, random.Random(1))
    for i in range(1, num_nodes + 1):
        node = NodeId(f"h{i}", 1234)
        m.add_node(node, "default")
        status = OpportunisticContainersStatus(
            wait_queue_length=queue_length, opport_queue_capacity=queue_capacity, estimated_queue_wait_time=-1
        )
        m.update_node(node, status, now=float(i))
    m.sort()
    return m


def same(r: Resource) -> Resource:
    return r


def test_max_allocations_per_am_heartbeat_testMaxAllocationsPerAMHeartbeat():
    allocator = CentralizedOpportunisticContainerAllocator(create_node_queue_load_monitor(3, 2, 5), 2)
    ctx = OpportunisticContainerContext()
    reqs = [
        create_resource_request(2, "/r3", 3),
        create_resource_request(2, "h6", 3),
        create_resource_request(2, "*", 3),
    ]
    assert len(allocator.allocate(ctx, reqs, same)) == 2
    assert len(allocator.allocate(ctx, [], same)) == 1  # Remaining 1 container should be allocated.


def test_max_allocations_per_am_heartbeat_different_sched_key_testMaxAllocationsPerAMHeartbeatDifferentSchedKey():
    """Keys 2 and 3 name only a host or a rack: their count is that first ask's (addToOutstandingReqs)."""
    allocator = CentralizedOpportunisticContainerAllocator(create_node_queue_load_monitor(3, 2, 5), 2)
    ctx = OpportunisticContainerContext()
    reqs = [
        create_resource_request(1, "*", 1),
        create_resource_request(2, "h6", 2),
        create_resource_request(3, "/r3", 2),
    ]
    assert len(allocator.allocate(ctx, reqs, same)) == 2
    assert len(allocator.allocate(ctx, [], same)) == 2  # 2 more from pending allocation requests
    assert len(allocator.allocate(ctx, [], same)) == 1  # Remaining 1 container should be allocated.


def test_max_allocations_per_am_heartbeat_with_no_limit_testMaxAllocationsPerAMHeartbeatWithNoLimit():
    allocator = CentralizedOpportunisticContainerAllocator(create_node_queue_load_monitor(3, 2, 500), -1)
    reqs = [create_resource_request(i + 1, "h1", 1) for i in range(20)]
    assert len(allocator.allocate(OpportunisticContainerContext(), reqs, same)) == 20


def test_max_allocations_per_am_heartbeat_with_high_limit_testMaxAllocationsPerAMHeartbeatWithHighLimit():
    allocator = CentralizedOpportunisticContainerAllocator(create_node_queue_load_monitor(3, 2, 500), 100)
    reqs = [create_resource_request(i + 1, "h1", 1) for i in range(20)]
    assert len(allocator.allocate(OpportunisticContainerContext(), reqs, same)) == 20


def test_allocation_latency_metrics_testAllocationLatencyMetrics():
    """For each allocated container, one latency entry; the (simulated) wait since the asks arrived is recorded."""
    allocator = CentralizedOpportunisticContainerAllocator(create_node_queue_load_monitor(3, 2, 5), -1)
    ctx = OpportunisticContainerContext()
    ctx.metrics = metrics = OpportunisticSchedulerMetrics()
    reqs = [
        create_resource_request(2, "/r3", 2),
        create_resource_request(2, "h6", 2),
        create_resource_request(2, "*", 2),
    ]
    ctx.now_ms = 40.0
    assert len(allocator.allocate(ctx, reqs, same)) == 2
    assert metrics.latencies == [0, 0]  # verify(metrics, times(2)).addAllocateOLatencyEntry(anyLong())
