"""configure_logging: JSON lines stamped with simulated time and actor id."""

from __future__ import annotations

import json
import re
import subprocess
import sys
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


# -- library logging: silent until configured, simulated time on every printed line -----------------------------
ROOT = Path(__file__).resolve().parents[1]
EMBEDDING = ROOT / "examples" / "embedding.py"


def _run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)


def test_embedding_a_cluster_prints_only_the_programs_own_output() -> None:
    """examples/embedding.py, which configures no logging, prints its one result line and nothing else."""
    result = subprocess.run([sys.executable, str(EMBEDDING)], capture_output=True, text=True, check=True)
    assert len(result.stdout.splitlines()) == 1, result.stdout
    assert result.stdout.startswith("SUCCEEDED")
    assert result.stderr == ""


def test_warnings_of_an_unconfigured_program_go_nowhere() -> None:
    """Without any logging configuration even yarnball's warnings stay silent (the NullHandler convention)."""
    code = (
        "from yarnball.actors import Actor, Kernel\n"
        "kernel = Kernel()\n"
        "kernel.spawn(Actor(), 'a').tell(object())  # unhandled: a warning\n"
        "kernel.run()\n"
    )
    result = _run_python(code)
    assert (result.stdout, result.stderr) == ("", "")


def _embedding_log(configure: str) -> list[str]:
    code = configure + f"\nimport runpy\nrunpy.run_path({str(EMBEDDING)!r})\n"
    result = _run_python(code)
    lines = (result.stdout + result.stderr).splitlines()
    return [line for line in lines if not line.startswith("SUCCEEDED")]


def test_configure_logging_stamps_every_line_with_simulated_time() -> None:
    """After yarnball.configure_logging(stream=...), every line the embedding example logs has ``sim_ms=``, and
    the times are the kernel's (the application is submitted at 1000 ms), not the wall clock."""
    lines = _embedding_log("import sys, yarnball\nyarnball.configure_logging(stream=sys.stdout)")
    assert len(lines) > 5
    assert all(re.search(r"\bsim_ms=\d+", line) for line in lines), lines
    assert any("application_submitted" in line and "sim_ms=1000" in line for line in lines)
    assert not any(re.match(r"\d{4}-\d\d-\d\d", line) for line in lines)  # no wall-clock stamp


def test_the_programs_stdlib_logging_shows_yarnball_lines_with_simulated_time() -> None:
    """A program that configures only the standard library (logging.basicConfig) gets yarnball's records through
    it, each rendered with its simulated time."""
    lines = _embedding_log("import logging, sys\nlogging.basicConfig(level=logging.INFO, stream=sys.stdout)")
    assert any(line.startswith("INFO:yarnball.actors._resourcemanager:node_added") for line in lines), lines
    assert all(re.search(r"\bsim_ms=\d+", line) for line in lines), lines


def test_the_programs_structlog_chain_gets_simulated_time() -> None:
    """A program's own structlog configuration receives yarnball's records with ``sim_ms`` added."""
    configure = (
        "import structlog\n"
        "structlog.configure(processors=[structlog.processors.KeyValueRenderer(key_order=['event'])])\n"
    )
    lines = _embedding_log(configure)
    assert any(line.startswith("event='application_submitted'") and "sim_ms=1000" in line for line in lines)
    assert all("sim_ms=" in line for line in lines), lines


def test_capture_logs_records_carry_simulated_time() -> None:
    """structlog.testing.capture_logs (yarnball.testing.captured_events) sees sim_ms on records logged in a run."""
    from yarnball.testing import captured_events

    kernel = Kernel()
    ref = kernel.spawn(Scribe(), "scribe")
    ref.tell(Note("a"), delay=1500)
    with captured_events() as events:
        kernel.run()
    assert [(e["event"], e["sim_ms"], e["actor"]) for e in events] == [("noted", 1500, "scribe")]


def test_a_module_logger_is_bound_once_per_configuration(tmp_path: Path) -> None:
    """A module logger (yarnball._logs.get_logger) serves one bound logger while the configuration stands, instead
    of binding one per call (~3 us for a record the level drops), and a new configuration or capture_logs takes
    effect at the next call."""
    from yarnball._logs import get_logger

    log = get_logger("yarnball.test_logging")
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    configure_logging(json_path=first, level="warning")
    assert log.bind() is log.bind()
    log.warning("one")
    log.info("dropped")
    configure_logging(json_path=second, level="info")
    log.info("two")
    with structlog.testing.capture_logs() as captured:
        log.info("three")
    log.info("four")
    close_logging()
    events = [[json.loads(x)["event"] for x in p.read_text().splitlines()] for p in (first, second)]
    assert events == [["one"], ["two", "four"]]
    assert [e["event"] for e in captured] == ["three"]
