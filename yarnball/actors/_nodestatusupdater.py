"""The NodeManager's heartbeat client, ``NodeStatusUpdaterImpl``: one object per NM (``NodeManager.status_updater``).

Hadoop's NM reports to the RM from a status-updater thread: it sends a heartbeat (``ResourceTracker.nodeHeartbeat``),
waits for the answer, acts on it and sleeps until the next; on RESYNC it registers again
(``rebootNodeStatusUpdaterAndRegisterWithRM``: a new StatusUpdaterRunnable, ``lastHeartbeatID`` from 0). It keeps the
completions reported but not known to be received (``pendingCompletedContainers``), and a DONE container stays in the
NM context, answered by getContainerStatuses, until a response lists it in ``containersToBeRemovedFromNM``
(``removeOrTrackCompletedContainersFromContext``, once the AM has pulled the completion).

yarnball's ordinary path keeps only the stopped containers, and until the first response to a heartbeat sent after
they stopped (the RM has their completion by then); their ids are forgotten then (Hadoop answers "was recently
stopped" for ``yarn.nodemanager.duration-to-track-stopped-containers``, yarnball "is not handled by this NodeManager":
thousands of NMs share one process). While every heartbeat is answered at once and every message arrives once, in
order, a heartbeat carries only the statuses that changed and waits for nothing; the updater is made at the NM's first
completed container. Two kinds of run make heartbeats calls that wait for their answer
(``NodeManager.wait_for_heartbeat_answers``):

- a run that restarts the RM (actors/_rmrestart.py): while the RM is down the call waits (its RMProxy retries it: the
  RM's down-time delivery) and no other heartbeat leaves; when the RM answers RESYNC the NM registers again with
  every container it has (``NodeManager.resyncWithRM`` with work-preserving recovery, the default), the call's
  completions included (pending until any other answer, as Hadoop clears ``pendingCompletedContainers`` after each
  heartbeat that was not missed);
- a run with message faults on the NM's heartbeat links (actors/_nmrpc.py, launcher/_faultinjector.py): Hadoop's RPC
  rules. An unanswered call is retried, unchanged, after ``yarn.nodemanager.resourcemanager.connect.retry-interval.ms``
  (default: ``yarn.resourcemanager.connect.retry-interval.ms``, ``ServerRMProxy.createRMProxy``);
  an answer is taken only for the call in flight (Hadoop RPC's call id): one whose response id is not the request's
  + 1, or one "Too far behind", answers an older call and is dropped; completed containers stay in every heartbeat
  until a response lists them in ``containersToBeRemovedFromNM``, so a heartbeat lost for good loses no completion;
  after a RESYNC the NM's response ids restart at 0, as the RM's node's (``RMNodeImpl.resetLastNodeHeartBeatResponse``).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._nmrpc import TOO_FAR_BEHIND
from yarnball.protocols import (
    ApplicationId,
    ContainerId,
    ContainerState,
    ContainerStatus,
    NodeAction,
    NodeHeartbeatRequest,
    NodeHeartbeatResponse,
    Resource,
)
from yarnball.protocols._resourcetracker import NMContainerStatus

__all__ = ["STOPPED_LIMIT", "NodeStatusUpdater", "registration"]

_COMPLETE = ContainerState.COMPLETE
_NORMAL = NodeAction.NORMAL
#: The size at which ``recently_stopped`` first drops its acknowledged entries (then at each power of two above it).
STOPPED_LIMIT = 32


class NodeStatusUpdater:
    """One NM's heartbeat client: its stopped containers and, where heartbeats wait for answers, the call in flight."""

    __slots__ = ("in_flight", "nm", "pending_completed", "recently_stopped", "retry_ms", "timer")

    def __init__(self, nm: Any) -> None:
        self.nm = nm
        #: Stopped containers still in the NM context (DONE): id -> (the response id that acknowledges it, COMPLETE
        #: status), in completion order (NodeManager._complete). The next heartbeat reports the completion, its
        #: response has an id of at least the last one + 1, and + 2 leaves out a heartbeat already on its way.
        self.recently_stopped: dict[ContainerId, tuple[int, ContainerStatus]] = {}
        #: pendingCompletedContainers: container id -> its COMPLETE status, reported and not known to be received.
        self.pending_completed: dict[ContainerId, ContainerStatus] = {}
        self.in_flight: NodeHeartbeatRequest | None = None  # the call waiting for its answer
        self.retry_ms: float | None = None  # with Hadoop's RPC rules (message faults): the NM's retry interval
        self.timer: Any = None

    @classmethod
    def of(cls, nm: Any) -> NodeStatusUpdater:
        """``nm``'s updater, made now if it has none."""
        updater: NodeStatusUpdater | None = nm.status_updater
        if updater is None:
            updater = nm.status_updater = cls(nm)
        return updater

    def wait_for_answers(self, retry_ms: float | None = None) -> None:
        """Heartbeats are calls that wait for their answers (``NodeManager.wait_for_heartbeat_answers`` makes this
        updater the NM's heartbeat call); with ``retry_ms``, under Hadoop's RPC rules."""
        if retry_ms is not None:
            self.retry_ms = retry_ms

    # -- getContainerStatuses ------------------------------------------------------------------------------------
    def forget_acknowledged(self) -> None:
        """Drop the stopped containers whose completion the RM has (in bulk: amortised O(1) per container)."""
        response_id = self.nm.response_id
        self.recently_stopped = {k: v for k, v in self.recently_stopped.items() if v[0] > response_id}

    def stopped_status(self, cid: ContainerId) -> ContainerStatus | None:
        """The final status of ``cid`` if it is a stopped container still in the NM context."""
        stopped = self.recently_stopped.get(cid)
        return stopped[1] if stopped is not None and stopped[0] > self.nm.response_id else None

    # -- the heartbeat call --------------------------------------------------------------------------------------
    def statuses(self, changes: list[ContainerStatus]) -> tuple[ContainerStatus, ...]:
        """What the call reports, its completions pending from now: under the RPC rules the live statuses that
        changed and every pending completion (``getContainerStatuses``), otherwise the changes."""
        pending = self.pending_completed
        live = []
        for status in changes:
            if status.state is _COMPLETE:
                pending[status.container_id] = status
            else:
                live.append(status)
        return tuple(changes) if self.retry_ms is None else (*live, *pending.values())

    def send(self, request: NodeHeartbeatRequest) -> bool:
        """Whether ``request`` may go now (no call in flight); if so it is the call in flight."""
        if self.in_flight is not None:
            return False
        self.in_flight = request
        if self.retry_ms is not None:
            self._arm()
        return True

    def _arm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = self.nm.after(self.retry_ms, self._retry)

    def _retry(self) -> None:
        self.timer = None
        request = self.in_flight
        nm = self.nm
        if request is None or not nm.ref.is_alive or nm.is_down or nm.decommissioned:
            self.in_flight = None
            return
        nm.log.info("node_heartbeat_retried", node=str(nm.node_id), response_id=request.node_status.response_id)
        self._arm()
        nm.rm.tell(request, nm.ref)

    def answer(self, msg: NodeHeartbeatResponse) -> bool:
        """Whether ``msg`` answers the call in flight (else the NM's RPC client drops it); if so the call is over,
        but for a RESYNC's without the RPC rules (:func:`registration` ends it)."""
        if self.retry_ms is None:
            if msg.node_action is not NodeAction.RESYNC:
                self.in_flight = None
                self.pending_completed.clear()
            return True
        request = self.in_flight
        if request is None:
            return False
        if msg.node_action is _NORMAL:
            if msg.response_id != request.node_status.response_id + 1:
                return False  # the answer to an older call (a duplicate's, or a retried one's)
        elif msg.diagnostics_message.startswith(TOO_FAR_BEHIND):
            # Only a stale request is ever too far behind: the call in flight echoes the last id the NM took, which
            # the RM answered last or, when that answer was lost, one before (a duplicate).
            return False
        self.reset()
        for cid in msg.containers_to_be_removed_from_nm:  # removeOrTrackCompletedContainersFromContext
            self.pending_completed.pop(cid, None)
        return True

    def reset(self) -> None:
        """No call in flight (answered, or the NM registers again or stops)."""
        self.in_flight = None
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def registered(self) -> None:
        """A new StatusUpdaterRunnable after the NM registered: under the RPC rules no call in flight, and response
        ids from 0 as the RM's node's."""
        if self.retry_ms is not None:
            self.reset()
            self.nm.response_id = 0

    def nm_stopped(self, keep: bool) -> None:
        """The NM process stops: the call in flight is gone; without ``keep`` (no state store) so is the rest."""
        self.reset()
        if not keep:
            self.pending_completed.clear()
            self.recently_stopped = {}


def registration(nm: Any) -> tuple[tuple[NMContainerStatus, ...], tuple[ApplicationId, ...]]:
    """``NodeStatusUpdaterImpl.getNMContainerStatuses`` and the running applications: every live container, and the
    completions the RM may not have (the pending ones first), reported in the registration, no more in a heartbeat."""
    changes = nm.take_changes()
    updater: NodeStatusUpdater | None = nm.status_updater
    if updater is not None:
        pending = updater.pending_completed
        if pending:
            changes = [*pending.values(), *(s for s in changes if s.container_id not in pending)]
            pending.clear()
        updater.reset()
    out: list[NMContainerStatus] = [_nm_status(s) for s in changes if s.state is _COMPLETE]
    for entry in nm.containers.values():
        c = entry.container
        out.append(
            NMContainerStatus(
                container_id=c.id,
                container_state=entry.state,
                allocated_resource=c.resource,
                diagnostics=entry.diagnostics,
                priority=c.priority,
                version=c.version,
                execution_type=c.execution_type,
                allocation_request_id=c.allocation_request_id,
            )
        )
    apps = sorted(
        {s.container_id.application_attempt_id.application_id for s in out}, key=lambda a: (a.cluster_timestamp, a.id)
    )
    return tuple(out), tuple(apps)


def _nm_status(status: ContainerStatus) -> NMContainerStatus:
    return NMContainerStatus(
        container_id=status.container_id,
        container_state=status.state,
        allocated_resource=status.capability if status.capability is not None else Resource(),
        diagnostics=status.diagnostics,
        container_exit_status=status.exit_status,
        execution_type=status.execution_type,
    )
