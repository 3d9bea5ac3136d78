"""Parsing of absolute-resource queue capacities (``capacity = [memory=...,vcores=...]``), Hadoop 3.1+.

Follows CapacitySchedulerConfiguration.internalGetLabeledResourceRequirementForQueue and
updateResourceValuesFromConfig: the bracketed value is split on ``,`` then ``=``; a key that is not a known
resource type (compared *untrimmed*, as Hadoop does) is skipped; a value may carry a unit suffix converted to
``Mi`` (UnitsConversionUtil); a vector without memory means "no absolute resource" (Resources.none()).

CapacitySchedulerConfiguration.get_minimum/maximum_resource_requirement read the vectors with it; the scheduler's
effective resources are computed from them in _queues.py.
"""

from __future__ import annotations

import re

from yarnball.errors import ConfigurationError

__all__ = ["parse_resource_vector"]

# CapacitySchedulerConfiguration.RESOURCE_PATTERN
_RESOURCE_PATTERN = re.compile(r"\[([^\]]+)]")
_RESOURCE_TYPES = ("memory", "vcores")
# UnitsConversionUtil binary units, as multiples of one Mi (fractions of Mi are truncated like Java long math).
_BINARY_UNITS_IN_KI: dict[str, int] = {"Ki": 1, "Mi": 1024, "Gi": 1024**2, "Ti": 1024**3, "Pi": 1024**4}
_VALUE = re.compile(r"^(-?\d+)([A-Za-z]*)$")


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
        parsed = _VALUE.match(raw)
        if parsed is None:
            raise ConfigurationError(
                f"{key}: invalid {name} value {raw!r} in {value!r} (expected an integer with an optional unit "
                "such as 4096, 4096Mi or 4Gi)"
            )
        amount = int(parsed.group(1))
        units = parsed.group(2)
        if units:
            scale = _BINARY_UNITS_IN_KI.get(units)
            if scale is None:
                raise ConfigurationError(
                    f"{key}: unknown unit {units!r} in {value!r} (expected one of {', '.join(_BINARY_UNITS_IN_KI)})"
                )
            amount = amount * scale // 1024
        if name == "memory":
            memory = amount
        else:
            vcores = amount
    if memory == 0:  # "Memory has to be configured always."
        return None
    return (memory, vcores)
