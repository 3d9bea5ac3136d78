"""The state and allocation core of :class:`~yarnball.policies.capacity.CapacityScheduler`.

The scheduler is one chain of classes, each in its own module (compiled by mypyc as native classes, whose
inheritance must be single): :class:`SchedulerCore` here (construction, the queue tree, the per-node allocation
loop, containers ending), ``ContinuousScheduling`` (_continuous.py: node placement), ``EventHandlers``
(_events.py: the scheduler events) and ``CapacityScheduler`` (_scheduler.py: ``handle``, the AM's ``allocate`` and
inspection). Only ``CapacityScheduler`` is public.
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from yarnball._logs import get_logger
from yarnball.policies.capacity._calculator import ResourceCalculator, make_calculator
from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration
from yarnball.policies.capacity._context import CSAssignment, ResourceLimits, SchedulerContext
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._managedparent import has_managed_parents, init_managed_parents
from yarnball.policies.capacity._maxrunning import CSMaxRunningAppsEnforcer
from yarnball.policies.capacity._queues import CSQueue, ParentQueue
from yarnball.policies.capacity._state import (
    OFF_SWITCH,
    SchedulerNode,
)
from yarnball.policies.scheduler._abstract import AbstractYarnScheduler
from yarnball.protocols import (
    ApplicationId,
    NodeId,
    Resource,
)
from yarnball.protocols import keys as k

__all__ = ["SchedulerCore"]

log = get_logger(__name__)


@mypyc_attr(allow_interpreted_subclasses=True)
class SchedulerCore(AbstractYarnScheduler):
    """The scheduler's state, the queue tree and the heartbeat's allocation loop (``CapacityScheduler``'s base)."""

    def __init__(self, conf: CapacitySchedulerConfiguration, *, cluster_timestamp: int = 0) -> None:
        conf.validate()
        self.conf = conf
        # Whether self.conf is the scheduler's own copy, which dynamic queues may write their entries into
        # (_autoqueues.py); the caller's configuration is never written.
        self.owns_conf = False
        ctx = SchedulerContext(make_calculator(conf.get_resource_calculator()))
        minimum = conf.get_minimum_allocation()
        ctx.min_m, ctx.min_v = minimum.memory_mb, minimum.vcores
        # Nodes, applications, attempts, containers, ACLs, node placement (policies/scheduler/_abstract.py). The
        # clock there is the virtual time in ms for the submission timestamps of dynamic queues (their auto
        # deletion): set by the actor that runs the AutoCreatedQueueDeletionPolicy, None elsewhere (they read 0).
        AbstractYarnScheduler.__init__(self, ctx, conf.conf, cluster_timestamp=cluster_timestamp)
        self.read_global_settings(conf)
        self.max_running = CSMaxRunningAppsEnforcer()  # max-parallel-apps (_maxrunning.py)
        self.queues: dict[str, CSQueue] = {}
        self._short: dict[str, list[CSQueue]] = {}
        # Legacy auto creation (ManagedParentQueue, _managedparent.py): its parents by path.
        self.managed_parents: dict[str, Any] = {}
        self.root: ParentQueue = self._build(k.ROOT, None)  # type: ignore[assignment]
        self.root.update_cluster_resource(ctx, ResourceLimits(0, 0))
        if has_managed_parents(conf):
            init_managed_parents(self)

    def read_global_settings(self, conf: CapacitySchedulerConfiguration) -> None:
        """The scheduler-wide settings read at start-up and again by a refresh (CapacityScheduler.reinitialize's
        refreshMaximumAllocation and the capacity-scheduler.xml globals); the minimum allocation and the resource
        calculator are read once, at start-up."""
        ctx = self._ctx
        maximum = conf.get_maximum_allocation()
        ctx.max_m, ctx.max_v = maximum.memory_mb, maximum.vcores
        ctx.node_locality_delay = conf.get_node_locality_delay()
        ctx.rack_additional_delay = conf.get_rack_locality_additional_delay()
        ctx.rack_full_reset = conf.get_rack_locality_full_reset()
        ctx.continue_looking = conf.get_reservation_continue_look()
        self.assign_multiple = conf.get_assign_multiple_enabled()
        self.max_assign = conf.get_max_assign_per_heartbeat()
        self.offswitch_limit = conf.get_offswitch_per_heartbeat_limit()
        self.max_system_apps = conf.get_maximum_system_applications()

    def _build(self, path: str, parent: ParentQueue | None) -> CSQueue:
        children = self.conf.get_queues(path)
        queue: CSQueue
        # A childless queue with auto creation enabled (v2, or legacy: a ManagedParentQueue) is a parent
        # (CapacitySchedulerQueueManager.parseQueue).
        if children or parent is None or self.conf.is_auto_creation_parent(path):
            queue = ParentQueue(self.conf, path, parent)
            for name in children:
                queue.children.append(self._build(f"{path}.{name}", queue))
        else:
            queue = LeafQueue(self.conf, path, parent)
        self.store_queue(queue)
        return queue

    # -- the queue store (CSQueueStore): queues by full path and by short name --------------------------------------
    def store_queue(self, queue: CSQueue) -> None:
        """``CSQueueStore.add``: ``queue`` by its full path and its short name."""
        self.queues[queue.path] = queue
        self._short.setdefault(queue.name, []).append(queue)

    def forget_queue(self, queue: CSQueue) -> None:
        """``CSQueueStore.remove``: ``queue`` no longer found by its path or its short name."""
        self.queues.pop(queue.path, None)
        same = self._short.get(queue.name)
        if same is not None and queue in same:
            same.remove(queue)
            if not same:
                del self._short[queue.name]

    def store_queues(self, queues: dict[str, CSQueue]) -> None:
        """The store holds ``queues`` (by full path, a refreshed tree) and nothing else."""
        short: dict[str, list[CSQueue]] = {}
        for queue in queues.values():
            short.setdefault(queue.name, []).append(queue)
        self.queues = queues
        self._short = short

    def is_ambiguous(self, name: str) -> bool:
        """``CSQueueStore.isAmbiguous``: more than one queue has the short name ``name``."""
        return len(self._short.get(name, ())) > 1

    @property
    def context(self) -> SchedulerContext:
        """What the queues and the allocator share: the cluster resource, the calculator, the live containers."""
        return self._ctx

    @property
    def calculator(self) -> ResourceCalculator:
        return self._ctx.rc

    def get_queue(self, name: str) -> CSQueue | None:
        """A queue by full path (``root.a.b``) or by unambiguous short name (``b``)."""
        queue = self.queues.get(name)
        if queue is not None:
            return queue
        found = self._short.get(name)
        return found[0] if found and len(found) == 1 else None

    def leaf_queues(self) -> list[LeafQueue]:
        return [q for q in self.queues.values() if isinstance(q, LeafQueue)]

    def get_maximum_allocation(self) -> Resource:
        """The configured maximum allocation (``yarn.scheduler.maximum-allocation-*``, re-read by a refresh)."""
        return self.conf.get_maximum_allocation()

    def move_application(self, app_id: ApplicationId, target_queue: str) -> str:
        """``CapacityScheduler.moveApplication`` (_appupdates.py): the new queue's path."""
        from yarnball.policies.capacity._appupdates import move_application

        return move_application(self, app_id, target_queue)

    def update_application_priority(self, app_id: ApplicationId, priority: int) -> int:
        """``CapacityScheduler.updateApplicationPriority`` (_appupdates.py): the priority set."""
        from yarnball.policies.capacity._appupdates import update_application_priority

        return update_application_priority(self, app_id, priority)

    # -- the heartbeat (§2) ------------------------------------------------------------------------------------
    def _allocate_on_node(self, node: SchedulerNode) -> CSAssignment | None:
        ctx = self._ctx
        rc = ctx.rc
        if node.reserved is not None:
            leaf = node.reserved.app.queue
            leaf.assign_from_reservation(ctx, node)
            return None  # no new allocation on a reserved node in this call
        if rc.dominant:
            if rc.available_containers(node.unalloc_m, node.unalloc_v, ctx.min_m, ctx.min_v) <= 0:
                return None
            a = self.root.assign(ctx, node, ResourceLimits(ctx.cluster_m, ctx.cluster_v))
            if a is not None and rc.is_positive(a.mem, a.vc):
                return a
            return None
        # The same, memory only: availableContainers(unallocated, minimum) <= 0 is unallocated < minimum.
        if ctx.min_m and node.unalloc_m < ctx.min_m:
            return None
        a = self.root.assign(ctx, node, ResourceLimits(ctx.cluster_m, ctx.cluster_v))
        if a is not None and a.mem > 0:
            return a
        return None

    def has_pending(self) -> bool:
        """Whether any application has outstanding asks (the root queue's pending resource is positive)."""
        return self._ctx.rc.is_positive(self.root.pending_m, self.root.pending_v)

    def node_update_is_noop(self, node_id: NodeId) -> bool:
        """True when a NODE_UPDATE for ``node_id`` with no container statuses provably changes nothing.

        It mirrors the early returns of ``_allocate_on_node`` and ``ParentQueue.assign``: an unknown node, or a node
        without a reservation that has no room for a minimum allocation or sees no pending asks anywhere, returns
        before any queue, application, opportunity or locality counter is touched. The RM uses it to skip idle
        heartbeats (actors/_heartbeats.py).
        """
        node = self.nodes.get(node_id)
        if node is None:
            return True
        if node.reserved is not None:
            return False
        ctx = self._ctx
        rc = ctx.rc
        if not rc.dominant:
            # The same, memory only (as in _allocate_on_node): it runs after nearly every node heartbeat.
            return bool(ctx.min_m and node.unalloc_m < ctx.min_m) or self.root.pending_m <= 0
        if rc.available_containers(node.unalloc_m, node.unalloc_v, ctx.min_m, ctx.min_v) <= 0:
            return True
        return not rc.is_positive(self.root.pending_m, self.root.pending_v)

    def allocate_containers_to_node(self, node: SchedulerNode) -> None:
        """``allocateContainersToNode`` with the assign-multiple loop (``canAllocateMore``)."""
        a = self._allocate_on_node(node)
        if a is None:
            return
        offswitch = 1 if a.locality == OFF_SWITCH else 0
        assigned = 1
        limit = self.offswitch_limit
        while True:
            if offswitch >= limit or a.reserved or not self.assign_multiple:
                return
            if self.max_assign != -1 and assigned >= self.max_assign:
                return
            a = self._allocate_on_node(node)
            if a is None:
                return
            if a.locality == OFF_SWITCH:
                offswitch += 1
            assigned += 1

    def _cluster_changed(self) -> None:
        """AbstractYarnScheduler's hook for a changed cluster resource: the queue tree follows it."""
        self.update_cluster_resource()

    def update_cluster_resource(self) -> None:
        """``root.updateClusterResource(clusterResource, ...)`` with the current cluster resource: effective
        capacities, limits and AM limits derived again (pending applications may activate). Node events, queue
        creation and removal and refreshes call it; tests and embedders too, after a runtime setter such as
        ``LeafQueue.set_max_capacity``."""
        ctx = self._ctx
        self.root.update_cluster_resource(ctx, ResourceLimits(ctx.cluster_m, ctx.cluster_v))
