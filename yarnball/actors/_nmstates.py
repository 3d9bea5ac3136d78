"""The NodeManager's own container states (``ContainerImpl``'s state machine, as far as yarnball models it) and the
status an NM answers ``GetContainerStatusesRequest`` with.

yarnball's NM keeps a container's API state (``ContainerState``: SCHEDULED, RUNNING, COMPLETE) in ``entry.state``
as before, which is what heartbeats report. The states of pausing (YARN-5972, ``yarn.nodemanager.opportunistic-
containers-use-pause-for-preemption``) live beside it in ``entry.phase``: None outside a pause, else PAUSING, PAUSED
or RESUMING (or SCHEDULED while a container that was localizing when its NM went down localizes again after the
restart, actors/_nmrecovery.py), with ``ContainerImpl``'s transitions:

- RUNNING --PAUSE_CONTAINER--> PAUSING (``PauseContainerTransition``: the launcher pauses the process, the pause
  event's diagnostics are added);
- PAUSING --CONTAINER_PAUSED--> PAUSED (``PausedContainerTransition``: the ContainerScheduler hears
  CONTAINER_PAUSED and reclaims its resources, ``onContainerPaused`` -> ``onResourcesReclaimed``);
- PAUSED --RESUME_CONTAINER--> RESUMING (``ContainerImpl.sendLaunchEvent`` of a paused container,
  ``ResumeContainerTransition``: "Container Resumed as some resources freed up");
- RESUMING --CONTAINER_RESUMED--> RUNNING.

Each step the launcher takes (pausing, resuming the process) is one event of the NM later, at the same simulated
time, so a PAUSING or RESUMING container is seen by what runs in between. A kill in any of them ends the container
(``KillTransition``).
"""

from __future__ import annotations

import enum
from typing import Any

from yarnball.protocols import ContainerState, ContainerStatus, ContainerSubState

__all__ = ["RESUMED_DIAGNOSTICS", "NMContainerState", "container_status", "nm_state"]

#: ``ContainerImpl.sendLaunchEvent``'s resume event diagnostics.
RESUMED_DIAGNOSTICS = "Container Resumed as some resources freed up"


class NMContainerState(enum.Enum):
    """The NM's ``ContainerState`` (org.apache.hadoop.yarn.server.nodemanager.containermanager.container), the
    states yarnball passes through: localization is one SCHEDULED wait, and an ended container is DONE."""

    SCHEDULED = "SCHEDULED"
    RUNNING = "RUNNING"
    PAUSING = "PAUSING"
    PAUSED = "PAUSED"
    RESUMING = "RESUMING"
    DONE = "DONE"


# ContainerImpl.getContainerSubState
_SUB_STATES = {
    NMContainerState.SCHEDULED: ContainerSubState.SCHEDULED,
    NMContainerState.RUNNING: ContainerSubState.RUNNING,
    NMContainerState.PAUSING: ContainerSubState.RUNNING,
    NMContainerState.PAUSED: ContainerSubState.PAUSED,
    NMContainerState.RESUMING: ContainerSubState.PAUSED,
    NMContainerState.DONE: ContainerSubState.DONE,
}


def nm_state(entry: Any) -> NMContainerState:
    """The NM state of a container entry (its pause phase, else what its API state says)."""
    phase = entry.phase
    if phase is not None:
        return phase  # type: ignore[no-any-return]
    state = entry.state
    if state is ContainerState.SCHEDULED:
        return NMContainerState.SCHEDULED
    if state is ContainerState.RUNNING:
        return NMContainerState.RUNNING
    return NMContainerState.DONE


def container_status(entry: Any) -> ContainerStatus:
    """``ContainerImpl.cloneAndGetContainerStatus``: the API state (RUNNING for every live container but a
    SCHEDULED one, as yarnball's heartbeats report it), the diagnostics so far, the execution type, the resource
    and the sub-state."""
    container = entry.container
    return ContainerStatus(
        container_id=container.id,
        state=entry.state,
        diagnostics=entry.diagnostics,
        execution_type=container.execution_type,
        capability=container.resource,
        container_sub_state=_SUB_STATES[nm_state(entry)],
    )
