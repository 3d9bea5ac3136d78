"""An ApplicationMaster's resync after a ResourceManager restart (``AMRMClientImpl``'s handling of
``ApplicationMasterNotRegisteredException``).

A restarted RM recovers an attempt without its AM's registration, asks, releases or blacklist (actors/_rmrestart.py):
it answers the AM's next allocate (or finish) with ApplicationMasterNotRegisteredException. The client then, as
``AMRMClientImpl.allocate`` does, puts every outstanding ask of its remote-request table, every pending release and
its blacklist into the next request, registers again (``registerApplicationMaster``: the response id starts over at
0) and calls allocate at once; an unregistration refused this way is sent again after the re-registration
(``AMRMClientImpl.unregisterApplicationMaster``). The containers the AM runs stay its own: the RM adopted them from
the NodeManagers. The AM's callbacks are not called again (``on_registered`` ran for the first registration).

Only AMs with an allocate RPC client (actors/_amrpc.py: a run with faults) take part: the client's call in flight
is what the exception answers.
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._actor import Actor
from yarnball.actors._amrpc import AllocateCall
from yarnball.actors._asktable import AskSpec
from yarnball.protocols import (
    AMRMToken,
    ApplicationAttemptId,
    ContainerId,
    NMToken,
    NodeId,
    RegisterApplicationMasterRequest,
    RegisterApplicationMasterResponse,
    RemoteRefusal,
    Resource,
)

__all__ = ["NOT_REGISTERED", "AMResync"]

NOT_REGISTERED = "ApplicationMasterNotRegisteredException"


class AMResync(Actor):
    """The resync of an ApplicationMaster (its base class): the AMRMClient state it reads is the AM's own."""

    _rpc: AllocateCall | None
    _changed: list[list[Any]]
    _tables: dict[AskSpec, dict[str, list[Any]]]
    _release: list[ContainerId]
    response_id: int
    _unregistering: bool
    attempt_id: ApplicationAttemptId | None
    finished: bool
    amrm_token: AMRMToken | None
    maximum_capability: Resource | None
    nm_tokens: dict[NodeId, NMToken]

    @property
    def amrm(self) -> Any:
        """Where ApplicationMasterProtocol goes (the ApplicationMaster's)."""
        raise NotImplementedError

    def _allocate(self) -> None:
        raise NotImplementedError

    def _resync(self, refusal: RemoteRefusal) -> bool:
        """Start the resync for ``refusal`` if it is ApplicationMasterNotRegisteredException; whether it was."""
        rpc = self._rpc
        if rpc is None or refusal.exception != NOT_REGISTERED or self.attempt_id is None or self.finished:
            return False
        if rpc.resyncing:
            return True  # (the retried call of a resync under way)
        self.log.warning(
            "am_resync",
            attempt=str(self.attempt_id),
            diagnostics="ApplicationMaster is out of sync with ResourceManager, hence resyncing.",
        )
        pending, finish = list(rpc.pending_release), rpc.finish
        rpc.reset()
        rpc.pending_release = dict.fromkeys(pending)
        rpc.finish = finish
        # every outstanding ask again (remoteRequestsTable -> ask), the pending releases (pendingRelease -> release)
        changed = self._changed
        for table in self._tables.values():
            for entry in table.values():
                if entry[0] > 0 and not entry[4]:
                    entry[4] = True
                    changed.append(entry)
        queued = set(self._release)
        self._release.extend(cid for cid in pending if cid not in queued)
        self.response_id = 0
        rpc.resyncing = True
        # (no allocate leaves before the registration is answered: any call in flight holds them back)
        rpc.in_flight = refusal  # type: ignore[assignment]
        request = RegisterApplicationMasterRequest(application_attempt_id=self.attempt_id, amrm_token=self.amrm_token)
        self.amrm.tell(request, self.ref)
        return True

    def _resynced(self, msg: RegisterApplicationMasterResponse) -> bool:
        """Finish a resync with its registration's answer: allocate at once (or unregister again); whether it was."""
        rpc = self._rpc
        if rpc is None or not rpc.resyncing:
            return False
        rpc.resyncing = False
        rpc.in_flight = None
        self.maximum_capability = msg.maximum_resource_capability
        for token in msg.nm_tokens_from_previous_attempts:
            self.nm_tokens[token.node_id] = token
        self.log.info("am_resynced", attempt=str(self.attempt_id))
        if self._unregistering and rpc.finish is not None:
            self.amrm.tell(rpc.finish, self.ref)
        else:
            self._allocate()
        return True
