"""run_scenario(spec) -> RunResult: one yarnball simulate run as a function, called by the CLI and by sweeps."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from yarnball.errors import ConfigurationError
from yarnball.launcher import RunResult, ScenarioSpec, cli, run_scenario
from yarnball.launcher.sweep import sweep

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TRACE = str(EXAMPLES / "traces" / "sample-sls.json")
NODES = str(EXAMPLES / "traces" / "sample-nodes.json")


def quiet(spec: ScenarioSpec) -> RunResult:
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        return run_scenario(spec)


def test_argv_is_the_command_that_runs_the_same_spec(tmp_path: Path) -> None:
    """The CLI parses a spec's argv() back into the same spec: the command and the function are one scenario."""
    spec = ScenarioSpec(
        trace=TRACE,
        output_dir=str(tmp_path / "out"),
        trace_type="RUMEN",
        nodes=NODES,
        conf_dir=str(tmp_path),
        conf=(("yarn.scheduler.capacity.node-locality-delay", "5"), ("a.b", "x=y")),
        seed=7,
        until_ms=9_000,
        latency_ms=2.5,
        log_level="debug",
        track_jobs="job_1,job_2",
        plots=False,
        faults=str(tmp_path / "faults.json"),
        refreshes=("1000:" + str(tmp_path),),
        backend="ray",
        address="127.0.0.1:6379",
        hosts=3,
        pace=4.0,
        webapp="8089",
        webapp_exit=True,
        report=True,
        strict=True,
        print_simulation=True,
        progress=False,
    )
    args = cli.build_parser().parse_args(spec.argv())
    assert cli.scenario_spec(args) == spec
    assert cli.scenario_spec(cli.build_parser().parse_args(ScenarioSpec(TRACE, "o").argv())) == ScenarioSpec(TRACE, "o")


def test_values_that_start_with_a_dash_survive_the_command_line() -> None:
    """A value argparse would take for an option (``--track-jobs -x``) is written ``--track-jobs=-x``."""
    spec = ScenarioSpec("-trace.json", "-out", track_jobs="-x", conf=(("-k", "v"),), faults="-f.json")
    assert cli.scenario_spec(cli.build_parser().parse_args(spec.argv())) == spec


def test_a_run_returns_its_summary_status_and_directory(tmp_path: Path) -> None:
    """A good run: exit status 0, no reason, the summary as written to summary.json, the output directory."""
    result = quiet(ScenarioSpec(TRACE, tmp_path / "out", nodes=NODES, plots=False, progress=False))
    assert (result.status, result.reason, result.ok) == (0, None, True)
    assert result.output_dir == tmp_path / "out" and (result.output_dir / "_SUCCESS").is_file()
    assert result.summary["applications"]["finished"] == result.summary["applications"]["submitted"] > 0


def test_a_run_that_went_wrong_has_status_3_and_its_reason(tmp_path: Path) -> None:
    """Every application rejected: status 3 and the one-line reason the CLI prints, every output written first."""
    conf = (("yarn.scheduler.capacity.root.queues", "only"), ("yarn.scheduler.capacity.root.only.capacity", "100"))
    result = quiet(ScenarioSpec(TRACE, tmp_path / "out", nodes=NODES, conf=conf, plots=False, progress=False))
    assert result.status == 3
    assert result.reason is not None and result.reason.startswith("every application (")
    assert (result.output_dir / "summary.json").is_file()


def test_a_user_error_raises_naming_the_option(tmp_path: Path) -> None:
    """A bad value raises ConfigurationError naming the option (the CLI's exit 2), before anything is written."""
    with pytest.raises(ConfigurationError, match="--tracetype: expected one of SLS, RUMEN, SYNTH, got 'XML'"):
        run_scenario(ScenarioSpec(TRACE, tmp_path / "out", trace_type="XML"))
    with pytest.raises(ConfigurationError, match="--clock wall"):
        run_scenario(ScenarioSpec(TRACE, tmp_path / "out", clock="wall"))
    assert not (tmp_path / "out").exists()


def test_sweeps_run_scenarios_without_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep runs each scenario through run_scenario, not through the command line parser."""

    def no_cli(argv: object = None) -> int:
        raise AssertionError("the sweep called cli.main")

    monkeypatch.setattr(cli, "main", no_cli)
    spec = {"seeds": [1], "traces": [{"name": "s", "location": TRACE, "nodes": NODES}], "fixed": {"no-plots": True}}
    result = sweep(spec, tmp_path / "sweep", workers=0)
    assert [row["status"] for row in result.rows] == ["ok"]
    assert result.rows[0]["command"].startswith("yarnball simulate --tracetype SLS --tracelocation ")
