"""Hadoop's ``FSLeafQueue``: the queue that holds applications, runnable or not (fair.md §2, §3.1, §3.4), its
AM-share limit (``canRunAppAM``), and the starvation bookkeeping of fair.md §5.2-§5.3
(``FSAppAttempt.fairShareStarvation``, ``FSLeafQueue.updateStarvedApps``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from yarnball.errors import SchedulingError
from yarnball.policies.capacity._calculator import DominantResourceCalculator, ResourceCalculator
from yarnball.policies.fair._demand import leaf_queue_demand
from yarnball.policies.fair._fsapp import FSApp, has_pending_demand, pending_demand
from yarnball.policies.fair._fsqueue import FSContext, FSParentQueue, FSQueue, tree_set
from yarnball.policies.fair._resources import componentwise_min
from yarnball.policies.preemption._java import java_long
from yarnball.protocols import ApplicationId, Resource

__all__ = ["FSLeafQueue", "fair_share_starvation", "multiply_and_round_up", "subtract_non_negative"]

_NONE = Resource(0, 0)
_EMPTY: tuple[FSQueue, ...] = ()


def subtract_non_negative(a: Resource, b: Resource) -> Resource:
    """``Resources.subtractFromNonNegative``: ``a - b`` with memory and vcores floored at 0 (only those two)."""
    d = a - b
    return Resource(max(d.memory_mb, 0), max(d.vcores, 0), d.extended)


def multiply_and_round_up(r: Resource, by: float) -> Resource:
    """``Resources.multiplyAndRoundUp``: each component ``(long) Math.ceil(value * by)``."""
    return Resource(
        java_long(math.ceil(r.memory_mb * by)),
        java_long(math.ceil(r.vcores * by)),
        tuple((k, java_long(math.ceil(v * by))) for k, v in r.extended),
    )


def _usage_below_share(calc: ResourceCalculator, cluster: Resource, usage: Resource, share: Resource) -> bool:
    """``FSAppAttempt.isUsageBelowShare``: ``calculator.compare(cluster, usage, share, singleType=true) < 0``; under
    DRF only the dominant shares are compared."""
    cm, cv = cluster.memory_mb, cluster.vcores
    if isinstance(calc, DominantResourceCalculator) and cm > 0 and cv > 0:
        return max(usage.memory_mb / cm, usage.vcores / cv) < max(share.memory_mb / cm, share.vcores / cv)
    return calc.compare(cm, cv, usage.memory_mb, usage.vcores, share.memory_mb, share.vcores) < 0


def fair_share_starvation(app: FSApp, now: int) -> Resource:
    """``FSAppAttempt.fairShareStarvation``: how far below ``min(fair share * threshold, demand)`` the application
    is, once it has been there for the queue's fair-share preemption timeout; none otherwise. Records the result."""
    queue = app.queue
    threshold = app.fair_share * queue.fair_share_preemption_threshold
    fair_demand = componentwise_min(threshold, app.demand)
    calc = queue.policy.get_resource_calculator()
    starved = _usage_below_share(calc, queue.context.cluster_resource, app.resource_usage, fair_demand)
    state = app.starvation
    if not starved:
        state.last_time_at_fair_share = now
    if not starved or now - state.last_time_at_fair_share < queue.fair_share_preemption_timeout:
        state.fairshare_starvation = _NONE
    else:
        state.fairshare_starvation = subtract_non_negative(fair_demand, app.resource_usage)
    return state.fairshare_starvation


class FSLeafQueue(FSQueue):
    """``FSLeafQueue``: runnable applications share the queue's fair share; non-runnable ones (over a running-app
    limit) only add their demand. ``assigned_apps`` holds applications placed here whose attempt is not added yet
    (they keep a dynamic queue from being removed)."""

    __slots__ = (
        "_demand",
        "am_resource_usage",
        "assigned_apps",
        "last_time_at_min_share",
        "max_am_resource",
        "non_runnable_apps",
        "runnable_apps",
    )

    def __init__(self, name: str, context: FSContext, parent: FSParentQueue | None) -> None:
        self.runnable_apps: list[FSApp] = []
        self.non_runnable_apps: list[FSApp] = []
        self.assigned_apps: dict[ApplicationId, None] = {}
        self._demand = _NONE
        self.am_resource_usage = _NONE
        self.max_am_resource = _NONE  # FSQueueMetrics.maxAMShare: set by can_run_app_am
        super().__init__(name, context, parent)
        self.last_time_at_min_share = context.clock()

    # -- applications -----------------------------------------------------------------------------------------------
    def add_app(self, app: FSApp, runnable: bool) -> None:
        """``addApp``: the attempt leaves ``assigned_apps``; its usage counts in this queue and its ancestors."""
        (self.runnable_apps if runnable else self.non_runnable_apps).append(app)
        self.assigned_apps.pop(app.application_id, None)
        self.inc_used_resource(app.resource_usage)

    def remove_app(self, app: FSApp) -> bool:
        """``removeApp``: whether the application was runnable. An unknown application is an error (Hadoop's
        ``IllegalStateException``)."""
        runnable = app in self.runnable_apps
        if runnable:
            self.runnable_apps.remove(app)
        elif not self.remove_non_runnable_app(app):
            raise SchedulingError(f"Given app to remove {app} does not exist in queue {self}")
        if runnable and app.is_am_running:
            self.am_resource_usage = self.am_resource_usage - app.am_resource
        self.dec_used_resource(app.resource_usage)
        return runnable

    def remove_non_runnable_app(self, app: FSApp) -> bool:
        """``removeNonRunnableApp``."""
        if app in self.non_runnable_apps:
            self.non_runnable_apps.remove(app)
            return True
        return False

    def is_runnable_app(self, app: FSApp) -> bool:
        return app in self.runnable_apps

    def is_non_runnable_app(self, app: FSApp) -> bool:
        return app in self.non_runnable_apps

    def copy_of_non_runnable_apps(self) -> list[FSApp]:
        """``getCopyOfNonRunnableAppSchedulables``."""
        return list(self.non_runnable_apps)

    def add_assigned_app(self, application_id: ApplicationId) -> None:
        """``addAssignedApp``: an application placed in this queue, its attempt not yet added."""
        self.assigned_apps[application_id] = None

    def remove_assigned_app(self, application_id: ApplicationId) -> None:
        """``removeAssignedApp``: the application was rejected before its attempt was added."""
        self.assigned_apps.pop(application_id, None)

    @property
    def num_runnable_apps(self) -> int:
        return len(self.runnable_apps)

    @property
    def num_non_runnable_apps(self) -> int:
        return len(self.non_runnable_apps)

    @property
    def num_assigned_apps(self) -> int:
        return len(self.assigned_apps)

    @property
    def num_pending_apps(self) -> int:
        """``getNumPendingApps``: runnable applications without a container yet, plus every non-runnable one."""
        return sum(1 for app in self.runnable_apps if app.is_pending()) + len(self.non_runnable_apps)

    @property
    def num_active_apps(self) -> int:
        """``getNumActiveApps``: runnable applications with a container."""
        return sum(1 for app in self.runnable_apps if not app.is_pending())

    def is_empty(self) -> bool:
        """``isEmpty``: no runnable, non-runnable or assigned application."""
        return not (self.runnable_apps or self.non_runnable_apps or self.assigned_apps)

    def collect_scheduler_applications(self, apps: list[FSApp]) -> None:
        apps.extend(self.runnable_apps)
        apps.extend(self.non_runnable_apps)

    @property
    def child_queues(self) -> Sequence[FSQueue]:
        return _EMPTY

    # -- shares and demand ------------------------------------------------------------------------------------------
    @property
    def demand(self) -> Resource:
        return self._demand

    def update_demand(self) -> None:
        """``updateDemand``: runnable and non-runnable applications' demands (each updated first), capped at the max
        share."""
        for app in self.runnable_apps:
            app.update_demand()
        for app in self.non_runnable_apps:
            app.update_demand()
        demands = [app.demand for app in self.runnable_apps] + [app.demand for app in self.non_runnable_apps]
        self._demand = leaf_queue_demand(demands, self.max_share)

    def update_internal(self) -> None:
        """``updateInternal``: the runnable applications share the queue's fair share."""
        self.policy.compute_shares(self.runnable_apps, self.fair_share)

    def apps_with_demand(self, assignment: bool, now: int = 0) -> list[FSApp]:
        """``fetchAppsWithDemand``: runnable applications with pending demand in the policy's order; for preemption
        (``assignment`` false) only those due a starvation check at ``now``."""
        comparator = self.policy.get_comparator(self.context.cluster_resource, self.context.resource_types())
        apps = [
            app
            for app in self.runnable_apps
            if has_pending_demand(app) and (assignment or app.starvation.should_check_for_starvation(now))
        ]
        return tree_set(apps, comparator)

    # -- AM share ---------------------------------------------------------------------------------------------------
    def compute_max_am_resource(self) -> Resource:
        """``computeMaxAMResource``: ``fair share * maxAMShare`` rounded up; a zero memory or vcores fair share is
        replaced by ``min(root available, max share)`` first (custom types likewise,
        ``fillInValuesFromAvailableResources``)."""
        fair, max_share, available = self.fair_share, self.max_share, self.context.root_available
        memory = fair.memory_mb or min(available.memory_mb, max_share.memory_mb)
        vcores = fair.vcores or min(available.vcores, max_share.vcores)
        mine, caps = dict(fair.extended), dict(max_share.extended)
        extended = dict(mine)
        for name, value in available.extended:
            if mine.get(name, 0) == 0:
                extended[name] = min(value, caps.get(name, 0))
        resource = Resource(memory, vcores, tuple(sorted((k, v) for k, v in extended.items() if v)))
        return multiply_and_round_up(resource, self.max_am_share)

    def can_run_app_am(self, am_resource: Resource) -> bool:
        """``canRunAppAM``: the AM usage plus ``am_resource`` fits the max AM resource (always true for
        ``maxAMShare`` -1); records the max AM resource in the metrics."""
        if abs(self.max_am_share - -1.0) < 0.0001:
            return True
        self.max_am_resource = self.compute_max_am_resource()
        return (self.am_resource_usage + am_resource).fits_in(self.max_am_resource)

    def add_am_resource_usage(self, am_resource: Resource) -> None:
        """``addAMResourceUsage``."""
        self.am_resource_usage = self.am_resource_usage + am_resource

    # -- starvation -------------------------------------------------------------------------------------------------
    def min_share_starvation(self, now: int) -> Resource:
        """``minShareStarvation``: ``min(min share, demand) - usage`` (floored at 0) once the queue has been below
        it for the min-share preemption timeout; none otherwise."""
        starvation = subtract_non_negative(componentwise_min(self.min_share, self.demand), self.resource_usage)
        if starvation.is_none():
            self.last_time_at_min_share = now
        if now - self.last_time_at_min_share < self.min_share_preemption_timeout:
            starvation = _NONE
        return starvation

    def update_starved_apps(self, now: int, add: Callable[[FSApp], None] | None = None) -> list[FSApp]:
        """``updateStarvedApps``: the applications found starved at ``now``, in the order Hadoop adds them to
        ``FSStarvedApps`` (each once). Fair-share starvation is computed in the policy's order until the first
        application that is not starved; the min-share starvation not covered by it is then handed out in the same
        order (fair.md §5.3, with Hadoop's ``a - pending`` when an application's share exceeds what is left).
        ``add`` (``FSStarvedApps.addStarvedApp``) is called where Hadoop calls it, with the starvation as it is
        then."""
        apps = self.apps_with_demand(False, now)
        starved: dict[str, FSApp] = {}
        total = _NONE
        for app in apps:
            fs = fair_share_starvation(app, now)
            if fs.is_none():
                break
            starved.setdefault(app.name, app)
            if add is not None:
                add(app)
            total = total + fs
        pending = subtract_non_negative(self.min_share_starvation(now), total)
        calc = self.policy.get_resource_calculator()
        cluster = self.context.cluster_resource
        for app in apps:
            if pending.is_none():
                app.starvation.minshare_starvation = _NONE
                continue
            share = subtract_non_negative(pending_demand(app), app.starvation.fairshare_starvation)
            if calc.greater_than(
                cluster.memory_mb, cluster.vcores, share.memory_mb, share.vcores, pending.memory_mb, pending.vcores
            ):
                share = subtract_non_negative(share, pending)
                pending = _NONE
            else:
                pending = subtract_non_negative(pending, share)
            app.starvation.minshare_starvation = share
            starved.setdefault(app.name, app)
            if add is not None:
                add(app)
        return list(starved.values())

    def is_starved_for_min_share(self, now: int) -> bool:
        return not self.min_share_starvation(now).is_none()

    def is_starved_for_fair_share(self) -> bool:
        """Any runnable application below its fair share (``FSAppAttempt.isStarvedForFairShare``)."""
        calc = self.policy.get_resource_calculator()
        cluster = self.context.cluster_resource
        return any(_usage_below_share(calc, cluster, app.resource_usage, app.fair_share) for app in self.runnable_apps)

    def is_starved(self, now: int) -> bool:
        """``isStarved``."""
        return self.is_starved_for_min_share(now) or self.is_starved_for_fair_share()
