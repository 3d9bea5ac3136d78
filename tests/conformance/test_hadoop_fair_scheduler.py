"""Hadoop's ``TestFairScheduler``, ``TestFSAppAttempt``, ``TestAppRunnability`` and ``TestContinuousScheduling``
(``scheduler/fair/``), their outcome-based methods that need no preemption, on yarnball's FairScheduler
(shared/reference/fair.md §2-§4). Method names are Hadoop's, snake-cased."""

from __future__ import annotations

from pathlib import Path

import pytest
from fair_scheduler_harness import FAIR, GB, Clock

from yarnball.errors import AllocationConfigurationException, ConfigurationError, SchedulingError
from yarnball.policies.capacity._state import NODE_LOCAL, OFF_SWITCH, RACK_LOCAL
from yarnball.policies.fair._fairscheduler import FairScheduler
from yarnball.policies.scheduler import (
    AppAccepted,
    AppRejected,
    ContainerAllocated,
    ContainerReserved,
    create_scheduler,
    monitor_policies,
    rest_scheduler_type,
    validate_scheduler_configuration,
)
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    NodeAddedSchedulerEvent,
    NodeId,
    NodeUpdateSchedulerEvent,
    Priority,
    Resource,
    ResourceRequest,
    keys,
)


def scheduler(tmp_path: Path, allocations: str = "", **settings: object) -> tuple[FairScheduler, Clock]:
    path = tmp_path / "fair-scheduler.xml"
    path.write_text(f"<?xml version='1.0'?><allocations>{allocations}</allocations>")
    conf = Configuration({keys.RM_SCHEDULER: FAIR, "yarn.scheduler.fair.allocation.file": str(path), **settings})
    s = create_scheduler(conf, cluster_timestamp=1)
    assert isinstance(s, FairScheduler)
    clock = Clock()
    s.service_start(clock)
    return s, clock


def add_node(s: FairScheduler, i: int, mem: int = 8 * GB, vcores: int = 8, rack: str = "/rack1") -> NodeId:
    nid = NodeId(f"host{i}", 1234)
    s.handle(NodeAddedSchedulerEvent(node_id=nid, rack_name=rack, total_resource=Resource(mem, vcores)))
    return nid


def attempt(n: int) -> ApplicationAttemptId:
    return ApplicationAttemptId(ApplicationId(1, n), 1)


def submit(s: FairScheduler, n: int, queue: str = "default", user: str = "user1") -> list:
    out = s.handle(AppAddedSchedulerEvent(application_id=ApplicationId(1, n), queue=queue, user=user))
    if any(isinstance(x, AppRejected) for x in out):
        return out
    return out + s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt(n)))


def rr(mb: int, n: int, name: str = ANY, priority: int = 1, vcores: int = 1, relax: bool = True) -> ResourceRequest:
    return ResourceRequest(
        priority=Priority(priority),
        capability=Resource(mb, vcores),
        resource_name=name,
        num_containers=n,
        relax_locality=relax,
    )


def ask(s: FairScheduler, n: int, *requests: ResourceRequest) -> None:
    allocation = s.allocate(attempt(n), list(requests), [])
    assert not allocation.errors, allocation.errors


def heartbeat(s: FairScheduler, nid: NodeId) -> list[ContainerAllocated]:
    return [x for x in s.handle(NodeUpdateSchedulerEvent(node_id=nid)) if isinstance(x, ContainerAllocated)]


def usage(s: FairScheduler, queue: str) -> int:
    q = s.queue_manager.get_queue(queue)
    assert q is not None
    return q.resource_usage.memory_mb


# -- configuration and plugging in ------------------------------------------------------------------------------------
def test_factory_builds_the_fair_scheduler(tmp_path: Path) -> None:
    """The factory builds it for FairScheduler and SLSFairScheduler; REST's type is fairScheduler."""
    s, _ = scheduler(tmp_path)
    assert rest_scheduler_type(s) == "fairScheduler"
    sls = create_scheduler(Configuration({keys.RM_SCHEDULER: "SLSFairScheduler"}), cluster_timestamp=1)
    assert isinstance(sls, FairScheduler)
    assert s.fair_scheduler_info()["type"] == "fairScheduler"
    assert s.fair_scheduler_info()["rootQueue"]["queueName"] == "root"


def test_bad_allocation_file_names_the_file(tmp_path: Path) -> None:
    """initScheduler's reloadAllocations: a bad file fails the start, naming the file."""
    path = tmp_path / "fair-scheduler.xml"
    path.write_text("<?xml version='1.0'?><queues/>")
    conf = Configuration({keys.RM_SCHEDULER: FAIR, "yarn.scheduler.fair.allocation.file": str(path)})
    with pytest.raises(AllocationConfigurationException, match=f"{path}.*top-level element not <allocations>"):
        validate_scheduler_configuration(conf)
    with pytest.raises(AllocationConfigurationException, match=str(path)):
        create_scheduler(conf, cluster_timestamp=1)


def test_cs_edit_policies_refuse_the_fair_scheduler() -> None:
    conf = Configuration({keys.RM_SCHEDULER: FAIR, keys.RM_SCHEDULER_ENABLE_MONITORS: "true"})
    with pytest.raises(ConfigurationError, match="not instance of"):
        monitor_policies(conf)


def test_update_application_priority_is_not_supported(tmp_path: Path) -> None:
    s, _ = scheduler(tmp_path)
    with pytest.raises(SchedulingError, match=r"^Update application priority is not supported in Fair Scheduler$"):
        s.update_application_priority(ApplicationId(1, 1), 5)


# -- submission and placement -----------------------------------------------------------------------------------------
def test_assign_to_queue(tmp_path: Path) -> None:
    """testAssignToQueue / the default placement: specified, else the user's queue (created)."""
    s, _ = scheduler(tmp_path)
    assert any(isinstance(x, AppAccepted) for x in submit(s, 1, "default", "alice"))
    assert any(isinstance(x, AppAccepted) for x in submit(s, 2, "q1", "bob"))
    assert s.fs_apps[attempt(1)].queue.name == "root.alice"
    assert s.fs_apps[attempt(2)].queue.name == "root.q1"


def test_queue_placement_with_policy_reject(tmp_path: Path) -> None:
    """The placement policy rejects with Hadoop's message."""
    s, _ = scheduler(
        tmp_path,
        "<queuePlacementPolicy><rule name='specified' create='false'/><rule name='reject'/></queuePlacementPolicy>",
    )
    out = submit(s, 1, "nowhere", "alice")
    rejected = [x for x in out if isinstance(x, AppRejected)]
    assert rejected and rejected[0].diagnostics == (
        "Reject application application_1_0001 submitted by user alice application rejected by placement rules."
    )


def test_not_a_leaf_queue(tmp_path: Path) -> None:
    """addApplication: a placement on a parent queue is "<queue> is not a leaf queue"."""
    s, _ = scheduler(tmp_path, "<queue name='parent'><queue name='child'/></queue>")
    out = submit(s, 1, "root.parent", "alice")
    assert [x.diagnostics for x in out if isinstance(x, AppRejected)] == ["root.parent is not a leaf queue"]


def test_acl_submission(tmp_path: Path) -> None:
    """testAclSubmitApplication: the queue's (or an ancestor's) submit ACL."""
    s, _ = scheduler(
        tmp_path,
        "<queue name='root'><aclSubmitApps> </aclSubmitApps>"
        "<aclAdministerApps> </aclAdministerApps>"
        "<queue name='queue1'><aclSubmitApps>norealuserhasthisname</aclSubmitApps>"
        "<aclAdministerApps>norealuserhasthisname</aclAdministerApps></queue></queue>",
    )
    assert any(isinstance(x, AppAccepted) for x in submit(s, 1, "root.queue1", "norealuserhasthisname"))
    out = submit(s, 2, "root.queue1", "norealuserhasthisname2")
    assert [x.diagnostics for x in out if isinstance(x, AppRejected)] == [
        "User norealuserhasthisname2 does not have permission to submit application_1_0002 to queue root.queue1"
    ]


# -- fair shares ------------------------------------------------------------------------------------------------------
def test_simple_fair_share_calculation(tmp_path: Path) -> None:
    """testSimpleFairShareCalculation: two active queues on a 10 GB node get 5 GB each."""
    s, _ = scheduler(tmp_path)
    add_node(s, 1, 10 * GB, 10)
    submit(s, 1, "queue1")
    ask(s, 1, rr(GB, 10))
    submit(s, 2, "queue2")
    ask(s, 2, rr(GB, 10))
    s.update()
    assert s.queue_manager.get_queue("queue1").fair_share.memory_mb == 5 * GB  # type: ignore[union-attr]
    assert s.queue_manager.get_queue("queue2").fair_share.memory_mb == 5 * GB  # type: ignore[union-attr]


def test_weighted_queues_converge_to_their_weights(tmp_path: Path) -> None:
    """Two saturated queues weighted 3:1 share a 16-container cluster 12:4, one container per heartbeat."""
    s, _ = scheduler(
        tmp_path, "<queue name='a'><weight>3.0</weight></queue><queue name='b'><weight>1.0</weight></queue>"
    )
    nodes = [add_node(s, i, 4 * GB, 4) for i in range(4)]
    submit(s, 1, "root.a")
    submit(s, 2, "root.b")
    ask(s, 1, rr(GB, 100))
    ask(s, 2, rr(GB, 100))
    s.update()
    for _ in range(5):
        for nid in nodes:
            heartbeat(s, nid)
        s.update()
    assert (usage(s, "root.a"), usage(s, "root.b")) == (12 * GB, 4 * GB)


# -- assignmultiple ---------------------------------------------------------------------------------------------------
def test_max_assign(tmp_path: Path) -> None:
    """testMaxAssign: assignmultiple with max.assign 2 (dynamic off) places two containers per heartbeat."""
    s, _ = scheduler(
        tmp_path,
        **{
            "yarn.scheduler.fair.assignmultiple": "true",
            "yarn.scheduler.fair.dynamic.max.assign": "false",
            "yarn.scheduler.fair.max.assign": "2",
        },
    )
    nid = add_node(s, 1, 16 * GB, 16)
    submit(s, 1, "queue1")
    ask(s, 1, rr(GB, 8))
    s.update()
    assert len(heartbeat(s, nid)) == 2
    assert len(heartbeat(s, nid)) == 2


def test_assign_multiple_with_dynamic_max_assign(tmp_path: Path) -> None:
    """testAssignMultipleWithDynamicMaxAssign-like: up to half the node's unallocated resource (one more allowed)."""
    s, _ = scheduler(tmp_path, **{"yarn.scheduler.fair.assignmultiple": "true"})
    nid = add_node(s, 1, 8 * GB, 8)
    submit(s, 1, "queue1")
    ask(s, 1, rr(GB, 8))
    s.update()
    assert len(heartbeat(s, nid)) == 5  # 4 GB is half of 8 GB, fitsIn allows the 5th
    assert len(heartbeat(s, nid)) == 2  # half of the 3 GB left (1 GB, truncated), plus one


def test_assign_one_per_heartbeat_by_default(tmp_path: Path) -> None:
    s, _ = scheduler(tmp_path)
    nid = add_node(s, 1, 8 * GB, 8)
    submit(s, 1, "queue1")
    ask(s, 1, rr(GB, 4))
    s.update()
    assert len(heartbeat(s, nid)) == 1


# -- locality delay ---------------------------------------------------------------------------------------------------
def test_delay_scheduling(tmp_path: Path) -> None:
    """TestFSAppAttempt.testDelayScheduling: the allowed level relaxes after more than numNodes x threshold
    opportunities, and the counter resets."""
    s, _ = scheduler(tmp_path)
    add_node(s, 1)
    submit(s, 1, "queue1")
    app = s.fs_apps[attempt(1)]
    key = (1, -1)
    assert app.allowed_locality_by_count(key, 10, 0.5, 0.5) == NODE_LOCAL
    for _ in range(5):
        s.attempts[attempt(1)].opportunities[key] = s.attempts[attempt(1)].opportunities.get(key, 0) + 1
        assert app.allowed_locality_by_count(key, 10, 0.5, 0.5) == NODE_LOCAL
    s.attempts[attempt(1)].opportunities[key] += 1
    assert app.allowed_locality_by_count(key, 10, 0.5, 0.5) == RACK_LOCAL
    assert s.attempts[attempt(1)].opportunities[key] == 0
    for _ in range(6):
        s.attempts[attempt(1)].opportunities[key] += 1
    assert app.allowed_locality_by_count(key, 10, 0.5, 0.6) == RACK_LOCAL
    s.attempts[attempt(1)].opportunities[key] += 1
    assert app.allowed_locality_by_count(key, 10, 0.5, 0.6) == OFF_SWITCH
    assert app.allowed_locality_by_count(key, 10, -1.0, 0.6) == OFF_SWITCH


def test_delay_scheduling_by_time(tmp_path: Path) -> None:
    """TestFSAppAttempt.testDelaySchedulingForContinuousScheduling: levels relax by the time since the key's last
    container."""
    s, clock = scheduler(tmp_path)
    add_node(s, 1)
    submit(s, 1, "queue1")
    app = s.fs_apps[attempt(1)]
    key = (1, -1)
    clock.ms = 100
    assert app.allowed_locality_by_time(key, 5, 5) == NODE_LOCAL
    clock.ms = 104
    assert app.allowed_locality_by_time(key, 5, 5) == NODE_LOCAL
    clock.ms = 106
    assert app.allowed_locality_by_time(key, 5, 5) == RACK_LOCAL
    clock.ms = 112
    assert app.allowed_locality_by_time(key, 5, 5) == OFF_SWITCH


def test_locality_threshold_delays_off_switch(tmp_path: Path) -> None:
    """testDelayScheduling end to end: a node-local ask is not placed off-switch on another host until the app
    has let numNodes x threshold opportunities pass."""
    s, _ = scheduler(
        tmp_path,
        **{"yarn.scheduler.fair.locality.threshold.node": "0.5", "yarn.scheduler.fair.locality.threshold.rack": "0.5"},
    )
    n1 = add_node(s, 1, rack="/rack1")
    n2 = add_node(s, 2, rack="/rack2")
    submit(s, 1, "queue1")
    ask(s, 1, rr(GB, 1, "host1"), rr(GB, 1, "/rack1"), rr(GB, 1))
    s.update()
    assert heartbeat(s, n2) == []  # first sight: NODE_LOCAL only
    assert heartbeat(s, n2) == []  # 2 opportunities, not more than 2 x 0.5: still NODE_LOCAL
    placed = heartbeat(s, n2)  # past the node threshold -> RACK_LOCAL, then past the rack one -> not yet
    placed += heartbeat(s, n2)
    placed += heartbeat(s, n2)
    assert [c.locality for c in placed] == ["OFF_SWITCH"]
    assert placed[0].container.node_id == n2
    del n1


def test_node_local_is_placed_at_once(tmp_path: Path) -> None:
    s, _ = scheduler(tmp_path, **{"yarn.scheduler.fair.locality.threshold.node": "0.5"})
    n1 = add_node(s, 1)
    submit(s, 1, "queue1")
    ask(s, 1, rr(GB, 1, "host1"), rr(GB, 1, "/rack1"), rr(GB, 1))
    s.update()
    assert [c.locality for c in heartbeat(s, n1)] == ["NODE_LOCAL"]


# -- reservations -----------------------------------------------------------------------------------------------------
def test_reservation_and_fulfilment(tmp_path: Path) -> None:
    """testSimpleContainerReservation-like: a starved app whose ask does not fit reserves the node; when room comes,
    the reservation becomes its container (the id kept) and no other app is served on that node meanwhile."""
    s, _ = scheduler(tmp_path, "<queueMaxAMShareDefault>-1</queueMaxAMShareDefault>")
    nid = add_node(s, 1, 4 * GB, 4)
    submit(s, 1, "queue1")
    ask(s, 1, rr(3 * GB, 1))
    s.update()
    [first] = heartbeat(s, nid)
    submit(s, 2, "queue2")
    ask(s, 2, rr(2 * GB, 1))
    s.update()
    out = s.handle(NodeUpdateSchedulerEvent(node_id=nid))
    assert [type(x) for x in out] == [ContainerReserved]
    node = s.nodes[nid]
    assert node.reserved is not None and node.reserved.app.attempt_id == attempt(2)
    reserved_id = node.reserved.cid
    assert usage(s, "queue2") == 0  # a reservation is not queue usage
    s.allocate(attempt(1), [], [first.container.id])  # app 1 releases its container
    [placed] = heartbeat(s, nid)
    assert placed.attempt_id == attempt(2) and placed.container.id == reserved_id
    assert node.reserved is None


def test_reservation_threshold_gates_reservations(tmp_path: Path) -> None:
    """testReservationThresholdGatesReservations: an ask below the threshold (2 x increment) does not reserve."""
    s, _ = scheduler(
        tmp_path,
        "<queueMaxAMShareDefault>-1</queueMaxAMShareDefault>",
        **{"yarn.scheduler.increment-allocation-mb": "4096"},
    )
    nid = add_node(s, 1, 8 * GB, 8)
    submit(s, 1, "queue1")
    ask(s, 1, rr(8 * GB, 1))
    s.update()
    heartbeat(s, nid)
    submit(s, 2, "queue2")
    ask(s, 2, rr(4 * GB, 1))
    s.update()
    assert not any(isinstance(x, ContainerReserved) for x in s.handle(NodeUpdateSchedulerEvent(node_id=nid)))
    assert s.nodes[nid].reserved is None


# -- running-app limits and the AM share ------------------------------------------------------------------------------
def test_max_running_apps_and_removal(tmp_path: Path) -> None:
    """TestAppRunnability.testNotRunnableApp / testRemoveApp: a queue at maxRunningApps holds a new app
    non-runnable until a runnable one leaves."""
    s, _ = scheduler(tmp_path, "<queue name='queue1'><maxRunningApps>1</maxRunningApps></queue>")
    submit(s, 1, "root.queue1")
    submit(s, 2, "root.queue1")
    leaf = s.queue_manager.get_leaf_queue("root.queue1", False)
    assert leaf is not None
    assert (leaf.num_runnable_apps, leaf.num_non_runnable_apps) == (1, 1)
    assert (
        s.fs_apps[attempt(2)].diagnostics
        == 'The queue "root.queue1" has reached the maximum limit of runnable applications.'
    )
    s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt(1)))
    assert (leaf.num_runnable_apps, leaf.num_non_runnable_apps) == (1, 0)
    assert leaf.is_runnable_app(s.fs_apps[attempt(2)])


def test_user_max_running_apps(tmp_path: Path) -> None:
    """testUserMaxRunningApps: the user's limit."""
    s, _ = scheduler(tmp_path, "<user name='user1'><maxRunningApps>1</maxRunningApps></user>")
    submit(s, 1, "queue1")
    submit(s, 2, "queue1")
    leaf = s.fs_apps[attempt(1)].queue
    assert (leaf.num_runnable_apps, leaf.num_non_runnable_apps) == (1, 1)


def test_queue_max_am_share(tmp_path: Path) -> None:
    """testQueueMaxAMShare: an AM over maxAMShare x the queue's fair share is not allocated."""
    s, _ = scheduler(tmp_path, "<queue name='queue1'><maxAMShare>0.2</maxAMShare></queue>")
    nid = add_node(s, 1, 20 * GB, 20)
    submit(s, 1, "root.queue1")
    ask(s, 1, rr(3 * GB, 1))  # 20 GB x 0.2 = 4 GB: fits
    submit(s, 2, "root.queue1")
    ask(s, 2, rr(2 * GB, 1))  # 3 + 2 > 4: waits
    s.update()
    got = heartbeat(s, nid) + heartbeat(s, nid)
    assert [c.attempt_id for c in got] == [attempt(1)]
    assert "exceeds maximum AM resource allowed" in s.fs_apps[attempt(2)].diagnostics


# -- moves ------------------------------------------------------------------------------------------------------------
def test_move_runnable_app(tmp_path: Path) -> None:
    """testMoveRunnableApp: usage and the app move to the target leaf."""
    s, _ = scheduler(tmp_path, "<queue name='queue1'/><queue name='queue2'/>")
    nid = add_node(s, 1)
    submit(s, 1, "root.queue1")
    ask(s, 1, rr(GB, 1))
    s.update()
    heartbeat(s, nid)
    assert s.move_application(ApplicationId(1, 1), "queue2") == "root.queue2"
    assert (usage(s, "root.queue1"), usage(s, "root.queue2")) == (0, GB)
    assert s.fs_apps[attempt(1)].queue.name == "root.queue2"


def test_move_to_nonexistent_queue(tmp_path: Path) -> None:
    s, _ = scheduler(tmp_path, "<queue name='queue1'/>")
    submit(s, 1, "root.queue1")
    with pytest.raises(SchedulingError, match=r"^Target queue nope not found or is not a leaf queue\.$"):
        s.move_application(ApplicationId(1, 1), "nope")
    with pytest.raises(SchedulingError, match=r"^App to be moved application_1_0009 not found\.$"):
        s.move_application(ApplicationId(1, 9), "queue1")


def test_move_would_violate_max_apps_constraints(tmp_path: Path) -> None:
    """testMoveWouldViolateMaxAppsConstraints."""
    s, _ = scheduler(tmp_path, "<queue name='queue1'/><queue name='queue2'><maxRunningApps>0</maxRunningApps></queue>")
    submit(s, 1, "root.queue1")
    with pytest.raises(SchedulingError, match=r"would violate queue maxRunningApps constraints on queue root\.queue2"):
        s.move_application(ApplicationId(1, 1), "queue2")


def test_move_makes_app_runnable(tmp_path: Path) -> None:
    """testMoveMakesAppRunnable: a non-runnable app moved to a queue with room becomes runnable."""
    s, _ = scheduler(tmp_path, "<queue name='queue1'><maxRunningApps>0</maxRunningApps></queue><queue name='queue2'/>")
    submit(s, 1, "root.queue1")
    app = s.fs_apps[attempt(1)]
    assert app.queue.is_non_runnable_app(app)
    s.move_application(ApplicationId(1, 1), "queue2")
    assert app.queue.name == "root.queue2" and app.queue.is_runnable_app(app)


# -- continuous scheduling --------------------------------------------------------------------------------------------
def test_basic_continuous_scheduling(tmp_path: Path) -> None:
    """TestContinuousScheduling.testBasic: an attempt places the ask without a heartbeat."""
    s, _ = scheduler(tmp_path, **{"yarn.scheduler.fair.continuous-scheduling-enabled": "true"})
    assert s.continuous_scheduling
    add_node(s, 1)
    submit(s, 1, "queue1")
    ask(s, 1, rr(GB, 1))
    s.update()
    got = [x for x in s.continuous_scheduling_attempt() if isinstance(x, ContainerAllocated)]
    assert len(got) == 1


def test_continuous_scheduling_nodes_by_free_memory(tmp_path: Path) -> None:
    """continuousSchedulingAttempt offers the node with the most unallocated memory first."""
    s, _ = scheduler(tmp_path, **{"yarn.scheduler.fair.continuous-scheduling-enabled": "true"})
    add_node(s, 1, 4 * GB, 4)
    n2 = add_node(s, 2, 8 * GB, 8)
    submit(s, 1, "queue1")
    ask(s, 1, rr(GB, 1))
    s.update()
    [got] = [x for x in s.continuous_scheduling_attempt() if isinstance(x, ContainerAllocated)]
    assert got.container.node_id == n2


# -- refresh ----------------------------------------------------------------------------------------------------------
def test_reinitialize_reloads_the_allocation_file(tmp_path: Path) -> None:
    s, _ = scheduler(tmp_path, "<queue name='queue1'><maxRunningApps>0</maxRunningApps></queue>")
    submit(s, 1, "root.queue1")
    app = s.fs_apps[attempt(1)]
    assert app.queue.is_non_runnable_app(app)
    (tmp_path / "fair-scheduler.xml").write_text(
        "<?xml version='1.0'?><allocations><queue name='queue1'/></allocations>"
    )
    s.reinitialize(s.conf)
    assert app.queue.is_runnable_app(app)
