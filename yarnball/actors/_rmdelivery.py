"""The ResourceManager's side of the delivery layer (actors/_shortcuts): the NodeHeartbeatRequest and
AllocateRequest handlers, and the small public protocol the layer asks before it hands a heartbeat or an allocate
over in place of its delivery (whether the stock path would run, and that path run now). A base of
:class:`~yarnball.actors._resourcemanager.ResourceManager`, which holds the services named here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from yarnball.actors._actor import PLAIN_DELIVERY, Actor, ActorRef, handler
from yarnball.actors._amrpc import REFUSED
from yarnball.actors._applicationmasterservice import ApplicationMasterService
from yarnball.actors._resourcetracker import ResourceTrackerService
from yarnball.actors._shortcuts import OwnMethod, is_bound
from yarnball.protocols import (
    AllocateRequest,
    AllocateResponse,
    NodeHeartbeatRequest,
    NodeHeartbeatResponse,
    NodeId,
    NodeStatus,
    RemoteRefusal,
)

if TYPE_CHECKING:
    from yarnball.actors._nmrpc import NodeHeartbeatRules
    from yarnball.actors._opportunisticams import OpportunisticContainerAllocatorAMService

__all__ = ["RMDeliveryProtocol"]

# ApplicationMasterService's own on_allocate (a compiled method has no ``__func__``: actors/_shortcuts/_ownmethods.py)
_OWN_ON_ALLOCATE = OwnMethod(ApplicationMasterService, "on_allocate")


class RMDeliveryProtocol(Actor):
    """The heartbeat and allocate handlers of the ResourceManager, and what the delivery layer asks of them."""

    resource_tracker: ResourceTrackerService
    application_master_service: ApplicationMasterService
    node_rules: NodeHeartbeatRules | None
    opportunistic: OpportunisticContainerAllocatorAMService | None

    @handler
    def on_node_heartbeat(self, msg: NodeHeartbeatRequest) -> None:
        self.resource_tracker.on_node_heartbeat(msg)

    def needs_heartbeat(self, node_id: NodeId) -> bool:
        """The heartbeat clock's question (ResourceTrackerService.needs_heartbeat)."""
        return self.resource_tracker.needs_heartbeat(node_id)  # type: ignore[no-any-return]

    def takes_heartbeats_in_place(self) -> bool:
        """Whether a NodeHeartbeatRequest delivered to this RM would only run the ResourceTrackerService's
        ``handle_node_heartbeat`` with the request's statuses: ``Actor._deliver`` itself, this class's
        ``on_node_heartbeat``, no message-fault rules, and no opportunistic service (it reads the NM's queue
        state). The exact shortcuts then hand a heartbeat over without the request (actors/_shortcuts/_routes.py)."""
        return (
            self.delivers_plainly()
            and type(self).handler_for(NodeHeartbeatRequest) is RMDeliveryProtocol.on_node_heartbeat
            and self.node_rules is None
            and self.opportunistic is None
        )

    def node_heartbeat_in_place(
        self, node_id: NodeId, statuses: list[Any], sender: Any, response_id: int
    ) -> NodeHeartbeatResponse | None:
        """The heartbeat of ``sender`` (the NM of ``node_id``, with its response id and changed ``statuses``) handled
        now as its delivery would handle it (:meth:`takes_heartbeats_in_place` holds, the RM is free): the
        sender set, and a failure handed to the supervision with the request, built then. The response is returned
        for the caller to send; None after a failure (there is none)."""
        self._sender = sender
        try:
            return self.resource_tracker.handle_node_heartbeat(node_id, statuses, None)
        except Exception as exc:
            status = NodeStatus(node_id=node_id, response_id=response_id, container_statuses=tuple(statuses))
            self._failed(exc, NodeHeartbeatRequest(node_status=status), sender)
            return None

    def runs_stock_heartbeats(self) -> bool:
        """Whether a NodeHeartbeatRequest to this RM takes the stock path: ``Actor._deliver``, this class's
        ``on_node_heartbeat``, and ResourceTrackerService's own ``node_heartbeat`` and ``handle_node_heartbeat``
        (none replaced on the instance). The exact shortcuts that settle a heartbeat's effect without it ask
        (actors/_shortcuts/_lazyrunning.py)."""
        tracker = self.resource_tracker
        return (
            self.delivers_plainly()
            and type(self).handler_for(NodeHeartbeatRequest) is RMDeliveryProtocol.on_node_heartbeat
            # (is_bound: a compiled method has no ``__func__``)
            and is_bound(tracker, tracker.node_heartbeat, ResourceTrackerService.node_heartbeat)
            and is_bound(tracker, tracker.handle_node_heartbeat, ResourceTrackerService.handle_node_heartbeat)
        )

    @handler
    def on_allocate(self, msg: AllocateRequest) -> None:
        self.application_master_service.on_allocate(msg)

    def takes_allocates_in_place(self, deliver: Callable[[tuple[Any, ActorRef | None]], None]) -> bool:
        """Whether an AllocateRequest handed to ``deliver`` (this RM's delivery entry when the request was sent)
        would only run ApplicationMasterService's own ``on_allocate``: ``Actor._deliver`` itself, this class's
        ``on_allocate``, none replaced on the instance. The exact shortcuts may then have :meth:`allocate_in_place`
        serve it and route its reply (actors/_shortcuts/_routes.py). One call per allocate: the checks inline."""
        return (
            getattr(deliver, "__func__", None) is PLAIN_DELIVERY
            and self._handlers.get(AllocateRequest) is RMDeliveryProtocol.on_allocate
            and _OWN_ON_ALLOCATE.runs(self.application_master_service, self.application_master_service.on_allocate)
        )

    def allocate_in_place(self, msg: AllocateRequest, sender: ActorRef) -> AllocateResponse | RemoteRefusal | None:
        """What the delivery of ``msg`` from ``sender`` does now (:meth:`takes_allocates_in_place` holds, the RM is
        free), up to its reply, which is returned for the caller to send: None when there is none (an old call
        refused, or a failure, handed to the supervision as the delivery would hand it)."""
        self._sender = sender
        try:
            response = self.application_master_service.serve_allocate(msg)
        except Exception as exc:
            self._failed(exc, msg, sender)
            return None
        return None if response is REFUSED else response
