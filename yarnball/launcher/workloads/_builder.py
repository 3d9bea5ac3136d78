"""Building workloads from Python: a fluent :class:`WorkloadBuilder` (the busy synthetic trace is _synthetic.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Self

from yarnball.errors import TraceFormatError
from yarnball.protocols import ExecutionType, Resource

from ._defaults import TraceDefaults
from ._model import DEFAULT_RACK, JobSpec, NodeSpec, TaskSpec, Workload
from ._nodes import split_host_path

__all__ = ["WorkloadBuilder", "task_spec"]

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
