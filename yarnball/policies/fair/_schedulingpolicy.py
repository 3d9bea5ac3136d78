"""``SchedulingPolicy``: how a FairScheduler queue shares its fair share among its children (queues or
applications), orders them for scheduling and computes an application's headroom.

Hadoop's comparators of the DRF policy read the cluster resource from the ``FSContext`` given to the policy's
``initialize``, and every policy is a process-wide singleton. Here the cluster resource is passed when the
comparator is taken (``get_comparator(cluster)``), so the singletons hold no per-scheduler state and several
schedulers can share one process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from yarnball.policies.capacity._calculator import ResourceCalculator
from yarnball.policies.fair._schedulable import FSQueueSchedulable, Schedulable
from yarnball.protocols import Resource

__all__ = ["SchedulableComparator", "SchedulingPolicy"]

SchedulableComparator = Callable[[Schedulable, Schedulable], int]
"""A ``Comparator<Schedulable>``: negative when the first is served before the second."""


class SchedulingPolicy:
    """Hadoop's abstract ``SchedulingPolicy``; the three policies are :class:`FairSharePolicy`,
    :class:`DominantResourceFairnessPolicy` and :class:`FifoPolicy`, each one instance (``parse``)."""

    __slots__ = ()
    NAME: ClassVar[str] = ""

    @property
    def name(self) -> str:
        """``getName``: ``fair``, ``DRF`` or ``FIFO`` (as the REST API and the metrics show it)."""
        return self.NAME

    def get_resource_calculator(self) -> ResourceCalculator:
        """``getResourceCalculator``: the calculator for every resource comparison under this policy."""
        raise NotImplementedError

    def get_comparator(self, cluster: Resource, resource_types: tuple[str, ...] | None = None) -> SchedulableComparator:
        """``getComparator``: the order in which children are offered a node. ``cluster`` is the cluster resource
        (``FSContext.getClusterResource``); ``resource_types`` the extended resource types known to the cluster
        (default: those the cluster resource lists), which only DRF reads."""
        raise NotImplementedError

    def compute_shares(self, schedulables: Iterable[Schedulable], total_resources: Resource) -> None:
        """``computeShares``: set the instantaneous fair shares of ``schedulables`` (active ones only count)."""
        raise NotImplementedError

    def compute_steady_shares(self, queues: Iterable[FSQueueSchedulable], total_resources: Resource) -> None:
        """``computeSteadyShares``: set the steady fair shares of child queues (every queue counts)."""
        raise NotImplementedError

    def check_if_usage_over_fair_share(self, usage: Resource, fair_share: Resource) -> bool:
        """``checkIfUsageOverFairShare``."""
        raise NotImplementedError

    def get_headroom(self, queue_fair_share: Resource, queue_usage: Resource, max_available: Resource) -> Resource:
        """``getHeadroom``: the smaller of ``max_available`` and what is left of the queue's fair share, for the
        resource types this policy shares (the others are ``max_available``'s)."""
        raise NotImplementedError

    def is_child_policy_allowed(self, child_policy: SchedulingPolicy) -> bool:
        """``isChildPolicyAllowed``: whether a child queue may use ``child_policy`` under this one."""
        return True

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
