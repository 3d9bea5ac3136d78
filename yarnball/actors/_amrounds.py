"""Shorter ApplicationMaster allocate rounds: a quiet AM goes dormant as soon as a response leaves it idle.

Without this, a quiet AM (``ApplicationMaster.quiet_when_idle``) that has just handled an AllocateResponse and has
nothing to send still pays one more heartbeat before it sleeps: its timer fires (``F``), the skipped-allocate
check runs at the RM (``A``, actors/_amheartbeats.py), finds a no-op and only then makes the AM dormant
(actors/_amdormancy.py). With ``DormantAMs.early`` (on whenever dormancy is) the AM goes dormant at the end of the
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
  opportunistic service, and the scheduler would return nothing (``CapacityScheduler.idle_allocate`` is not None,
  asked now; its only side effect, dropping preemption marks of containers no longer live, is unobservable: such
  a mark is never sent again). Whatever could change that between now and ``A`` wakes the AM (the RM's hooks,
  actors/_amdormancy.py): a wake before ``t1``'s firing finds no tick run (the suspended ``F`` simply goes live
  again: nothing changed), a wake between ``F`` and ``A`` re-queues that ``A`` with its own key, as before.

Settling the skipped first tick gives what its ``A`` would have: response id ``r0 + 1`` and liveness ``t1``, one
skipped allocate more. The AM's ``headroom`` and ``num_cluster_nodes`` stay those of the response (quiet AMs do
not read them between allocates that return something; the first allocate after waking sets them). The same
conditions as dormancy itself apply (``DormantAMs.sleep``: integral times, a live heartbeat timer due at
``now + interval``, nothing in the mailbox).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._rmapp import AttemptState

__all__ = ["sleep_after_response"]

_LIVE = (AttemptState.RUNNING, AttemptState.FINISHING)


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
    attempt = rm.attempts.get(attempt_id)
    if attempt is None or attempt.is_done or attempt.state not in _LIVE or attempt.response_id != am._response_id:
        return
    if rm.scheduler.idle_allocate(attempt_id) is None:
        return
    dormant.sleep(am, attempt, 1.0 if am._unregistering else 0.0)
