"""The FIFO leaf's list of schedulable applications (active apps with outstanding asks, in FIFO order)."""

from __future__ import annotations

import random

from tests.test_capacity_scheduler_helpers import GB, add_node, ask, attempt_id, heartbeat, make_scheduler, submit
from yarnball.policies.capacity import CapacityScheduler
from yarnball.protocols import (
    AppAttemptRemovedSchedulerEvent,
    ContainerExitStatus,
    ContainerState,
    ContainerStatus,
    NodeUpdateSchedulerEvent,
)


def _expected(cs: CapacityScheduler) -> list:
    leaf = cs.get_queue("default")
    return [a for a in leaf.active if a.has_pending()]


def test_app_without_asks_leaves_and_rejoins_in_fifo_position() -> None:
    """An app whose asks are all served leaves the list; a new ask puts it back before later apps."""
    cs = make_scheduler()
    nid = add_node(cs, 0, mem=64 * GB, vcores=64)
    submit(cs, 1)
    submit(cs, 2)
    leaf = cs.get_queue("default")
    for _ in range(4):
        heartbeat(cs, nid)
    assert leaf.schedulable == []  # both AM asks served
    cs.allocate(attempt_id(2), [ask(GB, 2)], [])
    cs.allocate(attempt_id(1), [ask(GB, 1)], [])
    assert [a.attempt_id for a in leaf.schedulable] == [attempt_id(1), attempt_id(2)]
    heartbeat(cs, nid)  # the first app's one container, then the second app's
    assert [a.attempt_id for a in leaf.schedulable] == [attempt_id(2)]


def test_higher_priority_app_comes_first() -> None:
    """Application priority orders the list before submission order, as the FIFO policy does."""
    cs = make_scheduler(**{"yarn.scheduler.capacity.maximum-am-resource-percent": 1.0})
    add_node(cs, 0)
    submit(cs, 1, priority=0)
    submit(cs, 2, priority=5)
    leaf = cs.get_queue("default")
    assert [a.attempt_id for a in leaf.schedulable] == [attempt_id(2), attempt_id(1)]


def test_list_matches_active_apps_with_asks_under_random_operations() -> None:
    """Through random asks, heartbeats, completions and removals the list equals the filtered active list."""
    rng = random.Random(7)
    cs = make_scheduler(
        {"root.default": {"capacity": 100, "minimum-user-limit-percent": 50}},
        **{"yarn.scheduler.capacity.maximum-am-resource-percent": 0.5},
    )
    nodes = [add_node(cs, i, mem=8 * GB, vcores=8) for i in range(4)]
    next_app = 1
    for _ in range(400):
        op = rng.random()
        live = list(cs.attempts)
        if op < 0.1 or not live:
            submit(cs, next_app, user=f"u{next_app % 3}", priority=rng.randrange(3))
            next_app += 1
        elif op < 0.35:
            cs.allocate(rng.choice(live), [ask(GB * rng.randint(1, 2), rng.randint(0, 5), rng.randint(1, 3))], [])
        elif op < 0.8:
            heartbeat(cs, rng.choice(nodes))
        elif op < 0.95:
            containers = [rmc for rmc in cs._ctx.containers.values() if rmc.state != "RESERVED"]
            if containers:
                rmc = rng.choice(containers)
                status = ContainerStatus(
                    container_id=rmc.cid, state=ContainerState.COMPLETE, exit_status=ContainerExitStatus.SUCCESS
                )
                cs.handle(NodeUpdateSchedulerEvent(node_id=rmc.node.node_id, completed_containers=(status,)))
        else:
            cs.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=rng.choice(live)))
        assert cs.get_queue("default").schedulable == _expected(cs)
    assert next_app > 10 and cs._ctx.containers
