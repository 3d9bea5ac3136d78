"""YARN's records, with YARN's names, fields and string forms.

These are the nouns every message is made of (``org.apache.hadoop.yarn.api.records``). They are frozen msgspec
Structs: cheap to create, safe to share between actors in one process, and encoded to MessagePack by the codec
when they cross a process boundary.
"""

from __future__ import annotations

import enum

import msgspec

__all__ = [
    "AMRMToken",
    "ApplicationAttemptId",
    "ApplicationId",
    "ApplicationReport",
    "Container",
    "ContainerExitStatus",
    "ContainerId",
    "ContainerState",
    "ContainerStatus",
    "ContainerSubState",
    "ContainerToken",
    "ContainerUpdateType",
    "ExecutionType",
    "ExecutionTypeRequest",
    "FinalApplicationStatus",
    "MasterKey",
    "NMToken",
    "NodeId",
    "NodeReport",
    "NodeState",
    "NodeUpdateType",
    "PreemptionContainer",
    "PreemptionContract",
    "PreemptionMessage",
    "PreemptionResourceRequest",
    "Priority",
    "Resource",
    "ResourceRequest",
    "StrictPreemptionContract",
    "UpdateContainerRequest",
    "UpdatedContainer",
    "YarnApplicationState",
]

ANY = "*"  # ResourceRequest.ANY: the off-switch resource name


# gc=False: records are never tracked by the cyclic garbage collector. That is safe because they cannot be part of
# a reference cycle: they are frozen (no field can be set after creation) and every field is an int, float, str,
# bool, bytes, enum, None, another record or a tuple of those (the annotations below; msgspec enforces them on
# decode), so nothing reachable from a record is mutable and can point back at it. (A caller who stuffed a list
# into a tuple field and that list back into itself would leak that one object rather than crash.) Untracked,
# the millions of records a large run keeps alive cost the collector nothing, and decoding a batch of them does
# not trigger collections over the whole heap (msgspec docs, "Disabling Garbage Collection").
# cache_hash on the ids used as dict keys on every container's path (a ContainerId is hashed ~20 times per
# container, each hash walking the nested attempt and application ids): computed once per object.
# Subclasses restate frozen=True: msgspec inherits it, but type checkers read each class's own keywords
# (dataclass_transform) and would take a subclass without it for a mutable one.
class Record(msgspec.Struct, frozen=True, gc=False):
    """Base of every record: frozen, compared by value, not tracked by the garbage collector."""


class Resource(Record, frozen=True):
    """An amount of memory (MB) and virtual cores, plus optional extended resource types (e.g. ``yarn.io/gpu``)."""

    memory_mb: int = 0
    vcores: int = 0
    extended: tuple[tuple[str, int], ...] = ()

    def __add__(self, other: Resource) -> Resource:
        return Resource(self.memory_mb + other.memory_mb, self.vcores + other.vcores, _merge(self, other, 1))

    def __sub__(self, other: Resource) -> Resource:
        return Resource(self.memory_mb - other.memory_mb, self.vcores - other.vcores, _merge(self, other, -1))

    def __mul__(self, factor: float) -> Resource:
        # Resources.multiply truncates like Java's (long) cast.
        return Resource(
            int(self.memory_mb * factor),
            int(self.vcores * factor),
            tuple((k, int(v * factor)) for k, v in self.extended),
        )

    def fits_in(self, bigger: Resource) -> bool:
        """``Resources.fitsIn``: every component is at most the other's."""
        if self.memory_mb > bigger.memory_mb or self.vcores > bigger.vcores:
            return False
        if self.extended:
            theirs = dict(bigger.extended)
            return all(v <= theirs.get(k, 0) for k, v in self.extended)
        return True

    def is_none(self) -> bool:
        """True when every component is zero (``Resources.none()``)."""
        return self.memory_mb == 0 and self.vcores == 0 and all(v == 0 for _, v in self.extended)

    def __str__(self) -> str:
        # Hadoop's Resource.toString(): <memory:1024, vCores:1>
        extra = "".join(f", {k}: {v}" for k, v in self.extended)
        return f"<memory:{self.memory_mb}, vCores:{self.vcores}{extra}>"


def _merge(a: Resource, b: Resource, sign: int) -> tuple[tuple[str, int], ...]:
    if not a.extended and not b.extended:
        return ()
    out = dict(a.extended)
    for k, v in b.extended:
        out[k] = out.get(k, 0) + sign * v
    return tuple(sorted(out.items()))


class ApplicationId(Record, frozen=True, cache_hash=True):
    """``application_<clusterTimestamp>_<id>``; the id is zero-padded to at least four digits."""

    cluster_timestamp: int
    id: int

    def __str__(self) -> str:
        return f"application_{self.cluster_timestamp}_{self.id:04d}"

    @classmethod
    def parse(cls, text: str) -> ApplicationId:
        parts = text.split("_")
        if len(parts) != 3 or parts[0] != "application":
            raise ValueError(f"Invalid ApplicationId: {text}")
        return cls(int(parts[1]), int(parts[2]))


class ApplicationAttemptId(Record, frozen=True, cache_hash=True):
    """``appattempt_<clusterTimestamp>_<appId>_<attemptId>``, the attempt zero-padded to six digits."""

    application_id: ApplicationId
    attempt_id: int

    def __str__(self) -> str:
        app = self.application_id
        return f"appattempt_{app.cluster_timestamp}_{app.id:04d}_{self.attempt_id:06d}"

    @classmethod
    def parse(cls, text: str) -> ApplicationAttemptId:
        parts = text.split("_")
        if len(parts) != 4 or parts[0] != "appattempt":
            raise ValueError(f"Invalid AppAttemptId: {text}")
        return cls(ApplicationId(int(parts[1]), int(parts[2])), int(parts[3]))


class ContainerId(Record, frozen=True, cache_hash=True):
    """``container_[e<epoch>_]<clusterTimestamp>_<appId>_<attemptId>_<containerId>``.

    As in ``ContainerId.toString()``, the application id is padded to four digits, the attempt to two and the
    container sequence number to six; the epoch (the high bits of the 64-bit id, bumped on RM restart) is written
    only when it is non-zero.
    """

    application_attempt_id: ApplicationAttemptId
    container_id: int

    def __str__(self) -> str:
        attempt = self.application_attempt_id
        app = attempt.application_id
        epoch = self.container_id >> 40
        seq = self.container_id & ((1 << 40) - 1)
        prefix = f"container_e{epoch:02d}_" if epoch else "container_"
        return f"{prefix}{app.cluster_timestamp}_{app.id:04d}_{attempt.attempt_id:02d}_{seq:06d}"

    @classmethod
    def parse(cls, text: str) -> ContainerId:
        parts = text.split("_")
        epoch = 0
        if len(parts) == 6 and parts[1].startswith("e"):
            epoch = int(parts[1][1:])
            parts = [parts[0], *parts[2:]]
        if len(parts) != 5 or parts[0] != "container":
            raise ValueError(f"Invalid ContainerId: {text}")
        app = ApplicationId(int(parts[1]), int(parts[2]))
        return cls(ApplicationAttemptId(app, int(parts[3])), (epoch << 40) | int(parts[4]))


class NodeId(Record, frozen=True):
    """``host:port``."""

    host: str
    port: int = 0

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


class Priority(Record, frozen=True):
    """A request priority. As in YARN, a *lower* number is a *higher* priority."""

    priority: int = 0

    def __str__(self) -> str:
        return str(self.priority)


class ExecutionType(enum.Enum):
    GUARANTEED = "GUARANTEED"
    OPPORTUNISTIC = "OPPORTUNISTIC"


class ExecutionTypeRequest(Record, frozen=True):
    execution_type: ExecutionType = ExecutionType.GUARANTEED
    enforce_execution_type: bool = False


class ContainerState(enum.Enum):
    """``ContainerState``: NEW, RUNNING, COMPLETE, plus SCHEDULED (queued at the NM, YARN-4597)."""

    NEW = "NEW"
    SCHEDULED = "SCHEDULED"
    RUNNING = "RUNNING"
    COMPLETE = "COMPLETE"


class ContainerSubState(enum.Enum):
    """``ContainerSubState`` (YARN-7275): the NM's finer state of a container, in its ``ContainerStatus``.

    ``ContainerImpl.getContainerSubState`` maps the NM's states to these: PAUSED and RESUMING are PAUSED, PAUSING
    and KILLING are RUNNING (the API ``ContainerState`` of all of them is RUNNING)."""

    SCHEDULED = "SCHEDULED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    COMPLETING = "COMPLETING"
    DONE = "DONE"


class ContainerExitStatus(enum.IntEnum):
    """``ContainerExitStatus`` with YARN's numeric codes."""

    SUCCESS = 0
    INVALID = -1000
    ABORTED = -100
    DISKS_FAILED = -101
    PREEMPTED = -102
    KILLED_EXCEEDED_VMEM = -103
    KILLED_EXCEEDED_PMEM = -104
    KILLED_BY_APPMASTER = -105
    KILLED_BY_RESOURCEMANAGER = -106
    KILLED_AFTER_APP_COMPLETION = -107
    KILLED_BY_CONTAINER_SCHEDULER = -108
    KILLED_FOR_EXCESS_LOGS = -109


class NodeState(enum.Enum):
    NEW = "NEW"
    RUNNING = "RUNNING"
    UNHEALTHY = "UNHEALTHY"
    DECOMMISSIONED = "DECOMMISSIONED"
    LOST = "LOST"
    REBOOTED = "REBOOTED"
    DECOMMISSIONING = "DECOMMISSIONING"
    SHUTDOWN = "SHUTDOWN"


class NodeUpdateType(enum.Enum):
    """Why a node is in an AllocateResponse's ``updated_nodes`` (``NodeUpdateType``, RMAppNodeUpdateEvent's type)."""

    NODE_USABLE = "NODE_USABLE"
    NODE_UNUSABLE = "NODE_UNUSABLE"
    NODE_DECOMMISSIONING = "NODE_DECOMMISSIONING"


class YarnApplicationState(enum.Enum):
    NEW = "NEW"
    NEW_SAVING = "NEW_SAVING"
    SUBMITTED = "SUBMITTED"
    ACCEPTED = "ACCEPTED"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    FAILED = "FAILED"
    KILLED = "KILLED"


class FinalApplicationStatus(enum.Enum):
    UNDEFINED = "UNDEFINED"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    KILLED = "KILLED"


class ResourceRequest(Record, frozen=True, kw_only=True):
    """An ask: ``num_containers`` containers of ``capability`` at ``priority`` on ``resource_name``.

    ``resource_name`` is a host, a rack (``/rack``) or ``*`` (ANY). As in YARN, an AM asking for a host also asks
    for its rack and for ``*``; ``relax_locality=False`` on the rack or ``*`` request forbids falling back there.
    """

    priority: Priority
    capability: Resource
    resource_name: str = ANY
    num_containers: int = 1
    relax_locality: bool = True
    node_label_expression: str = ""
    execution_type_request: ExecutionTypeRequest = ExecutionTypeRequest()
    allocation_request_id: int = -1


class MasterKey(Record, frozen=True, kw_only=True):
    """A secret-manager master key (``org.apache.hadoop.yarn.server.api.records.MasterKey``)."""

    key_id: int
    secret: bytes


class AMRMToken(Record, frozen=True, kw_only=True):
    """``Token<AMRMTokenIdentifier>`` (kind ``YARN_AM_RM_TOKEN``)."""

    application_attempt_id: ApplicationAttemptId
    key_id: int
    password: bytes = b""


class NMToken(Record, frozen=True, kw_only=True):
    """``NMToken`` (the node and ``Token<NMTokenIdentifier>``, kind ``NMToken``)."""

    application_attempt_id: ApplicationAttemptId
    node_id: NodeId
    app_submitter: str
    key_id: int
    password: bytes = b""


class ContainerToken(Record, frozen=True, kw_only=True):
    """``Token<ContainerTokenIdentifier>`` (kind ``ContainerToken``); ``node_id`` is ``nmHostAddress``."""

    container_id: ContainerId
    node_id: NodeId
    app_submitter: str
    resource: Resource
    key_id: int
    rm_identifier: int
    password: bytes = b""


class Container(Record, frozen=True, kw_only=True):
    """A container allocated by the RM: an id, a node, a resource, a priority and an execution type."""

    id: ContainerId
    node_id: NodeId
    resource: Resource
    priority: Priority
    execution_type: ExecutionType = ExecutionType.GUARANTEED
    allocation_request_id: int = -1
    version: int = 0
    node_http_address: str = ""
    #: The RM's signature on this allocation, set when the AM pulls the container (protocols/_tokens.py).
    container_token: ContainerToken | None = None


class ContainerStatus(Record, frozen=True, kw_only=True):
    container_id: ContainerId
    state: ContainerState
    exit_status: int = ContainerExitStatus.INVALID
    diagnostics: str = ""
    execution_type: ExecutionType = ExecutionType.GUARANTEED
    capability: Resource | None = None
    #: Set in answers to GetContainerStatusesRequest (``cloneAndGetContainerStatus``); heartbeats leave it None.
    container_sub_state: ContainerSubState | None = None


class ContainerUpdateType(enum.Enum):
    INCREASE_RESOURCE = "INCREASE_RESOURCE"
    DECREASE_RESOURCE = "DECREASE_RESOURCE"
    PROMOTE_EXECUTION_TYPE = "PROMOTE_EXECUTION_TYPE"
    DEMOTE_EXECUTION_TYPE = "DEMOTE_EXECUTION_TYPE"


class UpdateContainerRequest(Record, frozen=True, kw_only=True):
    """A request to change a running container: its resource (increase/decrease) or execution type."""

    container_version: int
    container_id: ContainerId
    container_update_type: ContainerUpdateType
    capability: Resource | None = None
    execution_type: ExecutionType | None = None


class UpdatedContainer(Record, frozen=True, kw_only=True):
    update_type: ContainerUpdateType
    container: Container


class PreemptionContainer(Record, frozen=True):
    id: ContainerId


class PreemptionResourceRequest(Record, frozen=True):
    resource_request: ResourceRequest


class StrictPreemptionContract(Record, frozen=True):
    """Containers the RM *will* take back: the AM may checkpoint, but cannot keep them."""

    containers: tuple[PreemptionContainer, ...] = ()


class PreemptionContract(Record, frozen=True):
    """Negotiable: give back resources matching ``resource_request``; ``containers`` are the RM's candidates."""

    resource_request: tuple[PreemptionResourceRequest, ...] = ()
    containers: tuple[PreemptionContainer, ...] = ()


class PreemptionMessage(Record, frozen=True):
    strict_contract: StrictPreemptionContract | None = None
    contract: PreemptionContract | None = None


class NodeReport(Record, frozen=True, kw_only=True):
    node_id: NodeId
    rack_name: str
    node_state: NodeState = NodeState.RUNNING
    used: Resource = Resource()
    capability: Resource = Resource()
    num_containers: int = 0
    health_report: str = ""
    node_labels: tuple[str, ...] = ()
    #: Seconds left until a DECOMMISSIONING node is decommissioned (``getDecommissioningTimeout``), else None.
    decommissioning_timeout: int | None = None
    #: In an AllocateResponse's ``updated_nodes``: why the AM is told (``getNodeUpdateType``), else None.
    node_update_type: NodeUpdateType | None = None


class ApplicationReport(Record, frozen=True, kw_only=True):
    application_id: ApplicationId
    name: str = ""
    user: str = ""
    queue: str = ""
    state: YarnApplicationState = YarnApplicationState.NEW
    final_status: FinalApplicationStatus = FinalApplicationStatus.UNDEFINED
    start_time: int = 0
    finish_time: int = 0
    progress: float = 0.0
    diagnostics: str = ""
    current_attempt_id: ApplicationAttemptId | None = None
    used_resources: Resource = Resource()
