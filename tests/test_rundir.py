"""An output directory holds one run: an earlier run's files are cleared, foreign files refused, _SUCCESS last."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from yarnball.errors import ConfigurationError
from yarnball.launcher import cli
from yarnball.launcher._rundir import MANIFEST, SIMULATE_FILES, SUCCESS, claim
from yarnball.launcher.sweep import sweep

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "traces"


def _simulate(shared_data: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    sls = shared_data / "sls"
    argv = ["simulate", "--tracelocation", str(sls / "inputsls.json"), "--nodes", str(sls / "nodes.json")]
    argv += ["--conf-dir", str(sls / "sample-conf"), "--output-dir", str(out), "--no-progress", *extra]
    return _run_cli(argv)


def _files(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}


def _manifest(out: Path) -> dict[str, Any]:
    return json.loads((out / MANIFEST).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_a_finished_run_lists_its_files_and_writes_success_last(shared_data: Path, tmp_path: Path) -> None:
    """The manifest of a finished run says complete and lists every other file; _SUCCESS is there and empty."""
    out = tmp_path / "out"
    assert _simulate(shared_data, out, "--no-plots")[0] == 0
    manifest = _manifest(out)
    assert manifest["status"] == "complete" and manifest["command"] == "simulate"
    assert set(manifest["files"]) == _files(out) - {MANIFEST, SUCCESS}
    assert (out / SUCCESS).read_bytes() == b""
    assert (out / SUCCESS).stat().st_mtime_ns >= max((out / f).stat().st_mtime_ns for f in manifest["files"])


def test_a_rerun_leaves_none_of_the_earlier_runs_files(shared_data: Path, tmp_path: Path) -> None:
    """A run with plots, then one with --no-plots into the same directory: the PNGs are gone."""
    out = tmp_path / "out"
    assert _simulate(shared_data, out)[0] == 0
    assert (out / "queue_usage.png").is_file()
    assert _simulate(shared_data, out, "--no-plots")[0] == 0
    assert not list(out.glob("*.png"))
    assert set(_manifest(out)["files"]) == _files(out) - {MANIFEST, SUCCESS}


def test_files_of_an_earlier_run_with_other_queues_are_removed(tmp_path: Path) -> None:
    """Every file the earlier run's manifest lists is removed, including metrics of queues the new run lacks."""
    out = tmp_path / "out"
    earlier = claim(out, "simulate", SIMULATE_FILES)
    (out / "metrics").mkdir()
    stale = out / "metrics" / "counter.queue.gone.allocated.memory.csv"
    stale.write_text("t,count\n", encoding="utf-8")
    earlier.complete()
    assert "metrics/counter.queue.gone.allocated.memory.csv" in _manifest(out)["files"]
    claim(out, "simulate", SIMULATE_FILES)
    assert not stale.exists() and not (out / "metrics").exists() and not (out / SUCCESS).exists()
    assert _manifest(out)["status"] == "running"


def test_a_directory_with_foreign_files_is_refused_and_left_alone(shared_data: Path, tmp_path: Path) -> None:
    """A non-empty directory no yarnball run wrote: exit 2, one error naming it and its first file; nothing changed."""
    out = tmp_path / "out"
    (out / "data").mkdir(parents=True)
    (out / "data" / "b.txt").write_text("mine", encoding="utf-8")
    (out / "a.txt").write_text("mine", encoding="utf-8")
    rc, _stdout, stderr = _simulate(shared_data, out, "--no-plots")
    assert rc == 2
    errors = [line for line in stderr.splitlines() if line.startswith("yarnball: error:")]
    assert len(errors) == 1 and f"{out}: --output-dir is not empty" in errors[0] and "a.txt" in errors[0]
    assert _files(out) == {"a.txt", "data/b.txt"}


def test_a_foreign_file_beside_an_earlier_run_is_refused(shared_data: Path, tmp_path: Path) -> None:
    """A file the user put next to an earlier run's outputs: refused, and the earlier outputs are kept."""
    out = tmp_path / "out"
    assert _simulate(shared_data, out, "--no-plots")[0] == 0
    before = _files(out)
    (out / "metrics" / "notes.txt").write_text("mine", encoding="utf-8")
    rc, _stdout, stderr = _simulate(shared_data, out, "--no-plots")
    assert rc == 2 and "metrics/notes.txt" in stderr
    assert _files(out) == before | {"metrics/notes.txt"}


def test_an_interrupted_run_is_recognisable_and_cleared_by_the_next(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run stopped before its outputs are written leaves a running manifest and no _SUCCESS; the next run
    clears it and finishes."""
    import yarnball.launcher._outputs as outputs

    def interrupted(*_args: Any, **_kwargs: Any) -> Any:
        raise KeyboardInterrupt

    out = tmp_path / "out"
    with monkeypatch.context() as m:
        m.setattr(outputs, "write_outputs", interrupted)
        assert _simulate(shared_data, out, "--no-plots")[0] == 130
    assert _manifest(out)["status"] == "running" and not (out / SUCCESS).exists()
    assert (out / "events.jsonl").is_file()
    assert _simulate(shared_data, out, "--no-plots")[0] == 0
    assert (out / SUCCESS).is_file()


def test_report_on_an_incomplete_run_says_so(shared_data: Path, tmp_path: Path) -> None:
    """`yarnball report` on a directory without _SUCCESS warns, and report.html says the run is incomplete."""
    out = tmp_path / "out"
    assert _simulate(shared_data, out, "--no-plots")[0] == 0
    (out / SUCCESS).unlink()
    rc, _stdout, stderr = _run_cli(["report", str(out)])
    assert rc == 0 and "the run is incomplete" in stderr
    assert 'id="incomplete"' in (out / "report.html").read_text(encoding="utf-8")


def test_report_on_an_incomplete_run_without_a_summary_is_an_error(tmp_path: Path) -> None:
    """An interrupted run that wrote no summary.json: exit 2 saying the run is incomplete."""
    out = tmp_path / "out"
    claim(out, "simulate", SIMULATE_FILES)
    rc, _stdout, stderr = _run_cli(["report", str(out)])
    assert rc == 2 and "the run is incomplete" in stderr and "wrote no summary.json" in stderr


def test_report_of_a_finished_run_is_listed_and_cleared_by_a_rerun(shared_data: Path, tmp_path: Path) -> None:
    """report.html joins the run's manifest (no warning), so a later run into the directory removes it."""
    out = tmp_path / "out"
    assert _simulate(shared_data, out, "--no-plots")[0] == 0
    rc, _stdout, stderr = _run_cli(["report", str(out)])
    assert rc == 0 and "the run is incomplete" not in stderr
    assert 'id="incomplete"' not in (out / "report.html").read_text(encoding="utf-8")
    assert "report.html" in _manifest(out)["files"]
    assert _simulate(shared_data, out, "--no-plots")[0] == 0
    assert not (out / "report.html").exists()


def test_a_file_as_output_dir_is_refused(tmp_path: Path) -> None:
    """An existing file given as the directory is a configuration error naming it."""
    path = tmp_path / "file"
    path.write_text("x", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="exists and is not a directory"):
        claim(path, "simulate", SIMULATE_FILES)


def _sweep_spec(plots: bool, seeds: list[int]) -> dict[str, Any]:
    trace = {"name": "sample", "location": str(EXAMPLES / "sample-sls.json")}
    trace["nodes"] = str(EXAMPLES / "sample-nodes.json")
    return {"seeds": seeds, "traces": [trace], "fixed": {"until-ms": 20_000, "no-plots": not plots}}


def test_a_sweep_rerun_leaves_no_scenario_of_the_earlier_sweep(tmp_path: Path) -> None:
    """A second sweep with other seeds into the same directory: only its own scenarios are there, and _SUCCESS."""
    out = tmp_path / "out"
    first = sweep(_sweep_spec(False, [1]), out, workers=0)
    second = sweep(_sweep_spec(False, [2]), out, workers=0)
    names = {p.name for p in (out / "scenarios").iterdir()}
    assert names == {r["scenario"] for r in second.rows} != {r["scenario"] for r in first.rows}
    assert (out / SUCCESS).is_file() and all((out / "scenarios" / n / SUCCESS).is_file() for n in names)


def test_a_sweep_refuses_a_foreign_file_in_a_scenario_directory(tmp_path: Path) -> None:
    """A file no run wrote inside an earlier sweep's scenario directory: the new sweep refuses and deletes nothing."""
    out = tmp_path / "out"
    first = sweep(_sweep_spec(False, [1]), out, workers=0)
    mine = out / "scenarios" / first.rows[0]["scenario"] / "mine.txt"
    mine.write_text("mine", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"mine\.txt"):
        sweep(_sweep_spec(False, [2]), out, workers=0)
    assert mine.is_file() and (out / "sweep.csv").is_file()


def _run_cli(argv: list[str]) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with redirect_stdout(stdout), redirect_stderr(stderr):
        rc = cli.main(argv)
    return rc, stdout.getvalue(), stderr.getvalue()
