"""The workload data model: what a trace reader produces and the AM/NM actors consume.

Plain frozen msgspec Structs, so a workload can be shipped to a Ray shard host as MessagePack unchanged. Times are
milliseconds on the trace clock (``submit_ms`` 0 = simulation start); resources use :class:`Resource`.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from yarnball.protocols import ExecutionType, Resource

__all__ = ["JobSpec", "NodeSpec", "SkippedJob", "TaskSpec", "Workload"]

DEFAULT_RACK = "/default-rack"  # NetworkTopology.DEFAULT_RACK


class NodeSpec(msgspec.Struct, frozen=True):
    """One simulated NodeManager.

    ``rack`` is a network location with its leading slash (``/rack1``, ``/dc1/rack1``), as YARN's NetworkTopology
    writes it. ``labels`` are node-label names; ``non_exclusive_labels`` lists those of them declared
    ``(exclusive=false)`` in an SLS node file (YarnClientUtils.buildNodeLabelsFromStr; labels are exclusive by
    default).
    """

    hostname: str
    rack: str
    resource: Resource
    labels: tuple[str, ...] = ()
    non_exclusive_labels: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        """The SLS ``/rack/host`` form of this node."""
        return f"{self.rack}/{self.hostname}"


class TaskSpec(msgspec.Struct, frozen=True, gc=False):
    """``count`` identical containers of one job (SLS's TaskContainerDefinition).

    ``hosts`` are the preferred hosts (``()`` = anywhere) and ``rack`` the rack of the preferred host (or ``None``);
    an SLS AM turns them into node-local, rack-local and ANY requests. ``request_delay_ms`` is the DAG AM's
    ``container.request.delay``. Not tracked by the cyclic garbage collector (``gc=False``): a spec holds only
    strings, numbers, a resource and a tuple of strings, so it is in no reference cycle, and a long trace's hundreds
    of thousands of them cost no collection time.
    """

    count: int
    duration_ms: int
    priority: int
    task_type: str
    resource: Resource
    hosts: tuple[str, ...] = ()
    rack: str | None = None
    execution_type: ExecutionType = ExecutionType.GUARANTEED
    allocation_request_id: int = -1
    request_delay_ms: int = 0


class JobSpec(msgspec.Struct, frozen=True):
    """One application: its AM type, where and when it is submitted, and its tasks.

    ``end_ms`` is the trace's recorded finish time (for reports; ``None`` when the trace has none). ``deadline_ms``
    is set for SYNTH jobs that asked for a reservation. ``params`` are SYNTH job-class parameters for the AM.
    """

    job_id: str
    am_type: str
    user: str
    queue: str
    submit_ms: int
    end_ms: int | None
    am_resource: Resource
    tasks: tuple[TaskSpec, ...]
    label_expression: str = ""
    name: str = ""
    params: Mapping[str, str] = {}
    deadline_ms: int | None = None

    @property
    def num_containers(self) -> int:
        """Total task containers of the job (without the AM container)."""
        return sum(t.count for t in self.tasks)


class SkippedJob(msgspec.Struct, frozen=True):
    """A job the trace describes but SLS itself would refuse to start, with SLS's reason."""

    job_id: str
    reason: str


class Workload(msgspec.Struct, frozen=True):
    """Jobs sorted as the trace gives them, the cluster's nodes, the refused jobs and where it all came from."""

    jobs: tuple[JobSpec, ...]
    nodes: tuple[NodeSpec, ...]
    skipped: tuple[SkippedJob, ...] = ()
    source: str = ""

    @property
    def num_containers(self) -> int:
        """Total task containers over all jobs."""
        return sum(j.num_containers for j in self.jobs)
