"""Hadoop's TestComputeFairShares (every method) and policies/TestEmptyQueues: ComputeFairShares over
FakeSchedulables, memory unless the test says CPU.

Hadoop builds FakeSchedulables through overloaded constructors; ``fake`` below takes their arguments by name:
``FakeSchedulable(int minShare)`` is ``fake(min_mb=...)``, ``(minShare, maxShare)`` ``fake(min_mb, max_mb)``,
``(minShare, float weight)`` ``fake(min_mb, weight=...)``. Their max share is ``<Integer.MAX_VALUE, 0>`` unless given.
"""

from __future__ import annotations

import pytest

from yarnball.policies.fair import (
    DominantResourceFairnessPolicy,
    FairSharePolicy,
    FakeSchedulable,
    FifoPolicy,
    SchedulingPolicy,
    compute_shares,
    get_instance,
)
from yarnball.protocols import Resource

INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
MEMORY = "memory-mb"
VCORES = "vcores"


def fake(min_mb: int = 0, max_mb: int = INT_MAX, weight: float = 1.0) -> FakeSchedulable:
    return FakeSchedulable(Resource(min_mb, 0), Resource(max_mb, 0), weight)


def memory_shares(scheds: list[FakeSchedulable]) -> list[int]:
    return [s.fair_share.memory_mb for s in scheds]


def test_testEqualSharing() -> None:
    """Four equal schedulables split 40 into 10 each."""
    scheds = [fake(), fake(), fake(), fake()]
    compute_shares(scheds, Resource(40, 0), MEMORY)
    assert memory_shares(scheds) == [10, 10, 10, 10]


def test_testLowMaxShares() -> None:
    """Max shares 100, 50, 11, 3 of 40: 13, 13, 11, 3."""
    scheds = [fake(0, 100), fake(0, 50), fake(0, 11), fake(0, 3)]
    compute_shares(scheds, Resource(40, 0), MEMORY)
    assert memory_shares(scheds) == [13, 13, 11, 3]


def test_testMinShares() -> None:
    """Min shares 20, 18, 0, 2 of 40 are given as they are."""
    scheds = [fake(20), fake(18), fake(0), fake(2)]
    compute_shares(scheds, Resource(40, 0), MEMORY)
    assert memory_shares(scheds) == [20, 18, 0, 2]


def test_testWeightedSharing() -> None:
    """Weights 2, 1, 1, 0.5 split 45 into 20, 10, 10, 5."""
    scheds = [fake(0, weight=2.0), fake(0, weight=1.0), fake(0, weight=1.0), fake(0, weight=0.5)]
    compute_shares(scheds, Resource(45, 0), MEMORY)
    assert memory_shares(scheds) == [20, 10, 10, 5]


def test_testWeightedSharingWithMaxShares() -> None:
    """Weights 2, 1, 1, 0.5 with max shares 10, 11, 30, 20 of 45: 10, 11, 16, 8."""
    scheds = [fake(0, 10, 2.0), fake(0, 11, 1.0), fake(0, 30, 1.0), fake(0, 20, 0.5)]
    compute_shares(scheds, Resource(45, 0), MEMORY)
    assert memory_shares(scheds) == [10, 11, 16, 8]


def test_testWeightedSharingWithMinShares() -> None:
    """Weights 2, 1, 1, 0.5 with min shares 20, 0, 5, 15 of 45: 20, 5, 5, 15."""
    scheds = [fake(20, weight=2.0), fake(0, weight=1.0), fake(5, weight=1.0), fake(15, weight=0.5)]
    compute_shares(scheds, Resource(45, 0), MEMORY)
    assert memory_shares(scheds) == [20, 5, 5, 15]


def test_testLargeShares() -> None:
    """Shares of 4 * 10^9 each (beyond an int) come out exact."""
    giga = 1000 * 1000 * 1000 * 4
    scheds = [fake(0, giga) for _ in range(4)]
    compute_shares(scheds, Resource(4 * giga, 0), MEMORY)
    assert memory_shares(scheds) == [giga] * 4


def test_testLargeMinimums() -> None:
    """A min share of Long.MAX_VALUE does not overflow the total taken or the upper bound."""
    giga = 1000 * 1000 * 1000 * 4
    scheds = [fake(LONG_MAX, LONG_MAX), fake(giga, giga)]
    compute_shares(scheds, Resource(4 * giga, 0), MEMORY)
    assert memory_shares(scheds) == [LONG_MAX, giga]


def test_testOverflowMaxShare() -> None:
    """A max share of Long.MAX_VALUE does not overflow the sum of the max shares."""
    giga = 1000 * 1000 * 1000
    scheds = [fake(0, giga), fake(0, LONG_MAX)]
    compute_shares(scheds, Resource(2 * giga, 0), MEMORY)
    assert memory_shares(scheds) == [giga, giga]


def test_testOverflowFixedShare() -> None:
    """Fixed (zero-weight) shares that add up past Long.MAX_VALUE leave nothing for the third schedulable."""
    giga = 1000 * 1000 * 1000
    min_value = LONG_MAX - 1
    scheds = [fake(giga, giga, 0), fake(min_value, LONG_MAX, 0), fake(0, giga)]
    compute_shares(scheds, Resource(1000, 0), MEMORY)
    assert memory_shares(scheds) == [giga, min_value, 0]


def test_testEmptyList() -> None:
    """An empty list computes nothing and does not fail."""
    scheds: list[FakeSchedulable] = []
    compute_shares(scheds, Resource(40, 0), MEMORY)
    assert memory_shares(scheds) == []


def test_testCPU() -> None:
    """The same algorithm on vcores: min shares 20, 0, 5, 15 with weights 2, 1, 1, 0.5 of 45 vcores."""
    unbounded = Resource(INT_MAX, INT_MAX)
    scheds = [
        FakeSchedulable(Resource(0, 20), unbounded, 2.0),
        FakeSchedulable(Resource(0, 0), unbounded, 1.0),
        FakeSchedulable(Resource(0, 5), unbounded, 1.0),
        FakeSchedulable(Resource(0, 15), unbounded, 0.5),
    ]
    compute_shares(scheds, Resource(0, 45), VCORES)
    assert [s.fair_share.vcores for s in scheds] == [20, 5, 5, 15]


@pytest.mark.parametrize(
    "policy_class",
    [
        pytest.param(FifoPolicy, id="testFifoPolicy"),
        pytest.param(FairSharePolicy, id="testFairSharePolicy"),
        pytest.param(DominantResourceFairnessPolicy, id="testDRFPolicy"),
    ],
)
def test_TestEmptyQueues(policy_class: type[SchedulingPolicy]) -> None:
    """computeShares over no schedulables and no resource returns (Hadoop guards it with a 10 s timeout)."""
    get_instance(policy_class).compute_shares([], Resource(0, 0))
