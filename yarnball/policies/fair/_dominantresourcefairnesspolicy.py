"""``DominantResourceFairnessPolicy`` (``drf``): fair shares of every resource type, and the order of Dominant
Resource Fairness (usage of the dominant resource over the cluster's, divided by the weight).

Hadoop has two comparators: ``DominantResourceFairnessComparator2`` when memory and vcores are the only resource
types (doubles, the dominant and then the other resource), ``DominantResourceFairnessComparatorN`` otherwise (float32
ratios of every type, sorted by usage ratio and compared in turn). Both follow trunk: Hadoop 3.3.0's comparator2
judged the second schedulable needy from the *first* one's usage (fixed by YARN-11482).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

from yarnball.policies.capacity._calculator import DominantResourceCalculator, ResourceCalculator
from yarnball.policies.fair._computefairshares import compute_shares, compute_steady_shares
from yarnball.policies.fair._resources import (
    MEMORY,
    VCORES,
    get_resource_value,
    java_compare_strings,
    java_div,
    long_signum_diff,
    resource_type_names,
    signum_diff,
)
from yarnball.policies.fair._schedulable import FSQueueSchedulable, Schedulable
from yarnball.policies.fair._schedulingpolicy import SchedulableComparator, SchedulingPolicy
from yarnball.policies.preemption._java import f32, ratio
from yarnball.protocols import Resource

__all__ = [
    "DominantResourceFairnessComparator2",
    "DominantResourceFairnessComparatorN",
    "DominantResourceFairnessPolicy",
]

_CALCULATOR = DominantResourceCalculator()
_MIN_MERGE = 32  # TimSort.MIN_MERGE: Arrays.sort of fewer elements is a binary insertion sort


def compare_attributes(s1: Schedulable, s2: Schedulable) -> int:
    """``DominantResourceFairnessComparator.compareAttributes``: start time, then name."""
    res = long_signum_diff(s1.start_time, s2.start_time)
    if res == 0:
        res = java_compare_strings(s1.name, s2.name)
    return res


class DominantResourceFairnessComparator2:
    """``DominantResourceFairnessComparator2``: memory and vcores only, in doubles."""

    __slots__ = ("cluster",)

    def __init__(self, cluster: Resource) -> None:
        self.cluster = cluster

    def __call__(self, s1: Schedulable, s2: Schedulable) -> int:
        usage1, usage2 = s1.resource_usage, s2.resource_usage
        info1 = (usage1.memory_mb, usage1.vcores)
        info2 = (usage2.memory_mb, usage2.vcores)
        min1 = (s1.min_share.memory_mb, s1.min_share.vcores)
        min2 = (s2.min_share.memory_mb, s2.min_share.vcores)
        dominant1, shares1 = self.calculate_cluster_and_fair_ratios(info1, s1.weight, self.cluster)
        dominant2, shares2 = self.calculate_cluster_and_fair_ratios(info2, s2.weight, self.cluster)
        # Needy: the dominant resource below the min share of that resource.
        needy1 = info1[dominant1] < min1[dominant1]
        needy2 = info2[dominant2] < min2[dominant2]
        if not needy2 and not needy1:
            res = signum_diff(shares1[dominant1], shares2[dominant2])
            if res == 0:
                res = signum_diff(shares1[1 - dominant1], shares2[1 - dominant2])
        elif needy1 and not needy2:
            res = -1
        elif needy2 and not needy1:
            res = 1
        else:
            ratios1 = self.calculate_min_share_ratios(info1, min1)
            ratios2 = self.calculate_min_share_ratios(info2, min2)
            res = signum_diff(ratios1[dominant1], ratios2[dominant2])
            if res == 0:
                res = signum_diff(ratios1[1 - dominant1], ratios2[1 - dominant2])
        if res == 0:
            res = compare_attributes(s1, s2)
        return res

    @staticmethod
    def calculate_cluster_and_fair_ratios(
        info: tuple[int, int], weight: float, cluster: Resource
    ) -> tuple[int, tuple[float, float]]:
        """``calculateClusterAndFairRatios``: the dominant index (vcores only if strictly larger) and the usage
        shares of the cluster divided by the weight (``(double) usage / cluster / weight``)."""
        memory = java_div(float(info[0]), float(cluster.memory_mb))
        vcores = java_div(float(info[1]), float(cluster.vcores))
        dominant = 1 if vcores > memory else 0
        return dominant, (java_div(memory, weight), java_div(vcores, weight))

    @staticmethod
    def calculate_min_share_ratios(info: tuple[int, int], min_share: tuple[int, int]) -> tuple[float, float]:
        """``calculateMinShareRatios``: usage over min share, per resource (doubles)."""
        return java_div(float(info[0]), float(min_share[0])), java_div(float(info[1]), float(min_share[1]))


class DominantResourceFairnessComparatorN:
    """``DominantResourceFairnessComparatorN``: any number of resource types, in float32. A row per type holds
    ``[usage ratio, usage ratio / weight, usage / min share]``."""

    __slots__ = ("cluster", "types")

    def __init__(self, cluster: Resource, resource_types: tuple[str, ...] = ()) -> None:
        self.cluster = cluster
        self.types = (MEMORY, VCORES, *resource_types)

    def __call__(self, s1: Schedulable, s2: Schedulable) -> int:
        types = self.types
        usage1 = [get_resource_value(s1.resource_usage, t) for t in types]
        usage2 = [get_resource_value(s2.resource_usage, t) for t in types]
        min1 = [get_resource_value(s1.min_share, t) for t in types]
        min2 = [get_resource_value(s2.min_share, t) for t in types]
        cluster = [get_resource_value(self.cluster, t) for t in types]
        ratios1 = [[0.0, 0.0, 0.0] for _ in types]
        ratios2 = [[0.0, 0.0, 0.0] for _ in types]
        dominant1 = self.calculate_cluster_and_fair_ratios(usage1, cluster, ratios1, s1.weight)
        dominant2 = self.calculate_cluster_and_fair_ratios(usage2, cluster, ratios2, s2.weight)
        needy1 = usage1[dominant1] < min1[dominant1]
        needy2 = usage2[dominant2] < min2[dominant2]
        if not needy2 and not needy1:
            self.sort_ratios(ratios1, ratios2)
            res = self.compare_ratios(ratios1, ratios2, 1)
        elif needy1 and not needy2:
            res = -1
        elif needy2 and not needy1:
            res = 1
        else:
            self.calculate_min_share_ratios(usage1, min1, ratios1)
            self.calculate_min_share_ratios(usage2, min2, ratios2)
            self.sort_ratios(ratios1, ratios2)
            res = self.compare_ratios(ratios1, ratios2, 2)
        if res == 0:
            res = compare_attributes(s1, s2)
        return res

    @staticmethod
    def calculate_cluster_and_fair_ratios(
        usage: list[int], cluster: list[int], ratios: list[list[float]], weight: float
    ) -> int:
        """``calculateClusterAndFairRatios``: fill columns 0 (``usage / (float) cluster``) and 1 (that / weight);
        the index of the first strictly largest usage ratio."""
        dominant = 0
        for i in range(len(cluster)):
            ratios[i][0] = ratio(usage[i], cluster[i])
            if ratios[i][0] > ratios[dominant][0]:
                dominant = i
            # A weight of 0 gives Infinity (or NaN): the schedulable loses to any with a non-zero weight.
            ratios[i][1] = f32(java_div(ratios[i][0], weight))
        return dominant

    @staticmethod
    def calculate_min_share_ratios(usage: list[int], min_share: list[int], ratios: list[list[float]]) -> None:
        """``calculateMinShareRatios``: fill column 2 with ``usage / (float) minShare``."""
        for i in range(len(min_share)):
            ratios[i][2] = ratio(usage[i], min_share[i])

    @staticmethod
    def sort_ratios(ratios1: list[list[float]], ratios2: list[list[float]]) -> None:
        """``sortRatios``: both arrays by usage ratio, descending, as ``Arrays.sort`` does (stable; ties and NaN
        keep their order the way Java's binary insertion sort leaves them)."""
        _java_sort(ratios1, _by_usage_descending)
        _java_sort(ratios2, _by_usage_descending)

    @staticmethod
    def compare_ratios(ratios1: list[list[float]], ratios2: list[list[float]], index: int) -> int:
        """``compareRatios``: the first non-zero ``signum`` over the rows, in column ``index``."""
        ret = 0
        for i in range(len(ratios1)):
            ret = signum_diff(ratios1[i][index], ratios2[i][index])
            if ret != 0:
                break
        return ret


def _by_usage_descending(o1: list[float], o2: list[float]) -> int:
    # (int) Math.signum(o2[0] - o1[0])
    return signum_diff(o2[0], o1[0])


def _java_sort(a: list[list[float]], c: Callable[[list[float], list[float]], int]) -> None:
    """``Arrays.sort(a, c)`` for fewer than 32 elements: ``TimSort``'s ``countRunAndMakeAscending`` then
    ``binarySort``. Exact even for a comparator that is not a total order (NaN ratios compare equal to anything)."""
    hi = len(a)
    if hi < 2:
        return
    if hi >= _MIN_MERGE:  # more resource types than any cluster has: a stable sort gives the same for total orders
        a.sort(key=functools.cmp_to_key(c))
        return
    run_hi = 1
    if c(a[run_hi], a[0]) < 0:
        run_hi += 1
        while run_hi < hi and c(a[run_hi], a[run_hi - 1]) < 0:
            run_hi += 1
        a[0:run_hi] = a[0:run_hi][::-1]
    else:
        run_hi += 1
        while run_hi < hi and c(a[run_hi], a[run_hi - 1]) >= 0:
            run_hi += 1
    for start in range(run_hi, hi):
        pivot = a[start]
        left, right = 0, start
        while left < right:
            mid = (left + right) >> 1
            if c(pivot, a[mid]) < 0:
                right = mid
            else:
                left = mid + 1
        a[left + 1 : start + 1] = a[left:start]
        a[left] = pivot


class DominantResourceFairnessPolicy(SchedulingPolicy):
    """``DominantResourceFairnessPolicy``: fair shares of every resource type, the DRF comparators, the
    ``DominantResourceCalculator``."""

    __slots__ = ()
    NAME = "DRF"

    def get_resource_calculator(self) -> ResourceCalculator:
        return _CALCULATOR

    def get_comparator(self, cluster: Resource, resource_types: tuple[str, ...] | None = None) -> SchedulableComparator:
        """Comparator2 when the cluster knows memory and vcores only (Hadoop: ``NUM_RESOURCES == 2``), else
        ComparatorN over memory, vcores and ``resource_types`` (by default the types the cluster resource lists)."""
        types = tuple(name for name, _ in cluster.extended) if resource_types is None else resource_types
        if types:
            return DominantResourceFairnessComparatorN(cluster, types)
        return DominantResourceFairnessComparator2(cluster)

    def compute_shares(self, schedulables: Iterable[Schedulable], total_resources: Resource) -> None:
        scheds = list(schedulables)
        for name in _types_in_play(total_resources, scheds, [s.fair_share for s in scheds]):
            compute_shares(scheds, total_resources, name)

    def compute_steady_shares(self, queues: Iterable[FSQueueSchedulable], total_resources: Resource) -> None:
        scheds = list(queues)
        for name in _types_in_play(total_resources, scheds, [s.steady_fair_share for s in scheds]):
            compute_steady_shares(scheds, total_resources, name)

    def check_if_usage_over_fair_share(self, usage: Resource, fair_share: Resource) -> bool:
        return not usage.fits_in(fair_share)

    def get_headroom(self, queue_fair_share: Resource, queue_usage: Resource, max_available: Resource) -> Resource:
        queue_available_memory = max(queue_fair_share.memory_mb - queue_usage.memory_mb, 0)
        queue_available_cpu = max(queue_fair_share.vcores - queue_usage.vcores, 0)
        return Resource(
            min(max_available.memory_mb, queue_available_memory), min(max_available.vcores, queue_available_cpu)
        )


def _types_in_play(total: Resource, scheds: Sequence[Schedulable], targets: list[Resource]) -> tuple[str, ...]:
    """Hadoop computes shares for every known resource type. A type that none of the total, the min and max shares
    and the current shares lists is 0 in all of them, and its computed share would be 0 (max share 0 is a fixed
    share of 0): leaving it out gives the same records."""
    resources = [total, *targets]
    for s in scheds:
        resources.append(s.min_share)
        resources.append(s.max_share)
    return resource_type_names(resources)
