"""One ``yarnball simulate`` run as a function: :func:`run_scenario` reads the scenario's inputs, runs it on its
backend and writes its outputs; the CLI and sweeps both call it."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from yarnball.errors import ConfigurationError
from yarnball.launcher._console import Progress, note, print_simulation, print_summary, warn
from yarnball.launcher._scenario import RunResult, ScenarioSpec

__all__ = ["load_configuration", "run_scenario", "run_status", "trace_defaults"]


def run_scenario(spec: ScenarioSpec) -> RunResult:
    """Run ``spec`` as ``yarnball simulate`` does and return its result once every output is written.

    A user error (a bad trace, configuration or option, a missing file) raises a
    :class:`~yarnball.errors.YarnballError` naming the file, key or option (the CLI's exit status 2) before anything
    is written. What the command prints goes to ``sys.stdout`` and ``sys.stderr`` as it does: notes and warnings,
    the progress line (``spec.progress``), the summary."""
    # Heavy imports happen here so that `yarnball --help` stays quick.
    from yarnball import _native
    from yarnball.actors._logging import close_logging, configure_logging, flush_logging
    from yarnball.launcher._about import require_ray
    from yarnball.launcher._cluster import DEFAULT_CLUSTER_TIMESTAMP, Cluster, normalized_conf
    from yarnball.launcher._outputs import MetricsRecorder, write_outputs
    from yarnball.launcher._rundir import SIMULATE_FILES, claim
    from yarnball.launcher._settings import check_explicit_keys
    from yarnball.launcher.workloads import StreamedWorkload, load_workload, scan_workload
    from yarnball.policies.scheduler import validate_scheduler_configuration
    from yarnball.protocols import keys

    spec.check()
    webapp = None
    if spec.webapp is not None:
        from yarnball.launcher.web import require_aiohttp

        require_aiohttp("--webapp")
        from yarnball.launcher.web._server import parse_address

        webapp = parse_address(spec.webapp)
    if spec.backend == "ray":
        require_ray("--backend ray")
    compiled, why = _native.build_status()
    if not compiled:
        note(f"running the pure-Python build ({why}); same results, the scheduler ~2.6x slower")
    # While the inputs are read, their warnings go to stderr for the user; the run itself logs to events.jsonl.
    configure_logging(level="warning", stream=sys.stderr)
    try:
        conf = load_configuration(spec.conf_dir)
        check_explicit_keys((key for key, _ in spec.conf), source="--conf", strict=spec.strict)
        for key, value in spec.conf:  # GenericOptionsParser's -D: set over every resource file
            conf.set(key, value, source="--conf")
        # Validate the queue tree now, so its warnings (keys of undeclared queues) reach the user's terminal.
        validate_scheduler_configuration(normalized_conf(conf))
        defaults = trace_defaults(conf)
        # The embedded backend reads the jobs again as the run reaches them (workloads/_stream.py); the Ray
        # backend ships the whole workload to its hosts.
        read = scan_workload if spec.backend == "embedded" else load_workload
        workload = read(spec.trace_type, spec.trace, spec.nodes, defaults, spec.seed, strict=spec.strict)
    finally:
        close_logging()
    refreshes = _refresh_arguments(conf, spec.refreshes)
    faults = None
    if spec.faults is not None:
        from yarnball.launcher._faults import check_targets, load_faults

        faults = load_faults(spec.faults)
        if spec.backend != "embedded":
            restart = next((f for f in faults if f.kind == "rm_restart"), None)
            if restart is not None:
                raise ConfigurationError(
                    f"{spec.faults}: fault {restart.index}: kind 'rm_restart' needs the embedded backend (the Ray "
                    "backend's shard hosts cannot restart the ResourceManager)"
                )
        check_targets(
            faults,
            [n.hostname for n in workload.nodes],
            spec.faults,
            jobs=[j.job_id for j in workload.jobs],
            cluster_timestamp=DEFAULT_CLUSTER_TIMESTAMP,
        )
        if spec.backend != "embedded":
            from yarnball.launcher._shardfaults import check_sharded

            check_sharded(faults, spec.backend, spec.faults)  # a kind no shard host can apply: refused before the run
        elif faults and isinstance(workload, StreamedWorkload):
            # Faults find their AMs among those spawned when they are applied: every job's AM from the start.
            workload = workload.load()
    interval_ms = conf.get_int(keys.SLS_METRICS_RECORD_INTERVAL_MS, keys.DEFAULT_SLS_METRICS_RECORD_INTERVAL_MS)
    if interval_ms <= 0:
        raise ConfigurationError(
            f"{keys.SLS_METRICS_RECORD_INTERVAL_MS}: expected a positive integer, got {interval_ms}"
        )
    track = spec.tracked
    known = {j.job_id for j in workload.jobs}
    for job_id in track:
        if job_id not in known:
            warn(f"--track-jobs: job {job_id!r} is not in the trace; it is not tracked")

    # The directory holds this run only: an earlier run's files are cleared, anything else refused (_rundir.py).
    run_dir = claim(spec.output_dir, "simulate", SIMULATE_FILES)
    out = run_dir.path

    if spec.print_simulation:
        print_simulation(workload, sys.stdout)

    cut = spec.until_ms is not None
    if spec.backend == "ray":
        from yarnball.launcher._simulate_sharded import simulate_sharded

        summary = simulate_sharded(
            spec,
            conf,
            workload,
            out,
            track,
            interval_ms,
            Progress(None, _target_ms(workload, spec.until_ms), sys.stderr, enabled=spec.progress),
            webapp=webapp,
            faults=faults,
        )
        run_dir.complete()
        print_summary(summary, out, sys.stdout)
        return _result(summary, out, cut)
    configure_logging(json_path=out / "events.jsonl", level=spec.log_level_name)
    try:
        cluster = Cluster(conf, workload.nodes, seed=spec.seed, latency_ms=spec.latency_ms)
        cluster.submit_workload(workload)
        for at_ms, conf_dir in refreshes:
            cluster.refresh_queues(conf_dir, at_ms=at_ms)
        if faults:
            cluster.inject(faults)
        recorder = MetricsRecorder(cluster, interval_ms, track_jobs=[j for j in track if j in known])
        recorder.start()
        progress = Progress(cluster, _target_ms(workload, spec.until_ms), sys.stderr, enabled=spec.progress)

        finished: dict[str, Any] = {}

        def finish(wall: float) -> dict[str, Any]:
            progress.finish()
            summary = write_outputs(
                out, cluster, recorder, wall_seconds=wall, seed=spec.seed, workload=workload, plots=spec.plots
            )
            if spec.report:
                from yarnball.launcher.web.report import write_report, write_state

                write_state(out, cluster)
                write_report(out)
            flush_logging()
            run_dir.complete()  # last: every output is written (a --webapp run may log on while it serves)
            print_summary(summary, out, sys.stdout)
            finished["summary"] = summary
            return summary

        if webapp is not None:
            from yarnball.launcher.web import serve_cluster

            result = serve_cluster(
                cluster,
                *webapp,
                until_ms=spec.until_ms,
                pace=spec.pace,
                keep_serving=not spec.webapp_exit,
                on_progress=progress,
                on_finished=finish,
            )
            if result.interrupted:
                raise KeyboardInterrupt
        elif spec.pace is not None:
            import asyncio

            from yarnball.launcher.web._driver import drive

            start = time.perf_counter()
            asyncio.run(drive(cluster, until_ms=spec.until_ms, pace=spec.pace, on_progress=progress))
            finish(time.perf_counter() - start)
        else:
            start = time.perf_counter()
            cluster.run(until_ms=spec.until_ms, on_progress=progress)
            finish(time.perf_counter() - start)
    finally:
        close_logging()
    return _result(finished["summary"], out, cut)


def _result(summary: dict[str, Any], out: Path, cut: bool) -> RunResult:
    status, reason = run_status(summary, cut=cut)
    return RunResult(summary=summary, status=status, reason=reason, output_dir=out)


def run_status(summary: dict[str, Any], *, cut: bool = False) -> tuple[int, str | None]:
    """0, or 3 with one line saying why when the run went wrong: an actor handler raised (a bug or a bad input), no
    application could ever progress (the run stalled), every application was rejected, or none finished. ``cut``:
    the user stopped the run with --until-ms, so applications left unfinished (or not yet submitted) are what was
    asked for."""
    failures = summary.get("errors", {}).get("handler_failures", {"count": 0, "first": []})
    apps = summary["applications"]
    stalled = summary.get("errors", {}).get("stalled")
    if failures["count"]:
        first = failures["first"][0]
        return 3, (
            f"{failures['count']} actor handler failure{'s' if failures['count'] != 1 else ''} in the run (a bug or "
            f"a bad input; all in summary.json errors); the first: {first['actor']} handling "
            f"{first['message_type']} at {first['time_ms']:g} ms raised {first['error']}"
        )
    if stalled:
        return 3, f"the run stopped at {summary['simulated_seconds']:,.1f} s: {stalled} (summary.json errors.stalled)"
    if apps["submitted"] and apps["rejected"] == apps["submitted"]:
        reasons = summary.get("rejected_by_reason", {})
        top = next(iter(reasons), "")
        others = len(reasons) - 1
        more = f" (and {others} other reason{'s' if others > 1 else ''}, in summary.json)" if others else ""
        return 3, f"every application ({apps['submitted']}) was rejected: {top}{more}"
    if apps["finished"] == 0 and not cut:
        if not apps["submitted"]:
            return 3, f"no application finished: none was submitted ({summary['jobs']['skipped']} jobs skipped)"
        return 3, (
            f"no application finished: {apps['submitted']} submitted, {apps['failed']} failed, "
            f"{apps['killed']} killed, {apps['rejected']} rejected, {apps['unfinished']} unfinished"
        )
    return 0, None


def _refresh_arguments(conf: Any, specs: tuple[str, ...]) -> list[tuple[float, str]]:
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


def load_configuration(conf_dir: str | None) -> Any:
    """``--conf-dir``'s files (yarn-site.xml, capacity-scheduler.xml, ...), or the defaults without one."""
    from yarnball.launcher._settings import load_conf_dir
    from yarnball.protocols import Configuration

    return Configuration() if conf_dir is None else load_conf_dir(conf_dir)


def _target_ms(workload: Any, until_ms: int | None) -> float:
    if until_ms is not None:
        return float(until_ms)
    ends = [j.end_ms if j.end_ms is not None else j.submit_ms for j in workload.jobs]
    return float(max(ends, default=0))

