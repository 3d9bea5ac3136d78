"""The ``yarnball`` command: ``yarnball simulate`` (SLS's ``slsrun.sh``, in virtual time), ``yarnball preempt`` and
``yarnball sweep`` (:mod:`yarnball.launcher.sweep`).

``yarnball simulate`` takes SLS's option names (``--tracetype``, ``--tracelocation``, ``--nodes``, ``--output-dir``,
``--track-jobs``, ``--print-simulation``; both ``--opt value`` and SLS's ``--opt=value``) plus ``--conf-dir``,
``--conf KEY=VALUE`` (repeatable), ``--seed``, ``--until-ms`` and ``--log-level``. It replays the trace in simulated
time and writes SLS's outputs (``realtimetrack.json``, ``jobruntime.csv``, ``metrics/``) plus ``summary.json``,
plots and the JSON-lines event log ``events.jsonl`` into the output directory.

Exit statuses: 0, the run went well. 2, a user error (a bad trace or configuration, a missing file): one line,
``yarnball: error: <message>``, as argparse does for bad options. 3, the run went wrong: an actor handler raised (a
bug or a bad input; the run is finished and every output written first, the failures are in summary.json
``errors``), every application was rejected (counts by reason in summary.json), or none finished (unless the run
was cut short by ``--until-ms``); one ``yarnball: error:`` line says which. A traceback means a bug in yarnball.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from yarnball.errors import ConfigurationError, YarnballError

__all__ = ["build_parser", "main"]

PROG = "yarnball"
SLS_RUNNER_FILE = "sls-runner.xml"  # SLSRunner reads it from the configuration directory (the classpath in SLS)


def build_parser() -> argparse.ArgumentParser:
    """The ``yarnball`` argument parser (``simulate`` and ``preempt`` subcommands)."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="YARN resource management simulated as actors: replay SLS traces in virtual time."
    )
    parser.add_argument(
        "--version", action="store_true", help="print the version, the build (compiled or pure Python), Python and Ray"
    )
    sub = parser.add_subparsers(dest="command", metavar="{simulate,report,preempt,sweep}")
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
        default="info",
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
    # Issue 20: serving and looking (launcher/web/).
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
    rep = sub.add_parser(
        "report",
        help="write OUTPUT_DIR/report.html from a finished run's outputs",
        description="Turn the outputs of `yarnball simulate` into one self-contained HTML page (report.html).",
    )
    rep.add_argument("output_dir", metavar="OUTPUT_DIR", help="the --output-dir of a finished run")
    sim.add_argument(
        "--faults",
        metavar="FILE",
        help="JSON fault schedule: a list of {at_ms, kind, target, ...}; kinds: node_lost, node_decommission, "
        "am_crash, container_fail, message_drop, message_delay, message_duplicate (README 'Faults on a schedule')",
    )
    sim.add_argument(
        "--strict",
        action="store_true",
        help="refuse trace and node-file keys the format does not know (default: warn, naming the closest key)",
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
        name = f"{err.filename}: " if err.filename else ""
        _error(f"{name}{err.strerror or err}")
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130


# -- simulate ----------------------------------------------------------------------------------------------------
def _simulate(args: argparse.Namespace) -> int:
    # Heavy imports happen here so that `yarnball --help` stays quick.
    from yarnball import _native
    from yarnball.actors._logging import close_logging, configure_logging
    from yarnball.launcher._about import require_ray
    from yarnball.launcher._cluster import DEFAULT_CLUSTER_TIMESTAMP, Cluster, normalized_conf
    from yarnball.launcher._outputs import MetricsRecorder, write_outputs
    from yarnball.launcher.workloads import load_workload
    from yarnball.policies.capacity import CapacitySchedulerConfiguration
    from yarnball.protocols import keys

    if args.address is not None and args.backend != "ray":
        raise ConfigurationError("--address needs --backend ray")
    if args.webapp_exit and args.webapp is None:
        raise ConfigurationError("--webapp-exit needs --webapp")
    if args.clock == "wall" and args.backend != "ray":
        raise ConfigurationError("--clock wall (live mode) needs --backend ray")
    if args.pace is not None and not args.pace > 0:
        raise ConfigurationError(f"--pace: expected a positive factor of real time, got {args.pace}")
    webapp = None
    if args.webapp is not None:
        from yarnball.launcher.web import require_aiohttp

        require_aiohttp("--webapp")
        from yarnball.launcher.web._server import parse_address

        webapp = parse_address(args.webapp)
    if args.backend == "ray":
        require_ray("--backend ray")
    compiled, why = _native.build_status()
    if not compiled:
        _note(f"running the pure-Python build ({why}); same results, the scheduler ~2.6x slower")
    trace_type, trace_location = _trace_arguments(args)
    # While the inputs are read, their warnings go to stderr for the user; the run itself logs to events.jsonl.
    configure_logging(level="warning", stream=sys.stderr)
    try:
        conf = _load_configuration(args.conf_dir)
        for key, value in args.conf:  # GenericOptionsParser's -D: set over every resource file
            conf.set(key, value)
        # Validate the queue tree now, so its warnings (keys of undeclared queues) reach the user's terminal.
        CapacitySchedulerConfiguration(normalized_conf(conf)).validate()
        defaults = trace_defaults(conf)
        workload = load_workload(trace_type, trace_location, args.nodes, defaults, args.seed, strict=args.strict)
    finally:
        close_logging()
    refreshes = _refresh_arguments(conf, args.refresh_queues)
    faults = None
    if args.faults is not None:
        from yarnball.launcher._faults import check_targets, load_faults

        faults = load_faults(args.faults)
        if args.backend != "embedded":
            restart = next((f for f in faults if f.kind == "rm_restart"), None)
            if restart is not None:
                raise ConfigurationError(
                    f"{args.faults}: fault {restart.index}: kind 'rm_restart' needs the embedded backend (the Ray "
                    "backend's shard hosts cannot restart the ResourceManager)"
                )
        check_targets(
            faults,
            [n.hostname for n in workload.nodes],
            args.faults,
            jobs=[j.job_id for j in workload.jobs],
            cluster_timestamp=DEFAULT_CLUSTER_TIMESTAMP,
        )
        if args.backend != "embedded":
            from yarnball.launcher._shardfaults import check_sharded

            check_sharded(faults, args.backend, args.faults)  # a kind no shard host can apply: refused before the run
    interval_ms = conf.get_int(keys.SLS_METRICS_RECORD_INTERVAL_MS, keys.DEFAULT_SLS_METRICS_RECORD_INTERVAL_MS)
    if interval_ms <= 0:
        raise ConfigurationError(
            f"{keys.SLS_METRICS_RECORD_INTERVAL_MS}: expected a positive integer, got {interval_ms}"
        )
    track = [j.strip() for j in args.track_jobs.split(",") if j.strip()]
    known = {j.job_id for j in workload.jobs}
    for job_id in track:
        if job_id not in known:
            _warn(f"--track-jobs: job {job_id!r} is not in the trace; it is not tracked")

    out = Path(args.output_dir)
    if out.exists() and not out.is_dir():
        raise ConfigurationError(f"{out}: --output-dir exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)

    if args.print_simulation:
        print_simulation(workload, sys.stdout)

    if args.backend == "ray":
        from yarnball.launcher._cli_sharded import simulate_sharded

        summary = simulate_sharded(
            args,
            conf,
            workload,
            out,
            track,
            interval_ms,
            _Progress(None, _target_ms(workload, args.until_ms), sys.stderr, enabled=not args.no_progress),
            webapp=webapp,
            faults=faults,
        )
        _print_summary(summary, out, sys.stdout)
        return _run_status(summary, cut=args.until_ms is not None)
    configure_logging(json_path=out / "events.jsonl", level=args.log_level)
    try:
        cluster = Cluster(conf, workload.nodes, seed=args.seed, latency_ms=args.latency_ms)
        cluster.submit_workload(workload)
        for at_ms, conf_dir in refreshes:
            cluster.refresh_queues(conf_dir, at_ms=at_ms)
        if faults:
            cluster.inject(faults)
        recorder = MetricsRecorder(cluster, interval_ms, track_jobs=[j for j in track if j in known])
        recorder.start()
        progress = _Progress(cluster, _target_ms(workload, args.until_ms), sys.stderr, enabled=not args.no_progress)

        finished: dict[str, Any] = {}

        def finish(wall: float) -> dict[str, Any]:
            progress.finish()
            summary = write_outputs(
                out, cluster, recorder, wall_seconds=wall, seed=args.seed, workload=workload, plots=not args.no_plots
            )
            if args.report:
                from yarnball.launcher.web.report import write_report, write_state

                write_state(out, cluster)
                write_report(out)
            _print_summary(summary, out, sys.stdout)
            finished["summary"] = summary
            return summary

        if webapp is not None:
            from yarnball.launcher.web import serve_cluster

            result = serve_cluster(
                cluster,
                *webapp,
                until_ms=args.until_ms,
                pace=args.pace,
                keep_serving=not args.webapp_exit,
                on_progress=progress,
                on_finished=finish,
            )
            if result.interrupted:
                raise KeyboardInterrupt
        elif args.pace is not None:
            import asyncio

            from yarnball.launcher.web._driver import drive

            start = time.perf_counter()
            asyncio.run(drive(cluster, until_ms=args.until_ms, pace=args.pace, on_progress=progress))
            finish(time.perf_counter() - start)
        else:
            start = time.perf_counter()
            cluster.run(until_ms=args.until_ms, on_progress=progress)
            finish(time.perf_counter() - start)
    finally:
        close_logging()
    return _run_status(finished["summary"], cut=args.until_ms is not None)


def _run_status(summary: dict[str, Any], *, cut: bool = False) -> int:
    """0, or 3 with one line saying why when the run went wrong: an actor handler raised (a bug or a bad input), every
    application was rejected, or none finished. Called once every output is written. ``cut``: the user stopped the
    run with --until-ms, so applications left unfinished (or not yet submitted) are what was asked for."""
    failures = summary.get("errors", {}).get("handler_failures", {"count": 0, "first": []})
    apps = summary["applications"]
    if failures["count"]:
        first = failures["first"][0]
        _error(
            f"{failures['count']} actor handler failure{'s' if failures['count'] != 1 else ''} in the run (a bug or "
            f"a bad input; all in summary.json errors); the first: {first['actor']} handling "
            f"{first['message_type']} at {first['time_ms']:g} ms raised {first['error']}"
        )
        return 3
    if apps["submitted"] and apps["rejected"] == apps["submitted"]:
        reasons = summary.get("rejected_by_reason", {})
        top = next(iter(reasons), "")
        others = len(reasons) - 1
        more = f" (and {others} other reason{'s' if others > 1 else ''}, in summary.json)" if others else ""
        _error(f"every application ({apps['submitted']}) was rejected: {top}{more}")
        return 3
    if apps["finished"] == 0 and not cut:
        if not apps["submitted"]:
            _error(f"no application finished: none was submitted ({summary['jobs']['skipped']} jobs skipped)")
        else:
            _error(
                f"no application finished: {apps['submitted']} submitted, {apps['failed']} failed, "
                f"{apps['killed']} killed, {apps['rejected']} rejected, {apps['unfinished']} unfinished"
            )
        return 3
    return 0


def _report(args: argparse.Namespace) -> int:
    from yarnball.launcher.web.report import write_report

    path = write_report(Path(args.output_dir))
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


def _refresh_arguments(conf: Any, specs: list[str]) -> list[tuple[float, str]]:
    """``--refresh-queues AT_MS:CONF_DIR`` values, each conf dir checked now (a bad one is a user error, exit 2)."""
    from yarnball.launcher._refresh import parse_refresh_spec, refresh_request

    out = []
    for spec in specs:
        at_ms, conf_dir = parse_refresh_spec(spec)
        refresh_request(conf, conf_dir)
        out.append((at_ms, conf_dir))
    return out


def trace_defaults(conf: Any) -> Any:
    """``TraceDefaults.from_configuration(conf)``, its errors prefixed with the file and line of the key."""
    from yarnball.launcher.workloads import TraceDefaults

    try:
        return TraceDefaults.from_configuration(conf)
    except ConfigurationError as err:
        key = str(err).partition(":")[0]
        if key in conf:
            raise ConfigurationError(f"{conf.location_of(key)}: {err}") from err
        raise


def _load_configuration(conf_dir: str | None) -> Any:
    from yarnball.protocols import Configuration, keys

    if conf_dir is None:
        return Configuration()
    conf = Configuration.from_conf_dir(conf_dir)
    sls_runner = Path(conf_dir) / SLS_RUNNER_FILE
    if os.path.lexists(sls_runner):  # a directory, FIFO or broken link of that name is refused, not skipped
        conf.add_resource(sls_runner)
    # Read every numeric yarn.sls.* key once with the typed getters, so a value outside its domain fails here,
    # naming sls-runner.xml and the key, before a trace reader or the cluster reads it.
    from yarnball.protocols._domains import SLS_FLOAT_KEYS, SLS_INT_KEYS

    for key in SLS_INT_KEYS:
        conf.get_int(key, 1)
    for key in SLS_FLOAT_KEYS:
        conf.get_float(key, 0.0)
    scheduler_class = conf.get(keys.RM_SCHEDULER)
    if scheduler_class and scheduler_class.strip() != keys.DEFAULT_RM_SCHEDULER:
        _warn(
            f"{conf.source_of(keys.RM_SCHEDULER)}: {keys.RM_SCHEDULER} is {scheduler_class.strip()}; "
            "yarnball simulates the CapacityScheduler, so it is used instead"
        )
    return conf


def _target_ms(workload: Any, until_ms: int | None) -> float:
    if until_ms is not None:
        return float(until_ms)
    ends = [j.end_ms if j.end_ms is not None else j.submit_ms for j in workload.jobs]
    return float(max(ends, default=0))


def print_simulation(workload: Any, stream: IO[str]) -> None:
    """SLSRunner.printSimulationInfo: the cluster, the job table, the queues and the trace's span."""
    line = "-" * 36
    nodes = workload.nodes
    racks = len({n.rack for n in nodes})
    sizes = sorted({(n.resource.memory_mb, n.resource.vcores) for n in nodes})
    if len(sizes) == 1:
        capacity = f"capacity of each node {sizes[0][0]} MB memory and {sizes[0][1]} vcores."
    else:
        capacity = f"node capacities vary ({len(sizes)} sizes)."
    jobs = workload.jobs
    tasks = sum(j.num_containers for j in jobs)
    queues = {j.queue for j in jobs}
    max_runtime = max((j.end_ms if j.end_ms is not None else j.submit_ms for j in jobs), default=0)
    out = [line, f"# nodes = {len(nodes)}, # racks = {racks}, {capacity}", line]
    out.append(
        f"# applications = {len(jobs)}, # total tasks = {tasks}, "
        f"average # tasks per application = {math.ceil(tasks / len(jobs)) if jobs else 0}"
    )
    out.append("JobId\tQueue\tAMType\tDuration\t#Tasks")
    for j in jobs:
        duration = (j.end_ms - j.submit_ms) if j.end_ms is not None else ""
        out.append(f"{j.job_id}\t{j.queue}\t{j.am_type}\t{duration}\t{j.num_containers}")
    out.append(line)
    out.append(
        f"number of queues = {len(queues)}  "
        f"average number of apps = {math.ceil(len(jobs) / len(queues)) if queues else 0}"
    )
    out.append(line)
    out.append(f"estimated simulation time is {math.ceil(max_runtime / 1000)} seconds")
    out.append(line)
    stream.write("\n".join(out) + "\n")
    stream.flush()


class _Progress:
    """A plain-text progress line on stderr, redrawn at most ``max_hz`` times per wall second.

    The percentage is the simulated time over the trace's span (or ``--until-ms``), capped below 100 until the run
    ends because a simulated job may finish later than the trace says. When stderr is not a terminal, a line is
    printed at most every ``quiet_seconds`` instead of redrawing.
    """

    def __init__(
        self, cluster: Any, target_ms: float, stream: IO[str], *, enabled: bool = True, max_hz: float = 4.0
    ) -> None:
        self.cluster = cluster
        self.target_ms = target_ms
        self.stream = stream
        self.enabled = enabled
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.min_gap = 1.0 / max_hz if self.tty else 10.0
        self.last = time.monotonic()
        self.drawn = False

    def __call__(self, now_ms: float) -> None:
        if not self.enabled:
            return
        wall = time.monotonic()
        if wall - self.last < self.min_gap:
            return
        self.last = wall
        self._draw(now_ms, final=False)

    def _draw(self, now_ms: float, *, final: bool) -> None:
        pct = 100.0 if final else min(99.9, 100.0 * now_ms / self.target_ms) if self.target_ms > 0 else 0.0
        filled = int(pct / 100 * 30)
        rm = getattr(self.cluster, "rm", None)  # the sharded backends keep the RM on a host
        text = f"[{'#' * filled}{'.' * (30 - filled)}] {pct:5.1f}%  simulated {now_ms / 1000:,.0f} s"
        if rm is not None:
            c = rm.counters
            text += f"  apps {c['apps_finished']} finished, {c['apps_rejected']} rejected"
            failed = c["apps_failed"] + c["apps_killed"]
            if failed:
                text += f", {failed} failed"
            text += f" of {len(self.cluster.masters)}"
        if self.tty:
            self.stream.write("\r" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.drawn = True

    def finish(self) -> None:
        if self.enabled and (self.tty or self.drawn):
            kernel = getattr(self.cluster, "kernel", None)  # the sharded backends have no local kernel
            self._draw(kernel.now if kernel is not None else self.cluster.now, final=True)


def _print_summary(summary: dict[str, Any], out: Path, stream: IO[str]) -> None:
    apps, cont, util = summary["applications"], summary["containers"], summary["utilization"]
    speedup = summary["speedup"]
    lines = [
        f"yarnball: simulated {summary['simulated_seconds']:,.1f} s in {summary['wall_seconds']:.2f} s wall"
        + (f" (speed-up {speedup:,.0f}x)" if speedup else ""),
        f"  applications: {apps['submitted']} submitted, {apps['finished']} finished, {apps['failed']} failed, "
        f"{apps['killed']} killed, {apps['rejected']} rejected, {apps['unfinished']} unfinished",
        f"  containers:   {cont['allocated']} allocated, {cont['completed']} completed, {cont['killed']} killed, "
        f"{cont['preempted']} preempted, {cont['lost']} lost",
        f"  utilization:  memory {100 * util['memory_mean']:.1f}%, vcores {100 * util['vcores_mean']:.1f}% (mean)",
    ]
    reasons = summary.get("rejected_by_reason", {})
    for reason, count in list(reasons.items())[:5]:
        lines.append(f"  rejected:     {count} {reason}")
    if len(reasons) > 5:
        rest = sum(list(reasons.values())[5:])
        lines.append(f"  rejected:     {rest} for {len(reasons) - 5} other reasons (in summary.json)")
    refused = summary.get("security", {}).get("rejected", 0)
    if refused:
        lines.append(f"  security:     {refused} requests refused for a token or an ACL (summary.json security)")
    failures = summary.get("errors", {}).get("handler_failures", {"count": 0})
    if failures["count"]:
        lines.append(f"  errors:       {failures['count']} actor handler failures (summary.json errors)")
    if summary["skipped_jobs"]:
        lines.append(f"  skipped jobs: {len(summary['skipped_jobs'])} (reasons in summary.json)")
    lines.append(f"  outputs:      {os.fspath(out)}")
    stream.write("\n".join(lines) + "\n")
    stream.flush()


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


def _error(message: object) -> None:
    text = " ".join(str(message).split()) if "\n" in str(message) else str(message)
    print(f"{PROG}: error: {text}", file=sys.stderr)


def _note(message: str) -> None:
    print(f"{PROG}: note: {message}", file=sys.stderr)


def _warn(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)
