"""Helpers for the FairScheduler queue-tree tests: an AllocationConfiguration naming queues (Hadoop's tests add to
``allocConf.configuredQueues`` directly), a controlled clock, and an application added as Hadoop's scheduler adds
one (through the MaxRunningAppsEnforcer)."""

from __future__ import annotations

from collections.abc import Iterable

from yarnball.policies.fair import (
    AllocationConfiguration,
    FakeFSApp,
    FSLeafQueue,
    FSQueueType,
    MaxRunningAppsEnforcer,
    QueuePlacementPolicy,
)
from yarnball.policies.fair._allocationfile import QueueProperties, TopLevelSettings
from yarnball.protocols import Resource

NO_RESOURCE = Resource(0, 0)


def alloc_conf(
    leaves: Iterable[str] = (), parents: Iterable[str] = (), *, user_max_apps: dict[str, int] | None = None
) -> AllocationConfiguration:
    """``new AllocationConfiguration(scheduler)`` with ``configuredQueues`` holding ``leaves`` and ``parents``."""
    props = QueueProperties()
    props.configured_queues[FSQueueType.LEAF].update(dict.fromkeys(leaves))
    props.configured_queues[FSQueueType.PARENT].update(dict.fromkeys(parents))
    settings = TopLevelSettings(user_max_apps=dict(user_max_apps or {}))
    return AllocationConfiguration(props, settings, QueuePlacementPolicy.from_configuration())


class ControlledClock:
    """Hadoop's ``ControlledClock``: milliseconds, moved by the test."""

    def __init__(self, now: int = 0) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def tick_sec(self, seconds: int) -> None:
        self.now += seconds * 1000


def add_app(
    enforcer: MaxRunningAppsEnforcer,
    queue: FSLeafQueue,
    user: str = "user",
    *,
    start_time: int | None = None,
    demand: Resource = NO_RESOURCE,
) -> FakeFSApp:
    """An attempt added as ``FairScheduler.addApplicationAttempt`` adds it: runnable if the limits allow."""
    clock = queue.context.clock
    app = FakeFSApp(queue, user, start_time=clock() if start_time is None else start_time, demand=demand)
    runnable = enforcer.can_app_be_runnable(queue, app)
    queue.add_app(app, runnable)
    if runnable:
        enforcer.track_runnable_app(app)
    else:
        enforcer.track_non_runnable_app(app)
    return app


def remove_app(enforcer: MaxRunningAppsEnforcer, app: FakeFSApp) -> None:
    """``FairScheduler.removeApplicationAttempt`` for a runnable application."""
    app.queue.remove_app(app)
    enforcer.untrack_runnable_app(app)
    enforcer.update_runnability_on_app_removal(app, app.queue)
