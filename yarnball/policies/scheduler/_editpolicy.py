"""``SchedulingEditPolicy``: a policy a ``SchedulingMonitor`` runs on the scheduler every monitoring interval.

Hadoop's ``org.apache.hadoop.yarn.server.resourcemanager.monitor.SchedulingEditPolicy``: ``init(conf, rmContext,
scheduler)``, then ``editSchedule()`` every ``getMonitoringInterval()`` ms (actors/_schedulingmonitor.py). The policies
the monitor keys may name are in the factory (_factory.py); each may require its scheduler's class, as Hadoop's do.
What a policy reaches of the RM is :class:`EditPolicyContext` (the parts of Hadoop's ``RMContext`` the policies use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from yarnball.policies.scheduler._interface import ResourceScheduler
    from yarnball.protocols import Configuration

__all__ = ["EditPolicyContext", "SchedulingEditPolicy"]


class EditPolicyContext(Protocol):
    """The RM as an edit policy reaches it: the virtual clock, the dispatcher's event handler, a logger."""

    @property
    def log(self) -> Any:
        """The monitor's logger (its lines carry the monitor's identity and the simulated time)."""
        ...

    def now_ms(self) -> int:
        """The virtual time in ms (``SystemClock.getTime``)."""
        ...

    def tell_rm(self, event: Any) -> None:
        """``rmContext.getDispatcher().getEventHandler().handle(event)``: a scheduler event to the RM."""
        ...


class SchedulingEditPolicy(Protocol):
    """Hadoop's ``SchedulingEditPolicy``."""

    def init(self, conf: Configuration, context: EditPolicyContext, scheduler: ResourceScheduler) -> None:
        """``init(config, rmContext, scheduler)``: bind the policy to the scheduler it edits."""
        ...

    def edit_schedule(self) -> None:
        """``editSchedule()``: one round."""
        ...

    def get_monitoring_interval(self) -> int:
        """``getMonitoringInterval()``: the period of the rounds in ms (re-read by the monitor before each round)."""
        ...

    def get_policy_name(self) -> str:
        """``getPolicyName()``."""
        ...
