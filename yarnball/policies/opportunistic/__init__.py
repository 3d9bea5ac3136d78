"""Opportunistic containers, the pure parts: node queue load monitoring, queue limits, centralized and distributed
allocation, and the NodeManager's queue ordering and reclaiming policies."""

from __future__ import annotations

from yarnball.policies.opportunistic._allocator import (
    CentralizedOpportunisticContainerAllocator,
    DistributedOpportunisticContainerAllocator,
    OpportunisticContainerContext,
    Placement,
    normalize,
    partition_asks,
)
from yarnball.policies.opportunistic._metrics import OpportunisticSchedulerMetrics
from yarnball.policies.opportunistic._monitor import (
    ClusterNode,
    LoadComparator,
    NodeQueueLoadMonitor,
    QueueLimitCalculator,
)
from yarnball.policies.opportunistic._nmpolicies import (
    KillPolicy,
    QueuedInfo,
    QueueOrderPolicy,
    RunningInfo,
    order_queue,
    parse_policy,
    select_victims,
)

__all__ = [
    "CentralizedOpportunisticContainerAllocator",
    "ClusterNode",
    "DistributedOpportunisticContainerAllocator",
    "KillPolicy",
    "LoadComparator",
    "NodeQueueLoadMonitor",
    "OpportunisticContainerContext",
    "OpportunisticSchedulerMetrics",
    "Placement",
    "QueueLimitCalculator",
    "QueueOrderPolicy",
    "QueuedInfo",
    "RunningInfo",
    "normalize",
    "order_queue",
    "parse_policy",
    "partition_asks",
    "select_victims",
]
