"""NodeManager heartbeats handed to the ResourceManager inline, without a kernel event for the request.

At a phase point the :class:`~yarnball.actors._heartbeats.HeartbeatClock` event ``E = (t, HEARTBEAT + i, o, q)``
of node ``i`` runs for the NM, which sends its NodeHeartbeatRequest: with zero latency that queues the delivery
``R = (t, NORMAL, nm, s)``, ``s`` being the NM's next sequence. Cluster runs hand the RM that heartbeat at once,
from ``E``, when every condition below holds, and leave the kernel exactly as ``R``'s delivery would have.

**Why R is always the next event.** ``E`` was the smallest key in the heap when it was popped, and ``_fire`` queues
nothing below ``R`` before the request (only the next phase point, at a later time, when every heartbeat is
processed); ``R < E`` since NORMAL < HEARTBEAT. So ``R`` is the smallest key when ``E`` returns, the run loop does
not stop in between (``_fire`` never calls ``Kernel.stop``, and ``R``'s time is ``E``'s, within any ``until``), and
``R`` is popped next: nothing runs between the request leaving and the RM handling it.

**What R's delivery would do, done here.**

* the kernel: ``R`` takes the NM's sequence ``s`` (taken here the same way, so every later sequence is the same);
  entering ``R`` leaves ``Kernel.now``, ``priority`` and ``high`` as they are (``R`` is below ``E``, which is at or
  below ``high``); ``Kernel.current`` becomes the RM's id (the origin of whatever the RM queues) and
  ``Kernel.event`` ``R``'s key (read, first four fields only, by the shard hosts' log key prefix);
* the RM (``Actor._deliver``): a stopped RM would log a dead letter and a busy one would queue the request, so both
  keep the message path; otherwise its ``_sender`` is the NM and ``on_node_heartbeat`` runs, an exception going to
  ``Actor._failed`` with the request (built only then). The RM's class must deliver with ``Actor._deliver`` and
  handle NodeHeartbeatRequest with ``ResourceManager.on_node_heartbeat``, whose work
  (``ResourceTrackerService.handle_node_heartbeat``) is called with the statuses the request would carry;
* the NM (``NodeManager._send_heartbeat``): its changed statuses are taken and cleared. The NodeStatus is not built:
  the RM reads only its node id and statuses unless the opportunistic service is on, and the NM reports its queue
  state only then (both keep the message path).

**Where the message path stays.** Any modelled latency (``R`` would be later, and other events could run first:
shard hosts always model one), a run under ``Kernel.run_async`` (an event may be scheduled from outside between
two events), a kernel whose ``_enter`` is hooked (a test observing every event), an RM that is not a local actor
of this kernel, a busy NM (its heartbeat waits for its handler), a decommissioned one (it sends nothing), and the
opportunistic service. Only the kernel's event count differs (``Kernel.events_processed``, which no output of an
embedded run contains); tests/test_inline_heartbeats.py compares whole runs with the message path.
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._actor import Actor, ActorRef
from yarnball.actors._kernel import NORMAL
from yarnball.actors._shortcuts._roles import ROLES
from yarnball.protocols import NodeHeartbeatRequest, NodeStatus

__all__ = ["InlineHeartbeats"]

_ACTOR_DELIVER = Actor._deliver


class InlineHeartbeats:
    """``HeartbeatClock.inline`` for a cluster on one kernel: ``self(nm)`` hands ``nm``'s heartbeat to its RM now
    and returns True, or returns False when the NM must send it as a message."""

    __slots__ = ("checked", "handler")

    def __init__(self) -> None:
        self.handler = ROLES.resource_manager.on_node_heartbeat  # (registered by actors/_resourcemanager.py)
        self.checked: Any = None  # the RM last found to qualify (what cannot change about it is checked once)

    def __call__(self, nm: Any) -> bool:
        kernel = nm.kernel
        if (
            kernel._latency
            or kernel.default_latency
            or kernel._wakeup is not None
            or kernel.enter_hooked  # (the run loop shows every event to a hooked _enter)
            or nm._busy
            or nm._decommissioned
            or nm.report_opportunistic
        ):
            return False
        ref = nm.rm
        if type(ref) is not ActorRef:
            return False
        rm: Any = ref._actor  # the ResourceManager (duck-typed, as nm)
        if rm is None or rm._stopped or rm._busy:
            return False
        if rm is not self.checked:
            cls = type(rm)
            if (
                ref.kernel is not kernel
                or rm.opportunistic is not None
                or cls._deliver is not _ACTOR_DELIVER
                or cls._handlers.get(NodeHeartbeatRequest) is not self.handler
            ):
                return False
            self.checked = rm
        # R's key: the NM's next sequence (Kernel.schedule's bookkeeping), then R's delivery as the current event.
        origin = kernel.current
        seqs = kernel._seqs
        seq = seqs.get(origin, 0)
        seqs[origin] = seq + 1
        kernel.event = (kernel.now, NORMAL, origin, seq)
        kernel.current = ref.id
        response_id = nm.response_id
        changes, nm._changes = nm._changes, []
        sender = nm.ref
        rm._sender = sender
        try:
            rm.resource_tracker.handle_node_heartbeat(nm.node_id, changes, None, sender)
        except Exception as exc:
            status = NodeStatus(node_id=nm.node_id, response_id=response_id, container_statuses=tuple(changes))
            rm._failed(exc, NodeHeartbeatRequest(node_status=status), sender)
        return True
