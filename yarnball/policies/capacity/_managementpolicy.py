"""``QueueManagementDynamicEditPolicy``: the scheduling edit policy that activates and deactivates legacy
auto-created leaf queues as applications come and go (Hadoop 3.1+).

Each round (``editSchedule``) asks every ManagedParentQueue's GuaranteedOrZeroCapacityOverTimePolicy for its changes
and applies them to the scheduler at once (Hadoop hands them over as a MANAGE_QUEUE event; here in the same virtual
instant: _managedparent.py). It runs every ``yarn.resourcemanager.monitor.capacity.queue-management
.monitoring-interval`` ms (1500) in a ``SchedulingMonitor`` (actors/_queuemanagement.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity._managedparent import manage_auto_created_leaf_queues
from yarnball.protocols import keys as k

if TYPE_CHECKING:
    from yarnball.policies.capacity._scheduler import CapacityScheduler
    from yarnball.protocols import Configuration

__all__ = ["QueueManagementDynamicEditPolicy"]


class QueueManagementDynamicEditPolicy:
    """A ``SchedulingEditPolicy`` over the CapacityScheduler's ManagedParentQueues; ``changes`` counts the
    entitlement changes applied."""

    __slots__ = ("_context", "_cs", "changes", "interval_ms")

    def __init__(self) -> None:
        self.changes = 0
        self.interval_ms = 0
        self._cs: CapacityScheduler | None = None
        self._context: Any = None

    def init(self, conf: Configuration, context: Any, scheduler: object) -> None:
        """``QueueManagementDynamicEditPolicy.init``: the scheduler must be a CapacityScheduler."""
        from yarnball.policies.capacity._scheduler import CapacityScheduler

        if not isinstance(scheduler, CapacityScheduler):
            raise ConfigurationError(
                f"{k.RM_SCHEDULER_MONITOR_POLICIES}: QueueManagementDynamicEditPolicy needs the CapacityScheduler, "
                f"not {type(scheduler).__name__}"
            )
        self._cs = scheduler
        self._context = context
        self.interval_ms = conf.get_long(
            k.QUEUE_MANAGEMENT_MONITORING_INTERVAL, k.QUEUE_MANAGEMENT_MONITORING_INTERVAL_DEFAULT
        )

    def get_monitoring_interval(self) -> int:
        return self.interval_ms

    def get_policy_name(self) -> str:
        return "QueueManagementDynamicEditPolicy"

    def edit_schedule(self) -> None:
        """``editSchedule()``: every ManagedParentQueue's changes, applied and logged."""
        assert self._cs is not None, "init() first"
        for change in manage_auto_created_leaf_queues(self._cs):
            self.changes += 1
            self._context.log.info(
                "auto_created_queue_entitlement",
                queue=change.queue.path,
                capacity=change.template.capacities.capacity,
            )
