"""NodeManager queue policies: in which order queued containers start, and which running OPPORTUNISTIC containers
are reclaimed for a GUARANTEED one.

``FIFO`` + ``LIFO`` are Hadoop's ``ContainerScheduler`` (opportunistic.md §3.4, §3.5). The others go beyond Hadoop,
after the future work of the YARN opportunistic-containers design and the Yaq paper (Rasley et al., EuroSys 2016):

- ``SHORTEST_TASK_FIRST``: start the queued container with the shortest expected run time first (Yaq's SRJF
  at task level); the expected time is what the AM put in the launch context (unknown sorts last);
- ``CLOSEST_TO_COMPLETION``: start containers of the application with the fewest remaining tasks first (Yaq's
  "least remaining tasks first"); the AM announces its remaining tasks in the launch context (unknown sorts last);
- ``FEWEST_KILLS``: reclaim with as few kills as possible, sparing the containers closest to completion.
Ties always fall back to FIFO / start order, so every policy is deterministic.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from yarnball.errors import ConfigurationError

__all__ = [
    "KillPolicy",
    "QueueOrderPolicy",
    "QueuedInfo",
    "RunningInfo",
    "order_queue",
    "parse_policy",
    "select_victims",
]


class QueueOrderPolicy(enum.Enum):
    FIFO = "FIFO"
    SHORTEST_TASK_FIRST = "SHORTEST_TASK_FIRST"
    CLOSEST_TO_COMPLETION = "CLOSEST_TO_COMPLETION"


class KillPolicy(enum.Enum):
    LIFO = "LIFO"
    FEWEST_KILLS = "FEWEST_KILLS"


def parse_policy(enum_type: type[enum.Enum], key: str, text: str) -> enum.Enum:
    """Parse a policy name; an unknown one is a configuration error naming the key."""
    try:
        return enum_type(text.strip().upper())
    except ValueError:
        raise ConfigurationError(
            f"{key}: unknown policy {text!r} (expected one of {[p.value for p in enum_type]})"
        ) from None


@dataclass(frozen=True, slots=True)
class QueuedInfo:
    """A queued container as the ordering policy sees it. ``seq`` is its arrival order."""

    seq: int
    expected_ms: float | None = None
    app_remaining_tasks: int | None = None


@dataclass(frozen=True, slots=True)
class RunningInfo:
    """A running OPPORTUNISTIC container that may be reclaimed; ``seq`` is its start order."""

    seq: int
    memory_mb: int
    vmem_mb: int
    vcores: int
    remaining_ms: float | None = None


_UNKNOWN = float("inf")


def order_queue(policy: QueueOrderPolicy, queued: Sequence[QueuedInfo]) -> list[int]:
    """Indices of ``queued`` in the order the containers should start."""
    idx = range(len(queued))
    if policy is QueueOrderPolicy.SHORTEST_TASK_FIRST:
        return sorted(idx, key=lambda i: (_or_inf(queued[i].expected_ms), queued[i].seq))
    if policy is QueueOrderPolicy.CLOSEST_TO_COMPLETION:
        return sorted(idx, key=lambda i: (_or_inf(queued[i].app_remaining_tasks), queued[i].seq))
    return sorted(idx, key=lambda i: queued[i].seq)


def _or_inf(v: float | None) -> float:
    return _UNKNOWN if v is None else float(v)


def _sufficient(need: tuple[int, int, float]) -> bool:
    return need[0] <= 0 and need[1] <= 0 and need[2] <= 0


def select_victims(
    policy: KillPolicy, need: tuple[int, int, float], candidates: Sequence[RunningInfo]
) -> list[int]:
    """Indices of the candidates to kill (or pause) so that ``need`` (pmem MB, vmem MB, vcores still missing)
    drops to zero or below. With too few candidates every one is chosen (Hadoop then only logs a warning)."""
    if _sufficient(need):
        return []
    if policy is KillPolicy.LIFO:
        # ContainerScheduler.pickOpportunisticContainersToReclaimResources: most recently started first.
        order = sorted(range(len(candidates)), key=lambda i: -candidates[i].seq)
        return _greedy(need, candidates, order)
    # FEWEST_KILLS: one container alone if possible (the one furthest from completion), else the biggest first.
    singles = [i for i, c in enumerate(candidates) if _sufficient(_minus(need, c))]
    if singles:
        return [max(singles, key=lambda i: (_or_inf(candidates[i].remaining_ms), candidates[i].seq))]
    order = sorted(
        range(len(candidates)),
        key=lambda i: (-candidates[i].memory_mb, -candidates[i].vcores, -_or_inf(candidates[i].remaining_ms),
                       -candidates[i].seq),
    )
    return _greedy(need, candidates, order)


def _minus(need: tuple[int, int, float], c: RunningInfo) -> tuple[int, int, float]:
    return (need[0] - c.memory_mb, need[1] - c.vmem_mb, need[2] - c.vcores)


def _greedy(need: tuple[int, int, float], candidates: Sequence[RunningInfo], order: Sequence[int]) -> list[int]:
    chosen: list[int] = []
    for i in order:
        if _sufficient(need):
            break
        chosen.append(i)
        need = _minus(need, candidates[i])
    return chosen
