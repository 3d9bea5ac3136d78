"""Building workloads from Python: a fluent :class:`WorkloadBuilder` and a deterministic busy synthetic trace."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Self

from yarnball.errors import TraceFormatError
from yarnball.protocols import ExecutionType, Resource

from ._defaults import TraceDefaults
from ._model import DEFAULT_RACK, JobSpec, NodeSpec, TaskSpec, Workload
from ._nodes import generate_nodes, split_host_path

__all__ = ["WorkloadBuilder", "synthetic_jobs", "synthetic_nodes", "synthetic_workload", "task_spec"]

_SOURCE = "python"


def task_spec(
    count: int = 1,
    duration_ms: int = 10_000,
    *,
    memory_mb: int | None = None,
    vcores: int | None = None,
    priority: int = 20,
    task_type: str = "map",
    host: str | None = None,
    execution_type: ExecutionType | str = ExecutionType.GUARANTEED,
    allocation_request_id: int = -1,
    request_delay_ms: int = 0,
    defaults: TraceDefaults | None = None,
) -> TaskSpec:
    """A :class:`TaskSpec` with SLS's defaults (priority 20, ``map``, the default container size).

    ``host`` is ``"/rack/host"`` (or a bare host on ``/default-rack``); ``None`` means anywhere.
    """
    d = defaults or TraceDefaults()
    placed = split_host_path(host) if host else None
    spec = TaskSpec(
        count=count,
        duration_ms=duration_ms,
        priority=priority,
        task_type=task_type,
        resource=Resource(
            d.container_memory_mb if memory_mb is None else memory_mb, d.container_vcores if vcores is None else vcores
        ),
        hosts=(placed[1],) if placed else (),
        rack=placed[0] if placed else None,
        execution_type=ExecutionType(execution_type),
        allocation_request_id=allocation_request_id,
        request_delay_ms=request_delay_ms,
    )
    _check_task(spec, "task")
    return spec


def _fail(what: str, message: str) -> TraceFormatError:
    return TraceFormatError(f"{_SOURCE} workload: {what}: {message}")


def _check_task(t: TaskSpec, what: str) -> None:
    if t.count < 1:
        raise _fail(what, f"field 'count': must be >= 1, got {t.count}")
    if t.duration_ms <= 0:
        raise _fail(what, f"field 'duration_ms': must be > 0, got {t.duration_ms}")
    if t.resource.memory_mb < 0 or t.resource.vcores < 0:
        raise _fail(what, f"field 'resource': must not be negative, got {t.resource}")
    if t.request_delay_ms < 0:
        raise _fail(what, f"field 'request_delay_ms': must be >= 0, got {t.request_delay_ms}")


class WorkloadBuilder:
    """Collects nodes and jobs, checks them, and builds a :class:`Workload`.

    >>> wl = (WorkloadBuilder().nodes(4, racks=2)
    ...       .job("j1", queue="a", tasks=[task_spec(3, 5_000)]).build())
    >>> len(wl.nodes), wl.jobs[0].num_containers
    (4, 3)
    """

    def __init__(self, defaults: TraceDefaults | None = None, *, source: str = _SOURCE) -> None:
        self._defaults = defaults or TraceDefaults()
        self._source = source
        self._nodes: dict[str, NodeSpec] = {}
        self._jobs: dict[str, JobSpec] = {}

    def node(
        self,
        hostname: str,
        *,
        rack: str = DEFAULT_RACK,
        memory_mb: int | None = None,
        vcores: int | None = None,
        labels: Iterable[str] = (),
        non_exclusive_labels: Iterable[str] = (),
    ) -> Self:
        """Add one node (NM defaults for the sizes not given)."""
        d = self._defaults
        mem = d.nm_memory_mb if memory_mb is None else memory_mb
        cores = d.nm_vcores if vcores is None else vcores
        what = f"node '{hostname}'"
        if not hostname or "/" in hostname:
            raise _fail(what, "field 'hostname': must be a non-empty host name without '/'")
        if hostname in self._nodes:
            raise _fail(what, "field 'hostname': already added")
        if mem < 0 or cores < 0:
            raise _fail(what, f"field 'resource': must not be negative, got {mem} MB, {cores} vcores")
        rack = rack if rack.startswith("/") else "/" + rack
        labels = tuple(labels)
        non_exclusive = tuple(non_exclusive_labels)
        if not set(non_exclusive) <= set(labels):
            raise _fail(what, "field 'non_exclusive_labels': must be a subset of 'labels'")
        self._nodes[hostname] = NodeSpec(hostname, rack, Resource(mem, cores), labels, non_exclusive)
        return self

    def nodes(
        self,
        n: int,
        *,
        racks: int = 1,
        memory_mb: int | None = None,
        vcores: int | None = None,
        prefix: str = "node",
        first_index: int = 0,
    ) -> Self:
        """Add ``n`` nodes named ``<prefix><i>`` on racks ``/rack<i % racks>`` (SLSUtils.generateNodes naming)."""
        if n < 0:
            raise _fail("nodes", f"field 'n': must be >= 0, got {n}")
        racks = max(1, min(racks, n)) if n else 1
        for i in range(first_index, first_index + n):
            self.node(f"{prefix}{i}", rack=f"/rack{(i - first_index) % racks}", memory_mb=memory_mb, vcores=vcores)
        return self

    def job(
        self,
        job_id: str,
        *,
        queue: str = "default",
        user: str = "default",
        submit_ms: int = 0,
        am_type: str = "mapreduce",
        tasks: Sequence[TaskSpec | Mapping[str, Any]] = (),
        end_ms: int | None = None,
        am_memory_mb: int | None = None,
        am_vcores: int | None = None,
        label_expression: str = "",
        name: str = "",
        params: Mapping[str, str] | None = None,
        deadline_ms: int | None = None,
    ) -> Self:
        """Add a job; ``tasks`` are TaskSpecs or mappings of :func:`task_spec` keyword arguments."""
        what = f"job '{job_id}'"
        if not job_id:
            raise _fail("job", "field 'job_id': must not be empty")
        if job_id in self._jobs:
            raise _fail(what, "field 'job_id': already added")
        if submit_ms < 0:
            raise _fail(what, f"field 'submit_ms': must be >= 0, got {submit_ms}")
        specs: list[TaskSpec] = []
        for i, t in enumerate(tasks):
            spec = t if isinstance(t, TaskSpec) else task_spec(**{"defaults": self._defaults, **t})
            _check_task(spec, f"{what}, tasks[{i}]")
            specs.append(spec)
        d = self._defaults
        am = Resource(
            d.am_container_memory_mb if am_memory_mb is None else am_memory_mb,
            d.am_container_vcores if am_vcores is None else am_vcores,
        )
        self._jobs[job_id] = JobSpec(
            job_id, am_type, user, queue, submit_ms, end_ms, am, tuple(specs),
            label_expression=label_expression, name=name, params=dict(params or {}), deadline_ms=deadline_ms,
        )  # fmt: skip
        return self

    def build(self) -> Workload:
        """The workload: jobs in submit order (stable), nodes in the order added."""
        if not self._nodes:
            raise _fail("nodes", "No node! Please configure nodes.")
        jobs = sorted(self._jobs.values(), key=lambda j: j.submit_ms)
        return Workload(tuple(jobs), tuple(self._nodes.values()), (), self._source)


def synthetic_workload(
    num_jobs: int,
    num_nodes: int,
    seed: int = 0,
    *,
    defaults: TraceDefaults | None = None,
    nodes_per_rack: int = 40,
    **options: Any,
) -> Workload:
    """A busy MapReduce-style workload, the same for the same arguments: :func:`synthetic_nodes` and the jobs of
    :func:`synthetic_jobs` (``options`` are its keyword arguments)."""
    if num_jobs < 0 or num_nodes < 1:
        raise _fail("synthetic", f"need num_jobs >= 0 and num_nodes >= 1, got {num_jobs} and {num_nodes}")
    nodes = synthetic_nodes(num_nodes, defaults=defaults, nodes_per_rack=nodes_per_rack)
    jobs = tuple(synthetic_jobs(num_jobs, nodes, seed, defaults=defaults, **options))
    return Workload(jobs, nodes, (), f"synthetic:jobs={num_jobs},nodes={num_nodes},seed={seed}")


def synthetic_nodes(
    num_nodes: int, *, defaults: TraceDefaults | None = None, nodes_per_rack: int = 40
) -> tuple[NodeSpec, ...]:
    """The nodes of :func:`synthetic_workload`: ``/rack<i % racks>/node<i>`` with the NM default size."""
    if num_nodes < 1:
        raise _fail("synthetic", f"need num_nodes >= 1, got {num_nodes}")
    d = defaults or TraceDefaults()
    return generate_nodes(num_nodes, num_nodes // max(nodes_per_rack, 1), d.nm_resource)


def synthetic_jobs(
    num_jobs: int,
    nodes: Sequence[NodeSpec],
    seed: int = 0,
    *,
    defaults: TraceDefaults | None = None,
    queues: Sequence[str] = ("default",),
    queue_weights: Sequence[float] | None = None,
    users: int = 4,
    maps: tuple[int, int] = (1, 40),
    reduces: tuple[int, int] = (0, 10),
    map_ms: tuple[int, int] = (5_000, 60_000),
    reduce_ms: tuple[int, int] = (10_000, 120_000),
    load: float = 1.5,
    locality: bool = True,
    opportunistic_fraction: float = 0.0,
) -> Iterator[JobSpec]:
    """The jobs of :func:`synthetic_workload` on ``nodes``, made one at a time as they are asked for, in submit time
    order (for ``Cluster.submit_jobs``: a long trace is never all in memory). The arguments are checked at once.

    Jobs arrive as a Poisson process whose rate offers ``load`` times the cluster's container capacity (so
    ``load > 1`` keeps queues backed up). Map and reduce counts and durations are uniform in the given ranges; each
    map prefers a random node (``locality``); a fraction of maps may be OPPORTUNISTIC. Containers have the default
    container size.
    """
    if num_jobs < 0 or not nodes:
        raise _fail("synthetic", f"need num_jobs >= 0 and num_nodes >= 1, got {num_jobs} and {len(nodes)}")
    if not queues or load <= 0 or maps[0] < 0 or reduces[0] < 0 or maps[1] < maps[0] or reduces[1] < reduces[0]:
        raise _fail("synthetic", "need queues, load > 0 and ranges (lo, hi) with 0 <= lo <= hi")
    if min(map_ms[0], reduce_ms[0]) <= 0 or map_ms[1] < map_ms[0] or reduce_ms[1] < reduce_ms[0]:
        raise _fail("synthetic", "durations must be ranges (lo, hi) with 0 < lo <= hi")
    d = defaults or TraceDefaults()
    container = d.container_resource
    per_node = min(d.nm_memory_mb // max(container.memory_mb, 1), d.nm_vcores // max(container.vcores, 1))
    slots = max(1, per_node * len(nodes))
    mean_work = (sum(maps) / 2) * (sum(map_ms) / 2) + (sum(reduces) / 2) * (sum(reduce_ms) / 2)
    mean_gap_ms = max(mean_work, 1.0) / (slots * load)
    weights = list(queue_weights) if queue_weights is not None else [1.0] * len(queues)
    settings = (num_jobs, tuple(nodes), seed, d, list(queues), weights, users, maps, reduces, map_ms, reduce_ms)
    return _synthetic_jobs(*settings, mean_gap_ms, locality, opportunistic_fraction)


def _synthetic_jobs(
    num_jobs: int,
    nodes: tuple[NodeSpec, ...],
    seed: int,
    d: TraceDefaults,
    queues: list[str],
    weights: list[float],
    users: int,
    maps: tuple[int, int],
    reduces: tuple[int, int],
    map_ms: tuple[int, int],
    reduce_ms: tuple[int, int],
    mean_gap_ms: float,
    locality: bool,
    opportunistic_fraction: float,
) -> Iterator[JobSpec]:
    container = d.container_resource
    num_nodes = len(nodes)
    rng = random.Random(seed)
    draw = _UniformDraw(rng)
    guaranteed, opportunistic_type = ExecutionType.GUARANTEED, ExecutionType.OPPORTUNISTIC
    places = [((node.hostname,), node.rack) for node in nodes]  # (each node's preferred-hosts tuple made once)
    no_place: tuple[tuple[str, ...], str | None] = ((), None)
    now = 0.0
    for i in range(num_jobs):
        if i:
            now += rng.expovariate(1.0 / mean_gap_ms)
        tasks: list[TaskSpec] = []
        for _ in range(draw.integer(*maps)):
            hosts, rack = places[draw.below(num_nodes)] if locality else no_place
            opportunistic = opportunistic_fraction > 0 and rng.random() < opportunistic_fraction
            duration = draw.integer(*map_ms)
            tasks.append(TaskSpec(
                1, duration, 20, "map", container, hosts, rack, opportunistic_type if opportunistic else guaranteed
            ))  # fmt: skip
        num_reduces = draw.integer(*reduces)
        if num_reduces:
            # Reduces of one job share a length: one group, requested anywhere (MRAMSimulator's reduce phase).
            tasks.append(TaskSpec(num_reduces, draw.integer(*reduce_ms), 10, "reduce", container))
        queue = rng.choices(queues, weights)[0]
        yield JobSpec(
            f"synth_{i:06d}", "mapreduce", f"user{rng.randrange(max(users, 1))}", queue, int(now), None,
            d.am_resource, tuple(tasks), name=f"synthetic_{i:06d}",
        )  # fmt: skip


class _UniformDraw:
    """``random.Random.randrange(n)`` and ``randint(lo, hi)`` drawn as CPython draws them
    (``Random._randbelow_with_getrandbits``: ``n.bit_length()`` random bits, drawn again while ``>= n``), from the same
    generator and so the same numbers, without their argument checks and three calls per number (a synthetic job's
    hundred tasks draw two numbers each). tests/test_job_feed.py holds it to ``Random``'s own."""

    __slots__ = ("_getrandbits",)

    def __init__(self, rng: random.Random) -> None:
        self._getrandbits = rng.getrandbits

    def below(self, n: int) -> int:
        """``randrange(n)``, ``n >= 1``."""
        getrandbits = self._getrandbits
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return r

    def integer(self, lo: int, hi: int) -> int:
        """``randint(lo, hi)``, ``lo <= hi``."""
        return lo + self.below(hi - lo + 1)
