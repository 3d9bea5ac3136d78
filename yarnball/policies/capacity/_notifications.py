"""The scheduler's notifications, ``Allocation`` and ``QueueMetrics``: scheduler-neutral, in
policies/scheduler/_notifications.py."""

from __future__ import annotations

from yarnball.policies.scheduler._notifications import (
    Allocation,
    AppAccepted,
    AppRejected,
    AttemptAdded,
    ContainerAllocated,
    ContainerCompleted,
    ContainerReserved,
    QueueMetrics,
    SchedulerNotification,
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
