"""The FairScheduler's orderings by sort key (``KeyedComparator.sort_keys``, read by ``tree_set``): the order and
the dropped equals are exactly those of the comparator (``FairSharePolicy.FairShareComparator``,
``FifoPolicy.FifoComparator``), and values where the comparator is no total order fall back to it."""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnball.policies.fair._fairsharepolicy import FairShareComparator
from yarnball.policies.fair._fifopolicy import FifoComparator
from yarnball.policies.fair._fsqueue import tree_set
from yarnball.policies.fair._schedulable import FakeSchedulable
from yarnball.policies.fair._schedulingpolicy import KeyedComparator, SchedulableComparator
from yarnball.protocols import Priority, Resource

# Few distinct values, so that ties reach every tie-break (min share, weight, start time, name).
_MEMORY = st.sampled_from([0, 1, 2, 512, 1024, 3072, 2**62])
_WEIGHT = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 1e-30])
_START = st.sampled_from([0, 1, 5, -(2**62), 2**62 - 1])
_NAME = st.sampled_from(["app_1", "app_2", "app_10", "a\u00e9", "a\U0001f600", "a\uffff"])


@st.composite
def _schedulables(draw: st.DrawFn) -> FakeSchedulable:
    return FakeSchedulable(
        min_share=Resource(draw(_MEMORY), 0),
        weight=draw(_WEIGHT),
        usage=Resource(draw(_MEMORY), 0),
        start_time=draw(_START),
        name=draw(_NAME),
        demand=Resource(draw(_MEMORY), 0),
        priority=Priority(draw(st.sampled_from([0, 1, 7]))),
    )


def _by_comparator(items: list[FakeSchedulable], comparator: SchedulableComparator) -> list[FakeSchedulable]:
    """The TreeSet as the comparator alone fills it."""
    kept: list[FakeSchedulable] = []
    for item in sorted(items, key=functools.cmp_to_key(comparator)):
        if not kept or comparator(kept[-1], item) != 0:
            kept.append(item)
    return kept


@settings(max_examples=300, deadline=None)
@given(items=st.lists(_schedulables(), max_size=12))
def test_the_fair_share_keys_order_as_the_comparator(items: list[FakeSchedulable]) -> None:
    """FairShareComparator's keys give its TreeSet: the same order, the same equals dropped."""
    comparator = FairShareComparator()
    assert comparator.sort_keys(items) is not None
    assert tree_set(items, comparator) == _by_comparator(items, comparator)


@settings(max_examples=200, deadline=None)
@given(items=st.lists(_schedulables(), max_size=12))
def test_the_fifo_keys_order_as_the_comparator(items: list[FakeSchedulable]) -> None:
    """FifoComparator's keys give its TreeSet: the same order, the same equals dropped."""
    comparator = FifoComparator()
    assert comparator.sort_keys(items) is not None
    assert tree_set(items, comparator) == _by_comparator(items, comparator)


def test_values_outside_a_total_order_are_left_to_the_comparator() -> None:
    """Start times 2^63 apart (the long subtraction wraps), a NaN weight or a negative demand give no keys, and the
    comparator orders them as before."""
    wrapping = [FakeSchedulable(start_time=-(2**62), name="a"), FakeSchedulable(start_time=2**62, name="b")]
    nan_weight = [FakeSchedulable(weight=float("nan"), name="a"), FakeSchedulable(name="b")]
    negative = [FakeSchedulable(demand=Resource(-1, 0), name="a"), FakeSchedulable(name="b")]
    comparators: list[KeyedComparator] = [FairShareComparator(), FifoComparator()]
    for comparator in comparators:
        assert comparator.sort_keys(wrapping) is None
        assert tree_set(wrapping, comparator) == _by_comparator(wrapping, comparator)
    for items in (nan_weight, negative):
        assert FairShareComparator().sort_keys(items) is None
        assert tree_set(items, FairShareComparator()) == _by_comparator(items, FairShareComparator())
