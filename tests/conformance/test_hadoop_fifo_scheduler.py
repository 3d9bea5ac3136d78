"""Hadoop's ``TestFifoScheduler`` (``scheduler/fifo/TestFifoScheduler.java``), its outcome-based methods, on
yarnball's FifoScheduler (shared/reference/fair.md §7), plus the FIFO behaviours the CapacityScheduler does not share
(application-id order over priorities, no AM limit, no moves, no preemption monitor).

Hadoop's MockRM-based methods run on the scheduler directly where the scheduler alone decides the outcome (the AM
container is asked as ``RMAppAttemptImpl.ScheduleTransition`` asks it: priority 0, ANY, the submission's size; the
NM's container statuses arrive on a NODE_UPDATE); the two that need the RM (submission counting, a decommissioning
node) run on the embedded Cluster. MockNodes' racks are ``rack<N>``, MockAM.addRequests' rack ``/default-rack``.
"""

from __future__ import annotations

import pytest

from yarnball.errors import ConfigurationError, SchedulingError
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.policies.fifo import FifoScheduler
from yarnball.policies.scheduler import ContainerAllocated, monitor_policies, validate_scheduler_configuration
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    AppRemovedSchedulerEvent,
    Configuration,
    ContainerId,
    ContainerState,
    ContainerStatus,
    NodeAddedSchedulerEvent,
    NodeId,
    NodeRemovedSchedulerEvent,
    NodeResourceUpdateSchedulerEvent,
    NodeUpdateSchedulerEvent,
    Priority,
    Resource,
    ResourceRequest,
    keys,
)
from yarnball.testing import captured_events

GB = 1024
FIFO = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"


def fifo(**settings: object) -> FifoScheduler:
    return FifoScheduler(Configuration(dict(settings)), cluster_timestamp=1)


def add_node(s: FifoScheduler, i: int, mem: int = 4 * GB, vcores: int = 4, rack: str = "/rack1") -> NodeId:
    nid = NodeId(f"host{i}", 1234)
    s.handle(NodeAddedSchedulerEvent(node_id=nid, rack_name=rack, total_resource=Resource(mem, vcores)))
    return nid


def attempt(n: int) -> ApplicationAttemptId:
    return ApplicationAttemptId(ApplicationId(1, n), 1)


def submit(s: FifoScheduler, n: int, priority: int = 0, queue: str = "default") -> list:
    out = s.handle(
        AppAddedSchedulerEvent(
            application_id=ApplicationId(1, n), queue=queue, user="user", priority=Priority(priority)
        )
    )
    return out + s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt(n)))


def rr(mb: int, n: int, name: str = ANY, priority: int = 1) -> ResourceRequest:
    return ResourceRequest(
        priority=Priority(priority), capability=Resource(mb, 1), resource_name=name, num_containers=n
    )


def update(s: FifoScheduler, nid: NodeId) -> list[ContainerAllocated]:
    return [x for x in s.handle(NodeUpdateSchedulerEvent(node_id=nid)) if isinstance(x, ContainerAllocated)]


def node(s: FifoScheduler, host: str, mem: int, vcores: int = 4, rack: str = "rack0", port: int = 1234) -> NodeId:
    """MockNodes.newNodeInfo / MockRM.registerNode: a node added to the scheduler."""
    nid = NodeId(host, port)
    s.handle(NodeAddedSchedulerEvent(node_id=nid, rack_name=rack, total_resource=Resource(mem, vcores)))
    return nid


def submit_with_memory(s: FifoScheduler, app_id: ApplicationId, am_mb: int) -> ApplicationAttemptId:
    """MockRMAppSubmitter.submitWithMemory up to the AM's ask: the application, its attempt, and the AM container
    asked (priority 0, ANY) as RMAppAttemptImpl.ScheduleTransition asks it."""
    s.set_am_resource(app_id, Resource(am_mb, 1))
    s.handle(AppAddedSchedulerEvent(application_id=app_id, queue="default", user="user"))
    att = ApplicationAttemptId(app_id, 1)
    s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=att))
    s.allocate(att, [ResourceRequest(priority=Priority(0), capability=Resource(am_mb, 1), num_containers=1)], [])
    return att


def add_requests(hosts: list[str], mb: int, priority: int, n: int) -> list[ResourceRequest]:
    """MockAM.addRequests: a host and a ``/default-rack`` ask per host, then the ANY ask."""
    asks = []
    for host in hosts:
        asks += [rr(mb, n, host, priority), rr(mb, n, "/default-rack", priority)]
    return [*asks, rr(mb, n, ANY, priority)]


def outstanding(s: FifoScheduler, att: ApplicationAttemptId, priority: int, name: str) -> int:
    """``ResourceRequest.getNumContainers`` of the attempt's ask (0 once satisfied)."""
    app = s.attempts[att]
    for ka in [*app.keys.values(), *app.idle_keys.values()]:
        if ka.priority.priority == priority:
            if name == ANY:
                return ka.any_count
            entry = ka.names.get(name)
            return entry[0] if entry is not None else 0
    return 0


def used_mb(s: FifoScheduler, nid: NodeId) -> int:
    report = s.node_report(nid)
    assert report is not None
    return report.used.memory_mb


def available_mb(s: FifoScheduler, nid: NodeId) -> int:
    report = s.node_report(nid)
    assert report is not None
    return report.capability.memory_mb - report.used.memory_mb


def current_capacity(s: FifoScheduler) -> float:
    """``getQueueInfo(null, false, false).getCurrentCapacity()``: the default queue's used over cluster memory."""
    (metrics,) = s.queue_metrics()
    return metrics.used_capacity


def completed(cid: ContainerId) -> ContainerStatus:
    return ContainerStatus(container_id=cid, state=ContainerState.COMPLETE, exit_status=0)


def test_testFifoSchedulerCapacityWhenNoNMs() -> None:
    """No nodes: the default queue's current capacity is 0.0 (not NaN)."""
    assert current_capacity(fifo()) == 0.0


def test_testAppAttemptMetrics() -> None:
    """A second attempt of an application is not a second submission: appsSubmitted grows by 1 (here the RM's
    count, which feeds ClusterMetricsInfo's appsSubmitted, over an AM crash that starts attempt 2)."""
    builder = WorkloadBuilder().nodes(1, memory_mb=8 * GB, vcores=8)
    builder.job("j", queue="default", tasks=[task_spec(2, 60_000)])
    cluster = Cluster(Configuration({keys.RM_SCHEDULER: FIFO}), builder.build().nodes, seed=3)
    cluster.submit_workload(builder.build())
    cluster.inject({"at_ms": 20_000, "kind": "am_crash", "target": "j"})
    with captured_events():
        cluster.run(until_ms=3_600_000)
    (app,) = cluster.applications
    assert str(app.current_attempt_id).endswith("_000002")
    assert cluster.counters["apps_submitted"] == 1


def test_testNodeLocalAssignment() -> None:
    """3 node-local asks of 64 MB (normalised to 1 GB) on a 64 GB node: the host's ask goes from 3 to 0 and the
    attempt has 3 live containers."""
    s = fifo()
    nid = node(s, "127.0.0.1", 64 * GB, rack="rack1")
    att = ApplicationAttemptId(ApplicationId(0, 1), 1)
    s.handle(AppAddedSchedulerEvent(application_id=att.application_id, queue="queue1", user="user1"))
    s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=att))
    s.allocate(att, [rr(64, 3, "127.0.0.1", 20), rr(64, 3, "rack1", 20), rr(64, 3, ANY, 20)], [])
    assert outstanding(s, att, 20, "127.0.0.1") == 3
    got = update(s, nid)
    assert outstanding(s, att, 20, "127.0.0.1") == 0
    assert len(s.attempts[att].live) == 3
    assert [a.locality for a in got] == ["NODE_LOCAL"] * 3


def test_testUpdateResourceOnNode() -> None:
    """A 2 GB node updated to 1 GB: total and unallocated 1 GB, capacity 0.0; one node-local 1 GB container, then
    the default queue is full (current capacity 1.0)."""
    s = fifo()
    nid = node(s, "127.0.0.1", 2 * GB, rack="rack1")
    assert len(s.nodes) == 1
    s.handle(NodeResourceUpdateSchedulerEvent(node_id=nid, total_resource=Resource(GB, 4)))
    assert (s.nodes[nid].total_m, s.nodes[nid].unalloc_m) == (GB, GB)
    assert current_capacity(s) == 0.0
    att = ApplicationAttemptId(ApplicationId(0, 1), 1)
    s.handle(AppAddedSchedulerEvent(application_id=att.application_id, queue="queue1", user="user1"))
    s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=att))
    s.allocate(att, [rr(GB, 1, "127.0.0.1"), rr(GB, 1, "rack1"), rr(GB, 1)], [])
    assert outstanding(s, att, 1, "127.0.0.1") == 1
    update(s, nid)
    assert outstanding(s, att, 1, "127.0.0.1") == 0
    assert len(s.attempts[att].live) == 1
    assert current_capacity(s) == 1.0


def test_testGetAppsInQueue() -> None:
    """Both applications' attempts are in ``default``; another queue name gives None."""
    s = fifo()
    submit(s, 1)
    submit(s, 2)
    apps = s.get_apps_in_queue("default")
    assert apps is not None and attempt(1) in apps and attempt(2) in apps and len(apps) == 2
    assert s.get_apps_in_queue("someotherqueue") is None


def test_testAddAndRemoveAppFromFiFoScheduler() -> None:
    """TestSchedulerUtils.verifyAppAddedAndRemovedFromScheduler: added (with its user), then removed."""
    s = fifo()
    app_id = ApplicationId(1, 1)
    s.handle(AppAddedSchedulerEvent(application_id=app_id, queue="queue", user="user"))
    assert s.applications[app_id].user == "user"
    s.handle(AppRemovedSchedulerEvent(application_id=app_id, final_state="FINISHED"))
    assert app_id not in s.applications


def test_testConfValidation() -> None:
    """minimum > maximum is refused with Hadoop's message."""
    with pytest.raises(ConfigurationError) as err:
        fifo(**{keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 2048, keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: 1024})
    assert (
        "Invalid resource scheduler memory allocation configuration, yarn.scheduler.minimum-allocation-mb=2048, "
        "yarn.scheduler.maximum-allocation-mb=1024, min and max should be greater than 0, max should be no smaller "
        "than min."
    ) in str(err.value)
    with pytest.raises(ConfigurationError, match="minimum-allocation-mb=0"):
        fifo(**{keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 0})


def test_testAllocateContainerOnNodeWithoutOffSwitchSpecified() -> None:
    """Host and rack asks without an ANY ask: the heartbeat allocates nothing and does not fail."""
    s = fifo()
    nid = node(s, "127.0.0.1", 6 * GB, rack="/default-rack")
    att = submit_with_memory(s, ApplicationId(0, 1), 2048)
    assert len(update(s, nid)) == 1  # the AM
    s.allocate(att, [rr(GB, 1, "127.0.0.1"), rr(GB, 1, "/default-rack")], [])
    assert update(s, nid) == []


def test_testFifoScheduling() -> None:
    """Two AMs of 2 GB (one per node), then 1 GB for app 1 and 3 GB for app 2 both on nm1's heartbeat (6 GB used,
    nm2 keeps 2 GB); the 1 GB container completing reaches AM 1 and frees its room (5 GB used)."""
    s = fifo()
    nm1 = node(s, "127.0.0.1", 6 * GB, rack="/default-rack", port=1234)
    nm2 = node(s, "127.0.0.2", 4 * GB, rack="/default-rack", port=5678)
    att1 = submit_with_memory(s, ApplicationId(0, 1), 2048)
    update(s, nm1)
    s.allocate(att1, [], [])
    assert used_mb(s, nm1) == 2 * GB
    att2 = submit_with_memory(s, ApplicationId(0, 2), 2048)
    update(s, nm2)
    s.allocate(att2, [], [])
    assert used_mb(s, nm2) == 2 * GB
    s.allocate(att1, add_requests(["127.0.0.1", "127.0.0.2"], GB, 1, 1), [])
    s.allocate(att2, add_requests(["127.0.0.1", "127.0.0.2"], 3 * GB, 0, 1), [])
    update(s, nm1)
    update(s, nm2)
    (c1,) = s.allocate(att1, [], []).containers
    assert (c1.resource.memory_mb, c1.node_id) == (GB, nm1)
    (c2,) = s.allocate(att2, [], []).containers
    assert (c2.resource.memory_mb, c2.node_id) == (3 * GB, nm1)
    assert (available_mb(s, nm1), available_mb(s, nm2)) == (0, 2 * GB)
    assert (used_mb(s, nm1), used_mb(s, nm2)) == (6 * GB, 2 * GB)
    s.handle(NodeUpdateSchedulerEvent(node_id=nm1, completed_containers=(completed(c1.id),)))
    assert len(s.allocate(att1, [], []).completed) == 1
    assert used_mb(s, nm1) == 5 * GB


def test_testNodeUpdateBeforeAppAttemptInit() -> None:
    """A heartbeat while an application has no attempt yet allocates nothing and does not fail; the attempt is added
    after."""
    s = fifo()
    nid = node(s, "127.0.0.1", GB, rack="rack1")
    app_id = ApplicationId(0, 1)
    s.handle(AppAddedSchedulerEvent(application_id=app_id, queue="queue1", user="user1"))
    assert update(s, nid) == []
    s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=ApplicationAttemptId(app_id, 1)))
    assert ApplicationAttemptId(app_id, 1) in s.attempts


@pytest.mark.parametrize(
    ("settings", "ask", "expected"),
    [
        pytest.param({}, 512, 1024, id="testDefaultMinimumAllocation"),
        pytest.param(
            {keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 1536, keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: 15360},
            768,
            1536,
            id="testNonDefaultMinimumAllocation",
        ),
    ],
)
def test_testMinimumAllocation(settings: dict[str, int], ask: int, expected: int) -> None:
    """testDefaultMinimumAllocation / testNonDefaultMinimumAllocation: an AM asking half the minimum allocation
    uses the minimum on its node."""
    s = fifo(**settings)
    nid = node(s, "127.0.0.1", 6 * GB, rack="/default-rack")
    submit_with_memory(s, ApplicationId(0, 1), ask)
    update(s, nid)
    assert used_mb(s, nid) == expected


def test_minimum_allocation_normalises_memory_and_one_vcore() -> None:
    """With a 512 MB minimum an ask of 700 MB / 3 vcores becomes 1024 MB / 1 vcore (DefaultResourceCalculator, the
    minimum as increment)."""
    s = fifo(**{keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 512})
    nid = add_node(s, 0)
    submit(s, 1)
    s.allocate(attempt(1), [ResourceRequest(priority=Priority(1), capability=Resource(700, 3), num_containers=1)], [])
    (got,) = update(s, nid)
    assert got.container.resource == Resource(1024, 1)


def test_placement_is_memory_only() -> None:
    """assignContainer divides the unallocated memory only: 4 containers of 1 GB on a 4 GB node with 1 vcore."""
    s = fifo()
    nid = add_node(s, 0, 4 * GB, 1)
    submit(s, 1)
    s.allocate(attempt(1), [rr(GB, 4)], [])
    assert len(update(s, nid)) == 4


def test_testReconnectedNode() -> None:
    """4 GB + 2 GB nodes: 6 GB available; the 4 GB node reconnecting with 2 GB (removed, added): 4 GB."""
    s = fifo()
    n1 = node(s, "127.0.0.2", 4 * GB)
    node(s, "127.0.0.3", 2 * GB)
    update(s, n1)
    (metrics,) = s.queue_metrics()
    assert metrics.available.memory_mb == 6 * GB
    s.handle(NodeRemovedSchedulerEvent(node_id=n1))
    node(s, "127.0.0.2", 2 * GB)
    update(s, n1)
    (metrics,) = s.queue_metrics()
    assert metrics.available.memory_mb == 4 * GB


def test_testBlackListNodes() -> None:
    """A blacklisted host and, later, a blacklisted rack get nothing; the one host left allowed gets each ask."""
    s = fifo()
    n1 = node(s, "127.0.0.1", 4 * GB, rack="rack0")
    n2 = node(s, "127.0.0.2", 4 * GB, rack="rack0")
    n3 = node(s, "127.0.0.3", 4 * GB, rack="rack1")
    n4 = node(s, "127.0.0.4", 4 * GB, rack="rack1")
    att = ApplicationAttemptId(ApplicationId(100, 1), 1)
    s.handle(AppAddedSchedulerEvent(application_id=att.application_id, queue="queue", user="user"))
    s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=att))
    s.allocate(att, [rr(GB, 1, "rack1", 0), rr(GB, 1, ANY, 0)], [], blacklist_additions=["127.0.0.3"])
    update(s, n3)
    assert s.allocate(att, [], []).containers == ()
    update(s, n4)
    assert [c.node_id for c in s.allocate(att, [], []).containers] == [n4]
    s.allocate(att, [rr(GB, 1, ANY, 0)], [], blacklist_additions=["rack0"])
    for nid in (n1, n2, n3):
        update(s, nid)
        assert s.allocate(att, [], []).containers == ()
    update(s, n4)
    assert [c.node_id for c in s.allocate(att, [], []).containers] == [n4]


def test_testHeadroom() -> None:
    """1 GB and 2 GB allocated on a 4 GB node: each application's headroom is 1 GB (cluster minus used)."""
    s = fifo()
    nid = node(s, "127.0.0.2", 4 * GB)
    att1 = ApplicationAttemptId(ApplicationId(100, 1), 1)
    att2 = ApplicationAttemptId(ApplicationId(200, 2), 1)
    for att in (att1, att2):
        s.handle(AppAddedSchedulerEvent(application_id=att.application_id, queue="queue", user="user"))
        s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=att))
    s.allocate(att1, [rr(GB, 1, ANY, 0)], [])
    s.allocate(att2, [rr(2 * GB, 1, ANY, 0)], [])
    update(s, nid)
    assert s.allocate(att1, [], []).headroom.memory_mb == GB
    assert s.allocate(att2, [], []).headroom.memory_mb == GB


def test_testResourceOverCommit() -> None:
    """A full 4 GB node shrunk to 2 GB: 4 GB used, -2 GB available; a 2 GB container completing reaches the AM and
    leaves 2 GB used, 0 available."""
    s = fifo()
    nm1 = node(s, "127.0.0.1", 4 * GB, rack="/default-rack")
    att1 = submit_with_memory(s, ApplicationId(0, 1), 2048)
    update(s, nm1)
    s.allocate(att1, [], [])
    assert (used_mb(s, nm1), available_mb(s, nm1)) == (2 * GB, 2 * GB)
    s.allocate(att1, add_requests(["127.0.0.1", "127.0.0.2"], 2 * GB, 1, 1), [])
    update(s, nm1)
    (c1,) = s.allocate(att1, [], []).containers
    assert (c1.resource.memory_mb, c1.node_id) == (2 * GB, nm1)
    assert (available_mb(s, nm1), used_mb(s, nm1)) == (0, 4 * GB)
    s.handle(NodeResourceUpdateSchedulerEvent(node_id=nm1, total_resource=Resource(2 * GB, 1)))
    assert (used_mb(s, nm1), available_mb(s, nm1)) == (4 * GB, -2 * GB)
    s.handle(NodeUpdateSchedulerEvent(node_id=nm1, completed_containers=(completed(c1.id),)))
    assert len(s.allocate(att1, [], []).completed) == 1
    assert (used_mb(s, nm1), available_mb(s, nm1)) == (2 * GB, 0)


def test_testRemovedNodeDecomissioningNode() -> None:
    """A heartbeat from a node the scheduler no longer tracks is ignored (no failure, nothing allocated)."""
    s = fifo()
    nid = node(s, "host_decom", 8 * GB)
    update(s, nid)
    s.handle(NodeRemovedSchedulerEvent(node_id=nid))
    assert update(s, nid) == []
    assert nid not in s.nodes


def test_testResourceUpdateDecommissioningNode() -> None:
    """A DECOMMISSIONING node's heartbeat shrinks its scheduler node to what its containers use: total = allocated,
    unallocated 0 (AbstractYarnScheduler.nodeUpdate's RMNodeResourceUpdateEvent)."""
    builder = WorkloadBuilder().nodes(1, memory_mb=8 * GB, vcores=4)
    builder.job("j", queue="default", tasks=[task_spec(1, 600_000)])
    cluster = Cluster(Configuration({keys.RM_SCHEDULER: FIFO}), builder.build().nodes, seed=3)
    cluster.submit_workload(builder.build())
    cluster.inject({"at_ms": 20_000, "kind": "node_decommission", "target": "node0"})
    with captured_events():
        cluster.run(until_ms=30_000)
    sn = cluster.rm.scheduler.nodes[NodeId("node0", 0)]
    used = (sn.total_m - sn.unalloc_m, sn.total_v - sn.unalloc_v)
    assert len(sn.containers) == 2 and used == (sum(c.mem for c in sn.containers.values()), 2)
    assert (sn.total_m, sn.total_v) == used
    assert (sn.unalloc_m, sn.unalloc_v) == (0, 0)


def test_priorities_ignored_applications_in_id_order() -> None:
    """Applications are served in application-id order whatever their priority (the CapacityScheduler would serve
    the higher-priority application 2 first)."""
    s = fifo()
    submit(s, 1, priority=0)
    submit(s, 2, priority=10)
    s.allocate(attempt(2), [rr(2 * GB, 2)], [])
    s.allocate(attempt(1), [rr(2 * GB, 2)], [])
    nid = add_node(s, 0)
    assert [a.attempt_id for a in update(s, nid)] == [attempt(1), attempt(1)]


def test_lower_priority_keys_wait_when_a_key_gets_nothing() -> None:
    """A key that gets no container ends the application's turn: its lower-priority keys are not tried."""
    s = fifo()
    add_node(s, 0, 8 * GB)  # (the maximum allocation is capped by the largest node)
    small = add_node(s, 1, 3 * GB)
    submit(s, 1)
    assert not s.allocate(attempt(1), [rr(4 * GB, 1, priority=1), rr(GB, 1, priority=2)], []).errors
    assert update(s, small) == []


def test_no_am_limit_and_any_queue_name() -> None:
    """Every application is accepted into ``default`` whatever queue it names, and its AM allocated: no AM limit."""
    s = fifo()
    nid = add_node(s, 0, 10 * GB)
    for n in range(1, 11):
        assert submit(s, n, queue="no-such-queue")
        s.allocate(attempt(n), [rr(GB, 1, priority=0)], [])
    assert sum(a.is_am for a in update(s, nid)) == 10
    (metrics,) = s.queue_metrics()
    assert (metrics.path, metrics.apps_running, metrics.allocated.memory_mb) == ("default", 10, 10 * GB)


def test_remove_node_and_attempt() -> None:
    """A removed node leaves the cluster and its containers their attempt; a removed attempt leaves the scheduler;
    an unknown attempt's removal is only logged."""
    s = fifo()
    n0 = add_node(s, 0)
    add_node(s, 1)
    submit(s, 1)
    s.allocate(attempt(1), [rr(GB, 2)], [])
    update(s, n0)
    s.handle(NodeRemovedSchedulerEvent(node_id=n0))
    assert s.cluster_resource == Resource(4 * GB, 4) and s.attempts[attempt(1)].live == {}
    s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt(1)))
    assert attempt(1) not in s.attempts
    s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt(1)))  # logged, ignored


def test_move_not_supported() -> None:
    """AbstractYarnScheduler.moveApplication: the FifoScheduler does not move applications."""
    s = fifo()
    submit(s, 1)
    with pytest.raises(SchedulingError, match="does not support moving apps between queues"):
        s.move_application(ApplicationId(1, 1), "other")


def test_reinitialize_rereads_the_allocation_limits_only() -> None:
    """FifoScheduler.reinitialize (AbstractYarnScheduler.refreshMaximumAllocation): the maximum allocation is read
    again, the minimum is not."""
    s = fifo()
    s.reinitialize(
        Configuration({keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: 4096, keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 2048})
    )
    assert s.get_maximum_allocation().memory_mb == 4096
    assert s.minimum_allocation.memory_mb == 1024


def test_preemption_monitor_refuses_the_fifo_scheduler() -> None:
    """ProportionalCapacityPreemptionPolicy.init refuses a scheduler that is no CapacityScheduler: the RM fails."""
    conf = Configuration({keys.RM_SCHEDULER: FIFO, keys.RM_SCHEDULER_ENABLE_MONITORS: "true"})
    with pytest.raises(ConfigurationError, match=f"Class {FIFO} not instance of .*capacity.CapacityScheduler"):
        monitor_policies(conf)
    with pytest.raises(ConfigurationError, match="not instance of"):
        validate_scheduler_configuration(conf)


def test_rest_fifo_scheduler_info() -> None:
    """FifoSchedulerInfo: the fields of fair.md §7, their values from the allocation limits and the nodes."""
    s = fifo()
    assert s.fifo_scheduler_info()["usedCapacity"] == 0.0  # empty cluster: 0.0, not NaN
    nid = add_node(s, 0)
    add_node(s, 1)
    submit(s, 1)
    s.allocate(attempt(1), [rr(GB, 1)], [])
    update(s, nid)
    assert s.fifo_scheduler_info() == {
        "type": "fifoScheduler",
        "capacity": 1.0,
        "usedCapacity": 0.125,
        "qstate": "RUNNING",
        "minQueueMemoryCapacity": 1024,
        "maxQueueMemoryCapacity": 4096,
        "numNodes": 2,
        "usedNodeCapacity": 1024,
        "availNodeCapacity": 7168,
        "totalNodeCapacity": 8192,
        "numContainers": 1,
    }
