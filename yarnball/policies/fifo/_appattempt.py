"""The FifoScheduler's allocation: ``FifoScheduler.assignContainers`` and ``FifoAppAttempt.allocate`` over the
attempt's ask table (``AppSchedulingInfo``: one ``KeyAsks`` per scheduler key, its ANY ask and its host and rack
asks), and ``AppSchedulingInfo.updateResourceRequests`` for the AM's asks.

fair.md §7: for each application in id order (blacklisted nodes skipped), its scheduler keys in priority order; a key
with an outstanding ANY ask gets node-local, then rack-local, then off-switch containers on the node, each batch
``min(asked, unallocated memory // capability memory)``; a key that gets none ends the application's turn (lower keys
are not tried); the loop ends once the node has less than a minimum allocation of memory left.
"""

from __future__ import annotations

from yarnball.policies.capacity._allocator import _allocate
from yarnball.policies.capacity._context import SchedulerContext
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._state import (
    NODE_LOCAL,
    OFF_SWITCH,
    RACK_LOCAL,
    KeyAsks,
    SchedulerApp,
    SchedulerNode,
)

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
        # FifoAppAttempt.allocate: FiCaSchedulerApp.allocate's container, without a reservation to turn into it (the
        # FifoScheduler reserves nothing) and with no queue above its one leaf, which is never activated (so the AM
        # container's size is only recorded, not charged to an AM limit)
        _allocate(ctx, leaf, app, node, ka, locality, None, None)
    return max(n, 0)
