"""Hadoop's TestMaxRunningAppsEnforcer (every method): which applications run under the queues' and users'
maxRunningApps, and which become runnable when one is removed. Applications are FakeFSApps added as the
FairScheduler adds attempts (fair_queue_helpers.add_app)."""

from __future__ import annotations

from fair_queue_helpers import ControlledClock, add_app, alloc_conf, remove_app

from yarnball.policies.fair import FakeFSApp, MaxRunningAppsEnforcer, QueueManager, multi_list_start_time_iterator


def setup(user_max_apps: dict[str, int] | None = None) -> tuple[QueueManager, MaxRunningAppsEnforcer, ControlledClock]:
    clock = ControlledClock()
    manager = QueueManager(alloc_conf(user_max_apps=user_max_apps), clock=clock)
    return manager, MaxRunningAppsEnforcer(manager), clock


def test_testRemoveDoesNotEnableAnyApp() -> None:
    """A removal below a parent that was not at its limit makes nothing runnable in a sibling at its own limit."""
    manager, enforcer, _ = setup()
    leaf1 = manager.get_leaf_queue("root.queue1", True)
    leaf2 = manager.get_leaf_queue("root.queue2", True)
    assert leaf1 is not None and leaf2 is not None
    manager.root_queue.max_running_apps = 2
    leaf1.max_running_apps = 1
    leaf2.max_running_apps = 1
    app1 = add_app(enforcer, leaf1)
    add_app(enforcer, leaf2)
    add_app(enforcer, leaf2)
    assert (leaf1.num_runnable_apps, leaf2.num_runnable_apps, leaf2.num_non_runnable_apps) == (1, 1, 1)
    remove_app(enforcer, app1)
    assert (leaf1.num_runnable_apps, leaf2.num_runnable_apps, leaf2.num_non_runnable_apps) == (0, 1, 1)


def _cousins(manager: QueueManager) -> tuple:  # type: ignore[type-arg]
    leaf1 = manager.get_leaf_queue("root.queue1.subqueue1.leaf1", True)
    leaf2 = manager.get_leaf_queue("root.queue1.subqueue2.leaf2", True)
    queue1 = manager.get_parent_queue("root.queue1", True)
    assert leaf1 is not None and leaf2 is not None and queue1 is not None
    queue1.max_running_apps = 2
    return leaf1, leaf2


def test_testRemoveEnablesAppOnCousinQueue() -> None:
    """A removal under a parent at its limit makes an application of a cousin leaf runnable."""
    manager, enforcer, _ = setup()
    leaf1, leaf2 = _cousins(manager)
    app1 = add_app(enforcer, leaf1)
    add_app(enforcer, leaf2)
    add_app(enforcer, leaf2)
    assert (leaf1.num_runnable_apps, leaf2.num_runnable_apps, leaf2.num_non_runnable_apps) == (1, 1, 1)
    remove_app(enforcer, app1)
    assert (leaf1.num_runnable_apps, leaf2.num_runnable_apps, leaf2.num_non_runnable_apps) == (0, 2, 0)


def test_testRemoveEnablesOneByQueueOneByUser() -> None:
    """One removal frees a slot of the queue and one of the user: an application waiting on each becomes runnable."""
    manager, enforcer, _ = setup({"user1": 1})
    leaf1 = manager.get_leaf_queue("root.queue1.leaf1", True)
    leaf2 = manager.get_leaf_queue("root.queue1.leaf2", True)
    assert leaf1 is not None and leaf2 is not None
    leaf1.max_running_apps = 2
    app1 = add_app(enforcer, leaf1, "user1")
    add_app(enforcer, leaf1, "user2")
    add_app(enforcer, leaf1, "user3")
    add_app(enforcer, leaf2, "user1")
    assert (leaf1.num_runnable_apps, leaf1.num_non_runnable_apps, leaf2.num_non_runnable_apps) == (2, 1, 1)
    remove_app(enforcer, app1)
    assert (leaf1.num_runnable_apps, leaf2.num_runnable_apps) == (2, 1)
    assert (leaf1.num_non_runnable_apps, leaf2.num_non_runnable_apps) == (0, 0)


def test_testRemoveEnablingOrderedByStartTime() -> None:
    """The application that becomes runnable is the oldest waiting one, whichever leaf holds it."""
    manager, enforcer, clock = setup()
    leaf1, leaf2 = _cousins(manager)
    app1 = add_app(enforcer, leaf1)
    add_app(enforcer, leaf2)
    add_app(enforcer, leaf2)
    clock.tick_sec(20)
    add_app(enforcer, leaf1)
    assert (leaf1.num_runnable_apps, leaf2.num_runnable_apps) == (1, 1)
    assert (leaf1.num_non_runnable_apps, leaf2.num_non_runnable_apps) == (1, 1)
    remove_app(enforcer, app1)
    assert (leaf1.num_runnable_apps, leaf2.num_runnable_apps, leaf2.num_non_runnable_apps) == (0, 2, 0)


def test_testMultipleAppsWaitingOnCousinQueue() -> None:
    """One removal makes one waiting application runnable, not all of them."""
    manager, enforcer, _ = setup()
    leaf1, leaf2 = _cousins(manager)
    app1 = add_app(enforcer, leaf1)
    for _ in range(3):
        add_app(enforcer, leaf2)
    assert (leaf1.num_runnable_apps, leaf2.num_runnable_apps, leaf2.num_non_runnable_apps) == (1, 1, 2)
    remove_app(enforcer, app1)
    assert (leaf1.num_runnable_apps, leaf2.num_runnable_apps, leaf2.num_non_runnable_apps) == (0, 2, 1)


def test_testMultiListStartTimeIteratorEmptyAppLists() -> None:
    """Lists are merged by start time."""
    manager, _, _ = setup()
    leaf = manager.get_leaf_queue("root.q", True)
    assert leaf is not None
    lists = [[FakeFSApp(leaf, start_time=1)], [FakeFSApp(leaf, start_time=2)]]
    assert [app.start_time for app in multi_list_start_time_iterator(lists)] == [1, 2]
