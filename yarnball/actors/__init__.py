"""WHO says it: the actor runtime (kernel, clocks, mailboxes) and the YARN role actors."""

from __future__ import annotations

from yarnball.actors._actor import Actor, ActorRef, SupervisionPolicy, handler
from yarnball.actors._containerscheduler import ContainerScheduler
from yarnball.actors._dshell import DistributedShellAppMaster
from yarnball.actors._kernel import (
    NORMAL,
    URGENT,
    Clock,
    Future,
    Kernel,
    Task,
    TimerHandle,
    VirtualClock,
    WallClock,
    current_kernel,
)
from yarnball.actors._logging import configure_logging

__all__ = [
    "NORMAL",
    "URGENT",
    "Actor",
    "ActorRef",
    "Clock",
    "ContainerScheduler",
    "DistributedShellAppMaster",
    "Future",
    "Kernel",
    "SupervisionPolicy",
    "Task",
    "TimerHandle",
    "VirtualClock",
    "WallClock",
    "configure_logging",
    "current_kernel",
    "handler",
]
