"""Jobs submitted as the run reaches them: each job's ApplicationMaster is built and spawned shortly before its
submit time, not all of them when the trace is handed over, so that a long trace's later jobs cost nothing until
then (``Cluster.submit_jobs``; the embedded backend).

The run is the same as with every AM spawned at once: an AM's submission is the timer its ``on_start`` sets, and
that timer has the same time and the same key (the AM's own first scheduling) whenever the AM was spawned. The
AMs take the same ids (their index among the cluster's submissions), in the jobs' order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from yarnball.errors import SimulationError
from yarnball.launcher.workloads import JobSpec
from yarnball.launcher.workloads._packed import PackedTasks, TaskValues

__all__ = ["LOOKAHEAD_MS", "JobFeed"]

#: How long before its submit time a job's AM is spawned (simulated ms).
LOOKAHEAD_MS = 10_000

#: Jobs made (drawn and packed) at a time, ahead of their spawning: ~60 kB for the busy synthetic trace, and the
#: trace's code runs in one go instead of between every two jobs of the run.
PULL_BATCH = 64

#: The owner of the feed's events (not an actor: they run for the driver).
FEED_OWNER = "job-feed"


class JobFeed:
    """Spawns the AMs of ``jobs`` (in non-decreasing submit time) as the kernel's clock nears their submit times.

    ``make_am`` builds a job's AM from the job and its packed tasks (None: the job is skipped), ``submit`` spawns
    it; ``base`` is the time the jobs' ``submit_ms`` count from (the kernel's time when they were handed over).
    """

    __slots__ = (
        "_base",
        "_buffer",
        "_jobs",
        "_kernel",
        "_last",
        "_make_am",
        "_next",
        "_next_packed",
        "_submit",
        "_values",
    )

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
        self._values = TaskValues()  # (the shapes of every job's packed tasks)
        # A trace that packs its jobs' tasks as it makes them (workloads.SyntheticJobs) gives them so.
        self._next_packed: Callable[[TaskValues], tuple[JobSpec, PackedTasks] | None] | None = getattr(
            jobs, "next_packed", None
        )
        self._last: JobSpec | None = None
        # The next jobs, made PULL_BATCH at a time (in reverse order, taken from the end)
        self._buffer: list[tuple[JobSpec, PackedTasks]] = []
        self._next = self._pull()
        self._step(None)  # the jobs due within the lookahead: now, as if spawned all at once

    @property
    def pending(self) -> bool:
        """Whether jobs remain to be spawned."""
        return self._next is not None

    def _pull(self) -> tuple[JobSpec, PackedTasks] | None:
        """The next job, without its tasks, and its tasks packed until its AM registers (a job may wait long in its
        queue); the cluster's record of the job keeps its times. None after the last."""
        buffer = self._buffer
        if not buffer:
            for _ in range(PULL_BATCH):
                made = self._make()
                if made is None:
                    break
                buffer.append(made)
            if not buffer:
                return None
            buffer.reverse()
        return buffer.pop()

    def _make(self) -> tuple[JobSpec, PackedTasks] | None:
        if self._next_packed is not None:
            return self._next_packed(self._values)
        job = next(self._jobs, None)
        if job is None:
            return None
        return msgspec.structs.replace(job, tasks=()), PackedTasks(job.tasks, self._values)

    def _step(self, _: Any) -> None:
        now = self._kernel.now
        horizon = now - self._base + LOOKAHEAD_MS
        upcoming = self._next
        while upcoming is not None and upcoming[0].submit_ms <= horizon:
            self._spawn(*upcoming, now)
            upcoming = self._next = self._pull()
        if upcoming is not None:
            # at a whole ms after the base, so that base + (submit_ms - k) + k is exactly base + submit_ms
            delay = (self._base + (upcoming[0].submit_ms - LOOKAHEAD_MS)) - now
            self._kernel.schedule(max(0.0, delay), self._step, owner=FEED_OWNER)

    def _spawn(self, job: JobSpec, tasks: PackedTasks, now: float) -> None:
        last = self._last
        if self._base + job.submit_ms < now and last is not None:
            raise SimulationError(
                f"submit_jobs: job {job.job_id!r} (submit_ms {job.submit_ms}) comes after job {last.job_id!r} "
                f"(submit_ms {last.submit_ms}): the jobs must be in submit time order"
            )
        self._last = job
        am = self._make_am(job, tasks)
        if am is None:
            return
        # The AM's timer counts from its start: the job's submit time from here, the same instant as from the base.
        am.submit_at_ms = self._base + job.submit_ms - now
        self._submit(am)
