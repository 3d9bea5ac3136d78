"""Opportunistic container allocation: outstanding asks and the centralized and distributed allocators.

Mirrors ``OpportunisticContainerContext`` (opportunistic.md §6.2), ``CentralizedOpportunisticContainerAllocator``
(§6.3) and ``DistributedOpportunisticContainerAllocator`` (§7.2). The allocators return placements (node, location,
normalized capability, request key); the actor glue turns them into containers with ids.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from yarnball.policies.opportunistic._metrics import OpportunisticSchedulerMetrics
from yarnball.protocols import ANY, ExecutionType, NodeId, Priority, RemoteNode, Resource, ResourceRequest

__all__ = [
    "CentralizedOpportunisticContainerAllocator",
    "DistributedOpportunisticContainerAllocator",
    "OpportunisticContainerContext",
    "Placement",
    "normalize",
    "partition_asks",
]

NO_LABEL = ""  # CommonNodeLabelsManager.NO_LABEL
RequestKey = tuple[int, int]  # SchedulerRequestKey: (priority, allocation_request_id)
CapKey = tuple[int, int]  # (memory_mb, vcores)


@dataclass(frozen=True, slots=True)
class Placement:
    """One opportunistic container to create: where, how big, for which request."""

    node_id: NodeId
    location: str  # host, rack or "*": what the outstanding ask is matched against
    resource: Resource
    priority: Priority
    allocation_request_id: int


def partition_asks(asks: Iterable[ResourceRequest]) -> tuple[list[ResourceRequest], list[ResourceRequest]]:
    """``partitionAskList``: (guaranteed, opportunistic) by the ask's ExecutionTypeRequest."""
    guaranteed: list[ResourceRequest] = []
    opportunistic: list[ResourceRequest] = []
    for ask in asks:
        if ask.execution_type_request.execution_type is ExecutionType.OPPORTUNISTIC:
            opportunistic.append(ask)
        else:
            guaranteed.append(ask)
    return guaranteed, opportunistic


def normalize(ask: Resource, minimum: Resource, maximum: Resource, increment: Resource) -> Resource:
    """``Resources.normalize`` with the DominantResourceCalculator, per resource type."""

    def one(v: int, lo: int, hi: int, step: int) -> int:
        v = max(v, lo)
        if step:
            v = math.ceil(v / step) * step
        return min(v, hi)

    return Resource(
        one(ask.memory_mb, minimum.memory_mb, maximum.memory_mb, increment.memory_mb),
        one(ask.vcores, minimum.vcores, maximum.vcores, increment.vcores),
    )


class _Enriched:
    """``EnrichedResourceRequest``: the ANY ask plus its node and rack locations.

    Hadoop wraps the FIRST ask it sees for the (key, capability), whatever its resource name: the container count is
    that ask's until an ANY ask sets it (``OpportunisticContainerContext.addToOutstandingReqs`` calls
    ``setNumContainers`` on ANY asks only), and the partition is that ask's node label expression
    (``OpportunisticContainerAllocator.getRequestPartition``). So asks naming only hosts or racks are allocated."""

    __slots__ = ("nodes", "num_containers", "partition", "priority", "racks", "request_id", "resource", "timestamp")

    def __init__(self, ask: ResourceRequest, timestamp: float = 0.0) -> None:
        self.timestamp = timestamp  # EnrichedResourceRequest.timestamp: when it was created (for the latency metric)
        self.priority = ask.priority
        self.request_id = ask.allocation_request_id
        self.resource = ask.capability
        self.num_containers = ask.num_containers
        self.partition = ask.node_label_expression or NO_LABEL
        self.nodes: dict[str, int] = {}
        self.racks: dict[str, int] = {}


class OpportunisticContainerContext:
    """One application attempt's outstanding opportunistic asks and blacklist."""

    def __init__(self) -> None:
        self.outstanding: dict[RequestKey, dict[CapKey, _Enriched]] = {}
        self.blacklist: set[str] = set()
        self.nodes: list[tuple[NodeId, str]] = []  # the node list for distributed allocation: (node, rack)
        # host -> node partition of the node list (RemoteNode.getNodePartition); a host not in it is NO_LABEL
        self.partitions: dict[str, str] = {}
        # The RM's OpportunisticSchedulerMetrics (none for an NM's context) and the simulated time of this allocate.
        self.metrics: OpportunisticSchedulerMetrics | None = None
        self.now_ms = 0.0
        self._node_source: object = None  # the last list handed to update_node_list

    def update_node_list(self, nodes: Iterable[RemoteNode]) -> None:
        """``updateNodeList``: the least-loaded nodes the RM handed out, with their racks and partitions."""
        if nodes is self._node_source:
            return  # the same (cached) list as last time: nothing to rebuild
        self._node_source = nodes
        nodes = list(nodes)
        self.nodes = [(n.node_id, n.rack_name) for n in nodes]
        self.partitions = {n.node_id.host: n.node_partition for n in nodes if n.node_partition}

    def update_blacklist(self, additions: Iterable[str], removals: Iterable[str]) -> None:
        self.blacklist.difference_update(removals)
        self.blacklist.update(additions)

    def add_to_outstanding(self, asks: Iterable[ResourceRequest]) -> None:
        """``addToOutstandingReqs``: the first ask of a (key, capability) sets the count, ANY asks set it after; node
        and rack asks set locations (``EnrichedResourceRequest.addLocation``: a count of 0 removes). Like Hadoop, an
        entry stays (count 0) until an allocation uses its last container: a later host or rack ask alone does not
        revive it."""
        for ask in asks:
            key = (ask.priority.priority, ask.allocation_request_id)
            caps = self.outstanding.setdefault(key, {})
            cap = (ask.capability.memory_mb, ask.capability.vcores)
            e = caps.get(cap)
            if e is None:
                e = caps[cap] = _Enriched(ask, self.now_ms)
            if ask.resource_name == ANY:
                e.num_containers = ask.num_containers
            else:
                where = e.racks if ask.resource_name.startswith("/") else e.nodes
                if ask.num_containers == 0:
                    where.pop(ask.resource_name, None)
                else:
                    where[ask.resource_name] = ask.num_containers

    def keys_descending(self) -> list[RequestKey]:
        """``outstandingOpReqs.descendingKeySet()``: highest priority number first, then highest request id."""
        return sorted(self.outstanding, reverse=True)

    def match(self, placements: Sequence[Placement], asked: dict[int, CapKey]) -> None:
        """``matchAllocationToOutstandingRequest``: decrement counts and locations of what was placed."""
        for i, p in enumerate(placements):
            key = (p.priority.priority, p.allocation_request_id)
            caps = self.outstanding.get(key)
            if caps is None:
                continue
            cap = asked[i]
            e = caps.get(cap)
            if e is None:
                continue
            if self.metrics is not None:
                self.metrics.add_allocate_o_latency_entry(int(self.now_ms - e.timestamp))
            e.num_containers -= 1
            if e.num_containers == 0:
                del caps[cap]
                if not caps:
                    del self.outstanding[key]
            elif p.location != ANY:
                where = e.racks if p.location.startswith("/") else e.nodes
                if p.location in where:
                    where[p.location] -= 1
                    if where[p.location] <= 0:
                        del where[p.location]

    @property
    def pending(self) -> int:
        return sum(max(e.num_containers, 0) for caps in self.outstanding.values() for e in caps.values())


Normalizer = Callable[[Resource], Resource]


class CentralizedOpportunisticContainerAllocator:
    """RM-side allocation over the NodeQueueLoadMonitor (node-local, then rack-local, then any node)."""

    def __init__(self, monitor: object, max_per_heartbeat: int) -> None:
        self.monitor = monitor
        self.max_per_heartbeat = max_per_heartbeat

    def allocate(
        self,
        ctx: OpportunisticContainerContext,
        asks: Sequence[ResourceRequest],
        normalizer: Normalizer,
        blacklist_additions: Iterable[str] = (),
        blacklist_removals: Iterable[str] = (),
    ) -> list[Placement]:
        ctx.update_blacklist(blacklist_additions, blacklist_removals)
        ctx.add_to_outstanding(asks)
        monitor = self.monitor
        out: list[Placement] = []
        asked: dict[int, CapKey] = {}
        for key in ctx.keys_descending():
            # CentralizedOpportunisticContainerAllocator.allocateContainers / allocatePerSchedulerKey
            rem_allocs = -1
            if self.max_per_heartbeat > 0:
                rem_allocs = self.max_per_heartbeat - len(out)
                if rem_allocs <= 0:
                    break
            key_allocated = 0
            for cap, e in list(ctx.outstanding[key].items()):
                to_alloc = e.num_containers
                if rem_allocs > 0:
                    remaining = rem_allocs - key_allocated
                    if remaining <= 0:
                        break  # "Not allocating more containers as max allocations per AM heartbeat has reached"
                    to_alloc = min(remaining, to_alloc)
                if to_alloc <= 0:
                    continue
                before = len(out)
                resource = normalizer(e.resource)
                done = 0

                def place(
                    node_id: NodeId, location: str, cap: CapKey = cap, resource: Resource = resource, e: _Enriched = e
                ) -> None:
                    asked[len(out)] = cap
                    out.append(Placement(node_id, location, resource, e.priority, e.request_id))

                for host, count in list(e.nodes.items()):
                    for _ in range(min(count, to_alloc - done)):
                        node = monitor.select_local_node(host, ctx.blacklist, resource)  # type: ignore[attr-defined]
                        if node is None:
                            break
                        place(node, host)
                        done += 1
                    if done >= to_alloc:
                        break
                for rack, count in list(e.racks.items()):
                    if done >= to_alloc:
                        break
                    for _ in range(min(count, to_alloc - done)):
                        node = monitor.select_rack_local_node(rack, ctx.blacklist, resource)  # type: ignore[attr-defined]
                        if node is None:
                            break
                        place(node, rack)
                        done += 1
                while done < to_alloc:
                    node = monitor.select_any_node(ctx.blacklist, resource)  # type: ignore[attr-defined]
                    if node is None:
                        break
                    place(node, ANY)
                    done += 1
                key_allocated += len(out) - before
        ctx.match(out, asked)
        return out


class DistributedOpportunisticContainerAllocator:
    """NM-side allocation over the least-loaded node list the RM handed out (at most one container per node per
    call, except node-local; containers go to the head of the list first)."""

    def __init__(self, max_per_heartbeat: int) -> None:
        self.max_per_heartbeat = max_per_heartbeat

    def allocate(
        self,
        ctx: OpportunisticContainerContext,
        asks: Sequence[ResourceRequest],
        normalizer: Normalizer,
        blacklist_additions: Iterable[str] = (),
        blacklist_removals: Iterable[str] = (),
    ) -> list[Placement]:
        ctx.update_blacklist(blacklist_additions, blacklist_removals)
        ctx.add_to_outstanding(asks)
        out: list[Placement] = []
        asked: dict[int, CapKey] = {}
        used_hosts: set[str] = set()
        if not ctx.nodes:
            return out  # "No nodes currently available to allocate OPPORTUNISTIC containers."
        again = True
        while again:
            again = False
            round_out: list[Placement] = []
            round_asked: dict[int, CapKey] = {}
            for key in ctx.keys_descending():
                # DistributedOpportunisticContainerAllocator.allocateContainers / allocate: the limit is checked per
                # scheduler key, then per EnrichedResourceRequest against what this key got in this round.
                rem_allocs = -1
                if self.max_per_heartbeat > 0:
                    rem_allocs = self.max_per_heartbeat - len(out) - len(round_out)
                    if rem_allocs <= 0:
                        break
                key_allocated = 0
                for cap, e in list(ctx.outstanding.get(key, {}).items()):
                    # allocateContainersInternal: maxAllocationsPerSchedulerKeyPerRound is 1 in Hadoop.
                    to_alloc = min(e.num_containers, 1)
                    if rem_allocs > 0:
                        remaining = rem_allocs - key_allocated
                        if remaining <= 0:
                            break
                        to_alloc = min(remaining, to_alloc)
                    placed = self._one(ctx, e, to_alloc, used_hosts)
                    key_allocated += len(placed)
                    for node_id, location in placed:
                        round_asked[len(round_out)] = cap
                        round_out.append(Placement(node_id, location, normalizer(e.resource), e.priority, e.request_id))
                        again = True
            ctx.match(round_out, round_asked)
            base = len(out)
            for i in range(len(round_out)):
                asked[base + i] = round_asked[i]
            out.extend(round_out)
        return out

    def _one(
        self, ctx: OpportunisticContainerContext, e: _Enriched, to_alloc: int, used_hosts: set[str]
    ) -> list[tuple[NodeId, str]]:
        placed: list[tuple[NodeId, str]] = []
        if to_alloc <= 0:
            return placed
        loops = ["node", "rack", "any"] if e.nodes else ["any"]
        partitions = ctx.partitions
        for loop in loops:
            if loop == "rack" and not e.racks:
                continue
            for node_id, rack in ctx.nodes:
                host = node_id.host
                if host in ctx.blacklist:
                    continue
                # findNodeCandidates: only nodes whose partition is the request's (getRequestPartition, NO_LABEL
                # for no expression, against getRemoteNodePartition)
                if partitions.get(host, NO_LABEL) != e.partition:
                    continue
                if loop == "node":
                    if host not in e.nodes:
                        continue
                    location = host
                elif host in used_hosts:
                    continue
                elif loop == "rack":
                    if rack not in e.racks:
                        continue
                    location = rack
                else:
                    location = ANY
                placed.append((node_id, location))
                used_hosts.add(host)
                if len(placed) >= to_alloc:
                    return placed
        return placed
