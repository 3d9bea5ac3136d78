"""Task checkpoints for preemption-aware ApplicationMasters: a record, a store interface and two stores.

A :class:`Checkpoint` says how much of a task's work is safely saved (``work_done_ms``) plus any small state the
AM wants back (an input offset, a partial output name). Stores implement the :class:`CheckpointStore` protocol:

- :class:`InMemoryCheckpointStore`: a dict, for simulations and tests;
- :class:`FileSystemCheckpointStore`: one JSON file per task in a directory, written atomically (temporary file
  + ``os.replace``) so a crash never leaves half a checkpoint; a missing file means "no checkpoint", a corrupt
  one raises :class:`~yarnball.errors.CheckpointError` naming the file.

This is the role HDFS plays for MapReduce's preemptable tasks (MAPREDUCE-5176/5196 ``TaskCheckpointID`` and the
``FSCheckpointService``): the AM saves before giving the container back and resumes the task from the saved
point in a new container.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Protocol, runtime_checkable

import msgspec

from yarnball.errors import CheckpointError

__all__ = ["Checkpoint", "CheckpointStore", "FileSystemCheckpointStore", "InMemoryCheckpointStore"]

_NonNegative = Annotated[int, msgspec.Meta(ge=0)]
_TASK_ID = re.compile(r"^[A-Za-z0-9_.-]{1,200}$")


class Checkpoint(msgspec.Struct, frozen=True, kw_only=True):
    """A task's saved progress. ``work_done_ms`` is the amount of the task's work (in ms of run time) that a new
    container does not have to redo; ``state`` is the AM's own small key/value data."""

    task_id: str
    work_done_ms: _NonNegative
    saved_at_ms: float = 0.0
    attempt: _NonNegative = 0
    container_id: str = ""
    state: dict[str, str] = msgspec.field(default_factory=dict)


@runtime_checkable
class CheckpointStore(Protocol):
    """Where an AM keeps checkpoints: ``save`` replaces the task's last one, ``load`` returns it or None."""

    def save(self, checkpoint: Checkpoint) -> None: ...

    def load(self, task_id: str) -> Checkpoint | None: ...

    def delete(self, task_id: str) -> None: ...


def _check_task_id(task_id: str) -> str:
    if not isinstance(task_id, str) or not _TASK_ID.match(task_id) or task_id in (".", ".."):
        raise CheckpointError(f"task id {task_id!r}: expected 1-200 characters among letters, digits, '_', '.' and '-'")
    return task_id


class InMemoryCheckpointStore:
    """Checkpoints in a dict (lost with the process, like an AM's memory; enough for a simulation)."""

    def __init__(self) -> None:
        self._saved: dict[str, Checkpoint] = {}

    def save(self, checkpoint: Checkpoint) -> None:
        self._saved[_check_task_id(checkpoint.task_id)] = checkpoint

    def load(self, task_id: str) -> Checkpoint | None:
        return self._saved.get(_check_task_id(task_id))

    def delete(self, task_id: str) -> None:
        self._saved.pop(_check_task_id(task_id), None)

    def __len__(self) -> int:
        return len(self._saved)


class FileSystemCheckpointStore:
    """One ``<task id>.json`` file per task under ``directory`` (created if missing)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise CheckpointError(f"{self.directory}: cannot create checkpoint directory: {err.strerror}") from err
        if not self.directory.is_dir():
            raise CheckpointError(f"{self.directory}: not a directory")

    def path_of(self, task_id: str) -> Path:
        return self.directory / f"{_check_task_id(task_id)}.json"

    def save(self, checkpoint: Checkpoint) -> None:
        path = self.path_of(checkpoint.task_id)
        tmp = path.with_suffix(".json.tmp")
        try:
            tmp.write_bytes(msgspec.json.encode(checkpoint))
            os.replace(tmp, path)
        except OSError as err:
            raise CheckpointError(f"{path}: cannot write checkpoint: {err.strerror}") from err

    def load(self, task_id: str) -> Checkpoint | None:
        path = self.path_of(task_id)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as err:
            raise CheckpointError(f"{path}: cannot read checkpoint: {err.strerror}") from err
        try:
            checkpoint = msgspec.json.decode(raw, type=Checkpoint)
        except msgspec.DecodeError as err:  # ValidationError is a DecodeError
            raise CheckpointError(f"{path}: corrupt checkpoint: {err}") from err
        if checkpoint.task_id != task_id:
            raise CheckpointError(f"{path}: checkpoint belongs to task {checkpoint.task_id!r}, not {task_id!r}")
        return checkpoint

    def delete(self, task_id: str) -> None:
        try:
            self.path_of(task_id).unlink(missing_ok=True)
        except OSError as err:
            raise CheckpointError(f"{self.path_of(task_id)}: cannot delete checkpoint: {err.strerror}") from err
