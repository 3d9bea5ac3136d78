"""The FairScheduler's pure parts (Hadoop's ``org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair``)."""

from __future__ import annotations

# --- fair shares and scheduling policies (ComputeFairShares, SchedulingPolicy and its three policies) ---
from yarnball.policies.fair._computefairshares import (
    COMPUTE_FAIR_SHARES_ITERATIONS,
    compute_share,
    compute_shares,
    compute_steady_shares,
)
from yarnball.policies.fair._demand import (
    app_demand,
    app_headroom,
    app_weight,
    leaf_queue_demand,
    parent_queue_demand,
    queue_capacity,
    queue_current_capacity,
    queue_max_share,
)
from yarnball.policies.fair._dominantresourcefairnesspolicy import (
    DominantResourceFairnessComparator2,
    DominantResourceFairnessComparatorN,
    DominantResourceFairnessPolicy,
)
from yarnball.policies.fair._fairsharepolicy import FairShareComparator, FairSharePolicy
from yarnball.policies.fair._fifopolicy import FifoComparator, FifoPolicy
from yarnball.policies.fair._policies import DEFAULT_POLICY, POLICY_CLASS_NAMES, get_instance, parse
from yarnball.policies.fair._schedulable import FakeSchedulable, FSQueueSchedulable, Schedulable
from yarnball.policies.fair._schedulingpolicy import SchedulableComparator, SchedulingPolicy

# --- end of fair shares and scheduling policies ---

# --- configuration, allocation file and queue placement (fair.md §1) ---
# isort: split
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
from yarnball.policies.fair._allocationfile import FSQueueType, ReservationACL
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

# --- end of configuration, allocation file and queue placement ---

# --- the queue tree: QueueManager, FSQueue, running-app limits, metrics and REST (fair.md §2-§6) ---
# isort: split
from yarnball.policies.fair._fsapp import AppStarvation, FakeFSApp, FSApp
from yarnball.policies.fair._fsleafqueue import FSLeafQueue, fair_share_starvation
from yarnball.policies.fair._fsqueue import FSContext, FSParentQueue, FSQueue
from yarnball.policies.fair._fsqueuemetrics import FSQueueMetrics, fair_scheduler_info, fs_queue_metrics
from yarnball.policies.fair._fsqueuestate import dump_state
from yarnball.policies.fair._maxrunningappsenforcer import (
    MaxRunningAppsEnforcer,
    multi_list_start_time_iterator,
)
from yarnball.policies.fair._queuemanager import ROOT_QUEUE, QueueManager

# --- end of the queue tree ---

__all__ = [
    # --- fair shares and scheduling policies ---
    "COMPUTE_FAIR_SHARES_ITERATIONS",
    "DEFAULT_POLICY",
    "POLICY_CLASS_NAMES",
    "DominantResourceFairnessComparator2",
    "DominantResourceFairnessComparatorN",
    "DominantResourceFairnessPolicy",
    "FSQueueSchedulable",
    "FairShareComparator",
    "FairSharePolicy",
    "FakeSchedulable",
    "FifoComparator",
    "FifoPolicy",
    "Schedulable",
    "SchedulableComparator",
    "SchedulingPolicy",
    "app_demand",
    "app_headroom",
    "app_weight",
    "compute_share",
    "compute_shares",
    "compute_steady_shares",
    "get_instance",
    "leaf_queue_demand",
    "parent_queue_demand",
    "parse",
    "queue_capacity",
    "queue_current_capacity",
    "queue_max_share",
    # --- end of fair shares and scheduling policies ---
]

# --- configuration, allocation file and queue placement ---
__all__ += [
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
    "reload_allocations",
    "reload_due",
]
# --- end of configuration, allocation file and queue placement ---

# --- the queue tree ---
__all__ += [
    "ROOT_QUEUE",
    "AppStarvation",
    "FSApp",
    "FSContext",
    "FSLeafQueue",
    "FSParentQueue",
    "FSQueue",
    "FSQueueMetrics",
    "FakeFSApp",
    "MaxRunningAppsEnforcer",
    "QueueManager",
    "dump_state",
    "fair_scheduler_info",
    "fair_share_starvation",
    "fs_queue_metrics",
    "multi_list_start_time_iterator",
]
# --- end of the queue tree ---

# --- fs2cs, the FairScheduler-to-CapacityScheduler converter (fair.md §8; the parts in .converter) ---
# isort: split
from yarnball.policies.fair.converter import (  # noqa: E402
    ConvertedConfigValidator,
    FSConfigToCSConfigConverter,
    FSConfigToCSConfigConverterParams,
)

__all__ += ["ConvertedConfigValidator", "FSConfigToCSConfigConverter", "FSConfigToCSConfigConverterParams"]
# --- end of fs2cs ---
