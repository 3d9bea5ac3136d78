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
