"""Hadoop's TestParentQueue (trunk, legacy queue mode): the methods that do not stub queue allocations.

The queue trees of ``setupSingleLevelQueues``, ``setupMultiLevelQueues`` and
``setupSingleLevelQueuesWithAbsoluteResource`` are data here. Hadoop builds them with
``CapacitySchedulerQueueManager.parseQueue`` over a mocked scheduler context and sets the cluster resource with
``root.updateClusterResource``; yarnball builds a ``CapacityScheduler`` and gives it the same cluster resource
through NodeManagers (added, removed, resized). ``parseQueue`` refusing a tree is the scheduler constructor raising
``ConfigurationError``.
"""

from __future__ import annotations

import pytest
from test_capacity_scheduler_helpers import GB, add_node, make_conf, make_scheduler, node

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import CapacityScheduler, LeafQueue, QueueACL
from yarnball.policies.capacity._queues import f32
from yarnball.protocols import NodeRemovedSchedulerEvent, NodeResourceUpdateSchedulerEvent, Resource

DELTA = 0.0001
QUEUE_A_RESOURCE = Resource(6 * GB, 10)
QUEUE_B_RESOURCE = Resource(14 * GB, 22)

SINGLE_LEVEL: dict[str, dict[str, object]] = {"root.a": {"capacity": 30}, "root.b": {"capacity": 70}}


def multi_level(**changes: float) -> dict[str, dict[str, object]]:
    """setupMultiLevelQueues, with ``changes`` (``b__b1=0``) applied to the capacities."""
    queues: dict[str, dict[str, object]] = {
        "root.a": {"capacity": 10},
        "root.b": {"capacity": 50},
        "root.c": {"capacity": 19.5},
        "root.d": {"capacity": 20.5},
        "root.a.a1": {"capacity": 50},
        "root.a.a2": {"capacity": 50},
        "root.b.b1": {"capacity": 10},
        "root.b.b2": {"capacity": 20},
        "root.b.b3": {"capacity": 70},
        "root.c.c1": {"capacity": 100},
        "root.c.c1.c11": {"capacity": 100},
        "root.c.c1.c11.c111": {"capacity": 100},
        "root.c.c1.c11.c111.c1111": {"capacity": 100},
    }
    for path, cap in changes.items():
        queues["root." + path.replace("__", ".")]["capacity"] = cap
    return queues


def parse(queues: dict[str, dict[str, object]], **extra: object) -> CapacityScheduler:
    return make_scheduler(queues, **extra)


def test_single_level_queues_precision_testSingleLevelQueuesPrecision():
    """Children summing to 100.5 % fail; 100 % and 100.005 % (within the 0.05 % precision) load."""
    with pytest.raises(ConfigurationError, match=r"Illegal capacity of 1\.005 for children of queue root"):
        parse({"root.a": {"capacity": 30}, "root.b": {"capacity": 70.5}})
    parse({"root.a": {"capacity": 30}, "root.b": {"capacity": 70}})
    parse({"root.a": {"capacity": 30}, "root.b": {"capacity": 70.005}})


def test_queue_capacity_setting_child_zero_testQueueCapacitySettingChildZero():
    with pytest.raises(ConfigurationError, match="for children of queue b"):
        parse(multi_level(b__b1=0, b__b2=0, b__b3=0))


def test_queue_capacity_setting_parent_zero_testQueueCapacitySettingParentZero():
    with pytest.raises(ConfigurationError, match="for children of queue b"):
        parse(multi_level(b=0, a=60))


def test_parent_zero_children_100_zero_sum_allowed_testQueueCapacitySettingParentZeroChildren100pctZeroSumAllowed():
    """A 0 % parent whose children sum to 100 % loads when it allows a zero sum (refused before issue 19)."""
    parse(multi_level(b=0, a=60), **{"yarn.scheduler.capacity.root.b.allow-zero-capacity-sum": "true"})


def test_parent_zero_children_50_zero_sum_allowed_testQueueCapacitySettingParentZeroChildren50pctZeroSumAllowed():
    with pytest.raises(ConfigurationError, match="for children of queue b"):
        parse(
            multi_level(b=0, a=100, b__b1=10, b__b2=20, b__b3=20),
            **{"yarn.scheduler.capacity.root.b.allow-zero-capacity-sum": "true"},
        )


def test_parent_non_zero_children_zero_sum_allowed_testQueueCapacitySettingParentNonZeroChildrenZeroSumAllowed():
    parse(
        multi_level(b=10, a=50, b__b1=0, b__b2=0, b__b3=0),
        **{"yarn.scheduler.capacity.root.b.allow-zero-capacity-sum": "true"},
    )


def test_queue_capacity_zero_testQueueCapacityZero():
    """A 0 % parent with 0 % children loads."""
    parse(multi_level(b=0, b__b1=0, b__b2=0, b__b3=0, a=60))


def has_queue_acl(infos: list[tuple[str, list[QueueACL]]], acl: QueueACL, path: str) -> bool:
    return any(p == path and acl in acls for p, acls in infos)


def test_queue_acl_testQueueAcl():
    """ACLs are inherited down the tree (getQueueUserAclInfo and hasAccess)."""
    acls = {
        "yarn.scheduler.capacity.root.acl_submit_applications": " ",
        "yarn.scheduler.capacity.root.acl_administer_queue": " ",
        "yarn.scheduler.capacity.root.c.acl_administer_queue": "*",
        "yarn.scheduler.capacity.root.c.c1.c11.acl_submit_applications": "*",
    }
    cs = parse(multi_level(), **acls)
    user = "someone"
    root = cs.root
    infos = root.queue_user_acl_info(user)
    sa, qa = QueueACL.SUBMIT_APPLICATIONS, QueueACL.ADMINISTER_QUEUE
    assert not root.has_access(qa, user)
    assert not has_queue_acl(infos, qa, "root")
    assert not root.has_access(sa, user)
    assert not has_queue_acl(infos, sa, "root")
    expected = {  # path: (administer, submit)
        "root.c": (True, False),
        "root.c.c1": (True, False),
        "root.c.c1.c11": (True, True),
        "root.c.c1.c11.c111": (True, True),
    }
    for path, (admin, submit) in expected.items():
        q = cs.get_queue(path)
        assert q.has_access(qa, user) is admin
        assert has_queue_acl(infos, qa, path) is admin
        assert q.has_access(sa, user) is submit
        assert has_queue_acl(infos, sa, path) is submit


ABSOLUTE: dict[str, dict[str, object]] = {
    "root.a": {"capacity": f"[memory={QUEUE_A_RESOURCE.memory_mb},vcores={QUEUE_A_RESOURCE.vcores}]"},
    "root.b": {"capacity": f"[memory={QUEUE_B_RESOURCE.memory_mb},vcores={QUEUE_B_RESOURCE.vcores}]"},
}


def quotas(cs: CapacityScheduler, path: str) -> tuple[Resource, Resource]:
    q = cs.get_queue(path)
    return q.configured_min_resource, q.effective_min_resource


def test_absolute_resource_with_change_in_cluster_resource_testAbsoluteResourceWithChangeInClusterResource():
    cs = parse(ABSOLUTE)
    for i in range(2):
        add_node(cs, i, 10 * GB, 16)
    assert quotas(cs, "root.a") == (QUEUE_A_RESOURCE, QUEUE_A_RESOURCE)
    assert quotas(cs, "root.b") == (QUEUE_B_RESOURCE, QUEUE_B_RESOURCE)
    cs.handle(NodeRemovedSchedulerEvent(node_id=node(1)))  # one node: 10 GB, 16 vcores
    assert quotas(cs, "root.a") == (QUEUE_A_RESOURCE, Resource(3 * GB, 5))
    assert quotas(cs, "root.b") == (QUEUE_B_RESOURCE, Resource(7 * GB, 11))
    cs.handle(NodeResourceUpdateSchedulerEvent(node_id=node(0), total_resource=Resource(10 * GB, 40)))
    # Legacy mode: the default calculator's lessThan compares memory only, so the vcores ratio (40/32) scales up.
    assert quotas(cs, "root.a") == (QUEUE_A_RESOURCE, Resource(3 * GB, 12))
    assert quotas(cs, "root.b") == (QUEUE_B_RESOURCE, Resource(7 * GB, 27))


def test_derive_capacity_from_absolute_configurations_testDeriveCapacityFromAbsoluteConfigurations():
    """Capacities and maxApplications derived from the absolute resources, then global-queue-max-application, then
    per-queue maximum-applications, then the per-user limits (set by refreshes here; Hadoop calls the UsersManager
    setters, then root.updateClusterResource)."""
    cs = parse(ABSOLUTE)
    for i in range(2):
        add_node(cs, i, (QUEUE_A_RESOURCE.memory_mb + QUEUE_B_RESOURCE.memory_mb) // 2,
                 (QUEUE_A_RESOURCE.vcores + QUEUE_B_RESOURCE.vcores) // 2)  # fmt: skip
    cluster_mb = cs.cluster_resource.memory_mb
    a, b = cs.get_queue("root.a"), cs.get_queue("root.b")
    assert isinstance(a, LeafQueue) and isinstance(b, LeafQueue)
    scale = {a: QUEUE_A_RESOURCE.memory_mb / cluster_mb, b: QUEUE_B_RESOURCE.memory_mb / cluster_mb}
    for q in (a, b):
        assert q.capacity == pytest.approx(scale[q], abs=DELTA)
        assert q.max_capacity == pytest.approx(1.0, abs=DELTA)
        assert q.abs_cap == pytest.approx(scale[q], abs=DELTA)
        assert q.abs_max == pytest.approx(1.0, abs=DELTA)
        assert q.max_apps == int(10000 * scale[q])
        assert q.max_apps_per_user == q.max_apps
    cs.reinitialize(make_conf(ABSOLUTE, **{"yarn.scheduler.capacity.global-queue-max-application": 8000}))
    for q in (a, b):
        assert q.max_apps == int(8000 * scale[q])
        assert q.max_apps_per_user == q.max_apps
    per_queue = {p: {**s, "maximum-applications": 30000} for p, s in ABSOLUTE.items()}
    extra = {"yarn.scheduler.capacity.global-queue-max-application": 8000}
    cs.reinitialize(make_conf(per_queue, **extra))
    for q in (a, b):
        assert q.max_apps == 30000
        assert q.max_apps_per_user == q.max_apps
    limits = {"root.a": {"minimum-user-limit-percent": 50}, "root.b": {"minimum-user-limit-percent": 125}}
    cs.reinitialize(make_conf({p: {**s, **limits[p]} for p, s in per_queue.items()}, **extra))
    assert a.max_apps_per_user == int(a.max_apps * 50 / 100)
    assert b.max_apps_per_user == b.max_apps  # not above the queue's own limit
    # b's user limit 33.3 % (a float since Hadoop 3.3): (int) (maxApplications * (33.3f / 100.0f) * 1.0f)
    limits["root.b"] = {"minimum-user-limit-percent": 33.3}
    cs.reinitialize(make_conf({p: {**s, **limits[p]} for p, s in per_queue.items()}, **extra))
    assert b.max_apps_per_user == int(f32(f32(b.max_apps * f32(f32(33.3) / f32(100.0))) * f32(1.0)))
    factors = {
        "root.a": {"minimum-user-limit-percent": 50, "user-limit-factor": 0.9},
        "root.b": {"minimum-user-limit-percent": 100, "user-limit-factor": 1.1},
    }
    cs.reinitialize(make_conf({p: {**s, **factors[p]} for p, s in per_queue.items()}, **extra))
    assert a.max_apps_per_user == int(a.max_apps * 50 * 0.9 / 100)
    assert b.max_apps_per_user == b.max_apps
