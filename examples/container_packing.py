"""Container packing against YARN's spread, on the seed's cluster: 10 nodes with room for 10 containers each.

Twenty 1 GB containers are asked for on ten 10 GB nodes. With the default spread (CapacityScheduler allocating on
each node's heartbeat) every node gets two containers, so no node can be released and the cluster runs at 20%.
With Qubole's container packing (continuous scheduling, ``high.memory.threshold`` 80) a random empty node is
filled until it reaches 80%, then the next: 8, 8 and 4 containers. The empty nodes can then be downscaled
(NODE_REMOVED, as the elastic cluster does), and the three nodes left run at 20/30 = 67%.

Run it:  python examples/container_packing.py [--threshold 80] [--seed 0]
"""

from __future__ import annotations

import argparse
from typing import Any

from yarnball.actors import configure_logging
from yarnball.policies.capacity import CapacityScheduler, CapacitySchedulerConfiguration, ContainerAllocated
from yarnball.policies.placement import placement_from_conf
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    NodeAddedSchedulerEvent,
    NodeId,
    NodeRemovedSchedulerEvent,
    NodeUpdateSchedulerEvent,
    Priority,
    Resource,
    ResourceRequest,
    keys,
)

NODES = 10
CONTAINER_MB = 1024
SLOTS_PER_NODE = 10
REQUESTS = 20


def place(policy: str, *, threshold: int = 80, seed: int = 0) -> dict[str, Any]:
    """Place the seed's 20 requests with ``policy`` ('spread' or 'packing'); report placement and utilisation."""
    props: dict[str, object] = {
        "yarn.scheduler.capacity.root.queues": "default",
        "yarn.scheduler.capacity.root.default.capacity": "100",
        "yarn.scheduler.capacity.maximum-am-resource-percent": "1.0",
        keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: CONTAINER_MB,
    }
    if policy == "packing":
        props[keys.CONTINUOUS_SCHEDULING_PACKED] = "true"
        props[keys.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD] = threshold
        props[keys.CONTINUOUS_SCHEDULING_ENABLED] = "true"
    elif policy != "spread":
        raise ValueError(f"policy must be 'spread' or 'packing', got {policy!r}")
    cs = CapacityScheduler(CapacitySchedulerConfiguration(Configuration(props)), cluster_timestamp=1)
    # The LOW set is shuffled with the run's seed, as the launcher does for a Cluster.
    cs.set_placement(placement_from_conf(cs.conf.conf, seed=seed))
    nodes = [NodeId(f"node{i}", 8041) for i in range(NODES)]
    size = Resource(SLOTS_PER_NODE * CONTAINER_MB, SLOTS_PER_NODE)
    for nid in nodes:
        cs.handle(NodeAddedSchedulerEvent(node_id=nid, rack_name="/default-rack", total_resource=size))
    app = ApplicationId(1, 1)
    attempt = ApplicationAttemptId(app, 1)
    cs.handle(AppAddedSchedulerEvent(application_id=app, queue="default", user="user", priority=Priority(0)))
    cs.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt))
    ask = ResourceRequest(priority=Priority(1), capability=Resource(CONTAINER_MB, 1), resource_name=ANY,
                          num_containers=REQUESTS)  # fmt: skip
    cs.allocate(attempt, [ask], [])
    allocated: list[ContainerAllocated] = []
    if policy == "spread":
        # Heartbeats, node after node, until nothing is pending (one off-switch container per node per heartbeat).
        while len(allocated) < REQUESTS:
            before = len(allocated)
            for nid in nodes:
                out = cs.handle(NodeUpdateSchedulerEvent(node_id=nid))
                allocated += [n for n in out if isinstance(n, ContainerAllocated)]
            if len(allocated) == before:
                break
    else:
        allocated += [n for n in cs.continuous_scheduling_attempt() if isinstance(n, ContainerAllocated)]
    per_node = {nid.host: 0 for nid in nodes}
    for note in allocated:
        per_node[note.container.node_id.host] += 1
    free = [nid for nid in nodes if per_node[nid.host] == 0]
    before_util = sum(per_node.values()) / (NODES * SLOTS_PER_NODE)
    for nid in free:  # downscale: the empty nodes leave through NODE_REMOVED
        cs.handle(NodeRemovedSchedulerEvent(node_id=nid))
    used = sum(n.total_m - n.unalloc_m for n in cs.nodes.values())
    total = cs.cluster_resource.memory_mb
    return {
        "policy": policy,
        "containers_per_node": per_node,
        "used_nodes": sorted((c for c in per_node.values() if c), reverse=True),
        "free_nodes": len(free),
        "utilisation_before": before_util,
        "utilisation_after_downscaling": used / total if total else 0.0,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=int, default=80)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    configure_logging(level="warning")
    for policy in ("spread", "packing"):
        r = place(policy, threshold=args.threshold, seed=args.seed)
        print(f"{policy}: containers per used node {r['used_nodes']}")
        print(f"{policy}: free nodes {r['free_nodes']}")
        print(f"{policy}: utilisation after downscaling {r['utilisation_after_downscaling']:.0%}")


if __name__ == "__main__":
    main()
