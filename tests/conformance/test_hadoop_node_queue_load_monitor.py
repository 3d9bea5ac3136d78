"""Hadoop's TestNodeQueueLoadMonitor, ported to yarnball's NodeQueueLoadMonitor (policies/opportunistic/_monitor.py).

Hadoop's ``createRMNode`` mocks an RMNode (host, port, rack, state, total capability, allocated container resource)
and its OpportunisticContainersStatus (wait time, queue length, queue capacity); here it is the same data handed to
``update_node`` (``decommissioning`` for ``NodeState.DECOMMISSIONING``). ``computeTask.run()`` is ``compute()``,
``selectNodes()`` is ``select_least_loaded_nodes(-1)``. Each ``updateNode`` stamps a later time, as Hadoop's
``System.currentTimeMillis()`` does. The "network" resource type is an extended resource of yarnball's Resource.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from yarnball.policies.opportunistic import ClusterNode, LoadComparator, NodeQueueLoadMonitor
from yarnball.protocols import NodeId, OpportunisticContainersStatus, Resource

QUEUE_LENGTH = LoadComparator.QUEUE_LENGTH
QUEUE_WAIT_TIME = LoadComparator.QUEUE_WAIT_TIME
QLTR = LoadComparator.QUEUE_LENGTH_THEN_RESOURCES
DEFAULT_MAX_QUEUE_LENGTH = 200


def resource(memory: int, vcores: int, network: int = 0) -> Resource:
    """``newResourceInstance(memory, vCores[, network])``."""
    return Resource(memory, vcores, (("network", network),))


DEFAULT_RESOURCE_REQUESTED = resource(128, 1, 1)
DEFAULT_CAPABILITY = resource(1024, 8, 1000)
NONE = Resource()


@dataclass(frozen=True)
class RMNode:
    """What ``createRMNode`` stubs."""

    host: str
    port: int
    rack: str
    wait_time: int
    queue_length: int
    queue_capacity: int
    decommissioning: bool
    allocated: Resource
    capability: Resource

    @property
    def node_id(self) -> NodeId:
        return NodeId(self.host, self.port)


def rm_node(
    host: str,
    port: int,
    wait_time: int,
    queue_length: int,
    queue_capacity: int = DEFAULT_MAX_QUEUE_LENGTH,
    *,
    rack: str = "default",
    decommissioning: bool = False,
    allocated: Resource = NONE,
    capability: Resource = DEFAULT_CAPABILITY,
) -> RMNode:
    return RMNode(host, port, rack, wait_time, queue_length, queue_capacity, decommissioning, allocated, capability)


class Selector:
    """A NodeQueueLoadMonitor driven as the Hadoop test drives it."""

    def __init__(self, comparator: LoadComparator) -> None:
        self.m = NodeQueueLoadMonitor(comparator, 10, random.Random(7))  # numNodesForAnyAllocation: 10
        self.clock = 0.0

    def add_node(self, node: RMNode) -> None:
        self.m.add_node(node.node_id, node.rack)

    def remove_node(self, node: RMNode) -> None:
        self.m.remove_node(node.node_id)

    def update_node(self, node: RMNode) -> None:
        self.clock += 1.0
        status = OpportunisticContainersStatus(
            estimated_queue_wait_time=node.wait_time,
            wait_queue_length=node.queue_length,
            opport_queue_capacity=node.queue_capacity,
        )
        self.m.update_node(node.node_id, status, self.clock, decommissioning=node.decommissioning,
                           capability=node.capability, allocated=node.allocated)  # fmt: skip

    def compute(self) -> None:
        self.m.compute()

    def select_nodes(self) -> list[str]:
        return [f"{n.host}:{n.port}" for n in self.m.select_least_loaded_nodes(-1)]

    def ranked(self, *nodes: RMNode) -> list[str]:
        """``updateNode`` each of ``nodes``, ``computeTask.run()``, then ``selectNodes()``."""
        for node in nodes:
            self.update_node(node)
        self.compute()
        return self.select_nodes()


def test_testWaitTimeSort() -> None:
    selector = Selector(QUEUE_WAIT_TIME)
    node_ids = selector.ranked(rm_node("h1", 1, 15, 10), rm_node("h2", 2, 5, 10), rm_node("h3", 3, 10, 10))
    assert node_ids[:3] == ["h2:2", "h3:3", "h1:1"]

    # Now update node3
    node_ids = selector.ranked(rm_node("h3", 3, 2, 10))
    assert node_ids[:3] == ["h3:3", "h2:2", "h1:1"]

    # Now send update with -1 wait time
    node_ids = selector.ranked(rm_node("h4", 4, -1, 10))
    # No change
    assert node_ids[:3] == ["h3:3", "h2:2", "h1:1"]

    # Now update node 2 to DECOMMISSIONING state
    node_ids = selector.ranked(rm_node("h2", 2, 1, 10, decommissioning=True))
    assert node_ids == ["h3:3", "h1:1"]

    # Now update node 2 back to RUNNING state
    node_ids = selector.ranked(rm_node("h2", 2, 1, 10))
    assert node_ids[:3] == ["h2:2", "h3:3", "h1:1"]


def test_testQueueLengthSort() -> None:
    selector = Selector(QUEUE_LENGTH)
    node_ids = selector.ranked(rm_node("h1", 1, -1, 15), rm_node("h2", 2, -1, 5), rm_node("h3", 3, -1, 10))
    assert node_ids[:3] == ["h2:2", "h3:3", "h1:1"]

    # Now update node3
    node_ids = selector.ranked(rm_node("h3", 3, -1, 2))
    assert node_ids[:3] == ["h3:3", "h2:2", "h1:1"]

    # Now send update with -1 wait time but valid length
    node_ids = selector.ranked(rm_node("h4", 4, -1, 20))
    # No change
    assert node_ids[:4] == ["h3:3", "h2:2", "h1:1", "h4:4"]

    # Now update h3 and fill its queue.
    node_ids = selector.ranked(rm_node("h3", 3, -1, DEFAULT_MAX_QUEUE_LENGTH))
    assert node_ids == ["h2:2", "h1:1", "h4:4"]

    # Now update h2 to Decommissioning state
    node_ids = selector.ranked(rm_node("h2", 2, -1, 5, decommissioning=True))
    assert node_ids == ["h1:1", "h4:4"]

    # Now update h2 back to Running state
    node_ids = selector.ranked(rm_node("h2", 2, -1, 5))
    assert node_ids == ["h2:2", "h1:1", "h4:4"]


def test_testQueueLengthThenResourcesSort() -> None:
    selector = Selector(QLTR)
    req = DEFAULT_RESOURCE_REQUESTED
    # Node and queue sizes were selected such that we can determine the order of these nodes: h2 -> h1 -> h3 -> h4
    node_ids = selector.ranked(
        rm_node("h1", 1, -1, 0, allocated=req * 3),
        rm_node("h2", 2, -1, 0, allocated=req * 2),
        rm_node("h3", 3, -1, 5, allocated=req * 3),
        rm_node("h4", 4, -1, 10, allocated=req * 2),
    )
    assert node_ids[:4] == ["h2:2", "h1:1", "h3:3", "h4:4"]

    # Now update node3: it ranks after node4 (same queue length, less resources available)
    node_ids = selector.ranked(rm_node("h3", 3, -1, 10, allocated=req * 3))
    assert node_ids[:4] == ["h2:2", "h1:1", "h4:4", "h3:3"]

    # Now update h3 and fill its queue -- it should no longer be available
    node_ids = selector.ranked(rm_node("h3", 3, -1, DEFAULT_MAX_QUEUE_LENGTH))
    assert node_ids == ["h2:2", "h1:1", "h4:4"]

    # Now update h2 to Decommissioning state
    node_ids = selector.ranked(rm_node("h2", 2, -1, 5, decommissioning=True))
    # h2 is decommissioned, and h3 is full, so we should only have 2 nodes
    assert node_ids == ["h1:1", "h4:4"]

    # Now update h2 back to Running state
    node_ids = selector.ranked(rm_node("h2", 2, -1, 0, allocated=req * 2))
    assert node_ids == ["h2:2", "h1:1", "h4:4"]

    # Now update h2 to have a zero queue capacity. Make sure that here it is still in the pool.
    node_ids = selector.ranked(rm_node("h2", 2, -1, 0, 0, allocated=req * 2))
    assert node_ids == ["h2:2", "h1:1", "h4:4"]

    # Now a positive queue length but a zero queue capacity: no longer in the pool. Remove the node first,
    # because the queue capacity is not updated.
    selector.remove_node(rm_node("h2", 2, -1, 0, 0, allocated=req * 2))
    node_ids = selector.ranked(rm_node("h2", 2, -1, 1, 0, allocated=req * 2))
    assert node_ids == ["h1:1", "h4:4"]


def test_testQueueLengthThenResourcesDecrementsAvailable() -> None:
    """QUEUE_LENGTH_THEN_RESOURCES charges a request to the node's free resources; one that does not fit them
    queues; one that does not fit the node at all is refused."""
    selector = Selector(QLTR)
    node = rm_node("h1", 1, -1, 0)
    selector.add_node(node)
    selector.update_node(node)
    selector.m.sort()  # updateSortedNodes()

    cluster_node = selector.m.cluster_nodes[node.node_id]
    assert cluster_node.allocated.is_none()  # Resources.none()

    # Has enough resources
    selected = selector.m.select_any_node(set(), DEFAULT_RESOURCE_REQUESTED)
    assert selected is not None
    assert selected == node.node_id
    assert selector.m.cluster_nodes[node.node_id].allocated == DEFAULT_RESOURCE_REQUESTED

    # Does not have enough resources, but can queue
    selected = selector.m.select_any_node(set(), DEFAULT_CAPABILITY)
    assert selected is not None
    assert selected == node.node_id
    assert selector.m.cluster_nodes[node.node_id].queue_length == 1

    # Does not have enough resources and cannot queue
    assert selector.m.select_any_node(set(), DEFAULT_RESOURCE_REQUESTED + DEFAULT_CAPABILITY) is None


def test_testQueueLengthThenResourcesCapabilityChange() -> None:
    selector = Selector(QLTR)
    req = DEFAULT_RESOURCE_REQUESTED
    # Node sizes were selected such that we can determine the order: h1 -> h2 -> h3 -> h4
    node_ids = selector.ranked(*(rm_node(f"h{i}", i, -1, 0, allocated=req * i) for i in range(1, 5)))
    assert node_ids[:4] == ["h1:1", "h2:2", "h3:3", "h4:4"]

    # node1 keeps only defaultResourceRequested available (capability 2x): it ranks last
    node_ids = selector.ranked(rm_node("h1", 1, -1, 0, allocated=req * 1, capability=req * 2))
    assert node_ids[:4] == ["h2:2", "h3:3", "h4:4", "h1:1"]

    # node2 has no resources available (capability 1x): it ranks last
    node_ids = selector.ranked(rm_node("h2", 2, -1, 0, allocated=req * 1, capability=req * 1))
    assert node_ids[:4] == ["h3:3", "h4:4", "h1:1", "h2:2"]


def test_testContainerQueuingLimit() -> None:
    selector = Selector(QUEUE_LENGTH)
    selector.update_node(rm_node("h1", 1, -1, 15))
    selector.update_node(rm_node("h2", 2, -1, 5))
    selector.update_node(rm_node("h3", 3, -1, 10))

    # Test Mean Calculation
    calculator = selector.m.init_threshold_calculator(0, 6, 100)
    limit = calculator.create_container_queuing_limit()
    assert limit.max_queue_length == 6
    assert limit.max_queue_wait_time_in_ms == -1
    selector.compute()
    limit = calculator.create_container_queuing_limit()
    assert limit.max_queue_length == 10
    assert limit.max_queue_wait_time_in_ms == -1

    # Test Limits do not exceed specified max
    for i in range(1, 7):
        selector.update_node(rm_node(f"h{i}", i, -1, 100 + 10 * i))
    selector.compute()
    assert calculator.create_container_queuing_limit().max_queue_length == 100

    # Test Limits do not go below specified min
    for i in range(1, 7):
        selector.update_node(rm_node(f"h{i}", i, -1, i))
    selector.compute()
    assert calculator.create_container_queuing_limit().max_queue_length == 6


RACKS = ("rack1", "rack2", "rack2")


def three_nodes(racks: tuple[str, ...] = ("default",) * 3, h3_capacity: int = 5) -> Selector:
    """The selection tests' monitor (QUEUE_LENGTH): h1, h2 and h3 on ``racks``, added, then updated with queue
    lengths 2, 5 and 4 of capacities 5, 5 and ``h3_capacity`` (h2's queue is full)."""
    selector = Selector(QUEUE_LENGTH)
    nodes = [
        rm_node(f"h{i}", i, -1, length, capacity, rack=rack)
        for i, length, capacity, rack in zip((1, 2, 3), (2, 5, 4), (5, 5, h3_capacity), racks)
    ]
    for node in nodes:
        selector.add_node(node)
    for node in nodes:
        selector.update_node(node)
    return selector


def test_testSelectLocalNode() -> None:
    selector = three_nodes()
    req = DEFAULT_RESOURCE_REQUESTED
    blacklist: set[str] = set()
    # a node whose queue length is below its queue capacity
    node = selector.m.select_local_node("h1", blacklist, req)
    assert node is not None and node.host == "h1"
    # if node has been added to blacklist
    blacklist.add("h1")
    assert selector.m.select_local_node("h1", blacklist, req) is None
    assert selector.m.select_local_node("h2", blacklist, req) is None
    node = selector.m.select_local_node("h3", blacklist, req)
    assert node is not None and node.host == "h3"


def test_testSelectRackLocalNode() -> None:
    selector = three_nodes(RACKS)
    req = DEFAULT_RESOURCE_REQUESTED
    blacklist: set[str] = set()
    node = selector.m.select_rack_local_node("rack1", blacklist, req)
    assert node is not None and node.host == "h1"
    # if node has been added to blacklist
    blacklist.add("h1")
    assert selector.m.select_rack_local_node("rack1", blacklist, req) is None
    node = selector.m.select_rack_local_node("rack2", blacklist, req)
    assert node is not None and node.host == "h3"
    blacklist.add("h3")
    assert selector.m.select_rack_local_node("rack2", blacklist, req) is None


def test_testSelectAnyNode() -> None:
    selector = three_nodes(RACKS, h3_capacity=10)
    selector.compute()
    assert len(selector.m.sorted_nodes) == 2  # getSortedNodes(): h2's queue is full
    req = DEFAULT_RESOURCE_REQUESTED
    blacklist: set[str] = set()
    node = selector.m.select_any_node(blacklist, req)
    assert node is not None and node.host in ("h1", "h3")
    # if node has been added to blacklist
    blacklist.add("h1")
    node = selector.m.select_any_node(blacklist, req)
    assert node is not None and node.host == "h3"
    blacklist.add("h3")
    assert selector.m.select_any_node(blacklist, req) is None


def cluster_node(host: str, allocated: Resource, capability: Resource, queue_length: int) -> ClusterNode:
    """``new ClusterNode(new FakeNodeId(host, 5000)).setProperties(...)`` (timestamp 0: never updated)."""
    node = ClusterNode(NodeId(host, 5000))
    node.allocated = allocated
    node.capability = capability
    node.queue_length = queue_length
    return node


def compare(cn1: ClusterNode, cn2: ClusterNode) -> int:
    """``comparator.setClusterResource(cn1.capability + cn2.capability); comparator.compare(cn1, cn2)``."""
    return QLTR.compare(cn1, cn2, cn1.capability + cn2.capability)


def test_testQueueLengthThenResourcesComparator() -> None:
    big = resource(10, 10, 1000)
    # Case 1: larger available cores should be ranked first
    assert compare(cluster_node("n1", resource(5, 5), big, 10), cluster_node("n2", resource(6, 6), big, 10)) < 0
    # Case 2: Shorter queue should be ranked first before comparing resources
    assert compare(cluster_node("n1", resource(5, 5), big, 5), cluster_node("n2", resource(3, 3), big, 10)) < 0
    # Case 3: No capability vs with capability, with capability should come first
    assert compare(cluster_node("n1", NONE, resource(1, 1, 1000), 5), cluster_node("n2", NONE, NONE, 5)) < 0
    # Case 4: Compare same values
    assert compare(cluster_node("n1", resource(5, 5), big, 10), cluster_node("n2", resource(5, 5), big, 10)) == 0
    # Case 5: If ratio is the same, compare raw values by VCores first, then memory
    # (both are 60% allocated, but CN1 has 5 avail VCores, CN2 only has 4)
    assert compare(cluster_node("n1", resource(6, 5), big, 10), cluster_node("n2", resource(5, 6), big, 10)) < 0
    # Case 6: by VCores absolute value
    cn1 = cluster_node("n1", resource(5, 5), big, 10)
    cn2 = cluster_node("n2", resource(5, 6), resource(10, 12, 1000), 10)
    assert compare(cn2, cn1) < 0
    # Case 7: by memory absolute value
    cn1 = cluster_node("n1", resource(5, 5), big, 10)
    cn2 = cluster_node("n2", resource(6, 5), resource(12, 10, 1000), 10)
    assert compare(cn2, cn1) < 0
    # Case 8: Memory is more constraining in the overall cluster: rank the node with less allocated memory first
    cn1 = cluster_node("n1", resource(5, 11), resource(10, 100, 1000), 10)
    cn2 = cluster_node("n2", resource(6, 10), resource(10, 100, 1000), 10)
    assert compare(cn1, cn2) < 0
