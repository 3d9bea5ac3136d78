"""An output directory holds one run: the manifest written first, ``_SUCCESS`` written last.

Every command that writes an output directory (``yarnball simulate``, ``yarnball sweep``) claims it first with
:func:`claim`. A directory that does not exist or is empty is taken as it is. A directory holding an earlier run's
outputs, recognised by the manifest ``_yarnball_run.json`` that every run writes before anything else, is cleared of
that run's files and reused. Anything else in it (a file no yarnball run wrote) is refused: the run does not start
and the error names the directory and the first such file. yarnball never deletes a file it did not write.

The manifest says which files are the run's: while the run goes on (``"status": "running"``) the name patterns it
may write; once it is done (``"status": "complete"``) the exact list of files it wrote. Then ``_SUCCESS`` is
written, empty and last, as Hadoop's ``FileOutputCommitter`` marks a finished job's output directory
(``FileOutputCommitter.commitJob`` with ``mapreduce.fileoutputcommitter.marksuccessfuljobs``): a directory with a
manifest and no ``_SUCCESS`` holds a run that was interrupted (or is still running).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from yarnball.errors import ConfigurationError

__all__ = [
    "MANIFEST",
    "SIMULATE_FILES",
    "SUCCESS",
    "SWEEP_FILES",
    "RunDirectory",
    "claim",
    "is_incomplete",
    "register",
]

MANIFEST = "_yarnball_run.json"
SUCCESS = "_SUCCESS"  # Hadoop's FileOutputCommitter.SUCCEEDED_FILE_NAME
_FORMAT = 1
_BOOKKEEPING = (MANIFEST, f"{MANIFEST}.tmp", SUCCESS)

# What a run may write, as /-separated name patterns relative to its directory ('*' within one name, a final '**'
# for everything below a directory).
SIMULATE_FILES = (
    "events.jsonl",
    "events.jsonl.host*",  # a Ray run's per-host logs, merged into events.jsonl when the cluster closes
    "summary.json",
    "realtimetrack.json",
    "jobruntime.csv",
    "metrics/*.csv",
    "*.png",
    "report.html",
    "cluster-state.json",
)
SWEEP_FILES = (
    "sweep.csv",
    "sweep.json",
    "aggregates.csv",
    "report.md",
    "plots/*.png",
    ".sweep/**",  # per-scenario records and Ray Tune's experiment directory
)


@dataclass(slots=True)
class RunDirectory:
    """A claimed output directory: :meth:`complete` lists the run's files in the manifest, then writes ``_SUCCESS``."""

    path: Path
    command: str
    patterns: tuple[str, ...]
    nested: tuple[str, ...] = ()

    def complete(self) -> None:
        """Mark the run finished: the manifest lists its files (``"status": "complete"``), then ``_SUCCESS``."""
        files = [name for name in _files(self.path) if _matches(name, self.patterns)]
        _write_manifest(self.path, self.command, "complete", self.patterns, self.nested, files)
        (self.path / SUCCESS).write_bytes(b"")


def claim(
    path: str | os.PathLike[str],
    command: str,
    patterns: Sequence[str],
    *,
    nested: Sequence[str] = (),
    keep: Sequence[str] = (),
    option: str = "--output-dir",
) -> RunDirectory:
    """Make ``path`` hold this run only: create it, or clear an earlier run's files from it (except those matching
    ``keep``), and write the manifest with ``"status": "running"``.

    ``nested``: patterns of subdirectories that hold runs of their own (a sweep's scenarios), each cleared by its own
    manifest. Raises :class:`~yarnball.errors.ConfigurationError` (nothing deleted) when ``path`` is a file or holds
    a file no yarnball run wrote.
    """
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise ConfigurationError(f"{out}: {option} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    kept = tuple(keep)
    owned, foreign = _survey(out)
    if foreign:
        raise ConfigurationError(
            f"{out}: {option} is not empty and holds a file yarnball did not write: {foreign[0]}; yarnball reuses "
            "a directory only when it holds an earlier yarnball run's outputs alone; choose a new or empty directory"
        )
    (out / SUCCESS).unlink(missing_ok=True)  # first: from here on the directory is not a finished run
    doomed = [name for name in owned if not _matches(name, kept)]
    for name in doomed:
        (out / name).unlink(missing_ok=True)
    _remove_empty_dirs(out, doomed)
    _write_manifest(out, command, "running", patterns, nested, [])
    return RunDirectory(out, command, tuple(patterns), tuple(nested))


def register(path: str | os.PathLike[str], names: Iterable[str]) -> None:
    """Add files about to be written into a finished or running run's directory (``yarnball report``) to its
    manifest, before they are written; a directory without a manifest is left as it is."""
    out = Path(path)
    manifest = _read_manifest(out)
    if manifest is None:
        return
    files = sorted({*manifest.get("files", ()), *names})
    _write_manifest(
        out, manifest["command"], manifest["status"], manifest["patterns"], manifest.get("nested", ()), files
    )


def is_incomplete(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` holds a yarnball run that did not finish: a manifest and no ``_SUCCESS``."""
    out = Path(path)
    return (out / MANIFEST).is_file() and not (out / SUCCESS).is_file()


# -- what belongs to the earlier run -----------------------------------------------------------------------------
def _survey(out: Path, prefix: str = "") -> tuple[list[str], list[str]]:
    """(files of the earlier run, files no yarnball run wrote), relative to ``out``'s top, each sorted."""
    manifest = _read_manifest(out)
    if manifest is None:  # not a run's directory: any file in it is foreign (the first found is enough)
        first = _first_file(out)
        return [], [prefix + first] if first is not None else []
    names = _files(out)
    listed = set(manifest.get("files", ()))
    patterns = tuple(manifest.get("patterns", ())) if manifest.get("status") != "complete" else ()
    nested = tuple(manifest.get("nested", ()))
    owned: list[str] = []
    foreign: list[str] = []
    inner: set[str] = set()
    for name in names:
        top = _nested_root(name, nested)
        if top is not None:
            inner.add(top)
        elif name in _BOOKKEEPING or name in listed or _matches(name, patterns):
            owned.append(prefix + name)
        else:
            foreign.append(prefix + name)
    for top in sorted(inner):
        sub_owned, sub_foreign = _survey(out / top, f"{prefix}{top}/")
        owned += sub_owned
        foreign += sub_foreign
    return sorted(owned), sorted(foreign)


def _nested_root(name: str, nested: Sequence[str]) -> str | None:
    parts = name.split("/")
    for pattern in nested:
        depth = pattern.count("/") + 1
        if len(parts) > depth and _matches("/".join(parts[:depth]), (pattern,)):
            return "/".join(parts[:depth])
    return None


def _matches(name: str, patterns: Sequence[str]) -> bool:
    parts = name.split("/")
    for pattern in patterns:
        want = pattern.split("/")
        if want[-1] == "**":
            if len(parts) > len(want) - 1 and all(fnmatchcase(p, w) for p, w in zip(parts, want[:-1], strict=False)):
                return True
        elif len(parts) == len(want) and all(fnmatchcase(p, w) for p, w in zip(parts, want, strict=True)):
            return True
    return False


def _files(out: Path) -> list[str]:
    """Every file and symlink below ``out`` (symlinked directories not followed), as sorted /-separated relative
    names. Empty directories are not listed: they hold nothing to mix up."""
    names = []
    for root, dirs, files in os.walk(out):
        rel = Path(root).relative_to(out)
        names += [(rel / f).as_posix() for f in files]
        names += [(rel / d).as_posix() for d in dirs if (Path(root) / d).is_symlink()]
    return sorted(n.removeprefix("./") for n in names)


def _first_file(out: Path) -> str | None:
    """The first file or symlink below ``out`` (top level first, by name), without walking the whole tree."""
    for root, dirs, files in os.walk(out):
        dirs.sort()
        links = [d for d in dirs if (Path(root) / d).is_symlink()]
        if files or links:
            return (Path(root).relative_to(out) / min([*files, *links])).as_posix().removeprefix("./")
    return None


def _remove_empty_dirs(out: Path, removed: Sequence[str]) -> None:
    parents = {p for name in removed for p in Path(name).parents if p != Path(".")}
    for rel in sorted(parents, key=lambda p: len(p.parts), reverse=True):
        full = out / rel
        if full.is_dir() and not full.is_symlink() and not any(full.iterdir()):
            full.rmdir()


def _read_manifest(out: Path) -> dict[str, Any] | None:
    path = out / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigurationError(
            f"{path}: not a yarnball run manifest ({err}); remove it or choose another directory"
        ) from err
    if not isinstance(data, dict) or data.get("yarnball_output") != _FORMAT or "patterns" not in data:
        raise ConfigurationError(f"{path}: not a yarnball run manifest; remove it or choose another directory")
    return data


def _write_manifest(
    out: Path, command: str, status: str, patterns: Sequence[str], nested: Sequence[str], files: Sequence[str]
) -> None:
    data = {
        "yarnball_output": _FORMAT,
        "command": command,
        "status": status,
        "patterns": list(patterns),
        "nested": list(nested),
        "files": sorted(files),
    }
    tmp = out / f"{MANIFEST}.tmp"
    tmp.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    tmp.replace(out / MANIFEST)
