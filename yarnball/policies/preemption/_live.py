"""Snapshots of a live :class:`~yarnball.policies.capacity.CapacityScheduler` for the preemption policy.

This is ``ProportionalCapacityPreemptionPolicy.cloneQueues`` (preemption.md §3) for the default partition, read
from the scheduler's own state: every queue's effective min/max resources (the guaranteed and maximum the policy
uses), used and reserved resources, the ``disable_preemption`` setting with Hadoop's inheritance, each leaf's
AM-resource percent, and each leaf's pending resources *considering the user limit*
(``LeafQueue.getTotalPendingResourcesConsideringUserLimit``: per active application ``min(app pending, what is
left of its user's headroom)``, the headroom shared by the user's applications in ordering-policy order).

Applications are the leaves' active (schedulable) attempts, as the policy's preemption iterator only walks
those; their containers are the live ones plus reservations, with the container sequence number as
``start_order`` ("newest first" = highest container id, as Hadoop compares container ids). The returned
:class:`LiveSnapshot` also maps each container id string back to its attempt and ``Container`` record, so the
monitor can turn the policy's decisions into ``ContainerPreemptEvent``\\ s.
"""

from __future__ import annotations

from collections.abc import Mapping

from yarnball.policies.capacity import CapacityScheduler, LeafQueue, SchedulerApp
from yarnball.policies.capacity._queues import CSQueue
from yarnball.policies.capacity._state import RESERVED, RMContainer
from yarnball.policies.preemption._snapshot import AppSnapshot, ClusterSnapshot, ContainerSnapshot, QueueSnapshot
from yarnball.protocols import ApplicationAttemptId, Container, Resource
from yarnball.protocols import keys as k

__all__ = ["LiveSnapshot", "snapshot_from_scheduler"]

# Configuration prefixes the policy reads each round (preemption.md §1): the monitor keys, the policy's keys and
# the capacity-scheduler keys (lazy preemption, calculator, AM percent, per-queue settings).
_CONFIG_PREFIXES = ("yarn.resourcemanager.scheduler.monitor.", k.PREEMPTION_CONFIG_PREFIX, k.CS_PREFIX)


class LiveSnapshot:
    """A :class:`ClusterSnapshot` plus the way back from its container ids to the scheduler's records."""

    __slots__ = ("containers", "snapshot")

    def __init__(self, snapshot: ClusterSnapshot, containers: dict[str, tuple[ApplicationAttemptId, Container]]):
        self.snapshot = snapshot
        self.containers = containers


def snapshot_from_scheduler(
    scheduler: CapacityScheduler, config: Mapping[str, str | int | float | bool] | None = None
) -> LiveSnapshot:
    """Snapshot ``scheduler`` for one policy round; ``config`` (default: the scheduler's own preemption and
    capacity-scheduler keys) is carried in the snapshot, as Hadoop re-reads the configuration every round."""
    if config is None:
        conf = scheduler.conf.conf
        config = {key: conf.get(key) or "" for key in conf.keys() if key.startswith(_CONFIG_PREFIXES)}
    queues: list[QueueSnapshot] = []
    apps: list[AppSnapshot] = []
    index: dict[str, tuple[ApplicationAttemptId, Container]] = {}

    def visit(q: CSQueue, inherited_disabled: bool) -> None:
        # AbstractCSQueue.isQueueHierarchyPreemptionDisabled: root defaults to false, others inherit.
        disabled = scheduler.conf.get_preemption_disabled(q.path, inherited_disabled)
        pending = Resource()
        am_percent: float | None = None
        if isinstance(q, LeafQueue):
            pending = _pending_considering_user_limit(scheduler, q)
            am_percent = q.max_am_percent
            for app in q.active:
                apps.append(_app_snapshot(app, q.path, index))
        queues.append(
            QueueSnapshot(
                path=q.path,
                absolute_capacity=q.abs_cap,
                absolute_maximum_capacity=q.abs_max,
                guaranteed=Resource(q.eff_min_m, q.eff_min_v),
                maximum=Resource(q.eff_max_m, q.eff_max_v),
                used=Resource(q.used_m, q.used_v),
                pending=pending,
                reserved=Resource(q.reserved_m, q.reserved_v),
                preemption_disabled=disabled,
                maximum_am_resource_percent=am_percent,
            )
        )
        for child in q.children:
            visit(child, disabled)

    visit(scheduler.root, False)
    snapshot = ClusterSnapshot(
        cluster=scheduler.cluster_resource, config=dict(config), queues=tuple(queues), applications=tuple(apps)
    )
    return LiveSnapshot(snapshot, index)


def _pending_considering_user_limit(scheduler: CapacityScheduler, leaf: LeafQueue) -> Resource:
    """``getTotalPendingResourcesConsideringUserLimit(cluster, "", false)``."""
    ctx = scheduler._ctx  # read-only: the live cluster numbers the user limit needs
    headroom: dict[str, list[int]] = {}
    total_m = total_v = 0
    for app in leaf.active:
        user = app.user
        room = headroom.get(user.name)
        if room is None:
            ul_m, ul_v = leaf.user_limit_for(ctx, user)
            room = headroom[user.name] = [max(ul_m - user.used_m, 0), max(ul_v - user.used_v, 0)]
        pm, pv = max(app.pending_m, 0), max(app.pending_v, 0)
        take_m, take_v = min(room[0], pm), min(room[1], pv)
        total_m += take_m
        total_v += take_v
        room[0] -= take_m
        room[1] -= take_v
    return Resource(total_m, total_v)


def _app_snapshot(
    app: SchedulerApp, path: str, index: dict[str, tuple[ApplicationAttemptId, Container]]
) -> AppSnapshot:
    containers: list[ContainerSnapshot] = []
    rmcs: list[RMContainer] = list(app.live.values())
    for by_node in app.reserved.values():
        rmcs.extend(by_node.values())
    for rmc in rmcs:
        cid = rmc.cid
        if cid is None:
            continue
        key = str(cid)
        record = rmc.container
        if record is None:  # a reservation has no Container record yet
            record = Container(
                id=cid, node_id=rmc.node.node_id, resource=Resource(rmc.mem, rmc.vc), priority=rmc.priority
            )
        index[key] = (app.attempt_id, record)
        containers.append(
            ContainerSnapshot(
                id=key,
                resource=Resource(rmc.mem, rmc.vc),
                priority=rmc.priority.priority,
                start_order=cid.container_id,
                am=rmc.is_am,
                reserved=rmc.state == RESERVED,
                node=str(rmc.node.node_id),
            )
        )
    app_id = app.application_id
    return AppSnapshot(
        id=str(app_id),
        queue=path,
        user=app.user.name,
        priority=app.app.priority,
        submission_order=app_id.id,
        pending=Resource(max(app.pending_m, 0), max(app.pending_v, 0)),
        containers=tuple(containers),
    )
