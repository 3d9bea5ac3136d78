"""Hadoop's TestCSMaxRunningAppsEnforcer (every method): which attempts run under the queues' and users'
``max-parallel-apps``, and which become runnable when one is removed.

Hadoop's ``addApp`` is ``checkRunnabilityWithUpdate`` + ``trackApp`` + ``submitApplicationAttempt`` and its
``removeApp`` ``finishApplicationAttempt`` + ``untrackApp`` + ``updateRunnabilityOnAppRemoval``: exactly what the
scheduler's APP_ATTEMPT_ADDED and APP_ATTEMPT_REMOVED do, so the port sends those events (after APP_ADDED) to a
CapacityScheduler with the test's queues. ``setMaxParallelApps`` is an attribute write; the user limit is the
configuration key, as in Hadoop. The ``ControlledClock`` ticks between attempts are the attempts' creation order.
"""

from __future__ import annotations

from test_capacity_scheduler_helpers import CS, attempt_id, make_scheduler, submit

from yarnball.policies.capacity import CapacityScheduler, LeafQueue
from yarnball.policies.capacity._maxrunning import _by_start
from yarnball.policies.capacity._queues import CSQueue
from yarnball.protocols import AppAttemptRemovedSchedulerEvent

QUEUES: dict[str, dict[str, object]] = {
    "root.queue1": {"capacity": 50},
    "root.queue2": {"capacity": 50},
    "root.queue1.subqueue1": {"capacity": 50},
    "root.queue1.subqueue2": {"capacity": 50},
    "root.queue1.subqueue1.leaf1": {"capacity": 100},
    "root.queue1.subqueue2.leaf2": {"capacity": 100},
}


class Harness:
    """The test's scheduler, its two leaves, and ``addApp`` / ``removeApp``."""

    def __init__(self, **extra: object) -> None:
        self.cs: CapacityScheduler = make_scheduler(QUEUES, **extra)
        self.apps = 0
        self.leaf1 = self._leaf("root.queue1.subqueue1.leaf1")
        self.leaf2 = self._leaf("root.queue1.subqueue2.leaf2")

    def _leaf(self, path: str) -> LeafQueue:
        leaf = self.cs.get_queue(path)
        assert isinstance(leaf, LeafQueue)
        return leaf

    def queue(self, path: str) -> CSQueue:
        queue = self.cs.get_queue(path)
        assert queue is not None
        return queue

    def add_app(self, leaf: LeafQueue, user: str = "user") -> int:
        self.apps += 1
        submit(self.cs, self.apps, queue=leaf.path, user=user, am_mb=None)
        return self.apps

    def remove_app(self, n: int) -> None:
        self.cs.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt_id(n)))


def runnable(leaf: LeafQueue) -> int:
    return leaf.num_runnable_apps()


def waiting(leaf: LeafQueue) -> int:
    return len(leaf.non_runnable)


def test_testRemoveDoesNotEnableAnyApp() -> None:
    """A removal below a root that was not at its limit makes nothing runnable in a leaf at its own limit."""
    h = Harness()
    h.queue("root").max_parallel_apps = 2
    h.leaf1.max_parallel_apps = 1
    h.leaf2.max_parallel_apps = 1
    app1 = h.add_app(h.leaf1)
    h.add_app(h.leaf2)
    h.add_app(h.leaf2)
    assert (runnable(h.leaf1), runnable(h.leaf2), waiting(h.leaf2)) == (1, 1, 1)
    h.remove_app(app1)
    assert (runnable(h.leaf1), runnable(h.leaf2), waiting(h.leaf2)) == (0, 1, 1)


def test_testRemoveEnablesAppOnCousinQueue() -> None:
    """A removal under a parent at its limit makes an attempt of a cousin leaf runnable."""
    h = Harness()
    h.queue("root.queue1").max_parallel_apps = 2
    app1 = h.add_app(h.leaf1)
    h.add_app(h.leaf2)
    h.add_app(h.leaf2)
    assert (runnable(h.leaf1), runnable(h.leaf2), waiting(h.leaf2)) == (1, 1, 1)
    h.remove_app(app1)
    assert (runnable(h.leaf1), runnable(h.leaf2), waiting(h.leaf2)) == (0, 2, 0)


def test_testRemoveEnablesOneByQueueOneByUser() -> None:
    """One removal frees a slot of the queue and one of the user: an attempt waiting on each becomes runnable."""
    h = Harness(**{CS + "user.user1.max-parallel-apps": 1})
    h.leaf1.max_parallel_apps = 2
    app1 = h.add_app(h.leaf1, "user1")
    h.add_app(h.leaf1, "user2")
    h.add_app(h.leaf1, "user3")
    h.add_app(h.leaf2, "user1")
    assert (runnable(h.leaf1), waiting(h.leaf1), waiting(h.leaf2)) == (2, 1, 1)
    h.remove_app(app1)
    assert (runnable(h.leaf1), runnable(h.leaf2), waiting(h.leaf1), waiting(h.leaf2)) == (2, 1, 0, 0)


def test_testRemoveEnablingOrderedByStartTime() -> None:
    """Of two attempts waiting under the same parent, the older one becomes runnable."""
    h = Harness()
    h.queue("root.queue1").max_parallel_apps = 2
    app1 = h.add_app(h.leaf1)
    h.add_app(h.leaf2)
    h.add_app(h.leaf2)
    h.add_app(h.leaf1)  # after clock.tickSec(20): the youngest
    assert (runnable(h.leaf1), runnable(h.leaf2), waiting(h.leaf1), waiting(h.leaf2)) == (1, 1, 1, 1)
    h.remove_app(app1)
    assert (runnable(h.leaf1), runnable(h.leaf2), waiting(h.leaf2)) == (0, 2, 0)


def test_testMultipleAppsWaitingOnCousinQueue() -> None:
    """One removal makes one of several waiting attempts runnable."""
    h = Harness()
    h.queue("root.queue1").max_parallel_apps = 2
    app1 = h.add_app(h.leaf1)
    h.add_app(h.leaf2)
    h.add_app(h.leaf2)
    h.add_app(h.leaf2)
    assert (runnable(h.leaf1), runnable(h.leaf2), waiting(h.leaf2)) == (1, 1, 2)
    h.remove_app(app1)
    assert (runnable(h.leaf1), runnable(h.leaf2), waiting(h.leaf2)) == (0, 2, 1)


def test_testMultiListStartTimeIteratorEmptyAppLists() -> None:
    """Two one-attempt lists come out by start time."""
    h = Harness()
    h.queue("root.queue1").max_parallel_apps = 0
    first, second = h.add_app(h.leaf1), h.add_app(h.leaf2)
    a1, a2 = h.cs.attempts[attempt_id(first)], h.cs.attempts[attempt_id(second)]
    assert list(_by_start([[a2], [a1]])) == [a1, a2]
