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

from yarnball.protocols._records import AMRMToken, ContainerToken, NMToken

__all__ = ["identifier_bytes"]


_encode = msgspec.msgpack.encode


def identifier_bytes(token: AMRMToken | NMToken | ContainerToken) -> bytes:
    """The bytes a token's password signs: every field but the password (``TokenIdentifier.getBytes``)."""
    if type(token) is ContainerToken:
        return _encode(
            (
                "ContainerToken",
                token.container_id,
                token.node_id,
                token.app_submitter,
                token.resource,
                token.key_id,
                token.rm_identifier,
            )
        )
    if type(token) is NMToken:
        return _encode(("NMToken", token.application_attempt_id, token.node_id, token.app_submitter, token.key_id))
    return _encode(("YARN_AM_RM_TOKEN", token.application_attempt_id, token.key_id))
