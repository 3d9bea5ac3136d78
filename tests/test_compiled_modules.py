"""The mypyc-compiled scheduler modules (yarnball/_native.py): the stale-build guard, the pure-Python switch, and
byte-identical outputs compiled and pure."""

from __future__ import annotations

import ast
import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from yarnball import _native

ROOT = Path(__file__).resolve().parents[1]
LISTED = _native.MYPYC_MODULES
COMPILED = [m for m in LISTED if _native.extension_path(m) is not None and m not in _native.stale_modules()]
needs_compiled = pytest.mark.skipif(
    not COMPILED or _native.pure_requested() or not _native.compiled_modules(),
    reason="pure-Python build or run (YARNBALL_PURE_PYTHON, or no extension built): nothing compiled to compare",
)

# A busy synthetic run (30 nodes, more work than fits, fair ordering, a user limit, DRF): everything it prints
# and the sha256 of its debug event log, plus where _leaf was loaded from.
BUSY = """
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
import bench_simulation as b
from yarnball.actors import configure_logging
from yarnball.launcher import Cluster
from yarnball.protocols import Configuration
import yarnball.policies.capacity._leaf as leaf
configure_logging(json_path=sys.argv[2], level="debug")
w = b.busy_workload(30, 200, 3, (5000, 60000), (10000, 120000), 2.0)
conf = {
    "yarn.scheduler.capacity.root.default.ordering-policy": "fair",
    "yarn.scheduler.capacity.root.default.user-limit-factor": 0.5,
    "yarn.scheduler.capacity.resource-calculator": "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator",
}
c = Cluster(Configuration(conf), w.nodes, seed=3)
c.submit_workload(w)
c.run(until_ms=200_000)
configure_logging(level="warning")
print(leaf.__file__)
print(json.dumps(dict(sorted(c.rm.counters.items()))))
print([(q.path, q.allocated.memory_mb, q.pending.memory_mb, q.apps_running) for q in c.queues])
print([(a.application_id, a.state, a.start_time, a.finish_time) for a in c.applications])
print(hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest())
"""


def _busy(tmp_path: Path, name: str, *, pure: bool) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != _native.PURE_ENV}
    if pure:
        env[_native.PURE_ENV] = "1"
    argv = [sys.executable, "-c", BUSY, str(ROOT / "bench"), str(tmp_path / f"{name}.jsonl")]
    done = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def _fake_module(root: Path, source_mtime: float, extension_mtime: float | None) -> str:
    module = "yarnball.policies.capacity._leaf"
    src = _native.source_path(module, root)
    src.parent.mkdir(parents=True)
    src.write_text("")
    os.utime(src, (source_mtime, source_mtime))
    if extension_mtime is not None:
        ext = src.with_name(src.stem + importlib.machinery.EXTENSION_SUFFIXES[0])
        ext.write_bytes(b"")
        os.utime(ext, (extension_mtime, extension_mtime))
    return module


def test_a_source_edited_after_the_build_is_stale(tmp_path: Path) -> None:
    """A .py modified a minute after its extension was built is reported stale."""
    module = _fake_module(tmp_path, 1_000_060.0, 1_000_000.0)
    assert _native.stale_modules([module], tmp_path) == [module]


def test_an_extension_built_after_its_source_is_fresh(tmp_path: Path) -> None:
    """An extension newer than its source, or written in the same second (a wheel install), is not stale."""
    newer = _fake_module(tmp_path / "newer", 1_000_000.0, 1_000_060.0)
    same = _fake_module(tmp_path / "same", 1_000_001.0, 1_000_000.0)
    assert _native.stale_modules([newer], tmp_path / "newer") == []
    assert _native.stale_modules([same], tmp_path / "same") == []


def test_a_module_without_an_extension_is_never_stale(tmp_path: Path) -> None:
    """A pure-Python build (no extension at all) has nothing stale."""
    module = _fake_module(tmp_path, 1_000_060.0, None)
    assert _native.extension_path(module, tmp_path) is None
    assert _native.stale_modules([module], tmp_path) == []


@pytest.mark.parametrize(("value", "pure"), [("1", True), ("yes", True), ("0", False), ("", False)])
def test_the_pure_python_switch_reads_the_environment(value: str, pure: bool) -> None:
    """YARNBALL_PURE_PYTHON asks for the sources unless empty or 0."""
    assert _native.pure_requested({_native.PURE_ENV: value}) is pure
    assert _native.pure_requested({}) is False


def test_the_listed_modules_exist_and_are_compiled_all_or_none() -> None:
    """Every listed module has a source, and this process runs all of them compiled or none (never a mix)."""
    for module in LISTED:
        assert _native.source_path(module).is_file(), module
    assert _native.compiled_modules() in ([], list(LISTED))


@needs_compiled
def test_a_stale_build_warns_and_runs_every_source(tmp_path: Path) -> None:
    """Touching one compiled module's .py makes a copy of the package warn 'rebuild' and load all sources."""
    shutil.copytree(ROOT / "yarnball", tmp_path / "yarnball", ignore=shutil.ignore_patterns("__pycache__"))
    edited = _native.source_path(LISTED[0], tmp_path)
    later = _native.extension_path(LISTED[0], tmp_path).stat().st_mtime + 60  # type: ignore[union-attr]
    os.utime(edited, (later, later))
    code = "import importlib, yarnball._native as n\n"
    code += "print([importlib.import_module(m).__file__ for m in n.MYPYC_MODULES])"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop(_native.PURE_ENV, None)
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "rebuild with `pip install -e .`" in done.stderr.lower() and LISTED[0] in done.stderr
    files = ast.literal_eval(done.stdout)
    assert all(f.startswith(str(tmp_path)) and f.endswith(".py") for f in files), files


@needs_compiled
def test_pure_python_and_compiled_runs_are_byte_identical(tmp_path: Path) -> None:
    """A busy simulation prints the same counters, queues, application ends and event-log digest pure and compiled."""
    compiled, pure = _busy(tmp_path, "compiled", pure=False), _busy(tmp_path, "pure", pure=True)
    assert not compiled[0].endswith(".py") and pure[0].endswith(".py")
    assert "FINISHED" in compiled[3], compiled[3][:200]  # applications ran to completion
    assert compiled[1:] == pure[1:]


def test_heartbeat_times_keep_the_type_of_the_run_times() -> None:
    """The heartbeat clock (compiled: actors/_heartbeats.py) keeps a run's int millisecond times ints, in its
    NodeBeats, the kernel and the RM's nodes: a float-typed native field would turn them into floats."""
    import sys as _sys

    _sys.path.insert(0, str(ROOT / "bench"))
    try:
        import bench_simulation as b
    finally:
        _sys.path.remove(str(ROOT / "bench"))
    from yarnball.actors import configure_logging
    from yarnball.launcher import Cluster
    from yarnball.protocols import Configuration

    configure_logging(level="warning")
    w = b.busy_workload(20, 100, 3, (5000, 60000), (10000, 120000), 2.0)
    cluster = Cluster(Configuration(), w.nodes, seed=3)
    cluster.submit_workload(w)
    cluster.run(until_ms=100_000)
    beats = list(cluster.heartbeats.beats.values())
    assert beats and cluster.heartbeats.lazy is not None and cluster.heartbeats.lazy.deferred > 0
    assert type(cluster.kernel.now) is int
    assert {type(beat.due) for beat in beats} == {int} and {type(beat.start) for beat in beats} == {int}
    assert {type(node.last_heartbeat) for node in cluster.rm.nodes.values()} == {int}
