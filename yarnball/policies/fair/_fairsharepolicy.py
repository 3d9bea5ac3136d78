"""``FairSharePolicy`` (``fair``, the default) and its ``FairShareComparator``: share and order by memory only."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from yarnball._logs import get_logger
from yarnball.policies.capacity._calculator import DefaultResourceCalculator, ResourceCalculator
from yarnball.policies.fair._computefairshares import compute_shares, compute_steady_shares
from yarnball.policies.fair._dominantresourcefairnesspolicy import DominantResourceFairnessPolicy
from yarnball.policies.fair._resources import MEMORY, java_compare_strings, long_signum_diff, signum_diff
from yarnball.policies.fair._schedulable import FSQueueSchedulable, Schedulable
from yarnball.policies.fair._schedulingpolicy import (
    KeyedComparator,
    SchedulableComparator,
    SchedulingPolicy,
    name_keys,
    start_time_keys,
)
from yarnball.protocols import Resource

__all__ = ["FairShareComparator", "FairSharePolicy"]

log = get_logger(__name__)

_CALCULATOR = DefaultResourceCalculator()


class FairShareComparator(KeyedComparator):
    """``FairSharePolicy.FairShareComparator``, on memory only: schedulables with demand before those without;
    then those below their min share (capped by demand), by how far below as a ratio; then usage / weight (a weight
    of 0 goes last); then start time, then name."""

    __slots__ = ()

    def sort_keys(self, items: Sequence[Schedulable]) -> list[tuple[Any, ...]] | None:
        """``(no demand, not needy, needy ratio, zero weight, usage ratio, start time, name)``, each part computed as
        the comparison above computes it; None for a negative demand or a negative or NaN weight (the comparison is
        no total order there)."""
        times = start_time_keys(items)
        if times is None:
            return None
        keys: list[tuple[Any, ...]] = []
        for s, start, name in zip(items, times, name_keys(items), strict=True):
            demand, usage, weight = s.demand.memory_mb, s.resource_usage.memory_mb, s.weight
            if demand < 0 or not weight >= 0.0:
                return None
            min_share = min(s.min_share.memory_mb, demand)
            needy = usage < min_share
            ratio = float(usage)
            if needy and min_share > 1:
                ratio /= min_share
            if weight > 0.0:
                share = (False, usage / weight)
            else:
                share = (True, float(usage))
            keys.append((demand == 0, not needy, ratio if needy else 0.0, *share, start, name))
        return keys

    def __call__(self, s1: Schedulable, s2: Schedulable) -> int:
        res = self.compare_demand(s1, s2)
        if res == 0:
            usage1, usage2 = s1.resource_usage.memory_mb, s2.resource_usage.memory_mb
            res = self.compare_min_share_usage(s1, s2, usage1, usage2)
            if res == 0:
                res = self.compare_fair_share_usage(s1, s2, usage1, usage2)
        if res == 0:
            res = long_signum_diff(s1.start_time, s2.start_time)
        if res == 0:
            res = java_compare_strings(s1.name, s2.name)
        return res

    @staticmethod
    def compare_demand(s1: Schedulable, s2: Schedulable) -> int:
        """``compareDemand``: a schedulable without memory demand comes after one with some."""
        demand1, demand2 = s1.demand.memory_mb, s2.demand.memory_mb
        if demand1 == 0 and demand2 > 0:
            return 1
        if demand2 == 0 and demand1 > 0:
            return -1
        return 0

    @staticmethod
    def compare_min_share_usage(s1: Schedulable, s2: Schedulable, usage1: int, usage2: int) -> int:
        """``compareMinShareUsage``: the needy (usage below ``min(minShare, demand)``) first, the neediest ratio
        first; a min share of at most 1 MB leaves the ratio as the bare usage."""
        min_share1 = min(s1.min_share.memory_mb, s1.demand.memory_mb)
        min_share2 = min(s2.min_share.memory_mb, s2.demand.memory_mb)
        needy1, needy2 = usage1 < min_share1, usage2 < min_share2
        if needy1 and not needy2:
            return -1
        if needy2 and not needy1:
            return 1
        if needy1 and needy2:
            ratio1, ratio2 = float(usage1), float(usage2)
            if min_share1 > 1:
                ratio1 /= min_share1
            if min_share2 > 1:
                ratio2 /= min_share2
            return signum_diff(ratio1, ratio2)
        return 0

    @staticmethod
    def compare_fair_share_usage(s1: Schedulable, s2: Schedulable, usage1: int, usage2: int) -> int:
        """``compareFairShareUsage``: usage / weight; with a weight of 0 on either side, the usage when the weights
        are equal, else the negated weights (the zero weight loses)."""
        weight1, weight2 = s1.weight, s2.weight
        if weight1 > 0.0 and weight2 > 0.0:
            ratio1, ratio2 = usage1 / weight1, usage2 / weight2
        elif weight1 == weight2:
            ratio1, ratio2 = float(usage1), float(usage2)
        else:
            ratio1, ratio2 = -weight1, -weight2
        return signum_diff(ratio1, ratio2)


_COMPARATOR = FairShareComparator()


class FairSharePolicy(SchedulingPolicy):
    """``FairSharePolicy``: fair shares of memory only (the other components of the children's shares are never
    written), the :class:`FairShareComparator`, the ``DefaultResourceCalculator``."""

    __slots__ = ()
    NAME = "fair"

    def get_resource_calculator(self) -> ResourceCalculator:
        return _CALCULATOR

    def get_comparator(self, cluster: Resource, resource_types: tuple[str, ...] | None = None) -> SchedulableComparator:
        return _COMPARATOR

    def compute_shares(self, schedulables: Iterable[Schedulable], total_resources: Resource) -> None:
        compute_shares(schedulables, total_resources, MEMORY)

    def compute_steady_shares(self, queues: Iterable[FSQueueSchedulable], total_resources: Resource) -> None:
        compute_steady_shares(queues, total_resources, MEMORY)

    def check_if_usage_over_fair_share(self, usage: Resource, fair_share: Resource) -> bool:
        return usage.memory_mb > fair_share.memory_mb

    def get_headroom(self, queue_fair_share: Resource, queue_usage: Resource, max_available: Resource) -> Resource:
        return memory_headroom(queue_fair_share, queue_usage, max_available)

    def is_child_policy_allowed(self, child_policy: SchedulingPolicy) -> bool:
        if isinstance(child_policy, DominantResourceFairnessPolicy):
            log.error(
                "Queue policy can't be DRF if the parent policy is fair. Choose fair or FIFO for child queues"
                " instead. Please note that FIFO is only for leaf queues."
            )
            return False
        return True


def memory_headroom(queue_fair_share: Resource, queue_usage: Resource, max_available: Resource) -> Resource:
    """``FairSharePolicy.getHeadroom`` (and ``FifoPolicy``'s): ``Resources.createResource(min(maxAvailable.memory,
    max(fairShare.memory - usage.memory, 0)), maxAvailable.vcores)``; other resource types are 0."""
    queue_available_memory = max(queue_fair_share.memory_mb - queue_usage.memory_mb, 0)
    return Resource(min(max_available.memory_mb, queue_available_memory), max_available.vcores)
