"""Sweeps on Ray Tune: the rows, a scenario byte-identical to its standalone run, failures, a killed worker."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher import cli
from yarnball.launcher._slsmetrics import WALL_CLOCK_PREFIX
from yarnball.launcher.sweep import SweepResult, sweep
from yarnball.launcher.sweep._scenario import STATE_DIR, is_complete
from yarnball.launcher.sweep._spec import parse_spec

pytestmark = pytest.mark.ray

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TRACE = EXAMPLES / "sweeps" / "two-queue-sls.json"  # two queues: the layouts give different results
NODES = EXAMPLES / "sweeps" / "two-queue-nodes.json"
WALL_CLOCK_FILES = {"metrics/scheduler_timecost.csv"}  # wall-clock cost per scheduler call
WALL_CLOCK_SUMMARY_FIELDS = ("wall_seconds", "speedup")


def layouts() -> list[dict[str, Any]]:
    return [
        {"label": "even", "conf-dir": str(EXAMPLES / "sweeps" / "even")},
        {"label": "skewed", "conf-dir": str(EXAMPLES / "sweeps" / "skewed")},
    ]


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def without_wall_clock(name: str, data: bytes) -> Any:
    if name == "summary.json":
        summary = json.loads(data)
        for field in WALL_CLOCK_SUMMARY_FIELDS:
            summary.pop(field)
        return summary
    if name in WALL_CLOCK_FILES:  # same rows (time, op, count); only the seconds differ
        return [line.rsplit(",", 1)[0] for line in data.decode().splitlines()]
    if name.startswith(f"metrics/{WALL_CLOCK_PREFIX}"):  # SLS's timecost samplers: same (t, count), measured times
        return [line.split(",")[:2] for line in data.decode().splitlines()]
    return data


@pytest.fixture(name="small_sweep", scope="module")
def fixture_small_sweep(ray_cluster: str, tmp_path_factory: pytest.TempPathFactory) -> SweepResult:
    """Two queue layouts x (the bundled trace, a missing trace) x one seed, on the shared Ray cluster."""
    spec = {
        "seeds": [2],
        "traces": [
            {"name": "sample", "location": str(TRACE), "nodes": str(NODES)},
            {"name": "missing", "location": str(tmp_path_factory.mktemp("none") / "gone.json")},
        ],
        "fixed": {"until-ms": 600_000},
        "axes": {"layout": layouts()},
    }
    return sweep(spec, tmp_path_factory.mktemp("sweep"), address=ray_cluster, workers=2)


def test_rows_one_per_scenario_with_results(small_sweep: SweepResult) -> None:
    """Every scenario has a row; the runnable ones are ok with results, and the layouts give different ones."""
    assert len(small_sweep.rows) == 4
    ok = [r for r in small_sweep.rows if r["trace"] == "sample"]
    assert [r["status"] for r in ok] == ["ok", "ok"]
    assert all(r["containers_allocated"] > 0 and r["jct_p95_s"] >= r["jct_median_s"] for r in ok)
    assert ok[0]["jct_mean_s"] != ok[1]["jct_mean_s"]  # the two layouts share the cluster differently
    assert (small_sweep.output_dir / "sweep.csv").is_file()
    assert (small_sweep.output_dir / "report.md").is_file()


def test_failing_scenario_is_reported_without_stopping_the_rest(small_sweep: SweepResult) -> None:
    """The missing trace fails its own rows with the one-line error; the others finished."""
    failed = small_sweep.failed
    assert [r["trace"] for r in failed] == ["missing", "missing"]
    assert all("gone.json" in r["error"] and "\n" not in r["error"] for r in failed)
    assert all(is_complete(small_sweep.output_dir, r["scenario"]) for r in small_sweep.rows if r["trace"] == "sample")


def test_scenario_outputs_equal_the_standalone_simulate(small_sweep: SweepResult, tmp_path: Path) -> None:
    """Running the row's command standalone gives the same files, byte for byte except the wall-clock fields."""
    row = next(r for r in small_sweep.rows if r["trace"] == "sample" and r["layout"] == "skewed")
    argv = shlex.split(row["command"])[1:]
    argv[argv.index("--output-dir") + 1] = str(tmp_path / "standalone")
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert cli.main(argv) == 0
    swept = tree(small_sweep.output_dir / "scenarios" / row["scenario"])
    standalone = tree(tmp_path / "standalone")
    assert sorted(swept) == sorted(standalone)
    assert {"events.jsonl", "jobruntime.csv", "realtimetrack.json", "summary.json"} <= set(swept)
    for name in swept:
        assert without_wall_clock(name, swept[name]) == without_wall_clock(name, standalone[name]), name


def test_killed_worker_is_retried_and_the_sweep_completes(ray_cluster: str, tmp_path: Path) -> None:
    """SIGKILL of the worker running a scenario: Tune retries it, the row says retried, the outputs are complete."""
    spec = {"seeds": [1], "traces": [{"name": "sample", "location": str(TRACE), "nodes": str(NODES)}]}
    (scenario,) = parse_spec(spec).scenarios
    out = tmp_path / "sweep"
    attempts = out / STATE_DIR / f"{scenario.name}.attempts"
    results: list[SweepResult] = []
    runner = threading.Thread(target=lambda: results.append(sweep(spec, out, address=ray_cluster, workers=1)))
    runner.start()
    deadline = time.monotonic() + 300
    while not attempts.is_file() or not attempts.read_text().strip():  # the first attempt has started
        assert time.monotonic() < deadline and runner.is_alive(), "the scenario never started"
        time.sleep(0.01)
    pid = int(attempts.read_text().split()[0])
    assert pid != os.getpid()
    os.kill(pid, signal.SIGKILL)
    runner.join(timeout=300)
    assert results, "the sweep did not complete"
    (row,) = results[0].rows
    assert row["status"] == "retried", row
    assert row["attempts"] == 2
    assert is_complete(out, scenario.name)
    assert len(attempts.read_text().split()) == 2 and attempts.read_text().split()[1] != str(pid)
