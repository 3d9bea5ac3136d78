"""Benchmark: one *live* PreemptionMonitor round at 100 queues, 10,000 nodes, 100,000 containers.

The monitor's round is ``snapshot_from_scheduler`` (cloneQueues over a real CapacityScheduler's state) followed
by one ``ProportionalCapacityPreemptionPolicy.edit_schedule``. Both are timed separately and together, for the
first round (every selected container newly marked) and the median of later rounds (the previous round's state
carried, as the monitor does; the scheduler is not changed between rounds, as within one interval). Usage::

    python bench/bench_preemption_live.py [--rounds 10] [--apps 2000]

The scheduler has 10,000 nodes of 10 GB / 10 vcores and 100 queues: root, 9 parents at 1/9 each, 10 leaves at
1/90 each (maximum-capacity 100%). Applications in the even leaves fill the cluster with 100,000 containers of
1 GB (AM containers included) through ordinary NODE_UPDATE heartbeats, so those leaves hold twice their
guarantee; then one application per odd leaf asks for its guarantee and cannot be served. Goal for the policy
round: <= 50 ms.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time

import structlog

from yarnball.policies.capacity import CapacityScheduler, CapacitySchedulerConfiguration
from yarnball.policies.preemption import ProportionalCapacityPreemptionPolicy, SnapshotCache, snapshot_from_scheduler
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

NODES = 10_000
NODE_MB = 10 * 1024
PER_NODE = 10
PARENTS = 9
LEAVES_PER_PARENT = 10
CS = "yarn.scheduler.capacity."


def _ask(priority: int, n: int) -> list[ResourceRequest]:
    return [ResourceRequest(priority=Priority(priority), capability=Resource(1024, 1), resource_name=ANY,
                            num_containers=n)]  # fmt: skip


def _leaf(p: int, q: int) -> str:
    return f"q{p}_{q}"  # leaf names are unique across the tree (CapacitySchedulerQueueManager)


def build(apps: int) -> CapacityScheduler:
    props: dict[str, object] = {
        "yarn.resourcemanager.scheduler.monitor.enable": "true",
        f"{CS}maximum-am-resource-percent": 1.0,
        f"{CS}maximum-applications": 100_000,
        # Each heartbeat fills its node, so the fill takes one heartbeat per node.
        f"{CS}per-node-heartbeat.maximum-offswitch-assignments": 1000,
        f"{CS}root.queues": ",".join(f"p{p}" for p in range(PARENTS)),
    }
    for p in range(PARENTS):
        props[f"{CS}root.p{p}.queues"] = ",".join(_leaf(p, q) for q in range(LEAVES_PER_PARENT))
        props[f"{CS}root.p{p}.capacity"] = 100.0 / PARENTS
        props[f"{CS}root.p{p}.maximum-capacity"] = 100.0
        for q in range(LEAVES_PER_PARENT):
            path = f"{CS}root.p{p}.{_leaf(p, q)}"
            props[f"{path}.capacity"] = 100.0 / LEAVES_PER_PARENT
            props[f"{path}.maximum-capacity"] = 100.0
            props[f"{path}.user-limit-factor"] = 100
    cs = CapacityScheduler(CapacitySchedulerConfiguration(Configuration(props)), cluster_timestamp=1)
    updates = []
    for n in range(NODES):
        nid = NodeId(f"host{n:05d}", 8041)
        cs.handle(NodeAddedSchedulerEvent(node_id=nid, rack_name=f"/rack{n // 40}",
                                          total_resource=Resource(NODE_MB, PER_NODE)))  # fmt: skip
        updates.append(NodeUpdateSchedulerEvent(node_id=nid))
    over = [(p, q) for p in range(PARENTS) for q in range(0, LEAVES_PER_PARENT, 2)]
    per_app = NODES * PER_NODE // apps  # containers per app, the AM included
    for a in range(1, apps + 1):
        p, q = over[(a - 1) % len(over)]
        _submit(cs, a, _leaf(p, q), f"user{a % 3}", per_app - 1)
    for ev in updates:
        cs.handle(ev)
    # Under-served leaves: one app each, asking for the leaf's guarantee (its AM cannot start either).
    guarantee = NODES * PER_NODE // (PARENTS * LEAVES_PER_PARENT)
    a = apps
    for p in range(PARENTS):
        for q in range(1, LEAVES_PER_PARENT, 2):
            a += 1
            _submit(cs, a, _leaf(p, q), "late", guarantee)
    # Hand out the allocations (pull newly allocated containers), as the AMs' allocate calls do.
    for attempt in list(cs.attempts):
        cs.allocate(attempt, [], [])
    return cs


def _submit(cs: CapacityScheduler, a: int, queue: str, user: str, tasks: int) -> None:
    app_id = ApplicationId(1, a)
    attempt = ApplicationAttemptId(app_id, 1)
    cs.handle(AppAddedSchedulerEvent(application_id=app_id, queue=queue, user=user, priority=Priority(0)))
    cs.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt))
    cs.allocate(attempt, _ask(0, 1) + _ask(1, tasks), [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--apps", type=int, default=2000)
    parser.add_argument("--no-cache", dest="cache", action="store_false", help="rebuild every container snapshot")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    t0 = time.perf_counter()
    cs = build(args.apps)
    built = time.perf_counter() - t0
    policy = ProportionalCapacityPreemptionPolicy()
    cache = SnapshotCache() if args.cache else None
    state = None
    snap_t: list[float] = []
    policy_t: list[float] = []
    rnd = live = None
    for r in range(args.rounds):
        start = time.perf_counter()
        live = snapshot_from_scheduler(cs, cache=cache)
        mid = time.perf_counter()
        rnd = policy.edit_schedule(live.snapshot, now_ms=r * 3000, state=state)
        end = time.perf_counter()
        snap_t.append(mid - start)
        policy_t.append(end - mid)
        state = rnd.state
    assert rnd is not None and live is not None
    # Side by side, same scheduler: snapshots rebuilt from scratch each time (no SnapshotCache).
    uncached = []
    for _ in range(3):
        start = time.perf_counter()
        snapshot_from_scheduler(cs)
        uncached.append(time.perf_counter() - start)
    snap = live.snapshot
    containers = sum(len(a.containers) for a in snap.applications)
    print(f"SnapshotCache: {'on (as the monitor runs)' if args.cache else 'off'}")
    print(f"scheduler: {len(snap.queues)} queues, {len(cs.nodes)} nodes, {containers} containers in "
          f"{len(snap.applications)} active apps (built in {built:.1f} s)")  # fmt: skip
    total = [s + p for s, p in zip(snap_t, policy_t)]
    for name, times in (("snapshot_from_scheduler", snap_t), ("policy edit_schedule", policy_t), ("together", total)):
        later = times[1:] or times
        print(f"{name:24s} first {times[0] * 1e3:7.1f} ms   later: median {statistics.median(later) * 1e3:7.1f} ms, "
              f"worst {max(later) * 1e3:7.1f} ms over {len(later)} rounds")  # fmt: skip
    print(f"snapshot without a SnapshotCache, same run: median {statistics.median(uncached) * 1e3:.1f} ms of 3")
    print(f"last round: {len(rnd.candidates)} containers selected, {len(rnd.events)} events, "
          f"budget {rnd.budget.memory_mb} MB (goal for the policy round <= 50 ms)")  # fmt: skip


if __name__ == "__main__":
    main()
