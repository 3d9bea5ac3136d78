"""Hadoop's ``TestFairScheduler`` (``scheduler/fair/``), the methods of trunk (late 2024) that the earlier versions
read for test_hadoop_fair_scheduler_a_d.py, _e_m.py and _n_z*.py did not have, with testPerfMetricsInited and
testRefreshQueuesWhenRMHA: queue maximum container allocations, zero-capacity queues refusing asks, applications
restored by a work-preserving recovery, the ``FSOpDurations`` metrics and an RM fail-over. Method names are
Hadoop's, snake-cased; the test base is fair_scheduler_harness.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from fair_scheduler_harness import FAIR, GB, Harness, rr

from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.policies.fair._fsopdurations import RECORD_CONTEXT, RECORD_NAME
from yarnball.protocols import (
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    ApplicationAttemptId,
    keys,
)
from yarnball.testing import captured_events

#: FairSchedulerTestBase.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB_VALUE
MAX_MB = 10240
#: YarnConfiguration.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES
DEFAULT_MAX_VCORES = 4


def test_queue_maximum_capacity_allocations(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueMaximumCapacityAllocations: ``maxContainerAllocation`` caps a queue's maximum
    allocation, a child inherits its parent's, and a value above the scheduler's maximum is capped by it."""
    h = Harness(
        tmp_path,
        "<queue name='queueA'><maxContainerAllocation>512 mb 1 vcores</maxContainerAllocation></queue>"
        "<queue name='queueB'/>"
        "<queue name='queueC'><maxContainerAllocation>2048 mb 3 vcores</maxContainerAllocation>"
        "<queue name='queueD'/></queue>"
        f"<queue name='queueE'><maxContainerAllocation>{MAX_MB + 1} mb 1 vcores</maxContainerAllocation></queue>",
    )

    def maximum(name: str) -> tuple[int, int]:
        r = h.s.maximum_allocation(h.s.queue_manager.get_queue(name))
        return r.memory_mb, r.vcores

    assert maximum("root.queueA") == (512, 1)
    assert maximum("root.queueB") == (MAX_MB, DEFAULT_MAX_VCORES)
    assert maximum("root.queueC") == (2048, 3)
    assert maximum("root.queueC.queueD") == (2048, 3)
    assert maximum("root.queueE")[0] == MAX_MB


def test_normalization_using_queue_maximum_allocation(tmp_path: Path) -> None:
    """TestFairScheduler.testNormalizationUsingQueueMaximumAllocation: an ask above the queue's (or the
    scheduler's) maximum allocation is normalised down to it, so the queue's demand is the maximum."""
    queues = "<queue name='queueA'><maxContainerAllocation>4096 mb 1 vcores</maxContainerAllocation></queue>"
    queues += "<queue name='queueB'/>"
    h = Harness(tmp_path, queues)
    h.reinitialize(queues)
    for queue, mb in (("root.queueA", 4096 + 1024), ("root.queueB", MAX_MB + 1024)):
        # allocateAppAttempt: the scheduler's allocate called directly (no ApplicationMasterService check)
        h.ask(h.add(queue, "user1"), rr(mb))
    h.s.update()
    assert h.leaf("root.queueA").demand.memory_mb == 4096
    assert h.leaf("root.queueB").demand.memory_mb == MAX_MB


def _zero_resource_queues(resource: str) -> str:
    """``generateAllocationFileWithZeroResource``: queueA with no memory (or no vcores), queueB of weight 0."""
    resources = "0 mb,2vcores" if resource == "memory-mb" else "10000 mb,0vcores"
    return (
        f"<queue name='queueA'><minResources>{resources}</minResources><maxResources>{resources}</maxResources>"
        "<weight>2.0</weight></queue>"
        "<queue name='queueB'><minResources>1 mb 1 vcores</minResources><weight>0.0</weight></queue>"
    )


@pytest.mark.parametrize(
    ("resource", "invalid"),
    [
        pytest.param("memory-mb", rr(2048, vcores=2, n=2), id="testSchedulingRejectedToQueueWithZeroCapacityOfMemory"),
        pytest.param("vcores", rr(0, vcores=1, n=2), id="testSchedulingRejectedToQueueWithZeroCapacityOfVcores"),
    ],
)
def test_scheduling_rejected_to_queue_with_zero_capacity(tmp_path: Path, resource: str, invalid: object) -> None:
    """TestFairScheduler.testSchedulingRejectedToQueueWithZeroCapacityOf{Memory,Vcores}: asks for a resource the
    queue has none of are refused (``SchedulerInvalidResoureRequestException``, here the allocation's error) and
    none of the asks is kept; the application stays in the queue."""
    h = Harness(tmp_path, _zero_resource_queues(resource))
    h.reinitialize(_zero_resource_queues(resource))
    h.add_node(2048, 2)
    aid = h.add("queueA", "user1")
    allocation = h.s.allocate(aid, [invalid, rr(0, vcores=0, n=2)], [])  # type: ignore[list-item]
    (error,) = allocation.errors
    assert error.startswith(
        f"Resource request is invalid for application {aid.application_id} because queue root.queueA has 0 amount "
        "of resource for a resource type! Validation result:"
    )
    assert h.s.get_apps_in_queue("queueA") == [aid]
    assert h.app(aid) is not None
    assert h.app(aid).get_all_resource_requests() == []


@pytest.mark.parametrize(
    ("resource", "mb", "vcores"),
    [
        pytest.param("memory-mb", 0, 2, id="testSchedulingAllowedToQueueWithZeroCapacityOfMemory"),
        pytest.param("vcores", 2048, 0, id="testSchedulingAllowedToQueueWithZeroCapacityOfVcores"),
    ],
)
def test_scheduling_allowed_to_queue_with_zero_capacity(tmp_path: Path, resource: str, mb: int, vcores: int) -> None:
    """TestFairScheduler.testSchedulingAllowedToQueueWithZeroCapacityOf{Memory,Vcores}: an ask for none of the
    missing resource is accepted (Hadoop: no exception; the port also checks the ask is kept)."""
    h = Harness(tmp_path, _zero_resource_queues(resource))
    h.reinitialize(_zero_resource_queues(resource))
    h.add_node(2048, 2)
    aid = h.add("queueA", "user1")
    assert not h.s.allocate(aid, [rr(mb, vcores=vcores, priority=2)], []).errors
    assert [r.num_containers for r in h.app(aid).get_all_resource_requests()] == [1]


#: generateAllocationFilePercentageResource
PERCENTAGE_QUEUES = (
    "<queue name='root' type='parent'><aclSubmitApps> </aclSubmitApps><aclAdministerApps> </aclAdministerApps>"
    "<queue name='parent' type='parent'><maxChildResources>memory-mb=15.0%, vcores=15.0%</maxChildResources>"
    "<queue name='queueA'><aclSubmitApps>user1</aclSubmitApps></queue></queue></queue>"
)


def _recover(h: Harness, queue: str, user: str) -> ApplicationAttemptId:
    """``createRecoveringApplication`` (the AM's size told, the application added as recovering with its queue as
    the placement) then ``addApplicationAttempt(id, false, true)``."""
    aid = h.new_attempt_id()
    h.s.set_am_resource(aid.application_id, rr(1024).capability)
    h.s.handle(
        AppAddedSchedulerEvent(application_id=aid.application_id, queue=queue, user=user, is_app_recovering=True)
    )
    h.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=aid, is_attempt_recovering=True))
    return aid


def test_restore_to_existing_queue(tmp_path: Path) -> None:
    """TestFairScheduler.testRestoreToExistingQueue: a recovering application goes back to its queue, also for a
    user the queue's ACL no longer admits, with no asks."""
    h = Harness(tmp_path, PERCENTAGE_QUEUES)
    h.reinitialize(PERCENTAGE_QUEUES)
    queue = "root.parent.queueA"
    first = _recover(h, queue, "user1")
    assert h.s.get_apps_in_queue(queue) == [first]
    assert h.app(first).get_all_resource_requests() == []
    second = _recover(h, queue, "usernotinacl")
    apps = h.s.get_apps_in_queue(queue)
    assert apps is not None and len(apps) == 2 and apps[1] == second
    assert h.app(second).get_all_resource_requests() == []


def test_restore_to_parent_queue(tmp_path: Path) -> None:
    """TestFairScheduler.testRestoreToParentQueue: a recovering application whose queue is now a parent goes to
    ``root.recovery``."""
    h = Harness(tmp_path, PERCENTAGE_QUEUES)
    h.reinitialize(PERCENTAGE_QUEUES)
    aid = _recover(h, "root.parent", "user1")
    assert h.s.get_apps_in_queue("root.recovery") == [aid]
    assert h.app(aid).get_all_resource_requests() == []


def test_perf_metrics_inited(tmp_path: Path) -> None:
    """TestFairScheduler.testPerfMetricsInited: the started scheduler's ``FSOpDurations`` gives one record."""
    h = Harness(tmp_path)
    collector: list[dict[str, object]] = []
    h.s.fs_op_durations.get_metrics(collector, True)
    assert len(collector) == 1
    (record,) = collector
    assert (record["name"], record["context"]) == (RECORD_NAME, RECORD_CONTEXT)


def test_fs_op_durations_count_the_operations_where_hadoop_adds_them(tmp_path: Path) -> None:
    """Derived from ``FairScheduler.update`` / ``nodeUpdate`` / ``continuousSchedulingAttempt``: each call adds one
    sample of its duration on the virtual clock (0 ms: the clock does not move during a call); a snapshot with
    nothing new keeps the count and starts an empty interval (``MutableStat.snapshot``)."""
    h = Harness(tmp_path)
    nid = h.add_node(4 * GB, 4)  # addNode runs the update once (triggerUpdate)
    h.request(GB, "root.queue1", "user1")  # and one update
    h.heartbeat(nid, times=3)
    h.s.continuous_scheduling_attempt()
    collector: list[dict[str, object]] = []
    h.s.fs_op_durations.get_metrics(collector, False)
    metrics = collector[0]["metrics"]
    assert isinstance(metrics, dict)
    assert (metrics["UpdateThreadRunNumOps"], metrics["NodeUpdateCallNumOps"]) == (2, 3)
    assert metrics["ContinuousSchedulingRunNumOps"] == 1
    assert (metrics["NodeUpdateCallAvgTime"], metrics["NodeUpdateCallMinTime"], metrics["NodeUpdateCallINumOps"]) == (
        0.0,
        0.0,
        3,
    )
    # MinMax.add keeps max at its default Float.MIN_VALUE (> 0) while every sample is 0, as Hadoop reports it
    assert metrics["NodeUpdateCallMaxTime"] == 1.401298464324817e-45
    assert not h.s.fs_op_durations.has_update_thread_run_changed()
    again: list[dict[str, object]] = []
    h.s.fs_op_durations.get_metrics(again, True)
    metrics = again[0]["metrics"]
    assert isinstance(metrics, dict)
    assert (metrics["NodeUpdateCallNumOps"], metrics["NodeUpdateCallINumOps"]) == (3, 0)
    assert metrics["NodeUpdateCallIMinTime"] == 3.4028234663852886e38  # SampleStat.MinMax's Float.MAX_VALUE


def test_refresh_queues_when_rmha(tmp_path: Path) -> None:
    """TestFairScheduler.testRefreshQueuesWhenRMHA, with yarnball's RM restart for the fail-over: the RM starts on
    an empty allocation file (no queues, undeclared pools off); the file then gains test_queue and the RM restarts
    (the RM that becomes active builds its scheduler from the file as it is, as Hadoop's ``transitionToActive``
    creates the active services again); the application submitted to test_queue runs in root.test_queue; after a
    second restart (the fail-over back) the recovered application is the only one and is in root.test_queue."""
    alloc = tmp_path / "fair-scheduler.xml"
    alloc.write_text("<?xml version='1.0'?><allocations></allocations>")
    conf = {
        keys.RM_SCHEDULER: FAIR,
        keys.ALLOCATION_FILE: str(alloc),
        keys.RECOVERY_ENABLED: "true",
        keys.ALLOW_UNDECLARED_POOLS: "false",
        keys.USER_AS_DEFAULT_QUEUE: "false",
    }
    workload = (
        WorkloadBuilder()
        .nodes(1, memory_mb=15120, vcores=8)
        .job("test_app", queue="test_queue", user="user", submit_ms=10_000, tasks=[task_spec(2, 60_000)])
        .build()
    )
    cluster = Cluster(conf, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    assert cluster.rm.scheduler.queue_manager.get_leaf_queue("root.test_queue", False) is None
    alloc.write_text(
        "<?xml version='1.0'?><allocations><queue name='test_queue'><maxRunningApps>3</maxRunningApps></queue>"
        "</allocations>"
    )
    cluster.inject(
        [
            {"at_ms": 1_000, "kind": "rm_restart", "target": "rm", "down_ms": 1000},
            {"at_ms": 30_000, "kind": "rm_restart", "target": "rm", "down_ms": 1000},
        ]
    )
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    accepted = [e for e in events if e["event"] == "application_accepted"]
    assert accepted and all(e.get("queue") in (None, "root.test_queue") for e in accepted), accepted
    recovered = [e for e in events if e["event"] == "application_recovered"]
    assert len(recovered) == 1
    (app,) = cluster.applications
    assert app.queue == "root.test_queue"
    assert (app.state.value, app.final_status.value) == ("FINISHED", "SUCCEEDED")
