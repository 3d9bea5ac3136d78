"""``AutoCreatedQueueDeletionPolicy``: the scheduling edit policy that removes idle dynamic queues (Hadoop 3.3+).

Each round (``editSchedule``) follows Hadoop's two steps:

1. ``prepareForAutoDeletion``: every queue eligible for deletion (a dynamic leaf without applications, a dynamic
   parent without children, with ``auto-queue-creation-v2.queue-auto-removal.enable`` true) is *marked*; one that
   was already marked by the previous round moves to the *sent* list instead;
2. ``triggerAutoDeletionForExpiredQueues``: each sent queue is removed if it is still an inactive dynamic queue
   (``CapacityScheduler.removeAutoCreatedQueue``: idle for longer than
   ``yarn.scheduler.capacity.auto-queue-creation-v2.queue-expiration-time`` seconds since its creation or last
   submission).

So a queue goes at the earliest two rounds after it became eligible, and its parent (eligible once its last child
is gone) two rounds later. The policy is a ``SchedulingEditPolicy`` (policies/scheduler/_editpolicy.py): it runs in
``SchedulingMonitor`` rounds (actors/_queuedeletion.py) every
``queue-expiration-time`` x 1000 ms: ``AutoCreatedQueueDeletionPolicy.init`` sets its ``monitoringInterval`` from
the expiration time, not from ``yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval`` (that key
is ``QueueManagementDynamicEditPolicy``'s, for the legacy auto-created leaf queues).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity._autoqueues import (
    is_eligible_for_auto_deletion,
    is_inactive_dynamic_queue,
    remove_queue,
)
from yarnball.protocols import keys as k

if TYPE_CHECKING:
    from yarnball.policies.capacity._core import SchedulerCore
    from yarnball.protocols import Configuration

__all__ = ["AutoCreatedQueueDeletionPolicy"]


class AutoCreatedQueueDeletionPolicy:
    """The marks between rounds (``markedForDeletion``, ``sentForDeletion``) and one round at a time."""

    __slots__ = ("_context", "_cs", "interval_ms", "marked", "removed", "sent")

    def __init__(self) -> None:
        self.marked: set[str] = set()
        self.sent: list[str] = []
        self.removed: list[str] = []  # every queue removed, in order
        self.interval_ms = 0
        self._cs: SchedulerCore | None = None
        self._context: Any = None

    def init(self, conf: Configuration, context: Any, scheduler: object) -> None:
        """``AutoCreatedQueueDeletionPolicy.init``: the scheduler must be a CapacityScheduler; it reads its dynamic
        queues' submission times from the monitor's virtual clock from now on."""
        from yarnball.policies.capacity._core import SchedulerCore

        if not isinstance(scheduler, SchedulerCore):
            raise ConfigurationError(
                f"{k.RM_SCHEDULER_MONITOR_POLICIES}: AutoCreatedQueueDeletionPolicy needs the CapacityScheduler, "
                f"not {type(scheduler).__name__}"
            )
        scheduler.clock = context.now_ms
        self._cs = scheduler
        self._context = context
        self.interval_ms = self.monitoring_interval_ms(conf)

    def get_monitoring_interval(self) -> int:
        return self.interval_ms

    def get_policy_name(self) -> str:
        return "AutoCreatedQueueDeletionPolicy"

    def edit_schedule(self) -> None:
        """``editSchedule()``: one round on the scheduler at the monitor's virtual time, each removal logged."""
        assert self._cs is not None, "init() first"
        context = self._context
        for path in self.edit_queues(self._cs, context.now_ms()):
            self.removed.append(path)
            context.log.info("auto_created_queue_deleted", queue=path)

    @staticmethod
    def monitoring_interval_ms(conf: Configuration) -> int:
        """``getMonitoringInterval`` as ``AutoCreatedQueueDeletionPolicy.init`` sets it: ``csConfig.getLong(
        AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME, 300) * 1000``, read once when the monitor starts (Hadoop's
        ``SchedulingMonitorManager`` keeps a running monitor across refreshes). The rounds therefore come one
        expiration time apart: with the default, every 5 minutes."""
        seconds = conf.get_long(k.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME, k.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME_DEFAULT)
        return seconds * 1000

    def edit_queues(self, cs: SchedulerCore, now_ms: int) -> list[str]:
        """One round on ``cs`` at virtual time ``now_ms``; returns the paths of the queues removed."""
        for path, queue in list(cs.queues.items()):
            if is_eligible_for_auto_deletion(cs.conf, queue):
                if path in self.marked:
                    self.sent.append(path)
                    self.marked.discard(path)
                else:
                    self.marked.add(path)
        removed: list[str] = []
        for path in self.sent:
            sent = cs.queues.get(path)
            if sent is not None and is_inactive_dynamic_queue(cs.conf, sent, now_ms):
                if remove_queue(cs, sent):
                    removed.append(path)
        self.sent.clear()
        return removed
