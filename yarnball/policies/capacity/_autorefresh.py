"""``QueueConfigurationAutoRefreshPolicy``: the scheduling edit policy that refreshes the queues when
capacity-scheduler.xml changes on disk (``yarn.resourcemanager.queue.auto.refresh.monitoring-interval``, 5000 ms).

A yarnball run reads its configuration directory once, and refreshes the queues only where ``--refresh-queues``
says; the file never changes under a run in virtual time, so the policy is accepted in
``yarn.resourcemanager.scheduler.monitor.policies`` (fs2cs always names it) and its rounds have nothing to do.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["QUEUE_AUTO_REFRESH_MONITORING_INTERVAL", "QueueConfigurationAutoRefreshPolicy"]

#: YarnConfiguration.QUEUE_AUTO_REFRESH_MONITORING_INTERVAL and its default (ms).
QUEUE_AUTO_REFRESH_MONITORING_INTERVAL: Final = "yarn.resourcemanager.queue.auto.refresh.monitoring-interval"
DEFAULT_QUEUE_AUTO_REFRESH_MONITORING_INTERVAL: Final = 5000


class QueueConfigurationAutoRefreshPolicy:
    """The policy's ``SchedulingEditPolicy`` face: its interval from the configuration, rounds that change nothing."""

    __slots__ = ("interval_ms",)

    def __init__(self) -> None:
        self.interval_ms = DEFAULT_QUEUE_AUTO_REFRESH_MONITORING_INTERVAL

    def init(self, conf: Any, context: Any, scheduler: object) -> None:
        self.interval_ms = conf.get_long(
            QUEUE_AUTO_REFRESH_MONITORING_INTERVAL, DEFAULT_QUEUE_AUTO_REFRESH_MONITORING_INTERVAL
        )

    def get_monitoring_interval(self) -> int:
        return self.interval_ms

    def get_policy_name(self) -> str:
        return "QueueConfigurationAutoRefreshPolicy"

    def edit_schedule(self) -> None:
        """The configuration file is unchanged since the run read it: no refresh."""
