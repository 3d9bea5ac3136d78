"""Exact shortcuts: events the simulation leaves out because they provably change nothing observable.

**The invariant they all rest on.** The kernel orders events by ``(time, priority, origin, origin's sequence)``
and compares sequences only within one origin. An event that is left out takes no sequence number, or else the
shortcut takes exactly the sequence numbers the left-out events would have taken (``Kernel.next_key`` /
``Kernel.set_sequence``), so every later event keeps its place in the order. A left-out event must also change
nothing an outside observer can see (an output, the event log, a metric, a handler's state read later): either its
whole effect is nothing, or the shortcut does that effect itself at the point it would have happened, or settles it
lazily before anything can read it. Removing events whose only effect is to queue one another does not change the
order of any other event (the heap pops in key order), and the kernel's position marks (``Kernel.high``,
``Kernel.priority``) are the same whenever anything else runs. Each shortcut checks, at the point it would leave an
event out, that the conditions of its proof hold (zero modelled latency, the base class's own handler, a live local
receiver, ...), and keeps the ordinary message path otherwise. Results are byte-identical with the shortcuts on
and off; only the kernel's event count and the scheduler's operation counts of left-out no-ops differ.

**What each one leaves out** (each module holds its proof):

* *heartbeat skipping* (actors/_heartbeats.py, the NM heartbeat clock of both modes, which stays beside the role
  actors; ``yarnball.simulation.skip-idle-heartbeats``): an NM heartbeat with nothing to report to an RM for which
  an empty heartbeat is a no-op; a node whose next heartbeat is a no-op has no event at all until woken;
* *idle AM heartbeats* (:mod:`._amheartbeats`, ``yarnball.simulation.skip-idle-am-heartbeats``): the
  AllocateRequest and AllocateResponse of a quiet AM with nothing to send that would get nothing back;
* *dormant AMs* (:mod:`._amdormancy`, ``yarnball.simulation.dormant-idle-ams``): every timer firing and no-op
  check of such an AM until work appears for it, their sequence numbers taken when it wakes;
* *early AM sleep and a firing with its allocate* (:mod:`._amrounds`): the one no-op heartbeat before an idle AM
  goes dormant, and the separate event of the allocate a firing sends when it is the next event anyway;
* *quiet replies* (:mod:`._quietreplies`): a StartContainers/StopContainers response to an AM whose handler for it
  does nothing, and a plain NodeHeartbeatResponse whose handling only stores its response id;
* *inline NM heartbeats* (:mod:`._inlinebeats`): the delivery event of a NodeHeartbeatRequest that is always the
  next event popped (the RM handles it from the heartbeat event);
* *lazy RUNNING reports* (:mod:`._lazyrunning`, ``yarnball.simulation.lazy-running-reports``): the heartbeat of a
  dormant NM that would only report containers newly RUNNING, settled when anything can observe it;
* *own-method checks* (:mod:`._ownmethods`): not a shortcut but the test every shortcut needs, whether an object
  runs a class's own method (neither replaced on the instance nor overridden), for pure-Python and mypyc builds.

**One switch.** ``yarnball.simulation.exact-shortcuts`` (default true; :func:`exact_shortcuts`) false turns every
one of them off at once, for debugging and for the equality tests: the cluster then neither skips nor defers any
heartbeat, keeps every AM awake, hands no heartbeat inline and (through ``Kernel.exact_shortcuts``) queues every
reply and every allocate as a message.

**The seam.** The role actors (actors/_resourcemanager.py, _nodemanager.py, _appmaster.py) and the cluster import
the shortcuts from this package only, never from its modules; the modules here import no role actor module at
run time: they compare against the role classes each role module registers in :data:`ROLES` at import
(tests/test_shortcuts_seam.py checks both with the source's imports).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._shortcuts._amdormancy import DormantAMs, HeartbeatTimer
from yarnball.actors._shortcuts._amheartbeats import idle_allocate
from yarnball.actors._shortcuts._amrounds import hold_tell, sleep_after_response
from yarnball.actors._shortcuts._inlinebeats import InlineHeartbeats
from yarnball.actors._shortcuts._lazyrunning import LazyRunning
from yarnball.actors._shortcuts._ownmethods import OwnMethod, is_bound, sealed
from yarnball.actors._shortcuts._quietreplies import (
    NOOP_WHEN_ALL_OK,
    deliver_heartbeat_response,
    deliver_plain_heartbeat_response,
    reply_is_noop,
)
from yarnball.actors._shortcuts._roles import ROLES, Roles  # first: the modules below read it
from yarnball.protocols import keys

__all__ = [
    "NOOP_WHEN_ALL_OK",
    "ROLES",
    "DormantAMs",
    "HeartbeatTimer",
    "InlineHeartbeats",
    "LazyRunning",
    "OwnMethod",
    "Roles",
    "deliver_heartbeat_response",
    "deliver_plain_heartbeat_response",
    "exact_shortcuts",
    "hold_tell",
    "idle_allocate",
    "is_bound",
    "reply_is_noop",
    "sealed",
    "sleep_after_response",
]


def exact_shortcuts(conf: Any) -> bool:
    """``yarnball.simulation.exact-shortcuts`` of ``conf`` (a Configuration): False turns every shortcut off."""
    return bool(conf.get_bool(keys.SIMULATION_EXACT_SHORTCUTS, keys.DEFAULT_SIMULATION_EXACT_SHORTCUTS))
