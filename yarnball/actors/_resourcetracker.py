"""ResourceTrackerService: NodeManager registration, heartbeats and unregistration, and the NMLivelinessMonitor.

A node heartbeat goes through a chain chosen when the RM is built (:meth:`ResourceTrackerService.build_chain`),
outermost first:

- ``NodeHeartbeatRules`` (actors/_nmrpc.py), in a run with message faults on the NodeManagers' links: a duplicate
  or stale heartbeat is answered with the last response, a processed one acknowledges its completions;
- ``DecommissioningNodes`` (actors/_decommission.py), once a graceful decommission starts: a watched node's
  heartbeat shrinks the node and ends with SHUTDOWN when it is drained or decommissioned;
- the node's status update (:meth:`ResourceTrackerService.node_heartbeat`, ``RMNodeImpl``'s
  StatusUpdateWhenHealthyTransition): newly launched and completed containers, one NODE_UPDATE to the scheduler
  through the RM's dispatcher, and the response. RUNNING reports of launched containers go to the *running
  listeners* (container resizing, the opportunistic service), and the response takes the *response updaters*'
  parts (the opportunistic service's queuing limit and container updates, container decreases).

Without optional services the chain is the status update alone, with no listener and no updater: the heartbeat path
never asks whether a service exists. An optional service that joins later (the first container resize, the first
graceful decommission, message faults, an RM restart that drops them) has the RM choose the chain again
(``ResourceManager.services_changed``).
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from yarnball.actors._future import Ms
from yarnball.actors._rmcontext import RMContext
from yarnball.actors._shortcuts import deliver_heartbeat_response
from yarnball.protocols import (
    ApplicationId,
    Container,
    ContainerId,
    ContainerState,
    ContainerStatus,
    NodeAction,
    NodeAddedSchedulerEvent,
    NodeHeartbeatRequest,
    NodeHeartbeatResponse,
    NodeId,
    NodeRemovedSchedulerEvent,
    RegisterNodeManagerRequest,
    RegisterNodeManagerResponse,
    Resource,
    UnRegisterNodeManagerRequest,
    UnRegisterNodeManagerResponse,
)

__all__ = ["RMNode", "ResourceTrackerService"]

_RUNNING = ContainerState.RUNNING
_COMPLETE = ContainerState.COMPLETE
#: ResourceTrackerService.node_heartbeat settles a dispatched heartbeat that leaves its node a no-op (tests turn it
#: off: a plain module global, which the compiled module reads at run time, as it would not a Final).
SETTLE_AFTER_UPDATE = True


class RMNode:
    __slots__ = ("id", "last_heartbeat", "pending_app_cleanup", "pending_cleanup", "rack", "resource", "response_id")

    def __init__(self, node_id: NodeId, rack: str, resource: Resource, now: Ms) -> None:
        self.id = node_id
        self.rack = rack
        self.resource = resource
        self.last_heartbeat: Ms = now  # (Ms, not float: a compiled float attribute would make an int time a float)
        self.response_id = 0
        # () until something is queued (a list per node costs 56 bytes, and most nodes have nothing to clean up)
        self.pending_cleanup: list[ContainerId] | tuple[()] = ()
        self.pending_app_cleanup: list[ApplicationId] | tuple[()] = ()

    def queue_cleanup(self, container_id: ContainerId) -> None:
        """Tell the NM to clean up ``container_id`` in the next heartbeat response."""
        if self.pending_cleanup:
            self.pending_cleanup.append(container_id)  # type: ignore[union-attr]
        else:
            self.pending_cleanup = [container_id]

    def queue_app_cleanup(self, app_id: ApplicationId) -> None:
        """Tell the NM to clean up application ``app_id`` in the next heartbeat response."""
        if self.pending_app_cleanup:
            self.pending_app_cleanup.append(app_id)  # type: ignore[union-attr]
        else:
            self.pending_app_cleanup = [app_id]


@mypyc_attr(allow_interpreted_subclasses=True)
class ResourceTrackerService:
    """The ResourceTrackerService of the RM ``rm`` (see the module docstring). The RM holds the nodes (``rm.nodes``,
    as Hadoop's RMContext); this service changes them."""

    def __init__(self, rm: Any) -> None:
        self.rm = rm
        self.context: RMContext = rm.context  # (actors/_rmcontext.py: its fields are native reads)
        #: Set when a heartbeat provably left its node's next empty heartbeat a no-op (see node_heartbeat).
        self.settled = False
        #: The chain's entry points (chosen by build_chain).
        self.on_node_heartbeat: Any = self._on_node_heartbeat
        self.process: Any = None
        self.respond: Any = None
        self.running_listeners: tuple[Any, ...] = ()
        self.response_updaters: tuple[Any, ...] = ()
        self.settles = True
        self.needs_heartbeat: Any = self._needs_heartbeat
        self.node_added_listeners: tuple[Any, ...] = ()
        self.node_removed_listeners: tuple[Any, ...] = ()
        self.recovered_listeners: tuple[Any, ...] = ()
        self.build_chain()

    def build_chain(self) -> None:
        """Choose the heartbeat chain from the RM's optional services (see the module docstring)."""
        ctx = self.context
        rm = self.rm
        opportunistic, resize = rm.opportunistic, rm.resize
        listeners: list[Any] = []
        updaters: list[Any] = []
        if resize is not None:
            listeners.append(resize.nm_running)  # an increase applied by the NM
        if opportunistic is not None:
            listeners.append(opportunistic.nm_running)  # not in the allocation expirer
            updaters.append(opportunistic.heartbeat_response_parts)
        if resize is not None:
            updaters.append(resize.heartbeat_response_parts)  # decreases (RMNodeUpdateContainerEvent)
        self.running_listeners = tuple(listeners)
        # the opportunistic service's node load monitor follows the nodes; it ends its recovered containers
        self.node_added_listeners = (opportunistic.on_node_added,) if opportunistic is not None else ()
        self.node_removed_listeners = (opportunistic.on_node_removed,) if opportunistic is not None else ()
        self.recovered_listeners = (opportunistic.recovered_completed,) if opportunistic is not None else ()
        self.response_updaters = tuple(updaters)
        self.respond = self._respond_updated if updaters else self._respond
        # the heartbeat clock's question (actors/_heartbeats.py): a decrease to push makes a heartbeat needed
        self.needs_heartbeat = self._needs_heartbeat_or_update if resize is not None else self._needs_heartbeat
        if ctx.heartbeats is not None:
            ctx.heartbeats.needs = self.needs_heartbeat
        # the opportunistic service handles every heartbeat itself: none is settled early
        self.settles = opportunistic is None
        process = self.node_heartbeat  # (read from the instance: a test's spy counts)
        if rm.decommissioning is not None:
            process = rm.decommissioning.intercept(process)
        rules = rm.node_rules
        if rules is not None:
            process = rules.intercept(process)
            self.on_node_heartbeat = self._on_node_heartbeat_checked
        else:
            self.on_node_heartbeat = self._on_node_heartbeat
        self.process = process

    # -- registration ---------------------------------------------------------------------------------------------
    def on_register_node(self, msg: RegisterNodeManagerRequest) -> None:
        ctx = self.context
        rm = self.rm
        node_id = msg.node_id
        known = ctx.nodes.get(node_id)
        if known is not None and msg.running_applications:
            # ReconnectNodeTransition with running applications (a restarted NM that recovered its containers): the
            # node stays as it is, and the container statuses it brings are handled as a heartbeat's.
            known.last_heartbeat = ctx.kernel.now
            known.response_id = 0  # RMNodeImpl.resetLastNodeHeartBeatResponse
            rm.log.info("node_reconnected", node=str(node_id), containers=len(msg.container_statuses))
            self._recovered_statuses(known, msg.container_statuses)
            rm.reply(self._registered())
            return
        if known is not None:
            # A re-registering node (after RESYNC) is removed and added again, as RMNodeImpl's ReconnectNodeTransition.
            rm.dispatch(NodeRemovedSchedulerEvent(node_id=node_id))
        ctx.nodes[node_id] = RMNode(node_id, msg.rack_name, msg.resource, ctx.kernel.now)
        ctx.lost_nodes.discard(node_id)
        rm.dispatch(
            NodeAddedSchedulerEvent(
                node_id=node_id, rack_name=msg.rack_name, total_resource=msg.resource, node_labels=msg.node_labels
            )
        )
        for listener in self.node_added_listeners:
            listener(node_id, msg.rack_name)
        rm.log.info("node_added", node=str(node_id), rack=msg.rack_name, resource=str(msg.resource))
        store = ctx.app_manager.store
        if store.restarted:
            # a node back after an RM restart: recoverContainersOnNode (actors/_rmrestart.py)
            store.node_registered(ctx.nodes[node_id], msg.container_statuses, msg.running_applications)
        elif msg.container_statuses:
            self._recovered_statuses(ctx.nodes[node_id], msg.container_statuses)
        rm.reply(self._registered())

    def _registered(self) -> RegisterNodeManagerResponse:
        """A NORMAL registration answer, with the master keys the NM checks tokens with (ResourceTrackerService
        .registerNodeManager); a reconnecting NM gets them again too."""
        ctx = self.context
        rm = self.rm
        return RegisterNodeManagerResponse(
            node_action=NodeAction.NORMAL,
            rm_identifier=rm.cluster_timestamp,
            container_token_master_key=ctx.secrets.container_key,
            nm_token_master_key=ctx.secrets.nm_key,
        )

    def _recovered_statuses(self, node: Any, statuses: Any) -> None:
        """The ``NMContainerStatus`` list of a registration (``RMNodeImpl.handleNMContainerStatus``): COMPLETE ones
        end their containers, RUNNING ones the RM allocated are launched, and RUNNING ones it does not hold (it
        expired the node meanwhile, or they ended) are cleaned up, as ``SchedulerApplicationAttempt
        .containerLaunchedOnNode`` does for "some unknown container sneaked into the system"."""
        ctx = self.context
        launched: list[ContainerStatus] = []
        completed: list[ContainerStatus] = []
        for s in statuses:
            cid = s.container_id
            status = ContainerStatus(
                container_id=cid,
                state=s.container_state,
                exit_status=s.container_exit_status,
                diagnostics=s.diagnostics,
                execution_type=s.execution_type,
                capability=s.allocated_resource,
            )
            if s.container_state is _COMPLETE:
                completed.append(status)
            elif s.container_state is _RUNNING:
                if ctx.unlaunched.pop(cid, None) is not None:
                    launched.append(status)
                elif cid not in ctx.live:
                    node.queue_cleanup(cid)
        for cs in completed:
            ctx.dispatcher.container_done(cs.container_id, cs)
        for listener in self.recovered_listeners:
            listener(completed)
        if launched or completed:
            ctx.dispatcher.node_update(node.id, launched, completed)

    def on_unregister_node(self, msg: UnRegisterNodeManagerRequest) -> None:
        """ResourceTrackerService.unRegisterNodeManager: the node leaves (a graceful shutdown or an elastic
        downscale); RMNodeImpl's DeactivateNodeTransition sends NODE_REMOVED to the scheduler."""
        ctx = self.context
        rm = self.rm
        node = ctx.nodes.pop(msg.node_id, None)
        if node is None:
            rm.log.warning("unregister_unknown_node", node=str(msg.node_id))
        else:
            ctx.counters["nodes_shutdown"] += 1
            rm.log.info("node_unregistered", node=str(msg.node_id))
            rm.dispatch(NodeRemovedSchedulerEvent(node_id=msg.node_id))
        rm.reply(UnRegisterNodeManagerResponse())

    # -- heartbeats -----------------------------------------------------------------------------------------------
    def _on_node_heartbeat(self, msg: NodeHeartbeatRequest) -> None:
        status = msg.node_status
        rm = self.rm
        response = self.handle_node_heartbeat(status.node_id, status.container_statuses, status)
        sender = rm.sender
        if sender is not None:
            deliver_heartbeat_response(rm, sender, response)

    def _on_node_heartbeat_checked(self, msg: NodeHeartbeatRequest) -> None:
        """With NodeHeartbeatRules: a duplicate heartbeat, or one too far behind, is answered without processing."""
        status = msg.node_status
        rm = self.rm
        old = rm.node_rules.old_heartbeat(status.node_id, status.response_id)
        if old is not None:
            rm.reply(old)
            return
        response = self.handle_node_heartbeat(status.node_id, status.container_statuses, status)
        sender = rm.sender
        if sender is not None:
            deliver_heartbeat_response(rm, sender, response)

    def handle_node_heartbeat(self, node_id: NodeId, statuses: Any, status: Any) -> NodeHeartbeatResponse:
        """A heartbeat's processing through the chain; the response is returned for the RM to send (a message's
        handler above, or the delivery in place of the request, actors/_shortcuts/_routes.py).

        The heartbeat clock hears that the node's heartbeat was processed before the response leaves: the phase
        point it may arm and the response's delivery are queued with the RM's sequences in that order (both
        paths alike)."""
        ctx = self.context
        self.settled = False
        response = self.process(node_id, statuses, status)
        clock = ctx.heartbeats
        if clock is not None and not self.settled:
            clock.processed(node_id)
        return response  # type: ignore[no-any-return]

    def virtual_heartbeat(self, node_id: NodeId) -> NodeHeartbeatResponse:
        """An empty heartbeat the NM did not send (it had nothing to report) processed at its phase point: the
        same status update as a real one; the response is returned for the heartbeat's route to deliver to the NM
        as usual (see actors/_heartbeats.py), after the clock heard of it (as :meth:`handle_node_heartbeat`)."""
        response = self.node_heartbeat(node_id, ())
        clock = self.context.heartbeats
        assert clock is not None  # (virtual heartbeats come from the clock)
        clock.processed(node_id)
        return response

    def node_heartbeat(self, node_id: NodeId, statuses: Any, status: Any = None) -> NodeHeartbeatResponse:
        """The node's status update, and its response.

        Sets ``settled`` when the heartbeat's NODE_UPDATE went through ``node_update_launched_only`` without
        continuous scheduling or the opportunistic service: that returns True only when ``node_update_is_noop``
        holds for the node (it checks exactly that), marking containers RUNNING does not change it, and the node's
        cleanup lists are emptied here, so ``needs_heartbeat`` is False and ``HeartbeatClock.processed`` would arm
        nothing: handle_node_heartbeat leaves it out.

        Sets it too when the NODE_UPDATE went through the dispatcher and ``node_update_is_noop`` holds for the node
        after it, without the opportunistic service or continuous scheduling (where ``processed`` always runs, as
        before): ``needs_heartbeat`` is then False when ``processed`` would ask. The RM node is known (a
        NODE_UPDATE removes none), its cleanup lists are emptied below and nothing queues more before ``processed``
        (only the response is delivered, to the NM), and nothing after the dispatch changes the scheduler (the
        opportunistic service's heartbeat handling would run in between)."""
        ctx = self.context
        node: RMNode | None = ctx.nodes.get(node_id)  # (typed: native attribute access, compiled)
        if node is None:
            # ResourceTrackerService: "Node not found resyncing <node>"
            return NodeHeartbeatResponse(node_action=NodeAction.RESYNC, diagnostics_message="Node not found resyncing")
        node.last_heartbeat = ctx.kernel.now
        launched: list[ContainerStatus] = []
        completed: list[ContainerStatus] = []
        if statuses:
            unlaunched = ctx.unlaunched
            for cs in statuses:
                state = cs.state
                if state is _RUNNING:
                    if unlaunched.pop(cs.container_id, None) is not None:
                        launched.append(cs)
                    elif self.running_listeners:
                        for listener in self.running_listeners:
                            listener(cs)
                elif state is _COMPLETE:
                    completed.append(cs)
            if completed:
                for cs in completed:
                    ctx.dispatcher.container_done(cs.container_id, cs)
        if ctx.dispatcher.heartbeat_node_update(node.id, launched, completed, self.settles, SETTLE_AFTER_UPDATE):
            self.settled = True  # (a full node, say: see the docstring)
        # ResourceTrackerService: the next response id is the last response's + 1 (the NM echoes the last one).
        response_id = node.response_id = node.response_id + 1
        # (tuple() of an empty list is the empty tuple: new lists are only made when there was something to send)
        cleanup: Any = ()
        if node.pending_cleanup:
            cleanup, node.pending_cleanup = node.pending_cleanup, ()
        app_cleanup: Any = ()
        if node.pending_app_cleanup:
            app_cleanup, node.pending_app_cleanup = node.pending_app_cleanup, ()
        if not cleanup and not app_cleanup and not self.response_updaters:
            # _respond's common case in line (one call fewer per heartbeat)
            return NodeHeartbeatResponse(response_id=response_id, next_heartbeat_interval_ms=ctx.heartbeat_interval_ms)
        return self.respond(node_id, response_id, cleanup, app_cleanup, status, completed)

    def _respond(
        self, node_id: NodeId, response_id: int, cleanup: Any, app_cleanup: Any, status: Any, completed: Any
    ) -> NodeHeartbeatResponse:
        """The response without response updaters."""
        ctx = self.context
        if not cleanup and not app_cleanup:
            return NodeHeartbeatResponse(response_id=response_id, next_heartbeat_interval_ms=ctx.heartbeat_interval_ms)
        return NodeHeartbeatResponse(
            response_id=response_id,
            containers_to_cleanup=tuple(cleanup),
            applications_to_cleanup=tuple(app_cleanup),
            next_heartbeat_interval_ms=ctx.heartbeat_interval_ms,
        )

    def _respond_updated(
        self, node_id: NodeId, response_id: int, cleanup: Any, app_cleanup: Any, status: Any, completed: Any
    ) -> NodeHeartbeatResponse:
        """The response with the response updaters' parts: each gives a queuing limit (or None) and containers to
        update, or None when it adds nothing."""
        ctx = self.context
        limit = None
        updates: tuple[Container, ...] = ()
        full = False
        for updater in self.response_updaters:
            part = updater(node_id, status, completed)
            if part is not None:
                full = True
                if part[0] is not None:
                    limit = part[0]
                updates = (*updates, *part[1]) if updates else part[1]
        if not full and not cleanup and not app_cleanup:
            return NodeHeartbeatResponse(response_id=response_id, next_heartbeat_interval_ms=ctx.heartbeat_interval_ms)
        return NodeHeartbeatResponse(
            response_id=response_id,
            containers_to_cleanup=tuple(cleanup),
            applications_to_cleanup=tuple(app_cleanup),
            next_heartbeat_interval_ms=ctx.heartbeat_interval_ms,
            container_queuing_limit=limit,
            containers_to_update=updates,
        )

    def _needs_heartbeat(self, node_id: NodeId) -> bool:
        """Could an empty heartbeat from ``node_id`` change anything? False only when it provably cannot: no
        cleanup to send and a NODE_UPDATE the scheduler would return from at once."""
        ctx = self.context
        node: RMNode | None = ctx.nodes.get(node_id)
        if node is None:
            return True  # the NM must hear RESYNC
        if node.pending_cleanup or node.pending_app_cleanup:
            return True
        return not ctx.scheduler.node_update_is_noop(node_id)

    def _needs_heartbeat_or_update(self, node_id: NodeId) -> bool:
        """``_needs_heartbeat``, and True for a node with a container decrease to push (container resizing on)."""
        ctx = self.context
        rm = self.rm
        node: RMNode | None = ctx.nodes.get(node_id)
        if node is None:
            return True  # the NM must hear RESYNC
        if node.pending_cleanup or node.pending_app_cleanup:
            return True
        if node_id in rm.resize.to_update:
            return True  # a decrease to push to the NM
        return not ctx.scheduler.node_update_is_noop(node_id)

    # -- NMLivelinessMonitor --------------------------------------------------------------------------------------
    def check_node_liveness(self) -> None:
        ctx = self.context
        rm = self.rm
        deadline = ctx.kernel.now - rm.nm_expiry_ms
        clock = ctx.heartbeats
        if clock is not None and clock.lazy is not None:
            clock.lazy.settle_all()  # deferred RUNNING reports' heartbeats (actors/_shortcuts/_lazyrunning.py)
        if clock is not None and clock.skip:
            # A dormant NM is alive and heartbeating; its skipped heartbeats count (actors/_heartbeats.py).
            for n in ctx.nodes.values():
                if n.last_heartbeat < deadline:
                    n.last_heartbeat = clock.last_heartbeat(n.id, n.last_heartbeat)
        for node in [n for n in ctx.nodes.values() if n.last_heartbeat < deadline]:
            rm.log.warning("node_lost", node=str(node.id), last_heartbeat_ms=node.last_heartbeat)
            ctx.counters["nodes_lost"] += 1
            del ctx.nodes[node.id]
            ctx.lost_nodes.add(node.id)
            for listener in self.node_removed_listeners:
                listener(node.id)
            rm.dispatch(NodeRemovedSchedulerEvent(node_id=node.id))
