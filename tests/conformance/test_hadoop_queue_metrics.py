"""Queue metrics ported from Hadoop's TestLeafQueue and TestApplicationLimits (availableMB, AMResourceLimit).

Hadoop derives a queue's available resource in CSQueueUtils.updateQueueStatistics
(getMaxAvailableResourceToQueuePartition): guaranteed capacity minus usage, floored at zero. The AM resource limit is
computed by LeafQueue.activateApplications for every partition, with or without pending applications.
"""

from __future__ import annotations

from test_capacity_scheduler_helpers import GB, add_node, ask, attempt_id, heartbeat, make_scheduler, submit

from yarnball.protocols import keys as k

# TestLeafQueue.setupQueueConfiguration: root.<newRoot>.{a,b,c,d,e} (c is a parent of c1).
LEAF_QUEUES: dict[str, dict[str, object]] = {
    "root.newroot": {"capacity": 100, "maximum-capacity": 100},
    "root.newroot.a": {"capacity": 8.5, "maximum-capacity": 20},
    "root.newroot.b": {"capacity": 80, "maximum-capacity": 99},
    "root.newroot.c": {"capacity": 1.5, "maximum-capacity": 10},
    "root.newroot.c.c1": {"capacity": 100},
    "root.newroot.d": {"capacity": 9, "maximum-capacity": 11},
    "root.newroot.e": {"capacity": 1, "maximum-capacity": 1},
}


def _leaf_queue_scheduler(**overrides: dict[str, object]):
    queues = {path: dict(settings) for path, settings in LEAF_QUEUES.items()}
    for path, settings in overrides.items():
        queues[path].update(settings)
    # One assignment per node heartbeat, as each LeafQueue.assignContainers call of the Hadoop test.
    return make_scheduler(queues, **{k.ASSIGN_MULTIPLE_ENABLED: "false"})


def _metrics(cs, path: str):
    return next(m for m in cs.queue_metrics() if m.path == path)


def test_single_queue_one_user_metrics_testSingleQueueOneUserMetrics():
    """TestLeafQueue.testSingleQueueOneUserMetrics: availableMB = (int)(8 GB x 0.8) - 1 GB after one container."""
    cs = _leaf_queue_scheduler()
    n0 = add_node(cs, 0, 8 * GB, 16)
    submit(cs, 0, "b", user="user_0", am_mb=None)
    submit(cs, 1, "b", user="user_0", am_mb=None)
    cs.allocate(attempt_id(0), [ask(1 * GB, 3)], [])
    assert len(heartbeat(cs, n0)) == 1  # "Only 1 container"
    assert _metrics(cs, "root.newroot.b").available.memory_mb == int(8 * GB * 0.8) - 1 * GB


# testSingleQueueWithOneUser (all its assertions, metrics included) is in test_hadoop_leaf_queue_users.py and
# testLimitsComputation in test_hadoop_application_limits.py.
