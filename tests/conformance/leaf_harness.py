"""TestLeafQueue's set-up over a real CapacityScheduler (shared by the TestLeafQueue ports; no tests here).

Hadoop's ``setUp`` parses ``setupQueueConfiguration`` (root.<newRoot> 100 % over a 8.5 / 80 / 1.5 (c with c1) / 9 / 1 %
split) with ``reservations-continue-look-all-nodes`` off, a 1 GB / 1 vcore minimum and a 16 GB / 32 vcores maximum
allocation, then drives one LeafQueue by hand:

- ``new FiCaSchedulerApp(...)`` + ``submitApplicationAttempt`` is APP_ADDED + APP_ATTEMPT_ADDED here, the AM size
  told first as the stubbed AM ResourceRequest's (0, 0), and the attempt marked as running its AM: Hadoop's app has
  no AM container, where yarnball takes an attempt's first container for its AM;
- ``app.updateResourceRequests`` is the AM's ``allocate`` with those asks;
- ``a.assignContainers(cluster, node, ...)`` + ``applyCSAssignment`` is one NODE_UPDATE of that node with one
  assignment per heartbeat (``per-node-heartbeat.multiple-assignments-enabled`` off): the other queues are empty, so
  the walk from root reaches the leaf with the limit Hadoop hands it (the whole cluster);
- ``a.completedContainer(...)`` is the release of the container in the AM's next ``allocate``;
- the mocked cluster (``numNodes`` x node size) is that many real nodes; the ones the test never heartbeats stay
  idle;
- ``setUserLimit`` / ``setUserLimitFactor`` / ``setMaxCapacity`` are LeafQueue's runtime setters, and
  ``root.updateClusterResource`` is ``CapacityScheduler.update_cluster_resource``.
"""

from __future__ import annotations

from typing import Any

from test_capacity_scheduler_helpers import GB, add_node, app_id, ask, attempt_id, heartbeat, make_scheduler, submit

from yarnball.policies.capacity import CapacityScheduler, ContainerAllocated, LeafQueue
from yarnball.protocols import ANY, NodeId, Resource
from yarnball.protocols import keys as k

NEW_ROOT = "root.newroot"
CS = "yarn.scheduler.capacity."


def leaf_queues() -> dict[str, dict[str, object]]:
    """TestLeafQueue.setupQueueConfiguration (without the ACLs, which LeafQueue.submitApplicationAttempt skips)."""
    return {
        NEW_ROOT: {"capacity": 100, "maximum-capacity": 100},
        f"{NEW_ROOT}.a": {"capacity": 8.5, "maximum-capacity": 20},
        f"{NEW_ROOT}.b": {"capacity": 80, "maximum-capacity": 99},
        f"{NEW_ROOT}.c": {"capacity": 1.5, "maximum-capacity": 10},
        f"{NEW_ROOT}.c.c1": {"capacity": 100},
        f"{NEW_ROOT}.d": {"capacity": 9, "maximum-capacity": 11},
        f"{NEW_ROOT}.e": {"capacity": 1, "maximum-capacity": 1},
    }


SETUP: dict[str, object] = {
    k.ASSIGN_MULTIPLE_ENABLED: "false",
    CS + "reservations-continue-look-all-nodes": "false",
    k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: 16 * GB,
    k.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES: 32,
}
DRF = {k.RESOURCE_CALCULATOR_CLASS: k.DOMINANT_RESOURCE_CALCULATOR_CLASS}


class LeafHarness:
    """One TestLeafQueue scenario: the scheduler, its nodes, and the queue under test."""

    def __init__(
        self,
        queue: str,
        nodes: int,
        node_mb: int,
        node_vcores: int = 16,
        *,
        racks: tuple[str, ...] = (),
        max_capacity: float | None = None,
        queues: dict[str, dict[str, object]] | None = None,
        **extra: object,
    ) -> None:
        self.cs: CapacityScheduler = make_scheduler(queues or leaf_queues(), **{**SETUP, **extra})
        leaf = self.cs.get_queue(queue)
        assert isinstance(leaf, LeafQueue)
        self.leaf = leaf
        self.queue = queue.rsplit(".", 1)[-1]
        if max_capacity is not None:
            leaf.set_max_capacity(max_capacity)
        self.nids: list[NodeId] = [
            add_node(self.cs, i, node_mb, node_vcores, rack=racks[i] if i < len(racks) else "/default-rack")
            for i in range(nodes)
        ]
        self.made = 0  # Hadoop assertions checked so far

    # -- Hadoop's calls ----------------------------------------------------------------------------------------
    def submit(self, n: int, user: str, priority: int = 0) -> None:
        """``new FiCaSchedulerApp`` + ``submitApplicationAttempt``: the stubbed AM request is (0, 0) and no container
        of the test is the AM's (Hadoop's app has no AM container): the attempt is marked as running its AM."""
        self.cs.set_am_resource(app_id(n), Resource(0, 0))
        submit(self.cs, n, queue=self.queue, user=user, priority=priority, am_mb=None)
        app = self.cs.attempts.get(attempt_id(n))
        if app is not None:
            app.am_running = True

    def asks(self, n: int, *requests: tuple[Any, ...]) -> None:
        """``updateResourceRequests``: (resource name, GB, containers[, relax locality[, priority[, vcores]]])."""
        rrs = []
        for r in requests:
            name, gb, count = r[0], r[1], r[2]
            relax = r[3] if len(r) > 3 else True
            priority = r[4] if len(r) > 4 else 1
            vcores = r[5] if len(r) > 5 else 1
            rrs.append(ask(int(gb * GB), count, priority=priority, name=name, relax=relax, vcores=vcores))
        self.cs.allocate(attempt_id(n), rrs, [])

    def any(self, n: int, gb: float, count: int, priority: int = 1, vcores: int = 1) -> None:
        self.asks(n, (ANY, gb, count, True, priority, vcores))

    def blacklist(self, n: int, additions: tuple[str, ...] = (), removals: tuple[str, ...] = ()) -> None:
        """``updateBlacklist(additions, removals)``."""
        self.cs.allocate(attempt_id(n), [], [], blacklist_additions=additions, blacklist_removals=removals)

    def live(self, n: int) -> int:
        """``getLiveContainers().size()``."""
        return len(self.cs.attempts[attempt_id(n)].live)

    def assign(self, node: int) -> list[ContainerAllocated]:
        return heartbeat(self.cs, self.nids[node])

    def release_all(self, n: int) -> None:
        """``completedContainer`` for every live container of app ``n``."""
        app = self.cs.attempts[attempt_id(n)]
        self.cs.allocate(attempt_id(n), [], list(app.live))

    def release_one(self, n: int) -> None:
        app = self.cs.attempts[attempt_id(n)]
        self.cs.allocate(attempt_id(n), [], [next(iter(app.live))])

    def set_user_limit(self, percent: float) -> None:
        self.leaf.set_user_limit(self.cs._ctx, percent)

    def set_user_limit_factor(self, factor: float) -> None:
        self.leaf.set_user_limit_factor(self.cs._ctx, factor)

    # -- Hadoop's getters --------------------------------------------------------------------------------------
    def consumption(self, n: int) -> int:
        return self.cs.attempts[attempt_id(n)].used_m

    def reservation(self, n: int) -> int:
        return self.cs.attempts[attempt_id(n)].reserved_m

    def headroom(self, n: int) -> int:
        return self.cs.headroom(attempt_id(n)).memory_mb

    def node_allocated(self, node: int) -> int:
        report = self.cs.node_report(self.nids[node])
        assert report is not None
        return report.used.memory_mb

    def metrics(self) -> Any:
        return next(m for m in self.cs.queue_metrics() if m.path == self.leaf.path)

    def active_users(self) -> int:
        return self.leaf.active_users

    def opportunities(self, n: int, priority: int = 1) -> int:
        return self.cs.attempts[attempt_id(n)].opportunities.get((priority, -1), 0)

    def outstanding(self, n: int, priority: int = 1) -> int:
        return self.cs.attempts[attempt_id(n)].get_outstanding_asks_count(priority)

    def expect(
        self, step: str, *, used: float | None = None, apps: dict[int, float] | None = None, **gb: float
    ) -> None:
        """Hadoop's assertions after one step, in GB: ``used`` (a.getUsedResources), ``apps`` (getCurrentConsumption
        by app), and metrics / reservations / nodes by keyword (reserved, allocated, available, reservation_<n>,
        node_<i>, headroom_<n>). Each is one Hadoop assertion."""
        checks: list[tuple[str, int, int]] = []
        if used is not None:
            checks.append(("a.getUsedResources", self.leaf.used_m, int(used * GB)))
        for n, want in (apps or {}).items():
            checks.append((f"app_{n}.getCurrentConsumption", self.consumption(n), int(want * GB)))
        metrics = self.metrics() if {"reserved", "allocated", "available"} & gb.keys() else None
        for key, want in gb.items():
            if key == "reserved":
                got = metrics.reserved.memory_mb
            elif key == "allocated":
                got = metrics.allocated.memory_mb
            elif key == "available":
                got = metrics.available.memory_mb
            elif key.startswith("reservation_"):
                got = self.reservation(int(key.split("_")[1]))
            elif key.startswith("node_"):
                got = self.node_allocated(int(key.split("_")[1]))
            elif key.startswith("headroom_"):
                got = self.headroom(int(key.split("_")[1]))
            else:
                raise KeyError(key)
            checks.append((key, got, int(want * GB)))
        for what, got, want in checks:
            assert got == want, f"{step}: {what}: {got} != {want}"
        self.made += len(checks)
