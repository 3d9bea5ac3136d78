"""ApplicationClientProtocol (client -> RM): new application, submit, kill, reports, cluster and queue info.

Mirrors ``org.apache.hadoop.yarn.api.ApplicationClientProtocol`` (served by the RM's ``ClientRMService``).
Delegation tokens, reservations and application timeouts are left out.
"""

from __future__ import annotations

import enum

from yarnball.protocols._containermanagement import ContainerLaunchContext
from yarnball.protocols._messages import Message
from yarnball.protocols._records import (
    ApplicationId,
    ApplicationReport,
    NodeReport,
    NodeState,
    Priority,
    Record,
    Resource,
    YarnApplicationState,
)

__all__ = [
    "ApplicationSubmissionContext",
    "GetApplicationReportRequest",
    "GetApplicationReportResponse",
    "GetApplicationsRequest",
    "GetApplicationsResponse",
    "GetClusterMetricsRequest",
    "GetClusterMetricsResponse",
    "GetClusterNodesRequest",
    "GetClusterNodesResponse",
    "GetNewApplicationRequest",
    "GetNewApplicationResponse",
    "GetQueueInfoRequest",
    "GetQueueInfoResponse",
    "KillApplicationRequest",
    "KillApplicationResponse",
    "MoveApplicationAcrossQueuesRequest",
    "MoveApplicationAcrossQueuesResponse",
    "QueueInfo",
    "QueueState",
    "RemoteRefusal",
    "SubmitApplicationRequest",
    "SubmitApplicationResponse",
    "UpdateApplicationPriorityRequest",
    "UpdateApplicationPriorityResponse",
    "YarnClusterMetrics",
]


class QueueState(enum.Enum):
    """``QueueState``: a DRAINING queue takes no new applications but finishes the ones it has."""

    RUNNING = "RUNNING"
    STOPPED = "STOPPED"
    DRAINING = "DRAINING"


class ApplicationSubmissionContext(Record, frozen=True, kw_only=True):
    """Everything the RM needs to launch an application's AM (``ApplicationSubmissionContext``).

    Defaults are Hadoop's: name ``"N/A"``, queue ``"default"``, type ``"YARN"``; ``max_app_attempts`` 0 means
    "use ``yarn.resourcemanager.am.max-attempts``" (``RMAppImpl``); an empty ``node_label_expression`` means the
    queue's default label. ``user`` is explicit because yarnball has no UGI to take it from.
    """

    application_id: ApplicationId
    application_name: str = "N/A"
    queue: str = "default"
    priority: Priority = Priority()
    user: str = ""
    am_container_spec: ContainerLaunchContext = ContainerLaunchContext()
    am_container_resource: Resource = Resource(1024, 1)
    application_type: str = "YARN"
    max_app_attempts: int = 0
    keep_containers_across_application_attempts: bool = False
    unmanaged_am: bool = False
    node_label_expression: str = ""
    application_tags: tuple[str, ...] = ()
    attempt_failures_validity_interval: int = -1


class YarnClusterMetrics(Record, frozen=True, kw_only=True):
    """Node-manager counts by state (``YarnClusterMetrics``)."""

    num_node_managers: int = 0
    num_active_node_managers: int = 0
    num_decommissioning_node_managers: int = 0
    num_decommissioned_node_managers: int = 0
    num_lost_node_managers: int = 0
    num_unhealthy_node_managers: int = 0
    num_rebooted_node_managers: int = 0
    num_shutdown_node_managers: int = 0


class QueueInfo(Record, frozen=True, kw_only=True):
    """A queue's state as reported to clients (``QueueInfo``).

    Capacities are fractions of the parent (0.0-1.0) as Hadoop's ``QueueInfo`` reports them;
    ``current_capacity`` is used / guaranteed and may exceed 1.0. ``child_queues`` holds the children's names
    only (Hadoop nests whole QueueInfo records; ask again with the child's name to descend).
    """

    queue_name: str
    queue_path: str = ""
    capacity: float = 0.0
    maximum_capacity: float = 1.0
    current_capacity: float = 0.0
    child_queues: tuple[str, ...] = ()
    applications: tuple[ApplicationReport, ...] = ()
    queue_state: QueueState = QueueState.RUNNING


class GetNewApplicationRequest(Message, frozen=True, kw_only=True, tag="GetNewApplicationRequest"):
    """Client -> RM: reserve an application id (``GetNewApplicationRequest``)."""


class GetNewApplicationResponse(Message, frozen=True, kw_only=True, tag="GetNewApplicationResponse"):
    """RM -> client (``GetNewApplicationResponse``)."""

    application_id: ApplicationId
    maximum_resource_capability: Resource = Resource()


class SubmitApplicationRequest(Message, frozen=True, kw_only=True, tag="SubmitApplicationRequest"):
    """Client -> RM (``SubmitApplicationRequest``)."""

    application_submission_context: ApplicationSubmissionContext


class SubmitApplicationResponse(Message, frozen=True, kw_only=True, tag="SubmitApplicationResponse"):
    """RM -> client (``SubmitApplicationResponse``): an empty acknowledgement; rejections arrive as app state."""


class KillApplicationRequest(Message, frozen=True, kw_only=True, tag="KillApplicationRequest"):
    """Client -> RM (``KillApplicationRequest``).

    ``user`` is the caller (Hadoop takes it from the RPC's UGI); empty means an in-process caller that the ACLs do
    not apply to (a trace, a test). A named caller is checked against the application's owner, ``yarn.admin.acl``
    and the queue's ``acl_administer_queue`` when ``yarn.acl.enable`` is true (``ClientRMService.checkAccess``)."""

    application_id: ApplicationId
    diagnostics: str = ""
    user: str = ""


class KillApplicationResponse(Message, frozen=True, kw_only=True, tag="KillApplicationResponse"):
    """RM -> client (``KillApplicationResponse``); False means "kill in progress, ask again" as in Hadoop."""

    is_kill_completed: bool = False


class GetApplicationReportRequest(Message, frozen=True, kw_only=True, tag="GetApplicationReportRequest"):
    """Client -> RM (``GetApplicationReportRequest``)."""

    application_id: ApplicationId


class GetApplicationReportResponse(Message, frozen=True, kw_only=True, tag="GetApplicationReportResponse"):
    """RM -> client (``GetApplicationReportResponse``)."""

    application_report: ApplicationReport


class GetApplicationsRequest(Message, frozen=True, kw_only=True, tag="GetApplicationsRequest"):
    """Client -> RM (``GetApplicationsRequest``); an empty filter matches everything, ``limit`` None is no limit."""

    application_types: tuple[str, ...] = ()
    application_states: tuple[YarnApplicationState, ...] = ()
    users: tuple[str, ...] = ()
    queues: tuple[str, ...] = ()
    application_tags: tuple[str, ...] = ()
    limit: int | None = None


class GetApplicationsResponse(Message, frozen=True, kw_only=True, tag="GetApplicationsResponse"):
    """RM -> client (``GetApplicationsResponse``)."""

    application_list: tuple[ApplicationReport, ...] = ()


class GetClusterMetricsRequest(Message, frozen=True, kw_only=True, tag="GetClusterMetricsRequest"):
    """Client -> RM (``GetClusterMetricsRequest``)."""


class GetClusterMetricsResponse(Message, frozen=True, kw_only=True, tag="GetClusterMetricsResponse"):
    """RM -> client (``GetClusterMetricsResponse``)."""

    cluster_metrics: YarnClusterMetrics = YarnClusterMetrics()


class GetClusterNodesRequest(Message, frozen=True, kw_only=True, tag="GetClusterNodesRequest"):
    """Client -> RM (``GetClusterNodesRequest``); empty ``node_states`` means all states."""

    node_states: tuple[NodeState, ...] = ()


class GetClusterNodesResponse(Message, frozen=True, kw_only=True, tag="GetClusterNodesResponse"):
    """RM -> client (``GetClusterNodesResponse``)."""

    node_reports: tuple[NodeReport, ...] = ()


class GetQueueInfoRequest(Message, frozen=True, kw_only=True, tag="GetQueueInfoRequest"):
    """Client -> RM (``GetQueueInfoRequest``)."""

    queue_name: str
    include_applications: bool = False
    include_child_queues: bool = False
    recursive: bool = False


class GetQueueInfoResponse(Message, frozen=True, kw_only=True, tag="GetQueueInfoResponse"):
    """RM -> client (``GetQueueInfoResponse``)."""

    queue_info: QueueInfo


class MoveApplicationAcrossQueuesRequest(Message, frozen=True, kw_only=True, tag="MoveApplicationAcrossQueuesRequest"):
    """Client -> RM (``MoveApplicationAcrossQueuesRequest``); ``user`` as in :class:`KillApplicationRequest`."""

    application_id: ApplicationId
    target_queue: str
    user: str = ""


class MoveApplicationAcrossQueuesResponse(
    Message, frozen=True, kw_only=True, tag="MoveApplicationAcrossQueuesResponse"
):
    """RM -> client (``MoveApplicationAcrossQueuesResponse``): the move is done."""


class UpdateApplicationPriorityRequest(Message, frozen=True, kw_only=True, tag="UpdateApplicationPriorityRequest"):
    """Client -> RM (``UpdateApplicationPriorityRequest``); ``user`` as in :class:`KillApplicationRequest`."""

    application_id: ApplicationId
    application_priority: Priority
    user: str = ""


class UpdateApplicationPriorityResponse(Message, frozen=True, kw_only=True, tag="UpdateApplicationPriorityResponse"):
    """RM -> client (``UpdateApplicationPriorityResponse``): the priority the application has now (capped at
    ``yarn.cluster.max-application-priority``, as ``CapacityScheduler.checkAndGetApplicationPriority`` does)."""

    application_priority: Priority


class RemoteRefusal(Message, frozen=True, kw_only=True, tag="RemoteRefusal"):
    """RM -> client: the request was refused, as a ``YarnException`` thrown by ``ClientRMService`` reaches an RPC
    client (``RemoteException``): ``exception`` is the Java class's simple name (``ApplicationNotFoundException``,
    ``AccessControlException``, ``YarnException``), ``message`` Hadoop's text."""

    exception: str
    message: str
