"""Parsing of absolute-resource queue capacities (``capacity = [memory=...,vcores=...]``), Hadoop 3.1+.

Follows CapacitySchedulerConfiguration.internalGetLabeledResourceRequirementForQueue and
updateResourceValuesFromConfig: the bracketed value is split on ``,`` then ``=``; a key that is not a known
resource type (compared *untrimmed*, as Hadoop does) is skipped; a value may carry a unit suffix (getUnits: the
alphabetic tail), converted to ``Mi`` by UnitsConversionUtil.convert: the decimal units ``p n u m k M G T P`` (powers
of 1000: ``4G`` is 4e9 bytes' worth, 3814 Mi) and the binary ``Ki Mi Gi Ti Pi``; a vector without memory means "no
absolute resource" (Resources.none()).

CapacitySchedulerConfiguration.get_minimum/maximum_resource_requirement read the vectors with it; the scheduler's
effective resources are computed from them in _queues.py.
"""

from __future__ import annotations

import re

from yarnball.errors import ConfigurationError

__all__ = ["convert_units", "parse_resource_vector"]

# CapacitySchedulerConfiguration.RESOURCE_PATTERN
_RESOURCE_PATTERN = re.compile(r"\[([^\]]+)]")
_RESOURCE_TYPES = ("memory", "vcores")
# UnitsConversionUtil's converters: unit -> (numerator, denominator) of one unit in the base unit.
_CONVERTERS: dict[str, tuple[int, int]] = {
    "p": (1, 1000**4), "n": (1, 1000**3), "u": (1, 1000**2), "m": (1, 1000), "": (1, 1),
    "k": (1000, 1), "M": (1000**2, 1), "G": (1000**3, 1), "T": (1000**4, 1), "P": (1000**5, 1),
    "Ki": (1024, 1), "Mi": (1024**2, 1), "Gi": (1024**3, 1), "Ti": (1024**4, 1), "Pi": (1024**5, 1),
}  # fmt: skip
# KNOWN_UNITS as Java prints it: a HashSet of UNITS, iterated in its bucket order (String.hashCode, 32 buckets).
_KNOWN_UNITS = "[, Gi, G, k, m, M, n, p, P, T, u, Ti, Pi, Mi, Ki]"
_LONG_MAX = 2**63 - 1
_LONG = re.compile(r"[+-]?[0-9]+")  # Long.valueOf


def _java_div(a: int, b: int) -> int:
    """Java's long division: truncation toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _get_units(value: str) -> str:
    """CapacitySchedulerConfiguration.getUnits: the tail from the first letter whose rest is all letters."""
    for i, ch in enumerate(value):
        if ch.isalpha() and value[i:].isalpha():
            return value[i:]
    return ""


def convert_units(key: str, from_unit: str, value: int, to_unit: str = "Mi") -> int:
    """UnitsConversionUtil.convert (Hadoop 3.3+), with its errors (IllegalArgumentException) as ConfigurationError."""
    if from_unit == to_unit:
        return value
    for unit in (from_unit, to_unit):
        if unit not in _CONVERTERS:
            raise ConfigurationError(f"{key}: Unknown unit '{unit}'. Known units are {_KNOWN_UNITS}")
    fn, fd = _CONVERTERS[from_unit]
    tn, td = _CONVERTERS[to_unit]
    numerator, denominator = fn * td, fd * tn
    limit = _LONG_MAX // numerator
    overflow = f"{key}: Converting {value} from '{from_unit}' to '{to_unit}' will result in an overflow of Long"
    if numerator < denominator:
        if limit < value:
            raise ConfigurationError(overflow)
        return _java_div(value * numerator, denominator)
    if limit > value:
        return _java_div(numerator * value, denominator)
    tmp = numerator // denominator
    if _LONG_MAX // tmp < value:
        raise ConfigurationError(overflow)
    return value * tmp


def parse_resource_vector(key: str, value: str) -> tuple[int, int] | None:
    """Return ``(memory_mb, vcores)`` for an absolute-resource value, or None where Hadoop yields none."""
    match = _RESOURCE_PATTERN.search(value)
    if match is None:
        return None
    body = match.group(0)[1:-1]
    if not body.strip():
        return None
    memory = 0
    vcores = 0
    for pair in body.strip().split(","):
        splits = pair.split("=")
        if len(splits) < 2:
            continue
        name = splits[0]
        if name not in _RESOURCE_TYPES:  # Hadoop: resourceTypes.contains(splits[0]) -- untrimmed
            continue
        raw = splits[1]
        # updateResourceValuesFromConfig: the units, then Long.valueOf of what precedes them, converted to Mi.
        units = _get_units(raw)
        number = raw[: len(raw) - len(units)]
        if _LONG.fullmatch(number) is None:
            raise ConfigurationError(
                f'{key}: For input string: "{number}" in {value!r} (NumberFormatException: expected an integer with '
                "an optional unit such as 4096, 4Gi or 4G)"
            )
        amount = int(number)
        if units:
            amount = convert_units(key, units, amount)
        if name == "memory":
            memory = amount
        else:
            vcores = amount
    if memory == 0:  # "Memory has to be configured always."
        return None
    return (memory, vcores)
