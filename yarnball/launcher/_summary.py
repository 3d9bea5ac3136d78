"""``summary.json``: what a run did, from the ResourceManager's counters and final state and the metrics samples.

Counts (applications, containers, scheduler operations), utilisation, job completion and waiting times
(``launcher/_jobtimes.py``), what did not finish and why, the rejections and refused requests by reason, and the
run's own errors. :func:`~yarnball.launcher._outputs.write_outputs` adds the scheduler-specific sections and writes it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from yarnball.actors._failures import HandlerFailures
from yarnball.launcher._completed import output_applications
from yarnball.launcher._elastic import node_hours
from yarnball.launcher._jobtimes import job_times
from yarnball.protocols import YarnApplicationState

if TYPE_CHECKING:
    from yarnball.launcher._outputs import MetricsRecorder

__all__ = [
    "build_summary",
    "jobs_by_id",
    "ms_field",
    "rejection_reason",
    "rejections_by_reason",
    "round_float",
    "security_summary",
]

_FINAL_STATES = frozenset({YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED})
_FLOAT_DIGITS = 6  # summary floats are rounded so that they print the same on every platform


def build_summary(
    cluster: Any, recorder: MetricsRecorder, *, wall_seconds: float, seed: int, workload: Any | None = None
) -> dict[str, Any]:
    """The run's summary: counts from the RM's counters, utilisation from the samples, what did not finish and why."""
    rm = cluster.rm
    c = rm.counters
    now = float(cluster.kernel.now)
    simulated_seconds = now / 1000.0
    apps = sorted(output_applications(cluster).items(), key=lambda kv: (kv[0].cluster_timestamp, kv[0].id))
    unfinished: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    seen_jobs: set[str] = set()
    for app_id, app in apps:
        seen_jobs.add(app.context.application_name)
        entry = {"job_id": app.context.application_name, "application_id": str(app_id), "state": app.state.value}
        if app.state not in _FINAL_STATES:
            unfinished.append({**entry, "reason": f"still {app.state.value} when the run stopped"})
        elif app.state is not YarnApplicationState.FINISHED:
            failed.append({**entry, "final_status": app.final_status.value, "diagnostics": app.diagnostics})
    # Jobs handed to the cluster whose submit time the run never reached (``--until-ms``).
    for job_id, job in sorted(jobs_by_id(cluster, workload).items(), key=lambda kv: (kv[1].submit_ms, kv[0])):
        if job_id not in seen_jobs and job_id in getattr(cluster, "jobs", {}):
            unfinished.append(
                {
                    "job_id": job_id,
                    "application_id": None,
                    "state": "NOT_SUBMITTED",
                    "reason": f"the run stopped at {ms_field(now)} ms, before the job's submit time {job.submit_ms} ms",
                }
            )
    # The cluster's list holds the workload's refused jobs plus those it could not start (unknown AM type).
    refused = getattr(cluster, "skipped", None)
    if refused is None:
        refused = workload.skipped if workload is not None else ()
    skipped = [{"job_id": s.job_id, "reason": s.reason} for s in refused]
    total = rm.scheduler.cluster_resource
    failures = getattr(cluster, "handler_failures", None) or HandlerFailures()
    return {
        "simulated_seconds": round_float(simulated_seconds),
        "wall_seconds": round_float(wall_seconds),
        "speedup": round_float(simulated_seconds / wall_seconds) if wall_seconds > 0 else None,
        "seed": seed,
        "source": getattr(workload, "source", "") if workload is not None else "",
        "cluster": {"nodes": len(rm.nodes), "memory_mb": total.memory_mb, "vcores": total.vcores},
        "jobs": {
            "in_trace": len(workload.jobs) if workload is not None else len(getattr(cluster, "jobs", {})),
            "skipped": len(skipped),
        },
        "applications": {
            "submitted": c["apps_submitted"],
            "finished": c["apps_finished"],
            "failed": c["apps_failed"],
            "killed": c["apps_killed"],
            "rejected": c["apps_rejected"],
            "unfinished": len(unfinished),
        },
        "rejected_by_reason": rejections_by_reason(output_applications(cluster).values()),
        # Requests refused for want of a token or an ACL (actors/_secretmanagers.py): the RM's and the NMs'.
        "security": security_summary(cluster),
        "containers": {
            "allocated": c["containers_allocated"],
            "completed": c["containers_completed"],
            "killed": c["containers_killed"],
            "preempted": c["containers_preempted"],
            "lost": c["containers_lost"],
            "running_at_end": len(rm.live),
            **_opportunistic_counts(rm),
        },
        "scheduler_operations": {op: rm.op_counts[op] for op in sorted(rm.op_counts)},
        "node_hours": round_float(node_hours(cluster)),  # billed node time (launcher/_elastic.py)
        "elastic": cluster.autoscaler.report().to_dict(events=False) if getattr(cluster, "autoscaler", None) else None,
        "utilization": recorder.utilization(),
        # Completion and waiting times, overall and per queue (launcher/_jobtimes.py).
        "job_times": job_times(output_applications(cluster).values()),
        "samples": len(recorder.cluster_rows),
        "sample_interval_ms": recorder.interval_ms,
        "skipped_jobs": skipped,
        "failed_jobs": failed,
        "unfinished": unfinished,
        # What went wrong in the run itself (actor handlers that raised: a bug or a bad input): `yarnball simulate`
        # exits 3 when there is any.
        "errors": {
            "handler_failures": failures.to_dict(),
            # a run no application could ever progress in, stopped (launcher/_stall.py): what blocks it
            **({"stalled": cluster.stalled} if getattr(cluster, "stalled", None) else {}),
        },
    }


_USER = re.compile(r"\b([Uu]ser\s*:?\s*)([^\s,]+)")


def security_summary(cluster: Any) -> dict[str, Any]:
    """``{"rejected": n, "rejected_by_reason": {reason: count}}`` over the RM and the NodeManagers (a sharded run's
    driver sees the NMs of its own host only), most frequent first (then by reason)."""
    counts: Counter[str] = Counter()
    roles = [cluster.rm, *getattr(cluster, "node_managers", {}).values()]
    if not hasattr(cluster, "node_managers"):
        roles += [a for a in cluster.kernel.actors.values() if a is not cluster.rm]
    for role in roles:
        rejections = getattr(role, "rejections", None)
        if rejections:
            counts.update(rejections.by_reason)
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"rejected": sum(counts.values()), "rejected_by_reason": dict(ordered)}


def rejection_reason(app: Any) -> str:
    """A rejected application's diagnostics with its own id and user taken out, so that applications refused for
    the same reason (an unknown queue, a stopped queue, an ACL) count together."""
    text: str = app.diagnostics.replace(str(app.id), "<application>")
    return _USER.sub(r"\1<user>", text)


def rejections_by_reason(apps: Iterable[Any]) -> dict[str, int]:
    """How many applications were rejected for each reason, most frequent first (then by reason)."""
    counts: dict[str, int] = {}
    for app in apps:
        if getattr(app, "rejected", False):
            reason = rejection_reason(app)
            counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _opportunistic_counts(rm: Any) -> dict[str, int]:
    """OPPORTUNISTIC containers allocated by the RM, killed by NM ContainerSchedulers (-108) and promoted."""
    opp = getattr(rm, "opportunistic", None)
    c = opp.counters if opp is not None else {}
    return {
        "opportunistic_allocated": c.get("opportunistic_allocated", 0),
        "opportunistic_killed": c.get("opportunistic_killed", 0),
        "promoted": c.get("promoted", 0),
    }


def jobs_by_id(cluster: Any, workload: Any | None) -> dict[str, Any]:
    """The run's jobs by id: the workload's, then those handed to the cluster otherwise."""
    jobs: dict[str, Any] = {}
    if workload is not None:
        for job in workload.jobs:
            jobs[job.job_id] = job  # SLS tracks the last job of a repeated id
    for job_id, job in getattr(cluster, "jobs", {}).items():
        jobs.setdefault(job_id, job)
    return jobs


def ms_field(value: float | None) -> int | float | str:
    """A time in ms as an output field: whole numbers as ints, None as an empty field."""
    if value is None:
        return ""
    return int(value) if value == int(value) else value


def round_float(value: float) -> float:
    """A summary float, rounded so that it prints the same on every platform."""
    return round(float(value), _FLOAT_DIGITS)
