"""The ApplicationMaster's NMClient (``NMClientAsync``): starting, stopping and updating its containers on their
NodeManagers, with the NMToken of each node, and the answers.

:class:`NMClient` is the base of :class:`~yarnball.actors._appmaster.ApplicationMaster` (whose documented methods
these are); it holds no state of its own but the calls in flight of a run with message faults on the AM -> NM links.
"""

from __future__ import annotations

from collections.abc import Sequence

from yarnball.actors._actor import Actor, handler
from yarnball.actors._nmrpc import ContainerCalls
from yarnball.actors._nodemanager import nm_actor_id
from yarnball.actors._shortcuts import NOOP_WHEN_ALL_OK
from yarnball.protocols import (
    Container,
    ContainerId,
    ContainerUpdateRequest,
    ContainerUpdateResponse,
    ContainerUpdateType,
    FailedContainerRequest,
    NMToken,
    NodeId,
    StartContainersRequest,
    StartContainersResponse,
    StopContainersRequest,
    StopContainersResponse,
    UpdateContainerRequest,
)
from yarnball.protocols._containermanagement import ContainerLaunchContext, StartContainerRequest

__all__ = ["NMClient"]

# host -> nm_actor_id(host), for every container started: the same str each time (its hash computed once).
_NM_IDS: dict[str, str] = {}


class NMClient(Actor):
    """The container calls of an ApplicationMaster (see the module docstring)."""

    #: The NMClient's calls in flight, retried and failed as NMProxy does (actors/_nmrpc.py), in a run with message
    #: faults on the AM -> NM links; None: every call is sent once and its answer taken as it comes.
    _nm_calls: ContainerCalls | None = None
    #: The containers it started and holds, by id (set by the ApplicationMaster).
    running: dict[ContainerId, Container]
    #: NMTokenCache: the attempt's NMToken per node (set by the ApplicationMaster).
    nm_tokens: dict[NodeId, NMToken]

    def retry_container_calls(self, retry_ms: float, max_wait_ms: float) -> None:
        """NMClient's calls are retried and failed as NMProxy does (a run with message faults on the AM -> NM links,
        actors/_nmrpc.py); an AM that already retries keeps its client."""
        if self._nm_calls is None:
            self._nm_calls = ContainerCalls(self, retry_ms, max_wait_ms)

    # -- callbacks for subclasses -------------------------------------------------------------------------------
    def on_start_container_error(self, container_id: ContainerId, diagnostics: str) -> None:
        """A container could not be started (``NMClientAsync.CallbackHandler.onStartContainerError``): the NM
        refused it, or the call got no answer within ``yarn.client.nodemanager-connect.max-wait-ms``. By default it
        is logged and the container kept: the RM reclaims it after ``yarn.resourcemanager.rm.container-allocation
        .expiry-interval-ms``; release it (:meth:`release`) to give it back at once."""
        self.log.warning("container_start_failed", container=str(container_id), diagnostics=diagnostics)

    # -- ContainerManagement ----------------------------------------------------------------------------------
    def start_container(
        self,
        container: Container,
        *,
        duration_ms: float | None = None,
        context: ContainerLaunchContext | None = None,
    ) -> None:
        """Start ``container`` on its NodeManager; a simulated one ends SUCCESS after ``duration_ms``."""
        if context is None:
            context = ContainerLaunchContext(simulated_duration_ms=None if duration_ms is None else int(duration_ms))
        self.running[container.id] = container
        request = StartContainersRequest(
            start_container_requests=(StartContainerRequest(container=container, launch_context=context),),
            nm_token=self.nm_tokens.get(container.node_id),
        )
        host = container.node_id.host
        nm_id = _NM_IDS.get(host)
        if nm_id is None:
            nm_id = _NM_IDS[host] = nm_actor_id(host)
        if self._nm_calls is not None:
            self._nm_calls.sent("start", container, nm_id, request)  # answered, retried or failed (_nmrpc.py)
        actor = self.kernel.actors.get(nm_id)  # (Kernel.lookup's common case: an NM hosted here)
        (self.kernel.lookup(nm_id) if actor is None else actor.ref).tell(request, self.ref)

    def stop_container(self, container: Container) -> None:
        """Ask the container's NodeManager to kill it (exit status KILLED_BY_APPMASTER)."""
        request = StopContainersRequest(container_ids=(container.id,), nm_token=self.nm_tokens.get(container.node_id))
        nm_id = nm_actor_id(container.node_id.host)
        if self._nm_calls is not None:
            self._nm_calls.sent("stop", container, nm_id, request)  # answered, retried or failed (_nmrpc.py)
        self.kernel.lookup(nm_id).tell(request, self.ref)

    @handler
    def on_start_response(self, msg: StartContainersResponse) -> None:
        failed: Sequence[FailedContainerRequest] = msg.failed_requests
        if self._nm_calls is not None:
            # only the answers to calls in flight (a second answer to one call is dropped: actors/_nmrpc.py)
            _, failed = self._nm_calls.answered("start", msg.successfully_started_containers, failed)
        for request in failed:
            self.on_start_container_error(request.container_id, request.diagnostics)

    @handler
    def on_stop_response(self, msg: StopContainersResponse) -> None:
        if self._nm_calls is not None:
            _, failed = self._nm_calls.answered("stop", msg.successfully_stopped_containers, msg.failed_requests)
            for request in failed:
                self.log.warning(
                    "container_stop_failed", container=str(request.container_id), diagnostics=request.diagnostics
                )

    # Both do nothing for a response without failed requests: the NM then leaves it out (_shortcuts/_quietreplies.py).
    # A subclass overriding them with @handler is sent every response. (With NMClient calls tracked, in a run with
    # faults on the AM -> NM links, they take every answer: every reply is sent there, the exact shortcuts being off.)
    setattr(on_start_response, NOOP_WHEN_ALL_OK, True)
    setattr(on_stop_response, NOOP_WHEN_ALL_OK, True)

    def update_container_on_node(self, container: Container, kind: ContainerUpdateType) -> None:
        """Send an RM-granted update to the container's NodeManager (``NMClient.updateContainerResource``)."""
        request = UpdateContainerRequest(
            container_version=container.version,
            container_id=container.id,
            container_update_type=kind,
            execution_type=container.execution_type,
            capability=container.resource,
        )
        self.kernel.lookup(nm_actor_id(container.node_id.host)).tell(
            ContainerUpdateRequest(containers_to_update=(request,), nm_token=self.nm_tokens.get(container.node_id)),
            self.ref,
        )

    @handler
    def on_update_response(self, msg: ContainerUpdateResponse) -> None:
        for failed in msg.failed_requests:
            self.log.warning(
                "container_update_failed", container=str(failed.container_id), diagnostics=failed.diagnostics
            )
