"""WHO says it: the actor runtime (kernel, clocks, mailboxes) and the YARN role actors."""

from __future__ import annotations

from yarnball.actors._actor import Actor, ActorRef, SupervisionPolicy, handler
from yarnball.actors._checkpoint import Checkpoint, CheckpointStore, FileSystemCheckpointStore, InMemoryCheckpointStore
from yarnball.actors._containerscheduler import ContainerScheduler
from yarnball.actors._dshell import DistributedShellAppMaster
from yarnball.actors._failures import HandlerFailure, HandlerFailures
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
from yarnball.actors._preemptible import (
    CallableWork,
    CheckpointingMRAppMaster,
    CommandWork,
    PreemptibleAppMaster,
    RestartingMRAppMaster,
    TaskWork,
    mapreduce_tasks,
)
from yarnball.actors._preemption import PreemptionMonitor, preemption_message

__all__ = [
    "NORMAL",
    "URGENT",
    "Actor",
    "ActorRef",
    "CallableWork",
    "Checkpoint",
    "CheckpointStore",
    "CheckpointingMRAppMaster",
    "Clock",
    "CommandWork",
    "ContainerScheduler",
    "DistributedShellAppMaster",
    "FileSystemCheckpointStore",
    "Future",
    "HandlerFailure",
    "HandlerFailures",
    "InMemoryCheckpointStore",
    "Kernel",
    "PreemptibleAppMaster",
    "PreemptionMonitor",
    "RestartingMRAppMaster",
    "SupervisionPolicy",
    "Task",
    "TaskWork",
    "TimerHandle",
    "VirtualClock",
    "WallClock",
    "configure_logging",
    "current_kernel",
    "handler",
    "mapreduce_tasks",
    "preemption_message",
]
