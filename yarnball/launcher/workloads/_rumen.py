"""Rumen job traces (``--tracetype=RUMEN``): AMDefinitionRumen and SLSUtils.parseNodesFromRumenTrace.

Of a Rumen LoggedJob SLS uses only ``jobID``, ``user``, ``queue``, ``submitTime``, ``finishTime`` and, for each of
``mapTasks`` / ``reduceTasks``, the *last* attempt's ``hostName`` (``/rack/host``), ``startTime`` and
``finishTime``. Maps get priority 20, reduces 10, every container the ``yarn.sls.container.*`` default size (the
trace's own memory figures are ignored) and the AM type is always ``mapreduce``.

Job times are rebased so that the first job of the first trace is submitted at 0, as SLSRunner did before the
YARN-10550 refactoring (a job that would start before 0 is moved to 0 keeping its length). Quirk not copied: the
refactored AMRunner passes a baseline of 0 to every job, which makes AMDefinitionRumen rebase each job to its own
submit time so that every Rumen job starts at 0 - an apparent regression.

A task without attempts makes SLS refuse the whole job ("Invalid map task, no attempt for a mapper!"); such jobs,
and jobs whose last attempt has no positive duration, go to ``Workload.skipped``. A job must have ``jobID``,
``queue`` and a ``submitTime`` >= 0; a ``finishTime`` before it is an error (-1, Rumen's "unknown", means none).
Keys that are not properties of Rumen's LoggedJob / LoggedTask / LoggedTaskAttempt draw a warning with the closest
known name (an error when ``strict``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from yarnball.protocols import ExecutionType

from ._defaults import TraceDefaults
from ._json import LONG_MAX, KeyPolicy, Where, iter_json_values, stream_json_values
from ._keys import RUMEN_ATTEMPT, RUMEN_JOB, RUMEN_TASK, check_format
from ._model import JobSpec, NodeSpec, SkippedJob, TaskSpec, Workload
from ._nodes import collect_workload, split_host_path
from ._sls import BAD_DURATION, DEFAULT_AM_TYPE, DEFAULT_USER

__all__ = ["RumenBaseline", "iter_rumen_trace", "read_rumen_trace"]


MAP_PRIORITY = 20  # AMDefinitionRumen.DEFAULT_MAPPER_PRIORITY
REDUCE_PRIORITY = 10  # AMDefinitionRumen.DEFAULT_REDUCER_PRIORITY
_PHASES = (
    ("mapTasks", "map", MAP_PRIORITY, "Invalid map task, no attempt for a mapper!"),
    ("reduceTasks", "reduce", REDUCE_PRIORITY, "Invalid reduce task, no attempt for a reducer!"),
)


class RumenBaseline:
    """The trace time that becomes simulation time 0: the first job's submit time, shared by all trace files."""

    __slots__ = ("ms",)

    def __init__(self) -> None:
        self.ms: int | None = None


def read_rumen_trace(
    path: str | os.PathLike[str],
    defaults: TraceDefaults | None = None,
    *,
    baseline: RumenBaseline | None = None,
    strict: bool = False,
) -> Workload:
    """Read one Rumen trace (concatenated LoggedJob objects). Nodes are the hosts of the last attempts.

    ``strict`` turns the unknown-key warnings into errors.
    """
    name = os.fspath(path)
    return collect_workload(iter_rumen_trace(path, defaults, baseline=baseline, strict=strict), name, f"RUMEN:{name}")


def iter_rumen_trace(
    path: str | os.PathLike[str],
    defaults: TraceDefaults | None = None,
    *,
    baseline: RumenBaseline | None = None,
    strict: bool = False,
    again: bool = False,
) -> Iterator[JobSpec | SkippedJob | NodeSpec]:
    """The jobs, refused jobs and nodes of one Rumen trace, in the trace's order, as they are read (a job's nodes
    before it). ``again``: read once already; read a chunk at a time, saying nothing (workloads/_stream.py)."""
    name = os.fspath(path)
    policy = KeyPolicy(strict, quiet=again)
    defaults = defaults or TraceDefaults()
    baseline = baseline or RumenBaseline()
    values = stream_json_values(path) if again else iter_json_values(path, what="Rumen trace")
    for index, line, raw in values:
        if index == 0:
            check_format(path, raw, "Rumen trace")
        where = Where(name, f"job #{index} (line {line})", policy)
        job = where.obj(raw, "<root>")
        if job.get("jobID") is None:
            where.fail("jobID", "missing")
        job_id = where.string(job["jobID"], "jobID")
        where = where.at(f"job '{job_id}' (#{index}, line {line})")
        where.check_keys(job, RUMEN_JOB)
        # LoggedJob.getUser() is null without "user": SLS uses "default".
        user = DEFAULT_USER if job.get("user") is None else where.text(job["user"], "user")
        if job.get("queue") is None:
            where.fail("queue", "missing (SLS reads job.getQueue().getValue())")
        queue = where.text(job["queue"], "queue")
        if job.get("submitTime") is None:
            where.fail("submitTime", "missing")
        submit = where.long(job["submitTime"], "submitTime", minimum=0)
        finish = None if job.get("finishTime") is None else where.long(job["finishTime"], "finishTime")
        if finish == -1:  # LoggedJob's default: the job's end was not logged
            finish = None
        if finish is not None and finish < submit:
            where.fail("finishTime", f"must be >= submitTime ({submit}) or -1 (unknown), got {finish}")
        job_name = "" if job.get("jobName") is None else where.text(job["jobName"], "jobName")
        if baseline.ms is None:  # SLSRunner set it from the first job it read, before looking at the tasks
            baseline.ms = submit

        tasks: list[TaskSpec] = []
        reason: str | None = None
        for key, task_type, priority, no_attempt in _PHASES:
            phase = job.get(key)
            for i, raw_task in enumerate(where.list([] if phase is None else phase, key)):
                field = f"{key}[{i}]"
                task = where.obj(raw_task, field)
                where.check_keys(task, RUMEN_TASK, field)
                raw_attempts = task.get("attempts")
                attempts = where.list([] if raw_attempts is None else raw_attempts, f"{field}.attempts")
                if not attempts:
                    reason = reason or no_attempt
                    continue
                last = len(attempts) - 1
                afield = f"{field}.attempts[{last}]"
                for j, other in enumerate(attempts):
                    ofield = f"{field}.attempts[{j}]"
                    where.check_keys(where.obj(other, ofield), RUMEN_ATTEMPT, ofield)
                attempt = where.obj(attempts[last], afield)
                placed = _host(attempt, where, afield)
                if placed is not None:  # parseNodesFromRumenTrace also skips tasks without attempts
                    yield NodeSpec(placed[1], placed[0], defaults.nm_resource)
                # LoggedTaskAttempt's times: epoch ms, or -1 when not logged.
                start = where.long(attempt.get("startTime", -1), f"{afield}.startTime", minimum=-1)
                end = where.long(attempt.get("finishTime", -1), f"{afield}.finishTime", minimum=-1)
                if end - start > LONG_MAX:
                    where.fail(f"{afield}.finishTime", f"the attempt lasts more than {LONG_MAX} ms")
                if end - start <= 0:
                    reason = reason or BAD_DURATION
                    continue
                tasks.append(
                    TaskSpec(
                        count=1,
                        duration_ms=end - start,
                        priority=priority,
                        task_type=task_type,
                        resource=defaults.container_resource,
                        hosts=(placed[1],) if placed else (),
                        rack=placed[0] if placed else None,
                        execution_type=ExecutionType.GUARANTEED,
                        allocation_request_id=-1,
                    )
                )
        if reason is None and DEFAULT_AM_TYPE not in defaults.am_types:
            reason = f"AM type '{DEFAULT_AM_TYPE}' is not registered (no yarn.sls.am.type.{DEFAULT_AM_TYPE})"
        if reason is not None:
            where.warning("SLS would not create this AM", file=name, job=job_id, reason=reason)
            yield SkippedJob(job_id, reason)
            continue
        # AMDefinitionFactory.adjustTimeValuesToBaselineTime
        start_ms = submit - baseline.ms
        end_ms = None if finish is None else finish - baseline.ms
        if start_ms < 0:
            where.warning("Warning: reset job start time to 0.", file=name, job=job_id)
            end_ms = None if end_ms is None else end_ms - start_ms
            start_ms = 0
        yield JobSpec(
            job_id,
            DEFAULT_AM_TYPE,
            user,
            queue,
            start_ms,
            end_ms,
            defaults.am_resource,
            tuple(tasks),
            name=job_name,
        )


def _host(attempt: dict[str, Any], where: Where, field: str) -> tuple[str, str] | None:
    host = attempt.get("hostName")
    if host is None:
        where.fail(f"{field}.hostName", "missing (SLS reads the last attempt's host)")
    return split_host_path(where.string(host, f"{field}.hostName"))
