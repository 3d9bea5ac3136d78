"""Shared per-scheduler context and the small value objects of one heartbeat walk.

``ResourceLimits`` and ``CSAssignment`` are Hadoop's names; they are slots classes holding ints so that a walk from
the root to an application builds as few objects as possible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yarnball.policies.capacity._calculator import DefaultResourceCalculator, DominantResourceCalculator

if TYPE_CHECKING:
    from yarnball.policies.capacity._state import RMContainer
    from yarnball.policies.scheduler._notifications import SchedulerNotification

__all__ = ["CSAssignment", "ResourceLimits", "SchedulerContext"]

# CSAssignment.SkippedType
SKIP_NONE = 0
SKIP_QUEUE_LIMIT = 1
SKIP_OTHER = 2


class SchedulerContext:
    """What every queue and allocator needs to know about the scheduler (read mostly, owned by it)."""

    __slots__ = (
        "cluster_m",
        "cluster_v",
        "containers",
        "continue_looking",
        "max_m",
        "max_v",
        "min_m",
        "min_v",
        "node_locality_delay",
        "num_nodes",
        "outbox",
        "rack_additional_delay",
        "rack_full_reset",
        "rc",
    )

    def __init__(self, rc: DefaultResourceCalculator | DominantResourceCalculator) -> None:
        self.rc = rc
        self.min_m = 1024
        self.min_v = 1
        self.max_m = 8192
        self.max_v = 4
        self.cluster_m = 0
        self.cluster_v = 0
        self.num_nodes = 0
        self.node_locality_delay = 40
        self.rack_additional_delay = -1
        self.rack_full_reset = True
        self.continue_looking = True
        self.outbox: list[SchedulerNotification] = []
        self.containers: dict[object, RMContainer] = {}


class ResourceLimits:
    """``ResourceLimits``: the limit handed down by the parent, the headroom, blocked headroom and unreserve need."""

    __slots__ = ("blocked_m", "blocked_v", "headroom_m", "headroom_v", "limit_m", "limit_v", "unres_m", "unres_v")

    def __init__(self, limit_m: int, limit_v: int) -> None:
        self.limit_m = limit_m
        self.limit_v = limit_v
        self.headroom_m = limit_m
        self.headroom_v = limit_v
        self.blocked_m = 0
        self.blocked_v = 0
        self.unres_m = 0
        self.unres_v = 0


class CSAssignment:
    """``CSAssignment``: what one walk allocated or reserved (at most one container), or why it skipped."""

    __slots__ = ("locality", "mem", "reserved", "skipped", "vc")

    def __init__(self, mem: int, vc: int, locality: int, skipped: int = SKIP_NONE, reserved: bool = False) -> None:
        self.mem = mem
        self.vc = vc
        self.locality = locality
        self.skipped = skipped
        self.reserved = reserved


ASSIGN_SKIP_OTHER = CSAssignment(0, 0, 0, SKIP_OTHER)
ASSIGN_SKIP_QUEUE_LIMIT = CSAssignment(0, 0, 0, SKIP_QUEUE_LIMIT)
