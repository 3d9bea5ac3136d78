"""The secret managers: making and checking YARN's tokens (protocols/_tokens.py), and counting what they refuse.

RM side (:class:`RMSecretManagers`): ``AMRMTokenSecretManager.createAndGetAMRMToken`` (one AMRMToken per attempt),
``NMTokenSecretManagerInRM.createAndGetNMToken`` (an NMToken per attempt and node, handed to the AM once, with the
first container it gets on that node) and ``RMContainerTokenSecretManager.createContainerToken`` (the signature on
one allocation, made when the AM pulls the container, as ``SchedulerApplicationAttempt.pullNewlyAllocatedContainers``
does). NM side (:class:`NMSecretManagers`): ``NMTokenSecretManagerInNM`` and ``NMContainerTokenSecretManager``'s
``retrievePassword``, with the master keys the RM sent at registration.

Master keys come from the run's seed and cluster timestamp through SHA-256, never from the wall clock or
``os.urandom``: the same run draws the same keys and its logs stay byte-identical. They are secret from the actors
(no role is handed another's key), not from whoever holds the seed: the simulation models who holds which token, not
cryptography against the operator. Passwords are BLAKE2b MACs of the identifier bytes (Hadoop:
``SecretManager.createPassword``, HmacSHA1): BLAKE2b of the master key's secret followed by the identifier, which is a
MAC because BLAKE2 has no length extension (its last block is flagged); unlike BLAKE2's keyed mode, which pads the
key to a block of its own, it hashes a token's identifier in one compression instead of two.

A password is made or checked per container and per attempt and node (~4 MACs per container, ~10% of a long-task
run), so each secret manager keeps, per master key, a hash state that has absorbed the key (:func:`_keyed`) and
MACs an identifier with a copy of it (:func:`_mac`): the key is not looked up or hashed again per token.

:class:`Rejections` counts and logs every refused request of a role (``request_rejected`` events); summary.json adds
them up under ``security`` (launcher/_summary.py).
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from typing import Any

import msgspec

from yarnball.protocols._records import (
    AMRMToken,
    ApplicationAttemptId,
    ApplicationId,
    Container,
    ContainerToken,
    MasterKey,
    NMToken,
    NodeId,
)
from yarnball.protocols._tokens import container_identifier, identifier_bytes, nm_identifier

__all__ = [
    "NMSecretManagers",
    "RMSecretManagers",
    "Rejections",
    "master_key",
    "password",
]

_DIGEST_SIZE = 20  # HmacSHA1's length
_replace = msgspec.structs.replace


def master_key(kind: str, seed: int, cluster_timestamp: int) -> MasterKey:
    """A master key for ``kind`` (``"amrm"``, ``"nm"``, ``"container"``), from the run's seed (see the docstring)."""
    secret = hashlib.sha256(f"yarnball/{kind}-master-key/{cluster_timestamp}/{seed}".encode()).digest()
    return MasterKey(key_id=int.from_bytes(secret[:4], "big") >> 1, secret=secret)


# A BLAKE2b state per master key that has absorbed its secret: a copy of it MACs the next identifier.
_KEYED: dict[bytes, Any] = {}


def _keyed(key: MasterKey) -> Any:
    state = _KEYED.get(key.secret)
    if state is None:
        state = _KEYED[key.secret] = hashlib.blake2b(key.secret, digest_size=_DIGEST_SIZE)
    return state


def _mac(keyed: Any, data: bytes) -> bytes:
    """The password of the identifier bytes ``data`` under the key ``keyed`` (its :func:`_keyed` state) has absorbed."""
    h = keyed.copy()
    h.update(data)
    return h.digest()


def password(key: MasterKey, token: AMRMToken | NMToken | ContainerToken) -> bytes:
    """``SecretManager.createPassword(identifier.getBytes(), key)``."""
    return _mac(_keyed(key), identifier_bytes(token))


def _nm_token(mac: Any, key_id: int, attempt_id: ApplicationAttemptId, node_id: NodeId, user: str) -> NMToken:
    """An NMToken signed with ``mac`` (:func:`_keyed` of the key numbered ``key_id``)."""
    return NMToken(
        application_attempt_id=attempt_id,
        node_id=node_id,
        app_submitter=user,
        key_id=key_id,
        password=_mac(mac, nm_identifier(attempt_id, node_id, user, key_id)),
    )


def _signed(mac: Any, key_id: int, rm_identifier: int, container: Container, user: str) -> Container:
    """``container`` with its container token, signed with ``mac`` (:func:`_keyed` of the key numbered ``key_id``)."""
    cid, node, resource = container.id, container.node_id, container.resource
    token = ContainerToken(
        container_id=cid,
        node_id=node,
        app_submitter=user,
        resource=resource,
        key_id=key_id,
        rm_identifier=rm_identifier,
        password=_mac(mac, container_identifier(cid, node, user, resource, key_id, rm_identifier)),
    )
    return _replace(container, container_token=token)


class Rejections:
    """One role's refused requests: counted by reason and logged as ``request_rejected`` (a warning)."""

    __slots__ = ("_by_reason",)

    def __init__(self) -> None:
        self._by_reason: Counter[str] | None = None  # (made at the first refusal: a cluster has one per node)

    @property
    def by_reason(self) -> Counter[str]:
        """The refusals so far, counted by reason."""
        if self._by_reason is None:
            self._by_reason = Counter()
        return self._by_reason

    def __bool__(self) -> bool:
        return bool(self._by_reason)

    def reject(self, actor: Any, reason: str, exception: str, message: str, **fields: Any) -> None:
        self.by_reason[reason] += 1
        actor.log.warning("request_rejected", reason=reason, exception_class=exception, message=message, **fields)


class RMSecretManagers:
    """The RM's three secret managers (see the module docstring)."""

    __slots__ = (
        "_container_mac",
        "_nm_mac",
        "amrm_key",
        "container_key",
        "nm_key",
        "nm_tokens_sent",
        "rejections",
        "rm_identifier",
    )

    def __init__(self, seed: int, cluster_timestamp: int, *, container_tokens: bool = True) -> None:
        self.rejections = Rejections()  # the RM's refused requests
        self.amrm_key = master_key("amrm", seed, cluster_timestamp)
        #: The NMToken and container-token master keys, None without those tokens
        #: (``yarnball.simulation.container-tokens`` false): then nothing is signed, and a registering NM gets no
        #: keys, so it checks nothing (as :class:`NMSecretManagers` without keys).
        self.nm_key = master_key("nm", seed, cluster_timestamp) if container_tokens else None
        self.container_key = master_key("container", seed, cluster_timestamp) if container_tokens else None
        self._nm_mac = None if self.nm_key is None else _keyed(self.nm_key)
        self._container_mac = None if self.container_key is None else _keyed(self.container_key)
        self.rm_identifier = cluster_timestamp  # ResourceManager's identifier: its start time
        # NMTokenSecretManagerInRM.appAttemptToNodeKeyMap: the nodes each attempt already holds an NMToken for
        self.nm_tokens_sent: dict[ApplicationAttemptId, set[NodeId]] = {}

    def create_amrm_token(self, attempt_id: ApplicationAttemptId) -> AMRMToken:
        """``AMRMTokenSecretManager.createAndGetAMRMToken``."""
        token = AMRMToken(application_attempt_id=attempt_id, key_id=self.amrm_key.key_id)
        return msgspec.structs.replace(token, password=password(self.amrm_key, token))

    def create_nm_token(self, attempt_id: ApplicationAttemptId, node_id: NodeId, user: str) -> NMToken | None:
        """``NMTokenSecretManagerInRM.createNMToken`` (None without the key)."""
        key = self.nm_key
        return None if key is None else _nm_token(self._nm_mac, key.key_id, attempt_id, node_id, user)

    def nm_tokens_for(
        self, attempt_id: ApplicationAttemptId, containers: tuple[Container, ...], user: str
    ) -> tuple[NMToken, ...]:
        """``NMTokenSecretManagerInRM.createAndGetNMToken`` over a response's containers: an NMToken for each node
        the attempt has none for yet."""
        key = self.nm_key
        if not containers or key is None:
            return ()
        sent = self.nm_tokens_sent.get(attempt_id)
        if sent is None:
            sent = self.nm_tokens_sent[attempt_id] = set()
        tokens: list[NMToken] = []
        mac, key_id = self._nm_mac, key.key_id
        for container in containers:
            node_id = container.node_id
            if node_id not in sent:
                sent.add(node_id)
                tokens.append(_nm_token(mac, key_id, attempt_id, node_id, user))
        return tuple(tokens)

    def attempt_removed(self, attempt_id: ApplicationAttemptId) -> None:
        """``NMTokenSecretManagerInRM.unregisterApplicationAttempt``."""
        self.nm_tokens_sent.pop(attempt_id, None)

    def sign(self, container: Container, user: str) -> Container:
        """``RMContainerTokenSecretManager.createContainerToken``: ``container`` with its token (as it is without
        the key)."""
        key = self.container_key
        if key is None:
            return container
        return _signed(self._container_mac, key.key_id, self.rm_identifier, container, user)

    def sign_all(self, containers: tuple[Container, ...], user: str) -> tuple[Container, ...]:
        """:meth:`sign` for each of a response's containers."""
        key = self.container_key
        if key is None:
            return containers
        mac, key_id, rm_identifier = self._container_mac, key.key_id, self.rm_identifier
        return tuple([_signed(mac, key_id, rm_identifier, c, user) for c in containers])


# ContainerManagerImpl's wording
INVALID_NMTOKEN = "Invalid NMToken"
INVALID_CONTAINERTOKEN = "Invalid ContainerToken"


class NMSecretManagers:
    """A NodeManager's checks (``ContainerManagerImpl``); without the RM's keys (an NM that never registered, as in
    the NM's own unit tests) nothing is checked."""

    __slots__ = (
        "_container_mac",
        "_nm_mac",
        "container_key",
        "nm_key",
        "node_id",
        "rejections",
        "rm_identifier",
        "verified",
    )

    def __init__(self, node_id: NodeId) -> None:
        self.node_id = node_id
        self.rejections = Rejections()  # the NM's refused requests
        #: application -> the NMToken last verified for it (one of its attempts'; ``NMTokenSecretManagerInNM`` keeps
        #: them per attempt until the application finishes): the same token object is not checked again
        self.verified: dict[ApplicationId, NMToken] = {}
        self.nm_key: MasterKey | None = None
        self.container_key: MasterKey | None = None
        self._nm_mac: Any = None
        self._container_mac: Any = None
        self.rm_identifier = 0

    @property
    def enabled(self) -> bool:
        return self.nm_key is not None

    def set_keys(self, nm_key: MasterKey | None, container_key: MasterKey | None, rm_identifier: int) -> None:
        self.nm_key = nm_key
        self.container_key = container_key
        self._nm_mac = None if nm_key is None else _keyed(nm_key)
        self._container_mac = None if container_key is None else _keyed(container_key)
        self.rm_identifier = rm_identifier

    def app_finished(self, app: ApplicationId) -> None:
        """``NMTokenSecretManagerInNM.appFinished``: forget the application's NMTokens."""
        self.verified.pop(app, None)

    def sign(self, container: Container, user: str) -> Container:
        """The container token an NM-side allocator gives ``container`` (the DistributedScheduler's
        ``OpportunisticContainerAllocator`` signs with the NM's copy of the RM's key); unsigned without keys."""
        if self.container_key is None:
            return container
        return _signed(self._container_mac, self.container_key.key_id, self.rm_identifier, container, user)

    def create_nm_token(self, attempt_id: ApplicationAttemptId, node_id: NodeId, user: str) -> NMToken | None:
        """``NMTokenSecretManagerInNM.createNMToken`` for an NM-side allocation (None without keys)."""
        return None if self.nm_key is None else _nm_token(self._nm_mac, self.nm_key.key_id, attempt_id, node_id, user)

    def nm_token_error(self, token: NMToken | None) -> str | None:
        """``selectNMTokenIdentifier`` and the RPC layer's password check (``NMTokenSecretManagerInNM``): None when
        ``token`` is a valid NMToken for this node, else Hadoop's ``INVALID_NMTOKEN_MSG``."""
        key = self.nm_key
        if token is None or key is None or token.key_id != key.key_id or token.node_id != self.node_id:
            return INVALID_NMTOKEN
        signed = nm_identifier(token.application_attempt_id, token.node_id, token.app_submitter, token.key_id)
        if not hmac.compare_digest(_mac(self._nm_mac, signed), token.password):
            return INVALID_NMTOKEN
        return None

    def start_error(self, nm_token: NMToken, container: Container) -> str | None:
        """``verifyAndGetContainerTokenIdentifier`` then ``authorizeStartAndResourceIncreaseRequest``: None when
        ``container`` may be started with ``nm_token`` (already checked by :meth:`nm_token_error`)."""
        token = container.container_token
        if token is None:
            return INVALID_CONTAINERTOKEN
        cid = container.id
        key = self.container_key
        # The password must sign *this* container on *this* node: the identifier is rebuilt from the container
        # record and this NM's id (retrievePassword's node check), so a record altered after signing fails as well.
        if (
            key is None
            or token.key_id != key.key_id
            or token.password
            != _mac(
                self._container_mac,
                container_identifier(
                    cid, self.node_id, token.app_submitter, container.resource, token.key_id, token.rm_identifier
                ),
            )
        ):
            # NMContainerTokenSecretManager.retrievePassword (a record altered after signing fails the same way)
            if token.node_id != self.node_id:
                return (
                    f"Given Container {cid} identifier is not valid for current Node manager. Expected : "
                    f"{self.node_id} Found : {token.node_id}"
                )
            return f"Given Container {cid} seems to have an illegally generated token."
        token_attempt = nm_token.application_attempt_id
        if token_attempt.application_id != cid.application_attempt_id.application_id:
            return (
                "Unauthorized request to start container.\nNMToken for application attempt : "
                f"{token_attempt} was used for starting container with container token issued for application "
                f"attempt : {cid.application_attempt_id}"
            )
        return None

    @staticmethod
    def stop_or_status_error(nm_token: NMToken, cid: Any, stop: bool) -> str | None:
        """``authorizeGetAndStopContainerRequest``: the container must belong to the token's application."""
        token_attempt = nm_token.application_attempt_id
        if token_attempt.application_id == cid.application_attempt_id.application_id:
            return None
        verb = "stop" if stop else "get status for"
        return f"{token_attempt} attempted to {verb} non-application container : {cid}"
