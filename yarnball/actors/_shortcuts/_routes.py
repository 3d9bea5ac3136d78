"""The one route choice of a NodeManager heartbeat and of its response, and the in-place delivery they share.

**A phase point's heartbeat** (:func:`heartbeat_route`, the heartbeat clock's ``route``) goes one of three ways:
nowhere, a virtual heartbeat, or the real request. With skipping on (``HeartbeatClock.skip``) an NM with nothing
to report (``NodeManager.has_news``) sends nothing; the RM is asked whether an empty heartbeat could change anything
(``ResourceTrackerService.needs_heartbeat``): if so it processes a virtual one, the same status update without the
request, else nothing happens at all (the heartbeat is a no-op, see actors/_heartbeats.py). Everything else is the
real request, sent by the NM with the clock's ``inline`` (:func:`tell_in_place`) when the exact shortcuts are on.

**In place of the next event** (:func:`tell_in_place`, :func:`run_next`). A message whose delivery would be the
very next event the kernel pops (its time is ``now`` and its key is below every queued one: ``Kernel.run_if_next``)
is delivered at once, from the end of the event that sends it, with the key it would have had: nothing can run in
between, so it is the same computation with one event less to pop. The NM's heartbeat is the last thing its clock
event does; an AM firing's allocate is held until the firing has queued its next one (_amrounds.py).

**A heartbeat's response** (:func:`deliver_heartbeat_response`) is stored by the NM at once, without an event, when
all its delivery would do is store its response id (``NodeManager.take_plain_response``: NORMAL, nothing to clean
up, update or limit, the interval the NM uses, its own handler), to a free local NM under the "resume" policy with
no modelled latency: with zero latency the NM runs nothing that reads the id before the delivery would have (its
next heartbeat is at a later phase point). Otherwise it is a message.
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._kernel import NORMAL
from yarnball.actors._ref import ActorRef

__all__ = ["deliver_heartbeat_response", "heartbeat_route", "run_next", "tell_in_place"]


def heartbeat_route(clock: Any, nm: Any) -> None:
    """The heartbeat of ``nm`` at a phase point of ``clock``: nowhere, a virtual heartbeat, or the real request."""
    if not clock.skip or nm.has_news():
        clock.real += 1
        nm.heartbeat_now(clock.inline)
    elif clock.needs(nm.node_id):
        clock.virtual_count += 1
        clock.virtual(nm.node_id, nm.ref)


def tell_in_place(ref: Any, message: Any, sender: Any) -> None:
    """``ref.tell(message, sender)`` as the last thing an event does, delivered at once when it is the next event."""
    kernel = ref.kernel
    actor = ref.local_actor() if type(ref) is ActorRef and kernel.exact_shortcuts and kernel.instant() else None
    if actor is None:
        ref.tell(message, sender)
        return
    origin, seq = kernel.next_key()  # (ActorRef.tell's key: time, NORMAL, origin, origin's sequence)
    entry = (kernel.now + (kernel.default_latency + 0), NORMAL, origin, seq, actor.inbox, (message, sender), ref.id)
    if not kernel.run_if_next(entry):
        kernel.push(*entry)


#: Run a held event in place when it is next (tests switch it off to compare with queueing it).
inline_allocates = True


def run_next(kernel: Any, entry: tuple[Any, ...]) -> None:
    """Run ``entry`` (its key taken) now if it is the event the kernel would pop next, else queue it."""
    if not (inline_allocates and kernel.exact_shortcuts and kernel.run_if_next(entry)):
        kernel.push(*entry)


def deliver_heartbeat_response(rm: Any, nm_ref: Any, response: Any) -> None:
    """Send ``response`` to the NodeManager at ``nm_ref``, or have it stored at once when that is all its delivery
    would do (module docstring)."""
    kernel = rm.kernel
    if type(nm_ref) is ActorRef and nm_ref.kernel is kernel and kernel.exact_shortcuts and kernel.instant():
        nm = nm_ref.local_actor()
        if nm is not None and nm.is_free() and nm.take_plain_response(response):
            return
    nm_ref.tell(response, rm.ref)
