"""Hadoop's ``FairSchedulerConfiguration``: typed getters over the ``yarn.scheduler.fair.*`` yarn-site keys.

Each getter reads its key with Hadoop's getter (``getInt``, ``getLong``, ``getFloat``, ``getBoolean``) and Hadoop's
default (the constants of :mod:`yarnball.protocols.keys`, fair.md §1.1); floats are Java floats. :meth:`validate_conf`
is ``FairScheduler.validateConf`` with Hadoop's messages, prefixed by the file and line of the key at fault.
"""

from __future__ import annotations

import re
from typing import Final

from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError
from yarnball.policies.capacity._absolute import convert_units
from yarnball.policies.capacity._validation import f32
from yarnball.policies.fair._configurableresource import (
    MEMORY_MB,
    VCORES,
    ConfigurableResource,
    parse_resource_config_value,
)
from yarnball.protocols import Configuration, Resource
from yarnball.protocols import keys as k
from yarnball.protocols._configuration import DEFAULT_SOURCE
from yarnball.protocols._javanumbers import LONG_BITS, java_integer

__all__ = ["FairSchedulerConfiguration"]

log = get_logger(__name__)

# ResourceUtils.RESOURCE_REQUEST_VALUE_PATTERN: "value [unit]"
_VALUE_WITH_UNIT: Final = re.compile(r"([0-9]+) ?([a-zA-Z]*)", re.ASCII)
# ResourceUtils.getDefaultUnit: memory-mb is in Mi, vcores and the other types (as yarnball declares them) have none.
_DEFAULT_UNITS: Final = {MEMORY_MB: "Mi"}


class FairSchedulerConfiguration:
    """Typed view of the FairScheduler's yarn-site keys of a :class:`Configuration`."""

    __slots__ = ("conf",)

    def __init__(self, conf: Configuration) -> None:
        self.conf = conf

    def _set(self, key: str) -> bool:
        """``get(key) != null`` in Hadoop: set in a file or a mapping (yarnball's built-in defaults do not count, as
        these keys are not in Hadoop's yarn-default.xml)."""
        return self.conf.get(key) is not None and self.conf.source_of(key) != DEFAULT_SOURCE

    def _float(self, key: str, default: float) -> float:
        return f32(self.conf.get_float(key, default))  # Configuration.getFloat: a Java float

    # -- allocation sizes --------------------------------------------------------------------------------------
    def get_minimum_allocation(self) -> Resource:
        """``getMinimumAllocation``: yarn.scheduler.minimum-allocation-mb / -vcores."""
        return Resource(
            self.conf.get_int(k.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, k.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB),
            self.conf.get_int(
                k.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES, k.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES
            ),
        )

    def get_maximum_allocation(self) -> Resource:
        """``getMaximumAllocation``: yarn.scheduler.maximum-allocation-mb / -vcores."""
        return Resource(
            self.conf.get_int(k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB),
            self.conf.get_int(
                k.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES
            ),
        )

    def get_resource_types(self) -> tuple[str, ...]:
        """The types of ``yarn.resource-types`` beyond memory-mb and vcores (ResourceUtils' countable types)."""
        return tuple(t for t in self.conf.get_strings(k.RESOURCE_TYPES) if t not in (MEMORY_MB, VCORES))

    def _increment_of(self, name: str) -> int | None:
        """``yarn.resource-types.<name>.increment-allocation`` in the type's default unit, or None when unset."""
        key = f"{k.RESOURCE_TYPES}.{name}{k.INCREMENT_ALLOCATION}"
        value = self.conf.get(key)
        if value is None:
            return None
        match = _VALUE_WITH_UNIT.fullmatch(value)
        number = None if match is None else java_integer(match.group(1), 10, LONG_BITS)
        if match is None or number is None:
            raise ConfigurationError(
                f'{self.conf.location_of(key)}: Property {key} is not in "value [unit]" format: {value}'
            )
        unit = match.group(2)
        return number if not unit else convert_units(key, unit, number, _DEFAULT_UNITS.get(name, ""))

    def get_increment_allocation(self) -> Resource:
        """``getIncrementAllocation``: ``yarn.resource-types.<type>.increment-allocation`` ("value [unit]") for every
        type; for memory and vcores the deprecated increment-allocation-mb / -vcores keys otherwise (a warning when
        both are set)."""
        increments = {name: self._increment_of(name) for name in (MEMORY_MB, VCORES, *self.get_resource_types())}
        legacy = {
            MEMORY_MB: (k.RM_SCHEDULER_INCREMENT_ALLOCATION_MB, k.DEFAULT_RM_SCHEDULER_INCREMENT_ALLOCATION_MB),
            VCORES: (k.RM_SCHEDULER_INCREMENT_ALLOCATION_VCORES, k.DEFAULT_RM_SCHEDULER_INCREMENT_ALLOCATION_VCORES),
        }
        values: dict[str, int] = {}
        for name, (old_key, old_default) in legacy.items():
            value = increments.pop(name)
            if value is None:
                values[name] = self.conf.get_long(old_key, old_default)
                continue
            if self._set(old_key):
                new_key = f"{k.RESOURCE_TYPES}.{name}{k.INCREMENT_ALLOCATION}"
                log.warning(
                    f"Configuration {new_key}={self.conf.get(new_key)} is overriding the "
                    f"{old_key}={self.conf.get(old_key)} property"
                )
            values[name] = value
        # Resource.newInstance(long, int, Map): vcores is an int (a long increment is narrowed as Java narrows it)
        vcores = (values[VCORES] + 2**31) % 2**32 - 2**31
        others = tuple((name, value) for name, value in increments.items() if value is not None)
        return Resource(values[MEMORY_MB], vcores, others)

    def get_reservation_threshold_increment_multiple(self) -> float:
        return self._float(
            k.RM_SCHEDULER_RESERVATION_THRESHOLD_INCREMENT_MULTIPLE,
            k.DEFAULT_RM_SCHEDULER_RESERVATION_THRESHOLD_INCREMENT_MULTIPLE,
        )

    def get_reservation_threshold(self) -> Resource:
        """``FairScheduler.updateReservationThreshold``: ``Resources.multiply(increment, multiple)`` (each component
        truncated as Java's ``(long)``): <2048 MB, 2 vcores> by default."""
        return self.get_increment_allocation() * self.get_reservation_threshold_increment_multiple()

    # -- scheduling --------------------------------------------------------------------------------------------
    def get_locality_threshold_node(self) -> float:
        return self._float(k.LOCALITY_THRESHOLD_NODE, k.DEFAULT_LOCALITY_THRESHOLD_NODE)

    def get_locality_threshold_rack(self) -> float:
        return self._float(k.LOCALITY_THRESHOLD_RACK, k.DEFAULT_LOCALITY_THRESHOLD_RACK)

    def is_continuous_scheduling_enabled(self) -> bool:
        return self.conf.get_bool(k.CONTINUOUS_SCHEDULING_ENABLED, k.DEFAULT_CONTINUOUS_SCHEDULING_ENABLED)

    def get_continuous_scheduling_sleep_ms(self) -> int:
        return self.conf.get_int(k.CONTINUOUS_SCHEDULING_SLEEP_MS, k.DEFAULT_CONTINUOUS_SCHEDULING_SLEEP_MS)

    def get_locality_delay_node_ms(self) -> int:
        return self.conf.get_long(k.LOCALITY_DELAY_NODE_MS, k.DEFAULT_LOCALITY_DELAY_NODE_MS)

    def get_locality_delay_rack_ms(self) -> int:
        return self.conf.get_long(k.LOCALITY_DELAY_RACK_MS, k.DEFAULT_LOCALITY_DELAY_RACK_MS)

    def get_assign_multiple(self) -> bool:
        return self.conf.get_bool(k.ASSIGN_MULTIPLE, k.DEFAULT_ASSIGN_MULTIPLE)

    def is_max_assign_dynamic(self) -> bool:
        return self.conf.get_bool(k.DYNAMIC_MAX_ASSIGN, k.DEFAULT_DYNAMIC_MAX_ASSIGN)

    def get_max_assign(self) -> int:
        return self.conf.get_int(k.MAX_ASSIGN, k.DEFAULT_MAX_ASSIGN)

    def get_size_based_weight(self) -> bool:
        return self.conf.get_bool(k.SIZE_BASED_WEIGHT, k.DEFAULT_SIZE_BASED_WEIGHT)

    def get_use_port_for_node_name(self) -> bool:
        return self.conf.get_bool(
            k.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, k.DEFAULT_RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME
        )

    def get_reservable_nodes(self) -> float:
        return self._float(k.RESERVABLE_NODES, k.DEFAULT_RESERVABLE_NODES)

    def get_update_interval(self) -> int:
        """``getUpdateInterval``: the raw value (see :meth:`get_effective_update_interval`)."""
        return self.conf.get_long(k.UPDATE_INTERVAL_MS, k.DEFAULT_UPDATE_INTERVAL_MS)

    def get_effective_update_interval(self) -> int:
        """``FairScheduler.initScheduler``: a negative interval is replaced by 500 ms (with Hadoop's warning); 0 is
        kept (the update thread is then not started)."""
        interval = self.get_update_interval()
        if interval < 0:
            log.warning(
                f"{k.UPDATE_INTERVAL_MS} is invalid, so using default value {k.DEFAULT_UPDATE_INTERVAL_MS} ms instead"
            )
            return k.DEFAULT_UPDATE_INTERVAL_MS
        return interval

    # -- preemption --------------------------------------------------------------------------------------------
    def get_preemption_enabled(self) -> bool:
        return self.conf.get_bool(k.PREEMPTION, k.DEFAULT_PREEMPTION)

    def get_am_preemption_enabled(self, queue_name: str) -> bool:
        """``getAMPreemptionEnabled``: ``yarn.scheduler.fair.am.preemption.<queue>`` when set, else the global key."""
        per_queue = k.AM_PREEMPTION_PREFIX + queue_name
        if self.conf.get(per_queue) is not None:
            return self.conf.get_bool(per_queue, k.DEFAULT_AM_PREEMPTION)
        return self.conf.get_bool(k.AM_PREEMPTION, k.DEFAULT_AM_PREEMPTION)

    def get_preemption_utilization_threshold(self) -> float:
        return self._float(k.PREEMPTION_THRESHOLD, k.DEFAULT_PREEMPTION_THRESHOLD)

    def get_wait_time_before_kill(self) -> int:
        return self.conf.get_int(k.WAIT_TIME_BEFORE_KILL, k.DEFAULT_WAIT_TIME_BEFORE_KILL)

    def get_wait_time_before_next_starvation_check(self) -> int:
        return self.conf.get_long(
            k.WAIT_TIME_BEFORE_NEXT_STARVATION_CHECK_MS, k.DEFAULT_WAIT_TIME_BEFORE_NEXT_STARVATION_CHECK_MS
        )

    # -- allocation file and placement -------------------------------------------------------------------------
    def get_allocation_file(self) -> str:
        """``yarn.scheduler.fair.allocation.file`` (default ``fair-scheduler.xml``)."""
        return self.conf.get(k.ALLOCATION_FILE) or k.DEFAULT_ALLOCATION_FILE

    def get_allow_undeclared_pools(self) -> bool:
        return self.conf.get_bool(k.ALLOW_UNDECLARED_POOLS, k.DEFAULT_ALLOW_UNDECLARED_POOLS)

    def get_user_as_default_queue(self) -> bool:
        return self.conf.get_bool(k.USER_AS_DEFAULT_QUEUE, k.DEFAULT_USER_AS_DEFAULT_QUEUE)

    def is_migration_mode(self) -> bool:
        return self.conf.get_bool(k.MIGRATION_MODE, k.DEFAULT_MIGRATION_MODE)

    def is_no_terminal_rule_check(self) -> bool:
        """``FairScheduler.isNoTerminalRuleCheck``: the terminal-rule check is off only in migration mode."""
        return self.is_migration_mode() and self.conf.get_bool(
            k.NO_TERMINAL_RULE_CHECK, k.DEFAULT_NO_TERMINAL_RULE_CHECK
        )

    @staticmethod
    def parse_resource_config_value(value: str, missing: int = 2**63 - 1) -> ConfigurableResource:
        """``parseResourceConfigValue`` with memory and vcores only (see :func:`parse_resource_config_value`)."""
        return parse_resource_config_value(value, missing)

    # -- validation --------------------------------------------------------------------------------------------
    def validate_conf(self) -> None:
        """``FairScheduler.validateConf``: min <= max allocation (a minimum of 0 is allowed) and positive
        increments; Hadoop's YarnRuntimeException messages (missing spaces included) as ConfigurationError."""
        for kind, low_key, high_key, increment_key in (
            ("memory", k.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB,
             k.RM_SCHEDULER_INCREMENT_ALLOCATION_MB),
            ("vcores", k.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES, k.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES,
             k.RM_SCHEDULER_INCREMENT_ALLOCATION_VCORES),
        ):  # fmt: skip
            low, high = self.conf.get_int(low_key, 0), self.conf.get_int(high_key, 0)
            if low < 0 or low > high:
                raise ConfigurationError(
                    f"{self.conf.location_of(low_key)}: Invalid resource scheduler {kind} allocation configuration: "
                    f"{low_key}={low}, {high_key}={high}.  Both values must be greater than or equal to 0and the "
                    "maximum allocation value must be greater than or equal tothe minimum allocation value."
                )
            increment = self.get_increment_allocation()
            value = increment.memory_mb if kind == "memory" else increment.vcores
            if value <= 0:
                raise ConfigurationError(
                    f"{self.conf.location_of(increment_key)}: Invalid resource scheduler {kind} allocation "
                    f"configuration: {increment_key}={value}. Values must be greater than 0."
                )
