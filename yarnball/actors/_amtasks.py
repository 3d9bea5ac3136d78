"""The AM's per-container bookkeeping as typed functions over plain data, compiled with mypyc (yarnball/_native.py).

Two halves, each called once per allocate response (or per request) rather than per tiny step, since crossing
between interpreted and compiled code has a cost of its own:

- the ApplicationMaster's outstanding requests (``AMRMClient``'s ``getMatchingRequests`` + ``removeContainerRequest``
  as actors/_appmaster.py keeps them): :func:`add_request`, :func:`remove_request`, :func:`pick` and
  :func:`match_containers`, over ``_outstanding`` (priority -> RunQueue of requests, oldest first), ``_noded``
  (priority -> how many of them name nodes), ``_node_requests`` ((priority, node) -> the requests naming the node,
  in the queue's order) and the ask table of actors/_asktable.py;
- the SLS AM's pending tasks (actors/_slsam.py): :func:`task_keys` and :func:`take_tasks`, over ``pending`` (a RunQueue
  in request order) and ``_host_tasks`` ((priority, host) -> the pending tasks naming the host, in pending's order).

The requests and tasks are the interpreted classes' objects (``ContainerRequest``, the SLS ``_Task``): read here by
attribute name, never replaced. The AM classes stay interpreted (users subclass them and tests replace their methods
on instances): they call these functions only while the methods that would run instead are the base class's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Final

from yarnball.actors._asktable import AskSpec, add_asks, ask_entries, distinct, remove_asks
from yarnball.protocols import ANY, Container, ExecutionType, Resource

TaskKey = tuple[int, str]
_ANY: Final = ANY  # a C static when compiled (a module global is a dict lookup per use)

# One host's task keys by priority (``((priority, host),)``, whose one item is also the (priority, node) key of
# ``_node_requests``) and a rack's ``(rack,)``, made once and shared by every task and request naming them: a map
# names one node, and an AM holds one of each per map it has not finished (~200 bytes a map when each made its
# own). Values, not identities, are what the AM compares, so a cache cleared when it grows past
# _SHARED_MAX hosts or racks (a process running clusters of ever new host names) changes nothing but sharing.
_HOST_KEYS: Final[dict[str, dict[int, tuple[Any, ...]]]] = {}
_RACKS: Final[dict[str, tuple[str, ...]]] = {}
_SHARED_MAX: Final = 1_000_000

__all__ = [
    "ContainerRequest",
    "RunQueue",
    "SlsTask",
    "add_request",
    "choose_request",
    "match_containers",
    "pick",
    "remove_request",
    "request_tasks",
    "take_tasks",
    "task_keys",
    "tasks_of",
]


class RunQueue:
    """A queue of runs: each item with how many times it is queued, in the order items were first queued.

    What ``deque`` was for the AM's outstanding requests (a request queued ``count`` times at once) and the SLS AM's
    pending tasks (each once), without its O(n) ``remove``: these queues only ever append an item that is not queued
    yet (each request and each pending task is a new entry), so an item's occurrences are always one contiguous run
    and "remove the first occurrence" is "take one from its run" (an O(1) dict update) with the same order after.
    Iterating yields each item as often as it is queued; ``first()`` is ``q[0]`` in O(1)."""

    __slots__ = ("_len", "_runs")

    def __init__(self) -> None:
        self._runs: dict[Any, int] = {}
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __iter__(self) -> Iterator[Any]:
        if self._len == len(self._runs):
            return iter(self._runs)  # each item once (the usual case): lazily, as a deque's iterator
        return iter([item for item, n in self._runs.items() for _ in range(n)])

    def __getitem__(self, index: int) -> Any:
        return list(self)[index]

    def __contains__(self, item: object) -> bool:
        return item in self._runs

    def __repr__(self) -> str:
        return f"RunQueue({list(self)!r})"

    def first(self) -> Any:
        """The first item (``IndexError`` when empty)."""
        for item in self._runs:
            return item
        raise IndexError("first() of an empty RunQueue")

    def append(self, item: Any) -> None:
        self.add(item, 1)

    def extend(self, items: Iterable[Any]) -> None:
        for item in items:
            self.add(item, 1)

    def add(self, item: Any, count: int) -> None:
        """Queue ``item`` ``count`` more times at the end: it must not be queued yet, or be the last run."""
        n = self._runs.get(item)
        if n is None:
            self._runs[item] = count
        elif next(reversed(self._runs)) is item:
            self._runs[item] = n + count
        else:
            raise ValueError(f"RunQueue.add: {item!r} is queued already, not last: its runs would not be contiguous")
        self._len += count

    def remove(self, item: Any) -> None:
        """Take the first occurrence of ``item`` out (``ValueError`` when it is not queued), as ``deque.remove``."""
        n = self._runs.get(item)
        if n is None:
            raise ValueError(f"RunQueue.remove(x): x not in queue: {item!r}")
        if n == 1:
            del self._runs[item]
        else:
            self._runs[item] = n - 1
        self._len -= 1

    def clear(self) -> None:
        self._runs.clear()
        self._len = 0


class ContainerRequest:
    """One outstanding container request (AMRMClient.ContainerRequest): where, what, at which priority.

    A native class when compiled (its fields read here without a dictionary or descriptor lookup); users construct
    it and read its fields as before, but cannot add attributes (neither could they with the former ``__slots__``).
    """

    __slots__ = (
        "_entries",
        "_table",
        "capability",
        "execution_type",
        "nodes",
        "priority",
        "racks",
        "relax_locality",
        "request_id",
    )

    def __init__(
        self,
        capability: Resource,
        priority: int,
        nodes: tuple[str, ...] = (),
        racks: tuple[str, ...] = (),
        relax_locality: bool = True,
        execution_type: ExecutionType = ExecutionType.GUARANTEED,
        request_id: int = -1,
    ) -> None:
        self.capability = capability
        self.priority = priority
        self.nodes = nodes
        self.racks = racks
        self.relax_locality = relax_locality
        self.execution_type = execution_type
        self.request_id = request_id
        # The ask-table entries of names() (in its order) and the table they are in, set by add_request: removing
        # the request then decrements them without building and hashing its keys again.
        self._entries: tuple[list[Any], ...] = ()
        self._table: dict[AskSpec, dict[str, list[Any]]] | None = None

    def names(self) -> tuple[str, ...]:
        return (*self.nodes, *self.racks, _ANY)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled by its fields (the sharded and Ray backends ship AMs): a compiled native class has no default
        # reduction that calls __init__ with them. The entries and table travel in the same pickle as the AM's.
        fields = (self.capability, self.priority, self.nodes, self.racks, self.relax_locality, self.execution_type)
        return _rebuilt_request, (*fields, self.request_id, self._entries, self._table)


class SlsTask:
    """One task of an SLS AM (actors/_slsam.py ``_Task``): its spec, attempts so far, and what the AM reads per
    request and per container, worked out once (the spec is frozen): its priority, its (priority, host) keys in
    ``_host_tasks``, and the nodes and racks it asks for when local."""

    __slots__ = ("attempts", "etype", "keys", "nodes", "prio", "racks", "resource", "rid", "spec")

    resource: Resource
    etype: ExecutionType
    rid: int
    prio: int
    keys: tuple[Any, ...]  # (TaskKey items: Any, so that compiled code passes the shared objects on)
    nodes: tuple[str, ...]
    racks: tuple[str, ...]

    def __init__(self, spec: Any, like: SlsTask | None = None) -> None:
        self.spec = spec
        self.attempts = 0
        if like is not None:
            # another task of ``like``'s spec (tasks_of): what follows from the spec is shared, not worked out again
            self.resource = like.resource
            self.etype = like.etype
            self.rid = like.rid
            self.prio = like.prio
            self.keys = like.keys
            self.nodes = like.nodes
            self.racks = like.racks
            return
        self.resource = spec.resource
        self.etype = spec.execution_type
        self.rid = spec.allocation_request_id
        prio: int = spec.priority
        hosts: tuple[str, ...] = spec.hosts
        rack: str | None = spec.rack
        self.prio = prio
        self.keys = task_keys(prio, hosts)
        # the hosts without empty names (usually all are named: then the tuple itself)
        nodes = hosts if all(hosts) else tuple([h for h in hosts if h])
        self.nodes = nodes
        self.racks = _rack_tuple(rack) if rack and nodes else ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled by its spec and attempts (see ContainerRequest.__reduce__); the rest follows from the spec.
        return _rebuilt_task, (self.spec, self.attempts)


def tasks_of(specs: Iterable[Any]) -> list[SlsTask]:
    """The tasks of ``specs`` in order, ``count`` of each (none for a count of 0 or less), made when the AM requests
    their phase: the first of a spec works out what follows from it, the others share it."""
    out: list[SlsTask] = []
    for spec in specs:
        count: int = spec.count
        if count > 0:
            first = SlsTask(spec)
            out.append(first)
            for _ in range(count - 1):
                out.append(SlsTask(spec, first))
    return out


def _rebuilt_request(
    capability: Resource,
    priority: int,
    nodes: tuple[str, ...],
    racks: tuple[str, ...],
    relax_locality: bool,
    execution_type: ExecutionType,
    request_id: int,
    entries: tuple[list[Any], ...],
    table: dict[AskSpec, dict[str, list[Any]]] | None,
) -> ContainerRequest:
    request = ContainerRequest(capability, priority, nodes, racks, relax_locality, execution_type, request_id)
    request._entries = entries
    request._table = table
    return request


def _rebuilt_task(spec: Any, attempts: int) -> SlsTask:
    task = SlsTask(spec)
    task.attempts = attempts
    return task


# -- the ApplicationMaster's outstanding requests ------------------------------------------------------------------
def add_request(
    outstanding: dict[int, RunQueue],
    noded: dict[int, int],
    node_requests: dict[Any, list[ContainerRequest]],
    tables: dict[AskSpec, dict[str, list[Any]]],
    changed: list[list[Any]],
    request: ContainerRequest,
    count: int,
) -> None:
    """Queue ``request`` ``count`` times, index it under its nodes and add its asks (``addContainerRequest``)."""
    priority = request.priority
    queue = outstanding.get(priority)
    if queue is None:
        queue = outstanding[priority] = RunQueue()
    queue.add(request, count)
    nodes = request.nodes
    if nodes:
        repeated = (request,) * count
        noded[priority] = noded.get(priority, 0) + count
        for node in distinct(nodes):
            named = node_requests.get((priority, node))
            if named is None:
                shared: tuple[Any, ...] = _host_keys(priority, node)
                node_requests[shared[0]] = list(repeated)  # (the key kept: a shared one)
            else:
                named.extend(repeated)
    cap = request.capability
    spec: AskSpec = (priority, request.execution_type._value_, cap.memory_mb, cap.vcores, request.request_id)
    names = (*nodes, *request.racks, _ANY)
    request._entries = add_asks(tables, changed, spec, names, nodes, request.relax_locality or not nodes, count, cap)
    request._table = tables


def remove_request(
    outstanding: dict[int, RunQueue],
    noded: dict[int, int],
    node_requests: dict[Any, list[ContainerRequest]],
    tables: dict[AskSpec, dict[str, list[Any]]],
    changed: list[list[Any]],
    request: ContainerRequest,
) -> None:
    """Withdraw one occurrence of ``request`` and take one from its asks (``removeContainerRequest``).

    A request not outstanding leaves the queue and the index alone; its asks are still decremented (not below 0),
    as Hadoop's ``removeContainerRequest`` does for any request it is given."""
    priority = request.priority
    queue = outstanding.get(priority)
    if queue is not None:
        try:
            queue.remove(request)
        except ValueError:
            return
        nodes = request.nodes
        if nodes:
            noded[priority] -= 1
            for node in distinct(nodes):
                # Both drop the request's first occurrence: they keep the same relative order.
                key = (priority, node)
                named = node_requests[key]
                named.remove(request)
                if not named:
                    del node_requests[key]
    cap = request.capability
    if request._table is tables:
        entries = request._entries  # added to this attempt's table: its entries
    else:
        spec: AskSpec = (priority, request.execution_type._value_, cap.memory_mb, cap.vcores, request.request_id)
        entries = ask_entries(tables, spec, (*request.nodes, *request.racks, _ANY), cap)
    remove_asks(entries, cap, changed)


def pick(queue: Iterable[ContainerRequest], host: str, etype: ExecutionType | None) -> ContainerRequest | None:
    """The first request (of ``etype``, or any) naming ``host``, else the first without nodes, else the first."""
    first: ContainerRequest | None = None
    anywhere: ContainerRequest | None = None
    for r in queue:
        if etype is not None and r.execution_type is not etype:
            continue
        if host in r.nodes:
            return r
        if first is None:
            first = r
        if anywhere is None and not r.nodes:
            anywhere = r
    return anywhere if anywhere is not None else first


def choose_request(
    outstanding: dict[int, RunQueue],
    noded: dict[int, int],
    node_requests: dict[Any, list[ContainerRequest]],
    container: Container,
) -> ContainerRequest | None:
    """The oldest outstanding request ``container`` satisfies (node, then rack, then any), None when there is none
    of its priority: :func:`pick` of its type, else of any type, answered from the index where it can be."""
    prio = container.priority.priority
    queue = outstanding.get(prio)
    if not queue:
        return None
    host = container.node_id.host
    etype = container.execution_type
    n = noded.get(prio, 0)
    hosted = node_requests.get((prio, host)) if n else None  # (looked up once for both branches)
    if not n or (n == queue._len and not hosted):
        # No request of the priority names a node, or every one names nodes but none this host: pick's answer is
        # the first of the type, else the first (without scanning the queue for a node no request names).
        chosen: ContainerRequest = queue.first()
        if chosen.execution_type is not etype:
            for r in queue._runs:  # each request once: the first of the type is the same
                if r.execution_type is etype:
                    return r
        return chosen
    # pick(queue, host, etype) returns the first request of the type naming the host when there is one: the first
    # of the type among the host's requests, which are in the queue's order.
    if hosted:
        for r in hosted:
            if r.execution_type is etype:
                return r
    requests: Iterable[ContainerRequest] = queue._runs  # each request once: pick's answer is the same
    picked = pick(requests, host, etype)
    return picked if picked is not None else pick(requests, host, None)


def match_containers(
    outstanding: dict[int, RunQueue],
    noded: dict[int, int],
    node_requests: dict[Any, list[ContainerRequest]],
    tables: dict[AskSpec, dict[str, list[Any]]],
    changed: list[list[Any]],
    containers: tuple[Container, ...],
) -> None:
    """For each container in turn, withdraw the request :func:`choose_request` chooses (``_match`` per container)."""
    for container in containers:
        chosen = choose_request(outstanding, noded, node_requests, container)
        if chosen is not None:
            remove_request(outstanding, noded, node_requests, tables, changed, chosen)


# -- the SLS AM's pending tasks --------------------------------------------------------------------------------------
def task_keys(priority: int, hosts: tuple[str, ...]) -> tuple[Any, ...]:
    """The ``(priority, host)`` keys (TaskKey) of a task's named hosts (empty names left out), without repeats, in
    order."""
    if len(hosts) == 1:  # (the usual task: one host)
        host = hosts[0]
        return _host_keys(priority, host) if host else ()
    return tuple((priority, host) for host in distinct(hosts) if host)


def _host_keys(priority: int, host: str) -> tuple[Any, ...]:
    """``((priority, host),)``, shared (see _HOST_KEYS). Typed ``tuple[Any, ...]``: a fixed-length tuple type would
    have compiled code unbox its item and box a new one wherever it is stored."""
    by_priority = _HOST_KEYS.get(host)
    if by_priority is None:
        if len(_HOST_KEYS) >= _SHARED_MAX:
            _HOST_KEYS.clear()
        by_priority = _HOST_KEYS[host] = {}
    keys = by_priority.get(priority)
    if keys is None:
        made: tuple[Any, ...] = ((priority, host),)  # (boxed once: a chained assignment would box it twice)
        by_priority[priority] = made
        return made
    return keys


def _rack_tuple(rack: str) -> tuple[str, ...]:
    """``(rack,)``, shared (see _HOST_KEYS)."""
    racks = _RACKS.get(rack)
    if racks is None:
        if len(_RACKS) >= _SHARED_MAX:
            _RACKS.clear()
        made: tuple[str, ...] = (rack,)
        _RACKS[rack] = made
        return made
    return racks


def take_tasks(
    pending: RunQueue, by_host: dict[Any, list[SlsTask]], containers: tuple[Container, ...]
) -> list[SlsTask | None]:
    """The task each container is for, in turn (None: no pending task of its priority), taken out of ``pending``.

    SLS's rule: the first pending task of the container's priority naming its host, else the first of the priority.
    Each task carries ``prio`` (its spec's priority) and ``keys`` (:func:`task_keys` of it)."""
    out: list[SlsTask | None] = []
    for container in containers:
        prio: int = container.priority.priority
        named = by_host.get((prio, container.node_id.host))
        best: SlsTask | None = None
        if named:
            best = named[0]  # the tasks naming the host are in the order of pending
        else:
            for task in pending._runs:
                if task.prio == prio:
                    best = task
                    break
        if best is not None:
            pending.remove(best)
            for key in best.keys:
                tasks = by_host[key]
                tasks.remove(best)
                if not tasks:
                    del by_host[key]
        out.append(best)
    return out


def request_tasks(
    pending: RunQueue,
    by_host: dict[Any, list[SlsTask]],
    outstanding: dict[int, RunQueue],
    noded: dict[int, int],
    node_requests: dict[Any, list[ContainerRequest]],
    tables: dict[AskSpec, dict[str, list[Any]]],
    changed: list[list[Any]],
    tasks: list[SlsTask],
) -> None:
    """Request each task in turn as the SLS AM's ``_request`` does when it asks for the task's own execution type
    with locality: queue it as pending, index it under its hosts, and add its container request."""
    for task in tasks:
        pending.append(task)
        for key in task.keys:
            named = by_host.get(key)
            if named is None:
                by_host[key] = [task]
            else:
                named.append(task)
        request = ContainerRequest(task.resource, task.prio, task.nodes, task.racks, True, task.etype, task.rid)
        add_request(outstanding, noded, node_requests, tables, changed, request, 1)
