"""The keys each input format knows, taken from Hadoop's readers; anything else draws "unknown key, did you mean".

SLS and SYNTH ignore keys they do not know (plain ``Map`` lookups in AMDefinitionSLS / SLSUtils, Jackson with
FAIL_ON_UNKNOWN_PROPERTIES off in SynthTraceJobProducer), and Rumen's LoggedJob / LoggedTask / LoggedTaskAttempt
only print "we saw the unknown attribute". A misspelt key therefore silently becomes a default; yarnball warns with
the closest of these names instead (or refuses it with ``--strict``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from yarnball.errors import TraceFormatError, one_line

__all__ = [
    "NODE_FILE_NODE",
    "NODE_FILE_RACK",
    "RUMEN_ATTEMPT",
    "RUMEN_JOB",
    "RUMEN_TASK",
    "SLS_JOB",
    "SLS_TASK",
    "SYNTH_JOB_CLASS",
    "SYNTH_SAMPLE",
    "SYNTH_TASK",
    "SYNTH_TIME_SAMPLE",
    "SYNTH_TRACE",
    "SYNTH_WORKLOAD",
    "check_format",
    "resource_keys",
]


def resource_keys(prefix: str, resource_types: tuple[str, ...]) -> frozenset[str]:
    """``<prefix>memory-mb``, ``<prefix>vcores`` and ``<prefix><type>``: SLS reads one key per ResourceUtils type."""
    return frozenset(prefix + name for name in ("memory-mb", "vcores", *resource_types))


# SLSConfiguration's job keys as AMDefinitionFactory.createFromSlsTrace reads them, the cluster header keys of
# SLSUtils.parseNodesFromSLSTrace, and "am.type", which SLS's docs and inputsls.json write (warned about separately).
SLS_JOB = frozenset(
    {
        "job.id",
        "job.start.ms",
        "job.end.ms",
        "job.queue.name",
        "job.label.expression",
        "job.user",
        "job.count",
        "job.tasks",
        "yarn.sls.am.type",
        "am.type",
        "num.nodes",
        "num.racks",
    }
)
# AMDefinitionSLS.getTaskContainers / TaskContainerDefinition.Builder.
SLS_TASK = frozenset(
    {
        "count",
        "container.host",
        "container.duration.ms",
        "duration.ms",
        "container.start.ms",
        "container.end.ms",
        "container.priority",
        "container.type",
        "container.execution.type",
        "container.allocation.id",
        "container.request.delay",
    }
)

# SLSUtils.parseNodesFromNodeFile: a rack object and its node entries (plus one key per resource type).
NODE_FILE_RACK = frozenset({"rack", "nodes"})
NODE_FILE_NODE = frozenset({"node", "labels"})

# Rumen's Jackson beans: the properties of LoggedJob, LoggedTask and LoggedTaskAttempt (their setters).
RUMEN_JOB = frozenset(
    {
        "jobID",
        "user",
        "computonsPerMapInputByte",
        "computonsPerMapOutputByte",
        "computonsPerReduceInputByte",
        "computonsPerReduceOutputByte",
        "submitTime",
        "launchTime",
        "finishTime",
        "heapMegabytes",
        "totalMaps",
        "totalReduces",
        "outcome",
        "jobtype",
        "priority",
        "directDependantJobs",
        "mapTasks",
        "reduceTasks",
        "otherTasks",
        "successfulMapAttemptCDFs",
        "failedMapAttemptCDFs",
        "successfulReduceAttemptCDF",
        "failedReduceAttemptCDF",
        "queue",
        "jobName",
        "clusterMapMB",
        "clusterReduceMB",
        "jobMapMB",
        "jobReduceMB",
        "relativeTime",
        "mapperTriesToSucceed",
        "failedMapperFraction",
        "jobProperties",
    }
)
RUMEN_TASK = frozenset(
    {
        "inputBytes",
        "inputRecords",
        "outputBytes",
        "outputRecords",
        "taskID",
        "startTime",
        "finishTime",
        "taskType",
        "taskStatus",
        "attempts",
        "preferredLocations",
    }
)
RUMEN_ATTEMPT = frozenset(
    {
        "attemptID",
        "result",
        "startTime",
        "finishTime",
        "hostName",
        "hdfsBytesRead",
        "hdfsBytesWritten",
        "fileBytesRead",
        "fileBytesWritten",
        "mapInputRecords",
        "mapInputBytes",
        "mapOutputBytes",
        "mapOutputRecords",
        "combineInputRecords",
        "reduceInputGroups",
        "reduceInputRecords",
        "reduceShuffleBytes",
        "reduceOutputRecords",
        "spilledRecords",
        "shuffleFinished",
        "sortFinished",
        "location",
        "resourceUsageMetrics",
        "clockSplits",
        "cpuUsages",
        "vmemKbytes",  # Jackson's name for setVMemKbytes
        "vMemKbytes",
        "physMemKbytes",
    }
)

# SynthTraceJobProducer's Jackson classes: Trace, Workload, JobDefinition (new and legacy fields), TaskDefinition,
# Sample and TimeSample. "description" also appears in every workload of SLS's own syn*.json.
SYNTH_TRACE = frozenset({"description", "num_nodes", "nodes_per_rack", "num_jobs", "rand_seed", "workloads"})
SYNTH_WORKLOAD = frozenset(
    {"workload_name", "workload_weight", "queue_name", "job_classes", "time_distribution", "description"}
)
SYNTH_JOB_CLASS = frozenset(
    {
        "class_name",
        "user_name",
        "class_weight",
        "type",
        "deadline_factor",
        "duration",
        "reservation",
        "tasks",
        "params",
        "chance_of_reservation",
        "deadline_factor_avg",
        "deadline_factor_stddev",
        "dur_avg",
        "dur_stddev",
        "mtime_avg",
        "mtime_stddev",
        "rtime_avg",
        "rtime_stddev",
        "mtasks_avg",
        "mtasks_stddev",
        "rtasks_avg",
        "rtasks_stddev",
        "map_max_memory_avg",
        "map_max_memory_stddev",
        "reduce_max_memory_avg",
        "reduce_max_memory_stddev",
        "map_max_vcores_avg",
        "map_max_vcores_stddev",
        "reduce_max_vcores_avg",
        "reduce_max_vcores_stddev",
        "map_execution_type",
        "reduce_execution_type",
    }
)
SYNTH_TASK = frozenset({"type", "count", "time", "max_memory", "max_vcores", "priority", "execution_type"})
SYNTH_SAMPLE = frozenset({"val", "std", "dist", "discrete", "weights"})
SYNTH_TIME_SAMPLE = frozenset({"time", "weight"})


# The formats a file given for one kind may really be, and the option that reads each.
_FORMATS: dict[str, tuple[frozenset[str], str]] = {
    "SLS trace": (SLS_JOB, "--tracetype SLS"),
    "Rumen trace": (RUMEN_JOB, "--tracetype RUMEN"),
    "SYNTH trace": (SYNTH_TRACE, "--tracetype SYNTH"),
    "node file": (NODE_FILE_RACK, "--nodes"),
}


def check_format(path: str | os.PathLike[str], entry: Any, kind: str) -> None:
    """Refuse a file whose first object has none of ``kind``'s keys but those of another format (a Rumen trace read
    with ``--tracetype SLS``), saying which format it looks like, instead of a warning per key it does not know."""
    if not isinstance(entry, Mapping) or any(key in _FORMATS[kind][0] for key in entry):
        return
    matches = sorted(
        ((sorted(k for k in entry if k in keys), other, option) for other, (keys, option) in _FORMATS.items()),
        key=lambda m: -len(m[0]),
    )
    seen, other, option = matches[0]
    if other == kind or not seen or (len(seen) < 2 and len(seen) < len(entry)):
        return
    shown = ", ".join(seen[:4]) + (", ..." if len(seen) > 4 else "")
    raise TraceFormatError(
        f"{one_line(os.fspath(path))}: this looks like {_a(other)} (its first object has the keys "
        f"{one_line(shown)}), not {_a(kind)}: read it with {option}"
    )


def _a(kind: str) -> str:
    return ("an " if kind.startswith("SLS") else "a ") + kind
