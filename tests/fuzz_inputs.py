"""Mutation fuzzing of yarnball's non-trace inputs: the pieces shared by tests/test_fuzz_*.py.

Every fuzz test starts from a valid input, applies a few mutations drawn by hypothesis and checks the outcome:
either a clean :class:`~yarnball.errors.YarnballError` that names the file and the key (or JSON path / message
type), or an accepted input whose values are inside their domain and which a small cluster runs without a handler
failure. ``OUTCOMES`` counts accepted and rejected examples per kind for tests/FUZZ_INPUTS.md.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from yarnball.errors import ConfigurationError
from yarnball.launcher._cluster import Cluster
from yarnball.launcher.workloads import TraceDefaults, WorkloadBuilder, task_spec
from yarnball.protocols import Configuration
from yarnball.testing import captured_events

#: Each input kind gets at least this many examples in CI; YARNBALL_FUZZ_EXAMPLES lowers it for a quick local run.
EXAMPLES = int(os.environ.get("YARNBALL_FUZZ_EXAMPLES", "2000"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)

#: kind -> Counter of outcomes ("accepted", "rejected", and the mutation kinds applied).
OUTCOMES: dict[str, Counter[str]] = {}

# Values a careless or hostile file may hold: signs, zero, Java int/long/float edges, NaN and infinities in
# Java's spelling and Python's, hex, empty, blank, words, substitutions, non-ASCII digits.
BAD_VALUES = (
    "-1", "0", "-0", "1", "-5", "100", "101", "1000", "-100", "2147483647", "2147483648", "-2147483649",
    "9223372036854775807", "9223372036854775808", "99999999999999999999999999", "0x10", "0x", "-0x7fffffff",
    "1.5", "0.5", "-0.5", "1e39", "-1e39", "1e-50", "3.4028235e38", "NaN", "nan", "Infinity", "-Infinity",
    "inf", "1_000", "\u0661\u0662", "", " ", "abc", "true", "false", "TRUE", "${undefined.var}",
    "${yarn.resourcemanager.am.max-attempts}", "${env.NO_SUCH_VARIABLE:-7}", "1s", "5m", "[memory=1024]", "2w",
    "10%", "fifo", "fair", "STOPPED", "running", "*", "a,b",
)  # fmt: skip

# Broken XML declarations: unknown, non-text or multi-byte encodings, a bad version, garbage.
BAD_DECLARATIONS = (
    '<?xml version="1.0" encoding="bogus"?>',
    '<?xml version="1.0" encoding="rot13"?>',
    '<?xml version="1.0" encoding="idna"?>',
    '<?xml version="1.0" encoding="utf-32"?>',
    '<?xml version="1.0" encoding="utf-16"?>',
    '<?xml version="1.0" encoding="ISO-8859-1"?>',
    '<?xml version="2.0"?>',
    '<?xml encoding="UTF-8"?>',
    "<?xml?>",
    '<?xml version="1.0" encoding=""?>',
    "\ufeff<?xml version='1.0'?>",
    '  <?xml version="1.0"?>',
)

CONFIG_MUTATIONS = ("value", "text", "drop", "duplicate", "declaration", "bytes", "truncate", "final", "tag")


def _xml(pairs: list[tuple[str, str, str | None]], declaration: str) -> str:
    body = []
    for name, value, final in pairs:
        final_xml = "" if final is None else f"<final>{escape(final)}</final>"
        body.append(f"  <property><name>{escape(name)}</name><value>{escape(value)}</value>{final_xml}</property>")
    return declaration + "\n<configuration>\n" + "\n".join(body) + "\n</configuration>\n"


@st.composite
def mutated_xml(draw: st.DrawFn, base: dict[str, str], kind: str) -> tuple[bytes, list[str]]:
    """A Hadoop XML file: ``base`` with 1 to 3 mutations; returns the bytes and the mutation kinds applied."""
    pairs: list[tuple[str, str, str | None]] = [(k, v, None) for k, v in base.items()]
    declaration = '<?xml version="1.0" encoding="UTF-8"?>'
    applied: list[str] = []
    byte_edits: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(CONFIG_MUTATIONS))
        applied.append(op)
        if op in ("value", "text", "duplicate", "final", "drop") and not pairs:
            continue
        i = draw(st.integers(0, len(pairs) - 1)) if pairs else 0
        if op == "value":
            pairs[i] = (pairs[i][0], draw(st.sampled_from(BAD_VALUES)), pairs[i][2])
        elif op == "text":
            pairs[i] = (pairs[i][0], draw(st.text(max_size=12)), pairs[i][2])
        elif op == "drop":
            del pairs[i]
        elif op == "duplicate":
            pairs.append((pairs[i][0], draw(st.sampled_from(BAD_VALUES)), None))
        elif op == "final":
            pairs[i] = (pairs[i][0], pairs[i][1], draw(st.sampled_from(["true", "false", "maybe", ""])))
        elif op == "declaration":
            declaration = draw(st.sampled_from(BAD_DECLARATIONS))
        else:
            byte_edits.append(op)
    data = _xml(pairs, declaration).encode("utf-8")
    buf = bytearray(data)
    for op in byte_edits:
        pos = draw(st.integers(0, max(0, len(buf) - 1)))
        if op == "bytes" and buf:
            buf[pos : pos + 1] = draw(st.sampled_from([b"\xff", b"\xc3", b"\x00", b"<", b"&", b"\xed\xa0\x80"]))
        elif op == "truncate":
            del buf[pos:]
        elif op == "tag":
            buf[pos:pos] = draw(st.sampled_from([b"</property>", b"<property>", b"<name>", b"<!DOCTYPE x>", b"]]>"]))
    return bytes(buf), applied


# Why an example was rejected, for the table: the first pattern its message matches.
_REASONS = (
    ("syntax", re.compile(r"malformed XML|<property>|top-level element|<final>|not valid UTF-8|invalid JSON|"
                          r"truncated|MessagePack data is malformed")),
    ("schema version", re.compile(r"schema version")),
    ("domain", re.compile(r"expected (a|an) (positive|finite|integer|ratio|queue|wait|percentage|number|node)|"
                          r"should be|not a finite number|expected int [<>]=|expected .*range")),
    ("type/schema", re.compile(r"expected (an integer|a floating|\"true\"|int|str|float|bool|object|array|null|a long)|"
                               r"required field|unknown field|No enum constant|Unable to construct|unknown resource|"
                               r"Expected|missing required|Unknown message type|Object contains")),
    ("Hadoop queue rule", re.compile(r"Illegal|Queue configuration|cannot be larger|no less than|min and max")),
    ("unread key", re.compile(r"yarnball does not read this key")),
)  # fmt: skip


def record(kind: str, outcome: str, applied: list[str], message: str = "") -> None:
    counter = OUTCOMES.setdefault(kind, Counter())
    counter[outcome] += 1
    counter.update(f"mutation:{op}" for op in applied)
    if outcome == "rejected":
        reason = next((name for name, pattern in _REASONS if pattern.search(message)), "other")
        counter[f"reason:{reason}"] += 1


# An error names a key (yarn.*, mapreduce.*), or, for a file that is not a Hadoop configuration at all, says so.
_NAMES_KEY = re.compile(r"(yarn|mapreduce)\.[\w.\-]+|malformed XML|<property>|top-level element|UTF-8")


def assert_names_file_and_key(err: ConfigurationError, files: list[Path]) -> None:
    """The message names one of ``files`` and a key (or the XML problem, with its line)."""
    message = str(err)
    assert "\n" not in message.strip(), message
    assert any(str(f) in message for f in files), f"no file named in: {message}"
    assert _NAMES_KEY.search(message), f"no key named in: {message}"


def assert_finite(**values: float) -> None:
    for name, value in values.items():
        assert not math.isnan(value) and not math.isinf(value), f"{name} = {value}"


def run_small_cluster(
    conf: Configuration, *, check: Callable[[Cluster], None] | None = None, defaults: TraceDefaults | None = None
) -> Cluster:
    """Build the cluster ``conf`` describes (two nodes, three small jobs over root.a.a1, root.a.a2, root.b) and
    run it for 15 simulated seconds; a handler failure (an exception an actor swallowed) fails the test."""
    builder = WorkloadBuilder(defaults).nodes(2, memory_mb=8192, vcores=8)
    builder.job("j1", queue="a1", tasks=[task_spec(2, 3000, defaults=defaults)])
    builder.job("j2", queue="a2", tasks=[task_spec(1, 2000, defaults=defaults)])
    builder.job("j3", queue="b", tasks=[task_spec(2, 2500, defaults=defaults)])
    workload = builder.build()
    cluster = Cluster(conf, workload.nodes, seed=1)
    if check is not None:
        check(cluster)
    cluster.submit_workload(workload)
    with captured_events() as events:
        cluster.run(until_ms=15_000)
    failures = [e for e in events if e.get("event") == "handler_failed" or e.get("log_level") == "error"]
    assert not failures, failures[:3]
    return cluster


def write(directory: Path, name: str, data: bytes) -> Path:
    path = directory / name
    path.write_bytes(data)
    return path


def any_value(value: Any) -> str:
    return repr(value)[:40]


def main() -> int:
    """Run the fuzz suites in-process and print the table of tests/FUZZ_INPUTS.md (examples, outcomes, time)."""
    import time

    import pytest

    here = Path(__file__).resolve().parent
    start, cpu = time.perf_counter(), time.process_time()
    status = pytest.main(
        [
            "-q",
            "-p",
            "no:cacheprovider",
            str(here / "test_fuzz_configuration.py"),
            str(here / "test_fuzz_whatif_codec.py"),
            str(here / "test_fuzz_readers.py"),
            str(here / "test_fuzz_rest.py"),
        ]
    )
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    import fuzz_inputs  # the module the tests imported (this one runs as __main__)

    print("| input kind | examples | accepted | rejected | rejected because | mutations applied |")
    print("|---|---:|---:|---:|---|---|")
    for kind, counter in fuzz_inputs.OUTCOMES.items():
        ops = ", ".join(f"{op[9:]} {n}" for op, n in sorted(counter.items()) if op.startswith("mutation:"))
        why = ", ".join(f"{op[7:]} {n}" for op, n in sorted(counter.items()) if op.startswith("reason:"))
        total = counter["accepted"] + counter["rejected"]
        print(f"| {kind} | {total} | {counter['accepted']} | {counter['rejected']} | {why} | {ops} |")
    print(f"\nexit status {status}; wall {wall:.1f} s, CPU {cpu:.1f} s")
    return int(status)


if __name__ == "__main__":
    raise SystemExit(main())


def json_paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and list indices) into a decoded JSON or MessagePack document, the root's ``()`` first."""
    out = [prefix]
    if isinstance(obj, dict):
        for key, value in obj.items():
            out += json_paths(value, (*prefix, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            out += json_paths(value, (*prefix, i))
    return out
