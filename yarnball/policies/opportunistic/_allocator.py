"""Opportunistic container allocation: outstanding asks and the centralized and distributed allocators.

Mirrors ``OpportunisticContainerContext`` (opportunistic.md §6.2), ``CentralizedOpportunisticContainerAllocator``
(§6.3) and ``DistributedOpportunisticContainerAllocator`` (§7.2). The allocators return placements (node, location,
normalized capability, request key); the actor glue turns them into containers with ids.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from yarnball.protocols import ANY, ExecutionType, NodeId, Priority, Resource, ResourceRequest

__all__ = [
    "CentralizedOpportunisticContainerAllocator",
    "DistributedOpportunisticContainerAllocator",
    "OpportunisticContainerContext",
    "Placement",
    "normalize",
    "partition_asks",
]

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
    """``EnrichedResourceRequest``: the ANY ask plus its node and rack locations."""

    __slots__ = ("nodes", "num_containers", "priority", "racks", "request_id", "resource")

    def __init__(self, ask: ResourceRequest) -> None:
        self.priority = ask.priority
        self.request_id = ask.allocation_request_id
        self.resource = ask.capability
        self.num_containers = 0
        self.nodes: dict[str, int] = {}
        self.racks: dict[str, int] = {}


class OpportunisticContainerContext:
    """One application attempt's outstanding opportunistic asks and blacklist."""

    def __init__(self) -> None:
        self.outstanding: dict[RequestKey, dict[CapKey, _Enriched]] = {}
        self.blacklist: set[str] = set()
        self.nodes: list[tuple[NodeId, str]] = []  # the node list for distributed allocation: (node, rack)

    def update_blacklist(self, additions: Iterable[str], removals: Iterable[str]) -> None:
        self.blacklist.difference_update(removals)
        self.blacklist.update(additions)

    def add_to_outstanding(self, asks: Iterable[ResourceRequest]) -> None:
        """``addToOutstandingReqs``: ANY asks set the count; node/rack asks set locations (0 removes)."""
        for ask in asks:
            key = (ask.priority.priority, ask.allocation_request_id)
            caps = self.outstanding.setdefault(key, {})
            cap = (ask.capability.memory_mb, ask.capability.vcores)
            e = caps.get(cap)
            if e is None:
                e = caps[cap] = _Enriched(ask)
            if ask.resource_name == ANY:
                e.num_containers = ask.num_containers
            else:
                where = e.racks if ask.resource_name.startswith("/") else e.nodes
                if ask.num_containers <= 0:
                    where.pop(ask.resource_name, None)
                else:
                    where[ask.resource_name] = ask.num_containers
            if e.num_containers <= 0 and not e.nodes and not e.racks:
                del caps[cap]
                if not caps:
                    del self.outstanding[key]

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
            e.num_containers -= 1
            if e.num_containers <= 0:
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
        return sum(e.num_containers for caps in self.outstanding.values() for e in caps.values())


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
            remaining = -1
            if self.max_per_heartbeat > 0:
                remaining = self.max_per_heartbeat - len(out)
                if remaining <= 0:
                    break
            for cap, e in list(ctx.outstanding[key].items()):
                to_alloc = e.num_containers
                if remaining >= 0:
                    to_alloc = min(remaining - sum(1 for p in out if _key(p) == key), to_alloc)
                    if to_alloc <= 0:
                        break
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
        ctx.match(out, asked)
        return out


def _key(p: Placement) -> RequestKey:
    return (p.priority.priority, p.allocation_request_id)


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
                remaining = -1
                if self.max_per_heartbeat > 0:
                    remaining = self.max_per_heartbeat - len(out) - len(round_out)
                    if remaining <= 0:
                        break
                for cap, e in list(ctx.outstanding.get(key, {}).items()):
                    # maxAllocationsPerSchedulerKeyPerRound is 1 in Hadoop.
                    to_alloc = min(e.num_containers, 1, remaining if remaining >= 0 else 1)
                    placed = self._one(ctx, e, to_alloc, used_hosts)
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
        for loop in loops:
            if loop == "rack" and not e.racks:
                continue
            for node_id, rack in ctx.nodes:
                host = node_id.host
                if host in ctx.blacklist:
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
