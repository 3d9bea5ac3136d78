"""Fuzzing what-if snapshots (``yarnball preempt``) and codec frames (tests/FUZZ_INPUTS.md).

A mutated snapshot either gives a plan (exit 0) whose containers come from the snapshot, or exit 2 with one line
naming the file and the JSON path (or config key); a mutated frame either decodes to messages that encode again,
or raises ProtocolError naming the message type or field path. Nothing else may escape.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import msgpack
from hypothesis import given
from hypothesis import strategies as st

from yarnball.errors import ProtocolError
from yarnball.launcher import whatif
from yarnball.protocols import MESSAGE_TYPES, Message, decode, decode_batch, decode_routed, encode, encode_batch
from yarnball.protocols._codec import encode_routed

try:  # pytest puts tests/ on sys.path (no package) or the project root (tests as a package)
    from fuzz_inputs import FUZZ, json_paths, record
    from test_messages import build, build_minimal
except ImportError:  # pragma: no cover
    from tests.fuzz_inputs import FUZZ, json_paths, record
    from tests.test_messages import build, build_minimal

PP = "yarn.resourcemanager.monitor.capacity.preemption."


def _res(mb: int, vc: int = 1) -> dict[str, int]:
    return {"memory_mb": mb, "vcores": vc}


def _queue(path: str, cap: float, used: int, pending: int = 0) -> dict[str, Any]:
    return {"path": path, "absolute_capacity": cap, "absolute_maximum_capacity": 1.0, "used": _res(used, used // 1024),
            "pending": _res(pending), "reserved": _res(0)}  # fmt: skip


def base_snapshot() -> dict[str, Any]:
    """A cluster where root.b holds everything and root.a waits: the policy preempts from b."""
    containers = [
        {"id": f"c{i}", "resource": _res(1024), "priority": 1, "start_order": i, "am": i == 0, "node": "n1"}
        for i in range(8)
    ]
    return {
        "cluster": _res(8192, 8),
        "config": {
            PP + "total_preemption_per_round": 0.5,
            PP + "natural_termination_factor": 1.0,
            "yarn.scheduler.capacity.root.b.disable_preemption": False,
        },
        "queues": [_queue("root", 1.0, 8192, 4096), _queue("root.a", 0.5, 0, 4096), _queue("root.b", 0.5, 8192)],
        "applications": [
            {"id": "app_a", "queue": "root.a", "containers": [], "pending": _res(4096, 4)},
            {"id": "app_b", "queue": "b", "user": "u", "priority": 0, "submission_order": 1, "containers": containers},
        ],
    }


SNAPSHOT_VALUES = st.sampled_from(
    [-1, 0, 1, 2**31, 2**62, 2**62 + 1, 2**63, 2**64, 10**30, -(2**63) - 1, 0.5, 1.5, -0.5, 1e308, 1e-320, "",
     "x", "root", "root.a", "root.b", "root.nosuch", "NaN", "Infinity", True, False, None, [], {}, [1], {"x": 1}]
) | st.text(max_size=6) | st.integers() | st.floats(allow_nan=False, allow_infinity=False)  # fmt: skip

CONFIG_KEYS = [
    PP + "total_preemption_per_round",
    PP + "max_ignored_over_capacity",
    PP + "natural_termination_factor",
    PP + "monitoring_interval",
    PP + "max_wait_before_kill",
    "yarn.scheduler.capacity.maximum-am-resource-percent",
    "yarn.scheduler.capacity.root.a.maximum-am-resource-percent",
    "yarn.resourcemanager.scheduler.monitor.enable",
]
SNAPSHOT_MUTATIONS = ("value", "drop", "add", "bytes", "truncate", "utf8", "config")


def _fresh(value: Any) -> Any:
    """A copy of a drawn value: the sampled lists and dicts are shared between examples, and inserting one object
    twice (then mutating inside it) would build a cycle and change later examples' data."""
    return copy.deepcopy(value)


@st.composite
def mutated_snapshot(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    doc: Any = base_snapshot()
    applied: list[str] = []
    byte_ops: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(SNAPSHOT_MUTATIONS))
        applied.append(op)
        paths = json_paths(doc)
        path = draw(st.sampled_from(paths[1:] if len(paths) > 1 else paths))
        parent: Any = doc
        for key in path[:-1]:
            parent = parent[key]
        if op == "value" and path:
            parent[path[-1]] = _fresh(draw(SNAPSHOT_VALUES))
        elif op == "drop" and path:
            del parent[path[-1]]
        elif op == "add" and isinstance(parent, dict):
            name = draw(st.sampled_from(["extra", "memory_mb", "vcores", "id", "config"]))
            parent[name] = _fresh(draw(SNAPSHOT_VALUES))
        elif op == "config":
            key = draw(st.sampled_from(CONFIG_KEYS))
            if isinstance(doc, dict) and isinstance(doc.get("config"), dict):
                extreme = st.sampled_from(["1e400", "-1e400", "NaN", "-Infinity"])
                doc["config"][key] = _fresh(draw(SNAPSHOT_VALUES | extreme))
        else:
            byte_ops.append(op)
    buf = bytearray(json.dumps(doc).encode())
    for op in byte_ops:
        pos = draw(st.integers(0, max(0, len(buf) - 1)))
        if op == "bytes" and buf:
            buf[pos] = draw(st.integers(0, 255))
        elif op == "truncate":
            del buf[pos:]
        elif op == "utf8":
            buf[pos:pos] = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]))
    return bytes(buf), applied


def _run_preempt(path: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = whatif.main([str(path), "--indent", "0"])
    return status, out.getvalue(), err.getvalue()


# The JSON path ($, $.queues[1].used.memory_mb, $.config["key"]) or a Hadoop key the policy reports.
_JSON_PATH = re.compile(r"\$|yarn\.[\w.\-]+|applications\[\d+\]|queues\[\d+\]")


@FUZZ
@given(mutated_snapshot())
def test_fuzz_whatif_snapshot(mutated: tuple[bytes, list[str]]) -> None:
    """`yarnball preempt` on a mutated snapshot exits 0 with a plan or 2 with one line naming file and path."""
    data, applied = mutated
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snapshot.json"
        path.write_bytes(data)
        status, out, err = _run_preempt(path)
    if status == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"yarnball preempt: error: {path}: "), err
        assert _JSON_PATH.search(lines[0][len(f"yarnball preempt: error: {path}: ") :]), err
        record("what-if snapshot", "rejected", applied, lines[0])
        return
    assert status == 0, (status, err)
    plan = json.loads(out)
    snapshot = json.loads(data)  # accepted, so it is JSON
    ids = {c["id"] for a in snapshot.get("applications", []) for c in a["containers"]}
    chosen = [p["container"] for p in plan["preempt"]]
    assert set(chosen) <= ids and len(chosen) == len(set(chosen))
    for q in plan["queues"]:
        for r in (q["ideal_assigned"], q["to_preempt"]):
            assert isinstance(r["memory_mb"], int) and isinstance(r["vcores"], int)
    record("what-if snapshot", "accepted", applied)


# -- codec frames --------------------------------------------------------------------------------------------------
MESSAGES = [build(cls) for cls in MESSAGE_TYPES] + [build_minimal(cls) for cls in MESSAGE_TYPES]
ROUTING = ([1.0, 2.0], ["a", "b"], [1, 2], ["rm", "nm"], [None, "am"])
FRAMES = (
    [("single", encode(m)) for m in MESSAGES]
    + [("batch", encode_batch(MESSAGES[i : i + 3])) for i in range(0, len(MESSAGES), 7)]
    + [("routed", encode_routed(MESSAGES[i : i + 2], ROUTING)) for i in range(0, len(MESSAGES) - 1, 9)]
)
FRAME_VALUES = (
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8)
    | st.binary(max_size=8)
    # (a fresh copy each time: the same list drawn twice could be mutated into itself, and json_paths would recurse
    # for ever; a mutated shared value also changed what later examples drew, which Hypothesis calls flaky)
    | st.sampled_from([[], {}, {"type": "NoSuchMessage"}, {"type": 1}, [None], "RUNNING"]).map(copy.deepcopy)
)  # fmt: skip
FRAME_MUTATIONS = ("value", "drop", "tag", "version", "flip", "cut", "insert")
# ProtocolError texts name a message type (CamelCase), a field path ($..., `field`) or the frame itself.
_NAMES_TYPE_OR_PATH = re.compile(r"[A-Z][a-z]+[A-Z]\w+|\$|frame|batch|version|MessagePack|message", re.IGNORECASE)


@st.composite
def mutated_frame(draw: st.DrawFn) -> tuple[str, bytes, list[str]]:
    kind, frame = draw(st.sampled_from(FRAMES))
    applied: list[str] = []
    raw = msgpack.unpackb(frame, strict_map_key=False)
    byte_ops: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(FRAME_MUTATIONS))
        applied.append(op)
        if op in ("flip", "cut", "insert"):
            byte_ops.append(op)
            continue
        paths = json_paths(raw)
        path = draw(st.sampled_from(paths))
        parent: Any = raw
        for key in path[:-1]:
            parent = parent[key]
        if op == "value":
            if path:
                parent[path[-1]] = draw(FRAME_VALUES)
            else:
                raw = draw(FRAME_VALUES)
        elif op == "drop" and path:
            del parent[path[-1]]
        elif op == "tag" and isinstance(parent, dict):
            parent["type"] = draw(st.sampled_from([c.type_tag() for c in MESSAGE_TYPES]))
        elif op == "version" and isinstance(raw, dict):
            raw["v"] = draw(st.sampled_from([0, 2, -1, "1", None, 1.0]))
    try:
        buf = bytearray(msgpack.packb(raw))
    except (OverflowError, ValueError, TypeError):
        buf = bytearray(frame)
    for op in byte_ops:
        pos = draw(st.integers(0, max(0, len(buf) - 1)))
        if op == "flip" and buf:
            buf[pos] = draw(st.integers(0, 255))
        elif op == "cut":
            del buf[pos:]
        else:
            buf[pos:pos] = draw(st.binary(min_size=1, max_size=6))
    return kind, bytes(buf), applied


@FUZZ
@given(mutated_frame())
def test_fuzz_codec_frames(mutated: tuple[str, bytes, list[str]]) -> None:
    """decode / decode_batch / decode_routed raise only ProtocolError naming type or path; what they accept
    encodes again to a frame that decodes to the same messages."""
    _, data, applied = mutated
    outcome, first_error = "rejected", ""
    rejected: list[tuple[int, ProtocolError]] = []

    def salvage(frame: bytes) -> Any:
        return decode_routed(frame, rejected)

    for decoder in (decode, decode_batch, decode_routed, salvage):
        try:
            result = decoder(data)
        except ProtocolError as err:
            assert _NAMES_TYPE_OR_PATH.search(str(err)), str(err)
            first_error = first_error or str(err)
            continue
        outcome = "accepted"
        if decoder is decode:
            assert isinstance(result, Message) and decode(encode(result)) == result
        elif decoder is decode_batch:
            assert all(isinstance(m, Message) for m in result) and decode_batch(encode_batch(result)) == result
        else:
            messages, routing = result
            assert all(isinstance(m, Message) for m in messages)
            assert all(len(column) == len(messages) for column in routing)
    for _, err in rejected:  # the messages salvage left out are named too
        assert _NAMES_TYPE_OR_PATH.search(str(err)), str(err)
    record("codec frame", outcome, applied, first_error)
