"""Queue refresh (``CapacityScheduler.reinitialize``) ported from Hadoop's TestCapacitySchedulerQueues.

Each Hadoop test builds the queue tree of ``CapacitySchedulerQueueHelpers.setupQueueConfiguration`` (root.a 10.5%
with a1/a2, root.b 89.5% with b1/b2/b3), then reinitializes the scheduler with changed configurations. The
configurations are data here (``QUEUES`` and its variants); the assertions are Hadoop's. Where Hadoop stubs a queue's
state with a Mockito spy (``DRAINING`` then ``STOPPED``), the port gets the same states for real: the queue is
configured STOPPED while it holds an application (DRAINING), then the application finishes (STOPPED).
"""

from __future__ import annotations

import pytest
from test_capacity_scheduler_helpers import GB, add_node, app_id, make_conf, make_scheduler, submit

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import AppRejected, LeafQueue, ParentQueue, QueueState
from yarnball.policies.capacity._queues import f32
from yarnball.protocols import AppRemovedSchedulerEvent
from yarnball.protocols import keys as k

A_CAPACITY, B_CAPACITY = 10.5, 89.5
A1_CAPACITY, A2_CAPACITY = 30.0, 70.0
B1_CAPACITY, B2_CAPACITY, B3_CAPACITY = 79.2, 0.8, 20.0
ULF = {"user-limit-factor": 100}

# CapacitySchedulerQueueHelpers.setupQueueConfiguration
QUEUES: dict[str, dict[str, object]] = {
    "root.a": {"capacity": A_CAPACITY},
    "root.b": {"capacity": B_CAPACITY},
    "root.a.a1": {"capacity": A1_CAPACITY, **ULF},
    "root.a.a2": {"capacity": A2_CAPACITY, **ULF},
    "root.b.b1": {"capacity": B1_CAPACITY, **ULF},
    "root.b.b2": {"capacity": B2_CAPACITY, **ULF},
    "root.b.b3": {"capacity": B3_CAPACITY, **ULF},
}


def variant(drop: tuple[str, ...] = (), **changes: dict[str, object]) -> dict[str, dict[str, object]]:
    """QUEUES without the paths in ``drop`` (and their children), with ``changes`` merged in (new paths added)."""
    out = {p: dict(s) for p, s in QUEUES.items() if not any(p == d or p.startswith(d + ".") for d in drop)}
    for path, settings in changes.items():
        out.setdefault(path.replace("__", "."), {}).update(settings)
    return out


# setupQueueConfigurationWithoutB1 / WithoutB / WithoutChildrenOfB / WithB1AsParentQueue
WITHOUT_B1 = variant(("root.b.b1",), root__b__b2={"capacity": B2_CAPACITY + B1_CAPACITY})
WITHOUT_B = variant(("root.b",), root__a={"capacity": A_CAPACITY + B_CAPACITY})
WITHOUT_CHILDREN_OF_B = variant(("root.b.b1", "root.b.b2", "root.b.b3"))
B1_AS_PARENT = variant(root__b__b1__b11={"capacity": 100, **ULF})


def reinit(cs, queues: dict[str, dict[str, object]], **extra: object) -> None:
    cs.reinitialize(make_conf(queues, **extra))


def default_capacities(cap_a: float, cap_b: float) -> dict[str, tuple[float, float]]:
    """getDefaultCapacities: path -> (capacity, absolute capacity)."""
    return {
        "root.a": (cap_a, cap_a),
        "root.b": (cap_b, cap_b),
        "root.a.a1": (A1_CAPACITY / 100, A1_CAPACITY / 100 * cap_a),
        "root.a.a2": (A2_CAPACITY / 100, A2_CAPACITY / 100 * cap_a),
        "root.b.b1": (B1_CAPACITY / 100, B1_CAPACITY / 100 * cap_b),
        "root.b.b2": (B2_CAPACITY / 100, B2_CAPACITY / 100 * cap_b),
        "root.b.b3": (B3_CAPACITY / 100, B3_CAPACITY / 100 * cap_b),
    }


DEFAULT_CAPACITIES = default_capacities(f32(A_CAPACITY / 100), f32(B_CAPACITY / 100))


def find_queue(cs, path: str):
    """CapacitySchedulerQueueHelpers.findQueue: walk the tree from root (not the scheduler's index)."""
    stack = [cs.root]
    while stack:
        q = stack.pop()
        if q.path == path:
            return q
        stack.extend(c for c in q.children if path.startswith(c.path))
    return None


def check_queue_structure_capacities(cs, expected: dict[str, tuple[float, float]]) -> None:
    """checkQueueStructureCapacities / assertQueueCapacities (epsilon 1e-5)."""
    for path, (cap, abs_cap) in expected.items():
        q = find_queue(cs, path)
        assert q is not None, path
        assert q.capacity == pytest.approx(cap, abs=1e-5), f"capacity {path}"
        assert q.abs_cap == pytest.approx(abs_cap, abs=1e-5), f"absolute capacity {path}"
        assert q.max_capacity == pytest.approx(1.0, abs=1e-5), f"maximum capacity {path}"
        assert q.abs_max == pytest.approx(1.0, abs=1e-5), f"absolute maximum capacity {path}"


def started(queues: dict[str, dict[str, object]] = QUEUES, **extra: object):
    """``cs.init`` + ``reinitialize`` + ``checkQueueStructureCapacities(cs)``, as each Hadoop test starts."""
    cs = make_scheduler(queues, **extra)
    check_queue_structure_capacities(cs, DEFAULT_CAPACITIES)
    return cs


def finish(cs, n: int) -> None:
    cs.handle(AppRemovedSchedulerEvent(application_id=app_id(n), final_state="FINISHED"))


def test_refresh_queues_testRefreshQueues():
    cs = started()
    reinit(cs, variant(root__a={"capacity": 80}, root__b={"capacity": 20}))
    check_queue_structure_capacities(cs, default_capacities(0.8, 0.2))


def test_refresh_queues_with_new_queue_testRefreshQueuesWithNewQueue():
    cs = started()
    b4_capacity = 10.0
    queues = variant(
        root__a={"capacity": 80},
        root__b={"capacity": 20},
        root__b__b3={"capacity": B3_CAPACITY - b4_capacity},
        root__b__b4={"capacity": b4_capacity},
    )
    reinit(cs, queues)
    expected = default_capacities(0.8, 0.2)
    expected["root.b.b3"] = ((B3_CAPACITY - b4_capacity) / 100, (B3_CAPACITY - b4_capacity) / 100 * 0.2)
    expected["root.b.b4"] = (b4_capacity / 100, b4_capacity / 100 * 0.2)
    check_queue_structure_capacities(cs, expected)
    b = find_queue(cs, "root.b")
    assert find_queue(cs, "root.b.b4").parent is b  # "Verify parent for B4"


def test_refresh_queues_max_allocation_refresh_testRefreshQueuesMaxAllocationRefresh():
    cs = started()
    assert cs.maximum_allocation().memory_mb == k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB  # "max allocation in CS"
    a1 = find_queue(cs, "root.a.a1")
    assert a1.max_alloc_m == 8192  # "queue max allocation"
    with pytest.raises(ConfigurationError) as err:
        reinit(cs, variant(root__a__a1={"maximum-allocation-mb": 4096}))
    assert "not be decreased" in str(err.value)
    reinit(cs, variant(root__a__a1={"maximum-allocation-mb": 8192}))
    with pytest.raises(ConfigurationError) as err:
        reinit(
            cs, variant(root__a__a1={"maximum-allocation-vcores": k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES - 1})
        )
    assert "not be decreased" in str(err.value)


def test_refresh_queues_max_allocation_per_queue_large_testRefreshQueuesMaxAllocationPerQueueLarge():
    cs = started()
    with pytest.raises(ConfigurationError) as err:
        reinit(cs, variant(root__b__b3={"maximum-allocation-mb": k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB + 2048}))
    assert "maximum allocation" in str(err.value)
    reinit(cs, variant(root__b__b3={"maximum-allocation-mb": k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB}))
    with pytest.raises(ConfigurationError) as err:
        reinit(
            cs, variant(root__b__b3={"maximum-allocation-vcores": k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES + 1})
        )
    assert "maximum allocation" in str(err.value)


def test_refresh_queues_max_allocation_refresh_larger_testRefreshQueuesMaxAllocationRefreshLarger():
    cs = started(variant(root__a__a1={"maximum-allocation-mb": 4096, "maximum-allocation-vcores": 2}))
    a1 = find_queue(cs, "root.a.a1")
    assert (cs.maximum_allocation().memory_mb, cs.maximum_allocation().vcores) == (
        k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB,
        k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES,
    )
    assert (a1.max_alloc_m, a1.max_alloc_v) == (4096, 2)
    reinit(cs, variant(root__a__a1={"maximum-allocation-mb": 6144, "maximum-allocation-vcores": 3}))
    assert (a1.max_alloc_m, a1.max_alloc_v) == (6144, 3)  # the same queue object took the new maximum
    assert (cs.maximum_allocation().memory_mb, cs.maximum_allocation().vcores) == (
        k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB,
        k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES,
    )


def _with_cluster_max(mb: int, vcores: int) -> dict[str, object]:
    return {k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: mb, k.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES: vcores}


A1_4096_4 = variant(root__a__a1={"maximum-allocation-mb": 4096, "maximum-allocation-vcores": 4})


def test_refresh_queues_max_allocation_cs_error_testRefreshQueuesMaxAllocationCSError():
    cs = started(A1_4096_4, **_with_cluster_max(10240, 10))
    assert (cs.maximum_allocation().memory_mb, cs.maximum_allocation().vcores) == (10240, 10)
    with pytest.raises(ConfigurationError) as err:
        reinit(cs, A1_4096_4, **_with_cluster_max(6144, 10))
    assert "not be decreased" in str(err.value)
    reinit(cs, A1_4096_4, **_with_cluster_max(10240, 10))
    with pytest.raises(ConfigurationError) as err:
        reinit(cs, A1_4096_4, **_with_cluster_max(10240, 8))
    assert "not be decreased" in str(err.value)


def test_refresh_queues_max_allocation_cs_larger_testRefreshQueuesMaxAllocationCSLarger():
    cs = started(A1_4096_4, **_with_cluster_max(10240, 10))
    a1, a2, b2 = (find_queue(cs, p) for p in ("root.a.a1", "root.a.a2", "root.b.b2"))
    assert (cs.maximum_allocation().memory_mb, cs.maximum_allocation().vcores) == (10240, 10)
    assert [(q.max_alloc_m, q.max_alloc_v) for q in (a1, a2, b2)] == [(4096, 4), (10240, 10), (10240, 10)]
    reinit(cs, A1_4096_4, **_with_cluster_max(12288, 12))
    assert (cs.maximum_allocation().memory_mb, cs.maximum_allocation().vcores) == (12288, 12)
    assert [(q.max_alloc_m, q.max_alloc_v) for q in (a1, a2, b2)] == [(4096, 4), (12288, 12), (12288, 12)]


def test_refresh_queues_with_queue_delete_testRefreshQueuesWithQueueDelete():
    cs = started()
    add_node(cs, 0, 16 * GB, 16)
    # b1 holds an application and is stopped: DRAINING (Hadoop's spy returns DRAINING first).
    submit(cs, 1, "b1")
    reinit(cs, variant(root__b__b1={"state": "STOPPED"}))
    assert find_queue(cs, "root.b.b1").state == QueueState.DRAINING
    with pytest.raises(ConfigurationError) as err:  # "delete a queue with running apps"
        reinit(cs, WITHOUT_B1)
    assert str(err.value) == (
        "Failed to re-init queues : root.b.b1 cannot be deleted from the capacity scheduler configuration, as the "
        "queue is not yet in stopped state. Current State : DRAINING"
    )
    assert find_queue(cs, "root.b.b1") is not None  # refused: the old queues stay
    finish(cs, 1)
    assert find_queue(cs, "root.b.b1").state == QueueState.STOPPED  # then STOPPED
    reinit(cs, WITHOUT_B1)  # "delete a queue WITHOUT running apps"
    assert find_queue(cs, "root.b.b1") is None  # "Refresh needs to support delete of leaf queue"

    reinit(cs, QUEUES)
    check_queue_structure_capacities(cs, DEFAULT_CAPACITIES)
    # Parent b with an application in b1, every queue under b stopped: b is DRAINING.
    submit(cs, 2, "b1")
    reinit(cs, variant(root__b={"state": "STOPPED"}))
    assert find_queue(cs, "root.b").state == QueueState.DRAINING
    with pytest.raises(ConfigurationError):  # "delete a parent queue with running apps in children queue"
        reinit(cs, WITHOUT_B)
    finish(cs, 2)
    reinit(cs, WITHOUT_B)  # "delete a queue without running apps"
    message = "Refresh needs to support delete of Parent queue and its children."
    assert find_queue(cs, "root.b") is None, message
    for name in ("b", "b1", "b2"):
        assert cs.get_queue(name) is None, message


def test_refresh_queues_with_all_child_queues_deleted_testRefreshQueuesWithAllChildQueuesDeleted():
    cs = started()
    # b1 RUNNING (b2 and b3 STOPPED): turning b into a leaf must fail.
    reinit(cs, variant(root__b__b2={"state": "STOPPED"}, root__b__b3={"state": "STOPPED"}))
    with pytest.raises(ConfigurationError):
        reinit(cs, WITHOUT_CHILDREN_OF_B)
    # then b1 STOPPED too
    reinit(cs, variant(**{f"root__b__b{i}": {"state": "STOPPED"} for i in (1, 2, 3)}))
    reinit(cs, WITHOUT_CHILDREN_OF_B)
    b = find_queue(cs, "root.b")
    assert b is not None, "Parent Queue B should not be deleted"
    assert isinstance(b, LeafQueue), "As Queue'B children are not deleted"
    message = "Refresh needs to support delete of all children of Parent queue."
    for name in ("b3", "b1", "b2"):
        assert cs.get_queue(name) is None, message


def test_convert_leaf_queue_to_parent_queue_testConvertLeafQueueToParentQueue():
    cs = started()
    b1 = cs.get_queue("b1")
    assert b1.state == QueueState.RUNNING
    with pytest.raises(ConfigurationError) as err:
        reinit(cs, B1_AS_PARENT)
    assert str(err.value) == (
        "Failed to re-init queues : Can not convert the leaf queue: root.b.b1 to parent queue since it is not yet "
        "in stopped state. Current State : RUNNING"
    )
    reinit(cs, variant(root__b__b1={"state": "STOPPED"}))
    assert b1.state == QueueState.STOPPED
    reinit(cs, B1_AS_PARENT)
    b1 = cs.get_queue("b1")
    assert isinstance(b1, ParentQueue)
    assert b1.state == QueueState.RUNNING
    assert b1.children


def test_parse_queue_testParseQueue():
    """TestCapacitySchedulerQueues.testParseQueue: a reinitialize giving the RUNNING leaf a1 a child b1 throws
    (Hadoop 3.x: the leaf-to-parent conversion check; the duplicate short name b1 alone is allowed)."""
    cs = started()
    with pytest.raises(ConfigurationError):
        reinit(cs, variant(root__a__a1__b1={"capacity": 100, "user-limit-factor": 100}))
    assert isinstance(cs.get_queue("root.a.a1"), LeafQueue)  # the old queues stay


def test_stopped_queue_drains_and_refuses_new_applications_stopQueue():
    """AbstractCSQueue.stopQueue / appFinished and LeafQueue.validateSubmitApplication: a queue stopped by a
    refresh keeps its running application (DRAINING), refuses new ones, and is STOPPED once drained."""
    cs = started()
    add_node(cs, 0, 16 * GB, 16)
    submit(cs, 1, "a1")
    reinit(cs, variant(root__a__a1={"state": "STOPPED"}))
    a1 = cs.get_queue("a1")
    assert a1.state == QueueState.DRAINING
    assert len(a1.active) + len(a1.pending) == 1  # the running application stays
    out = submit(cs, 2, "a1")
    assert [n.diagnostics for n in out if isinstance(n, AppRejected)] == [
        "org.apache.hadoop.security.AccessControlException: Queue root.a.a1 is STOPPED. Cannot accept submission "
        f"of application: {app_id(2)}"
    ]
    finish(cs, 1)
    assert a1.state == QueueState.STOPPED
    reinit(cs, QUEUES)  # running again
    assert a1.state == QueueState.RUNNING


def test_refresh_activates_pending_applications_activateApplications():
    """CapacitySchedulerQueueManager.reinitializeQueues ends with root.updateClusterResource, which activates
    applications that now fit the (raised) AM limit (LeafQueue.activateApplications)."""
    tight = variant(root__a__a1={"maximum-am-resource-percent": 0.01})
    cs = started(tight)
    add_node(cs, 0, 64 * GB, 64)
    for n in (1, 2, 3):
        submit(cs, n, "a1")
    a1 = cs.get_queue("a1")
    assert (len(a1.active), len(a1.pending)) == (1, 2)
    reinit(cs, variant(root__a__a1={"maximum-am-resource-percent": 0.05}))
    assert (len(a1.active), len(a1.pending)) == (3, 0)
