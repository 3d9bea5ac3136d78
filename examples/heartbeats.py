"""Actors exchanging YARN heartbeats in virtual time.

A toy ResourceTrackerService and N NodeManagers: each NM registers, then sends a NodeHeartbeatRequest every
``yarn.resourcemanager.nodemanagers.heartbeat-interval-ms`` (1000 ms); the tracker answers each with a
NodeHeartbeatResponse carrying the next response id. NMs start at seeded random offsets, the NM -> RM link has a
modelled latency, and an hour of simulated time takes a fraction of a second.

Run it:  python examples/heartbeats.py --nodes 100 --seconds 3600 --seed 1
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import structlog

from yarnball.actors import Actor, ActorRef, Kernel, configure_logging, handler
from yarnball.protocols import (
    NodeHeartbeatRequest,
    NodeHeartbeatResponse,
    NodeId,
    NodeStatus,
    RegisterNodeManagerRequest,
    RegisterNodeManagerResponse,
    Resource,
)

log = structlog.get_logger("examples.heartbeats")

HEARTBEAT_MS = 1000


class ResourceTracker(Actor):
    """Counts registrations and heartbeats; replies to each heartbeat with the next response id."""

    def __init__(self) -> None:
        self.registered: dict[str, Resource] = {}
        self.heartbeats = 0

    @handler
    def on_register(self, msg: RegisterNodeManagerRequest) -> None:
        self.registered[str(msg.node_id)] = msg.resource
        self.log.info("node_registered", node=str(msg.node_id), resource=str(msg.resource))
        assert self.sender is not None
        self.sender.tell(RegisterNodeManagerResponse(), self.ref)

    @handler
    def on_heartbeat(self, msg: NodeHeartbeatRequest) -> None:
        self.heartbeats += 1
        assert self.sender is not None
        self.sender.tell(NodeHeartbeatResponse(response_id=msg.node_status.response_id + 1), self.ref)


class NodeManager(Actor):
    def __init__(self, host: str, tracker: ActorRef, offset_ms: int) -> None:
        self.node_id = NodeId(host, 8041)
        self.tracker = tracker
        self.offset_ms = offset_ms
        self.response_id = 0

    def on_start(self) -> None:
        self.after(self.offset_ms, self.register)

    def register(self) -> None:
        self.tracker.tell(RegisterNodeManagerRequest(node_id=self.node_id, resource=Resource(10240, 10)), self.ref)

    @handler
    def on_registered(self, msg: RegisterNodeManagerResponse) -> None:
        self.every(HEARTBEAT_MS, self.heartbeat)

    def heartbeat(self) -> None:
        status = NodeStatus(node_id=self.node_id, response_id=self.response_id)
        self.tracker.tell(NodeHeartbeatRequest(node_status=status), self.ref)

    @handler
    def on_response(self, msg: NodeHeartbeatResponse) -> None:
        self.response_id = msg.response_id


def run(nodes: int, seconds: int, seed: int, latency_ms: float = 2.0) -> dict[str, float]:
    """Run the program and return what the tracker saw."""
    rng = random.Random(seed)
    kernel = Kernel()
    kernel.default_latency = latency_ms
    tracker = ResourceTracker()
    tracker_ref = kernel.spawn(tracker, "rm")
    nms = []
    for i in range(nodes):
        nm = NodeManager(f"node{i:05d}", tracker_ref, offset_ms=rng.randrange(HEARTBEAT_MS))
        nms.append(nm)
        kernel.spawn(nm, f"nm-{i}")
    kernel.run(until=seconds * 1000)
    log.info("run_finished", heartbeats=tracker.heartbeats, registered=len(tracker.registered))
    return {
        "registered": len(tracker.registered),
        "heartbeats": tracker.heartbeats,
        "min_response_id": min(nm.response_id for nm in nms),
        "events": kernel.events_processed,
        "simulated_ms": kernel.now,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=3600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--event-log", type=Path, default=None, help="write the JSON lines event log here")
    args = parser.parse_args(argv)
    configure_logging(json_path=args.event_log, level="info" if args.event_log else "warning")
    start = time.perf_counter()
    result = run(args.nodes, args.seconds, args.seed)
    wall = time.perf_counter() - start
    print(f"nodes registered:     {result['registered']}")
    print(f"heartbeats received:  {result['heartbeats']}")
    print(f"lowest response id:   {result['min_response_id']}")
    print(f"kernel events:        {result['events']}")
    print(f"simulated seconds:    {result['simulated_ms'] / 1000:.0f}")
    print(f"speed-up vs real time: {result['simulated_ms'] / 1000 / wall:,.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
