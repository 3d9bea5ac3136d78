"""YARN's tokens: who may speak for an application attempt, to the RM and to a NodeManager.

Hadoop's RPCs carry a ``Token`` (an identifier and a password, the password being a MAC of the identifier's bytes
under a master key only the RM, and for NM-side tokens the NMs, know):

- ``AMRMToken`` (``AMRMTokenIdentifier``: the attempt, the master key's id): what an ApplicationMaster shows the
  ApplicationMasterService. The RM puts it in the AM container's credentials (``ContainerLaunchContext.tokens``).
- ``NMToken`` (``NMTokenIdentifier``: the attempt, the node, the submitter, the key id): what an AM shows a
  NodeManager's ContainerManagementProtocol; the RM hands them out with allocated containers
  (``AllocateResponse.nm_tokens``).
- ``ContainerToken`` (``ContainerTokenIdentifier``: the container, its node, the submitter, its resource, the key id,
  the RM's identifier): the RM's signature on one allocation (``Container.container_token``), checked by the NM
  before it starts the container.
- ``MasterKey``: the shared secret the RM gives every NM at registration (``RegisterNodeManagerResponse``'s
  container-token and NM-token master keys) so that the NMs can check the last two without asking the RM.

The records (protocols/_records.py, with ``Container`` that carries one) hold the identifier's fields and the
password; :func:`identifier_bytes` is what the password signs
(MessagePack instead of Hadoop's protobuf). The secret managers that make and check passwords live with the roles
(actors/_secretmanagers.py).
"""

from __future__ import annotations

import msgspec

from yarnball.protocols._records import (
    AMRMToken,
    ApplicationAttemptId,
    ContainerId,
    ContainerToken,
    NMToken,
    NodeId,
    Resource,
)

__all__ = ["container_identifier", "identifier_bytes", "nm_identifier"]


_encode = msgspec.msgpack.encode


# Flat tuples of plain values: encoded several times faster than the nested records (a password is made per
# container at the RM and checked per container at its NM).
def container_identifier(
    cid: ContainerId, node: NodeId, user: str, resource: Resource, key_id: int, rm_identifier: int
) -> bytes:
    """``ContainerTokenIdentifier.getBytes``."""
    attempt = cid.application_attempt_id
    app = attempt.application_id
    return _encode(
        (
            "ContainerToken",
            app.cluster_timestamp,
            app.id,
            attempt.attempt_id,
            cid.container_id,
            node.host,
            node.port,
            user,
            resource.memory_mb,
            resource.vcores,
            resource.extended,
            key_id,
            rm_identifier,
        )
    )


def nm_identifier(attempt: ApplicationAttemptId, node: NodeId, user: str, key_id: int) -> bytes:
    """``NMTokenIdentifier.getBytes``."""
    app = attempt.application_id
    return _encode(("NMToken", app.cluster_timestamp, app.id, attempt.attempt_id, node.host, node.port, user, key_id))


def identifier_bytes(token: AMRMToken | NMToken | ContainerToken) -> bytes:
    """The bytes a token's password signs: every field but the password (``TokenIdentifier.getBytes``)."""
    if isinstance(token, ContainerToken):
        return container_identifier(
            token.container_id, token.node_id, token.app_submitter, token.resource, token.key_id, token.rm_identifier
        )
    if isinstance(token, NMToken):
        return nm_identifier(token.application_attempt_id, token.node_id, token.app_submitter, token.key_id)
    attempt = token.application_attempt_id
    app = attempt.application_id
    return _encode(("YARN_AM_RM_TOKEN", app.cluster_timestamp, app.id, attempt.attempt_id, token.key_id))
