"""``ComputeFairShares``: the weighted fair shares of a set of schedulables, one resource type at a time.

A fair assignment is one with a weight-to-resource ratio ``R`` such that every schedulable gets
``min(max(weight * R, minShare), maxShare)`` and the shares add up to the total; ``R`` is found by a binary search
(Hadoop's ``computeSharesInternal`` javadoc). Schedulables whose share is fixed (max share 0, weight 0, or an
inactive queue for the instantaneous share) are served first and take their fixed share off the total.

Everything is as Hadoop computes it, so the results match to the last unit: 25 iterations of the search, doubles for
``weight * R`` with the float32 weight, the ``(long)`` cast of each share, and ``safeAdd`` (sums saturate at
``Long.MAX_VALUE``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Final, cast

from yarnball.policies.fair._resources import (
    LONG_MAX,
    get_resource_value,
    safe_add,
    set_resource_value,
    wrap_long,
)
from yarnball.policies.fair._schedulable import FSQueueSchedulable, Schedulable
from yarnball.policies.preemption._java import java_long
from yarnball.protocols import Resource

__all__ = ["COMPUTE_FAIR_SHARES_ITERATIONS", "compute_share", "compute_shares", "compute_steady_shares"]

COMPUTE_FAIR_SHARES_ITERATIONS: Final = 25


def compute_shares(schedulables: Iterable[Schedulable], total_resources: Resource, type_name: str) -> None:
    """``ComputeFairShares.computeShares``: set each schedulable's ``fair_share[type_name]``, counting active
    schedulables only (an inactive queue gets 0)."""
    _compute_shares_internal(list(schedulables), total_resources, type_name, False)


def compute_steady_shares(queues: Iterable[FSQueueSchedulable], total_resources: Resource, type_name: str) -> None:
    """``ComputeFairShares.computeSteadyShares``: set each queue's ``steady_fair_share[type_name]``, counting every
    queue, active or not."""
    _compute_shares_internal(list(queues), total_resources, type_name, True)


def _set_target(sched: Schedulable, steady: bool, type_name: str, value: int) -> None:
    # target = isSteadyShare ? ((FSQueue) sched).getSteadyFairShare() : sched.getFairShare();
    # target.setResourceValue(type, value) -- a write into that one component.
    if steady:
        queue = cast(FSQueueSchedulable, sched)  # only compute_steady_shares passes steady=True
        queue.steady_fair_share = set_resource_value(queue.steady_fair_share, type_name, value)
    else:
        sched.fair_share = set_resource_value(sched.fair_share, type_name, value)


def _compute_shares_internal(
    all_schedulables: Sequence[Schedulable], total_resources: Resource, type_name: str, steady: bool
) -> None:
    """``ComputeFairShares.computeSharesInternal``."""
    schedulables: list[Schedulable] = []
    taken = _handle_fixed_fair_shares(all_schedulables, schedulables, steady, type_name)
    if not schedulables:
        return
    # An upper bound on R: start at 1 and double until all the resource is used or every max share is met.
    total_max_share = 0
    for sched in schedulables:
        total_max_share = safe_add(get_resource_value(sched.max_share, type_name), total_max_share)
        if total_max_share == LONG_MAX:
            break
    total_resource = max(wrap_long(get_resource_value(total_resources, type_name) - taken), 0)
    total_resource = min(total_max_share, total_resource)

    r_max = 1.0
    while _resource_used_with_weight_to_resource_ratio(r_max, schedulables, type_name) < total_resource:
        if r_max == math.inf:
            # Hadoop doubles forever here (only reachable with NaN weights or max shares that a double cannot
            # hold exactly); every share is at its cap already, so stop.
            break
        r_max *= 2.0
    left, right = 0.0, r_max
    for _ in range(COMPUTE_FAIR_SHARES_ITERATIONS):
        mid = (left + right) / 2.0
        planned = _resource_used_with_weight_to_resource_ratio(mid, schedulables, type_name)
        if planned == total_resource:
            right = mid
            break
        if planned < total_resource:
            left = mid
        else:
            right = mid
    for sched in schedulables:
        _set_target(sched, steady, type_name, compute_share(sched, right, type_name))


def _resource_used_with_weight_to_resource_ratio(
    w2r_ratio: float, schedulables: Sequence[Schedulable], type_name: str
) -> int:
    """``resourceUsedWithWeightToResourceRatio``: the total of the shares at ratio ``w2r_ratio``."""
    taken = 0
    for sched in schedulables:
        taken = safe_add(taken, compute_share(sched, w2r_ratio, type_name))
        if taken == LONG_MAX:
            break
    return taken


def compute_share(sched: Schedulable, w2r_ratio: float, type_name: str) -> int:
    """``ComputeFairShares.computeShare``: ``(long) min(max(weight * R, minShare), maxShare)`` in doubles."""
    share = sched.weight * w2r_ratio
    if share != share:  # Math.max/min propagate NaN, and (long) NaN is 0
        return 0
    low = float(get_resource_value(sched.min_share, type_name))
    if low > share:
        share = low
    high = float(get_resource_value(sched.max_share, type_name))
    if high < share:
        share = high
    return java_long(share)


def _handle_fixed_fair_shares(
    schedulables: Sequence[Schedulable], non_fixed: list[Schedulable], steady: bool, type_name: str
) -> int:
    """``handleFixedFairShares``: give the fixed shares, collect the others; the total of the fixed shares."""
    total = 0
    for sched in schedulables:
        fixed = _get_fair_share_if_fixed(sched, steady, type_name)
        if fixed < 0:
            non_fixed.append(sched)
        else:
            _set_target(sched, steady, type_name, fixed)
            total = safe_add(total, fixed)
    return total


def _get_fair_share_if_fixed(sched: Schedulable, steady: bool, type_name: str) -> int:
    """``getFairShareIfFixed``: 0 for a max share of 0 or (instantaneous share) an inactive queue, the min share
    (at least 0) for a weight of 0, else -1 (the schedulable takes part in the search)."""
    if get_resource_value(sched.max_share, type_name) <= 0:
        return 0
    if not steady and not sched.is_active():
        return 0
    if sched.weight <= 0:
        min_share = get_resource_value(sched.min_share, type_name)
        return 0 if min_share <= 0 else min_share
    return -1
