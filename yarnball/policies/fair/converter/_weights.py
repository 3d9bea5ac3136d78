"""fs2cs's capacities from weights: ``WeightToWeightConverter`` (weight mode, the default) and
``WeightToPercentConverter`` (``-pc``), chosen by ``CapacityConverterFactory.getConverter`` (fair.md §8.6).

Weight mode keeps each FairScheduler weight as a CapacityScheduler weight (``capacity=<w>w``) and turns every parent
into an auto-creating (v2) parent. Percentage mode divides each parent's 100 % among its children in proportion to
their weights, with Java's ``BigDecimal`` arithmetic, and gives what rounding leaves over to the largest child.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Final, Protocol

from yarnball.errors import ConversionException
from yarnball.policies.capacity._validation import f32
from yarnball.policies.fair.converter._output import ConvertedConfiguration
from yarnball.policies.fair.converter._queues import ConvertedQueue

__all__ = [
    "CapacityConverter",
    "WeightToPercentConverter",
    "WeightToWeightConverter",
    "fix_capacities",
    "get_converter",
]

ROOT: Final = "root"
HUNDRED: Final = Decimal("100.000")
ZERO: Final = Decimal("0.000")


class CapacityConverter(Protocol):
    """``CapacityConverter``: writes the capacities of a queue's children."""

    def convert_weights_for_child_queues(self, queue: ConvertedQueue, cs_config: ConvertedConfiguration) -> None: ...


class WeightToWeightConverter:
    """``WeightToWeightConverter``: for a parent (or a queue with children), root's weight, each child's weight and
    ``auto-queue-creation-v2.enabled=true`` on the parent."""

    def convert_weights_for_child_queues(self, queue: ConvertedQueue, cs_config: ConvertedConfiguration) -> None:
        if not queue.leaf or queue.children:
            if queue.name == ROOT:
                cs_config.set_non_labeled_queue_weight(queue.name, queue.weight)
            for child in queue.children:
                cs_config.set_non_labeled_queue_weight(child.name, child.weight)
            cs_config.set_auto_queue_creation_v2_enabled(queue.name, True)


def _set_scale_exact(value: Decimal, scale: int) -> Decimal:
    """``BigDecimal.setScale(scale)`` without a rounding mode: ArithmeticException when digits would be lost."""
    result = value.quantize(Decimal(1).scaleb(-scale))
    if result != value:
        raise ArithmeticError("Rounding necessary")
    return result


def _percentage(weight: float, total: int) -> Decimal:
    """``new BigDecimal(weight).setScale(5).divide(total, HALF_UP).multiply(100.000).setScale(3)``."""
    exact = Decimal(f32(weight))  # new BigDecimal(double) of the float weight: its exact binary value
    scaled = _set_scale_exact(exact, 5)
    quotient = (scaled / Decimal(total)).quantize(Decimal("0.00001"), rounding=ROUND_HALF_UP)
    return _set_scale_exact(quotient * HUNDRED, 3)


def fix_capacities(capacities: dict[str, Decimal], total: Decimal) -> bool:
    """``fixCapacities``: the largest capacity (the first of equals, in child order) takes ``100 - total``; when the
    largest is 0 nothing changes and the parent must allow a zero sum (True is returned)."""
    highest_queue = max(capacities, key=lambda name: capacities[name])  # max keeps the first of equal values
    highest = capacities[highest_queue]
    if highest == ZERO:
        return True
    capacities[highest_queue] = highest + (HUNDRED - total)
    return False


class WeightToPercentConverter:
    """``WeightToPercentConverter``: each child's share of the integer sum of the weights, in percent (3 decimals)."""

    def convert_weights_for_child_queues(self, queue: ConvertedQueue, cs_config: ConvertedConfiguration) -> None:
        capacities, allow_zero_sum = self.get_capacities(queue.children)
        for name, value in capacities.items():
            cs_config.set_capacity(name, str(value))
        if allow_zero_sum:
            cs_config.set_allow_zero_capacity_sum(queue.name, True)

    @staticmethod
    def get_capacities(children: Sequence[ConvertedQueue]) -> tuple[dict[str, Decimal], bool]:
        if not children:
            return {}, False
        if len(children) == 1:
            return {children[0].name: HUNDRED}, False
        total_weight = int(sum(float(f32(c.weight)) for c in children))  # (int) of the double sum
        capacities: dict[str, Decimal] = {}
        for child in children:
            try:
                capacities[child.name] = ZERO if total_weight == 0 else _percentage(child.weight, total_weight)
            except ArithmeticError:
                # Hadoop's BigDecimal.setScale(5) throws ArithmeticException("Rounding necessary") here.
                raise ConversionException(
                    f"Rounding necessary: the weight {child.weight} of queue {child.name} is not exact in 5 decimals "
                    "as a Java float, which percentage mode cannot convert (use weight mode, or a weight such as "
                    "0.25)"
                ) from None
        total = sum(capacities.values(), ZERO)
        allow_zero_sum = False
        if total != HUNDRED:
            allow_zero_sum = fix_capacities(capacities, total)
        return capacities, allow_zero_sum


def get_converter(use_percentages: bool) -> CapacityConverter:
    """``CapacityConverterFactory.getConverter``."""
    return WeightToPercentConverter() if use_percentages else WeightToWeightConverter()
