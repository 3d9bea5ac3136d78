"""``ClusterNodeTracker.getMaxAllowedAllocation`` in every scheduler: the configured maximum allocation holds for
``yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms`` after the RM starts (on the scheduler's virtual
clock), the largest registered node caps it after that."""

from __future__ import annotations

from typing import Any

import pytest

from yarnball.launcher._clusterconf import normalized_conf
from yarnball.policies.scheduler import CAPACITY_SCHEDULER, FAIR_SCHEDULER, FIFO_SCHEDULER, create_scheduler
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    NodeAddedSchedulerEvent,
    NodeId,
    Priority,
    Resource,
    ResourceRequest,
    keys,
)

GB = 1024
START_MS = 50_000  # the RM starts at this virtual time
SCHEDULERS = [CAPACITY_SCHEDULER, FAIR_SCHEDULER, FIFO_SCHEDULER]


class Clock:
    def __init__(self) -> None:
        self.ms = START_MS

    def __call__(self) -> int:
        return self.ms


def started(scheduler_class: str, clock: Clock | None, **settings: str) -> Any:
    """A scheduler (configured maximum 8 GB, 4 vcores), started at ``clock``'s time, with one 4 GB, 2-vcore node."""
    conf = normalized_conf({keys.RM_SCHEDULER: scheduler_class, **settings})
    s = create_scheduler(conf, cluster_timestamp=1)
    if clock is not None:
        s.service_start(clock)
    s.handle(NodeAddedSchedulerEvent(node_id=NodeId("h1", 1234), rack_name="/rack", total_resource=Resource(4 * GB, 2)))
    return s


def ask(s: Any, n: int, mb: int, vcores: int = 1) -> tuple[tuple[str, ...], int]:
    """Application ``n`` asks for one ``mb`` container: the errors and the memory the scheduler then holds pending."""
    app_id = ApplicationId(1, n)
    s.handle(AppAddedSchedulerEvent(application_id=app_id, queue="default", user="u"))
    attempt_id = ApplicationAttemptId(app_id, 1)
    s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt_id))
    request = ResourceRequest(priority=Priority(1), capability=Resource(mb, vcores), resource_name=ANY)
    allocation = s.allocate(attempt_id, [request], [])
    app = s.get_application(attempt_id)
    assert app is not None
    return allocation.errors, app.pending_m


@pytest.mark.parametrize("scheduler_class", SCHEDULERS)
def test_an_ask_above_the_largest_node_is_kept_during_the_wait_and_refused_after(scheduler_class: str) -> None:
    """10 s after the start (the default wait) the configured 8 GB is the maximum: a 6 GB ask stays 6 GB. A
    millisecond later the 4 GB, 2-vcore node is: a 6 GB ask is refused, one of 4 GB is not."""
    clock = Clock()
    s = started(scheduler_class, clock)
    clock.ms = START_MS + 10_000
    assert s.maximum_allocation() == Resource(8 * GB, 4)
    assert ask(s, 1, 6 * GB, 3) == ((), 6 * GB)
    clock.ms += 1
    assert s.maximum_allocation() == Resource(4 * GB, 2)
    errors, _ = ask(s, 2, 6 * GB)
    assert len(errors) == 1 and "greater than maximum allowed allocation" in errors[0]
    assert ask(s, 3, 4 * GB) == ((), 4 * GB)


def test_the_window_once_over_stays_over() -> None:
    """``forceConfiguredMaxAllocation`` is a latch: a clock read back within the window no longer reopens it."""
    clock = Clock()
    s = started(FAIR_SCHEDULER, clock)
    assert s.maximum_allocation() == Resource(8 * GB, 4)
    clock.ms = START_MS + 10_001
    assert s.maximum_allocation() == Resource(4 * GB, 2)
    clock.ms = START_MS
    assert s.maximum_allocation() == Resource(4 * GB, 2)


def test_the_wait_is_read_from_the_scheduling_wait_key() -> None:
    """``scheduling-wait-ms`` 0: the window is over one millisecond after the start."""
    clock = Clock()
    s = started(CAPACITY_SCHEDULER, clock, **{keys.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS: "0"})
    assert s.maximum_allocation() == Resource(8 * GB, 4)
    clock.ms += 1
    assert s.maximum_allocation() == Resource(4 * GB, 2)


def test_set_force_configured_max_allocation_ends_the_window() -> None:
    """``setForceConfiguredMaxAllocation(false)``, as Hadoop's tests use it, ends the window at once."""
    s = started(CAPACITY_SCHEDULER, Clock())
    assert s.maximum_allocation() == Resource(8 * GB, 4)
    s.set_force_configured_max_allocation(False)
    assert s.maximum_allocation() == Resource(4 * GB, 2)


def test_the_window_opens_when_the_rm_starts_the_scheduler() -> None:
    """Before ``service_start`` hands the RM's clock there is no window (the largest node caps); the start opens it."""
    s = started(FIFO_SCHEDULER, None)
    assert s.maximum_allocation() == Resource(4 * GB, 2)
    s.service_start(Clock())
    assert s.maximum_allocation() == Resource(8 * GB, 4)
