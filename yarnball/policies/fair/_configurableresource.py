"""The FairScheduler's resource values: ``ConfigurableResource`` and ``parseResourceConfigValue`` (fair.md §1.3).

A queue's ``minResources``, ``maxResources``, ``maxChildResources``, ``maxContainerAllocation`` and the file's
``queueMaxResourcesDefault`` are written in one of three forms, each parsed as
``FairSchedulerConfiguration.parseResourceConfigValue`` parses it, with Hadoop's messages:

- the old absolute form ``"1024 mb, 2 vcores"`` (the two parts in any order, commas optional);
- percentages of the cluster, ``"50%"`` or ``"40% memory, 60% cpu"``;
- the new form ``"memory-mb=1024, vcores=2"`` or ``"memory-mb=40%, vcores=60%"``, which may also name the resource
  types of ``yarn.resource-types``; a type it leaves out is ``missing`` (absolute) or 100 % (percentages).

A percentage is kept as a fraction of the cluster and turned into a resource by
:meth:`ConfigurableResource.get_resource` with the cluster's size, so a percentage limit follows the cluster.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from yarnball.errors import AllocationConfigurationException
from yarnball.protocols import Resource
from yarnball.protocols._javanumbers import INT_BITS, LONG_BITS, java_integer, java_trim

__all__ = [
    "INT_MAX",
    "LONG_MAX",
    "MEMORY_MB",
    "VCORES",
    "ConfigurableResource",
    "java_split",
    "parse_resource_config_value",
    "unbounded",
]

LONG_MAX: Final = 2**63 - 1
INT_MAX: Final = 2**31 - 1
#: ResourceInformation.MEMORY_URI and VCORES_URI: the names of the two built-in resource types.
MEMORY_MB: Final = "memory-mb"
VCORES: Final = "vcores"

_INVALID_RESOURCE_DEFINITION_PREFIX: Final = "Error reading resource config--invalid resource definition: "
# Java's \d and \s without UNICODE_CHARACTER_CLASS are ASCII only: re.ASCII.
_RESOURCE_PERCENTAGE_PATTERN: Final = r"^(-?(\d+)(\.\d*)?)\s*%\s*"
_RESOURCE_VALUE_PATTERN: Final = r"^(-?\d+)(\.\d*)?\s*"
_RESOURCES_WITH_SPACES: Final = re.compile(r"-?\d+(?:\.\d*)?\s*[a-z]+\s*", re.ASCII)


def java_split(text: str, separator: str) -> list[str]:
    """``String.split`` on a literal one-character separator: trailing empty strings are dropped (``",".split(",")``
    is empty), but a text without the separator is itself (``"".split(",")`` is ``[""]``)."""
    if separator not in text:
        return [text]
    parts = text.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _java_long(value: float) -> int:
    """A Java ``(long)`` cast of a double: truncation toward zero, saturating at the long range."""
    if value != value:
        return 0
    if value >= 2.0**63:
        return LONG_MAX
    if value <= -(2.0**63):
        return -LONG_MAX - 1
    return int(value)


def _java_int(value: float) -> int:
    """A Java ``(int)`` cast of a double, saturating at the int range."""
    return max(-INT_MAX - 1, min(INT_MAX, _java_long(value)))


def _resource(memory: int, vcores: int, others: Sequence[tuple[str, int]]) -> Resource:
    # Resource.getVirtualCores() is castToIntSafely of the long value: Long.MAX_VALUE shows as Integer.MAX_VALUE.
    return Resource(memory, min(vcores, INT_MAX), tuple(others))


def unbounded(resource_types: Sequence[str] = ()) -> Resource:
    """``Resources.unbounded()``: every type at Long.MAX_VALUE (vcores shown as Integer.MAX_VALUE, as Java's int)."""
    return _resource(LONG_MAX, LONG_MAX, [(name, LONG_MAX) for name in resource_types])


@dataclass(frozen=True, slots=True)
class ConfigurableResource:
    """Hadoop's ``ConfigurableResource``: an absolute resource, or fractions of the cluster (``percentages``, one per
    resource type: memory, vcores, then the ``resource_types`` in order)."""

    resource: Resource | None = None
    percentages: tuple[float, ...] | None = None
    resource_types: tuple[str, ...] = ()

    def get_resource(self, cluster: Resource | None = None) -> Resource | None:
        """``getResource(clusterResource)``: the percentages applied to ``cluster`` (Java's ``(long)`` and ``(int)``
        truncations), else the absolute resource; None for percentages without a cluster (``getResource()``)."""
        if self.percentages is None or cluster is None:
            return self.resource
        p = self.percentages
        sizes = dict(cluster.extended)
        others = [(name, _java_long(sizes.get(name, 0) * p[i + 2])) for i, name in enumerate(self.resource_types)]
        return Resource(_java_long(cluster.memory_mb * p[0]), _java_int(cluster.vcores * p[1]), tuple(others))


def parse_resource_config_value(
    value: str, missing: int = LONG_MAX, resource_types: Sequence[str] = ()
) -> ConfigurableResource:
    """``FairSchedulerConfiguration.parseResourceConfigValue(value, missing)``; ``resource_types`` are the types of
    ``yarn.resource-types`` beyond memory-mb and vcores. Raises AllocationConfigurationException with Hadoop's
    message (no file: the caller adds where the value came from)."""
    types = tuple(resource_types)
    if not java_trim(value):
        raise AllocationConfigurationException("Error reading resource config--the resource string is empty.")
    if "=" in value:
        return _parse_new_style_resource(value, missing, types)
    if "%" in value:
        # parseOldStyleResourceAsPercentage
        return ConfigurableResource(None, _get_resource_percentage(value.lower(), 2 + len(types)), types)
    return _parse_old_style_resource(value, types)


def _config_exception(value: str, message: str) -> AllocationConfigurationException:
    return AllocationConfigurationException(_INVALID_RESOURCE_DEFINITION_PREFIX + value + ". " + message)


def _parse_new_style_resource(value: str, missing: int, types: tuple[str, ...]) -> ConfigurableResource:
    """``parseNewStyleResource``: ``name=value`` parts; all percentages (starting from 100 %) when ``%`` is anywhere,
    else all absolute (starting from ``missing``)."""
    names = (MEMORY_MB, VCORES, *types)
    as_percent = "%" in value
    percentages = [1.0] * len(names)
    amounts = [missing] * len(names)
    for part in java_split(value, ","):
        pair = java_split(part, "=")
        if len(pair) != 2:
            raise _config_exception(value, "Every resource must be of the form: name=value.")
        name, text = java_trim(pair[0]), java_trim(pair[1])
        if as_percent:
            try:
                percentage = _find_percentage_internal(name, text, False)
            except AllocationConfigurationException:
                raise _config_exception(
                    value,
                    f'The resource values must all be percentages. "{text}" is either not a non-negative number or '
                    "does not include the '%' symbol.",
                ) from None
            percentages[_index(value, name, names)] = percentage
        else:
            number = java_integer(text, 10, LONG_BITS)  # Long.parseLong
            if number is None:
                raise _config_exception(value, f'The resource values must all be integers. "{text}" is not an integer.')
            if number < 0:
                raise AllocationConfigurationException(
                    f"Invalid value of {name}: {number}, value should not be negative!"
                )
            amounts[_index(value, name, names)] = number
    if as_percent:
        return ConfigurableResource(None, tuple(percentages), types)
    return ConfigurableResource(_resource(amounts[0], amounts[1], list(zip(types, amounts[2:]))), None, types)


def _index(value: str, name: str, names: tuple[str, ...]) -> int:
    """The position of resource type ``name`` (ConfigurableResource.setPercentage / Resource.setResourceValue throw
    ResourceNotFoundException for an unknown one)."""
    if name not in names:
        raise _config_exception(
            value,
            f'The resource name, "{name}" was not recognized. Please check the value of yarn.resource-types in '
            "the Resource Manager's configuration files.",
        )
    return names.index(name)


def _parse_old_style_resource(text: str, types: tuple[str, ...]) -> ConfigurableResource:
    """``parseOldStyleResource``: two parts, split on a comma or found by RESOURCES_WITH_SPACES_PATTERN."""
    lower = text.lower()
    resources = java_split(lower, ",")
    if len(resources) != 2:
        resources = _RESOURCES_WITH_SPACES.findall(lower)
        if len(resources) != 2:
            raise AllocationConfigurationException(f"Cannot parse resource values from input: {text}")
    memory = _find_resource(resources, "mb")
    if memory < 0:
        raise AllocationConfigurationException(f"Invalid value of memory: {memory}, value should not be negative!")
    vcores = _find_resource(resources, "vcores")
    if vcores < 0:
        raise AllocationConfigurationException(f"Invalid value of vcores: {vcores}, value should not be negative!")
    return ConfigurableResource(_resource(memory, vcores, [(name, 0) for name in types]), None, types)


def _find_resource_from_values(values: Sequence[str], resource: str) -> str:
    for candidate in values:
        if resource in candidate:
            return java_trim(candidate)
    raise AllocationConfigurationException(f"Missing resource: {resource}")


def _find_resource(values: Sequence[str], resource: str) -> int:
    """``findResource``: the integer part of the first part naming ``resource`` (``Integer.parseInt``)."""
    text = _find_resource_from_values(values, resource)
    match = re.match(_RESOURCE_VALUE_PATTERN + resource, text, re.ASCII)
    if match is None:
        shown = "memory" if resource == "mb" else resource
        raise AllocationConfigurationException(f"Invalid value of {shown}: {text}")
    number = java_integer(match.group(1), 10, INT_BITS)
    if number is None:
        # A NumberFormatException, which parseResourceConfigValue wraps (a RuntimeException).
        raise AllocationConfigurationException(
            f'Error reading resource config (NumberFormatException: For input string: "{match.group(1)}")'
        )
    return number


def _get_resource_percentage(value: str, count: int) -> tuple[float, ...]:
    """``getResourcePercentage``: ``"X%"`` for every type, or ``"X% memory, Y% cpu"`` (other types 0 %)."""
    values = java_split(value, ",")
    if len(values) == 1:
        return (_find_percentage_internal("", _find_resource_from_values(values, ""), True),) * count
    memory = _find_percentage_internal("memory", _find_resource_from_values(values, "memory"), True)
    cpu = _find_percentage_internal("cpu", _find_resource_from_values(values, "cpu"), True)
    return (memory, cpu) + (0.0,) * (count - 2)


def _find_percentage_internal(resource: str, text: str, include_resource: bool) -> float:
    pattern = _RESOURCE_PERCENTAGE_PATTERN + (re.escape(resource) if include_resource else "")
    match = re.fullmatch(pattern, text, re.ASCII)  # Matcher.matches()
    if match is None:
        if resource == "":
            raise AllocationConfigurationException(f"Invalid percentage: {text}")
        raise AllocationConfigurationException(f"Invalid percentage of {resource}: {text}")
    percentage = float(match.group(1)) / 100.0
    if percentage < 0:
        raise AllocationConfigurationException(f"Invalid percentage: {text}, percentage should not be negative!")
    return percentage
