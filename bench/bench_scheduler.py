"""Benchmark: saturated CapacityScheduler allocations per wall-clock second.

A cluster of N nodes, a few applications with many pending 1-container asks, and rounds of NODE_UPDATE heartbeats
(one per node per round) until the cluster is full or the round budget is spent. The figure is ContainerAllocated
notifications per second of wall time spent inside ``CapacityScheduler.handle``.

Two modes: ``default`` keeps Hadoop's per-node-heartbeat.maximum-offswitch-assignments = 1 (one off-switch
container per heartbeat, so one scheduler walk per allocation); ``multi`` raises it so each heartbeat fills its node.

    python bench/bench_scheduler.py [--nodes 1000] [--rounds 20] [--apps 10] [--queues 4]
"""

from __future__ import annotations

import argparse
import logging
import time

import structlog

from yarnball.policies.capacity import CapacityScheduler, CapacitySchedulerConfiguration, ContainerAllocated
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    NodeAddedSchedulerEvent,
    NodeId,
    NodeUpdateSchedulerEvent,
    Priority,
    Resource,
    ResourceRequest,
)


def build(nodes: int, apps: int, queues: int, multi: bool) -> tuple[CapacityScheduler, list[NodeUpdateSchedulerEvent]]:
    props: dict[str, object] = {
        "yarn.scheduler.capacity.root.queues": ",".join(f"q{i}" for i in range(queues)),
        "yarn.scheduler.capacity.maximum-am-resource-percent": 1.0,
    }
    share = 100.0 / queues
    for i in range(queues):
        props[f"yarn.scheduler.capacity.root.q{i}.capacity"] = share if i < queues - 1 else 100.0 - share * (queues - 1)
        props[f"yarn.scheduler.capacity.root.q{i}.user-limit-factor"] = queues
    if multi:
        props["yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments"] = 1000
    cs = CapacityScheduler(CapacitySchedulerConfiguration(Configuration(props)), cluster_timestamp=1)
    updates = []
    for n in range(nodes):
        nid = NodeId(f"host{n:05d}", 8041)
        cs.handle(
            NodeAddedSchedulerEvent(node_id=nid, rack_name=f"/rack{n // 40}", total_resource=Resource(64 * 1024, 64))
        )
        updates.append(NodeUpdateSchedulerEvent(node_id=nid))
    per_app = nodes * 64 // apps + 1
    for a in range(1, apps + 1):
        app_id = ApplicationId(1, a)
        attempt = ApplicationAttemptId(app_id, 1)
        cs.handle(
            AppAddedSchedulerEvent(
                application_id=app_id, queue=f"q{a % queues}", user=f"user{a % 3}", priority=Priority(0)
            )
        )
        cs.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt))
        cs.allocate(
            attempt,
            [
                ResourceRequest(
                    priority=Priority(1), capability=Resource(1024, 1), resource_name=ANY, num_containers=per_app
                )
            ],
            [],
        )
    return cs, updates


def run(mode: str, nodes: int, rounds: int, apps: int, queues: int) -> float:
    cs, updates = build(nodes, apps, queues, mode == "multi")
    allocated = 0
    start = time.perf_counter()
    for _ in range(rounds):
        for ev in updates:
            for note in cs.handle(ev):
                if type(note) is ContainerAllocated:
                    allocated += 1
    elapsed = time.perf_counter() - start
    rate = allocated / elapsed if elapsed else 0.0
    print(
        f"{mode:8s} nodes={nodes} rounds={rounds} apps={apps} queues={queues}: "
        f"{allocated} containers in {elapsed:.3f} s = {rate:,.0f} allocations/s "
        f"({elapsed / (rounds * nodes) * 1e6:.1f} us per heartbeat)"
    )
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--apps", type=int, default=10)
    parser.add_argument("--queues", type=int, default=4)
    parser.add_argument("--mode", choices=("default", "multi", "both"), default="both")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    modes = ("default", "multi") if args.mode == "both" else (args.mode,)
    for mode in modes:
        run(mode, args.nodes, args.rounds if mode == "default" else max(1, args.rounds // 10), args.apps, args.queues)


if __name__ == "__main__":
    main()
