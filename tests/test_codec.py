"""The MessagePack codec: versioned plain-MessagePack frames, and only ProtocolError for bad input."""

from __future__ import annotations

from typing import Any

import msgpack
import msgspec
import pytest
from fuzz_inputs import json_paths
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yarnball.errors import ProtocolError
from yarnball.protocols import (
    MESSAGE_TYPES,
    SCHEMA_VERSION,
    ApplicationAttemptId,
    ApplicationId,
    ContainerId,
    ContainerState,
    ContainerStatus,
    KillApplicationRequest,
    Message,
    NodeHeartbeatRequest,
    NodeId,
    NodeStatus,
    Resource,
    decode,
    decode_batch,
    encode,
    encode_batch,
)

try:  # pytest puts tests/ on sys.path (no package) or the project root (tests as a package)
    from test_messages import build, build_minimal
except ImportError:  # pragma: no cover
    from tests.test_messages import build, build_minimal

ATTEMPT = ApplicationAttemptId(ApplicationId(1700000000000, 1), 1)

ALL_MESSAGES = [build(cls) for cls in MESSAGE_TYPES] + [build_minimal(cls) for cls in MESSAGE_TYPES]
VALID_FRAMES = [encode(m) for m in ALL_MESSAGES[:: max(1, len(ALL_MESSAGES) // 20)]] + [
    encode_batch(ALL_MESSAGES[:5]),
    encode_batch([]),
]


def heartbeat(n: int = 3) -> NodeHeartbeatRequest:
    statuses = tuple(
        ContainerStatus(container_id=ContainerId(ATTEMPT, i), state=ContainerState.RUNNING, capability=Resource(512, 1))
        for i in range(n)
    )
    return NodeHeartbeatRequest(node_status=NodeStatus(node_id=NodeId("h1", 8041), container_statuses=statuses))


def repack(frame: bytes, edit: Any) -> bytes:
    """Decode a frame with plain msgpack, let ``edit`` change the dict, and pack it again."""
    raw = msgpack.unpackb(frame)
    edit(raw)
    return msgpack.packb(raw)


def raises_protocol_error(data: Any) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        decode(data)
    return info.value


# --- frames are plain MessagePack -----------------------------------------------------------------------------


@pytest.mark.parametrize("message", ALL_MESSAGES[: len(MESSAGE_TYPES)], ids=lambda m: type(m).__name__)
def test_single_frame_is_plain_msgpack(message: Any) -> None:
    """msgpack.unpackb reads every frame as {"v": 1, "m": {"type": <YARN class name>, ...}}."""
    raw = msgpack.unpackb(encode(message))
    assert set(raw) == {"v", "m"}
    assert raw["v"] == SCHEMA_VERSION == 1
    assert raw["m"]["type"] == type(message).__name__
    assert set(raw["m"]) == {"type", *msgspec.structs.asdict(message)}


def test_batch_frame_is_plain_msgpack() -> None:
    """msgpack.unpackb reads a batch as {"v": 1, "batch": [...]} with the messages in order."""
    raw = msgpack.unpackb(encode_batch(ALL_MESSAGES))
    assert set(raw) == {"v", "batch"} and raw["v"] == 1
    assert [item["type"] for item in raw["batch"]] == [type(m).__name__ for m in ALL_MESSAGES]


def test_plain_msgpack_writer_is_understood() -> None:
    """A frame written by another MessagePack client (from a plain dict) decodes into the message."""
    raw = {"v": 1, "m": {"type": "KillApplicationRequest", "application_id": {"cluster_timestamp": 5, "id": 2}}}
    assert decode(msgpack.packb(raw)) == KillApplicationRequest(application_id=ApplicationId(5, 2))


# --- round trips ---------------------------------------------------------------------------------------------


def test_batch_round_trips_in_order() -> None:
    """decode_batch(encode_batch(ms)) gives the same messages in the same order."""
    assert decode_batch(encode_batch(ALL_MESSAGES)) == ALL_MESSAGES


def test_batch_accepts_any_iterable_and_empty() -> None:
    """encode_batch takes a generator or tuple; an empty batch round-trips to an empty list."""
    assert decode_batch(encode_batch(m for m in ALL_MESSAGES[:3])) == ALL_MESSAGES[:3]
    assert decode_batch(encode_batch(())) == []


def test_decode_accepts_bytearray_and_memoryview() -> None:
    """Buffers other than bytes decode too (Ray may hand over a memoryview)."""
    frame = encode(heartbeat())
    assert decode(bytearray(frame)) == decode(memoryview(frame)) == heartbeat()


# --- clear errors ----------------------------------------------------------------------------------------------


def test_wrong_field_type_names_message_type_and_path() -> None:
    """A str where an int belongs names NodeHeartbeatRequest and $.m.node_status.response_id."""
    frame = repack(encode(heartbeat()), lambda raw: raw["m"]["node_status"].update(response_id="seven"))
    error = raises_protocol_error(frame)
    assert "NodeHeartbeatRequest" in str(error)
    assert "$.m.node_status.response_id" in str(error)
    assert "Expected `int`, got `str`" in str(error)
    assert isinstance(error.__cause__, msgspec.ValidationError)


def test_nested_error_path_reaches_into_sequences() -> None:
    """A bad container state names the index inside container_statuses."""
    frame = repack(
        encode(heartbeat()), lambda raw: raw["m"]["node_status"]["container_statuses"][2].update(state="BOGUS")
    )
    error = raises_protocol_error(frame)
    assert "$.m.node_status.container_statuses[2].state" in str(error)
    assert "NodeHeartbeatRequest" in str(error)


def test_missing_required_field_is_named() -> None:
    """A message without its required field says which one."""
    frame = repack(encode(heartbeat()), lambda raw: raw["m"].pop("node_status"))
    error = raises_protocol_error(frame)
    assert "node_status" in str(error) and "NodeHeartbeatRequest" in str(error)


def test_batch_error_names_item_index_and_type() -> None:
    """An error in a batch points at $.batch[i] and names that item's message type."""
    frame = repack(
        encode_batch([KillApplicationRequest(application_id=ApplicationId(1, 1)), heartbeat()]),
        lambda raw: raw["batch"][1]["node_status"].update(node_id=17),
    )
    with pytest.raises(ProtocolError, match=r"NodeHeartbeatRequest.*\$\.batch\[1\]\.node_status\.node_id"):
        decode_batch(frame)


def test_unknown_tag_is_rejected_clearly() -> None:
    """An unknown message type is named, with its path and a hint to the nearest known tag."""
    frame = repack(encode(heartbeat()), lambda raw: raw["m"].update(type="NodeHeartbeatRequestV9"))
    error = raises_protocol_error(frame)
    assert "Unknown message type 'NodeHeartbeatRequestV9'" in str(error)
    assert "$.m.type" in str(error) and "did you mean 'NodeHeartbeatRequest'" in str(error)


def test_missing_tag_is_rejected() -> None:
    """A message map without its "type" tag is refused."""
    frame = repack(encode(heartbeat()), lambda raw: raw["m"].pop("type"))
    with pytest.raises(ProtocolError, match=r"type"):
        decode(frame)


@pytest.mark.parametrize("version", [0, 2, 99])
def test_wrong_version_is_rejected(version: int) -> None:
    """A frame of another schema version is refused naming both versions."""
    frame = repack(encode(heartbeat()), lambda raw: raw.update(v=version))
    with pytest.raises(ProtocolError, match=rf"Unsupported schema version {version} .*reads version 1"):
        decode(frame)
    batch = repack(encode_batch([heartbeat()]), lambda raw: raw.update(v=version))
    with pytest.raises(ProtocolError, match=rf"Unsupported schema version {version}"):
        decode_batch(batch)


def test_wrong_version_wins_over_unreadable_message() -> None:
    """A future frame whose message this version cannot read is reported as a version mismatch."""
    frame = msgpack.packb({"v": 2, "m": {"type": "SomethingNew", "x": 1}, "extra": True})
    with pytest.raises(ProtocolError, match="Unsupported schema version 2"):
        decode(frame)


def test_missing_version_is_rejected() -> None:
    """A frame without "v" is refused."""
    with pytest.raises(ProtocolError, match=r"`v`"):
        decode(repack(encode(heartbeat()), lambda raw: raw.pop("v")))


def test_batch_where_message_expected() -> None:
    """decode() of a batch frame says to use decode_batch()."""
    with pytest.raises(ProtocolError, match=r"got a batch frame.*decode_batch\(\)"):
        decode(encode_batch([heartbeat()]))


def test_message_where_batch_expected() -> None:
    """decode_batch() of a single-message frame says to use decode()."""
    with pytest.raises(ProtocolError, match=r"got a single-message frame.*decode\(\)"):
        decode_batch(encode(heartbeat()))


def test_unknown_envelope_key_is_rejected() -> None:
    """An envelope with extra keys is not silently accepted."""
    with pytest.raises(ProtocolError, match="extra"):
        decode(repack(encode(heartbeat()), lambda raw: raw.update(extra=1)))


@pytest.mark.parametrize(
    "data",
    [b"", b"\xc1", b"\x92\x01\x02", b"\x07", msgpack.packb("frame"), msgpack.packb(None), msgpack.packb({})],
    ids=["empty", "bad-opcode", "array", "int", "str", "nil", "empty-map"],
)
def test_wrong_top_level_shape_is_rejected(data: bytes) -> None:
    """Bytes that are not a {v, m} map raise ProtocolError, from decode and decode_batch alike."""
    raises_protocol_error(data)
    with pytest.raises(ProtocolError):
        decode_batch(data)


@pytest.mark.parametrize("data", ["text", None, 12, [b"\x80"]], ids=["str", "None", "int", "list"])
def test_non_bytes_input_is_rejected(data: Any) -> None:
    """Decoding something that is not a buffer raises ProtocolError, not TypeError."""
    error = raises_protocol_error(data)
    assert "expected bytes" in str(error)
    with pytest.raises(ProtocolError):
        decode_batch(data)


def test_truncated_frame_is_rejected() -> None:
    """Every proper prefix of a frame raises ProtocolError."""
    frame = encode(heartbeat(2))
    for end in range(len(frame)):
        raises_protocol_error(frame[:end])


@pytest.mark.parametrize("thing", [{"type": "NodeHeartbeatRequest"}, None, Resource(1, 1), b"\x80"])
def test_encode_rejects_non_messages(thing: Any) -> None:
    """encode() of a dict, None, a record or bytes raises ProtocolError naming the type."""
    with pytest.raises(ProtocolError, match=type(thing).__name__):
        encode(thing)


def test_encode_batch_names_the_bad_item() -> None:
    """encode_batch() with a non-message item says which index."""
    with pytest.raises(ProtocolError, match="batch item 1"):
        encode_batch([heartbeat(), Resource(1, 1)])
    with pytest.raises(ProtocolError, match="iterable"):
        encode_batch(42)  # type: ignore[arg-type]


def test_encode_rejects_unencodable_field_value() -> None:
    """A message holding an object msgspec cannot encode raises ProtocolError with the message type."""
    bad = KillApplicationRequest(application_id=object())  # type: ignore[arg-type]
    with pytest.raises(ProtocolError, match="KillApplicationRequest") as info:
        encode(bad)
    assert info.value.__cause__ is not None


# --- fuzzing: nothing but ProtocolError escapes ------------------------------------------------------------------

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def only_protocol_errors(data: Any) -> None:
    try:
        assert isinstance(decode(data), Message)
    except ProtocolError:
        pass
    try:
        assert all(isinstance(m, Message) for m in decode_batch(data))
    except ProtocolError:
        pass


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_raise_only_protocol_error(data: bytes) -> None:
    """Random bytes either decode or raise ProtocolError."""
    only_protocol_errors(data)


@FUZZ
@given(st.sampled_from(VALID_FRAMES), st.data())
def test_mutated_frames_raise_only_protocol_error(frame: bytes, data: st.DataObject) -> None:
    """Valid frames with bytes flipped, cut, inserted or dropped decode or raise ProtocolError."""
    buf = bytearray(frame)
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert", "drop"]))
        pos = data.draw(st.integers(0, max(0, len(buf) - 1)))
        if op == "flip" and buf:
            buf[pos] = data.draw(st.integers(0, 255))
        elif op == "cut":
            del buf[pos:]
        elif op == "insert":
            buf[pos:pos] = data.draw(st.binary(min_size=1, max_size=8))
        elif op == "drop" and buf:
            del buf[pos]
    only_protocol_errors(bytes(buf))


scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8)
msgpack_values = st.recursive(
    scalars | st.binary(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


@FUZZ
@given(st.sampled_from(VALID_FRAMES), st.data(), msgpack_values)
def test_frames_with_a_replaced_value_raise_only_protocol_error(frame: bytes, data: st.DataObject, value: Any) -> None:
    """Well-formed MessagePack with any one value swapped for another decodes or raises ProtocolError."""
    raw = msgpack.unpackb(frame)
    path = data.draw(st.sampled_from(json_paths(raw)))
    if not path:
        raw = value
    else:
        target = raw
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    try:
        packed = msgpack.packb(raw)
    except (OverflowError, ValueError, TypeError):  # msgpack cannot write it; nothing to decode
        return
    only_protocol_errors(packed)
