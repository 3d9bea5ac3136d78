"""``SchedulingPolicy``: how a FairScheduler queue shares its fair share among its children (queues or
applications), orders them for scheduling and computes an application's headroom.

Hadoop's comparators of the DRF policy read the cluster resource from the ``FSContext`` given to the policy's
``initialize``, and every policy is a process-wide singleton. Here the cluster resource is passed when the
comparator is taken (``get_comparator(cluster)``), so the singletons hold no per-scheduler state and several
schedulers can share one process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from yarnball.policies.capacity._calculator import ResourceCalculator
from yarnball.policies.fair._schedulable import FSQueueSchedulable, Schedulable
from yarnball.protocols import Resource

__all__ = ["KeyedComparator", "SchedulableComparator", "SchedulingPolicy", "name_keys", "start_time_keys"]

SchedulableComparator = Callable[[Schedulable, Schedulable], int]
"""A ``Comparator<Schedulable>``: negative when the first is served before the second."""

_LONG_SPAN = 2**63  # two Java longs this far apart or more: their subtraction wraps around


class KeyedComparator:
    """A comparator that can also give each schedulable a sort key, computed once per schedulable: for the values
    where the comparator is a total order, ``comparator(a, b)`` has the sign of ``key(a) <=> key(b)``. Sorting by
    the keys then gives what sorting by the comparator gives (both sorts are stable), with O(n) reads of each
    schedulable's state instead of O(n log n) comparisons each reading both sides' (a ``TreeSet`` is refilled with
    every runnable application on every node heartbeat: ``FSLeafQueue.fetchAppsWithDemand``)."""

    __slots__ = ()

    def __call__(self, s1: Schedulable, s2: Schedulable) -> int:
        raise NotImplementedError

    def sort_keys(self, items: Sequence[Schedulable]) -> list[tuple[Any, ...]] | None:
        """One key per item, or None when some value falls outside what the keys order exactly (the comparator
        decides then)."""
        raise NotImplementedError


def start_time_keys(items: Sequence[Schedulable]) -> list[int] | None:
    """The start times, which order as ``(int) Math.signum(t1 - t2)`` does unless two are so far apart that the
    long subtraction wraps (None then)."""
    times = [s.start_time for s in items]
    if times and max(times) - min(times) >= _LONG_SPAN:
        return None
    return times


def name_keys(items: Sequence[Schedulable]) -> list[str] | list[bytes]:
    """The names, ordered as ``String.compareTo`` orders them: by UTF-16 code units (the names themselves when all
    are ASCII)."""
    names = [s.name for s in items]
    if all(name.isascii() for name in names):
        return names
    return [name.encode("utf-16-be", "surrogatepass") for name in names]


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
