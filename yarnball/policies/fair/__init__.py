"""The FairScheduler as pure policies: its configuration, allocation file and queue placement (fair.md)."""

from __future__ import annotations

# -- configuration, allocation file and queue placement (fair.md §1) ---------------------------------------------
from yarnball.policies.fair._allocationconfiguration import (
    ALLOC_RELOAD_INTERVAL_MS,
    ALLOC_RELOAD_WAIT_MS,
    AllocationConfiguration,
    FSQueueSettings,
    ReservationQueueConfiguration,
    get_allocation_file,
    max_share,
    reload_allocations,
    reload_due,
)
from yarnball.policies.fair._allocationfile import FSQueueType, ReservationACL, parse_scheduling_policy
from yarnball.policies.fair._configurableresource import ConfigurableResource, parse_resource_config_value
from yarnball.policies.fair._fairschedulerconfiguration import FairSchedulerConfiguration
from yarnball.policies.fair._placement import (
    DefaultPlacementRule,
    ExistingQueue,
    FSPlacementRule,
    Placement,
    PrimaryGroupPlacementRule,
    QueuePlacementPolicy,
    RejectPlacementRule,
    SecondaryGroupExistingPlacementRule,
    SpecifiedPlacementRule,
    UserPlacementRule,
)

__all__ = [
    # -- configuration, allocation file and queue placement --
    "ALLOC_RELOAD_INTERVAL_MS",
    "ALLOC_RELOAD_WAIT_MS",
    "AllocationConfiguration",
    "ConfigurableResource",
    "DefaultPlacementRule",
    "ExistingQueue",
    "FSPlacementRule",
    "FSQueueSettings",
    "FSQueueType",
    "FairSchedulerConfiguration",
    "Placement",
    "PrimaryGroupPlacementRule",
    "QueuePlacementPolicy",
    "RejectPlacementRule",
    "ReservationACL",
    "ReservationQueueConfiguration",
    "SecondaryGroupExistingPlacementRule",
    "SpecifiedPlacementRule",
    "UserPlacementRule",
    "get_allocation_file",
    "max_share",
    "parse_resource_config_value",
    "parse_scheduling_policy",
    "reload_allocations",
    "reload_due",
]
