"""Fault schedules: a JSON list of ``{"at_ms": int, "kind": str, "target": str, ...}``.

This module reads and validates a schedule; launcher/_faultinjector.py applies one to a Cluster. The kinds, their
targets and their parameters (the documentation's fault reference says what each does):

==================== ============================== =========================================================
kind                 target                         parameters
==================== ============================== =========================================================
node_lost            a node (host or host:port)     -
node_restart         a node                         ``down_ms`` (required: how long the NM is down;
                                                    Cluster.restart_node, actors/_nmrecovery.py)
node_decommission    a node                         ``timeout_s`` (default
                                                    yarn.resourcemanager.nodemanager-graceful-decommission-timeout-secs)
am_crash             an application (job name or    ``exit_status`` (default 1)
                     application_<ts>_<seq>)
container_fail       a container id, or an          ``exit_status`` (default 1)
                     application (its oldest running
                     task container)
message_drop         a link: ``am->rm``,            ``message`` (type name), ``duration_ms``, ``probability``
                     ``rm->am``, ``nm->rm``,        (default 1.0)
                     ``rm->nm``, ``am->nm``,
                     ``nm->am`` (MESSAGE_LINKS)
message_delay        a link                         the same, and ``delay_ms``
message_duplicate    a link                         the same, and ``delay_ms`` of the copy (default 0)
rm_restart           ``rm``                         ``down_ms`` (required: how long the RM is down;
                                                    work-preserving with yarn.resourcemanager.recovery.enabled,
                                                    actors/_rmrestart.py)
==================== ============================== =========================================================

Every error names the source, the entry index and the field, and says what was expected. Times are bounded
(:data:`MAX_AT_MS` for a time or a window, :data:`MAX_DOWN_MS` for how long something is down or late) so that every
fault ends and every time stays exact in the simulation's clock.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yarnball._inputs import check_nesting, read_input_text
from yarnball.errors import ConfigurationError, one_line

__all__ = [
    "FAULT_KINDS",
    "MAX_AT_MS",
    "MAX_DOWN_MS",
    "MESSAGE_FAULT_KINDS",
    "MESSAGE_LINKS",
    "NM_CONTAINER_LINKS",
    "NM_HEARTBEAT_LINKS",
    "Fault",
    "as_faults",
    "check_targets",
    "load_faults",
    "parse_faults",
]

MESSAGE_FAULT_KINDS = ("message_drop", "message_delay", "message_duplicate")
FAULT_KINDS = (
    "node_lost",
    "node_restart",
    "node_decommission",
    "am_crash",
    "container_fail",
    *MESSAGE_FAULT_KINDS,
    "rm_restart",
)

#: The links message faults act on and the message types each carries: ApplicationMasterProtocol's allocate
#: exchange (its retry and response-id rules: actors/_amrpc.py), ResourceTracker's node heartbeat and
#: ContainerManagementProtocol's start and stop calls (their retries, response ids and acknowledgements:
#: actors/_nmrpc.py).
MESSAGE_LINKS: dict[str, tuple[str, ...]] = {
    "am->rm": ("AllocateRequest",),
    "rm->am": ("AllocateResponse",),
    "nm->rm": ("NodeHeartbeatRequest",),
    "rm->nm": ("NodeHeartbeatResponse",),
    "am->nm": ("StartContainersRequest", "StopContainersRequest"),
    "nm->am": ("StartContainersResponse", "StopContainersResponse"),
}
#: The links whose faults switch on the NodeManager's RPC rules (actors/_nmrpc.py).
NM_HEARTBEAT_LINKS = ("nm->rm", "rm->nm")
NM_CONTAINER_LINKS = ("am->nm", "nm->am")

#: The latest ``at_ms`` and the longest ``duration_ms`` (10^12 ms, about 31.7 years: beyond any trace, and exact in
#: the clock's float milliseconds with any sum of them).
MAX_AT_MS = 10**12
#: The longest ``down_ms`` and ``delay_ms`` (one day): a process down, or a message late, longer than every liveness
#: interval by far; longer would keep the run going on retries for nothing.
MAX_DOWN_MS = 86_400_000
_MAX_TIMEOUT_S = MAX_AT_MS // 1000
_INT32 = (-(2**31), 2**31 - 1)  # an exit status (a Java int)

_COMMON = ("at_ms", "kind", "target")
_PARAMETERS: dict[str, tuple[str, ...]] = {
    "node_lost": (),
    "node_restart": ("down_ms",),
    "node_decommission": ("timeout_s",),
    "am_crash": ("exit_status",),
    "container_fail": ("exit_status",),
    "message_drop": ("message", "duration_ms", "probability"),
    "message_delay": ("message", "duration_ms", "probability", "delay_ms"),
    "message_duplicate": ("message", "duration_ms", "probability", "delay_ms"),
    "rm_restart": ("down_ms",),
}
_APP_ID = re.compile(r"application_(\d+)_(\d+)$")
_CONTAINER_ID = re.compile(r"container_(?:e\d+_)?(\d+)_(\d+)_(\d+)_(\d+)$")


@dataclass(frozen=True)
class Fault:
    """One entry of a schedule. ``params`` holds the kind's parameters, defaults filled in where they do not depend
    on the cluster (``timeout_s`` is None when the entry leaves it to the configuration)."""

    at_ms: int
    kind: str
    target: str
    params: Mapping[str, Any] = field(default_factory=dict)
    index: int = 0

    def get(self, name: str, default: Any = None) -> Any:
        return self.params.get(name, default)


def _int(where: str, name: str, value: Any, *, minimum: int = 0, maximum: int = MAX_AT_MS) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise ConfigurationError(
            f"{where}: field {name!r} must be an integer from {minimum} to {maximum}, got {_shown(value)}"
        )
    return value


def _shown(value: Any) -> str:
    """``value`` as the file spells it, a very long one abbreviated (the message stays one short line)."""
    text = one_line(repr(value))
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


def _params(where: str, kind: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    allowed = _PARAMETERS[kind]
    for key in entry:
        if key not in _COMMON and key not in allowed:
            expected = ", ".join(allowed) if allowed else "no parameters"
            raise ConfigurationError(f"{where}: field {key!r} is not a parameter of {kind} (expected: {expected})")
    params: dict[str, Any] = {}
    if kind == "node_restart":
        if "down_ms" not in entry:
            raise ConfigurationError(f"{where}: field 'down_ms' is required for node_restart (how long the NM is down)")
        params["down_ms"] = _int(where, "down_ms", entry["down_ms"], maximum=MAX_DOWN_MS)
    elif kind == "rm_restart":
        if entry.get("target") != "rm":
            raise ConfigurationError(
                f"{where}: field 'target' must be 'rm' for rm_restart, got {entry.get('target')!r}"
            )
        if "down_ms" not in entry:
            raise ConfigurationError(f"{where}: field 'down_ms' is required for rm_restart (how long the RM is down)")
        params["down_ms"] = _int(where, "down_ms", entry["down_ms"], maximum=MAX_DOWN_MS)
    elif kind == "node_decommission":
        if "timeout_s" in entry:
            params["timeout_s"] = _int(where, "timeout_s", entry["timeout_s"], maximum=_MAX_TIMEOUT_S)
        else:
            params["timeout_s"] = None
    elif kind in ("am_crash", "container_fail"):
        low, high = _INT32
        params["exit_status"] = _int(where, "exit_status", entry.get("exit_status", 1), minimum=low, maximum=high)
    elif kind in MESSAGE_FAULT_KINDS:
        link = entry.get("target")
        message = entry.get("message")
        types = MESSAGE_LINKS.get(link, ()) if isinstance(link, str) else ()
        if link not in MESSAGE_LINKS:
            raise ConfigurationError(
                f"{where}: field 'target' must be a link, one of {', '.join(MESSAGE_LINKS)}, got {link!r}"
            )
        if message not in types:
            raise ConfigurationError(
                f"{where}: field 'message' must be a message type of {link}, one of {', '.join(types)}, "
                f"got {message!r}"
            )
        params["message"] = message
        if "duration_ms" not in entry:
            raise ConfigurationError(f"{where}: field 'duration_ms' is required (the window's length, ms)")
        params["duration_ms"] = _int(where, "duration_ms", entry["duration_ms"], minimum=1)
        probability = entry.get("probability", 1.0)
        if isinstance(probability, bool) or not isinstance(probability, (int, float)) or not 0 < probability <= 1:
            raise ConfigurationError(f"{where}: field 'probability' must be a number in (0, 1], got {probability!r}")
        params["probability"] = float(probability)
        if kind == "message_delay":
            if "delay_ms" not in entry:
                raise ConfigurationError(f"{where}: field 'delay_ms' is required for message_delay")
            params["delay_ms"] = _int(where, "delay_ms", entry["delay_ms"], minimum=1, maximum=MAX_DOWN_MS)
        elif kind == "message_duplicate":
            params["delay_ms"] = _int(where, "delay_ms", entry.get("delay_ms", 0), maximum=MAX_DOWN_MS)
    return params


def parse_faults(entries: Any, source: str = "<faults>") -> list[Fault]:
    """Validate a fault schedule; errors name the source, the entry index and the field."""
    if not isinstance(entries, list):
        raise ConfigurationError(f"{source}: a fault schedule must be a JSON list, got {type(entries).__name__}")
    faults = []
    for i, entry in enumerate(entries):
        where = f"{source}: fault {i}"
        if not isinstance(entry, Mapping):
            raise ConfigurationError(f"{where}: expected an object, got {type(entry).__name__}")
        at_ms = _int(where, "at_ms", entry.get("at_ms"))
        kind = entry.get("kind")
        if kind not in FAULT_KINDS:
            raise ConfigurationError(f"{where}: field 'kind' must be one of {', '.join(FAULT_KINDS)}, got {kind!r}")
        target = entry.get("target")
        if not isinstance(target, str) or not target:
            raise ConfigurationError(f"{where}: field 'target' must be a non-empty string, got {target!r}")
        faults.append(Fault(at_ms, kind, target, _params(where, kind, entry), i))
    return faults


def check_targets(
    faults: Sequence[Fault],
    hosts: Sequence[str],
    source: str = "<faults>",
    *,
    jobs: Sequence[str] = (),
    cluster_timestamp: int | None = None,
) -> None:
    """Reject, before the run, a fault whose target the cluster does not have: a node (host or host:port) for the
    node kinds, an application (a job name, or ``application_<ts>_<seq>`` with this RM's timestamp and a sequence
    number no larger than the number of jobs) or a container of one for the others."""
    known = set(hosts)
    names = set(jobs)

    def application_ok(ts: str, seq: str) -> bool:
        return (cluster_timestamp is None or int(ts) == cluster_timestamp) and 1 <= int(seq) <= len(names)

    for fault in faults:
        where = f"{source}: fault {fault.index}: field 'target'"
        target = fault.target
        if fault.kind in ("node_lost", "node_restart", "node_decommission"):
            if target.split(":", 1)[0] not in known:
                raise ConfigurationError(f"{where}: unknown node {target!r}")
        elif fault.kind == "am_crash" or (fault.kind == "container_fail" and not target.startswith("container_")):
            m = _APP_ID.match(target)
            if target not in names and not (m and application_ok(m.group(1), m.group(2))):
                raise ConfigurationError(
                    f"{where}: unknown application {target!r} (expected a job name of the workload or "
                    f"application_<clusterTimestamp>_<seq> of one of its {len(names)} applications)"
                )
        elif fault.kind == "container_fail":
            m = _CONTAINER_ID.match(target)
            if not (m and application_ok(m.group(1), m.group(2))):
                raise ConfigurationError(
                    f"{where}: unknown container {target!r} (expected container_<clusterTimestamp>_<app>_<attempt>_<n> "
                    "of one of the workload's applications)"
                )


def load_faults(path: str | Path) -> list[Fault]:
    text = read_input_text(path, "fault schedule")
    check_nesting(text, str(path), "JSON")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigurationError(f"{one_line(path)}: cannot read fault schedule: {one_line(exc)}") from exc
    return parse_faults(data, str(path))


def as_faults(faults: Fault | Mapping[str, Any] | Sequence[Any] | str | Path) -> list[Fault]:
    if isinstance(faults, (str, Path)):
        return load_faults(faults)
    if isinstance(faults, Fault):
        return [faults]
    if isinstance(faults, Mapping):
        return parse_faults([faults])
    items = list(faults)
    if all(isinstance(f, Fault) for f in items):
        return items
    return parse_faults(items)
