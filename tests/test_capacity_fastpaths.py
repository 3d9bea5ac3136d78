"""CapacityScheduler fast paths (headroom, pull-only allocate, cached user limits) against fresh computations.

A seeded random driver applies the same operations (nodes joining, leaving and resizing, submissions, asks with
host and rack names, heartbeats completing containers, releases, preemption marks, attempts ending) to twin
schedulers; after every operation the cached and fast-path values must equal a computation from scratch.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from test_capacity_scheduler_helpers import GB, ask, attempt_id, make_scheduler, submit

from yarnball.policies.capacity import CapacityScheduler, LeafQueue
from yarnball.policies.capacity._state import User
from yarnball.protocols import (
    AppAttemptRemovedSchedulerEvent,
    ContainerPreemptEvent,
    ContainerState,
    ContainerStatus,
    NodeAddedSchedulerEvent,
    NodeId,
    NodeRemovedSchedulerEvent,
    NodeResourceUpdateSchedulerEvent,
    NodeUpdateSchedulerEvent,
    Resource,
)

QUEUES = {
    "root.a": {"capacity": 30, "maximum-capacity": 60, "minimum-user-limit-percent": 40, "user-limit-factor": 1.5},
    "root.b": {"capacity": 70, "user-settings.u1.weight": 2.0},
}
DRF = {"yarn.scheduler.capacity.resource-calculator": "DominantResourceCalculator"}
UNLIMITED = {"root.a": {"capacity": 50, "user-limit-factor": -1}, "root.b": {"capacity": 50}}


def _fresh_user_limit(cs: CapacityScheduler, leaf: LeafQueue) -> tuple[int, int]:
    """The user limit recomputed from scratch (the users'-version cache and the inputs memo bypassed, then restored)."""
    saved = leaf.ul_version, leaf.ul_cache, leaf.ul_memo
    leaf.ul_version = -1
    leaf.ul_memo = {}
    try:
        return leaf.computed_user_limit(cs._ctx)
    finally:
        leaf.ul_version, leaf.ul_cache, leaf.ul_memo = saved


def _reference_headroom(cs: CapacityScheduler, leaf: LeafQueue, user: User) -> tuple[int, int]:
    """``getHeadroom`` written with the calculator's generic methods and a fresh user limit."""
    ctx = cs._ctx
    rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
    ul_m, ul_v = _fresh_user_limit(cs, leaf)
    if user.weight != 1.0:
        ul_m, ul_v = rc.multiply_and_normalize_down(ul_m, ul_v, user.weight, ctx.min_m, ctx.min_v)
    hm = min(max(ul_m - user.used_m, 0), max(leaf.cur_limit_m - leaf.used_m, 0))
    hv = min(max(ul_v - user.used_v, 0), max(leaf.cur_limit_v - leaf.used_v, 0))
    hm, hv = rc.round_down(hm, hv, ctx.min_m, ctx.min_v)
    free_m, free_v = cm - cs.root.used_m, cv - cs.root.used_v
    hm, hv = rc.min(cm, cv, free_m, free_v, hm, hv)
    return max(hm, 0), max(min(hv, free_v), 0)


class Driver:
    """Random operations applied identically to every scheduler in ``twins``."""

    def __init__(self, seed: int, twins: list[CapacityScheduler]) -> None:
        self.rng = random.Random(seed)
        self.twins = twins
        self.next_node = 0
        self.next_app = 0
        self.hosts: list[int] = []

    def _each(self, event: object) -> list[list]:
        return [cs.handle(event) for cs in self.twins]

    def add_node(self) -> None:
        i = self.next_node
        self.next_node += 1
        mem = self.rng.choice((4, 8, 10)) * GB
        vc = self.rng.choice((4, 8))
        rack = f"/r{i % 3}"
        self._each(
            NodeAddedSchedulerEvent(node_id=NodeId(f"h{i}", 1), rack_name=rack, total_resource=Resource(mem, vc))
        )
        self.hosts.append(i)

    def step(self) -> str:
        rng = self.rng
        cs = self.twins[0]
        op = rng.choices(
            ("node", "submit", "ask", "beat", "release", "preempt", "end", "remove", "resize"),
            (3, 4, 8, 30, 3, 1, 1, 1, 1),
        )[0]
        live_attempts = sorted(cs.attempts, key=lambda a: (a.application_id.id, a.attempt_id))
        if (op == "node" and len(self.hosts) < 8) or not self.hosts:
            self.add_node()
            return "node"
        if op == "submit" or not live_attempts:
            self.next_app += 1
            queue = rng.choice(("a", "b"))
            user = rng.choice(("u0", "u1", "u2"))
            for twin in self.twins:
                submit(twin, self.next_app, queue, user=user, am_mb=rng.choice((GB, 2 * GB)) if twin is cs else None)
            # the AM ask, identical on every twin (submit's ask uses the first twin's random draw otherwise)
            first = cs.attempts.get(attempt_id(self.next_app))
            if first is not None and first.keys:
                ka = next(iter(first.keys.values()))
                for twin in self.twins[1:]:
                    twin.allocate(attempt_id(self.next_app), [ask(ka.cap_m, 1, priority=0)], [])
            return "submit"
        aid = rng.choice(live_attempts)
        if op == "ask":
            reqs = [ask(rng.choice((GB, GB, GB, 2 * GB, 3 * GB)), rng.randint(0, 8), priority=rng.randint(1, 3))]
            if rng.random() < 0.5:
                h = rng.choice(self.hosts)
                reqs.append(ask(reqs[0].capability.memory_mb, 1, reqs[0].priority.priority, name=f"h{h}"))
                reqs.append(ask(reqs[0].capability.memory_mb, 1, reqs[0].priority.priority, name=f"/r{h % 3}"))
            for twin in self.twins:
                twin.allocate(aid, reqs, [])
        elif op == "beat":
            i = rng.choice(self.hosts)
            nid = NodeId(f"h{i}", 1)
            node = cs.nodes.get(nid)
            done = []
            if node is not None:
                for cid in sorted(
                    node.containers, key=lambda c: (c.application_attempt_id.application_id.id, c.container_id)
                ):
                    if rng.random() < 0.06:
                        done.append(ContainerStatus(container_id=cid, state=ContainerState.COMPLETE, exit_status=0))
            self._each(NodeUpdateSchedulerEvent(node_id=nid, completed_containers=tuple(done)))
        elif op == "release":
            live = sorted(cs.attempts[aid].live, key=lambda c: c.container_id)
            rel = [c for c in live if rng.random() < 0.3]
            for twin in self.twins:
                twin.allocate(aid, [], rel)
        elif op == "preempt":
            app = cs.attempts[aid]
            if app.live:
                rmc = app.live[min(app.live, key=lambda c: c.container_id)]
                self._each(ContainerPreemptEvent(application_attempt_id=aid, container=rmc.container))
        elif op == "end":
            self._each(AppAttemptRemovedSchedulerEvent(application_attempt_id=aid))
        elif op == "remove" and len(self.hosts) > 2:
            i = self.hosts.pop(rng.randrange(len(self.hosts)))
            self._each(NodeRemovedSchedulerEvent(node_id=NodeId(f"h{i}", 1)))
        elif op == "resize":
            i = rng.choice(self.hosts)
            mem = rng.choice((2, 6, 12)) * GB
            self._each(NodeResourceUpdateSchedulerEvent(node_id=NodeId(f"h{i}", 1), total_resource=Resource(mem, 8)))
        return op

    def run(self, steps: int) -> Iterator[str]:
        for _ in range(4):
            self.add_node()
        for _ in range(steps):
            yield self.step()


def _leaves(cs: CapacityScheduler) -> list[LeafQueue]:
    return cs.leaf_queues()


@pytest.mark.parametrize(
    ("seed", "queues", "extra"), [(1, QUEUES, {}), (10, QUEUES, DRF), (3, UNLIMITED, {}), (7, QUEUES, {})]
)
def test_headroom_equals_fresh_computation_after_random_operations(seed, queues, extra):
    """Every (leaf, user) headroom equals the generic formula with a freshly computed user limit, after each op.

    (The DRF case moved from seed 2 to 10 when host and rack asks began to outlive their key's ANY ask, as in
    Hadoop: seed 2's run no longer filled the cluster, which the last assertion needs.)"""
    cs = make_scheduler(queues, **extra)
    checked = full = 0
    for _ in Driver(seed, [cs]).run(400):
        for leaf in _leaves(cs):
            for user in leaf.users.values():
                assert leaf.headroom(cs._ctx, user, cs.root) == _reference_headroom(cs, leaf, user)
                checked += 1
                full += cs._ctx.cluster_m <= cs.root.used_m
    assert checked > 1000 and full > 0  # the full-cluster shortcut was exercised too


@pytest.mark.parametrize(("seed", "queues", "extra"), [(5, QUEUES, {}), (6, QUEUES, DRF)])
def test_cached_user_limit_equals_fresh_computation_after_random_operations(seed, queues, extra):
    """The users'-version memo of the user limit never serves a stale value."""
    cs = make_scheduler(queues, **extra)
    for _ in Driver(seed, [cs]).run(400):
        for leaf in _leaves(cs):
            assert leaf.computed_user_limit(cs._ctx) == _fresh_user_limit(cs, leaf)


@pytest.mark.parametrize(("seed", "queues", "extra"), [(7, QUEUES, {}), (8, QUEUES, DRF)])
def test_pull_only_allocate_equals_general_path(seed, queues, extra):
    """An allocate with nothing to apply returns what the general path returns (forced by a no-op blacklist removal)."""
    fast, general = make_scheduler(queues, **extra), make_scheduler(queues, **extra)
    driver = Driver(seed, [fast, general])
    pulls = nonempty = 0
    for _ in driver.run(300):
        for aid in sorted(fast.attempts, key=lambda a: a.application_id.id):
            a = fast.allocate(aid, (), ())
            b = general.allocate(aid, (), (), (), ("no-such-host",))
            assert a == b
            pulls += 1
            nonempty += bool(a.containers or a.completed or a.preempt)
        assert fast.queue_metrics() == general.queue_metrics()
    assert pulls > 500 and nonempty > 50


def test_headroom_of_full_cluster_ignores_user_limit():
    """On a full cluster the headroom is no memory and the free vcores, even for a user far below its limit."""
    cs = make_scheduler({"root.a": {"capacity": 50, "user-limit-factor": 2}, "root.b": {"capacity": 50}})
    cs.handle(NodeAddedSchedulerEvent(node_id=NodeId("h0", 1), rack_name="/r", total_resource=Resource(4 * GB, 8)))
    submit(cs, 1, "a", user="big", am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 4)], [])
    for _ in range(4):
        cs.handle(NodeUpdateSchedulerEvent(node_id=NodeId("h0", 1)))
    submit(cs, 2, "a", user="small", am_mb=None)
    assert cs.root.used_m == 4 * GB
    leaf = cs.queues["root.a"]
    assert leaf.headroom(cs._ctx, leaf.get_user("small"), cs.root) == (0, 4)
    assert cs.allocate(attempt_id(2), (), ()).headroom == Resource(0, 4)
