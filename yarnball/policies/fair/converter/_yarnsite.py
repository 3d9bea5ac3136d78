"""``FSYarnSiteConverter``: the yarn-site.xml keys a CapacityScheduler needs in place of the FairScheduler's
(fair.md §8.2): the scheduler class, the scheduling monitors (preemption, queue auto-deletion in weight mode, the
configuration auto-refresh), assignment per heartbeat, locality delays, asynchronous scheduling and the DRF calculator.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from yarnball.policies.capacity._validation import f32
from yarnball.policies.fair.converter._output import ConvertedConfiguration
from yarnball.protocols import Configuration
from yarnball.protocols import keys as k

__all__ = ["FSYarnSiteConverter", "PreemptionMode"]

PROPORTIONAL_CAPACITY_PREEMPTION_POLICY: Final = k.DEFAULT_RM_SCHEDULER_MONITOR_POLICIES
QUEUE_CONFIGURATION_AUTO_REFRESH_POLICY: Final = (
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueConfigurationAutoRefreshPolicy"
)
_SCHEDULING_INTERVAL_MS: Final = k.CS_PREFIX + "schedule-asynchronously.scheduling-interval-ms"


class PreemptionMode(enum.Enum):
    """``FSConfigToCSConfigConverterParams.PreemptionMode`` (``-dp``)."""

    ENABLED = "enabled"
    NO_POLICY = "nopolicy"
    OBSERVE_ONLY = "observeonly"

    @classmethod
    def from_string(cls, value: str | None) -> PreemptionMode:
        """``fromString``: ``nopolicy`` or ``observeonly`` (any case, trimmed), anything else ENABLED."""
        text = (value or "").strip().lower()
        for mode in (cls.NO_POLICY, cls.OBSERVE_ONLY):
            if text == mode.value:
                return mode
        return cls.ENABLED


@dataclass(slots=True)
class FSYarnSiteConverter:
    """``convertSiteProperties``; afterwards ``preemption_enabled`` and ``size_based_weight`` tell the queue
    converter what the FairScheduler had."""

    preemption_enabled: bool = False
    size_based_weight: bool = False

    def convert_site_properties(
        self,
        conf: Configuration,
        yarn_site: ConvertedConfiguration,
        drf_used: bool,
        enable_async_scheduler: bool,
        use_percentage: bool,
        preemption_mode: PreemptionMode = PreemptionMode.ENABLED,
    ) -> None:
        yarn_site.set(k.RM_SCHEDULER, k.DEFAULT_RM_SCHEDULER)
        if conf.get_bool(k.CONTINUOUS_SCHEDULING_ENABLED, k.DEFAULT_CONTINUOUS_SCHEDULING_ENABLED):
            yarn_site.set_boolean(k.SCHEDULE_ASYNCHRONOUSLY_ENABLE, True)
            interval = conf.get_int(k.CONTINUOUS_SCHEDULING_SLEEP_MS, k.DEFAULT_CONTINUOUS_SCHEDULING_SLEEP_MS)
            yarn_site.set_int(_SCHEDULING_INTERVAL_MS, interval)
        # always on, so that the CapacityScheduler's queue configuration auto-refresh runs
        yarn_site.set_boolean(k.RM_SCHEDULER_ENABLE_MONITORS, True)
        if conf.get_bool(k.PREEMPTION, k.DEFAULT_PREEMPTION):
            self.preemption_enabled = True
            _add_monitor_policy(yarn_site, PROPORTIONAL_CAPACITY_PREEMPTION_POLICY)
            yarn_site.set_int(
                k.PREEMPTION_WAIT_TIME_BEFORE_KILL,
                conf.get_int(k.WAIT_TIME_BEFORE_KILL, k.DEFAULT_WAIT_TIME_BEFORE_KILL),
            )
            yarn_site.set_int(
                k.PREEMPTION_MONITORING_INTERVAL,
                conf.get_long(
                    k.WAIT_TIME_BEFORE_NEXT_STARVATION_CHECK_MS, k.DEFAULT_WAIT_TIME_BEFORE_NEXT_STARVATION_CHECK_MS
                ),
            )
        elif preemption_mode is PreemptionMode.NO_POLICY:
            yarn_site.set(k.RM_SCHEDULER_MONITOR_POLICIES, "")
        if not use_percentage:  # auto-created queues are deleted when idle, after 10 s as the FairScheduler does
            _add_monitor_policy(yarn_site, k.AUTO_CREATED_QUEUE_DELETION_POLICY)
            yarn_site.set_int(k.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME, 10)
        yarn_site.set_boolean(k.ASSIGN_MULTIPLE_ENABLED, conf.get_bool(k.ASSIGN_MULTIPLE, k.DEFAULT_ASSIGN_MULTIPLE))
        _add_monitor_policy(yarn_site, QUEUE_CONFIGURATION_AUTO_REFRESH_POLICY)
        max_assign = conf.get_int(k.MAX_ASSIGN, k.DEFAULT_MAX_ASSIGN)
        if max_assign != k.DEFAULT_MAX_ASSIGN:
            yarn_site.set_int(k.MAX_ASSIGN_PER_HEARTBEAT, max_assign)
        # the FairScheduler's thresholds (fractions of the cluster) are copied as they are: Hadoop's quirk
        node = f32(conf.get_float(k.LOCALITY_THRESHOLD_NODE, k.DEFAULT_LOCALITY_THRESHOLD_NODE))
        if node != f32(k.DEFAULT_LOCALITY_THRESHOLD_NODE):
            yarn_site.set_float(k.NODE_LOCALITY_DELAY, node)
        rack = f32(conf.get_float(k.LOCALITY_THRESHOLD_RACK, k.DEFAULT_LOCALITY_THRESHOLD_RACK))
        if rack != f32(k.DEFAULT_LOCALITY_THRESHOLD_RACK):
            yarn_site.set_float(k.RACK_LOCALITY_ADDITIONAL_DELAY, rack)
        if conf.get_bool(k.SIZE_BASED_WEIGHT, k.DEFAULT_SIZE_BASED_WEIGHT):
            self.size_based_weight = True
        if drf_used:
            yarn_site.set(k.RESOURCE_CALCULATOR_CLASS, k.DOMINANT_RESOURCE_CALCULATOR_CLASS)
        if enable_async_scheduler:
            yarn_site.set_boolean(k.SCHEDULE_ASYNCHRONOUSLY_ENABLE, True)


def _add_monitor_policy(yarn_site: ConvertedConfiguration, policy: str) -> None:
    """``addMonitorPolicy``: append ``policy`` to the monitor policies (comma-separated)."""
    policies = yarn_site.get(k.RM_SCHEDULER_MONITOR_POLICIES)
    yarn_site.set(k.RM_SCHEDULER_MONITOR_POLICIES, policy if not policies else f"{policies},{policy}")
