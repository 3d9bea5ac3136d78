"""Hadoop's ``TestFairScheduler`` (``scheduler/fair/``), its methods testN... to testZ..., on yarnball's
FairScheduler (shared/reference/fair.md). Method names are Hadoop's, snake-cased; the cluster, the asks and the
expected numbers are the Java test's. The scheduler is built as ``FairSchedulerTestBase.createConfiguration``
builds it (minimum allocation 0 MB, increment 1024 MB, maximum 10240 MB, assignmultiple off, reservation threshold
0.09), a node as ``MockNodes.newNodeInfo`` (``Resources.createResource(mb)`` has 1 vcore), an application as
``createSchedulingRequest`` (submitted, its attempt added, one ANY ask, then ``update``)."""

from __future__ import annotations

from pathlib import Path

from yarnball.policies.fair import ConfigurableResource, FakeFSApp
from yarnball.policies.fair._fairscheduler import FairScheduler
from yarnball.policies.fair._fsappattempt import FSAppAttempt
from yarnball.policies.fair._fsleafqueue import FSLeafQueue
from yarnball.policies.fair._fsqueuemetrics import fs_queue_metrics
from yarnball.policies.scheduler import AppAccepted, AppRejected, create_scheduler
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    ContainerExpiredSchedulerEvent,
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


def reservations(h: Harness, aid: ApplicationAttemptId) -> int:
    """``getNumReservations(null, true)``: the attempt's reserved containers."""
    return sum(len(by_node) for by_node in h.s.attempts[aid].reserved.values())


# -- testO... and testR... (first part) -------------------------------------------------------------------------------
def test_off_switch_app_reservation_threshold(tmp_path: Path) -> None:
    """TestFairScheduler.testOffSwitchAppReservationThreshold."""
    h = Harness(tmp_path, **{keys.RESERVABLE_NODES: 0.5})
    nodes = [h.node(3072, host=f"127.0.0.{i}", port=1) for i in (1, 2, 3)]
    for nid in nodes:
        h.request(2048, "queue1", "user1", 1)
        h.s.update()
        h.heartbeat(nid)
    assert h.usage_mb("queue1") == 6144
    aid = h.request(2048, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nodes[0])
    assert reservations(h, aid) == 1
    h.s.update()
    h.heartbeat(nodes[1])
    assert reservations(h, aid) == 2
    h.s.update()
    h.heartbeat(nodes[2])
    assert reservations(h, aid) == 2  # ceil(3 x 0.5): no third reservation
    n4 = h.node(3072, host="127.0.0.4", port=1)
    h.s.update()
    h.heartbeat(n4)
    assert h.usage_mb("queue1") == 8192
    for nid in nodes:
        h.heartbeat(nid)
    h.s.update()
    assert reservations(h, aid) == 0


def test_rack_local_app_reservation_threshold(tmp_path: Path) -> None:
    """TestFairScheduler.testRackLocalAppReservationThreshold. Hadoop's fifth node repeats the fourth's id
    (127.0.0.4:1), which replaces it in the ClusterNodeTracker with an empty node, and then heartbeats "node4": here
    the fifth node has its own id and is the one heartbeating (yarnball ignores a node added twice)."""
    h = Harness(tmp_path, **{keys.RESERVABLE_NODES: 0.5})
    n1 = h.node(3072, host="127.0.0.1", port=1, rack=1)
    others = [h.node(3072, host=f"127.0.0.{i}", port=1, rack=2) for i in (2, 3, 4)]
    for nid in [n1, *others]:
        h.request(2048, "queue1", "user1", 1)
        h.s.update()
        h.heartbeat(nid)
    assert h.usage_mb("queue1") == 8192
    # an application asking for rack2 only (strict), never served
    rack_only = h.add("queue1", "user1")
    h.ask(rack_only, rr(2048, "rack2", 1, 1, False))
    aid = h.request(2048, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    assert reservations(h, aid) == 1
    h.s.update()
    h.heartbeat(others[0])
    assert reservations(h, aid) == 2
    h.s.update()
    h.heartbeat(others[1])
    assert reservations(h, aid) == 2
    n5 = h.node(3072, host="127.0.0.5", port=1, rack=2)
    h.s.update()
    h.heartbeat(n5)
    assert h.usage_mb("queue1") == 10240
    for nid in [n1, *others]:
        h.heartbeat(nid)
    h.s.update()
    assert reservations(h, aid) == 0


def test_reservation_threshold_with_assign_multiple(tmp_path: Path) -> None:
    """TestFairScheduler.testReservationThresholdWithAssignMultiple."""
    h = Harness(tmp_path, **{keys.RESERVABLE_NODES: 0, keys.ASSIGN_MULTIPLE: "true", keys.DYNAMIC_MAX_ASSIGN: "false"})
    n1 = h.node(4096, 4, host="127.0.0.1", port=1, rack=1)
    n2 = h.node(4096, 4, host="127.0.0.2", port=1, rack=2)
    aid = h.request(1024, "queue1", "user1", 10)
    h.s.update()
    h.heartbeat(n1)
    h.s.update()
    h.heartbeat(n2)
    assert h.usage_mb("queue1") == 8192
    assert reservations(h, aid) == 0


AM_PRIORITY = 0  # RMAppAttemptImpl.AM_CONTAINER_PRIORITY
#: the static leaf root.default that 3.3's QueueManager.initialize creates (trunk's does not, YARN-7769)
STATIC_DEFAULT = "<queue name='default'/>"


def test_request_am_resource_in_zero_fair_share_queue(tmp_path: Path) -> None:
    """TestFairScheduler.testRequestAMResourceInZeroFairShareQueue."""
    h = Harness(
        tmp_path,
        "<queue name='queue1'><weight>0.0</weight><maxResources>4096mb,10vcores</maxResources>"
        "<maxAMShare>0.5</maxAMShare></queue>"
        "<queue name='queue2'><weight>2.0</weight></queue><queue name='queue3'><weight>0.000001</weight></queue>",
    )
    nid = h.node(8192, 20, port=0)
    h.s.update()
    h.request(1024, "root.queue2", "user2", 1)
    h.s.update()
    h.heartbeat(nid)
    am = Resource(1024, 1)
    cases = ((1, "root.queue1", 3 * 1024, 0), (2, "root.queue1", 2 * 1024, 1), (3, "root.queue3", 1024, 1))
    for n, queue, mb, running in cases:
        aid = ApplicationAttemptId(ApplicationId(1, 100 + n), 1)
        h.with_am(aid, queue, "user1", am)
        h.ask_existing(aid, mb, AM_PRIORITY)
        h.s.update()
        h.heartbeat(nid)
        assert h.live(aid) == running, (n, queue)


def test_reservation_threshold_gates_reservations(tmp_path: Path) -> None:
    """TestFairScheduler.testReservationThresholdGatesReservations."""
    h = Harness(
        tmp_path,
        "<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>",
        **{keys.RM_SCHEDULER_RESERVATION_THRESHOLD_INCREMENT_MULTIPLE: 2},
    )
    n1 = h.node(4096, 4, host="127.0.0.1", port=1)
    h.request(4096, "queue1", "user1", 1, 1, vcores=4)
    h.s.update()
    h.heartbeat(n1)
    assert h.usage_mb("queue1") == 4096
    aid = h.request(1024, "queue2", "user1", 1)
    h.s.update()
    h.heartbeat(n1)
    assert h.usage_mb("queue2") == 0
    assert reservations(h, aid) == 0
    h.ask_existing(aid, 1024, 1, vcores=3)  # above the threshold in vcores
    h.s.update()
    h.heartbeat(n1)
    assert h.usage_mb("queue2") == 0
    assert h.s.attempts[aid].reserved_v == 3
    n2 = h.node(1024, 4, host="127.0.0.2", port=2)
    h.heartbeat(n2)
    queue2 = h.s.queue_manager.get_queue("root.queue2")
    assert queue2 is not None and queue2.resource_usage.vcores == 3
    assert h.s.attempts[aid].reserved_v == 3
    h.heartbeat(n1)
    assert h.s.attempts[aid].reserved_v == 0


# -- testQ... (first part) and testN... ---------------------------------------------------------------------------
def test_queueu_name_with_periods(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueuNameWithPeriods (Hadoop's spelling). The allocation file declares
    ``root.default``, the static leaf 3.3's ``QueueManager.initialize`` created (trunk does not, YARN-7769)."""
    h = Harness(tmp_path, STATIC_DEFAULT)
    assert len(h.s.queue_manager.leaf_queues) == 1
    for queue, leaves in ((".A", 1), ("A.", 1), ("A.B", 2)):
        aid = h.new_attempt_id()
        h.s.handle(AppAddedSchedulerEvent(application_id=aid.application_id, queue=queue, user="user1"))
        assert len(h.s.queue_manager.leaf_queues) == leaves, queue
        assert aid not in h.s.fs_apps
    assert [ApplicationId(1, 3)] == list(h.s.applications)  # only "A.B" was accepted


def simple_groups(user: str) -> tuple[str, ...]:
    """Hadoop's test ``SimpleGroupsMapping``."""
    if user == "admins":
        return ("root",)
    if user == "nosecondarygroupuser":
        return ("primarygrouponly",)
    return (f"{user}group", f"{user}subgroup1", f"{user}subgroup2")


def test_queue_placement_with_policy(tmp_path: Path) -> None:
    """TestFairScheduler.testQueuePlacementWithPolicy: the policies set in the test are the allocation file's."""
    queues = "".join(
        f"<queue name='{q}'/>" for q in ("user1", "user3group", "user4subgroup1", "user4subgroup2", "user5subgroup2")
    )
    h = Harness(
        tmp_path,
        queues + "<queuePlacementPolicy><rule name='specified' create='true'/><rule name='user' create='false'/>"
        "<rule name='primaryGroup' create='false'/><rule name='secondaryGroupExistingQueue' create='false'/>"
        "<rule name='default' create='true'/></queuePlacementPolicy>",
    )
    h.s.user_groups = simple_groups
    for queue, user, placed in (
        ("somequeue", "user1", "root.somequeue"),
        ("default", "user1", "root.user1"),
        ("default", "user3", "root.user3group"),
        ("default", "user4", "root.user4subgroup1"),
        ("default", "user5", "root.user5subgroup2"),
        ("default", "otheruser", "root.default"),
    ):
        assert h.app(h.request(1024, queue, user)).queue.name == placed, (queue, user)
    h.reinitialize(
        queues + "<queuePlacementPolicy><rule name='user' create='false'/><rule name='specified' create='true'/>"
        "<rule name='default' create='true'/></queuePlacementPolicy>"
    )
    for queue, user, placed in (
        ("somequeue", "user1", "root.user1"),
        ("somequeue", "otheruser", "root.somequeue"),
        ("default", "otheruser", "root.default"),
    ):
        assert h.app(h.request(1024, queue, user)).queue.name == placed, (queue, user)


def test_nested_user_queue(tmp_path: Path) -> None:
    """TestFairScheduler.testNestedUserQueue (``assignToQueue`` is the submission's placement)."""
    h = Harness(
        tmp_path,
        "<queue name='user1group' type='parent'><minResources>1024mb,0vcores</minResources></queue>"
        "<queuePlacementPolicy><rule name='specified' create='false'/>"
        "<rule name='nestedUserQueue'><rule name='primaryGroup' create='false'/></rule>"
        "<rule name='default'/></queuePlacementPolicy>",
    )
    h.s.user_groups = simple_groups
    assert h.app(h.add("root.default", "user1")).queue.name == "root.user1group.user1"


# -- testS... (second part), testQ..., testU..., testR..., testN... -----------------------------------------------
def test_steady_fair_share_with_reload_and_node_add_remove(tmp_path: Path) -> None:
    """TestFairScheduler.testSteadyFairShareWithReloadAndNodeAddRemove (``root.default`` declared, as 3.3 creates
    it: it takes its steady share beside the children)."""
    tree = "<defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy><queue name='root'>"
    tree += "<schedulingPolicy>drf</schedulingPolicy>" + STATIC_DEFAULT + "{}</queue>"
    h = Harness(
        tmp_path,
        tree.format("<queue name='child1'><weight>1</weight></queue><queue name='child2'><weight>1</weight></queue>"),
    )

    def steady(name: str) -> int:
        return h.leaf(name).steady_fair_share.memory_mb

    assert (steady("child1"), steady("child2")) == (0, 0)
    n1 = h.node(6144, host="127.0.0.1", port=1)
    assert h.s.cluster_resource.memory_mb == 6144
    assert (steady("child1"), steady("child2")) == (2048, 2048)
    h.reinitialize(
        tree.format(
            "<queue name='child1'><weight>1</weight></queue><queue name='child2'><weight>2</weight></queue>"
            "<queue name='child3'><weight>2</weight></queue>"
        )
    )
    assert (steady("child1"), steady("child2"), steady("child3")) == (1024, 2048, 2048)
    h.remove_node(n1)
    assert h.s.cluster_resource.memory_mb == 0
    assert (steady("child1"), steady("child2")) == (0, 0)


def test_steady_fair_share_with_queue_created_runtime(tmp_path: Path) -> None:
    """TestFairScheduler.testSteadyFairShareWithQueueCreatedRuntime (``root.default`` declared, as 3.3 creates it)."""
    h = Harness(tmp_path, STATIC_DEFAULT, **{keys.USER_AS_DEFAULT_QUEUE: "true"})
    h.node(6144, host="127.0.0.1", port=1)
    assert h.s.cluster_resource.memory_mb == 6144
    assert h.s.queue_manager.root_queue.steady_fair_share.memory_mb == 6144
    assert h.leaf("default").steady_fair_share.memory_mb == 6144
    h.with_am(h.new_attempt_id(), "default", "user1", None)
    assert h.leaf("default").steady_fair_share.memory_mb == 3072
    assert h.leaf("user1").steady_fair_share.memory_mb == 3072


def test_queue_demand_calculation(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueDemandCalculation. Hadoop's third ask comes from a second attempt of application
    2 (appattempt 2_2), which its ``addApplicationAttempt`` adds to root.queue2 beside the first; here it is an
    application of its own (yarnball's attempt replaces the previous one, as the RM's attempts do)."""
    h = Harness(tmp_path)
    min_req = 1024  # YarnConfiguration.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB
    id11 = h.add("root.queue1", "user1")
    h.ask(id11, rr(min_req * 2, ANY, 1, 1, True))
    id21 = h.add("root.queue2", "user1")
    h.ask(id21, rr(2 * min_req, "foo", 1, 1, False), rr(2 * min_req, ANY, 1, 1, False))
    id22 = h.add("root.queue2", "user1")
    h.ask(id22, rr(min_req, "bar", 2, 2, True), rr(min_req, ANY, 2, 2, True))
    h.s.update()
    assert h.s.queue_manager.get_queue("root.queue1").demand.memory_mb == 2 * min_req  # type: ignore[union-attr]
    assert h.s.queue_manager.get_queue("root.queue2").demand.memory_mb == 4 * min_req  # type: ignore[union-attr]


def test_user_max_running_apps(tmp_path: Path) -> None:
    """TestFairScheduler.testUserMaxRunningApps."""
    h = Harness(tmp_path, "<user name='user1'><maxRunningApps>1</maxRunningApps></user>")
    nid = h.node(8192, 8, host="127.0.0.1", port=1)
    a1 = h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(a1) == 1
    a2 = h.request(1024, "queue1", "user1", 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(a2) == 0
    h.ask_existing(a1, 1024, 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(a1) == 2


def test_reservation_with_multiple_priorities(tmp_path: Path) -> None:
    """TestFairScheduler.testReservationWithMultiplePriorities."""
    h = Harness(tmp_path)
    nid = h.node(2048, 2, host="host1", port=1)
    a1 = h.request(1024, "queue", "user", 1, 1)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(a1) == 1
    a2 = h.request(2048, "queue1", "user1", 1, 2, vcores=2)
    h.s.update()
    h.heartbeat(nid)
    assert reservations(h, a2) == 1
    h.ask_existing(a2, 2048, 1, vcores=2)  # a higher priority
    [container] = list(h.s.attempts[a1].live)
    h.s.update_requests(a1, [], [container])
    h.heartbeat(nid)
    live = list(h.s.attempts[a2].live.values())
    assert len(live) == 1
    assert live[0].priority.priority == 2  # the reservation's (lower) priority


def test_not_allow_submit_application(tmp_path: Path) -> None:
    """TestFairScheduler.testNotAllowSubmitApplication: the scheduler rejects the submission (the RMApp then
    fails)."""
    h = Harness(
        tmp_path,
        "<queue name='root'><aclSubmitApps> </aclSubmitApps><aclAdministerApps> </aclAdministerApps>"
        "<queue name='queue1'><aclSubmitApps>userallow</aclSubmitApps>"
        "<aclAdministerApps>userallow</aclAdministerApps></queue></queue>",
    )
    out = h.s.handle(AppAddedSchedulerEvent(application_id=ApplicationId(1, 1), queue="queue1", user="usernotallow"))
    assert [type(x) for x in out] == [AppRejected]
    assert ApplicationId(1, 1) not in h.s.applications


def test_remove_node_updates_root_queue_metrics(tmp_path: Path) -> None:
    """TestFairScheduler.testRemoveNodeUpdatesRootQueueMetrics."""
    h = Harness(tmp_path)

    def available() -> tuple[int, int]:
        root = h.s.queue_metrics()[0]
        return root.available.memory_mb, root.available.vcores

    assert available() == (0, 0)
    nid = h.node(1024, 4, host="127.0.0.1", port=1)
    assert available() == (1024, 4)
    h.s.update()
    assert available() == (1024, 4)
    h.remove_node(nid)
    assert available() == (0, 0)
    h.s.update()
    assert available() == (0, 0)


def test_strict_locality(tmp_path: Path) -> None:
    """TestFairScheduler.testStrictLocality."""
    h = Harness(tmp_path)
    n1 = h.node(1024, host="127.0.0.1", port=1)
    n2 = h.node(1024, host="127.0.0.2", port=2)
    aid = h.request(1024, "queue1", "user1", 0)
    for request in (rr(1024, "127.0.0.1", 1, 1, True), rr(1024, "rack1", 1, 1, False), rr(1024, ANY, 1, 1, False)):
        h.ask(aid, request)
        h.s.update()
    h.s.update()
    for _ in range(10):
        h.heartbeat(n2)
        assert h.live(aid) == 0
        assert reservations(h, aid) == 0
    h.heartbeat(n1)
    assert h.live(aid) == 1


def test_reservations_strict_locality(tmp_path: Path) -> None:
    """TestFairScheduler.testReservationsStrictLocality."""
    h = Harness(tmp_path)
    n1 = h.node(1024, 1, host="host1", port=1)
    h.node(1024, 1, host="host2", port=2)
    aid = h.request(1024, "queue1", "user1", 0)
    for request in (rr(1024, "host2", 1, 1, True), rr(1024, "rack1", 1, 1, False), rr(1024, ANY, 1, 1, False)):
        h.ask(aid, request)
        h.s.update()
    h.s.update()
    h.heartbeat(n1)
    assert h.live(aid) == 0
    h.heartbeat(n1)
    assert reservations(h, aid) == 0


def test_no_more_cpu_on_node(tmp_path: Path) -> None:
    """TestFairScheduler.testNoMoreCpuOnNode."""
    h = Harness(tmp_path)
    nid = h.node(2048, 1, host="127.0.0.1", port=1)
    aid = h.request(1024, "default", "user1", 2)
    h.s.update()
    h.heartbeat(nid)
    assert h.live(aid) == 1
    h.heartbeat(nid)
    assert h.live(aid) == 1


def verify_app_runnable(h: Harness, aid: ApplicationAttemptId, runnable: bool) -> None:
    app = h.app(aid)
    assert app.queue.is_runnable_app(app) == runnable
    assert app.queue.is_non_runnable_app(app) == (not runnable)


def verify_queue_num_runnable(h: Harness, name: str, runnable: int, non_runnable: int) -> None:
    leaf = h.leaf(name)
    assert (leaf.num_runnable_apps, leaf.num_non_runnable_apps) == (runnable, non_runnable)


def test_user_and_queue_max_running_apps(tmp_path: Path) -> None:
    """TestFairScheduler.testUserAndQueueMaxRunningApps."""
    h = Harness(
        tmp_path,
        "<queue name='queue1'><maxRunningApps>2</maxRunningApps></queue>"
        "<user name='user1'><maxRunningApps>1</maxRunningApps></user>",
    )
    a1 = h.request(1024, "queue1", "user1")
    verify_app_runnable(h, a1, True)
    verify_queue_num_runnable(h, "queue1", 1, 0)
    a2 = h.request(1024, "queue2", "user1")  # exceeds the user's limit
    verify_app_runnable(h, a2, False)
    verify_queue_num_runnable(h, "queue2", 0, 1)
    a3 = h.request(1024, "queue1", "user2")
    verify_app_runnable(h, a3, True)
    verify_queue_num_runnable(h, "queue1", 2, 0)
    a4 = h.request(1024, "queue1", "user2")  # exceeds the queue's limit
    verify_app_runnable(h, a4, False)
    verify_queue_num_runnable(h, "queue1", 2, 1)
    h.remove(a1)
    verify_app_runnable(h, a2, True)
    verify_queue_num_runnable(h, "queue2", 1, 0)
    verify_app_runnable(h, a4, True)
    verify_queue_num_runnable(h, "queue1", 2, 0)
    a5 = h.request(1024, "queue1", "user2")
    verify_app_runnable(h, a5, False)
    verify_queue_num_runnable(h, "queue1", 2, 1)


# -- testQueueMaxAMShare... ------------------------------------------------------------------------------------------
class AMs:
    """The managed applications of the AM-share tests: ``createApplicationWithAMResource`` then an AM ask at
    ``AM_CONTAINER_PRIORITY``; application ids are the test's (1, 2, ...)."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.ids: dict[int, ApplicationAttemptId] = {}

    def submit(self, n: int, queue: str, am: Resource, user: str = "user1") -> ApplicationAttemptId:
        aid = self.ids[n] = ApplicationAttemptId(ApplicationId(1, 100 + n), 1)
        self.h.with_am(aid, queue, user, am)
        self.h.ask_existing(aid, am.memory_mb, AM_PRIORITY, vcores=am.vcores)
        self.h.s.update()
        return aid

    def am_mb(self, n: int) -> int:
        """``getAMResource().getMemorySize()``."""
        return self.h.app(self.ids[n]).am_resource.memory_mb

    def live(self, n: int) -> int:
        return self.h.live(self.ids[n])

    def usage(self, n: int) -> Resource:
        """``getResourceUsage()`` (none once the attempt is gone)."""
        app = self.h.s.fs_apps.get(self.ids[n])
        return app.resource_usage if app is not None else Resource(0, 0)


def test_queue_max_am_share(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueMaxAMShare."""
    h = Harness(tmp_path, "<queue name='queue1'><maxAMShare>0.2</maxAMShare></queue>")
    nid = h.node(20480, 20, port=0)
    h.s.update()
    queue1 = h.leaf("queue1")
    assert queue1.fair_share.memory_mb == 0
    h.request(1 * GB, "root.default", "user1")
    h.s.update()
    h.heartbeat(nid)
    ams = AMs(h)
    none = Resource(0, 0)

    def check(n: int, am_mb: int, live: int, queue_am_mb: int) -> None:
        assert (ams.am_mb(n), ams.live(n), queue1.am_resource_usage.memory_mb) == (am_mb, live, queue_am_mb), n

    ams.submit(1, "queue1", Resource(1024, 1))
    h.heartbeat(nid)
    check(1, 1024, 1, 1024)
    ams.submit(2, "queue1", Resource(1024, 1))
    h.heartbeat(nid)
    check(2, 1024, 1, 2048)
    ams.submit(3, "queue1", Resource(1024, 1))  # exceeds the queue's AM share
    h.heartbeat(nid)
    check(3, 0, 0, 2048)
    h.ask_existing(ams.ids[1], 1024, 1)  # a non-AM container still runs
    h.s.update()
    h.heartbeat(nid)
    assert (ams.live(1), queue1.am_resource_usage.memory_mb) == (2, 2048)
    h.s.update()
    h.remove(ams.ids[1])  # app3's AM runs in its place
    h.heartbeat(nid)
    assert ams.live(1) == 0 and ams.usage(1) == none
    check(3, 1024, 1, 2048)
    ams.submit(4, "queue1", Resource(2048, 2))
    h.heartbeat(nid)
    check(4, 0, 0, 2048)
    assert ams.usage(4) == none
    ams.submit(5, "queue1", Resource(2048, 2))
    h.heartbeat(nid)
    check(5, 0, 0, 2048)
    assert ams.usage(5) == none
    h.s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=ams.ids[4], final_attempt_state="KILLED"))
    h.s.update()
    h.heartbeat(nid)
    assert (ams.live(5), ams.usage(5), queue1.am_resource_usage.memory_mb) == (0, none, 2048)
    h.remove(ams.ids[2])
    h.remove(ams.ids[3])
    h.s.update()
    h.heartbeat(nid)
    assert (ams.live(2), ams.usage(2), ams.live(3), ams.usage(3)) == (0, none, 0, none)
    check(5, 2048, 1, 2048)
    h.ask_existing(ams.ids[5], 1024, 1)
    assert ams.live(5) == 1
    # the AM container ends before the non-AM one is allocated
    [am_container] = list(h.s.attempts[ams.ids[5]].live)
    h.s.handle(ContainerExpiredSchedulerEvent(container_id=am_container))
    assert (ams.live(5), ams.usage(5), queue1.am_resource_usage.memory_mb) == (0, none, 2048)
    h.s.update()
    h.heartbeat(nid)
    # the non-AM container is not refused for the AM share, and does not count in it
    assert (ams.live(5), queue1.am_resource_usage.memory_mb) == (1, 2048)
    ams.submit(6, "queue1", Resource(1860, 2))  # normalised to 2048 MB
    h.heartbeat(nid)
    assert (ams.live(6), ams.usage(6)) == (0, none)
    check(6, 0, 0, 2048)
    h.remove(ams.ids[5])
    h.remove(ams.ids[6])
    h.s.update()
    assert queue1.am_resource_usage.memory_mb == 0


def test_queue_max_am_share_default(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueMaxAMShareDefault."""
    h = Harness(
        tmp_path,
        "<queue name='queue1'></queue><queue name='queue2'><maxAMShare>0.4</maxAMShare></queue>"
        "<queue name='queue3'><maxResources>10240 mb 4 vcores</maxResources></queue>"
        "<queue name='queue4'></queue><queue name='queue5'></queue>"
        "<defaultQueueSchedulingPolicy>fair</defaultQueueSchedulingPolicy>",
        **{keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES: 6},
    )
    nid = h.node(8192, 10, port=0)
    h.s.update()
    for name in ("queue1", "queue2", "queue3", "queue4", "queue5"):
        assert h.leaf(name).fair_share.memory_mb == 0, name
    for queue in ("root.queue3", "root.queue4", "root.queue5"):
        h.request(1 * GB, queue, "user1")
        h.s.update()
        h.heartbeat(nid)
    ams = AMs(h)
    # the fair share is 2048 MB and the default maxAMShare 0.5: accepted
    ams.submit(1, "queue1", Resource(1024, 1), "test1")
    h.heartbeat(nid)
    assert (ams.am_mb(1), ams.live(1), h.leaf("queue1").am_resource_usage.memory_mb) == (1024, 1, 1024)
    # the fair share is 1639 MB and maxAMShare 0.4: refused
    ams.submit(2, "queue2", Resource(1024, 1), "test1")
    h.heartbeat(nid)
    assert (ams.am_mb(2), ams.live(2), h.leaf("queue2").am_resource_usage.memory_mb) == (0, 0, 0)
    h.remove(ams.ids[2])
    h.s.update()
    # 6 vcores: all the available ones
    aid3 = ApplicationAttemptId(ApplicationId(1, 103), 1)
    h.with_am(aid3, "queue3", "test1", Resource(1024, 1))
    h.ask_existing(aid3, 1024, AM_PRIORITY, vcores=6)
    h.s.update()
    h.heartbeat(nid)
    assert (h.app(aid3).am_resource.memory_mb, h.live(aid3), h.leaf("queue3").am_resource_usage.memory_mb) == (0, 0, 0)
    # 5 vcores: more than the queue's maxResources (4)
    aid4 = ApplicationAttemptId(ApplicationId(1, 104), 1)
    h.with_am(aid4, "queue3", "test1", Resource(1024, 1))
    h.ask_existing(aid4, 1024, AM_PRIORITY, vcores=5)
    h.s.update()
    h.heartbeat(nid)
    assert (h.app(aid4).am_resource.memory_mb, h.live(aid4), h.leaf("queue3").am_resource_usage.memory_mb) == (0, 0, 0)


def test_queue_max_am_share_with_container_reservation(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueMaxAMShareWithContainerReservation (the 16 steps of its comment)."""
    h = Harness(tmp_path, "<queue name='queue1'><maxAMShare>0.5</maxAMShare></queue>", **{keys.RESERVABLE_NODES: 1})
    n1 = h.node(10240, 10, host="127.0.0.1", port=1)
    n2 = h.node(10240, 10, host="127.0.0.2", port=2)
    n3 = h.node(5120, 5, host="127.0.0.3", port=3)
    h.s.update()
    queue1 = h.leaf("queue1")
    ams = AMs(h)

    def check(n: int, am_mb: int, live: int, queue_am_mb: int) -> None:
        assert (ams.am_mb(n), ams.live(n), queue1.am_resource_usage.memory_mb) == (am_mb, live, queue_am_mb), n

    ams.submit(1, "queue1", Resource(1024, 1))
    h.heartbeat(n1)
    check(1, 1024, 1, 1024)
    ams.submit(2, "queue1", Resource(1024, 1))
    h.heartbeat(n2)
    check(2, 1024, 1, 2048)
    ams.submit(3, "queue1", Resource(10240, 1))
    h.heartbeat(n1)  # app3 reserves node1
    h.heartbeat(n2)  # and node2
    check(3, 0, 0, 2048)
    ams.submit(4, "queue1", Resource(5120, 1))
    h.heartbeat(n1)  # node1 is reserved by app3
    check(4, 0, 0, 2048)
    h.s.update()
    h.heartbeat(n3)
    check(4, 5120, 1, 7168)
    h.remove(ams.ids[1])
    assert queue1.am_resource_usage.memory_mb == 6144
    ams.submit(5, "queue1", Resource(1024, 1))
    h.heartbeat(n1)  # app3, over the AM share now, drops its reservation on node1; app5 gets node1
    check(5, 1024, 1, 7168)
    h.remove(ams.ids[3])
    assert queue1.am_resource_usage.memory_mb == 7168
    ams.submit(6, "queue1", Resource(10240, 1))
    h.heartbeat(n1)  # app6 cannot reserve: over the AM share
    check(6, 0, 0, 7168)
    ams.submit(7, "queue1", Resource(1024, 1))
    h.heartbeat(n1)
    check(7, 1024, 1, 8192)
    h.remove(ams.ids[4])
    assert queue1.am_resource_usage.memory_mb == 3072
    h.remove(ams.ids[5])
    assert queue1.am_resource_usage.memory_mb == 2048
    h.s.update()
    h.heartbeat(n1)  # app6 reserves node1
    h.heartbeat(n2)  # and node2
    ams.submit(8, "queue1", Resource(1024, 1))
    h.heartbeat(n1)  # node1 is reserved by app6
    check(8, 0, 0, 2048)
    h.s.update()
    h.heartbeat(n2)  # so is node2
    check(8, 0, 0, 2048)
    h.remove(ams.ids[2])
    assert queue1.am_resource_usage.memory_mb == 1024
    h.s.update()
    h.heartbeat(n2)  # app6's reservation on node2 becomes its container
    check(6, 10240, 1, 11264)
    h.s.update()
    h.heartbeat(n1)  # app6 drops its reservation on node1; app8 gets node1
    check(8, 1024, 1, 12288)


# -- testSchedulingOnRemovedNode ... testUpdateDemand --------------------------------------------------------------
def test_scheduling_on_removed_node(tmp_path: Path) -> None:
    """TestFairScheduler.testSchedulingOnRemovedNode: ``attemptScheduling`` on a node removed meanwhile places
    nothing, and the application is then removed cleanly."""
    h = Harness(tmp_path)
    assert not h.s.continuous_scheduling
    aid = h.add("root.queue1", "user1")
    h.ask(aid, rr(1024, ANY, 1, 1, True, vcores=8))
    nid = h.node(8 * 1024, 8, host="127.0.0.1", port=1)
    node = h.s.nodes[nid]
    h.remove_node(nid)
    h.s.attempt_scheduling(node)
    assert h.live(aid) == 0 and not node.containers
    h.remove(aid)
    assert aid not in h.s.attempts


def test_resource_usage_by_move_app(tmp_path: Path) -> None:
    """TestFairScheduler.testResourceUsageByMoveApp."""
    h = Harness(tmp_path)
    nid = h.node(1 * GB, 4, host="127.0.0.1", port=1)
    aid = h.request(1 * GB, "parent1.queue1", "user1", 2, vcores=2)
    h.s.update()
    h.heartbeat(nid)
    qm = h.s.queue_manager
    parent1 = qm.get_parent_queue("parent1", True)
    parent2 = qm.get_parent_queue("parent2", True)
    queue2 = qm.get_leaf_queue("parent2.queue2", True)
    queue1 = qm.get_leaf_queue("parent1.queue1", True)
    assert parent1 is not None and parent2 is not None and queue1 is not None and queue2 is not None

    def usage() -> tuple[int, int, int, int]:
        return tuple(q.resource_usage.memory_mb for q in (parent2, queue2, parent1, queue1))  # type: ignore[return-value]

    assert usage() == (0, 0, 1 * GB, 1 * GB)
    h.s.move_application(aid.application_id, "parent2.queue2")
    assert usage() == (1 * GB, 1 * GB, 0, 0)


def test_queue_name_with_trailing_space(tmp_path: Path) -> None:
    """TestFairScheduler.testQueueNameWithTrailingSpace (``root.default`` declared, as 3.3 creates it)."""
    h = Harness(tmp_path, STATIC_DEFAULT)
    assert len(h.s.queue_manager.leaf_queues) == 1
    for queue, accepted, leaves in (("A", True, 2), ("A ", False, 2), ("B.C", True, 3), ("A\u00a0", False, 3)):
        aid = h.new_attempt_id()
        h.s.handle(AppAddedSchedulerEvent(application_id=aid.application_id, queue=queue, user="user1"))
        assert len(h.s.queue_manager.leaf_queues) == leaves, queue
        assert (aid.application_id in h.s.applications) == accepted, queue
        if accepted:
            h.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=aid))
            leaf = h.s.queue_manager.get_leaf_queue(queue, True)
            assert leaf is not None and leaf.num_runnable_apps == 1
            assert aid in h.s.fs_apps
        else:
            assert aid not in h.s.fs_apps


def test_user_as_default_queue_with_leading_trailing_space_user_name(tmp_path: Path) -> None:
    """TestFairScheduler.testUserAsDefaultQueueWithLeadingTrailingSpaceUserName: the placed queue is the
    application's (``AppAccepted``'s queue, what RMAppManager copies into the RMApp)."""
    h = Harness(tmp_path, STATIC_DEFAULT, **{keys.USER_AS_DEFAULT_QUEUE: "true"})
    for n, user in enumerate(("  user1", "user1  ", "user1"), start=1):
        aid = h.new_attempt_id()
        out = h.s.handle(AppAddedSchedulerEvent(application_id=aid.application_id, queue="default", user=user))
        h.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=aid))
        assert [x.queue for x in out if isinstance(x, AppAccepted)] == ["root.user1"]
        assert h.leaf("user1").num_runnable_apps == n
        assert h.leaf("default").num_runnable_apps == 0


def test_removed_node_decomissioning_node(tmp_path: Path) -> None:
    """TestFairScheduler.testRemovedNodeDecomissioningNode (Hadoop's spelling): a heartbeat of a node the scheduler
    no longer tracks (removed in a race, then DECOMMISSIONING) is ignored."""
    h = Harness(tmp_path)
    nid = h.node(8 * GB, 4, host="host_decom", port=1234)
    h.heartbeat(nid)
    h.remove_node(nid)
    assert h.s.handle(NodeUpdateSchedulerEvent(node_id=nid)) == []
    assert nid not in h.s.nodes


def test_resource_update_decommissioning_node(tmp_path: Path) -> None:
    """TestFairScheduler.testResourceUpdateDecommissioningNode: a DECOMMISSIONING node's total resource becomes
    what its containers use (nothing here). Hadoop's ``nodeUpdate`` dispatches the RMNodeResourceUpdateEvent; in
    yarnball the RM sends the NODE_RESOURCE_UPDATE (actors/_decommission.py), which the port sends as the RM does."""
    h = Harness(tmp_path)
    nid = h.node(8 * GB, 4, host="host_0", port=1234)
    h.heartbeat(nid)
    node = h.s.nodes[nid]
    used = Resource(node.total_m - node.unalloc_m, node.total_v - node.unalloc_v)
    h.s.handle(NodeResourceUpdateSchedulerEvent(node_id=nid, total_resource=used))
    h.heartbeat(nid)
    assert (node.total_m - node.unalloc_m, node.total_v - node.unalloc_v) == (0, 0)
    assert (node.total_m, node.total_v) == (0 * GB, 0)
    assert (node.unalloc_m, node.unalloc_v) == (0, 0)


def test_reservation_metrics(tmp_path: Path) -> None:
    """TestFairScheduler.testReservationMetrics: root's reserved containers, MB and vcores."""
    h = Harness(tmp_path)
    nid = h.node(4096, 4, host="127.0.0.1", port=1)
    aid = h.new_attempt_id()
    h.with_am(aid, "default", "user1", None)
    h.s.update()
    h.heartbeat(nid)
    h.ask_existing(aid, 1024, 1, vcores=1)
    h.s.update()
    h.heartbeat(nid)

    def reserved() -> tuple[int, int, int]:
        root = h.s.queue_metrics()[0]
        return h.s.queue_manager.root_queue.reserved_containers, root.reserved.memory_mb, root.reserved.vcores

    assert reserved() == (0, 0, 0)
    h.ask_existing(aid, 4096, 1, vcores=4)
    h.s.update()
    h.heartbeat(nid)
    assert reserved() == (1, 4096, 4)
    h.s.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=aid, final_attempt_state="KILLED"))
    assert reserved() == (0, 0, 0)


def test_update_demand(tmp_path: Path) -> None:
    """TestFairScheduler.testUpdateDemand: a parent's demand is capped at its max share, its children's are
    updated. The test's mocked attempts (demand 8 GB, no usage) are ``FakeFSApp``s."""
    h = Harness(tmp_path)
    max_resource = Resource(1024 * 8, 1)  # Resources.createResource(8 GB): 1 vcore
    max_conf = ConfigurableResource(max_resource)
    qm = h.s.queue_manager
    queue1 = qm.get_parent_queue("queue1", True)
    a_queue = qm.get_leaf_queue("queue1.a", True)
    b_queue = qm.get_leaf_queue("queue1.b", True)
    assert queue1 is not None and a_queue is not None and b_queue is not None
    for leaf in (a_queue, b_queue):
        leaf.raw_max_share = max_conf
        leaf.add_app(FakeFSApp(leaf, demand=max_resource), True)
    queue1.raw_max_share = max_conf
    queue1.update_demand()
    assert queue1.demand == max_resource
    assert a_queue.demand == max_resource and b_queue.demand == max_resource
