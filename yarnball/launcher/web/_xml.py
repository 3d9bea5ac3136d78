"""The XML form of a REST answer, as JAXB writes the same beans (``Accept: application/xml``).

The JSON answers already follow JAXB's "natural" mapping (rest.md §1), so the XML is that structure written back:
the one top-level key is the root element, a dict is an element with child elements, a list repeats its key's
element once per item (``{"apps": {"app": [a, b]}}`` -> ``<apps><app>..</app><app>..</app></apps>``), booleans print
``true``/``false``. The scheduler's ``type`` discriminator becomes an ``xsi:type`` attribute, as JAXB writes
``CapacitySchedulerInfo`` and ``CapacitySchedulerLeafQueueInfo``.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

__all__ = ["to_xml"]

_XSI_TYPES = frozenset({"capacityScheduler", "capacitySchedulerLeafQueueInfo"})
_XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'


def to_xml(body: dict[str, Any]) -> str:
    """``{"root": {...}}`` as an XML document."""
    if len(body) != 1:
        raise ValueError(f"a REST body has one root element, got {sorted(body)}")
    ((root, value),) = body.items()
    parts: list[str] = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>']
    _element(parts, root, value)
    return "".join(parts)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return escape(str(value))


def _element(parts: list[str], name: str, value: Any) -> None:
    if value is None:
        return
    if isinstance(value, list):
        for item in value:
            _element(parts, name, item)
        return
    if not isinstance(value, dict):
        parts.append(f"<{name}>{_text(value)}</{name}>")
        return
    attrs = ""
    kind = value.get("type")
    if isinstance(kind, str) and kind in _XSI_TYPES:
        attrs = f" {_XSI} xsi:type={quoteattr(kind)}"
    parts.append(f"<{name}{attrs}>")
    for key, child in value.items():
        if attrs and key == "type":
            continue
        _element(parts, key, child)
    parts.append(f"</{name}>")
