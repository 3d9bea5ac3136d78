"""Traces read as the run goes: :func:`scan_workload` reads a trace once, as :func:`load_workload` does (the same
checks, errors and warnings), but keeps only an outline of each job; the jobs themselves are read again, one at a
time, as the run reaches them (``Cluster.submit_workload`` feeds them through launcher/_jobfeed.py).

SLS and Rumen traces are streams of JSON objects: the second reading takes the file a chunk at a time
(``stream_json_values``), so a day-long trace is never all in memory, as text or as jobs. A SYNTH trace draws each
job's class and submit time first (a few numbers a job) and expands each job, with its tasks, as it is asked for.
The jobs read again are the first reading's, in the same order (the readers are deterministic); a file changed in
between is an error naming it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from itertools import pairwise

import msgspec

from yarnball._logs import get_logger
from yarnball.errors import TraceFormatError

from ._defaults import TraceDefaults
from ._load import PathArg, check_cluster, trace_arguments
from ._model import JobSpec, NodeSpec, SkippedJob, Workload
from ._nodes import dedupe_nodes
from ._rumen import RumenBaseline, iter_rumen_trace
from ._sls import JobCounter, iter_sls_trace
from ._synth import iter_synth_trace

__all__ = ["JobOutline", "StreamedWorkload", "scan_workload"]

log = get_logger(__name__)


class JobOutline(msgspec.Struct, frozen=True, gc=False):
    """What a run reads of a job before its turn (the job table, the outputs' trace times): a JobSpec's fields
    without its tasks, and their number."""

    job_id: str
    am_type: str
    queue: str
    submit_ms: int
    end_ms: int | None
    num_containers: int


class StreamedWorkload:
    """A :class:`Workload` whose jobs are read when they are needed: ``jobs`` are outlines, :meth:`stream` gives the
    jobs themselves in the trace's order, read again (``in_order``: their submit times never decrease, so they can
    be fed as the run reaches them), :meth:`load` the whole Workload."""

    __slots__ = ("_read", "in_order", "jobs", "nodes", "skipped", "source")

    def __init__(
        self,
        jobs: tuple[JobOutline, ...],
        nodes: tuple[NodeSpec, ...],
        skipped: tuple[SkippedJob, ...],
        source: str,
        read: Callable[[], Iterator[JobSpec | SkippedJob | NodeSpec]],
    ) -> None:
        self.jobs = jobs
        self.nodes = nodes
        self.skipped = skipped
        self.source = source
        self._read = read
        self.in_order = all(a.submit_ms <= b.submit_ms for a, b in pairwise(jobs))

    @property
    def num_containers(self) -> int:
        """Total task containers over all jobs."""
        return sum(j.num_containers for j in self.jobs)

    def stream(self) -> Iterator[JobSpec]:
        """The jobs, read again one at a time as they are asked for; TraceFormatError when the trace no longer gives
        the jobs of the first reading."""
        outlines = iter(self.jobs)
        for item in self._read():
            if not isinstance(item, JobSpec):
                continue
            outline = next(outlines, None)
            if outline != _outline(item):
                self._changed(f"job {item.job_id!r} is not the one first read there")
            yield item
        if next(outlines, None) is not None:
            self._changed("it has fewer jobs")

    def load(self) -> Workload:
        """Every job at once, as :func:`load_workload` gives them."""
        return Workload(tuple(self.stream()), self.nodes, self.skipped, self.source)

    def _changed(self, why: str) -> None:
        raise TraceFormatError(f"{self.source}: the trace changed since it was first read: {why}")


def _outline(job: JobSpec) -> JobOutline:
    return JobOutline(job.job_id, job.am_type, job.queue, job.submit_ms, job.end_ms, job.num_containers)


def scan_workload(
    trace_type: str,
    paths: Sequence[PathArg] | PathArg,
    nodes_file: PathArg | None = None,
    defaults: TraceDefaults | None = None,
    seed: int | None = None,
    *,
    strict: bool = False,
) -> StreamedWorkload:
    """:func:`load_workload`'s workload (the same arguments, nodes, refused jobs, errors and warnings) with its jobs
    read again as they are needed: what it holds is an outline of each job."""
    kind, files, names, source, file_nodes, no_node = trace_arguments(trace_type, paths, nodes_file, defaults, strict)
    d = defaults or TraceDefaults()
    outlines: list[JobOutline] = []
    skipped: list[SkippedJob] = []
    hosts: set[str] = set()  # the hosts the tasks prefer
    shared: dict[str, str] = {}  # one copy of each queue name and AM type

    def keep(job: JobSpec) -> None:
        for task in job.tasks:
            hosts.update(task.hosts)
        q, t = job.queue, job.am_type
        outline = JobOutline(job.job_id, shared.setdefault(t, t), shared.setdefault(q, q), job.submit_ms, job.end_ms,
                             job.num_containers)  # fmt: skip
        outlines.append(outline)

    read: Callable[[], Iterator[JobSpec | SkippedJob | NodeSpec]]
    if kind == "SYNTH":
        if len(files) > 1:
            log.warning("SYNTH reads only the first trace file, as SLS does", ignored=names[1:])
        cluster, items = iter_synth_trace(files[0], d, seed, nodes=file_nodes, strict=strict)
        for item in items:
            if isinstance(item, JobSpec):
                keep(item)
            else:
                skipped.append(item)

        def read() -> Iterator[JobSpec | SkippedJob | NodeSpec]:
            return iter_synth_trace(files[0], d, seed, nodes=file_nodes, strict=strict, again=True)[1]

    else:
        nodes: list[NodeSpec] = []
        counter, baseline = JobCounter(), RumenBaseline()
        for f in files:
            found: list[NodeSpec] = []
            file_items = (
                iter_sls_trace(f, d, counter=counter, strict=strict)
                if kind == "SLS"
                else iter_rumen_trace(f, d, baseline=baseline, strict=strict)
            )
            for read_item in file_items:
                if isinstance(read_item, JobSpec):
                    keep(read_item)
                elif isinstance(read_item, SkippedJob):
                    skipped.append(read_item)
                else:
                    found.append(read_item)
            nodes.extend(dedupe_nodes(found, os.fspath(f)))  # (as read_sls_trace and read_rumen_trace do)
        cluster = file_nodes if file_nodes is not None else dedupe_nodes(nodes, source)

        def read() -> Iterator[JobSpec | SkippedJob | NodeSpec]:
            again_counter, again_baseline = JobCounter(), RumenBaseline()
            for f in files:
                if kind == "SLS":
                    yield from iter_sls_trace(f, d, counter=again_counter, strict=strict, again=True)
                else:
                    yield from iter_rumen_trace(f, d, baseline=again_baseline, strict=strict, again=True)

    check_cluster(cluster, hosts, [j.job_id for j in outlines], no_node)
    return StreamedWorkload(tuple(outlines), tuple(cluster), tuple(skipped), source, read)
