"""The one route choice of a NodeManager heartbeat and of its response, and the delivery in place of an event.

**A phase point's heartbeat** (:func:`heartbeat_route`, the heartbeat clock's ``route``) goes one of three ways:
nowhere, a virtual heartbeat, or the real request. With skipping on (``HeartbeatClock.skip``) an NM with nothing
to report (``NodeManager.has_news``) sends nothing; the RM is asked whether an empty heartbeat could change anything
(``ResourceTrackerService.needs_heartbeat``): if so it processes a virtual one, the same status update without the
request, else nothing happens at all (the heartbeat is a no-op, see actors/_heartbeats.py). Everything else is the
real request: handed to the RM in place of its delivery event (:class:`InPlaceHeartbeats`, the clock's ``inline``)
when that is exact, else sent as a message.

**In place of the delivery event.** At a phase point the clock's event ``E = (t, HEARTBEAT + i, o, q)`` of node
``i`` runs for the NM, whose NodeHeartbeatRequest with zero latency would be delivered by ``R = (t, NORMAL, nm,
s)``, ``s`` being the NM's next sequence. ``R`` is always the next event: ``E`` was the smallest key in the heap
when it was popped, ``E`` queues nothing below ``R`` before the request (only the next phase point, later), and
``R < E`` since NORMAL < HEARTBEAT; the run loop does not stop in between (``R``'s time is ``E``'s, within any
``until``). So the RM handles the heartbeat at once, and the kernel is left as ``R``'s delivery would leave it:
``R``'s sequence is taken, ``Kernel.event`` is ``R``'s key and ``Kernel.current`` the RM (the origin of whatever it
queues); ``now``, ``priority`` and ``high`` stay (``R`` is below ``E``). What the delivery would do is the RM's
(``ResourceManager.node_heartbeat_in_place``, under ``takes_heartbeats_in_place``: its own delivery and handler, no
fault rules, no opportunistic service, which is also why the request itself need not be built); it returns the
response, which the route sends as the handler would (below). The NM's part is ``NodeManager.heartbeat_changes``.
The message path stays with any modelled latency, under ``Kernel.run_async``, for a kernel whose ``_enter`` a test
observes (``Kernel.enter_hooked``), for a busy NM or RM, an NM that reports its queue, and an RM that is not a local
actor of this kernel. Only ``Kernel.events_processed`` differs
(tests/test_inline_heartbeats.py). The same argument, for any entry, is ``Kernel.run_if_next``, which
:func:`run_next` uses for an AM firing's allocate (_amrounds.py).

**An allocate's reply** (:func:`deliver_allocate`, the delivery event of a firing's allocate, held or queued, and of
a skipped allocate that turned out to return something) is run in place too. When the RM would only run
ApplicationMasterService's own ``on_allocate`` (``ResourceManager.takes_allocates_in_place``: its own delivery and
handler: the delivery entry the request was sent to is its own ``Actor._deliver``), is free and the sender is a
plain actor's address, the RM serves the call (``ResourceManager.allocate_in_place``: what its delivery does, up to
the reply) and the layer sends the reply with the key ``ActorRef.tell`` would take, through
``Kernel.deliver_in_place``: run at once when it is the next event, since this delivery ends with it, else queued.
With modelled latency, a sender on another kernel or ``inline_allocates`` off the reply is a message.

**A heartbeat's response** (:func:`deliver_heartbeat_response`: the route sends what the RM returns for a virtual
heartbeat or one handed over in place, the RM's handler what it answers a request with) is stored by the NM at
once, without an event, when all its delivery would do is store its response id (``NodeManager.take_plain_response``:
NORMAL, nothing to clean up, update or limit, the interval the NM uses, its own handler), to a free local NM under
the "resume" policy with no modelled latency: with zero latency the NM runs nothing that reads the id before the
delivery would have (its next heartbeat is at a later phase point). Otherwise it is a message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yarnball.actors._kernel import NORMAL, Kernel
from yarnball.actors._ref import ActorRef

if TYPE_CHECKING:
    from yarnball.actors._heartbeats import HeartbeatClock

__all__ = ["InPlaceHeartbeats", "deliver_allocate", "deliver_heartbeat_response", "heartbeat_route", "run_next"]


def heartbeat_route(clock: HeartbeatClock, nm: Any) -> None:
    """The heartbeat of ``nm`` at a phase point of ``clock``: nowhere, a virtual heartbeat, or the real request."""
    if not clock.skip or nm.has_news():
        clock.real += 1
        inline = clock.inline
        if inline is None or not inline(nm):
            nm.heartbeat_now()
    elif clock.needs(nm.node_id):
        clock.virtual_count += 1
        response = clock.virtual(nm.node_id)  # type: ignore[misc]  # (set whenever skipping is on: the RM's)
        deliver_heartbeat_response(nm.rm.actor, nm.ref, response)  # (the clock's RM: hosted here, as the NM's)


class InPlaceHeartbeats:
    """``HeartbeatClock.inline`` of a cluster on one kernel (its bound ``__call__``): ``self(nm)`` hands ``nm``'s
    heartbeat to its RM in place of the request's delivery and returns True, or returns False when the NM must send
    it as a message (module docstring)."""

    __slots__ = ("checked",)

    def __init__(self) -> None:
        self.checked: object = None  # the RM last found to qualify (what cannot change about it is checked once)

    def __call__(self, nm: Any) -> bool:
        kernel: Kernel = nm.kernel
        if (
            not kernel.instant
            or kernel.running_async
            or kernel.enter_hooked  # (the run loop shows every event to a hooked _enter)
            or not nm.is_free
            or nm.report_opportunistic
        ):
            return False
        ref = nm.rm
        rm: Any = ref.actor if type(ref) is ActorRef else None  # the ResourceManager
        if rm is None or not rm.is_free:
            return False
        if rm is not self.checked:
            takes = getattr(rm, "takes_heartbeats_in_place", None)  # (an actor standing in for the RM in a test)
            if ref.kernel is not kernel or takes is None or not takes():
                return False
            self.checked = rm
        changes = nm.heartbeat_changes()
        if changes is None:
            return True  # it sends none now (as NodeManager._send_heartbeat)
        origin, seq = kernel.next_key()  # R's key: the NM's next sequence, then R as the current event
        kernel.event = (kernel.now, NORMAL, origin, seq)
        kernel.current = ref.id
        response = rm.node_heartbeat_in_place(nm.node_id, changes, nm.ref, nm.response_id)
        if response is not None:
            deliver_heartbeat_response(rm, nm.ref, response)  # what the RM's handler sends
        return True


#: Run a held event in place when it is next (tests switch it off to compare with queueing it).
inline_allocates = True


def run_next(kernel: Kernel, entry: tuple[Any, ...]) -> None:
    """Run ``entry`` (its key taken) now if it is the event the kernel would pop next, else queue it."""
    if not (inline_allocates and kernel.exact_shortcuts and kernel.run_if_next(entry)):
        kernel.push(*entry)


def deliver_allocate(arg: tuple[Any, Any, Any, Any]) -> None:
    """The delivery event of an AllocateRequest ``request`` from ``sender`` to ``rm`` (``deliver``: the RM's delivery
    entry when the request was sent), with the RM's reply run in place when it is the next event (module
    docstring); the ordinary delivery otherwise."""
    rm, deliver, request, sender = arg
    if (
        type(sender) is not ActorRef
        or not rm.is_free
        # (an actor standing in for the RM in a test has no such method; its class is asked, and the method called
        # through the object, so that no bound method is made per allocate)
        or getattr(type(rm), "takes_allocates_in_place", None) is None
        or not rm.takes_allocates_in_place(deliver)
    ):
        deliver((request, sender))
        return
    response = rm.allocate_in_place(request, sender)
    if response is None:
        return
    kernel: Kernel = rm.kernel
    target = sender.actor
    if target is None or sender.kernel is not kernel or not kernel.instant or not inline_allocates:
        sender.tell(response, rm.ref)  # (ActorRef.tell: Actor.reply's message)
        return
    kernel.deliver_in_place(target.delivery_entry, (response, rm.ref), sender.id)


def deliver_heartbeat_response(rm: Any, nm_ref: Any, response: Any) -> None:
    """Send ``response`` to the NodeManager at ``nm_ref``, or have it stored at once when that is all its delivery
    would do (module docstring)."""
    kernel: Kernel = rm.kernel
    if type(nm_ref) is ActorRef and nm_ref.kernel is kernel and kernel.exact_shortcuts and kernel.instant:
        nm: Any = nm_ref.actor  # the NodeManager (or an actor standing in for it in a test: it gets messages)
        # (its class asked, the method called through it: no bound method made per heartbeat)
        if nm is not None and nm.is_free and getattr(type(nm), "take_plain_response", None) is not None:
            if nm.take_plain_response(response):
                return
    nm_ref.tell(response, rm.ref)
