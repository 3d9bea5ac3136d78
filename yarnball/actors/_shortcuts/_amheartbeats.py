"""Skipping ApplicationMaster heartbeats (``allocate`` calls) that provably change nothing.

An AM heartbeats ``allocate`` every ``heartbeat_interval_ms``. With ``yarnball.simulation.skip-idle-am-heartbeats``
(on by default; switched off with NM skipping's conditions, see ``Cluster._skipping_proven``) an AM that opts in
(``ApplicationMaster.quiet_when_idle``: SLS's AMs) and has nothing to send at a phase point — no changed asks, no
releases, no container updates (blacklist changes are never sent by yarnball's AMs) — sends no AllocateRequest.
Instead an event is queued with exactly the key the request's delivery would have had (same time, priority, origin
and sequence), so everything that runs before the RM would have handled the request still does. At that point:

* if the call would return something — newly allocated or completed containers, live containers marked for
  preemption (the PreemptionMessage), node updates (actors/_decommission.py), or the attempt is not
  RUNNING/FINISHING (AM_SHUTDOWN), or the opportunistic service is on (it rewrites every response) — the very
  AllocateRequest the AM would have sent is handed to the RM then, and everything proceeds as without skipping;
* otherwise the call is a no-op for the scheduler (the scheduler's ``idle_allocate``: it pulls nothing and only
  computes headroom) and the RM does what ApplicationMasterService does for it: the attempt's liveness
  (``yarn.am.liveness-monitor.expiry-interval-ms``) is refreshed and the response id advanced; the AM gets the
  response's ids, headroom and cluster size as it would from an empty AllocateResponse (whose callbacks are all
  skipped, ``ApplicationMaster.on_allocate_response``).

The AM's timer still fires at every phase point (so timing is identical by construction) unless the AM goes
dormant after a no-op (``yarnball.simulation.dormant-idle-ams``, _amdormancy.py: no events at all until work
appears); what is saved here is the request and response messages, the scheduler's allocate with its Allocation
and the response handling. Only the scheduler's ``allocate`` operation count differs between the two modes
(tests/test_am_heartbeat_skipping.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yarnball.actors._kernel import NORMAL, Kernel
from yarnball.actors._rmapp import AttemptState
from yarnball.actors._shortcuts._amtimer import HeartbeatTimer
from yarnball.actors._shortcuts._routes import deliver_allocate
from yarnball.protocols import AllocateRequest, ResourceBlacklistRequest

if TYPE_CHECKING:
    from yarnball.actors._heartbeats import HeartbeatClock
    from yarnball.actors._rmcontext import RMContext
    from yarnball.actors._shortcuts._amdormancy import DormantAMs
    from yarnball.policies.scheduler._abstract import AbstractYarnScheduler

__all__ = ["idle_allocate"]

_NO_BLACKLIST_CHANGE = ResourceBlacklistRequest()  # records are frozen: one shared empty change
_LIVE = (AttemptState.RUNNING, AttemptState.FINISHING)  # a constant: Enum class attributes are slow lookups


def idle_allocate(am: Any, rm: Any, progress: float) -> bool:
    """``am`` has nothing to send: queue the check in place of its AllocateRequest; False if it must send one.
    The AM hands over what only it knows: ``rm``, its ``direct_rm()``, and the ``progress`` its request would
    report."""
    if rm is None:
        return False  # an AMRMProxy in between (distributed scheduling), or no RM hosted here
    clock: HeartbeatClock | None = getattr(rm, "heartbeats", None)
    if clock is None or not clock.skip_am:
        return False
    kernel: Kernel = am.kernel
    arg = (rm, am, am.attempt_id, am.response_id, progress)
    # ActorRef.tell's key: the same delay, priority, origin and sequence, and the RM as the owner.
    owner = rm.ref.id
    delay = kernel.latency(am.ref.id, owner)
    timer = am.heartbeat_timer
    if type(timer) is HeartbeatTimer and timer.firing:
        origin, seq = kernel.next_key()  # the key Kernel.schedule would give it; run by the firing if next
        timer.held = (kernel.now + delay, NORMAL, origin, seq, _at_rm, arg, owner)
    else:
        kernel.schedule(delay, _at_rm, arg, owner=owner)
    return True


def _at_rm(arg: tuple[Any, Any, Any, int, Any]) -> None:  # (the progress: as the AM has it, see _amdormancy.py)
    rm, am, attempt_id, response_id, progress = arg
    ctx: RMContext = rm.context
    resize = rm.resize  # container resizes: an allocate with updates or errors to hand over is a real one
    decommissioning = rm.decommissioning  # and one with node updates to hand over (actors/_decommission.py)
    if (
        rm.is_free
        and rm.opportunistic is None
        and (resize is None or not resize.has_news(attempt_id))
        and (decommissioning is None or not decommissioning.has_news(attempt_id.application_id))
    ):
        # Whether the call is a no-op (one function: this check runs at every AM heartbeat that is not dormant).
        # ApplicationMasterService.current_attempt and the state check in one: a RUNNING/FINISHING attempt is never
        # done.
        attempts: dict[Any, Any] = ctx.attempts
        attempt = attempts.get(attempt_id)
        # (only with the attempt's own AMRMToken: anything else goes to the RM as a request, to be refused there)
        if attempt is not None and attempt.state in _LIVE and am.amrm_token is attempt.amrm_token:
            # (every scheduler is one: its class, not the ResourceScheduler protocol, makes the call a native one)
            scheduler: AbstractYarnScheduler = ctx.scheduler
            headroom = scheduler.idle_allocate(attempt_id)
            if headroom is not None:
                # ApplicationMasterService.allocate for a call that carries and returns nothing: liveness and
                # response id; then the empty AllocateResponse as the AM takes it.
                kernel: Kernel = ctx.kernel
                clock = ctx.heartbeats
                assert clock is not None  # (an idle allocate is a skipped one: a heartbeat clock runs)
                attempt.last_heartbeat = kernel.now
                attempt.response_id = rid = response_id + 1
                am.idle_response(rid, headroom, len(ctx.nodes))
                clock.skipped_allocates += 1
                dormant: DormantAMs = ctx.dormant
                if dormant.enabled:
                    dormant.sleep(am, attempt, progress)  # _amdormancy.py
                return
    request = AllocateRequest(
        application_attempt_id=attempt_id,
        response_id=response_id,
        progress=progress,
        ask=(),
        release=(),
        update_requests=(),
        resource_blacklist_request=_NO_BLACKLIST_CHANGE,
        amrm_token=am.amrm_token,
    )
    # What the request's delivery event would have done, its reply run in place when it is next (_routes.py).
    deliver_allocate((rm, rm.delivery_entry, request, am.ref))
