"""Elastic clusters: an autoscaler that adds NodeManagers when requests wait and removes idle ones.

Modelled on Qubole's autoscaling Hadoop clusters, the setting of its container-packing post: the user gives a
minimum and a maximum cluster size, and

- **upscale**: when some application's requests have been waiting longer than ``upscale_wait_ms`` (Qubole: three
  minutes), enough nodes to hold the waiting demand that the free and booting capacity cannot are started (within
  ``max_nodes``); a new node registers after ``node_startup_ms`` (instance boot) and is billed from its request;
- **downscale**: a node that runs nothing and holds no application state (no container, no reservation, and no
  unfinished application ever ran a container on it: its local disks may hold shuffle data that application still
  needs) for ``downscale_cooldown_ms`` is removed (never below ``min_nodes``). It leaves through the normal NM path:
  the NodeManager unregisters (``UnRegisterNodeManagerRequest``) and the RM sends NODE_REMOVED to the scheduler.

It reports node-hours (billed node time) and utilisation (allocated memory over billed memory, integrated at each
check). Qubole's autoscaler itself is not public; the decision rules above are yarnball's reading of its
description, and the keys are yarnball's own (``yarnball.elastic.*``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError
from yarnball.launcher.workloads import NodeSpec
from yarnball.protocols import Configuration
from yarnball.protocols import keys as k

if TYPE_CHECKING:
    from yarnball.launcher._cluster import Cluster
    from yarnball.launcher._embedded import EmbeddedBackend

__all__ = [
    "ELASTIC_CHECK_INTERVAL_MS",
    "ELASTIC_DOWNSCALE_COOLDOWN_MS",
    "ELASTIC_ENABLED",
    "ELASTIC_MAX_NODES",
    "ELASTIC_MIN_NODES",
    "ELASTIC_NODE_STARTUP_MS",
    "ELASTIC_UPSCALE_WAIT_MS",
    "Autoscaler",
    "ElasticConfig",
    "ElasticReport",
    "node_hours",
]

log = get_logger(__name__)

# yarnball's own keys, documented with their defaults at the end of protocols/keys.py.
ELASTIC_ENABLED = k.ELASTIC_ENABLED
ELASTIC_MIN_NODES = k.ELASTIC_MIN_NODES
ELASTIC_MAX_NODES = k.ELASTIC_MAX_NODES
ELASTIC_UPSCALE_WAIT_MS = k.ELASTIC_UPSCALE_WAIT_MS
ELASTIC_DOWNSCALE_COOLDOWN_MS = k.ELASTIC_DOWNSCALE_COOLDOWN_MS
ELASTIC_CHECK_INTERVAL_MS = k.ELASTIC_CHECK_INTERVAL_MS
ELASTIC_NODE_STARTUP_MS = k.ELASTIC_NODE_STARTUP_MS

_FIELD_KEYS = {
    "min_nodes": ELASTIC_MIN_NODES,
    "max_nodes": ELASTIC_MAX_NODES,
    "upscale_wait_ms": ELASTIC_UPSCALE_WAIT_MS,
    "downscale_cooldown_ms": ELASTIC_DOWNSCALE_COOLDOWN_MS,
    "check_interval_ms": ELASTIC_CHECK_INTERVAL_MS,
    "node_startup_ms": ELASTIC_NODE_STARTUP_MS,
}

_HOUR_MS = 3_600_000.0


@dataclass(frozen=True)
class ElasticConfig:
    """Autoscaling bounds and timings. ``max_nodes`` None means the cluster's initial size; ``node`` is the
    template for added nodes (default: the cluster's first node)."""

    min_nodes: int = k.DEFAULT_ELASTIC_MIN_NODES
    max_nodes: int | None = None
    upscale_wait_ms: int = k.DEFAULT_ELASTIC_UPSCALE_WAIT_MS  # Qubole: requests pending for three minutes
    downscale_cooldown_ms: int = k.DEFAULT_ELASTIC_DOWNSCALE_COOLDOWN_MS
    check_interval_ms: int = k.DEFAULT_ELASTIC_CHECK_INTERVAL_MS
    node_startup_ms: int = k.DEFAULT_ELASTIC_NODE_STARTUP_MS
    node: NodeSpec | None = None

    def validate(self, where: Callable[[str], str] | None = None) -> None:
        """Raise :class:`ConfigurationError` naming the key (and, via ``where(key)``, its file) of a bad value."""
        checks = (
            ("min_nodes", self.min_nodes >= 0, "a node count >= 0"),
            ("max_nodes", self.max_nodes is None or self.max_nodes >= max(self.min_nodes, 1),
             f"a node count >= max(min-nodes, 1) = {max(self.min_nodes, 1)}"),
            ("upscale_wait_ms", self.upscale_wait_ms >= 0, "a duration >= 0 ms"),
            ("downscale_cooldown_ms", self.downscale_cooldown_ms >= 0, "a duration >= 0 ms"),
            ("check_interval_ms", self.check_interval_ms > 0, "a duration > 0 ms"),
            ("node_startup_ms", self.node_startup_ms >= 0, "a duration >= 0 ms"),
        )  # fmt: skip
        for name, ok, expected in checks:
            if not ok:
                key = _FIELD_KEYS[name]
                source = where(key) if where is not None else "ElasticConfig"
                raise ConfigurationError(f"{source}: {key} ({name}) = {getattr(self, name)!r}: expected {expected}")

    @classmethod
    def from_conf(cls, conf: Configuration) -> ElasticConfig | None:
        """The autoscaler the configuration asks for (``yarnball.elastic.enabled``), or None."""
        if not conf.get_bool(ELASTIC_ENABLED, k.DEFAULT_ELASTIC_ENABLED):
            return None
        d = cls()
        max_nodes = conf.get_int(ELASTIC_MAX_NODES, k.DEFAULT_ELASTIC_MAX_NODES)
        config = cls(
            min_nodes=conf.get_int(ELASTIC_MIN_NODES, d.min_nodes),
            max_nodes=None if max_nodes == -1 else max_nodes,
            upscale_wait_ms=conf.get_int(ELASTIC_UPSCALE_WAIT_MS, d.upscale_wait_ms),
            downscale_cooldown_ms=conf.get_int(ELASTIC_DOWNSCALE_COOLDOWN_MS, d.downscale_cooldown_ms),
            check_interval_ms=conf.get_int(ELASTIC_CHECK_INTERVAL_MS, d.check_interval_ms),
            node_startup_ms=conf.get_int(ELASTIC_NODE_STARTUP_MS, d.node_startup_ms),
        )
        config.validate(conf.location_of)
        return config


@dataclass
class ElasticReport:
    """What the autoscaler did and what the cluster cost."""

    node_hours: float
    utilisation: float
    nodes_at_end: int
    peak_nodes: int
    nodes_added: int
    nodes_removed: int
    upscales: int
    downscales: int
    events: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self, *, events: bool = True) -> dict[str, Any]:
        out = asdict(self)
        if not events:
            del out["events"]
        out["node_hours"] = round(self.node_hours, 6)
        out["utilisation"] = round(self.utilisation, 6)
        return out


class _Billed:
    __slots__ = ("end_ms", "host", "memory_mb", "start_ms")

    def __init__(self, host: str, start_ms: float, memory_mb: int) -> None:
        self.host = host
        self.start_ms = start_ms
        self.end_ms: float | None = None
        self.memory_mb = memory_mb


class Autoscaler:
    """Scales ``cluster`` between ``config.min_nodes`` and ``config.max_nodes``; call :meth:`start` before running."""

    def __init__(self, cluster: Cluster | EmbeddedBackend, config: ElasticConfig) -> None:
        config.validate()
        self.cluster = cluster
        self.config = config
        template = config.node
        if template is None:
            first = next(iter(cluster.node_managers.values()), None)
            if first is None:
                raise ConfigurationError(
                    f"{ELASTIC_ENABLED}: the autoscaler needs a node template; give ElasticConfig(node=...) or "
                    "start the cluster with at least one node"
                )
            template = NodeSpec(first.node_id.host, first.rack, first.resource, first.labels)
        self.template: NodeSpec = template
        self.max_nodes = config.max_nodes if config.max_nodes is not None else max(len(cluster.node_managers), 1)
        if self.max_nodes < config.min_nodes:
            raise ConfigurationError(
                f"{ELASTIC_MAX_NODES} = {self.max_nodes} (the initial cluster size when unset): "
                f"expected >= {ELASTIC_MIN_NODES} = {config.min_nodes}"
            )
        self.billed: dict[str, _Billed] = {}
        self._pending_since: dict[Any, float] = {}
        self._idle_since: dict[str, float] = {}
        self._next_index = 0
        self._last_check: float | None = None
        self._used_mb_ms = 0.0
        self._billed_mb_ms = 0.0
        self.peak_nodes = 0
        self.upscales = 0
        self.downscales = 0
        self.nodes_added = 0
        self.nodes_removed = 0
        self.events: list[dict[str, Any]] = []
        self._started = False

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Bill the nodes already there and check every ``check_interval_ms`` of simulated time."""
        if self._started:
            return
        self._started = True
        now = self.cluster.kernel.now
        for host, nm in self.cluster.node_managers.items():
            self.billed[host] = _Billed(host, now, nm.resource.memory_mb)
        self.peak_nodes = len(self.billed)
        self._last_check = now
        self.cluster.every(self.config.check_interval_ms, self.check, start_ms=self.config.check_interval_ms)

    def alive(self) -> list[str]:
        """Hosts billed now (booting, running or idle), in the order they were added."""
        return [h for h, b in self.billed.items() if b.end_ms is None]

    def node_hours(self, now: float | None = None) -> float:
        """Billed node time so far, in hours."""
        t = self.cluster.kernel.now if now is None else now
        return sum(((b.end_ms if b.end_ms is not None else t) - b.start_ms) for b in self.billed.values()) / _HOUR_MS

    def utilisation(self) -> float:
        """Allocated memory over billed memory, integrated over the checks so far."""
        return self._used_mb_ms / self._billed_mb_ms if self._billed_mb_ms > 0 else 0.0

    def report(self) -> ElasticReport:
        self._integrate(self.cluster.kernel.now)
        return ElasticReport(
            node_hours=self.node_hours(),
            utilisation=self.utilisation(),
            nodes_at_end=len(self.alive()),
            peak_nodes=self.peak_nodes,
            nodes_added=self.nodes_added,
            nodes_removed=self.nodes_removed,
            upscales=self.upscales,
            downscales=self.downscales,
            events=list(self.events),
        )

    # -- the periodic check ------------------------------------------------------------------------------------
    def _integrate(self, now: float) -> None:
        last, self._last_check = self._last_check, now
        if last is None or now <= last:
            return
        scheduler = self.cluster.scheduler
        used = sum(n.total_m - n.unalloc_m for n in scheduler.nodes.values())
        billed = sum(self.billed[h].memory_mb for h in self.alive())
        self._used_mb_ms += used * (now - last)
        self._billed_mb_ms += billed * (now - last)

    def check(self) -> None:
        """One autoscaling decision: integrate utilisation, then upscale or downscale."""
        now = self.cluster.kernel.now
        self._integrate(now)
        if not self._upscale(now):
            self._downscale(now)

    def _waiting_demand(self, now: float) -> tuple[int, int]:
        """Pending (memory, vcores) of the attempts whose requests have waited at least ``upscale_wait_ms``."""
        wait = self.config.upscale_wait_ms
        seen = set()
        mem = vc = 0
        for attempt_id, app in self.cluster.scheduler.attempts.items():
            if app.stopped or not app.has_pending():
                continue
            seen.add(attempt_id)
            since = self._pending_since.setdefault(attempt_id, now)
            if now - since >= wait:
                mem += app.pending_m
                vc += app.pending_v
        for attempt_id in [a for a in self._pending_since if a not in seen]:
            del self._pending_since[attempt_id]
        return mem, vc

    def _upscale(self, now: float) -> bool:
        mem, vc = self._waiting_demand(now)
        if mem <= 0 and vc <= 0:
            return False
        scheduler = self.cluster.scheduler
        registered = scheduler.nodes
        free_m = sum(n.unalloc_m for n in registered.values())
        free_v = sum(n.unalloc_v for n in registered.values())
        booting = [h for h in self.alive() if not any(nid.host == h for nid in registered)]
        node = self.template.resource
        need_m = mem - free_m - len(booting) * node.memory_mb
        need_v = vc - free_v - len(booting) * node.vcores
        wanted = max(
            math.ceil(need_m / node.memory_mb) if node.memory_mb > 0 and need_m > 0 else 0,
            math.ceil(need_v / node.vcores) if node.vcores > 0 and need_v > 0 else 0,
        )
        room = self.max_nodes - len(self.alive())
        count = min(wanted, room)
        if count <= 0:
            return False
        hosts = [self._add_node(now) for _ in range(count)]
        self.upscales += 1
        self.nodes_added += count
        self.peak_nodes = max(self.peak_nodes, len(self.alive()))
        for attempt_id in self._pending_since:  # the new capacity gets a full wait before the next upscale
            self._pending_since[attempt_id] = now
        self.events.append({"time_ms": now, "action": "upscale", "hosts": hosts, "nodes": len(self.alive())})
        log.info("elastic_upscale", added=count, nodes=len(self.alive()), waiting_memory_mb=mem)
        return True

    def _add_node(self, now: float) -> str:
        existing = self.cluster.node_managers
        while True:
            self._next_index += 1
            host = f"elastic{self._next_index}"
            if host not in existing and host not in self.billed:
                break
        spec = msgspec.structs.replace(self.template, hostname=host)
        self.cluster.add_node(spec, start_delay_ms=self.config.node_startup_ms)
        self.billed[host] = _Billed(host, now, spec.resource.memory_mb)
        return host

    def _removable(self) -> list[str]:
        """Registered hosts with no container, no reservation and no unfinished application's state."""
        rm = self.cluster.rm
        pinned = {nid.host for app in rm.apps.values() if not app.is_done for nid in app.nodes}
        return sorted(
            nid.host
            for nid, n in self.cluster.scheduler.nodes.items()
            if not n.containers and n.reserved is None and nid.host not in pinned and nid.host in self.billed
        )

    def _downscale(self, now: float) -> None:
        removable = self._removable()
        for host in [h for h in self._idle_since if h not in removable]:
            del self._idle_since[host]
        for host in removable:
            self._idle_since.setdefault(host, now)
        expired = sorted(
            (since, host)
            for host, since in self._idle_since.items()
            if now - since >= self.config.downscale_cooldown_ms
        )
        spare = len(self.alive()) - self.config.min_nodes
        victims = [host for _, host in expired[: max(spare, 0)]]
        if not victims:
            return
        for host in victims:
            self.cluster.node_managers.pop(host).decommission()
            self.billed[host].end_ms = now
            del self._idle_since[host]
        self.downscales += 1
        self.nodes_removed += len(victims)
        self.events.append({"time_ms": now, "action": "downscale", "hosts": victims, "nodes": len(self.alive())})
        log.info("elastic_downscale", removed=len(victims), nodes=len(self.alive()))


def node_hours(cluster: Any) -> float:
    """Billed node-hours of a run: the autoscaler's ledger, or every NodeManager for the whole run."""
    autoscaler = getattr(cluster, "autoscaler", None)
    if autoscaler is not None:
        return autoscaler.node_hours()
    managers = getattr(cluster, "node_managers", None)
    if managers is None:  # a Ray shard host's view (launcher/_sharded.py HostView): count the nodes the RM knows
        count = len(cluster.rm.nodes) + len(cluster.rm.lost_nodes)
    else:
        count = len(managers)
    return count * float(cluster.kernel.now) / _HOUR_MS


def attach_autoscaler(cluster: Cluster | EmbeddedBackend, config: ElasticConfig | None) -> Autoscaler | None:
    """The Cluster's hook: an autoscaler from ``config`` or from the configuration's ``yarnball.elastic.*``."""
    config = config if config is not None else ElasticConfig.from_conf(cluster.conf)
    if config is None:
        return None
    autoscaler = Autoscaler(cluster, config)
    autoscaler.start()
    return autoscaler
