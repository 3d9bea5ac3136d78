"""The ``yarnball`` command: ``yarnball simulate`` (SLS's ``slsrun.sh``, in virtual time), ``yarnball preempt`` and
``yarnball sweep`` (:mod:`yarnball.launcher.sweep`).

``yarnball simulate`` takes SLS's option names (``--tracetype``, ``--tracelocation``, ``--nodes``, ``--output-dir``,
``--track-jobs``, ``--print-simulation``; both ``--opt value`` and SLS's ``--opt=value``) plus ``--conf-dir``,
``--conf KEY=VALUE`` (repeatable), ``--seed``, ``--until-ms`` and ``--log-level``. It replays the trace in simulated
time and writes SLS's outputs (``realtimetrack.json``, ``jobruntime.csv``, ``metrics/``) plus ``summary.json``,
plots and the JSON-lines event log ``events.jsonl`` into the output directory. The directory holds one run: an
earlier run's files are cleared, a directory with files yarnball did not write is refused (exit 2); the manifest
``_yarnball_run.json`` is written first and ``_SUCCESS`` last (launcher/_rundir.py).

Exit statuses: 0, the run went well. 2, a user error (a bad trace or configuration, a missing file): one line,
``yarnball: error: <message>``, as argparse does for bad options. 3, the run went wrong: an actor handler raised (a
bug or a bad input; the run is finished and every output written first, the failures are in summary.json
``errors``), no application could ever progress (the run stopped by itself; summary.json ``errors.stalled`` names
the ask and the node or queue limit), every application was rejected (counts by reason in summary.json), or none
finished (unless the run was cut short by ``--until-ms``); one ``yarnball: error:`` line says which. A traceback
means a bug in yarnball.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from yarnball.errors import ConfigurationError, YarnballError
from yarnball.launcher._console import PROG, os_error_text
from yarnball.launcher._console import error as _error
from yarnball.launcher._console import warn as _warn
from yarnball.launcher._faults import FAULT_KINDS
from yarnball.launcher._scenario import ScenarioSpec

__all__ = ["build_parser", "main", "scenario_spec"]


def build_parser() -> argparse.ArgumentParser:
    """The ``yarnball`` argument parser (``simulate`` and ``preempt`` subcommands)."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="YARN resource management simulated as actors: replay SLS traces in virtual time."
    )
    parser.add_argument(
        "--version", action="store_true", help="print the version, the build (compiled or pure Python), Python and Ray"
    )
    sub = parser.add_subparsers(dest="command", metavar="{simulate,report,preempt,sweep,fs2cs}")
    sub.required = True
    sim = sub.add_parser(
        "simulate",
        help="replay an SLS, Rumen or SYNTH trace (SLS's slsrun.sh options)",
        description="Replay a workload trace on a simulated YARN cluster in virtual time and write SLS's outputs.",
    )
    sim.add_argument(
        "--tracetype",
        type=str.upper,
        choices=("SLS", "RUMEN", "SYNTH"),
        default=None,
        help="trace format (default SLS)",
    )
    sim.add_argument("--tracelocation", metavar="FILE[,FILE]", help="trace file(s), comma-separated")
    sim.add_argument("--input-sls", metavar="FILE[,FILE]", help=argparse.SUPPRESS)  # SLS's deprecated alias
    sim.add_argument("--input-rumen", metavar="FILE[,FILE]", help=argparse.SUPPRESS)  # SLS's deprecated alias
    sim.add_argument("--nodes", metavar="FILE", help="SLS nodes file (default: the nodes named in the trace)")
    sim.add_argument("--output-dir", metavar="DIR", required=True, help="where the outputs are written")
    sim.add_argument(
        "--track-jobs",
        metavar="J1,J2",
        default="",
        help="job ids whose live containers are recorded every sample into metrics/tracked_jobs.csv",
    )
    sim.add_argument(
        "--print-simulation", action="store_true", help="print the cluster and the job table before running"
    )
    sim.add_argument(
        "--conf-dir",
        metavar="DIR",
        help="directory with yarn-site.xml, capacity-scheduler.xml and sls-runner.xml "
        "(default: built-in defaults, one queue root.default at 100%%)",
    )
    sim.add_argument(
        "--conf",
        action="append",
        default=[],
        type=_conf_override,
        metavar="KEY=VALUE",
        help="set a Hadoop configuration key over the --conf-dir files (repeatable; Hadoop's -D KEY=VALUE)",
    )
    sim.add_argument("--seed", type=int, default=0, help="random seed (default 0); one seed gives identical outputs")
    sim.add_argument(
        "--until-ms", type=_non_negative_int, default=None, metavar="N", help="stop at this simulated time (ms)"
    )
    sim.add_argument(
        "--log-level",
        type=str.lower,
        choices=("debug", "info", "warning", "error"),
        default=None,
        help="lowest level written to events.jsonl (default info)",
    )
    sim.add_argument("--no-plots", action="store_true", help="do not write the PNG plots")
    sim.add_argument(
        "--backend",
        choices=("embedded", "ray"),
        default="embedded",
        help="embedded: one process (default); ray: shard hosts in Ray actors, same results for the same seed",
    )
    sim.add_argument("--address", default=None, help="with --backend ray: join this Ray cluster (default: start one)")
    sim.add_argument(
        "--hosts", type=int, default=2, metavar="N", help="with --backend ray: number of shard hosts (default 2)"
    )
    sim.add_argument(
        "--latency-ms",
        type=float,
        default=None,
        metavar="MS",
        help="modelled latency of every message between actors (default 0 embedded, 1 on ray; the ray backend's "
        "window); give the same value to both backends to compare them",
    )
    sim.add_argument(
        "--clock",
        choices=("virtual", "wall"),
        default="virtual",
        help="with --backend ray: virtual time (default), or wall: live mode, the actors on real timers (not "
        "deterministic; --pace X then runs X simulated ms per real ms)",
    )
    sim.add_argument("--no-progress", action="store_true", help="do not show the progress bar")
    # Serving and looking (launcher/web/).
    sim.add_argument(
        "--webapp",
        metavar="[HOST:]PORT",
        default=None,
        help="serve the RM REST API (/ws/v1/cluster) and web UI (/cluster) on HOST:PORT (host 127.0.0.1 by default) "
        "while the run goes on, and its final state afterwards until Ctrl-C (needs the web extra: aiohttp)",
    )
    sim.add_argument("--webapp-exit", action="store_true", help="with --webapp: stop serving when the run ends")
    sim.add_argument(
        "--pace",
        type=float,
        default=None,
        metavar="X",
        help="run simulated time at X times real time, to watch it (default: as fast as possible)",
    )
    sim.add_argument(
        "--report", action="store_true", help="write OUTPUT_DIR/report.html (one self-contained page) at the end"
    )
    sim.add_argument(
        "--refresh-queues",
        action="append",
        default=[],
        metavar="AT_MS:CONF_DIR",
        help="at simulated time AT_MS, refresh the queues from CONF_DIR/capacity-scheduler.xml as `yarn rmadmin "
        "-refreshQueues` does (repeatable); a refused refresh is logged (queues_refresh_refused) and changes nothing",
    )
    sim.add_argument(
        "--compare",
        nargs="?",
        const="",
        default=None,
        metavar="CS_CONF_DIR",
        help="run the trace twice: under the FairScheduler of --conf-dir and under the CapacityScheduler of "
        "CS_CONF_DIR, or without it of --conf-dir's fs2cs conversion (written to OUTPUT_DIR/fs2cs); the runs go to "
        "OUTPUT_DIR/fair and OUTPUT_DIR/capacity, and per-queue job times and cluster shares of both to "
        "OUTPUT_DIR/compare.csv, compare.md, queue_share.csv and compare.png",
    )
    rep = sub.add_parser(
        "report",
        help="write OUTPUT_DIR/report.html from a finished run's outputs",
        description="Turn the outputs of `yarnball simulate` into one self-contained HTML page (report.html).",
    )
    rep.add_argument("output_dir", metavar="OUTPUT_DIR", help="the --output-dir of a finished run")
    sim.add_argument(
        "--faults",
        metavar="FILE",
        help="JSON fault schedule: a list of {at_ms, kind, target, ...}; kinds: " + ", ".join(FAULT_KINDS) + " "
        "(the documentation's fault reference); with --backend ray, container_fail, rm_restart and am_crash of an "
        "application id are refused",
    )
    sim.add_argument(
        "--strict",
        action="store_true",
        help="refuse trace and node-file keys the format does not know, and --conf keys yarnball does not read "
        "(default: warn, naming the closest key)",
    )
    # Listed for --help only: main() hands everything after 'preempt' to yarnball.launcher.whatif.main.
    sub.add_parser(
        "preempt",
        help="show what the preemption policy would take from a cluster snapshot (yarnball preempt --help)",
        add_help=False,
    )
    sub.add_parser(  # listed for --help only, like preempt: main() hands the rest to yarnball.launcher.sweep.main
        "sweep",
        help="run a grid of scenarios on Ray Tune into one results table (yarnball sweep --help)",
        add_help=False,
    )
    sub.add_parser(  # listed for --help only: main() hands the rest to yarnball.launcher.fs2cs.main
        "fs2cs",
        help="convert a FairScheduler configuration to a CapacityScheduler one, as `yarn fs2cs` (yarnball fs2cs -h)",
        add_help=False,
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``yarnball`` command; return the exit status (0 ok, 2 user error)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "preempt":
        from yarnball.launcher import whatif

        return whatif.main(args_list[1:])
    if args_list and args_list[0] == "sweep":
        from yarnball.launcher import sweep

        return sweep.main(args_list[1:])
    if args_list and args_list[0] == "fs2cs":
        from yarnball.launcher import fs2cs

        return fs2cs.main(args_list[1:])
    parser = build_parser()
    if args_list and args_list[0] == "--version":
        from yarnball.launcher._about import version_text

        print(version_text())
        return 0
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse exits 2 on bad options and 0 on --help; return it instead
        return exc.code if isinstance(exc.code, int) else 2
    try:
        if args.command == "report":
            return _report(args)
        return _simulate(args)
    except YarnballError as err:
        _error(err)
        return 2
    except OSError as err:  # e.g. the output directory cannot be created or written
        _error(os_error_text(err))
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130


# -- simulate ----------------------------------------------------------------------------------------------------
def _simulate(args: argparse.Namespace) -> int:
    """``yarnball simulate``: the arguments as a :class:`ScenarioSpec`, run by :func:`run_scenario`."""
    if args.compare is not None:  # the FairScheduler and its CapacityScheduler conversion (launcher/_compare.py)
        from yarnball.launcher._compare import run_comparison

        compared = run_comparison(scenario_spec(args), args.compare or None)
        if compared.reason is not None:
            _error(compared.reason)
        return compared.status
    from yarnball.launcher._simulate import run_scenario

    result = run_scenario(scenario_spec(args))
    if result.reason is not None:
        _error(result.reason)
    return result.status


def scenario_spec(args: argparse.Namespace) -> ScenarioSpec:
    """The parsed ``yarnball simulate`` arguments as a :class:`ScenarioSpec`."""
    trace_type, trace = _trace_arguments(args)
    return ScenarioSpec(
        trace=trace,
        output_dir=args.output_dir,
        trace_type=trace_type,
        nodes=args.nodes,
        conf_dir=args.conf_dir,
        conf=tuple(args.conf),
        seed=args.seed,
        until_ms=args.until_ms,
        latency_ms=args.latency_ms,
        log_level=args.log_level,
        track_jobs=args.track_jobs,
        plots=not args.no_plots,
        faults=args.faults,
        refreshes=tuple(args.refresh_queues),
        backend=args.backend,
        address=args.address,
        hosts=args.hosts,
        clock=args.clock,
        pace=args.pace,
        webapp=args.webapp,
        webapp_exit=args.webapp_exit,
        report=args.report,
        strict=args.strict,
        print_simulation=args.print_simulation,
        progress=not args.no_progress,
    )


def _report(args: argparse.Namespace) -> int:
    from yarnball.launcher._rundir import is_incomplete, register
    from yarnball.launcher.web.report import REPORT_FILE, write_report

    out = Path(args.output_dir)
    incomplete = is_incomplete(out)
    if incomplete:
        why = f"{out}: the run is incomplete (no _SUCCESS: it was interrupted or is still running)"
        if not (out / "summary.json").is_file():
            raise ConfigurationError(f"{why} and wrote no summary.json; there is nothing to report")
        _warn(f"{why}; the report shows what it wrote")
    register(out, [REPORT_FILE])  # the run's manifest lists report.html before it is written
    path = write_report(out, incomplete=incomplete)
    print(f"{PROG}: wrote {os.fspath(path)}")
    return 0


def _trace_arguments(args: argparse.Namespace) -> tuple[str, str]:
    """SLSRunner.run: the deprecated --input-sls/--input-rumen set both, --tracetype/--tracelocation win."""
    trace_type, location = None, None
    if args.input_rumen:
        trace_type, location = "RUMEN", args.input_rumen
    if args.input_sls:
        trace_type, location = "SLS", args.input_sls
    if args.tracetype or args.tracelocation:
        trace_type, location = args.tracetype or "SLS", args.tracelocation
    if not location:
        raise ConfigurationError("--tracelocation is required (the trace file or files, comma-separated)")
    return trace_type or "SLS", location


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer number of ms, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a time >= 0 ms, got {value}")
    return value


def _conf_override(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE (a Hadoop configuration key), got {text!r}")
    return key.strip(), value


