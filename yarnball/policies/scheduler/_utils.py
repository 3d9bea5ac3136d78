"""What every scheduler shares: ``SchedulerUtils``' diagnostics and container statuses, ``RMContainerState`` names.

Hadoop keeps these in ``org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils`` and
``...rmcontainer.RMContainerState``; the RM's services use them as well as the schedulers (a container the RM ends
itself, an RMContainer's state as ``getRMContainer(id).getState()`` reports it).
"""

from __future__ import annotations

from typing import Final

from yarnball.protocols import ContainerExitStatus, ContainerId, ContainerState, ContainerStatus

__all__ = [
    "ACQUIRED",
    "ALLOCATED",
    "COMPLETED_APPLICATION",
    "EXPIRED_CONTAINER",
    "LOST_CONTAINER",
    "PREEMPTED_CONTAINER",
    "RELEASED_CONTAINER",
    "RESERVED",
    "RESIZE_REQUEST_ID_BASE",
    "RUNNING",
    "UNRESERVED_CONTAINER",
    "abnormal_status",
    "preempted_status",
]

# SchedulerUtils diagnostics
RELEASED_CONTAINER: Final = "Container released by application"
LOST_CONTAINER: Final = "Container released on a *lost* node"
PREEMPTED_CONTAINER: Final = "Container preempted by scheduler"
COMPLETED_APPLICATION: Final = "Container of a completed application"
EXPIRED_CONTAINER: Final = "Container expired since it was unused"
UNRESERVED_CONTAINER: Final = "Container reservation no longer required."

# The RMContainerState names a scheduler reports for the containers it holds (a subset of RMContainerState).
RESERVED: Final = "RESERVED"
ALLOCATED: Final = "ALLOCATED"
ACQUIRED: Final = "ACQUIRED"
RUNNING: Final = "RUNNING"

#: Asks with an allocation request id at or below this are a container increase's (actors/_containerresize.py):
#: ``ContainerUpdateContext.checkAndAddToOutstandingIncreases`` puts the difference into the placement sets as it
#: is, without the ApplicationMasterService's normalization.
RESIZE_REQUEST_ID_BASE: Final = -(2 << 40)


# (module constants: reading a member off an Enum class goes through EnumType.__getattr__'s slow attribute hook)
_COMPLETE: Final = ContainerState.COMPLETE
_ABORTED: Final = ContainerExitStatus.ABORTED
_PREEMPTED: Final = ContainerExitStatus.PREEMPTED


def abnormal_status(cid: ContainerId, diagnostics: str) -> ContainerStatus:
    """``SchedulerUtils.createAbnormalContainerStatus``: COMPLETE, exit ABORTED (-100)."""
    return ContainerStatus(container_id=cid, state=_COMPLETE, exit_status=_ABORTED, diagnostics=diagnostics)


def preempted_status(cid: ContainerId) -> ContainerStatus:
    """``SchedulerUtils.createPreemptedContainerStatus``: COMPLETE, exit PREEMPTED (-102)."""
    return ContainerStatus(container_id=cid, state=_COMPLETE, exit_status=_PREEMPTED, diagnostics=PREEMPTED_CONTAINER)
