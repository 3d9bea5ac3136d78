"""Hadoop's TestQueueManager (every method) and TestFSParentQueue: the FairScheduler's queue tree built from the
allocation configuration, queues created on demand, leaf/parent conversions on a reload, dynamic queues removed
once empty.

Hadoop's setUp configures ``root.test`` (parent), ``root.test.childA`` (leaf) and ``root.test.childB`` (parent).
Its tests edit ``allocConf.configuredQueues`` in place; the AllocationConfiguration is immutable here, so each edit
is a new configuration (``alloc_conf``) given to ``update_allocation_configuration``.
"""

from __future__ import annotations

import pytest
from fair_queue_helpers import alloc_conf

from yarnball.errors import InvalidQueueNameException
from yarnball.policies.fair import ConfigurableResource, FSQueueType, QueueManager
from yarnball.policies.fair._configurableresource import unbounded
from yarnball.policies.fair._queuemanager import is_queue_name_valid
from yarnball.protocols import ApplicationId, Resource

SETUP_LEAVES = ("root.test.childA",)
SETUP_PARENTS = ("root.test", "root.test.childB")


@pytest.fixture
def manager() -> QueueManager:
    conf = alloc_conf(SETUP_LEAVES, SETUP_PARENTS)
    queue_manager = QueueManager(conf)
    queue_manager.update_allocation_configuration(conf)
    return queue_manager


def update_configured_leaf_queues(manager: QueueManager, *leaves: str) -> None:
    manager.update_allocation_configuration(alloc_conf(leaves))


def test_testReloadTurnsLeafQueueIntoParent(manager: QueueManager) -> None:
    """Empty queues change type on a reload; a queue holding an application keeps its type."""
    update_configured_leaf_queues(manager, "queue1")
    update_configured_leaf_queues(manager, "queue1.queue2")
    assert manager.get_leaf_queue("queue1", False) is None
    assert manager.get_leaf_queue("queue1.queue2", False) is not None
    update_configured_leaf_queues(manager, "queue1")
    assert manager.get_leaf_queue("queue1.queue2", False) is None
    q1 = manager.get_leaf_queue("queue1", False)
    assert q1 is not None
    app_id = ApplicationId(0, 0)
    q1.add_assigned_app(app_id)
    update_configured_leaf_queues(manager, "queue1.queue2")
    assert manager.get_leaf_queue("queue1.queue2", False) is None
    assert manager.get_leaf_queue("queue1", False) is not None
    q1.remove_assigned_app(app_id)
    update_configured_leaf_queues(manager, "queue1.queue2")
    q2 = manager.get_leaf_queue("queue1.queue2", False)
    assert q2 is not None
    q2.add_assigned_app(app_id)
    update_configured_leaf_queues(manager, "queue1")
    assert manager.get_leaf_queue("queue1.queue2", False) is not None
    assert manager.get_leaf_queue("queue1", False) is None
    # since YARN-7769 root.default is not created, so a queue may be created below it
    update_configured_leaf_queues(manager, "default.queue3")
    assert manager.get_leaf_queue("default.queue3", False) is not None
    assert manager.get_leaf_queue("default", False) is None


def test_testReloadTurnsLeafToParentWithNoLeaf(manager: QueueManager) -> None:
    """A leaf holding an application stays a leaf when configured as a parent, until it is empty."""
    manager.update_allocation_configuration(alloc_conf(["root.queue1"]))
    q1 = manager.get_leaf_queue("root.queue1", False)
    assert q1 is not None
    app_id = ApplicationId(0, 0)
    q1.add_assigned_app(app_id)
    as_parent = alloc_conf(parents=["root.queue1"])
    manager.update_allocation_configuration(as_parent)
    assert manager.get_leaf_queue("root.queue1", False) is not None
    assert manager.get_parent_queue("root.queue1", False) is None
    q1.remove_assigned_app(app_id)
    manager.update_allocation_configuration(as_parent)
    assert manager.get_leaf_queue("root.queue1", False) is None
    parent = manager.get_parent_queue("root.queue1", False)
    assert parent is not None and not parent.child_queues


def test_testCheckQueueNodeName() -> None:
    """Empty parts and parts with leading or trailing (Unicode) whitespace are invalid."""
    for bad in ("", "  ", " a", "a ", " a ", "\u00a0", "a\u00a0", "\u00a0a\u00a0"):
        assert not is_queue_name_valid(bad), repr(bad)
    assert is_queue_name_valid("a b") and is_queue_name_valid("a")


def test_testCreateLeafQueue(manager: QueueManager) -> None:
    """createQueue makes a leaf under root."""
    q1 = manager.create_queue("root.queue1", FSQueueType.LEAF)
    assert manager.get_leaf_queue("root.queue1", False) is not None
    assert q1 is not None and q1.name == "root.queue1"


def test_testCreateLeafQueueAndParent(manager: QueueManager) -> None:
    """createQueue makes the missing parent too."""
    q2 = manager.create_queue("root.queue1.queue2", FSQueueType.LEAF)
    assert manager.get_parent_queue("root.queue1", False) is not None
    assert manager.get_leaf_queue("root.queue1.queue2", False) is not None
    assert q2 is not None and q2.name == "root.queue1.queue2"


def test_testCreateQueueWithChildDefaults(manager: QueueManager) -> None:
    """A queue the configuration does not name takes its parent's max child resources; configured ones do not."""
    test = manager.get_queue("root.test")
    assert test is not None
    test.max_child_queue_resource = ConfigurableResource(Resource(8192, 256))
    q1 = manager.create_queue("root.test.childC", FSQueueType.LEAF)
    assert manager.get_leaf_queue("root.test.childC", False) is not None
    assert q1 is not None and q1.max_share == Resource(8192, 256)
    q2 = manager.create_queue("root.test.childD", FSQueueType.PARENT)
    assert manager.get_parent_queue("root.test.childD", False) is not None
    assert q2 is not None and q2.max_share == Resource(8192, 256)
    child_a = manager.get_leaf_queue("root.test.childA", False)
    child_b = manager.get_parent_queue("root.test.childB", False)
    assert child_a is not None and child_a.max_share == unbounded()
    assert child_b is not None and child_b.max_share == unbounded()


def test_testCreateLeafQueueWithDefaults(manager: QueueManager) -> None:
    """A new leaf's min share is none and its max share unbounded."""
    q1 = manager.create_queue("root.queue1", FSQueueType.LEAF)
    assert q1 is not None and q1.name == "root.queue1"
    assert q1.min_share == Resource(0, 0)
    assert q1.max_share == unbounded()


def test_testCreateParentQueue(manager: QueueManager) -> None:
    """createQueue makes a parent."""
    q1 = manager.create_queue("root.queue1", FSQueueType.PARENT)
    assert manager.get_parent_queue("root.queue1", False) is not None
    assert q1 is not None and q1.name == "root.queue1"


def test_testCreateParentQueueAndParent(manager: QueueManager) -> None:
    """createQueue makes a parent and its missing parent."""
    q2 = manager.create_queue("root.queue1.queue2", FSQueueType.PARENT)
    assert manager.get_parent_queue("root.queue1", False) is not None
    assert manager.get_parent_queue("root.queue1.queue2", False) is not None
    assert q2 is not None and q2.name == "root.queue1.queue2"


def _clean(manager: QueueManager) -> None:
    manager.remove_pending_incompatible_queues()
    manager.remove_empty_dynamic_queues()


def test_testRemovalOfDynamicLeafQueue(manager: QueueManager) -> None:
    """A dynamic leaf under static parents goes once empty; its parents stay."""
    q1 = manager.get_leaf_queue("root.test.childB.dynamic1", True)
    assert q1 is not None and q1.name == "root.test.childB.dynamic1" and q1.is_dynamic
    app_id = ApplicationId(0, 0)
    q1.add_assigned_app(app_id)
    _clean(manager)
    assert manager.get_leaf_queue("root.test.childB.dynamic1", False) is not None
    q1.remove_assigned_app(app_id)
    _clean(manager)
    assert manager.get_leaf_queue("root.test.childB.dynamic1", False) is None
    assert manager.get_parent_queue("root.test.childB", False) is not None


def test_testRemovalOfDynamicParentQueue(manager: QueueManager) -> None:
    """A dynamic parent and its dynamic child go in one cleanup."""
    q1 = manager.get_leaf_queue("root.parent1.dynamic1", True)
    assert q1 is not None and q1.is_dynamic
    p1 = manager.get_parent_queue("root.parent1", False)
    assert p1 is not None and p1.is_dynamic
    _clean(manager)
    assert manager.get_leaf_queue("root.parent1.dynamic1", False) is None
    assert manager.get_parent_queue("root.parent1", False) is None


def test_testNonEmptyDynamicQueueBecomingStaticQueue(manager: QueueManager) -> None:
    """A dynamic queue the configuration comes to name is static and stays once empty."""
    q1 = manager.get_leaf_queue("root.leaf1", True)
    assert q1 is not None and q1.is_dynamic
    app_id = ApplicationId(0, 0)
    q1.add_assigned_app(app_id)
    _clean(manager)
    assert manager.get_leaf_queue("root.leaf1", False) is not None
    manager.update_allocation_configuration(alloc_conf([*SETUP_LEAVES, "root.leaf1"], SETUP_PARENTS))
    assert not q1.is_dynamic
    q1.remove_assigned_app(app_id)
    _clean(manager)
    assert manager.get_leaf_queue("root.leaf1", False) is q1 and not q1.is_dynamic


def test_testNonEmptyStaticQueueBecomingDynamicQueue(manager: QueueManager) -> None:
    """Static queues dropped from the configuration become dynamic and go once empty, their parents too."""
    q1 = manager.get_leaf_queue("root.test.childA", False)
    assert q1 is not None and not q1.is_dynamic
    app_id = ApplicationId(0, 0)
    q1.add_assigned_app(app_id)
    _clean(manager)
    assert manager.get_leaf_queue("root.test.childA", False) is not None and not q1.is_dynamic
    manager.set_queues_to_dynamic([*SETUP_LEAVES, *SETUP_PARENTS])
    manager.update_allocation_configuration(alloc_conf())
    assert manager.get_leaf_queue("root.test.childA", False) is not None and q1.is_dynamic
    q1.remove_assigned_app(app_id)
    _clean(manager)
    assert manager.get_leaf_queue("root.test.childA", False) is None
    assert manager.get_parent_queue("root.test", False) is None


def test_testRemovalOfChildlessParentQueue(manager: QueueManager) -> None:
    """A static parent is kept; dropped from the configuration it goes."""
    q1 = manager.get_parent_queue("root.test.childB", False)
    assert q1 is not None and not q1.is_dynamic
    _clean(manager)
    assert manager.get_parent_queue("root.test.childB", False) is not None
    manager.update_allocation_configuration(alloc_conf(SETUP_LEAVES, ["root.test"]))
    manager.set_queues_to_dynamic(["root.test.childB"])
    _clean(manager)
    # (Hadoop looks up root.leaf1 here, which never existed; root.test.childB is the queue that must be gone)
    assert manager.get_parent_queue("root.leaf1", False) is None
    assert manager.get_parent_queue("root.test.childB", False) is None


def test_testQueueTypeChange(manager: QueueManager) -> None:
    """Queues named by the configuration become static; dropped and set dynamic they are dynamic again."""
    q1 = manager.get_leaf_queue("root.parent1.leaf1", True)
    p1 = manager.get_parent_queue("root.parent1", False)
    assert q1 is not None and q1.is_dynamic and p1 is not None and p1.is_dynamic
    manager.update_allocation_configuration(
        alloc_conf([*SETUP_LEAVES, "root.parent1.leaf1"], [*SETUP_PARENTS, "root.parent1"])
    )
    assert not q1.is_dynamic and not p1.is_dynamic
    manager.update_allocation_configuration(alloc_conf(SETUP_LEAVES, SETUP_PARENTS))
    manager.set_queues_to_dynamic(["root.parent1", "root.parent1.leaf1"])
    assert manager.get_leaf_queue("root.parent1.leaf1", False) is q1 and q1.is_dynamic
    assert manager.get_parent_queue("root.parent1", False) is p1 and p1.is_dynamic


def test_testApplicationAssignmentPreventsRemovalOfDynamicQueue(manager: QueueManager) -> None:
    """An assigned application, then its attempt, keep a dynamic queue; it goes once the attempt is removed."""
    from yarnball.policies.fair import FakeFSApp

    q = manager.get_leaf_queue("root.leaf1", True)
    assert q is not None and q.is_empty()
    application_id = ApplicationId(1, 0)
    q.add_assigned_app(application_id)
    assert not q.is_empty()
    _clean(manager)
    assert manager.get_leaf_queue("root.leaf1", False) is q and not q.is_empty()
    attempt = FakeFSApp(q, "a_user", application_id=application_id)
    q.add_app(attempt, True)
    assert q.num_assigned_apps == 0
    manager.remove_empty_dynamic_queues()
    assert manager.get_leaf_queue("root.leaf1", False) is q and not q.is_empty()
    q.remove_app(attempt)
    assert q.is_empty()
    _clean(manager)
    assert manager.get_leaf_queue("root.leaf1", False) is None


def test_testRemovalOfIncompatibleNonEmptyQueue(manager: QueueManager) -> None:
    """A non-empty leaf configured as a parent waits; once empty the cleanup makes it a parent, the next reload
    creates its configured child."""
    conf = alloc_conf([*SETUP_LEAVES, "root.a"], SETUP_PARENTS)
    manager.update_allocation_configuration(conf)
    q = manager.get_leaf_queue("root.a", True)
    assert q is not None and q.is_empty()
    app_id = ApplicationId(0, 0)
    q.add_assigned_app(app_id)
    _clean(manager)
    assert manager.get_leaf_queue("root.a", False) is q
    conf = alloc_conf([*SETUP_LEAVES, "root.a.b"], [*SETUP_PARENTS, "root.a"])
    manager.update_allocation_configuration(conf)
    assert manager.get_leaf_queue("root.a", False) is q and not q.is_empty()
    manager.remove_pending_incompatible_queues()
    assert manager.get_leaf_queue("root.a", False) is q
    q.remove_assigned_app(app_id)
    _clean(manager)
    assert manager.get_parent_queue("root.a", False) is not None
    manager.update_allocation_configuration(conf)
    assert manager.get_leaf_queue("root.a.b", False) is not None


def test_testRemoveDeepHierarchy(manager: QueueManager) -> None:
    """Emptied dynamic parents go up the whole chain in one cleanup."""
    q = manager.get_leaf_queue("root.p1.p2.p3.leaf", True)
    assert q is not None and q.is_empty()
    app_id = ApplicationId(0, 0)
    q.add_assigned_app(app_id)
    _clean(manager)
    assert manager.get_leaf_queue("root.p1.p2.p3.leaf", False) is q
    q.remove_assigned_app(app_id)
    manager.remove_empty_dynamic_queues()
    assert manager.get_leaf_queue("root.p1.p2.p3.leaf", False) is None
    assert manager.get_parent_queue("root.p1", False) is None


def test_testRemoveSplitHierarchy(manager: QueueManager) -> None:
    """The empty branch of a shared dynamic parent goes first, the rest once empty."""
    leaf1 = manager.get_leaf_queue("root.p1.p2-1.leaf-1", True)
    leaf2 = manager.get_leaf_queue("root.p1.p2-2.leaf-2", True)
    assert leaf1 is not None and leaf1.is_empty() and leaf2 is not None and leaf2.is_empty()
    app_id = ApplicationId(0, 0)
    leaf1.add_assigned_app(app_id)
    _clean(manager)
    assert manager.get_leaf_queue("root.p1.p2-1.leaf-1", False) is leaf1
    assert manager.get_leaf_queue("root.p1.p2-2.leaf-2", False) is None
    assert manager.get_parent_queue("root.p1.p2-2", False) is None
    leaf1.remove_assigned_app(app_id)
    manager.remove_empty_dynamic_queues()
    assert manager.get_leaf_queue("root.p1.p2-1.leaf-1", False) is None
    assert manager.get_parent_queue("root.p1", False) is None


# -- TestFSParentQueue -----------------------------------------------------------------------------------------------
def test_testConcurrentChangeToGetChildQueue(manager: QueueManager) -> None:
    """getChildQueues is a copy: a child created during a walk is not met by that walk."""
    manager.get_leaf_queue("parent.child", True)
    manager.get_leaf_queue("parent.child2", True)
    parent = manager.get_parent_queue("parent", False)
    assert parent is not None and len(parent.child_queues) == 2
    found = 0
    for i, _ in enumerate(parent.child_queues):
        if i == 0:
            manager.get_leaf_queue("parent.child3", True)
        found += 1
    assert found == 2
    assert len(parent.child_queues) == 3


# -- QueueManager.buildNewQueueList (no Hadoop test isolates it) -----------------------------------------------------
def test_illegal_node_name_names_the_offset_and_queue(manager: QueueManager) -> None:
    """``buildNewQueueList``: a part with trailing whitespace raises InvalidQueueNameException with Hadoop's text."""
    with pytest.raises(InvalidQueueNameException, match=r"^Illegal node name at offset 5 for queue name root.a \.b$"):
        manager.get_leaf_queue("root.a .b", True)
    assert manager.get_queue("root.a ") is None
