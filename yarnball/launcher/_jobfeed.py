"""Jobs submitted as the run reaches them: each job's ApplicationMaster is built and spawned shortly before its
submit time, not all of them when the trace is handed over, so that a long trace's later jobs cost nothing until
then (``Cluster.submit_jobs``; the embedded backend).

The run is the same as with every AM spawned at once: an AM's submission is the timer its ``on_start`` sets, and
that timer has the same time and the same key (the AM's own first scheduling) whenever the AM was spawned. The
AMs take the same ids (their index among the cluster's submissions), in the jobs' order.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from yarnball.errors import SimulationError
from yarnball.launcher.workloads import JobSpec, TaskSpec
from yarnball.protocols import ExecutionType, Resource

__all__ = ["LOOKAHEAD_MS", "JobFeed", "PackedTasks", "TaskValues"]

#: How long before its submit time a job's AM is spawned (simulated ms).
LOOKAHEAD_MS = 10_000

#: The owner of the feed's events (not an actor: they run for the driver).
FEED_OWNER = "job-feed"


class TaskValues:
    """The distinct shapes of a feed's tasks (task type, resource, preferred hosts, rack, execution type), each kept
    once: a packed job's rows refer to them by number, so that the tasks its AM unpacks share them (a task spec then
    costs ~140 bytes, against ~500 with its own decoded strings, resource and tuple). As many as the trace has
    distinct shapes: about one per host and container size."""

    __slots__ = ("_numbers", "values")

    def __init__(self) -> None:
        self.values: list[tuple[str, Resource, tuple[str, ...], str | None, ExecutionType]] = []
        # (the execution type by identity in the key: an enum member's hash is a Python-level call)
        self._numbers: dict[tuple[str, Resource, tuple[str, ...], str | None, int], int] = {}

    def rows(self, tasks: tuple[TaskSpec, ...]) -> list[tuple[int, int, int, int, int, int]]:
        """``tasks`` as rows of integers: count, duration, priority, shape number, allocation request id, delay."""
        numbers, values = self._numbers, self.values
        rows = []
        for t in tasks:
            etype = t.execution_type
            key = (t.task_type, t.resource, t.hosts, t.rack, id(etype))
            n = numbers.get(key)
            if n is None:
                n = numbers[key] = len(values)
                values.append((t.task_type, t.resource, t.hosts, t.rack, etype))
            rows.append((t.count, t.duration_ms, t.priority, n, t.allocation_request_id, t.request_delay_ms))
        return rows

    def specs(self, rows: list[tuple[int, int, int, int, int, int]]) -> tuple[TaskSpec, ...]:
        """The task specs of :meth:`rows`' output."""
        values = self.values
        specs = []
        for count, duration, priority, n, request_id, delay in rows:
            kind, resource, hosts, rack, etype = values[n]
            specs.append(TaskSpec(count, duration, priority, kind, resource, hosts, rack, etype, request_id, delay))
        return tuple(specs)


class PackedTasks:
    """A job's task specs as compressed MessagePack rows of integers (~1 kB for 100 tasks, against ~20 kB of
    objects), their shapes numbered in the feed's :class:`TaskValues`; unpacked by its AM when it first needs them
    (actors/_slsam.py DeferredTasks), and again should it need them after letting them go."""

    __slots__ = ("_data", "_values", "total")

    def __init__(self, tasks: tuple[TaskSpec, ...], values: TaskValues | None = None) -> None:
        values = TaskValues() if values is None else values
        self._data = zlib.compress(_ENCODER.encode(values.rows(tasks)), 1)
        self._values = values
        self.total = sum(max(t.count, 0) for t in tasks)

    def unpack(self) -> tuple[TaskSpec, ...]:
        return self._values.specs(_DECODER.decode(zlib.decompress(self._data)))


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(list[tuple[int, int, int, int, int, int]])


class JobFeed:
    """Spawns the AMs of ``jobs`` (in non-decreasing submit time) as the kernel's clock nears their submit times.

    ``make_am`` builds a job's AM from the job and its packed tasks (None: the job is skipped), ``submit`` spawns
    it; ``base`` is the time the jobs' ``submit_ms`` count from (the kernel's time when they were handed over).
    """

    __slots__ = ("_base", "_jobs", "_kernel", "_last", "_make_am", "_next", "_submit", "_values")

    def __init__(
        self,
        kernel: Any,
        jobs: Iterator[JobSpec],
        make_am: Callable[[JobSpec, PackedTasks], Any],
        submit: Callable[[Any], Any],
    ) -> None:
        self._kernel = kernel
        self._jobs = jobs
        self._make_am = make_am
        self._submit = submit
        self._base = kernel.now
        self._values = TaskValues()  # (the values of every job's packed tasks)
        self._last: JobSpec | None = None
        self._next: JobSpec | None = next(jobs, None)
        self._step(None)  # the jobs due within the lookahead: now, as if spawned all at once

    @property
    def pending(self) -> bool:
        """Whether jobs remain to be spawned."""
        return self._next is not None

    def _step(self, _: Any) -> None:
        now = self._kernel.now
        horizon = now - self._base + LOOKAHEAD_MS
        job = self._next
        while job is not None and job.submit_ms <= horizon:
            self._spawn(job, now)
            job = self._next = next(self._jobs, None)
        if job is not None:
            # at a whole ms after the base, so that base + (submit_ms - k) + k is exactly base + submit_ms
            delay = (self._base + (job.submit_ms - LOOKAHEAD_MS)) - now
            self._kernel.schedule(max(0.0, delay), self._step, owner=FEED_OWNER)

    def _spawn(self, job: JobSpec, now: float) -> None:
        last = self._last
        if self._base + job.submit_ms < now and last is not None:
            raise SimulationError(
                f"submit_jobs: job {job.job_id!r} (submit_ms {job.submit_ms}) comes after job {last.job_id!r} "
                f"(submit_ms {last.submit_ms}): the jobs must be in submit time order"
            )
        self._last = job
        # The job's tasks packed until its AM registers (a job may wait long in its queue); the cluster's record of
        # the job keeps its times.
        am = self._make_am(msgspec.structs.replace(job, tasks=()), PackedTasks(job.tasks, self._values))
        if am is None:
            return
        # The AM's timer counts from its start: the job's submit time from here, the same instant as from the base.
        am.submit_at_ms = self._base + job.submit_ms - now
        self._submit(am)
