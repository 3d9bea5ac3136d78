"""Shorter ApplicationMaster allocate rounds: early sleep after a response, and a firing with its allocate.

Without this, a quiet AM (``ApplicationMaster.quiet_when_idle``) that has just handled an AllocateResponse and has
nothing to send still pays one more heartbeat before it sleeps: its timer fires (``F``), the skipped-allocate
check runs at the RM (``A``, actors/_shortcuts/_amheartbeats.py), finds a no-op and only then makes the AM dormant
(_shortcuts/_amdormancy.py). With ``DormantAMs.early`` (on whenever dormancy is) the AM goes dormant at the end of the
response's handling instead, with the Sleeper that no-op ``A`` would have set up one tick later.

**Why this is exact.** Let the response be handled at ``t`` and the AM's next firing be queued at ``t1 = t +
interval`` with sequence ``sf`` (the timer's ``due`` and ``seq``). Going dormant now, the Sleeper takes ``t1`` and
``sf`` as its first skipped tick, ``c`` = the AM's next sequence as the first skipped ``A``'s, and ``r0`` = the
attempt's response id (the response's: the AM's own ``response_id``, checked equal). The no-op ``A`` of tick ``t1``
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
  that between now and ``A`` wakes the AM (the RM's hooks, actors/_shortcuts/_amdormancy.py): a wake before ``t1``'s
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
``run_next`` (_routes.py) runs it at once when it is the event the kernel would pop next (``Kernel.run_if_next``:
its time is ``now`` and its key is below every queued one; not under ``run_async`` or in a shard host, and shown
to a hooked ``Kernel._enter`` as the run loop would show it). Then nothing can run between ``F`` and ``E``, so
running it inside ``F`` is the same computation; only the kernel's event count differs. Otherwise it is queued as
before. Either way ``E`` is the layer's ``deliver_allocate`` (_routes.py), which runs the RM's AllocateResponse in
place in turn when it is the next event: a firing, its allocate and the AM's handling of the reply are one event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yarnball.actors._kernel import NORMAL, Kernel
from yarnball.actors._ref import ActorRef
from yarnball.actors._rmapp import AttemptState
from yarnball.actors._shortcuts._amtimer import HeartbeatTimer
from yarnball.actors._shortcuts._routes import deliver_allocate

if TYPE_CHECKING:
    from yarnball.actors._heartbeats import HeartbeatClock
    from yarnball.actors._rmcontext import RMContext

__all__ = ["hold_tell", "scheduler_has_news", "sleep_after_response"]

_LIVE = (AttemptState.RUNNING, AttemptState.FINISHING)


def sleep_after_response(am: Any, rm: Any, progress: float) -> None:
    """``am`` (quiet, with the base ``_allocate``, not finished and with nothing to send: the AM checks) has just
    handled an AllocateResponse: go dormant now if its next tick would be a no-op. The AM hands over what only it
    knows: ``rm``, its ``direct_rm()``, and the ``progress`` its next request would report."""
    attempt_id = am.attempt_id
    if attempt_id is None or rm is None:
        return
    ctx: RMContext | None = getattr(rm, "context", None)  # (None: an actor standing in for the RM)
    if ctx is None:
        return
    dormant = ctx.dormant
    if not dormant.enabled or not dormant.early:
        return
    clock: HeartbeatClock | None = ctx.heartbeats
    if clock is None or not clock.skip_am or not rm.is_free or rm.opportunistic is not None:
        return
    attempts: dict[Any, Any] = ctx.attempts
    attempt = attempts.get(attempt_id)  # (a RUNNING/FINISHING attempt is never done: no is_done check)
    if attempt is None or attempt.state not in _LIVE or attempt.response_id != am.response_id:
        return
    if scheduler_has_news(ctx.scheduler, attempt_id):
        return
    dormant.sleep(am, attempt, progress)


def scheduler_has_news(scheduler: Any, attempt_id: Any) -> bool:
    """Whether ``scheduler.idle_allocate(attempt_id)`` would be None (an allocate would return something), asked
    without computing the headroom it returns otherwise (the scheduler's ``allocate_has_news``, where it has one;
    else its ``idle_allocate`` itself)."""
    has_news = getattr(scheduler, "allocate_has_news", None)
    if has_news is None:
        return scheduler.idle_allocate(attempt_id) is None  # type: ignore[no-any-return]
    return has_news(attempt_id)  # type: ignore[no-any-return]


def hold_tell(timer: HeartbeatTimer, ref: Any, request: Any, sender: Any) -> None:
    """``ref.tell(request, sender)`` (an AllocateRequest to the RM) from a heartbeat firing: the same entry, held
    for the end of the firing (``HeartbeatTimer._fire``)."""
    kernel: Kernel = ref.kernel
    actor = ref.actor if type(ref) is ActorRef else None
    if actor is None or not kernel.exact_shortcuts or not kernel.instant:
        ref.tell(request, sender)
        return
    origin, seq = kernel.next_key()
    # ActorRef.tell's key, computed the same way (time, NORMAL, origin, origin's sequence), the receiver as owner
    t = kernel.now + (kernel.default_latency + 0)
    timer.held = (t, NORMAL, origin, seq, deliver_allocate, (actor, actor.delivery_entry, request, sender), ref.id)
