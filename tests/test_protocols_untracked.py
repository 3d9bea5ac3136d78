"""Records and messages are untracked by the cyclic garbage collector, and that is safe for every class."""

from __future__ import annotations

import enum
import gc
import types
import typing

import msgspec

from yarnball.protocols import (
    MESSAGE_TYPES,
    ApplicationAttemptId,
    ApplicationId,
    ContainerId,
    ContainerState,
    ContainerStatus,
    NodeHeartbeatRequest,
    NodeId,
    decode,
    encode,
)
from yarnball.protocols._records import Record
from yarnball.protocols._resourcetracker import NodeStatus

_IMMUTABLE_LEAVES = (int, float, str, bool, bytes, type(None))


def _all_struct_classes() -> list[type]:
    found: list[type] = []
    todo: list[type] = [Record, *MESSAGE_TYPES]
    while todo:
        cls = todo.pop()
        if cls not in found:
            found.append(cls)
            todo.extend(cls.__subclasses__())
    return found


def _immutable(tp: object) -> bool:
    origin = typing.get_origin(tp)
    if origin is typing.ClassVar:
        return True
    if origin in (typing.Union, types.UnionType):
        return all(_immutable(arg) for arg in typing.get_args(tp))
    if origin is tuple:
        return all(arg is Ellipsis or _immutable(arg) for arg in typing.get_args(tp))
    if isinstance(tp, type):
        return issubclass(tp, (*_IMMUTABLE_LEAVES, msgspec.Struct, enum.Enum))
    return False


def test_decoded_heartbeat_and_its_records_are_not_tracked() -> None:
    """A decoded message and the records inside it are invisible to the collector (gc=False)."""
    attempt = ApplicationAttemptId(ApplicationId(1, 1), 1)
    status = ContainerStatus(container_id=ContainerId(attempt, 2), state=ContainerState.RUNNING)
    beat = NodeHeartbeatRequest(node_status=NodeStatus(node_id=NodeId("n", 0), container_statuses=(status,)))
    message = decode(encode(beat))
    assert isinstance(message, NodeHeartbeatRequest) and message.node_status is not None
    assert not gc.is_tracked(message)
    assert not gc.is_tracked(message.node_status)
    assert not gc.is_tracked(message.node_status.container_statuses[0])


def test_every_field_of_every_record_and_message_is_immutable() -> None:
    """No record or message field can hold a mutable container, so none can close a reference cycle."""
    bad = []
    classes = _all_struct_classes()
    assert len(classes) > len(MESSAGE_TYPES) + 20  # every message and record class was walked
    for cls in classes:
        assert cls.__struct_config__.frozen, cls
        for name, tp in typing.get_type_hints(cls).items():
            if not _immutable(tp):
                bad.append(f"{cls.__name__}.{name}: {tp}")
    assert bad == []


def test_ids_cache_their_hash_and_stay_equal_by_value() -> None:
    """The ids hashed on every container's path cache their hash, and equal ids still hash and compare equal."""
    for cls in (ApplicationId, ApplicationAttemptId, ContainerId):
        assert cls.__struct_config__.cache_hash, cls.__name__
    a = ContainerId(ApplicationAttemptId(ApplicationId(1, 2), 1), 7)
    b = ContainerId(ApplicationAttemptId(ApplicationId(1, 2), 1), 7)
    assert a is not b and a == b and hash(a) == hash(b)
    assert {a: "x"}[b] == "x"
