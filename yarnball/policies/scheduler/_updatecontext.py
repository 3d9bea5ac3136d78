"""Container updates in the scheduler's books: Hadoop's ``ContainerUpdateContext.swapContainer`` and
``AbstractYarnScheduler``'s handling of a decrease, over the scheduler's ``SchedulerContext``.

An increase or a promotion is allocated as a temporary container, which is then swapped into the container being
updated; a decrease takes effect at once. :class:`~yarnball.policies.scheduler._abstract.AbstractYarnScheduler`
offers them as its ``absorb_increase``, ``swap_promoted`` and ``decrease_container``.
"""

from __future__ import annotations

from yarnball.policies.capacity._allocator import release_container, resize_container
from yarnball.policies.capacity._context import SchedulerContext
from yarnball.policies.capacity._state import ACQUIRED, RESERVED, RUNNING, RMContainer
from yarnball.protocols import Container, ContainerId, Resource

__all__ = ["absorb_increase", "decrease_container", "swap_promoted"]


def absorb_increase(
    ctx: SchedulerContext, temp_id: ContainerId, target_id: ContainerId, version: int
) -> Container | None:
    """``SchedulerApplicationAttempt.pullNewlyUpdatedContainers`` for INCREASE_RESOURCE: the temporary container
    allocated for the increase is swapped into ``target_id`` (``ContainerUpdateContext.swapContainer``: the target
    grows by the temporary one's resource, which stays charged; the temporary one leaves the books without a
    completion) and the target gets ``version``. Returns the updated record, or None (nothing changed) when
    either is gone or they are on different nodes (the caller releases the temporary one)."""
    temp = ctx.containers.get(temp_id)
    target = ctx.containers.get(target_id)
    if (
        temp is None or target is None or temp.state == RESERVED or target.state == RESERVED
        or temp.node is not target.node or target.container is None
    ):  # fmt: skip
        return None
    dm, dv = temp.mem, temp.vc
    app = temp.app
    if temp.container is not None and temp.container in app.new_containers:
        app.new_containers.remove(temp.container)  # never handed to the AM
    release_container(ctx, temp)
    resize_container(ctx, target, dm, dv)
    return _updated(target, version)


def swap_promoted(ctx: SchedulerContext, temp_id: ContainerId, promoted: Container, *, running: bool) -> bool:
    """``SchedulerApplicationAttempt.pullNewlyUpdatedContainers`` for PROMOTE_EXECUTION_TYPE: the temporary
    GUARANTEED container allocated for a promotion becomes ``promoted`` (``ContainerUpdateContext.swapContainer``:
    the existing RMContainer takes the temporary one's execution type; the temporary one leaves the books as
    OPPORTUNISTIC, without a completion, so the queue and user keep the charge it made). From then on the
    scheduler holds the container as any GUARANTEED one (resize, demotion, release, preemption, node loss); its
    RMContainer is RUNNING if the NM has reported it running, else ACQUIRED (the AM holds it), as Hadoop's
    opportunistic RMContainer was. Returns False (nothing changed) if the temporary one is gone or on another
    node than ``promoted``."""
    rmc = ctx.containers.get(temp_id)
    if rmc is None or rmc.state == RESERVED or rmc.container is None or rmc.node.node_id != promoted.node_id:
        return False
    app = rmc.app
    node = rmc.node
    if rmc.container in app.new_containers:
        app.new_containers.remove(rmc.container)  # never handed to the AM
    del ctx.containers[temp_id]
    node.containers.pop(temp_id, None)
    app.live.pop(temp_id, None)
    cid = promoted.id
    rmc.cid = cid
    rmc.key = (promoted.priority.priority, promoted.allocation_request_id)
    rmc.priority = promoted.priority
    rmc.state = RUNNING if running else ACQUIRED
    rmc.container = promoted
    ctx.containers[cid] = rmc
    node.containers[cid] = rmc
    app.live[cid] = rmc
    return True


def decrease_container(
    ctx: SchedulerContext, container_id: ContainerId, resource: Resource, version: int
) -> Container | None:
    """``handleDecreaseRequests`` + ``swapContainer`` for DECREASE_RESOURCE: the container shrinks to
    ``resource`` (component-wise at most its size) at once, the difference is released, and it gets ``version``.
    Returns the updated record, or None if the container is not allocated."""
    rmc = ctx.containers.get(container_id)
    if rmc is None or rmc.state == RESERVED or rmc.container is None:
        return None
    mem = min(resource.memory_mb, rmc.mem)
    vc = min(resource.vcores, rmc.vc)
    resize_container(ctx, rmc, mem - rmc.mem, vc - rmc.vc)
    return _updated(rmc, version)


def _updated(rmc: RMContainer, version: int) -> Container:
    old = rmc.container
    assert old is not None
    container = Container(
        id=old.id,
        node_id=old.node_id,
        resource=Resource(rmc.mem, rmc.vc, old.resource.extended),
        priority=old.priority,
        execution_type=old.execution_type,
        allocation_request_id=old.allocation_request_id,
        version=version,
        node_http_address=old.node_http_address,
    )
    rmc.container = container
    return container
