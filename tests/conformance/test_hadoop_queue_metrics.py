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


def test_single_queue_with_one_user_available_mb_testSingleQueueWithOneUser():
    """TestLeafQueue.testSingleQueueWithOneUser (metrics): over its 8.5% guarantee availableMB is 0, then back to it."""
    cs = _leaf_queue_scheduler(**{"root.newroot.a": {"maximum-capacity": 100}})  # a.setMaxCapacity(1.0f)
    n0 = add_node(cs, 0, 8 * GB, 16)
    submit(cs, 0, "a", user="user_0", am_mb=None)
    submit(cs, 1, "a", user="user_0", am_mb=None)
    cs.allocate(attempt_id(0), [ask(1 * GB, 3)], [])
    cs.allocate(attempt_id(1), [ask(1 * GB, 2)], [])
    heartbeat(cs, n0)
    m = _metrics(cs, "root.newroot.a")
    assert (m.allocated.memory_mb, m.reserved.memory_mb, m.available.memory_mb) == (1 * GB, 0, 0)
    heartbeat(cs, n0)  # the 2nd: (.1 x 8 GB) < minimum allocation, one container more than the user limit
    assert _metrics(cs, "root.newroot.a").allocated.memory_mb == 2 * GB
    for n in (0, 1):  # release every container of app_0 and app_1
        live = [c.id for c in cs.allocate(attempt_id(n), [], []).containers]
        cs.allocate(attempt_id(n), [], live)
    m = _metrics(cs, "root.newroot.a")
    assert (m.allocated.memory_mb, m.reserved.memory_mb) == (0, 0)
    assert m.available.memory_mb == int(0.085 * 8 * GB)


def test_limits_computation_testLimitsComputation():
    """TestApplicationLimits.testLimitsComputation: AM limit and availableMB metrics before any application."""
    cs = make_scheduler(
        {
            "root.a": {"capacity": 10, "minimum-user-limit-percent": 50, "user-limit-factor": 5.0},
            "root.b": {"capacity": 90},
        }
    )
    for i in range(100):  # "Say cluster has 100 nodes of 16G each"
        add_node(cs, i, 16 * GB, 16)
    m = _metrics(cs, "root.a")
    assert m.am_limit.memory_mb == 160 * GB  # queue.getMetrics().getAMResourceLimitMB()
    assert m.available.memory_mb == int(100 * 16 * GB * 0.1)
    for i in range(100, 120):  # "Add some nodes to the cluster & test new limits"
        add_node(cs, i, 16 * GB, 16)
    m = _metrics(cs, "root.a")
    assert m.am_limit.memory_mb == 192 * GB
    assert m.available.memory_mb == int(120 * 16 * GB * 0.1)
