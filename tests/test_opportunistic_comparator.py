"""The RM's QUEUE_LENGTH_THEN_RESOURCES load comparator (NodeQueueLoadMonitor)."""

from __future__ import annotations

import random

from yarnball import Cluster
from yarnball.actors import DistributedShellAppMaster
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.policies.opportunistic import LoadComparator, NodeQueueLoadMonitor
from yarnball.protocols import ExecutionType, NodeId, OpportunisticContainersStatus, Resource, keys

QLTR = LoadComparator.QUEUE_LENGTH_THEN_RESOURCES


def monitor(nodes: dict[str, tuple[int, int, Resource]], capacity: int = 10) -> NodeQueueLoadMonitor:
    """``nodes``: host -> (queue length, unused, allocated) on 8 GB / 8 vcore nodes."""
    m = NodeQueueLoadMonitor(QLTR, 10, random.Random(1))
    for host, (queue, _, allocated) in nodes.items():
        m.add_node(NodeId(host), "/r")
        status = OpportunisticContainersStatus(wait_queue_length=queue, opport_queue_capacity=capacity)
        m.update_node(NodeId(host), status, 0.0, capability=Resource(8192, 8), allocated=allocated)
    m.sort()
    return m


def order(m: NodeQueueLoadMonitor) -> list[str]:
    return [n.host for n in m.select_least_loaded_nodes(-1)]


def test_equal_queues_prefer_the_node_with_most_free_resources() -> None:
    """With equal queue lengths the node whose scarcest free resource is largest comes first."""
    m = monitor({"a": (1, 0, Resource(6144, 2)), "b": (1, 0, Resource(2048, 2)), "c": (1, 0, Resource(4096, 7))})
    assert order(m) == ["b", "a", "c"]  # free shares: b 0.19, a 0.06 (memory), c 0.03 (vcores)


def test_queue_length_still_comes_first() -> None:
    """A shorter queue wins over more free resources."""
    m = monitor({"busy": (2, 0, Resource(0, 0)), "full": (0, 0, Resource(8192, 8))})
    assert order(m) == ["full", "busy"]


def test_plain_queue_length_ignores_resources() -> None:
    """The default QUEUE_LENGTH comparator does not look at resources (ties by node id here)."""
    m = NodeQueueLoadMonitor(LoadComparator.QUEUE_LENGTH, 10, random.Random(1))
    for host, alloc in (("a", Resource(8192, 8)), ("b", Resource(0, 0))):
        m.add_node(NodeId(host), "/r")
        m.update_node(NodeId(host), OpportunisticContainersStatus(opport_queue_capacity=10), 0.0,
                      capability=Resource(8192, 8), allocated=alloc)  # fmt: skip
    m.sort()
    assert order(m) == ["a", "b"]


def test_nodes_without_queue_capacity_are_available_only_with_empty_queues() -> None:
    """Capacity 0: available iff the queue is empty (QUEUE_LENGTH would keep both)."""
    m = monitor({"idle": (0, 0, Resource(0, 0)), "queued": (1, 0, Resource(0, 0))}, capacity=0)
    assert order(m) == ["idle"]


def test_a_request_that_fits_free_resources_is_placed_without_queueing() -> None:
    """Selection charges free resources first, so a capacity-0 node takes containers while they fit."""
    m = monitor({"h": (0, 0, Resource(6144, 2))}, capacity=0)
    r = Resource(1024, 1)
    picks = [m.select_any_node((), r) for _ in range(3)]
    assert picks == [NodeId("h"), NodeId("h"), None]  # 2 GB free: two fit, the third would have to queue
    assert m.cluster_nodes[NodeId("h")].queue_length == 0


def test_a_request_larger_than_the_node_is_never_placed() -> None:
    """A request beyond the node's capability is refused even with room in the queue."""
    m = monitor({"h": (0, 0, Resource(0, 0))})
    assert m.select_any_node((), Resource(16384, 1)) is None
    assert m.select_any_node((), Resource(4096, 1)) == NodeId("h")


def test_cluster_runs_with_the_comparator() -> None:
    """The key is accepted and opportunistic work finishes under it."""
    conf = {
        keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
        keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
        keys.NM_CONTAINER_QUEUING_LOAD_COMPARATOR: "QUEUE_LENGTH_THEN_RESOURCES",
    }
    wl = WorkloadBuilder().nodes(3, memory_mb=4096, vcores=4).build()
    c = Cluster(conf, wl.nodes, seed=2)
    am = DistributedShellAppMaster(name="ds", num_containers=12, container_type=ExecutionType.OPPORTUNISTIC,
                                   duration_ms=2_000)  # fmt: skip
    c.submit(am)
    c.run()
    assert am.succeeded == 12
    assert c.rm.opportunistic is not None
    assert c.rm.opportunistic.monitor.comparator is QLTR
    assert {n.cap_mem for n in c.rm.opportunistic.monitor.cluster_nodes.values()} == {4096}
