"""``FifoPolicy`` (``fifo``, leaf queues only) and its ``FifoComparator``: the earliest application gets it all."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from yarnball._logs import get_logger
from yarnball.policies.capacity._calculator import DefaultResourceCalculator, ResourceCalculator
from yarnball.policies.fair._fairsharepolicy import memory_headroom
from yarnball.policies.fair._resources import java_compare_strings, long_signum_diff
from yarnball.policies.fair._schedulable import FSQueueSchedulable, Schedulable
from yarnball.policies.fair._schedulingpolicy import (
    KeyedComparator,
    SchedulableComparator,
    SchedulingPolicy,
    name_keys,
    start_time_keys,
)
from yarnball.protocols import Resource

__all__ = ["FifoComparator", "FifoPolicy"]

log = get_logger(__name__)

_CALCULATOR = DefaultResourceCalculator()


def _int_signum_diff(a: int, b: int) -> int:
    # Priority.compareTo is `other.getPriority() - this.getPriority()`, an int subtraction that wraps around.
    d = (a - b + 2**31) % 2**32 - 2**31
    return (d > 0) - (d < 0)


class FifoComparator(KeyedComparator):
    """``FifoPolicy.FifoComparator``: priority (``Priority.compareTo``: the larger number first), then start time,
    then name. FairScheduler queues and attempts all have priority 1, so it is start time, then name."""

    __slots__ = ()

    def sort_keys(self, items: Sequence[Schedulable]) -> list[tuple[Any, ...]] | None:
        """``(-priority, start time, name)``; None when two priorities are so far apart that the int subtraction
        wraps, or two start times (the comparison is no total order there)."""
        times = start_time_keys(items)
        priorities = [s.priority.priority for s in items]
        if times is None or (priorities and max(priorities) - min(priorities) >= 2**31):
            return None
        return [(-p, t, n) for p, t, n in zip(priorities, times, name_keys(items), strict=True)]

    def __call__(self, s1: Schedulable, s2: Schedulable) -> int:
        res = _int_signum_diff(s2.priority.priority, s1.priority.priority)
        if res == 0:
            res = long_signum_diff(s1.start_time, s2.start_time)
        if res == 0:
            res = java_compare_strings(s1.name, s2.name)
        return res


_COMPARATOR = FifoComparator()


class FifoPolicy(SchedulingPolicy):
    """``FifoPolicy``: the whole share goes to the schedulable that started first; no steady shares; allowed on
    leaf queues only (no child policy is allowed under it)."""

    __slots__ = ()
    NAME = "FIFO"

    def get_resource_calculator(self) -> ResourceCalculator:
        return _CALCULATOR

    def get_comparator(self, cluster: Resource, resource_types: tuple[str, ...] | None = None) -> SchedulableComparator:
        return _COMPARATOR

    def compute_shares(self, schedulables: Iterable[Schedulable], total_resources: Resource) -> None:
        """The earliest start time (the first of equals) gets ``Resources.clone(total)``; the others keep the share
        they had."""
        earliest: Schedulable | None = None
        for schedulable in schedulables:
            if earliest is None or schedulable.start_time < earliest.start_time:
                earliest = schedulable
        if earliest is not None:
            earliest.fair_share = total_resources

    def compute_steady_shares(self, queues: Iterable[FSQueueSchedulable], total_resources: Resource) -> None:
        """Nothing: a leaf queue computes no steady shares for its applications."""

    def check_if_usage_over_fair_share(self, usage: Resource, fair_share: Resource) -> bool:
        raise NotImplementedError(
            "FifoPolicy doesn't support checkIfUsageOverFairshare operation, as FifoPolicy only works for FSLeafQueue."
        )

    def get_headroom(self, queue_fair_share: Resource, queue_usage: Resource, max_available: Resource) -> Resource:
        return memory_headroom(queue_fair_share, queue_usage, max_available)

    def is_child_policy_allowed(self, child_policy: SchedulingPolicy) -> bool:
        log.error("FIFO policy is only for leaf queues. Please choose DRF or fair for parent queues.")
        return False
