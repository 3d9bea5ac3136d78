"""The ``SchedulingMonitor`` of ``AutoCreatedQueueDeletionPolicy``: idle dynamic queues leave (Hadoop 3.3+).

Hadoop runs the policy when ``yarn.resourcemanager.scheduler.monitor.enable`` is true and
``yarn.resourcemanager.scheduler.monitor.policies`` names
``org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AutoCreatedQueueDeletionPolicy``, every
``yarn.scheduler.capacity.auto-queue-creation-v2.queue-expiration-time`` x 1000 ms (300 s by default:
``AutoCreatedQueueDeletionPolicy.init``, ``AutoCreatedQueueDeletionPolicy.monitoring_interval_ms``). The actor lives
next to
the ResourceManager, like the preemption monitor, and runs the pure policy (policies/capacity/_autodeletion.py) on
the scheduler; it also gives the scheduler the virtual clock its dynamic queues' submission times are read from.
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._actor import Actor
from yarnball.actors._preemption import policy_enabled
from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import CapacityScheduler
from yarnball.policies.capacity._autodeletion import AutoCreatedQueueDeletionPolicy
from yarnball.protocols import Configuration, keys

__all__ = ["QueueDeletionMonitor", "queue_deletion_enabled", "spawn_queue_deletion_monitor"]


def queue_deletion_enabled(conf: Configuration) -> bool:
    """Whether the monitor keys run the AutoCreatedQueueDeletionPolicy."""
    return policy_enabled(conf, keys.AUTO_CREATED_QUEUE_DELETION_POLICY)


class QueueDeletionMonitor(Actor):
    """Runs ``AutoCreatedQueueDeletionPolicy.editSchedule`` every monitoring interval on the RM's scheduler (the
    current one: an RM restart makes a new scheduler, with no dynamic queue and a fresh policy; no round runs while
    the RM is down)."""

    def __init__(self, rm: Any, interval_ms: int) -> None:
        self.rm = rm
        self.interval_ms = interval_ms
        self.policy = AutoCreatedQueueDeletionPolicy()
        self.removed: list[str] = []
        self._scheduler: CapacityScheduler | None = None

    def on_start(self) -> None:
        self._current_scheduler()
        self.every(self.interval_ms, self.edit_schedule, start=0)  # scheduleAtFixedRate(0, interval)

    def _current_scheduler(self) -> CapacityScheduler:
        scheduler: CapacityScheduler = self.rm.scheduler
        if scheduler is not self._scheduler:
            scheduler.clock = self._now_ms
            self._scheduler = scheduler
            self.policy = AutoCreatedQueueDeletionPolicy()
        return scheduler

    def _now_ms(self) -> int:
        return int(self.now)

    def edit_schedule(self) -> None:
        restarts = self.rm.restarts
        if restarts is not None and restarts.down:
            return
        for path in self.policy.edit_schedule(self._current_scheduler(), int(self.now)):
            self.removed.append(path)
            self.log.info("auto_created_queue_deleted", queue=path)


def spawn_queue_deletion_monitor(rm: Any) -> QueueDeletionMonitor | None:
    """Start the monitor beside ``rm`` (a ResourceManager) when its configuration enables the policy."""
    conf: Configuration = rm.conf
    if not queue_deletion_enabled(conf):
        return None
    # AutoCreatedQueueDeletionPolicy.init: the interval is the expiration time (an earlier version of this module
    # read yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval, which is
    # QueueManagementDynamicEditPolicy's key: this policy never reads it). Hadoop's SchedulingMonitor refuses a
    # period <= 0 (scheduleAtFixedRate).
    interval = AutoCreatedQueueDeletionPolicy.monitoring_interval_ms(conf)
    if interval <= 0:
        raise ConfigurationError(
            f"{conf.location_of(keys.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME)}: "
            f"{keys.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME}: the AutoCreatedQueueDeletionPolicy runs every expiration "
            f"time; expected a positive number of seconds, got {interval // 1000}"
        )
    monitor = QueueDeletionMonitor(rm, interval)
    rm.kernel.spawn(monitor, f"{rm.id}-queue-deletion-monitor")
    return monitor
