"""What a FairScheduler leaf queue reads of the applications it holds: :class:`FSApp`, the part of Hadoop's
``FSAppAttempt`` that the queue tree, the running-app limits and the starvation bookkeeping use, with
:class:`AppStarvation` (the attempt's starvation fields) and :class:`FakeFSApp`, a test double.

The scheduler's attempt class implements :class:`FSApp`; the queues never read anything else of it.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Protocol

from yarnball.policies.fair._configurableresource import unbounded
from yarnball.policies.fair._schedulable import Schedulable
from yarnball.policies.preemption._java import f32
from yarnball.protocols import ApplicationId, Priority, Resource

if TYPE_CHECKING:
    from yarnball.policies.fair._fsleafqueue import FSLeafQueue

__all__ = ["AppStarvation", "FSApp", "FakeFSApp"]

_NONE = Resource(0, 0)
_APP_PRIORITY = Priority(1)  # FSAppAttempt.appPriority: the FairScheduler ignores application priorities
_fake_ids = itertools.count(1)


class AppStarvation:
    """``FSAppAttempt``'s starvation fields (fair.md §5.2-§5.4): the fair-share starvation last computed, the
    min-share starvation the leaf queue attributed to the application, when it was last at its fair share (ms;
    starts at the attempt's start time) and when its starvation may next be checked."""

    __slots__ = ("fairshare_starvation", "last_time_at_fair_share", "minshare_starvation", "next_starvation_check")

    def __init__(self, start_time: int) -> None:
        self.fairshare_starvation = _NONE
        self.minshare_starvation = _NONE
        self.last_time_at_fair_share = start_time
        self.next_starvation_check = 0

    def get_starvation(self) -> Resource:
        """``getStarvation``: fair-share plus min-share starvation."""
        return self.fairshare_starvation + self.minshare_starvation

    def preemption_triggered(self, now: int, delay_before_next_starvation_check: int) -> None:
        """``preemptionTriggered``: no starvation check before ``now + delay``."""
        self.next_starvation_check = now + delay_before_next_starvation_check

    def should_check_for_starvation(self, now: int) -> bool:
        """``shouldCheckForStarvation``."""
        return now >= self.next_starvation_check


class FSApp(Schedulable, Protocol):
    """An application attempt in a leaf queue (``FSAppAttempt`` as the queues see it). ``name`` is the
    application id's text; ``min_share`` is none and ``max_share`` unbounded; ``priority`` is always 1."""

    @property
    def application_id(self) -> ApplicationId: ...

    @property
    def user(self) -> str: ...

    @property
    def queue(self) -> FSLeafQueue:
        """``getQueue``: the leaf queue holding the attempt."""
        ...

    @property
    def am_resource(self) -> Resource:
        """``getAMResource``: the AM container's resource (none until the AM is allocated)."""
        ...

    @property
    def is_am_running(self) -> bool:
        """``isAmRunning``: a managed AM is running (its resource counts as the queue's AM usage)."""
        ...

    @property
    def starvation(self) -> AppStarvation: ...

    def update_demand(self) -> None:
        """``updateDemand``: recompute ``demand`` from the outstanding requests (see ``app_demand``)."""
        ...

    def is_pending(self) -> bool:
        """``isPending``: no container allocated yet (``AppSchedulingInfo.isPending``)."""
        ...

    def update_am_container_diagnostics(self, state: str, diagnostics: str) -> None:
        """``updateAMContainerDiagnostics(AMState, diagnostics)``: the AM's diagnostics, e.g. why it is not
        runnable (``INACTIVATED``)."""
        ...


def pending_demand(app: FSApp) -> Resource:
    """``FSAppAttempt.getPendingDemand``: demand less usage."""
    return app.demand - app.resource_usage


def has_pending_demand(app: FSApp) -> bool:
    """``!Resources.isNone(getPendingDemand())`` without making the difference (``fetchAppsWithDemand`` asks it of
    every runnable application on every node heartbeat)."""
    demand, usage = app.demand, app.resource_usage
    if demand.extended or usage.extended:
        return not (demand - usage).is_none()
    return demand.memory_mb != usage.memory_mb or demand.vcores != usage.vcores


class FakeFSApp:
    """A test double of :class:`FSApp`: fixed demand and usage (set them directly), a start time, a user; the queue
    must be given. Its application id counts from 1 per process unless given; ``diagnostics`` records the AM
    diagnostics it was told."""

    __slots__ = (
        "_weight",
        "am_resource",
        "application_id",
        "demand",
        "diagnostics",
        "fair_share",
        "is_am_running",
        "name",
        "pending",
        "queue",
        "resource_usage",
        "start_time",
        "starvation",
        "user",
    )

    def __init__(
        self,
        queue: FSLeafQueue,
        user: str = "user",
        *,
        start_time: int = 0,
        demand: Resource = _NONE,
        usage: Resource = _NONE,
        weight: float = 1.0,
        application_id: ApplicationId | None = None,
        am_resource: Resource = _NONE,
        am_running: bool = False,
        pending: bool = True,
    ) -> None:
        self.queue = queue
        self.user = user
        self.application_id = ApplicationId(0, next(_fake_ids)) if application_id is None else application_id
        self.name = str(self.application_id)
        self.start_time = start_time
        self.demand = demand
        self.resource_usage = usage
        self._weight = f32(weight)
        self.fair_share = _NONE
        self.am_resource = am_resource
        self.is_am_running = am_running
        self.pending = pending
        self.starvation = AppStarvation(start_time)
        self.diagnostics: list[tuple[str, str]] = []

    @property
    def weight(self) -> float:
        return self._weight

    @property
    def min_share(self) -> Resource:
        return _NONE

    @property
    def max_share(self) -> Resource:
        return unbounded()

    @property
    def priority(self) -> Priority:
        return _APP_PRIORITY

    def is_active(self) -> bool:
        return True

    def update_demand(self) -> None:
        pass

    def is_pending(self) -> bool:
        return self.pending

    def update_am_container_diagnostics(self, state: str, diagnostics: str) -> None:
        self.diagnostics.append((state, diagnostics))

    def __repr__(self) -> str:
        return f"FakeFSApp({self.name}, user={self.user}, queue={self.queue.name}, start={self.start_time})"
