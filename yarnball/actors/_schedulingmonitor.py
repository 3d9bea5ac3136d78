"""``SchedulingMonitor``: the actor that runs one ``SchedulingEditPolicy`` on the RM's scheduler.

Hadoop runs each policy named in ``yarn.resourcemanager.scheduler.monitor.policies`` in a ``SchedulingMonitor`` when
``yarn.resourcemanager.scheduler.monitor.enable`` is true: ``serviceInit`` calls the policy's ``init(conf, rmContext,
scheduler)`` and reads its ``getMonitoringInterval()``, ``serviceStart`` runs ``scheduleAtFixedRate(editSchedule, 0,
interval)``. The monitor lives next to the ResourceManager and is the policy's :class:`EditPolicyContext`: the
virtual clock, the RM's event handler (a message to the RM) and its own logger.

A changed interval is picked up as Hadoop 3.x does it (YARN-7370): each round may change the policy's
``getMonitoringInterval()`` (the preemption policy re-reads its keys); the monitor compares it with its own period at
the *next* tick and, if it differs, cancels the timer and reschedules at the new period with initial delay 0 instead
of running a round at that tick. A non-positive new value makes Hadoop's ``scheduleAtFixedRate`` throw after the old
task was cancelled: the monitor stops (logged).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._actor import Actor, ActorRef, TimerHandle
from yarnball.errors import ConfigurationError
from yarnball.policies.scheduler import ResourceScheduler, SchedulingEditPolicy
from yarnball.protocols import Configuration

__all__ = ["SchedulingMonitor"]


class SchedulingMonitor(Actor):
    """Runs ``policy`` on ``scheduler`` every monitoring interval (see the module docstring)."""

    #: The prefix of the monitor's log events (``<prefix>_stopped``, ``<prefix>_rescheduled``).
    event_prefix = "scheduling_monitor"
    #: The key the policy's interval comes from, named when it is not positive.
    interval_key = ""

    def __init__(
        self, policy: SchedulingEditPolicy, conf: Configuration, scheduler: ResourceScheduler, *, rm_id: str = "rm"
    ) -> None:
        self.policy = policy
        self.conf = conf
        self.scheduler = scheduler
        self.rm_id = rm_id
        self.interval_ms = 0  # the period the timer runs at (SchedulingMonitor.monitorInterval)
        self._timer: TimerHandle | None = None
        self._initialised = False

    def service_init(self) -> int:
        """``SchedulingMonitor.serviceInit``: the policy's ``init`` (once), and its interval read here; the interval.
        Called by :meth:`on_start`, or earlier by whoever starts the monitor and checks the interval first."""
        if not self._initialised:
            self.policy.init(self.conf, self, self.scheduler)
            self._initialised = True
        self.interval_ms = self.policy.get_monitoring_interval()
        return self.interval_ms

    def on_start(self) -> None:
        self.service_init()
        if self.interval_ms <= 0:
            raise ConfigurationError(f"{self.interval_key}: expected a positive number of ms, got {self.interval_ms}")
        # serviceStart: scheduleAtFixedRate(PolicyInvoker, initialDelay 0, monitorInterval)
        self._timer = self.every(self.interval_ms, self._invoke, start=0)

    def _invoke(self) -> None:
        """``SchedulingMonitor.PolicyInvoker.run`` (see the module docstring)."""
        interval = self.policy.get_monitoring_interval()
        if interval == self.interval_ms:
            self.edit_schedule()
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if interval <= 0:
            self.log.error(
                f"{self.event_prefix}_stopped", key=self.interval_key, expected="a positive number of ms", got=interval
            )
            return
        self.log.info(f"{self.event_prefix}_rescheduled", old_ms=self.interval_ms, new_ms=interval)
        self.interval_ms = interval
        self._timer = self.every(self.interval_ms, self._invoke, start=0)

    def edit_schedule(self) -> None:
        """One round: ``invokePolicy`` -> ``editSchedule()``."""
        self.policy.edit_schedule()

    def rebind(self, scheduler: ResourceScheduler, policy: SchedulingEditPolicy) -> None:
        """Run ``policy`` on ``scheduler`` from now on (an RM restart made a new scheduler)."""
        self.scheduler = scheduler
        self.policy = policy
        policy.init(self.conf, self, scheduler)

    # -- EditPolicyContext ---------------------------------------------------------------------------------------
    @property
    def rm(self) -> ActorRef:
        return self.kernel.lookup(self.rm_id)  # type: ignore[no-any-return]

    def now_ms(self) -> int:
        return int(self.now)

    def tell_rm(self, event: Any) -> None:
        self.rm.tell(event, self.ref)
