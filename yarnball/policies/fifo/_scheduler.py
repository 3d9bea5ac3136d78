"""Hadoop's ``FifoScheduler`` (``scheduler/fifo/FifoScheduler.java``; shared/reference/fair.md §7) on
:class:`~yarnball.policies.scheduler.AbstractYarnScheduler`.

One pseudo-queue ``default`` (capacity 1.0, RUNNING, every ACL ``*``) takes every application whatever queue it
names; applications are served in application-id order (``ConcurrentSkipListMap<ApplicationId, ...>``), their
priorities ignored. No reservations, no preemption, no locality delay, no AM or running-application limits. A
heartbeat with room for a minimum allocation runs ``assignContainers``: for each application, its scheduler keys in
priority order, node-local then rack-local then off-switch, as many containers of a key as the node's unallocated
*memory* holds (:mod:`yarnball.policies.fifo._appattempt`). Requests are normalised by the
``DefaultResourceCalculator`` with the minimum allocation as increment (memory rounded up, one vcore).

The pseudo-queue's usage, pending resource and users are kept on a ``LeafQueue`` record used only for accounting
(the base's container bookkeeping charges it); none of the CapacityScheduler's queue logic runs on it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from typing import Any

from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError, SchedulingError
from yarnball.policies.capacity._calculator import DefaultResourceCalculator
from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration
from yarnball.policies.capacity._context import SchedulerContext
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._state import SchedulerApp, SchedulerApplication, SchedulerNode
from yarnball.policies.fifo._appattempt import assign_containers
from yarnball.policies.scheduler import _appscheduling
from yarnball.policies.scheduler._abstract import AbstractYarnScheduler
from yarnball.policies.scheduler._acl import QueueACL, QueueState
from yarnball.policies.scheduler._notifications import (
    AppAccepted,
    AttemptAdded,
    QueueMetrics,
    SchedulerNotification,
)
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    ContainerId,
    ContainerStatus,
    NodeId,
    Resource,
)
from yarnball.protocols import keys as k

__all__ = ["DEFAULT_QUEUE_NAME", "FifoScheduler", "validate_conf"]

log = get_logger(__name__)

DEFAULT_QUEUE_NAME = "default"
_NO_PREEMPT: frozenset[ContainerId] = frozenset()


def validate_conf(conf: Configuration) -> None:
    """``FifoScheduler.validateConf``: the memory allocation limits (Hadoop's message, as a ConfigurationError
    naming where the minimum was set)."""
    min_mem = conf.get_int(k.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, k.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB)
    max_mem = conf.get_int(k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB)
    if min_mem <= 0 or min_mem > max_mem:
        raise ConfigurationError(
            f"{conf.location_of(k.RM_SCHEDULER_MINIMUM_ALLOCATION_MB)}: "
            "Invalid resource scheduler memory allocation configuration, "
            f"{k.RM_SCHEDULER_MINIMUM_ALLOCATION_MB}={min_mem}, {k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB}={max_mem}, "
            "min and max should be greater than 0, max should be no smaller than min."
        )


class FifoScheduler(AbstractYarnScheduler):
    """Hadoop's ``FifoScheduler`` (see the module docstring)."""

    def __init__(self, conf: Configuration, *, cluster_timestamp: int = 0) -> None:
        validate_conf(conf)
        ctx = SchedulerContext(DefaultResourceCalculator())
        AbstractYarnScheduler.__init__(self, ctx, conf, cluster_timestamp=cluster_timestamp)
        self.conf = conf
        self.continuous_scheduling = False  # a FairScheduler setting: FIFO schedules on heartbeats only
        self._read_allocation_limits(conf)
        # The pseudo-queue's accounting record (never scheduled as a CapacityScheduler leaf).
        self.default_queue = LeafQueue(CapacitySchedulerConfiguration(Configuration()), DEFAULT_QUEUE_NAME, None)
        # applications in application-id order (ConcurrentSkipListMap's order)
        self._order: list[tuple[int, int]] = []
        self._by_order: dict[tuple[int, int], ApplicationId] = {}
        # SchedulerApplicationAttempt.resourceLimit: the headroom assignContainers last set (0 before)
        self._headroom: dict[ApplicationAttemptId, tuple[int, int]] = {}
        self._handlers: dict[str, Any] = {
            "NODE_ADDED": AbstractYarnScheduler.handle_node_added,
            "NODE_REMOVED": AbstractYarnScheduler.handle_node_removed,
            "NODE_RESOURCE_UPDATE": AbstractYarnScheduler.handle_node_resource_update,
            "NODE_UPDATE": AbstractYarnScheduler.handle_node_update,
            "APP_ADDED": FifoScheduler._app_added,
            "APP_REMOVED": FifoScheduler._app_removed,
            "APP_ATTEMPT_ADDED": FifoScheduler._attempt_added,
            "APP_ATTEMPT_REMOVED": FifoScheduler._attempt_removed,
            "CONTAINER_EXPIRED": AbstractYarnScheduler.handle_container_expired,
            "RELEASE_CONTAINER": AbstractYarnScheduler.handle_release_container,
        }

    def _read_allocation_limits(self, conf: Configuration) -> None:
        """``initScheduler``'s minimum and maximum allocation (``AbstractYarnScheduler.getMinimumAllocation`` /
        ``getMaximumAllocation``)."""
        ctx = self._ctx
        ctx.min_m = conf.get_int(k.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, k.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB)
        ctx.min_v = conf.get_int(
            k.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES, k.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES
        )
        ctx.max_m = conf.get_int(k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB)
        ctx.max_v = conf.get_int(
            k.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES
        )

    # -- configuration and cluster -----------------------------------------------------------------------------
    @property
    def calculator(self) -> DefaultResourceCalculator:
        return self._ctx.rc  # type: ignore[return-value]

    @property
    def queues(self) -> Mapping[str, object]:
        """The one pseudo-queue ``default``."""
        return {DEFAULT_QUEUE_NAME: self.default_queue}

    def get_maximum_allocation(self) -> Resource:
        return Resource(self._ctx.max_m, self._ctx.max_v)

    def maximum_allocation(self, queue: object = None) -> Resource:
        """``getMaximumResourceCapability``: ``ClusterNodeTracker.getMaxAllowedAllocation``
        (:meth:`max_allowed_allocation`)."""
        return self.max_allowed_allocation()

    def reinitialize(self, conf: Configuration) -> None:
        """``FifoScheduler.reinitialize`` (``rmadmin -refreshQueues``): ``setConf`` and
        ``AbstractYarnScheduler.reinitialize``, which re-reads the maximum allocation only
        (``refreshMaximumAllocation``); the minimum stays as read at start-up."""
        self.conf = conf
        ctx = self._ctx
        ctx.max_m = conf.get_int(k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB)
        ctx.max_v = conf.get_int(
            k.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES
        )

    def check_access(self, user: str, acl: QueueACL, queue_name: str, groups: tuple[str, ...] = ()) -> bool:
        """``FifoScheduler.checkAccess``: the default queue grants every ACL to everyone."""
        return True

    def get_apps_in_queue(self, queue_name: str) -> list[ApplicationAttemptId] | None:
        """``FifoScheduler.getAppsInQueue``: the current attempt of every application in id order for ``default``,
        None for any other name (an application without an attempt yet is left out where Hadoop's would fail)."""
        if queue_name != DEFAULT_QUEUE_NAME:
            return None
        apps = [self.applications[self._by_order[o]] for o in self._order]
        return [a.attempt.attempt_id for a in apps if a.attempt is not None]

    def move_application(self, app_id: ApplicationId, target_queue: str) -> str:
        """``AbstractYarnScheduler.moveApplication``: ``YarnException("<class> does not support moving apps
        between queues")``."""
        raise SchedulingError(f"{type(self).__name__} does not support moving apps between queues")

    def update_application_priority(self, app_id: ApplicationId, priority: int) -> int:
        """``AbstractYarnScheduler.updateApplicationPriority``: a no-op that keeps the priority (FIFO ignores
        priorities); the priority asked is returned, as Hadoop's RMAppManager records it."""
        app = self.applications.get(app_id)
        if app is not None:
            app.priority = priority
        return priority

    # -- events ------------------------------------------------------------------------------------------------
    def handle(self, event: object) -> list[SchedulerNotification]:
        """``FifoScheduler.handle``: the events it handles; any other is logged as Hadoop logs it and ignored."""
        out: list[SchedulerNotification] = []
        self._ctx.outbox = out
        name = getattr(getattr(event, "event_type", None), "name", "")
        handler = self._handlers.get(name)
        if handler is None:
            log.error("Invalid eventtype " + str(getattr(event, "event_type", event)) + ". Ignoring!")
            return out
        handler(self, event)
        return out

    def _app_added(self, e: Any) -> None:
        """``addApplication``: every application is accepted into ``default``."""
        app_id, user = e.application_id, e.user
        self.applications[app_id] = SchedulerApplication(app_id, self.default_queue, user, e.priority.priority)
        order = (app_id.cluster_timestamp, app_id.id)
        if order not in self._by_order:
            bisect.insort(self._order, order)
        self._by_order[order] = app_id
        self.default_queue.num_applications += 1
        log.info(
            f"Accepted application {app_id} from user: {user}, currently num of applications: {len(self.applications)}"
        )
        if not e.is_app_recovering:
            self._ctx.outbox.append(AppAccepted(app_id))

    def _app_removed(self, e: Any) -> None:
        """``doneApplication``."""
        app = self.applications.pop(e.application_id, None)
        if app is None:
            log.warning("Couldn't find application " + str(e.application_id))
            return
        if app.attempt is not None:
            self._remove_attempt(app.attempt, keep=False)
        self.complete_kept(app)
        order = (e.application_id.cluster_timestamp, e.application_id.id)
        if self._by_order.pop(order, None) is not None:
            del self._order[bisect.bisect_left(self._order, order)]
        self.default_queue.num_applications -= 1
        self.am_hints.pop(e.application_id, None)

    def _attempt_added(self, e: Any) -> None:
        """``addApplicationAttempt`` (with ``transferStateFromPreviousAttempt``'s kept containers)."""
        ctx = self._ctx
        attempt_id = e.application_attempt_id
        app = self.applications.get(attempt_id.application_id)
        if app is None:
            log.error("Application " + str(attempt_id.application_id) + " not found, cannot add attempt")
            return
        if app.attempt is not None:
            self._remove_attempt(app.attempt, keep=False)
        user = self.default_queue.get_user(app.user)
        self.create_attempt(attempt_id, app, user, e.transfer_state_from_previous_attempt)
        log.info("Added Application Attempt " + str(attempt_id) + " to scheduler from user " + app.user)
        if not e.is_attempt_recovering:
            ctx.outbox.append(AttemptAdded(attempt_id))

    def _attempt_removed(self, e: Any) -> None:
        """``doneApplicationAttempt``; an unknown attempt is Hadoop's IOException, logged."""
        attempt = self.attempts.get(e.application_attempt_id)
        if attempt is None:
            log.error(
                "Unable to remove application " + str(e.application_attempt_id) + ": java.io.IOException: "
                "Unknown application " + str(e.application_attempt_id) + " has completed!"
            )
            return
        self._remove_attempt(attempt, keep=e.keep_containers_across_app_attempts)

    def _remove_attempt(self, attempt: SchedulerApp, *, keep: bool) -> None:
        """Kill the live containers (RUNNING ones survive a work-preserving AM restart), then ``attempt.stop``."""
        _appscheduling.complete_live_containers(self, attempt, keep)
        _appscheduling.stop_attempt(self, attempt)
        self._headroom.pop(attempt.attempt_id, None)

    # -- nodeUpdate --------------------------------------------------------------------------------------------
    def schedule_on_heartbeat(self, node: SchedulerNode, completed: bool) -> None:
        """``FifoScheduler.nodeUpdate`` after the base's work: ``assignContainers`` when the node's unallocated
        resource is at least the minimum allocation (``Resources.greaterThanOrEqual`` under the
        DefaultResourceCalculator: memory only)."""
        if node.unalloc_m >= self._ctx.min_m:
            self.assign_containers(node)

    def assign_containers(self, node: SchedulerNode) -> None:
        """``FifoScheduler.assignContainers``: the applications in id order, then every attempt's headroom set to the
        cluster resource minus the used resource."""
        ctx = self._ctx
        apps = [self.applications[self._by_order[o]] for o in self._order]
        assign_containers(ctx, self.default_queue, node, [a.attempt for a in apps if a.attempt is not None])
        leaf = self.default_queue
        headroom = (ctx.cluster_m - leaf.used_m, ctx.cluster_v - leaf.used_v)
        for a in apps:
            if a.attempt is not None:
                self._headroom[a.attempt.attempt_id] = headroom

    def node_update_is_noop(self, node_id: NodeId) -> bool:
        """True when a NODE_UPDATE without container statuses changes nothing: an unknown node, no room for a
        minimum allocation, or nothing pending (the headroom is reset only for attempts already at that value)."""
        node = self.nodes.get(node_id)
        if node is None:
            return True
        return node.unalloc_m < self._ctx.min_m or (self.default_queue.pending_m <= 0 and not self._headroom_stale())

    def _headroom_stale(self) -> bool:
        ctx, leaf = self._ctx, self.default_queue
        headroom = (ctx.cluster_m - leaf.used_m, ctx.cluster_v - leaf.used_v)
        return any(self._headroom.get(a) != headroom for a in self.attempts)

    def node_update_launched_only(self, node_id: NodeId, launched: Iterable[ContainerStatus]) -> bool:
        """A launched-only NODE_UPDATE that provably allocates nothing: marked RUNNING here (True), else False."""
        if not self.node_update_is_noop(node_id) or node_id not in self.nodes:
            return False
        self.mark_launched([st.container_id for st in launched])
        return True

    def has_pending(self) -> bool:
        return self.default_queue.pending_m > 0

    def continuous_scheduling_attempt(self) -> list[SchedulerNotification]:
        """The FifoScheduler has no continuous scheduling: nothing happens."""
        return []

    # -- the AM's allocate (AbstractYarnScheduler.allocate with these hooks) -----------------------------------
    def headroom_of(self, app: SchedulerApp) -> Resource:
        """``SchedulerApplicationAttempt.getHeadroom``: the last limit set, each component at least 0."""
        hm, hv = self._headroom.get(app.attempt_id, (0, 0))
        return Resource(max(hm, 0), max(hv, 0))

    def maximum_allocation_of(self, app: SchedulerApp) -> Resource:
        return self.maximum_allocation()

    def headroom(self, attempt_id: ApplicationAttemptId) -> Resource:
        app = self.attempts.get(attempt_id)
        return self.headroom_of(app) if app is not None else Resource()

    # -- metrics -----------------------------------------------------------------------------------------------
    def queue_metrics(self) -> list[QueueMetrics]:
        """The ``default`` queue's ``QueueMetrics`` (Hadoop's FIFO root metrics are this queue's)."""
        ctx, leaf = self._ctx, self.default_queue
        used = leaf.used_m / ctx.cluster_m if ctx.cluster_m else 0.0
        running = sum(1 for a in self.attempts.values() if a.am_running)
        return [
            QueueMetrics(
                path=DEFAULT_QUEUE_NAME,
                queue_name=DEFAULT_QUEUE_NAME,
                is_leaf=True,
                state=str(QueueState.RUNNING),
                priority=0,
                capacity=1.0,
                maximum_capacity=1.0,
                absolute_capacity=1.0,
                absolute_maximum_capacity=1.0,
                used_capacity=used,
                absolute_used_capacity=used,
                allocated=Resource(leaf.used_m, leaf.used_v),
                pending=Resource(leaf.pending_m, leaf.pending_v),
                reserved=Resource(),
                # updateAvailableResourcesMetrics: cluster resource - used resource
                available=Resource(ctx.cluster_m - leaf.used_m, ctx.cluster_v - leaf.used_v),
                effective_min=Resource(ctx.cluster_m, ctx.cluster_v),
                effective_max=Resource(ctx.cluster_m, ctx.cluster_v),
                am_used=Resource(),
                am_limit=Resource(),
                apps_pending=len(self.attempts) - running,
                apps_running=running,
                containers_allocated=leaf.num_containers,
                num_active_users=leaf.active_users,
                aggregate_node_local_containers_allocated=leaf.allocated_by_locality[0],
                aggregate_rack_local_containers_allocated=leaf.allocated_by_locality[1],
                aggregate_off_switch_containers_allocated=leaf.allocated_by_locality[2],
            )
        ]

    def root_queue_metrics(self) -> QueueMetrics:
        """``getRootQueueMetrics``: the ``default`` queue's (``FifoScheduler``'s root metrics are that queue's)."""
        return self.queue_metrics()[0]

    def fifo_scheduler_info(self) -> dict[str, Any]:
        """``FifoSchedulerInfo`` (``/ws/v1/cluster/scheduler``'s ``schedulerInfo``): ``usedCapacity`` is the default
        queue's ``usedMB / clusterMB`` (0 on an empty cluster); min/max are the allocation limits in MB; the node
        sums (MB) and the container count are over the registered nodes' reports."""
        ctx = self._ctx
        used = avail = total = containers = 0
        for node in self.nodes.values():
            used += node.total_m - node.unalloc_m
            avail += node.unalloc_m
            total += node.total_m
            containers += len(node.containers)
        return {
            "type": "fifoScheduler",
            "capacity": 1.0,
            "usedCapacity": self.default_queue.used_m / ctx.cluster_m if ctx.cluster_m else 0.0,
            "qstate": str(QueueState.RUNNING),
            "minQueueMemoryCapacity": ctx.min_m,
            "maxQueueMemoryCapacity": self.maximum_allocation().memory_mb,
            "numNodes": len(self.nodes),
            "usedNodeCapacity": used,
            "availNodeCapacity": avail,
            "totalNodeCapacity": total,
            "numContainers": containers,
        }
