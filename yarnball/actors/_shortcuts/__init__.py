"""Exact shortcuts: events the simulation leaves out, or runs in place, because that provably changes nothing.

**The invariant.** The kernel orders events by ``(time, priority, origin, origin's sequence)`` and compares
sequences only within one origin. A shortcut may leave an event out, or run it in place of queueing it, only when
(1) every other event keeps its place in that order: the left-out event takes no sequence number, or the shortcut
takes exactly the ones it would have taken (``Kernel.next_key``, ``Kernel.set_sequence``), or an event run in place
is the one the kernel would pop next anyway (``Kernel.run_if_next``); and (2) nothing an outside observer can see
changes (an output, the event log, a metric, a handler's state read later): the event's effect is nothing, or the
shortcut has its role do that effect at the point it would have happened, or settles it lazily before anything can
read it. Removing events whose only effect is to queue one another moves no other event (the heap pops in key
order), and the kernel's position marks (``Kernel.high``, ``Kernel.priority``) are the same whenever anything else
runs. Each shortcut checks the conditions of its own argument where it acts (zero modelled latency, the role's own
handler, a free local receiver, ...) and keeps the ordinary message path otherwise: results are byte-identical with
the shortcuts on and off; only the kernel's event count and the scheduler's operation counts of left-out no-ops
differ. Each module states its own argument beside its code:

* :mod:`._routes`: the one route choice of an NM heartbeat (nowhere, a virtual heartbeat, the real request), of
  its response (stored at once or a message) and of an allocate's reply, and the delivery in place of the next
  event;
* :mod:`._lazyrunning`: RUNNING-only heartbeats of dormant NMs, settled when anything can observe them;
* :mod:`._amheartbeats`, :mod:`._amdormancy`, :mod:`._amrounds`, :mod:`._amtimer`: idle AM allocates skipped,
  idle AMs dormant, the early sleep after a response and a firing's allocate run in place;
* :mod:`._quietreplies`: container-call replies whose handling does nothing;
* :mod:`._ownmethods`: whether an object runs a class's own method (the check several roles make);
* :mod:`._settings`: ``yarnball.simulation.exact-shortcuts`` and its sub-switches, read here only.

**The seam.** The layer reaches the roles only through their public protocols: the kernel (``next_key``,
``queue_at``, ``deliver_in_place``, ``run_if_next``, ``instant``), actors and refs (``Actor.delivery_entry``,
``deliver_now``, ``is_free``, ``ActorRef.actor``), the heartbeat clock (``route``, ``inline``, ``needs``,
``next_phase_point``), the NodeManager (``has_news``, ``heartbeat_changes``, ``take_plain_response``,
``may_defer_running``, ``report_first``), the ResourceManager (``takes_heartbeats_in_place``,
``node_heartbeat_in_place``, ``runs_stock_heartbeats``, ``takes_allocates_in_place``, ``allocate_in_place``,
``dormant``), the ApplicationMaster (``direct_rm``, ``has_nothing_to_send``, ``idle_response``, ``response_id``,
``heartbeat_timer``, ``sleeper``) and the scheduler (``idle_allocate``, ``allocate_has_news``,
``node_update_is_noop``). The role modules import the layer from this package only; the layer imports no role actor
module at run time, and the roles it works with are the objects the cluster hands it (tests/test_shortcuts_seam.py).

**Compiled.** Every module here but :mod:`._settings` is compiled with mypyc (yarnball/_native.py): native classes
whose methods nothing replaces (tests subclass DormantAMs and LazyRunning in Python instead), times and progress
typed ``Any`` so that a run's int milliseconds stay ints, the kernel and the heartbeat clock typed as their classes.
"""

from __future__ import annotations

from yarnball.actors._shortcuts._amdormancy import DormantAMs, HeartbeatTimer
from yarnball.actors._shortcuts._amheartbeats import idle_allocate
from yarnball.actors._shortcuts._amrounds import hold_tell, sleep_after_response
from yarnball.actors._shortcuts._lazyrunning import LazyRunning
from yarnball.actors._shortcuts._ownmethods import OwnMethod, is_bound, sealed
from yarnball.actors._shortcuts._quietreplies import NOOP_WHEN_ALL_OK, reply_is_noop
from yarnball.actors._shortcuts._routes import InPlaceHeartbeats, deliver_heartbeat_response, heartbeat_route
from yarnball.actors._shortcuts._settings import ShortcutSettings

__all__ = [
    "NOOP_WHEN_ALL_OK",
    "DormantAMs",
    "HeartbeatTimer",
    "InPlaceHeartbeats",
    "LazyRunning",
    "OwnMethod",
    "ShortcutSettings",
    "deliver_heartbeat_response",
    "heartbeat_route",
    "hold_tell",
    "idle_allocate",
    "is_bound",
    "reply_is_noop",
    "sealed",
    "sleep_after_response",
]
