"""Hadoop's TestCentralizedOpportunisticContainerAllocator, ported (every method).

createNodeQueueLoadMonitor(numNodes, queueLength, queueCapacity) becomes a NodeQueueLoadMonitor with nodes h1..hN
on rack "default", each reporting that queue length and capacity (QUEUE_LENGTH comparator); the list form
(hosts, racks, queue lengths, capacities) names each node's rack. ``allocateContainers(blacklistRequest, reqs, ...)``
is ``allocate(context, reqs, normalizer, blacklist additions)``; its containers are placements (node, request id).
"""

from __future__ import annotations

import random

from yarnball.policies.opportunistic import (
    CentralizedOpportunisticContainerAllocator,
    LoadComparator,
    NodeQueueLoadMonitor,
    OpportunisticContainerContext,
    OpportunisticSchedulerMetrics,
    Placement,
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
    return monitor_of([f"h{i}" for i in range(1, num_nodes + 1)], ["default"] * num_nodes,
                      [queue_length] * num_nodes, [queue_capacity] * num_nodes)  # fmt: skip


def monitor_of(hosts: list[str], racks: list[str], lengths: list[int], capacities: list[int]) -> NodeQueueLoadMonitor:
    """The list form of ``createNodeQueueLoadMonitor``: addNode + updateNode per node, then computeTask."""
    m = NodeQueueLoadMonitor(LoadComparator.QUEUE_LENGTH, 10, random.Random(1))  # nodes-used: Hadoop's default, 10
    for i, (host, rack, length, capacity) in enumerate(zip(hosts, racks, lengths, capacities, strict=True)):
        node = NodeId(host, 1234)
        m.add_node(node, rack)
        status = OpportunisticContainersStatus(
            wait_queue_length=length, opport_queue_capacity=capacity, estimated_queue_wait_time=-1
        )
        m.update_node(node, status, now=float(i + 1))
    m.compute()
    return m


def alloc(m: NodeQueueLoadMonitor, reqs: list[ResourceRequest]) -> list[Placement]:
    """``allocator.setNodeQueueLoadMonitor(m)`` then ``allocateContainers`` with no limit and no blacklist."""
    return CentralizedOpportunisticContainerAllocator(m, -1).allocate(OpportunisticContainerContext(), reqs, same)


def on(placements: list[Placement]) -> set[str]:
    """The allocated containers' ``getNodeId().toString()``."""
    return {f"{p.node_id.host}:{p.node_id.port}" for p in placements}


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


def test_testSimpleAllocation():
    allocator = CentralizedOpportunisticContainerAllocator(create_node_queue_load_monitor(1, 2, 100), -1)
    ctx = OpportunisticContainerContext()
    assert len(allocator.allocate(ctx, [create_resource_request(1, "*", 1)], same)) == 1
    assert len(ctx.outstanding) == 0  # getOutstandingOpReqs().size()


def test_testBlacklistRejection():
    allocator = CentralizedOpportunisticContainerAllocator(create_node_queue_load_monitor(2, 2, 100), -1)
    ctx = OpportunisticContainerContext()
    assert allocator.allocate(ctx, [create_resource_request(1, "*", 1)], same, ["h1", "h2"]) == []
    assert len(ctx.outstanding) == 1


def test_testRoundRobinSimpleAllocation():
    """Queue length 2 of capacity 3: each node takes one container, so the three land on three nodes."""
    allocator = CentralizedOpportunisticContainerAllocator(create_node_queue_load_monitor(3, 2, 3), -1)
    reqs = [create_resource_request(i, "*", 1) for i in (1, 2, 3)]
    placed = allocator.allocate(OpportunisticContainerContext(), reqs, same)
    nodes = on(placed)
    assert "h1:1234" in nodes
    assert "h2:1234" in nodes
    assert "h3:1234" in nodes
    assert len(placed) == 3


def test_testNodeLocalAllocation():
    allocator = CentralizedOpportunisticContainerAllocator(create_node_queue_load_monitor(3, 2, 5), -1)
    reqs = [
        create_resource_request(1, "*", 1),
        create_resource_request(2, "/r1", 1),
        create_resource_request(2, "h1", 1),
        create_resource_request(2, "*", 1),
        create_resource_request(3, "/r1", 1),
        create_resource_request(3, "h1", 1),
        create_resource_request(3, "*", 1),
    ]
    placed = allocator.allocate(OpportunisticContainerContext(), reqs, same)
    assert len(placed) == 3  # all 3 containers should be allocated
    for p in placed:  # container with allocation id 2 and 3 should be allocated on node h1
        if p.allocation_request_id in (2, 3):
            assert f"{p.node_id.host}:{p.node_id.port}" == "h1:1234"


def test_testNodeLocalAllocationSameSchedulerKey():
    allocator = CentralizedOpportunisticContainerAllocator(create_node_queue_load_monitor(3, 2, 5), -1)
    reqs = [create_resource_request(2, name, 2) for name in ("/r1", "h1", "*")]
    placed = allocator.allocate(OpportunisticContainerContext(), reqs, same)
    nodes = on(placed)
    assert len(placed) == 2
    assert "h1:1234" in nodes
    assert "h2:1234" not in nodes
    assert "h3:1234" not in nodes


def test_testSimpleRackLocalAllocation():
    """h4 is unknown: the container goes to /r1's only node, h2."""
    m = monitor_of(["h1", "h2", "h3"], ["/r2", "/r1", "/r3"], [2, 2, 2], [5, 5, 5])
    reqs = [create_resource_request(2, name, 1) for name in ("/r1", "h4", "*")]
    placed = alloc(m, reqs)
    nodes = on(placed)
    assert "h2:1234" in nodes
    assert "h3:1234" not in nodes
    assert "h4:1234" not in nodes
    assert len(placed) == 1


def _round_robin_rack_local(reqs: list[ResourceRequest]) -> None:
    """Queue length 4 of capacity 5: each /r1 node (h2, h4) takes one container."""
    m = monitor_of(["h1", "h2", "h3", "h4"], ["/r2", "/r1", "/r3", "/r1"], [4] * 4, [5] * 4)
    placed = alloc(m, reqs)
    nodes = on(placed)
    assert "h2:1234" in nodes
    assert "h4:1234" in nodes
    assert "h1:1234" not in nodes
    assert "h3:1234" not in nodes
    assert len(placed) == 2


def test_testRoundRobinRackLocalAllocation():
    _round_robin_rack_local([create_resource_request(rid, name, 1) for rid in (1, 2) for name in ("/r1", "h5", "*")])


def test_testRoundRobinRackLocalAllocationSameSchedulerKey():
    _round_robin_rack_local([create_resource_request(2, name, 2) for name in ("/r1", "h5", "*")])


def test_testOffSwitchAllocationWhenNoNodeOrRack():
    m = monitor_of(["h1", "h2", "h3", "h4"], ["/r2", "/r1", "/r2", "/r1"], [4] * 4, [5] * 4)
    reqs = [create_resource_request(2, name, 2) for name in ("/r3", "h6", "*")]
    assert len(alloc(m, reqs)) == 2


def test_testLotsOfContainersRackLocalAllocationSameSchedulerKey():
    """h1 (capacity 500) takes 500 node-local containers, the rest go to /r1's other nodes, none to h4 on /r2."""
    m = monitor_of(["h1", "h2", "h3", "h4"], ["/r1", "/r1", "/r1", "/r2"], [0] * 4, [500, 500, 500, 300])
    reqs = [create_resource_request(2, name, 1000) for name in ("/r1", "h1", "*")]
    placed = alloc(m, reqs)
    per_host: dict[str, int] = {}
    for p in placed:
        key = f"{p.node_id.host}:{p.node_id.port}"
        per_host[key] = per_host.get(key, 0) + 1
    assert len(placed) == 1000
    assert per_host["h1:1234"] == 500
    assert "h4:1234" not in per_host


def test_testLotsOfContainersRackLocalAllocation():
    m = monitor_of(["h1", "h2", "h3", "h4"], ["/r1", "/r1", "/r1", "/r2"], [0] * 4, [500, 500, 500, 300])
    reqs = [create_resource_request(i + 1, name, 1) for i in range(100) for name in ("*", "h5", "/r1")]
    assert len(alloc(m, reqs)) == 100
