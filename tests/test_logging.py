"""configure_logging: JSON lines stamped with simulated time and actor id."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
import structlog

from yarnball.actors import Actor, Kernel, configure_logging, handler
from yarnball.actors._logging import close_logging


class Note(msgspec.Struct, frozen=True):
    text: str


class Scribe(Actor):
    @handler
    def on_note(self, msg: Note) -> None:
        self.log.info("noted", text=msg.text)


def test_json_lines_carry_sim_time_and_actor(tmp_path: Path) -> None:
    """Every record written to the JSON file has the simulated time and the actor id."""
    path = tmp_path / "events.jsonl"
    configure_logging(json_path=path)
    kernel = Kernel()
    ref = kernel.spawn(Scribe(), "scribe")
    ref.tell(Note("a"), delay=1500)
    ref.tell(Note("b"), delay=2500)
    kernel.run()
    close_logging()
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["sim_ms"], r["actor"], r["text"]) for r in records] == [(1500, "scribe", "a"), (2500, "scribe", "b")]
    assert all("timestamp" not in r for r in records)


def test_level_filters_records(tmp_path: Path) -> None:
    """Records below the configured level are not written."""
    path = tmp_path / "events.jsonl"
    configure_logging(json_path=path, level="warning")
    log = structlog.get_logger("t")
    log.info("hidden")
    log.warning("shown")
    close_logging()
    assert [json.loads(x)["event"] for x in path.read_text().splitlines()] == ["shown"]


def test_unknown_level_is_rejected() -> None:
    """A misspelt level is an error naming the accepted ones."""
    with pytest.raises(ValueError, match="expected debug, info"):
        configure_logging(level="loud")


def test_importing_yarnball_does_not_configure_structlog() -> None:
    """Library style: importing yarnball leaves structlog's configuration alone."""
    import importlib

    import yarnball

    before = structlog.get_config()["processors"]
    importlib.reload(yarnball)
    assert structlog.get_config()["processors"] == before


def test_worker_logging_without_event_log_writes_only_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    """A shard host without an event log drops info lines (unconfigured structlog would print them) but keeps
    warnings on stderr."""
    from yarnball.actors._logging import configure_worker_logging

    configure_worker_logging(None, "info")
    try:
        kernel = Kernel()
        ref = kernel.spawn(Scribe(), "scribe")
        ref.tell(Note("quiet"))
        ref.tell(object())  # unhandled: logged as a warning
        kernel.run()
    finally:
        close_logging()
    out, err = capsys.readouterr()
    assert "noted" not in out + err
    assert "unhandled_message" in err


def test_worker_logging_with_event_log_writes_keyed_lines(tmp_path: Path) -> None:
    """With an event log a shard host writes its JSON lines at the asked level, each prefixed with its event key."""
    from yarnball.actors._logging import configure_worker_logging

    path = tmp_path / "part.jsonl"
    configure_worker_logging(path, "info")
    try:
        kernel = Kernel()
        kernel.spawn(Scribe(), "scribe").tell(Note("kept"), delay=10)
        kernel.run()
    finally:
        close_logging()
    lines = path.read_text().splitlines()
    assert len(lines) == 1 and '"text": "kept"' in lines[0] and not lines[0].startswith("{")
