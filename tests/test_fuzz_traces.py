"""Property-based fuzzing of every trace and node-file reader: SLS, Rumen, SYNTH and SLS node files.

Each example starts from a valid file (SLS's own samples, yarnball's examples) and applies one to three mutations:
a key dropped or misspelt, a value replaced by a wrong type, NaN, an infinity, a negative, zero, a huge number, a
numeric string or a lone surrogate, a fresh unknown key, or the JSON cut short. The property: loading either raises a
clean :class:`YarnballError` whose one-line message names the file and a field the mutation touched (or is one of
the whole-file errors: invalid JSON, no node), or succeeds with every value of the Workload inside its domain. Any
other exception, or a load running past the alarm, fails the test. Numbers from a full run are in tests/FUZZ.md;
``YARNBALL_FUZZ_REPORT=<file>`` appends this run's counts to that file.
"""

from __future__ import annotations

import copy
import io
import json
import os
import re
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yarnball.actors._logging import close_logging, configure_logging
from yarnball.errors import ConfigurationError, TraceFormatError, YarnballError
from yarnball.launcher.workloads import Workload, load_workload
from yarnball.launcher.workloads._json import INT_MAX, LONG_MAX, MAX_EXPANSION

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout (as tests/conftest.py looks for it), else the team's /work/shared.
DATA = next(
    (p / "data" / "sls" for p in (ROOT.parent / "shared", Path("/work/shared")) if (p / "data" / "sls").is_dir()),
    ROOT.parent / "shared" / "data" / "sls",
)
EXAMPLES = ROOT / "examples" / "traces"
EXAMPLES_PER_KIND = 2000
FUZZ = settings(
    max_examples=EXAMPLES_PER_KIND,
    deadline=None,
    derandomize=True,  # the same examples on every run: CI failures reproduce
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
ALARM_SECONDS = 20  # one load taking this long is a hang (a small trace loads in milliseconds)
WHOLE_FILE_ERRORS = (
    "invalid JSON", "No node!", "expected one JSON object", "not UTF-8", "nested too deeply", "this looks like"
)  # fmt: skip

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is not present beside this checkout")


# -- seeds ---------------------------------------------------------------------------------------------------------
def _objects(path: Path) -> list[Any]:
    """The root-level JSON objects of a file (SLS and Rumen files concatenate them)."""
    text, decoder, pos, out = path.read_text(), json.JSONDecoder(), 0, []
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        value, pos = decoder.raw_decode(text, pos)
        out.append(value)
    return out


def _small_rumen() -> list[Any]:
    """SLS's Rumen sample cut to a size a fuzz example can afford: 3 tasks and 5 properties per job, every job kept
    (the third has a task without attempts)."""
    jobs = _objects(DATA / "2jobs2min-rumen-jh.json")
    for job in jobs:
        job["mapTasks"] = job.get("mapTasks", [])[:3]
        job["reduceTasks"] = job.get("reduceTasks", [])[:2]
        props = job.get("jobProperties", {})
        job["jobProperties"] = dict(list(props.items())[:5])
    return jobs


def _seeds() -> dict[str, list[list[Any]]]:
    if not DATA.is_dir():
        return {}
    sample_sls = _objects(EXAMPLES / "sample-sls.json")[:6]
    return {
        "SLS": [_objects(DATA / "inputsls.json"), _objects(DATA / "sls_dag.json"), sample_sls],
        "RUMEN": [_small_rumen()],
        "SYNTH": [_objects(DATA / n) for n in ("syn.json", "syn_generic.json", "syn_stream.json")],
        "NODES": [_objects(DATA / "nodes.json"), _objects(DATA / "nodes-with-resources.json")],
    }


SEEDS = _seeds()
SEED_TEXTS = {kind: [json.dumps(seed) for seed in seeds] for kind, seeds in SEEDS.items()}  # fast fresh copies


# -- mutations -----------------------------------------------------------------------------------------------------
VALUES: list[Any] = [
    None,
    True,
    "",
    "abc",
    "12",
    "-5",
    "1.5",
    "\ud800",  # a lone surrogate: json.dumps writes it as the escape "\ud800"
    "x\udcff",
    -1,
    0,
    1,
    3,
    -(2**63),
    2**63,
    2**64,
    10**12,
    10**400,
    1.5,
    -0.5,
    1e-300,
    1e308,
    -1e308,
    float("nan"),  # written as NaN, which Jackson (and the readers) refuse
    float("inf"),
    [],
    [1],
    {},
    {"val": -3},
    {"val": 1e300, "std": 1e300},
    {"val": 5, "std": -1},
    {"discrete": []},
    "y" * 300,
    "a b",  # host and rack names a node file must not hold: a space, a port, a climb, an empty part
    "h:8041",
    "../../etc",
    "/r",
]
OPS = ("drop", "rename", "replace", "replace", "replace", "add", "truncate")


def _paths(doc: Any) -> list[tuple[Any, ...]]:
    """Every path to a value inside the list of root objects (dict keys and list indices)."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    while stack:
        prefix, node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            path = (*prefix, key)
            out.append(path)
            if isinstance(value, dict | list):
                stack.append((path, value))
    return out


def _typo(key: str, n: int) -> str:
    """A misspelling of ``key``: two letters swapped, one dropped, one doubled or the case changed."""
    if len(key) < 2:
        return key + "x"
    i = n % (len(key) - 1)
    kind = (n // 7) % 4
    if kind == 0:
        return key[:i] + key[i + 1] + key[i] + key[i + 2 :]
    if kind == 1:
        return key[:i] + key[i + 1 :]
    if kind == 2:
        return key[:i] + key[i] + key[i:]
    return key.upper() if key != key.upper() else key.lower()


Draw = Callable[[st.SearchStrategy[Any]], Any]  # hypothesis's data.draw


def mutate(seed: str, draw: Draw) -> tuple[str, set[str], list[str]]:
    """Apply one to three mutations to the seed (a JSON list of root objects), each drawn by hypothesis; return
    the file text, the key names the mutations touched and a label per mutation."""
    doc = json.loads(seed)
    touched: set[str] = set()
    labels: list[str] = []
    cut: int | None = None
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(OPS))
        n = draw(st.integers(0, 10**6))
        if op == "truncate":
            cut = n
            labels.append("truncate")
            continue
        paths = _paths(doc)
        if not paths:
            continue
        path = paths[draw(st.integers(0, len(paths) - 1))]
        value_index = draw(st.integers(0, len(VALUES) - 1))
        parent: Any = doc
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        touched.update(str(p) for p in path if isinstance(p, str))
        if len(path) == 1:
            touched.add("<root>")  # a whole root object
        if op == "drop":
            del parent[last]
        elif op == "rename" and isinstance(last, str):
            new = _typo(last, n)
            parent[new] = parent.pop(last)
            touched.add(new)
        elif op == "add" and isinstance(parent, dict):
            new = f"{last}_{n % 97}" if n % 2 else _typo(str(last), n)
            parent[new] = copy.deepcopy(VALUES[value_index])
            touched.add(new)
        else:
            op = "replace"
            parent[last] = copy.deepcopy(VALUES[value_index])
            labels.append(f"replace:{type(VALUES[value_index]).__name__}")
            continue
        labels.append(op)
    text = "\n".join(json.dumps(o) for o in doc)  # one root object per line
    if cut is not None and text:
        text = text[: len(text) * cut // 10**6]  # cut somewhere inside
    return text, touched, labels


# -- the property --------------------------------------------------------------------------------------------------
STATS: dict[str, Counter[str]] = {kind: Counter() for kind in ("SLS", "RUMEN", "SYNTH", "NODES")}
TIMES: dict[str, float] = Counter()


@pytest.fixture(autouse=True)
def _quiet_logging() -> Iterator[None]:
    """Warnings (unknown keys, skipped jobs) go to a buffer: thousands of examples would flood the output."""
    configure_logging(level="error", stream=io.StringIO())
    yield
    close_logging()


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    target = os.environ.get("YARNBALL_FUZZ_REPORT")
    if target:
        with open(target, "a", encoding="utf-8") as f:
            for kind, counts in STATS.items():
                if counts["examples"]:
                    f.write(f"{kind} {TIMES[kind]:.1f}s {json.dumps(dict(sorted(counts.items())))}\n")


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang(f"a load ran for more than {ALARM_SECONDS} s")


def check(kind: str, tmp: Path, text: str, touched: set[str], labels: list[str], load: Callable[[Path], Workload]):
    """Load the mutated file; assert a clean error naming file and field, or a workload inside its domain."""
    path = tmp / f"fuzz-{kind.lower()}.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    stats = STATS[kind]
    stats["examples"] += 1
    for label in labels:
        stats[f"mutation {label}"] += 1
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(ALARM_SECONDS)
    start = time.perf_counter()
    try:
        workload = load(path)
    except (TraceFormatError, ConfigurationError) as err:
        message = str(err)
        assert "\n" not in message, message
        assert path.name in message, f"the error does not name the file: {message}"
        names_field = any(name in message for name in touched) or any(e in message for e in WHOLE_FILE_ERRORS)
        if "<root>" in touched:  # a whole root object was replaced: any of its fields may be the one missing
            names_field = names_field or "field '" in message
        assert names_field, f"the error names none of {sorted(touched)}: {message}"
        stats["rejected"] += 1
        return
    except YarnballError as err:  # another subclass would be a wrong classification of bad input
        raise AssertionError(f"{type(err).__name__} is not a trace error: {err}") from err
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        TIMES[kind] += time.perf_counter() - start
    assert_in_domain(workload)
    stats["accepted"] += 1


def _utf8(text: str) -> None:
    text.encode("utf-8")  # raises on a lone surrogate


def assert_in_domain(wl: Workload) -> None:
    """Every value a reader hands on is one the actors and the outputs can use."""
    assert wl.nodes, "a workload needs nodes"
    for node in wl.nodes:
        _utf8(node.hostname)
        _utf8(node.rack)
        assert node.hostname.strip() and node.rack.startswith("/")
        assert 1 <= node.resource.memory_mb <= INT_MAX and 1 <= node.resource.vcores <= INT_MAX
        assert all(0 <= v <= LONG_MAX for _, v in node.resource.extended)
        for label in node.labels:
            _utf8(label)
    for job in wl.jobs:
        for text in (job.job_id, job.user, job.queue, job.name, job.label_expression, job.am_type):
            _utf8(text)
        for k, v in job.params.items():
            _utf8(k)
            _utf8(v)
        assert 0 <= job.submit_ms <= LONG_MAX
        assert job.end_ms is None or job.submit_ms <= job.end_ms <= LONG_MAX
        assert job.deadline_ms is None or job.submit_ms <= job.deadline_ms <= LONG_MAX
        assert 1 <= job.am_resource.memory_mb <= LONG_MAX and 1 <= job.am_resource.vcores <= INT_MAX
        for task in job.tasks:
            assert 1 <= task.count <= MAX_EXPANSION
            assert 1 <= task.duration_ms <= LONG_MAX
            assert -INT_MAX - 1 <= task.priority <= INT_MAX
            assert 1 <= task.resource.memory_mb <= LONG_MAX and 1 <= task.resource.vcores <= INT_MAX
            assert all(0 <= v <= LONG_MAX for _, v in task.resource.extended)
            assert task.request_delay_ms >= 0
            _utf8(task.task_type)
            for host in task.hosts:
                _utf8(host)
    for skipped in wl.skipped:
        _utf8(skipped.job_id)
    msgspec.msgpack.encode(wl)  # every integer fits MessagePack's 64 bits: the workload can go to a shard host


def _seed(kind: str, index: int) -> str:
    seeds = SEED_TEXTS[kind]
    return seeds[index % len(seeds)]


@FUZZ
@given(index=st.integers(0, 10), data=st.data(), strict=st.booleans())
def test_fuzzed_sls_traces(tmp_path: Path, index: int, data: st.DataObject, strict: bool) -> None:
    """Mutated SLS traces load into an in-domain workload or fail naming the file and the field."""
    text, touched, labels = mutate(_seed("SLS", index), data.draw)
    check("SLS", tmp_path, text, touched, labels, lambda p: load_workload("SLS", [p], strict=strict))


@FUZZ
@given(data=st.data(), strict=st.booleans())
def test_fuzzed_rumen_traces(tmp_path: Path, data: st.DataObject, strict: bool) -> None:
    """Mutated Rumen traces load into an in-domain workload or fail naming the file and the field."""
    text, touched, labels = mutate(_seed("RUMEN", 0), data.draw)
    check("RUMEN", tmp_path, text, touched, labels, lambda p: load_workload("RUMEN", [p], strict=strict))


@FUZZ
@given(index=st.integers(0, 10), data=st.data(), strict=st.booleans())
def test_fuzzed_synth_traces(tmp_path: Path, index: int, data: st.DataObject, strict: bool) -> None:
    """Mutated SYNTH traces generate an in-domain workload or fail naming the file and the field, never hang."""
    text, touched, labels = mutate(_seed("SYNTH", index), data.draw)
    check("SYNTH", tmp_path, text, touched, labels, lambda p: load_workload("SYNTH", [p], strict=strict))


@FUZZ
@given(index=st.integers(0, 10), data=st.data(), strict=st.booleans())
def test_fuzzed_node_files(tmp_path: Path, index: int, data: st.DataObject, strict: bool) -> None:
    """Mutated SLS node files give an in-domain cluster or fail naming the node file and the field."""
    seed = _seed("NODES", index)
    repeated = data.draw(st.booleans())
    if repeated:  # a host listed again, in the first rack object
        doc = json.loads(seed)
        hosts = [n for rack in doc for n in rack.get("nodes", []) if "node" in n]
        doc[0]["nodes"].append(copy.deepcopy(hosts[data.draw(st.integers(0, len(hosts) - 1))]))
        seed = json.dumps(doc)
    text, touched, labels = mutate(seed, data.draw)
    if repeated:
        touched.add("is listed twice")  # reported at the second entry, which no mutation touched
    trace = DATA / "inputsls.json"

    def load(p: Path) -> Workload:
        wl = load_workload("SLS", [trace], p, strict=strict)
        hosts = [n.hostname for n in wl.nodes]
        assert len(set(hosts)) == len(hosts), f"a host listed twice was accepted: {hosts}"
        for node in wl.nodes:
            assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}", node.hostname), node
            assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", p) and p not in (".", "..") for p in node.rack.split("/")[1:])
        return wl

    check("NODES", tmp_path, text, touched, labels, load)


def test_every_seed_loads_strictly(tmp_path: Path) -> None:
    """The unmutated seeds are valid, even with --strict: the fuzz starts from inputs SLS accepts."""
    for kind, seeds in SEEDS.items():
        for seed in seeds:
            path = tmp_path / "seed.json"
            path.write_text("\n".join(json.dumps(o) for o in seed))
            if kind == "NODES":
                wl = load_workload("SLS", [DATA / "inputsls.json"], path, strict=True)
            else:
                wl = load_workload(kind, [path], strict=True)
            assert_in_domain(wl)
