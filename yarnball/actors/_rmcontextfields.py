"""The ResourceManager actor's view of its RMContext (actors/_rmcontext.py): each shared field as an attribute of the
RM, read and set through it (``rm.apps`` is ``rm.context.apps``), for the code outside the RM's services (the
launcher, the web services, fault injectors, tests). The compiled services read the context itself. The services are
the RM's own slots as well as the context's fields: the RM's delivery reads them on every message.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yarnball.actors._heartbeats import HeartbeatClock
    from yarnball.actors._resourcetracker import RMNode
    from yarnball.actors._rmapp import RMApp, RMAppAttempt
    from yarnball.actors._rmcontext import RMContext
    from yarnball.actors._secretmanagers import RMSecretManagers
    from yarnball.actors._shortcuts import DormantAMs
    from yarnball.policies.scheduler import ResourceScheduler
    from yarnball.protocols import ApplicationAttemptId, ApplicationId, ContainerId, NodeId

__all__ = ["RMContextFields"]


def _in_context(name: str) -> Any:
    """The RM attribute ``name`` kept in its RMContext: ``rm.<name>`` reads and sets ``rm.context.<name>`` (the
    getter is C code: no Python call per read)."""

    def set_field(rm: RMContextFields, value: Any) -> None:
        setattr(rm.context, name, value)

    return property(attrgetter("context." + name), set_field, doc=f"``context.{name}`` (actors/_rmcontext.py).")


class RMContextFields:
    """The RMContext's fields as attributes of the class's instances, which hold the context as ``context``."""

    __slots__ = ()
    context: RMContext

    if TYPE_CHECKING:
        scheduler: ResourceScheduler
        nodes: dict[NodeId, RMNode]
        lost_nodes: set[NodeId]
        apps: dict[ApplicationId, RMApp]
        attempts: dict[ApplicationAttemptId, RMAppAttempt]
        am_containers: dict[ContainerId, ApplicationAttemptId]
        unlaunched: dict[ContainerId, tuple[float, NodeId]]
        live: set[ContainerId]
        counters: Counter[str]
        op_counts: Counter[str]
        op_seconds: defaultdict[str, float]
        heartbeat_interval_ms: int
        heartbeats: HeartbeatClock | None
        dormant: DormantAMs
        secrets: RMSecretManagers
    else:
        scheduler = _in_context("scheduler")
        nodes = _in_context("nodes")
        lost_nodes = _in_context("lost_nodes")
        apps = _in_context("apps")
        attempts = _in_context("attempts")
        am_containers = _in_context("am_containers")
        unlaunched = _in_context("unlaunched")
        live = _in_context("live")
        counters = _in_context("counters")
        op_counts = _in_context("op_counts")
        op_seconds = _in_context("op_seconds")
        heartbeat_interval_ms = _in_context("heartbeat_interval_ms")
        heartbeats = _in_context("heartbeats")
        dormant = _in_context("dormant")
        secrets = _in_context("secrets")
