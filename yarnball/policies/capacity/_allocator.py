"""Allocation inside one application: ``RegularContainerAllocator`` plus the commit (``accept``/``apply``).

capacity.md §5.2: scheduler keys in priority order; a pre-check (outstanding asks, headroom); delay scheduling with
missed-opportunity counters (node-local, then rack-local after ``node-locality-delay`` misses, then off-switch after
the locality wait factor or ``rack-locality-additional-delay``); and on a node without room, a reservation. The
commit is applied at once (synchronous scheduling), charging queue and user usage for allocations *and*
reservations (§2.1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yarnball.policies.capacity._context import (
    ASSIGN_SKIP_OTHER,
    ASSIGN_SKIP_QUEUE_LIMIT,
    CSAssignment,
    ResourceLimits,
    SchedulerContext,
)
from yarnball.policies.capacity._state import (
    ALLOCATED,
    LOCALITY_NAMES,
    NODE_LOCAL,
    OFF_SWITCH,
    RACK_LOCAL,
    RESERVED,
    KeyAsks,
    RMContainer,
    SchedulerApp,
    SchedulerNode,
)
from yarnball.policies.scheduler._notifications import ContainerAllocated, ContainerReserved
from yarnball.protocols import Container, ContainerId, Resource

if TYPE_CHECKING:
    from yarnball.policies.capacity._leaf import LeafQueue
    from yarnball.policies.capacity._queues import CSQueue

__all__ = ["assign_app", "assign_reserved", "charge", "release_container", "retire_key", "unreserve"]

# ContainerAllocation states that are not an allocation.
PRIORITY_SKIPPED = 1
APP_SKIPPED = 2
QUEUE_SKIPPED = 3
LOCALITY_SKIPPED = 4

_CSAssignmentOrState = CSAssignment | int


def charge(ctx: SchedulerContext, leaf: LeafQueue, app: SchedulerApp, dm: int, dv: int) -> None:
    """Queue (up to root) and user usage += (dm, dv): ``allocateResource`` / ``releaseResource``."""
    q: CSQueue | None = leaf
    while q is not None:
        q.used_m += dm
        q.used_v += dv
        q = q.parent
    leaf.user_used_changed(app.user, dm, dv)


def _chain_reserved(leaf: LeafQueue, dm: int, dv: int) -> None:
    q: CSQueue | None = leaf
    while q is not None:
        q.reserved_m += dm
        q.reserved_v += dv
        q = q.parent


def add_pending(leaf: LeafQueue, dm: int, dv: int) -> None:
    """Queue pending (up to root) += (dm, dv): ``incPendingResource`` / ``decPendingResource``."""
    q: CSQueue | None = leaf
    while q is not None:
        q.pending_m += dm
        q.pending_v += dv
        q = q.parent


def should_alloc_or_reserve(ctx: SchedulerContext, leaf: LeafQueue, app: SchedulerApp, ka: KeyAsks) -> bool:
    """``shouldAllocOrReserveNewContainer``: re-reservations slowly allow one more reservation (starvation)."""
    key = ka.key
    required = ka.any_count
    reserved = app.num_reserved.get(key, 0)
    starvation = 0
    if reserved > 0:
        rc = ctx.rc
        node_factor = rc.ratio(ka.cap_m, ka.cap_v, leaf.max_alloc_m, leaf.max_alloc_v)
        min_alloc_factor = rc.ratio(
            leaf.max_alloc_m - ctx.min_m, leaf.max_alloc_v - ctx.min_v, leaf.max_alloc_m, leaf.max_alloc_v
        )
        starvation = int((app.re_reservations.get(key, 0) / reserved) * (1.0 - min(node_factor, min_alloc_factor)))
    return starvation + required - reserved > 0


def assign_app(
    ctx: SchedulerContext, leaf: LeafQueue, app: SchedulerApp, node: SchedulerNode, limits: ResourceLimits
) -> CSAssignment:
    """``RegularContainerAllocator.assignContainers`` without a reserved container."""
    rc = ctx.rc
    dominant = rc.dominant
    looking = ctx.continue_looking
    keys = app.sorted_keys
    if keys is None:
        keys = app.keys_in_order()
    for ka in keys:
        # preCheckForNodeCandidateSet
        if ka.any_count <= 0:
            continue  # PRIORITY_SKIPPED
        if looking:
            hm = limits.headroom_m + app.reserved_m
            hv = limits.headroom_v + app.reserved_v
        else:
            if not should_alloc_or_reserve(ctx, leaf, app, ka):
                continue
            hm, hv = limits.headroom_m, limits.headroom_v
        # RegularContainerAllocator.checkHeadroom: Resources.fitsIn(required, headroom + unreservable), every resource
        # type (Hadoop 3.4; TestLeafQueue.testHeadroomCheckWithDRF: a vcore-rich headroom with too little memory does
        # not hold a memory-heavy ask, which a dominant-share comparison let through)
        if (not rc.fits_in(ka.cap_m, ka.cap_v, hm, hv)) if dominant else hm < ka.cap_m:
            return ASSIGN_SKIP_QUEUE_LIMIT  # QUEUE_SKIPPED: the queue's headroom cannot hold the ask
        # tryAllocateOnNode
        if app.blacklist and (node.host in app.blacklist or node.rack in app.blacklist):
            return ASSIGN_SKIP_OTHER
        key = ka.key
        opportunities = app.opportunities
        missed = opportunities.get(key, 0) + 1
        opportunities[key] = missed
        r = _assign_on_node(ctx, leaf, app, node, ka, limits, None, missed)
        if type(r) is CSAssignment:
            return r
        if r == PRIORITY_SKIPPED:
            # Don't count 'skipped nodes' as a scheduling opportunity!
            opportunities[key] -= 1
            continue
        if r == APP_SKIPPED:
            return ASSIGN_SKIP_OTHER
        if r == QUEUE_SKIPPED:
            return ASSIGN_SKIP_QUEUE_LIMIT
        # LOCALITY_SKIPPED: not reachable in practice (off-switch turns it into APP_SKIPPED)
        return CSAssignment(0, 0, OFF_SWITCH)
    return ASSIGN_SKIP_OTHER


def assign_reserved(ctx: SchedulerContext, leaf: LeafQueue, node: SchedulerNode) -> CSAssignment | None:
    """Try to turn the node's reservation into an allocation (or renew it, or drop it if no longer wanted)."""
    rmc = node.reserved
    assert rmc is not None
    app = rmc.app
    ka = app.keys.get(rmc.key)
    if ka is None or ka.any_count <= 0:
        # Excess reservation: the ask is gone, so the reservation is released (QUEUE_SKIPPED + excess).
        unreserve(ctx, rmc)
        return None
    limits = ResourceLimits(ctx.cluster_m, ctx.cluster_v)
    r = _assign_on_node(ctx, leaf, app, node, ka, limits, rmc, app.opportunities.get(ka.key, 0))
    return r if isinstance(r, CSAssignment) else None


def _assign_on_node(
    ctx: SchedulerContext,
    leaf: LeafQueue,
    app: SchedulerApp,
    node: SchedulerNode,
    ka: KeyAsks,
    limits: ResourceLimits,
    reserved: RMContainer | None,
    missed: int,
) -> _CSAssignmentOrState:
    """``assignContainersOnNode``: node-local, then rack-local, then off-switch, with delay scheduling.

    ``missed`` is the key's scheduling-opportunity count (unchanged here until something is allocated)."""
    names = ka.names
    if names:
        host_ask = names.get(node.host)
        rack_ask = names.get(node.rack)
        # RegularContainerAllocator.canAssign checks the rack before the host, for NODE_LOCAL as for RACK_LOCAL:
        # "Check if we need containers on this rack" (getOutstandingAsksCount(rack) <= 0 -> false). A host ask
        # whose rack has no outstanding ask is not allocated node-locally (it waits for off-switch).
        if host_ask is not None and host_ask[0] > 0 and rack_ask is not None and rack_ask[0] > 0:
            r = _assign_container(ctx, leaf, app, node, ka, limits, reserved, NODE_LOCAL)
            if type(r) is CSAssignment:
                return r
        if rack_ask is not None and rack_ask[0] > 0:
            if not rack_ask[1]:
                return PRIORITY_SKIPPED  # canDelayTo(rack) is false: relax_locality=False on the rack ask
            n, delay = ctx.num_nodes, ctx.node_locality_delay
            if n < delay:
                delay = n  # getActualNodeLocalityDelay: min(nodes, node-locality-delay)
            if delay < missed:
                r = _assign_container(ctx, leaf, app, node, ka, limits, reserved, RACK_LOCAL)
                if type(r) is CSAssignment:
                    return r
    any_count = ka.any_count
    if any_count > 0:
        if not ka.any_relax:
            return PRIORITY_SKIPPED
        # canAssign(OFF_SWITCH): a reserved container may always; no nodes, never; only an ANY ask, always;
        # else after enough missed opportunities.
        if reserved is None:
            n = ctx.num_nodes
            if n == 0:
                return APP_SKIPPED
            if names:
                if ctx.rack_additional_delay > -1:
                    if missed <= min(n, ctx.node_locality_delay + ctx.rack_additional_delay):
                        return APP_SKIPPED  # delayed: the whole app is skipped, lower-priority keys are not tried
                else:
                    wait_factor = len(names) / n  # (uniqueLocationAsks - 1) / nodes, at most 1
                    if wait_factor > 1.0:
                        wait_factor = 1.0
                    wait = any_count * wait_factor
                    if (wait if wait < n else n) >= missed:  # min(nodes, count x factor) >= missed
                        return APP_SKIPPED
        r = _assign_container(ctx, leaf, app, node, ka, limits, reserved, OFF_SWITCH)
        return APP_SKIPPED if r == LOCALITY_SKIPPED else r
    return PRIORITY_SKIPPED


def _assign_container(
    ctx: SchedulerContext,
    leaf: LeafQueue,
    app: SchedulerApp,
    node: SchedulerNode,
    ka: KeyAsks,
    limits: ResourceLimits,
    reserved: RMContainer | None,
    locality: int,
) -> _CSAssignmentOrState:
    """``assignContainer``: allocate if the node has room, else reserve (or renew the reservation)."""
    rc = ctx.rc
    cm, cv = ctx.cluster_m, ctx.cluster_v
    cap_m, cap_v = ka.cap_m, ka.cap_v
    if rc.dominant:
        if rc.compare(cm, cv, cap_m, cap_v, node.total_m, node.total_v) > 0:
            return LOCALITY_SKIPPED  # the node can never hold the ask
        should = should_alloc_or_reserve(ctx, leaf, app, ka)
        available = rc.available_containers(node.unalloc_m, node.unalloc_v, cap_m, cap_v)
        need_m, need_v = rc.max(
            cm, cv, cap_m - limits.headroom_m, cap_v - limits.headroom_v, limits.unres_m, limits.unres_v
        )
        need_unreserve = need_m > 0 or need_v > 0  # isAnyMajorResourceAboveZero
    else:
        # The same, memory only and inline (the calculator methods reduce to these comparisons).
        if cap_m > node.total_m:
            return LOCALITY_SKIPPED
        if ka.key in app.num_reserved:
            should = should_alloc_or_reserve(ctx, leaf, app, ka)
        else:
            should = ka.any_count > 0  # no reservation of this key: no starvation term
        available = node.unalloc_m // cap_m if cap_m else 1
        need_m = cap_m - limits.headroom_m
        if need_m < limits.unres_m:
            need_m, need_v = limits.unres_m, limits.unres_v
        else:
            need_v = cap_v - limits.headroom_v
        need_unreserve = need_m > 0
    if available > 0:
        to_unreserve = None
        if reserved is None and ctx.continue_looking and (not should or need_unreserve):
            if not need_unreserve:
                need_m, need_v = cap_m, cap_v
            to_unreserve = _find_reservation_to_drop(ctx, app, ka, need_m, need_v)
            if to_unreserve is None:
                return LOCALITY_SKIPPED
        a = _allocate(ctx, leaf, app, node, ka, locality, reserved, to_unreserve)
    else:
        if not (should or reserved is not None):
            return LOCALITY_SKIPPED
        if ctx.continue_looking and reserved is None and need_unreserve:
            return LOCALITY_SKIPPED
        a = _reserve(ctx, leaf, app, node, ka, locality, reserved)
    if reserved is None and locality != OFF_SWITCH and (locality == NODE_LOCAL or ctx.rack_full_reset):
        # Only when first allocated/reserved; off-switch never resets (so apps with many off-switch asks
        # keep their accumulated opportunities).
        app.opportunities[ka.key] = 0
    return a


def _find_reservation_to_drop(
    ctx: SchedulerContext, app: SchedulerApp, ka: KeyAsks, need_m: int, need_v: int
) -> RMContainer | None:
    """``findNodeToUnreserve``: the first reservation of this key at least as large as needed."""
    by_node = app.reserved.get(ka.key)
    if not by_node:
        return None
    for rmc in by_node.values():
        if ctx.rc.fits_in(need_m, need_v, rmc.mem, rmc.vc):
            return rmc
    return None


def _new_container_id(app: SchedulerApp) -> ContainerId:
    seq = app.next_seq
    app.next_seq = seq + 1
    return ContainerId(app.attempt_id, seq)  # (inlined in _allocate)


def _allocate(
    ctx: SchedulerContext,
    leaf: LeafQueue,
    app: SchedulerApp,
    node: SchedulerNode,
    ka: KeyAsks,
    locality: int,
    from_reserved: RMContainer | None,
    to_unreserve: RMContainer | None,
) -> CSAssignment:
    cap_m, cap_v = ka.cap_m, ka.cap_v
    if to_unreserve is not None:
        unreserve(ctx, to_unreserve)
    if from_reserved is not None:
        # The reservation becomes the container: usage was charged when it was reserved.
        rmc = from_reserved
        _drop_reservation(ctx, leaf, rmc)
        rmc.state = ALLOCATED
        cid = rmc.cid
    else:
        seq = app.next_seq
        app.next_seq = seq + 1
        cid = ContainerId(app.attempt_id, seq)
        rmc = RMContainer(cid, app, node, ka.key, ka.priority, cap_m, cap_v, ALLOCATED)
        # the user's part of charge(): LeafQueue.user_used_changed, inline
        user = app.user
        user.used_m += cap_m
        user.used_v += cap_v
        if user.apps_with_asks > 0:
            leaf.active_used_m += cap_m
            leaf.active_used_v += cap_v
        leaf.users_version += 1
        ctx.containers[cid] = rmc
    node.unalloc_m -= cap_m
    node.unalloc_v -= cap_v
    node.containers[cid] = rmc
    app.live[cid] = rmc
    app.used_m += cap_m
    app.used_v += cap_v
    # One walk up the queues: usage (charge(), unless the reservation was charged already), the container count
    # and the pending resource (decrement_asks' add_pending).
    q: CSQueue | None = leaf
    # AppSchedulingInfo.updateMetrics -> QueueMetrics.incrNodeTypeAggregations(user, type): the allocation's locality
    # is counted in the leaf's metrics and every parent's.
    if from_reserved is None:
        while q is not None:
            q.used_m += cap_m
            q.used_v += cap_v
            q.num_containers += 1
            q.allocated_by_locality[locality] += 1
            q.pending_m -= cap_m
            q.pending_v -= cap_v
            q = q.parent
    else:
        while q is not None:
            q.num_containers += 1
            q.allocated_by_locality[locality] += 1
            q.pending_m -= cap_m
            q.pending_v -= cap_v
            q = q.parent
    # decrement_asks(chain=False), inline
    if locality == NODE_LOCAL:
        names = ka.names
        _dec_name(names, node.host)
        _dec_name(names, node.rack)
    elif locality == RACK_LOCAL:
        _dec_name(ka.names, node.rack)
    had = app.pending_m > 0 or app.pending_v > 0
    ka.any_count -= 1
    app.pending_m -= cap_m
    app.pending_v -= cap_v
    if ka.any_count <= 0:
        retire_key(app, ka)
    if had and not (app.pending_m > 0 or app.pending_v > 0):
        leaf.app_asks_changed(app, True, False)
    is_am = False
    if not app.am_running:
        # The attempt's first container is its AM container (isAmRunning / amResource in Hadoop).
        is_am = rmc.is_am = app.am_running = True
        if app.is_active and (app.am_m != cap_m or app.am_v != cap_v):
            dm, dv = cap_m - app.am_m, cap_v - app.am_v
            leaf.am_used_m += dm
            leaf.am_used_v += dv
            app.user.am_used_m += dm
            app.user.am_used_v += dv
        app.am_m, app.am_v = cap_m, cap_v
    container = Container(
        id=cid,  # type: ignore[arg-type]
        node_id=node.node_id,
        resource=ka.resource or Resource(cap_m, cap_v),
        priority=ka.priority,
        allocation_request_id=ka.request_id,
    )
    rmc.container = container
    app.new_containers.append(container)
    ctx.outbox.append(ContainerAllocated(app.attempt_id, container, is_am, LOCALITY_NAMES[locality]))
    if leaf.fair:
        leaf.fair_dirty = True
    return CSAssignment(cap_m, cap_v, locality)


def _reserve(
    ctx: SchedulerContext,
    leaf: LeafQueue,
    app: SchedulerApp,
    node: SchedulerNode,
    ka: KeyAsks,
    locality: int,
    reserved: RMContainer | None,
) -> CSAssignment:
    key = ka.key
    if reserved is not None:
        app.re_reservations[key] = app.re_reservations.get(key, 0) + 1  # addReReservation
        return CSAssignment(ka.cap_m, ka.cap_v, locality, reserved=True)
    cid = _new_container_id(app)
    rmc = RMContainer(cid, app, node, key, ka.priority, ka.cap_m, ka.cap_v, RESERVED)
    node.reserved = rmc
    app.reserved.setdefault(key, {})[node.node_id] = rmc
    app.num_reserved[key] = app.num_reserved.get(key, 0) + 1
    app.re_reservations[key] = 0  # resetReReservations
    app.reserved_m += ka.cap_m
    app.reserved_v += ka.cap_v
    _chain_reserved(leaf, ka.cap_m, ka.cap_v)
    charge(ctx, leaf, app, ka.cap_m, ka.cap_v)  # a reservation counts as queue and user usage
    ctx.containers[cid] = rmc
    ctx.outbox.append(ContainerReserved(app.attempt_id, node.node_id, Resource(ka.cap_m, ka.cap_v)))
    return CSAssignment(ka.cap_m, ka.cap_v, locality, reserved=True)


def _drop_reservation(ctx: SchedulerContext, leaf: LeafQueue, rmc: RMContainer) -> None:
    app = rmc.app
    node = rmc.node
    if node.reserved is rmc:
        node.reserved = None
    by_node = app.reserved.get(rmc.key)
    if by_node is not None:
        by_node.pop(node.node_id, None)
        if not by_node:
            del app.reserved[rmc.key]
    n = app.num_reserved.get(rmc.key, 0) - 1
    if n > 0:
        app.num_reserved[rmc.key] = n
    else:
        app.num_reserved.pop(rmc.key, None)
    app.reserved_m -= rmc.mem
    app.reserved_v -= rmc.vc
    _chain_reserved(leaf, -rmc.mem, -rmc.vc)


def unreserve(ctx: SchedulerContext, rmc: RMContainer) -> None:
    """Cancel a reservation (``app.unreserve`` + ``releaseResource``)."""
    leaf = rmc.app.queue
    _drop_reservation(ctx, leaf, rmc)
    charge(ctx, leaf, rmc.app, -rmc.mem, -rmc.vc)
    ctx.containers.pop(rmc.cid, None)


def release_container(ctx: SchedulerContext, rmc: RMContainer) -> None:
    """Free an allocated container's resources on its node, app, queues and user (``completedContainer``)."""
    app = rmc.app
    leaf = app.queue
    node = rmc.node
    cid = rmc.cid
    if node.containers.pop(cid, None) is not None:
        node.unalloc_m += rmc.mem
        node.unalloc_v += rmc.vc
    app.live.pop(cid, None)
    app.used_m -= rmc.mem
    app.used_v -= rmc.vc
    if app.preempt:
        app.unmark_preempted(cid)
    ctx.containers.pop(cid, None)
    # charge(-resource) and the container count, in one walk up the queues
    mem, vc = rmc.mem, rmc.vc
    q: CSQueue | None = leaf
    while q is not None:
        q.used_m -= mem
        q.used_v -= vc
        q.num_containers -= 1
        q = q.parent
    # LeafQueue.user_used_changed(user, -mem, -vc), inline
    user = app.user
    user.used_m -= mem
    user.used_v -= vc
    if user.apps_with_asks > 0:
        leaf.active_used_m -= mem
        leaf.active_used_v -= vc
    leaf.users_version += 1
    if leaf.fair:
        leaf.fair_dirty = True


def resize_container(ctx: SchedulerContext, rmc: RMContainer, dm: int, dv: int) -> None:
    """Change an allocated container's resource by ``(dm, dv)`` on its node, application, queues and user: the effect
    of ``ContainerUpdateContext.swapContainer`` (an increase keeps the temporary container's resources, a decrease
    releases the difference). The container count does not change."""
    node = rmc.node
    if rmc.cid in node.containers:
        node.unalloc_m -= dm
        node.unalloc_v -= dv
    rmc.mem += dm
    rmc.vc += dv
    app = rmc.app
    app.used_m += dm
    app.used_v += dv
    leaf = app.queue
    charge(ctx, leaf, app, dm, dv)
    if leaf.fair:
        leaf.fair_dirty = True


def decrement_asks(
    leaf: LeafQueue, app: SchedulerApp, ka: KeyAsks, node: SchedulerNode, locality: int, *, chain: bool = True
) -> None:
    """``LocalityAppPlacementAllocator.allocate``: node-local takes host, rack and ANY; rack-local rack and ANY.
    ``chain=False``: the caller has already lowered the queues' pending resource."""
    names = ka.names
    if locality == NODE_LOCAL:
        _dec_name(names, node.host)
        _dec_name(names, node.rack)
    elif locality == RACK_LOCAL:
        _dec_name(names, node.rack)
    had = app.pending_m > 0 or app.pending_v > 0
    ka.any_count -= 1
    app.pending_m -= ka.cap_m
    app.pending_v -= ka.cap_v
    if chain:
        add_pending(leaf, -ka.cap_m, -ka.cap_v)
    if ka.any_count <= 0:
        retire_key(app, ka)
    if had and not (app.pending_m > 0 or app.pending_v > 0):
        leaf.app_asks_changed(app, True, False)


def retire_key(app: SchedulerApp, ka: KeyAsks) -> None:
    """The key's ANY count reached 0: ``LocalityAppPlacementAllocator.decrementOutstanding`` removes the scheduler key
    and the ANY ask, and drops the placement allocator only when no host or rack ask is left (they stay, with their
    counts, until the AM updates them: see ``SchedulerApp.idle_keys``)."""
    ka.any_count = 0
    del app.keys[ka.key]
    app.sorted_keys = None
    if ka.names:
        app.idle_keys[ka.key] = ka


def _dec_name(names: dict[str, list], name: str) -> None:
    entry = names.get(name)
    if entry is not None:
        entry[0] -= 1
        if entry[0] <= 0:
            del names[name]
