"""Hadoop's ``Resources`` arithmetic by resource type name, and the Java number semantics the FairScheduler's
share and ordering code depends on.

Hadoop's fair-share code reads and writes one resource type at a time (``Resource.getResourceValue(type)`` /
``setResourceValue(type, value)``); yarnball's :class:`~yarnball.protocols.Resource` is frozen, so a write returns a
new record. Extended types are kept without zero entries (a type a record does not list is 0, as in
``Resource.fits_in``), so a resource written here compares equal to one built directly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Final

from yarnball.protocols import Resource

__all__ = [
    "LONG_MAX",
    "MEMORY",
    "VCORES",
    "componentwise_max",
    "componentwise_min",
    "get_resource_value",
    "java_compare_strings",
    "java_div",
    "long_signum_diff",
    "resource_type_names",
    "safe_add",
    "set_resource_value",
    "signum_diff",
    "wrap_long",
]

MEMORY: Final = "memory-mb"  # ResourceInformation.MEMORY_MB.getName()
VCORES: Final = "vcores"  # ResourceInformation.VCORES.getName()
LONG_MAX: Final = 2**63 - 1
_LONG_MIN: Final = -(2**63)


def get_resource_value(r: Resource, name: str) -> int:
    """``Resource.getResourceValue(name)``: 0 for an extended type the record does not list."""
    if name == MEMORY:
        return r.memory_mb
    if name == VCORES:
        return r.vcores
    for key, value in r.extended:
        if key == name:
            return value
    return 0


def set_resource_value(r: Resource, name: str, value: int) -> Resource:
    """``Resource.setResourceValue(name, value)`` on a frozen record: ``r`` with that one component replaced."""
    if name == MEMORY:
        return Resource(value, r.vcores, r.extended)
    if name == VCORES:
        return Resource(r.memory_mb, value, r.extended)
    rest = dict(r.extended)
    if value:
        rest[name] = value
    else:
        rest.pop(name, None)
    return Resource(r.memory_mb, r.vcores, tuple(sorted(rest.items())))


def resource_type_names(resources: Iterable[Resource]) -> tuple[str, ...]:
    """Memory, vcores, then every extended type any of ``resources`` lists, by name: the types whose values can be
    non-zero among them (Hadoop's ``ResourceUtils.getResourceTypesArray()`` over the known types)."""
    names: set[str] = set()
    for r in resources:
        names.update(k for k, _ in r.extended)
    return (MEMORY, VCORES, *sorted(names))


def _componentwise(a: Resource, b: Resource, larger: bool) -> Resource:
    def pick(x: int, y: int) -> int:
        return (x if x > y else y) if larger else (x if x < y else y)

    if not a.extended and not b.extended:
        return Resource(pick(a.memory_mb, b.memory_mb), pick(a.vcores, b.vcores))
    mine, theirs = dict(a.extended), dict(b.extended)
    extended = {n: pick(mine.get(n, 0), theirs.get(n, 0)) for n in mine.keys() | theirs.keys()}
    return Resource(
        pick(a.memory_mb, b.memory_mb),
        pick(a.vcores, b.vcores),
        tuple(sorted((n, v) for n, v in extended.items() if v)),
    )


def componentwise_min(a: Resource, b: Resource) -> Resource:
    """``Resources.componentwiseMin``: the smaller value of every resource type."""
    return _componentwise(a, b, False)


def componentwise_max(a: Resource, b: Resource) -> Resource:
    """``Resources.componentwiseMax``: the larger value of every resource type."""
    return _componentwise(a, b, True)


def signum_diff(a: float, b: float) -> int:
    """``(int) Math.signum(a - b)`` for doubles or floats: the sign of the difference, 0 when it is NaN (equal
    infinities, or a NaN operand). A difference of two distinct finite values is never rounded to zero."""
    return 1 if a > b else -1 if a < b else 0


def long_signum_diff(a: int, b: int) -> int:
    """``(int) Math.signum(a - b)`` for two Java longs: the subtraction wraps around on overflow, as Java's does."""
    d = (a - b + 2**63) % 2**64 - 2**63
    return (d > 0) - (d < 0)


def java_div(a: float, b: float) -> float:
    """Java's floating-point ``a / b``: division by zero gives an infinity or NaN instead of raising."""
    if b == 0.0:
        if a == 0.0 or a != a:
            return math.nan
        return math.inf if (a > 0) == (math.copysign(1.0, b) > 0) else -math.inf
    return a / b


def java_compare_strings(a: str, b: str) -> int:
    """The sign of ``String.compareTo``: lexicographic over UTF-16 code units (Python orders by code points, which
    differs for characters outside the Basic Multilingual Plane)."""
    if not (a.isascii() and b.isascii()):
        ea, eb = a.encode("utf-16-be", "surrogatepass"), b.encode("utf-16-be", "surrogatepass")
        return (ea > eb) - (ea < eb)
    return (a > b) - (a < b)


def safe_add(a: int, b: int) -> int:
    """``ComputeFairShares.safeAdd``: ``Math.addExact``, or ``Long.MAX_VALUE`` when the sum overflows (either way)."""
    s = a + b
    return s if _LONG_MIN <= s <= LONG_MAX else LONG_MAX


def wrap_long(x: int) -> int:
    """A Java long result: ``x`` wrapped around to 64 bits."""
    return (x + 2**63) % 2**64 - 2**63
