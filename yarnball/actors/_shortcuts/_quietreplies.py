"""Replies to an ApplicationMaster whose delivery would change nothing are not queued as kernel events.

A ``StartContainersResponse`` / ``StopContainersResponse`` without failed requests, to an ApplicationMaster whose
handler for it is marked :data:`NOOP_WHEN_ALL_OK` (the base class's, which only logs the failed requests), does
nothing when delivered. What delivery would also do is checked before leaving it out: a stopped receiver would log
a dead letter (the receiver is alive and, with zero latency, the delivery would be at this same instant, where
nothing stops it), a busy one would queue it, a reply to an ``ask`` resolves a future (only plain actor senders
qualify), and a supervision policy other than "resume" could act on it. Waking a dormant AM changes nothing
observable (dormancy is exact, _amdormancy.py).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._kernel import Kernel
from yarnball.actors._ref import ActorRef

__all__ = ["NOOP_WHEN_ALL_OK", "reply_is_noop"]

#: Attribute set (True) on a handler that does nothing for a response whose ``failed_requests`` is empty.
NOOP_WHEN_ALL_OK = "__yarnball_noop_when_all_ok__"


def reply_is_noop(actor: Any, mtype: type) -> bool:
    """Would a ``mtype`` reply without failed requests, sent now to the sender of ``actor``'s current message,
    change nothing when delivered? (The caller checks that there are no failed requests.)"""
    ref = actor.sender
    kernel: Kernel = actor.kernel
    if type(ref) is not ActorRef or ref.kernel is not kernel or not kernel.exact_shortcuts or not kernel.instant:
        return False
    receiver = ref.actor
    if receiver is None or not receiver.is_free or receiver.supervision != "resume":
        return False
    cls = type(receiver)
    noop = _NOOP.get((cls, mtype))
    if noop is None:  # (an actor's handler table is fixed when its class is made: noted once per class)
        noop = _NOOP[(cls, mtype)] = getattr(cls.handler_for(mtype), NOOP_WHEN_ALL_OK, False) is True
    return noop


#: (receiver class, reply type) -> whether the class's handler of that reply is marked NOOP_WHEN_ALL_OK.
_NOOP: dict[tuple[type, type], bool] = {}
