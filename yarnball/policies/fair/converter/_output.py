"""The converter's output: a ``Configuration(false)`` being filled, with the setters of Hadoop's
``CapacitySchedulerConfiguration`` that fs2cs calls, and ``Configuration.writeXml``.

Keys keep the order in which the conversion sets them (Hadoop writes its Hashtable's order), so one input gives
byte-identical files. Only the converted keys are written: Hadoop's ``new CapacitySchedulerConfiguration(...)`` also
loads whatever ``capacity-scheduler.xml`` is on the converter's classpath and writes its keys back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final
from xml.sax.saxutils import escape

from yarnball.policies.capacity._acl import QueueACL
from yarnball.policies.capacity._validation import java_float_str
from yarnball.protocols import keys as k

__all__ = ["ConvertedConfiguration", "queue_prefix"]

#: CapacitySchedulerConfiguration.MAPPING_RULE_FORMAT / MAPPING_RULE_JSON and the JSON format's name.
MAPPING_RULE_FORMAT: Final = k.CS_PREFIX + "mapping-rule-format"
MAPPING_RULE_JSON: Final = k.CS_PREFIX + "mapping-rule-json"
MAPPING_RULE_FORMAT_JSON: Final = "json"
WEIGHT_SUFFIX: Final = "w"


def queue_prefix(queue: str) -> str:
    """``getQueuePrefix``: ``yarn.scheduler.capacity.<queue path>.``."""
    return f"{k.CS_PREFIX}{queue}."


def _bool(value: bool) -> str:
    return "true" if value else "false"


class ConvertedConfiguration:
    """An ordered key -> value map with the setters fs2cs uses (each writes the text Hadoop's setter writes)."""

    __slots__ = ("_props",)

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    # -- Configuration -------------------------------------------------------------------------------------------
    def set(self, key: str, value: str) -> None:
        self._props[key] = value

    def set_boolean(self, key: str, value: bool) -> None:
        self._props[key] = _bool(value)

    def set_int(self, key: str, value: int) -> None:
        self._props[key] = str(value)

    def set_float(self, key: str, value: float) -> None:
        self._props[key] = java_float_str(value)

    def get(self, key: str, default: str | None = None) -> str | None:
        return self._props.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._props

    def __iter__(self) -> Iterator[str]:
        return iter(self._props)

    def __len__(self) -> int:
        return len(self._props)

    def items(self) -> list[tuple[str, str]]:
        return list(self._props.items())

    def write_xml(self) -> str:
        """``Configuration.writeXml``: a ``<configuration>`` of ``<property>`` elements, one a line."""
        lines = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?><configuration>']
        for key, value in self._props.items():
            lines.append(
                f"<property><name>{escape(key)}</name><value>{escape(value)}</value><final>false</final>"
                "<source>programmatically</source></property>"
            )
        lines.append("</configuration>")
        return "\n".join(lines) + "\n"

    # -- CapacitySchedulerConfiguration ------------------------------------------------------------------------
    def set_queues(self, queue: str, children: Sequence[str]) -> None:
        self.set(queue_prefix(queue) + "queues", ",".join(children))

    def get_queues(self, queue: str) -> list[str]:
        value = self.get(queue_prefix(queue) + "queues")
        return [] if not value else [q.strip() for q in value.split(",") if q.strip()]

    def set_capacity(self, queue: str, value: str) -> None:
        self.set(queue_prefix(queue) + "capacity", value)

    def set_non_labeled_queue_weight(self, queue: str, weight: float) -> None:
        self.set(queue_prefix(queue) + "capacity", java_float_str(weight) + WEIGHT_SUFFIX)

    def set_maximum_capacity(self, queue: str, value: float) -> None:
        self.set_float(queue_prefix(queue) + "maximum-capacity", value)

    def set_auto_queue_creation_v2_enabled(self, queue: str, value: bool) -> None:
        self.set_boolean(queue_prefix(queue) + k.AUTO_QUEUE_CREATION_V2_PREFIX + "enabled", value)

    def is_auto_queue_creation_v2_enabled(self, queue: str) -> bool:
        return self.get(queue_prefix(queue) + k.AUTO_QUEUE_CREATION_V2_PREFIX + "enabled") == "true"

    def set_allow_zero_capacity_sum(self, queue: str, value: bool) -> None:
        self.set_boolean(queue_prefix(queue) + k.ALLOW_ZERO_CAPACITY_SUM, value)

    def set_maximum_am_resource_percent_per_queue(self, queue: str, value: float) -> None:
        self.set_float(queue_prefix(queue) + k.MAXIMUM_AM_RESOURCE_SUFFIX, value)

    def set_max_parallel_apps_for_queue(self, queue: str, value: str) -> None:
        self.set(queue_prefix(queue) + k.MAX_PARALLEL_APPLICATIONS, value)

    def set_queue_maximum_allocation(self, queue: str, memory_mb: int, vcores: int) -> None:
        """``setQueueMaximumAllocationMb`` then ``setQueueMaximumAllocationVcores``."""
        self.set_int(queue_prefix(queue) + "maximum-allocation-mb", memory_mb)
        self.set_int(queue_prefix(queue) + "maximum-allocation-vcores", vcores)

    def set_preemption_disabled(self, queue: str, value: bool) -> None:
        self.set_boolean(queue_prefix(queue) + k.QUEUE_PREEMPTION_DISABLED, value)

    def set_user_limit_factor(self, queue: str, value: float) -> None:
        self.set_float(queue_prefix(queue) + k.USER_LIMIT_FACTOR, value)

    def set_ordering_policy(self, queue: str, policy: str) -> None:
        self.set(queue_prefix(queue) + k.ORDERING_POLICY, policy)

    def set_acl(self, queue: str, acl: QueueACL, acl_string: str) -> None:
        self.set(queue_prefix(queue) + acl.key_suffix, acl_string)

    def set_default_max_parallel_apps(self, value: int) -> None:
        self.set_int(k.CS_PREFIX + k.MAX_PARALLEL_APPLICATIONS, value)

    def set_default_max_parallel_apps_per_user(self, value: int) -> None:
        self.set_int(k.CS_PREFIX + "user." + k.MAX_PARALLEL_APPLICATIONS, value)

    def set_max_parallel_apps_for_user(self, user: str, value: int) -> None:
        self.set_int(f"{k.CS_PREFIX}user.{user}.{k.MAX_PARALLEL_APPLICATIONS}", value)

    def set_maximum_application_master_resource_percent(self, value: float) -> None:
        self.set_float(k.CS_PREFIX + k.MAXIMUM_AM_RESOURCE_SUFFIX, value)

    def set_preemption_observe_only(self, value: bool) -> None:
        self.set_boolean(k.PREEMPTION_OBSERVE_ONLY, value)

    def set_mapping_rule_format(self, value: str) -> None:
        self.set(MAPPING_RULE_FORMAT, value)

    def set_override_with_queue_mappings(self, value: bool) -> None:
        self.set_boolean(k.ENABLE_QUEUE_MAPPING_OVERRIDE, value)

    def set_mapping_rule_json(self, value: str) -> None:
        self.set(MAPPING_RULE_JSON, value)
