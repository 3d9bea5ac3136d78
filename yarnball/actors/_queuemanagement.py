"""The ``SchedulingMonitor`` of ``QueueManagementDynamicEditPolicy``: legacy auto-created leaf queues activated and
deactivated as applications come and go (Hadoop 3.1+).

Hadoop runs the policy when ``yarn.resourcemanager.scheduler.monitor.enable`` is true and
``yarn.resourcemanager.scheduler.monitor.policies`` names
``org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueManagementDynamicEditPolicy``, every
``yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval`` ms (1500). Each round asks every
ManagedParentQueue's GuaranteedOrZeroCapacityOverTimePolicy for its changes and hands them to the scheduler as a
MANAGE_QUEUE event; here the round applies them to the RM's scheduler directly, in the same virtual instant (the
pure policy is policies/capacity/_managedparent.py).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._actor import Actor
from yarnball.actors._preemption import policy_enabled
from yarnball.errors import ConfigurationError
from yarnball.policies.capacity._managedparent import manage_auto_created_leaf_queues
from yarnball.protocols import Configuration, keys

__all__ = ["QueueManagementMonitor", "queue_management_enabled", "spawn_queue_management_monitor"]


def queue_management_enabled(conf: Configuration) -> bool:
    """Whether the monitor keys run the QueueManagementDynamicEditPolicy."""
    return policy_enabled(conf, keys.QUEUE_MANAGEMENT_DYNAMIC_EDIT_POLICY)


class QueueManagementMonitor(Actor):
    """Runs ``QueueManagementDynamicEditPolicy.editSchedule`` every monitoring interval on the RM's current
    scheduler (no round while the RM is down)."""

    def __init__(self, rm: Any, interval_ms: int) -> None:
        self.rm = rm
        self.interval_ms = interval_ms
        self.changes = 0

    def on_start(self) -> None:
        self.every(self.interval_ms, self.edit_schedule, start=0)  # scheduleAtFixedRate(0, interval)

    def edit_schedule(self) -> None:
        restarts = self.rm.restarts
        if restarts is not None and restarts.down:
            return
        for change in manage_auto_created_leaf_queues(self.rm.scheduler):
            self.changes += 1
            self.log.info(
                "auto_created_queue_entitlement",
                queue=change.queue.path,
                capacity=change.template.capacities.capacity,
            )


def spawn_queue_management_monitor(rm: Any) -> QueueManagementMonitor | None:
    """Start the monitor beside ``rm`` (a ResourceManager) when its configuration enables the policy."""
    conf: Configuration = rm.conf
    if not queue_management_enabled(conf):
        return None
    interval = conf.get_long(
        keys.QUEUE_MANAGEMENT_MONITORING_INTERVAL, keys.QUEUE_MANAGEMENT_MONITORING_INTERVAL_DEFAULT
    )
    if interval <= 0:
        raise ConfigurationError(
            f"{conf.location_of(keys.QUEUE_MANAGEMENT_MONITORING_INTERVAL)}: "
            f"{keys.QUEUE_MANAGEMENT_MONITORING_INTERVAL}: expected a positive number of ms, got {interval}"
        )
    monitor = QueueManagementMonitor(rm, interval)
    rm.kernel.spawn(monitor, f"{rm.id}-queue-management-monitor")
    return monitor
