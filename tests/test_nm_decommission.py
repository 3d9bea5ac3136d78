"""A decommissioned NodeManager stops heartbeating (HeartbeatClock phase points included) and never re-registers."""

from __future__ import annotations

from typing import Any

import pytest
from service_spies import spyable_services

from yarnball import Cluster
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import NodeAction, NodeHeartbeatResponse, NodeId, keys


def _cluster() -> Cluster:
    # Every heartbeat processed (no skipping), so every phase point has its event.
    conf = {keys.SIMULATION_SKIP_IDLE_HEARTBEATS: "false"}
    with spyable_services():  # (_heartbeats_seen replaces node_heartbeat)
        return Cluster(conf, WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build().nodes, seed=1)


def _heartbeats_seen(cluster: Cluster) -> list[tuple[float, NodeId]]:
    seen: list[tuple[float, NodeId]] = []
    rm = cluster.rm
    tracker = rm.resource_tracker
    original = tracker.node_heartbeat

    def spy(node_id: NodeId, statuses: Any, status: Any = None) -> NodeHeartbeatResponse:
        seen.append((rm.now, node_id))
        return original(node_id, statuses, status)

    tracker.node_heartbeat = spy  # type: ignore[method-assign]
    tracker.build_chain()
    return seen


@pytest.mark.parametrize("latency_ms", [0, 600])
def test_no_heartbeat_reaches_the_rm_after_decommission(latency_ms: float) -> None:
    """Decommissioned just before a phase point, the NM sends no heartbeat the RM would answer RESYNC."""
    cluster = _cluster()
    cluster.kernel.default_latency = latency_ms
    cluster.run(until_ms=5_000)
    nm = cluster.node_managers["node0"]
    beat = nm._beat
    assert beat is not None and beat.armed
    at = beat.due - 100  # the unregistration is still in flight when the phase point comes
    cluster.kernel.schedule(at - cluster.now, lambda _: nm.decommission())
    seen = _heartbeats_seen(cluster)
    cluster.run(until_ms=at + 10_000)
    assert [t for t, n in seen if n == nm.node_id and t >= at] == []
    assert nm.node_id not in cluster.rm.nodes and nm.node_id not in cluster.scheduler.nodes
    assert nm._stopped
    assert any(n.host == "node1" for _, n in seen)  # the other node heartbeats on


def test_resync_while_leaving_does_not_register_again() -> None:
    """A RESYNC answering a heartbeat that crossed the unregistration is ignored: the node is leaving."""
    cluster = _cluster()
    cluster.run(until_ms=5_000)
    nm = cluster.node_managers["node0"]
    nm.decommission()
    registrations: list[object] = []
    nm._register = lambda: registrations.append(nm.now)  # type: ignore[method-assign]
    nm.on_heartbeat_response(NodeHeartbeatResponse(node_action=NodeAction.RESYNC))
    assert registrations == []
