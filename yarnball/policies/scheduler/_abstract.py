"""``AbstractYarnScheduler``: the scheduler-neutral bookkeeping every scheduler shares (Hadoop's
``AbstractYarnScheduler``), under which a scheduler supplies only its queues and its allocation.

It holds the ``ClusterNodeTracker`` (the registered nodes, the cluster resource, the largest node), the
``SchedulerApplication`` records and their current attempts, every ``RMContainer`` by id, and the work that reads or
changes only those: NODE_ADDED/REMOVED/RESOURCE_UPDATE, ``nodeUpdate``'s launched and completed containers,
``completedContainer``, CONTAINER_EXPIRED/RELEASE_CONTAINER/KILL_RESERVED_CONTAINER and the preemption marks,
``getTransferredContainers``, ``getNodeReport``, ``getRMContainer`` and the container updates' swaps
(``ContainerUpdateContext.swapContainer``), ``validateResourceRequest``'s checks and the admin ACL.

The records are ``FiCaSchedulerNode``, ``RMContainer`` and ``FiCaSchedulerApp`` (policies/capacity/_state.py), as in
Hadoop, where the FifoScheduler schedules over the CapacityScheduler's ``FiCaSchedulerNode`` and its
``FifoAppAttempt`` extends ``FiCaSchedulerApp``; their queue and user usage go through the ``LeafQueue`` an attempt
is charged to (the FifoScheduler's one pseudo-queue is such a leaf, used only for accounting).

A subclass supplies:
- ``_cluster_changed``: the queues' reaction to a change of the cluster resource (CS: ``root.updateClusterResource``);
- ``schedule_on_heartbeat``: ``nodeUpdate``'s allocation on the node (after the base has processed its containers);
- its own events (APP_*, APP_ATTEMPT_*), ``handle``, ``allocate`` with the AM's pull and headroom, queue info and
  metrics.

Compiled by mypyc as a native class (yarnball/_native.py lists it before the CapacityScheduler's chain, which
extends it); Python subclasses are allowed (the FifoScheduler is one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from yarnball._logs import get_logger
from yarnball.policies.capacity._allocator import release_container, unreserve
from yarnball.policies.capacity._context import SchedulerContext
from yarnball.policies.capacity._state import (
    RESERVED,
    RUNNING,
    RMContainer,
    SchedulerApp,
    SchedulerApplication,
    SchedulerNode,
    User,
)
from yarnball.policies.placement import NodePlacementPolicy, continuous_scheduling_settings, placement_from_conf
from yarnball.policies.scheduler import _appscheduling, _updatecontext
from yarnball.policies.scheduler._acl import AccessControlList
from yarnball.policies.scheduler._notifications import (
    Allocation,
    AppRejected,
    ContainerCompleted,
    SchedulerNotification,
)
from yarnball.policies.scheduler._utils import (
    COMPLETED_APPLICATION,
    EXPIRED_CONTAINER,
    LOST_CONTAINER,
    RELEASED_CONTAINER,
    abnormal_status,
    preempted_status,
)
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerId,
    ContainerStatus,
    NodeId,
    NodeReport,
    Resource,
    ResourceRequest,
)
from yarnball.protocols import keys as k

__all__ = ["AbstractYarnScheduler", "validate_resource_request"]

log = get_logger(__name__)

@mypyc_attr(allow_interpreted_subclasses=True)
class AbstractYarnScheduler:
    """Hadoop's ``AbstractYarnScheduler`` (see the module docstring): nodes, applications, attempts and containers."""

    def __init__(self, ctx: SchedulerContext, conf: Configuration, *, cluster_timestamp: int = 0) -> None:
        self._ctx = ctx
        self.cluster_timestamp = cluster_timestamp
        # The virtual time in ms (set by the actor running a time-aware edit policy), None elsewhere.
        self.clock: Callable[[], int] | None = None
        self.acl_enabled = conf.get_bool(k.YARN_ACL_ENABLE, k.DEFAULT_YARN_ACL_ENABLE)
        self.admin_acl = AccessControlList(conf.get(k.YARN_ADMIN_ACL) or k.DEFAULT_YARN_ADMIN_ACL)
        # ClusterNodeTracker
        self.nodes: dict[NodeId, SchedulerNode] = {}
        self._largest_node = (0, 0)
        # forceConfiguredMaxAllocation: the configured maximum holds until this long after service_start (serviceInit
        # reads the wait); without a clock (a scheduler never started) the largest node caps at once
        self._max_alloc_wait_ms = conf.get_long(
            k.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, k.DEFAULT_RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS
        )
        self._force_configured_max = False
        self._start_clock: Callable[[], int] | None = None
        self._start_ms = 0
        # AbstractYarnScheduler.applications: SchedulerApplication by id, each with its current attempt
        self.applications: dict[ApplicationId, SchedulerApplication] = {}
        self.attempts: dict[ApplicationAttemptId, SchedulerApp] = {}
        self.am_hints: dict[ApplicationId, Resource] = {}
        # event class -> handler (handle's dispatch cache)
        self._by_class: dict[type, Callable[[Any, Any], None]] = {}
        # node placement policy and continuous scheduling
        self.placement: NodePlacementPolicy = placement_from_conf(conf)
        self.continuous_scheduling: bool
        self.continuous_scheduling_sleep_ms: int
        self.continuous_scheduling, self.continuous_scheduling_sleep_ms = continuous_scheduling_settings(conf)
        # UpdateThread: update() every update_interval_ms when positive (the FairScheduler's; -1 elsewhere)
        self.update_interval_ms = -1

    # -- hooks a scheduler supplies ----------------------------------------------------------------------------
    def _cluster_changed(self) -> None:
        """The queues' reaction to a change of the cluster resource (nothing here)."""

    def schedule_on_heartbeat(self, node: SchedulerNode, completed: bool) -> None:
        """``nodeUpdate``'s allocation on ``node`` (``completed``: the heartbeat reported finished containers)."""

    def update(self) -> list[SchedulerNotification]:
        """``AbstractYarnScheduler.update``: the update thread's pass, every ``update_interval_ms`` when that is
        positive (the RM runs it as a timer); nothing here."""
        return []

    def service_start(self, clock: Callable[[], int]) -> None:
        """``serviceStart``: the RM hands its virtual clock (ms); its reading now is the RM's start
        (``ResourceManager.getClusterTimeStamp``), which opens the configured-maximum window
        (:meth:`max_allowed_allocation`). A scheduler that overrides this calls it."""
        self._start_clock = clock
        self._start_ms = clock()
        self._force_configured_max = True

    def headroom_of(self, app: SchedulerApp) -> Resource:
        """``SchedulerApplicationAttempt.getHeadroom`` as the scheduler last set it (none here)."""
        return Resource()

    def maximum_allocation_of(self, app: SchedulerApp) -> Resource:
        """``getMaximumResourceCapability(queue)``: the largest container ``app`` may ask for."""
        return self.max_allowed_allocation()

    def queue_path_of(self, app: SchedulerApp) -> str:
        """The full name of the queue ``app`` runs in, as the scheduler's queue reports name it."""
        return app.queue.path

    def queue_max_resource_of(self, app: SchedulerApp, cluster: Resource) -> Resource:
        """The most ``app``'s queue may ever hold in a cluster of ``cluster``: the leaf queue's absolute maximum
        capacity of it, or its effective maximum if larger (the CapacityScheduler's and the FifoScheduler's queue)."""
        queue = app.queue
        return Resource(
            max(int(queue.abs_max * cluster.memory_mb), queue.eff_max_m),
            max(int(queue.abs_max * cluster.vcores), queue.eff_max_v),
        )

    def normalize_ask(self, cap_m: int, cap_v: int, maximum: Resource) -> tuple[int, int]:
        """``SchedulerUtils.normalizeRequest``: the DefaultResourceCalculator, the minimum allocation as
        increment (a scheduler with its own increment or calculator overrides it)."""
        ctx = self._ctx
        return ctx.rc.normalize(
            cap_m, cap_v, ctx.min_m, ctx.min_v, maximum.memory_mb, maximum.vcores, ctx.min_m, ctx.min_v
        )

    def ask_errors(self, app: SchedulerApp, ask: Sequence[ResourceRequest], maximum: Resource) -> tuple[str, ...]:
        """Why ``allocate`` refuses the asks (``ApplicationMasterService``'s ``validateResourceRequest``)."""
        return tuple([e for e in [validate_resource_request(r, maximum) for r in ask] if e])

    # -- the cluster -------------------------------------------------------------------------------------------
    @property
    def cluster_resource(self) -> Resource:
        return Resource(self._ctx.cluster_m, self._ctx.cluster_v)

    @property
    def minimum_allocation(self) -> Resource:
        return Resource(self._ctx.min_m, self._ctx.min_v)

    def set_placement(self, policy: NodePlacementPolicy) -> None:
        """Use ``policy`` for every later placement decision (the launcher reseeds packing with the run's seed)."""
        self.placement = policy

    def is_admin(self, user: str, groups: tuple[str, ...] = ()) -> bool:
        """``yarn.admin.acl`` membership."""
        return self.admin_acl.is_user_allowed(user, groups)

    def set_am_resource(self, application_id: ApplicationId, resource: Resource) -> None:
        """Tell the AM container's size before the attempt is added (``ApplicationSubmissionContext``'s AM ask)."""
        self.am_hints[application_id] = resource

    def node_report(self, node_id: NodeId) -> NodeReport | None:
        node = self.nodes.get(node_id)
        if node is None:
            return None
        return NodeReport(
            node_id=node_id,
            rack_name=node.rack,
            used=Resource(node.total_m - node.unalloc_m, node.total_v - node.unalloc_v),
            capability=Resource(node.total_m, node.total_v),
            num_containers=len(node.containers),
            node_labels=node.labels,
        )

    # -- applications ------------------------------------------------------------------------------------------
    def get_application(self, app_or_attempt: ApplicationId | ApplicationAttemptId) -> SchedulerApp | None:
        """The attempt with this id, or the current attempt of this application."""
        if isinstance(app_or_attempt, ApplicationAttemptId):
            return self.attempts.get(app_or_attempt)
        app = self.applications.get(app_or_attempt)
        return app.attempt if app is not None else None

    def previous_attempt_containers(self, attempt_id: ApplicationAttemptId) -> tuple[Container, ...]:
        """The containers ``attempt_id`` took over from earlier attempts (keepContainersAcrossApplicationAttempts):
        ``AbstractYarnScheduler.getTransferredContainers``, in container id order."""
        attempt = self.attempts.get(attempt_id)
        if attempt is None:
            return ()
        kept = [
            rmc.container
            for rmc in attempt.live.values()
            if rmc.container is not None and rmc.cid.application_attempt_id != attempt_id and not rmc.is_am
        ]
        return tuple(sorted(kept, key=lambda c: c.id.container_id))

    def create_attempt(
        self, attempt_id: ApplicationAttemptId, app: SchedulerApplication, user: User, transfer: bool
    ) -> SchedulerApp:
        """``addApplicationAttempt``'s new attempt, charged to ``user``, now the application's current attempt: sized
        for its AM by the submission's AM ask (the minimum allocation when none was told) and, when ``transfer``
        (``SchedulerApplicationAttempt.transferStateFromPreviousAttempt``), holding the containers the previous
        attempt kept (those still allocated) and continuing its container id sequence."""
        ctx = self._ctx
        hint = self.am_hints.get(app.app_id)
        am_m, am_v = (hint.memory_mb, hint.vcores) if hint is not None else (ctx.min_m, ctx.min_v)
        attempt = SchedulerApp(attempt_id, app, user, am_m, am_v)
        attempt.am_known = hint is not None
        if transfer:
            attempt.next_seq = app.last_seq + 1
            for rmc in app.kept:
                if rmc.cid in ctx.containers:
                    rmc.app = attempt
                    attempt.live[rmc.cid] = rmc
                    attempt.used_m += rmc.mem
                    attempt.used_v += rmc.vc
            app.kept.clear()
        app.attempt = attempt
        self.attempts[attempt_id] = attempt
        return attempt

    def complete_kept(self, app: SchedulerApplication) -> None:
        """``doneApplication``: the containers an attempt kept for a next one that never came end with the
        application (COMPLETED_APPLICATION)."""
        for rmc in app.kept:
            if rmc.cid in self._ctx.containers:
                self.complete_container(rmc, abnormal_status(rmc.cid, COMPLETED_APPLICATION), notify=True)
        app.kept.clear()

    def reject_application(self, app_id: Any, message: str) -> None:
        log.info(message)
        self._ctx.outbox.append(AppRejected(app_id, message))

    # -- nodes (ClusterNodeTracker) ----------------------------------------------------------------------------
    def handle_node_added(self, e: Any) -> None:
        ctx = self._ctx
        if e.node_id in self.nodes:
            log.warning("Node already added, ignoring", node=str(e.node_id))
            return
        total = e.total_resource
        node = SchedulerNode(e.node_id, e.rack_name, total.memory_mb, total.vcores, tuple(e.node_labels))
        self.nodes[e.node_id] = node
        ctx.cluster_m += total.memory_mb
        ctx.cluster_v += total.vcores
        ctx.num_nodes += 1
        # Adding a node can only raise the largest node: O(1) instead of a scan (a scan per NODE_ADDED is O(n^2)).
        lm, lv = self._largest_node
        self._largest_node = (max(lm, total.memory_mb), max(lv, total.vcores))
        self._cluster_changed()
        log.info("Added node " + str(e.node_id) + " clusterResource: " + str(self.cluster_resource))

    def handle_node_removed(self, e: Any) -> None:
        ctx = self._ctx
        node = self.nodes.get(e.node_id)
        if node is None:
            log.error("Attempting to remove non-existent node " + str(e.node_id))
            return
        for rmc in list(node.containers.values()):
            self.complete_container(rmc, abnormal_status(rmc.cid, LOST_CONTAINER), notify=True)
        if node.reserved is not None:
            unreserve(ctx, node.reserved)
        del self.nodes[e.node_id]
        ctx.cluster_m -= node.total_m
        ctx.cluster_v -= node.total_v
        ctx.num_nodes -= 1
        if node.total_m >= self._largest_node[0] or node.total_v >= self._largest_node[1]:
            self._refresh_largest_node()  # only removing a largest node can lower the maximum
        self._cluster_changed()
        log.info("Removed node " + str(e.node_id) + " clusterResource: " + str(self.cluster_resource))

    def handle_node_resource_update(self, e: Any) -> None:
        ctx = self._ctx
        node = self.nodes.get(e.node_id)
        if node is None:
            return
        total = e.total_resource
        dm, dv = total.memory_mb - node.total_m, total.vcores - node.total_v
        node.total_m += dm
        node.total_v += dv
        node.unalloc_m += dm
        node.unalloc_v += dv
        ctx.cluster_m += dm
        ctx.cluster_v += dv
        self._refresh_largest_node()
        self._cluster_changed()

    def max_allowed_allocation(self) -> Resource:
        """``ClusterNodeTracker.getMaxAllowedAllocation`` (``AbstractYarnScheduler.getMaximumResourceCapability()``):
        the configured maximum (``yarn.scheduler.maximum-allocation-*``) while ``forceConfiguredMaxAllocation`` holds,
        i.e. until ``yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms`` after the RM started (on the
        scheduler's virtual clock; Hadoop compares the wall clock with ``getClusterTimeStamp``, and once past it the
        flag stays false), or while no node registered; after that, capped component-wise by the largest node."""
        mm, mv = self._ctx.max_m, self._ctx.max_v
        if self._force_configured_max:
            clock = self._start_clock
            if clock is not None and clock() - self._start_ms > self._max_alloc_wait_ms:
                self._force_configured_max = False
            else:
                return Resource(mm, mv)
        if self.nodes:
            mm, mv = min(mm, self._largest_node[0]), min(mv, self._largest_node[1])
        return Resource(mm, mv)

    def set_force_configured_max_allocation(self, flag: bool) -> None:
        """``ClusterNodeTracker.setForceConfiguredMaxAllocation`` (Hadoop's tests end the window with it)."""
        self._force_configured_max = flag

    def _refresh_largest_node(self) -> None:
        mm = mv = 0
        for n in self.nodes.values():
            mm = max(mm, n.total_m)
            mv = max(mv, n.total_v)
        self._largest_node = (mm, mv)

    def handle_node_update(self, e: Any) -> None:
        self._update_node(e.node_id, e.newly_launched_containers, e.completed_containers)

    def node_update(
        self,
        node_id: NodeId,
        launched: Sequence[ContainerStatus] = (),
        completed: Sequence[ContainerStatus] = (),
    ) -> list[SchedulerNotification]:
        """``handle(NodeUpdateSchedulerEvent(node_id=node_id, newly_launched_containers=tuple(launched),
        completed_containers=tuple(completed)))`` without the event record: the same work, the same notifications.
        (NODE_UPDATE reads nothing else of the event; the RM calls this for its node heartbeats.)"""
        out: list[SchedulerNotification] = []
        self._ctx.outbox = out
        self._update_node(node_id, launched, completed)
        return out

    def _update_node(
        self,
        node_id: NodeId,
        launched: Sequence[ContainerStatus],
        completed: Sequence[ContainerStatus],
    ) -> None:
        """``AbstractYarnScheduler.nodeUpdate``: mark the newly launched containers RUNNING, complete the finished
        ones, then let the scheduler allocate on the node (``schedule_on_heartbeat``)."""
        node = self.nodes.get(node_id)
        if node is None:
            return
        if launched:
            self.mark_launched([st.container_id for st in launched])
        containers = self._ctx.containers
        for st in completed:
            rmc = containers.get(st.container_id)
            if rmc is None or rmc.state == RESERVED:
                continue
            self.complete_container(rmc, st, notify=False)
        self.schedule_on_heartbeat(node, bool(completed))

    def mark_launched(self, container_ids: Iterable[ContainerId]) -> None:
        """NODE_UPDATE's first step (``nodeUpdate``'s newly launched containers): mark each one RUNNING, a
        reservation excepted. Also settles a launched-only NODE_UPDATE after the fact (_shortcuts/_lazyrunning.py)."""
        containers = self._ctx.containers
        for cid in container_ids:
            rmc = containers.get(cid)
            if rmc is not None and rmc.state != RESERVED:
                rmc.state = RUNNING

    # -- containers ending (completedContainer) ----------------------------------------------------------------
    def complete_container(self, rmc: RMContainer, status: ContainerStatus, *, notify: bool) -> None:
        """``completedContainer`` for an allocated container: free it, queue the status for the AM, and (when the
        scheduler itself ends it) tell the RM so the NodeManager cleans it up."""
        app = rmc.app
        release_container(self._ctx, rmc)
        if not app.stopped:
            app.completed.append(status)
        if notify:
            self._ctx.outbox.append(ContainerCompleted(app.attempt_id, rmc.cid, rmc.node.node_id, status))

    def _end_container(self, cid: ContainerId, status: ContainerStatus) -> None:
        rmc = self._ctx.containers.get(cid)
        if rmc is None:
            log.info("Container " + str(cid) + " of unknown or finished application completed")
            return
        if rmc.state == RESERVED:
            unreserve(self._ctx, rmc)
            return
        self.complete_container(rmc, status, notify=True)

    def handle_container_expired(self, e: Any) -> None:
        if getattr(e, "increase", False):
            return  # container increase rollback: resource increases are not modelled
        self._end_container(e.container_id, abnormal_status(e.container_id, EXPIRED_CONTAINER))

    def handle_release_container(self, e: Any) -> None:
        self._end_container(e.container_id, abnormal_status(e.container_id, RELEASED_CONTAINER))

    def handle_kill_reserved(self, e: Any) -> None:
        cid = e.container_id if hasattr(e, "container_id") else e.container.id
        rmc = self._ctx.containers.get(cid)
        if rmc is not None and rmc.state == RESERVED:
            unreserve(self._ctx, rmc)

    def handle_mark_for_preemption(self, e: Any) -> None:
        attempt = self.attempts.get(e.application_attempt_id)
        cid = e.container.id
        if attempt is not None and cid in attempt.live:
            attempt.mark_preempted(cid)

    def handle_mark_killable(self, e: Any) -> None:
        # Lazy preemption is not modelled: a killable container is killed at once (PREEMPTED_CONTAINER).
        cid = e.container.id
        rmc = self._ctx.containers.get(cid)
        if rmc is None:
            return
        if rmc.state == RESERVED:
            unreserve(self._ctx, rmc)
            return
        self.complete_container(rmc, preempted_status(cid), notify=True)

    def handle_mark_nonkillable(self, e: Any) -> None:
        return  # only meaningful with lazy preemption

    # -- containers (getRMContainer, ContainerUpdateContext) ---------------------------------------------------
    def get_rm_container(self, container_id: ContainerId) -> RMContainer | None:
        """``AbstractYarnScheduler.getRMContainer``: the container of that id the scheduler holds (a reservation
        included), or None."""
        return self._ctx.containers.get(container_id)

    def live_container(self, container_id: ContainerId) -> Container | None:
        """The record of an allocated (not reserved) container, as the RM last handed it out; None if unknown."""
        rmc = self._ctx.containers.get(container_id)
        if rmc is None or rmc.state == RESERVED:
            return None
        return rmc.container

    def container_state(self, container_id: ContainerId) -> str | None:
        """``getRMContainer(id).getState()`` for a container the scheduler holds (RESERVED, ALLOCATED, ACQUIRED or
        RUNNING); None if it holds none of that id."""
        rmc = self._ctx.containers.get(container_id)
        return rmc.state if rmc is not None else None

    def absorb_increase(self, temp_id: ContainerId, target_id: ContainerId, version: int) -> Container | None:
        """INCREASE_RESOURCE: the temporary container swapped into ``target_id`` (_updatecontext.py)."""
        return _updatecontext.absorb_increase(self._ctx, temp_id, target_id, version)

    def swap_promoted(self, temp_id: ContainerId, promoted: Container, *, running: bool) -> bool:
        """PROMOTE_EXECUTION_TYPE: the temporary GUARANTEED container becomes ``promoted`` (_updatecontext.py)."""
        return _updatecontext.swap_promoted(self._ctx, temp_id, promoted, running=running)

    def decrease_container(self, container_id: ContainerId, resource: Resource, version: int) -> Container | None:
        """DECREASE_RESOURCE: the container shrinks to ``resource`` at once (_updatecontext.py)."""
        return _updatecontext.decrease_container(self._ctx, container_id, resource, version)

    # -- the AM's allocate: the ask table, the release and the pull (the CapacityScheduler keeps its own allocate and
    # queue charge of the asks, with its AM sizing and fair-ordering hooks, over the rest here) ----------------------
    def allocate(
        self,
        attempt_id: ApplicationAttemptId,
        ask: Sequence[ResourceRequest],
        release: Sequence[ContainerId],
        blacklist_additions: Iterable[str] = (),
        blacklist_removals: Iterable[str] = (),
    ) -> Allocation:
        """``YarnScheduler.allocate``: validate (``ApplicationMasterService``) and normalise the asks, release,
        update the asks and the blacklist, then pull the new containers with the headroom."""
        app = self.attempts.get(attempt_id)
        if app is None or app.stopped:
            log.error("Calling allocate on removed or non existent application " + str(attempt_id.application_id))
            return Allocation()
        maximum = self.maximum_allocation_of(app)
        errors = self.ask_errors(app, ask, maximum)
        if errors:
            return Allocation(headroom=self.headroom_of(app), errors=errors)
        out = self._release_and_ask(app, release, ask, maximum, log_unknown=True)
        app.update_blacklist(blacklist_additions, blacklist_removals)
        return self._pull(app, tuple(out))

    def update_requests(
        self, attempt_id: ApplicationAttemptId, ask: Sequence[ResourceRequest], release: Sequence[ContainerId]
    ) -> tuple[SchedulerNotification, ...]:
        """The RM's own changes to an attempt's requests, made outside the AM's allocate: the asks and temporary
        containers of container updates (``ContainerUpdateContext`` adds and cancels them in ``AppSchedulingInfo``,
        ``SchedulerApplicationAttempt`` kills the temporary ones). :meth:`allocate`'s release and ask update without
        its pull: what the AM has not pulled yet (new and completed containers, preemption marks) waits for its next
        allocate. The asks are the RM's own, valid by construction."""
        app = self.attempts.get(attempt_id)
        if app is None or app.stopped:
            return ()
        return tuple(self._release_and_ask(app, release, ask, self.maximum_allocation_of(app), log_unknown=False))

    def _release_and_ask(
        self,
        app: SchedulerApp,
        release: Sequence[ContainerId],
        ask: Sequence[ResourceRequest],
        maximum: Resource,
        *,
        log_unknown: bool,
    ) -> list[SchedulerNotification]:
        """Release the app's containers in ``release`` and update its asks (both validated by the caller); the
        notifications this makes. A release of a container the app does not hold is skipped, logged as
        ``allocate`` does when ``log_unknown`` (the RM's own releases may name a temporary container gone since)."""
        ctx = self._ctx
        out: list[SchedulerNotification] = []
        ctx.outbox = out
        for cid in release:
            rmc = ctx.containers.get(cid)
            if rmc is None or rmc.app is not app or rmc.cid not in app.live:
                if log_unknown:
                    log.info("Trying to release container not owned by app or with invalid id.", container=str(cid))
                continue
            self.complete_container(rmc, abnormal_status(cid, RELEASED_CONTAINER), notify=True)
        if ask:
            self._update_asks(app, ask, maximum)
        return out

    def _update_asks(self, app: SchedulerApp, asks: Sequence[ResourceRequest], maximum: Resource) -> None:
        """``AppSchedulingInfo.updateResourceRequests`` (:meth:`_apply_asks`); the change of the pending resource is
        also charged to the leaf record the attempt is charged to."""
        leaf = app.queue
        had = app.has_pending()
        dm, dv = self._apply_asks(app, asks, maximum)
        if dm or dv:
            leaf.pending_m += dm
            leaf.pending_v += dv
        leaf.app_asks_changed(app, had, app.has_pending())

    def _apply_asks(self, app: SchedulerApp, asks: Sequence[ResourceRequest], maximum: Resource) -> tuple[int, int]:
        """``AppSchedulingInfo.updateResourceRequests`` (_appscheduling.py): the attempt's pending resource changes by
        the returned (memory, vcores), which the caller charges to its queues."""
        return _appscheduling.apply_asks(self, app, asks, maximum)

    def _pull(self, app: SchedulerApp, notifications: tuple[SchedulerNotification, ...]) -> Allocation:
        """``getAllocation`` with the headroom of :meth:`headroom_of` (_appscheduling.py)."""
        return _appscheduling.pull(self, app, notifications)

    def idle_allocate(self, attempt_id: ApplicationAttemptId) -> Resource | None:
        """The headroom an ``allocate`` with no asks, releases or blacklist changes would return when it would
        return nothing else (no new or completed containers, no live container marked for preemption); None when
        it would return something. Such a call changes nothing but dropping dead preemption marks, done here too."""
        app = self.attempts.get(attempt_id)
        if app is None or app.stopped or app.new_containers or app.completed:
            return None
        if app.preempt:
            if _appscheduling.has_live_mark(app):
                return None
            app.clear_preempted()
        return self.headroom_of(app)


def validate_resource_request(r: ResourceRequest, maximum: Resource) -> str | None:
    """``SchedulerUtils.validateResourceRequest``: each resource type within ``[0, maximum]``."""
    cap = r.capability
    for name, value, top in (("memory-mb", cap.memory_mb, maximum.memory_mb), ("vcores", cap.vcores, maximum.vcores)):
        if value < 0:
            return (
                "Invalid resource request! Cannot allocate containers as requested resource is less than 0! "
                f"Requested resource type=[{name}], Requested resource={cap}"
            )
        if value > top:
            return (
                "Invalid resource request! Cannot allocate containers as requested resource is greater than "
                f"maximum allowed allocation. Requested resource type=[{name}], Requested resource={cap}, "
                f"maximum allowed allocation={maximum}, please note that maximum allowed allocation is "
                "calculated by scheduler based on maximum resource of registered NodeManagers, which might "
                f"be less than configured maximum allocation={maximum}"
            )
    if r.num_containers < 0:
        return f"Invalid resource request, number of containers is negative: {r.num_containers}"
    return None
