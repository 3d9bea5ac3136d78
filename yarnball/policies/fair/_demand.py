"""The FairScheduler's derived values that are pure functions of a queue's children and settings: demand
(``updateDemand``), the effective max share, an application's weight and headroom, and the capacities
``getQueueInfo`` reports.

Hadoop computes them inside ``FSAppAttempt``, ``FSLeafQueue``, ``FSParentQueue`` and ``FSQueue``; the queues that
call these functions hold the state.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from yarnball.policies.fair._resources import componentwise_max, componentwise_min
from yarnball.policies.fair._schedulingpolicy import SchedulingPolicy
from yarnball.policies.preemption._java import f32, java_long, ratio
from yarnball.protocols import Resource

__all__ = [
    "app_demand",
    "app_headroom",
    "app_weight",
    "leaf_queue_demand",
    "parent_queue_demand",
    "queue_capacity",
    "queue_current_capacity",
    "queue_max_share",
]

_LN2 = math.log(2)


def app_demand(current_consumption: Resource, any_asks: Iterable[tuple[Resource, int]]) -> Resource:
    """``FSAppAttempt.updateDemand``: the current consumption plus, for every scheduler key whose off-switch (ANY)
    ask has a positive count, ``capability * count`` (``Resources.multiplyAndAddTo``: each component
    ``(long)(value * (double) count)``). ``any_asks`` holds each key's ANY ``(capability, count)``."""
    memory, vcores = current_consumption.memory_mb, current_consumption.vcores
    extended = dict(current_consumption.extended)
    for capability, count in any_asks:
        if count <= 0:
            continue
        by = float(count)
        memory += java_long(capability.memory_mb * by)
        vcores += java_long(capability.vcores * by)
        for name, value in capability.extended:
            extended[name] = extended.get(name, 0) + java_long(value * by)
    return Resource(memory, vcores, tuple(sorted((k, v) for k, v in extended.items() if v)))


def _total(resources: Iterable[Resource]) -> Resource:
    total = Resource(0, 0)
    for r in resources:
        total = total + r
    return Resource(total.memory_mb, total.vcores, tuple((k, v) for k, v in total.extended if v))


def leaf_queue_demand(app_demands: Iterable[Resource], max_share: Resource) -> Resource:
    """``FSLeafQueue.updateDemand``: the demands of the runnable *and* non-runnable applications, capped at the
    queue's max share componentwise."""
    return componentwise_min(_total(app_demands), max_share)


def parent_queue_demand(child_demands: Iterable[Resource], max_share: Resource) -> Resource:
    """``FSParentQueue.updateDemand`` as ``getDemand`` returns it: the children's demands capped at the max share,
    memory and vcores only (``Resource.newInstance(memory, vcores)``: Hadoop drops the other types here)."""
    demand = componentwise_min(_total(child_demands), max_share)
    return Resource(demand.memory_mb, demand.vcores)


def queue_max_share(max_resource: Resource, min_share: Resource) -> Resource:
    """``FSQueue.getMaxShare``: the configured max (``maxResources`` resolved against the cluster) raised
    componentwise to the min share (Hadoop warns ``Queue <q> has max resources <max> less than min resources
    <min>`` then)."""
    return componentwise_max(max_resource, min_share)


def app_weight(demand_memory_mb: int, size_based_weight: bool) -> float:
    """``FSAppAttempt.getWeight``: 1, or with ``yarn.scheduler.fair.sizebasedweight`` ``(float)(log1p(demand MB) /
    log(2))``, times the application priority, which the FairScheduler fixes at 1 (a float32 value)."""
    weight = 1.0
    if size_based_weight:
        # Math.log1p is -Infinity at -1 and NaN below (math.log1p raises there).
        if demand_memory_mb > -1:
            log = math.log1p(demand_memory_mb)
        else:
            log = -math.inf if demand_memory_mb == -1 else math.nan
        weight = f32(log / _LN2)
    return weight


def app_headroom(
    policy: SchedulingPolicy,
    queue_fair_share: Resource,
    queue_usage: Resource,
    queue_max_share: Resource,
    cluster_resource: Resource,
    cluster_usage: Resource,
    blacklisted_unallocated: Iterable[Resource] = (),
) -> Resource:
    """``FSAppAttempt.getHeadroom``: what the cluster has free (less the unallocated resource of the nodes the
    application blacklisted, ``subtractFromNonNegative``: memory and vcores floored at 0), capped componentwise by
    the queue's max share less its usage, then the policy's ``getHeadroom`` with the queue's fair share and
    usage."""
    available = cluster_resource - cluster_usage
    for unallocated in blacklisted_unallocated:
        available = available - unallocated
        available = Resource(max(available.memory_mb, 0), max(available.vcores, 0), available.extended)
    queue_available = queue_max_share - queue_usage
    return policy.get_headroom(queue_fair_share, queue_usage, componentwise_min(available, queue_available))


def queue_capacity(fair_share_mb: int, cluster_mb: int) -> float:
    """``FSQueue.getQueueInfo`` capacity: ``(float) fairShare.memory / cluster.memory``, 0 on an empty cluster."""
    return 0.0 if cluster_mb == 0 else ratio(fair_share_mb, cluster_mb)


def queue_current_capacity(usage_mb: int, fair_share_mb: int) -> float:
    """``FSQueue.getQueueInfo`` currentCapacity: ``(float) usage.memory / fairShare.memory``, 0 with no fair
    share."""
    return 0.0 if fair_share_mb == 0 else ratio(usage_mb, fair_share_mb)
