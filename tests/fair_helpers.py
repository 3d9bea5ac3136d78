"""Helpers shared by the FairScheduler policy tests."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from yarnball.policies.fair import Schedulable, SchedulableComparator


def assert_total_preorder(items: Sequence[Schedulable], compare: SchedulableComparator) -> None:
    """``compare`` orders ``items`` as comparing an integer rank would, hence transitively: sort, give neighbours
    that compare equal one rank, then every pair must compare as its ranks do."""
    ordered = sorted(items, key=functools.cmp_to_key(compare))
    rank: dict[int, int] = {}
    group = 0
    for i, item in enumerate(ordered):
        if i and compare(ordered[i - 1], item) != 0:
            group += 1
        rank[id(item)] = group
    for a in items:
        for b in items:
            got = compare(a, b)
            expected = (rank[id(a)] > rank[id(b)]) - (rank[id(a)] < rank[id(b)])
            assert (got > 0) - (got < 0) == expected, (a, b)
