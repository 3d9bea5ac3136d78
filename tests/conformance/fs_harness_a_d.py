"""A FairScheduler built as Hadoop's ``FairSchedulerTestBase`` builds one (``createConfiguration``: minimum
allocation 0 MB, increment 1024 MB, maximum 10240 MB, assignmultiple off, reservation threshold 0.09), with its
helpers: ``MockNodes.newNodeInfo`` nodes (host = the IP, rack ``rack<n>``), ``createSchedulingRequest``,
``createSchedulingRequestExistingApplication``, ``createApplicationWithAMResource``."""

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
#: RMAppAttemptImpl.AM_CONTAINER_PRIORITY
AM_PRIORITY = 0

#: FairSchedulerTestBase.createConfiguration
BASE_SETTINGS: dict[str, str] = {
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


class Harness:
    """One scheduler and the counters of ``FairSchedulerTestBase`` (APP_ID, ATTEMPT_ID)."""

    def __init__(self, tmp_path: Path, allocations: str | None = None, **settings: object) -> None:
        self.alloc_file = tmp_path / "fair-scheduler.xml"
        conf_settings: dict[str, object] = {**BASE_SETTINGS, **settings}
        if allocations is not None:
            self.write_allocations(allocations)
            conf_settings["yarn.scheduler.fair.allocation.file"] = str(self.alloc_file)
        self.conf = Configuration({k: str(v) for k, v in conf_settings.items()})
        s = create_scheduler(self.conf, cluster_timestamp=0)
        assert isinstance(s, FairScheduler)
        self.s = s
        self.clock = Clock()
        s.service_start(self.clock)
        self.next_app = 1
        self.node_ids: list[NodeId] = []

    def write_allocations(self, allocations: str) -> None:
        self.alloc_file.write_text(f"<?xml version='1.0'?><allocations>{allocations}</allocations>")

    def reinitialize(self) -> None:
        self.s.reinitialize(self.s.conf)

    # -- nodes --------------------------------------------------------------------------------------------------
    def add_node(self, mem: int, vcores: int = 1, host_num: int = 1, ip: str = "127.0.0.1", rack: int = 1) -> NodeId:
        """``MockNodes.newNodeInfo(rack, Resource(mem, vcores), hostNum, ip)`` and NODE_ADDED."""
        del host_num
        nid = NodeId(ip, 123)
        self.s.handle(
            NodeAddedSchedulerEvent(node_id=nid, rack_name=f"rack{rack}", total_resource=Resource(mem, vcores))
        )
        self.node_ids.append(nid)
        return nid

    def remove_node(self, nid: NodeId) -> None:
        self.s.handle(NodeRemovedSchedulerEvent(node_id=nid))

    def heartbeat(self, nid: NodeId) -> list[ContainerAllocated]:
        return [x for x in self.s.handle(NodeUpdateSchedulerEvent(node_id=nid)) if isinstance(x, ContainerAllocated)]

    # -- applications ---------------------------------------------------------------------------------------------
    def attempt_id(self, n: int) -> ApplicationAttemptId:
        return ApplicationAttemptId(ApplicationId(0, n), 1)

    def add_app(
        self, queue: str, user: str, am: Resource | None = None, unmanaged: bool = False
    ) -> tuple[ApplicationAttemptId, list]:
        """APP_ADDED then (when accepted) APP_ATTEMPT_ADDED; ``am`` is the submission context's AM resource."""
        n = self.next_app
        self.next_app += 1
        att = self.attempt_id(n)
        if am is not None:
            self.s.set_am_resource(att.application_id, am)
        if unmanaged:
            self.s.set_unmanaged_am(att.application_id)
        out: list[SchedulerNotification] = self.s.handle(
            AppAddedSchedulerEvent(application_id=att.application_id, queue=queue, user=user)
        )
        if att.application_id in self.s.applications:
            out += self.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=att))
        return att, out

    def request(
        self,
        mem: int,
        queue: str,
        user: str,
        n: int = 1,
        priority: int = 1,
        vcores: int = 1,
    ) -> ApplicationAttemptId:
        """``createSchedulingRequest(memory, vcores, queue, user, numContainers, priority)`` (with its update)."""
        return self.request_asks([rr(mem, n, priority=priority, vcores=vcores)], queue, user)

    def request_asks(
        self, asks: list[ResourceRequest], queue: str, user: str, update: bool = True
    ) -> ApplicationAttemptId:
        """``createSchedulingRequest(asks, queue, user)``. Its application is unmanaged: Hadoop's test puts the
        mocked RMApp in the context after the attempt is created, so ``SchedulerApplicationAttempt`` keeps
        ``unmanagedAM = true`` (no AM-share limit, no AM usage)."""
        att, _ = self.add_app(queue, user, unmanaged=True)
        if att in self.s.attempts:
            self.s.allocate(att, asks, [])
        if update:
            self.s.update()
        return att

    def request_existing(self, att: ApplicationAttemptId, mem: int, vcores: int = 1, priority: int = 1) -> None:
        """``createSchedulingRequestExistingApplication``."""
        self.s.allocate(att, [rr(mem, 1, priority=priority, vcores=vcores)], [])
        self.s.update()

    def request_existing_ask(self, att: ApplicationAttemptId, ask: ResourceRequest) -> None:
        """``createSchedulingRequestExistingApplication(request, attId)``."""
        self.s.allocate(att, [ask], [])
        self.s.update()

    def app(self, att: ApplicationAttemptId) -> FSAppAttempt:
        return self.s.fs_apps[att]

    def live(self, att: ApplicationAttemptId) -> int:
        """``getLiveContainers().size()``."""
        return len(self.s.attempts[att].live)

    def reservation(self, att: ApplicationAttemptId) -> int:
        """``getCurrentReservation().getMemorySize()``."""
        return self.s.attempts[att].reserved_m

    def queue(self, name: str) -> FSQueue:
        q = self.s.queue_manager.get_queue(name)
        assert q is not None, name
        return q

    def leaf(self, name: str, create: bool = False) -> FSLeafQueue:
        q = self.s.queue_manager.get_leaf_queue(name, create)
        assert q is not None, name
        return q


def rr(
    mem: int, n: int = 1, name: str = ANY, priority: int = 1, vcores: int = 1, relax: bool = True
) -> ResourceRequest:
    """``createResourceRequest(memory, vcores, host, priority, numContainers, relaxLocality)``."""
    return ResourceRequest(
        priority=Priority(priority),
        capability=Resource(mem, vcores),
        resource_name=name,
        num_containers=n,
        relax_locality=relax,
    )
