"""An ask larger than every node (taken while the configured maximum allocation applies, in the RM's first
``scheduling-wait-ms``) is skipped on each node, as Hadoop's schedulers do, and the other applications' asks are placed:
``RegularContainerAllocator.assignContainer`` ("does not have sufficient resource for ask", LOCALITY_SKIPPED ->
APP_SKIPPED), ``FSAppAttempt.hasContainerForNode`` (fits in the node's total), ``FifoScheduler.assignContainer`` (no
container fits the node's unallocated resource). What the CapacityScheduler does first is
``RegularContainerAllocator.checkHeadroom``: an ask above the queue's headroom (which the cluster's free resource caps)
is QUEUE_SKIPPED, and ``LeafQueue.assignContainers`` then stops the whole queue, as Hadoop does."""

from __future__ import annotations

from typing import Any

import pytest

from yarnball.launcher._clusterconf import normalized_conf
from yarnball.policies.scheduler import CAPACITY_SCHEDULER, FAIR_SCHEDULER, FIFO_SCHEDULER, create_scheduler
from yarnball.policies.scheduler._notifications import ContainerAllocated, ContainerReserved
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    NodeAddedSchedulerEvent,
    NodeId,
    NodeUpdateSchedulerEvent,
    Priority,
    Resource,
    ResourceRequest,
    keys,
)

GB = 1024
#: the configured maximum (8 GB) applies: the scheduler is started at 0 and its clock stays there
SETTINGS = {
    keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB: "8192",
    "yarn.scheduler.capacity.maximum-am-resource-percent": "1.0",
}


class Placed:
    """A started scheduler with ``nodes`` 3 GB nodes; what its heartbeats allocate and reserve."""

    def __init__(self, scheduler_class: str, nodes: int) -> None:
        conf = normalized_conf({keys.RM_SCHEDULER: scheduler_class, **SETTINGS})
        self.s: Any = create_scheduler(conf, cluster_timestamp=1)
        self.s.service_start(lambda: 0)
        self.nodes = [NodeId(f"h{i}", 1) for i in range(nodes)]
        for n in self.nodes:
            self.s.handle(NodeAddedSchedulerEvent(node_id=n, rack_name="/r", total_resource=Resource(3 * GB, 8)))
        self.allocated: list[tuple[int, int]] = []  # (application, MB)
        self.reserved = 0
        self.fair = scheduler_class == FAIR_SCHEDULER

    def heartbeats(self) -> None:
        if self.fair:
            self.s.update()  # FairScheduler's update thread: the fair shares the AM share checks
        for n in self.nodes:
            for e in self.s.handle(NodeUpdateSchedulerEvent(node_id=n)):
                if isinstance(e, ContainerAllocated):
                    self.allocated.append((e.attempt_id.application_id.id, e.container.resource.memory_mb))
                elif isinstance(e, ContainerReserved):
                    self.reserved += 1

    def app(self, n: int, mb: int, count: int) -> None:
        """Application ``n`` gets its 1 GB AM container, then asks for ``count`` x ``mb``."""
        attempt = ApplicationAttemptId(ApplicationId(1, n), 1)
        self.s.handle(AppAddedSchedulerEvent(application_id=attempt.application_id, queue="default", user="u"))
        self.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt))
        am = ResourceRequest(priority=Priority(0), capability=Resource(GB, 1), resource_name=ANY)
        self.s.allocate(attempt, [am], [])
        self.heartbeats()
        assert self.s.allocate(attempt, [], []).containers
        ask = ResourceRequest(priority=Priority(1), capability=Resource(mb, 1), resource_name=ANY, num_containers=count)
        assert not self.s.allocate(attempt, [ask], []).errors


@pytest.mark.parametrize("scheduler_class", [CAPACITY_SCHEDULER, FAIR_SCHEDULER, FIFO_SCHEDULER])
def test_an_ask_that_fits_no_node_is_skipped_and_the_next_application_placed(scheduler_class: str) -> None:
    """Three 3 GB nodes: application 1's 4 GB ask fits none (and the cluster's free memory holds it); application
    2's two 1 GB asks, behind it, are both placed; nothing is reserved for the 4 GB ask."""
    p = Placed(scheduler_class, 3)
    p.app(1, 4 * GB, 1)
    p.app(2, GB, 2)
    for _ in range(4):
        p.heartbeats()
    assert p.allocated == [(1, GB), (2, GB), (2, GB), (2, GB)]
    assert p.reserved == 0


def test_the_capacity_scheduler_checks_the_headroom_before_the_node() -> None:
    """Two 3 GB nodes: once application 2 holds its AM and one task, 3 GB are free, less than the 4 GB ask of
    application 1, which comes first: checkHeadroom skips the queue (QUEUE_SKIPPED) before any node is looked at,
    so application 2's second 1 GB ask waits although a node has 2 GB free (Hadoop does the same)."""
    p = Placed(CAPACITY_SCHEDULER, 2)
    p.app(1, 4 * GB, 1)
    p.app(2, GB, 2)
    for _ in range(4):
        p.heartbeats()
    assert p.allocated == [(1, GB), (2, GB), (2, GB)]
    assert p.reserved == 0
