"""One scenario of a sweep: run it in this process and turn its outputs into a results row.

The scenario runs as ``yarnball simulate`` runs it (:func:`yarnball.launcher.run_scenario` of the scenario's
:class:`~yarnball.launcher.ScenarioSpec`), so its output directory holds exactly what the standalone command (the
row's ``command``) writes. The sweep's own bookkeeping
stays out of that directory, under ``DIR/.sweep/``: ``NAME.attempts`` (one line per start, with the worker's pid: a
second line means the worker died and the scenario was retried) and ``NAME.json`` (the finished row, written
atomically last, so its presence marks a scenario as done).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import time
from pathlib import Path
from typing import Any

from yarnball.errors import YarnballError
from yarnball.launcher._console import error_text, os_error_text
from yarnball.launcher._jobtimes import distribution
from yarnball.launcher._rundir import SUCCESS
from yarnball.launcher._simulate import run_scenario
from yarnball.launcher.sweep._spec import Scenario

__all__ = ["METRICS", "SCENARIO_DIR", "STATE_DIR", "is_complete", "read_row", "run_row"]

SCENARIO_DIR = "scenarios"
STATE_DIR = ".sweep"

# The results columns, with the direction that is better (None: neither, just reported).
METRICS: tuple[tuple[str, str | None], ...] = (
    ("jct_mean_s", "min"),
    ("jct_median_s", "min"),
    ("jct_p95_s", "min"),
    ("makespan_s", "min"),
    ("memory_utilization", "max"),
    ("vcores_utilization", "max"),
    ("containers_allocated", None),
    ("containers_preempted", "min"),
    ("containers_killed", "min"),
    ("opportunistic_allocated", None),
    ("node_hours", "min"),
    ("wall_seconds", "min"),
)


def run_row(scenario: Scenario, output_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """Run one scenario into ``output_dir/scenarios/NAME`` and return (and record) its results row.

    A user error (missing trace, bad configuration value) or an exception inside the simulation fails this row
    with its one-line message; it is not raised, so the other scenarios go on and a deterministic failure is not
    retried. Only the death of the worker process is retried (by Ray Tune).
    """
    root = Path(output_dir)
    out = root / SCENARIO_DIR / scenario.name
    state = root / STATE_DIR
    state.mkdir(parents=True, exist_ok=True)
    with (state / f"{scenario.name}.attempts").open("a", encoding="utf-8") as f:
        f.write(f"{os.getpid()}\n")
    attempts = len((state / f"{scenario.name}.attempts").read_text(encoding="utf-8").splitlines())
    (state / f"{scenario.name}.json").unlink(missing_ok=True)
    # A killed attempt's partial files, or an earlier run's, are cleared by `yarnball simulate` itself: the
    # directory holds one run only, and a file no run wrote makes the scenario fail (launcher/_rundir.py).
    start = time.perf_counter()
    status, error = "ok", ""
    try:
        # What the command prints (notes, warnings, the summary) is not the sweep's: the row holds the outcome.
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            result = run_scenario(scenario.spec(out))
        if result.reason is not None:
            status, error = "error", result.reason
    except YarnballError as exc:  # a user error (the command's exit status 2)
        status, error = "error", error_text(exc)
    except OSError as exc:  # e.g. the output directory cannot be written (as the command says it)
        status, error = "error", os_error_text(exc)
    except Exception as exc:  # a bug in the simulation: this scenario's row says so, the sweep goes on
        status, error = "error", f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    wall = time.perf_counter() - start
    row: dict[str, Any] = {
        "scenario": scenario.name,
        **dict(scenario.params),
        "status": status if status == "error" or attempts == 1 else "retried",
        "error": error,
        "attempts": attempts,
    }
    metrics: dict[str, Any] = {m: None for m, _d in METRICS}
    jct: list[float] = []
    if status == "ok":
        metrics, jct = _results(out)
    metrics["wall_seconds"] = round(wall, 3)
    row.update(metrics)
    row["command"] = scenario.command(out)
    record = {**row, "jct_seconds": jct}
    tmp = state / f"{scenario.name}.json.tmp"
    tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    tmp.replace(state / f"{scenario.name}.json")
    return record


def read_row(output_dir: str | os.PathLike[str], name: str) -> dict[str, Any] | None:
    """The recorded row of a finished scenario (by name), or None."""
    path = Path(output_dir) / STATE_DIR / f"{name}.json"
    try:
        row: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return row


def is_complete(output_dir: str | os.PathLike[str], name: str) -> bool:
    """True when the scenario finished without error, its directory has ``_SUCCESS`` and every output its summary
    lists is there (``--resume``)."""
    row = read_row(output_dir, name)
    if row is None or row.get("status") == "error":
        return False
    out = Path(output_dir) / SCENARIO_DIR / name
    if not (out / SUCCESS).is_file():  # the run did not finish writing (launcher/_rundir.py)
        return False
    try:
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return all((out / name).is_file() for name in summary.get("outputs", ()))


def _results(out: Path) -> tuple[dict[str, Any], list[float]]:
    """Key results from the scenario's ``summary.json`` and ``metrics/applications.csv``."""
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    jct: list[float] = []
    submits: list[float] = []
    finishes: list[float] = []
    with (out / "metrics" / "applications.csv").open(newline="", encoding="utf-8") as f:
        for app in csv.DictReader(f):
            if app["submit_time"] not in ("", "-1"):
                submits.append(float(app["submit_time"]))
            if app["state"] == "FINISHED" and app["finish_time"] not in ("", "-1"):
                finishes.append(float(app["finish_time"]))
                jct.append((float(app["finish_time"]) - float(app["submit_time"])) / 1000.0)
    containers, util = summary["containers"], summary["utilization"]
    times = distribution(jct)  # the summary's own computation (launcher/_jobtimes.py)
    metrics = {
        "jct_mean_s": times["mean"],
        "jct_median_s": times["median"],
        "jct_p95_s": times["p95"],
        "makespan_s": _r((max(finishes) - min(submits)) / 1000.0) if finishes and submits else None,
        "memory_utilization": util["memory_mean"],
        "vcores_utilization": util["vcores_mean"],
        "containers_allocated": containers["allocated"],
        "containers_preempted": containers["preempted"],
        "containers_killed": containers["killed"],
        "opportunistic_allocated": containers.get("opportunistic_allocated", 0),
        "node_hours": summary["node_hours"],
    }
    return metrics, [_r(x) for x in jct]


def _r(value: float) -> float:
    return round(value, 6)
