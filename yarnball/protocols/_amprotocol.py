"""ApplicationMasterProtocol (AM <-> RM): register, the allocate heartbeat, finish.

Mirrors ``org.apache.hadoop.yarn.api.ApplicationMasterProtocol`` and, for distributed scheduling,
``org.apache.hadoop.yarn.server.api.DistributedSchedulingAMProtocol`` (spoken by the NM's AMRMProxy
``DistributedScheduler`` interceptor on the AM's behalf). Hadoop identifies the attempt from the RPC's AMRMToken;
yarnball's requests name the attempt explicitly and carry the AMRMToken beside it (``amrm_token``); the RM serves a
request only when the token is the one it issued for the named attempt (protocols/_tokens.py).
"""

from __future__ import annotations

import enum

from yarnball.protocols._messages import Message
from yarnball.protocols._records import (
    AMRMToken,
    ApplicationAttemptId,
    Container,
    ContainerId,
    ContainerStatus,
    FinalApplicationStatus,
    NMToken,
    NodeReport,
    PreemptionMessage,
    Priority,
    Record,
    Resource,
    ResourceRequest,
    UpdateContainerRequest,
    UpdatedContainer,
)
from yarnball.protocols._resourcetracker import RemoteNode

__all__ = [
    "AMCommand",
    "AllocateRequest",
    "AllocateResponse",
    "DistributedSchedulingAllocateRequest",
    "DistributedSchedulingAllocateResponse",
    "FinishApplicationMasterRequest",
    "FinishApplicationMasterResponse",
    "RegisterApplicationMasterRequest",
    "RegisterApplicationMasterResponse",
    "RegisterDistributedSchedulingAMRequest",
    "RegisterDistributedSchedulingAMResponse",
    "ResourceBlacklistRequest",
    "UpdateContainerError",
]


class AMCommand(enum.Enum):
    """An order from the RM in an allocate response (``AMCommand``): re-register, or shut down."""

    AM_RESYNC = "AM_RESYNC"
    AM_SHUTDOWN = "AM_SHUTDOWN"


class ResourceBlacklistRequest(Record, frozen=True, kw_only=True):
    """Resource names (hosts or racks) the AM adds to or removes from its blacklist (``ResourceBlacklistRequest``)."""

    blacklist_additions: tuple[str, ...] = ()
    blacklist_removals: tuple[str, ...] = ()


class UpdateContainerError(Record, frozen=True, kw_only=True):
    """Why the RM refused an ``UpdateContainerRequest`` (``UpdateContainerError``).

    ``reason`` uses Hadoop's strings, e.g. ``"INCORRECT_CONTAINER_VERSION_ERROR"``; ``current_container_version``
    lets the AM retry with the right version.
    """

    reason: str
    update_container_request: UpdateContainerRequest
    current_container_version: int = 0


class RegisterApplicationMasterRequest(Message, frozen=True, kw_only=True, tag="RegisterApplicationMasterRequest"):
    """AM -> RM once the AM container runs (``RegisterApplicationMasterRequest``)."""

    application_attempt_id: ApplicationAttemptId
    host: str = ""
    rpc_port: int = -1
    tracking_url: str = ""
    amrm_token: AMRMToken | None = None  # the RPC's AMRMToken (protocols/_tokens.py)


class RegisterApplicationMasterResponse(Message, frozen=True, kw_only=True, tag="RegisterApplicationMasterResponse"):
    """RM -> AM (``RegisterApplicationMasterResponse``); previous attempts' containers when they were kept."""

    maximum_resource_capability: Resource = Resource()
    queue: str = ""
    containers_from_previous_attempts: tuple[Container, ...] = ()
    nm_tokens_from_previous_attempts: tuple[NMToken, ...] = ()


class AllocateRequest(Message, frozen=True, kw_only=True, tag="AllocateRequest"):
    """The AM's heartbeat (``AllocateRequest``): new asks, releases, container updates and blacklist changes.

    As in Hadoop the asks are a *replacement* per (priority, resource_name, capability, allocation id), not a delta,
    and ``response_id`` must echo the last response's id (a stale id gets ``AM_RESYNC``).
    """

    application_attempt_id: ApplicationAttemptId
    response_id: int = 0
    progress: float = 0.0
    ask: tuple[ResourceRequest, ...] = ()
    release: tuple[ContainerId, ...] = ()
    update_requests: tuple[UpdateContainerRequest, ...] = ()
    resource_blacklist_request: ResourceBlacklistRequest = ResourceBlacklistRequest()
    tracking_url: str = ""
    amrm_token: AMRMToken | None = None  # the RPC's AMRMToken (protocols/_tokens.py)


class AllocateResponse(Message, frozen=True, kw_only=True, tag="AllocateResponse"):
    """RM -> AM (``AllocateResponse``): new containers, finished ones, headroom, node changes and preemption."""

    response_id: int = 0
    allocated_containers: tuple[Container, ...] = ()
    completed_container_statuses: tuple[ContainerStatus, ...] = ()
    available_resources: Resource = Resource()  # the headroom (getAvailableResources)
    updated_nodes: tuple[NodeReport, ...] = ()
    num_cluster_nodes: int = 0
    preemption_message: PreemptionMessage | None = None
    am_command: AMCommand | None = None
    updated_containers: tuple[UpdatedContainer, ...] = ()
    update_errors: tuple[UpdateContainerError, ...] = ()
    application_priority: Priority | None = None
    containers_from_previous_attempts: tuple[Container, ...] = ()
    nm_tokens: tuple[NMToken, ...] = ()  # for nodes of allocated containers this attempt has none for yet


class FinishApplicationMasterRequest(Message, frozen=True, kw_only=True, tag="FinishApplicationMasterRequest"):
    """AM -> RM when the application is done (``FinishApplicationMasterRequest``)."""

    application_attempt_id: ApplicationAttemptId
    final_application_status: FinalApplicationStatus = FinalApplicationStatus.UNDEFINED
    diagnostics: str = ""
    tracking_url: str = ""
    amrm_token: AMRMToken | None = None  # the RPC's AMRMToken (protocols/_tokens.py)


class FinishApplicationMasterResponse(Message, frozen=True, kw_only=True, tag="FinishApplicationMasterResponse"):
    """RM -> AM (``FinishApplicationMasterResponse``); False means "not yet, call again" as in Hadoop."""

    is_unregistered: bool = False


class RegisterDistributedSchedulingAMResponse(
    Message, frozen=True, kw_only=True, tag="RegisterDistributedSchedulingAMResponse"
):
    """RM -> NM's DistributedScheduler on AM register (``RegisterDistributedSchedulingAMResponse``).

    ``container_id_start`` is ``epoch << 40``; the NM-side allocator counts container ids *down* from it.
    ``incr_container_resource`` None means "use the minimum" (``DistributedScheduler.updateParameters``).
    """

    register_response: RegisterApplicationMasterResponse
    container_token_expiry_interval: int = 600000
    container_id_start: int = 0
    max_container_resource: Resource = Resource()
    min_container_resource: Resource = Resource()
    incr_container_resource: Resource | None = None
    nodes_for_scheduling: tuple[RemoteNode, ...] = ()


class DistributedSchedulingAllocateRequest(
    Message, frozen=True, kw_only=True, tag="DistributedSchedulingAllocateRequest"
):
    """NM's DistributedScheduler -> RM (``DistributedSchedulingAllocateRequest``).

    ``allocate_request`` keeps only the guaranteed asks; ``allocated_containers`` are the opportunistic containers
    the NM allocated locally, which the RM records as ACQUIRED.
    """

    allocate_request: AllocateRequest
    allocated_containers: tuple[Container, ...] = ()


class DistributedSchedulingAllocateResponse(
    Message, frozen=True, kw_only=True, tag="DistributedSchedulingAllocateResponse"
):
    """RM -> NM's DistributedScheduler (``DistributedSchedulingAllocateResponse``) with a fresh least-loaded list."""

    allocate_response: AllocateResponse
    nodes_for_scheduling: tuple[RemoteNode, ...] = ()


class RegisterDistributedSchedulingAMRequest(
    Message, frozen=True, kw_only=True, tag="RegisterDistributedSchedulingAMRequest"
):
    """NM's DistributedScheduler -> RM: ``registerApplicationMasterForDistributedScheduling``.

    Hadoop's RPC takes a plain ``RegisterApplicationMasterRequest`` on a separate protocol
    (``DistributedSchedulingAMProtocol``); a message-passing simulator needs its own type to tell the two apart.
    """

    register_request: RegisterApplicationMasterRequest
