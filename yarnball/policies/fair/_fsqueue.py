"""Hadoop's ``FSQueue`` and ``FSParentQueue``: the FairScheduler's queue tree (fair.md §2, §3.1, §3.4).

A queue is a :class:`~yarnball.policies.fair.Schedulable` whose settings come from the
:class:`AllocationConfiguration` (``reinit``: ``initFSQueue`` and ``updatePreemptionVariables``); its fair share is
written by its parent's policy, its demand by ``update_demand``. :class:`FSContext` is what the queues read of the
scheduler (Hadoop's ``FairScheduler`` getters): the allocation configuration, the cluster resource and the clock.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from yarnball._logs import get_logger
from yarnball.policies.fair._allocationconfiguration import AllocationConfiguration, FSQueueSettings
from yarnball.policies.fair._configurableresource import ConfigurableResource, unbounded
from yarnball.policies.fair._demand import parent_queue_demand, queue_max_share
from yarnball.policies.fair._schedulable import Schedulable
from yarnball.policies.fair._schedulingpolicy import KeyedComparator, SchedulableComparator, SchedulingPolicy
from yarnball.policies.preemption._java import f32
from yarnball.protocols import Priority, Resource

if TYPE_CHECKING:
    from yarnball.policies.fair._fsapp import FSApp

__all__ = ["FSContext", "FSParentQueue", "FSQueue", "tree_set"]

log = get_logger(__name__)

_NONE = Resource(0, 0)
_QUEUE_PRIORITY = Priority(1)  # FSQueue.getPriority
S = TypeVar("S", bound=Schedulable)


def _zero_clock() -> int:
    return 0


class FSContext:
    """What the queues read of the FairScheduler: ``getAllocationConfiguration``, ``getClusterResource``, the
    clock (ms) and the root queue metrics' available resource (``updateRootQueueMetrics``: cluster less allocated,
    read by the AM-share limit)."""

    __slots__ = ("alloc_conf", "clock", "cluster_resource", "root_available")

    def __init__(
        self,
        alloc_conf: AllocationConfiguration,
        cluster_resource: Resource = _NONE,
        clock: Callable[[], int] = _zero_clock,
    ) -> None:
        self.alloc_conf = alloc_conf
        self.cluster_resource = cluster_resource
        self.clock = clock
        self.root_available = _NONE

    def resource_types(self) -> tuple[str, ...]:
        """The extended resource types the comparators know (the configuration's, else the cluster's)."""
        return self.alloc_conf.resource_types or tuple(name for name, _ in self.cluster_resource.extended)


def tree_set(items: Iterable[S], comparator: SchedulableComparator) -> list[S]:
    """``new TreeSet<>(comparator)`` filled with ``items``: sorted, and an item the comparator finds equal to one
    already added is dropped (names make queues and applications distinct). A :class:`KeyedComparator` sorts by
    its keys when it gives them (equal keys are the comparator's 0)."""
    if isinstance(comparator, KeyedComparator):
        listed = list(items)
        keys = comparator.sort_keys(listed)
        if keys is not None:
            return _distinct_by_key(listed, keys)
        items = listed
    ordered = sorted(items, key=functools.cmp_to_key(comparator))
    kept: list[S] = []
    for item in ordered:
        if not kept or comparator(kept[-1], item) != 0:
            kept.append(item)
    return kept


def _distinct_by_key(items: list[S], keys: list[tuple[Any, ...]]) -> list[S]:
    """``items`` sorted (stably) by their ``keys``, the later of two equal keys dropped."""
    kept: list[S] = []
    previous: tuple[Any, ...] | None = None
    for i in sorted(range(len(items)), key=keys.__getitem__):
        if previous is None or keys[i] != previous:
            kept.append(items[i])
            previous = keys[i]
    return kept


class FSQueue:
    """``FSQueue``: a queue of the tree, named by its full path. Hadoop's setters are plain attributes here
    (``weight``, ``min_share``, ``raw_max_share``, ``max_running_apps``, ``max_am_share``,
    ``max_child_queue_resource``, ``max_container_allocation``); ``reinit`` sets them from the allocation
    configuration."""

    __slots__ = (
        "_weight",
        "allocated_containers",
        "context",
        "fair_share",
        "fair_share_preemption_threshold",
        "fair_share_preemption_timeout",
        "is_dynamic",
        "max_am_share",
        "max_child_queue_resource",
        "max_container_allocation",
        "max_running_apps",
        "metrics_scheduling_policy",
        "min_share",
        "min_share_preemption_timeout",
        "name",
        "parent",
        "pending_containers",
        "policy",
        "preemptable",
        "raw_max_share",
        "reserved",
        "reserved_containers",
        "resource_usage",
        "settings",
        "steady_fair_share",
    )

    def __init__(self, name: str, context: FSContext, parent: FSParentQueue | None) -> None:
        self.name = name
        self.context = context
        self.parent = parent
        self.fair_share = _NONE
        self.steady_fair_share = _NONE
        self.resource_usage = _NONE
        # the queue metrics the scheduler keeps: reserved resource (getReservedResource) and container counts
        self.reserved = _NONE
        self.allocated_containers = self.pending_containers = self.reserved_containers = 0
        self.is_dynamic = True
        self.policy: SchedulingPolicy = context.alloc_conf.get_scheduling_policy(name)
        self.reinit(False)

    # -- settings ---------------------------------------------------------------------------------------------------
    def reinit(self, recursive: bool) -> None:
        """``reinit``: the settings of ``initFSQueue`` and ``updatePreemptionVariables`` (the parent's preemption
        values where the queue sets none), then the children's when ``recursive``. The policy is not set here
        (``verifyAndSetPolicyFromConf`` does it on a reload)."""
        alloc_conf = self.context.alloc_conf
        settings = alloc_conf.init_fs_queue(self.name, None if self.parent is None else self.parent.settings)
        self.settings: FSQueueSettings = settings
        self.weight = settings.weight
        self.min_share = settings.min_share
        self.raw_max_share: ConfigurableResource = settings.max_share
        self.max_running_apps = settings.max_running_apps
        self.max_am_share = settings.max_am_share
        self.max_child_queue_resource: ConfigurableResource | None = settings.max_child_resources
        self.max_container_allocation = settings.max_container_allocation
        self.min_share_preemption_timeout = settings.min_share_preemption_timeout
        self.fair_share_preemption_timeout = settings.fair_share_preemption_timeout
        self.fair_share_preemption_threshold = settings.fair_share_preemption_threshold
        self.preemptable = settings.preemptable
        # initFSQueue: metrics.setSchedulingPolicy(allocConf.getSchedulingPolicy(name).getName())
        self.metrics_scheduling_policy = settings.scheduling_policy.name
        if recursive:
            for child in self.child_queues:
                child.reinit(recursive)

    def set_policy(self, policy: SchedulingPolicy) -> None:
        """``setPolicy``."""
        self.policy = policy

    def verify_and_set_policy_from_conf(self, alloc_conf: AllocationConfiguration) -> bool:
        """``verifyAndSetPolicyFromConf``: pre-order, every child's configured policy must be allowed under this
        queue's; the policies are set bottom-up and the walk stops at the first violation (the queues not reached
        keep their policies)."""
        policy = alloc_conf.get_scheduling_policy(self.name)
        for child in self.child_queues:
            if not policy.is_child_policy_allowed(alloc_conf.get_scheduling_policy(child.name)):
                return False
            if not child.verify_and_set_policy_from_conf(alloc_conf):
                return False
        self.set_policy(policy)
        return True

    # -- Schedulable ------------------------------------------------------------------------------------------------
    @property
    def weight(self) -> float:
        return self._weight

    @weight.setter
    def weight(self, value: float) -> None:
        self._weight = f32(value)

    @property
    def max_share(self) -> Resource:
        """``getMaxShare``: the configured max at the cluster's size, never below the min share."""
        maximum = self.raw_max_share.get_resource(self.context.cluster_resource)
        assert maximum is not None
        result = queue_max_share(maximum, self.min_share)
        if result != maximum:
            log.warning(f"Queue {self.name} has max resources {maximum} less than min resources {self.min_share}")
        return result

    @property
    def demand(self) -> Resource:
        raise NotImplementedError

    @property
    def start_time(self) -> int:
        return 0

    @property
    def priority(self) -> Priority:
        return _QUEUE_PRIORITY

    def is_active(self) -> bool:
        """``isActive``: a runnable application in the subtree."""
        return self.num_runnable_apps > 0

    # -- tree -------------------------------------------------------------------------------------------------------
    @property
    def child_queues(self) -> Sequence[FSQueue]:
        raise NotImplementedError

    @property
    def num_runnable_apps(self) -> int:
        raise NotImplementedError

    def is_empty(self) -> bool:
        raise NotImplementedError

    def update_demand(self) -> None:
        raise NotImplementedError

    def update_internal(self) -> None:
        raise NotImplementedError

    def collect_scheduler_applications(self, apps: list[FSApp]) -> None:
        """``collectSchedulerApplications``: the applications of the subtree, runnable ones first per leaf."""
        raise NotImplementedError

    def maximum_container_allocation(self) -> Resource:
        """``getMaximumContainerAllocation``: the queue's own limit unless unbounded, then the parent's."""
        if self.max_container_allocation == unbounded(self.context.alloc_conf.resource_types) and self.parent:
            return self.parent.maximum_container_allocation()
        return self.max_container_allocation

    def update(self, fair_share: Resource) -> None:
        """``update``: set the fair share, then share it among the children (``updateInternal``)."""
        self.fair_share = fair_share
        self.update_internal()

    def inc_used_resource(self, res: Resource) -> None:
        """``incUsedResource``: this queue's and every ancestor's usage."""
        queue: FSQueue | None = self
        while queue is not None:
            queue.resource_usage = queue.resource_usage + res
            queue = queue.parent

    def dec_used_resource(self, res: Resource) -> None:
        """``decUsedResource``."""
        queue: FSQueue | None = self
        while queue is not None:
            queue.resource_usage = queue.resource_usage - res
            queue = queue.parent

    def fits_in_max_share(self, additional: Resource) -> bool:
        """``fitsInMaxShare``: usage plus ``additional`` fits the max share of this queue and every ancestor."""
        queue: FSQueue | None = self
        while queue is not None:
            if not (queue.resource_usage + additional).fits_in(queue.max_share):
                return False
            queue = queue.parent
        return True

    def __repr__(self) -> str:
        # FSQueue.toString
        return (
            f"[{self.name}, demand={self.demand}, running={self.resource_usage}, share={self.fair_share}, "
            f"w={self.weight}]"
        )


class FSParentQueue(FSQueue):
    """``FSParentQueue``: shares its fair share among its child queues."""

    __slots__ = ("_children", "_demand", "runnable_apps")

    def __init__(self, name: str, context: FSContext, parent: FSParentQueue | None) -> None:
        self._children: list[FSQueue] = []
        self._demand = _NONE
        self.runnable_apps = 0
        super().__init__(name, context, parent)

    @property
    def child_queues(self) -> Sequence[FSQueue]:
        """``getChildQueues``: a copy, so the tree may change while a caller walks it."""
        return tuple(self._children)

    def add_child_queue(self, child: FSQueue) -> None:
        self._children.append(child)

    def remove_child_queue(self, child: FSQueue) -> None:
        self._children.remove(child)

    @property
    def demand(self) -> Resource:
        """``getDemand``: memory and vcores only (``Resource.newInstance``)."""
        return self._demand

    def update_demand(self) -> None:
        """``updateDemand``: the children's demands (each updated first) capped at the max share."""
        demands = []
        for child in self._children:
            child.update_demand()
            demands.append(child.demand)
        self._demand = parent_queue_demand(demands, self.max_share)

    def update_internal(self) -> None:
        """``updateInternal``: the policy shares this queue's fair share among the children (inactive ones get
        0), then each child shares its own."""
        self.policy.compute_shares(self._children, self.fair_share)
        for child in self._children:
            child.update_internal()

    def recompute_steady_shares(self) -> None:
        """``recomputeSteadyShares``: the steady shares of the children (every child counts), down the parents."""
        self.policy.compute_steady_shares(self._children, self.steady_fair_share)
        for child in self._children:
            if isinstance(child, FSParentQueue):
                child.recompute_steady_shares()

    @property
    def num_runnable_apps(self) -> int:
        return self.runnable_apps

    def increment_runnable_apps(self) -> None:
        self.runnable_apps += 1

    def decrement_runnable_apps(self) -> None:
        self.runnable_apps -= 1

    def is_empty(self) -> bool:
        """``isEmpty``: every child is empty."""
        return all(child.is_empty() for child in self._children)

    def collect_scheduler_applications(self, apps: list[FSApp]) -> None:
        for child in self._children:
            child.collect_scheduler_applications(apps)

    def maximum_container_allocation(self) -> Resource:
        """``getMaximumContainerAllocation``: root's own value always."""
        if self.name == "root":
            return self.max_container_allocation
        return super().maximum_container_allocation()

    def sorted_child_queues(self) -> list[FSQueue]:
        """The order ``assignContainer`` offers a node to the children (a ``TreeSet`` of the policy's comparator)."""
        comparator = self.policy.get_comparator(self.context.cluster_resource, self.context.resource_types())
        return tree_set(self._children, comparator)
