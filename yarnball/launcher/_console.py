"""What ``yarnball simulate`` writes on the terminal: the simulation table, the progress line, the summary, and the
``yarnball: error:``, ``note:`` and ``warning:`` lines."""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from typing import IO, Any

__all__ = [
    "PROG",
    "Progress",
    "error",
    "error_text",
    "note",
    "os_error_text",
    "print_simulation",
    "print_summary",
    "warn",
]

PROG = "yarnball"


def error_text(message: object) -> str:
    """``message`` on one line (what follows ``yarnball: error:``)."""
    return " ".join(str(message).split()) if "\n" in str(message) else str(message)


def os_error_text(err: OSError) -> str:
    """An OSError as the user reads it: the file, then what went wrong."""
    name = f"{err.filename}: " if err.filename else ""
    return f"{name}{err.strerror or err}"


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


class Progress:
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


def print_summary(summary: dict[str, Any], out: Path, stream: IO[str]) -> None:
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
        *_job_time_lines(summary.get("job_times")),
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


def _job_time_lines(times: dict[str, Any] | None) -> list[str]:
    """summary.json's overall job_times as a small table: one line per measure, in simulated seconds."""
    if not times:
        return []
    rows = (("completion", "completion_s"), ("wait for AM", "am_wait_s"), ("first task", "first_task_wait_s"))
    stats = ("mean", "median", "p95", "p99", "max")
    header = "".join(f"{s:>10}" for s in (*stats, "jobs"))
    lines = [f"  {'job times (s)':<13}{header}  (per queue: summary.json job_times)"]
    for label, measure in rows:
        d = times["overall"][measure]
        values = "".join(f"{d[s]:>10,.2f}" if d[s] is not None else f"{'-':>10}" for s in stats)
        lines.append(f"    {label:<11}{values}{d['count']:>10}")
    return lines


def error(message: object) -> None:
    print(f"{PROG}: error: {error_text(message)}", file=sys.stderr)


def note(message: str) -> None:
    print(f"{PROG}: note: {message}", file=sys.stderr)


def warn(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)
