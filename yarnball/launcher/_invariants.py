"""Invariants of a run, checked from its event log alone: what must hold whatever faults were injected.

The log is a sequence of event dicts (events.jsonl's lines, or records captured with ``yarnball.testing
.captured_events``). Four rules:

1. **Every allocated container ends exactly once** (completed, killed, preempted or lost): a ``container_finished``
   never repeats for a container, and when every application submitted in the log finished in it, every
   ``container_allocated`` has its ``container_finished``.
2. **No node holds more than its capacity**: the memory (and, with ``vcores=True``, the vcores) of the GUARANTEED
   containers allocated on a node and not yet ended (nor demoted to OPPORTUNISTIC, which queue on the NM beyond its
   capacity) never exceed what the node registered with (``node_added``; a node that registers again starts over).
   Hadoop's default DefaultResourceCalculator schedules on memory alone and lets a node's vcores be overcommitted,
   so vcores are checked only for runs with the DominantResourceCalculator (the caller says which).
3. **No application finishes twice**: one ``application_finished`` per application.
4. **A refused request leaves its victim untouched**, as far as the log shows: the events the same actor logs at the
   same simulated time right after a refusal (an event named ``*_refused``: the handling of that request) change
   nothing of the application, attempt or container it named (no ``application_finished``, ``application_kill``,
   ``application_moved``, ``application_priority_updated`` of that application, no ``container_finished`` of a
   container of it).

An RM restart (``rm_stopped``, actors/_rmrestart.py) empties the RM's books: the containers it held count on no node
until a node brings one back (``container_recovered``: it counts on that node again); each still ends once, like any
other (adopted, reported by its NodeManager, with its application, or LOST when its node never comes back).

The container events are logged at debug level (``--log-level debug``; captured records have them); an info-level
log is checked for rules 3 and 4 only. The tests run this on every Cluster run and every events.jsonl they produce
(tests/conftest.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["assert_invariants", "check_invariants", "read_event_log"]

_RESOURCE = re.compile(r"<memory:(\d+), vCores:(\d+)")
_APP_CHANGES = frozenset(
    {"application_finished", "application_kill", "application_moved", "application_priority_updated"}
)
_SHOWN = 20


def read_event_log(path: str | Path) -> list[dict[str, Any]]:
    """The events of an events.jsonl file."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _app_of(name: str) -> str | None:
    """``application_<ts>_<seq>`` of an application, attempt or container id (None if it is none of those)."""
    parts = name.split("_")
    if name.startswith("application_") and len(parts) == 3:
        return name
    if name.startswith("appattempt_") and len(parts) == 4:
        return f"application_{parts[1]}_{parts[2]}"
    if name.startswith("container_"):
        if len(parts) == 6:  # container_e<epoch>_...
            parts = [parts[0], *parts[2:]]
        if len(parts) == 5:
            return f"application_{parts[1]}_{parts[2]}"
    return None


def _victims(event: Mapping[str, Any]) -> set[str]:
    """The applications (and containers) a refusal names."""
    names: set[str] = set()
    for key in ("application", "attempt", "container", "application_id", "victim"):
        value = event.get(key)
        if isinstance(value, str):
            app = _app_of(value)
            if app is not None:
                names.add(app)
    return names


def check_invariants(events: Iterable[Mapping[str, Any]], *, vcores: bool = False) -> list[str]:
    """The violations of the four rules in ``events`` (empty when none), each naming the event's time and ids;
    ``vcores``: the run used the DominantResourceCalculator, so rule 2 checks vcores too."""
    problems: list[str] = []
    capacity: dict[str, tuple[int, int]] = {}
    used: dict[str, list[int]] = {}
    allocated: dict[str, tuple[str, int, int]] = {}  # container -> (node, memory, vcores)
    ended: dict[str, Any] = {}
    submitted: set[str] = set()
    finished: dict[str, Any] = {}
    refusal: tuple[Any, Any, set[str]] | None = None  # (sim_ms, actor, victims) while its handling's events run
    counted: set[str] = set()  # allocated containers whose resources count on their node now

    def _release(cid: str) -> None:
        where = allocated.get(cid)
        if where is not None and cid in counted:
            counted.discard(cid)
            u = used.get(where[0])
            if u is not None:
                u[0] -= where[1]
                u[1] -= where[2]

    for event in events:
        name = event.get("event")
        t = event.get("sim_ms")
        actor = event.get("actor")
        if refusal is not None and (t != refusal[0] or actor != refusal[1]):
            refusal = None
        if refusal is not None and refusal[2]:
            touched = None
            if name in _APP_CHANGES:
                touched = event.get("application")
            elif name == "container_finished":
                touched = event.get("container")
            if isinstance(touched, str) and _app_of(touched) in refusal[2]:
                problems.append(f"at {t} ms: {name} of {touched} right after a refused request naming it")
        if isinstance(name, str) and name.endswith("_refused"):
            refusal = (t, actor, _victims(event))
            continue
        if name == "node_added":
            node = str(event.get("node"))
            m = _RESOURCE.match(str(event.get("resource", "")))
            if m:
                capacity[node] = (int(m.group(1)), int(m.group(2)))
            used[node] = [0, 0]
        elif name == "container_allocated":
            cid = str(event.get("container"))
            node = str(event.get("node"))
            mem, vc = int(event.get("memory_mb", 0)), int(event.get("vcores", 0))
            if cid in allocated:
                problems.append(f"at {t} ms: container {cid} allocated twice")
            allocated[cid] = (node, mem, vc)
            counted.add(cid)
            u = used.setdefault(node, [0, 0])
            u[0] += mem
            u[1] += vc
            cap = capacity.get(node)
            if cap is not None and (u[0] > cap[0] or (vcores and u[1] > cap[1])):
                problems.append(
                    f"at {t} ms: node {node} holds <memory:{u[0]}, vCores:{u[1]}> with container {cid}, more than "
                    f"its capacity <memory:{cap[0]}, vCores:{cap[1]}>"
                )
        elif name == "container_finished":
            cid = str(event.get("container"))
            if cid in ended:
                again = event.get("exit_status")
                problems.append(f"at {t} ms: container {cid} ended twice (exit status {ended[cid]}, then {again})")
                continue
            ended[cid] = event.get("exit_status")
            _release(cid)
        elif name == "rm_stopped":
            counted.clear()
            for u in used.values():
                u[0] = u[1] = 0
        elif name == "container_recovered":
            cid = str(event.get("container"))
            node = str(event.get("node"))
            mem, vc = int(event.get("memory_mb", 0)), int(event.get("vcores", 0))
            allocated[cid] = (node, mem, vc)
            counted.add(cid)
            u = used.setdefault(node, [0, 0])
            u[0] += mem
            u[1] += vc
            cap = capacity.get(node)
            if cap is not None and (u[0] > cap[0] or (vcores and u[1] > cap[1])):
                problems.append(
                    f"at {t} ms: node {node} holds <memory:{u[0]}, vCores:{u[1]}> with recovered container {cid}, "
                    f"more than its capacity <memory:{cap[0]}, vCores:{cap[1]}>"
                )
        elif name == "container_demoted":
            _release(str(event.get("container")))  # OPPORTUNISTIC now: off the node's guaranteed books
        elif name == "application_submitted":
            submitted.add(str(event.get("application")))
        elif name == "application_finished":
            app = str(event.get("application"))
            if app in finished:
                problems.append(
                    f"at {t} ms: application {app} finished twice ({finished[app]}, then {event.get('state')})"
                )
            finished[app] = event.get("state")
    if submitted and submitted <= set(finished):
        never = sorted(cid for cid in allocated if cid not in ended)
        for cid in never[:_SHOWN]:
            problems.append(f"container {cid} was allocated and never ended, though every application finished")
        if len(never) > _SHOWN:
            problems.append(f"... and {len(never) - _SHOWN} more containers that never ended")
    return problems


def assert_invariants(
    events: Iterable[Mapping[str, Any]] | str | Path, what: str = "the run", *, vcores: bool = False
) -> None:
    """Raise AssertionError listing every violated invariant of ``events`` (a list of events or an events.jsonl);
    ``vcores`` as :func:`check_invariants`."""
    if isinstance(events, (str, Path)):
        what = str(events)
        events = read_event_log(events)
    problems = check_invariants(events, vcores=vcores)
    if problems:
        raise AssertionError(f"invariants violated in {what}:\n  " + "\n  ".join(problems))
