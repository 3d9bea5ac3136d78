"""The allocate RPC's rules on both ends: response ids at the RM, one call at a time with retries at the AM.

**At the RM** (``ApplicationMasterService.allocate``): the RM keeps each attempt's last AllocateResponse. A request
whose ``response_id + 1`` equals the last response's id is an old heartbeat (a retried or duplicated call whose
answer was already given): the last response is returned again, unchanged, and the scheduler is not asked. A
request further behind is refused with ``InvalidApplicationMasterRequestException`` ("Invalid responseId in
AllocateRequest from application attempt: ..., expect responseId to be ..."). :func:`old_allocate` decides;
with no fault in a run the AM always echoes the last id, so it never fires.

**At the AM** (``AMRMClientImpl.allocate`` over Hadoop RPC): a call is synchronous (AMRMClientAsync's heartbeat
thread waits in ``allocate``), its answer is matched to the call (Hadoop RPC's call id: an answer to a call
already answered is dropped by the client), and a call that gets no answer is retried with the same request
after ``yarn.resourcemanager.connect.retry-interval.ms`` (``RMProxy``'s retry policy; the ask and release lists
of the lost call are the ones retried, as AMRMClientImpl puts them back after a failed call). :class:`AllocateCall`
is that client state; an AM gets one only in a run with message faults (launcher/_faultinjector.py), so that
runs without them keep their exact event order.
"""

from __future__ import annotations

from typing import Any

from yarnball.protocols import AllocateRequest, AllocateResponse

__all__ = ["REFUSED", "AllocateCall", "old_allocate"]

#: What :func:`old_allocate` returns for a refused request: no answer is sent (the exception reaches an RPC call
#: the AM's client no longer waits for, and is dropped there).
REFUSED: Any = object()


def old_allocate(rm: Any, attempt: Any, msg: AllocateRequest) -> AllocateResponse | None:
    """The RM's answer to an allocate whose response id is not the attempt's last one (ApplicationMasterService
    .allocate): the last response again for an old heartbeat, :data:`REFUSED` for one further behind, None to
    serve it (an id ahead of the RM's is served, as Hadoop's does)."""
    last = attempt.last_response
    if last is not None and msg.response_id + 1 == attempt.response_id:
        rm.counters["allocate_duplicates"] += 1
        rm.log.info("allocate_duplicate", attempt=str(attempt.attempt_id), response_id=msg.response_id)
        return last  # type: ignore[no-any-return]
    if msg.response_id + 1 < attempt.response_id:
        rm.counters["allocate_refused"] += 1
        rm.log.warning(
            "allocate_refused",
            attempt=str(attempt.attempt_id),
            exception="InvalidApplicationMasterRequestException",
            diagnostics=(
                f"Invalid responseId in AllocateRequest from application attempt: {attempt.attempt_id}, "
                f"expect responseId to be {attempt.response_id}"
            ),
        )
        return REFUSED  # type: ignore[no-any-return]
    return None


class AllocateCall:
    """One AM's allocate client: at most one call in flight, its answer taken once, retried when unanswered."""

    __slots__ = ("am", "finish", "in_flight", "pending_release", "resyncing", "retries", "retry_ms", "timer")

    def __init__(self, am: Any, retry_ms: float) -> None:
        self.am = am
        self.retry_ms = retry_ms
        self.in_flight: AllocateRequest | None = None
        self.timer: Any = None
        self.retries = 0
        #: AMRMClientImpl.pendingRelease: containers released and not yet reported completed (sent again on resync).
        self.pending_release: dict[Any, None] = {}
        #: Re-registering after ApplicationMasterNotRegisteredException (actors/_amresync.py).
        self.resyncing = False
        self.finish: Any = None  # the AM's FinishApplicationMasterRequest, once it unregisters (sent again on resync)

    def send(self, request: AllocateRequest) -> bool:
        """Whether ``request`` may go now (no call in flight); if so it is the call in flight, retried later."""
        if self.in_flight is not None:
            return False  # the heartbeat thread is still waiting in allocate: this tick does nothing
        self.in_flight = request
        self._arm()
        return True

    def _arm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = self.am.after(self.retry_ms, self._retry)

    def _retry(self) -> None:
        self.timer = None
        request = self.in_flight
        am = self.am
        if (
            request is None
            or am.finished
            or am.attempt_id is None
            or request.application_attempt_id != am.attempt_id
        ):
            self.in_flight = None
            return
        self.retries += 1
        am.log.info("allocate_retried", attempt=str(am.attempt_id), response_id=request.response_id)
        self._arm()
        am.amrm.tell(request, am.ref)

    def answer(self, msg: AllocateResponse, last_id: int) -> bool:
        """Whether ``msg`` answers the call in flight (else the client drops it: a second answer to one call)."""
        request = self.in_flight
        if request is None:
            return False
        if msg.response_id <= last_id and msg.response_id != 0:
            return False  # an answer the AM already took (the same response id again)
        self.in_flight = None
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        return True

    def reset(self) -> None:
        """A new attempt (or shutdown): nothing in flight."""
        self.in_flight = None
        self.resyncing = False
        self.pending_release = {}
        self.finish = None
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
