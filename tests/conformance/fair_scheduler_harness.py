"""Hadoop's ``FairSchedulerTestBase`` for the ``TestFairScheduler`` ports (test_hadoop_fair_scheduler_*.py).

The scheduler is built as ``createConfiguration`` builds it (minimum allocation 0 MB, increment 1024 MB, maximum
10240 MB, assignmultiple off, reservation threshold 0.09) over an allocation file in the test's directory; nodes are
``MockNodes.newNodeInfo``'s (``host<n>:123`` unless named, rack ``rack<n>``); applications come from the base's
helpers:

* ``createSchedulingRequest`` (:meth:`Harness.request`, :meth:`Harness.request_asks`): the attempt is added before
  the test puts the RMApp into the RM context, so Hadoop's ``SchedulerApplicationAttempt`` keeps
  ``unmanagedAM = true``: no AM-share check, no AM usage. The harness submits these applications unmanaged
  (``FairScheduler.set_unmanaged_am``);
* ``createMockRMApp`` / ``createApplicationWithAMResource`` (:meth:`Harness.with_am`): managed, the AM's size told
  before the attempt;
* ``createSchedulingRequestExistingApplication`` (:meth:`Harness.ask_existing`).

``scheduler.allocate`` called by a test is :meth:`Harness.allocate` (the scheduler's ``allocate``, its errors
checked) or :meth:`Harness.ask` (the asks normalised and capped at the maximum allocation without the
ApplicationMasterService's validation, as Hadoop's scheduler does when a test calls it directly).
"""

from __future__ import annotations

from pathlib import Path

from yarnball.policies.fair._fairscheduler import FairScheduler
from yarnball.policies.fair._fsappattempt import FSAppAttempt
from yarnball.policies.fair._fsleafqueue import FSLeafQueue
from yarnball.policies.fair._fsqueue import FSQueue
from yarnball.policies.scheduler import ContainerAllocated, SchedulerNotification, create_scheduler
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    ContainerId,
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
#: RMAppAttemptImpl.AM_CONTAINER_PRIORITY
AM_PRIORITY = 0
#: the static leaf root.default that 3.3's QueueManager.initialize creates (trunk's does not, YARN-7769)
STATIC_DEFAULT = "<queue name='default'/>"
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
    """A ``ControlledClock``: the time in ms, set by the test."""

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
    """``FairSchedulerTestBase`` around one started FairScheduler, with its counters (``APP_ID``, ``ATTEMPT_ID``).

    ``allocations`` is the allocation file's body (written to ``fair-scheduler.xml`` and configured); ``settings``
    are yarn-site keys over ``createConfiguration``'s (booleans written as Hadoop reads them)."""

    def __init__(self, tmp_path: Path, allocations: str | None = None, **settings: object) -> None:
        self.alloc_file = tmp_path / "fair-scheduler.xml"
        conf = dict(TEST_BASE)
        if allocations is not None:
            self.write_allocations(allocations)
            conf[keys.ALLOCATION_FILE] = str(self.alloc_file)
        conf.update({k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in settings.items()})
        self.conf = Configuration(conf)
        s = create_scheduler(self.conf, cluster_timestamp=0)
        assert isinstance(s, FairScheduler)
        self.s = s
        self.clock = Clock()
        s.service_start(self.clock)
        self.app_id = 1
        self.attempt_number = 1
        self.node_count = 0

    def write_allocations(self, allocations: str) -> None:
        self.alloc_file.write_text(f"<?xml version='1.0'?>\n<allocations>\n{allocations}\n</allocations>\n")

    def reinitialize(self, allocations: str | None = None) -> None:
        """``reinitialize``, after rewriting the allocation file when ``allocations`` is given."""
        if allocations is not None:
            self.write_allocations(allocations)
        self.s.reinitialize(self.s.conf)

    # -- nodes ---------------------------------------------------------------------------------------------------
    def add_node(
        self, mb: int, vcores: int | None = None, rack: int = 1, host: str | None = None, port: int = 123
    ) -> NodeId:
        """``MockNodes.newNodeInfo(rack, Resources.createResource(mb[, vcores]), hostnum, host)`` then NODE_ADDED:
        ``host<n>`` unless named, rack ``rack<n>``; ``createResource(mb)`` has 1 vcore (0 for no memory)."""
        self.node_count += 1
        nid = NodeId(host if host is not None else f"host{self.node_count}", port)
        total = Resource(mb, (1 if mb > 0 else 0) if vcores is None else vcores)
        self.s.handle(NodeAddedSchedulerEvent(node_id=nid, rack_name=f"rack{rack}", total_resource=total))
        return nid

    def remove_node(self, nid: NodeId) -> None:
        self.s.handle(NodeRemovedSchedulerEvent(node_id=nid))

    def heartbeat(self, nid: NodeId, times: int = 1) -> list[ContainerAllocated]:
        """NODE_UPDATE ``times`` times; the containers they allocated."""
        out: list[ContainerAllocated] = []
        for _ in range(times):
            notes = self.s.handle(NodeUpdateSchedulerEvent(node_id=nid))
            out += [x for x in notes if isinstance(x, ContainerAllocated)]
        return out

    # -- applications ------------------------------------------------------------------------------------------
    def new_attempt_id(self) -> ApplicationAttemptId:
        """``createAppAttemptId(APP_ID++, ATTEMPT_ID++)``."""
        attempt_id = ApplicationAttemptId(ApplicationId(0, self.app_id), self.attempt_number)
        self.app_id += 1
        self.attempt_number += 1
        return attempt_id

    def add_app(
        self,
        queue: str,
        user: str,
        attempt_id: ApplicationAttemptId | None = None,
        am: Resource | None = None,
        unmanaged: bool = False,
    ) -> tuple[ApplicationAttemptId, list[SchedulerNotification]]:
        """``addApplication`` then, when accepted, ``addApplicationAttempt``; ``am`` is the submission context's AM
        resource. The attempt and the notifications."""
        att = attempt_id or self.new_attempt_id()
        if am is not None:
            self.s.set_am_resource(att.application_id, am)
        if unmanaged:
            self.s.set_unmanaged_am(att.application_id)
        out = self.s.handle(AppAddedSchedulerEvent(application_id=att.application_id, queue=queue, user=user))
        if att.application_id in self.s.applications:
            out += self.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=att))
        return att, out

    def add(self, queue: str, user: str, attempt_id: ApplicationAttemptId | None = None) -> ApplicationAttemptId:
        """:meth:`add_app` of a managed application, its attempt."""
        return self.add_app(queue, user, attempt_id)[0]

    def with_am(self, aid: ApplicationAttemptId, queue: str, user: str, am: Resource | None = None) -> bool:
        """``createMockRMApp`` / ``createApplicationWithAMResource``: a managed application (its first container is
        its AM, under the queue's AM share), the AM's size told before the attempt; False when not added."""
        self.add_app(queue, user, aid, am)
        return aid in self.s.fs_apps

    def request(
        self, mb: int, queue: str, user: str, n: int = 1, priority: int = 1, vcores: int = 1
    ) -> ApplicationAttemptId:
        """``createSchedulingRequest(memory, vcores, queue, user, numContainers, priority)`` (with its update)."""
        return self.request_asks([rr(mb, ANY, priority, n, True, vcores)], queue, user)

    def request_asks(
        self, asks: list[ResourceRequest], queue: str, user: str, update: bool = True
    ) -> ApplicationAttemptId:
        """``createSchedulingRequest(asks, queue, user)``: an unmanaged application (see the module docstring), its
        asks given to the scheduler directly (:meth:`ask`)."""
        att, _ = self.add_app(queue, user, unmanaged=True)
        if att in self.s.attempts:
            self.ask(att, *asks)
        if update:
            self.s.update()
        return att

    def ask_existing(self, aid: ApplicationAttemptId, mb: int, priority: int = 1, vcores: int = 1, n: int = 1) -> None:
        """``createSchedulingRequestExistingApplication(memory, vcores, priority, attId)``."""
        self.ask_existing_request(aid, rr(mb, ANY, priority, n, True, vcores))

    def ask_existing_request(self, aid: ApplicationAttemptId, request: ResourceRequest) -> None:
        """``createSchedulingRequestExistingApplication(request, attId)``."""
        self.allocate(aid, [request])
        self.s.update()

    def ask_strictly_on(self, aid: ApplicationAttemptId, host: str, rack: str = "rack1", mb: int = 1024) -> None:
        """The strict-locality methods' asks, each by ``createSchedulingRequestExistingApplication``: one ``mb``
        container on ``host`` (``relaxLocality`` true), its rack's and ANY's asks not relaxed."""
        for request in (rr(mb, host), rr(mb, rack, relax=False), rr(mb, ANY, relax=False)):
            self.ask_existing_request(aid, request)

    def allocate(
        self, aid: ApplicationAttemptId, asks: list[ResourceRequest], release: list[ContainerId] | None = None
    ) -> None:
        """The scheduler's ``allocate`` (the AM's), which must accept the asks."""
        allocation = self.s.allocate(aid, asks, release or [])
        assert not allocation.errors, allocation.errors

    def ask(self, aid: ApplicationAttemptId, *requests: ResourceRequest) -> None:
        """``scheduler.allocate`` called directly: the asks normalised (capped at the maximum allocation), without
        the ApplicationMasterService's validation."""
        self.s.update_requests(aid, list(requests), [])

    def remove(self, aid: ApplicationAttemptId, keep: bool = False) -> None:
        """APP_ATTEMPT_REMOVED (FINISHED), keeping the containers across attempts when ``keep``."""
        self.s.handle(
            AppAttemptRemovedSchedulerEvent(
                application_attempt_id=aid, final_attempt_state="FINISHED", keep_containers_across_app_attempts=keep
            )
        )

    # -- reads -------------------------------------------------------------------------------------------------
    def app(self, aid: ApplicationAttemptId) -> FSAppAttempt:
        """``getSchedulerApp``."""
        return self.s.fs_apps[aid]

    def live(self, aid: ApplicationAttemptId) -> int:
        """``getLiveContainers().size()`` (0 once the attempt is gone)."""
        attempt = self.s.attempts.get(aid)
        return len(attempt.live) if attempt is not None else 0

    def current_reservation(self, aid: ApplicationAttemptId) -> Resource:
        """``getCurrentReservation``."""
        attempt = self.s.attempts[aid]
        return Resource(attempt.reserved_m, attempt.reserved_v)

    def reservations(self, aid: ApplicationAttemptId) -> int:
        """``getNumReservations(null, true)`` / ``getReservedContainers().size()``."""
        return sum(len(by_node) for by_node in self.s.attempts[aid].reserved.values())

    def queue(self, name: str) -> FSQueue:
        queue = self.s.queue_manager.get_queue(name)
        assert queue is not None, name
        return queue

    def leaf(self, name: str, create: bool = False) -> FSLeafQueue:
        leaf = self.s.queue_manager.get_leaf_queue(name, create)
        assert leaf is not None, name
        return leaf

    def usage(self, name: str) -> Resource:
        """``getQueue(name).getResourceUsage()``."""
        return self.queue(name).resource_usage


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

    def state(self, n: int, queue: FSLeafQueue) -> tuple[int, int, int]:
        """What the AM-share methods check after each step: application ``n``'s AM size (MB) and live containers,
        and ``queue``'s AM usage (MB)."""
        return self.am_mb(n), self.live(n), queue.am_resource_usage.memory_mb

    def usage(self, n: int) -> Resource:
        """``getResourceUsage()`` (none once the attempt is gone)."""
        app = self.h.s.fs_apps.get(self.ids[n])
        return app.resource_usage if app is not None else Resource(0, 0)
