"""YARN's messages: every class is a frozen, tagged, round-trippable msgspec Struct with YARN's names."""

from __future__ import annotations

import pickle
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest

import yarnball.protocols as protocols
from yarnball.errors import ProtocolError
from yarnball.protocols import (
    MESSAGE_TYPES,
    AllocateRequest,
    AMCommand,
    ApplicationAttemptId,
    ApplicationId,
    Container,
    ContainerId,
    ContainerLaunchContext,
    ContainerPreemptEvent,
    ContainerQueuingLimit,
    ContainerState,
    ContainerStatus,
    Message,
    NodeAction,
    NodeHeartbeatRequest,
    NodeHeartbeatResponse,
    NodeId,
    NodeStatus,
    Priority,
    Resource,
    SchedulerEvent,
    SchedulerEventType,
    decode,
    encode,
    message_type,
)

# The messages GitHub issue 2 names; more may exist (e.g. the distributed-scheduling ones), never fewer.
ISSUE_MESSAGES = {
    "RegisterNodeManagerRequest", "RegisterNodeManagerResponse", "NodeHeartbeatRequest", "NodeHeartbeatResponse",
    "UnRegisterNodeManagerRequest", "UnRegisterNodeManagerResponse",
    "RegisterApplicationMasterRequest", "RegisterApplicationMasterResponse", "AllocateRequest", "AllocateResponse",
    "FinishApplicationMasterRequest", "FinishApplicationMasterResponse",
    "StartContainersRequest", "StartContainersResponse", "StopContainersRequest", "StopContainersResponse",
    "ContainerUpdateRequest", "ContainerUpdateResponse", "GetContainerStatusesRequest", "GetContainerStatusesResponse",
    "GetNewApplicationRequest", "GetNewApplicationResponse", "SubmitApplicationRequest", "SubmitApplicationResponse",
    "KillApplicationRequest", "KillApplicationResponse", "GetApplicationReportRequest",
    "GetApplicationReportResponse", "GetApplicationsRequest", "GetApplicationsResponse", "GetClusterMetricsRequest",
    "GetClusterMetricsResponse", "GetClusterNodesRequest", "GetClusterNodesResponse", "GetQueueInfoRequest",
    "GetQueueInfoResponse",
    "NodeAddedSchedulerEvent", "NodeRemovedSchedulerEvent", "NodeUpdateSchedulerEvent",
    "NodeResourceUpdateSchedulerEvent", "AppAddedSchedulerEvent", "AppRemovedSchedulerEvent",
    "AppAttemptAddedSchedulerEvent", "AppAttemptRemovedSchedulerEvent", "ContainerExpiredSchedulerEvent",
    "ReleaseContainerEvent", "KillReservedContainerEvent", "ContainerPreemptEvent",
}  # fmt: skip

EVENT_TYPES = {
    "NodeAddedSchedulerEvent": SchedulerEventType.NODE_ADDED,
    "NodeRemovedSchedulerEvent": SchedulerEventType.NODE_REMOVED,
    "NodeUpdateSchedulerEvent": SchedulerEventType.NODE_UPDATE,
    "NodeResourceUpdateSchedulerEvent": SchedulerEventType.NODE_RESOURCE_UPDATE,
    "NodeLabelsUpdateSchedulerEvent": SchedulerEventType.NODE_LABELS_UPDATE,
    "AppAddedSchedulerEvent": SchedulerEventType.APP_ADDED,
    "AppRemovedSchedulerEvent": SchedulerEventType.APP_REMOVED,
    "AppAttemptAddedSchedulerEvent": SchedulerEventType.APP_ATTEMPT_ADDED,
    "AppAttemptRemovedSchedulerEvent": SchedulerEventType.APP_ATTEMPT_REMOVED,
    "ContainerExpiredSchedulerEvent": SchedulerEventType.CONTAINER_EXPIRED,
    "ReleaseContainerEvent": SchedulerEventType.RELEASE_CONTAINER,
    "KillReservedContainerEvent": SchedulerEventType.KILL_RESERVED_CONTAINER,
    "ContainerPreemptEvent": SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION,
}


# --- a generic builder: one instance of any Struct, from its field annotations --------------------------------


def sample_value(t: mi.Type) -> Any:
    """A non-default value of inspected type ``t`` (every optional filled in, every sequence non-empty)."""
    match t:
        case mi.NoneType():
            return None
        case mi.BoolType():
            return True
        case mi.IntType():
            return 7
        case mi.FloatType():
            return 0.5
        case mi.StrType():
            return "x"
        case mi.BytesType():
            return b"\x00\xff"
        case mi.EnumType():
            return list(t.cls)[-1]
        case mi.LiteralType():
            return t.values[0]
        case mi.UnionType():
            return sample_value(next(x for x in t.types if not isinstance(x, mi.NoneType)))
        case mi.TupleType():
            return tuple(sample_value(x) for x in t.item_types)
        case mi.VarTupleType():
            return (sample_value(t.item_type), sample_value(t.item_type))
        case mi.StructType():
            return build(t.cls, t)
    raise AssertionError(f"no sample for {t!r}: teach sample_value this type")


def build(cls: type[msgspec.Struct], info: mi.StructType | None = None) -> Any:
    """An instance of ``cls`` with every field set; an enum field with a default keeps it (it may be constrained)."""
    info = info or mi.type_info(cls)
    kwargs = {}
    for field in info.fields:
        if isinstance(field.type, mi.EnumType) and not field.required:
            continue
        kwargs[field.name] = sample_value(field.type)
    return cls(**kwargs)


def build_minimal(cls: type[msgspec.Struct]) -> Any:
    """An instance of ``cls`` with only its required fields set."""
    info = mi.type_info(cls)
    return cls(**{f.name: sample_value(f.type) for f in info.fields if f.required})


def all_subclasses(cls: type) -> set[type]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub, *all_subclasses(sub)}
    return out


# --- tests ------------------------------------------------------------------------------------------------------


def test_every_message_named_in_the_issue_exists() -> None:
    """MESSAGE_TYPES holds at least every message the issue lists, under YARN's class names."""
    tags = {cls.type_tag() for cls in MESSAGE_TYPES}
    assert ISSUE_MESSAGES <= tags
    assert len(MESSAGE_TYPES) >= len(ISSUE_MESSAGES)


def test_message_types_cover_every_concrete_subclass() -> None:
    """Every concrete Message subclass in yarnball.protocols is registered with the codec."""
    concrete = {c for c in all_subclasses(Message) if c.__module__.startswith("yarnball.protocols")}
    assert concrete - {SchedulerEvent} == set(MESSAGE_TYPES)


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__name__)
def test_tag_is_the_yarn_class_name(cls: type[Message]) -> None:
    """The wire tag is the class name and message_type() finds the class from it."""
    assert cls.type_tag() == cls.__name__
    assert message_type(cls.__name__) is cls


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__name__)
def test_every_message_round_trips_fully_populated(cls: type[Message]) -> None:
    """A message with every field set decodes equal to itself."""
    message = build(cls)
    assert decode(encode(message)) == message


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__name__)
def test_every_message_round_trips_with_defaults(cls: type[Message]) -> None:
    """A message built tersely (required fields only) decodes equal to itself."""
    message = build_minimal(cls)
    assert decode(encode(message)) == message


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__name__)
def test_messages_are_frozen_hashable_and_picklable(cls: type[Message]) -> None:
    """Messages cannot be mutated, can be hashed and survive pickling (Ray may pickle them)."""
    message = build(cls)
    name = msgspec.structs.fields(cls)[0].name if msgspec.structs.fields(cls) else "anything"
    with pytest.raises(AttributeError):
        setattr(message, name, None)
    assert hash(message) == hash(build(cls))
    assert pickle.loads(pickle.dumps(message)) == message


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__name__)
def test_messages_are_keyword_only(cls: type[Message]) -> None:
    """Messages take keyword arguments only, so field order can evolve."""
    with pytest.raises(TypeError, match="positional"):
        cls(*[None] * max(1, len(msgspec.structs.fields(cls))))


def _types_within(t: mi.Type, seen: set[type]) -> list[mi.Type]:
    out = [t]
    match t:
        case mi.UnionType():
            children = list(t.types)
        case mi.TupleType():
            children = list(t.item_types)
        case mi.VarTupleType() | mi.ListType() | mi.SetType() | mi.FrozenSetType():
            children = [t.item_type]
        case mi.DictType():
            children = [t.key_type, t.value_type]
        case mi.StructType() if t.cls not in seen:
            seen.add(t.cls)
            children = [f.type for f in t.fields]
        case _:
            children = []
    for child in children:
        out += _types_within(child, seen)
    return out


def test_sequence_fields_are_tuples() -> None:
    """No message or nested record uses a list, set or dict field (frozen, hashable, cheap)."""
    for cls in MESSAGE_TYPES:
        for t in _types_within(mi.type_info(cls), set()):
            assert not isinstance(t, mi.ListType | mi.SetType | mi.FrozenSetType | mi.DictType), cls


def test_scheduler_event_types_have_yarns_values() -> None:
    """SchedulerEventType has exactly Hadoop 3.x's values."""
    assert {t.value for t in SchedulerEventType} == {t.value for t in EVENT_TYPES.values()} | {
        "MARK_CONTAINER_FOR_KILLABLE",
        "MARK_CONTAINER_FOR_NONKILLABLE",
    }


@pytest.mark.parametrize("name", sorted(EVENT_TYPES))
def test_each_scheduler_event_exposes_its_type(name: str) -> None:
    """Each scheduler event class (and instance) says which SchedulerEventType it is."""
    cls = message_type(name)
    assert issubclass(cls, SchedulerEvent)
    assert build_minimal(cls).event_type is EVENT_TYPES[name]


def test_container_preempt_event_carries_any_preemption_type() -> None:
    """ContainerPreemptEvent can be a kill-killable mark and keeps that type across the wire."""
    event = build(ContainerPreemptEvent)
    killable = msgspec.structs.replace(event, event_type=SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE)
    assert decode(encode(killable)).event_type is SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE


def test_container_preempt_event_rejects_non_preemption_type() -> None:
    """A ContainerPreemptEvent of type NODE_ADDED is refused when built and when decoded."""
    event = build(ContainerPreemptEvent)
    with pytest.raises(ValueError, match="MARK_CONTAINER_FOR_PREEMPTION"):
        msgspec.structs.replace(event, event_type=SchedulerEventType.NODE_ADDED)
    raw = msgspec.msgpack.decode(encode(event))
    raw["m"]["event_type"] = "NODE_ADDED"
    with pytest.raises(ProtocolError, match="ContainerPreemptEvent"):
        decode(msgspec.msgpack.encode(raw))


def test_message_type_rejects_unknown_tag() -> None:
    """message_type() of an unknown tag raises ProtocolError suggesting the close match."""
    with pytest.raises(ProtocolError, match="NodeHeartbeatRequest"):
        message_type("NodeHeartbeatRequst")


def test_messages_build_tersely() -> None:
    """The hot messages need only their identifying fields; YARN's defaults fill the rest."""
    attempt = ApplicationAttemptId(ApplicationId(1, 1), 1)
    heartbeat = NodeHeartbeatRequest(node_status=NodeStatus(node_id=NodeId("h1", 8041)))
    assert heartbeat.node_status.container_statuses == ()
    assert AllocateRequest(application_attempt_id=attempt).ask == ()
    response = NodeHeartbeatResponse()
    assert response.node_action is NodeAction.NORMAL and response.nodes_for_scheduling == ()
    assert ContainerLaunchContext().payload == b"" and ContainerLaunchContext().simulated_duration_ms is None


def test_container_queuing_limit_defaults_to_no_limit() -> None:
    """ContainerQueuingLimit.newInstance() is -1/-1 (no limit), as in Hadoop."""
    assert ContainerQueuingLimit() == ContainerQueuingLimit(max_queue_length=-1, max_queue_wait_time_in_ms=-1)


def test_am_command_values() -> None:
    """AMCommand has YARN's two orders."""
    assert {c.value for c in AMCommand} == {"AM_RESYNC", "AM_SHUTDOWN"}


def test_heartbeat_with_statuses_round_trips() -> None:
    """A realistic heartbeat with container statuses and a nested Resource survives the codec."""
    attempt = ApplicationAttemptId(ApplicationId(1700000000000, 3), 1)
    statuses = tuple(
        ContainerStatus(
            container_id=ContainerId(attempt, i), state=ContainerState.RUNNING, capability=Resource(1024, 1)
        )
        for i in range(1, 4)
    )
    message = NodeHeartbeatRequest(node_status=NodeStatus(node_id=NodeId("h", 1), container_statuses=statuses))
    assert decode(encode(message)).node_status.container_statuses[2].capability == Resource(memory_mb=1024, vcores=1)


def test_resource_importable_from_protocols() -> None:
    """Resource(memory_mb=..., vcores=...) comes from yarnball.protocols."""
    assert protocols.Resource(memory_mb=2048, vcores=2).memory_mb == 2048


def test_public_names_are_exported() -> None:
    """Every protocol module's public name is re-exported by yarnball.protocols, and nothing is missing."""
    from yarnball.protocols import (
        _amprotocol,
        _clientprotocol,
        _codec,
        _containermanagement,
        _messages,
        _records,
        _resourcetracker,
        _schedulerevents,
    )

    modules = (_records, _messages, _resourcetracker, _amprotocol, _containermanagement, _clientprotocol,
               _schedulerevents, _codec)  # fmt: skip
    for module in modules:
        for name in module.__all__:
            assert name in protocols.__all__ and getattr(protocols, name) is getattr(module, name)
    assert len(protocols.__all__) == len(set(protocols.__all__))


@pytest.mark.parametrize(
    "text",
    ["application_1700000000000_0007", "application_1_12345"],
)
def test_application_id_string_round_trips(text: str) -> None:
    """ApplicationId.parse(str(id)) gives back the id and the text."""
    assert str(ApplicationId.parse(text)) == text


@pytest.mark.parametrize("text", ["appattempt_1700000000000_0007_000001", "appattempt_1_0001_000012"])
def test_application_attempt_id_string_round_trips(text: str) -> None:
    """ApplicationAttemptId.parse(str(id)) gives back the id and the text."""
    assert str(ApplicationAttemptId.parse(text)) == text


@pytest.mark.parametrize(
    "text",
    ["container_1700000000000_0007_01_000002", "container_e17_1700000000000_0007_01_000002"],
)
def test_container_id_string_round_trips(text: str) -> None:
    """ContainerId.parse(str(id)) gives back the text, including the epoch form."""
    assert str(ContainerId.parse(text)) == text


def test_ids_parse_back_from_their_string_forms() -> None:
    """str() then parse() of every id kind is the identity, also after a codec round trip."""
    attempt = ApplicationAttemptId(ApplicationId(1700000000000, 42), 2)
    cid = ContainerId(attempt, (3 << 40) | 17)
    container = Container(id=cid, node_id=NodeId("h", 1), resource=Resource(1, 1), priority=Priority(1))
    event = ContainerPreemptEvent(application_attempt_id=attempt, container=container)
    decoded = decode(encode(event))
    assert ApplicationAttemptId.parse(str(decoded.application_attempt_id)) == attempt
    assert ContainerId.parse(str(decoded.container.id)) == cid
    assert ApplicationId.parse(str(attempt.application_id)) == attempt.application_id
