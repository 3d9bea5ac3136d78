"""SYNTH generator traces (``--tracetype=SYNTH``): SynthTraceJobProducer, SynthJob and AMDefinitionSynth.

The generator is reproduced step by step with Python's ``random.Random`` instead of Java's ``Random`` and
commons-math, so a seed gives the same jobs on every run but not the numbers SLS draws. The order of draws
follows SLS: samples get their own generators (seeded from the master) when the trace is initialised; then every
job picks a workload, a submit time in a weighted time bucket and a job class; jobs are sorted by submit time and
expanded (duration, reservation coin, deadline factor, master reseeded, task counts, sizes and times).

Units, as SLS uses them: ``time_distribution[].time`` and the job ``duration`` are seconds; task ``time`` is used
as milliseconds (SynthJob.getTime() goes straight into the container duration, although the legacy fields say
"in sec" - so syn.json's ``mtime_avg: 10`` is a 10 ms task). Task memory is at least 1024 MB and vcores at least
1 (SynthJob.MIN_MEMORY / MIN_VCORES). Job ids are SynthJob's ``job_job_mock_<class>_<n:06d>_<n:04d>``.

Times are rebased so the first job is submitted at 0, as SLSRunner did before YARN-10550 (the refactored
AMDefinitionSynth rebases every job to its own submit time, i.e. all at 0 - an apparent regression, not copied).
Each job's preferred hosts are drawn with a fresh ``Random(seed)``, so every job's i-th task prefers the same node
(AMDefinitionSynth quirk, kept). A job with a task time <= 0 (possible with NORM samples), on which SLS aborts the
whole run, is skipped with SLS's message.

Validation: every value must lie in its domain (counts >= 0, probabilities in [0, 1], standard deviations >= 0,
positive means for distributions, ``nodes_per_rack`` >= 1 when given, Java int/long ranges), and every generator
loop is bounded: at most ``MAX_EXPANSION`` jobs and nodes and ``MAX_SYNTH_TASKS`` task containers; a draw out of
range is an error naming the sample's field. Unknown keys draw a warning with the closest known key (an error
when ``strict``).
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from yarnball._logs import get_logger
from yarnball.protocols import ExecutionType, Resource

from ._defaults import TraceDefaults
from ._json import INT_MAX, LONG_MAX, MAX_EXPANSION, KeyPolicy, Where, iter_json_values
from ._keys import SYNTH_JOB_CLASS, SYNTH_TASK, SYNTH_TIME_SAMPLE, SYNTH_TRACE, SYNTH_WORKLOAD, check_format
from ._model import JobSpec, NodeSpec, SkippedJob, TaskSpec, Workload
from ._nodes import generate_nodes
from ._sls import BAD_DURATION, DEFAULT_USER
from ._synth_sample import Sample, bounded, check_weights, weighted

__all__ = ["iter_synth_trace", "read_synth_trace", "synth_trace_nodes"]

log = get_logger(__name__)

MIN_MEMORY = 1024  # SynthJob.MIN_MEMORY
MIN_VCORES = 1  # SynthJob.MIN_VCORES
_LEGACY_TASKS = (  # SynthTraceJobProducer.validateJobDef: (type, prefix of count/time, prefix of sizes, priority)
    ("map", "mtasks", "mtime", "map", 20),
    ("reduce", "rtasks", "rtime", "reduce", 10),
)
INT_MIN = -INT_MAX - 1
# Domains of the samples (bounds of a constant, a mean or a discrete value; draws are checked where used).
_COUNT = {"low": 0.0, "high": float(MAX_EXPANSION)}
_TIME = {"high": float(LONG_MAX)}
_MEMORY = {"high": float(LONG_MAX)}
_VCORES = {"high": float(INT_MAX)}
_DURATION = {"low": 0.0, "high": float(LONG_MAX // 1000)}  # seconds
_FACTOR = {"low": 0.0}
_PROBABILITY = {"low": 0.0, "high": 1.0}


@dataclass(slots=True)
class _TaskDef:
    type: str
    count: Sample
    time: Sample
    max_memory: Sample
    max_vcores: Sample
    priority: int
    execution_type: ExecutionType


@dataclass(slots=True)
class _JobDef:
    class_name: str
    user: str
    weight: float
    type: str
    deadline_factor: Sample
    duration: Sample
    reservation: Sample
    tasks: list[_TaskDef]
    params: dict[str, str] = field(default_factory=dict)

    def init(self, master: random.Random) -> None:
        self.deadline_factor.init(master)
        self.duration.init(master)
        self.reservation.init(master)
        for t in self.tasks:
            for s in (t.count, t.time, t.max_memory, t.max_vcores):
                s.init(master)


@dataclass(slots=True)
class _WorkloadDef:
    weight: float
    queue: str
    job_classes: list[_JobDef]
    times: list[int]
    time_weights: list[float]


def _int(where: Where, d: dict[str, Any], key: str, path: str, default: int, low: int, high: int) -> int:
    """A Jackson ``int`` field: a number (a fraction is truncated), ``default`` when absent, within ``[low, high]``."""
    if d.get(key) is None:
        return default
    value = where.number(d[key], path)
    if not low <= value < high + 1:
        where.fail(path, f"must be in [{low}, {high}], got {value:g}")
    return int(value)


def _exec_type(where: Where, path: str, raw: Any) -> ExecutionType:
    text = "GUARANTEED" if raw is None else where.text(raw, path)
    try:
        return ExecutionType(text)
    except ValueError:
        where.fail(path, f"expected GUARANTEED or OPPORTUNISTIC, got {text!r}")


def _job_def(where: Where, path: str, raw: Any) -> _JobDef:
    d = where.obj(raw, path)
    where.check_keys(d, SYNTH_JOB_CLASS, path)
    class_name = "null" if d.get("class_name") is None else where.text(d["class_name"], f"{path}.class_name")
    user = DEFAULT_USER if d.get("user_name") is None else where.text(d["user_name"], f"{path}.user_name")
    weight = 0.0 if d.get("class_weight") is None else where.number(d["class_weight"], f"{path}.class_weight")
    params: dict[str, str] = {}
    if d.get("params") is not None:
        for k, v in where.obj(d["params"], f"{path}.params").items():
            params[where.string(k, f"{path}.params")] = where.text(v, f"{path}.params.{k}")
    if d.get("tasks") is None:
        return _legacy_job_def(where, path, d, class_name, user, weight, params)
    tasks = []
    for i, traw in enumerate(where.list(d["tasks"], f"{path}.tasks")):
        tpath = f"{path}.tasks[{i}]"
        t = where.obj(traw, tpath)
        where.check_keys(t, SYNTH_TASK, tpath)
        for key in ("type", "count", "time", "max_memory", "max_vcores"):
            if t.get(key) is None:
                where.fail(f"{tpath}.{key}", "missing")
        tasks.append(
            _TaskDef(
                type=where.text(t["type"], f"{tpath}.type"),
                count=Sample(where, f"{tpath}.count", t["count"], **_COUNT),
                time=Sample(where, f"{tpath}.time", t["time"], **_TIME),
                max_memory=Sample(where, f"{tpath}.max_memory", t["max_memory"], **_MEMORY),
                max_vcores=Sample(where, f"{tpath}.max_vcores", t["max_vcores"], **_VCORES),
                priority=_int(where, t, "priority", f"{tpath}.priority", 0, INT_MIN, INT_MAX),
                execution_type=_exec_type(where, f"{tpath}.execution_type", t.get("execution_type")),
            )
        )
    for key in ("type", "deadline_factor", "duration", "reservation"):
        if d.get(key) is None:
            where.fail(f"{path}.{key}", "missing")
    return _JobDef(
        class_name,
        user,
        weight,
        where.text(d["type"], f"{path}.type"),
        Sample(where, f"{path}.deadline_factor", d["deadline_factor"], **_FACTOR),
        Sample(where, f"{path}.duration", d["duration"], **_DURATION),
        Sample(where, f"{path}.reservation", d["reservation"], **_PROBABILITY),
        tasks,
        params,
    )


def _legacy_job_def(
    where: Where, path: str, d: dict[str, Any], class_name: str, user: str, weight: float, params: dict[str, str]
) -> _JobDef:
    """SynthTraceJobProducer.validateJobDef: the old flat format becomes one map and one reduce task type.

    Every ``<x>_avg`` becomes the mean of a LOGNORM distribution, which SLS cannot build for a mean <= 0 (a
    NullPointerException at the first draw): they are required. Missing ``_stddev`` fields are 0 (Jackson).
    """

    def number(key: str, bounds: dict[str, float]) -> float:
        value = 0.0 if d.get(key) is None else where.number(d[key], f"{path}.{key}")
        return bounded(where, f"{path}.{key}", value, bounds.get("low"), bounds.get("high"))

    def sample(avg: str, std: str | None, bounds: dict[str, float]) -> Sample:
        if std is not None and d.get(avg) is None:
            where.fail(f"{path}.{avg}", "missing (the legacy job class format needs every *_avg)")
        mean = number(avg, bounds)
        return Sample.legacy(
            where,
            f"{path}.{avg}",
            mean,
            None if std is None else number(std, {}),
            f"{path}.{avg}",
            f"{path}.{std}",
        )

    tasks = [
        _TaskDef(
            type=task_type,
            count=sample(f"{n}_avg", f"{n}_stddev", _COUNT),
            time=sample(f"{t}_avg", f"{t}_stddev", _TIME),
            max_memory=sample(f"{size}_max_memory_avg", f"{size}_max_memory_stddev", _MEMORY),
            max_vcores=sample(f"{size}_max_vcores_avg", f"{size}_max_vcores_stddev", _VCORES),
            priority=priority,
            execution_type=_exec_type(where, f"{path}.{size}_execution_type", d.get(f"{size}_execution_type")),
        )
        for task_type, n, t, size, priority in _LEGACY_TASKS
    ]
    return _JobDef(
        class_name,
        user,
        weight,
        "mapreduce",
        sample("deadline_factor_avg", "deadline_factor_stddev", _FACTOR),
        sample("dur_avg", "dur_stddev", _DURATION),
        sample("chance_of_reservation", None, _PROBABILITY),
        tasks,
        params,
    )


def _workload(where: Where, path: str, raw: Any) -> _WorkloadDef:
    d = where.obj(raw, path)
    where.check_keys(d, SYNTH_WORKLOAD, path)
    for key in ("queue_name", "job_classes", "time_distribution"):
        if d.get(key) is None:
            where.fail(f"{path}.{key}", "missing")
    classes = [
        _job_def(where, f"{path}.job_classes[{i}]", c)
        for i, c in enumerate(where.list(d.get("job_classes"), f"{path}.job_classes"))
    ]
    if not classes:
        where.fail(f"{path}.job_classes", "needs at least one job class")
    check_weights(where, f"{path}.job_classes[].class_weight", [c.weight for c in classes])
    buckets = where.list(d.get("time_distribution"), f"{path}.time_distribution")
    if not buckets:
        where.fail(f"{path}.time_distribution", "needs at least one {time, weight} bucket")
    times, time_weights = [], []
    for i, b in enumerate(buckets):
        bpath = f"{path}.time_distribution[{i}]"
        bd = where.obj(b, bpath)
        where.check_keys(bd, SYNTH_TIME_SAMPLE, bpath)
        times.append(_int(where, bd, "time", f"{bpath}.time", 0, INT_MIN, INT_MAX))  # TimeSample.time: int, s
        time_weights.append(0.0 if bd.get("weight") is None else where.number(bd["weight"], f"{bpath}.weight"))
    check_weights(where, f"{path}.time_distribution[].weight", time_weights)
    weight = 0.0 if d.get("workload_weight") is None else where.number(d["workload_weight"], f"{path}.workload_weight")
    return _WorkloadDef(weight, where.text(d["queue_name"], f"{path}.queue_name"), classes, times, time_weights)


def _load(path: str | os.PathLike[str], strict: bool = False, quiet: bool = False) -> tuple[Where, dict[str, Any]]:
    name = os.fspath(path)
    values = list(iter_json_values(path, what="SYNTH trace"))
    if values:
        check_format(path, values[0][2], "SYNTH trace")
    where = Where(name, "SYNTH trace", KeyPolicy(strict, quiet=quiet))
    if len(values) != 1:
        where.fail("<root>", f"expected one JSON object, found {len(values)} values")
    d = where.obj(values[0][2], "<root>")
    where.check_keys(d, SYNTH_TRACE)
    return where, d


def synth_trace_nodes(path: str | os.PathLike[str], defaults: TraceDefaults) -> tuple[NodeSpec, ...]:
    """``num_nodes`` nodes, ``num_nodes // nodes_per_rack`` racks (SLSUtils.generateNodes as NMRunner calls it)."""
    where, d = _load(path)
    return _nodes(where, d, defaults)


def _nodes(where: Where, d: dict[str, Any], defaults: TraceDefaults) -> tuple[NodeSpec, ...]:
    num_nodes = _int(where, d, "num_nodes", "num_nodes", 0, 0, MAX_EXPANSION)
    if num_nodes == 0:
        where.fail("num_nodes", f"No node! Please configure nodes: must be in [1, {MAX_EXPANSION}] without --nodes")
    # getNodesPerRack: values below 1 become 1. Absent it is 1; written as 0 or less it is refused as a typo.
    per_rack = _int(where, d, "nodes_per_rack", "nodes_per_rack", 1, 1, INT_MAX)
    return generate_nodes(num_nodes, num_nodes // per_rack, defaults.nm_resource)


def read_synth_trace(
    path: str | os.PathLike[str],
    defaults: TraceDefaults | None = None,
    seed: int | None = None,
    *,
    nodes: tuple[NodeSpec, ...] | None = None,
    strict: bool = False,
) -> Workload:
    """Generate the jobs of a SYNTH trace; ``seed`` None uses the trace's ``rand_seed``.

    ``nodes`` are the cluster the tasks' preferred hosts are drawn from (default: the trace's generated nodes).
    ``strict`` turns the unknown-key warnings into errors.
    """
    cluster, items = iter_synth_trace(path, defaults, seed, nodes=nodes, strict=strict)
    jobs: list[JobSpec] = []
    skipped: list[SkippedJob] = []
    for item in items:
        if isinstance(item, SkippedJob):
            skipped.append(item)
        else:
            jobs.append(item)
    return Workload(tuple(jobs), cluster, tuple(skipped), f"SYNTH:{os.fspath(path)}")


def iter_synth_trace(
    path: str | os.PathLike[str],
    defaults: TraceDefaults | None = None,
    seed: int | None = None,
    *,
    nodes: tuple[NodeSpec, ...] | None = None,
    strict: bool = False,
    again: bool = False,
) -> tuple[tuple[NodeSpec, ...], Iterator[JobSpec | SkippedJob]]:
    """:func:`read_synth_trace`'s nodes, and its jobs and refused jobs generated one at a time, in submit time order
    (the trace is read, and each job's class and submit time drawn, at once). ``again``: read once already (its
    warnings given, its errors raised): nothing is said (workloads/_stream.py)."""
    defaults = defaults or TraceDefaults()
    where, d = _load(path, strict, again)
    if seed is None:
        raw_seed = d.get("rand_seed", 0)  # Jackson leaves a missing long at 0 and truncates a float
        seed = (
            int(where.number(raw_seed, "rand_seed"))
            if isinstance(raw_seed, float)
            else where.long(raw_seed, "rand_seed")
        )
    # Trace.num_jobs is an int Jackson leaves at 0; a trace that generates nothing is taken for a mistake.
    if d.get("num_jobs") is None:
        where.fail("num_jobs", "missing (how many jobs to generate)")
    num_jobs = _int(where, d, "num_jobs", "num_jobs", 0, 0, MAX_EXPANSION)
    if nodes is None:
        nodes = _nodes(where, d, defaults)
    if d.get("workloads") is None:
        where.fail("workloads", "missing")
    workloads = [
        _workload(where, f"workloads[{i}]", w) for i, w in enumerate(where.list(d.get("workloads"), "workloads"))
    ]
    if not workloads:
        where.fail("workloads", "needs at least one workload")
    check_weights(where, "workloads[].workload_weight", [w.weight for w in workloads])

    master = _rng(seed)
    for w in workloads:  # Trace.init -> Workload.init -> JobDefinition.init, in file order
        for c in w.job_classes:
            c.init(master)
    story = []  # SynthTraceJobProducer.createStory
    for i in range(num_jobs):
        w = workloads[weighted([x.weight for x in workloads], master)]
        story.append(
            (
                _submission_time(w, master),
                i,
                w.queue,
                w.job_classes[weighted([c.weight for c in w.job_classes], master)],
            )
        )
    story.sort(key=lambda s: (s[0], s[1]))  # the PriorityQueue by submit time; ties kept in generation order
    return nodes, _expand(story, master, seed, nodes, defaults, again)


def _expand(
    story: list[tuple[int, int, str, _JobDef]],
    master: random.Random,
    seed: int,
    nodes: tuple[NodeSpec, ...],
    defaults: TraceDefaults,
    quiet: bool,
) -> Iterator[JobSpec | SkippedJob]:
    """The jobs of the sorted story, each expanded as it is asked for (SynthJob's constructor, in order)."""
    baseline: int | None = None
    budget = _Budget()
    for seq, (submit_s, _, queue, jd) in enumerate(story):
        job = _synth_job(seq, submit_s, queue, jd, master, seed, nodes, defaults, budget, quiet)
        if isinstance(job, SkippedJob):
            yield job
            continue
        if baseline is None:
            baseline = job.submit_ms
        yield _rebase(job, baseline)


def _rng(seed: int) -> random.Random:
    # Python seeds with abs(seed); use the 64-bit pattern so that -1 and 1 differ, as Java's seeds do.
    return random.Random(seed & 0xFFFF_FFFF_FFFF_FFFF)


def _submission_time(w: _WorkloadDef, master: random.Random) -> int:
    """Workload.generateSubmissionTime: uniform inside the picked bucket [time[i], time[i+1]) (seconds)."""
    index = weighted(w.time_weights, master)
    start = w.times[index]
    end = w.times[min(index + 1, len(w.times) - 1)]
    span = end - start
    return start + (master.randrange(span) if span > 0 else 0)


# The generator builds every task container in memory (about 1 KB and a few microseconds each): a trace asking for
# more than this many in all is taken for a mistake rather than left to run for minutes and exhaust memory.
MAX_SYNTH_TASKS = 2_000_000


class _Budget:
    """Task containers still allowed: the whole trace may generate at most MAX_SYNTH_TASKS (a bounded loop)."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_SYNTH_TASKS


def _synth_job(
    seq: int,
    submit_s: int,
    queue: str,
    jd: _JobDef,
    master: random.Random,
    seed: int,
    nodes: tuple[NodeSpec, ...],
    defaults: TraceDefaults,
    budget: _Budget,
    quiet: bool = False,
) -> JobSpec | SkippedJob:
    # A NORM duration can be drawn negative; SLS would record a job that ends before it starts: take it as 0.
    duration_ms = max(jd.duration.get_long(-LONG_MAX // 1000, LONG_MAX // 1000 - 2**32), 0) * 1000
    has_deadline = master.random() <= jd.reservation.get_double()
    factor = jd.deadline_factor.get_double()
    submit_ms = submit_s * 1000
    deadline = -1
    if has_deadline:
        span = factor * duration_ms
        if not -LONG_MAX <= span <= LONG_MAX // 2:
            jd.deadline_factor.where.fail(
                jd.deadline_factor.path, f"drew {factor:g}: the deadline (factor x duration) is out of range"
            )
        deadline = submit_ms + math.ceil(span)
    master.seed(master.getrandbits(64))  # SynthJob: "name and initialize job randomness"
    name = f"{jd.class_name}_{seq:06d}"
    job_id = f"job_job_mock_{name}_{seq:04d}"  # new JobID("job_mock_" + name, id).toString()
    host_rng = _rng(seed)  # AMDefinitionSynth.getTaskContainers: new Random(stjp.getSeed()) per job
    tasks: list[TaskSpec] = []
    bad = False
    for td in jd.tasks:
        num = max(td.count.get_long(-LONG_MAX, MAX_EXPANSION), 0)  # a negative count: Java's loop runs 0 times
        if num > budget.left:
            td.count.where.fail(td.count.path, f"the trace would generate more than {MAX_SYNTH_TASKS} task containers")
        budget.left -= num
        memory = max(td.max_memory.get_long(-LONG_MAX, LONG_MAX), MIN_MEMORY)
        vcores = max(td.max_vcores.get_long(-LONG_MAX, INT_MAX), MIN_VCORES)  # SynthJob: getInt (toIntExact)
        for _ in range(num):
            time_ms = td.time.get_long(-LONG_MAX, LONG_MAX)
            node = nodes[host_rng.randrange(len(nodes))] if nodes else None
            bad = bad or time_ms <= 0
            tasks.append(
                TaskSpec(
                    count=1,
                    duration_ms=time_ms,
                    priority=td.priority,
                    task_type=td.type,
                    resource=Resource(memory, vcores),
                    hosts=(node.hostname,) if node else (),
                    rack=node.rack if node else None,
                    execution_type=td.execution_type,
                )
            )
    reason = None
    if bad:
        reason = BAD_DURATION
    elif jd.type not in defaults.am_types:
        reason = f"AM type '{jd.type}' is not registered (no yarn.sls.am.type.{jd.type})"
    if reason is not None:
        if not quiet:
            log.warning("SLS would not create this AM", job=job_id, reason=reason)
        return SkippedJob(job_id, reason)
    return JobSpec(
        job_id,
        jd.type,
        jd.user,
        queue,
        submit_ms,
        submit_ms + duration_ms,
        defaults.am_resource,
        tuple(tasks),
        name=name,
        params=dict(jd.params),
        # No deadline unless positive; a negative NORM factor would put it before the submission: none either.
        deadline_ms=deadline if deadline > 0 and deadline >= submit_ms else None,
    )


def _rebase(job: JobSpec, baseline: int) -> JobSpec:
    shift = job.submit_ms - baseline
    return msgspec.structs.replace(
        job,
        submit_ms=shift,
        end_ms=None if job.end_ms is None else job.end_ms - baseline,
        deadline_ms=None if job.deadline_ms is None else job.deadline_ms - baseline,
    )
