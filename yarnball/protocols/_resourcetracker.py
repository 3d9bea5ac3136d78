"""ResourceTracker protocol (NodeManager <-> ResourceManager): register, node heartbeat, unregister.

Mirrors ``org.apache.hadoop.yarn.server.api.ResourceTracker`` and its records in
``org.apache.hadoop.yarn.server.api.{protocolrecords,records}``. Security fields (master keys, tokens,
registering collectors, log-aggregation reports) are left out: yarnball has no RPC security layer.
"""

from __future__ import annotations

import enum

from yarnball.protocols._messages import Message
from yarnball.protocols._records import (
    ApplicationId,
    Container,
    ContainerId,
    ContainerState,
    ContainerStatus,
    ExecutionType,
    MasterKey,
    NodeId,
    Priority,
    Record,
    Resource,
)

__all__ = [
    "ContainerQueuingLimit",
    "NMContainerStatus",
    "NodeAction",
    "NodeHealthStatus",
    "NodeHeartbeatRequest",
    "NodeHeartbeatResponse",
    "NodeStatus",
    "OpportunisticContainersStatus",
    "RegisterNodeManagerRequest",
    "RegisterNodeManagerResponse",
    "RemoteNode",
    "ResourceUtilization",
    "UnRegisterNodeManagerRequest",
    "UnRegisterNodeManagerResponse",
]


class NodeAction(enum.Enum):
    """What the RM tells an NM to do after a register or heartbeat (``NodeAction``)."""

    NORMAL = "NORMAL"
    RESYNC = "RESYNC"
    SHUTDOWN = "SHUTDOWN"


class NodeHealthStatus(Record, frozen=True, kw_only=True):
    """The NM's health-checker verdict (``NodeHealthStatus``)."""

    is_node_healthy: bool = True
    health_report: str = ""
    last_health_report_time: int = 0


class ResourceUtilization(Record, frozen=True, kw_only=True):
    """Physical usage measured by the NM (``ResourceUtilization``): MB of pmem/vmem and a fraction of vcores."""

    pmem: int = 0
    vmem: int = 0
    cpu: float = 0.0


class OpportunisticContainersStatus(Record, frozen=True, kw_only=True):
    """The NM's queue state, sent on every heartbeat (``OpportunisticContainersStatus``).

    As in Hadoop, ``wait_queue_length`` counts *all* queued containers (guaranteed and opportunistic) and the real
    NM never fills in ``estimated_queue_wait_time`` (it stays 0); ``opport_queue_capacity`` is the NM's
    ``max_opportunistic_containers_queue_length``. Protobuf defaults are all 0.
    """

    running_opport_containers: int = 0
    opport_memory_used: int = 0
    opport_cores_used: int = 0
    queued_opport_containers: int = 0
    wait_queue_length: int = 0
    estimated_queue_wait_time: int = 0
    opport_queue_capacity: int = 0


class ContainerQueuingLimit(Record, frozen=True, kw_only=True):
    """The RM's cap on an NM's opportunistic queue (``ContainerQueuingLimit``); -1 means no limit.

    ``ContainerQueuingLimit.newInstance()`` sets both to -1. The NM only enforces ``max_queue_length``
    (``ContainerScheduler.updateQueuingLimit``: "YARN-2886 should add support for wait-times").
    """

    max_queue_length: int = -1
    max_queue_wait_time_in_ms: int = -1


class RemoteNode(Record, frozen=True, kw_only=True):
    """One entry of the least-loaded node list used by opportunistic allocation (``RemoteNode``)."""

    node_id: NodeId
    http_address: str = ""
    rack_name: str = ""
    node_partition: str = ""


class NMContainerStatus(Record, frozen=True, kw_only=True):
    """A container the NM reports when it (re-)registers, for work-preserving recovery (``NMContainerStatus``)."""

    container_id: ContainerId
    container_state: ContainerState
    allocated_resource: Resource = Resource()
    diagnostics: str = ""
    container_exit_status: int = -1000  # ContainerExitStatus.INVALID
    priority: Priority = Priority()
    creation_time: int = 0
    node_label_expression: str = ""
    version: int = 0
    execution_type: ExecutionType = ExecutionType.GUARANTEED
    allocation_request_id: int = -1


class NodeStatus(Record, frozen=True, kw_only=True):
    """What an NM reports on every heartbeat (``NodeStatus``): its containers, health and queue lengths."""

    node_id: NodeId
    response_id: int = 0
    container_statuses: tuple[ContainerStatus, ...] = ()
    keep_alive_applications: tuple[ApplicationId, ...] = ()
    node_health_status: NodeHealthStatus = NodeHealthStatus()
    containers_utilization: ResourceUtilization | None = None
    node_utilization: ResourceUtilization | None = None
    opportunistic_containers_status: OpportunisticContainersStatus | None = None


class RegisterNodeManagerRequest(Message, frozen=True, kw_only=True, tag="RegisterNodeManagerRequest"):
    """NM -> RM on start-up and after a RESYNC (``RegisterNodeManagerRequest``).

    ``rack_name`` is a yarnball addition: Hadoop's RM resolves the rack itself (``RackResolver`` over the
    topology script); the simulator reads racks from the SLS node file and lets the NM announce it.
    """

    node_id: NodeId
    http_port: int = 0
    resource: Resource = Resource()
    nm_version: str = ""
    container_statuses: tuple[NMContainerStatus, ...] = ()
    running_applications: tuple[ApplicationId, ...] = ()
    node_labels: tuple[str, ...] = ()
    physical_resource: Resource | None = None
    node_status: NodeStatus | None = None
    rack_name: str = "/default-rack"


class RegisterNodeManagerResponse(Message, frozen=True, kw_only=True, tag="RegisterNodeManagerResponse"):
    """RM -> NM (``RegisterNodeManagerResponse``); ``resource`` is set when the RM overrides the node's size."""

    node_action: NodeAction = NodeAction.NORMAL
    rm_identifier: int = 0
    diagnostics_message: str = ""
    rm_version: str = ""
    are_node_labels_accepted: bool = False
    resource: Resource | None = None
    # The keys the NM checks container tokens and NMTokens with (protocols/_tokens.py).
    container_token_master_key: MasterKey | None = None
    nm_token_master_key: MasterKey | None = None


class NodeHeartbeatRequest(Message, frozen=True, kw_only=True, tag="NodeHeartbeatRequest"):
    """NM -> RM every ``yarn.resourcemanager.nodemanagers.heartbeat-interval-ms`` (``NodeHeartbeatRequest``).

    ``node_labels`` is None when unchanged since the last heartbeat, as Hadoop sends null then.
    """

    node_status: NodeStatus
    node_labels: tuple[str, ...] | None = None


class NodeHeartbeatResponse(Message, frozen=True, kw_only=True, tag="NodeHeartbeatResponse"):
    """RM -> NM (``NodeHeartbeatResponse``): what to clean up, queue limits and the least-loaded nodes.

    ``nodes_for_scheduling`` is a yarnball shortcut: in Hadoop the least-loaded node list reaches the NM's
    ``DistributedScheduler`` through the AM's register/allocate responses of the DistributedSchedulingAMProtocol
    (see ``DistributedSchedulingAllocateResponse``), not through node heartbeats. Carrying it here lets an NM keep
    the list fresh without an AM round trip; leave it empty to follow Hadoop exactly.
    """

    response_id: int = 0
    node_action: NodeAction = NodeAction.NORMAL
    containers_to_cleanup: tuple[ContainerId, ...] = ()
    containers_to_be_removed_from_nm: tuple[ContainerId, ...] = ()
    applications_to_cleanup: tuple[ApplicationId, ...] = ()
    next_heartbeat_interval_ms: int = 1000
    diagnostics_message: str = ""
    resource: Resource | None = None
    container_queuing_limit: ContainerQueuingLimit | None = None
    nodes_for_scheduling: tuple[RemoteNode, ...] = ()
    containers_to_update: tuple[Container, ...] = ()
    are_node_labels_accepted: bool = False


class UnRegisterNodeManagerRequest(Message, frozen=True, kw_only=True, tag="UnRegisterNodeManagerRequest"):
    """NM -> RM on graceful shutdown (``UnRegisterNodeManagerRequest``)."""

    node_id: NodeId


class UnRegisterNodeManagerResponse(Message, frozen=True, kw_only=True, tag="UnRegisterNodeManagerResponse"):
    """RM -> NM (``UnRegisterNodeManagerResponse``): an empty acknowledgement."""
