"""The ``SchedulingMonitor`` of ``AutoCreatedQueueDeletionPolicy``: idle dynamic queues leave (Hadoop 3.3+).

Hadoop runs the policy when ``yarn.resourcemanager.scheduler.monitor.enable`` is true and
``yarn.resourcemanager.scheduler.monitor.policies`` names
``org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AutoCreatedQueueDeletionPolicy``, every
``yarn.scheduler.capacity.auto-queue-creation-v2.queue-expiration-time`` x 1000 ms (300 s by default:
``AutoCreatedQueueDeletionPolicy.init``, ``AutoCreatedQueueDeletionPolicy.monitoring_interval_ms``). The actor lives
next to
the ResourceManager, like the preemption monitor, and runs the policy (policies/capacity/_autodeletion.py, a
``SchedulingEditPolicy``) on the scheduler; the policy gives the scheduler the monitor's virtual clock, which its
dynamic queues' submission times are read from.
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._schedulingmonitor import SchedulingMonitor
from yarnball.errors import ConfigurationError
from yarnball.policies.scheduler import create_edit_policy, policy_enabled
from yarnball.protocols import Configuration, keys

__all__ = ["QueueDeletionMonitor", "queue_deletion_enabled", "spawn_queue_deletion_monitor"]


def queue_deletion_enabled(conf: Configuration) -> bool:
    """Whether the monitor keys run the AutoCreatedQueueDeletionPolicy."""
    return policy_enabled(conf, keys.AUTO_CREATED_QUEUE_DELETION_POLICY)


class QueueDeletionMonitor(SchedulingMonitor):
    """Runs ``AutoCreatedQueueDeletionPolicy.editSchedule`` every monitoring interval on the RM's scheduler (the
    current one: an RM restart makes a new scheduler, with no dynamic queue and a fresh policy; no round runs while
    the RM is down)."""

    def __init__(self, rm: Any) -> None:
        super().__init__(create_edit_policy(keys.AUTO_CREATED_QUEUE_DELETION_POLICY), rm.conf, rm.scheduler)
        self.rm_actor = rm

    @property
    def removed(self) -> list[str]:
        """The paths of the queues removed by the current policy, in order."""
        return self.policy.removed  # type: ignore[attr-defined,no-any-return]

    def edit_schedule(self) -> None:
        rm = self.rm_actor
        restarts = rm.restarts
        if restarts is not None and restarts.down:
            return
        if rm.scheduler is not self.scheduler:
            self.rebind(rm.scheduler, create_edit_policy(keys.AUTO_CREATED_QUEUE_DELETION_POLICY))
        self.policy.edit_schedule()


def spawn_queue_deletion_monitor(rm: Any) -> QueueDeletionMonitor | None:
    """Start the monitor beside ``rm`` (a ResourceManager) when its configuration enables the policy."""
    conf: Configuration = rm.conf
    if not queue_deletion_enabled(conf):
        return None
    # AutoCreatedQueueDeletionPolicy.init: the interval is the expiration time (an earlier version of this module
    # read yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval, which is
    # QueueManagementDynamicEditPolicy's key: this policy never reads it). Hadoop's SchedulingMonitor refuses a
    # period <= 0 (scheduleAtFixedRate).
    monitor = QueueDeletionMonitor(rm)
    interval = monitor.service_init()
    if interval <= 0:
        raise ConfigurationError(
            f"{conf.location_of(keys.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME)}: "
            f"{keys.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME}: the AutoCreatedQueueDeletionPolicy runs every expiration "
            f"time; expected a positive number of seconds, got {interval // 1000}"
        )
    rm.kernel.spawn(monitor, f"{rm.id}-queue-deletion-monitor")
    return monitor
