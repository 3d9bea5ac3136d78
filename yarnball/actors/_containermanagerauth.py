"""ContainerManagerImpl's authorization: a NodeManager acts on a container only for the application its caller's
NMToken names.

- Start (``startContainers``): the call's NMToken must be valid for this node (``authorizeUser`` /
  ``selectNMTokenIdentifier``: "Invalid NMToken"); each container's token must be the RM's signature on that very
  container (``verifyAndGetContainerTokenIdentifier``: "Invalid ContainerToken", "... seems to have an illegally
  generated token.") and name the NMToken's application (``authorizeStartAndResourceIncreaseRequest``:
  "Unauthorized request to start container. ...").
- Stop and status (``stopContainers``, ``getContainerStatuses``): ``authorizeGetAndStopContainerRequest``: "<attempt>
  attempted to stop non-application container : <container>".
- Update (``updateContainer``): the NMToken's application must own the container ("Unauthorized request to increase
  container resource. ..." as ``authorizeStartAndResourceIncreaseRequest(..., false)``). The updated container's
  token is not modelled: the RM approved the update, the NM checks who asks.
- A container's process (``ContainerProcessExited``) is its own: an exit reported by another actor is refused. No
  sender at all is the environment (a fault injection) and is let through.

Every refusal is a ``FailedContainerRequest`` in the response, logged and counted by the NM's ``Rejections``
(actors/_secretmanagers.py); the container it names is not touched. An NM without the RM's keys (one that never
registered, as in the NM's own unit tests) checks nothing.
"""

from __future__ import annotations

from typing import Any

from yarnball.protocols import (
    ContainerId,
    ContainerUpdateRequest,
    NMToken,
    StartContainersRequest,
    UpdateContainerRequest,
)
from yarnball.protocols._containermanagement import FailedContainerRequest, StartContainerRequest

__all__ = ["authorize_ids", "authorize_starts", "authorize_updates", "process_exit_refused"]


def _reject(nm: Any, reason: str, message: str, cid: Any, msg: Any) -> FailedContainerRequest:
    sender = nm.sender
    nm.rejections.reject(
        nm,
        reason,
        "YarnException",
        message,
        request=type(msg).__name__,
        container=str(cid),
        sender=sender.id if sender is not None else None,
    )
    return FailedContainerRequest(container_id=cid, diagnostics=message)


def _reject_all(nm: Any, error: str, cids: Any, msg: Any) -> list[FailedContainerRequest]:
    # (out of the authorize_* functions: a comprehension there would make cells for the variables it shares
    # on every call, in CPython, the authorized calls that never reach it too)
    return [_reject(nm, "nm_token_invalid", error, cid, msg) for cid in cids]


def _token_error(nm: Any, token: NMToken | None) -> str | None:
    """The call's NMToken, checked once per application and token (``NMTokenSecretManagerInNM`` keeps them)."""
    secrets = nm.secrets
    if token is not None and secrets.verified.get(token.application_attempt_id.application_id) is token:
        return None
    error: str | None = secrets.nm_token_error(token)
    if error is None:
        secrets.verified[token.application_attempt_id.application_id] = token  # type: ignore[union-attr]
    return error


def authorize_starts(
    nm: Any, msg: StartContainersRequest
) -> tuple[tuple[StartContainerRequest, ...], list[FailedContainerRequest]]:
    """The start requests ``nm`` may go on with, and the refused ones (see the module docstring)."""
    requests = msg.start_container_requests
    secrets = nm.secrets
    if not secrets.enabled:
        return requests, []
    token = msg.nm_token
    error = _token_error(nm, token)
    if error is not None:
        return (), _reject_all(nm, error, [r.container.id for r in requests], msg)
    allowed: list[StartContainerRequest] = []
    failed: list[FailedContainerRequest] = []
    for request in requests:
        error = secrets.start_error(token, request.container)
        if error is None:
            allowed.append(request)
        else:
            reason = "start_other_application" if error.startswith("Unauthorized") else "container_token_invalid"
            failed.append(_reject(nm, reason, error, request.container.id, msg))
    return tuple(allowed), failed


def authorize_ids(nm: Any, msg: Any, *, stop: bool) -> tuple[tuple[ContainerId, ...], list[FailedContainerRequest]]:
    """The container ids of a stop (or status) request ``nm`` may act on, and the refused ones."""
    ids = msg.container_ids
    secrets = nm.secrets
    if not secrets.enabled:
        return ids, []
    token = msg.nm_token
    error = _token_error(nm, token)
    if error is not None:
        return (), _reject_all(nm, error, ids, msg)
    allowed: list[ContainerId] = []
    failed: list[FailedContainerRequest] = []
    for cid in ids:
        error = secrets.stop_or_status_error(token, cid, stop)
        if error is None:
            allowed.append(cid)
        else:
            reason = "stop_other_application" if stop else "status_other_application"
            failed.append(_reject(nm, reason, error, cid, msg))
    return tuple(allowed), failed


def authorize_updates(
    nm: Any, msg: ContainerUpdateRequest
) -> tuple[tuple[UpdateContainerRequest, ...], list[FailedContainerRequest]]:
    """The updates ``nm`` may apply, and the refused ones."""
    updates = msg.containers_to_update
    secrets = nm.secrets
    if not secrets.enabled:
        return updates, []
    token = msg.nm_token
    error = _token_error(nm, token)
    if error is not None:
        return (), _reject_all(nm, error, [u.container_id for u in updates], msg)
    allowed: list[UpdateContainerRequest] = []
    failed: list[FailedContainerRequest] = []
    for update in updates:
        cid = update.container_id
        token_attempt = token.application_attempt_id  # type: ignore[union-attr]
        if token_attempt.application_id == cid.application_attempt_id.application_id:
            allowed.append(update)
            continue
        error = (
            "Unauthorized request to increase container resource.\nNMToken for application attempt : "
            f"{token_attempt} was used for increasing resource of container with container token issued for "
            f"application attempt : {cid.application_attempt_id}"
        )
        failed.append(_reject(nm, "update_other_application", error, cid, msg))
    return tuple(allowed), failed


def process_exit_refused(nm: Any, process: str | None, msg: Any) -> bool:
    """Whether a ContainerProcessExited for a container run by ``process`` came from someone else (then refused)."""
    sender = nm.sender
    if sender is None or sender.id == process or not nm.secrets.enabled:
        return False
    _reject(
        nm,
        "process_exit_not_owner",
        f"{sender.id} is not the process of container {msg.container_id}",
        msg.container_id,
        msg,
    )
    return True
