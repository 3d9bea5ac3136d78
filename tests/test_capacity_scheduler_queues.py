"""CapacityScheduler queue tree: capacities, child ordering, elasticity, submission rejections and ACLs."""

from __future__ import annotations

import pytest
from test_capacity_scheduler_helpers import (
    GB,
    add_node,
    app_id,
    ask,
    attempt_id,
    heartbeat,
    make_scheduler,
    submit,
)

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import AppAccepted, AppRejected, AttemptAdded, QueueACL

AB = {"root.a": {"capacity": 30}, "root.b": {"capacity": 70}}
ACE = "org.apache.hadoop.security.AccessControlException: "


def test_absolute_capacities_multiply_down_the_tree():
    """absoluteCapacity = capacity x parent's; effective min/max truncate partition x absolute capacity."""
    cs = make_scheduler(
        {
            "root.a": {"capacity": 40, "maximum-capacity": 50},
            "root.a.x": {"capacity": 25},
            "root.a.y": {"capacity": 75},
            "root.b": {"capacity": 60},
        }
    )
    add_node(cs, 0, 10 * GB)
    x = cs.queues["root.a.x"]
    assert x.abs_cap == pytest.approx(0.1)
    assert x.abs_max == pytest.approx(0.5)
    assert (x.eff_min_m, x.eff_max_m) == (int(10240 * x.abs_cap), int(10240 * x.abs_max))


def test_child_ordering_worked_example_testParentQueue():
    """a=30%, b=70% of 20 GB: a (0/6) before b (1/14); at 2/6 vs 2/14, b first."""
    cs = make_scheduler(AB)
    add_node(cs, 0, 20 * GB)
    a, b = cs.queues["root.a"], cs.queues["root.b"]
    b.used_m = 1 * GB
    assert cs.root.ordered_children(cs._ctx) == [a, b]
    a.used_m, b.used_m = 2 * GB, 2 * GB
    assert cs.root.ordered_children(cs._ctx) == [b, a]


def test_child_ordering_ties_prefer_larger_capacity():
    """Equal used capacity: the queue with the larger absolute capacity goes first."""
    cs = make_scheduler(AB)
    add_node(cs, 0, 20 * GB)
    assert cs.root.ordered_children(cs._ctx)[0].path == "root.b"


def test_child_ordering_zero_capacity_queue_last():
    """A queue with a guarantee sorts before a zero-capacity one even when more used."""
    cs = make_scheduler({"root.a": {"capacity": 0}, "root.b": {"capacity": 100}})
    add_node(cs, 0, 20 * GB)
    cs.queues["root.b"].used_m = 10 * GB
    assert [q.path for q in cs.root.ordered_children(cs._ctx)] == ["root.b", "root.a"]


def test_priority_utilization_prefers_higher_priority_under_guarantee():
    """priority-utilization: both under guarantee -> higher priority first; only one under -> it first."""
    cs = make_scheduler(
        {"root.a": {"capacity": 50, "priority": 1}, "root.b": {"capacity": 50}},
        **{"yarn.scheduler.capacity.root.ordering-policy": "priority-utilization"},
    )
    add_node(cs, 0, 20 * GB)
    a, b = cs.queues["root.a"], cs.queues["root.b"]
    a.used_m, b.used_m = 6 * GB, 2 * GB
    assert cs.root.ordered_children(cs._ctx) == [a, b]
    a.used_m = 11 * GB
    assert cs.root.ordered_children(cs._ctx) == [b, a]


def test_heartbeat_serves_least_used_queue_first():
    """Allocation follows child ordering: both queues asking, they alternate by relative usage."""
    cs = make_scheduler(AB)
    n0 = add_node(cs, 0, 20 * GB)
    submit(cs, 1, "a", am_mb=None)
    submit(cs, 2, "b", am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 10)], [])
    cs.allocate(attempt_id(2), [ask(GB, 10)], [])
    order = [heartbeat(cs, n0)[0].attempt_id.application_id.id for _ in range(4)]
    assert order == [2, 1, 2, 2]


def test_queue_elastic_up_to_maximum_capacity():
    """A lone queue grows past its 30% guarantee but stops at maximum-capacity 50% of 10 GB."""
    cs = make_scheduler(
        {"root.a": {"capacity": 30, "maximum-capacity": 50, "user-limit-factor": 10}, "root.b": {"capacity": 70}},
        **{"yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments": 100},
    )
    n0 = add_node(cs, 0, 10 * GB)
    submit(cs, 1, "a", am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 10)], [])
    heartbeat(cs, n0)
    assert cs.queues["root.a"].used_m == 5 * GB


def test_accepted_application_notifications():
    """APP_ADDED then APP_ATTEMPT_ADDED answer AppAccepted and AttemptAdded."""
    cs = make_scheduler()
    out = submit(cs, 1, am_mb=None)
    assert out == [AppAccepted(app_id(1)), AttemptAdded(attempt_id(1))]


def test_reject_unknown_queue():
    """Hadoop's words for an unknown queue."""
    cs = make_scheduler()
    out = submit(cs, 1, "nope", user="alice", am_mb=None)
    assert out[0] == AppRejected(
        app_id(1), "Application application_1_0001 submitted by user alice to unknown queue: nope"
    )


def test_reject_non_leaf_queue():
    """Hadoop's words for a parent queue."""
    cs = make_scheduler(AB)
    out = submit(cs, 1, "root", user="alice", am_mb=None)
    assert out[0].diagnostics == ("Application application_1_0001 submitted by user : alice to non-leaf queue : root")


def test_full_queue_path_is_accepted():
    """A leaf can be named by its full path as well as its short name."""
    cs = make_scheduler(AB)
    assert isinstance(submit(cs, 1, "root.b", am_mb=None)[0], AppAccepted)
    assert cs.applications[app_id(1)].queue.path == "root.b"


def test_reject_stopped_queue():
    """A STOPPED queue refuses submissions (AccessControlException text)."""
    cs = make_scheduler({"root.a": {"capacity": 50, "state": "STOPPED"}, "root.b": {"capacity": 50}})
    out = submit(cs, 1, "a", am_mb=None)
    assert out[0].diagnostics == (
        ACE + "Queue root.a is STOPPED. Cannot accept submission of application: application_1_0001"
    )


def test_stopped_parent_stops_children():
    """A child of a STOPPED parent is STOPPED too."""
    cs = make_scheduler(
        {"root.a": {"capacity": 50, "state": "STOPPED"}, "root.a.x": {"capacity": 100}, "root.b": {"capacity": 50}}
    )
    assert isinstance(submit(cs, 1, "x", am_mb=None)[0], AppRejected)


def test_submit_acl_enforced_when_acls_enabled():
    """yarn.acl.enable: a user outside the queue's (and its parents') submit/administer ACLs is rejected."""
    cs = make_scheduler(
        {"root.a": {"capacity": 50, "acl_submit_applications": "alice"}, "root.b": {"capacity": 50}},
        **{
            "yarn.acl.enable": "true",
            "yarn.scheduler.capacity.root.acl_submit_applications": " ",
            "yarn.scheduler.capacity.root.acl_administer_queue": " ",
        },
    )
    assert isinstance(submit(cs, 1, "a", user="alice", am_mb=None)[0], AppAccepted)
    out = submit(cs, 2, "a", user="bob", am_mb=None)
    assert out[0].diagnostics == ACE + "User bob cannot submit applications to queue root.a"


def test_queue_administrators_may_submit():
    """ADMINISTER_QUEUE also grants submission."""
    cs = make_scheduler(
        {"root.a": {"capacity": 50, "acl_administer_queue": "carol"}, "root.b": {"capacity": 50}},
        **{
            "yarn.acl.enable": "true",
            "yarn.scheduler.capacity.root.acl_submit_applications": " ",
            "yarn.scheduler.capacity.root.acl_administer_queue": " ",
        },
    )
    assert isinstance(submit(cs, 1, "a", user="carol", am_mb=None)[0], AppAccepted)


def test_acls_ignored_when_disabled():
    """With yarn.acl.enable false (default) everybody may submit anywhere."""
    cs = make_scheduler(
        {"root.a": {"capacity": 50, "acl_submit_applications": "alice"}, "root.b": {"capacity": 50}},
        **{"yarn.scheduler.capacity.root.acl_submit_applications": " "},
    )
    assert isinstance(submit(cs, 1, "a", user="bob", am_mb=None)[0], AppAccepted)
    assert cs.check_access("bob", QueueACL.SUBMIT_APPLICATIONS, "a")


def test_root_acl_inherited_by_children():
    """The root's default "*" submit ACL lets anyone submit to a leaf with no ACL of its own."""
    cs = make_scheduler(AB, **{"yarn.acl.enable": "true"})
    assert isinstance(submit(cs, 1, "a", user="anyone", am_mb=None)[0], AppAccepted)


def test_admin_acl_administers_every_queue():
    """yarn.admin.acl users may administer any queue."""
    cs = make_scheduler(
        AB,
        **{
            "yarn.acl.enable": "true",
            "yarn.admin.acl": "root_admin",
            "yarn.scheduler.capacity.root.acl_administer_queue": " ",
        },
    )
    assert cs.check_access("root_admin", QueueACL.ADMINISTER_QUEUE, "root.a")
    assert not cs.check_access("someone", QueueACL.ADMINISTER_QUEUE, "root.a")


def test_invalid_configuration_is_rejected():
    """Children capacities must sum to 100 (validation runs when the scheduler is built)."""
    with pytest.raises(ConfigurationError):
        make_scheduler({"root.a": {"capacity": 60}, "root.b": {"capacity": 50}})


def test_queue_metrics_snapshot():
    """queue_metrics reports allocation, pending and application counts per queue."""
    cs = make_scheduler(AB)
    n0 = add_node(cs, 0, 20 * GB)
    submit(cs, 1, "a")
    heartbeat(cs, n0)
    cs.allocate(attempt_id(1), [ask(2 * GB, 3)], [])
    m = {q.path: q for q in cs.queue_metrics()}
    assert m["root.a"].allocated.memory_mb == GB
    assert m["root.a"].pending.memory_mb == 6 * GB
    assert (m["root.a"].apps_running, m["root"].apps_running) == (1, 1)
    assert m["root"].containers_allocated == 1
    assert m["root.a"].absolute_capacity == pytest.approx(0.3)
