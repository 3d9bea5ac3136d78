"""``load_workload``: what SLSRunner does with ``--tracetype``, ``--tracelocation`` and ``--nodes``."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

from yarnball._logs import get_logger
from yarnball.errors import TraceFormatError

from ._defaults import TraceDefaults
from ._model import JobSpec, NodeSpec, SkippedJob, Workload
from ._nodes import dedupe_nodes, read_nodes_file
from ._rumen import RumenBaseline, read_rumen_trace
from ._sls import JobCounter, read_sls_trace
from ._synth import read_synth_trace

__all__ = ["TRACE_TYPES", "check_cluster", "load_workload", "trace_arguments"]

log = get_logger(__name__)

TRACE_TYPES = ("SLS", "RUMEN", "SYNTH")

PathArg = str | os.PathLike[str]


def load_workload(
    trace_type: str,
    paths: Sequence[PathArg] | PathArg,
    nodes_file: PathArg | None = None,
    defaults: TraceDefaults | None = None,
    seed: int | None = None,
    *,
    strict: bool = False,
) -> Workload:
    """Read every trace file of one type and the cluster, as SLSRunner does.

    ``paths`` may be a list or SLS's comma-separated ``--tracelocation`` string. Without ``nodes_file`` the nodes
    come from the traces (SLSUtils.parseNodesFromSLSTrace / parseNodesFromRumenTrace; SYNTH: ``num_nodes`` in
    racks of ``nodes_per_rack``). Several traces are merged in order: SLS numbers unnamed jobs across all files,
    Rumen times share one baseline, and the nodes are the union (SLS's NMRunner keeps only the last file's nodes,
    an apparent bug not copied). SYNTH reads only the first file, as SLS does.

    Every problem raises :class:`TraceFormatError` naming the file, job and field; keys the formats do not know
    are warnings (logged while reading, with the closest known key), or errors with ``strict=True``.
    """
    kind, files, names, source, file_nodes, no_node = trace_arguments(trace_type, paths, nodes_file, defaults, strict)
    defaults = defaults or TraceDefaults()

    if kind == "SYNTH":
        if len(files) > 1:
            log.warning("SYNTH reads only the first trace file, as SLS does", ignored=names[1:])
        wl = read_synth_trace(files[0], defaults, seed, nodes=file_nodes, strict=strict)
        return _finish(wl.jobs, wl.nodes, wl.skipped, source, no_node)

    jobs: list[JobSpec] = []
    skipped: list[SkippedJob] = []
    nodes: list[NodeSpec] = []
    counter, baseline = JobCounter(), RumenBaseline()
    for f in files:
        if kind == "SLS":
            wl = read_sls_trace(f, defaults, counter=counter, strict=strict)
        else:
            wl = read_rumen_trace(f, defaults, baseline=baseline, strict=strict)
        jobs.extend(wl.jobs)
        skipped.extend(wl.skipped)
        nodes.extend(wl.nodes)
    cluster = file_nodes if file_nodes is not None else dedupe_nodes(nodes, source)
    return _finish(jobs, cluster, skipped, source, no_node)


def trace_arguments(
    trace_type: str,
    paths: Sequence[PathArg] | PathArg,
    nodes_file: PathArg | None,
    defaults: TraceDefaults | None,
    strict: bool,
) -> tuple[str, list[PathArg], list[str], str, tuple[NodeSpec, ...] | None, str]:
    """:func:`load_workload`'s arguments checked: the trace type, files and their names, the workload's source, the
    nodes file's nodes (None without one) and the error for a cluster without nodes."""
    defaults = defaults or TraceDefaults()
    kind = trace_type.strip().upper() if isinstance(trace_type, str) else ""
    if kind not in TRACE_TYPES:
        raise TraceFormatError(
            f"unknown trace type {trace_type!r}: Input configuration not recognized, trace type should be SLS, "
            "RUMEN, or SYNTH"
        )
    if isinstance(paths, str):
        files: list[PathArg] = [p for p in paths.split(",") if p.strip()]
    elif isinstance(paths, os.PathLike):
        files = [paths]
    else:
        files = list(paths)
    if not files:
        raise TraceFormatError(f"{kind} trace: no trace file given")
    names = [os.fspath(p) for p in files]
    source = f"{kind}:{','.join(names)}"
    file_nodes = read_nodes_file(nodes_file, defaults, strict=strict) if nodes_file is not None else None
    # "No node!" is about the file the nodes come from: the nodes file when there is one.
    if nodes_file is not None:
        no_node = f"{os.fspath(nodes_file)}: No node! Please configure nodes (the nodes file lists none)."
    else:
        no_node = f"{','.join(names)}: No node! Please configure nodes (the trace names none; or give --nodes)."
    return kind, files, names, source, file_nodes, no_node


def _finish(
    jobs: Sequence[JobSpec], nodes: Sequence[NodeSpec], skipped: Sequence[SkippedJob], source: str, no_node: str
) -> Workload:
    check_cluster(nodes, {h for j in jobs for t in j.tasks for h in t.hosts}, [j.job_id for j in jobs], no_node)
    return Workload(tuple(jobs), tuple(nodes), tuple(skipped), source)


def check_cluster(nodes: Sequence[NodeSpec], hosts: set[str], job_ids: Sequence[str], no_node: str) -> None:
    """A trace's cluster has nodes; noted: the hosts its tasks prefer that it lacks, job ids that repeat."""
    if not nodes:
        raise TraceFormatError(no_node)
    known = {n.hostname for n in nodes}
    unknown = sorted(h for h in hosts if h not in known)
    if unknown:
        # Such requests can only be met off-switch (relaxed locality), as in SLS.
        log.info("tasks prefer hosts that are not in the cluster", count=len(unknown), first=unknown[:5])
    dupes = sorted(job_id for job_id, n in Counter(job_ids).items() if n > 1)
    if dupes:
        log.warning("job ids repeat across the traces; SLS tracks only the last of each", ids=dupes[:5])
