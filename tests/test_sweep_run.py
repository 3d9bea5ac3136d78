"""Sweeps without Ray: rows, failures, resume, aggregates, progress, the missing-Ray error and simulate --conf."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import statistics
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher import cli
from yarnball.launcher._about import RAY_INSTALL
from yarnball.launcher._jobtimes import percentile
from yarnball.launcher.sweep import main, sweep
from yarnball.launcher.sweep._runner import SweepProgress
from yarnball.launcher.sweep._table import aggregate, mean_ci95, t_critical_95

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TRACE = EXAMPLES / "traces" / "sample-sls.json"
NODES = EXAMPLES / "traces" / "sample-nodes.json"
DELAY = "yarn.scheduler.capacity.node-locality-delay"


def small_spec(tmp_path: Path) -> dict[str, Any]:
    """Two locality delays x (the bundled trace, a missing trace) x one seed, cut at 40 simulated seconds."""
    return {
        "seeds": [1],
        "traces": [
            {"name": "sample", "location": str(TRACE), "nodes": str(NODES)},
            {"name": "missing", "location": str(tmp_path / "no-such-trace.json"), "nodes": str(NODES)},
        ],
        "fixed": {"until-ms": 40_000, "no-plots": True},
        "axes": {DELAY: [0, 40]},
    }


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


def test_failed_scenario_is_a_row_and_the_rest_go_on(tmp_path: Path) -> None:
    """A missing trace fails its own rows with the one-line error; the other scenarios run and report results."""
    result = sweep(small_spec(tmp_path), tmp_path / "out", workers=0)
    by_trace: dict[str, list[dict[str, Any]]] = {}
    for row in result.rows:
        by_trace.setdefault(row["trace"], []).append(row)
    assert [r["status"] for r in by_trace["sample"]] == ["ok", "ok"]
    assert all(r["jct_mean_s"] is not None and r["containers_allocated"] > 0 for r in by_trace["sample"])
    for row in by_trace["missing"]:
        assert row["status"] == "error"
        assert "no-such-trace.json" in row["error"] and "\n" not in row["error"]
        assert row["jct_mean_s"] is None
    assert len(result.failed) == 2


def test_tables_and_report_are_written(tmp_path: Path) -> None:
    """sweep.csv and sweep.json hold one row per scenario; report.md names the failures."""
    out = tmp_path / "out"
    result = sweep(small_spec(tmp_path), out, workers=0)
    with (out / "sweep.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["scenario"] for r in rows] == [r["scenario"] for r in result.rows]
    assert {"trace", DELAY, "seed", "status", "error", "jct_p95_s", "node_hours", "wall_seconds"} <= set(rows[0])
    document = json.loads((out / "sweep.json").read_text())
    assert [r["status"] for r in document["scenarios"]] == [r["status"] for r in rows]
    assert len(document["aggregates"]) == 4
    report = (out / "report.md").read_text()
    assert "## Failed scenarios" in report
    assert "trace-missing__" in report
    assert (out / "plots" / "jct_by_combination.png").is_file()


def test_cli_exit_status_is_1_when_a_scenario_failed(tmp_path: Path) -> None:
    """`yarnball sweep` exits non-zero when any scenario failed, after writing every row."""
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'[[traces]]\nname = "missing"\nlocation = "{tmp_path / "nope.json"}"\n[fixed]\nno-plots = true\n',
        encoding="utf-8",
    )
    rc, stdout, stderr = run_cli(["sweep", str(spec), "--output-dir", str(tmp_path / "o"), "--workers", "0"])
    assert rc == 1
    assert "1 failed" in stdout
    assert "nope.json" in stderr
    assert (tmp_path / "o" / "sweep.csv").is_file()


def test_resume_skips_complete_scenarios_and_reruns_incomplete_ones(tmp_path: Path) -> None:
    """--resume reruns the failed scenarios and those with a missing output, and leaves complete ones alone."""
    spec, out = small_spec(tmp_path), tmp_path / "out"
    first = sweep(spec, out, workers=0)
    ok = [r for r in first.rows if r["status"] == "ok"]
    kept, damaged = ok
    (out / "scenarios" / damaged["scenario"] / "jobruntime.csv").unlink()
    before = (out / "scenarios" / kept["scenario"] / "summary.json").stat().st_mtime_ns
    second = sweep(spec, out, workers=0, resume=True)
    assert (out / "scenarios" / kept["scenario"] / "summary.json").stat().st_mtime_ns == before
    assert (out / "scenarios" / damaged["scenario"] / "jobruntime.csv").is_file()
    assert second.row(kept["scenario"]) == first.row(kept["scenario"])
    assert [r["status"] for r in second.rows] == [r["status"] for r in first.rows]
    assert all(r["attempts"] == 1 for r in second.rows)  # a rerun in a new sweep is not a retry


def test_without_ray_the_sweep_exits_2_with_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With Ray Tune not importable, `yarnball sweep` names the exact install command and exits 2."""
    monkeypatch.setitem(sys.modules, "ray.tune", None)
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[[traces]]\nlocation = "{TRACE}"\n', encoding="utf-8")
    rc, _out, stderr = run_cli(["sweep", str(spec), "--output-dir", str(tmp_path / "o")])
    assert rc == 2
    assert f"`{RAY_INSTALL}`" in stderr
    assert not (tmp_path / "o").exists()


def test_simulate_conf_overrides_the_configuration(tmp_path: Path) -> None:
    """`yarnball simulate --conf KEY=VALUE` sets the key over the defaults (here the metrics interval)."""
    base = ["simulate", "--tracelocation", str(TRACE), "--nodes", str(NODES), "--until-ms", "20000", "--no-plots"]
    rc, _o, _e = run_cli([*base, "--output-dir", str(tmp_path / "a"), "--no-progress"])
    assert rc == 0
    conf = ["--conf", "yarn.sls.metrics.record.interval.ms=5000"]
    rc, _o, _e = run_cli([*base, *conf, "--output-dir", str(tmp_path / "b"), "--no-progress"])
    assert rc == 0

    def times(run: str) -> list[int]:
        with (tmp_path / run / "metrics" / "cluster.csv").open(newline="") as f:
            return [int(r["time"]) for r in csv.DictReader(f)]

    assert times("a")[:3] == [0, 1000, 2000]
    assert times("b")[:3] == [0, 5000, 10000]


def test_simulate_conf_errors_exit_2(tmp_path: Path) -> None:
    """A --conf without '=' and a --conf value the scheduler refuses both exit 2 with the key named."""
    base = ["simulate", "--tracelocation", str(TRACE), "--output-dir", str(tmp_path / "o"), "--no-progress"]
    rc, _o, stderr = run_cli([*base, "--conf", "yarn.sls.metrics.record.interval.ms"])
    assert rc == 2 and "expected KEY=VALUE" in stderr
    key = "yarn.scheduler.capacity.root.default.maximum-capacity"
    even = str(EXAMPLES / "sweeps" / "even")  # root.default at capacity 50
    rc, _o, stderr = run_cli([*base, "--conf-dir", even, "--conf", f"{key}=40"])
    assert rc == 2 and key in stderr


def test_mean_and_confidence_interval_follow_students_t() -> None:
    """The CI half-width is t(0.975, n-1) * s / sqrt(n); one value has no interval."""
    values = [10.0, 12.0, 17.0, 9.0]
    mean, half = mean_ci95(values)
    assert mean == pytest.approx(12.0)
    assert half == pytest.approx(3.182 * statistics.stdev(values) / math.sqrt(4), abs=1e-6)
    assert mean_ci95([5.0]) == (5.0, None)
    assert mean_ci95([]) == (None, None)


def test_t_quantiles_decrease_towards_the_normal_one() -> None:
    """t(0.975, df) falls with the degrees of freedom and ends at the normal 1.96."""
    values = [t_critical_95(df) for df in range(1, 2000)]
    assert all(a >= b for a, b in itertools.pairwise(values))
    assert values[0] == pytest.approx(12.706) and values[-1] == pytest.approx(1.96)


def test_aggregates_group_seeds_and_leave_failures_out() -> None:
    """Rows that differ by seed form one combination; failed rows count in `failed`, not in the means."""
    rows = [
        {"trace": "t", "p": "a", "seed": "1", "status": "ok", "jct_mean_s": 10.0},
        {"trace": "t", "p": "a", "seed": "2", "status": "retried", "jct_mean_s": 14.0},
        {"trace": "t", "p": "a", "seed": "3", "status": "error", "jct_mean_s": None},
        {"trace": "t", "p": "b", "seed": "1", "status": "ok", "jct_mean_s": 30.0},
    ]
    agg = aggregate(rows, ("trace", "p", "seed"))
    assert [(a["p"], a["n"], a["failed"]) for a in agg] == [("a", 2, 1), ("b", 1, 0)]
    assert agg[0]["jct_mean_s_mean"] == pytest.approx(12.0)
    assert agg[0]["jct_mean_s_ci95"] == pytest.approx(mean_ci95([10.0, 14.0])[1])
    assert agg[1]["jct_mean_s_ci95"] is None


def test_percentile_matches_linear_interpolation() -> None:
    """p95 agrees with statistics.quantiles' inclusive method (numpy's linear default)."""
    data = [float(x * x % 17) for x in range(1, 40)]
    assert percentile(data, 95) == pytest.approx(statistics.quantiles(data, n=20, method="inclusive")[18])
    assert percentile([3.0], 95) == 3.0


def test_progress_line_counts_failures_and_estimates_the_rest() -> None:
    """The progress line shows done/total, the failures so far and an ETA once a scenario has finished."""
    stream = io.StringIO()
    bar = SweepProgress(4, 1, stream)
    assert "1/4 scenarios" in bar.text() and "ETA ?" in bar.text()
    bar.scenario_done(failed=True)
    text = bar.text()
    assert "2/4 scenarios" in text and "1 failed" in text and "ETA ?" not in text
    assert "--resume: 1 of 4 scenarios are complete" in stream.getvalue()


def test_main_rejects_negative_workers(tmp_path: Path) -> None:
    """--workers -1 is a user error (exit 2)."""
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[[traces]]\nlocation = "{TRACE}"\n', encoding="utf-8")
    err = io.StringIO()
    with redirect_stderr(err):
        rc = main([str(spec), "--output-dir", str(tmp_path / "o"), "--workers", "-1"])
    assert rc == 2 and "--workers" in err.getvalue()


def test_report_names_best_and_worst_or_says_they_are_equal(tmp_path: Path) -> None:
    """report.md puts the lower-is-better winner first, and says so when every combination ties."""
    from yarnball.launcher.sweep._report import write_report

    rows = [
        {"trace": "t", "p": p, "seed": "1", "status": "ok", "jct_mean_s": j, "containers_preempted": 0}
        for p, j in (("a", 30.0), ("b", 10.0), ("c", 20.0))
    ]
    agg = aggregate(rows, ("trace", "p", "seed"))
    text = write_report(tmp_path, "spec.toml", rows, agg, ("trace", "p", "seed"), []).read_text()
    (jct,) = [line for line in text.splitlines() if line.startswith("| jct_mean_s |")]
    assert jct.index("p=b") < jct.index("p=a")
    (preempted,) = [line for line in text.splitlines() if line.startswith("| containers_preempted |")]
    assert "all 3 combinations equal" in preempted
