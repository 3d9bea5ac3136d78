"""The small shapes every REST section shares: ``ResourceInfo`` objects, ``<memory:.., vCores:..>`` text, rounding."""

from __future__ import annotations

from typing import Any

__all__ = ["r", "resource_info", "resource_text"]


def r(value: float) -> float:
    """Floats rounded so that the same run prints the same digits everywhere."""
    return round(float(value), 6)


def resource_info(memory: int, vcores: int) -> dict[str, Any]:
    """``ResourceInfo``: memory (MB) and vCores, with the 3.x ``resourceInformations`` list."""
    return {
        "memory": int(memory),
        "vCores": int(vcores),
        "resourceInformations": {
            "resourceInformation": [
                _resource_information("memory-mb", "Mi", memory),
                _resource_information("vcores", "", vcores),
            ]
        },
    }


def _resource_information(name: str, units: str, value: int) -> dict[str, Any]:
    return {
        "attributes": {},
        "maximumAllocation": 9223372036854775807,
        "minimumAllocation": 0,
        "name": name,
        "resourceType": "COUNTABLE",
        "units": units,
        "value": int(value),
    }


def resource_text(memory: int, vcores: int) -> str:
    return f"<memory:{int(memory)}, vCores:{int(vcores)}>"
