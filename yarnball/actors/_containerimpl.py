"""The NodeManager's record of a container: Hadoop's ``ContainerImpl``, collapsed to what the RM can observe.

A container is SCHEDULED (localizing), then RUNNING, then COMPLETE; while RUNNING it may be paused and resumed by the
ContainerScheduler (its ``phase``, actors/_nmstates.py). The :class:`~yarnball.actors._containermanager
.ContainerManager` drives the transitions; the record keeps what they need and what the ContainerScheduler reads
(arrival and start order, the run time still to go).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yarnball.actors._containerscheduler import APP_REMAINING_TASKS_ENV
from yarnball.actors._nmstates import NMContainerState
from yarnball.protocols import Container, ContainerState, ContainerStatus
from yarnball.protocols._containermanagement import ContainerLaunchContext

if TYPE_CHECKING:
    from yarnball.actors._containermanager import ContainerManager

__all__ = ["ContainerImpl", "running_status"]

_SCHEDULED = ContainerState.SCHEDULED
_RUNNING = ContainerState.RUNNING
# (module constants: reading a member off an Enum class goes through EnumType.__getattr__'s slow attribute hook)


def running_status(container: Container) -> ContainerStatus:
    """The status reporting ``container`` newly RUNNING."""
    return ContainerStatus(
        container_id=container.id,
        state=_RUNNING,
        execution_type=container.execution_type,
        capability=container.resource,
    )


class ContainerImpl:
    """The NM's record of one container (``ContainerImpl`` collapsed to what the RM can observe): its launch
    context, state and pause phase, its run timer and process, and the run time still to go."""

    __slots__ = (
        "container", "context", "diagnostics", "nm", "paused", "phase", "process", "remaining", "seq", "start_seq",
        "started_at", "state", "timer",
    )

    def __init__(self, container: Container, context: ContainerLaunchContext, nm: ContainerManager, seq: int) -> None:
        self.container = container
        self.context = context
        self.state = _SCHEDULED
        self.timer: Any = None
        self.process: str | None = None
        # For the ContainerScheduler: arrival order, start order, pause state and the run time still to go.
        self.nm = nm
        self.seq = seq
        self.start_seq = 0
        self.paused = False
        # The pause states (actors/_nmstates.py): None, or PAUSING / PAUSED / RESUMING (SCHEDULED: localizing again
        # after an NM restart, actors/_nmrecovery.py); and the diagnostics the container gathered on the way
        # (ContainerImpl.addDiagnostics), "" until it is paused.
        self.phase: NMContainerState | None = None
        self.diagnostics = ""
        self.started_at = 0.0
        self.remaining: float | None = context.simulated_duration_ms

    def expected_ms(self) -> float | None:
        return self.remaining

    def remaining_ms(self) -> float | None:
        if self.remaining is None or self.paused or self.state is not _RUNNING:
            return self.remaining
        return max(0.0, self.remaining - (self.nm.now - self.started_at))

    def app_remaining_tasks(self) -> int | None:
        for key, value in self.context.environment:
            if key == APP_REMAINING_TASKS_ENV:
                return int(value) if value.isdigit() else None
        return None
