"""A leaf queue's user limits (Hadoop's ``UsersManager``, design §7): the computed user limit, cached per users'
version, each user's limit by weight, the headroom and the pending resource within the user limits.

The state lives on the :class:`~yarnball.policies.capacity._leaf.LeafQueue` (its ``users``, ``active_*`` sums and
``ul_*`` caches, kept up to date as usage changes); these functions compute from it, and the leaf offers them as its
methods of the same names.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from yarnball.policies.capacity._context import SchedulerContext
from yarnball.policies.capacity._queues import CSQueue
from yarnball.policies.capacity._state import User

if TYPE_CHECKING:
    from collections.abc import Iterable

    from yarnball.policies.capacity._calculator import DefaultResourceCalculator, DominantResourceCalculator
    from yarnball.policies.capacity._leaf import LeafQueue

__all__ = [
    "computed_user_limit",
    "headroom",
    "total_pending_considering_user_limit",
    "update_user_limit_static",
    "usage_ratio",
    "user_limit_for",
]


def computed_user_limit(leaf: LeafQueue, ctx: SchedulerContext) -> tuple[int, int]:
    """``getComputedResourceLimitForActiveUsers`` (before the per-user weight), cached per users' version."""
    if leaf.ul_version == leaf.users_version:
        return leaf.ul_cache
    if not ctx.rc.dominant:
        # Every input of _computed_user_limit_memory but the constant ones (minimum allocation, user-limit
        # percent) and ul_static (the memo is emptied when it changes). A busy queue's usage moves back and
        # forth between a few values (a container ends, the next one starts), so most versions repeat inputs.
        key = (
            ctx.cluster_m,
            ctx.cluster_v,
            leaf.used_m,
            leaf.active_weights,
            leaf.active_used_m,
            leaf.active_used_v,
        )
        memo = leaf.ul_memo
        result = memo.get(key)
        if result is None:
            result = _computed_user_limit_memory(leaf, ctx)
            if len(memo) >= 256:
                memo.clear()  # bounded: a queue whose usage keeps growing never repeats inputs
            memo[key] = result
        leaf.ul_cache = result
        leaf.ul_version = leaf.users_version
        return result
    rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
    min_m, min_v = ctx.min_m, ctx.min_v
    orig_none = leaf.eff_min_m == 0 and leaf.eff_min_v == 0
    qm, qv = rc.max(cm, cv, leaf.eff_min_m, leaf.eff_min_v, min_m, min_v)
    if rc.dominant:
        ratio = _users_share(rc, cm, cv, leaf.users.values())
    else:
        # Sum of the users' memory shares == the queue's used memory share (all usage is some user's).
        ratio = rc.usage_share(cm, cv, leaf.used_m, 0)
    con_m, con_v = rc.multiply_and_normalize_up(cm, cv, ratio, min_m, min_v)
    if rc.compare(cm, cv, con_m, con_v, qm, qv) < 0:
        cur_m, cur_v = qm, qv
    else:
        cur_m, cur_v = con_m + min_m, con_v + min_v
    weights = leaf.active_weights
    am_, av_ = rc.divide_and_ceil(leaf.active_used_m + min_m, leaf.active_used_v + min_v, weights)
    ulp = leaf.user_limit
    bm, bv = rc.divide_and_ceil(int(cur_m * ulp), int(cur_v * ulp), 100.0)
    ul_m, ul_v = rc.max(cm, cv, am_, av_, bm, bv)
    if leaf.user_limit_factor == -1 or orig_none:
        mx_m, mx_v = rc.round_down(leaf.eff_max_m, leaf.eff_max_v, min_m, min_v)
    else:
        f = leaf.user_limit_factor
        mx_m, mx_v = int(qm * f), int(qv * f)
    ul_m, ul_v = rc.min(cm, cv, ul_m, ul_v, mx_m, mx_v)
    result = rc.round_up(ul_m, ul_v, min_m, min_v)
    leaf.ul_cache = result
    leaf.ul_version = leaf.users_version
    return result


def _computed_user_limit_memory(leaf: LeafQueue, ctx: SchedulerContext) -> tuple[int, int]:
    """The same computation specialised for the DefaultResourceCalculator (memory decides every comparison;
    vcores follow the same arithmetic), written with plain ints because it runs after every allocation."""
    cm = ctx.cluster_m
    min_m, min_v = ctx.min_m, ctx.min_v
    qm, qv, mx_m, mx_v = leaf.ul_static
    ratio = leaf.used_m / cm if cm else 0.0
    con_m = int(cm * ratio + 0.5)
    con_m = -(-con_m // min_m) * min_m if min_m > 0 and con_m >= 0 else con_m
    if con_m < qm:
        cur_m, cur_v = qm, qv
    else:
        cur_v = int(ctx.cluster_v * ratio + 0.5)
        cur_v = -(-cur_v // min_v) * min_v if min_v > 0 else cur_v
        cur_m, cur_v = con_m + min_m, cur_v + min_v
    w = leaf.active_weights
    if w:
        am_ = math.ceil((leaf.active_used_m + min_m) / w)
        av_ = math.ceil((leaf.active_used_v + min_v) / w)
    else:
        am_ = av_ = 0
    ulp = leaf.user_limit
    # divideAndCeil(multiplyAndRoundDown(currentCapacity, userLimit), 100): the product truncated first (a no-op
    # for a whole-number user limit)
    bm = math.ceil(int(cur_m * ulp) / 100.0)
    bv = math.ceil(int(cur_v * ulp) / 100.0)
    ul_m, ul_v = (am_, av_) if am_ >= bm else (bm, bv)
    if mx_m < ul_m:
        ul_m, ul_v = mx_m, mx_v
    if min_m > 0:
        ul_m = -(-ul_m // min_m) * min_m
    if min_v > 0:
        ul_v = -(-ul_v // min_v) * min_v
    return ul_m, ul_v


def update_user_limit_static(leaf: LeafQueue, ctx: SchedulerContext) -> None:
    """The parts of the memory-only user limit that change only with the cluster resource: the queue capacity
    ``max(effectiveMin, minAlloc)`` and the cap ``maxUL`` (§7)."""
    min_m, min_v = ctx.min_m, ctx.min_v
    eff_m, eff_v = leaf.eff_min_m, leaf.eff_min_v
    qm, qv = (eff_m, eff_v) if eff_m >= min_m else (min_m, min_v)
    if leaf.user_limit_factor == -1 or (eff_m == 0 and eff_v == 0):
        mx_m = (leaf.eff_max_m // min_m) * min_m if min_m > 0 else leaf.eff_max_m
        mx_v = (leaf.eff_max_v // min_v) * min_v if min_v > 0 else leaf.eff_max_v
    else:
        f = leaf.user_limit_factor
        mx_m, mx_v = int(qm * f), int(qv * f)
    leaf.ul_static = (qm, qv, mx_m, mx_v)
    leaf.ul_memo = {}


def usage_ratio(leaf: LeafQueue, ctx: SchedulerContext) -> float:
    """``UsersManager.getUsageRatio("")``: the sum of the users' usage shares of the cluster (``rc.ratio(used,
    cluster)``: the dominant share under the DominantResourceCalculator), as of the current cluster resource."""
    rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
    return sum([rc.usage_share(cm, cv, u.used_m, u.used_v) for u in leaf.users.values()])


def user_limit_for(leaf: LeafQueue, ctx: SchedulerContext, user: User) -> tuple[int, int]:
    """The per-user limit: ``multiplyAndNormalizeDown(UL, weight(user), minimumAllocation)``."""
    ul_m, ul_v = computed_user_limit(leaf, ctx)
    if user.weight == 1.0:
        return ul_m, ul_v
    return ctx.rc.multiply_and_normalize_down(ul_m, ul_v, user.weight, ctx.min_m, ctx.min_v)


def headroom(leaf: LeafQueue, ctx: SchedulerContext, user: User, root: CSQueue) -> tuple[int, int]:
    """``getHeadroom`` (§7.1), computed on demand with the current user limit."""
    rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
    if not rc.dominant:
        # The same, memory only and inline (it runs on every AM allocate, skipped ones included).
        free_m, free_v = cm - root.used_m, cv - root.used_v
        if free_m <= 0:
            # A full cluster: the queue/user headroom below is never negative, so Resources.min picks the free
            # resource whatever the user limit is (which need not be computed).
            return 0, (free_v if free_v > 0 else 0)
        if leaf.ul_version == leaf.users_version:
            ul_m, ul_v = leaf.ul_cache
        else:
            ul_m, ul_v = computed_user_limit(leaf, ctx)
        if user.weight != 1.0:
            ul_m, ul_v = rc.multiply_and_normalize_down(ul_m, ul_v, user.weight, ctx.min_m, ctx.min_v)
        hm = ul_m - user.used_m
        qm = leaf.cur_limit_m - leaf.used_m
        if qm < hm:
            hm = qm
        hv = ul_v - user.used_v
        qv = leaf.cur_limit_v - leaf.used_v
        if qv < hv:
            hv = qv
        # round_down of max(h, 0): floor division is exact for non-negative values
        min_m, min_v = ctx.min_m, ctx.min_v
        hm = 0 if hm <= 0 else ((hm // min_m) * min_m if min_m > 0 else hm)
        hv = 0 if hv <= 0 else ((hv // min_v) * min_v if min_v > 0 else hv)
        if free_m <= hm:
            hm, hv = free_m, free_v
        if free_v < hv:
            hv = free_v
        return hm, (hv if hv > 0 else 0)
    ul_m, ul_v = user_limit_for(leaf, ctx, user)
    hm = min(max(ul_m - user.used_m, 0), max(leaf.cur_limit_m - leaf.used_m, 0))
    hv = min(max(ul_v - user.used_v, 0), max(leaf.cur_limit_v - leaf.used_v, 0))
    hm, hv = rc.round_down(hm, hv, ctx.min_m, ctx.min_v)
    free_m, free_v = cm - root.used_m, cv - root.used_v
    hm, hv = rc.min(cm, cv, free_m, free_v, hm, hv)
    return max(hm, 0), max(min(hv, free_v), 0)


def total_pending_considering_user_limit(leaf: LeafQueue, ctx: SchedulerContext) -> tuple[int, int]:
    """``getTotalPendingResourcesConsideringUserLimit(cluster, "", false)``: for each active application in
    order, ``min(app pending, what is left of its user's headroom)`` (headroom = the user limit minus the user's
    usage, componentwise non-negative, shared by the user's applications); the sum."""
    headroom: dict[str, list[int]] = {}
    total_m = total_v = 0
    for app in leaf.active:
        user = app.user
        room = headroom.get(user.name)
        if room is None:
            ul_m, ul_v = user_limit_for(leaf, ctx, user)
            room = headroom[user.name] = [max(ul_m - user.used_m, 0), max(ul_v - user.used_v, 0)]
        pm, pv = max(app.pending_m, 0), max(app.pending_v, 0)
        take_m, take_v = min(room[0], pm), min(room[1], pv)
        total_m += take_m
        total_v += take_v
        room[0] -= take_m
        room[1] -= take_v
    return total_m, total_v


def _users_share(
    rc: DefaultResourceCalculator | DominantResourceCalculator, cm: int, cv: int, users: Iterable[User]
) -> float:
    # (out of computed_user_limit: a generator expression there would make cells for rc, cm and cv on every
    # call, in CPython, the memory-only calls that never reach it too)
    return sum(rc.usage_share(cm, cv, u.used_m, u.used_v) for u in users)
