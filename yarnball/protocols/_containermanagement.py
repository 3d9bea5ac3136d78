"""ContainerManagementProtocol (AM -> NM): start, stop, update containers and ask for their status.

Mirrors ``org.apache.hadoop.yarn.api.ContainerManagementProtocol``. Every request carries the caller's NMToken
(``nm_token``, what Hadoop's RPC authenticates with); a start request carries the ``Container`` record with the
container token the RM signed in it, and an update request carries the ``UpdateContainerRequest`` records the RM
approved (protocols/_tokens.py).
"""

from __future__ import annotations

from yarnball.protocols._messages import Message
from yarnball.protocols._records import (
    AMRMToken,
    Container,
    ContainerId,
    ContainerStatus,
    NMToken,
    Record,
    UpdateContainerRequest,
)

__all__ = [
    "ContainerLaunchContext",
    "ContainerUpdateRequest",
    "ContainerUpdateResponse",
    "FailedContainerRequest",
    "GetContainerStatusesRequest",
    "GetContainerStatusesResponse",
    "StartContainerRequest",
    "StartContainersRequest",
    "StartContainersResponse",
    "StopContainersRequest",
    "StopContainersResponse",
]


class ContainerLaunchContext(Record, frozen=True, kw_only=True):
    """What to run in a container (``ContainerLaunchContext``).

    ``commands`` and ``environment`` are YARN's (environment as ordered ``(name, value)`` pairs, so the record stays
    frozen and hashable). ``payload`` is opaque bytes for simulated executors and AMs (a task description, a
    pickled callable name, ...); ``simulated_duration_ms`` tells the simulated executor how long the container
    runs, None meaning "until stopped" (an AM container, a service).
    """

    commands: tuple[str, ...] = ()
    environment: tuple[tuple[str, str], ...] = ()
    payload: bytes = b""
    simulated_duration_ms: int | None = None
    #: The container's credentials (Hadoop's ``tokens``): an AM container's AMRMToken, put there by the RM.
    tokens: tuple[AMRMToken, ...] = ()


class StartContainerRequest(Record, frozen=True, kw_only=True):
    """One container to start (``StartContainerRequest``); Hadoop's container token becomes the Container."""

    container: Container
    launch_context: ContainerLaunchContext = ContainerLaunchContext()


class FailedContainerRequest(Record, frozen=True, kw_only=True):
    """One entry of a response's ``failed_requests`` (Hadoop's ``Map<ContainerId, SerializedException>``)."""

    container_id: ContainerId
    diagnostics: str = ""


class StartContainersRequest(Message, frozen=True, kw_only=True, tag="StartContainersRequest"):
    """AM -> NM (``StartContainersRequest``)."""

    start_container_requests: tuple[StartContainerRequest, ...] = ()
    nm_token: NMToken | None = None


class StartContainersResponse(Message, frozen=True, kw_only=True, tag="StartContainersResponse"):
    """NM -> AM (``StartContainersResponse``)."""

    successfully_started_containers: tuple[ContainerId, ...] = ()
    failed_requests: tuple[FailedContainerRequest, ...] = ()


class StopContainersRequest(Message, frozen=True, kw_only=True, tag="StopContainersRequest"):
    """AM -> NM (``StopContainersRequest``)."""

    container_ids: tuple[ContainerId, ...] = ()
    nm_token: NMToken | None = None


class StopContainersResponse(Message, frozen=True, kw_only=True, tag="StopContainersResponse"):
    """NM -> AM (``StopContainersResponse``)."""

    successfully_stopped_containers: tuple[ContainerId, ...] = ()
    failed_requests: tuple[FailedContainerRequest, ...] = ()


class ContainerUpdateRequest(Message, frozen=True, kw_only=True, tag="ContainerUpdateRequest"):
    """AM -> NM: apply RM-approved updates, e.g. promote OPPORTUNISTIC to GUARANTEED (``ContainerUpdateRequest``).

    Hadoop sends the updated container tokens; here each ``UpdateContainerRequest`` carries the new version, type
    and resource the RM granted (``AllocateResponse.updated_containers``).
    """

    containers_to_update: tuple[UpdateContainerRequest, ...] = ()
    nm_token: NMToken | None = None


class ContainerUpdateResponse(Message, frozen=True, kw_only=True, tag="ContainerUpdateResponse"):
    """NM -> AM (``ContainerUpdateResponse``)."""

    successfully_updated_containers: tuple[ContainerId, ...] = ()
    failed_requests: tuple[FailedContainerRequest, ...] = ()


class GetContainerStatusesRequest(Message, frozen=True, kw_only=True, tag="GetContainerStatusesRequest"):
    """AM -> NM (``GetContainerStatusesRequest``)."""

    container_ids: tuple[ContainerId, ...] = ()
    nm_token: NMToken | None = None


class GetContainerStatusesResponse(Message, frozen=True, kw_only=True, tag="GetContainerStatusesResponse"):
    """NM -> AM (``GetContainerStatusesResponse``)."""

    container_statuses: tuple[ContainerStatus, ...] = ()
    failed_requests: tuple[FailedContainerRequest, ...] = ()
