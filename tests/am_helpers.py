"""Shared pieces of the AM request tests (test_am_tasks, test_am_request_index, test_am_ask_table)."""

from __future__ import annotations

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
