"""The FifoScheduler's allocation: ``FifoScheduler.assignContainers`` and ``FifoAppAttempt.allocate`` over the
attempt's ask table (``AppSchedulingInfo``: one ``KeyAsks`` per scheduler key, its ANY ask and its host and rack
asks), and ``AppSchedulingInfo.updateResourceRequests`` for the AM's asks.

fair.md §7: for each application in id order (blacklisted nodes skipped), its scheduler keys in priority order; a key
with an outstanding ANY ask gets node-local, then rack-local, then off-switch containers on the node, each batch
``min(asked, unallocated memory // capability memory)``; a key that gets none ends the application's turn (lower keys
are not tried); the loop ends once the node has less than a minimum allocation of memory left.
"""

from __future__ import annotations

from yarnball.policies.capacity._allocator import retire_key
from yarnball.policies.capacity._context import SchedulerContext
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._state import (
    ALLOCATED,
    LOCALITY_NAMES,
    NODE_LOCAL,
    OFF_SWITCH,
    RACK_LOCAL,
    KeyAsks,
    RMContainer,
    SchedulerApp,
    SchedulerNode,
)
from yarnball.policies.scheduler._notifications import ContainerAllocated
from yarnball.protocols import Container, ContainerId, Resource

__all__ = ["assign_containers"]


def _count(ka: KeyAsks, name: str) -> int:
    entry = ka.names.get(name)
    return entry[0] if entry is not None else 0


def assign_containers(
    ctx: SchedulerContext, leaf: LeafQueue, node: SchedulerNode, attempts: list[SchedulerApp]
) -> None:
    """``FifoScheduler.assignContainers`` without the headroom update (the caller's)."""
    for app in attempts:
        # SchedulerAppUtils.isPlaceBlacklisted: the node's host or rack on the attempt's blacklist
        if app.blacklist and (node.host in app.blacklist or node.rack in app.blacklist):
            continue
        for ka in list(app.keys_in_order()):
            # getMaxAllocatableContainers(OFF_SWITCH): the key's outstanding ANY count
            if ka.any_count > 0:
                assigned = _assign_on_node(ctx, leaf, node, app, ka)
                if assigned == 0:
                    break  # "Do not assign out of order w.r.t priorities"
        if node.unalloc_m < ctx.min_m:
            break  # Resources.lessThan(unallocated, minimumAllocation) under the DefaultResourceCalculator


def _assign_on_node(ctx: SchedulerContext, leaf: LeafQueue, node: SchedulerNode, app: SchedulerApp, ka: KeyAsks) -> int:
    """``assignContainersOnNode``: node-local, rack-local, off-switch; the number assigned."""
    n = 0
    # assignNodeLocalContainers: only if the rack still needs containers
    host_count = _count(ka, node.host)
    if host_count > 0 and _count(ka, node.rack) > 0:
        n += _assign(ctx, leaf, node, app, ka, min(ka.any_count, host_count), NODE_LOCAL)
    # assignRackLocalContainers: only if ANY still needs containers
    rack_count = _count(ka, node.rack)
    if rack_count > 0 and ka.any_count > 0:
        n += _assign(ctx, leaf, node, app, ka, min(ka.any_count, rack_count), RACK_LOCAL)
    # assignOffSwitchContainers (relaxLocality is not consulted)
    if ka.any_count > 0:
        n += _assign(ctx, leaf, node, app, ka, ka.any_count, OFF_SWITCH)
    return n


def _assign(
    ctx: SchedulerContext, leaf: LeafQueue, node: SchedulerNode, app: SchedulerApp, ka: KeyAsks, k: int, locality: int
) -> int:
    """``FifoScheduler.assignContainer``: ``min(k, unallocated memory // capability memory)`` containers (memory only,
    as Hadoop's), each allocated in turn (``FifoAppAttempt.allocate``)."""
    if ka.cap_m <= 0:
        return 0
    n = min(k, node.unalloc_m // ka.cap_m)
    for _ in range(max(n, 0)):
        _allocate(ctx, leaf, node, app, ka, locality)
    return max(n, 0)


def _allocate(
    ctx: SchedulerContext, leaf: LeafQueue, node: SchedulerNode, app: SchedulerApp, ka: KeyAsks, locality: int
) -> None:
    """``FifoAppAttempt.allocate`` + ``node.allocateContainer`` + ``increaseUsedResources``: a new container, the
    attempt's live containers and usage, ``AppSchedulingInfo.allocate``'s ask decrements (node-local: host, rack,
    ANY; rack-local: rack, ANY; off-switch: ANY) and the queue metrics."""
    cap_m, cap_v = ka.cap_m, ka.cap_v
    seq = app.next_seq
    app.next_seq = seq + 1
    cid = ContainerId(app.attempt_id, seq)
    rmc = RMContainer(cid, app, node, ka.key, ka.priority, cap_m, cap_v, ALLOCATED)
    ctx.containers[cid] = rmc
    leaf.user_used_changed(app.user, cap_m, cap_v)
    node.unalloc_m -= cap_m
    node.unalloc_v -= cap_v
    node.containers[cid] = rmc
    app.live[cid] = rmc
    app.used_m += cap_m
    app.used_v += cap_v
    leaf.used_m += cap_m
    leaf.used_v += cap_v
    leaf.num_containers += 1
    leaf.allocated_by_locality[locality] += 1
    leaf.pending_m -= cap_m
    leaf.pending_v -= cap_v
    names = ka.names
    if locality == NODE_LOCAL:
        _dec(names, node.host)
        _dec(names, node.rack)
    elif locality == RACK_LOCAL:
        _dec(names, node.rack)
    had = app.has_pending()
    ka.any_count -= 1
    app.pending_m -= cap_m
    app.pending_v -= cap_v
    if ka.any_count <= 0:
        retire_key(app, ka)
    if had and not app.has_pending():
        leaf.app_asks_changed(app, True, False)
    is_am = False
    if not app.am_running:
        # The attempt's first container is its AM container (AppSchedulingInfo's pending -> runAppAttempt).
        is_am = rmc.is_am = app.am_running = True
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


def _dec(names: dict[str, list], name: str) -> None:
    entry = names.get(name)
    if entry is not None:
        entry[0] -= 1
        if entry[0] <= 0:
            del names[name]
