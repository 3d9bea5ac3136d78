"""Hadoop's ``TestFairScheduler`` (``scheduler/fair/``), its methods testN... to testZ..., on yarnball's
FairScheduler (shared/reference/fair.md). Method names are Hadoop's, snake-cased; the cluster, the asks and the
expected numbers are the Java test's. The scheduler is built as ``FairSchedulerTestBase.createConfiguration``
builds it (minimum allocation 0 MB, increment 1024 MB, maximum 10240 MB, assignmultiple off, reservation threshold
0.09), a node as ``MockNodes.newNodeInfo`` (``Resources.createResource(mb)`` has 1 vcore), an application as
``createSchedulingRequest`` (submitted, its attempt added, one ANY ask, then ``update``)."""

from __future__ import annotations

from pathlib import Path

from yarnball.policies.fair._fairscheduler import FairScheduler
from yarnball.policies.fair._fsappattempt import FSAppAttempt
from yarnball.policies.fair._fsleafqueue import FSLeafQueue
from yarnball.policies.fair._fsqueuemetrics import fs_queue_metrics
from yarnball.policies.scheduler import AppRejected, create_scheduler
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
    NodeRemovedSchedulerEvent,
    NodeUpdateSchedulerEvent,
    Priority,
    Resource,
    ResourceRequest,
    keys,
)

GB = 1024
FAIR = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"
#: FairSchedulerTestBase.createConfiguration
TEST_BASE = {
    keys.RM_SCHEDULER: FAIR,
    keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: "0",
    keys.RM_SCHEDULER_INCREMENT_ALLOCATION_MB: "1024",
    keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: "10240",
    keys.ASSIGN_MULTIPLE: "false",
    keys.UPDATE_INTERVAL_MS: "10",
    keys.PREEMPTION_THRESHOLD: "0",
    keys.RM_SCHEDULER_RESERVATION_THRESHOLD_INCREMENT_MULTIPLE: "0.09",
}


class Clock:
    def __init__(self) -> None:
        self.ms = 0

    def __call__(self) -> int:
        return self.ms


def rr(mb: int, name: str = ANY, priority: int = 1, n: int = 1, relax: bool = True, vcores: int = 1) -> ResourceRequest:
    """``createResourceRequest(memory, vcores, host, priority, numContainers, relaxLocality)``."""
    return ResourceRequest(
        priority=Priority(priority),
        capability=Resource(mb, vcores),
        resource_name=name,
        num_containers=n,
        relax_locality=relax,
    )


class Harness:
    """``FairSchedulerTestBase`` around one FairScheduler; application ids count from 1 as ``APP_ID`` does."""

    def __init__(self, tmp_path: Path, allocations: str | None = None, **settings: object) -> None:
        self.alloc_file = tmp_path / "test-queues.xml"
        conf = dict(TEST_BASE)
        if allocations is not None:
            self.write(allocations)
            conf[keys.ALLOCATION_FILE] = str(self.alloc_file)
        conf.update({k: str(v) for k, v in settings.items()})
        s = create_scheduler(Configuration(conf), cluster_timestamp=1)
        assert isinstance(s, FairScheduler)
        self.s = s
        self.clock = Clock()
        s.service_start(self.clock)
        self.next_app = 1

    def write(self, allocations: str) -> None:
        self.alloc_file.write_text(f"<?xml version='1.0'?><allocations>{allocations}</allocations>")

    def reinitialize(self, allocations: str) -> None:
        self.write(allocations)
        self.s.reinitialize(self.s.conf)

    # -- nodes -------------------------------------------------------------------------------------------------------
    def node(self, mb: int, vcores: int = -1, host: str = "127.0.0.1", port: int = 1, rack: int = 1) -> NodeId:
        """``MockNodes.newNodeInfo(rack, resource, hostnum, hostName)``: rack ``rack<n>``."""
        nid = NodeId(host, port)
        total = Resource(mb, (1 if mb > 0 else 0) if vcores < 0 else vcores)
        self.s.handle(NodeAddedSchedulerEvent(node_id=nid, rack_name=f"rack{rack}", total_resource=total))
        return nid

    def heartbeat(self, nid: NodeId, times: int = 1) -> None:
        for _ in range(times):
            self.s.handle(NodeUpdateSchedulerEvent(node_id=nid))

    def remove_node(self, nid: NodeId) -> None:
        self.s.handle(NodeRemovedSchedulerEvent(node_id=nid))

    # -- applications ------------------------------------------------------------------------------------------------
    def new_attempt_id(self) -> ApplicationAttemptId:
        n = self.next_app
        self.next_app += 1
        return ApplicationAttemptId(ApplicationId(1, n), 1)

    def add(self, queue: str, user: str, attempt_id: ApplicationAttemptId | None = None) -> ApplicationAttemptId:
        """``addApplication`` and, when accepted, ``addApplicationAttempt``."""
        aid = attempt_id or self.new_attempt_id()
        out = self.s.handle(AppAddedSchedulerEvent(application_id=aid.application_id, queue=queue, user=user))
        if not any(isinstance(x, AppRejected) for x in out):
            self.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=aid))
        return aid

    def request(
        self, mb: int, queue: str, user: str, n: int = 1, priority: int = 1, vcores: int = 1
    ) -> ApplicationAttemptId:
        """``createSchedulingRequest(memory, vcores, queueId, userId, numContainers, priority)``: the RMApp is put
        in the context after the attempt is created, so the attempt is unmanaged."""
        aid = self.add(queue, user)
        if aid in self.s.attempts:
            self.app(aid).unmanaged_am = True
            self.ask(aid, rr(mb, ANY, priority, n, True, vcores))
        self.s.update()
        return aid

    def with_am(self, aid: ApplicationAttemptId, queue: str, user: str, am: Resource | None) -> None:
        """``createApplicationWithAMResource``: the AM's size known before the attempt is added."""
        if am is not None:
            self.s.set_am_resource(aid.application_id, am)
        self.add(queue, user, aid)

    def ask(self, aid: ApplicationAttemptId, *requests: ResourceRequest) -> None:
        """``scheduler.allocate`` called directly: the asks normalised (capped at the maximum allocation), without
        the ApplicationMasterService's validation."""
        self.s.update_requests(aid, list(requests), [])

    def ask_existing(self, aid: ApplicationAttemptId, mb: int, priority: int = 1, vcores: int = 1) -> None:
        """``createSchedulingRequestExistingApplication(memory, vcores, priority, attId)``."""
        self.ask(aid, rr(mb, ANY, priority, 1, True, vcores))
        self.s.update()

    def remove(self, aid: ApplicationAttemptId) -> None:
        self.s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=aid, final_attempt_state="FINISHED"))

    def app(self, aid: ApplicationAttemptId) -> FSAppAttempt:
        return self.s.fs_apps[aid]

    def live(self, aid: ApplicationAttemptId) -> int:
        """``getLiveContainers().size()``."""
        attempt = self.s.attempts.get(aid)
        return len(attempt.live) if attempt is not None else 0

    def reservation_mb(self, aid: ApplicationAttemptId) -> int:
        """``getCurrentReservation().getMemorySize()``."""
        return self.s.attempts[aid].reserved_m

    def leaf(self, name: str) -> FSLeafQueue:
        leaf = self.s.queue_manager.get_leaf_queue(name, False)
        assert leaf is not None, name
        return leaf

    def usage_mb(self, name: str) -> int:
        queue = self.s.queue_manager.get_queue(name)
        assert queue is not None, name
        return queue.resource_usage.memory_mb


# -- testN... -----------------------------------------------------------------------------------------------------
def test_non_min_zero_resources_settings(tmp_path: Path) -> None:
    """TestFairScheduler.testNonMinZeroResourcesSettings."""
    s = Harness(
        tmp_path,
        **{
            keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB: 256,
            keys.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES: 1,
            keys.RM_SCHEDULER_INCREMENT_ALLOCATION_MB: 512,
            keys.RM_SCHEDULER_INCREMENT_ALLOCATION_VCORES: 2,
        },
    ).s
    assert (s.minimum_allocation.memory_mb, s.minimum_allocation.vcores) == (256, 1)
    assert (s.increment.memory_mb, s.increment.vcores) == (512, 2)


# -- testS... (first part) -----------------------------------------------------------------------------------------
def test_simple_fair_share_calculation(tmp_path: Path) -> None:
    """TestFairScheduler.testSimpleFairShareCalculation."""
    h = Harness(tmp_path)
    h.node(10 * GB)
    h.request(10 * GB, "queue1", "user1")
    h.request(10 * GB, "queue2", "user1")
    h.request(10 * GB, "root.default", "user1")
    h.s.update()
    root = h.s.queue_manager.root_queue
    root.steady_fair_share = h.s.cluster_resource
    root.recompute_steady_shares()
    queues = h.s.queue_manager.leaf_queues
    assert len(queues) == 3
    for q in queues:
        metrics = fs_queue_metrics(q)
        assert q.fair_share.memory_mb == 3414 and metrics.fair_share.memory_mb == 3414
        assert q.steady_fair_share.memory_mb == 3414 and metrics.steady_fair_share.memory_mb == 3414


def test_queue_info(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueInfo."""
    h = Harness(
        tmp_path, "<queue name='queueA'><weight>.25</weight></queue><queue name='queueB'><weight>.75</weight></queue>"
    )
    n1 = h.node(8 * GB, 8)
    h.request(1 * GB, "queueA", "user1")
    h.request(6 * GB, "queueB", "user1")
    h.s.update()
    a, b = fs_queue_metrics(h.leaf("queueA")), fs_queue_metrics(h.leaf("queueB"))
    assert (a.capacity, a.used_capacity) == (0.25, 0.0)
    assert (a.containers_allocated, a.allocated.memory_mb) == (0, 0)
    assert (b.capacity, b.used_capacity) == (0.75, 0.0)
    h.heartbeat(n1, 2)
    h.s.queue_metrics()  # the container counts are refreshed with the reports
    a, b = fs_queue_metrics(h.leaf("queueA")), fs_queue_metrics(h.leaf("queueB"))
    assert (a.capacity, a.used_capacity) == (0.25, 0.5)
    assert (a.containers_allocated, a.allocated.memory_mb) == (1, 1024)
    assert (b.capacity, b.used_capacity) == (0.75, 1.0)
    assert (b.containers_allocated, b.allocated.memory_mb) == (1, 6144)


def test_simple_hierarchical_fair_share_calculation(tmp_path: Path) -> None:
    """TestFairScheduler.testSimpleHierarchicalFairShareCalculation."""
    h = Harness(tmp_path)
    capacity = 10 * 24
    h.node(capacity)
    h.request(10 * GB, "parent.queue2", "user1")
    h.request(10 * GB, "parent.queue3", "user1")
    h.request(10 * GB, "root.default", "user1")
    h.s.update()
    qm = h.s.queue_manager
    qm.root_queue.steady_fair_share = h.s.cluster_resource
    qm.root_queue.recompute_steady_shares()
    assert len(qm.leaf_queues) == 3
    for name, share in (("default", capacity // 2), ("parent.queue2", capacity // 4), ("parent.queue3", capacity // 4)):
        q = qm.get_leaf_queue(name, True)
        assert q is not None
        metrics = fs_queue_metrics(q)
        assert (q.fair_share.memory_mb, metrics.fair_share.memory_mb) == (share, share)
        assert (q.steady_fair_share.memory_mb, metrics.steady_fair_share.memory_mb) == (share, share)


def test_scheduler_root_queue_metrics(tmp_path: Path) -> None:
    """TestFairScheduler.testSchedulerRootQueueMetrics."""
    h = Harness(tmp_path)
    n1 = h.node(1024, host="host1", port=1)
    h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    h.request(1024, "queue2", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    root = h.s.queue_metrics()[0]
    assert root.reserved.memory_mb == 1024
    n2 = h.node(1024, host="host2", port=2)
    h.heartbeat(n2)
    assert h.s.queue_metrics()[0].reserved.memory_mb == 1024
    h.heartbeat(n1)
    assert h.s.queue_metrics()[0].reserved.memory_mb == 0


def test_simple_container_allocation(tmp_path: Path) -> None:
    """TestFairScheduler.testSimpleContainerAllocation."""
    h = Harness(tmp_path)
    n1 = h.node(1024, 4, "127.0.0.1", 1)
    n2 = h.node(512, 2, "127.0.0.2", 2)
    h.request(512, "queue1", "user1", 2, vcores=2)
    h.s.update()
    h.heartbeat(n1)
    # asked for less than the increment allocation: DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB
    assert h.usage_mb("queue1") == 1024
    h.heartbeat(n2)
    queue1 = h.s.queue_manager.get_queue("root.queue1")
    assert queue1 is not None
    assert (queue1.resource_usage.memory_mb, queue1.resource_usage.vcores) == (1024, 2)
    metrics = {m.path: m for m in h.s.queue_metrics()}
    assert (metrics["root.queue1"].allocated.memory_mb, metrics["root.queue1"].allocated.vcores) == (1024, 2)
    root = metrics["root"]
    assert (root.allocated.memory_mb, root.allocated.vcores) == (1024, 2)
    assert (root.available.memory_mb, root.available.vcores) == (512, 4)


def test_simple_container_reservation(tmp_path: Path) -> None:
    """TestFairScheduler.testSimpleContainerReservation."""
    h = Harness(tmp_path)
    n1 = h.node(1024, host="127.0.0.1", port=1)
    h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    assert h.usage_mb("queue1") == 1024
    aid = h.request(1024, "queue2", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    assert h.usage_mb("queue2") == 0
    assert h.reservation_mb(aid) == 1024
    n2 = h.node(1024, host="127.0.0.2", port=2)
    h.heartbeat(n2)
    assert h.usage_mb("queue2") == 1024
    assert h.reservation_mb(aid) == 1024
    h.heartbeat(n1)
    assert h.reservation_mb(aid) == 0
