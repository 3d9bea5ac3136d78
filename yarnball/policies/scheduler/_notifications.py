"""What a scheduler tells the RM: notifications from ``handle`` and the ``Allocation`` of ``allocate``.

These mirror the events the Hadoop scheduler sends back through the RM's dispatcher (``RMAppEventType.APP_ACCEPTED``
/ ``APP_REJECTED``, ``RMAppAttemptEventType.ATTEMPT_ADDED``, ``RMContainerEventType``, and the
``RMNodeCleanContainerEvent`` that makes a NodeManager kill a container). They are plain frozen structs shared by every
scheduler; the RM's dispatcher turns them into protocol messages. :class:`QueueMetrics` is Hadoop's scheduler-neutral
``QueueMetrics`` (the FairScheduler's ``FSQueueMetrics`` extends it).
"""

from __future__ import annotations

from typing import Union

import msgspec

from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Container,
    ContainerId,
    ContainerStatus,
    NodeId,
    Resource,
)

__all__ = [
    "Allocation",
    "AppAccepted",
    "AppRejected",
    "AttemptAdded",
    "ContainerAllocated",
    "ContainerCompleted",
    "ContainerReserved",
    "QueueMetrics",
    "SchedulerNotification",
]


# gc=False (inherited by every notification), as yarnball.protocols' records and messages: frozen, and every field
# is a record, a str, a bool or a tuple or frozenset of records (the annotations below), so none can be part of a
# reference cycle and the cyclic garbage collector need not track the one made per allocated container.
class _Note(msgspec.Struct, frozen=True, gc=False):
    pass


class AppAccepted(_Note, frozen=True):
    """``APP_ACCEPTED``: the application was admitted to its leaf queue. ``queue`` is the queue placement put it
    in when that is not the one it named (the FairScheduler's placement rules; ``RMAppManager
    .copyPlacementQueueToSubmissionContext`` sets it as the application's queue), else ``""``."""

    application_id: ApplicationId
    queue: str = ""


class AppRejected(_Note, frozen=True):
    """``APP_REJECTED`` with Hadoop's diagnostics (unknown queue, non-leaf queue, limits, ACL, STOPPED queue)."""

    application_id: ApplicationId
    diagnostics: str


class AttemptAdded(_Note, frozen=True):
    """``ATTEMPT_ADDED``: the attempt is known to the scheduler; the RM may now ask for its AM container."""

    attempt_id: ApplicationAttemptId


class ContainerAllocated(_Note, frozen=True):
    """A container was allocated on a node heartbeat; the AM receives it on its next ``allocate``."""

    attempt_id: ApplicationAttemptId
    container: Container
    is_am: bool = False
    locality: str = ""  # the allocation's NodeType: NODE_LOCAL, RACK_LOCAL or OFF_SWITCH


class ContainerReserved(_Note, frozen=True):
    """A reservation was made (or renewed) for the attempt on a node that is too full right now."""

    attempt_id: ApplicationAttemptId
    node_id: NodeId
    resource: Resource


class ContainerCompleted(_Note, frozen=True):
    """The scheduler ended a container itself (lost node, released, expired, killed, preempted).

    The RM tells the NodeManager to clean it up; the status is also queued for the AM's next ``allocate``.
    """

    attempt_id: ApplicationAttemptId
    container_id: ContainerId
    node_id: NodeId
    status: ContainerStatus


SchedulerNotification = Union[  # noqa: UP007 - a runtime alias, kept readable
    AppAccepted, AppRejected, AttemptAdded, ContainerAllocated, ContainerReserved, ContainerCompleted
]


class Allocation(msgspec.Struct, frozen=True, kw_only=True, gc=False):  # (gc=False: as _Note, one per AM pull)
    """The answer to an AM's ``allocate`` (``org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation``).

    ``containers`` were allocated on node heartbeats since the previous pull; ``completed`` are container statuses
    not yet pulled; ``headroom`` is ``getHeadroom()``; ``preempt`` holds containers marked for preemption;
    ``errors`` carries ``InvalidResourceRequestException`` messages (when non-empty nothing of the call was applied,
    as when Hadoop's ApplicationMasterService throws); ``notifications`` are the scheduler's own side effects of this
    call (released containers the RM must clean up on their NodeManagers).
    """

    containers: tuple[Container, ...] = ()
    completed: tuple[ContainerStatus, ...] = ()
    headroom: Resource = Resource()
    preempt: frozenset[ContainerId] = frozenset()
    errors: tuple[str, ...] = ()
    notifications: tuple[SchedulerNotification, ...] = ()


class QueueMetrics(msgspec.Struct, frozen=True, kw_only=True):
    """A snapshot of one queue for reports, metrics and the preemption monitor (``QueueMetrics`` with the queue's
    capacities, as ``QueueInfo`` reports them)."""

    path: str
    queue_name: str
    is_leaf: bool
    state: str
    priority: int
    capacity: float
    maximum_capacity: float
    absolute_capacity: float
    absolute_maximum_capacity: float
    used_capacity: float
    absolute_used_capacity: float
    allocated: Resource
    pending: Resource
    reserved: Resource
    available: Resource
    effective_min: Resource
    effective_max: Resource
    am_used: Resource
    am_limit: Resource
    apps_pending: int
    apps_running: int
    containers_allocated: int
    num_active_users: int
    # QueueMetrics.aggregateNodeLocalContainersAllocated, aggregateRackLocalContainersAllocated,
    # aggregateOffSwitchContainersAllocated
    aggregate_node_local_containers_allocated: int = 0
    aggregate_rack_local_containers_allocated: int = 0
    aggregate_off_switch_containers_allocated: int = 0
