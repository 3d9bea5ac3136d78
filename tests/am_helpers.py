"""Shared pieces of the AM tests: the request tests (test_am_tasks, test_am_request_index, test_am_ask_table) and
the user AMs of the stall tests (test_oversized_asks, test_stalled_runs)."""

from __future__ import annotations

from typing import Any

from yarnball import ApplicationMaster
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Container,
    ContainerId,
    ExecutionType,
    NodeId,
    Priority,
    Resource,
)

G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741
ATTEMPT = ApplicationAttemptId(ApplicationId(1, 1), 1)
RES = Resource(1024, 1)


def container(seq: int, host: str, priority: int, etype: ExecutionType = G) -> Container:
    """A container of ``ATTEMPT`` on ``host`` at ``priority``."""
    return Container(
        id=ContainerId(ATTEMPT, seq), node_id=NodeId(host, 0), resource=RES, priority=Priority(priority),
        execution_type=etype,
    )


class OneContainerAM(ApplicationMaster):
    """A user's AM that runs each container it is given for 10 s and finishes when one completes; a subclass asks
    for what it wants in ``on_registered``."""

    def on_containers_allocated(self, containers: tuple[Any, ...]) -> None:
        for c in containers:
            self.start_container(c, duration_ms=10_000)

    def on_containers_completed(self, statuses: tuple[Any, ...]) -> None:
        self.finish()
