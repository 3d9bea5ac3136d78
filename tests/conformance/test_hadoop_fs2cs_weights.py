"""Hadoop's weightconversion/TestWeightToPercentageConverter and TestWeightToWeightConverter.

Hadoop counts every ``yarn.scheduler.capacity.`` key of a CapacitySchedulerConfiguration that also loaded the test
classpath's capacity-scheduler.xml (19 keys); the counts here are of the converted keys alone (Hadoop's minus 19).
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest
from fs2cs_helpers import create_fs_queues, parent, props

from yarnball.errors import ConversionException
from yarnball.policies.fair.converter import ConvertedConfiguration, WeightToPercentConverter, WeightToWeightConverter
from yarnball.policies.fair.converter._weights import fix_capacities

CAP = "yarn.scheduler.capacity.{}.capacity"
ZERO_SUM = "yarn.scheduler.capacity.root.allow-zero-capacity-sum"
AUTO_V2 = "yarn.scheduler.capacity.root.auto-queue-creation-v2.enabled"


def _percent(*weights: int) -> ConvertedConfiguration:
    cs = ConvertedConfiguration()
    WeightToPercentConverter().convert_weights_for_child_queues(create_fs_queues(*weights), cs)
    return cs


def _weight(*weights: int) -> ConvertedConfiguration:
    cs = ConvertedConfiguration()
    WeightToWeightConverter().convert_weights_for_child_queues(create_fs_queues(*weights), cs)
    return cs


# -- TestWeightToPercentageConverter -----------------------------------------------------------------------------
def test_percentage_testSingleWeightConversion() -> None:
    """One child takes 100.000 and no zero sum is allowed."""
    cs = _percent(1)
    assert ZERO_SUM not in cs
    assert cs.get(CAP.format("root.a")) == "100.000"


def test_percentage_testNoChildQueueConversion() -> None:
    """No child, no key (Hadoop: 19 = the classpath's keys alone)."""
    assert len(props(_percent())) == 0


def test_percentage_testMultiWeightConversion() -> None:
    """Weights 1, 2, 3: BigDecimal's HALF_UP rounding gives 16.667 + 33.333 + 50.000, already 100."""
    cs = _percent(1, 2, 3)
    assert len(props(cs)) == 3
    assert [cs.get(CAP.format(q)) for q in ("root.a", "root.b", "root.c")] == ["16.667", "33.333", "50.000"]


def test_percentage_testMultiWeightConversionWhenOfThemIsZero() -> None:
    """Weights 0, 1, 1: 0.000, 50.000, 50.000."""
    cs = _percent(0, 1, 1)
    assert ZERO_SUM not in cs
    assert len(props(cs)) == 3
    assert [cs.get(CAP.format(q)) for q in ("root.a", "root.b", "root.c")] == ["0.000", "50.000", "50.000"]


def test_percentage_testMultiWeightConversionWhenAllOfThemAreZero() -> None:
    """All weights 0: every capacity 0.000 and the parent allows a zero sum."""
    cs = _percent(0, 0, 0)
    assert len(props(cs)) == 4
    assert cs.get(ZERO_SUM) == "true"
    assert [cs.get(CAP.format(q)) for q in ("root.a", "root.b", "root.c")] == ["0.000", "0.000", "0.000"]


def test_percentage_testCapacityFixingWithThreeQueues() -> None:
    """Weights 1, 1, 1: the remainder 0.001 goes to the first of the largest (root.a)."""
    cs = _percent(1, 1, 1)
    assert len(props(cs)) == 3
    assert [cs.get(CAP.format(q)) for q in ("root.a", "root.b", "root.c")] == ["33.334", "33.333", "33.333"]


def _fix(a: str, total: str) -> dict[str, Decimal]:
    capacities = {"root.a": Decimal(a), "root.b": Decimal("25.500"), "root.c": Decimal("25.500")}
    assert fix_capacities(capacities, Decimal(total)) is False
    return capacities


def test_percentage_testCapacityFixingWhenTotalCapacityIsGreaterThanHundred() -> None:
    """50.001 + 25.5 + 25.5: the largest gives back 0.001."""
    assert _fix("50.001", "100.001") == {"root.a": Decimal("50.000"), "root.b": Decimal("25.500"),
                                        "root.c": Decimal("25.500")}  # fmt: skip


def test_percentage_testCapacityFixWhenTotalCapacityIsLessThanHundred() -> None:
    """49.999 + 25.5 + 25.5: the largest takes the missing 0.001."""
    assert _fix("49.999", "99.999") == {"root.a": Decimal("50.000"), "root.b": Decimal("25.500"),
                                       "root.c": Decimal("25.500")}  # fmt: skip


def test_percentage_weight_not_exact_in_five_decimals_is_a_conversion_error() -> None:
    """``new BigDecimal(0.1f).setScale(5)`` throws (Rounding necessary): a conversion error naming the queue."""
    root = create_fs_queues(1, 1)
    root.children[0].settings = replace(root.children[0].settings, weight=0.1)
    with pytest.raises(ConversionException, match=r"Rounding necessary: the weight 0.1 of queue root.a"):
        WeightToPercentConverter().convert_weights_for_child_queues(root, ConvertedConfiguration())


# -- TestWeightToWeightConverter ---------------------------------------------------------------------------------
def test_weight_testNoChildQueueConversion() -> None:
    """A parent without children: root's weight and the auto-creation flag (Hadoop: 21 = 19 + 2)."""
    cs = _weight()
    assert cs.get(CAP.format("root")) == "1.0w"
    assert len(props(cs)) == 2


def test_weight_testSingleWeightConversion() -> None:
    cs = _weight(1)
    assert cs.get(CAP.format("root")) == "1.0w"
    assert cs.get(CAP.format("root.a")) == "1.0w"
    assert len(props(cs)) == 3


def test_weight_testMultiWeightConversion() -> None:
    cs = _weight(1, 2, 3)
    assert len(props(cs)) == 5
    assert [cs.get(CAP.format(q)) for q in ("root", "root.a", "root.b", "root.c")] == ["1.0w", "1.0w", "2.0w", "3.0w"]


def test_weight_testAutoCreateV2FlagOnParent() -> None:
    assert _weight(1).get(AUTO_V2) == "true"


def test_weight_testAutoCreateV2FlagOnParentWithoutChildren() -> None:
    cs = ConvertedConfiguration()
    WeightToWeightConverter().convert_weights_for_child_queues(parent("root", []), cs)
    assert len(props(cs)) == 2
    assert cs.get(AUTO_V2) == "true"
