"""Resource calculators: ``DefaultResourceCalculator`` (memory only) and ``DominantResourceCalculator``.

The scheduler's inner loops work on plain ``int`` pairs ``(memory_mb, vcores)`` rather than ``Resource`` records, so
every method here takes and returns ints. The arithmetic follows ``org.apache.hadoop.yarn.util.resource``
(capacity.md §9): truncation like Java's ``(long)`` casts, ``roundUp``/``roundDown`` to a step, and the calculators'
own notion of "greater" (memory for the default one, dominant share for DRF).

Quirk kept from Hadoop: ``DefaultResourceCalculator.normalize`` builds the container size with
``Resources.createResource(memory)``, whose vcores are 1 when memory is positive, so every container of a memory-only
scheduler has one vcore.
"""

from __future__ import annotations

import math

__all__ = ["DefaultResourceCalculator", "DominantResourceCalculator", "ResourceCalculator", "make_calculator"]


def _jdiv(a: int, b: int) -> int:
    # Java long division truncates toward zero (Python's // floors), which matters for negative limits.
    return a // b if a >= 0 else -((-a) // b)


def _round_up(a: int, step: int) -> int:
    if step <= 0:
        return a
    a += step - 1
    return (a // step) * step if a >= 0 else _jdiv(a, step) * step


def _round_down(a: int, step: int) -> int:
    if step <= 0:
        return a
    return (a // step) * step if a >= 0 else _jdiv(a, step) * step


def _vc(mem: int) -> int:
    # Resources.createResource(long memory): one vcore whenever there is memory.
    return 1 if mem > 0 else 0


class ResourceCalculator:
    """Interface shared by both calculators; ``cm, cv`` is the cluster (partition) resource."""

    __slots__ = ()
    name = "abstract"

    def compare(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> int:
        raise NotImplementedError

    def divide(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> float:
        """``ResourceCalculator.divide``: the ratio of ``a`` to ``b`` (against the cluster resource)."""
        raise NotImplementedError

    def greater_than(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> bool:
        return self.compare(cm, cv, am, av, bm, bv) > 0

    def min(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> tuple[int, int]:
        """``Resources.min``: the left operand unless the right one is strictly smaller."""
        return (am, av) if self.compare(cm, cv, am, av, bm, bv) <= 0 else (bm, bv)

    def max(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> tuple[int, int]:
        """``Resources.max``: the left operand unless the right one is strictly greater."""
        return (am, av) if self.compare(cm, cv, am, av, bm, bv) >= 0 else (bm, bv)


class DefaultResourceCalculator(ResourceCalculator):
    """Memory only (``DefaultResourceCalculator``): vcores are carried along but never compared."""

    __slots__ = ()
    name = "default"
    dominant = False

    def compare(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> int:
        return (am > bm) - (am < bm)

    def greater_than(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> bool:
        return am > bm

    def min(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> tuple[int, int]:
        return (am, av) if am <= bm else (bm, bv)

    def max(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> tuple[int, int]:
        return (am, av) if am >= bm else (bm, bv)

    def fits_in(self, am: int, av: int, bm: int, bv: int) -> bool:
        return am <= bm

    def is_positive(self, am: int, av: int) -> bool:
        """``Resources.greaterThan(rc, cluster, r, none())``."""
        return am > 0

    def available_containers(self, am: int, av: int, rm: int, rv: int) -> int:
        return am // rm if rm else (1 << 62)

    def divide(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> float:
        if bm == 0:
            return 0.0
        return am / bm

    def ratio(self, am: int, av: int, bm: int, bv: int) -> float:
        return am / bm if bm else 0.0

    def usage_share(self, cm: int, cv: int, am: int, av: int) -> float:
        """``rc.ratio(used, partition)``, used for the queue usage ratio of the user limit."""
        return am / cm if cm else 0.0

    # The limits below are compared on memory only; their vcores are computed the same way (rather than
    # createResource()'s single vcore) so that headroom and limit reports stay meaningful.
    def round_up(self, am: int, av: int, sm: int, sv: int) -> tuple[int, int]:
        return _round_up(am, sm), _round_up(av, sv)

    def round_down(self, am: int, av: int, sm: int, sv: int) -> tuple[int, int]:
        return _round_down(am, sm), _round_down(av, sv)

    def multiply_and_normalize_up(self, am: int, av: int, by: float, sm: int, sv: int) -> tuple[int, int]:
        return _round_up(int(am * by + 0.5), sm), _round_up(int(av * by + 0.5), sv)

    def multiply_and_normalize_down(self, am: int, av: int, by: float, sm: int, sv: int) -> tuple[int, int]:
        return _round_down(int(am * by), sm), _round_down(int(av * by), sv)

    def divide_and_ceil(self, am: int, av: int, by: float) -> tuple[int, int]:
        if by == 0:
            return 0, 0
        return math.ceil(am / by), math.ceil(av / by)

    def normalize(
        self, am: int, av: int, min_m: int, min_v: int, max_m: int, max_v: int, sm: int, sv: int
    ) -> tuple[int, int]:
        m = min(_round_up(max(am, min_m), sm), max_m)
        return m, _vc(m)


class DominantResourceCalculator(ResourceCalculator):
    """Dominant Resource Fairness over memory and vcores (``DominantResourceCalculator``)."""

    __slots__ = ()
    name = "dominant"
    dominant = True

    def compare(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> int:
        if am == bm and av == bv:
            return 0
        if cm <= 0 or cv <= 0:
            # isInvalidDivisor(cluster): compare component by component (all-greater / all-smaller / mixed).
            if am >= bm and av >= bv:
                return 1
            if am <= bm and av <= bv:
                return -1
            return (am - bm > 0) - (am - bm < 0)
        sa1, sa2 = am / cm, av / cv
        sb1, sb2 = bm / cm, bv / cv
        da, oa = (sa1, sa2) if sa1 >= sa2 else (sa2, sa1)
        db, ob = (sb1, sb2) if sb1 >= sb2 else (sb2, sb1)
        if da != db:
            return 1 if da > db else -1
        return (oa > ob) - (oa < ob)

    def fits_in(self, am: int, av: int, bm: int, bv: int) -> bool:
        return am <= bm and av <= bv

    def is_positive(self, am: int, av: int) -> bool:
        return am > 0 or av > 0

    def available_containers(self, am: int, av: int, rm: int, rv: int) -> int:
        n = 1 << 62
        if rm:
            n = am // rm
        if rv:
            n = min(n, av // rv)
        return n

    def divide(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> float:
        den = self.usage_share(cm, cv, bm, bv)
        return self.usage_share(cm, cv, am, av) / den if den else 0.0

    def ratio(self, am: int, av: int, bm: int, bv: int) -> float:
        r1 = am / bm if bm else 0.0
        r2 = av / bv if bv else 0.0
        return r1 if r1 >= r2 else r2

    def usage_share(self, cm: int, cv: int, am: int, av: int) -> float:
        s1 = am / cm if cm else 0.0
        s2 = av / cv if cv else 0.0
        return s1 if s1 >= s2 else s2

    def round_up(self, am: int, av: int, sm: int, sv: int) -> tuple[int, int]:
        return _round_up(am, sm), _round_up(av, sv)

    def round_down(self, am: int, av: int, sm: int, sv: int) -> tuple[int, int]:
        return _round_down(am, sm), _round_down(av, sv)

    def multiply_and_normalize_up(self, am: int, av: int, by: float, sm: int, sv: int) -> tuple[int, int]:
        return _round_up(math.ceil(am * by), sm), _round_up(math.ceil(av * by), sv)

    def multiply_and_normalize_down(self, am: int, av: int, by: float, sm: int, sv: int) -> tuple[int, int]:
        return _round_down(int(am * by), sm), _round_down(int(av * by), sv)

    def divide_and_ceil(self, am: int, av: int, by: float) -> tuple[int, int]:
        if by == 0:
            return 0, 0
        return math.ceil(am / by), math.ceil(av / by)

    def normalize(
        self, am: int, av: int, min_m: int, min_v: int, max_m: int, max_v: int, sm: int, sv: int
    ) -> tuple[int, int]:
        return min(_round_up(max(am, min_m), sm), max_m), min(_round_up(max(av, min_v), sv), max_v)


def make_calculator(name: str) -> DefaultResourceCalculator | DominantResourceCalculator:
    """The calculator for ``yarn.scheduler.capacity.resource-calculator`` ("default"/"dominant" or a class name)."""
    lowered = name.strip().lower()
    if lowered in ("dominant", "drf") or lowered.endswith("dominantresourcecalculator"):
        return DominantResourceCalculator()
    return DefaultResourceCalculator()
