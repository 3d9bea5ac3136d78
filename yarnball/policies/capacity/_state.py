"""Mutable scheduler state: nodes, containers, users and application attempts (slots classes, int resources).

Hadoop names: ``FiCaSchedulerNode`` -> :class:`SchedulerNode`, ``RMContainer`` -> :class:`RMContainer`,
``FiCaSchedulerApp`` (an attempt) -> :class:`SchedulerApp`, ``SchedulerApplication`` -> :class:`SchedulerApplication`,
``UsersManager.User`` -> :class:`User`. Resources are kept as ``(memory_mb, vcores)`` int fields so the heartbeat path
does not build records.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, Final

from yarnball.policies.scheduler._utils import ACQUIRED, ALLOCATED, RESERVED, RUNNING
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Container,
    ContainerId,
    ContainerStatus,
    NodeId,
    Priority,
    Resource,
)

if TYPE_CHECKING:
    from yarnball.policies.capacity._leaf import LeafQueue

__all__ = [
    "ACQUIRED",
    "ALLOCATED",
    "RESERVED",
    "RUNNING",
    "KeyAsks",
    "RMContainer",
    "SchedulerApp",
    "SchedulerApplication",
    "SchedulerNode",
    "User",
]

# Locality of an assignment (NodeType).
NODE_LOCAL = 0
RACK_LOCAL = 1
OFF_SWITCH = 2
# NodeType's names, indexed by the constants above
LOCALITY_NAMES: tuple[str, str, str] = ("NODE_LOCAL", "RACK_LOCAL", "OFF_SWITCH")

_NONE: Final[frozenset[Any]] = frozenset()  # (see SchedulerApp.preempt)


class SchedulerNode:
    """``FiCaSchedulerNode``: a node's total and unallocated resource, its containers and its one reservation."""

    __slots__ = (
        "containers",
        "host",
        "labels",
        "node_id",
        "rack",
        "reserved",
        "total_m",
        "total_v",
        "unalloc_m",
        "unalloc_v",
    )

    def __init__(self, node_id: NodeId, rack: str, total_m: int, total_v: int, labels: tuple[str, ...]) -> None:
        self.node_id = node_id
        self.host = node_id.host
        self.rack = rack
        self.total_m = total_m
        self.total_v = total_v
        self.unalloc_m = total_m
        self.unalloc_v = total_v
        self.containers: dict[ContainerId, RMContainer] = {}
        self.reserved: RMContainer | None = None
        self.labels = labels


class RMContainer:
    """One allocated or reserved container, as the scheduler tracks it."""

    __slots__ = ("app", "cid", "container", "is_am", "key", "mem", "node", "priority", "state", "vc")

    def __init__(
        self,
        cid: ContainerId,
        app: SchedulerApp,
        node: SchedulerNode,
        key: tuple[int, int],
        priority: Priority,
        mem: int,
        vc: int,
        state: str,
    ) -> None:
        self.cid = cid
        self.app = app
        self.node = node
        self.key = key
        self.priority = priority
        self.mem = mem
        self.vc = vc
        self.state = state
        self.container: Container | None = None
        self.is_am = False


class KeyAsks:
    """The asks of one scheduler key (priority, allocation request id): the ANY ask plus rack and host asks."""

    __slots__ = ("any_count", "any_relax", "cap_m", "cap_v", "key", "names", "priority", "request_id", "resource")

    def __init__(self, key: tuple[int, int], priority: Priority, request_id: int) -> None:
        self.key = key
        self.priority = priority
        self.request_id = request_id
        self.any_count = 0
        self.any_relax = True
        self.cap_m = 0
        self.cap_v = 0
        self.resource: Resource | None = None  # the normalised capability as a record, shared by its containers
        # resource name (host or rack) -> [outstanding count, relax_locality]
        self.names: dict[str, list] = {}

    def unique_location_asks(self) -> int:
        """``uniqueLocationAsks``: distinct resource names with an outstanding ask, ANY included."""
        return len(self.names) + (1 if self.any_count > 0 else 0)


class User:
    """``UsersManager.User``: a user's usage, AM usage and application counts inside one leaf queue."""

    __slots__ = (
        "active_apps",
        "am_used_m",
        "am_used_v",
        "apps_with_asks",
        "name",
        "pending_apps",
        "used_m",
        "used_v",
        "weight",
    )

    def __init__(self, name: str, weight: float = 1.0) -> None:
        self.name = name
        self.used_m = 0
        self.used_v = 0
        self.am_used_m = 0
        self.am_used_v = 0
        self.active_apps = 0  # attempts activated in the leaf (ordering policy)
        self.pending_apps = 0  # attempts waiting for activation (AM limits, max-active)
        self.apps_with_asks = 0  # attempts with outstanding asks: the user is "active" when > 0
        self.weight = weight

    @property
    def total_applications(self) -> int:
        return self.active_apps + self.pending_apps


class SchedulerApplication:
    """``SchedulerApplication``: the application (queue, user, priority) and its current attempt."""

    __slots__ = ("app_id", "attempt", "kept", "last_seq", "priority", "queue", "user")

    def __init__(self, app_id: ApplicationId, queue: LeafQueue, user: str, priority: int) -> None:
        self.app_id = app_id
        self.queue = queue
        self.user = user
        self.priority = priority
        self.attempt: SchedulerApp | None = None
        # containers kept across attempts (keep-containers-across-application-attempts), adopted by the next attempt
        self.kept: list[RMContainer] = []
        self.last_seq = 0


class SchedulerApp:
    """``FiCaSchedulerApp``: one attempt's asks, containers, reservations and pull lists."""

    __slots__ = (
        "am_known",
        "am_m",
        "am_running",
        "am_v",
        "app",
        "attempt_id",
        "blacklist",
        "completed",
        "idle_keys",
        "is_active",
        "keys",
        "live",
        "new_containers",
        "next_seq",
        "num_reserved",
        "opportunities",
        "order",
        "pending_m",
        "pending_v",
        "preempt",
        "queue",
        "re_reservations",
        "reserved",
        "reserved_m",
        "reserved_v",
        "runnable",
        "sorted_keys",
        "start_seq",
        "stopped",
        "used_m",
        "used_v",
        "user",
    )

    def __init__(
        self, attempt_id: ApplicationAttemptId, app: SchedulerApplication, user: User, am_m: int, am_v: int
    ) -> None:
        self.attempt_id = attempt_id
        self.app = app
        self.queue = app.queue
        self.user = user
        self.keys: dict[tuple[int, int], KeyAsks] = {}
        # Keys whose ANY count is 0 but that still hold host or rack asks. LocalityAppPlacementAllocator's
        # decrementOutstanding (and AppSchedulingInfo.updateResourceRequests for an ANY ask of 0) remove the key from
        # the scheduler keys but keep its placement allocator while its resourceRequestMap is not empty, so the
        # location asks come back with the key's next ANY ask until the AM updates them.
        self.idle_keys: dict[tuple[int, int], KeyAsks] = {}
        self.sorted_keys: list[KeyAsks] | None = []
        self.pending_m = 0
        self.pending_v = 0
        self.used_m = 0
        self.used_v = 0
        self.reserved_m = 0
        self.reserved_v = 0
        self.live: dict[ContainerId, RMContainer] = {}
        # scheduler key -> node id -> reserved container
        self.reserved: dict[tuple[int, int], dict[NodeId, RMContainer]] = {}
        self.num_reserved: dict[tuple[int, int], int] = {}
        self.re_reservations: dict[tuple[int, int], int] = {}
        self.opportunities: dict[tuple[int, int], int] = {}
        self.new_containers: list[Container] = []
        self.completed: list[ContainerStatus] = []
        # Preemption marks and the AM's blacklist: none for most attempts, so an empty frozenset shared by all (an
        # empty set takes 216 bytes; a waiting application holds both) until the first mark or addition makes a set
        # of the attempt's own (mark_preempted, update_blacklist).
        self.preempt: AbstractSet[ContainerId] = _NONE
        self.blacklist: AbstractSet[str] = _NONE
        self.next_seq = 1
        self.am_running = False
        self.am_known = False  # the AM's size was learnt from the attempt's first ask
        self.am_m = am_m
        self.am_v = am_v
        self.is_active = False
        self.stopped = False
        # CSMaxRunningAppsEnforcer (_maxrunning.py): whether max-parallel-apps let the attempt run, and its place in
        # the attempts' creation order (what SchedulerApplicationAttempt.getStartTime orders them by)
        self.runnable = True
        self.start_seq = 0
        # FIFO order: higher application priority first, then the application id (submission order)
        app_id = app.app_id
        self.order = (-app.priority, app_id.cluster_timestamp, app_id.id, attempt_id.attempt_id)

    @property
    def application_id(self) -> ApplicationId:
        return self.app.app_id

    def keys_in_order(self) -> list[KeyAsks]:
        """Scheduler keys by request priority (lower number first), then allocation request id."""
        sk = self.sorted_keys
        if sk is None:
            sk = self.sorted_keys = [self.keys[k] for k in sorted(self.keys)]
        return sk

    def has_pending(self) -> bool:
        return self.pending_m > 0 or self.pending_v > 0

    def update_blacklist(self, additions: Iterable[str], removals: Iterable[str]) -> None:
        """``SchedulerApplicationAttempt.updateBlacklist``: the additions, then the removals (a name in both ends
        up off the list)."""
        names = self.blacklist
        blacklist = names if isinstance(names, set) else set(names)
        for name in additions:
            blacklist.add(name)
        for name in removals:
            blacklist.discard(name)
        self.blacklist = blacklist if blacklist else _NONE

    def mark_preempted(self, cid: ContainerId) -> None:
        """Mark a live container for preemption (reported to the AM in its next allocate's PreemptionMessage)."""
        marks = self.preempt
        if isinstance(marks, set):
            marks.add(cid)
        else:
            self.preempt = {cid}

    def unmark_preempted(self, cid: ContainerId) -> None:
        """Drop a container's preemption mark, if it has one."""
        marks = self.preempt
        if isinstance(marks, set):
            marks.discard(cid)

    def clear_preempted(self) -> None:
        """Drop every preemption mark."""
        self.preempt = _NONE

    def get_outstanding_asks_count(self, priority: int, allocation_request_id: int = -1) -> int:
        """``SchedulerApplicationAttempt.getOutstandingAsksCount(schedulerKey)``: the scheduler key's ANY count (0 for
        a key without asks)."""
        ka = self.keys.get((priority, allocation_request_id))
        return ka.any_count if ka is not None else 0
