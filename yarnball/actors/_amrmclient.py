"""The ApplicationMaster's container requests: an ``AMRMClient``-like API over ``AMRMClientImpl``'s ask table.

Requests are added and withdrawn (``addContainerRequest``, ``removeContainerRequest``), containers released
(``releaseAssignedContainer``) and updated (``requestContainerUpdate``); the ask table is keyed by (priority,
resource name, execution type, capability), and only the entries that changed since the previous heartbeat are sent,
with absolute counts that replace the RM's. Each allocated container is matched to the oldest outstanding request of
its priority (node-local first, then rack, then any), whose host, rack and ``*`` entries are decremented. The tables
and their compiled operations are in actors/_asktable.py and actors/_amtasks.py; the
:class:`~yarnball.actors.ApplicationMaster` (actors/_appmaster.py) sends them with its allocate heartbeat.
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._actor import Actor
from yarnball.actors._amrpc import AllocateCall
from yarnball.actors._amtasks import (
    ContainerRequest,
    RunQueue,
    add_request,
    choose_request,
    pick,
    remove_request,
)
from yarnball.actors._asktable import AskSpec, entry_request
from yarnball.protocols import (
    Container,
    ContainerId,
    ContainerUpdateType,
    ExecutionType,
    Resource,
    ResourceRequest,
    UpdateContainerRequest,
)

__all__ = ["AMRMClient", "AskKey"]

# priority, resource name, execution type's value, memory, vcores, request id. The type's value (a str, whose hash
# is cached) rather than the member: an Enum member's __hash__ is a Python call.
AskKey = tuple[int, str, str, int, int, int]


class AMRMClient(Actor):
    """The container requests of an ApplicationMaster (its base class): the request state is the AM's own."""

    _rpc: AllocateCall | None
    running: dict[ContainerId, Container]

    def _new_request_state(self) -> None:
        """AMRMClient's requests, empty (a new attempt, or the process gone: :meth:`_exited`)."""
        # AMRMClientImpl's remoteRequestsTable as plain data: AskSpec -> name -> entry (see AskSpec); a withdrawn
        # ask is sent with count 0, and its entry then leaves the table, as Hadoop's (actors/_asktable.py).
        self._tables: dict[AskSpec, dict[str, list[Any]]] = {}
        self._changed: list[list[Any]] = []  # the entries changed since the last allocate, each once
        self._outstanding: dict[int, RunQueue] = {}  # priority -> requests, oldest first (actors/_amtasks.py)
        # Outstanding requests that name nodes, by priority, and by (priority, node) (see _match): the requests
        # naming the node, in the order of ``_outstanding`` (a request repeated as often as it is outstanding).
        # Lists, not deques: they are short (a deque allocates a 0.5 kB block each).
        self._noded: dict[int, int] = {}
        self._node_requests: dict[tuple[int, str], list[ContainerRequest]] = {}
        self._release: list[ContainerId] = []
        self._updates: list[UpdateContainerRequest] = []

    def add_container_request(
        self,
        capability: Resource,
        priority: int,
        *,
        nodes: tuple[str, ...] = (),
        racks: tuple[str, ...] = (),
        relax_locality: bool = True,
        execution_type: ExecutionType = ExecutionType.GUARANTEED,
        request_id: int = -1,
        count: int = 1,
    ) -> None:
        """Ask for ``count`` containers of ``capability`` at ``priority`` (lower number = more important).

        A request naming ``nodes`` should name their ``racks`` too: Hadoop's AMRMClient adds them itself (its
        RackResolver), this one does not, and a scheduler gives a container node-locally only when the node's rack
        is asked for as well. With ``relax_locality=False`` a request without its racks is never given (a run
        stops with a stall that names it)."""
        if count <= 0:
            return
        request = ContainerRequest(capability, priority, nodes, racks, relax_locality, execution_type, request_id)
        # queued, indexed and asked in one compiled call (actors/_amtasks.py)
        add_request(self._outstanding, self._noded, self._node_requests, self._tables, self._changed, request, count)

    def remove_container_request(self, request: ContainerRequest) -> None:
        """Withdraw one outstanding request (after it was satisfied, or when it is no longer wanted)."""
        remove_request(self._outstanding, self._noded, self._node_requests, self._tables, self._changed, request)

    @property
    def _asks(self) -> dict[AskKey, list[Any]]:
        """The ask table flattened, AskKey -> entry (for tests and inspection)."""
        return {_ask_key(entry): entry for table in self._tables.values() for entry in table.values()}

    def _ask_request(self, key: AskKey) -> ResourceRequest:
        """The ResourceRequest of one ask-table entry."""
        return entry_request(self._tables[(key[0], key[2], key[3], key[4], key[5])][key[1]])

    def update_execution_type(self, container: Container, target: ExecutionType) -> None:
        """Ask the RM to promote (to GUARANTEED) or demote (to OPPORTUNISTIC) ``container`` on the next heartbeat
        (``AMRMClient.requestContainerUpdate``)."""
        kind = (
            ContainerUpdateType.PROMOTE_EXECUTION_TYPE
            if target is ExecutionType.GUARANTEED
            else ContainerUpdateType.DEMOTE_EXECUTION_TYPE
        )
        self._updates.append(
            UpdateContainerRequest(
                container_version=container.version,
                container_id=container.id,
                container_update_type=kind,
                execution_type=target,
            )
        )

    def update_container_resource(self, container: Container, capability: Resource) -> None:
        """Ask the RM to resize ``container`` to ``capability`` on the next heartbeat (``AMRMClient
        .requestContainerUpdate`` with INCREASE_RESOURCE when it grows in any dimension, else DECREASE_RESOURCE).
        An increase is granted when the scheduler finds the room on the container's node (``on_containers_updated``,
        which tells the NM); a decrease in the answer to the same heartbeat (the RM tells the NM itself)."""
        current = container.resource
        grows = capability.memory_mb > current.memory_mb or capability.vcores > current.vcores
        self._updates.append(
            UpdateContainerRequest(
                container_version=container.version,
                container_id=container.id,
                container_update_type=(
                    ContainerUpdateType.INCREASE_RESOURCE if grows else ContainerUpdateType.DECREASE_RESOURCE
                ),
                capability=capability,
            )
        )

    def release(self, container_id: ContainerId) -> None:
        """Give a container back to the RM (``releaseAssignedContainer``)."""
        self._release.append(container_id)
        self.running.pop(container_id, None)
        if self._rpc is not None:
            self._rpc.pending_release[container_id] = None  # AMRMClientImpl.pendingRelease

    @property
    def pending_requests(self) -> int:
        """The outstanding container requests (added, not yet matched to a container nor withdrawn)."""
        return sum(len(q) for q in self._outstanding.values())

    @property
    def pending_by_priority(self) -> dict[tuple[int, ExecutionType], int]:
        """The outstanding container requests by priority and execution type (those with any), in priority order."""
        counts: dict[tuple[int, ExecutionType], int] = {}
        for priority, queue in sorted(self._outstanding.items()):
            for request in queue:
                key = (priority, request.execution_type)
                counts[key] = counts.get(key, 0) + 1
        return counts

    def _match(self, container: Container) -> None:
        """Decrement the oldest outstanding request this container satisfies (node, then rack, then any).

        Only requests of the container's execution type qualify, as ``AMRMClient.getMatchingRequests`` (keyed by
        execution type): decrementing a GUARANTEED request for an OPPORTUNISTIC container (or the reverse) leaves
        the AM's ask table one above the RM's for the other type, unsent because unchanged, and the task waiting
        for it waits forever."""
        chosen = choose_request(self._outstanding, self._noded, self._node_requests, container)
        if chosen is not None:
            self.remove_container_request(chosen)

    #: The first request (of ``etype``, or any) naming ``host``, else the first without nodes, else the first.
    _pick = staticmethod(pick)

    def _plain_match(self) -> bool:
        """Whether ``_match``, ``_pick`` and ``remove_container_request`` are the base class's (not overridden by a
        subclass, nor replaced on the instance): then match_containers does exactly what calling them per container
        does."""
        cls = type(self)
        return (
            cls._match is _BASE_MATCH
            and self._pick is pick
            and cls.remove_container_request is _BASE_REMOVE
            and getattr(self._match, "__func__", None) is _BASE_MATCH
            and getattr(self.remove_container_request, "__func__", None) is _BASE_REMOVE
        )


_BASE_MATCH = AMRMClient._match
_BASE_REMOVE = AMRMClient.remove_container_request


def _ask_key(entry: list[Any]) -> AskKey:
    """The AskKey of an entry (from its sort key)."""
    priority, rid, _, name, etype, mem, vcores = entry[3]
    return (priority, name, etype, mem, vcores, rid)
