"""The cluster of Hadoop's ``TestFairScheduler`` (``FairSchedulerTestBase``) on yarnball's FairScheduler: the test
configuration (``createConfiguration``), ``MockNodes`` nodes, and the base's ``createSchedulingRequest`` family.

``createSchedulingRequest`` adds the attempt before it puts the RMApp into the RM context, so Hadoop's
``SchedulerApplicationAttempt`` keeps ``unmanagedAM = true``: no AM container, no AM-share check. yarnball's
scheduler has no unmanaged attempts; the harness marks such an attempt's AM as running before its first ask, which
gives the same outcome (no AM-share check, no container counted as the AM). ``createMockRMApp`` and
``createApplicationWithAMResource`` put the RMApp first: their applications are managed.
"""

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
    NodeUpdateSchedulerEvent,
    Priority,
    Resource,
    ResourceRequest,
    keys,
)

GB = 1024
FAIR = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"
#: FairSchedulerTestBase.createConfiguration
TEST_CONF = {
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
    """A ``ControlledClock`` in ms."""

    def __init__(self) -> None:
        self.ms = 0

    def __call__(self) -> int:
        return self.ms


def resource_request(
    memory: int, host: str = ANY, priority: int = 1, num: int = 1, relax: bool = True, vcores: int = 1
) -> ResourceRequest:
    """``createResourceRequest(memory, vcores, host, priority, numContainers, relaxLocality)``."""
    return ResourceRequest(
        priority=Priority(priority),
        capability=Resource(memory, vcores),
        resource_name=host,
        num_containers=num,
        relax_locality=relax,
    )


class Harness:
    """``TestFairScheduler``'s scheduler (started, its allocation file written when given) and its counters."""

    def __init__(self, tmp_path: Path, allocations: str | None = None, **settings: object) -> None:
        self.tmp_path = tmp_path
        self.alloc_file = tmp_path / "test-queues"
        self.write_allocations(allocations if allocations is not None else "")
        self.conf = Configuration(
            {
                **TEST_CONF,
                keys.ALLOCATION_FILE: str(self.alloc_file),
                **{k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in settings.items()},
            }
        )
        s = create_scheduler(self.conf, cluster_timestamp=0)
        assert isinstance(s, FairScheduler)
        self.s = s
        self.clock = Clock()
        s.service_start(self.clock)
        self.app_id = 1
        self.attempt_number = 1
        self.node_count = 0

    def write_allocations(self, body: str) -> None:
        self.alloc_file.write_text(f"<?xml version='1.0'?>\n<allocations>\n{body}\n</allocations>\n")

    def reinitialize(self, allocations: str) -> None:
        """Rewrite the allocation file and ``reinitialize``."""
        self.write_allocations(allocations)
        self.s.reinitialize(self.conf)

    # -- nodes -------------------------------------------------------------------------------------------------
    def add_node(self, memory: int, vcores: int = 1, rack: int = 1, host: str | None = None, port: int = 123) -> NodeId:
        """``MockNodes.newNodeInfo(rack, resource, hostnum, hostIp)`` then NODE_ADDED: rack ``rack<n>``."""
        self.node_count += 1
        nid = NodeId(host if host is not None else f"host{self.node_count}", port)
        self.s.handle(
            NodeAddedSchedulerEvent(node_id=nid, rack_name=f"rack{rack}", total_resource=Resource(memory, vcores))
        )
        return nid

    def heartbeat(self, nid: NodeId, times: int = 1) -> None:
        for _ in range(times):
            self.s.handle(NodeUpdateSchedulerEvent(node_id=nid))

    # -- applications ------------------------------------------------------------------------------------------
    def next_attempt_id(self) -> ApplicationAttemptId:
        """``createAppAttemptId(APP_ID++, ATTEMPT_ID++)``."""
        attempt_id = ApplicationAttemptId(ApplicationId(0, self.app_id), self.attempt_number)
        self.app_id += 1
        self.attempt_number += 1
        return attempt_id

    def add_application(self, attempt_id: ApplicationAttemptId, queue: str, user: str) -> bool:
        """``addApplication`` then, when accepted, ``addApplicationAttempt``; False when rejected."""
        out = self.s.handle(AppAddedSchedulerEvent(application_id=attempt_id.application_id, queue=queue, user=user))
        if any(isinstance(x, AppRejected) for x in out):
            return False
        self.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt_id))
        return attempt_id in self.s.fs_apps

    def create_scheduling_request(
        self, memory: int, queue: str, user: str, num: int = 1, priority: int = 1, vcores: int = 1
    ) -> ApplicationAttemptId:
        """``createSchedulingRequest``: an unmanaged application (see the module docstring) asking ``num``
        containers anywhere, then ``update()``."""
        return self.create_scheduling_request_asks(
            queue, user, [resource_request(memory, ANY, priority, num, True, vcores)]
        )

    def create_scheduling_request_asks(
        self, queue: str, user: str, asks: list[ResourceRequest], update: bool = True
    ) -> ApplicationAttemptId:
        attempt_id = self.next_attempt_id()
        if self.add_application(attempt_id, queue, user):
            self.s.attempts[attempt_id].am_running = True  # unmanagedAM
            self.allocate(attempt_id, asks)
        if update:
            self.s.update()
        return attempt_id

    def create_managed_app(
        self, attempt_id: ApplicationAttemptId, queue: str, user: str, am_resource: Resource | None = None
    ) -> bool:
        """``createMockRMApp`` / ``createApplicationWithAMResource``: a managed application (its first container
        is its AM, under the queue's AM share)."""
        if am_resource is not None:
            self.s.set_am_resource(attempt_id.application_id, am_resource)
        return self.add_application(attempt_id, queue, user)

    def ask(
        self, attempt_id: ApplicationAttemptId, memory: int, priority: int = 1, vcores: int = 1, num: int = 1
    ) -> None:
        """``createSchedulingRequestExistingApplication``: an ANY ask, then ``update()``."""
        self.allocate(attempt_id, [resource_request(memory, ANY, priority, num, True, vcores)])
        self.s.update()

    def allocate(
        self, attempt_id: ApplicationAttemptId, asks: list[ResourceRequest], release: list | None = None
    ) -> None:
        allocation = self.s.allocate(attempt_id, asks, release or [])
        assert not allocation.errors, allocation.errors

    def remove_attempt(self, attempt_id: ApplicationAttemptId, keep: bool = False) -> None:
        self.s.handle(
            AppAttemptRemovedSchedulerEvent(
                application_attempt_id=attempt_id,
                final_attempt_state="FINISHED",
                keep_containers_across_app_attempts=keep,
            )
        )

    # -- reads -------------------------------------------------------------------------------------------------
    def app(self, attempt_id: ApplicationAttemptId) -> FSAppAttempt:
        """``getSchedulerApp``."""
        return self.s.fs_apps[attempt_id]

    def live(self, attempt_id: ApplicationAttemptId) -> int:
        """``getLiveContainers().size()``."""
        return len(self.s.fs_apps[attempt_id].attempt.live)

    def current_reservation(self, attempt_id: ApplicationAttemptId) -> Resource:
        """``getCurrentReservation``."""
        attempt = self.s.fs_apps[attempt_id].attempt
        return Resource(attempt.reserved_m, attempt.reserved_v)

    def reserved(self, attempt_id: ApplicationAttemptId) -> int:
        """``getReservedContainers().size()``."""
        return sum(len(by_node) for by_node in self.s.fs_apps[attempt_id].attempt.reserved.values())

    def leaf(self, name: str) -> FSLeafQueue:
        queue = self.s.queue_manager.get_leaf_queue(name, False)
        assert queue is not None, name
        return queue

    def usage(self, name: str) -> Resource:
        """``getQueue(name).getResourceUsage()``."""
        queue = self.s.queue_manager.get_queue(name)
        assert queue is not None, name
        return queue.resource_usage
