"""The container executor's side channel: a NodeManager and the program running inside one of its containers.

YARN has no RPC for this (the NM forks a process and watches its exit code); in a simulation the "process" is an
actor, so the fork, the exit and the kill become three messages. An ApplicationMaster learns that its container
started (and which attempt it is) from :class:`ContainerLaunched`, as a real AM reads it from its environment.
"""

from __future__ import annotations

from yarnball.protocols._containermanagement import ContainerLaunchContext
from yarnball.protocols._messages import Message
from yarnball.protocols._records import Container, ContainerId

__all__ = ["ContainerLaunched", "ContainerProcessExited", "ContainerTerminated"]

#: Environment variable of a launch context naming the actor that runs the container's program.
PROCESS_ACTOR_ENV = "YARNBALL_PROCESS_ACTOR"
#: Environment variable carrying the application attempt id, as YARN's ``APPLICATION_ATTEMPT_ID`` would.
ATTEMPT_ID_ENV = "APPLICATION_ATTEMPT_ID"


class ContainerLaunched(Message, frozen=True, kw_only=True, tag="ContainerLaunched"):
    """NM -> program: the container is RUNNING with this launch context (the process was started)."""

    container: Container
    launch_context: ContainerLaunchContext = ContainerLaunchContext()


class ContainerProcessExited(Message, frozen=True, kw_only=True, tag="ContainerProcessExited"):
    """program -> NM: the process exited with ``exit_status`` (0 = SUCCESS)."""

    container_id: ContainerId
    exit_status: int = 0
    diagnostics: str = ""


class ContainerTerminated(Message, frozen=True, kw_only=True, tag="ContainerTerminated"):
    """NM -> program: the container was killed (by the AM, the RM, or the node going away)."""

    container_id: ContainerId
    exit_status: int
    diagnostics: str = ""
