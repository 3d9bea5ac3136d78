"""Replies whose delivery would change nothing are not queued as kernel events.

Per container, the NM answers the AM's StartContainersRequest and the RM answers the NM's heartbeats (two or three
per container: the one reporting it RUNNING, the one reporting it COMPLETE, the ones allocating it). Most of these
replies, once delivered, do nothing an outside observer could see:

* a ``StartContainersResponse`` / ``StopContainersResponse`` without failed requests, to an ApplicationMaster whose
  handler for it is the base class's (which only logs the failed requests): the handler does nothing;
* a ``NodeHeartbeatResponse`` with nothing to clean up, update or limit, ``NORMAL``, and the interval the NM already
  uses: ``NodeManager.on_heartbeat_response`` only stores the response id, which the NM reads in its next heartbeat.

**Why leaving such an event out is exact.** The kernel orders events by ``(time, priority, origin, origin's
sequence)`` and compares sequences only within one origin: an event that is not queued takes no sequence, which
shifts the later sequences of its origin (the NM, the RM) all alike and leaves every comparison unchanged. An event
whose only effect is nothing does not change the order of the others (the heap pops in key order), and the kernel's
position marks (``Kernel.high``, ``Kernel.priority``, read by the heartbeat clock and _shortcuts/_amdormancy.py) are the
same whenever anything else runs (the first event to run after the left-out one has a key above it). What delivery
would also do is checked before leaving it out: a stopped receiver would log a dead letter (the receiver is alive,
not decommissioning, under the "resume" supervision policy, and with zero latency the delivery would be at this
same instant, where nothing stops it), a reply to an ``ask`` resolves a future (only plain actor senders qualify),
and waking a dormant AM changes nothing observable (dormancy is exact, actors/_shortcuts/_amdormancy.py). The heartbeat
response id is stored at once: with zero latency the NM runs nothing that reads it before the delivery would have
(its next heartbeat is at a later phase point).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._actor import ActorRef
from yarnball.protocols import NodeAction, NodeHeartbeatResponse

__all__ = ["NOOP_WHEN_ALL_OK", "deliver_heartbeat_response", "deliver_plain_heartbeat_response", "reply_is_noop"]

#: Attribute set (True) on a handler that does nothing for a response whose ``failed_requests`` is empty.
NOOP_WHEN_ALL_OK = "__yarnball_noop_when_all_ok__"

_NORMAL = NodeAction.NORMAL


def _live_local(ref: Any, kernel: Any) -> Any:
    """The actor behind ``ref`` if a zero-latency delivery to it now would surely reach it, else None."""
    if (
        type(ref) is not ActorRef
        or ref.kernel is not kernel
        or kernel._latency
        or kernel.default_latency
        or not kernel.exact_shortcuts
    ):
        return None
    actor = ref._actor
    if actor is None or actor._stopped or actor._busy or actor.supervision != "resume":
        return None
    return actor


def reply_is_noop(actor: Any, mtype: type) -> bool:
    """Would a ``mtype`` reply without failed requests, sent now to the sender of ``actor``'s current message,
    change nothing when delivered? (The caller checks that there are no failed requests.)"""
    # (_live_local, inline: this runs at every StartContainers)
    ref = actor._sender
    kernel = actor.kernel
    if (
        type(ref) is not ActorRef
        or ref.kernel is not kernel
        or kernel._latency
        or kernel.default_latency
        or not kernel.exact_shortcuts
    ):
        return False
    receiver = ref._actor
    if receiver is None or receiver._stopped or receiver._busy or receiver.supervision != "resume":
        return False
    return getattr(receiver._handlers.get(mtype), NOOP_WHEN_ALL_OK, False) is True


def deliver_heartbeat_response(rm: Any, nm_ref: Any, response: Any, nm_handler: Any) -> None:
    """Send ``response`` to the NodeManager at ``nm_ref``, or store its response id at once when that is all its
    handling (``nm_handler``, ``NodeManager.on_heartbeat_response``) would do. A bare response id (an int) is a
    plain response (``ResourceTrackerService.node_heartbeat``), built only if it must be sent."""
    if type(response) is int:
        deliver_plain_heartbeat_response(rm, nm_ref, response, nm_handler)
        return
    nm = _live_local(nm_ref, rm.kernel)
    interval = response.next_heartbeat_interval_ms
    if (
        nm is not None
        and not response.containers_to_cleanup
        and not response.applications_to_cleanup
        and response.container_queuing_limit is None
        and not response.containers_to_update
        and response.node_action is _NORMAL
        and not nm._decommissioned
        and nm._hb_call is None  # (a heartbeat call that waits: the handler also ends it, _nodestatusupdater.py)
        and (interval == nm.heartbeat_interval_ms or interval <= 0)
        and type(nm)._handlers.get(type(response)) is nm_handler
    ):
        nm.response_id = response.response_id
        return
    nm_ref.tell(response, rm.ref)


def deliver_plain_heartbeat_response(rm: Any, nm_ref: Any, response_id: int, nm_handler: Any) -> None:
    """:func:`deliver_heartbeat_response` of a *plain* response: NORMAL, nothing to clean up, update or limit, and
    the RM's heartbeat interval (``rm.heartbeat_interval_ms``). The response is built only if it must be sent."""
    # (_live_local, inline: this runs at nearly every heartbeat)
    kernel = rm.kernel
    nm: Any = nm_ref._actor if type(nm_ref) is ActorRef and nm_ref.kernel is kernel else None  # the NodeManager
    interval = rm.heartbeat_interval_ms
    if (
        nm is not None
        and not kernel._latency
        and not kernel.default_latency
        and kernel.exact_shortcuts
        and not nm._stopped
        and not nm._busy
        and nm.supervision == "resume"
        and not nm._decommissioned
        and nm._hb_call is None  # (as above)
        and (interval == nm.heartbeat_interval_ms or interval <= 0)
        and type(nm)._handlers.get(NodeHeartbeatResponse) is nm_handler
    ):
        nm.response_id = response_id
        return
    nm_ref.tell(NodeHeartbeatResponse(response_id=response_id, next_heartbeat_interval_ms=interval), rm.ref)
