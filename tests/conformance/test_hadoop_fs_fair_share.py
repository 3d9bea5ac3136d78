"""Hadoop's TestFairSchedulerFairShare (every method) and the allocation-file tree tests of TestSchedulingPolicy
(testSchedulingPolicyViolation, ...InTheMiddleLevel, testFIFOPolicyOnlyForLeafQueues, testPolicyReinitialization),
on the queue tree alone.

Hadoop starts a MockRM with the allocation file, adds one node and submits applications with
``createSchedulingRequest(mb, queue, user)`` (one ask of ``mb`` MB and 1 vcore); here the file is loaded with
``reload_allocations``, the node is ``set_cluster_resource`` and each application a FakeFSApp of that demand added
through the MaxRunningAppsEnforcer. ``scheduler.reinitialize`` is ``QueueManager.reload``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fair_allocationfile import AllocationFileQueue, AllocationFileWriter
from fair_queue_helpers import add_app, remove_app

from yarnball.policies.fair import (
    AllocationConfiguration,
    DominantResourceFairnessPolicy,
    FairSharePolicy,
    FifoPolicy,
    FSLeafQueue,
    MaxRunningAppsEnforcer,
    QueueManager,
    reload_allocations,
)
from yarnball.protocols import Configuration, Resource

NO_RESOURCE = Resource(0, 0)


def load(path: Path) -> AllocationConfiguration:
    return reload_allocations(Configuration({"yarn.scheduler.fair.allocation.file": str(path)}))


def start(path: Path, cluster: Resource = NO_RESOURCE) -> QueueManager:
    """``scheduler.init(conf)``: the tree of the allocation file, then the node."""
    conf = load(path)
    manager = QueueManager(conf)
    manager.reload(conf)
    manager.set_cluster_resource(cluster)
    return manager


def leaf(manager: QueueManager, name: str) -> FSLeafQueue:
    queue = manager.get_leaf_queue(name, False)
    assert queue is not None
    return queue


@pytest.fixture
def alloc_file(tmp_path: Path) -> Path:
    return tmp_path / "fair-scheduler.xml"


def create_cluster(
    path: Path, mem: int, vcores: int = 0, policy: str = "fair"
) -> tuple[QueueManager, MaxRunningAppsEnforcer]:
    """``createClusterWithQueuesAndOneNode``: default (weight 1), parentA (8: childA1-4), parentB (1: childB1-2)."""
    children_a = tuple(AllocationFileQueue(f"childA{i}") for i in range(1, 5))
    children_b = tuple(AllocationFileQueue(f"childB{i}") for i in range(1, 3))
    writer = AllocationFileWriter().add_queue(
        AllocationFileQueue(
            "root",
            sub_queues=(
                AllocationFileQueue("default", weight=1),
                AllocationFileQueue("parentA", weight=8, sub_queues=children_a),
                AllocationFileQueue("parentB", weight=1, sub_queues=children_b),
            ),
        )
    )
    writer.set("defaultQueueSchedulingPolicy", policy)
    manager = start(writer.write_to_file(path), Resource(mem, vcores))
    return manager, MaxRunningAppsEnforcer(manager)


def submit(enforcer: MaxRunningAppsEnforcer, manager: QueueManager, mb: int, queue: str, user: str):  # type: ignore[no-untyped-def]
    return add_app(enforcer, leaf(manager, queue), user, demand=Resource(mb, 1))


def share(manager: QueueManager, name: str, capacity: int) -> float:
    return leaf(manager, name).fair_share.memory_mb / capacity * 100


def verify_steady_fair_share_memory(manager: QueueManager, capacity: int) -> None:
    for queue in manager.leaf_queues:
        if queue.name.startswith("root.parentA"):
            assert queue.steady_fair_share.memory_mb / capacity == pytest.approx(0.2, abs=0.001)
        elif queue.name.startswith("root.parentB"):
            assert queue.steady_fair_share.memory_mb / capacity == pytest.approx(0.05, abs=0.001)


CAPACITY = 16 * 1024


def test_testFairShareNoAppsRunning(alloc_file: Path) -> None:
    """No application: every leaf's fair share is 0; the steady shares follow the weights."""
    manager, _ = create_cluster(alloc_file, CAPACITY)
    manager.update()
    for queue in manager.leaf_queues:
        if queue.name.startswith(("root.parentA", "root.parentB")):
            assert queue.fair_share.memory_mb == 0
    verify_steady_fair_share_memory(manager, CAPACITY)


def test_testFairShareOneAppRunning(alloc_file: Path) -> None:
    """The only active leaf gets the whole cluster, its idle sibling nothing."""
    manager, enforcer = create_cluster(alloc_file, CAPACITY)
    submit(enforcer, manager, 2 * 1024, "root.parentA.childA1", "user1")
    manager.update()
    assert share(manager, "root.parentA.childA1", CAPACITY) == pytest.approx(100, abs=0.1)
    assert share(manager, "root.parentA.childA2", CAPACITY) / 100 == pytest.approx(0, abs=0.1)
    verify_steady_fair_share_memory(manager, CAPACITY)


def test_testFairShareMultipleActiveQueuesUnderSameParent(alloc_file: Path) -> None:
    """Three active leaves under one parent get a third each."""
    manager, enforcer = create_cluster(alloc_file, CAPACITY)
    for i in range(1, 4):
        submit(enforcer, manager, 2 * 1024, f"root.parentA.childA{i}", f"user{i}")
    manager.update()
    for i in range(1, 4):
        assert share(manager, f"root.parentA.childA{i}", CAPACITY) == pytest.approx(33, abs=0.9)
    verify_steady_fair_share_memory(manager, CAPACITY)


def _four_apps(manager: QueueManager, enforcer: MaxRunningAppsEnforcer) -> None:
    submit(enforcer, manager, 2 * 1024, "root.parentA.childA1", "user1")
    submit(enforcer, manager, 3 * 1024, "root.parentA.childA2", "user2")
    submit(enforcer, manager, 1 * 1024, "root.parentB.childB1", "user3")
    submit(enforcer, manager, 1 * 1024, "root.default", "user4")
    manager.update()


def test_testFairShareMultipleActiveQueuesUnderDifferentParent(alloc_file: Path) -> None:
    """parentA's 80% is split between its two active leaves, parentB's 10% goes to its only active one."""
    manager, enforcer = create_cluster(alloc_file, CAPACITY)
    _four_apps(manager, enforcer)
    for i in (1, 2):
        assert share(manager, f"root.parentA.childA{i}", CAPACITY) == pytest.approx(40, abs=0.9)
    assert share(manager, "root.parentB.childB1", CAPACITY) == pytest.approx(10, abs=0.9)
    verify_steady_fair_share_memory(manager, CAPACITY)


def test_testFairShareResetsToZeroWhenAppsComplete(alloc_file: Path) -> None:
    """A leaf whose last application finishes drops to 0; its sibling takes everything."""
    manager, enforcer = create_cluster(alloc_file, CAPACITY)
    app1 = submit(enforcer, manager, 2 * 1024, "root.parentA.childA1", "user1")
    submit(enforcer, manager, 3 * 1024, "root.parentA.childA2", "user2")
    manager.update()
    for i in (1, 2):
        assert share(manager, f"root.parentA.childA{i}", CAPACITY) == pytest.approx(50, abs=0.9)
    remove_app(enforcer, app1)
    manager.update()
    assert share(manager, "root.parentA.childA1", CAPACITY) == 0
    assert share(manager, "root.parentA.childA2", CAPACITY) == pytest.approx(100, abs=0.1)
    verify_steady_fair_share_memory(manager, CAPACITY)


def test_testFairShareWithDRFMultipleActiveQueuesUnderDifferentParent(alloc_file: Path) -> None:
    """Under drf memory and vcores are shared alike; steady shares too."""
    mem, vcores = 16 * 1024, 10
    manager, enforcer = create_cluster(alloc_file, mem, vcores, "drf")
    _four_apps(manager, enforcer)
    for i in (1, 2):
        queue = leaf(manager, f"root.parentA.childA{i}")
        assert queue.fair_share.memory_mb / mem * 100 == pytest.approx(40, abs=0.9)
        assert queue.fair_share.vcores / vcores * 100 == pytest.approx(40, abs=0.9)
    b1 = leaf(manager, "root.parentB.childB1")
    assert b1.fair_share.memory_mb / mem * 100 == pytest.approx(10, abs=0.9)
    assert b1.fair_share.vcores / vcores * 100 == pytest.approx(10, abs=0.9)
    for queue in manager.leaf_queues:
        if queue.name.startswith("root.parentA"):
            assert queue.steady_fair_share.memory_mb / mem == pytest.approx(0.2, abs=0.001)
            assert queue.steady_fair_share.vcores / vcores == pytest.approx(0.2, abs=0.001)
        elif queue.name.startswith("root.parentB"):
            assert queue.steady_fair_share.memory_mb / mem == pytest.approx(0.05, abs=0.001)
            assert queue.steady_fair_share.vcores / vcores == pytest.approx(0.1, abs=0.001)


# -- TestSchedulingPolicy: the policies of a tree ------------------------------------------------------------------
def _root(policy: str | None, *children: AllocationFileQueue) -> AllocationFileWriter:
    return AllocationFileWriter().add_queue(AllocationFileQueue("root", scheduling_policy=policy, sub_queues=children))


def test_testSchedulingPolicyViolation(alloc_file: Path) -> None:
    """A drf child of a fair parent is not created, nor a dynamic queue under it with drf by default; on a reload a
    forbidden policy is not set (the queue keeps its own)."""
    writer = _root(
        "fair",
        AllocationFileQueue("child1", scheduling_policy="drf"),
        AllocationFileQueue("child2", scheduling_policy="fair"),
    ).set("defaultQueueSchedulingPolicy", "drf")
    manager = start(writer.write_to_file(alloc_file))
    assert manager.get_queue("child1") is None
    assert manager.get_leaf_queue("dynamicQueue", True) is None
    writer = _root(
        "fair",
        AllocationFileQueue("child1", scheduling_policy="fair"),
        AllocationFileQueue("child2", scheduling_policy="drf"),
    ).set("defaultQueueSchedulingPolicy", "drf")
    manager.reload(load(writer.write_to_file(alloc_file)))
    assert manager.get_queue("child1") is not None
    child2 = manager.get_queue("child2")
    assert child2 is not None and isinstance(child2.policy, FairSharePolicy)


def test_testSchedulingPolicyViolationInTheMiddleLevel(alloc_file: Path) -> None:
    """A drf queue under a fair one is not created, nor anything below it."""
    level3 = AllocationFileQueue(
        "level3", scheduling_policy="drf", sub_queues=(AllocationFileQueue("leaf", scheduling_policy="fair"),)
    )
    writer = _root("fair", AllocationFileQueue("level2", scheduling_policy="fair", sub_queues=(level3,)))
    manager = start(writer.write_to_file(alloc_file))
    assert manager.get_queue("level2") is not None
    assert manager.get_queue("level2.level3") is None
    assert manager.get_queue("level2.level3.leaf") is None


def test_testFIFOPolicyOnlyForLeafQueues(alloc_file: Path) -> None:
    """fifo is refused for a parent queue and accepted for a leaf."""
    leaf_q = AllocationFileQueue("leaf", scheduling_policy="fair")
    writer = _root(None, AllocationFileQueue("intermediate", scheduling_policy="fifo", sub_queues=(leaf_q,)))
    manager = start(writer.write_to_file(alloc_file))
    assert manager.get_queue("intermediate") is None
    leaf_q = AllocationFileQueue("leaf", scheduling_policy="fifo")
    writer = _root(None, AllocationFileQueue("intermediate", scheduling_policy="fair", sub_queues=(leaf_q,)))
    manager.reload(load(writer.write_to_file(alloc_file)))
    assert manager.get_queue("intermediate") is not None
    assert manager.get_queue("intermediate.leaf") is not None


def test_testPolicyReinitialization(alloc_file: Path) -> None:
    """A reload with a forbidden policy changes no policy; a valid one sets them all."""
    fair = _root(
        "fair",
        AllocationFileQueue("child1", scheduling_policy="fair"),
        AllocationFileQueue("child2", scheduling_policy="fair"),
    )
    manager = start(fair.write_to_file(alloc_file))
    bad = _root(
        "fair",
        AllocationFileQueue("child1", scheduling_policy="drf"),
        AllocationFileQueue("child2", scheduling_policy="fifo"),
    )
    manager.reload(load(bad.write_to_file(alloc_file)))
    child1, child2 = manager.get_queue("child1"), manager.get_queue("child2")
    assert child1 is not None and isinstance(child1.policy, FairSharePolicy)
    assert child2 is not None and isinstance(child2.policy, FairSharePolicy)
    good = _root(
        "drf",
        AllocationFileQueue("child1", scheduling_policy="drf"),
        AllocationFileQueue("child2", scheduling_policy="fifo"),
    )
    manager.reload(load(good.write_to_file(alloc_file)))
    assert isinstance(child1.policy, DominantResourceFairnessPolicy)
    assert isinstance(child2.policy, FifoPolicy)
