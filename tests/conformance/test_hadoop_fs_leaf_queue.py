"""Hadoop's TestFSLeafQueue (testUpdateDemand, testCanRunAppAMReturnsTrue/False; ``test`` and
testConcurrentAccess need the scheduler), TestFSQueueMetrics (the FairScheduler's gauges, read from
``fs_queue_metrics``) and webapp/dao/TestFairSchedulerQueueInfo."""

from __future__ import annotations

from fair_queue_helpers import alloc_conf

from yarnball.policies.fair import (
    DEFAULT_POLICY,
    ConfigurableResource,
    FakeFSApp,
    QueueManager,
    fair_scheduler_info,
    fs_queue_metrics,
)
from yarnball.protocols import Resource

INT_MAX = 2**31 - 1
MAX_AM_SHARE = 0.5


def test_testUpdateDemand() -> None:
    """A leaf's demand is its applications' capped at the max share; its metrics show the defaults."""
    manager = QueueManager(alloc_conf())
    queue = manager.get_leaf_queue("root.queue1", True)
    assert queue is not None
    max_resource = Resource(1024 * 8, 0)
    queue.raw_max_share = ConfigurableResource(max_resource)
    metrics = fs_queue_metrics(queue)
    assert metrics.max_apps == INT_MAX
    assert metrics.scheduling_policy == DEFAULT_POLICY.name
    app = FakeFSApp(queue, demand=max_resource)
    queue.add_app(app, True)
    queue.add_app(app, True)
    queue.update_demand()
    assert queue.demand == max_resource


def _am_queue(am_resource: Resource) -> tuple[bool, Resource]:
    manager = QueueManager(alloc_conf())
    manager.set_cluster_resource(Resource(4096, 10, (("test1", 25),)))
    queue = manager.get_leaf_queue("root.queue1", True)
    assert queue is not None
    queue.raw_max_share = ConfigurableResource(Resource(1024 * 8, 4, (("test1", 10),)))
    queue.max_am_share = MAX_AM_SHARE
    result = queue.can_run_app_am(am_resource)
    return result, fs_queue_metrics(queue).max_am_share


def test_testCanRunAppAMReturnsTrue() -> None:
    """With no fair share the AM limit is min(available, max share) * maxAMShare, custom types included."""
    result, max_am_share = _am_queue(Resource(2048, 2, (("test1", 3),)))
    assert result
    assert max_am_share == Resource(2048, 2, (("test1", 5),))


def test_testCanRunAppAMReturnsFalse() -> None:
    """An AM over the limit in a custom type cannot run."""
    result, max_am_share = _am_queue(Resource(2048, 2, (("test1", 6),)))
    assert not result
    assert max_am_share == Resource(2048, 2, (("test1", 5),))


# -- TestFSQueueMetrics ------------------------------------------------------------------------------------------
def _metrics_queue() -> QueueManager:
    manager = QueueManager(alloc_conf())
    assert manager.get_leaf_queue("root.single", True) is not None
    return manager


def test_testSchedulingPolicy() -> None:
    """The SchedulingPolicy tag follows the queue's configured policy."""
    manager = _metrics_queue()
    assert fs_queue_metrics(manager.queues["root.single"]).scheduling_policy == "fair"


def test_testSetFairShare() -> None:
    """The fair share gauges, custom resources included, follow the queue's fair share."""
    manager = _metrics_queue()
    queue = manager.queues["root.single"]
    queue.fair_share = Resource(2048, 4, (("test1", 20),))
    assert fs_queue_metrics(queue).fair_share == Resource(2048, 4, (("test1", 20),))
    queue.fair_share = Resource(2049, 5)
    assert fs_queue_metrics(queue).fair_share == Resource(2049, 5)


def test_testSetSteadyFairShare() -> None:
    """The steady fair share gauges follow the queue's steady fair share."""
    manager = _metrics_queue()
    queue = manager.queues["root.single"]
    queue.steady_fair_share = Resource(2048, 4, (("test1", 20),))
    assert fs_queue_metrics(queue).steady_fair_share == Resource(2048, 4, (("test1", 20),))
    queue.steady_fair_share = Resource(2049, 5)
    assert fs_queue_metrics(queue).steady_fair_share == Resource(2049, 5)


def test_testSetMinShare() -> None:
    """The min share gauges follow the queue's min share."""
    manager = _metrics_queue()
    queue = manager.queues["root.single"]
    queue.min_share = Resource(2048, 4, (("test1", 20),))
    assert fs_queue_metrics(queue).min_share == Resource(2048, 4, (("test1", 20),))


def test_testSetMaxShare() -> None:
    """The max share gauges follow the queue's max share."""
    manager = _metrics_queue()
    queue = manager.queues["root.single"]
    queue.raw_max_share = ConfigurableResource(Resource(2048, 4, (("test1", 20),)))
    assert fs_queue_metrics(queue).max_share == Resource(2048, 4, (("test1", 20),))


# -- TestFairSchedulerQueueInfo ----------------------------------------------------------------------------------
def test_testEmptyChildQueues() -> None:
    """A leaf's queue info has no children (the field is omitted)."""
    manager = QueueManager(alloc_conf(), Resource(1, 1))
    assert manager.get_leaf_queue("test", True) is not None
    root = fair_scheduler_info(manager, Resource(1, 1))["rootQueue"]
    (test,) = root["childQueues"]["queue"]
    assert test["queueName"] == "root.test"
    assert "childQueues" not in test
