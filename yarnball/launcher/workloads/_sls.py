"""SLS-native JSON traces (``--tracetype=SLS``): AMDefinitionFactory.createFromSlsTrace and AMDefinitionSLS.

Each root object is a job; an object with ``num.nodes`` (and ``num.racks``) but no ``job.tasks`` is a cluster
header (SLSUtils.parseNodesFromSLSTrace). Error policy, matching SLS where it rejects a single job:

- wrong types, unparsable numbers, an unknown execution type, a missing ``job.queue.name`` or ``job.start.ms``,
  values outside their domain (negative counts, durations or submit times, memory or vcores below 1, a container
  or job that ends before it starts, names that are not UTF-8): :class:`TraceFormatError` naming file, job and
  field, and the allowed range;
- keys SLS does not read: a warning naming the closest known key (an error when ``strict``);
- what SLS's AMRunner catches per job ("Failed to create an AM") goes to ``Workload.skipped`` with SLS's message:
  no tasks ("No task for the job!"), a zero or missing task duration ("Duration of a task shouldn't be less or
  equal to 0!"), an AM type not registered in ``yarn.sls.am.type.<name>``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from yarnball.protocols import ExecutionType, Resource

from ._defaults import TraceDefaults
from ._json import INT_MAX, MAX_EXPANSION, KeyPolicy, Where, iter_json_values, stream_json_values
from ._keys import SLS_JOB, SLS_TASK, check_format, resource_keys
from ._model import JobSpec, NodeSpec, SkippedJob, TaskSpec, Workload
from ._nodes import collect_workload, generate_nodes, split_host_path

__all__ = ["JobCounter", "iter_sls_trace", "nodes_from_sls_trace", "read_sls_trace"]


NO_TASK = "No task for the job!"
BAD_DURATION = "Duration of a task shouldn't be less or equal to 0!"
DEFAULT_MAP_PRIORITY = 20  # AMDefinitionRumen.DEFAULT_MAPPER_PRIORITY, TaskContainerDefinition's default
DEFAULT_AM_TYPE = "mapreduce"  # AMDefinitionFactory.DEFAULT_JOB_TYPE
DEFAULT_USER = "default"  # AMDefinition.AmDefinitionBuilder.DEFAULT_USER
AM_TYPE_KEY = "yarn.sls.am.type"  # SLSConfiguration.AM_TYPE: the key the code reads (not the docs' "am.type")


class JobCounter:
    """AMRunner's ``AM_ID``: counts every AM created, across all trace files; unnamed jobs are called by it."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


def read_sls_trace(
    path: str | os.PathLike[str],
    defaults: TraceDefaults | None = None,
    *,
    counter: JobCounter | None = None,
    strict: bool = False,
) -> Workload:
    """Read one SLS JSON trace. Nodes are those the trace names (as when SLS runs without ``--nodes``).

    ``strict`` turns the unknown-key warnings into errors.
    """
    name = os.fspath(path)
    return collect_workload(iter_sls_trace(path, defaults, counter=counter, strict=strict), name, f"SLS:{name}")


def iter_sls_trace(
    path: str | os.PathLike[str],
    defaults: TraceDefaults | None = None,
    *,
    counter: JobCounter | None = None,
    strict: bool = False,
    again: bool = False,
) -> Iterator[JobSpec | SkippedJob | NodeSpec]:
    """The jobs, refused jobs and nodes of one SLS JSON trace, in the trace's order, as they are read.

    ``again``: the trace was read once already (its warnings given, its errors raised): it is read a chunk at a time
    and says nothing (workloads/_stream.py).
    """
    name = os.fspath(path)
    defaults = defaults or TraceDefaults()
    counter = counter or JobCounter()
    policy = KeyPolicy(strict, quiet=again)
    job_keys = SLS_JOB | resource_keys("am.", defaults.resource_types)
    values = stream_json_values(path) if again else iter_json_values(path, what="SLS trace")
    for index, line, raw in values:
        if index == 0:
            check_format(path, raw, "SLS trace")
        where = Where(name, f"job #{index} (line {line})", policy)
        entry = where.obj(raw, "<root>")
        job_id = entry.get("job.id")
        if isinstance(job_id, str):
            where = where.at(f"job '{job_id}' (#{index}, line {line})")
        where.check_keys(entry, job_keys)
        if "job.tasks" not in entry and "num.nodes" in entry:
            yield from _entry_nodes(entry, where, defaults)
            continue  # a cluster header, not a job
        yield from _jobs_from_entry(entry, where, f"#{index}", defaults, counter)
        yield from _entry_nodes(entry, where, defaults)


def _jobs_from_entry(
    entry: dict[str, Any], where: Where, ref: str, defaults: TraceDefaults, counter: JobCounter
) -> Iterator[JobSpec | SkippedJob]:
    job_id_raw = entry.get("job.id")
    job_id = None if job_id_raw is None else where.string(job_id_raw, "job.id")
    # withJobCount: Integer.parseInt; more copies than MAX_EXPANSION is taken for a typo.
    job_count = where.opt_long(entry, "job.count", 1, minimum=0, maximum=MAX_EXPANSION)
    # AMDefinitionSLS.Builder.withJobCount: max(count, 1); with more than one copy the trace's id is dropped and
    # every copy is named by AMRunner's running AM number.
    job_count = max(job_count, 1)
    am_type = DEFAULT_AM_TYPE
    if entry.get(AM_TYPE_KEY) is not None:
        am_type = where.string(entry[AM_TYPE_KEY], AM_TYPE_KEY)
    elif entry.get("am.type") is not None and where.text(entry["am.type"], "am.type") != DEFAULT_AM_TYPE:
        # Docs and SLS's inputsls.json write "am.type", which SLS's code does not read.
        where.warning(
            "'am.type' is not read by SLS; use 'yarn.sls.am.type'",
            file=where.path,
            job=job_id,
            am_type=entry.get("am.type"),
        )
    user = DEFAULT_USER if entry.get("job.user") is None else where.string(entry["job.user"], "job.user")
    if entry.get("job.queue.name") is None:
        where.fail("job.queue.name", "missing (every SLS job must name its queue)")
    queue = where.text(entry["job.queue.name"], "job.queue.name")
    # SLSRunner.createAMForJob parsed job.start.ms unconditionally before YARN-10550 (a NullPointerException when
    # absent); the refactored builder silently starts such a job at 0. A job without a start time is refused.
    if entry.get("job.start.ms") is None:
        where.fail("job.start.ms", "missing (every SLS job needs its submit time, in ms)")
    start = where.long(entry["job.start.ms"], "job.start.ms", minimum=0)
    end = None
    if entry.get("job.end.ms") is not None:
        end = where.long(entry["job.end.ms"], "job.end.ms")
        if end < start:
            where.fail("job.end.ms", f"must be >= job.start.ms ({start}), got {end}")
    label = (
        ""
        if entry.get("job.label.expression") is None
        else where.text(entry["job.label.expression"], "job.label.expression")
    )
    am_resource = _resource(entry, where, "am.", defaults.am_resource, defaults)

    raw_tasks = entry.get("job.tasks")
    reason: str | None = None
    tasks: tuple[TaskSpec, ...] = ()
    if raw_tasks is None or (isinstance(raw_tasks, list) and not raw_tasks):
        reason = NO_TASK
    else:
        parsed = [
            _task(t, where, f"job.tasks[{i}]", defaults) for i, t in enumerate(where.list(raw_tasks, "job.tasks"))
        ]
        if any(t is None for t in parsed):
            reason = BAD_DURATION
        else:
            tasks = tuple(t for t in parsed if t is not None)
    if reason is None and am_type not in defaults.am_types:
        reason = f"AM type '{am_type}' is not registered (no yarn.sls.am.type.{am_type})"
    if reason is not None:
        where.warning("SLS would not create this AM", file=where.path, job=job_id or ref, reason=reason)
        yield SkippedJob(job_id if job_id is not None else ref, reason)
        return
    for _ in range(job_count):
        jid = job_id if (job_id is not None and job_count == 1) else str(counter.value)
        counter.value += 1
        yield JobSpec(jid, am_type, user, queue, start, end, am_resource, tasks, label_expression=label)


def _task(raw: Any, where: Where, field: str, defaults: TraceDefaults) -> TaskSpec | None:
    """TaskContainerDefinition.Builder; ``None`` when SLS finds no positive duration."""
    task = where.obj(raw, field)
    where.check_keys(task, SLS_TASK | resource_keys("container.", defaults.resource_types), field)

    def f(key: str) -> str:
        return f"{field}.{key}"

    # withCount: Integer.parseInt, then max(count, 1); more than MAX_EXPANSION containers is taken for a typo.
    count = max(1, _long(task, "count", 1, where, f, minimum=0, maximum=MAX_EXPANSION))
    duration = _long(task, "container.duration.ms", -1, where, f, minimum=0)
    legacy = _long(task, "duration.ms", -1, where, f, minimum=0)
    start = _long(task, "container.start.ms", -1, where, f, minimum=0)
    end = _long(task, "container.end.ms", -1, where, f, minimum=0)
    # validateAndGetDuration: container.duration.ms, else duration.ms, else end - start (both must be present).
    if duration == -1 and legacy != -1:
        duration = legacy
    if task.get("container.start.ms") is not None and task.get("container.end.ms") is not None:
        if end < start:
            where.fail(f("container.end.ms"), f"must be >= container.start.ms ({start}), got {end}")
        if duration == -1:
            duration = end - start
    host = task.get("container.host")
    placed = None if host is None else split_host_path(where.string(host, f("container.host")))
    hosts, rack = ((placed[1],), placed[0]) if placed else ((), None)
    exec_type = ExecutionType.GUARANTEED
    if task.get("container.execution.type") is not None:
        text = where.text(task["container.execution.type"], f("container.execution.type"))
        try:
            exec_type = ExecutionType(text)  # ExecutionType.valueOf: exact, case-sensitive
        except ValueError:
            where.fail(f("container.execution.type"), f"expected GUARANTEED or OPPORTUNISTIC, got {text!r}")
    task_type = "map" if task.get("container.type") is None else where.text(task["container.type"], f("container.type"))
    # withPriority: Integer.parseInt.
    priority = _long(task, "container.priority", DEFAULT_MAP_PRIORITY, where, f, minimum=-INT_MAX - 1, maximum=INT_MAX)
    resource = _resource(task, where, "container.", defaults.container_resource, defaults, field)
    allocation_id = _long(task, "container.allocation.id", -1, where, f)
    delay = _long(task, "container.request.delay", 0, where, f)
    if duration <= 0:
        return None  # every field was checked first: the job is skipped, its hosts still name nodes
    return TaskSpec(
        count=count,
        duration_ms=duration,
        priority=priority,
        task_type=task_type,
        resource=resource,
        hosts=hosts,
        rack=rack,
        execution_type=exec_type,
        allocation_request_id=allocation_id,
        request_delay_ms=max(0, delay),  # withRequestDelay: negative delays become 0
    )


def _long(
    d: dict[str, Any],
    key: str,
    default: int,
    where: Where,
    f: Any,
    *,
    minimum: int | None = None,
    maximum: int = 2**63 - 1,
) -> int:
    if d.get(key) is None:
        return default
    return where.long(d[key], f(key), minimum=minimum, maximum=maximum)


def _resource(
    d: dict[str, Any], where: Where, prefix: str, base: Resource, defaults: TraceDefaults, field: str = ""
) -> Resource:
    """``<prefix>memory-mb`` / ``<prefix>vcores`` / ``<prefix><type>`` override the default resource.

    Memory and vcores must be at least 1 (a container of nothing is a typo); other resource types may be 0.
    """

    def key(k: str) -> str:
        return f"{field}.{prefix}{k}" if field else f"{prefix}{k}"

    mem = (
        base.memory_mb
        if d.get(prefix + "memory-mb") is None
        else where.long(d[prefix + "memory-mb"], key("memory-mb"), minimum=1)
    )
    vcores = (
        base.vcores
        if d.get(prefix + "vcores") is None
        else where.long(d[prefix + "vcores"], key("vcores"), minimum=1, maximum=INT_MAX)
    )
    extended = dict(base.extended)
    for rt in defaults.resource_types:
        if d.get(prefix + rt) is not None:
            extended[rt] = where.long(d[prefix + rt], key(rt), minimum=0)
    return Resource(mem, vcores, tuple(sorted(extended.items())))


def nodes_from_sls_trace(path: str | os.PathLike[str], defaults: TraceDefaults | None = None) -> tuple[NodeSpec, ...]:
    """SLSUtils.parseNodesFromSLSTrace: ``num.nodes``/``num.racks`` headers plus every ``container.host``."""
    return read_sls_trace(path, defaults).nodes


def _entry_nodes(entry: dict[str, Any], where: Where, defaults: TraceDefaults) -> list[NodeSpec]:
    nodes: list[NodeSpec] = []
    if entry.get("num.nodes") is not None:
        num_nodes = where.long(entry["num.nodes"], "num.nodes", minimum=0, maximum=MAX_EXPANSION)
        # SLSUtils.addNodes: one rack unless told; generateNodes clamps 0 racks to 1, which hides a typo.
        num_racks = where.opt_long(entry, "num.racks", 1, minimum=1, maximum=MAX_EXPANSION)
        nodes.extend(generate_nodes(num_nodes, num_racks, defaults.nm_resource))
    tasks = entry.get("job.tasks")
    if isinstance(tasks, list):
        for i, task in enumerate(tasks):
            host = task.get("container.host") if isinstance(task, dict) else None
            placed = None if host is None else split_host_path(where.string(host, f"job.tasks[{i}].container.host"))
            if placed is not None:
                nodes.append(NodeSpec(placed[1], placed[0], defaults.nm_resource))
    return nodes
