"""The CapacityScheduler as a pure policy: queue tree, limits and heartbeat allocation (capacity.md)."""

from __future__ import annotations

from yarnball.policies.capacity._autoqueues import SchedulerDynamicEditException
from yarnball.policies.capacity._calculator import (
    DefaultResourceCalculator,
    DominantResourceCalculator,
    ResourceCalculator,
    make_calculator,
)
from yarnball.policies.capacity._configuration import *  # noqa: F403
from yarnball.policies.capacity._configuration import __all__ as _configuration_all
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._queues import CSQueue, ParentQueue
from yarnball.policies.capacity._scheduler import CapacityScheduler
from yarnball.policies.capacity._state import RMContainer, SchedulerApp, SchedulerApplication, SchedulerNode, User
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
    *_configuration_all,
    "Allocation",
    "AppAccepted",
    "AppRejected",
    "AttemptAdded",
    "CSQueue",
    "CapacityScheduler",
    "ContainerAllocated",
    "ContainerCompleted",
    "ContainerReserved",
    "DefaultResourceCalculator",
    "DominantResourceCalculator",
    "LeafQueue",
    "ParentQueue",
    "QueueMetrics",
    "RMContainer",
    "ResourceCalculator",
    "SchedulerApp",
    "SchedulerApplication",
    "SchedulerDynamicEditException",
    "SchedulerNode",
    "SchedulerNotification",
    "User",
    "make_calculator",
]
