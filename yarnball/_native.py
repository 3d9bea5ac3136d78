"""Which modules the install compiles with mypyc, and the import-time switch back to their Python sources.

setup.py reads MYPYC_MODULES from this file (without importing the package) and compiles them into one mypyc group;
the import system then prefers each module's extension (``_leaf.cpython-311-x86_64-linux-gnu.so``) over its ``.py``.
The outputs do not depend on it: the compiled modules compute exactly what their sources do.

Two cases load the ``.py`` sources instead, ALL of them or none (the compiled modules refer to each other's native
classes directly, so one compiled and one interpreted copy of a class cannot be mixed):
- ``YARNBALL_PURE_PYTHON=1`` in the environment (also read by setup.py: build no extension);
- a stale build: some listed ``.py`` is newer than its extension (edited after ``pip install -e .``). An extension
  silently running the code before the edit is the worst failure a developer could meet, so the sources win and a
  RuntimeWarning says to rebuild. The check is a pair of stat calls per module, once per process: cheap enough to run
  on every import, which a test-only check would not be (eq.sh, the benches and the CLI never run the tests).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType

# THE list (dotted names): extend it with any pure, fully typed module whose classes' methods the tests never replace
# on instances (mypyc native classes forbid that, and new attributes not declared in the class body: tests override
# in a Python subclass instead, for classes marked @mypyc_attr(allow_interpreted_subclasses=True)).
MYPYC_MODULES: tuple[str, ...] = (
    # the event kernel and what sits below it: futures and tasks, addresses (ActorRef stays subclassable from Python)
    "yarnball.actors._future",
    "yarnball.actors._ref",
    "yarnball.actors._eventqueue",
    "yarnball.actors._kernel",
    # AbstractYarnScheduler, the native base of every scheduler (before the CapacityScheduler chain it heads), the
    # container updates it makes in the books (ContainerUpdateContext), and an attempt's asks and pull
    "yarnball.policies.scheduler._updatecontext",
    "yarnball.policies.scheduler._appscheduling",
    "yarnball.policies.scheduler._abstract",
    "yarnball.policies.capacity._calculator",
    "yarnball.policies.capacity._state",
    "yarnball.policies.capacity._allocator",
    "yarnball.policies.capacity._usersmanager",
    "yarnball.policies.capacity._leaf",
    "yarnball.policies.capacity._queues",
    "yarnball.policies.capacity._context",
    "yarnball.policies.capacity._maxrunning",
    # the CapacityScheduler class chain (native classes; Python code may subclass CapacityScheduler)
    "yarnball.policies.capacity._core",
    "yarnball.policies.capacity._continuous",
    "yarnball.policies.capacity._events",
    "yarnball.policies.capacity._scheduler",
    "yarnball.actors._asktable",  # the AM ask table: typed functions over plain data (no classes)
    "yarnball.actors._amtasks",  # the AM's requests and the SLS AM's tasks per container: typed functions
    "yarnball.launcher.workloads._draw",  # the synthetic trace's per-task draws (the job feed makes jobs in the run)
    # actor-side helpers: native classes the actors call into on every heartbeat, never subclassed by users
    "yarnball.actors._heartbeats",
    "yarnball.actors._shortcuts._lazyrunning",
    # the NodeManager's ContainerScheduler (its ContainerManager actor stays interpreted). Interpreted on purpose:
    # protocols/_tokens.py, actors/_secretmanagers.py, _containermanagerauth.py, _containerimpl.py and _nmstates.py.
    # Their work is reading the fields of msgspec records, which compiled code does through the generic
    # PyObject_GetAttr (~200 instructions a read) where CPython 3.11's specialised LOAD_ATTR takes under 60; and the
    # interpreted ContainerManager would read a native ContainerImpl's fields through descriptors 3.11 does not
    # specialise. Compiled, they made a busy run 2.5% more instructions (bench/count_instructions.py), not fewer.
    "yarnball.actors._containerscheduler",
    # the rest of the delivery layer beside the kernel (actors/_shortcuts): route choices, dormant AMs, AM rounds
    "yarnball.actors._shortcuts._routes",
    "yarnball.actors._shortcuts._ownmethods",
    "yarnball.actors._shortcuts._amtimer",
    "yarnball.actors._shortcuts._amheartbeats",
    "yarnball.actors._shortcuts._amdormancy",
    "yarnball.actors._shortcuts._amrounds",
    "yarnball.actors._shortcuts._quietreplies",
    # the RM's plain services and records, and the RMContext they share (the RM actor holds them; its Actor classes
    # stay interpreted)
    "yarnball.actors._rmcontext",
    "yarnball.actors._rmapp",
    "yarnball.actors._schedulerdispatcher",
    "yarnball.actors._resourcetracker",
    "yarnball.actors._applicationmasterservice",
    "yarnball.actors._rmappmanager",
)

PURE_ENV = "YARNBALL_PURE_PYTHON"
# A wheel install writes the .py and the extension within the same second or so; an edit comes later than that.
STALE_SLACK_S = 2.0

_ROOT = Path(__file__).resolve().parent.parent


def pure_requested(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the environment asks for the Python sources (any value but empty or 0)."""
    return environ.get(PURE_ENV, "") not in ("", "0")


def source_path(module: str, root: Path = _ROOT) -> Path:
    """The .py file of a listed module under ``root`` (the directory holding the ``yarnball`` package)."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def extension_path(module: str, root: Path = _ROOT) -> Path | None:
    """The module's built extension next to its source, or None when there is none."""
    src = source_path(module, root)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = src.with_name(src.stem + suffix)
        if candidate.exists():
            return candidate
    return None


def stale_modules(modules: Sequence[str] = MYPYC_MODULES, root: Path = _ROOT) -> list[str]:
    """Listed modules whose source was modified after their extension was built (the extension runs old code)."""
    stale = []
    for module in modules:
        ext = extension_path(module, root)
        if ext is not None and source_path(module, root).stat().st_mtime > ext.stat().st_mtime + STALE_SLACK_S:
            stale.append(module)
    return stale


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the listed modules as their .py sources, ahead of the path finder that would pick the extension."""

    def __init__(self, modules: Sequence[str], root: Path) -> None:
        self.modules = frozenset(modules)
        self.root = root

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.modules:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname, self.root))


# Why this process runs the sources although extensions may exist (set by install()); None when it does not.
_SOURCES_REASON: str | None = None
# setup.py writes here why an install built no extension (pure requested, mypy/mypyc or the C compiler failed).
BUILD_NOTE = _ROOT / "yarnball" / "_build.txt"


def build_status() -> tuple[bool, str]:
    """(compiled, detail): whether this process runs the compiled modules, and how many, or why not."""
    if _SOURCES_REASON is not None:
        return False, _SOURCES_REASON
    present = [module for module in MYPYC_MODULES if extension_path(module) is not None]
    if len(present) == len(MYPYC_MODULES):
        return True, f"{len(present)} modules compiled with mypyc"
    try:
        note = BUILD_NOTE.read_text(encoding="utf-8").strip()
    except OSError:
        note = ""
    if not note:
        note = "no compiled extensions next to the sources (not installed with `pip install`, or built pure)"
    return False, note


def install(environ: Mapping[str, str] = os.environ) -> str | None:
    """Route the listed modules to their sources when asked or when the build is stale; returns the reason, if any."""
    global _SOURCES_REASON
    if any(isinstance(finder, _SourceFinder) for finder in sys.meta_path):
        return "already installed"
    if pure_requested(environ):
        reason = f"{PURE_ENV} is set"
    else:
        stale = stale_modules()
        if not stale:
            return None
        reason = f"stale compiled modules {', '.join(stale)}"
        warnings.warn(
            f"yarnball: {reason} (the .py was edited after the build); running the Python sources instead. "
            "Rebuild with `pip install -e .` (or `python setup.py build_ext --inplace`).",
            RuntimeWarning,
            stacklevel=2,
        )
    sys.meta_path.insert(0, _SourceFinder(MYPYC_MODULES, _ROOT))
    _SOURCES_REASON = reason
    return reason


def compiled_modules() -> list[str]:
    """The listed modules that this process runs from an extension (after importing them)."""
    import importlib

    out = []
    for module in MYPYC_MODULES:
        loaded = importlib.import_module(module)
        if not (loaded.__file__ or "").endswith(".py"):
            out.append(module)
    return out
