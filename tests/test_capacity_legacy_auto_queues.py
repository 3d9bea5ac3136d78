"""Legacy auto-created leaf queues (ManagedParentQueue): bad configurations, refreshes and the monitor's rounds."""

from __future__ import annotations

import pytest
from test_capacity_scheduler_helpers import GB, add_node, make_conf, make_scheduler

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import CapacityScheduler, LeafQueue
from yarnball.policies.capacity._managedparent import manage_auto_created_leaf_queues
from yarnball.policies.capacity._notifications import AppRejected
from yarnball.protocols import (
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    AppRemovedSchedulerEvent,
)

P = "root.users"


def queues(**template: object) -> dict[str, dict[str, object]]:
    """root.default 60 %, root.users 40 % creating leaves from a 50 % template."""
    users: dict[str, object] = {"capacity": 40, "auto-create-child-queue.enabled": "true"}
    users.update({f"leaf-queue-template.{k.replace('_', '-')}": v for k, v in template.items()})
    return {"root.default": {"capacity": 60}, P: users}


def submit(cs: CapacityScheduler, n: int, queue: str, user: str = "alice") -> list:
    app = ApplicationId(1, n)
    out = cs.handle(AppAddedSchedulerEvent(application_id=app, queue=queue, user=user))
    cs.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=ApplicationAttemptId(app, 1)))
    return out


def finish(cs: CapacityScheduler, n: int) -> None:
    app = ApplicationId(1, n)
    cs.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=ApplicationAttemptId(app, 1)))
    cs.handle(AppRemovedSchedulerEvent(application_id=app))


def started(q: dict[str, dict[str, object]]) -> CapacityScheduler:
    cs = make_scheduler(q)
    add_node(cs, 0, 100 * GB, 100)
    return cs


def test_template_settings_reach_the_leaf():
    """Every leaf-queue-template.* key becomes the new leaf's own (ManagedParentQueue.setLeafQueueConfigs)."""
    cs = started(queues(capacity=50, maximum_capacity=80, user_limit_factor=2, ordering_policy="fair"))
    submit(cs, 1, "users.alice")
    leaf = cs.get_queue("root.users.alice")
    assert isinstance(leaf, LeafQueue)
    assert (leaf.capacity, leaf.max_capacity, leaf.user_limit_factor, leaf.fair) == (0.5, pytest.approx(0.8), 2, True)
    assert leaf.abs_cap == pytest.approx(0.2)
    assert leaf.effective_min_resource.memory_mb == int(100 * GB * leaf.abs_cap)


def test_third_leaf_gets_zero_until_a_leaf_goes_idle():
    """Two 50 % leaves fill the parent; the third is created at 0 and activated by the monitor's round once an
    earlier leaf has no application (GuaranteedOrZeroCapacityOverTimePolicy)."""
    cs = started(queues(capacity=50))
    for n, user in enumerate(("a", "b", "c"), 1):
        submit(cs, n, f"users.{user}", user)
    a, c = cs.get_queue("root.users.a"), cs.get_queue("root.users.c")
    assert a is not None and c is not None
    assert (a.capacity, c.capacity) == (0.5, 0.0)
    assert manage_auto_created_leaf_queues(cs) == []
    finish(cs, 1)
    changes = manage_auto_created_leaf_queues(cs)
    assert sorted(ch.queue.path for ch in changes) == ["root.users.a", "root.users.c"]
    assert (a.capacity, c.capacity) == (0.0, 0.5)
    policy = cs.managed_parents[P].policy
    assert (policy.is_active(a), policy.is_active(c)) == (False, True)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ({"capacity": "abc"}, "root.users.leaf-queue-template.capacity"),
        ({"capacity": 150}, "Illegal capacity of 150.0 for queue root.users.leaf-queue-template"),
        ({"maximum_capacity": "x"}, "root.users.leaf-queue-template.maximum-capacity"),
        ({"capacity": "[memory=1024,vcores=1]"},
         "Managed Parent Queue root.users config type is different from leaf queue template config type"),
    ],
)  # fmt: skip
def test_bad_template_value_is_refused_naming_the_key(template: dict[str, object], message: str):
    with pytest.raises(ConfigurationError) as err:
        make_scheduler(queues(**template))
    assert message in str(err.value)


def test_configured_children_under_a_managed_parent_are_refused():
    q = queues(capacity=50)
    q["root.users.static"] = {"capacity": 100}
    with pytest.raises(ConfigurationError) as err:
        make_scheduler(q)
    assert "yarn.scheduler.capacity.root.users.queues" in str(err.value)


def test_unknown_management_policy_names_the_key():
    q = queues(capacity=50)
    q[P]["auto-create-child-queue.management-policy"] = "com.example.Policy"
    with pytest.raises(ConfigurationError) as err:
        make_scheduler(q)
    assert "root.users.auto-create-child-queue.management-policy" in str(err.value)
    assert "Could not instantiate AutoCreatedQueueManagementPolicy: com.example.Policy for queue: root.users" in str(
        err.value
    )


def test_max_queues_refuses_the_submission_with_hadoops_message():
    q = queues(capacity=10)
    q[P]["auto-create-child-queue.max-queues"] = 1
    cs = started(q)
    submit(cs, 1, "users.a", "a")
    out = submit(cs, 2, "users.b", "b")
    (rejected,) = [n for n in out if isinstance(n, AppRejected)]
    assert rejected.diagnostics == (
        "Application application_1_0002 submission by user : b to  queue : users.b failed : Cannot auto create leaf "
        "queue root.users.b.Max Child Queue limit exceeded which is configured as : 1 and number of child queues is : 1"
    )


def test_refresh_keeps_auto_created_leaves_and_reapplies_the_template():
    """ManagedParentQueue.reinitialize: the leaves stay (with their applications), take the new template, and the
    ones with applications are activated again."""
    cs = started(queues(capacity=50, user_limit_factor=1))
    submit(cs, 1, "users.a", "a")
    leaf = cs.get_queue("root.users.a")
    cs.reinitialize(make_conf(queues(capacity=25, user_limit_factor=3)))
    assert cs.get_queue("root.users.a") is leaf
    assert isinstance(leaf, LeafQueue) and leaf.num_applications == 1
    assert (leaf.capacity, leaf.user_limit_factor) == (0.25, 3)
    policy = cs.managed_parents[P].policy
    assert policy.is_active(leaf)
    assert policy.get_absolute_activated_child_queue_capacity() == pytest.approx(0.1)


def test_refresh_refuses_to_turn_a_managed_parent_into_a_leaf():
    cs = started(queues(capacity=50))
    submit(cs, 1, "users.a", "a")
    q = queues(capacity=50)
    q[P]["auto-create-child-queue.enabled"] = "false"
    with pytest.raises(ConfigurationError) as err:
        cs.reinitialize(make_conf(q))
    assert str(err.value).endswith(
        "Cannot convert auto create enabled parent queue: root.users to leaf queue. Please check  parent queue's "
        "configuration auto-create-child-queue.enabled is set to true"
    )
    assert cs.get_queue("root.users.a") is not None


def test_refresh_refuses_to_make_a_parent_managed():
    cs = started({"root.default": {"capacity": 60}, P: {"capacity": 40}, "root.users.x": {"capacity": 100}})
    q = queues(capacity=50)
    with pytest.raises(ConfigurationError) as err:
        cs.reinitialize(make_conf(q))
    assert "Can not convert parent queue: root.users to auto create enabled parent queue" in str(err.value)


def test_no_legacy_keys_no_managed_parents():
    cs = make_scheduler({"root.default": {"capacity": 100}})
    assert cs.managed_parents == {}


# -- in a running cluster -------------------------------------------------------------------------------------------
def _cluster_run(monitor: bool):
    from yarnball.launcher import Cluster
    from yarnball.launcher.workloads import WorkloadBuilder, task_spec
    from yarnball.testing import captured_events

    cs = "yarn.scheduler.capacity."
    conf = {
        f"{cs}root.queues": "prod,users",
        f"{cs}root.prod.capacity": "60",
        f"{cs}root.users.capacity": "40",
        f"{cs}root.users.auto-create-child-queue.enabled": "true",
        f"{cs}root.users.leaf-queue-template.capacity": "50",
        f"{cs}root.users.leaf-queue-template.maximum-capacity": "100",
    }
    if monitor:
        conf["yarn.resourcemanager.scheduler.monitor.enable"] = "true"
        conf["yarn.resourcemanager.scheduler.monitor.policies"] = "QueueManagementDynamicEditPolicy"
    builder = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8)
    for i, user in enumerate(("a", "b", "c")):
        builder.job(user, queue=f"users.{user}", user=user, submit_ms=1_000 * i, tasks=[task_spec(2, 10_000 * (i + 1))])
    builder.job("late", queue="root.prod", user="etl", submit_ms=90_000, tasks=[task_spec(1, 1_000)])
    workload = builder.build()
    cluster = Cluster(conf, workload.nodes, seed=4, latency_ms=1)
    cluster.submit_workload(workload)
    with captured_events() as logs:
        cluster.run(until_ms=300_000)
    return cluster, logs


def test_monitor_moves_the_guarantee_to_the_waiting_leaf_in_a_cluster():
    """With the QueueManagementDynamicEditPolicy monitor, c (created at 0: a and b fill users) gets the template's
    capacity once a's job is done; without it, c stays at 0. Every job finishes either way."""
    cluster, logs = _cluster_run(monitor=True)
    assert {a.name: a.state.value for a in cluster.applications} == dict.fromkeys(("a", "b", "c", "late"), "FINISHED")
    changes = [(e["queue"], e["capacity"]) for e in logs if e["event"] == "auto_created_queue_entitlement"]
    assert ("root.users.c", 0.5) in changes
    assert changes.index(("root.users.a", 0.0)) <= changes.index(("root.users.c", 0.5))
    cluster, logs = _cluster_run(monitor=False)
    assert {a.name: a.state.value for a in cluster.applications} == dict.fromkeys(("a", "b", "c", "late"), "FINISHED")
    assert not [e for e in logs if e["event"] == "auto_created_queue_entitlement"]
    c = cluster.scheduler.get_queue("root.users.c")
    assert c is not None and c.capacity == 0.0
