"""What every scheduler shares, and the one interface the RM reaches a scheduler through (Hadoop's package
``org.apache.hadoop.yarn.server.resourcemanager.scheduler``).

- :class:`ResourceScheduler` (``YarnScheduler`` + ``ResourceScheduler``) and :class:`RecoveringScheduler`
  (_interface.py); :class:`SchedulingEditPolicy` (_editpolicy.py);
- the factory (_factory.py): :func:`create_scheduler` from ``yarn.resourcemanager.scheduler.class``, the edit
  policies from ``yarn.resourcemanager.scheduler.monitor.policies``;
- scheduler-neutral records: the notifications, ``Allocation`` and ``QueueMetrics`` (_notifications.py),
  ``SchedulerUtils``' statuses and the ``RMContainerState`` names (_utils.py), queue ACLs and states (_acl.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yarnball.policies.scheduler._acl import WILDCARD_ACL_VALUE, AccessControlList, QueueACL, QueueState
from yarnball.policies.scheduler._editpolicy import EditPolicyContext, SchedulingEditPolicy
from yarnball.policies.scheduler._interface import (
    RecoveringScheduler,
    ResourceScheduler,
    RMContainerView,
    SchedulerAppView,
    SchedulerNodeView,
)
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
from yarnball.policies.scheduler._utils import (
    ACQUIRED,
    ALLOCATED,
    COMPLETED_APPLICATION,
    EXPIRED_CONTAINER,
    LOST_CONTAINER,
    PREEMPTED_CONTAINER,
    RELEASED_CONTAINER,
    RESERVED,
    RESIZE_REQUEST_ID_BASE,
    RUNNING,
    UNRESERVED_CONTAINER,
    abnormal_status,
    preempted_status,
)

if TYPE_CHECKING:
    from yarnball.policies.scheduler._factory import (
        CAPACITY_SCHEDULER,
        FAIR_SCHEDULER,
        FIFO_SCHEDULER,
        PROVEN_SCHEDULER_CLASS,
        create_edit_policy,
        create_recovering_scheduler,
        create_scheduler,
        monitor_policies,
        policy_enabled,
        rest_scheduler_type,
        scheduler_class,
        validate_scheduler_configuration,
    )

#: The factory's names, imported on first use (PEP 562): the factory imports the schedulers, which import this
#: package's records.
_FACTORY_NAMES = frozenset(
    {
        "CAPACITY_SCHEDULER",
        "FAIR_SCHEDULER",
        "FIFO_SCHEDULER",
        "PROVEN_SCHEDULER_CLASS",
        "create_edit_policy",
        "create_recovering_scheduler",
        "create_scheduler",
        "monitor_policies",
        "policy_enabled",
        "rest_scheduler_type",
        "scheduler_class",
        "validate_scheduler_configuration",
    }
)


def __getattr__(name: str) -> Any:
    if name in _FACTORY_NAMES:
        from yarnball.policies.scheduler import _factory

        return getattr(_factory, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ACQUIRED",
    "ALLOCATED",
    "CAPACITY_SCHEDULER",
    "COMPLETED_APPLICATION",
    "EXPIRED_CONTAINER",
    "FAIR_SCHEDULER",
    "FIFO_SCHEDULER",
    "LOST_CONTAINER",
    "PREEMPTED_CONTAINER",
    "PROVEN_SCHEDULER_CLASS",
    "RELEASED_CONTAINER",
    "RESERVED",
    "RESIZE_REQUEST_ID_BASE",
    "RUNNING",
    "UNRESERVED_CONTAINER",
    "WILDCARD_ACL_VALUE",
    "AccessControlList",
    "Allocation",
    "AppAccepted",
    "AppRejected",
    "AttemptAdded",
    "ContainerAllocated",
    "ContainerCompleted",
    "ContainerReserved",
    "EditPolicyContext",
    "QueueACL",
    "QueueMetrics",
    "QueueState",
    "RMContainerView",
    "RecoveringScheduler",
    "ResourceScheduler",
    "SchedulerAppView",
    "SchedulerNodeView",
    "SchedulerNotification",
    "SchedulingEditPolicy",
    "abnormal_status",
    "create_edit_policy",
    "create_recovering_scheduler",
    "create_scheduler",
    "monitor_policies",
    "policy_enabled",
    "preempted_status",
    "rest_scheduler_type",
    "scheduler_class",
    "validate_scheduler_configuration",
]
