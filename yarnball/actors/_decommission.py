"""Graceful decommission at the RM: a node drains as Hadoop's DECOMMISSIONING, then is DECOMMISSIONED.

``rmadmin -refreshNodes -g [timeout]`` (or a ``node_decommission`` fault, launcher/_faultinjector.py) puts a RUNNING
node in DECOMMISSIONING (``RMNodeImpl.DecommissioningNodeTransition``):

- no new container goes there: the scheduler's view of the node is shrunk to what its containers use
  (``NodeResourceUpdateSchedulerEvent``, as RMNodeImpl does for a decommissioning node), before each of its
  heartbeats is handled, so that the room its completed containers free is not handed out again;
- its running containers go on and finish;
- when none is left (``DecommissioningNodesWatcher``: the node is READY), or when the timeout
  (``yarn.resourcemanager.nodemanager-graceful-decommission-timeout-secs``, default 3600) expires, it is
  DECOMMISSIONED: removed from the scheduler (NODE_REMOVED, whose ``removeNode`` ends what still runs there as
  LOST: exit status ABORTED -100, "Container released on a *lost* node") and told SHUTDOWN in the answer to its
  next heartbeat ("Disallowed NodeManager nodeId: ... hostname: ...", ResourceTrackerService.nodeHeartbeat).

The AMs hear of it: DECOMMISSIONING (``NodesListManager``'s NODE_DECOMMISSIONING) and DECOMMISSIONED (NODE_UNUSABLE,
from ``RMNodeImpl.DeactivateNodeTransition``) each reach every application not finished yet
(``sendRMAppNodeUpdateEventToNonFinalizedApps``, ``RMAppImpl.processNodeUpdate``), and the next allocate of each
pulls them as ``updated_nodes`` (``DefaultAMSProcessor.handleNodeUpdates``: the node's state at that time, its used
resources and container count from the scheduler, its total capability, the decommissioning timeout and the update
type; the latest update per node wins, as in RMAppImpl's map).

What is left out: DecommissioningNodesWatcher also waits for the applications that ran on the node to finish (their
map outputs may be read from it); here only its containers count.
"""

from __future__ import annotations

from typing import Any

import msgspec

from yarnball.protocols import (
    AllocateResponse,
    ApplicationId,
    ContainerState,
    NodeAction,
    NodeHeartbeatResponse,
    NodeId,
    NodeRemovedSchedulerEvent,
    NodeReport,
    NodeResourceUpdateSchedulerEvent,
    NodeState,
    NodeUpdateType,
    Resource,
)

__all__ = ["DecommissioningNodes"]

_COMPLETE = ContainerState.COMPLETE


class DecommissioningNodes:
    """The RM's DECOMMISSIONING nodes (with their deadlines) and DECOMMISSIONED ones."""

    __slots__ = ("decommissioned", "draining", "next_heartbeat", "nodes", "rm", "timeouts", "updates")

    def __init__(self, rm: Any) -> None:
        self.rm = rm
        self.draining: dict[NodeId, float] = {}  # node -> deadline (ms)
        self.decommissioned: set[NodeId] = set()
        self.timeouts: dict[NodeId, int] = {}  # node -> its decommissioning timeout (s), RMNodeImpl's
        self.nodes: dict[NodeId, Any] = {}  # node -> its RMNode (rack, total capability) once it is watched
        #: RMAppImpl.updatedNodes of every application with news: application -> node -> the latest update type.
        self.updates: dict[ApplicationId, dict[NodeId, NodeUpdateType]] = {}
        #: The node status update the heartbeats go on to (ResourceTrackerService's chain, set by intercept).
        self.next_heartbeat: Any = None

    def intercept(self, next_heartbeat: Any) -> Any:
        """This service as a member of ResourceTrackerService's heartbeat chain, in front of ``next_heartbeat``: a
        watched node's heartbeat is :meth:`heartbeat`'s, any other goes on."""
        self.next_heartbeat = next_heartbeat
        draining, decommissioned, heartbeat = self.draining, self.decommissioned, self.heartbeat

        def process(node_id: NodeId, statuses: Any, status: Any = None) -> Any:
            if node_id in draining or node_id in decommissioned:
                return heartbeat(node_id, statuses, status)
            return next_heartbeat(node_id, statuses, status)

        return process

    def watches(self, node_id: NodeId) -> bool:
        return node_id in self.draining or node_id in self.decommissioned

    def start(self, node_id: NodeId, timeout_ms: float) -> bool:
        """DECOMMISSIONING from now; False when the RM has no such RUNNING node (lost, gone or already draining)."""
        rm = self.rm
        if node_id not in rm.nodes or node_id in self.draining:
            return False
        self.draining[node_id] = rm.now + timeout_ms
        self.timeouts[node_id] = int(timeout_ms // 1000)
        self.nodes[node_id] = rm.nodes[node_id]
        rm.counters["nodes_decommissioning"] += 1
        rm.log.info("node_decommissioning", node=str(node_id), timeout_ms=timeout_ms)
        self._shrink(node_id, Resource())
        rm.after(timeout_ms, lambda: self._timeout(node_id))
        self._tell_applications(node_id, NodeUpdateType.NODE_DECOMMISSIONING)
        return True

    def _tell_applications(self, node_id: NodeId, kind: NodeUpdateType) -> None:
        """NodesListManager.sendRMAppNodeUpdateEventToNonFinalizedApps: every application not finished gets the
        update (RMAppImpl.processNodeUpdate), which its AM pulls with its next allocate."""
        rm = self.rm
        for app in rm.apps.values():
            if app.is_done:
                continue
            self.updates.setdefault(app.id, {})[node_id] = kind
            attempt = app.current_attempt
            if attempt is not None and rm.dormant:
                rm.dormant.wake(attempt.attempt_id)  # its next allocate has news (actors/_shortcuts/_amdormancy.py)

    def after_allocate(self, attempt_id: Any, msg: Any, response: AllocateResponse) -> AllocateResponse:
        """This service as a processor after the default one in ApplicationMasterService's chain: the
        application's node updates (DefaultAMSProcessor.handleNodeUpdates)."""
        if self.updates:
            updated = self.pull(attempt_id.application_id)
            if updated:
                response = msgspec.structs.replace(response, updated_nodes=updated)
        return response

    def has_news(self, app_id: ApplicationId) -> bool:
        return app_id in self.updates

    def pull(self, app_id: ApplicationId) -> tuple[NodeReport, ...]:
        """The application's node updates as NodeReports, taken once (RMAppImpl.pullRMNodeUpdates and
        DefaultAMSProcessor.handleNodeUpdates)."""
        updates = self.updates.pop(app_id, None)
        if not updates:
            return ()
        reports = []
        scheduler = self.rm.scheduler
        for node_id, kind in updates.items():
            node = self.nodes[node_id]
            draining = node_id in self.draining
            scheduled = scheduler.node_report(node_id)  # (None once it is out of the scheduler)
            reports.append(
                NodeReport(
                    node_id=node_id,
                    rack_name=node.rack,
                    node_state=NodeState.DECOMMISSIONING if draining else NodeState.DECOMMISSIONED,
                    used=scheduled.used if scheduled is not None else Resource(),
                    capability=node.resource,
                    num_containers=scheduled.num_containers if scheduled is not None else 0,
                    decommissioning_timeout=self.timeouts[node_id] if draining else None,
                    node_update_type=kind,
                )
            )
        return tuple(reports)

    def _used(self, node_id: NodeId) -> tuple[int, int, int]:
        node = self.rm.scheduler.nodes.get(node_id)
        if node is None:
            return 0, 0, 0
        return node.total_m - node.unalloc_m, node.total_v - node.unalloc_v, len(node.containers)

    def _shrink(self, node_id: NodeId, completing: Resource) -> None:
        used_m, used_v, _ = self._used(node_id)
        total = Resource(max(0, used_m - completing.memory_mb), max(0, used_v - completing.vcores))
        self.rm.dispatch(NodeResourceUpdateSchedulerEvent(node_id=node_id, total_resource=total))

    def heartbeat(self, node_id: NodeId, statuses: Any, status: Any) -> Any:
        """The RM's handling of a heartbeat from a watched node (see intercept)."""
        rm = self.rm
        if node_id in self.decommissioned:
            return self._shutdown(node_id, 0)
        completing_m = completing_v = 0
        for cs in statuses or ():
            if cs.state is _COMPLETE and cs.container_id in rm.live and cs.capability is not None:
                completing_m += cs.capability.memory_mb
                completing_v += cs.capability.vcores
        self._shrink(node_id, Resource(completing_m, completing_v))
        response = self.next_heartbeat(node_id, statuses, status)
        if self._used(node_id)[2] == 0:
            self._finish(node_id, "drained")
            return self._shutdown(node_id, response.response_id)
        return response

    def _timeout(self, node_id: NodeId) -> None:
        if self.rm.decommissioning is not self:
            return  # set by an RM process that stopped since (actors/_rmrestart.py): the new one does not know it
        if node_id in self.draining:
            self._finish(node_id, "timeout")

    def _finish(self, node_id: NodeId, why: str) -> None:
        """DECOMMISSIONED: out of the scheduler (what still runs there ends LOST) and of the RM's nodes."""
        rm = self.rm
        self.draining.pop(node_id, None)
        self.decommissioned.add(node_id)
        _, _, left = self._used(node_id)
        rm.counters["nodes_decommissioned"] += 1
        rm.log.info("node_decommissioned", node=str(node_id), reason=why, containers_lost=left)
        rm.nodes.pop(node_id, None)
        if rm.opportunistic is not None:
            rm.opportunistic.on_node_removed(node_id)
        rm.dispatch(NodeRemovedSchedulerEvent(node_id=node_id))
        self._tell_applications(node_id, NodeUpdateType.NODE_UNUSABLE)  # DeactivateNodeTransition's NODE_UNUSABLE

    def _shutdown(self, node_id: NodeId, response_id: int) -> NodeHeartbeatResponse:
        return NodeHeartbeatResponse(
            response_id=response_id,
            node_action=NodeAction.SHUTDOWN,
            diagnostics_message=f"Disallowed NodeManager nodeId: {node_id} hostname: {node_id.host}",
            next_heartbeat_interval_ms=self.rm.heartbeat_interval_ms,
        )
