"""Hadoop's TestDistributedOpportunisticContainerAllocator, ported to DistributedOpportunisticContainerAllocator.

Each Hadoop test builds an OpportunisticContainerContext, hands it a RemoteNode list (updateNodeList) and calls
allocateContainers; here the same asks go through ``allocate`` with an identity normalizer (the tests' asks are
already normalized). ResourceRequest.newBuilder() defaults to one container, as the ``ask`` helper does.
"""

from __future__ import annotations

import msgspec

from yarnball import Cluster
from yarnball.actors import DistributedShellAppMaster
from yarnball.actors._amrmproxy import DistributedScheduler
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.policies.opportunistic import (
    DistributedOpportunisticContainerAllocator,
    OpportunisticContainerContext,
    OpportunisticSchedulerMetrics,
)
from yarnball.protocols import (
    ExecutionType,
    ExecutionTypeRequest,
    NodeId,
    Priority,
    RemoteNode,
    Resource,
    ResourceRequest,
    keys,
)

OPPORTUNISTIC_REQ = ExecutionTypeRequest(execution_type=ExecutionType.OPPORTUNISTIC, enforce_execution_type=True)
CAPABILITY_1GB = Resource(1024, 1)
PRIORITY_NORMAL = 1


def ask(name: str, n: int = 1, rid: int = -1, prio: int = PRIORITY_NORMAL, label: str = "") -> ResourceRequest:
    return ResourceRequest(
        priority=Priority(prio),
        capability=CAPABILITY_1GB,
        resource_name=name,
        num_containers=n,
        relax_locality=True,
        execution_type_request=OPPORTUNISTIC_REQ,
        allocation_request_id=rid,
        node_label_expression=label,
    )


def remote(host: str, rack: str, partition: str = "") -> RemoteNode:
    return RemoteNode(node_id=NodeId(host, 1234), http_address=f"{host}:1234", rack_name=rack, node_partition=partition)


def context(*nodes: RemoteNode) -> OpportunisticContainerContext:
    ctx = OpportunisticContainerContext()
    ctx.update_node_list(nodes)
    return ctx


def hosts(placements) -> set[str]:
    return {p.node_id.host for p in placements}


def same(r: Resource) -> Resource:
    return r


FOUR_NODES = (remote("h3", "/r2"), remote("h2", "/r1"), remote("h5", "/r1"), remote("h4", "/r2"))


def test_simple_allocation_testSimpleAllocation():
    ctx = context(remote("h1", "/r1"))
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(ctx, [ask("*")], same)
    assert len(placed) == 1
    assert ctx.pending == 0 and ctx.outstanding == {}  # getOutstandingOpReqs().size() == 0


def test_blacklist_rejection_testBlacklistRejection():
    ctx = context(remote("h1", "/r1"), remote("h2", "/r2"))
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(ctx, [ask("*")], same, ["h1", "h2"])
    assert placed == []
    assert len(ctx.outstanding) == 1


def test_round_robin_simple_allocation_testRoundRobinSimpleAllocation():
    ctx = context(remote("h1", "/r1"), remote("h2", "/r1"), remote("h3", "/r1"))
    reqs = [ask("*", rid=1), ask("*", rid=2), ask("*", rid=3)]
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(ctx, reqs, same)
    assert hosts(placed) == {"h1", "h2", "h3"}
    assert len(placed) == 3


def test_node_local_allocation_testNodeLocalAllocation():
    ctx = context(remote("h1", "/r1"), remote("h2", "/r1"), remote("h3", "/r1"))
    reqs = [
        ask("*", rid=1),
        ask("/r1", rid=2),
        ask("h1", rid=2),
        ask("*", rid=2),
        ask("/r1", rid=3),
        ask("h1", rid=3),
        ask("*", rid=3),
    ]
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(ctx, reqs, same)
    assert len(placed) == 3  # all 3 containers should be allocated
    assert {p.node_id.host for p in placed if p.allocation_request_id in (2, 3)} == {"h1"}


def test_node_local_allocation_same_sched_key_testNodeLocalAllocationSameSchedKey():
    ctx = context(remote("h1", "/r1"), remote("h2", "/r1"), remote("h3", "/r1"))
    reqs = [ask("/r1", 2, rid=2), ask("h1", 2, rid=2), ask("*", 2, rid=2)]
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(ctx, reqs, same)
    assert len(placed) == 2
    assert hosts(placed) == {"h1"}


def test_simple_rack_local_allocation_testSimpleRackLocalAllocation():
    ctx = context(remote("h3", "/r2"), remote("h2", "/r1"), remote("h4", "/r2"))
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(ctx, [ask("*"), ask("h1"), ask("/r1")], same)
    assert hosts(placed) == {"h2"}
    assert len(placed) == 1


def test_round_robin_rack_local_allocation_testRoundRobinRackLocalAllocation():
    ctx = context(*FOUR_NODES)
    reqs = [ask("/r1", rid=1), ask("h1", rid=1), ask("*", rid=1), ask("/r1", rid=2), ask("h1", rid=2), ask("*", rid=2)]
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(ctx, reqs, same)
    assert hosts(placed) == {"h2", "h5"}
    assert len(placed) == 2


def test_round_robin_rack_local_allocation_same_sched_key_testRoundRobinRackLocalAllocationSameSchedKey():
    ctx = context(*FOUR_NODES)
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(
        ctx, [ask("*", 2), ask("h1", 2), ask("/r1", 2)], same
    )
    assert hosts(placed) == {"h2", "h5"}
    assert len(placed) == 2


def test_off_switch_allocation_when_no_node_or_rack_testOffSwitchAllocationWhenNoNodeOrRack():
    ctx = context(*FOUR_NODES)
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(
        ctx, [ask("*", 2), ask("h6", 2), ask("/r3", 2)], same
    )
    assert len(placed) == 2


def test_lots_of_containers_rack_local_same_sched_key_testLotsOfContainersRackLocalAllocationSameSchedKey():
    ctx = context(*FOUR_NODES)
    allocator = DistributedOpportunisticContainerAllocator(-1)
    reqs = [ask("*", 1000), ask("h1", 1000), ask("/r1", 1000)]
    placed = [p for _ in range(250) for p in allocator.allocate(ctx, reqs, same)]
    assert len(placed) == 1000


def test_lots_of_containers_rack_local_testLotsOfContainersRackLocalAllocation():
    ctx = context(*FOUR_NODES)
    allocator = DistributedOpportunisticContainerAllocator(-1)
    reqs = [r for i in range(100) for r in (ask("*", rid=i + 1), ask("h1", rid=i + 1), ask("/r1", rid=i + 1))]
    placed = [p for _ in range(25) for p in allocator.allocate(ctx, reqs, same)]
    assert len(placed) == 100


def test_allocation_with_node_labels_testAllocationWithNodeLabels():
    """No node in the request's partition: nothing allocated; once h1 is in partition "label", it is."""
    ctx = context(remote("h1", "/r1"))
    allocator = DistributedOpportunisticContainerAllocator(-1)
    reqs = [ask("*", label="label")]
    assert allocator.allocate(ctx, reqs, same) == []
    assert len(ctx.outstanding) == 1
    ctx.update_node_list([remote("h1", "/r1", "label")])
    assert len(allocator.allocate(ctx, reqs, same)) == 1
    assert ctx.outstanding == {}


def test_max_allocations_per_am_heartbeat_testMaxAllocationsPerAMHeartbeat():
    ctx = context(*FOUR_NODES)
    allocator = DistributedOpportunisticContainerAllocator(2)
    assert len(allocator.allocate(ctx, [ask("*", 3), ask("h6", 3), ask("/r3", 3)], same)) == 2
    assert len(allocator.allocate(ctx, [], same)) == 1  # Remaining 1 container should be allocated.


def test_max_allocations_per_am_heartbeat_different_sched_key_testMaxAllocationsPerAMHeartbeatDifferentSchedKey():
    """Asks naming only a host (priority 2) or only a rack (priority 3) count as their first ask says."""
    ctx = context(*FOUR_NODES)
    allocator = DistributedOpportunisticContainerAllocator(2)
    reqs = [ask("*", 1, prio=1), ask("h6", 2, prio=2), ask("/r3", 2, prio=3)]
    assert len(allocator.allocate(ctx, reqs, same)) == 2
    assert len(allocator.allocate(ctx, [], same)) == 2  # 2 more from pending allocation requests
    assert len(allocator.allocate(ctx, [], same)) == 1  # Remaining 1 container should be allocated.


def test_max_allocations_per_am_heartbeat_with_no_limit_testMaxAllocationsPerAMHeartbeatWithNoLimit():
    ctx = context(remote("h1", "/r1"), remote("h2", "/r1"))
    reqs = [ask("h1", rid=i + 1) for i in range(20)]
    assert len(DistributedOpportunisticContainerAllocator(-1).allocate(ctx, reqs, same)) == 20


def test_max_allocations_per_am_heartbeat_with_high_limit_testMaxAllocationsPerAMHeartbeatWithHighLimit():
    ctx = context(remote("h1", "/r1"), remote("h2", "/r1"))
    reqs = [ask("h1", rid=i + 1) for i in range(20)]
    assert len(DistributedOpportunisticContainerAllocator(100).allocate(ctx, reqs, same)) == 20


def test_limit_counts_every_capability_of_a_key():
    """allocate(): the per-heartbeat limit is re-checked for each EnrichedResourceRequest of one scheduler key."""
    ctx = context(*FOUR_NODES)
    reqs = [ask("*", 2), msgspec.structs.replace(ask("*", 2), capability=Resource(2048, 1))]
    assert len(DistributedOpportunisticContainerAllocator(1).allocate(ctx, reqs, same)) == 1


def test_distributed_scheduler_keeps_node_partitions():
    """DistributedScheduler.updateParameters hands the RM's RemoteNodes, partition included
    (OpportunisticContainerAllocatorAMService.convertToRemoteNode), to OpportunisticContainerContext.updateNodeList."""

    wl = (
        WorkloadBuilder()
        .node("l1", memory_mb=4096, vcores=4, labels=("x",))
        .node("p1", memory_mb=4096, vcores=4)
        .node("p2", memory_mb=4096, vcores=4)
        .build()
    )
    conf = {
        keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
        keys.DIST_SCHEDULING_ENABLED: "true",
        keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
    }
    c = Cluster(conf, wl.nodes, seed=5)
    am = DistributedShellAppMaster(
        name="ds", num_containers=4, container_type=ExecutionType.OPPORTUNISTIC, duration_ms=10_000
    )
    c.submit(am)
    c.run(until_ms=8_000)
    assert am.am_container is not None and am.attempt_id is not None
    proxy = c.node_managers[am.am_container.node_id.host].amrm_proxy
    ds = proxy.pipelines[am.attempt_id]
    assert isinstance(ds, DistributedScheduler)
    assert {n.host for n, _ in ds.context.nodes} == {"l1", "p1", "p2"}
    assert ds.context.partitions == {"l1": "x"}


def test_allocation_latency_metrics_testAllocationLatencyMetrics():
    """For each allocated container, one allocation latency entry (OpportunisticContainerContext's metrics); here
    the asks wait 250 ms of simulated time between being added and allocated, which the entries carry."""
    ctx = context(*FOUR_NODES)
    ctx.metrics = metrics = OpportunisticSchedulerMetrics()
    reqs = [ask("*", 2), ask("h6", 2), ask("/r3", 2)]
    ctx.now_ms = 100.0
    ctx.add_to_outstanding(reqs)
    ctx.now_ms = 350.0
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(ctx, [], same)
    assert len(placed) == 2
    assert metrics.latencies == [250, 250]  # verify(metrics, times(2)).addAllocateOLatencyEntry(anyLong())
