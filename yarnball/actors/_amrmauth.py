"""ApplicationMasterService's authorization: a request is served only with the AMRMToken of the attempt it names.

Hadoop takes the attempt from the RPC's AMRMToken (``YarnServerSecurityUtils.authorizeRequest`` in
``ApplicationMasterService.registerApplicationMaster`` / ``allocate`` / ``finishApplicationMaster``), after the RPC
layer checked its password (``AMRMTokenSecretManager.retrievePassword``). yarnball's requests name the attempt
explicitly, so the RM serves one only when its ``amrm_token`` is the token it issued for that attempt; otherwise the
caller gets a :class:`~yarnball.protocols.RemoteRefusal` with Hadoop's wording for the case, the refusal is logged
and counted (``request_rejected``, actors/_secretmanagers.py), and nothing of the named attempt changes (not even
its liveness: the check comes before ``AMLivelinessMonitor.receivedPing``).

An honest AM whose attempt is over still holds that attempt's token: it gets the answers it always got (an
AllocateResponse with AM_SHUTDOWN, a FinishApplicationMasterResponse saying "not unregistered").
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._secretmanagers import password
from yarnball.protocols import AMRMToken, ApplicationAttemptId, RemoteRefusal

__all__ = ["am_refusal"]


def am_refusal(rm: Any, attempt_id: ApplicationAttemptId, token: AMRMToken | None, msg: Any) -> RemoteRefusal | None:
    """None when ``token`` is the AMRMToken ``rm`` issued for ``attempt_id``; else the refusal (logged, counted)."""
    attempt = rm.attempts.get(attempt_id)
    if attempt is not None and token is not None and token == attempt.amrm_token:
        return None
    if token is None:
        # YarnServerSecurityUtils.authorizeRequest (the AM's remote user is its attempt id)
        reason, exception = "amrm_token_missing", "YarnException"
        message = f"No AMRMToken found for user {attempt_id}"
    else:
        holder = rm.attempts.get(token.application_attempt_id)
        key = rm.secrets.amrm_key
        if holder is None:
            # AMRMTokenSecretManager.retrievePassword: the token's attempt is not one the RM knows
            reason, exception = "amrm_token_invalid", "InvalidToken"
            message = f"{token.application_attempt_id} not found in AMRMTokenSecretManager."
        elif token.key_id != key.key_id or token.password != password(key, token):
            # a forged password: retrievePassword's "Invalid AMRMToken from" (the RPC layer refuses the call)
            reason, exception = "amrm_token_invalid", "InvalidToken"
            message = f"Invalid AMRMToken from {token.application_attempt_id}"
        else:
            # A valid token of another attempt. Hadoop could not get here (the attempt *is* the token's); the
            # message follows ContainerManagerImpl.authorizeStartAndResourceIncreaseRequest's for the same mismatch.
            reason, exception = "amrm_token_other_attempt", "InvalidApplicationMasterRequestException"
            message = (
                f"Unauthorized request to {_OPERATIONS.get(type(msg).__name__, type(msg).__name__)}.\n"
                f"AMRMToken for application attempt : {token.application_attempt_id} was used for a request of "
                f"application attempt : {attempt_id}"
            )
    rm.rejections.reject(
        rm,
        reason,
        exception,
        message,
        request=type(msg).__name__,
        attempt=str(attempt_id),
        sender=rm.sender.id if rm.sender is not None else None,
    )
    return RemoteRefusal(exception=exception, message=message)


_OPERATIONS = {
    "RegisterApplicationMasterRequest": "register application master",
    "RegisterDistributedSchedulingAMRequest": "register application master",
    "AllocateRequest": "allocate",
    "DistributedSchedulingAllocateRequest": "allocate",
    "FinishApplicationMasterRequest": "finish application master",
}
