"""TestNMReconnect ported (issue 19 item 12): ``ResourceTrackerService.registerNodeManager`` for a node it knows.

Hadoop's test registers one node three times and reads the RMNode event each registration sends: STARTED, then
RECONNECTED twice. yarnball has no RMNode event queue; the port reads what those transitions hand the scheduler,
recorded by replacing the RM's dispatcher: STARTED (``AddNodeTransition``) sends NODE_ADDED, and RECONNECTED of a
node without running applications (``ReconnectNodeTransition``) sends NODE_REMOVED then NODE_ADDED. The last test
goes beyond Hadoop's: a node reconnecting with running applications (a recovered NM) is kept.
"""

from __future__ import annotations

from typing import Any

from yarnball.launcher._cluster import Cluster
from yarnball.protocols import (
    ApplicationId,
    NodeId,
    RegisterNodeManagerRequest,
    RegisterNodeManagerResponse,
    Resource,
)
from yarnball.testing import Probe


class Tracker:
    """A ResourceManager (with its CapacityScheduler and no nodes) and an NM probe; scheduler events recorded."""

    def __init__(self) -> None:
        self.cluster = Cluster({})
        self.rm = self.cluster.rm
        self.events: list[str] = []
        dispatch = self.rm.dispatch

        def recorded(event: Any) -> None:
            self.events.append(type(event).__name__)
            dispatch(event)

        self.rm.dispatch = recorded  # type: ignore[method-assign]
        self.nm = Probe()
        self.cluster.kernel.spawn(self.nm, "nm-localhost1")

    def register(self, request: RegisterNodeManagerRequest) -> RegisterNodeManagerResponse:
        self.events.clear()
        self.rm.ref.tell(request, self.nm.ref)
        self.cluster.kernel.run(until=self.cluster.kernel.now + 1)
        response = self.nm.messages[-1]
        assert isinstance(response, RegisterNodeManagerResponse)
        return response


def test_testReconnect() -> None:
    """STARTED, then RECONNECTED (twice, the second after the capability changed) for the same node."""
    tracker = Tracker()
    node_id = NodeId("localhost1", 0)
    request = RegisterNodeManagerRequest(node_id=node_id, http_port=0, resource=Resource(1024, 1))
    tracker.register(request)
    assert tracker.events == ["NodeAddedSchedulerEvent"]  # STARTED
    tracker.register(request)
    assert tracker.events == ["NodeRemovedSchedulerEvent", "NodeAddedSchedulerEvent"]  # RECONNECTED
    tracker.register(RegisterNodeManagerRequest(node_id=node_id, http_port=0, resource=Resource(1024, 2)))
    assert tracker.events == ["NodeRemovedSchedulerEvent", "NodeAddedSchedulerEvent"]  # RECONNECTED
    assert tracker.rm.nodes[node_id].resource == Resource(1024, 2)


def test_reconnect_with_running_applications_keeps_the_node_ReconnectNodeTransition() -> None:
    """With running applications (a recovered NM) the node is neither removed nor added again."""
    tracker = Tracker()
    node_id = NodeId("localhost1", 0)
    tracker.register(RegisterNodeManagerRequest(node_id=node_id, resource=Resource(1024, 1)))
    tracker.register(
        RegisterNodeManagerRequest(
            node_id=node_id, resource=Resource(1024, 1), running_applications=(ApplicationId(1, 1),)
        )
    )
    assert tracker.events == []
    assert node_id in tracker.rm.nodes
