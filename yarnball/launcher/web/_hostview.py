"""The web layer's part on a shard host (Ray backend, virtual or live): this host's sections of the REST view.

A sharded cluster has no RM or NM objects in the driver's process, so the driver's
:class:`~yarnball.launcher.web._shardsource.ShardedSource` asks each host for its part, through the host-call
mechanism (``HostGroup.call``, which reaches :class:`~yarnball.launcher._hosts.HostView`):

* **host 0** (the RM's) computes ``cluster_info``, ``metrics``, ``scheduler``, ``apps``/``attempts`` and the RM's
  ``nodes`` (NodeInfo): :func:`rm_sections`. The NodeManagers of other hosts are not in its process, so the node
  list comes from the node specs every host received at setup (stand-ins with the node id, rack, resource and
  labels; the RM's own records give the state and usage, exactly as on the embedded cluster);
* **every host** computes its own NMs' view (``NMWebServices``): :func:`nm_sections`. The three things that view
  reads from the RM (the node's last heartbeat, whether the RM has it, each application's user) are passed in as
  plain data from host 0 (:func:`rm_for_nms`), through a stand-in RM.

Both reuse the section functions of launcher/web/_snapshot.py unchanged: they read a cluster-like object, and
:class:`HostCluster` is that object over one host. The results are plain data (dicts, lists, numbers, strings), so
they travel to the driver as any call result does. The host computes them between two of its kernel events
(a virtual-time host between windows; a live host between two events of its asyncio loop).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from yarnball.actors._nodemanager import NodeManager
from yarnball.errors import SimulationError
from yarnball.launcher.web._snapshot import Snapshot
from yarnball.protocols import NodeId
from yarnball.protocols._records import ApplicationId

__all__ = ["RM_SECTIONS", "HostCluster", "WebAsks", "host_call", "nm_sections", "rm_for_nms", "rm_sections"]

#: The sections host 0 computes (``attempts`` comes with ``apps``).
RM_SECTIONS = frozenset({"cluster_info", "metrics", "scheduler", "apps", "attempts", "nodes"})


class _NodeStandIn:
    """What the RM-side sections read of a NodeManager that runs on another host: its spec."""

    __slots__ = ("labels", "node_id", "rack", "resource")

    def __init__(self, spec: Any) -> None:
        self.node_id = NodeId(spec.hostname, 0)  # a shard host's NodeManagers use port 0, as the embedded ones
        self.rack = spec.rack
        self.resource = spec.resource
        self.labels = tuple(spec.labels)


class _RMNodeStandIn:
    __slots__ = ("last_heartbeat",)

    def __init__(self, last_heartbeat: float) -> None:
        self.last_heartbeat = last_heartbeat


class _AppStandIn:
    __slots__ = ("user",)

    def __init__(self, user: str) -> None:
        self.user = user


class _RMStandIn:
    """The RM as a host without it sees it: what host 0 told it (:func:`rm_for_nms`)."""

    __slots__ = ("apps", "cluster_timestamp", "heartbeats", "nodes", "opportunistic")

    def __init__(self, cluster_timestamp: int, beats: dict[str, float], users: dict[str, str]) -> None:
        self.cluster_timestamp = cluster_timestamp
        self.opportunistic = None
        self.heartbeats = None  # the beats are already the heartbeat clock's (rm_for_nms)
        self.nodes = {_node_id(key): _RMNodeStandIn(beat) for key, beat in beats.items()}
        self.apps = {ApplicationId.parse(key): _AppStandIn(user) for key, user in users.items()}


def _node_id(text: str) -> NodeId:
    host, _, port = text.rpartition(":")
    return NodeId(host, int(port))


class HostCluster:
    """The cluster-like object that launcher/web/_snapshot.py reads (``rm``, ``kernel``, ``node_managers``), over
    one shard host: its kernel, its RM (host 0) or an :class:`_RMStandIn`, and the NodeManagers given."""

    __slots__ = ("kernel", "node_managers", "rm")

    def __init__(self, kernel: Any, rm: Any, node_managers: Iterable[Any]) -> None:
        self.kernel = kernel
        self.rm = rm
        self.node_managers = {nm.node_id.host: nm for nm in node_managers}


def _meta(host: Any) -> dict[str, Any]:
    rm = host.rm
    return {
        "now_ms": float(host.kernel.now),
        "opportunistic": rm is not None and rm.opportunistic is not None,
    }


def rm_sections(host: Any, specs: Sequence[Any], names: Iterable[str]) -> dict[str, Any]:
    """Host 0: the named RM sections (of :data:`RM_SECTIONS`) now, plus ``now_ms`` and ``opportunistic``."""
    if host.rm is None:
        raise SimulationError(f"shard host {host.index} has no ResourceManager; the RM sections come from host 0")
    wanted = set(names)
    unknown = wanted - RM_SECTIONS
    if unknown:
        raise SimulationError(f"unknown REST view sections {sorted(unknown)}; expected some of {sorted(RM_SECTIONS)}")
    snap = Snapshot(HostCluster(host.kernel, host.rm, map(_NodeStandIn, specs)), lazy=True)
    out = _meta(host)
    for name in sorted(wanted):
        out[name] = getattr(snap, name)
    return out


def rm_for_nms(host: Any) -> dict[str, Any]:
    """Host 0: what the NM views read from the RM, as plain data: the last heartbeat of every node the RM has (as
    the heartbeat clock counts it) and the user of every application."""
    rm = host.rm
    if rm is None:
        raise SimulationError(f"shard host {host.index} has no ResourceManager; ask host 0")
    clock = rm.heartbeats
    beats: dict[str, float] = {}
    for node_id, rmnode in rm.nodes.items():
        beat = rmnode.last_heartbeat
        if clock is not None:
            beat = clock.last_heartbeat(node_id, beat)
        beats[str(node_id)] = float(beat)
    users = {str(app_id): app.user for app_id, app in rm.apps.items()}
    return {"cluster_timestamp": int(rm.cluster_timestamp), "beats": beats, "users": users}


def nm_sections(host: Any, rm_view: dict[str, Any]) -> dict[str, Any]:
    """Any host: ``node_managers`` (node id -> NM view) of the NodeManagers this host runs, plus ``now_ms``."""
    rm = _RMStandIn(rm_view["cluster_timestamp"], rm_view["beats"], rm_view["users"])
    nms = [a for a in host.kernel.actors.values() if isinstance(a, NodeManager)]
    snap = Snapshot(HostCluster(host.kernel, rm, nms), lazy=True)
    return {"now_ms": float(host.kernel.now), "node_managers": snap.node_managers}


class WebAsks:
    """Host 0: REST writes in flight. :meth:`ask` sends a client message to the RM actor and returns a token;
    :meth:`reply` returns ``(True, reply)`` once the RM answered (``(False, None)`` before). Two calls instead of one
    blocking call, so that a virtual-time host is never asked to wait inside a host call for a reply that only the
    next window can bring."""

    __slots__ = ("_futures", "_next")

    def __init__(self) -> None:
        self._futures: dict[int, Any] = {}
        self._next = 0

    def ask(self, host: Any, message: Any, seq: int | None = None) -> int:
        """Send ``message``; ``seq``: the driver's sequence number for it (ShardedBackend.take_driver_sequence), so
        that it has its own canonical key among the driver's events."""
        if host.rm is None:
            raise SimulationError(f"shard host {host.index} has no ResourceManager; writes go to host 0")
        if seq is not None:
            host.kernel.set_sequence("", seq)
        token = self._next
        self._next += 1
        self._futures[token] = host.rm.ref.ask(message)
        return token

    def reply(self, token: int) -> tuple[bool, Any]:
        fut = self._futures.get(token)
        if fut is None:
            raise SimulationError(f"no REST write with token {token} on this host")
        if not fut.done():
            return False, None
        del self._futures[token]
        return True, fut.result()


def host_call(view: Any, what: str, *args: Any) -> Any:
    """``HostView.web``: what the driver's ``group.call(index, "web", what, *args)`` reaches on a host ``view``.

    ``("sections", names)`` and ``("rm_for_nms",)`` on host 0, ``("nm_sections", rm_view)`` on any host,
    ``("ask", message[, seq])`` and ``("reply", token)`` (REST writes) on host 0."""
    host = view.host
    if what == "sections":
        return rm_sections(host, view.node_specs, *args)
    if what == "rm_for_nms":
        return rm_for_nms(host)
    if what == "nm_sections":
        return nm_sections(host, *args)
    if what == "ask":
        if view.web_asks is None:
            view.web_asks = WebAsks()
        return view.web_asks.ask(host, *args)
    if what == "reply":
        if view.web_asks is None:
            raise SimulationError(f"shard host {host.index} has no REST write in flight")
        return view.web_asks.reply(*args)
    raise SimulationError(f"unknown web host call {what!r}; expected sections, rm_for_nms, nm_sections, ask or reply")
