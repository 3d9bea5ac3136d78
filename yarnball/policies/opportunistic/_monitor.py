"""``NodeQueueLoadMonitor`` and ``QueueLimitCalculator``: the RM's view of NM queues (opportunistic.md §4, §5).

Pure state: the actor glue feeds node events (added, heartbeat status, removed) and calls :meth:`sort` every
``yarn.resourcemanager.nm-container-queuing.sorting-nodes-interval-ms``. Selection between sorts uses the stale
order but live per-node counters, as Hadoop does.
"""

from __future__ import annotations

import enum
import math
import random
import struct
from collections.abc import Iterable
from typing import Any

from yarnball.errors import ConfigurationError
from yarnball.protocols import ContainerQueuingLimit, NodeId, OpportunisticContainersStatus, Resource, keys

__all__ = ["ClusterNode", "LoadComparator", "NodeQueueLoadMonitor", "QueueLimitCalculator"]


class LoadComparator(enum.Enum):
    """``NodeQueueLoadMonitor.LoadComparator``: what "load" means when sorting nodes."""

    QUEUE_LENGTH = "QUEUE_LENGTH"
    QUEUE_WAIT_TIME = "QUEUE_WAIT_TIME"
    #: Queue length, ties broken by the node's free resources (later Hadoop trunk, opportunistic.md §4.2).
    QUEUE_LENGTH_THEN_RESOURCES = "QUEUE_LENGTH_THEN_RESOURCES"

    def metric(self, node: ClusterNode) -> int:
        """``LoadComparator.getMetric``: the queue wait time for QUEUE_WAIT_TIME, the queue length otherwise."""
        return node.queue_wait_time if self is LoadComparator.QUEUE_WAIT_TIME else node.queue_length

    def compare(self, o1: ClusterNode, o2: ClusterNode, cluster_resource: Resource | None = None) -> int:
        """``LoadComparator.compare`` (negative: ``o1`` is less loaded). ``cluster_resource`` is what Hadoop sets
        with ``setClusterResource`` (QUEUE_LENGTH_THEN_RESOURCES only; the sum of the ClusterNodes' capabilities at
        each sort). Ties: the more recently updated node first, ``(int)(o2.timestamp - o1.timestamp)``."""
        if self is LoadComparator.QUEUE_LENGTH_THEN_RESOURCES:
            diff = _compare_queue_length_then_resources(o1, o2, cluster_resource)
        else:
            diff = self.metric(o1) - self.metric(o2)
        if diff == 0:
            return int(o2.timestamp - o1.timestamp)
        return diff

    def is_node_available(self, node: ClusterNode) -> bool:
        """``LoadComparator.isNodeAvailable``: whether the sorted list keeps the node."""
        if self is LoadComparator.QUEUE_LENGTH_THEN_RESOURCES:
            return node.queue_length <= 0 if node.queue_capacity <= 0 else node.queue_length < node.queue_capacity
        return node.queue_capacity <= 0 or node.queue_length < node.queue_capacity

    @classmethod
    def parse(cls, text: str) -> LoadComparator:
        """``LoadComparator.valueOf``; an unknown name is a configuration error naming the key."""
        try:
            return cls(text.strip())
        except ValueError:
            raise ConfigurationError(
                f"{keys.NM_CONTAINER_QUEUING_LOAD_COMPARATOR}: unknown load comparator {text!r} "
                f"(expected one of {[c.value for c in cls]})"
            ) from None


class ClusterNode:
    """``ClusterNode``: what the monitor knows of one node."""

    __slots__ = ("allocated", "capability", "node_id", "queue_capacity", "queue_length", "queue_wait_time", "rack",
                 "timestamp")  # fmt: skip

    def __init__(self, node_id: NodeId, rack: str = "") -> None:
        self.node_id = node_id
        self.rack = rack
        self.queue_length = 0
        self.queue_wait_time = -1
        self.queue_capacity = 0
        self.timestamp = 0.0
        # getCapability / getAllocatedResource (rmNode.getTotalCapability / getAllocatedContainerResource)
        self.capability = NO_RESOURCE
        self.allocated = NO_RESOURCE

    # (memory, vcores) views, for the readers of the two main types
    @property
    def cap_mem(self) -> int:
        return self.capability.memory_mb

    @property
    def cap_vcores(self) -> int:
        return self.capability.vcores

    @property
    def alloc_mem(self) -> int:
        return self.allocated.memory_mb

    @property
    def alloc_vcores(self) -> int:
        return self.allocated.vcores

    def available_resource(self) -> Resource:
        """``getAvailableResource``: ``Resources.subtractNonNegative(capability, allocated)``, every type."""
        return _subtract_non_negative(self.capability, self.allocated)

    def available(self) -> tuple[int, int]:
        """``max(0, capability - allocated)`` per type: (memory MB, vcores)."""
        return max(0, self.cap_mem - self.alloc_mem), max(0, self.cap_vcores - self.alloc_vcores)

    def compare_and_increment_allocation(self, increment: int, requested: Resource | None = None) -> bool:
        """``ClusterNode.compareAndIncrementAllocation``. With a request (QUEUE_LENGTH_THEN_RESOURCES): charge the
        free resources if it fits them (no queueing); refuse if it cannot fit the node at all; else queue. Without:
        queue iff ``queueLength + increment <= queueCapacity``. The charges last until the node's next heartbeat."""
        if requested is not None:
            if requested.fits_in(self.available_resource()):  # DominantResourceCalculator.fitsIn: every type
                self.allocated = self.allocated + requested
                return True
            if not requested.fits_in(self.capability):
                return False  # "If does not fit at all, do not allocate"
        if self.queue_length + increment <= self.queue_capacity:
            self.queue_length += increment
            return True
        return False


NO_RESOURCE = Resource()


def _subtract_non_negative(a: Resource, b: Resource) -> Resource:
    """``Resources.subtractNonNegative``: ``a - b`` per type, floored at 0."""
    theirs = dict(b.extended)
    return Resource(
        max(0, a.memory_mb - b.memory_mb),
        max(0, a.vcores - b.vcores),
        tuple((k, max(0, v - theirs.get(k, 0))) for k, v in a.extended),
    )


def _types(r: Resource) -> list[tuple[str, int]]:
    return [("memory-mb", r.memory_mb), ("vcores", r.vcores), *r.extended]


def _float32(x: float) -> float:
    """Java's ``float``: ``DominantResourceCalculator.minRatio`` returns one."""
    return float(struct.unpack("f", struct.pack("f", x))[0])


def _min_ratio(a: Resource, cluster: Resource) -> float:
    """``DominantResourceCalculator.minRatio(a, cluster)``: the smallest ``a_i / cluster_i`` over the resource types
    (the cluster's; a type the node lacks counts 0)."""
    mine = dict(_types(a))
    return _float32(min(mine.get(k, 0) / v for k, v in _types(cluster)))


def _any_major_zero_or_negative(r: Resource) -> bool:
    """``ResourceCalculator.isAnyMajorResourceZeroOrNegative`` (every countable type)."""
    return any(v <= 0 for _, v in _types(r))


PRECISION_EPSILON = 2.0**-53  # org.apache.commons.math3.util.Precision.EPSILON


def _compare_queue_length_then_resources(o1: ClusterNode, o2: ClusterNode, cluster: Resource | None) -> int:
    """``LoadComparator.compareQueueLengthThenResources``: the shorter queue; then (when the cluster resource is
    positive in every type) the larger ``minRatio(available, cluster)``; then more free vcores; then more free
    memory."""
    diff = o1.queue_length - o2.queue_length
    if diff != 0:
        return diff
    a1, a2 = o1.available_resource(), o2.available_resource()
    if cluster is not None and not _any_major_zero_or_negative(cluster):
        r1, r2 = _min_ratio(a1, cluster), _min_ratio(a2, cluster)
        # Precision.compareTo(r2, r1, EPSILON)
        diff = 0 if abs(r2 - r1) <= PRECISION_EPSILON else (-1 if r2 < r1 else 1)
    if diff == 0:
        diff = a2.vcores - a1.vcores
    if diff == 0:
        diff = (a2.memory_mb > a1.memory_mb) - (a2.memory_mb < a1.memory_mb)  # Long.compare
    return diff


class NodeQueueLoadMonitor:
    """Least-loaded node selection for opportunistic containers (``NodeQueueLoadMonitor``)."""

    def __init__(self, comparator: LoadComparator, nodes_used: int, rng: random.Random) -> None:
        self.comparator = comparator
        self.nodes_used = nodes_used
        self.rng = rng
        self.racks: dict[NodeId, str] = {}  # nodeByHostName/nodeIdsByRack: known, maybe not yet eligible
        self.cluster_nodes: dict[NodeId, ClusterNode] = {}
        self.sorted_nodes: list[NodeId] = []
        self.threshold_calculator: QueueLimitCalculator | None = None

    def init_threshold_calculator(self, sigma: float, minimum: int, maximum: int) -> QueueLimitCalculator:
        """``initThresholdCalculator``: the queue limit computed after every sort (:meth:`compute`)."""
        self.threshold_calculator = QueueLimitCalculator(sigma, minimum, maximum, self.comparator)
        return self.threshold_calculator

    def compute(self) -> None:
        """``computeTask``: sort, then update the threshold calculator over the sorted nodes (a node missing from
        ``clusterNodes`` counts 0, as ``QueueLimitCalculator.Stats.update``)."""
        self.sort()
        calculator = self.threshold_calculator
        if calculator is not None:
            nodes = self.cluster_nodes
            metric = self.comparator.metric
            calculator.update([metric(nodes[n]) if n in nodes else 0 for n in self.sorted_nodes])

    # -- node events ------------------------------------------------------------------------------------------
    def add_node(self, node_id: NodeId, rack: str) -> None:
        """NODE_ADDED: the node is remembered but becomes eligible only after its first status (as Hadoop)."""
        self.racks[node_id] = rack

    def remove_node(self, node_id: NodeId) -> None:
        self.racks.pop(node_id, None)
        self.cluster_nodes.pop(node_id, None)

    def update_node(
        self,
        node_id: NodeId,
        status: OpportunisticContainersStatus | None,
        now: float,
        *,
        decommissioning: bool = False,
        capability: Resource | None = None,
        allocated: Resource | None = None,
    ) -> None:
        """NODE_UPDATE with the NM's ``OpportunisticContainersStatus`` (all zero when absent): ``updateNode`` with
        ``onNewNodeAdded`` / ``onExistingNodeUpdated``. Like Hadoop's, it does not need a NODE_ADDED first (the
        ClusterNode is keyed by node id); node-local and rack-local selection only see added nodes."""
        if status is None:
            status = OpportunisticContainersStatus()
        eligible = not decommissioning and (
            status.estimated_queue_wait_time != -1 or self.comparator is not LoadComparator.QUEUE_WAIT_TIME
        )
        node = self.cluster_nodes.get(node_id)
        if not eligible:
            self.cluster_nodes.pop(node_id, None)
            return
        if node is None:
            node = ClusterNode(node_id, self.racks.get(node_id, ""))
            # Hadoop quirk: queueCapacity is set when the ClusterNode is created and never updated afterwards.
            node.queue_capacity = status.opport_queue_capacity
            self.cluster_nodes[node_id] = node
        node.queue_wait_time = status.estimated_queue_wait_time
        node.queue_length = status.wait_queue_length
        node.timestamp = now
        if capability is not None:
            node.capability = capability
        if allocated is not None:
            node.allocated = allocated

    # -- sorting ----------------------------------------------------------------------------------------------
    def metric(self, node: ClusterNode) -> int:
        return self.comparator.metric(node)

    def sort(self) -> None:
        """The periodic ``computeTask``'s sort (``updateSortedNodes``): least loaded first, nodes the comparator
        finds unavailable (full queues) excluded."""
        if self.comparator is LoadComparator.QUEUE_LENGTH_THEN_RESOURCES:
            self._sort_then_resources()
            return
        nodes = [n for n in self.cluster_nodes.values() if not _queue_full(n)]
        # Ties: more recently updated first (``o2.timestamp - o1.timestamp``); then the node id, for determinism.
        if self.comparator is LoadComparator.QUEUE_WAIT_TIME:
            nodes.sort(key=lambda n: (n.queue_wait_time, -n.timestamp, n.node_id.host, n.node_id.port))
        else:
            nodes.sort(key=lambda n: (n.queue_length, -n.timestamp, n.node_id.host, n.node_id.port))
        self.sorted_nodes = [n.node_id for n in nodes]

    def cluster_resource(self) -> Resource:
        """The sum of every ClusterNode's capability (``sortNodes`` hands it to the comparator at each sort)."""
        total = NO_RESOURCE
        for n in self.cluster_nodes.values():
            total = total + n.capability
        return total

    def _sort_then_resources(self) -> None:
        """QUEUE_LENGTH_THEN_RESOURCES (``LoadComparator.compareQueueLengthThenResources`` as a sort key): queue
        length, then (if the cluster resource is positive in every type) the larger ``minRatio(available,
        cluster)`` (a Java float), more free vcores, more free memory; then the newer timestamp. A node is
        available iff ``queueCapacity <= 0 ? queueLength <= 0 : queueLength < queueCapacity``."""
        everything = list(self.cluster_nodes.values())
        cluster = self.cluster_resource()
        by_resources = not _any_major_zero_or_negative(cluster)

        def key(n: ClusterNode) -> tuple[Any, ...]:
            free = n.available_resource()
            ratio: tuple[float, ...] = (-_min_ratio(free, cluster),) if by_resources else ()
            return (n.queue_length, *ratio, -free.vcores, -free.memory_mb, -n.timestamp, n.node_id.host,
                    n.node_id.port)  # fmt: skip

        available = self.comparator.is_node_available
        nodes = [n for n in everything if available(n)]
        nodes.sort(key=key)
        self.sorted_nodes = [n.node_id for n in nodes]

    def select_least_loaded_nodes(self, k: int) -> list[NodeId]:
        if k < 0 or k >= len(self.sorted_nodes):
            return list(self.sorted_nodes)
        return self.sorted_nodes[:k]

    # -- selection with a local reservation ------------------------------------------------------------------
    def _compare_and_increment(self, node: ClusterNode, request: Resource | None = None) -> bool:
        """``LoadComparator.compareAndIncrement(node, 1, request)``."""
        if self.comparator is LoadComparator.QUEUE_WAIT_TIME:
            return True  # "for queue wait time, we don't have any threshold"
        if self.comparator is LoadComparator.QUEUE_LENGTH_THEN_RESOURCES:
            return node.compare_and_increment_allocation(1, request)
        return node.compare_and_increment_allocation(1)

    def select_local_node(
        self, host: str, blacklist: Iterable[str], request: Resource | None = None
    ) -> NodeId | None:
        """``selectLocalNode``: the added node on ``host``, if it has a ClusterNode that takes the container."""
        if host in set(blacklist):
            return None
        for node_id, node in self.cluster_nodes.items():
            if node_id.host == host and node_id in self.racks:
                return node_id if self._compare_and_increment(node, request) else None
        return None

    def select_rack_local_node(
        self, rack: str, blacklist: Iterable[str], request: Resource | None = None
    ) -> NodeId | None:
        banned = set(blacklist)
        # Hadoop iterates a HashSet (unspecified order); yarnball uses node id order, for determinism.
        for node_id in sorted((n for n, r in self.racks.items() if r == rack), key=lambda n: (n.host, n.port)):
            node = self.cluster_nodes.get(node_id)
            if node is None or node_id.host in banned:
                continue
            if self._compare_and_increment(node, request):
                return node_id
        return None

    def select_any_node(self, blacklist: Iterable[str], request: Resource | None = None) -> NodeId | None:
        """A random start in the ``nodes-used`` least-loaded nodes, then a cyclic scan (``selectAnyNode``)."""
        candidates = self.select_least_loaded_nodes(self.nodes_used)
        if not candidates:
            return None
        banned = set(blacklist)
        start = self.rng.randrange(len(candidates))
        for i in range(len(candidates)):
            node_id = candidates[(start + i) % len(candidates)]
            node = self.cluster_nodes.get(node_id)
            if node is None or node_id.host in banned:
                continue
            if self._compare_and_increment(node, request):
                return node_id
        return None


def _queue_full(node: ClusterNode) -> bool:
    return node.queue_capacity > 0 and node.queue_length >= node.queue_capacity


class QueueLimitCalculator:
    """``QueueLimitCalculator``: the NM queue limit, mean + sigma * stdev of the sorted nodes' load, clamped."""

    def __init__(
        self, sigma: float, minimum: int, maximum: int, comparator: LoadComparator = LoadComparator.QUEUE_LENGTH
    ) -> None:
        if minimum > maximum:
            raise ConfigurationError(
                f"nm-container-queuing: min ({minimum}) must not exceed max ({maximum}) "
                f"({keys.NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH} / {keys.NM_CONTAINER_QUEUING_MAX_QUEUE_LENGTH})"
            )
        self.sigma = sigma
        self.minimum = minimum
        self.maximum = maximum
        self.comparator = comparator
        self.mean = 0
        self.stdev = 0

    def update(self, metrics: list[int]) -> None:
        """``QueueLimitCalculator.Stats.update`` over the *available* (sorted) nodes; no nodes keeps the old stats."""
        if not metrics:
            return
        n = len(metrics)
        mean = _java_int_div(sum(metrics), n)
        sq = 0
        for m in metrics:
            sq = int(sq + float(m - mean) ** 2)  # Java compound assignment of a double into an int
        self.mean = mean
        self.stdev = math.floor(math.sqrt(sq / n) + 0.5)  # Math.round: half up

    @property
    def threshold(self) -> int:
        return int(self.mean + self.sigma * self.stdev)  # (int) truncates toward zero

    @property
    def limit(self) -> int:
        return min(self.maximum, max(self.minimum, self.threshold))

    def create_container_queuing_limit(self) -> ContainerQueuingLimit:
        """``createContainerQueuingLimit``: the limit as a wait time for QUEUE_WAIT_TIME, a queue length otherwise
        (the other field -1, no limit)."""
        if self.comparator is LoadComparator.QUEUE_WAIT_TIME:
            return ContainerQueuingLimit(max_queue_wait_time_in_ms=self.limit, max_queue_length=-1)
        return ContainerQueuingLimit(max_queue_length=self.limit, max_queue_wait_time_in_ms=-1)


def _java_int_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q
