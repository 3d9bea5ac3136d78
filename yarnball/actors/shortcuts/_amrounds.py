"""Shorter ApplicationMaster allocate rounds: early sleep after a response, and a firing with its allocate.

Without this, a quiet AM (``ApplicationMaster.quiet_when_idle``) that has just handled an AllocateResponse and has
nothing to send still pays one more heartbeat before it sleeps: its timer fires (``F``), the skipped-allocate
check runs at the RM (``A``, actors/shortcuts/_amheartbeats.py), finds a no-op and only then makes the AM dormant
(shortcuts/_amdormancy.py). With ``DormantAMs.early`` (on whenever dormancy is) the AM goes dormant at the end of the
response's handling instead, with the Sleeper that no-op ``A`` would have set up one tick later.

**Why this is exact.** Let the response be handled at ``t`` and the AM's next firing be queued at ``t1 = t +
interval`` with sequence ``sf`` (the timer's ``due`` and ``seq``). Going dormant now, the Sleeper takes ``t1`` and
``sf`` as its first skipped tick, ``c`` = the AM's next sequence as the first skipped ``A``'s, and ``r0`` = the
attempt's response id (the response's: the AM's own ``_response_id``, checked equal). The no-op ``A`` of tick ``t1``
would have taken exactly these: nothing takes the AM's sequences between now and then unless an AM event runs,
and every AM event wakes it first (``ApplicationMaster._deliver``). So the dormant state is the one the no-op
``A`` would have made, except that the first tick is one of the skipped ones, provided that

* the first tick's ``F`` would do nothing but queue its ``A`` and the next ``F``: the AM has nothing to send (no
  changed asks, releases or updates; only the AM's own events change them), its ``_allocate`` is the base one (a
  subclass overriding it may do anything at a firing), it is registered and not finished;
* that ``A`` would be a no-op: the attempt is current and RUNNING/FINISHING, the RM is not stopped or busy, no
  opportunistic service, and the scheduler would return nothing (``CapacityScheduler.idle_allocate`` would not be
  None, checked now by :func:`scheduler_has_news` without its headroom; its only side effect, dropping preemption
  marks of containers no longer live, is unobservable: such a mark is never sent again). Whatever could change
  that between now and ``A`` wakes the AM (the RM's hooks, actors/shortcuts/_amdormancy.py): a wake before ``t1``'s
  firing finds no tick run (the suspended ``F`` simply goes live again: nothing changed), a wake between ``F``
  and ``A`` re-queues that ``A`` with its own key, as before.

Settling the skipped first tick gives what its ``A`` would have: response id ``r0 + 1`` and liveness ``t1``, one
skipped allocate more. The AM's ``headroom`` and ``num_cluster_nodes`` stay those of the response (quiet AMs do
not read them between allocates that return something; the first allocate after waking sets them). The same
conditions as dormancy itself apply (``DormantAMs.sleep``: integral times, a live heartbeat timer due at
``now + interval``, nothing in the mailbox).

**One event for a firing and its allocate.** The tick of a firing ``F`` (key ``(t, NORMAL, am, s)``, owner the
AM) sends its allocate to the RM as one event ``E``: the skipped-allocate check ``A`` or the AllocateRequest's
delivery, key ``(t + latency, NORMAL, am, s')``, owner the RM; then ``F`` queues the next firing. While the tick
runs, ``HeartbeatTimer.firing`` is set and ``E``'s heap entry is built exactly as ``Kernel.schedule`` /
``ActorRef.tell`` would build it (its sequence taken at the same point) but *held*; at the end of ``F``,
:func:`run_next` runs it at once when it is the event the kernel would pop next: its time is ``now`` and its key is
below every queued one. Then nothing can run between ``F`` and ``E``, so running it inside ``F`` with
``Kernel._enter``'s bookkeeping (the position marks ``high`` and ``priority``, ``event``, ``current`` = the RM, so
that what ``E`` sends has the origin and sequences it has now) is the same computation; only the kernel's event
count differs (``Kernel.events_processed`` counts popped events, as for the inline NM heartbeats). Otherwise (an
earlier event is queued, latency, a run asked to stop, which would return before ``E``) it is queued as before,
and so it is under ``Kernel.run_async`` (``_wakeup`` set: conservatively, as for the inline NM heartbeats). The
AllocateResponse the RM replies in ``E`` is likewise built as ``ActorRef.tell`` builds it and run by
:func:`run_next` at the end of ``E`` (``deliver_allocate``: ``Actor._deliver`` and ``ResourceManager.on_allocate``
inlined; a busy or stopped RM, a replaced ``_deliver`` or allocate handler take the ordinary path). Off in shard
hosts (``Kernel.remote``: their windows and inbound batches are not part of this argument); a kernel whose
``_enter`` a test observes gets ``_enter`` called for it when the run loop calls it for every event
(``Kernel.enter_hooked``: replaced when the run started, or ``run_async``); an ``_enter`` replaced during a run is
not called by the loop either, so an inline event is then shown to it exactly when a popped one would be.

**Cheaper steps, the same computation** (tests/test_am_round_costs.py). A firing of an AM whose ``_deliver`` is
``ApplicationMaster._deliver`` itself (not replaced on the class or the instance), free (``_busy`` unset) and awake
(no Sleeper) runs its tick as ``Actor._deliver`` would (``_sender``, the call, ``_failed`` on an exception): nothing
else happens on that path for a ``_Tick``. The RM's ``_allocate`` with no asks, releases or blacklist changes and
``CapacityScheduler.allocate`` itself (neither replaced nor overridden: actors/shortcuts/_ownmethods.py) is a pull
(``CapacityScheduler._pull``): it returns no errors and no notifications and leaves the pending asks unchanged, so
only its timing is kept. Methods replaced by tests are found through the bound method, never by reading an instance
``__dict__`` (see ``_kernel.enter_replaced``).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._actor import Actor, ActorRef
from yarnball.actors._kernel import NORMAL, Kernel, enter_replaced
from yarnball.actors._rmapp import AttemptState
from yarnball.actors.shortcuts._roles import ROLES
from yarnball.policies.scheduler import PROVEN_SCHEDULER_CLASS
from yarnball.protocols import AllocateRequest

__all__ = ["deliver_allocate", "hold_tell", "run_next", "scheduler_has_news", "sleep_after_response"]

_LIVE = (AttemptState.RUNNING, AttemptState.FINISHING)

#: Run a firing's allocate inside the firing when it is next (tests switch it off to compare).
inline_allocates = True


def sleep_after_response(am: Any) -> None:
    """``am`` (quiet, with the base ``_allocate``: the caller checks) has just handled an AllocateResponse: go
    dormant now if its next tick would be a no-op."""
    if am._amrm_id is not None or am._changed or am._release or am._updates or am.finished:
        return
    attempt_id = am.attempt_id
    if attempt_id is None:
        return
    actor = am.kernel.actors.get(am.rm_id)
    if actor is None:
        return
    dormant = getattr(actor, "dormant", None)
    if dormant is None or not dormant.enabled or not dormant.early:
        return
    rm = actor
    clock = rm.heartbeats
    if clock is None or not clock.skip_am or rm._stopped or rm._busy or rm.opportunistic is not None:
        return
    attempt = rm.attempts.get(attempt_id)  # (a RUNNING/FINISHING attempt is never done: no is_done check)
    if attempt is None or attempt.state not in _LIVE or attempt.response_id != am._response_id:
        return
    if scheduler_has_news(rm.scheduler, attempt_id):
        return
    dormant.sleep(am, attempt, 1.0 if am._unregistering else 0.0)


def scheduler_has_news(scheduler: Any, attempt_id: Any) -> bool:
    """Whether ``scheduler.idle_allocate(attempt_id)`` would be None (an allocate would return something), without
    computing the headroom it returns otherwise: the same conditions, read from the scheduler's state. Its side
    effect, dropping marks of containers no longer live, is left to the next allocate: such marks are never sent."""
    if type(scheduler).idle_allocate is not PROVEN_SCHEDULER_CLASS.idle_allocate:
        return scheduler.idle_allocate(attempt_id) is None  # another scheduler: ask it
    app = scheduler.attempts.get(attempt_id)
    if app is None or app.stopped or app.new_containers or app.completed:
        return True
    preempt = app.preempt
    if preempt:
        live = app.live
        return any(c in live for c in preempt)
    return False


def hold_tell(timer: Any, ref: Any, request: Any, sender: Any) -> None:
    """``ref.tell(request, sender)`` (an AllocateRequest to the RM) from a heartbeat firing: the same entry, held
    for :func:`run_next`, delivered by :func:`deliver_allocate`."""
    kernel = ref.kernel
    actor = ref._actor
    if actor is None or kernel._latency or not kernel.exact_shortcuts:
        ref.tell(request, sender)
        return
    origin, seq = kernel.next_key()
    # ActorRef.tell's key, computed the same way (time, NORMAL, origin, origin's sequence), the receiver as owner
    timer.held = (
        kernel.now + (kernel.default_latency + 0),
        NORMAL,
        origin,
        seq,
        deliver_allocate,
        (actor, request, sender),
        ref.id,
    )


def deliver_allocate(arg: tuple[Any, Any, Any]) -> None:
    """``rm._deliver((request, sender))`` for an AllocateRequest (``ResourceManager.on_allocate``), with the
    AllocateResponse it replies held for :func:`run_next` instead of queued."""
    rm, request, sender = arg
    if (
        rm._stopped
        or rm._busy
        or getattr(rm._deliver, "__func__", None) is not Actor._deliver  # (replaced on the class or the instance)
        or rm._handlers.get(AllocateRequest) is not (_ON_ALLOCATE[0] if _ON_ALLOCATE else _on_allocate())
        or type(sender) is not ActorRef
    ):
        rm._deliver((request, sender))
        return
    # Actor._deliver and ResourceManager.on_allocate (ApplicationMasterService.on_allocate:
    # rm.reply(serve_allocate(msg))), inlined
    rm._sender = sender
    try:
        response = rm.application_master_service.serve_allocate(request)
    except Exception as exc:
        rm._failed(exc, request, sender)
        return
    kernel = rm.kernel
    target = sender._actor
    if target is None or kernel._latency:
        sender.tell(response, rm.ref)
        return
    # ActorRef.tell's key (Kernel.next_key inlined)
    origin = kernel.current
    seqs = kernel._seqs
    seq = seqs.get(origin, 0)
    seqs[origin] = seq + 1
    t = kernel.now + (kernel.default_latency + 0)
    entry = (t, NORMAL, origin, seq, target._deliver, (response, rm.ref), sender.id)
    run_next(kernel, entry)


_ON_ALLOCATE: list[Any] = []


def _on_allocate() -> Any:
    if not _ON_ALLOCATE:
        _ON_ALLOCATE.append(ROLES.resource_manager.on_allocate)  # (registered by actors/_resourcemanager.py)
    return _ON_ALLOCATE[0]


def run_next(kernel: Kernel, entry: tuple[Any, ...]) -> None:
    """Run ``entry`` now if it is the event the kernel would pop next, else queue it."""
    queue = kernel._queue
    if (
        inline_allocates
        and kernel.exact_shortcuts
        and entry[0] == kernel.now
        and kernel.remote is None
        and kernel._wakeup is None
        and not kernel._stop_requested
        and (not queue or entry < queue[0])
        and (not kernel._now or entry < kernel._now[0])
    ):
        # A test observing every event: as the run loop decides (Kernel.enter_hooked, set when the run started),
        # then whether _enter was replaced (a hooked run whose _enter is the kernel's own needs no call).
        if kernel.enter_hooked and enter_replaced(kernel):
            kernel._enter(entry)
        else:  # Kernel._enter
            if entry > kernel.high:
                kernel.high = entry
                kernel.priority = entry[1]
            kernel.event = entry
            kernel.current = entry[6]
        entry[4](entry[5])
    else:
        kernel.push(*entry)
