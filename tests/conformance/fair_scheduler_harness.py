"""Hadoop's ``FairSchedulerTestBase`` for the ``TestFairScheduler`` ports (test_hadoop_fair_scheduler_n_z*.py): the
scheduler built as ``createConfiguration`` builds it (minimum allocation 0 MB, increment 1024 MB, maximum 10240 MB,
assignmultiple off, reservation threshold 0.09), a node as ``MockNodes.newNodeInfo`` (``Resources.createResource(mb)``
has 1 vcore), an application as ``createSchedulingRequest`` (submitted, its attempt added, one ANY ask, then
``update``) or ``createApplicationWithAMResource`` (a managed AM of a known size)."""

from __future__ import annotations

from pathlib import Path

from yarnball.policies.fair._fairscheduler import FairScheduler
from yarnball.policies.fair._fsappattempt import FSAppAttempt
from yarnball.policies.fair._fsleafqueue import FSLeafQueue
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


def reservations(h: Harness, aid: ApplicationAttemptId) -> int:
    """``getNumReservations(null, true)``: the attempt's reserved containers."""
    return sum(len(by_node) for by_node in h.s.attempts[aid].reserved.values())


AM_PRIORITY = 0  # RMAppAttemptImpl.AM_CONTAINER_PRIORITY
#: the static leaf root.default that 3.3's QueueManager.initialize creates (trunk's does not, YARN-7769)
STATIC_DEFAULT = "<queue name='default'/>"


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
