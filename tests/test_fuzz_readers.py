"""Fuzzing the remaining readers: fault schedules, ``--refresh-queues`` arguments, sweep specs (TOML), and special
files (a FIFO, ``/dev/zero``, a directory, ...) given to every reader.

Every example ends as a clean one-line error of the reader's class naming the file (or the argument) and the field,
or as a parse whose values are inside their domain. A read blocking on a FIFO or running on ``/dev/zero`` trips an
alarm and fails. Counts are in tests/FUZZ_INPUTS.md (``python tests/fuzz_inputs.py``).
"""

from __future__ import annotations

import json
import os
import re
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_fuzz_traces import DATA, mutate
from yarnball.errors import ConfigurationError, TraceFormatError, YarnballError, one_line
from yarnball.launcher._faults import FAULT_KINDS, MESSAGE_LINKS, load_faults
from yarnball.launcher._refresh import parse_refresh_spec
from yarnball.launcher._simulate import _refresh_arguments
from yarnball.launcher._simulate import load_configuration as _load_configuration
from yarnball.launcher.cli import build_parser
from yarnball.launcher.sweep._spec import load_spec
from yarnball.launcher.whatif import load_snapshot
from yarnball.launcher.workloads import load_workload
from yarnball.protocols import Configuration

try:  # pytest puts tests/ on sys.path (no package) or the project root (tests as a package)
    from fuzz_inputs import FUZZ, record
except ImportError:  # pragma: no cover
    from tests.fuzz_inputs import FUZZ, record

ROOT = Path(__file__).resolve().parents[1]
ALARM_SECONDS = 10

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is not present beside this checkout")


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang(f"a read ran for more than {ALARM_SECONDS} s (blocked on a FIFO or reading an endless device?)")


def guarded(read: Callable[[], Any]) -> Any:
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(ALARM_SECONDS)
    try:
        return read()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def one_line_naming(err: Exception, name: str) -> str:
    message = str(err)
    assert "\n" not in message and "\r" not in message, message
    assert one_line(name) in message, f"the error does not name {name!r}: {message}"
    return message


# -- fault schedules ---------------------------------------------------------------------------------------------
FAULT_SEEDS = [
    json.loads((ROOT / "examples" / "faults" / "schedule.json").read_text()),
    [
        {"at_ms": 1000, "kind": "node_restart", "target": "node1", "down_ms": 5000},
        {"at_ms": 2000, "kind": "node_decommission", "target": "node2:8041", "timeout_s": 30},
        {"at_ms": 3000, "kind": "container_fail", "target": "job_1", "exit_status": -100},
        {"at_ms": 4000, "kind": "message_drop", "target": "am->rm", "message": "AllocateRequest",
         "duration_ms": 500, "probability": 0.5},
        {"at_ms": 5000, "kind": "message_delay", "target": "nm->rm", "message": "NodeHeartbeatRequest",
         "duration_ms": 500, "delay_ms": 20},
        {"at_ms": 6000, "kind": "message_duplicate", "target": "rm->am", "message": "AllocateResponse",
         "duration_ms": 100},
        {"at_ms": 7000, "kind": "rm_restart", "target": "rm", "down_ms": 2000},
    ],
]  # fmt: skip
FAULT_FILE_ERRORS = ("cannot read fault schedule", "nested too deeply", "must be a JSON list", "expected an object")


@FUZZ
@given(data=st.data(), index=st.integers(0, 1), deep=st.sampled_from([0] * 9 + [150, 201, 100_000]))
def test_fuzzed_fault_schedules(tmp_path: Path, data: st.DataObject, index: int, deep: int) -> None:
    """Mutated --faults files: a one-line ConfigurationError naming the file and the field, or faults in domain."""
    text, touched, labels = mutate(json.dumps([FAULT_SEEDS[index]]), data.draw)
    if deep:
        text = text.rstrip().removesuffix("]") + ", " + "[" * deep + "]" * deep + "]"
        labels.append(f"nest {deep}")
    path = tmp_path / "faults.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        faults = guarded(lambda: load_faults(path))
    except ConfigurationError as err:
        message = one_line_naming(err, str(path))
        assert (
            any(f"'{k}'" in message for k in touched)
            or any(e in message for e in FAULT_FILE_ERRORS)
            or re.search(r": fault \d+: ", message)
        ), f"names none of {sorted(touched)}: {message}"
        record("--faults file", "rejected", labels, message)
        return
    for f in faults:
        assert isinstance(f.at_ms, int) and f.at_ms >= 0 and f.kind in FAULT_KINDS and f.target
        for name in ("down_ms", "timeout_s", "delay_ms"):
            assert f.get(name) is None or (isinstance(f.get(name), int) and f.get(name) >= 0)
        if f.kind.startswith("message_"):
            assert f.target in MESSAGE_LINKS and f.get("message") in MESSAGE_LINKS[f.target]
            assert 0 < f.get("probability") <= 1 and f.get("duration_ms") >= 1
    record("--faults file", "accepted", labels)


# -- --refresh-queues AT_MS:CONF_DIR -----------------------------------------------------------------------------
BAD_TIMES = ["NaN", "nan", "inf", "-Infinity", "1e3", "20000.5", "-5", "-0", "0", "00", " 5", "5 ", "+5", "0x10",
             "1_000", "\u0661\u0662", "9223372036854775807", "9223372036854775808", "9" * 20, ""]  # fmt: skip
DIRS = ("good", "good", "no-cs", "missing", "a-file", "fifo-cs", "dir-cs", "", "colon:dir")


@pytest.fixture(scope="module")
def refresh_dirs() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cs = "<configuration>" + "".join(
            f"<property><name>yarn.scheduler.capacity.root.{k}</name><value>{v}</value></property>"
            for k, v in (("queues", "default"), ("default.capacity", "100"))
        ) + "</configuration>"
        for name in ("good", "colon:dir"):
            (root / name).mkdir()
            (root / name / "capacity-scheduler.xml").write_text(cs)
        (root / "no-cs").mkdir()
        (root / "no-cs" / "yarn-site.xml").write_text("<configuration/>")
        (root / "a-file").write_text("x")
        (root / "fifo-cs").mkdir()
        os.mkfifo(root / "fifo-cs" / "capacity-scheduler.xml")
        (root / "dir-cs" / "capacity-scheduler.xml").mkdir(parents=True)
        yield root


@FUZZ
@given(
    at=st.one_of(st.sampled_from(BAD_TIMES), st.integers(-10, 2**64).map(str), st.text(max_size=6)),
    sep=st.sampled_from([":", ":", ":", "", "::"]),
    directory=st.sampled_from(DIRS),
)
def test_fuzzed_refresh_queue_arguments(refresh_dirs: Path, at: str, sep: str, directory: str) -> None:
    """--refresh-queues values: a one-line error naming the argument, or a whole number of ms in a Java long and a
    directory whose capacity-scheduler.xml loads."""
    path = str(refresh_dirs / directory) if directory else ""
    spec = f"{at}{sep}{path}"
    labels = [f"dir {directory or 'empty'}", "time " + ("int" if re.fullmatch(r"[0-9]+", at) else "other")]
    try:
        [(at_ms, conf_dir)] = guarded(lambda: _refresh_arguments(Configuration(), (spec,)))
    except ConfigurationError as err:
        message = str(err)
        assert "\n" not in message, message
        assert one_line(repr(spec)) in message or (refresh_dirs / directory).name in message, message
        record("--refresh-queues", "rejected", labels, message)
        return
    assert re.fullmatch(r"[0-9]+", at) and 0 <= int(at) <= 2**63 - 1 and at_ms == float(int(at)), spec
    assert os.path.isfile(os.path.join(conf_dir, "capacity-scheduler.xml")), spec
    record("--refresh-queues", "accepted", labels)


def test_refresh_spec_times_are_whole_milliseconds() -> None:
    """AT_MS 0 and 2^63-1 are taken as they are; the float form keeps them exact for what a run can reach."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "capacity-scheduler.xml").write_text("<configuration/>")
        assert parse_refresh_spec(f"0:{tmp}") == (0.0, tmp)
        assert parse_refresh_spec(f"60000:{tmp}") == (60000.0, tmp)


# -- sweep specs (TOML) ------------------------------------------------------------------------------------------
SPEC_SEEDS = [
    (ROOT / "examples" / "sweeps" / "preemption-queues.toml").read_text(),
    """seeds = [1, 2]
max-failures = 1

[[traces]]
location = "a.json,b.json"
type = "rumen"

[fixed]
until-ms = 60000
log-level = "warning"
no-plots = true

[axes]
"yarn.scheduler.capacity.root.default.user-limit-factor" = [1, 2.5]
latency-ms = [0, 1.5]

[[scenarios]]
label = "big"
conf = { "yarn.scheduler.maximum-allocation-mb" = 16384 }
track-jobs = "job_1,job_2"
""",
]
TOML_VALUES = ['-1', '0', '2', '99999999999999999999', '1e400', 'nan', 'inf', '-inf', '1.5', 'true', '""', '"x"',
               '"a\\u0000b"', '"\\ud800"', '[]', '[1, 1]', '[[]]', '{}', '{ label = "" }', '1979-05-27',
               '07:32:00', '"../../etc"', '"-x"', '"--conf"', '"a\\nb"', '"' + 'y' * 300 + '"']  # fmt: skip
TOML_OPS = ("value", "value", "drop", "duplicate", "rename", "header", "truncate", "bytes", "nest")
_ASSIGN = re.compile(r"^(\s*)(\"[^\"]*\"|[A-Za-z0-9_.-]+)(\s*=\s*)(.*)$")
SPEC_FILE_ERRORS = ("not a valid TOML", "nested too deeply", "cannot read sweep spec")


@st.composite
def mutated_toml(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    lines = draw(st.sampled_from(SPEC_SEEDS)).splitlines()
    labels: list[str] = []
    tail: list[tuple[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(TOML_OPS))
        labels.append(op)
        i = draw(st.integers(0, len(lines) - 1))
        m = _ASSIGN.match(lines[i])
        if op == "value" and m:
            lines[i] = m[1] + m[2] + m[3] + draw(st.sampled_from(TOML_VALUES))
        elif op == "nest" and m:
            depth = draw(st.sampled_from([10, 199, 200, 201, 5000]))
            lines[i] = m[1] + m[2] + m[3] + "[" * depth + "1" + "]" * depth
        elif op == "drop":
            del lines[i]
        elif op == "duplicate":
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
        elif op == "rename" and m:
            key = m[2]
            lines[i] = m[1] + (key[:-1] if len(key) > 2 else key + "x") + m[3] + m[4]
        elif op == "header":
            lines.insert(i, draw(st.sampled_from(["[fixed]", "[[traces]]", "[axes]", "[[axes.x]]", "[[scenarios]]",
                                                  "[bogus]", "[[seeds]]", "[fixed.conf]", "[["])))  # fmt: skip
        elif op in ("truncate", "bytes"):
            tail.append((op, draw(st.integers(0, 10**6))))
            tail[-1] = (op, tail[-1][1], draw(st.sampled_from([b"\xff", b"\x00", b"\xed\xa0\x80", b'"', b"["])))
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    for op, n, insert in tail:
        pos = len(data) * n // 10**6
        data = data[:pos] if op == "truncate" else data[:pos] + insert + data[pos:]
    return data, labels


@FUZZ
@given(data=mutated_toml())
def test_fuzzed_sweep_specs(tmp_path: Path, data: tuple[bytes, list[str]]) -> None:
    """Mutated sweep specs: a one-line ConfigurationError naming the file and the field, or scenarios whose
    ``yarnball simulate`` arguments the simulate parser accepts."""
    raw, labels = data
    path = tmp_path / "spec.toml"
    path.write_bytes(raw)
    try:
        spec = guarded(lambda: load_spec(path))
    except ConfigurationError as err:
        message = one_line_naming(err, str(path))
        assert "field" in message or any(e in message for e in SPEC_FILE_ERRORS), message
        record("sweep spec", "rejected", labels, message)
        return
    assert spec.scenarios and spec.max_failures >= 0
    parser = build_parser()
    for scenario in spec.scenarios[:4]:
        assert all(isinstance(a, str) for a in scenario.args)
        parser.parse_args(scenario.argv(tmp_path / "out"))  # SystemExit would be an argument simulate refuses
    record("sweep spec", "accepted", labels)


# -- special files, for every reader -----------------------------------------------------------------------------
def _conf_dir_reader(name: str) -> Callable[[Path], Any]:
    """A conf dir whose ``name`` is the special file: read as `yarnball simulate --conf-dir` reads it."""

    def read(special: Path) -> Any:
        directory = special.parent / f"conf-{special.name}"
        directory.mkdir()
        (directory / name).symlink_to(special)
        try:
            return _load_configuration(str(directory))
        finally:
            (directory / name).unlink()
            directory.rmdir()

    return read


READERS: dict[str, tuple[Callable[[Path], Any], type[YarnballError]]] = {
    "SLS trace": (lambda p: load_workload("SLS", [p]), TraceFormatError),
    "Rumen trace": (lambda p: load_workload("RUMEN", [p]), TraceFormatError),
    "SYNTH trace": (lambda p: load_workload("SYNTH", [p]), TraceFormatError),
    "node file": (lambda p: load_workload("SLS", [DATA / "inputsls.json"], p), TraceFormatError),
    "fault schedule": (load_faults, ConfigurationError),
    "configuration file": (lambda p: Configuration().add_resource(p), ConfigurationError),
    "yarn-site.xml in --conf-dir": (_conf_dir_reader("yarn-site.xml"), ConfigurationError),
    "capacity-scheduler.xml in --conf-dir": (_conf_dir_reader("capacity-scheduler.xml"), ConfigurationError),
    "sls-runner.xml in --conf-dir": (_conf_dir_reader("sls-runner.xml"), ConfigurationError),
    "sweep spec": (load_spec, ConfigurationError),
    "snapshot": (load_snapshot, ConfigurationError),
}
SPECIAL = ("fifo", "/dev/zero", "/dev/null", "directory", "missing", "link to fifo", "link to /dev/zero",
           "link to directory", "broken link")  # fmt: skip
_NAMES = st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1, max_size=20)


def _special(kind: str, directory: Path, name: str) -> Path:
    path = directory / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind.startswith("/dev/"):
        return Path(kind)
    elif kind == "link to fifo":
        os.mkfifo(directory / "fifo-target")
        path.symlink_to(directory / "fifo-target")
    elif kind == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "link to directory":
        path.symlink_to(directory)
    elif kind == "broken link":
        path.symlink_to(directory / "nowhere")
    return path


@FUZZ
@given(reader=st.sampled_from(sorted(READERS)), kind=st.sampled_from(SPECIAL), name=_NAMES)
def test_special_files_are_refused_by_every_reader(reader: str, kind: str, name: str) -> None:
    """A FIFO, a device, a directory, a missing file or a link to one: every reader refuses it at once with one
    line naming it ("not a regular file", "no such file"); nothing blocks or reads an endless device."""
    if name in (".", ".."):
        name = "x" + name
    read, error = READERS[reader]
    with tempfile.TemporaryDirectory() as tmp:
        path = _special(kind, Path(tmp), name)
        with pytest.raises(error) as err:
            guarded(lambda: read(path))
    message = one_line_naming(err.value, path.name if reader.endswith("--conf-dir") else str(path))
    assert "not a regular file" in message or "no such file" in message, message
    record("special files", "rejected", [reader, kind])
