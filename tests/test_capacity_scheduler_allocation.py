"""CapacityScheduler allocation: pull model, container ids, assign-multiple, normalisation, releases, node loss,
attempt removal, FIFO/fair ordering, application priority, dominant calculator, preemption marks."""

from __future__ import annotations

from test_capacity_scheduler_helpers import (
    GB,
    add_node,
    app_id,
    ask,
    attempt_id,
    heartbeat,
    make_scheduler,
    run_am,
    submit,
)

from yarnball.policies.capacity import ContainerAllocated, ContainerCompleted
from yarnball.protocols import (
    AppAttemptRemovedSchedulerEvent,
    AppRemovedSchedulerEvent,
    ContainerExitStatus,
    ContainerPreemptEvent,
    ContainerState,
    ContainerStatus,
    NodeRemovedSchedulerEvent,
    Resource,
    SchedulerEventType,
)

MULTI = {"yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments": 100}
DRC = "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"
AM_ALL = {"yarn.scheduler.capacity.maximum-am-resource-percent": 1.0}


def test_first_container_is_the_am_container_000001():
    """The attempt's first allocation is its AM container, sequence 000001."""
    cs = make_scheduler()
    n0 = add_node(cs, 0)
    submit(cs, 1)
    got = heartbeat(cs, n0)
    assert len(got) == 1 and got[0].is_am
    assert str(got[0].container.id) == "container_1_0001_01_000001"


def test_allocations_wait_for_the_next_pull():
    """Containers allocated on NODE_UPDATE reach the AM on its next allocate, exactly once."""
    cs = make_scheduler()
    n0 = add_node(cs, 0)
    submit(cs, 1)
    heartbeat(cs, n0)
    first = cs.allocate(attempt_id(1), [], [])
    assert [c.id.container_id for c in first.containers] == [1]
    assert cs.allocate(attempt_id(1), [], []).containers == ()


def test_off_switch_limit_one_container_per_heartbeat_by_default():
    """maximum-offswitch-assignments defaults to 1: one off-switch container per heartbeat."""
    cs = make_scheduler()
    n0 = add_node(cs, 0, 16 * GB, 16)
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 5)], [])
    assert len(heartbeat(cs, n0)) == 1


def test_assign_multiple_fills_node_in_one_heartbeat():
    """With a higher off-switch limit, one heartbeat allocates until the node is full."""
    cs = make_scheduler(**MULTI)
    n0 = add_node(cs, 0, 4 * GB, 16)
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 8)], [])
    assert len(heartbeat(cs, n0)) == 4


def test_maximum_container_assignments_caps_heartbeat():
    """per-node-heartbeat.maximum-container-assignments bounds containers per heartbeat."""
    cs = make_scheduler(**MULTI, **{"yarn.scheduler.capacity.per-node-heartbeat.maximum-container-assignments": 2})
    n0 = add_node(cs, 0, 8 * GB, 16)
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 8)], [])
    assert len(heartbeat(cs, n0)) == 2


def test_multiple_assignments_disabled():
    """multiple-assignments-enabled=false: one container per heartbeat whatever the locality."""
    cs = make_scheduler(**MULTI, **{"yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled": "false"})
    n0 = add_node(cs, 0, 8 * GB, 16)
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 8)], [])
    assert len(heartbeat(cs, n0)) == 1


def test_node_local_asks_are_not_limited_by_off_switch_limit():
    """Node-local assignments keep going after the off-switch limit would have stopped."""
    cs = make_scheduler()
    n0 = add_node(cs, 0, 4 * GB, 16)
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 3, name="host0"), ask(GB, 3, name="/default-rack"), ask(GB, 3)], [])
    assert len(heartbeat(cs, n0)) == 3


def test_request_normalised_up_to_multiple_of_minimum():
    """1500 MB becomes 2048 MB; the DefaultResourceCalculator gives every container one vcore."""
    cs = make_scheduler()
    n0 = add_node(cs, 0)
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(1500, 1, vcores=3)], [])
    got = heartbeat(cs, n0)
    assert got[0].container.resource == Resource(2048, 1)


def test_request_above_maximum_allocation_is_an_error():
    """An ask above yarn.scheduler.maximum-allocation-mb is refused with InvalidResourceRequestException's text."""
    cs = make_scheduler()
    add_node(cs, 0, 16 * GB, 16)
    submit(cs, 1, am_mb=None)
    result = cs.allocate(attempt_id(1), [ask(9000, 1), ask(GB, 1, priority=2)], [])
    assert result.errors[0].startswith(
        "Invalid resource request! Cannot allocate containers as requested resource is greater than maximum "
        "allowed allocation. Requested resource type=[memory-mb], Requested resource=<memory:9000, vCores:1>, "
        "maximum allowed allocation=<memory:8192, vCores:4>"
    )
    assert cs.get_application(attempt_id(1)).keys == {}  # nothing of the call applied


def test_maximum_allocation_capped_by_largest_node():
    """The maximum allowed allocation is capped by the largest registered node."""
    cs = make_scheduler()
    add_node(cs, 0, 4 * GB, 16)
    submit(cs, 1, am_mb=None)
    assert cs.allocate(attempt_id(1), [ask(5 * GB, 1)], []).errors


def test_release_reports_completed_status_and_cleanup():
    """An AM release frees the container, notifies the RM and queues an ABORTED status for the AM."""
    cs = make_scheduler()
    n0 = add_node(cs, 0)
    submit(cs, 1)
    heartbeat(cs, n0)
    cid = cs.allocate(attempt_id(1), [], []).containers[0].id
    result = cs.allocate(attempt_id(1), [], [cid])
    assert result.completed[0].exit_status == ContainerExitStatus.ABORTED
    assert result.completed[0].diagnostics == "Container released by application"
    assert isinstance(result.notifications[0], ContainerCompleted)
    assert cs.queues["root.default"].used_m == 0


def test_completed_container_from_node_heartbeat_frees_resources():
    """A completed status in NODE_UPDATE frees the container and reaches the AM on its next pull."""
    cs = make_scheduler()
    n0 = add_node(cs, 0)
    submit(cs, 1)
    heartbeat(cs, n0)
    cid = cs.allocate(attempt_id(1), [], []).containers[0].id
    st = ContainerStatus(container_id=cid, state=ContainerState.COMPLETE, exit_status=0)
    heartbeat(cs, n0, completed=(st,))
    assert cs.nodes[n0].unalloc_m == 8 * GB
    assert cs.allocate(attempt_id(1), [], []).completed == (st,)


def test_node_removal_loses_its_containers():
    """NODE_REMOVED ends every container on the node as ABORTED 'released on a *lost* node'."""
    cs = make_scheduler()
    n0 = add_node(cs, 0)
    add_node(cs, 1)
    submit(cs, 1)
    heartbeat(cs, n0)
    out = cs.handle(NodeRemovedSchedulerEvent(node_id=n0))
    assert [type(n) for n in out] == [ContainerCompleted]
    assert out[0].status.diagnostics == "Container released on a *lost* node"
    assert out[0].status.exit_status == ContainerExitStatus.ABORTED
    assert cs.cluster_resource.memory_mb == 8 * GB
    assert cs.root.used_m == 0
    assert cs.allocate(attempt_id(1), [], []).completed[0].container_id == out[0].container_id


def test_removing_unknown_node_is_ignored():
    """Removing a node that was never added changes nothing."""
    cs = make_scheduler()
    add_node(cs, 0)
    assert cs.handle(NodeRemovedSchedulerEvent(node_id=__import__("yarnball").protocols.NodeId("zz", 1))) == []
    assert cs.cluster_resource.memory_mb == 8 * GB


def test_attempt_removal_kills_its_containers():
    """APP_ATTEMPT_REMOVED kills live containers with 'Container of a completed application'."""
    cs = make_scheduler(**MULTI)
    n0 = add_node(cs, 0)
    submit(cs, 1)
    cs.allocate(attempt_id(1), [ask(GB, 2)], [])
    heartbeat(cs, n0)
    out = cs.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt_id(1)))
    assert len(out) == 3
    assert {n.status.diagnostics for n in out} == {"Container of a completed application"}
    assert cs.queues["root.default"].pending_m == 0 and cs.root.used_m == 0


def test_app_removal_frees_application_slot():
    """APP_REMOVED forgets the application so it no longer counts against maximum-applications."""
    cs = make_scheduler()
    submit(cs, 1, am_mb=None)
    cs.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt_id(1)))
    cs.handle(AppRemovedSchedulerEvent(application_id=app_id(1)))
    assert cs.root.num_applications == 0 and app_id(1) not in cs.applications


def test_fifo_order_serves_first_submitted_app():
    """FIFO: the earlier application gets everything it asks before the later one."""
    cs = make_scheduler(**MULTI, **AM_ALL)
    n0 = add_node(cs, 0, 4 * GB)
    submit(cs, 1, am_mb=None)
    submit(cs, 2, am_mb=None)
    cs.allocate(attempt_id(2), [ask(GB, 2)], [])
    cs.allocate(attempt_id(1), [ask(GB, 2)], [])
    got = [a.attempt_id.application_id.id for a in heartbeat(cs, n0)]
    assert got == [1, 1, 2, 2]


def test_fifo_higher_application_priority_first():
    """FIFO with application priority: a later, higher-priority app is served first."""
    cs = make_scheduler(**MULTI, **AM_ALL)
    n0 = add_node(cs, 0, 4 * GB)
    submit(cs, 1, am_mb=None, priority=0)
    submit(cs, 2, am_mb=None, priority=5)
    cs.allocate(attempt_id(1), [ask(GB, 2)], [])
    cs.allocate(attempt_id(2), [ask(GB, 2)], [])
    assert [a.attempt_id.application_id.id for a in heartbeat(cs, n0)] == [2, 2, 1, 1]


def test_fair_ordering_alternates_between_apps():
    """Fair ordering: the app using less goes first, so two apps alternate."""
    cs = make_scheduler({"root.default": {"capacity": 100, "ordering-policy": "fair"}}, **MULTI, **AM_ALL)
    n0 = add_node(cs, 0, 4 * GB)
    submit(cs, 1, am_mb=None)
    submit(cs, 2, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 2)], [])
    cs.allocate(attempt_id(2), [ask(GB, 2)], [])
    assert [a.attempt_id.application_id.id for a in heartbeat(cs, n0)] == [1, 2, 1, 2]


def test_request_priority_order_inside_an_app():
    """Inside an app, a lower priority number is served first."""
    cs = make_scheduler(**MULTI)
    n0 = add_node(cs, 0, 4 * GB)
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 1, priority=5), ask(2 * GB, 1, priority=2)], [])
    got = heartbeat(cs, n0)
    assert [a.container.priority.priority for a in got] == [2, 5]


def test_dominant_resource_calculator_limits_by_vcores():
    """DominantResourceCalculator: a node with 2 vcores holds only 2 one-vcore containers despite free memory."""
    cs = make_scheduler(
        **MULTI,
        **{"yarn.scheduler.capacity.resource-calculator": DRC},
    )
    n0 = add_node(cs, 0, 16 * GB, 2)
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 4, vcores=1)], [])
    got = heartbeat(cs, n0)
    assert len(got) == 2
    assert got[0].container.resource == Resource(GB, 1)


def test_default_calculator_ignores_vcores():
    """DefaultResourceCalculator: vcores never limit allocation."""
    cs = make_scheduler(**MULTI)
    n0 = add_node(cs, 0, 16 * GB, 2)
    submit(cs, 1, am_mb=None)
    cs.allocate(attempt_id(1), [ask(GB, 4, vcores=1)], [])
    assert len(heartbeat(cs, n0)) == 4


def test_preemption_mark_reaches_the_am_and_kill_reports_preempted():
    """MARK_CONTAINER_FOR_PREEMPTION shows in Allocation.preempt; MARK_CONTAINER_FOR_KILLABLE kills with -102."""
    cs = make_scheduler()
    n0 = add_node(cs, 0)
    submit(cs, 1)
    run_am(cs, 1, n0)
    container = next(iter(cs.get_application(attempt_id(1)).live.values())).container
    cs.handle(ContainerPreemptEvent(application_attempt_id=attempt_id(1), container=container))
    assert cs.allocate(attempt_id(1), [], []).preempt == frozenset({container.id})
    out = cs.handle(
        ContainerPreemptEvent(
            application_attempt_id=attempt_id(1),
            container=container,
            event_type=SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE,
        )
    )
    assert out[0].status.exit_status == ContainerExitStatus.PREEMPTED
    assert out[0].status.diagnostics == "Container preempted by scheduler"


def test_deterministic_allocation_sequence():
    """Two identical runs allocate the same containers on the same nodes."""

    def run():
        cs = make_scheduler({"root.a": {"capacity": 50}, "root.b": {"capacity": 50}})
        nodes = [add_node(cs, i, 4 * GB) for i in range(3)]
        for n in range(1, 4):
            submit(cs, n, "a" if n % 2 else "b", user=f"u{n}")
            cs.allocate(attempt_id(n), [ask(GB, 3)], [])
        seq = []
        for _ in range(4):
            for nid in nodes:
                seq += [(str(a.container.id), str(a.container.node_id)) for a in heartbeat(cs, nid)]
        return seq

    assert run() == run()


def test_unknown_event_is_ignored():
    """An event without a known event_type returns nothing."""
    cs = make_scheduler()
    assert cs.handle(object()) == []


def test_container_allocated_notifications_carry_attempt():
    """ContainerAllocated names the attempt, the container and whether it is the AM."""
    cs = make_scheduler()
    n0 = add_node(cs, 0)
    submit(cs, 1)
    note = heartbeat(cs, n0)[0]
    assert isinstance(note, ContainerAllocated) and note.attempt_id == attempt_id(1) and note.is_am
