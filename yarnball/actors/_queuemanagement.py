"""The ``SchedulingMonitor`` of ``QueueManagementDynamicEditPolicy``: legacy auto-created leaf queues activated and
deactivated as applications come and go (Hadoop 3.1+).

Hadoop runs the policy when ``yarn.resourcemanager.scheduler.monitor.enable`` is true and
``yarn.resourcemanager.scheduler.monitor.policies`` names
``org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueManagementDynamicEditPolicy``, every
``yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval`` ms (1500). Each round asks every
ManagedParentQueue's GuaranteedOrZeroCapacityOverTimePolicy for its changes and hands them to the scheduler as a
MANAGE_QUEUE event; here the round applies them to the RM's scheduler directly, in the same virtual instant (the
policy is policies/capacity/_managementpolicy.py, a ``SchedulingEditPolicy`` over _managedparent.py).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._schedulingmonitor import SchedulingMonitor
from yarnball.errors import ConfigurationError
from yarnball.policies.scheduler import create_edit_policy, policy_enabled
from yarnball.protocols import Configuration, keys

__all__ = ["QueueManagementMonitor", "queue_management_enabled", "spawn_queue_management_monitor"]


def queue_management_enabled(conf: Configuration) -> bool:
    """Whether the monitor keys run the QueueManagementDynamicEditPolicy."""
    return policy_enabled(conf, keys.QUEUE_MANAGEMENT_DYNAMIC_EDIT_POLICY)


class QueueManagementMonitor(SchedulingMonitor):
    """Runs ``QueueManagementDynamicEditPolicy.editSchedule`` every monitoring interval on the RM's current
    scheduler (no round while the RM is down)."""

    def __init__(self, rm: Any) -> None:
        super().__init__(create_edit_policy(keys.QUEUE_MANAGEMENT_DYNAMIC_EDIT_POLICY), rm.conf, rm.scheduler)
        self.rm_actor = rm

    @property
    def changes(self) -> int:
        return self.policy.changes  # type: ignore[attr-defined,no-any-return]

    def edit_schedule(self) -> None:
        rm = self.rm_actor
        restarts = rm.restarts
        if restarts is not None and restarts.down:
            return
        if rm.scheduler is not self.scheduler:
            self.rebind(rm.scheduler, create_edit_policy(keys.QUEUE_MANAGEMENT_DYNAMIC_EDIT_POLICY))
        self.policy.edit_schedule()


def spawn_queue_management_monitor(rm: Any) -> QueueManagementMonitor | None:
    """Start the monitor beside ``rm`` (a ResourceManager) when its configuration enables the policy."""
    conf: Configuration = rm.conf
    if not queue_management_enabled(conf):
        return None
    monitor = QueueManagementMonitor(rm)
    interval = monitor.service_init()
    if interval <= 0:
        raise ConfigurationError(
            f"{conf.location_of(keys.QUEUE_MANAGEMENT_MONITORING_INTERVAL)}: "
            f"{keys.QUEUE_MANAGEMENT_MONITORING_INTERVAL}: expected a positive number of ms, got {interval}"
        )
    rm.kernel.spawn(monitor, f"{rm.id}-queue-management-monitor")
    return monitor
