"""Node placement policies: in which order the scheduler offers nodes to the pending requests.

Two policies sit behind one small interface (:class:`NodePlacementPolicy`):

- :class:`SpreadPlacement`, YARN's default: the node with the most available resource first, as FairScheduler's
  ``NodeAvailableResourceComparator`` sorts nodes for a continuous-scheduling attempt, so containers are spread
  evenly over every node that qualifies.
- :class:`PackingPlacement`, Qubole's container packing (blog post "Container Packing: A New Algorithm for Resource
  Scheduling in the Cloud", 2017, and the Qubole docs "Enabling Container Packing in Hadoop 2 and Spark"). Nodes are
  split into three sets by memory usage against ``HIGH_NODE_THRESHOLD``
  (``yarn.scheduler.fair.continuous-scheduling-packed.high.memory.threshold``, percent):

  * MEDIUM: nodes with containers whose usage is below the threshold; offered first, the most used first;
  * LOW: nodes with no container (and no reservation); offered next, in a seeded random order;
  * HIGH: nodes at or above the threshold; offered last, the least used first.

  Packing is switched off (the spread order is used) while the cluster has fewer than
  ``yarn.scheduler.fair.continuous-scheduling-packed.min.nodes`` nodes.

The policies are pure: they take node views (anything with ``node_id``, ``total_m``, ``unalloc_m``, ``unalloc_v``,
``containers`` and ``reserved``: the CapacityScheduler's ``SchedulerNode`` or a test double) and return them in
order. Locality is not their business: the scheduler still applies node-local / rack-local / off-switch rules and
delay scheduling to each node it is offered, so a request for a given host lands on that host whatever its category.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Sequence, Sized
from typing import Protocol, TypeVar

from yarnball.errors import ConfigurationError
from yarnball.protocols import Configuration, NodeId
from yarnball.protocols import keys as k

__all__ = [
    "NodeCategory",
    "NodePlacementPolicy",
    "PackingPlacement",
    "PlacementNode",
    "SpreadPlacement",
    "continuous_scheduling_settings",
    "memory_usage_percent",
    "order_names",
    "placement_from_conf",
]


class PlacementNode(Protocol):
    """What a placement policy reads of a node (``SchedulerNode`` satisfies it): read-only, so a node's own, narrower
    attribute types match."""

    @property
    def node_id(self) -> NodeId: ...
    @property
    def total_m(self) -> int: ...
    @property
    def unalloc_m(self) -> int: ...
    @property
    def unalloc_v(self) -> int: ...
    @property
    def containers(self) -> Sized: ...
    @property
    def reserved(self) -> object | None: ...


N = TypeVar("N", bound=PlacementNode)


class NodeCategory(enum.Enum):
    """Qubole's three node sets, in the order packing offers them."""

    MEDIUM = "MEDIUM"
    LOW = "LOW"
    HIGH = "HIGH"


def memory_usage_percent(node: PlacementNode) -> float:
    """Allocated memory as a percentage of the node's memory (0 for a node without memory)."""
    if node.total_m <= 0:
        return 0.0
    return (node.total_m - node.unalloc_m) * 100.0 / node.total_m


def _node_key(node: PlacementNode) -> tuple[str, int]:
    # Ties break on the node id, never on hash() or dict order, so the order is the same on every run.
    return (node.node_id.host, node.node_id.port)


class NodePlacementPolicy:
    """Orders nodes for the scheduler. Subclasses override :meth:`order`."""

    name = "spread"

    def packs(self, num_nodes: int) -> bool:
        """Whether this policy packs containers on a cluster of ``num_nodes`` nodes."""
        return False

    def order(self, nodes: Iterable[N]) -> list[N]:
        """The nodes in the order the scheduler should offer them to pending requests."""
        raise NotImplementedError


class SpreadPlacement(NodePlacementPolicy):
    """YARN's default: most available memory first, then most available vcores, then node id (an even spread)."""

    name = "spread"

    def order(self, nodes: Iterable[N]) -> list[N]:
        return sorted(nodes, key=lambda n: (-n.unalloc_m, -n.unalloc_v, _node_key(n)))


class PackingPlacement(NodePlacementPolicy):
    """Qubole's container packing: MEDIUM (most used first), LOW (seeded random), HIGH (least used first)."""

    name = "packing"

    def __init__(
        self,
        high_memory_threshold: float = k.DEFAULT_CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD,
        min_nodes: int = k.DEFAULT_CONTINUOUS_SCHEDULING_PACKED_MIN_NODES,
        *,
        seed: int = 0,
    ) -> None:
        if not 0 < high_memory_threshold <= 100:
            raise ConfigurationError(
                f"{k.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD} = {high_memory_threshold!r}: "
                "expected a percentage in (0, 100]"
            )
        if min_nodes < 0:
            raise ConfigurationError(
                f"{k.CONTINUOUS_SCHEDULING_PACKED_MIN_NODES} = {min_nodes!r}: expected a node count >= 0"
            )
        self.high_memory_threshold = float(high_memory_threshold)
        self.min_nodes = min_nodes
        self.seed = seed
        self._rng = random.Random(seed)
        self._spread = SpreadPlacement()

    def packs(self, num_nodes: int) -> bool:
        return num_nodes >= self.min_nodes

    def category(self, node: PlacementNode) -> NodeCategory:
        """The node's set. A node whose usage *reaches* the threshold is HIGH: with 10-container nodes and an 80%
        threshold this fills nodes to 8 containers (8, 8 and 4 for the seed's 20 requests); Qubole's docs say
        "greater than"."""
        if not node.containers and node.reserved is None and node.unalloc_m >= node.total_m:
            return NodeCategory.LOW
        if memory_usage_percent(node) >= self.high_memory_threshold:
            return NodeCategory.HIGH
        return NodeCategory.MEDIUM

    def categorize(self, nodes: Iterable[N]) -> dict[NodeCategory, list[N]]:
        """The nodes of each set, in the order packing offers them within the set."""
        sets: dict[NodeCategory, list[N]] = {c: [] for c in NodeCategory}
        for node in nodes:
            sets[self.category(node)].append(node)
        sets[NodeCategory.MEDIUM].sort(key=lambda n: (-memory_usage_percent(n), _node_key(n)))
        low = sets[NodeCategory.LOW]
        low.sort(key=_node_key)  # a stable starting order, then the seeded shuffle
        self._rng.shuffle(low)
        sets[NodeCategory.HIGH].sort(key=lambda n: (memory_usage_percent(n), _node_key(n)))
        return sets

    def order(self, nodes: Iterable[N]) -> list[N]:
        nodes = list(nodes)
        if not self.packs(len(nodes)):
            return self._spread.order(nodes)
        sets = self.categorize(nodes)
        return [*sets[NodeCategory.MEDIUM], *sets[NodeCategory.LOW], *sets[NodeCategory.HIGH]]


def placement_from_conf(conf: Configuration, *, seed: int = 0) -> NodePlacementPolicy:
    """The policy the configuration asks for; a bad value raises :class:`ConfigurationError` naming the key."""
    if not conf.get_bool(k.CONTINUOUS_SCHEDULING_PACKED, k.DEFAULT_CONTINUOUS_SCHEDULING_PACKED):
        return SpreadPlacement()
    key = k.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD
    threshold = conf.get_float(key, float(k.DEFAULT_CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD))
    if not 0 < threshold <= 100:
        raise ConfigurationError(f"{conf.location_of(key)}: property {key!r} = {conf.get(key)!r}: expected a "
                                 "percentage of node memory in (0, 100]")  # fmt: skip
    key = k.CONTINUOUS_SCHEDULING_PACKED_MIN_NODES
    min_nodes = conf.get_int(key, k.DEFAULT_CONTINUOUS_SCHEDULING_PACKED_MIN_NODES)
    if min_nodes < 0:
        raise ConfigurationError(
            f"{conf.location_of(key)}: property {key!r} = {conf.get(key)!r}: expected a node count >= 0"
        )
    return PackingPlacement(threshold, min_nodes, seed=seed)


def continuous_scheduling_settings(conf: Configuration) -> tuple[bool, int]:
    """``(enabled, sleep_ms)`` of FairScheduler's continuous scheduling, validated."""
    enabled = conf.get_bool(k.CONTINUOUS_SCHEDULING_ENABLED, k.DEFAULT_CONTINUOUS_SCHEDULING_ENABLED)
    key = k.CONTINUOUS_SCHEDULING_SLEEP_MS
    sleep_ms = conf.get_int(key, k.DEFAULT_CONTINUOUS_SCHEDULING_SLEEP_MS)
    if sleep_ms <= 0:
        # FairScheduler would spin without sleeping; in virtual time that never lets the clock advance.
        raise ConfigurationError(
            f"{conf.location_of(key)}: property {key!r} = {conf.get(key)!r}: expected a positive number of ms"
        )
    return enabled, sleep_ms


def order_names(policy: NodePlacementPolicy, nodes: Sequence[PlacementNode]) -> list[str]:
    """The hosts in the policy's order (a convenience for examples and tests)."""
    return [n.node_id.host for n in policy.order(nodes)]
