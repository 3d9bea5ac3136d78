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

from yarnball.protocols import RegisterApplicationMasterRequest, RegisterApplicationMasterResponse, RemoteRefusal

__all__ = ["NOT_REGISTERED", "resync", "resynced"]

NOT_REGISTERED = "ApplicationMasterNotRegisteredException"


def resync(am: Any, refusal: RemoteRefusal) -> bool:
    """Start the resync for ``refusal`` if it is ApplicationMasterNotRegisteredException; whether it was."""
    rpc = am._rpc
    if rpc is None or refusal.exception != NOT_REGISTERED or am.attempt_id is None or am.finished:
        return False
    if rpc.resyncing:
        return True  # (the retried call of a resync under way)
    am.log.warning(
        "am_resync",
        attempt=str(am.attempt_id),
        diagnostics="ApplicationMaster is out of sync with ResourceManager, hence resyncing.",
    )
    pending, finish = list(rpc.pending_release), rpc.finish
    rpc.reset()
    rpc.pending_release = dict.fromkeys(pending)
    rpc.finish = finish
    # every outstanding ask again (remoteRequestsTable -> ask), the pending releases (pendingRelease -> release)
    changed = am._changed
    for table in am._tables.values():
        for entry in table.values():
            if entry[0] > 0 and not entry[4]:
                entry[4] = True
                changed.append(entry)
    queued = set(am._release)
    am._release.extend(cid for cid in pending if cid not in queued)
    am._response_id = 0
    rpc.resyncing = True
    rpc.in_flight = refusal  # (no allocate leaves before the registration is answered)
    am.amrm.tell(RegisterApplicationMasterRequest(application_attempt_id=am.attempt_id, amrm_token=am.amrm_token),
                 am.ref)  # fmt: skip
    return True


def resynced(am: Any, msg: RegisterApplicationMasterResponse) -> bool:
    """Finish a resync with its registration's answer: allocate at once (or unregister again); whether it was."""
    rpc = am._rpc
    if rpc is None or not rpc.resyncing:
        return False
    rpc.resyncing = False
    rpc.in_flight = None
    am.maximum_capability = msg.maximum_resource_capability
    for token in msg.nm_tokens_from_previous_attempts:
        am.nm_tokens[token.node_id] = token
    am.log.info("am_resynced", attempt=str(am.attempt_id))
    if am._unregistering and rpc.finish is not None:
        am.amrm.tell(rpc.finish, am.ref)
    else:
        am._allocate()
    return True
