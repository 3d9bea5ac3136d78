"""The domain of each numeric ``yarn-site.xml`` / ``sls-runner.xml`` key yarnball reads.

:class:`~yarnball.protocols.Configuration`'s typed getters (``get_int``, ``get_long``, ``get_float``,
``get_time_duration``) check a value against its key's domain when it is read, so a bad value is reported with
the file, line and key wherever yarnball reads it. Where Hadoop rejects the value itself, the message is
Hadoop's (and the method that raises it is cited); the other domains are yarnball's own, for values Hadoop
would take but that make a simulation hang or crash (a timer period <= 0, a NaN fraction): they are marked
"yarnball" in the message.

Per-queue ``yarn.scheduler.capacity.<path>.*`` keys are checked by CapacitySchedulerConfiguration, which knows
the queue paths.
"""

from __future__ import annotations

import math
from typing import Final, NamedTuple

from yarnball.protocols import keys as k

__all__ = ["DOMAINS", "Domain", "domain_error"]


class Domain(NamedTuple):
    """``low`` < value (or ``low`` <= value when ``inclusive``) and always finite; ``hadoop`` is Hadoop's own
    message for a value out of range (``{key}`` and ``{value}`` are filled in), ``expected`` what was expected."""

    low: float | None
    inclusive: bool
    expected: str
    hadoop: str | None = None

    def contains(self, number: float) -> bool:
        if math.isnan(number) or math.isinf(number):
            return False
        if self.low is None:
            return True
        return number >= self.low if self.inclusive else number > self.low


def _positive(expected: str, hadoop: str | None = None) -> Domain:
    return Domain(0, False, expected, hadoop)


def _non_negative(expected: str) -> Domain:
    return Domain(0, True, expected)


_FINITE: Final = Domain(None, True, "a finite number (yarnball: NaN and Infinity are not accepted)")
_PERIOD: Final = _positive("a positive number of ms (yarnball: a period <= 0 never lets virtual time advance)")
_EXPIRY: Final = _positive("a positive number of ms (yarnball: the liveness monitor expires after this long)")
_FRACTION: Final = _non_negative("a finite fraction >= 0 (yarnball), e.g. 0.1 for 10 %")
_SIZE: Final = _non_negative("an integer >= 0 (yarnball: a negative resource is meaningless)")

DOMAINS: Final[dict[str, Domain]] = {
    # ResourceTrackerService.serviceInit
    k.RM_NM_HEARTBEAT_INTERVAL_MS: _positive(
        "a positive number of ms", "Invalid Configuration. {key} should be larger than 0."
    ),
    # ResourceManager.validateConfigs also requires expiry >= heartbeat (checked by the ResourceManager actor).
    k.RM_NM_EXPIRY_INTERVAL_MS: _EXPIRY,
    k.RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS: _EXPIRY,
    k.RM_AM_EXPIRY_INTERVAL_MS: _EXPIRY,
    # ResourceManager.validateConfigs (Hadoop 2.x-3.2 wording)
    k.RM_AM_MAX_ATTEMPTS: _positive(
        "a positive integer",
        "Invalid global max attempts configuration, {key}={value}, it should be a positive integer.",
    ),
    # SchedulingMonitor.serviceStart: ScheduledExecutorService.scheduleAtFixedRate throws
    # IllegalArgumentException for a period <= 0, so Hadoop's RM does not start either.
    k.PREEMPTION_MONITORING_INTERVAL: _positive("a positive number of ms (scheduleAtFixedRate rejects a period <= 0)"),
    k.TOTAL_PREEMPTION_PER_ROUND: _FRACTION,
    k.PREEMPTION_MAX_IGNORED_OVER_CAPACITY: _FRACTION,
    k.PREEMPTION_NATURAL_TERMINATION_FACTOR: _FRACTION,
    k.INTRAQUEUE_PREEMPTION_MAX_ALLOWABLE_LIMIT: _FRACTION,
    k.INTRAQUEUE_PREEMPTION_MINIMUM_THRESHOLD: _FRACTION,
    # OpportunisticContainerAllocatorAMService / NodeQueueLoadMonitor
    k.OPP_CONTAINER_ALLOCATION_NODES_NUMBER_USED: _positive("a positive number of nodes"),
    k.NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS: _PERIOD,
    k.NM_CONTAINER_QUEUING_LIMIT_STDEV: _non_negative("a finite number of standard deviations >= 0"),
    k.NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH: _non_negative("a queue length >= 0"),
    k.NM_CONTAINER_QUEUING_MIN_QUEUE_WAIT_TIME_MS: _non_negative("a wait time >= 0 ms"),
    # ContainersMonitorImpl.serviceInit: Preconditions.checkArgument(vmemRatio > 0.99f, ...)
    k.NM_VMEM_PMEM_RATIO: Domain(0.99, False, "a ratio >= 1.0", "{key} should be at least 1.0"),
    k.CONTINUOUS_SCHEDULING_SLEEP_MS: _PERIOD,
    k.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD: _FINITE,
    # FairSchedulerConfiguration's float keys: Hadoop takes any float; a NaN passes every comparison made with it.
    k.PREEMPTION_THRESHOLD: _FINITE,
    k.LOCALITY_THRESHOLD_NODE: _FINITE,
    k.LOCALITY_THRESHOLD_RACK: _FINITE,
    k.RESERVABLE_NODES: _FINITE,
    k.RM_SCHEDULER_RESERVATION_THRESHOLD_INCREMENT_MULTIPLE: _FINITE,
    k.MR_NUM_OPPORTUNISTIC_MAPS_PERCENT: _non_negative("a percentage >= 0"),
    # RMAppManager's constructor takes any int, but checkAppNumCompletedLimit then throws at the first finished
    # application (completedApps.get/remove past the list's end) and the RM's dispatcher exits.
    k.RM_MAX_COMPLETED_APPLICATIONS: _non_negative("an integer >= 0 (a negative limit stops Hadoop's RM)"),
    k.RM_STATE_STORE_MAX_COMPLETED_APPLICATIONS: _non_negative("an integer >= 0 (a negative limit stops Hadoop's RM)"),
    # sls-runner.xml (SLSConfiguration): heartbeats are timer periods, resources sizes.
    k.SLS_NM_HEARTBEAT_INTERVAL_MS: _PERIOD,
    k.SLS_AM_HEARTBEAT_INTERVAL_MS: _PERIOD,
    k.SLS_METRICS_RECORD_INTERVAL_MS: _PERIOD,
    k.SLS_NM_MEMORY_MB: _SIZE,
    k.SLS_NM_VCORES: _SIZE,
    k.SLS_AM_CONTAINER_MEMORY: _SIZE,
    k.SLS_AM_CONTAINER_VCORES: _SIZE,
    k.SLS_CONTAINER_MEMORY_MB: _SIZE,
    k.SLS_CONTAINER_VCORES: _SIZE,
    k.SLS_RUNNER_POOL_SIZE: _positive("a positive number of threads"),
    k.SLS_NM_RESOURCE_UTILIZATION_RATIO: _FINITE,
    # (at most 1: checked when the sharded cluster is built, launcher/_shard.py)
    k.RAY_RM_HOST_SHARE: _non_negative("a share of the NMs and AMs between 0 and 1 (yarnball)"),
}

#: The numeric sls-runner.xml keys, read (and so checked) once when the file is loaded.
SLS_INT_KEYS: Final = (
    k.SLS_NM_HEARTBEAT_INTERVAL_MS,
    k.SLS_AM_HEARTBEAT_INTERVAL_MS,
    k.SLS_METRICS_RECORD_INTERVAL_MS,
    k.SLS_NM_MEMORY_MB,
    k.SLS_NM_VCORES,
    k.SLS_AM_CONTAINER_MEMORY,
    k.SLS_AM_CONTAINER_VCORES,
    k.SLS_CONTAINER_MEMORY_MB,
    k.SLS_CONTAINER_VCORES,
    k.SLS_RUNNER_POOL_SIZE,
)
SLS_FLOAT_KEYS: Final = (k.SLS_NM_RESOURCE_UTILIZATION_RATIO,)


def domain_error(key: str, value: str, number: float) -> str | None:
    """Why ``number`` (read from ``value``) is outside ``key``'s domain, or None when it is inside (or the key
    has no domain)."""
    domain = DOMAINS.get(key)
    if domain is None or domain.contains(number):
        return None
    if domain.hadoop is not None and not (math.isnan(number) or math.isinf(number)):
        return f"{domain.hadoop.format(key=key, value=value)} (expected {domain.expected})"
    return f"expected {domain.expected}"
