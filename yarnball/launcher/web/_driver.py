"""Running a virtual-time cluster inside an asyncio loop, in slices, so that a web server can answer in between.

The kernel is synchronous: while ``kernel.run(until=t)`` runs, nothing else in the process does. The driver runs it
in slices of simulated time from an asyncio task and yields to the event loop after each one, so requests are
handled only *between* slices, when no event is half-processed. After every slice it bumps a generation number;
:class:`LiveSource` builds a :class:`~yarnball.launcher.web._snapshot.Snapshot` the first time a request asks for
the current generation and hands the same one to every later request of that generation. Nobody polling costs
nothing but the slicing; a poller costs one snapshot per slice at most.

Slicing does not change the run: ``kernel.run(until=t)`` processes every event at or before ``t`` and leaves the
rest queued, exactly as one long run would reach them, and nothing is scheduled between slices (the snapshot only
reads). Without ``pace`` a slice is sized to take about ``SLICE_WALL_S`` of wall time; with ``pace`` the simulated
clock follows ``pace`` times the wall clock, for a person to watch.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from yarnball.errors import ConfigurationError, SimulationError
from yarnball.launcher._gc import tuned_gc
from yarnball.launcher.web._snapshot import Snapshot, take_snapshot

__all__ = ["LiveSource", "StaticSource", "drive", "paced_target"]

SLICE_WALL_S = 0.02  # a request waits at most about this long for the kernel (unpaced)
MAX_SLICE_MS = 3_600_000.0  # the longest unpaced slice of simulated time (tests lower it to get many slices)
PACE_TICK_S = 0.05  # a paced run advances the simulated clock this often


class LiveSource:
    """The latest snapshot of a running cluster: rebuilt lazily, at most once per slice (generation)."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.generation = 0
        self.done = False
        self.snapshots_taken = 0
        self.driving = False  # a drive() loop runs the kernel (see ask_rm)
        self._snapshot: Snapshot | None = None
        self._waiters: list[asyncio.Future[None]] = []
        #: set when work arrived after the run ended (a REST submission): the server drives the kernel again
        self.resume = asyncio.Event()

    def advance(self, *, done: bool = False) -> None:
        """The kernel ran: later requests get a new snapshot."""
        self.generation += 1
        self.done = done
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def start_am(self, am: Any) -> str:
        """Start an ApplicationMaster actor (a REST submission's, launcher/web/_restsubmit.py) between slices and
        return its actor id; after the run ended, ask the server to drive the kernel again so that it runs."""
        self.cluster.submit(am)
        if self.done:
            self.resume.set()
        return str(am.id)

    async def ask_rm(self, message: Any) -> Any:
        """Send ``message`` to the RM as a client would and return its reply (a write of the REST API).

        The message enters the kernel's queue between slices like any other message; while the driver runs, the
        caller waits for the slices that deliver it and its reply. Once the run is over (or when nothing drives the
        kernel) the kernel is run here just until the reply arrives, so a write to a finished run is still answered
        by the RM. Later requests get a new snapshot, which shows the write's effect."""
        fut = self.cluster.rm.ref.ask(message)
        kernel = self.cluster.kernel
        while not fut.done():
            if self.done or not self.driving:
                kernel.run_until_complete(fut)
                break
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter
        self.advance(done=self.done)
        return fut.result()

    def latest(self) -> Snapshot:
        snap = self._snapshot
        if snap is None or snap.generation != self.generation:
            snap = self._snapshot = take_snapshot(
                self.cluster, generation=self.generation, done=self.done, lazy=not self.done
            )
            self.snapshots_taken += 1
        return snap


class StaticSource:
    """One fixed snapshot (a finished run, or a test)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def latest(self) -> Snapshot:
        return self.snapshot


def paced_target(start_ms: float, wall_elapsed_s: float, pace: float) -> float:
    """The simulated time a run paced at ``pace`` times real time should have reached after ``wall_elapsed_s``."""
    return start_ms + pace * wall_elapsed_s * 1000.0


def next_slice_ms(slice_ms: float, spent_s: float) -> float:
    """The next unpaced slice of simulated time, after one of ``slice_ms`` took ``spent_s`` of wall time: aimed at
    ``SLICE_WALL_S`` per slice, changed by at most 2x per slice, between 1 ms and ``MAX_SLICE_MS``."""
    ratio = SLICE_WALL_S / spent_s if spent_s > 0 else 2.0
    return min(max(slice_ms * min(max(ratio, 0.5), 2.0), 1.0), MAX_SLICE_MS)


def check_pace(pace: float | None) -> None:
    if pace is not None and not pace > 0:
        raise ConfigurationError(f"--pace: expected a positive factor of real time, got {pace}")


async def drive(
    cluster: Any,
    source: LiveSource | None = None,
    *,
    until_ms: float | None = None,
    pace: float | None = None,
    on_progress: Callable[[float], None] | None = None,
    wall_clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Run ``cluster`` like ``cluster.run(until_ms, on_progress)``, yielding to the event loop between slices.

    Returns the simulated end time, the same as ``cluster.run`` would."""
    check_pace(pace)
    kernel = getattr(cluster, "kernel", None)
    if kernel is None or not hasattr(cluster, "begin_run"):
        raise SimulationError("the web layer needs the embedded backend (one kernel in this process)")
    if not cluster.begin_run(until_ms, on_progress):
        if source is not None:
            source.advance(done=True)
        return float(kernel.now)
    with tuned_gc():  # as Cluster.run: the cluster built so far is out of the collector's way (launcher/_gc.py)
        await _slices(cluster, kernel, source, until_ms, pace, wall_clock)
    cluster.end_run()
    if source is not None:
        source.driving = False
        source.advance(done=True)
    return float(kernel.now)


async def _slices(
    cluster: Any,
    kernel: Any,
    source: LiveSource | None,
    until_ms: float | None,
    pace: float | None,
    wall_clock: Callable[[], float],
) -> None:
    """Run the kernel slice by slice until the run is over, yielding to the event loop in between."""
    slice_ms = 1000.0
    start_ms = float(kernel.now)
    wall0 = wall_clock()
    if source is not None:
        source.driving = True
    while True:
        if pace is not None:
            target = paced_target(start_ms, wall_clock() - wall0, pace)
        else:
            target = kernel.now + slice_ms
        if until_ms is not None:
            target = min(target, float(until_ms))
        if target > kernel.now:
            began = wall_clock()
            kernel.run(until=target)
            spent = wall_clock() - began
            if pace is None:
                slice_ms = next_slice_ms(slice_ms, spent)
        if cluster.finished() or (until_ms is not None and kernel.now >= until_ms) or kernel.peek() is None:
            break
        if source is not None:
            source.advance()
        await asyncio.sleep(PACE_TICK_S if pace is not None else 0)
    if until_ms is None and kernel.peek() is None and not cluster.finished():
        # The queue ran dry inside a slice, which then set the clock to the slice's end; one long run would have
        # stopped at the last event.
        kernel.now = max(start_ms, float(kernel.last_event_time))
