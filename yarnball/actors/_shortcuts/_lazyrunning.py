"""RUNNING reports of dormant NodeManagers settled lazily: no heartbeat event for a container newly RUNNING on a
node whose heartbeat would only mark it RUNNING.

**The heartbeat it replaces.** With skipping on, an NM whose clock is dormant (``NodeBeat.armed`` False, see
actors/_heartbeats.py) wakes when a container it started turns RUNNING (``NodeManager._launch``): its next phase
point ``p`` then sends a real heartbeat reporting only RUNNING statuses. When the RM's ``needs_heartbeat`` is False
for the node at ``p`` (it is in the RM and the scheduler, nothing to clean up, ``node_update_is_noop``) that
heartbeat takes the launched-only fast path (``ResourceTrackerService.node_heartbeat`` and
``CapacityScheduler.node_update_launched_only``), whose whole effect is: ``HeartbeatClock.real`` + 1; the RMNode's
``last_heartbeat = p``; each reported container still in ``rm.unlaunched`` leaves it and its RMContainer (unless
reserved) becomes RUNNING; ``op_counts["NODE_UPDATE"]`` + 1; the RMNode's response id + 1, stored as the NM's
(``NodeManager.take_plain_response``); nothing is logged, nothing is queued (``_settled``: the clock stays
dormant) and no message is sent. In the kernel it is the event ``(p, HEARTBEAT + i, o, s)`` queued when the NM
woke, and two sequences: ``s`` of the waking origin and the one the inline request takes from the NM's.

**What is done instead.** :meth:`LazyRunning.defer`, called by ``_launch`` for a dormant NM with no other change
pending, records the status (as the launched container record, the status built from it only when it is put
back) in a *group* ``(p, statuses)`` on the NodeBeat (``p`` = ``HeartbeatClock.next_phase_point``, the
phase point the wake would have armed; several launches before ``p`` share its group, a launch after it starts the
next one) and leaves the clock dormant. A group is *passed* once the run's position is beyond ``(p, HEARTBEAT + i)``,
i.e. ``p < next_phase_point(beat)``.

**Why a passed group was a fast-path heartbeat.** ``defer`` checks ``needs_heartbeat`` False at the launch. Every
change that can make it True wakes the clock (the invariant skipping already rests on: cleanup queued
``ResourceManager._wake``; pending asks appearing ``HeartbeatClock.wake_needed``; room on the node appears only by a
completion, reported by this NM (its ``_complete`` wakes it) or made by the scheduler (cleanup queued: woken); a
reservation on the node is made only in its own NODE_UPDATE; node removal: liveness expiry (settles first, below),
unregistration (the NM's ``decommission`` flushes first), re-registration (only after a heartbeat, which wakes)).
None of those inputs (``pending_cleanup``, scheduler node room, reservations, pending asks, RM node set) is
touched by what is deferred (response ids, ``last_heartbeat``, ``unlaunched``, RMContainer RUNNING/ALLOCATED,
op counts), so the same wakes happen with and without deferral. Hence if nothing woke the clock before ``p``, at
``p`` the heartbeat would have reported exactly the group (any other status wakes the clock), with
``needs_heartbeat`` False: the fast path above.

**Waking.** When anything arms the clock (``HeartbeatClock._arm`` for the phase point ``q = next_phase_point(beat)``),
every passed group is settled first and the group of ``q`` (if any; no group is later than ``q``) is put back in front
of the NM's ``_changes``: without deferral those statuses were appended there before any status that woke the clock
(deferral needs ``_changes`` empty, and once non-empty the clock is armed), and the heartbeat at ``q`` reports them
together in that order. ``HeartbeatClock.start`` (a new interval) and ``stopped`` (the NM dies or leaves) settle the
passed groups and put the rest back in ``_changes`` as they were (``start`` re-arms, ``stopped`` does not).

**Settled before anyone looks.** A passed group is settled (the effect above, with ``p`` as the time) before any
reader of that state runs: the node's own next heartbeat or virtual heartbeat (both need the clock armed), the RM's
container-allocation expiry check (``unlaunched``) and node liveness check (``last_heartbeat``), a metrics sample
(``op_counts``), the end of every ``Cluster.run`` (whoever inspects the cluster), an RM stopping, and the NM's
interval change, stop or decommission. Between ``p`` and the settle only two readers can meet a deferred container:
the scheduler ending it (a kill, a preemption, a release, its attempt removed), which reads an RMContainer's state
only to tell RESERVED (a deferred one never is) or to keep RUNNING containers across attempts (the RM never asks
for that); and ``SchedulerEventDispatcher.container_done`` popping it from ``unlaunched`` first, after which the
settle's pop finds nothing and leaves the ended RMContainer (no longer in the scheduler) as it is: every state anyone
can reach is the same.
The preemption monitor's snapshot reads an RMContainer's state only as RESERVED or not (and as a cache key).

**The kernel.** The skipped event popped and queued nothing else, so no other event moves; it can be the highest
event at ``p`` (``Kernel.high``/``priority``) only until the next event pops, which is above it, and nothing runs in
between. The sequences it took are not taken: each origin's later sequences are all one lower, or (a wake that
without deferral found the clock armed now arms it) one higher, which keeps the order of every origin's own events;
events of different origins never compare sequences; a dormant AM's sequence arithmetic (_shortcuts/_amdormancy.py)
starts from the AM's counter when it goes dormant and no NM wake runs as a dormant AM. Only
``Kernel.events_processed`` differs, as for the inline heartbeats.

**Where the heartbeat stays.** Deferral needs what makes the fast path exact at ``p`` and the in-place hand-over
the path it takes (_routes.py ``InPlaceHeartbeats``): skipping on (so zero latency, an embedded kernel, no opportunistic
containers, AMRMProxy, packing or autoscaler: ``Cluster._skipping_proven``, which switches this off with the rest;
the sharded and Ray backends never enable it), no per-link latency, no ``run_async``, no hooked ``Kernel._enter``,
the Cluster's delivery in place, an NM that would take the heartbeat's plain response
(``NodeManager.may_defer_running``), an RM on this kernel that is running, without continuous scheduling or the
opportunistic service, with the stock heartbeat path (``ResourceManager.runs_stock_heartbeats``: a
ResourceTrackerService that replaces ``node_heartbeat`` or ``handle_node_heartbeat`` keeps every heartbeat), and
an empty heartbeat the RM does not need (``HeartbeatClock.needs``, the RM's ``needs_heartbeat`` with every check it
makes). Per-link latencies must not be set in the middle of a run.
tests/test_lazy_running.py compares busy runs with ``yarnball.simulation.lazy-running-reports`` on and off.

Compiled with mypyc (yarnball/_native.py), with actors/_heartbeats.py: LazyRunning is a native class (a test may
subclass it in Python).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from yarnball.actors._shortcuts._ownmethods import is_bound, sealed
from yarnball.actors._shortcuts._routes import InPlaceHeartbeats

if TYPE_CHECKING:
    from yarnball.actors._heartbeats import HeartbeatClock, NodeBeat
    from yarnball.actors._resourcemanager import ResourceManager
    from yarnball.actors._rmcontext import RMContext

__all__ = ["LazyRunning"]


@mypyc_attr(allow_interpreted_subclasses=True)  # (a test leaves out its settles in a Python subclass)
class LazyRunning:
    """``HeartbeatClock.lazy``: defers and settles the RUNNING-only heartbeats of dormant NMs (module docstring)."""

    __slots__ = ("checked", "clock", "context", "deferred", "enabled", "pending", "rm")

    def __init__(self, clock: HeartbeatClock, rm: ResourceManager) -> None:
        self.clock = clock
        self.rm = rm
        self.context: RMContext = rm.context  # (actors/_rmcontext.py: its fields are native reads)
        self.enabled = True
        #: NodeBeats holding groups, in the order they got their first (a dict: insertion-ordered, O(1) removal)
        self.pending: dict[NodeBeat, None] = {}
        self.checked = False  # the RM's invariant conditions were found to hold (checked once)
        self.deferred = 0  # RUNNING statuses deferred so far
        clock.lazy = self

    # -- deferring ---------------------------------------------------------------------------------------------
    def defer(self, nm: Any, beat: NodeBeat, container: Any) -> bool:
        """Record the RUNNING report of ``container`` (the frozen record it was launched with; its status is built
        only if it is put back) of dormant ``nm`` for its next phase point instead of waking its clock; False
        (nothing done) when the heartbeat must run."""
        ctx = self.context
        clock = self.clock
        kernel = clock.kernel
        rm = self.rm
        if (
            not self.enabled
            or not clock.skip
            or beat.died_at is not None
            or type(getattr(clock.inline, "__self__", None)) is not InPlaceHeartbeats
            or not kernel.instant
            or kernel.running_async
            or kernel.enter_hooked  # (the run loop shows every event to a hooked _enter)
            or rm.is_stopped
            or not nm.may_defer_running(ctx.heartbeat_interval_ms)
        ):
            return False
        # the tracker's heartbeat methods replaced on the instance (a spy)? read through the bound methods (none can
        # be on an instance without a __dict__: a compiled tracker)
        tracker = ctx.resource_tracker
        cls = type(tracker)
        if sealed(cls) is None and not (
            is_bound(tracker, tracker.node_heartbeat, cls.node_heartbeat)
            and is_bound(tracker, tracker.handle_node_heartbeat, cls.handle_node_heartbeat)
        ):
            return False
        if not self.checked:
            if not self._rm_qualifies(nm):
                return False
            self.checked = True
        node_id = nm.node_id
        if node_id not in ctx.scheduler.nodes or clock.needs(node_id):
            return False
        p = clock.next_phase_point(beat)
        self.deferred += 1
        groups = beat.lazy
        if groups is None:
            beat.lazy = [(p, [container])]
            self.pending[beat] = None
        elif groups[-1][0] == p:
            groups[-1][1].append(container)
        else:
            groups.append((p, [container]))
        return True

    def _rm_qualifies(self, nm: Any) -> bool:
        """What cannot change about the RM (checked once)."""
        ctx = self.context
        rm = self.rm
        ref = nm.rm
        scheduler = ctx.scheduler
        return (
            ref.actor is rm
            and ref.kernel is self.clock.kernel
            and ctx.heartbeats is self.clock
            and rm.opportunistic is None
            and not scheduler.continuous_scheduling
            and not scheduler.placement.packs(len(scheduler.nodes))
            and rm.runs_stock_heartbeats()
        )

    # -- settling ----------------------------------------------------------------------------------------------
    def _settle(self, nm: Any, p: Any, containers: list[Any]) -> None:
        """The fast-path heartbeat of ``nm`` at ``p`` reporting ``containers`` RUNNING, after the fact."""
        ctx = self.context
        self.clock.real += 1
        node = ctx.nodes.get(nm.node_id)
        if node is None:  # (cannot happen: the node is removed only after a settle, see the module docstring)
            return
        node.last_heartbeat = p
        unlaunched = ctx.unlaunched
        launched = []
        for container in containers:
            cid = container.id
            if unlaunched.pop(cid, None) is not None:
                launched.append(cid)
        if launched:
            ctx.scheduler.mark_launched(launched)
        ctx.op_counts["NODE_UPDATE"] += 1
        node.response_id += 1
        nm.heartbeat_answered(node.response_id)

    def armed(self, beat: NodeBeat, t: Any) -> None:
        """``beat`` is being armed for its phase point ``t``: settle the passed groups, give ``t``'s back."""
        self._settle_before(beat, t)
        self._put_back(beat)

    def settle(self, beat: NodeBeat) -> None:
        """Settle ``beat``'s passed groups (the run is beyond their phase points)."""
        if beat.lazy is not None:
            self._settle_before(beat, self.clock.next_phase_point(beat))

    def flush(self, beat: NodeBeat) -> None:
        """Settle ``beat``'s passed groups and put the rest back in the NM's ``_changes`` (the clock is re-armed or
        stopped by the caller)."""
        self.settle(beat)
        self._put_back(beat)

    def _settle_before(self, beat: NodeBeat, q: Any) -> None:
        """Settle ``beat``'s groups whose phase points are before ``q``, in order."""
        groups = beat.lazy
        if groups is None:
            return
        n = 0
        for p, containers in groups:
            if p >= q:
                break
            self._settle(beat.nm, p, containers)
            n += 1
        if n == len(groups):
            beat.lazy = None
            del self.pending[beat]
        elif n:
            del groups[:n]

    def _put_back(self, beat: NodeBeat) -> None:
        """Put ``beat``'s remaining groups back at the front of the NM's ``_changes``, in order, ahead of anything
        newer (they were changes before it)."""
        groups = beat.lazy
        if groups is not None:
            beat.lazy = None
            del self.pending[beat]
            nm = beat.nm
            for i in range(len(groups) - 1, -1, -1):  # (reversed(groups): mypyc cannot type it here)
                nm.report_first(groups[i][1])

    def settle_all(self) -> None:
        """Settle every passed group (before the RM's monitors, a metrics sample, the end of a run)."""
        if self.pending:
            for beat in list(self.pending):
                self.settle(beat)

    def disable(self) -> None:
        """Stop deferring: every group is settled or put back, and its clock armed as the launch would have."""
        self.enabled = False
        for beat in list(self.pending):
            self.flush(beat)
            if beat.nm.has_news():
                self.clock.wake(beat)
