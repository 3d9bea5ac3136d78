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
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass, field
from typing import Any

import msgspec

from yarnball._logs import get_logger
from yarnball.protocols import ExecutionType, Resource

from ._defaults import TraceDefaults
from ._json import MAX_EXPANSION, Where, iter_json_values
from ._model import JobSpec, NodeSpec, SkippedJob, TaskSpec, Workload
from ._nodes import generate_nodes
from ._sls import BAD_DURATION, DEFAULT_USER

__all__ = ["read_synth_trace", "synth_trace_nodes"]

log = get_logger(__name__)

MIN_MEMORY = 1024  # SynthJob.MIN_MEMORY
MIN_VCORES = 1  # SynthJob.MIN_VCORES
_LEGACY_TASKS = (  # SynthTraceJobProducer.validateJobDef: (type, prefix of count/time, prefix of sizes, priority)
    ("map", "mtasks", "mtime", "map", 20),
    ("reduce", "rtasks", "rtime", "reduce", 10),
)


class Sample:
    """SynthTraceJobProducer.Sample: a constant, a LOGNORM/NORM distribution or a weighted discrete choice."""

    __slots__ = ("discrete", "dist", "mode", "mu", "rng", "sigma", "val", "weights")

    def __init__(self, where: Where, path: str, raw: Any) -> None:
        self.rng: random.Random | None = None
        self.mu = self.sigma = 0.0
        self.dist = ""
        self.discrete: list[float] = []
        self.weights: list[float] = []
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            raw = {"val": raw}  # yarnball convenience: a bare number is a constant
        d = where.obj(raw, path)
        val, std = d.get("val"), d.get("std")
        if val is not None:
            self.val = where.number(val, f"{path}.val")
            if std is None:
                if any(d.get(k) is not None for k in ("dist", "discrete", "weights")):
                    where.fail(path, "a constant {val} takes no dist, discrete or weights")
                self.mode = "CONST"
                return
            if d.get("discrete") is not None or d.get("weights") is not None:
                where.fail(path, "a distribution {val, std} takes no discrete or weights")
            self.mode = "DIST"
            self.dist = "LOGNORM" if d.get("dist") is None else where.string(d["dist"], f"{path}.dist")
            if self.dist not in ("LOGNORM", "NORM"):
                where.fail(f"{path}.dist", f"expected LOGNORM or NORM, got {self.dist!r}")
            self._set_dist(where, path, self.val, where.number(std, f"{path}.std"))
            return
        if d.get("discrete") is None:
            where.fail(path, "a sample needs 'val' (with optional 'std', 'dist') or 'discrete' (and 'weights')")
        self.mode, self.val = "DISC", 0.0
        values = where.list(d["discrete"], f"{path}.discrete")
        self.discrete = [where.number(v, f"{path}.discrete[{i}]") for i, v in enumerate(values)]
        if d.get("weights") is None:
            self.weights = [1.0] * len(self.discrete)
        else:
            weights = where.list(d["weights"], f"{path}.weights")
            self.weights = [where.number(w, f"{path}.weights[{i}]") for i, w in enumerate(weights)]
        if len(self.weights) != len(self.discrete):
            where.fail(f"{path}.weights", f"{len(self.weights)} weights for {len(self.discrete)} discrete values")
        _check_weights(where, f"{path}.weights", self.weights)

    def _set_dist(self, where: Where, path: str, mean: float, std: float) -> None:
        # SynthUtils.getLogNormalDist / getNormalDist return no distribution for mean <= 0, and SLS then fails with
        # a NullPointerException on the first draw: refuse the trace instead.
        if mean <= 0:
            where.fail(path, f"a distribution needs a positive mean (val), got {mean:g}")
        if std == 0:
            std = mean / 6  # "set default for missing param"
        if self.dist == "LOGNORM":
            sigmasq = math.log1p(std * std / (mean * mean))
            self.sigma = math.sqrt(sigmasq)
            self.mu = math.log(mean) - 0.5 * sigmasq
        else:
            self.mu, self.sigma = mean, abs(std)

    def init(self, master: random.Random) -> None:
        """Sample.init: distributions get their own generator seeded from the master; discrete draws use it."""
        self.rng = random.Random(master.getrandbits(64)) if self.mode == "DIST" else master

    def get_double(self) -> float:
        assert self.rng is not None, "Sample used before init"
        if self.mode == "CONST":
            return self.val
        if self.mode == "DIST":
            if self.dist == "LOGNORM":
                return self.rng.lognormvariate(self.mu, self.sigma)
            return self.rng.normalvariate(self.mu, self.sigma)
        return self.discrete[weighted(self.weights, self.rng)]

    def get_long(self) -> int:
        value = self.get_double()
        if not math.isfinite(value):  # an extreme distribution overflowed; Java would saturate
            raise OverflowError(f"sampled value {value}")
        return math.floor(value + 0.5)  # Math.round


def weighted(weights: list[float], rng: random.Random) -> int:
    """SynthUtils.getWeighted: the first index whose running total exceeds a uniform draw."""
    total = sum(weights)
    draw = rng.random() * total
    cur = 0.0
    for i, w in enumerate(weights):
        cur += w
        if cur > draw:
            return i
    return len(weights) - 1  # Java would index past the end; weights are validated to sum > 0


def _check_weights(where: Where, path: str, weights: list[float]) -> None:
    if any(w < 0 for w in weights):
        where.fail(path, "weights must not be negative")
    if sum(weights) <= 0:
        where.fail(path, "weights must add up to more than 0")


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


def _exec_type(where: Where, path: str, raw: Any) -> ExecutionType:
    text = "GUARANTEED" if raw is None else where.text(raw, path)
    try:
        return ExecutionType(text)
    except ValueError:
        where.fail(path, f"expected GUARANTEED or OPPORTUNISTIC, got {text!r}")


def _job_def(where: Where, path: str, raw: Any) -> _JobDef:
    d = where.obj(raw, path)
    class_name = "null" if d.get("class_name") is None else where.text(d["class_name"], f"{path}.class_name")
    user = DEFAULT_USER if d.get("user_name") is None else where.text(d["user_name"], f"{path}.user_name")
    weight = 0.0 if d.get("class_weight") is None else where.number(d["class_weight"], f"{path}.class_weight")
    params: dict[str, str] = {}
    if d.get("params") is not None:
        for k, v in where.obj(d["params"], f"{path}.params").items():
            params[k] = where.text(v, f"{path}.params.{k}")
    if d.get("tasks") is None:
        return _legacy_job_def(where, path, d, class_name, user, weight, params)
    tasks = []
    for i, traw in enumerate(where.list(d["tasks"], f"{path}.tasks")):
        tpath = f"{path}.tasks[{i}]"
        t = where.obj(traw, tpath)
        for key in ("type", "count", "time", "max_memory", "max_vcores"):
            if t.get(key) is None:
                where.fail(f"{tpath}.{key}", "missing")
        tasks.append(
            _TaskDef(
                type=where.text(t["type"], f"{tpath}.type"),
                count=Sample(where, f"{tpath}.count", t["count"]),
                time=Sample(where, f"{tpath}.time", t["time"]),
                max_memory=Sample(where, f"{tpath}.max_memory", t["max_memory"]),
                max_vcores=Sample(where, f"{tpath}.max_vcores", t["max_vcores"]),
                priority=int(where.number(t.get("priority", 0), f"{tpath}.priority")),
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
        Sample(where, f"{path}.deadline_factor", d["deadline_factor"]),
        Sample(where, f"{path}.duration", d["duration"]),
        Sample(where, f"{path}.reservation", d["reservation"]),
        tasks,
        params,
    )


def _legacy_job_def(
    where: Where, path: str, d: dict[str, Any], class_name: str, user: str, weight: float, params: dict[str, str]
) -> _JobDef:
    """SynthTraceJobProducer.validateJobDef: the old flat format becomes one map and one reduce task type."""
    sub = Where(where.path, f"{where.what}, {path}")

    def sample(avg: str, std: str | None) -> Sample:
        raw: dict[str, Any] = {"val": d.get(avg) or 0}
        if std is not None:
            raw["std"] = d.get(std) or 0
        return Sample(sub, avg, raw)

    tasks = [
        _TaskDef(
            type=task_type,
            count=sample(f"{n}_avg", f"{n}_stddev"),
            time=sample(f"{t}_avg", f"{t}_stddev"),
            max_memory=sample(f"{size}_max_memory_avg", f"{size}_max_memory_stddev"),
            max_vcores=sample(f"{size}_max_vcores_avg", f"{size}_max_vcores_stddev"),
            priority=priority,
            execution_type=_exec_type(sub, f"{size}_execution_type", d.get(f"{size}_execution_type")),
        )
        for task_type, n, t, size, priority in _LEGACY_TASKS
    ]
    return _JobDef(
        class_name,
        user,
        weight,
        "mapreduce",
        sample("deadline_factor_avg", "deadline_factor_stddev"),
        sample("dur_avg", "dur_stddev"),
        sample("chance_of_reservation", None),
        tasks,
        params,
    )


def _workload(where: Where, path: str, raw: Any) -> _WorkloadDef:
    d = where.obj(raw, path)
    if d.get("queue_name") is None:
        where.fail(f"{path}.queue_name", "missing")
    classes = [
        _job_def(where, f"{path}.job_classes[{i}]", c)
        for i, c in enumerate(where.list(d.get("job_classes"), f"{path}.job_classes"))
    ]
    if not classes:
        where.fail(f"{path}.job_classes", "needs at least one job class")
    _check_weights(where, f"{path}.job_classes[].class_weight", [c.weight for c in classes])
    buckets = where.list(d.get("time_distribution"), f"{path}.time_distribution")
    if not buckets:
        where.fail(f"{path}.time_distribution", "needs at least one {time, weight} bucket")
    times, time_weights = [], []
    for i, b in enumerate(buckets):
        bpath = f"{path}.time_distribution[{i}]"
        bd = where.obj(b, bpath)
        times.append(int(where.number(bd.get("time", 0), f"{bpath}.time")))
        time_weights.append(where.number(bd.get("weight", 0), f"{bpath}.weight"))
    _check_weights(where, f"{path}.time_distribution[].weight", time_weights)
    weight = 0.0 if d.get("workload_weight") is None else where.number(d["workload_weight"], f"{path}.workload_weight")
    return _WorkloadDef(weight, where.text(d["queue_name"], f"{path}.queue_name"), classes, times, time_weights)


def _load(path: str | os.PathLike[str]) -> tuple[Where, dict[str, Any]]:
    name = os.fspath(path)
    values = list(iter_json_values(path))
    where = Where(name, "SYNTH trace")
    if len(values) != 1:
        where.fail("<root>", f"expected one JSON object, found {len(values)} values")
    return where, where.obj(values[0][2], "<root>")


def synth_trace_nodes(path: str | os.PathLike[str], defaults: TraceDefaults) -> tuple[NodeSpec, ...]:
    """``num_nodes`` nodes, ``num_nodes // nodes_per_rack`` racks (SLSUtils.generateNodes as NMRunner calls it)."""
    where, d = _load(path)
    return _nodes(where, d, defaults)


def _nodes(where: Where, d: dict[str, Any], defaults: TraceDefaults) -> tuple[NodeSpec, ...]:
    num_nodes = int(where.number(d.get("num_nodes", 0), "num_nodes"))
    per_rack = int(where.number(d.get("nodes_per_rack", 0), "nodes_per_rack"))
    if not 0 <= num_nodes <= MAX_EXPANSION:
        where.fail("num_nodes", f"must be in [0, {MAX_EXPANSION}], got {num_nodes}")
    return generate_nodes(num_nodes, num_nodes // max(per_rack, 1), defaults.nm_resource)


def read_synth_trace(
    path: str | os.PathLike[str],
    defaults: TraceDefaults | None = None,
    seed: int | None = None,
    *,
    nodes: tuple[NodeSpec, ...] | None = None,
) -> Workload:
    """Generate the jobs of a SYNTH trace; ``seed`` None uses the trace's ``rand_seed``.

    ``nodes`` are the cluster the tasks' preferred hosts are drawn from (default: the trace's generated nodes).
    """
    defaults = defaults or TraceDefaults()
    where, d = _load(path)
    if seed is None:
        raw_seed = d.get("rand_seed", 0)  # Jackson leaves a missing long at 0 and truncates a float
        seed = (
            int(where.number(raw_seed, "rand_seed"))
            if isinstance(raw_seed, float)
            else where.long(raw_seed, "rand_seed")
        )
    num_jobs = int(where.number(d.get("num_jobs", 0), "num_jobs"))
    if not 0 <= num_jobs <= MAX_EXPANSION:
        where.fail("num_jobs", f"must be in [0, {MAX_EXPANSION}], got {num_jobs}")
    if nodes is None:
        nodes = _nodes(where, d, defaults)
    workloads = [
        _workload(where, f"workloads[{i}]", w) for i, w in enumerate(where.list(d.get("workloads"), "workloads"))
    ]
    if not workloads:
        where.fail("workloads", "needs at least one workload")
    _check_weights(where, "workloads[].workload_weight", [w.weight for w in workloads])

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

    jobs: list[JobSpec] = []
    skipped: list[SkippedJob] = []
    baseline: int | None = None
    for seq, (submit_s, _, queue, jd) in enumerate(story):
        try:
            job = _synth_job(seq, submit_s, queue, jd, master, seed, nodes, defaults)
        except OverflowError as e:
            where.fail(f"job class '{jd.class_name}'", f"a sample is out of range ({e})")
        if isinstance(job, SkippedJob):
            skipped.append(job)
            continue
        if baseline is None:
            baseline = job.submit_ms
        jobs.append(_rebase(job, baseline))
    return Workload(tuple(jobs), nodes, tuple(skipped), f"SYNTH:{os.fspath(path)}")


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


def _synth_job(
    seq: int,
    submit_s: int,
    queue: str,
    jd: _JobDef,
    master: random.Random,
    seed: int,
    nodes: tuple[NodeSpec, ...],
    defaults: TraceDefaults,
) -> JobSpec | SkippedJob:
    duration_ms = jd.duration.get_long() * 1000
    has_deadline = master.random() <= jd.reservation.get_double()
    factor = jd.deadline_factor.get_double()
    submit_ms = submit_s * 1000
    deadline = submit_ms + math.ceil(factor * duration_ms) if has_deadline else -1
    master.seed(master.getrandbits(64))  # SynthJob: "name and initialize job randomness"
    name = f"{jd.class_name}_{seq:06d}"
    job_id = f"job_job_mock_{name}_{seq:04d}"  # new JobID("job_mock_" + name, id).toString()
    host_rng = _rng(seed)  # AMDefinitionSynth.getTaskContainers: new Random(stjp.getSeed()) per job
    tasks: list[TaskSpec] = []
    bad = False
    for td in jd.tasks:
        num = td.count.get_long()
        memory = max(td.max_memory.get_long(), MIN_MEMORY)
        vcores = max(td.max_vcores.get_long(), MIN_VCORES)
        for _ in range(num):
            time_ms = td.time.get_long()
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
        deadline_ms=deadline if deadline > 0 else None,
    )


def _rebase(job: JobSpec, baseline: int) -> JobSpec:
    shift = job.submit_ms - baseline
    return msgspec.structs.replace(
        job,
        submit_ms=shift,
        end_ms=None if job.end_ms is None else job.end_ms - baseline,
        deadline_ms=None if job.deadline_ms is None else job.deadline_ms - baseline,
    )
