"""Scenario sweeps: many independent embedded simulations, one per Ray worker, gathered into one results table.

``yarnball sweep SPEC --output-dir DIR [--address ADDR] [--workers N] [--resume]`` and :func:`sweep`. The spec
format is in :mod:`yarnball.launcher.sweep._spec` and the documentation's "Sweeps" section. ``DIR`` receives:

- ``scenarios/NAME/``: what ``yarnball simulate`` writes for that scenario's arguments (the command is in the row);
- ``sweep.csv`` and ``sweep.json``: one row per scenario (parameters, status, error, key results, command);
- ``aggregates.csv`` (and in ``sweep.json``): mean and 95% confidence interval over the seeds per combination;
- ``plots/*.png`` and ``report.md``: comparison box plots and the best and worst combination per metric;
- ``.sweep/``: bookkeeping (per-scenario records and attempts, Ray Tune's experiment directory);
- ``_yarnball_run.json`` and, once the sweep is done, ``_SUCCESS`` (launcher/_rundir.py).

Ray is imported only when the sweep runs on it (``workers=0`` runs in this process without Ray).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yarnball.errors import ConfigurationError, YarnballError
from yarnball.launcher._rundir import SWEEP_FILES, claim
from yarnball.launcher.sweep._report import write_plots, write_report
from yarnball.launcher.sweep._runner import SweepProgress, require_tune, run_in_process, run_on_ray
from yarnball.launcher.sweep._scenario import METRICS, SCENARIO_DIR, STATE_DIR, is_complete, read_row
from yarnball.launcher.sweep._spec import Scenario, SweepSpec, load_spec, parse_spec, scenario_name
from yarnball.launcher.sweep._table import aggregate, write_tables

__all__ = [
    "METRICS",
    "Scenario",
    "SweepResult",
    "SweepSpec",
    "load_spec",
    "main",
    "parse_spec",
    "scenario_name",
    "sweep",
]

PROG = "yarnball sweep"


@dataclass(slots=True)
class SweepResult:
    """The results table of a sweep: one row per scenario (as in ``sweep.csv``) and the aggregates over seeds."""

    output_dir: Path
    axes: tuple[str, ...]
    rows: list[dict[str, Any]] = field(default_factory=list)
    aggregates: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failed(self) -> list[dict[str, Any]]:
        """The rows of the scenarios that failed."""
        return [r for r in self.rows if r["status"] == "error"]

    def row(self, scenario: str) -> dict[str, Any]:
        """The row of one scenario, by its name."""
        for r in self.rows:
            if r["scenario"] == scenario:
                return r
        raise KeyError(scenario)


def sweep(
    spec: str | os.PathLike[str] | Mapping[str, Any] | SweepSpec,
    output_dir: str | os.PathLike[str],
    *,
    address: str | None = None,
    workers: int | None = None,
    resume: bool = False,
    progress: bool = False,
) -> SweepResult:
    """Run every scenario of ``spec`` (a TOML file, its mapping, or a parsed spec) and write the results into
    ``output_dir``; return the results table.

    ``workers``: trials at a time on Ray (default: the cluster's CPUs); 0 runs the scenarios in this process
    without Ray. ``address``: join this Ray cluster (default: the running one, or start a local one). ``resume``:
    skip the scenarios whose outputs are complete. A failed scenario is a row with status ``error``; it does not
    raise. A bad spec raises :class:`~yarnball.ConfigurationError` before anything runs.
    """
    if isinstance(spec, SweepSpec):
        parsed = spec
    elif isinstance(spec, Mapping):
        parsed = parse_spec(spec)
    else:
        parsed = load_spec(spec)
    if workers is not None and workers < 0:
        raise ConfigurationError(f"--workers: expected a number of workers >= 0, got {workers}")
    if workers == 0 and address is not None:
        raise ConfigurationError("--address needs Ray; --workers 0 runs in this process")
    if workers != 0:
        require_tune()
    # The directory holds this sweep only (launcher/_rundir.py): an earlier sweep's files are cleared (with --resume
    # its scenarios and records are kept), anything else is refused; each scenario directory is a run of its own.
    kept = (f"{STATE_DIR}/**", f"{SCENARIO_DIR}/**") if resume else ()
    run_dir = claim(Path(output_dir).resolve(), "sweep", SWEEP_FILES, nested=(f"{SCENARIO_DIR}/*",), keep=kept)
    out = run_dir.path
    (out / SCENARIO_DIR).mkdir(parents=True, exist_ok=True)
    todo = [s for s in parsed.scenarios if not (resume and is_complete(out, s.name))]
    for s in todo:  # attempts count within one sweep: a later retry of an earlier failure is not "retried"
        (out / STATE_DIR / f"{s.name}.attempts").unlink(missing_ok=True)
    bar = SweepProgress(len(parsed.scenarios), len(parsed.scenarios) - len(todo), enabled=progress)
    failures: dict[str, str] = {}
    if todo and workers == 0:
        run_in_process(todo, out, bar)
    elif todo:
        failures = run_on_ray(todo, out, bar, workers=workers, address=address, max_failures=parsed.max_failures)
    rows = [_row(out, s, failures.get(s.name)) for s in parsed.scenarios]
    result = SweepResult(out, parsed.axes, rows, aggregate(rows, parsed.axes))
    write_tables(out, rows, result.aggregates, parsed.axes)
    plots = write_plots(out, rows, parsed.axes)
    write_report(out, parsed.source, rows, result.aggregates, parsed.axes, plots)
    run_dir.complete()
    return result


def _row(out: Path, scenario: Scenario, trial_error: str | None) -> dict[str, Any]:
    row = read_row(out, scenario.name)
    if row is not None and trial_error is None:
        return row
    # The trial died every time it was tried (or never recorded its row): an error row from Tune's message.
    failed: dict[str, Any] = {"scenario": scenario.name, **dict(scenario.params), "status": "error"}
    failed["error"] = f"the scenario's worker failed: {trial_error or 'no result was recorded'}"
    failed["attempts"] = row["attempts"] if row is not None else None
    failed.update({m: None for m, _d in METRICS})
    failed["command"] = scenario.command(out / SCENARIO_DIR / scenario.name)
    failed["jct_seconds"] = []
    return failed


# -- the command -------------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The ``yarnball sweep`` argument parser."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Run every scenario of a TOML sweep spec (one embedded simulation per Ray worker, managed by "
        "Ray Tune) and write sweep.csv, sweep.json, aggregates.csv, plots/ and report.md into the output directory.",
        epilog="Exit status: 0 every scenario ran, 1 at least one scenario failed (its row says why), 2 a bad spec "
        "or option.",
    )
    parser.add_argument("spec", metavar="SPEC", help="the sweep spec (TOML; see the documentation's Sweeps section)")
    parser.add_argument("--output-dir", metavar="DIR", required=True, help="where the scenarios and tables go")
    parser.add_argument("--address", default=None, help="join this Ray cluster (default: start a local one)")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="scenarios at a time (default: the Ray cluster's CPUs); 0 runs them one by one in this process, "
        "without Ray",
    )
    parser.add_argument("--resume", action="store_true", help="skip the scenarios whose outputs are complete")
    parser.add_argument("--no-progress", action="store_true", help="do not show the progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``yarnball sweep``; return the exit status (0 all ok, 1 a scenario failed, 2 user error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        result = sweep(
            args.spec,
            args.output_dir,
            address=args.address,
            workers=args.workers,
            resume=args.resume,
            progress=not args.no_progress,
        )
    except YarnballError as err:
        print(f"{PROG}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    except OSError as err:
        name = f"{err.filename}: " if err.filename else ""
        print(f"{PROG}: error: {name}{err.strerror or err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    failed = result.failed
    print(
        f"{PROG}: {len(result.rows)} scenarios, {len(result.rows) - len(failed)} ok, {len(failed)} failed; "
        f"results in {os.fspath(result.output_dir / 'sweep.csv')}, report in "
        f"{os.fspath(result.output_dir / 'report.md')}"
    )
    for r in failed:
        print(f"  failed: {r['scenario']}: {r['error']}", file=sys.stderr)
    return 1 if failed else 0
