"""NodeManager heartbeat timing, and the skipping of heartbeats that provably change nothing.

Every NodeManager heartbeats at its *phase points*: ``start + k * interval`` (k >= 1), where ``start`` is when it
registered (or when the RM last changed its interval). :class:`HeartbeatClock` owns these timers for all nodes of a
cluster so that both modes below process heartbeats in one canonical order:

* A heartbeat event runs at priority ``HEARTBEAT + node index`` (index = definition order, see
  :meth:`HeartbeatClock.define`; registration order for a node never defined): after every NORMAL
  event of the same simulated time (container completions, AM heartbeats, message deliveries), and same-time
  heartbeats by node. With zero NM<->RM latency one heartbeat's whole chain (request, RM handling, NODE_UPDATE,
  response, NM handling) runs before the next node's heartbeat event, so every heartbeat is atomic.
* **Every heartbeat processed** (``skip=False``): each phase point sends a real NodeHeartbeatRequest, as Hadoop does.
* **Skipping** (``skip=True``, ``yarnball.simulation.skip-idle-heartbeats``): at a phase point the NM sends a real
  heartbeat only if it has container status changes to report (or has never had a heartbeat answered). Otherwise
  the RM is asked whether an *empty* heartbeat could change anything (:meth:`ResourceTrackerService.needs_heartbeat`:
  it has containers or applications to clean up on the node, the node holds a reservation, or applications have
  pending asks and the node has room for a minimum allocation). If so the RM processes a virtual empty heartbeat
  (the same code path, the response goes to the NM); if not, the heartbeat is a no-op — the CapacityScheduler
  returns from NODE_UPDATE before touching any queue or application, so no scheduling-opportunity or locality
  counter moves (see ``CapacityScheduler.node_update_is_noop``) — and it is skipped.
  A node whose next heartbeat is a no-op has no event at all (it is *dormant*). It is woken (its next phase point
  after the current position is scheduled) by whatever can make a heartbeat matter: a container status change on
  the NM, cleanup queued for it by the RM, or pending asks appearing while the node has room. The RM treats a
  dormant NM as heartbeating (liveness uses the phase points while the NM is alive).

Only the count of processed NODE_UPDATE events (the scheduler operation counts) differs between the two modes;
tests/test_heartbeat_skipping.py runs the same workloads both ways and compares everything else.

This module is compiled with mypyc (yarnball/_native.py): NodeBeat and HeartbeatClock are native classes (no new
attributes, no methods replaced on instances), and times are typed ``Any`` so that they keep the run's type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yarnball.actors._kernel import Kernel
from yarnball.actors._shortcuts import heartbeat_route

__all__ = ["HEARTBEAT", "HeartbeatClock", "NodeBeat"]

#: Priority of the first node's heartbeat events; node ``i`` uses ``HEARTBEAT + i`` (after NORMAL = 1).
HEARTBEAT = 2


class NodeBeat:
    """The heartbeat timer state of one NodeManager."""

    __slots__ = ("armed", "died_at", "due", "interval", "lazy", "nm", "owner", "priority", "start")

    def __init__(self, nm: Any, priority: int) -> None:
        self.nm = nm
        self.owner: str = nm.ref.id  # the owner of its heartbeat events (the NM's actor id, see HeartbeatClock.start)
        self.priority = priority
        # Times are Any, not float: compiled (yarnball/_native.py), a float field would turn the int milliseconds
        # of a run into floats, which then meet ints in every heap comparison (slower, and a different type).
        self.start: Any = 0.0
        self.interval: Any = 1000.0
        self.armed = False
        self.due: Any = -1.0  # the phase point the armed event is for (a stale event does not match it)
        self.died_at: Any = None  # last phase point the NM was alive at, once it stopped (None: alive)
        self.lazy: list[tuple[Any, list[Any]]] | None = None  # deferred RUNNING reports (_shortcuts/_lazyrunning.py)


class HeartbeatClock:
    """Schedules every NodeManager's heartbeats; with ``skip`` it leaves out those that provably change nothing."""

    def __init__(self, kernel: Kernel, *, skip: bool = True, skip_am: bool = False) -> None:
        self.kernel = kernel
        self.skip = skip
        self.skip_am = skip_am  # skip idle AM allocate calls too (actors/_shortcuts/_amheartbeats.py)
        self.skipped_allocates = 0
        self.beats: dict[Any, NodeBeat] = {}  # NodeId -> NodeBeat
        # The RM's predicate and virtual heartbeat (set by the ResourceManager when it is given this clock).
        self.needs: Callable[[Any], bool] = lambda node_id: True
        self.virtual: Callable[[Any], Any] | None = None
        #: How a phase point's heartbeat goes: nowhere, a virtual heartbeat or the real request (the exact
        #: shortcuts' one route choice, actors/_shortcuts/_routes.py).
        self.route: Callable[[HeartbeatClock, Any], None] = heartbeat_route
        #: Hands a real heartbeat to the RM in place of its request's delivery event (``inline(nm)``, False when the
        #: NM must send it as a message: actors/_shortcuts/_routes.py, set by the embedded Cluster); None: messages.
        self.inline: Callable[[Any], bool] | None = None
        #: Defers the RUNNING-only heartbeats of dormant nodes (_shortcuts/_lazyrunning.py; set by the embedded
        #: Cluster).
        self.lazy: Any = None
        self.real = 0
        self.virtual_count = 0
        self._fire_bound: Callable[[NodeBeat], None] = self._fire  # (one bound method, not one per armed event)
        # hostname -> node index, in definition order: every shard host defines every node (hosted or not), so the
        # priorities are global and a heartbeat ties with other events exactly as on one kernel.
        self.indices: dict[str, int] = {}
        self._undefined = 0  # nodes started without define(): indexed after the defined ones, in start order

    def define(self, hostname: str) -> int:
        """Give the node on ``hostname`` the next node index (its heartbeat priority); defining again keeps it."""
        index = self.indices.get(hostname)
        if index is None:
            index = self.indices[hostname] = len(self.indices)
        return index

    def priority_of(self, hostname: str) -> int | None:
        """The heartbeat priority of a defined node (None if ``hostname`` was never defined)."""
        index = self.indices.get(hostname)
        return None if index is None else HEARTBEAT + index

    # -- registration ------------------------------------------------------------------------------------------
    def start(self, nm: Any, interval: Any) -> NodeBeat:
        """(Re)start ``nm``'s phase points at now + k * ``interval`` and arm the first one."""
        beat = self.beats.get(nm.node_id)
        if beat is None:
            priority = self.priority_of(nm.node_id.host)
            if priority is None:
                priority = HEARTBEAT + len(self.indices) + self._undefined
                self._undefined += 1
            beat = self.beats[nm.node_id] = NodeBeat(nm, priority)
        elif beat.lazy is not None:
            self.lazy.flush(beat)  # the old phase points' reports: settled, or back in the NM's changes
        beat.nm = nm
        beat.owner = nm.ref.id
        beat.start = self.kernel.now
        beat.interval = interval
        beat.died_at = None
        beat.armed = False
        self._arm(beat, beat.start + interval)
        return beat

    def stopped(self, beat: NodeBeat) -> None:
        """The NM stopped (failed): remember its last phase point, which its last heartbeat was in full mode."""
        if beat.lazy is not None:
            self.lazy.flush(beat)
        beat.armed = False
        t = self.next_phase_point(beat) - beat.interval
        beat.died_at = t if t > beat.start else None

    # -- scheduling --------------------------------------------------------------------------------------------
    def next_phase_point(self, beat: NodeBeat) -> Any:  # (a time: int or float, see NodeBeat)
        """The first phase point after the current position (a heartbeat at ``now`` counts if it has not run)."""
        now = self.kernel.now
        interval = beat.interval
        start = beat.start
        if now <= start:
            return start + interval
        t = start + ((now - start) // interval) * interval
        if t < now or t <= start:
            t += interval
        elif t == now:
            # Has (now, this node's priority) been passed? The kernel keeps the highest priority run at ``now``, so
            # inside the chain of a heartbeat (message deliveries at NORMAL) the position is still that heartbeat's.
            if self.kernel.priority >= beat.priority:
                t += interval
        return t

    def _arm(self, beat: NodeBeat, t: Any) -> None:
        if beat.lazy is not None:
            self.lazy.armed(beat, t)  # deferred RUNNING reports: settled, or reported at t (_shortcuts/_lazyrunning.py)
        beat.armed = True
        beat.due = t
        # Owned by the NM whichever actor armed it (the NM itself, or the RM waking it): what the heartbeat sends has
        # the NM as origin, as with the NM's own timer, on every backend.
        # Kernel.schedule(t - now, self._fire, beat, priority=beat.priority, owner=beat.nm.id): the same key.
        kernel = self.kernel
        now = kernel.now
        delay = t - now
        if delay < 0:
            raise ValueError(f"cannot schedule into the past (delay={delay})")
        # (the next phase point, a second ahead, is parked: out of the heap until the run nears it)
        kernel.queue_at(now + delay, beat.priority, self._fire_bound, beat, beat.owner)

    def wake(self, beat: NodeBeat) -> None:
        """Make sure ``beat``'s next phase point is processed (skip mode: something may need it)."""
        if not beat.armed and beat.died_at is None:
            self._arm(beat, self.next_phase_point(beat))

    def wake_node(self, node_id: Any) -> None:
        beat = self.beats.get(node_id)
        if beat is not None and not beat.armed and beat.died_at is None:
            self._arm(beat, self.next_phase_point(beat))

    def wake_needed(self) -> None:
        """Wake every dormant node the RM now needs (pending asks appeared): O(nodes), on that transition only."""
        needs = self.needs
        for node_id, beat in self.beats.items():
            if not beat.armed and beat.died_at is None and needs(node_id):
                self._arm(beat, self.next_phase_point(beat))

    def processed(self, node_id: Any) -> None:
        """The RM finished a heartbeat of ``node_id``: keep the node armed if its next heartbeat may matter."""
        if self.skip:
            beat = self.beats.get(node_id)
            if beat is not None and not beat.armed and beat.died_at is None and self.needs(node_id):
                self._arm(beat, self.next_phase_point(beat))

    def _fire(self, beat: NodeBeat) -> None:
        now = self.kernel.now
        if not beat.armed or beat.due != now:
            return  # superseded (the interval changed or the NM stopped)
        beat.armed = False
        nm = beat.nm
        if not nm.is_free and nm.is_stopped:
            return
        if not self.skip:
            self._arm(beat, now + beat.interval)
        self.route(self, nm)

    def last_heartbeat(self, node_id: Any, recorded: Any) -> Any:
        """When the RM last heard from ``node_id``, counting a dormant NM's skipped phase points while it lives."""
        beat = self.beats.get(node_id)
        if not self.skip or beat is None:
            return recorded
        if beat.died_at is not None:
            return max(recorded, beat.died_at)
        if beat.nm.is_stopped:
            return recorded
        t = self.next_phase_point(beat) - beat.interval
        return max(recorded, t) if t > beat.start else recorded
