"""Java semantics the preemption policy depends on: float32 ratios, ``(long)`` casts, String.hashCode and
``java.util.HashSet`` iteration order, ``java.util.PriorityQueue`` pop order, and Hadoop's
``Configuration.getFloat/getDouble/getLong/getBoolean`` parsing.

Resources inside the policy are ``(memory, vcores)`` tuples. Every comparison follows Hadoop's
``DefaultResourceCalculator`` (memory only); arithmetic is componentwise, as in ``Resources``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from yarnball.errors import ConfigurationError
from yarnball.protocols._javanumbers import LONG_BITS, hadoop_integer, java_float, java_trim

Res = tuple[int, int]
NONE: Res = (0, 0)

T = TypeVar("T")

_F32 = struct.Struct("f")


def f32(x: float) -> float:
    """Round a double to the nearest float32 (Java's ``(float)`` cast), returned as a Python float."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:  # beyond the float range Java's cast gives +-Infinity; struct refuses instead
        return float("inf") if x > 0 else float("-inf")


def ratio(a: int, b: int) -> float:
    """``DefaultResourceCalculator.ratio``: ``(float) a / b``, a float32 quotient (x/0 is inf or NaN)."""
    # Integers below 2**24 are exact in float32: skip the conversion for them (the common case).
    fa = float(a) if -16777216 <= a <= 16777216 else f32(float(a))
    fb = float(b) if -16777216 <= b <= 16777216 else f32(float(b))
    if fb == 0.0:
        if fa == 0.0:
            return float("nan")
        return float("inf") if fa > 0 else float("-inf")
    return f32(fa / fb)


def java_long(x: float) -> int:
    """Java's ``(long)`` cast of a double: truncation toward zero, NaN -> 0, saturating at the long range."""
    if x != x:
        return 0
    if x >= 9.223372036854775807e18:
        return 2**63 - 1
    if x <= -9.223372036854775808e18:
        return -(2**63)
    return int(x)


def multiply(r: Res, by: float) -> Res:
    """``Resources.multiply(r, by)``: each component ``(long)(value * by)``, i.e. truncated."""
    return (java_long(r[0] * by), java_long(r[1] * by))


def create_resource(memory: int) -> Res:
    """``Resources.createResource(memory)``: vcores are 1 when memory > 0, else 0 (Hadoop's quirk)."""
    return (memory, 1 if memory > 0 else 0)


def multiply_and_normalize_up(r: Res, by: float) -> Res:
    """``DefaultResourceCalculator.multiplyAndNormalizeUp(r, by, step 1)``: ``(long)(mem * by + 0.5)``.

    Round half up, not ceil; and the result comes from ``createResource(memory)``, so its vcores are 0 or 1
    whatever ``r`` held (DefaultResourceCalculator only looks after memory).
    """
    return create_resource(java_long(r[0] * by + 0.5))


def add(a: Res, b: Res) -> Res:
    return (a[0] + b[0], a[1] + b[1])


def sub(a: Res, b: Res) -> Res:
    return (a[0] - b[0], a[1] - b[1])


def cw_min(a: Res, b: Res) -> Res:
    """``Resources.componentwiseMin``."""
    return (min(a[0], b[0]), min(a[1], b[1]))


def cw_max(a: Res, b: Res) -> Res:
    """``Resources.componentwiseMax``."""
    return (max(a[0], b[0]), max(a[1], b[1]))


def rc_min(a: Res, b: Res) -> Res:
    """``Resources.min(rc, ...)`` under DefaultResourceCalculator: the whole operand with less memory (lhs on ties)."""
    return a if a[0] <= b[0] else b


def rc_max(a: Res, b: Res) -> Res:
    """``Resources.max(rc, ...)``: the whole operand with more memory (lhs on ties)."""
    return a if a[0] >= b[0] else b


# ----------------------------------------------------------------------------------------------------
# java.lang.String.hashCode and java.util.HashSet<String> iteration order
# ----------------------------------------------------------------------------------------------------
def string_hash(s: str) -> int:
    """``String.hashCode()`` over UTF-16 code units, as an unsigned 32-bit value."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h


def hashset_order(items: list[str]) -> list[str]:
    """The iteration order of a ``new HashSet<String>()`` after adding ``items`` in this order.

    HashMap puts a key in bucket ``(h ^ (h >>> 16)) & (capacity - 1)``; the table starts at 16 buckets and
    doubles whenever the size exceeds 0.75 x capacity; iteration walks the buckets in index order and each
    bucket in insertion order (Java 8's resize keeps that order). Bins that Java would turn into trees
    (8+ keys in one bucket of a 64+ table) are not modelled: that needs pathological queue names.
    """
    unique = list(dict.fromkeys(items))
    capacity = 16
    while len(unique) > capacity * 3 // 4:
        capacity *= 2
    mask = capacity - 1

    def bucket(s: str) -> int:
        h = string_hash(s)
        return (h ^ (h >> 16)) & mask

    return sorted(unique, key=bucket)  # sorted() is stable: insertion order within a bucket


# ----------------------------------------------------------------------------------------------------
# java.util.PriorityQueue
# ----------------------------------------------------------------------------------------------------
class JavaPriorityQueue(Generic[T]):
    """A binary heap with ``java.util.PriorityQueue``'s exact siftUp/siftDown, so that elements that compare
    equal come out in the same order as in Hadoop (Python's heapq breaks ties differently)."""

    __slots__ = ("_cmp", "_q")

    def __init__(self, cmp: Callable[[T, T], int]) -> None:
        self._q: list[T] = []
        self._cmp = cmp

    def __len__(self) -> int:
        return len(self._q)

    def __iter__(self) -> Iterator[T]:
        return iter(self._q)

    def add(self, x: T) -> None:
        q, cmp = self._q, self._cmp
        q.append(x)
        k = len(q) - 1
        while k > 0:
            parent = (k - 1) >> 1
            e = q[parent]
            if cmp(x, e) >= 0:
                break
            q[k] = e
            k = parent
        q[k] = x

    def peek(self) -> T | None:
        return self._q[0] if self._q else None

    def poll(self) -> T:
        q, cmp = self._q, self._cmp
        result = q[0]
        x = q.pop()
        n = len(q)
        if n:
            k, half = 0, n >> 1
            while k < half:
                child = 2 * k + 1
                c = q[child]
                right = child + 1
                if right < n and cmp(c, q[right]) > 0:
                    child = right
                    c = q[child]
                if cmp(x, c) <= 0:
                    break
                q[k] = c
                k = child
            q[k] = x
        return result


# ----------------------------------------------------------------------------------------------------
# org.apache.hadoop.conf.Configuration getters (values are read as trimmed strings)
# ----------------------------------------------------------------------------------------------------
def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return java_trim(str(value))


def get_boolean(conf: dict[str, object], key: str, default: bool) -> bool:
    """``Configuration.getBoolean``: "true"/"false" in any case; anything else falls back to the default."""
    if key not in conf or conf[key] is None:
        return default
    text = _text(conf[key]).lower()
    if text == "true":
        return True
    if text == "false":
        return False
    return default


def _float_text(key: str, value: object, kind: str) -> float:
    if isinstance(value, bool):
        raise ConfigurationError(f"{key}: expected a {kind}, got {_text(value)!r}")
    number = java_float(_text(value))  # Float.parseFloat / Double.parseDouble (a type suffix, NaN, hex floats)
    if number is None:
        raise ConfigurationError(f"{key}: expected a {kind}, got {_text(value)!r}")
    return number


def get_float(conf: dict[str, object], key: str, default: float) -> float:
    """``Configuration.getFloat``: parsed as float32 (``0.03`` becomes 0.0299999993)."""
    if key not in conf or conf[key] is None:
        return f32(default)
    return f32(_float_text(key, conf[key], "float"))


def get_double(conf: dict[str, object], key: str, default: float) -> float:
    """``Configuration.getDouble``: an ordinary double."""
    if key not in conf or conf[key] is None:
        return float(default)
    return _float_text(key, conf[key], "double")


def get_long(conf: dict[str, object], key: str, default: int) -> int:
    """``Configuration.getLong``: decimal, or hexadecimal with a 0x prefix."""
    if key not in conf or conf[key] is None:
        return int(default)
    value = conf[key]
    text = _text(value)
    number = None if isinstance(value, bool) else hadoop_integer(text, LONG_BITS)
    if number is None:
        raise ConfigurationError(f"{key}: expected a long integer, got {text!r}")
    return number
