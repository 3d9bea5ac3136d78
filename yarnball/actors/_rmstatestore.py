"""The RM state store (``RMStateStore``): what a restarted ResourceManager recovers its applications from.

As Hadoop's, the RM writes an application's record when it is submitted (``storeNewApplication``, RMAppImpl's
NEW_SAVING) and again when it ends (``updateApplicationState``, FINAL_SAVING), and an attempt's record when its AM
container is allocated (``storeNewApplicationAttempt``, RMAppAttemptImpl's ALLOCATED_SAVING, with the master
container) and when it ends (``updateApplicationAttemptState``). ``getAndIncrementEpoch`` counts the RM's starts:
containers a restarted RM allocates carry the epoch in their id's high bits (``container_e01_...``).

Two stores, chosen by ``yarn.resourcemanager.store.class``:

- :class:`MemoryRMStateStore` (yarnball's default; Hadoop's test store): records kept in memory, encoded as
  MessagePack so that what is recovered is what was written, not the live objects;
- :class:`FileSystemRMStateStore`: JSON files under ``yarn.resourcemanager.fs.state-store.uri`` in Hadoop's layout
  (``FSRMStateRoot/RMAppRoot/<application>/<application>`` and ``.../<appattempt>``, ``FSRMStateRoot/EpochNode``),
  each written to a temporary file and renamed, as ``FileSystemRMStateStore.writeFileWithRetries`` does.

Not stored (as in Hadoop): nodes, containers, queues and asks; they come back from the NodeManagers and the AMs.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import msgspec

from yarnball.errors import ConfigurationError
from yarnball.protocols import ApplicationAttemptId, ApplicationId, Configuration, Container, keys
from yarnball.protocols._clientprotocol import ApplicationSubmissionContext

__all__ = [
    "ApplicationAttemptStateData",
    "ApplicationStateData",
    "FileSystemRMStateStore",
    "MemoryRMStateStore",
    "RMState",
    "RMStateStore",
    "create_state_store",
]

_RECOVERY = "org.apache.hadoop.yarn.server.resourcemanager.recovery."
MEMORY_STORE = _RECOVERY + "MemoryRMStateStore"
FILE_SYSTEM_STORE = _RECOVERY + "FileSystemRMStateStore"


class ApplicationAttemptStateData(msgspec.Struct, kw_only=True):
    """``ApplicationAttemptStateData``: an attempt, its master container, and its final state once it ended."""

    attempt_id: ApplicationAttemptId
    master_container: Container | None = None
    start_time: float = 0.0
    state: str | None = None  # RMAppAttemptState name once final (FINISHED, FAILED, KILLED), else None
    final_status: str = "UNDEFINED"
    diagnostics: str = ""
    counted: bool = True  # whether its failure counted towards the application's max attempts
    finish_time: float | None = None


class ApplicationStateData(msgspec.Struct, kw_only=True):
    """``ApplicationStateData``: the submission context and times, its final state once it ended."""

    context: ApplicationSubmissionContext
    submit_time: float
    start_time: float
    launch_time: float | None = None
    state: str | None = None  # YarnApplicationState name once final, else None
    final_status: str = "UNDEFINED"
    diagnostics: str = ""
    finish_time: float | None = None
    attempts: list[ApplicationAttemptStateData] = msgspec.field(default_factory=list)


class RMState(msgspec.Struct):
    """``RMStateStore.RMState``: what ``loadState`` gives the new RM (applications in id order)."""

    applications: list[ApplicationStateData]
    epoch: int


def _app_key(app_id: ApplicationId) -> tuple[int, int]:
    return (app_id.cluster_timestamp, app_id.id)


class RMStateStore:
    """The store interface; subclasses keep the records somewhere."""

    def __init__(self) -> None:
        self.epoch = 0

    # -- what the RM writes ---------------------------------------------------------------------------------------
    def store_application(self, data: ApplicationStateData) -> None:
        """``storeNewApplication``."""
        self._write(data.context.application_id, data)

    def update_application(self, app_id: ApplicationId, **fields: Any) -> None:
        """``updateApplicationState``: the application's record with ``fields`` changed."""
        data = self._read(app_id)
        if data is not None:
            self._write(app_id, msgspec.structs.replace(data, **fields))

    def store_attempt(self, attempt: ApplicationAttemptStateData) -> None:
        """``storeNewApplicationAttempt`` (replacing a record of the same attempt)."""
        app_id = attempt.attempt_id.application_id
        data = self._read(app_id)
        if data is None:
            return
        kept = [a for a in data.attempts if a.attempt_id != attempt.attempt_id]
        self._write(app_id, msgspec.structs.replace(data, attempts=[*kept, attempt]))

    def update_attempt(self, attempt_id: ApplicationAttemptId, **fields: Any) -> None:
        """``updateApplicationAttemptState``."""
        app_id = attempt_id.application_id
        data = self._read(app_id)
        if data is None:
            return
        attempts = [msgspec.structs.replace(a, **fields) if a.attempt_id == attempt_id else a for a in data.attempts]
        self._write(app_id, msgspec.structs.replace(data, attempts=attempts))

    def remove_application(self, app_id: ApplicationId) -> None:
        """``removeApplication``: the application's record and its attempts' go."""
        self._remove(app_id)

    def get_and_increment_epoch(self) -> int:
        """``getAndIncrementEpoch``: this start's epoch; the next start gets one more."""
        epoch = self.epoch
        self.epoch = epoch + 1
        self._write_epoch(self.epoch)
        return epoch

    def load_state(self) -> RMState:
        """``loadState``: every application record, in application id order."""
        apps = sorted(self._read_all(), key=lambda d: _app_key(d.context.application_id))
        return RMState(apps, self.epoch)

    # -- the storage ----------------------------------------------------------------------------------------------
    def _read(self, app_id: ApplicationId) -> ApplicationStateData | None:
        raise NotImplementedError

    def _write(self, app_id: ApplicationId, data: ApplicationStateData) -> None:
        raise NotImplementedError

    def _read_all(self) -> list[ApplicationStateData]:
        raise NotImplementedError

    def _remove(self, app_id: ApplicationId) -> None:
        raise NotImplementedError

    def _write_epoch(self, epoch: int) -> None:
        pass


class MemoryRMStateStore(RMStateStore):
    """``MemoryRMStateStore``: records as MessagePack bytes in a dict (they outlive the RM's objects)."""

    def __init__(self) -> None:
        super().__init__()
        self._apps: dict[tuple[int, int], bytes] = {}
        self._decoder = msgspec.msgpack.Decoder(ApplicationStateData)

    def _read(self, app_id: ApplicationId) -> ApplicationStateData | None:
        raw = self._apps.get(_app_key(app_id))
        return None if raw is None else self._decoder.decode(raw)

    def _write(self, app_id: ApplicationId, data: ApplicationStateData) -> None:
        self._apps[_app_key(app_id)] = msgspec.msgpack.encode(data)

    def _read_all(self) -> list[ApplicationStateData]:
        return [self._decoder.decode(raw) for raw in self._apps.values()]

    def _remove(self, app_id: ApplicationId) -> None:
        self._apps.pop(_app_key(app_id), None)


class FileSystemRMStateStore(RMStateStore):
    """``FileSystemRMStateStore`` on a local directory: one JSON file per application and per attempt."""

    def __init__(self, root: str | Path) -> None:
        super().__init__()
        self.root = Path(root) / "FSRMStateRoot"
        self.app_root = self.root / "RMAppRoot"
        self._app_decoder = msgspec.json.Decoder(ApplicationStateData)
        self._attempt_decoder = msgspec.json.Decoder(ApplicationAttemptStateData)
        try:
            self.app_root.mkdir(parents=True, exist_ok=True)
            epoch_file = self.root / "EpochNode"
            if epoch_file.exists():
                self.epoch = int(epoch_file.read_text().strip() or 0)
        except (OSError, ValueError) as exc:
            raise ConfigurationError(f"{keys.FS_RM_STATE_STORE_URI}: cannot use state store {root}: {exc}") from exc

    @staticmethod
    def _put(path: Path, data: bytes) -> None:
        tmp = path.with_name(path.name + ".tmp")  # writeFileWithRetries: write a .tmp file, then rename it
        tmp.write_bytes(data)
        os.replace(tmp, path)

    def _read(self, app_id: ApplicationId) -> ApplicationStateData | None:
        folder = self.app_root / str(app_id)
        app_file = folder / str(app_id)
        if not app_file.exists():
            return None
        data = self._app_decoder.decode(app_file.read_bytes())
        attempts = [self._attempt_decoder.decode(p.read_bytes()) for p in sorted(folder.glob("appattempt_*"))
                    if not p.name.endswith(".tmp")]  # fmt: skip
        return msgspec.structs.replace(data, attempts=sorted(attempts, key=lambda a: a.attempt_id.attempt_id))

    def _write(self, app_id: ApplicationId, data: ApplicationStateData) -> None:
        folder = self.app_root / str(app_id)
        folder.mkdir(exist_ok=True)
        self._put(folder / str(app_id), msgspec.json.encode(msgspec.structs.replace(data, attempts=[])))
        for attempt in data.attempts:
            self._put(folder / str(attempt.attempt_id), msgspec.json.encode(attempt))

    def _read_all(self) -> list[ApplicationStateData]:
        out = []
        for folder in sorted(self.app_root.glob("application_*")):
            data = self._read(ApplicationId.parse(folder.name))
            if data is not None:
                out.append(data)
        return out

    def _write_epoch(self, epoch: int) -> None:
        self._put(self.root / "EpochNode", str(epoch).encode())

    def _remove(self, app_id: ApplicationId) -> None:
        # FileSystemRMStateStore.removeApplicationStateInternal: the application's directory, recursively.
        shutil.rmtree(self.app_root / str(app_id), ignore_errors=True)


def create_state_store(conf: Configuration) -> RMStateStore:
    """The store ``yarn.resourcemanager.store.class`` names (``RMStateStoreFactory.getStore``)."""
    name = conf.get(keys.RM_STORE) or keys.DEFAULT_RM_STORE
    short = name.rsplit(".", 1)[-1]
    if short == "MemoryRMStateStore":
        return MemoryRMStateStore()
    if short == "FileSystemRMStateStore":
        uri = conf.get(keys.FS_RM_STATE_STORE_URI)
        if not uri:
            raise ConfigurationError(
                f"{conf.location_of(keys.RM_STORE)}: {keys.RM_STORE}={name} needs {keys.FS_RM_STATE_STORE_URI} "
                "(a local directory, or a file:// URI, for the state store)"
            )
        return FileSystemRMStateStore(uri[len("file://"):] if uri.startswith("file://") else uri)
    raise ConfigurationError(
        f"{conf.location_of(keys.RM_STORE)}: {keys.RM_STORE} must be {MEMORY_STORE} or {FILE_SYSTEM_STORE}, "
        f"got {name!r}"
    )
