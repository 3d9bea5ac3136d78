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
from yarnball.protocols import ApplicationAttemptId, Container, ContainerId, Resource
from yarnball.protocols import keys as k

__all__ = ["LiveSnapshot", "SnapshotCache", "snapshot_from_scheduler"]

# Configuration prefixes the policy reads each round (preemption.md §1): the monitor keys, the policy's keys and
# the capacity-scheduler keys (lazy preemption, calculator, AM percent, per-queue settings).
_CONFIG_PREFIXES = ("yarn.resourcemanager.scheduler.monitor.", k.PREEMPTION_CONFIG_PREFIX, k.CS_PREFIX)


class LiveSnapshot:
    """A :class:`ClusterSnapshot` plus the way back from its container ids to the scheduler's records."""

    __slots__ = ("containers", "snapshot")

    def __init__(self, snapshot: ClusterSnapshot, containers: dict[str, tuple[ApplicationAttemptId, Container]]):
        self.snapshot = snapshot
        self.containers = containers


class SnapshotCache:
    """What one snapshot can lend the next: each live container's :class:`ContainerSnapshot` and id string.

    A container's snapshot never changes while the scheduler holds the same ``RMContainer`` in the same state
    with the same ``Container`` record, and most containers outlive many monitor rounds, so rebuilding them
    (two ``Resource`` records, two id strings, one Struct per container) was nearly all of a live round's cost
    at 100,000 containers. Entries of containers that are gone are dropped at every snapshot.
    """

    __slots__ = ("apps",)

    def __init__(self) -> None:
        # attempt -> (its live and reserved RMContainers, their snapshots, their index entries, and per container
        # (RMContainer, state, Container record, id string, snapshot, index entry)). An application whose
        # containers are the very same objects as last round reuses them all (lists compared by identity, in C);
        # one that changed rebuilds only its new containers. A reservation that becomes an allocation moves from
        # ``reserved`` to ``live``, so the lists differ.
        self.apps: dict[ApplicationAttemptId, _AppEntry] = {}

    @property
    def container_ids(self) -> list[ContainerId]:
        """The containers whose snapshots are kept, in no particular order."""
        return [cid for entry in self.apps.values() for cid in entry[4]]


_Entry = tuple[RMContainer, object, "Container | None", str, ContainerSnapshot, tuple[ApplicationAttemptId, Container]]


_Index = dict[str, tuple[ApplicationAttemptId, Container]]
_AppEntry = tuple[
    list[RMContainer], list[RMContainer], tuple[ContainerSnapshot, ...], _Index, dict[ContainerId, _Entry]
]


def snapshot_from_scheduler(
    scheduler: CapacityScheduler,
    config: Mapping[str, str | int | float | bool] | None = None,
    *,
    cache: SnapshotCache | None = None,
) -> LiveSnapshot:
    """Snapshot ``scheduler`` for one policy round; ``config`` (default: the scheduler's own preemption and
    capacity-scheduler keys) is carried in the snapshot, as Hadoop re-reads the configuration every round.
    Pass the same ``cache`` every round (the monitor does) to reuse the snapshots of unchanged containers."""
    if config is None:
        conf = scheduler.conf.conf
        config = {key: conf.get(key) or "" for key in conf.keys() if key.startswith(_CONFIG_PREFIXES)}
    queues: list[QueueSnapshot] = []
    apps: list[AppSnapshot] = []
    index: dict[str, tuple[ApplicationAttemptId, Container]] = {}
    old_apps = cache.apps if cache is not None else {}
    fresh_apps: dict[ApplicationAttemptId, _AppEntry] = {}

    def visit(q: CSQueue, inherited_disabled: bool) -> None:
        # AbstractCSQueue.isQueueHierarchyPreemptionDisabled: root defaults to false, others inherit.
        disabled = scheduler.conf.get_preemption_disabled(q.path, inherited_disabled)
        pending = Resource()
        am_percent: float | None = None
        if isinstance(q, LeafQueue):
            pending = _pending_considering_user_limit(scheduler, q)
            am_percent = q.max_am_percent
            for app in q.active:
                apps.append(_app_snapshot(app, q.path, index, old_apps, fresh_apps))
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
    if cache is not None:
        cache.apps = fresh_apps
    snapshot = ClusterSnapshot(
        cluster=scheduler.cluster_resource, config=dict(config), queues=tuple(queues), applications=tuple(apps)
    )
    return LiveSnapshot(snapshot, index)


def _pending_considering_user_limit(scheduler: CapacityScheduler, leaf: LeafQueue) -> Resource:
    """``getTotalPendingResourcesConsideringUserLimit(cluster, "", false)`` (LeafQueue's)."""
    m, v = leaf.total_pending_considering_user_limit(scheduler.context)  # read-only: the live cluster numbers
    return Resource(m, v)


def _app_snapshot(
    app: SchedulerApp,
    path: str,
    index: dict[str, tuple[ApplicationAttemptId, Container]],
    old_apps: dict[ApplicationAttemptId, _AppEntry],
    fresh_apps: dict[ApplicationAttemptId, _AppEntry],
) -> AppSnapshot:
    live = list(app.live.values())
    reserved = [rmc for by_node in app.reserved.values() for rmc in by_node.values()]
    hit = old_apps.get(app.attempt_id)
    if hit is not None and hit[0] == live and hit[1] == reserved:
        fresh_apps[app.attempt_id] = hit
        index.update(hit[3])
        return _app_record(app, path, hit[2])
    old = hit[4] if hit is not None else {}
    fresh: dict[ContainerId, _Entry] = {}
    containers: list[ContainerSnapshot] = []
    mine: dict[str, tuple[ApplicationAttemptId, Container]] = {}
    for rmc in live + reserved:
        cid = rmc.cid
        if cid is None:
            continue
        entry = old.get(cid)
        if (
            entry is not None
            and entry[0] is rmc
            and entry[1] is rmc.state
            and entry[2] is rmc.container
            and entry[4].resource.memory_mb == rmc.mem  # a resized container (container update) is rebuilt
            and entry[4].resource.vcores == rmc.vc
        ):
            fresh[cid] = entry
            mine[entry[3]] = entry[5]
            containers.append(entry[4])
            continue
        key = str(cid)
        record = rmc.container
        if record is None:  # a reservation has no Container record yet
            record = Container(
                id=cid, node_id=rmc.node.node_id, resource=Resource(rmc.mem, rmc.vc), priority=rmc.priority
            )
        target = (app.attempt_id, record)
        mine[key] = target
        snap = ContainerSnapshot(
            id=key,
            resource=Resource(rmc.mem, rmc.vc),
            priority=rmc.priority.priority,
            start_order=cid.container_id,
            am=rmc.is_am,
            reserved=rmc.state == RESERVED,
            node=str(rmc.node.node_id),
        )
        fresh[cid] = (rmc, rmc.state, rmc.container, key, snap, target)
        containers.append(snap)
    index.update(mine)
    snaps = tuple(containers)
    fresh_apps[app.attempt_id] = (live, reserved, snaps, mine, fresh)
    return _app_record(app, path, snaps)


def _app_record(app: SchedulerApp, path: str, containers: tuple[ContainerSnapshot, ...]) -> AppSnapshot:
    app_id = app.application_id
    return AppSnapshot(
        id=str(app_id),
        queue=path,
        user=app.user.name,
        priority=app.app.priority,
        submission_order=app_id.id,
        pending=Resource(max(app.pending_m, 0), max(app.pending_v, 0)),
        containers=containers,
    )
