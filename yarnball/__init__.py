"""yarnball: Hadoop YARN resource management as actors exchanging MessagePack heartbeats.

The public API is re-exported here; everything in a ``_module`` is private. Ray is imported only when the Ray
backend is used.
"""

from __future__ import annotations

# Before any other import of ours: route the mypyc-compiled modules to their sources when asked or stale (_native).
from yarnball import _native  # isort: skip

_native.install()

# ruff: noqa: E402
from yarnball._version import __version__
from yarnball.actors import (
    Actor,
    ActorRef,
    Future,
    Kernel,
    VirtualClock,
    WallClock,
    configure_logging,
    handler,
)
from yarnball.actors._appmaster import ApplicationMaster, ContainerRequest
from yarnball.errors import (
    ActorError,
    ConfigurationError,
    DeadLetterError,
    ProtocolError,
    SchedulingError,
    SimulationError,
    TimeoutError,
    TraceFormatError,
    YarnballError,
)
from yarnball.launcher import Cluster
from yarnball.launcher.sweep import sweep
from yarnball.protocols import Configuration, Resource, decode, encode

__all__ = [
    "Actor",
    "ActorError",
    "ActorRef",
    "ApplicationMaster",
    "Cluster",
    "Configuration",
    "ConfigurationError",
    "ContainerRequest",
    "DeadLetterError",
    "Future",
    "Kernel",
    "ProtocolError",
    "Resource",
    "SchedulingError",
    "SimulationError",
    "TimeoutError",
    "TraceFormatError",
    "VirtualClock",
    "WallClock",
    "YarnballError",
    "__version__",
    "configure_logging",
    "decode",
    "encode",
    "handler",
    "sweep",
]
