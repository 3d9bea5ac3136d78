"""The NM's BY_RESOURCES queue policy (``yarn.nodemanager.opportunistic-containers-queue-policy``)."""

from __future__ import annotations

from typing import Any

import pytest

from yarnball.actors._containerscheduler import QUEUE_FULL_DIAGNOSTICS, ContainerScheduler
from yarnball.errors import ConfigurationError
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerId,
    ExecutionType,
    NodeId,
    Priority,
    Resource,
    keys,
)

G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741
ATTEMPT = ApplicationAttemptId(ApplicationId(1, 1), 1)
POLICY = keys.NM_OPPORTUNISTIC_CONTAINERS_QUEUE_POLICY


class Entry:
    """The few fields of an NM container the scheduler reads."""

    def __init__(self, n: int, etype: ExecutionType, mem: int) -> None:
        self.container = Container(
            id=ContainerId(ATTEMPT, n), node_id=NodeId("h"), resource=Resource(mem, 1), priority=Priority(1),
            execution_type=etype,
        )
        self.seq = n
        self.start_seq = 0
        self.paused = False

    def remaining_ms(self) -> float:
        return 1_000.0

    def expected_ms(self) -> float:
        return 1_000.0

    def app_remaining_tasks(self) -> int:
        return 1


class Owner:
    """Records what the scheduler decided."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.killed: list[tuple[int, str]] = []

    def _start_entry(self, entry: Any) -> None:
        self.started.append(entry.seq)

    def _scheduler_kill(self, entry: Any, exit_status: int, diagnostics: str) -> None:
        self.killed.append((entry.seq, diagnostics))

    def _scheduler_pause(self, entry: Any) -> None:
        raise AssertionError("no pausing here")


def scheduler(policy: str, **extra: str) -> tuple[ContainerScheduler, Owner]:
    owner = Owner()
    conf = Configuration({POLICY: policy, **extra})
    return ContainerScheduler(Resource(4096, 8), conf, owner=owner), owner


def test_by_resources_queues_while_everything_fits_the_node() -> None:
    """Under BY_RESOURCES an O container is queued iff running + queued + it fit the node; else queue full."""
    cs, owner = scheduler("BY_RESOURCES")
    cs.schedule(Entry(1, G, 3072))  # runs
    cs.schedule(Entry(2, O, 1024))  # fits beside it: starts
    cs.schedule(Entry(3, O, 1024))  # 3072 + 1024 + 1024 > 4096: refused, although the queue is empty
    assert owner.started == [1, 2]
    assert owner.killed == [(3, QUEUE_FULL_DIAGNOSTICS)]


def test_by_resources_counts_queued_containers_against_the_node() -> None:
    """Queued containers take their share: with 2 GB running and 2 GB queued nothing more is admitted."""
    cs, owner = scheduler("BY_RESOURCES")
    first = Entry(1, O, 2048)
    cs.schedule(first)
    cs.schedule(Entry(2, O, 2048))
    assert owner.started == [1, 2]
    cs.schedule(Entry(3, G, 2048))  # no room: it queues and reclaims the newest O
    assert cs.queued_guaranteed and owner.killed[-1][0] == 2
    cs.schedule(Entry(4, O, 1024))  # running 4096 (incl. the victim) + queued 2048 + 1024: refused
    assert owner.killed[-1] == (4, QUEUE_FULL_DIAGNOSTICS)


def test_by_resources_ignores_max_queue_length_and_reports_capacity_zero() -> None:
    """BY_RESOURCES sets maxOppQueueLength to 0 (reported as the queue capacity) and never force-starts."""
    cs, _ = scheduler("BY_RESOURCES", **{keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10"})
    assert cs.max_opp_queue_length == 0 and not cs.force_start_guaranteed
    assert cs.status().opport_queue_capacity == 0


def test_by_queue_len_still_rejects_at_zero() -> None:
    """The default BY_QUEUE_LEN with queue length 0 rejects an O container that BY_RESOURCES would run."""
    results = {}
    for policy in ("BY_QUEUE_LEN", "BY_RESOURCES"):
        cs, owner = scheduler(policy)
        cs.schedule(Entry(1, O, 1024))
        results[policy] = (owner.started, [k for k, _ in owner.killed])
    assert results == {"BY_QUEUE_LEN": ([], [1]), "BY_RESOURCES": ([1], [])}


@pytest.mark.parametrize("bad", ["BY_MAGIC", "by_resources", ""])
def test_unknown_queue_policy_names_the_key(bad: str) -> None:
    """An unknown policy name is a ConfigurationError naming the key (an empty value means the default)."""
    if bad == "":
        scheduler(bad)
        return
    with pytest.raises(ConfigurationError, match=POLICY.replace(".", r"\.")):
        scheduler(bad)
