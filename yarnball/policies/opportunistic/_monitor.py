"""``NodeQueueLoadMonitor`` and ``QueueLimitCalculator``: the RM's view of NM queues (opportunistic.md §4, §5).

Pure state: the actor glue feeds node events (added, heartbeat status, removed) and calls :meth:`sort` every
``yarn.resourcemanager.nm-container-queuing.sorting-nodes-interval-ms``. Selection between sorts uses the stale
order but live per-node counters, as Hadoop does.
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Iterable
from typing import Any

from yarnball.errors import ConfigurationError
from yarnball.protocols import NodeId, OpportunisticContainersStatus, Resource, keys

__all__ = ["ClusterNode", "LoadComparator", "NodeQueueLoadMonitor", "QueueLimitCalculator"]


class LoadComparator(enum.Enum):
    """``NodeQueueLoadMonitor.LoadComparator``: what "load" means when sorting nodes."""

    QUEUE_LENGTH = "QUEUE_LENGTH"
    QUEUE_WAIT_TIME = "QUEUE_WAIT_TIME"
    #: Queue length, ties broken by the node's free resources (later Hadoop trunk, opportunistic.md §4.2).
    QUEUE_LENGTH_THEN_RESOURCES = "QUEUE_LENGTH_THEN_RESOURCES"

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

    __slots__ = ("alloc_mem", "alloc_vcores", "cap_mem", "cap_vcores", "node_id", "queue_capacity", "queue_length",
                 "queue_wait_time", "rack", "timestamp")  # fmt: skip

    def __init__(self, node_id: NodeId, rack: str) -> None:
        self.node_id = node_id
        self.rack = rack
        self.queue_length = 0
        self.queue_wait_time = -1
        self.queue_capacity = 0
        self.timestamp = 0.0
        # capability / allocatedResource (QUEUE_LENGTH_THEN_RESOURCES only)
        self.cap_mem = self.cap_vcores = self.alloc_mem = self.alloc_vcores = 0

    def available(self) -> tuple[int, int]:
        """``max(0, capability - allocated)`` per type: (memory MB, vcores)."""
        return max(0, self.cap_mem - self.alloc_mem), max(0, self.cap_vcores - self.alloc_vcores)


class NodeQueueLoadMonitor:
    """Least-loaded node selection for opportunistic containers (``NodeQueueLoadMonitor``)."""

    def __init__(self, comparator: LoadComparator, nodes_used: int, rng: random.Random) -> None:
        self.comparator = comparator
        self.nodes_used = nodes_used
        self.rng = rng
        self.racks: dict[NodeId, str] = {}  # nodeByHostName/nodeIdsByRack: known, maybe not yet eligible
        self.cluster_nodes: dict[NodeId, ClusterNode] = {}
        self.sorted_nodes: list[NodeId] = []

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
        """NODE_UPDATE with the NM's ``OpportunisticContainersStatus`` (all zero when absent)."""
        if node_id not in self.racks:
            return
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
            node = ClusterNode(node_id, self.racks[node_id])
            # Hadoop quirk: queueCapacity is set when the ClusterNode is created and never updated afterwards.
            node.queue_capacity = status.opport_queue_capacity
            self.cluster_nodes[node_id] = node
        node.queue_wait_time = status.estimated_queue_wait_time
        node.queue_length = status.wait_queue_length
        node.timestamp = now
        if capability is not None:
            node.cap_mem, node.cap_vcores = capability.memory_mb, capability.vcores
        if allocated is not None:
            node.alloc_mem, node.alloc_vcores = allocated.memory_mb, allocated.vcores

    # -- sorting ----------------------------------------------------------------------------------------------
    def metric(self, node: ClusterNode) -> int:
        if self.comparator is LoadComparator.QUEUE_WAIT_TIME:
            return node.queue_wait_time
        return node.queue_length

    def sort(self) -> None:
        """The periodic ``computeTask``: least loaded first, full nodes excluded."""
        if self.comparator is LoadComparator.QUEUE_LENGTH_THEN_RESOURCES:
            self._sort_then_resources()
            return
        nodes = [n for n in self.cluster_nodes.values() if not _queue_full(n)]
        # Ties: more recently updated first (``o2.timestamp - o1.timestamp``); then the node id, for determinism.
        nodes.sort(key=lambda n: (self.metric(n), -n.timestamp, n.node_id.host, n.node_id.port))
        self.sorted_nodes = [n.node_id for n in nodes]

    def _sort_then_resources(self) -> None:
        """QUEUE_LENGTH_THEN_RESOURCES: queue length, then (if the cluster resource is positive in every type) the
        larger ``minRatio(available, cluster)``, more free vcores, more free memory; then the newer timestamp.
        A node is available iff ``queueCapacity <= 0 ? queueLength <= 0 : queueLength < queueCapacity``."""
        everything = list(self.cluster_nodes.values())
        cluster_mem = sum(n.cap_mem for n in everything)  # recomputed at each sort, over all ClusterNodes
        cluster_vc = sum(n.cap_vcores for n in everything)
        by_resources = cluster_mem > 0 and cluster_vc > 0

        def key(n: ClusterNode) -> tuple[Any, ...]:
            mem, vc = n.available()
            ties: tuple[Any, ...] = ()
            if by_resources:
                # DominantResourceCalculator.minRatio (inferred): the scarcest type's share of the cluster.
                ties = (-min(mem / cluster_mem, vc / cluster_vc), -vc, -mem)
            return (n.queue_length, *ties, -n.timestamp, n.node_id.host, n.node_id.port)

        nodes = [
            n for n in everything
            if (n.queue_length <= 0 if n.queue_capacity <= 0 else n.queue_length < n.queue_capacity)
        ]
        nodes.sort(key=key)
        self.sorted_nodes = [n.node_id for n in nodes]

    def select_least_loaded_nodes(self, k: int) -> list[NodeId]:
        if k < 0 or k >= len(self.sorted_nodes):
            return list(self.sorted_nodes)
        return self.sorted_nodes[:k]

    # -- selection with a local reservation ------------------------------------------------------------------
    def _compare_and_increment(self, node: ClusterNode, request: Resource | None = None) -> bool:
        if self.comparator is LoadComparator.QUEUE_WAIT_TIME:
            return True
        if self.comparator is LoadComparator.QUEUE_LENGTH_THEN_RESOURCES and request is not None:
            mem, vc = node.available()
            if request.memory_mb <= mem and request.vcores <= vc:
                node.alloc_mem += request.memory_mb  # runs at once: no queueing (overwritten by the next heartbeat)
                node.alloc_vcores += request.vcores
                return True
            if request.memory_mb > node.cap_mem or request.vcores > node.cap_vcores:
                return False  # can never fit this node
        if node.queue_length + 1 <= node.queue_capacity:
            node.queue_length += 1  # overwritten by the node's next heartbeat
            return True
        return False

    def select_local_node(
        self, host: str, blacklist: Iterable[str], request: Resource | None = None
    ) -> NodeId | None:
        if host in set(blacklist):
            return None
        for node_id, node in self.cluster_nodes.items():
            if node_id.host == host:
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

    def __init__(self, sigma: float, minimum: int, maximum: int) -> None:
        if minimum > maximum:
            raise ConfigurationError(
                f"nm-container-queuing: min ({minimum}) must not exceed max ({maximum}) "
                f"({keys.NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH} / {keys.NM_CONTAINER_QUEUING_MAX_QUEUE_LENGTH})"
            )
        self.sigma = sigma
        self.minimum = minimum
        self.maximum = maximum
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


def _java_int_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q
