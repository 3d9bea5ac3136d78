"""Hadoop's ``FSQueueMetrics`` (fair.md §6.1) as a snapshot of one FairScheduler queue, and the REST API's
``FairSchedulerInfo`` / ``FairSchedulerQueueInfo`` / ``FairSchedulerLeafQueueInfo`` (fair.md §6.3, rest.md §3.3).
"""

from __future__ import annotations

from typing import Any

from yarnball.policies.fair._configurableresource import unbounded
from yarnball.policies.fair._demand import queue_capacity, queue_current_capacity
from yarnball.policies.fair._fsleafqueue import FSLeafQueue, subtract_non_negative
from yarnball.policies.fair._fsqueue import FSQueue
from yarnball.policies.fair._queuemanager import QueueManager
from yarnball.policies.fair._resources import componentwise_min
from yarnball.policies.preemption._java import ratio
from yarnball.policies.scheduler._notifications import QueueMetrics
from yarnball.protocols import Resource

__all__ = ["FSQueueMetrics", "fair_scheduler_info", "fs_queue_metrics"]

_NONE = Resource(0, 0)
_LONG_MAX = 2**63 - 1
_MAXIMUM_ALLOCATION = Resource(8192, 4)  # yarn.scheduler.maximum-allocation-mb / -vcores defaults


class FSQueueMetrics(QueueMetrics, frozen=True, kw_only=True):
    """``FSQueueMetrics``: ``QueueMetrics`` with the FairScheduler's gauges (fair share, steady fair share, min and
    max share, ``maxApps``, ``maxAMShare`` and the ``SchedulingPolicy`` tag; ``am_used`` is ``amResourceUsage``).
    ``demand`` is the queue's ``getDemand()``, which SLS's ``FairSchedulerMetrics`` reads beside these gauges."""

    demand: Resource
    fair_share: Resource
    steady_fair_share: Resource
    min_share: Resource
    max_share: Resource
    max_apps: int
    max_am_share: Resource
    scheduling_policy: str


def fs_queue_metrics(queue: FSQueue) -> FSQueueMetrics:
    """The metrics of ``queue`` now. Capacities are fractions of the cluster's memory: ``capacity`` is the fair
    share's, ``used_capacity`` the usage over the fair share (as ``getQueueInfo``), ``maximum_capacity`` the max
    share's (capped at the cluster, as the scheduler page shows it)."""
    cluster = queue.context.cluster_resource
    max_share = queue.max_share
    leaf = queue if isinstance(queue, FSLeafQueue) else None
    capacity = queue_capacity(queue.fair_share.memory_mb, cluster.memory_mb)
    maximum = 0.0 if cluster.memory_mb == 0 else ratio(min(max_share.memory_mb, cluster.memory_mb), cluster.memory_mb)
    used = 0.0 if cluster.memory_mb == 0 else ratio(queue.resource_usage.memory_mb, cluster.memory_mb)
    apps: list[Any] = []
    queue.collect_scheduler_applications(apps)
    return FSQueueMetrics(
        path=queue.name,
        queue_name=queue.name.rsplit(".", 1)[-1],
        is_leaf=leaf is not None,
        state="RUNNING",
        priority=0,
        capacity=capacity,
        maximum_capacity=maximum,
        absolute_capacity=capacity,
        absolute_maximum_capacity=maximum,
        used_capacity=queue_current_capacity(queue.resource_usage.memory_mb, queue.fair_share.memory_mb),
        absolute_used_capacity=used,
        allocated=queue.resource_usage,
        pending=subtract_non_negative(queue.demand, queue.resource_usage),
        reserved=queue.reserved,
        # updateRootQueueMetrics: only root's available resource is kept
        available=queue.context.root_available if queue.parent is None else _NONE,
        effective_min=queue.min_share,
        effective_max=max_share,
        am_used=leaf.am_resource_usage if leaf is not None else _NONE,
        am_limit=leaf.max_am_resource if leaf is not None else _NONE,
        apps_pending=sum(1 for app in apps if app.is_pending() or not app.queue.is_runnable_app(app)),
        apps_running=sum(1 for app in apps if not app.is_pending() and app.queue.is_runnable_app(app)),
        containers_allocated=queue.allocated_containers,
        num_active_users=len({app.user for app in apps if app.queue.is_runnable_app(app)}),
        demand=queue.demand,
        fair_share=queue.fair_share,
        steady_fair_share=queue.steady_fair_share,
        min_share=queue.min_share,
        max_share=max_share,
        max_apps=queue.max_running_apps,
        max_am_share=leaf.max_am_resource if leaf is not None else _NONE,
        scheduling_policy=queue.metrics_scheduling_policy,
    )


# -- REST ----------------------------------------------------------------------------------------------------------
def _resource_info(r: Resource, resource_types: tuple[str, ...]) -> dict[str, Any]:
    """``ResourceInfo``: memory, vCores and every known resource type's ``ResourceInformation``."""
    values = dict(r.extended)
    infos = [_information("memory-mb", "Mi", r.memory_mb), _information("vcores", "", r.vcores)]
    infos += [_information(name, "", values.get(name, 0)) for name in resource_types]
    return {"memory": r.memory_mb, "vCores": r.vcores, "resourceInformations": {"resourceInformation": infos}}


def _information(name: str, units: str, value: int) -> dict[str, Any]:
    return {
        "attributes": {},
        "maximumAllocation": _LONG_MAX,
        "minimumAllocation": 0,
        "name": name,
        "resourceType": "COUNTABLE",
        "units": units,
        "value": value,
    }


def fair_scheduler_info(
    queue_manager: QueueManager, cluster: Resource, maximum_allocation: Resource = _MAXIMUM_ALLOCATION
) -> dict[str, Any]:
    """``FairSchedulerInfo``: ``{"type": "fairScheduler", "rootQueue": {...}}`` with every queue as
    ``FairSchedulerQueueInfo`` (leaves as ``FairSchedulerLeafQueueInfo``, ``"type"`` first) in JAXB's field order.
    ``maximum_allocation`` is the scheduler's (``yarn.scheduler.maximum-allocation-*``); a queue's
    ``maxContainerAllocation`` is the smaller of it and the queue's own limit."""
    types = queue_manager.alloc_conf.resource_types
    return {
        "type": "fairScheduler",
        "rootQueue": _queue_info(queue_manager, queue_manager.root_queue, cluster, maximum_allocation, types),
    }


def _queue_info(
    manager: QueueManager, queue: FSQueue, cluster: Resource, maximum_allocation: Resource, types: tuple[str, ...]
) -> dict[str, Any]:
    """``FairSchedulerQueueInfo(queue, scheduler)``: a reservable queue whose reservations are not shown as queues
    stops before ``preemptable`` (false) and the children."""
    leaf = queue if isinstance(queue, FSLeafQueue) else None
    alloc_conf = manager.alloc_conf
    own = queue.maximum_container_allocation()
    max_alloc = maximum_allocation if own == unbounded(types) else componentwise_min(maximum_allocation, own)

    def info(r: Resource) -> dict[str, Any]:
        return _resource_info(r, types)

    out: dict[str, Any] = {"type": "fairSchedulerLeafQueueInfo"} if leaf is not None else {}
    out.update(
        {
            "maxApps": queue.max_running_apps,
            "minResources": info(queue.min_share),
            "maxResources": info(componentwise_min(queue.max_share, cluster)),
            "usedResources": info(queue.resource_usage),
            "amUsedResources": info(leaf.am_resource_usage if leaf is not None else _NONE),
            "amMaxResources": info(leaf.max_am_resource if leaf is not None else _NONE),
            "demandResources": info(queue.demand),
            "steadyFairResources": info(queue.steady_fair_share),
            "fairResources": info(queue.fair_share),
            "clusterResources": info(cluster),
            "reservedResources": info(queue.reserved),
            "maxContainerAllocation": info(max_alloc),
            "pendingContainers": queue.pending_containers,
            "allocatedContainers": queue.allocated_containers,
            "reservedContainers": queue.reserved_containers,
            "queueName": queue.name,
            "schedulingPolicy": queue.policy.name,
        }
    )
    hidden = alloc_conf.is_reservable(queue.name) and not alloc_conf.reservation_config.show_reservation_as_queues
    out["preemptable"] = False if hidden else queue.preemptable
    children = queue.child_queues
    if children and not hidden:
        out["childQueues"] = {"queue": [_queue_info(manager, c, cluster, maximum_allocation, types) for c in children]}
    if leaf is not None:
        out["numPendingApps"] = leaf.num_pending_apps
        out["numActiveApps"] = leaf.num_active_apps
    return out
