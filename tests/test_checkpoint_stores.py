"""Checkpoint stores: in memory and on the file system, with bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from yarnball.actors import Checkpoint, CheckpointStore, FileSystemCheckpointStore, InMemoryCheckpointStore
from yarnball.errors import CheckpointError


@pytest.fixture(params=["memory", "fs"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> CheckpointStore:
    return InMemoryCheckpointStore() if request.param == "memory" else FileSystemCheckpointStore(tmp_path / "ckpt")


def test_stores_satisfy_the_protocol(store: CheckpointStore) -> None:
    """Both stores are CheckpointStores."""
    assert isinstance(store, CheckpointStore)


def test_save_then_load_round_trips(store: CheckpointStore) -> None:
    """A saved checkpoint loads back equal, state included."""
    cp = Checkpoint(task_id="t_m_000001", work_done_ms=1234, saved_at_ms=5.5, attempt=2, state={"offset": "77"})
    store.save(cp)
    assert store.load("t_m_000001") == cp


def test_save_replaces_the_previous_checkpoint(store: CheckpointStore) -> None:
    """Only the latest checkpoint of a task is kept."""
    store.save(Checkpoint(task_id="t", work_done_ms=1))
    store.save(Checkpoint(task_id="t", work_done_ms=9))
    assert store.load("t").work_done_ms == 9


def test_missing_checkpoint_is_none(store: CheckpointStore) -> None:
    """A task never saved has no checkpoint."""
    assert store.load("never") is None


def test_delete_forgets_and_tolerates_missing(store: CheckpointStore) -> None:
    """delete removes a checkpoint; deleting a missing one is not an error."""
    store.save(Checkpoint(task_id="t", work_done_ms=1))
    store.delete("t")
    store.delete("t")
    assert store.load("t") is None


@pytest.mark.parametrize("bad", ["", "../escape", "a/b", "x" * 201, ".."])
def test_bad_task_ids_are_refused(store: CheckpointStore, bad: str) -> None:
    """Task ids that are empty, too long or could escape the directory raise CheckpointError."""
    with pytest.raises(CheckpointError, match="task id"):
        store.save(Checkpoint(task_id=bad, work_done_ms=1))


def test_file_store_writes_one_json_file_per_task(tmp_path: Path) -> None:
    """The file system store keeps <task>.json files and leaves no temporary file behind."""
    fs = FileSystemCheckpointStore(tmp_path)
    fs.save(Checkpoint(task_id="t1", work_done_ms=10))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t1.json"]


def test_file_store_survives_a_new_store_object(tmp_path: Path) -> None:
    """A checkpoint written by one store is read by another on the same directory (an AM restart)."""
    FileSystemCheckpointStore(tmp_path).save(Checkpoint(task_id="t1", work_done_ms=10))
    assert FileSystemCheckpointStore(tmp_path).load("t1").work_done_ms == 10


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b'{"task_id": "t1"}',
        b'{"task_id": "t1", "work_done_ms": -5}',
        b'{"task_id": 3, "work_done_ms": 1}',
    ],
)
def test_corrupt_checkpoint_file_raises_naming_the_file(tmp_path: Path, content: bytes) -> None:
    """Unparseable or invalid JSON raises CheckpointError with the file name."""
    (tmp_path / "t1.json").write_bytes(content)
    with pytest.raises(CheckpointError, match=r"t1\.json: corrupt checkpoint"):
        FileSystemCheckpointStore(tmp_path).load("t1")


def test_checkpoint_of_another_task_is_refused(tmp_path: Path) -> None:
    """A file whose task id does not match its name is refused."""
    (tmp_path / "t1.json").write_bytes(b'{"task_id": "t2", "work_done_ms": 1}')
    with pytest.raises(CheckpointError, match="belongs to task 't2'"):
        FileSystemCheckpointStore(tmp_path).load("t1")


def test_directory_that_is_a_file_is_refused(tmp_path: Path) -> None:
    """A store cannot be created on a path that is a regular file."""
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(CheckpointError, match="file"):
        FileSystemCheckpointStore(target)
