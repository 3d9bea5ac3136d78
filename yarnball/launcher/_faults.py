"""Fault schedules (issue 21): a JSON list of ``{"at_ms": int, "kind": str, "target": str, ...}``.

``node_lost``: the NM on the target node stops heartbeating at ``at_ms`` and the RM expires it after
``yarn.nm.liveness-monitor.expiry-interval-ms`` (the same path as ``Cluster.fail_node``).
``node_restart`` (with ``down_ms``): the NM stops at ``at_ms`` and starts again ``down_ms`` later, recovering its
containers with ``yarn.nodemanager.recovery.enabled`` + ``.supervised``, else killing them
(``Cluster.restart_node``, actors/_nmrecovery.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnball.errors import ConfigurationError

FAULT_KINDS = ("node_lost", "node_restart")


@dataclass(frozen=True)
class Fault:
    at_ms: int
    kind: str
    target: str
    down_ms: int | None = None  # node_restart: how long the NM is down (Cluster.restart_node)


def parse_faults(entries: Any, source: str = "<faults>") -> list[Fault]:
    """Validate a fault schedule; errors name the source, the entry index and the field."""
    if not isinstance(entries, list):
        raise ConfigurationError(f"{source}: a fault schedule must be a JSON list, got {type(entries).__name__}")
    faults = []
    for i, entry in enumerate(entries):
        where = f"{source}: fault {i}"
        if not isinstance(entry, Mapping):
            raise ConfigurationError(f"{where}: expected an object, got {type(entry).__name__}")
        at_ms = entry.get("at_ms")
        if isinstance(at_ms, bool) or not isinstance(at_ms, int) or at_ms < 0:
            raise ConfigurationError(f"{where}: field 'at_ms' must be a non-negative integer, got {at_ms!r}")
        kind = entry.get("kind")
        if kind not in FAULT_KINDS:
            raise ConfigurationError(f"{where}: field 'kind' must be one of {', '.join(FAULT_KINDS)}, got {kind!r}")
        target = entry.get("target")
        if not isinstance(target, str) or not target:
            raise ConfigurationError(f"{where}: field 'target' must be a non-empty string, got {target!r}")
        down_ms = entry.get("down_ms")
        if kind == "node_restart" and (isinstance(down_ms, bool) or not isinstance(down_ms, int) or down_ms < 0):
            raise ConfigurationError(f"{where}: field 'down_ms' must be a non-negative integer, got {down_ms!r}")
        faults.append(Fault(at_ms, kind, target, down_ms))
    return faults


def check_targets(faults: Sequence[Fault], hosts: Sequence[str], source: str = "<faults>") -> None:
    """Reject, before the run, a fault whose target names no node of the cluster (host or host:port)."""
    known = set(hosts)
    for i, fault in enumerate(faults):
        if fault.target.split(":", 1)[0] not in known:
            raise ConfigurationError(f"{source}: fault {i}: field 'target': unknown node {fault.target!r}")


def load_faults(path: str | Path) -> list[Fault]:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"{path}: cannot read fault schedule: {exc}") from exc
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
