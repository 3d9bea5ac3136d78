"""The ApplicationMaster's ask table (AMRMClientImpl's remoteRequestsTable) as plain data and typed functions.

Kept apart from actors/_appmaster.py so that it can be compiled with mypyc (no classes, no method replacement:
the AM calls these functions; tests replace the AM's methods, never these). The table is two-level: an ask key
without its resource name (``AskSpec``: priority, execution type's value, memory, vcores, request id) -> resource
name -> entry, one tuple lookup per request and then str lookups (cached hashes). Each entry is a list
``[count, relax_locality, capability, sort key, changed]``: the sort key is the ask's send order (priority, request
id, not ANY, name, type's value, memory, vcores), built once with the entry; ``changed`` marks an entry already in
the AM's list of changed entries (sent at the next allocate, each once). A withdrawn ask is sent with count 0, and
an entry whose count is 0 leaves the table once sent, as Hadoop's (``AMRMClientImpl.decResourceRequest`` sends it
and removes it from ``remoteRequestsTable``; removing it at its send, not at its decrement, sends the same asks:
Hadoop's later add for the name makes a new entry that replaces the withdrawn one in the ask set). No outstanding
request names a removed entry: each adds 1 to its entries and its withdrawal takes 1, and a request that is not
outstanding takes from a priority only when nothing was ever asked at it (actors/_amtasks.py ``remove_request``).
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter
from typing import Any, Final

from yarnball.protocols import ANY, ExecutionType, ExecutionTypeRequest, Priority, Resource, ResourceRequest

__all__ = [
    "AskSpec",
    "add_asks",
    "ask_entries",
    "distinct",
    "entry_request",
    "remove_asks",
    "sort_changed",
    "take_changed",
]

AskSpec = tuple[int, str, int, int, int]
# Records are frozen: one shared instance of each of these small ones (built for every ask sent).
# Final: compiled code then reads them from C statics, not the module dictionary (a lookup per use).
_EXECUTION_TYPE_REQUESTS: Final[dict[str, ExecutionTypeRequest]] = {
    e.value: ExecutionTypeRequest(execution_type=e) for e in ExecutionType
}
_PRIORITIES: Final[dict[int, Priority]] = {}
_BY_SORT_KEY: Final = itemgetter(3)
_ANY: Final = ANY  # a C static when compiled (a module global is a dict lookup per use)
_RESOURCE_REQUEST: Final = ResourceRequest  # (a Final alias is a C static when compiled, as above)


def distinct(names: tuple[str, ...]) -> Iterable[str]:
    """``names`` without repeats, in order (``dict.fromkeys``; a single name is returned as it is)."""
    return names if len(names) == 1 else dict.fromkeys(names)


def _new_entry(spec: AskSpec, name: str, cap: Resource, count: int, relax: bool) -> list[Any]:
    priority, etype, mem, vcores, rid = spec
    return [count, relax, cap, (priority, rid, name != _ANY, name, etype, mem, vcores), False]


def add_asks(
    tables: dict[AskSpec, dict[str, list[Any]]],
    changed: list[list[Any]],
    spec: AskSpec,
    names: tuple[str, ...],
    nodes: tuple[str, ...],
    relax_others: bool,
    count: int,
    cap: Resource,
) -> tuple[list[Any], ...]:
    """Add ``count`` to the entries of ``names`` (the request's nodes, racks and ANY) and return them, in order.

    The nodes' entries are relaxed, the others take ``relax_others`` (AMRMClientImpl: relax_locality applies to
    the rack and ANY entries of a node-specific request); each entry takes ``cap`` (the last one added is sent)."""
    table = tables.get(spec)
    if table is None:
        table = tables[spec] = {}
    entries: list[list[Any]] = []
    for name in names:
        relax = True if name in nodes else relax_others
        entry = table.get(name)
        if entry is None:
            entry = table[name] = _new_entry(spec, name, cap, count, relax)
        else:
            entry[0] += count
            entry[1] = relax
            entry[2] = cap
        if not entry[4]:
            entry[4] = True
            changed.append(entry)
        entries.append(entry)
    return tuple(entries)


def ask_entries(
    tables: dict[AskSpec, dict[str, list[Any]]], spec: AskSpec, names: tuple[str, ...], cap: Resource
) -> tuple[list[Any], ...]:
    """The entries of ``names`` under ``spec``, a missing one made with count 0 (a request not added here)."""
    table = tables.get(spec)
    if table is None:
        table = tables[spec] = {}
    entries: list[list[Any]] = []
    for name in names:
        entry = table.get(name)
        if entry is None:
            entry = table[name] = _new_entry(spec, name, cap, 0, True)
        entries.append(entry)
    return tuple(entries)


def remove_asks(entries: tuple[list[Any], ...], cap: Resource, changed: list[list[Any]]) -> None:
    """Take one from each entry (not below 0), each taking ``cap`` (``removeContainerRequest``)."""
    for entry in entries:
        left: int = entry[0]
        entry[0] = left - 1 if left > 0 else 0
        entry[2] = cap
        if not entry[4]:
            entry[4] = True
            changed.append(entry)


def _name(entry: list[Any]) -> str:
    key: tuple[Any, ...] = entry[3]
    return key[3]  # type: ignore[no-any-return]


def sort_changed(changed: list[list[Any]]) -> None:
    """``changed.sort(key=_BY_SORT_KEY)`` (the send order: priority, request id, not ANY, name, type, memory,
    vcores), with cheaper comparisons when every entry has the same priority, request id, type, memory and vcores
    (one request shape, as an AM's maps): the order is then the ANY entry, then the others by name (entries with
    equal keys keep their order, as in the full sort, which is stable). Names are strings, which a sort compares
    without the tuple protocol: several calls for each comparison of two 7-tuples whose first three fields are equal
    (3.5% of a busy run's instructions went to this sort). Otherwise the full sort."""
    if len(changed) < 2:
        return
    first: tuple[Any, ...] = changed[0][3]
    p, r, e, m, v = first[0], first[1], first[4], first[5], first[6]
    named: list[list[Any]] = []
    anywhere: list[list[Any]] = []
    for entry in changed:
        k: tuple[Any, ...] = entry[3]
        if k[0] != p or k[1] != r or k[4] != e or k[5] != m or k[6] != v:
            changed.sort(key=_BY_SORT_KEY)
            return
        if k[2]:
            named.append(entry)
        else:
            anywhere.append(entry)
    named.sort(key=_name)
    changed[:] = anywhere + named


def take_changed(changed: list[list[Any]], tables: dict[AskSpec, dict[str, list[Any]]]) -> tuple[ResourceRequest, ...]:
    """The ResourceRequests of the changed entries in their send order; they are no longer changed, and those with
    count 0 leave ``tables`` (``remoteRequestsTable.remove``)."""
    sort_changed(changed)
    out: list[ResourceRequest] = []
    for entry in changed:
        entry[4] = False
        out.append(entry_request(entry))
        if entry[0] == 0:
            _remove_entry(tables, entry)
    return tuple(out)


def _remove_entry(tables: dict[AskSpec, dict[str, list[Any]]], entry: list[Any]) -> None:
    """Take a sent entry of count 0 out of ``tables`` (its spec's table too, once empty)."""
    sort_key: tuple[Any, ...] = entry[3]  # (priority, request id, not ANY, name, type's value, memory, vcores)
    spec: AskSpec = (sort_key[0], sort_key[4], sort_key[5], sort_key[6], sort_key[1])
    table = tables.get(spec)
    name: str = sort_key[3]
    if table is not None and table.get(name) is entry:
        del table[name]
        if not table:
            del tables[spec]


def entry_request(entry: list[Any]) -> ResourceRequest:
    """The ResourceRequest of one entry (built when it is sent: only changed entries are)."""
    sort_key: tuple[Any, ...] = entry[3]  # (priority, request id, not ANY, name, type's value, memory, vcores)
    value: int = sort_key[0]
    priority = _PRIORITIES.get(value)
    if priority is None:
        priority = _PRIORITIES[value] = Priority(value)
    return _RESOURCE_REQUEST(
        priority=priority,
        capability=entry[2],
        resource_name=sort_key[3],
        num_containers=entry[0],
        relax_locality=entry[1],
        execution_type_request=_EXECUTION_TYPE_REQUESTS[sort_key[4]],
        allocation_request_id=sort_key[1],
    )
