"""Handler failures: every handler (timer, process, start or stop hook) that raised, counted per kernel.

A handler that raises is a bug or a bad input, never a normal outcome. Supervision (actors/_actor.py) logs it and
the actor goes on, so nothing already accepted is lost; the kernel counts it and keeps the first few in full, the
Cluster exposes them (``Cluster.handler_failures``), summary.json lists them under ``errors`` and ``yarnball
simulate`` exits with status 3. A sharded run merges its hosts' (:meth:`HandlerFailures.merge`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from yarnball.actors._kernel import Kernel

__all__ = ["MAX_RECORDED_FAILURES", "HandlerFailure", "HandlerFailures", "record_failure"]

#: How many handler failures a kernel keeps in full (all of them are counted).
MAX_RECORDED_FAILURES = 10


@dataclass(frozen=True, slots=True)
class HandlerFailure:
    """One handler (or timer, process, start or stop hook) that raised: a bug or a bad input, never a normal
    outcome. Supervision logs it and the actor goes on; the run reports it (summary.json ``errors``, exit 3)."""

    time_ms: float
    actor: str
    message_type: str
    error: str  # "ExceptionType: message"

    def to_dict(self) -> dict[str, Any]:
        return {"time_ms": self.time_ms, "actor": self.actor, "message_type": self.message_type, "error": self.error}

    def __str__(self) -> str:
        return f"{self.actor} handling {self.message_type} at {self.time_ms:g} ms: {self.error}"


@dataclass(frozen=True, slots=True)
class HandlerFailures:
    """A run's handler failures: how many, and the first few (at most ``MAX_RECORDED_FAILURES``) in time order."""

    count: int = 0
    first: tuple[HandlerFailure, ...] = ()

    def __bool__(self) -> bool:
        return self.count > 0

    @classmethod
    def of_kernel(cls, kernel: Kernel) -> HandlerFailures:
        return cls(kernel.handler_failures, tuple(kernel.failure_records))

    @classmethod
    def merge(cls, parts: Iterable[HandlerFailures]) -> HandlerFailures:
        """Several kernels' failures (the shard hosts'), the first few over all of them by time (then host order)."""
        parts = list(parts)
        records = [(f.time_ms, i, j, f) for i, p in enumerate(parts) for j, f in enumerate(p.first)]
        records.sort(key=lambda r: r[:3])
        return cls(sum(p.count for p in parts), tuple(r[3] for r in records[:MAX_RECORDED_FAILURES]))

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "first": [f.to_dict() for f in self.first]}


def record_failure(kernel: Kernel, actor_id: str, message_type: str, exc: BaseException) -> str:
    """Count a failure on ``kernel``, keep it if it is among the first few; return its error text."""
    error = f"{type(exc).__name__}: {exc}"
    kernel.handler_failures += 1
    if len(kernel.failure_records) < MAX_RECORDED_FAILURES:
        kernel.failure_records.append(HandlerFailure(kernel.now, actor_id, message_type, error))
    return error
