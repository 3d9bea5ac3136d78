"""The MessagePack codec: frames with a schema version, single messages or batches.

A frame is a plain MessagePack map, readable by any MessagePack client:

* single message: ``{"v": 1, "m": {"type": "NodeHeartbeatRequest", ...fields}}``
* batch: ``{"v": 1, "batch": [{"type": ...}, ...]}``
* routed batch (the Ray backend's cross-host delivery): a batch plus one column per routing key, in the
  messages' order: ``{"v": 1, "batch": [...], "t": [...], "origin": [...], "seq": [...], "dst": [...],
  "sender": [...]}``. Columns instead of one small array per message: decoding makes no per-message tuples.

msgspec validates while decoding, so a bad frame is rejected whole with the path of the offending field instead of
being half-decoded. Every failure leaves :func:`decode`/:func:`decode_batch` as a
:class:`~yarnball.errors.ProtocolError` naming the message type (when its tag can be read) and the field path,
with the msgspec (or other) exception kept as ``__cause__``.

Encoder/Decoder objects are built lazily on first use in each process: they cannot be pickled, so they must never
be captured by anything Ray ships to a worker.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeAlias, Union

import msgspec

from yarnball.errors import ProtocolError
from yarnball.protocols import (
    _adminprotocol,
    _amprotocol,
    _clientprotocol,
    _containermanagement,
    _executor,
    _resourcetracker,
    _schedulerevents,
)
from yarnball.protocols._messages import Message

__all__ = [
    "MESSAGE_TYPES",
    "SCHEMA_VERSION",
    "decode",
    "decode_batch",
    "decode_routed",
    "encode",
    "encode_batch",
    "encode_routed",
    "message_type",
]

SCHEMA_VERSION = 1
"""Version of the frame layout and message schemas. Compatible changes (a new message class, a new field with a
default) keep it; anything an older peer would misread bumps it."""

_ABSTRACT: frozenset[type] = frozenset({Message, _schedulerevents.SchedulerEvent})


def _collect() -> tuple[type[Message], ...]:
    # Definition order within each protocol module, protocols in the order YARN's docs list them; deterministic.
    found: list[type[Message]] = []
    for module in (
        _resourcetracker,
        _amprotocol,
        _containermanagement,
        _executor,
        _clientprotocol,
        _schedulerevents,
        _adminprotocol,
    ):
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, Message)
                and obj not in _ABSTRACT
                and obj.__module__ == module.__name__
            ):
                found.append(obj)
    return tuple(found)


MESSAGE_TYPES: tuple[type[Message], ...] = _collect()
"""Every concrete message class, in a stable order."""

_BY_TAG: dict[str, type[Message]] = {cls.type_tag(): cls for cls in MESSAGE_TYPES}
_REGISTERED: frozenset[type] = frozenset(MESSAGE_TYPES)
if len(_BY_TAG) != len(MESSAGE_TYPES):  # pragma: no cover - a programming error caught at import
    raise RuntimeError("two yarnball message classes share a wire tag")

if TYPE_CHECKING:  # the union of the classes found at import time is, statically, any Message
    AnyMessage: TypeAlias = Message
else:
    AnyMessage = Union[MESSAGE_TYPES]  # noqa: UP007 - built from a tuple at import time, `|` cannot do that


class _Frame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    v: int
    m: AnyMessage


class _BatchFrame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    v: int
    batch: list[AnyMessage]


class _RoutedFrame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    v: int
    batch: list[AnyMessage]
    t: list[float]
    origin: list[str]
    seq: list[int]
    dst: list[str]
    sender: list[Union[str, None]]  # noqa: UP007 - msgspec reads the annotation at class creation


# The routing columns of a routed batch, in frame order.
Routing = tuple[list[float], list[str], list[int], list[str], list["str | None"]]


class _Codec:
    """The per-process msgspec objects (they do not pickle, so they are never module-level state at import)."""

    __slots__ = ("any_decoder", "batch_decoder", "encoder", "frame_decoder", "lenient_routed", "routed_decoder")

    def __init__(self) -> None:
        self.encoder = msgspec.msgpack.Encoder()
        self.frame_decoder = msgspec.msgpack.Decoder(_Frame)
        self.batch_decoder = msgspec.msgpack.Decoder(_BatchFrame)
        self.routed_decoder = msgspec.msgpack.Decoder(_RoutedFrame)
        self.any_decoder = msgspec.msgpack.Decoder(AnyMessage)
        self.lenient_routed = msgspec.msgpack.Decoder(_LenientRoutedFrame)


_codec: _Codec | None = None


def _get_codec() -> _Codec:
    global _codec
    if _codec is None:
        _codec = _Codec()
    return _codec


def message_type(tag: str) -> type[Message]:
    """The message class whose wire tag (the YARN class name) is ``tag``; ProtocolError if there is none."""
    try:
        return _BY_TAG[tag]
    except (KeyError, TypeError):
        raise ProtocolError(_unknown_tag_text(tag, "")) from None


def encode(message: Message) -> bytes:
    """Encode one message as a versioned MessagePack frame ``{"v": SCHEMA_VERSION, "m": message}``."""
    if type(message) not in _REGISTERED:
        raise ProtocolError(f"Cannot encode {_describe(message)}: {_NOT_A_MESSAGE}")
    codec = _codec or _get_codec()
    try:
        return codec.encoder.encode(_Frame(v=SCHEMA_VERSION, m=message))
    except Exception as exc:  # unsupported field value (a list, a set, a huge int, ...)
        raise ProtocolError(f"Cannot encode {message.type_tag()}: {exc}") from exc


def encode_batch(messages: Iterable[Message]) -> bytes:
    """Encode messages, in order, as one frame ``{"v": SCHEMA_VERSION, "batch": [...]}``."""
    try:
        batch = messages if isinstance(messages, list) else list(messages)
    except TypeError as exc:
        what = _describe(messages)
        raise ProtocolError(f"Cannot encode a batch from {what}: expected an iterable of messages") from exc
    for index, message in enumerate(batch):
        if type(message) not in _REGISTERED:
            raise ProtocolError(f"Cannot encode batch item {index}, {_describe(message)}: {_NOT_A_MESSAGE}")
    codec = _codec or _get_codec()
    try:
        return codec.encoder.encode(_BatchFrame(v=SCHEMA_VERSION, batch=batch))
    except Exception as exc:
        raise ProtocolError(f"Cannot encode batch of {len(batch)} messages: {exc}") from exc


def decode(data: bytes | bytearray | memoryview) -> Message:
    """Decode a frame made by :func:`encode`; any malformed input raises ProtocolError."""
    codec = _codec or _get_codec()
    try:
        frame = codec.frame_decoder.decode(data)
    except Exception as exc:
        raise ProtocolError(_explain(data, exc, batch=False)) from exc
    if frame.v != SCHEMA_VERSION:
        raise ProtocolError(_version_text(frame.v, frame.m.type_tag()))
    return frame.m


def decode_batch(data: bytes | bytearray | memoryview) -> list[Message]:
    """Decode a frame made by :func:`encode_batch` into its messages, in order."""
    codec = _codec or _get_codec()
    try:
        frame = codec.batch_decoder.decode(data)
    except Exception as exc:
        raise ProtocolError(_explain(data, exc, batch=True)) from exc
    if frame.v != SCHEMA_VERSION:
        raise ProtocolError(_version_text(frame.v, "batch"))
    return frame.batch


def encode_routed(messages: list[Message], routing: Routing) -> bytes:
    """Encode messages with their routing columns (each as long as ``messages``) as one routed batch frame."""
    if not _REGISTERED.issuperset(map(type, messages)):  # one C-level pass; the loop below finds the culprit
        for index, message in enumerate(messages):
            if type(message) not in _REGISTERED:
                raise ProtocolError(f"Cannot encode routed batch item {index}, {_describe(message)}: {_NOT_A_MESSAGE}")
    if any(len(column) != len(messages) for column in routing):
        raise ProtocolError(f"Cannot encode a routed batch: every routing column needs {len(messages)} entries")
    codec = _codec or _get_codec()
    t, origin, seq, dst, sender = routing
    try:
        frame = _RoutedFrame(v=SCHEMA_VERSION, batch=messages, t=t, origin=origin, seq=seq, dst=dst, sender=sender)
        return codec.encoder.encode(frame)
    except Exception as exc:
        raise ProtocolError(f"Cannot encode routed batch of {len(messages)} messages: {exc}") from exc


def decode_routed(
    data: bytes | bytearray | memoryview, rejected: list[tuple[int, ProtocolError]] | None = None
) -> tuple[list[Message], Routing]:
    """Decode :func:`encode_routed`'s frame into (messages, routing columns), all in frame order.

    The whole frame is decoded and validated in one call. If a message in it is malformed and ``rejected`` is
    given, the batch is decoded again item by item: every good message is kept, and each bad one is left out and
    appended to ``rejected`` as (index, ProtocolError naming its type and field). Otherwise, and whenever the
    frame itself is unreadable, ProtocolError is raised.
    """
    codec = _codec or _get_codec()
    try:
        frame = codec.routed_decoder.decode(data)
    except Exception as exc:
        if rejected is None:
            raise ProtocolError(_explain(data, exc, batch=True)) from exc
        return _salvage(data, exc, rejected)
    if frame.v != SCHEMA_VERSION:
        raise ProtocolError(_version_text(frame.v, "routed batch"))
    messages = frame.batch
    routing = (frame.t, frame.origin, frame.seq, frame.dst, frame.sender)
    if any(len(column) != len(messages) for column in routing):
        raise ProtocolError(
            f"Routed batch frame has routing columns of lengths {[len(c) for c in routing]} "
            f"for {len(messages)} messages"
        )
    return messages, routing


class _LenientRoutedFrame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    v: int
    batch: list[msgspec.Raw]
    t: list[float]
    origin: list[str]
    seq: list[int]
    dst: list[str]
    sender: list[Union[str, None]]  # noqa: UP007


def _salvage(
    data: bytes | bytearray | memoryview, first: Exception, rejected: list[tuple[int, ProtocolError]]
) -> tuple[list[Message], Routing]:
    """Decode a routed batch whose messages failed as a whole one message at a time (the failure path only)."""
    codec = _codec or _get_codec()
    try:
        frame = codec.lenient_routed.decode(data)
    except Exception:
        raise ProtocolError(_explain(data, first, batch=True)) from first
    if frame.v != SCHEMA_VERSION:
        raise ProtocolError(_version_text(frame.v, "routed batch"))
    columns = (frame.t, frame.origin, frame.seq, frame.dst, frame.sender)
    if any(len(column) != len(frame.batch) for column in columns):
        raise ProtocolError(_explain(data, first, batch=True)) from first
    keep: list[int] = []
    messages: list[Message] = []
    for index, raw in enumerate(frame.batch):
        try:
            messages.append(codec.any_decoder.decode(raw))
        except Exception:
            # Decode it again as a one-item batch frame: the error then carries the `$.batch[0]...` path that
            # the wording below reads the message type from.
            wrapped = codec.encoder.encode({"v": SCHEMA_VERSION, "batch": [raw]})
            try:
                codec.batch_decoder.decode(wrapped)
                text = f"Cannot decode routed batch item {index}"  # pragma: no cover - failed just above
            except Exception as exc:
                text = _explain(wrapped, exc, batch=True).replace("$.batch[0]", f"$.batch[{index}]")
            rejected.append((index, ProtocolError(text)))
            continue
        keep.append(index)
    routing = tuple([column[i] for i in keep] for column in columns)
    return messages, routing  # type: ignore[return-value]


# --- error wording (only on the failure path, so it may be slow) ------------------------------------------------

_NOT_A_MESSAGE = (
    "only the message classes in yarnball.protocols.MESSAGE_TYPES can be encoded "
    "(records such as Resource or ContainerStatus travel inside a message)"
)
_AT = re.compile(r"^(?P<reason>.*?)(?: - at `(?P<path>\$[^`]*)`)?$", re.DOTALL)
_BATCH_INDEX = re.compile(r"^\$\.batch\[(\d+)\]")


def _describe(obj: object) -> str:
    if isinstance(obj, Message):
        return f"{type(obj).__name__} (not a registered message type)"
    return f"a {type(obj).__name__}"


def _version_text(version: object, what: str) -> str:
    return (
        f"Unsupported schema version {version!r} in {what} frame at `$.v`: this yarnball reads version "
        f"{SCHEMA_VERSION} frames; encode and decode with the same yarnball release"
    )


def _unknown_tag_text(tag: object, path: str) -> str:
    where = f" at `{path}`" if path else ""
    close = difflib.get_close_matches(tag, list(_BY_TAG), n=1) if isinstance(tag, str) else []
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return (
        f"Unknown message type {tag!r}{where}{hint}: the tag must be one of the {len(_BY_TAG)} YARN class names "
        "in yarnball.protocols.MESSAGE_TYPES"
    )


def _explain(data: object, exc: Exception, *, batch: bool) -> str:
    """Turn a decoding failure into a sentence naming the frame kind, message type and field path."""
    kind = "batch frame" if batch else "frame"
    if not isinstance(data, bytes | bytearray | memoryview):
        return f"Cannot decode a {kind} from {_describe(data)}: expected bytes"
    match = _AT.match(str(exc))
    reason = match.group("reason") if match else str(exc)
    path = (match.group("path") if match else None) or "$"

    raw = _lenient(data)
    if isinstance(raw, dict):
        version = raw.get("v")
        if isinstance(version, int) and not isinstance(version, bool) and version != SCHEMA_VERSION:
            return _version_text(version, kind)
        if batch and "m" in raw and "batch" not in raw:
            return "Expected a batch frame {v, batch} but got a single-message frame {v, m}; use decode()"
        if not batch and "batch" in raw and "m" not in raw:
            return "Expected a single-message frame {v, m} but got a batch frame {v, batch}; use decode_batch()"
    tag = _tag_at(raw, path, batch)
    if reason.startswith("Invalid value") and path.endswith(".type") and tag is not None:
        return _unknown_tag_text(tag, path)
    if isinstance(tag, str) and tag in _BY_TAG:
        return f"Cannot decode {tag} in {kind}: {reason} at field `{path}`"
    return f"Cannot decode {kind} (message type unreadable): {reason} at `{path}`"


def _lenient(data: bytes | bytearray | memoryview) -> Any:
    try:
        return msgspec.msgpack.decode(data)
    except Exception:
        return None


def _tag_at(raw: Any, path: str, batch: bool) -> object | None:
    """The ``type`` tag of the message that ``path`` points into, if the frame can be read at all."""
    if not isinstance(raw, dict):
        return None
    if batch:
        index = _BATCH_INDEX.match(path)
        items = raw.get("batch")
        if index is None or not isinstance(items, list) or int(index.group(1)) >= len(items):
            return None
        item = items[int(index.group(1))]
    else:
        item = raw.get("m")
    return item.get("type") if isinstance(item, dict) else None
