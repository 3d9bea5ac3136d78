"""Workloads: SLS JSON, Rumen and SYNTH traces, SLS node files, and workloads built in Python.

Every reader returns the same frozen data model (:class:`Workload` of :class:`JobSpec` / :class:`TaskSpec` and
:class:`NodeSpec`) that the ApplicationMaster and NodeManager actors consume. Readers follow Hadoop SLS's own
parsing (AMDefinitionSLS / AMDefinitionRumen / SynthTraceJobProducer / SLSUtils); where SLS is quirky the module
comments say what was kept and what was not. Structural problems raise :class:`~yarnball.errors.TraceFormatError`
naming the file, job and field; jobs SLS itself refuses are listed in ``Workload.skipped`` with SLS's reason.
"""

from __future__ import annotations

from ._builder import WorkloadBuilder, task_spec
from ._defaults import KNOWN_AM_TYPES, SLSKeys, TraceDefaults
from ._load import TRACE_TYPES, load_workload
from ._model import DEFAULT_RACK, JobSpec, NodeSpec, SkippedJob, TaskSpec, Workload
from ._nodes import generate_nodes, read_nodes_file, split_host_path
from ._rumen import read_rumen_trace
from ._sls import read_sls_trace
from ._stream import JobOutline, StreamedWorkload, scan_workload
from ._synth import read_synth_trace
from ._synthetic import SyntheticJobs, synthetic_jobs, synthetic_nodes, synthetic_workload

__all__ = [
    "DEFAULT_RACK",
    "KNOWN_AM_TYPES",
    "TRACE_TYPES",
    "JobOutline",
    "JobSpec",
    "NodeSpec",
    "SLSKeys",
    "SkippedJob",
    "StreamedWorkload",
    "SyntheticJobs",
    "TaskSpec",
    "TraceDefaults",
    "Workload",
    "WorkloadBuilder",
    "generate_nodes",
    "load_workload",
    "read_nodes_file",
    "read_rumen_trace",
    "read_sls_trace",
    "read_synth_trace",
    "scan_workload",
    "split_host_path",
    "synthetic_jobs",
    "synthetic_nodes",
    "synthetic_workload",
    "task_spec",
]
