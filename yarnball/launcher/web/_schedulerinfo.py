"""``/ws/v1/cluster/scheduler``: the scheduler's ``schedulerInfo`` (rest.md §3.3), by the scheduler's type as
``RMWebServices.getSchedulerInfo`` chooses it (``rest_scheduler_type``, policies/scheduler/_factory.py).

The CapacityScheduler's is its queue tree as ``CapacitySchedulerInfo``: parent queues are
``CapacitySchedulerQueueInfo``, leaves ``CapacitySchedulerLeafQueueInfo`` (with ``"type"`` first, as JAXB writes it)
with their users (``UserInfo``); capacities are percentages, as the REST API prints them.
"""

from __future__ import annotations

from typing import Any

from yarnball.launcher.web._resources import r as _r
from yarnball.launcher.web._resources import resource_info
from yarnball.launcher.web._resources import resource_text as _resource_text
from yarnball.policies.scheduler import rest_scheduler_type

__all__ = ["capacity_scheduler_info", "scheduler_info"]


def scheduler_info(cluster: Any, queues: dict[str, Any], *, preemption: bool) -> dict[str, Any]:
    """``RMWebServices.getSchedulerInfo``: the ``schedulerInfo`` of the cluster's scheduler, by its type."""
    scheduler = cluster.rm.scheduler
    kind = rest_scheduler_type(scheduler)
    if kind == "fifoScheduler":
        return {"schedulerInfo": scheduler.fifo_scheduler_info()}  # FifoSchedulerInfo (policies/fifo)
    if kind == "fairScheduler":
        return {"schedulerInfo": scheduler.fair_scheduler_info()}  # FairSchedulerInfo (policies/fair)
    if kind != "capacityScheduler":
        raise NotImplementedError(f"no schedulerInfo for a {kind}")
    return capacity_scheduler_info(scheduler, queues, preemption=preemption)


def capacity_scheduler_info(scheduler: Any, queues: dict[str, Any], *, preemption: bool) -> dict[str, Any]:
    """``CapacitySchedulerInfo`` with the queue tree (``CapacitySchedulerQueueInfo``/``...LeafQueueInfo``)."""
    root = scheduler.root
    rm_root = queues["root"]
    info: dict[str, Any] = {
        "type": "capacityScheduler",
        "capacity": 100.0,
        "usedCapacity": _r(100 * rm_root.used_capacity),
        "maxCapacity": 100.0,
        "queueName": "root",
        "queuePath": "root",
        "weight": -1.0,
        "normalizedWeight": 0.0,
        "maxParallelApps": int(root.max_parallel_apps),
        "isAbsoluteResource": False,
        "queuePriority": int(rm_root.priority),
        "orderingPolicyInfo": "utilization",
        "mode": "percentage",
        "queueType": "parent",
        "creationMethod": "static",
        "autoCreationEligibility": "off",
        "maximumAllocation": _max_alloc(scheduler, None),
    }
    children = [_queue(scheduler, q, queues, preemption) for q in root.children]
    info["queues"] = {"queue": children} if children else {}
    return {"schedulerInfo": info}


def _max_alloc(scheduler: Any, queue: Any) -> dict[str, Any]:
    r = scheduler.maximum_allocation(queue)
    return resource_info(r.memory_mb, r.vcores)


def _queue(scheduler: Any, q: Any, queues: dict[str, Any], preemption: bool) -> dict[str, Any]:
    m = queues[q.path]
    leaf = bool(q.is_leaf)
    used = m.allocated.memory_mb + m.reserved.memory_mb, m.allocated.vcores + m.reserved.vcores
    out: dict[str, Any] = {}
    if leaf:
        out["type"] = "capacitySchedulerLeafQueueInfo"
    out.update(
        {
            "queuePath": m.path,
            "capacity": _r(100 * m.capacity),
            "usedCapacity": _r(100 * m.used_capacity),
            "maxCapacity": _r(100 * m.maximum_capacity),
            "absoluteCapacity": _r(100 * m.absolute_capacity),
            "absoluteMaxCapacity": _r(100 * m.absolute_maximum_capacity),
            "absoluteUsedCapacity": _r(100 * m.absolute_used_capacity),
            "weight": _r(float(q.weight)),
            "normalizedWeight": _r(float(q.normalized_weight)),
            "numApplications": int(m.apps_pending + m.apps_running),
            "maxParallelApps": int(q.max_parallel_apps),
            "queueName": m.queue_name,
            "isAbsoluteResource": bool(q.absolute),
            "state": m.state,
            "resourcesUsed": resource_info(*used),
            "usedResources": _resource_text(*used),
            "hideReservationQueues": False,
            "nodeLabels": ["*"],
            "allocatedContainers": int(m.containers_allocated),
            "reservedContainers": 0,
            "pendingContainers": 0,
            "minEffectiveCapacity": resource_info(m.effective_min.memory_mb, m.effective_min.vcores),
            "maxEffectiveCapacity": resource_info(m.effective_max.memory_mb, m.effective_max.vcores),
            "maximumAllocation": _max_alloc(scheduler, q),
            "queuePriority": int(m.priority),
            "orderingPolicyInfo": ("fair" if getattr(q, "fair", False) else "fifo") if leaf else "utilization",
            "queueAcls": {"queueAcl": _acls(q)},
            "capacities": {
                "queueCapacitiesByPartition": [_capacities(m, q, am_pct=float(getattr(q, "max_am_percent", 0)))]
            },
            "resources": {"resourceUsagesByPartition": [_usages(m, used)]},
            "autoCreateChildQueueEnabled": False,
            "leafQueueTemplate": {},
            "autoQueueTemplateProperties": {},
            "autoQueueParentTemplateProperties": {},
            "autoQueueLeafTemplateProperties": {},
            "mode": "absolute" if q.absolute else ("weight" if q.weight >= 0 else "percentage"),
            "queueType": "leaf" if leaf else "parent",
            # CapacitySchedulerQueueInfo: dynamic queues of the flexible (v2) auto creation, and the parents that
            # may create them (AbstractParentQueue.isEligibleForAutoQueueCreation)
            "creationMethod": "dynamicFlexible" if q.dynamic else "static",
            "autoCreationEligibility": _eligibility(scheduler, q),
        }
    )
    if not leaf:
        out["queues"] = {"queue": [_queue(scheduler, c, queues, preemption) for c in q.children]}
        return out
    users = [_user(u) for _name, u in sorted(q.users.items()) if u.total_applications > 0 or u.used_m > 0]
    am_pct = float(q.max_am_percent)
    out.update(
        {
            "numActiveApplications": int(m.apps_running),
            # getNumPendingApplications: the attempts waiting for activation, not those max-parallel-apps holds back
            # (which numApplications and the queue metrics' appsPending count)
            "numPendingApplications": int(m.apps_pending) - len(q.non_runnable),
            "numContainers": int(m.containers_allocated),
            "maxApplications": int(q.max_apps),
            "maxApplicationsPerUser": int(q.max_apps_per_user),
            "maxActiveApplications": int(q.max_apps),
            "maxActiveApplicationsPerUser": int(q.max_apps_per_user),
            "userLimit": int(q.user_limit),
            "users": {"user": users} if users else {},
            "userLimitFactor": _r(q.user_limit_factor),
            "configuredMaxAMResourceLimit": _r(am_pct),
            "AMResourceLimit": resource_info(m.am_limit.memory_mb, m.am_limit.vcores),
            "usedAMResource": resource_info(m.am_used.memory_mb, m.am_used.vcores),
            "userAMResourceLimit": resource_info(m.am_limit.memory_mb, m.am_limit.vcores),
            "preemptionDisabled": not preemption,
            "intraQueuePreemptionDisabled": True,
            "isAutoCreatedLeafQueue": False,
            "defaultPriority": 0,
            "maxApplicationLifetime": -1,
            "defaultApplicationLifetime": -1,
        }
    )
    return out


def _eligibility(scheduler: Any, q: Any) -> str:
    if q.is_leaf:
        return "off"
    return "flexible" if q.dynamic or scheduler.conf.is_auto_queue_creation_v2_enabled(q.path) else "off"


def _acls(q: Any) -> list[dict[str, str]]:
    """``QueueAclsInfo``: each queue ACL's access control list as configured (``*`` is everyone)."""
    out = []
    for acl, value in sorted(q.acls.items(), key=lambda kv: str(kv[0])):
        out.append({"accessType": str(acl), "accessControlList": str(value)})
    return out


def _capacities(m: Any, q: Any, *, am_pct: float) -> dict[str, Any]:
    """``PartitionQueueCapacitiesInfo`` for the default partition (yarnball has no node-label partitions)."""
    return {
        "partitionName": "",
        "capacity": _r(100 * m.capacity),
        "usedCapacity": _r(100 * m.used_capacity),
        "maxCapacity": _r(100 * m.maximum_capacity),
        "absoluteCapacity": _r(100 * m.absolute_capacity),
        "absoluteUsedCapacity": _r(100 * m.absolute_used_capacity),
        "absoluteMaxCapacity": _r(100 * m.absolute_maximum_capacity),
        "maxAMLimitPercentage": _r(100 * am_pct),
        "weight": _r(float(q.weight)),
        "normalizedWeight": _r(float(q.normalized_weight)),
        # QueueResourceQuotas: the absolute capacity vectors ((0, 0) for a percentage queue)
        "configuredMinResource": resource_info(q.conf_min_m, q.conf_min_v),
        "configuredMaxResource": resource_info(q.conf_max_m, q.conf_max_v),
        "effectiveMinResource": resource_info(m.effective_min.memory_mb, m.effective_min.vcores),
        "effectiveMaxResource": resource_info(m.effective_max.memory_mb, m.effective_max.vcores),
    }


def _usages(m: Any, used: tuple[int, int]) -> dict[str, Any]:
    """``PartitionResourcesInfo`` for the default partition."""
    return {
        "partitionName": "",
        "used": resource_info(*used),
        "reserved": resource_info(m.reserved.memory_mb, m.reserved.vcores),
        "pending": resource_info(m.pending.memory_mb, m.pending.vcores),
        "amUsed": resource_info(m.am_used.memory_mb, m.am_used.vcores),
        "amLimit": resource_info(m.am_limit.memory_mb, m.am_limit.vcores),
        "userAmLimit": resource_info(m.am_limit.memory_mb, m.am_limit.vcores),
    }


def _user(u: Any) -> dict[str, Any]:
    """``UserInfo``."""
    return {
        "username": u.name,
        "resourcesUsed": resource_info(u.used_m, u.used_v),
        "numActiveApplications": int(u.active_apps),
        "numPendingApplications": int(u.pending_apps),
        "AMResourceUsed": resource_info(u.am_used_m, u.am_used_v),
        "userWeight": _r(u.weight),
        "isActive": u.apps_with_asks > 0,
    }
