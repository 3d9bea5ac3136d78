"""The RM dispatcher's scheduler events (``org.apache.hadoop.yarn.server.resourcemanager.scheduler.event``).

In Hadoop these carry live RM objects (``RMNode``, ``RMContainer``); here they carry plain records so that a
scheduler policy can be driven from a snapshot, a test or another process. Every event class exposes its
:class:`SchedulerEventType` as ``event_type``: a class constant, except on ``ContainerPreemptEvent`` where, as in
Hadoop, one class serves several types and the type is a field.
"""

from __future__ import annotations

import enum
from typing import ClassVar

from yarnball.protocols._messages import Message
from yarnball.protocols._records import (
    ApplicationAttemptId,
    ApplicationId,
    Container,
    ContainerId,
    ContainerStatus,
    NodeId,
    Priority,
    Resource,
)
from yarnball.protocols._resourcetracker import NMContainerStatus, OpportunisticContainersStatus

__all__ = [
    "AppAddedSchedulerEvent",
    "AppAttemptAddedSchedulerEvent",
    "AppAttemptRemovedSchedulerEvent",
    "AppRemovedSchedulerEvent",
    "ContainerExpiredSchedulerEvent",
    "ContainerPreemptEvent",
    "KillReservedContainerEvent",
    "NodeAddedSchedulerEvent",
    "NodeLabelsUpdateSchedulerEvent",
    "NodeRemovedSchedulerEvent",
    "NodeResourceUpdateSchedulerEvent",
    "NodeUpdateSchedulerEvent",
    "ReleaseContainerEvent",
    "SchedulerEvent",
    "SchedulerEventType",
]


class SchedulerEventType(enum.Enum):
    """``SchedulerEventType`` of Hadoop 3.x (trunk adds NODE_ATTRIBUTES_UPDATE, MANAGE_QUEUE, AUTO_QUEUE_DELETION,
    which yarnball does not model)."""

    NODE_ADDED = "NODE_ADDED"
    NODE_REMOVED = "NODE_REMOVED"
    NODE_UPDATE = "NODE_UPDATE"
    NODE_RESOURCE_UPDATE = "NODE_RESOURCE_UPDATE"
    NODE_LABELS_UPDATE = "NODE_LABELS_UPDATE"
    APP_ADDED = "APP_ADDED"
    APP_REMOVED = "APP_REMOVED"
    APP_ATTEMPT_ADDED = "APP_ATTEMPT_ADDED"
    APP_ATTEMPT_REMOVED = "APP_ATTEMPT_REMOVED"
    CONTAINER_EXPIRED = "CONTAINER_EXPIRED"
    RELEASE_CONTAINER = "RELEASE_CONTAINER"
    KILL_RESERVED_CONTAINER = "KILL_RESERVED_CONTAINER"
    MARK_CONTAINER_FOR_PREEMPTION = "MARK_CONTAINER_FOR_PREEMPTION"
    MARK_CONTAINER_FOR_KILLABLE = "MARK_CONTAINER_FOR_KILLABLE"
    MARK_CONTAINER_FOR_NONKILLABLE = "MARK_CONTAINER_FOR_NONKILLABLE"


# The types ContainerPreemptEvent may carry: the preemption monitor's three marks and KILL_RESERVED_CONTAINER,
# which ProportionalCapacityPreemptionPolicy also sends as a ContainerPreemptEvent (CapacityScheduler.handle casts
# the KILL_RESERVED_CONTAINER event to ContainerPreemptEvent).
_PREEMPT_EVENT_TYPES = frozenset(
    {
        SchedulerEventType.KILL_RESERVED_CONTAINER,
        SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION,
        SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE,
        SchedulerEventType.MARK_CONTAINER_FOR_NONKILLABLE,
    }
)


class SchedulerEvent(Message, frozen=True, kw_only=True):
    """Base of the scheduler events (``SchedulerEvent``); never sent itself."""

    event_type: ClassVar[SchedulerEventType]


class NodeAddedSchedulerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="NodeAddedSchedulerEvent"):
    """A node registered; ``container_reports`` are its running containers, for work-preserving recovery."""

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.NODE_ADDED
    node_id: NodeId
    rack_name: str = "/default-rack"
    total_resource: Resource = Resource()
    node_labels: tuple[str, ...] = ()
    container_reports: tuple[NMContainerStatus, ...] = ()


class NodeRemovedSchedulerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="NodeRemovedSchedulerEvent"):
    """A node was lost, decommissioned or shut down; its containers die with LOST_CONTAINER."""

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.NODE_REMOVED
    node_id: NodeId


class NodeUpdateSchedulerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="NodeUpdateSchedulerEvent"):
    """A node heartbeat: container changes since the last one (``RMNode.pullContainerUpdates``).

    ``opportunistic_containers_status`` is what ``NodeQueueLoadMonitor.updateNode`` reads from the RMNode on the
    same event; None when the NM did not report it.
    """

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.NODE_UPDATE
    node_id: NodeId
    newly_launched_containers: tuple[ContainerStatus, ...] = ()
    completed_containers: tuple[ContainerStatus, ...] = ()
    opportunistic_containers_status: OpportunisticContainersStatus | None = None


class NodeResourceUpdateSchedulerEvent(
    SchedulerEvent, frozen=True, kw_only=True, tag="NodeResourceUpdateSchedulerEvent"
):
    """A node's total resource changed (admin update or the NM re-registering with a new size)."""

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.NODE_RESOURCE_UPDATE
    node_id: NodeId
    total_resource: Resource = Resource()


class NodeLabelsUpdateSchedulerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="NodeLabelsUpdateSchedulerEvent"):
    """Nodes' partitions changed (Hadoop's ``Map<NodeId, Set<String>>`` as ``(node, labels)`` pairs)."""

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.NODE_LABELS_UPDATE
    updated_node_to_labels: tuple[tuple[NodeId, tuple[str, ...]], ...] = ()


class AppAddedSchedulerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="AppAddedSchedulerEvent"):
    """An application was submitted (accepted or rejected by the scheduler's queue checks)."""

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.APP_ADDED
    application_id: ApplicationId
    queue: str = "default"
    user: str = ""
    priority: Priority = Priority()
    is_app_recovering: bool = False


class AppRemovedSchedulerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="AppRemovedSchedulerEvent"):
    """An application finished; ``final_state`` is an ``RMAppState`` name (FINISHED, FAILED, KILLED, ...)."""

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.APP_REMOVED
    application_id: ApplicationId
    final_state: str = "FINISHED"


class AppAttemptAddedSchedulerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="AppAttemptAddedSchedulerEvent"):
    """An attempt started; with ``transfer_state_from_previous_attempt`` it inherits the old attempt's state."""

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.APP_ATTEMPT_ADDED
    application_attempt_id: ApplicationAttemptId
    transfer_state_from_previous_attempt: bool = False
    is_attempt_recovering: bool = False


class AppAttemptRemovedSchedulerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="AppAttemptRemovedSchedulerEvent"):
    """An attempt ended; ``final_attempt_state`` is an ``RMAppAttemptState`` name."""

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.APP_ATTEMPT_REMOVED
    application_attempt_id: ApplicationAttemptId
    final_attempt_state: str = "FINISHED"
    keep_containers_across_app_attempts: bool = False


class ContainerExpiredSchedulerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="ContainerExpiredSchedulerEvent"):
    """The AM did not launch an allocated container in time (``ContainerAllocationExpirer``).

    ``increase`` marks an expired resource increase, which is rolled back instead of killing the container.
    """

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.CONTAINER_EXPIRED
    container_id: ContainerId
    increase: bool = False


class ReleaseContainerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="ReleaseContainerEvent"):
    """Release a container (Hadoop carries the RMContainer; the id is enough to find it)."""

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.RELEASE_CONTAINER
    container_id: ContainerId


class KillReservedContainerEvent(SchedulerEvent, frozen=True, kw_only=True, tag="KillReservedContainerEvent"):
    """Cancel a reservation.

    Hadoop has no class of this name: it sends KILL_RESERVED_CONTAINER as a ``ContainerPreemptEvent``. yarnball
    offers this shorter event too; the scheduler must accept either.
    """

    event_type: ClassVar[SchedulerEventType] = SchedulerEventType.KILL_RESERVED_CONTAINER
    container_id: ContainerId


class ContainerPreemptEvent(SchedulerEvent, frozen=True, kw_only=True, tag="ContainerPreemptEvent"):
    """The preemption monitor's order about one container (``ContainerPreemptEvent``).

    ``event_type`` is MARK_CONTAINER_FOR_PREEMPTION (tell the AM), MARK_CONTAINER_FOR_KILLABLE (kill, or mark
    killable under lazy preemption), MARK_CONTAINER_FOR_NONKILLABLE (undo) or KILL_RESERVED_CONTAINER.
    """

    application_attempt_id: ApplicationAttemptId
    container: Container
    event_type: SchedulerEventType = SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION  # type: ignore[misc]

    def __post_init__(self) -> None:
        # Raised as ValueError so that msgspec turns it into a ValidationError with the path when decoding.
        if self.event_type not in _PREEMPT_EVENT_TYPES:
            allowed = ", ".join(sorted(t.value for t in _PREEMPT_EVENT_TYPES))
            got = getattr(self.event_type, "value", self.event_type)
            raise ValueError(f"ContainerPreemptEvent.event_type must be one of {allowed}, got {got!r}")
