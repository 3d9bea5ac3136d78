"""The dispatcher into the scheduler (``ResourceManager.SchedulerEventDispatcher``), with the RM's container books
and the ContainerAllocationExpirer.

Every scheduler event goes through :meth:`SchedulerEventDispatcher.dispatch` (``rm.dispatch``), which hands it to
the scheduler (a ``ResourceScheduler``: policies/scheduler/_interface.py), records the operation's count and
wall-clock cost (SLS's SchedulerMetrics) and acts on what the scheduler answers: accepted and rejected applications
and added attempts go to the RMAppManager (actors/_rmappmanager.py); allocated, reserved and completed containers
are entered in the RM's books (``rm.live``, ``rm.unlaunched``) here. A node's NODE_UPDATE and an AM's allocate take
their own entries (:meth:`~SchedulerEventDispatcher.node_update`, :meth:`~SchedulerEventDispatcher.allocate`), which
do the same work without an event record when nothing can observe it.

The optional services join as members chosen when the RM is built (:meth:`SchedulerEventDispatcher.build_chain`):
*claimers* of a GUARANTEED allocation that serves them (a promotion, an increase), *absorbers* of a container the
scheduler released that lives on (a demotion), *done listeners* of a container's end (an increase withdrawn), and
*expirers* with the ContainerAllocationExpirer (increases the NM never applied, OPPORTUNISTIC containers placed on a
node already removed). Without them the chains are empty.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from mypy_extensions import mypyc_attr

from yarnball.actors._rmapp import AttemptState, RMApp, RMAppAttempt
from yarnball.actors._rmcontext import RMContext
from yarnball.actors._shortcuts import OwnMethod, is_bound
from yarnball.policies.scheduler import (
    PROVEN_SCHEDULER_CLASS,
    AppAccepted,
    AppRejected,
    AttemptAdded,
    ContainerAllocated,
    ContainerCompleted,
    ContainerReserved,
)
from yarnball.protocols import (
    ApplicationAttemptId,
    ContainerExitStatus,
    ContainerExpiredSchedulerEvent,
    ContainerId,
    ContainerPreemptEvent,
    ContainerStatus,
    NodeId,
    NodeUpdateSchedulerEvent,
)

__all__ = ["SchedulerEventDispatcher"]

# Whether the scheduler runs the own allocate / handle of the class the fast paths below are proven against (the
# CapacityScheduler's: policies/scheduler/_factory.py; actors/_shortcuts/_ownmethods.py; tests set
# ``_CS_ALLOCATE.func`` to None to take the general path).
_CS_ALLOCATE = OwnMethod(PROVEN_SCHEDULER_CLASS, "allocate")
_CS_HANDLE = OwnMethod(PROVEN_SCHEDULER_CLASS, "handle")
# (module constants: reading a member off an Enum class goes through EnumType.__getattr__'s slow attribute hook)
_SUCCESS = ContainerExitStatus.SUCCESS
_PREEMPTED = ContainerExitStatus.PREEMPTED
_SCHEDULED = AttemptState.SCHEDULED
_perf_counter = time.perf_counter
# Scheduler event class -> its SchedulerEventType name (the op-count key), looked up once per class: reading an
# enum member's ``value`` costs a descriptor call on every heartbeat.
_EVENT_NAMES: dict[type, str] = {}


@mypyc_attr(allow_interpreted_subclasses=True)
class SchedulerEventDispatcher:
    """The dispatcher of the RM ``rm`` into its scheduler (see the module docstring)."""

    def __init__(self, rm: Any) -> None:
        self.rm = rm
        self.context: RMContext = rm.context  # (actors/_rmcontext.py: its fields are native reads)
        #: ``rm.dispatch`` when it was last found to be this dispatcher's own ``dispatch`` while ``_DISPATCH`` was
        #: ``own_for`` (node_update: one identity test per heartbeat instead of :func:`is_bound`'s method reads).
        self.own_dispatch: Any = None
        self.own_for: Any = None
        #: The members (chosen by build_chain).
        self.claimers: tuple[Any, ...] = ()
        self.absorbers: tuple[Any, ...] = ()
        self.done_listeners: tuple[Any, ...] = ()
        self.expirers: tuple[Any, ...] = ()
        #: The first refusal of each attempt whose last allocate with asks was refused (InvalidResourceRequest):
        #: the stall check reads it (launcher/_stall.py); an allocate whose asks are taken clears it.
        self.refused_asks: dict[ApplicationAttemptId, str] = {}
        #: The scheduler last checked for the CapacityScheduler's own ``handle`` and ``allocate`` (:meth:`_prove`),
        #: and what it runs: the fast paths of node_update and allocate ask these instead of the methods per call.
        self.proven: Any = None
        self.own_handle = False
        self.own_allocate = False
        self._log: Any = None
        self.build_chain()

    def build_chain(self) -> None:
        """Choose the members from the RM's optional services (see the module docstring)."""
        rm = self.rm
        opportunistic, resize = rm.opportunistic, rm.resize
        claimers: list[Any] = []
        if opportunistic is not None:
            claimers.append(opportunistic.on_guaranteed_allocated)  # it serves a promotion
        if resize is not None:
            claimers.append(resize.on_guaranteed_allocated)  # it serves an increase
        self.claimers = tuple(claimers)
        # a demoted container leaving the scheduler's books runs on as OPPORTUNISTIC
        self.absorbers = (opportunistic.absorbs_release,) if opportunistic is not None else ()
        self.done_listeners = (resize.on_container_done,) if resize is not None else ()
        expirers: list[Any] = []
        if opportunistic is not None:
            expirers.append(opportunistic.expire)  # containers placed on a node already removed
        if resize is not None:
            expirers.append(resize.expire)  # increases the NM never applied
        self.expirers = tuple(expirers)

    @property
    def log(self) -> Any:
        """The RM's bound logger (``Actor.log``), taken on first use: the RM has no id before it is spawned."""
        log = self._log
        if log is None:
            log = self._log = self.rm.log
        return log

    def _prove(self, scheduler: Any) -> None:
        """Whether ``scheduler`` runs the CapacityScheduler's own ``handle`` and ``allocate`` (neither overridden
        nor replaced on the instance), checked once per scheduler (an RM restart makes a new one) at its first
        NODE_UPDATE or allocate: a test replaces these methods, or switches the fast paths off
        (``_CS_HANDLE.func``, ``_CS_ALLOCATE.func``), before the run."""
        self.proven = scheduler
        self.own_handle = _CS_HANDLE.runs(scheduler, scheduler.handle)
        self.own_allocate = _CS_ALLOCATE.runs(scheduler, scheduler.allocate)

    # -- the dispatcher -----------------------------------------------------------------------------------------
    def dispatch(self, event: Any) -> None:
        """Hand one scheduler event to the scheduler and act on its notifications."""
        ctx = self.context
        name = _EVENT_NAMES.get(type(event))
        if name is None:
            name = event.event_type.value
            if "event_type" not in getattr(type(event), "__struct_fields__", ("event_type",)):
                _EVENT_NAMES[type(event)] = name  # a class constant (ClassVar), not a field
        start = _perf_counter()
        notes = ctx.scheduler.handle(event)
        ctx.op_seconds[name] += _perf_counter() - start
        ctx.op_counts[name] += 1
        self.on_notifications(notes)

    def heartbeat_node_update(
        self, node_id: NodeId, launched: list[Any], completed: list[Any], settles: bool, settle_after_update: bool
    ) -> bool:
        """A node heartbeat's NODE_UPDATE (ResourceTrackerService.nodeHeartbeat's event to the scheduler), and
        whether it settled the node (``ResourceTrackerService.node_heartbeat``: ``settles`` when the tracker may
        settle at all, ``settle_after_update`` its switch for a full NODE_UPDATE)."""
        ctx = self.context
        scheduler = ctx.scheduler
        if not completed and scheduler.node_update_launched_only(node_id, launched):
            # The NODE_UPDATE only marked containers RUNNING and returned no notification (a full node, say):
            # dispatch's work without the event record (only its time cost is not recorded).
            ctx.op_counts["NODE_UPDATE"] += 1
            return settles and not scheduler.continuous_scheduling
        self.node_update(node_id, launched, completed)
        return (
            settle_after_update
            and settles
            and not scheduler.continuous_scheduling
            and scheduler.node_update_is_noop(node_id)
        )

    def node_update(self, node_id: NodeId, launched: list[Any], completed: list[Any]) -> None:
        """``dispatch(NodeUpdateSchedulerEvent(node_id=node_id, newly_launched_containers=tuple(launched),
        completed_containers=tuple(completed)))``, without the event record when nothing can observe it.

        Exact: ``dispatch`` reads only the event's class (its op name, NODE_UPDATE) and hands the event to
        ``CapacityScheduler.handle``, whose NODE_UPDATE handler reads only these three fields;
        ``CapacityScheduler.node_update`` does that handler's work on them and returns the same notifications, and
        the op count and time are recorded under the same name. The record stays where it could be seen: an
        ``rm.dispatch`` replaced on the RM (tests record every scheduler event) or overridden in a subclass, and
        a scheduler whose ``handle`` is replaced or overridden."""
        ctx = self.context
        rm = self.rm
        scheduler = ctx.scheduler
        if scheduler is not self.proven:
            self._prove(scheduler)
        dispatch = rm.dispatch
        if (dispatch is not self.own_dispatch or self.own_for is not _DISPATCH) and is_bound(self, dispatch, _DISPATCH):
            self.own_dispatch, self.own_for = dispatch, _DISPATCH  # (a bound method never changes what it runs)
        if (
            # replaced or overridden: read through the bound method, never through the RM's ``__dict__`` (that would
            # move its attribute values out of CPython's inline storage for the rest of the run: see
            # _kernel.enter_replaced); a compiled method has no ``__func__`` (is_bound)
            dispatch is not self.own_dispatch or self.own_for is not _DISPATCH or not self.own_handle
        ):
            # (the same event as NodeUpdateSchedulerEvent(node_id=node.id) when there is nothing to report)
            rm.dispatch(
                NodeUpdateSchedulerEvent(
                    node_id=node_id, newly_launched_containers=tuple(launched), completed_containers=tuple(completed)
                )
            )
            return
        start = _perf_counter()
        notes = scheduler.node_update(node_id, launched, completed)
        ctx.op_seconds["NODE_UPDATE"] += _perf_counter() - start
        ctx.op_counts["NODE_UPDATE"] += 1
        self.on_notifications(notes)

    def on_container_preempt(self, msg: ContainerPreemptEvent) -> None:
        """The preemption monitor's MARK_CONTAINER_FOR_PREEMPTION / MARK_CONTAINER_FOR_KILLABLE /
        KILL_RESERVED_CONTAINER, put through the dispatcher like every scheduler event."""
        ctx = self.context
        rm = self.rm
        ctx.counters["preemption_" + msg.event_type.value.lower()] += 1
        if ctx.dormant.sleepers:
            ctx.dormant.wake(msg.application_attempt_id)  # a mark reaches the AM in its next allocate
        rm.dispatch(msg)

    def continuous_scheduling(self) -> None:
        ctx = self.context
        start = time.perf_counter()
        notes = ctx.scheduler.continuous_scheduling_attempt()
        ctx.op_seconds["continuous_scheduling"] += time.perf_counter() - start
        ctx.op_counts["continuous_scheduling"] += 1
        self.on_notifications(notes)

    def allocate(self, attempt_id: ApplicationAttemptId, ask: Any, release: Any, blacklist: Any = None) -> Any:
        """``CapacityScheduler.allocate`` for ``attempt_id``, its notifications acted on."""
        ctx = self.context
        scheduler = ctx.scheduler
        if scheduler is not self.proven:
            self._prove(scheduler)
        allocate = scheduler.allocate
        if (
            not ask
            and not release
            and (blacklist is None or not (blacklist.blacklist_additions or blacklist.blacklist_removals))
            and self.own_allocate
        ):
            # A pull (most AM heartbeats): CapacityScheduler.allocate then only hands over what is there (_pull):
            # no errors, no notifications, pending asks unchanged (so no wake_needed): only the timing remains.
            start = _perf_counter()
            allocation = allocate(attempt_id, (), (), (), ())
            ctx.op_seconds["allocate"] += _perf_counter() - start
            ctx.op_counts["allocate"] += 1
            return allocation
        clock = ctx.heartbeats
        had_pending = clock is None or not clock.skip or scheduler.has_pending()
        start = _perf_counter()
        allocation = allocate(
            attempt_id,
            ask,
            release,
            blacklist.blacklist_additions if blacklist is not None else (),
            blacklist.blacklist_removals if blacklist is not None else (),
        )
        ctx.op_seconds["allocate"] += _perf_counter() - start
        ctx.op_counts["allocate"] += 1
        for error in allocation.errors:
            ctx.counters["invalid_resource_requests"] += 1
            self.log.warning("invalid_resource_request", attempt=str(attempt_id), error=error)
        if allocation.errors:
            self.refused_asks[attempt_id] = allocation.errors[0]
        elif ask and self.refused_asks:
            self.refused_asks.pop(attempt_id, None)
        self.on_notifications(allocation.notifications)
        if not had_pending and ctx.scheduler.has_pending():
            clock.wake_needed()  # type: ignore[union-attr]  # asks appeared: dormant nodes with room matter again
        return allocation

    def update_requests(self, attempt_id: ApplicationAttemptId, ask: Any, release: Any) -> None:
        """The RM's own ask and release changes for ``attempt_id`` (promotions, increases and their temporary
        containers: actors/_opportunisticams.py, actors/_containerresize.py), without pulling what waits for the
        AM's next allocate (``CapacityScheduler.update_requests``)."""
        ctx = self.context
        clock = ctx.heartbeats
        had_pending = clock is None or not clock.skip or ctx.scheduler.has_pending()
        self.on_notifications(ctx.scheduler.update_requests(attempt_id, ask, release))
        if not had_pending and ctx.scheduler.has_pending():
            clock.wake_needed()  # type: ignore[union-attr]  # asks appeared: dormant nodes with room matter again

    # -- the scheduler's notifications ----------------------------------------------------------------------------
    def on_notifications(self, notes: Any) -> None:
        ctx = self.context
        if not notes:
            return  # (most heartbeats: no iterator made over nothing)
        sleepers = ctx.dormant.sleepers
        if sleepers:
            # a container allocated, reserved or completed for a dormant AM's attempt (or the attempt added) wakes
            # it, before any note is acted on (DormantAMs.wake for each, inline: no call when none sleeps)
            for note in notes:
                sleeper = sleepers.get(getattr(note, "attempt_id", None))
                if sleeper is not None:
                    sleeper.wake()
        for note in notes:
            kind = type(note)
            if kind is ContainerAllocated:
                self.on_allocated(note)
            elif kind is ContainerCompleted:
                self.on_scheduler_completed(note)
            elif kind is AppAccepted:
                ctx.app_manager.on_accepted(note.application_id, note.queue)
            elif kind is AppRejected:
                ctx.app_manager.on_rejected(note.application_id, note.diagnostics)
            elif kind is AttemptAdded:
                ctx.app_manager.on_attempt_added(note.attempt_id)
            elif kind is ContainerReserved:
                ctx.counters["containers_reserved"] += 1

    def on_allocated(self, note: ContainerAllocated) -> None:
        ctx = self.context
        container = note.container
        # (the chains are empty tuples without the optional services: tested first, no iterator made per container)
        if self.claimers:
            for claim in self.claimers:
                if claim(note.attempt_id, container):
                    return  # it serves a promotion or an increase: not a container of its own
        ctx.counters["containers_allocated"] += 1
        cid = container.id
        node_id = container.node_id
        log = self.log
        if log.is_enabled_for(logging.DEBUG):
            # FiCaSchedulerApp.apply's "allocate: applicationAttemptId=... container=... host=... type=..." (debug)
            log.debug(
                "container_allocated",
                attempt=str(note.attempt_id),
                container=str(cid),
                node=str(node_id),
                type=note.locality,
                memory_mb=container.resource.memory_mb,
                vcores=container.resource.vcores,
            )
        now = ctx.kernel.now
        ctx.live.add(cid)
        ctx.unlaunched[cid] = (now, node_id)
        attempt_id = note.attempt_id
        app: RMApp | None = ctx.apps.get(attempt_id.application_id)  # (typed: native calls, compiled)
        if app is not None:
            app.nodes.add(node_id)
            if app.first_task_time is None and not note.is_am:
                app.first_task_time = now
            app.container_allocated(cid, now, container.resource, is_am=note.is_am)
        if note.is_am:  # (the attempt is looked up for an AM container only)
            attempt: RMAppAttempt | None = ctx.attempts.get(attempt_id)
            if attempt is not None and app is not None and attempt.state is _SCHEDULED:
                ctx.app_manager.launch_am(app, attempt, container)

    def on_scheduler_completed(self, note: ContainerCompleted) -> None:
        """The scheduler ended a container itself: the NM must kill it, and an AM container ends its attempt."""
        ctx = self.context
        if self.absorbers:
            for absorbs in self.absorbers:
                if absorbs(note.container_id):
                    return  # a demoted container leaving the scheduler's books: it runs on as OPPORTUNISTIC
        self.container_done(note.container_id, note.status)
        rm = self.rm
        node = ctx.nodes.get(note.node_id)
        if node is not None:
            node.queue_cleanup(note.container_id)
            rm.wake_node(note.node_id)

    def container_done(self, cid: ContainerId, status: ContainerStatus) -> None:
        """A container ended (reported by its NM, ended by the scheduler or the RM): out of the RM's books, counted,
        and an AM container ends its attempt."""
        ctx = self.context
        sleepers = ctx.dormant.sleepers
        if sleepers:
            sleeper = sleepers.get(cid.application_attempt_id)  # DormantAMs.wake, inline
            if sleeper is not None:
                sleeper.wake()  # its AM will hear of the completion
        ctx.unlaunched.pop(cid, None)
        live = ctx.live
        if cid not in live:
            return
        live.discard(cid)
        if self.done_listeners:
            for listener in self.done_listeners:
                listener(cid)
        exit_status = status.exit_status
        log = self.log
        if log.is_enabled_for(logging.DEBUG):
            # (what the invariant checker reads, yarnball/_invariants.py: every container ends exactly once)
            log.debug("container_finished", container=str(cid), exit_status=exit_status, diagnostics=status.diagnostics)
        counters = ctx.counters
        if exit_status == _PREEMPTED:
            counters["containers_preempted"] += 1
        elif exit_status == _SUCCESS:
            counters["containers_completed"] += 1
        elif status.diagnostics.startswith("Container released on a *lost* node"):
            counters["containers_lost"] += 1
        else:
            counters["containers_killed"] += 1
        app: RMApp | None = ctx.apps.get(cid.application_attempt_id.application_id)
        if app is not None:
            app.container_finished(cid, ctx.kernel.now, exit_status)  # before the attempt hears of it, as Hadoop
        attempt_id = ctx.am_containers.pop(cid, None)
        if attempt_id is not None:
            ctx.app_manager.am_container_finished(attempt_id, status)

    # -- ContainerAllocationExpirer -------------------------------------------------------------------------------
    def check_container_expiry(self) -> None:
        ctx = self.context
        rm = self.rm
        clock = ctx.heartbeats
        if clock is not None and clock.lazy is not None:
            clock.lazy.settle_all()  # deferred RUNNING reports leave unlaunched (actors/_shortcuts/_lazyrunning.py)
        deadline = ctx.kernel.now - rm.alloc_expiry_ms
        for cid, (allocated_at, _node) in list(ctx.unlaunched.items()):
            if allocated_at < deadline:
                self.log.info("container_expired", container=str(cid))
                rm.dispatch(ContainerExpiredSchedulerEvent(container_id=cid))
        for expire in self.expirers:
            expire(ctx.kernel.now)


# SchedulerEventDispatcher.node_update hands NODE_UPDATE to the scheduler without the event record only while
# rm.dispatch and the scheduler's handle are these (tests set _DISPATCH to None to compare with the record path).
_DISPATCH: Any = SchedulerEventDispatcher.dispatch
