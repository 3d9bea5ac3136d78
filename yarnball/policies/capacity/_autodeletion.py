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
is gone) two rounds later. The policy runs in ``SchedulingMonitor`` rounds (actors/_queuedeletion.py) every
``queue-expiration-time`` x 1000 ms: ``AutoCreatedQueueDeletionPolicy.init`` sets its ``monitoringInterval`` from
the expiration time, not from ``yarn.resourcemanager.monitor.capacity.queue-management.monitoring-interval`` (that key
is ``QueueManagementDynamicEditPolicy``'s, for the legacy auto-created leaf queues).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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

    __slots__ = ("marked", "sent")

    def __init__(self) -> None:
        self.marked: set[str] = set()
        self.sent: list[str] = []

    @staticmethod
    def monitoring_interval_ms(conf: Configuration) -> int:
        """``getMonitoringInterval`` as ``AutoCreatedQueueDeletionPolicy.init`` sets it: ``csConfig.getLong(
        AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME, 300) * 1000``, read once when the monitor starts (Hadoop's
        ``SchedulingMonitorManager`` keeps a running monitor across refreshes). The rounds therefore come one
        expiration time apart: with the default, every 5 minutes."""
        seconds = conf.get_long(k.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME, k.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME_DEFAULT)
        return seconds * 1000

    def edit_schedule(self, cs: SchedulerCore, now_ms: int) -> list[str]:
        """One round at virtual time ``now_ms``; returns the paths of the queues removed."""
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
