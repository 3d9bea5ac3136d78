"""``yarnball preempt SNAPSHOT.json``: what would YARN's preemption policy take, right now?

Give it a snapshot of a CapacityScheduler cluster (queues, applications, containers) and it runs one round of
:class:`~yarnball.policies.preemption.ProportionalCapacityPreemptionPolicy` (Hadoop 3.3 semantics, default
partition, DefaultResourceCalculator) and prints the plan: which containers would be marked for preemption
and each queue's ideal assignment.

Snapshot JSON schema
--------------------
A *resource* is ``{"memory_mb": int, "vcores": int}`` (both >= 0). The snapshot is an object with:

- ``"cluster"`` (resource, required): the cluster's total resource.
- ``"config"`` (object, optional): Hadoop keys -> values (string, number or bool), e.g.
  ``"yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round": 0.1`` or
  ``"yarn.scheduler.capacity.root.a.disable_preemption": true``. Missing keys take Hadoop's defaults
  (per round 0.1, natural termination 0.2, dead zone 0.1, max_wait_before_kill 15000 ms, AM share 0.1).
- ``"queues"`` (list, required): every queue, root and parents included, each with
  ``"path"`` (``"root.a.b"``), ``"absolute_capacity"`` and ``"absolute_maximum_capacity"`` (fractions of the
  cluster, 0..1), ``"used"``, ``"pending"`` and ``"reserved"`` (resources; a parent's pending is recomputed as
  the sum of its children's), and optionally ``"guaranteed"`` and ``"maximum"`` (effective resources that
  override capacity x cluster), ``"preemption_disabled"`` (bool; inherited by children unless they set it)
  and ``"maximum_am_resource_percent"`` (a fraction).
- ``"applications"`` (list, optional): each with ``"id"``, ``"queue"`` (a leaf path, or a leaf name when it
  is unique), ``"containers"`` and optionally ``"user"``, ``"priority"`` (application priority, larger is more
  important; default 0), ``"submission_order"`` (default 0) and ``"pending"`` (resource). Each container has
  ``"id"``, ``"resource"``, ``"priority"`` (request priority, smaller is more important), ``"start_order"``
  (larger is newer) and optionally ``"am"`` and ``"reserved"`` (bools, default false) and ``"node"``.

Unknown fields are rejected. Errors name the JSON path: ``$.queues[2].used.memory_mb: expected int, got str``.

Plan JSON
---------
``{"observe_only": bool, "preempt": [{"container", "application", "queue", "resource"}], "queues": [{"path",
"ideal_assigned", "to_preempt"}]}``. ``preempt`` lists the containers selected this round, in selection order.
With ``yarn.resourcemanager.monitor.capacity.preemption.observe_only`` true, ``observe_only`` is true and ``preempt``
is empty: the policy computes the round (the queues' figures stay) but, as in Hadoop
(``ProportionalCapacityPreemptionPolicy.containerBasedPreemptOrKill`` returns before any action), marks and kills
nothing. For a leaf,
``to_preempt`` is what the policy tries to reclaim from it this round (after the dead zone, the natural
termination factor and the per-round budget); for a parent it is the excess computed at its level. As in
Hadoop with the DefaultResourceCalculator, only memory drives decisions; vcores in ``ideal_assigned`` and
``to_preempt`` follow Hadoop's own (memory-only) bookkeeping and are not meaningful.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec

from yarnball._inputs import MAX_FILE_BYTES, MAX_NESTING_DEPTH, check_nesting, read_input
from yarnball.errors import ConfigurationError, one_line
from yarnball.policies.preemption import (
    AppSnapshot,
    ClusterSnapshot,
    ContainerSnapshot,
    ProportionalCapacityPreemptionPolicy,
    QueueSnapshot,
)
from yarnball.protocols import Resource

__all__ = ["build_parser", "load_snapshot", "main", "parse_snapshot", "plan_preemption"]

#: Resource values stay below 2**62 so that sums over a whole cluster (and Hadoop's long arithmetic) cannot overflow.
MAX_RESOURCE = 2**62
NonNegative = Annotated[int, msgspec.Meta(ge=0, le=MAX_RESOURCE)]
JavaInt = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]  # priorities: Java ints in Hadoop
JavaLong = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
Fraction = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]


# The wire types: strict (required fields, no unknown fields, bounds) so a typo is an error, not a zero.
class _Res(msgspec.Struct, forbid_unknown_fields=True):
    memory_mb: NonNegative
    vcores: NonNegative


class _Container(msgspec.Struct, forbid_unknown_fields=True):
    id: str
    resource: _Res
    priority: JavaInt
    start_order: JavaLong
    am: bool = False
    reserved: bool = False
    node: str = ""


class _App(msgspec.Struct, forbid_unknown_fields=True):
    id: str
    queue: str
    containers: list[_Container]
    user: str = ""
    priority: JavaInt = 0
    submission_order: JavaLong = 0
    pending: _Res | None = None


class _Queue(msgspec.Struct, forbid_unknown_fields=True):
    path: str
    absolute_capacity: Fraction
    absolute_maximum_capacity: Fraction
    used: _Res
    pending: _Res
    reserved: _Res
    guaranteed: _Res | None = None
    maximum: _Res | None = None
    preemption_disabled: bool | None = None
    maximum_am_resource_percent: Fraction | None = None


class _Snapshot(msgspec.Struct, forbid_unknown_fields=True):
    cluster: _Res
    queues: list[_Queue]
    config: dict[str, str | int | float | bool] = msgspec.field(default_factory=dict)
    applications: list[_App] = msgspec.field(default_factory=list)


_AT = re.compile(r"^(?P<msg>.*) - at `(?P<path>\$[^`]*)`$", re.DOTALL)


def _translate(err: msgspec.MsgspecError) -> ConfigurationError:
    """msgspec's "Expected `int`, got `str` - at `$.a[0].b`" -> "$.a[0].b: expected int, got str"."""
    text = str(err)
    m = _AT.match(text)
    path, msg = (m["path"], m["msg"]) if m else ("$", text)
    missing = re.match(r"Object missing required field `(.+)`", msg)
    unknown = re.match(r"Object contains unknown field `(.+)`", msg)
    if missing:
        path, msg = f"{path}.{missing[1]}", "required field is missing"
    elif unknown:
        path, msg = f"{path}.{unknown[1]}", "unknown field"
    elif isinstance(err, msgspec.DecodeError) and not m:
        msg = f"invalid JSON: {msg}"
    msg = msg.replace("`", "")
    return ConfigurationError(f"{path}: {msg[:1].lower()}{msg[1:]}")


def _res(r: _Res | None) -> Resource:
    return Resource() if r is None else Resource(r.memory_mb, r.vcores)


def _from_wire(w: _Snapshot) -> ClusterSnapshot:
    seen: dict[str, str] = {}
    for i, a in enumerate(w.applications):
        for j, c in enumerate(a.containers):
            where = f"$.applications[{i}].containers[{j}].id"
            if c.id in seen:  # a container id names one container: the plan lists containers by id
                raise ConfigurationError(f"{where}: duplicate container id {c.id!r} (first at {seen[c.id]})")
            seen[c.id] = where
    return ClusterSnapshot(
        cluster=_res(w.cluster),
        config=dict(w.config),
        queues=tuple(
            QueueSnapshot(
                path=q.path,
                absolute_capacity=q.absolute_capacity,
                absolute_maximum_capacity=q.absolute_maximum_capacity,
                guaranteed=None if q.guaranteed is None else _res(q.guaranteed),
                maximum=None if q.maximum is None else _res(q.maximum),
                used=_res(q.used),
                pending=_res(q.pending),
                reserved=_res(q.reserved),
                preemption_disabled=q.preemption_disabled,
                maximum_am_resource_percent=q.maximum_am_resource_percent,
            )
            for q in w.queues
        ),
        applications=tuple(
            AppSnapshot(
                id=a.id,
                queue=a.queue,
                user=a.user,
                priority=a.priority,
                submission_order=a.submission_order,
                pending=_res(a.pending),
                containers=tuple(
                    ContainerSnapshot(
                        id=c.id,
                        resource=_res(c.resource),
                        priority=c.priority,
                        start_order=c.start_order,
                        am=c.am,
                        reserved=c.reserved,
                        node=c.node,
                    )
                    for c in a.containers
                ),
            )
            for a in w.applications
        ),
    )


def _utf8_error(data: bytes, err: UnicodeDecodeError) -> ConfigurationError:
    """Where the first byte that is not UTF-8 sits: the JSON path of the string holding it when the rest of the
    document parses (with the bad bytes replaced), else its byte offset, line and column."""
    line = data.count(b"\n", 0, err.start) + 1
    column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
    where = f"byte {err.start} (line {line}, column {column})"
    try:
        loose = msgspec.json.decode(data.decode("utf-8", errors="replace"))
    except msgspec.MsgspecError:
        return ConfigurationError(f"$: not valid UTF-8 at {where} (expected a UTF-8 JSON document)")
    path = _find_replacement(loose, "$") or "$"
    return ConfigurationError(f"{path}: not valid UTF-8 at {where} (expected a UTF-8 JSON document)")


def _find_replacement(node: Any, path: str) -> str | None:
    """The JSON path of the first key or string holding U+FFFD (the decoder's stand-in for a bad byte)."""
    stack: list[tuple[Any, str]] = [(node, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            if "\ufffd" in value:
                return where
        elif isinstance(value, dict):
            items = list(value.items())
            for key, _ in items:
                if "\ufffd" in key:
                    return f"{where}.{key}"
            stack.extend((v, f"{where}.{key}") for key, v in reversed(items))
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(value))))
    return None


def parse_snapshot(data: Mapping[str, Any] | bytes | str) -> ClusterSnapshot:
    """Validate a snapshot (a JSON document, or the dict it decodes to) and build the policy's input."""
    if isinstance(data, bytes | bytearray | memoryview):
        data = bytes(data)
        try:
            check_nesting(data.decode("utf-8"), "$", "JSON")
        except UnicodeDecodeError as err:
            raise _utf8_error(data, err) from err
    elif isinstance(data, str):
        check_nesting(data, "$", "JSON")
    try:
        if isinstance(data, bytes | str):
            wire = msgspec.json.decode(data, type=_Snapshot)
        else:
            wire = msgspec.convert(data, type=_Snapshot)
    except msgspec.MsgspecError as err:
        raise _translate(err) from err
    except UnicodeError as err:  # a str holding lone surrogates
        raise ConfigurationError(f"$: not valid Unicode text: {err} (expected a UTF-8 JSON document)") from err
    except RecursionError:  # a mapping nested deeper than the stack (a document is checked above)
        raise ConfigurationError(f"$: nested too deeply (more than {MAX_NESTING_DEPTH} levels)") from None
    return _from_wire(wire)


def load_snapshot(path: str | Path) -> ClusterSnapshot:
    """Read and validate a snapshot JSON file; errors name the file and the JSON path."""
    p = Path(path)
    raw = read_input(p, "snapshot")
    try:
        return parse_snapshot(raw)
    except ConfigurationError as err:
        raise ConfigurationError(f"{p}: {err}") from err


def _json_path(message: str) -> str:
    """Turn the policy's "queues[2].path: ..." or "<hadoop key>: ..." messages into JSON paths."""
    if message.startswith(("queues", "applications")):
        return "$." + message
    key, sep, rest = message.partition(": ")
    if sep and key.startswith("yarn."):
        return f'$.config["{key}"]: {rest}'
    return message


def _plan(snapshot: ClusterSnapshot, warnings: list[str] | None = None) -> dict[str, Any]:
    try:
        rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snapshot, now_ms=0)
    except ConfigurationError as err:
        raise ConfigurationError(_json_path(str(err))) from err
    if warnings is not None:
        warnings.extend(rnd.warnings)

    def res(r: Resource) -> dict[str, int]:
        return {"memory_mb": r.memory_mb, "vcores": r.vcores}

    return {
        "observe_only": rnd.observe_only,
        "preempt": [
            {
                "container": c.container_id,
                "application": c.application_id,
                "queue": c.queue,
                "resource": res(c.resource),
            }
            for c in rnd.candidates
            if not rnd.observe_only  # observeOnly: containerBasedPreemptOrKill returns before preempting anything
        ],
        "queues": [
            {
                "path": q.path,
                "ideal_assigned": res(q.ideal_assigned),
                "to_preempt": res(q.actually_to_be_preempted if q.leaf else q.to_be_preempted),
            }
            for q in rnd.queues
        ],
    }


def plan_preemption(snapshot: Mapping[str, Any] | ClusterSnapshot) -> dict[str, Any]:
    """One policy round over ``snapshot`` (the JSON schema above, as a dict) -> the plan, as a dict.

    Raises ConfigurationError naming the JSON path of the first problem.
    """
    if not isinstance(snapshot, ClusterSnapshot):
        snapshot = parse_snapshot(snapshot)
    return _plan(snapshot)


def build_parser() -> argparse.ArgumentParser:
    """The ``yarnball preempt`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="yarnball preempt",
        description="Show which containers YARN's ProportionalCapacityPreemptionPolicy would preempt.",
    )
    parser.add_argument("snapshot", help="snapshot JSON file ('-' for standard input)")
    parser.add_argument("--indent", type=int, default=2, help="JSON indentation (0 for one line)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``yarnball preempt SNAPSHOT.json``: print the plan as JSON; exit 2 on a bad snapshot."""
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    name = "<stdin>" if args.snapshot == "-" else args.snapshot
    try:
        if args.snapshot == "-":
            try:
                data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
                if len(data) > MAX_FILE_BYTES:
                    raise ConfigurationError(f"more than {MAX_FILE_BYTES} bytes on standard input")
                snapshot = parse_snapshot(data)
            except ConfigurationError as err:
                raise ConfigurationError(f"{name}: {err}") from err
        else:
            snapshot = load_snapshot(args.snapshot)
        warnings: list[str] = []
        try:
            plan = _plan(snapshot, warnings)
        except ConfigurationError as err:  # the policy's checks (queue tree, config values): name the file too
            raise ConfigurationError(f"{name}: {err}") from err
    except ConfigurationError as err:
        print(f"yarnball preempt: error: {one_line(err)}", file=sys.stderr)
        return 2
    for warning in warnings:
        print(f"yarnball preempt: warning: {one_line(warning)}", file=sys.stderr)
    if plan["observe_only"]:
        print(
            "yarnball preempt: observe-only (yarn.resourcemanager.monitor.capacity.preemption.observe_only=true): "
            "the round is computed but no container is preempted",
            file=sys.stderr,
        )
    out = msgspec.json.encode(plan)
    if args.indent > 0:
        out = msgspec.json.format(out, indent=args.indent)
    sys.stdout.write(out.decode() + "\n")
    return 0
