"""The event kernel: one heap of events ordered by ``(time, priority, origin, sequence)``, and the clocks that pace it.

The shape is SimPy's (``simpy/core.py``): a heap and a step function; everything else is built on it. Time is in
**milliseconds** (YARN's unit for every interval), as an int or a float.

Why not asyncio's loop as the clock: asyncio's timer heap does not keep insertion order for equal deadlines, so
simultaneous heartbeats would be ordered by heap accident. Here the sequence number makes equal times FIFO and
deterministic.

The sequence is counted **per origin** (the id of the actor whose event scheduled the new one; ``""`` outside any
actor), not globally: equal-time events are ordered by (origin id, origin's own counter). That order depends only on
what each actor did, never on which kernel the events were queued in, so a cluster split over several kernels (the
Ray backend's shard hosts) processes every actor's events in exactly the order one kernel would. Each event also
carries an ``owner`` (the actor it runs for: the receiver of a message, the actor of a timer); while it runs, the
owner is the origin of whatever it schedules.

The events wait in the :class:`~yarnball.actors._eventqueue.EventQueue` this class extends (actors/_eventqueue.py:
keys, the now lane, parked far-future events, link latencies); this module holds the clocks and the run loop.

Coroutines (``async def`` handlers and processes) are driven by the kernel itself: they await kernel
:class:`Future` objects (sleeps, ``ask`` replies), which works the same under the virtual and the wall clock.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from yarnball._logs import get_logger
from yarnball.actors._eventqueue import EventQueue
from yarnball.actors._future import (
    NORMAL,
    URGENT,
    Future,
    Ms,
    Task,
    TimerHandle,
    current_kernel,
)
from yarnball.actors._ref import ActorRef
from yarnball.errors import ActorError

if TYPE_CHECKING:
    from yarnball.actors._actor import Actor

__all__ = [
    "NORMAL",
    "URGENT",
    "Clock",
    "Future",
    "Kernel",
    "TimerHandle",
    "VirtualClock",
    "WallClock",
    "current_kernel",
]

log = get_logger(__name__)

T = TypeVar("T")


PASSED = 1 << 62  # Kernel.priority once every event at ``now`` has run
_INF = float("inf")


class Clock(ABC):
    """How the kernel waits before it processes an event due at simulated time ``t`` (ms)."""

    @abstractmethod
    def start(self, now: Ms) -> None:
        """Called when a run starts at simulated time ``now``."""

    @abstractmethod
    def wait_until(self, t: Ms) -> None:
        """Block until it is time to process an event due at ``t``."""

    @abstractmethod
    async def wait_until_async(self, t: Ms, wakeup: asyncio.Event) -> bool:
        """Await the time ``t``; return False early if ``wakeup`` is set (an earlier event may have arrived)."""


class VirtualClock(Clock):
    """Jump straight to the next event: simulated time runs as fast as the events can be processed (the default)."""

    def start(self, now: Ms) -> None:
        pass

    def wait_until(self, t: Ms) -> None:
        pass

    async def wait_until_async(self, t: Ms, wakeup: asyncio.Event) -> bool:
        return True


class WallClock(Clock):
    """Pace simulated time by the wall clock: ``factor`` simulated ms per real ms (1.0 = real time).

    SimPy's ``RealtimeEnvironment`` shape: remember the (real, simulated) pair at the start, and sleep until the
    real time that corresponds to each event's simulated time. Events that are late run at once.
    """

    def __init__(self, factor: float = 1.0) -> None:
        if factor <= 0:
            raise ValueError(f"WallClock factor must be > 0, got {factor}")
        self.factor = factor
        self._real_start = 0.0
        self._sim_start = 0.0

    def start(self, now: Ms) -> None:
        self._real_start = time.monotonic()
        self._sim_start = now

    def now_ms(self) -> float:
        """The simulated time (ms) the wall clock is at now: where an event arriving from outside the kernel (a real
        process's exit) belongs."""
        return self._sim_start + (time.monotonic() - self._real_start) * 1000.0 * self.factor

    def _delay_s(self, t: float) -> float:
        due = self._real_start + (t - self._sim_start) / self.factor / 1000.0
        return due - time.monotonic()

    def wait_until(self, t: Ms) -> None:
        delay = self._delay_s(t)
        if delay > 0:
            time.sleep(delay)

    async def wait_until_async(self, t: Ms, wakeup: asyncio.Event) -> bool:
        delay = self._delay_s(t)
        if delay <= 0:
            return True
        try:
            await asyncio.wait_for(wakeup.wait(), delay)
        except TimeoutError:
            return True
        return False


class Kernel(EventQueue):
    """One event queue per process, ordered by ``(time, priority, origin, sequence)``.

    ``schedule`` pushes a callback ``fn(arg)``; ``run`` pops and calls them in order, moving ``now`` to each event's
    time (immediately under the :class:`VirtualClock`, paced under the :class:`WallClock`).
    """

    def __init__(self, clock: Clock | None = None, *, start: Ms = 0) -> None:
        super().__init__(start)
        self.clock: Clock = clock if clock is not None else VirtualClock()
        #: The highest priority processed so far at ``now``: with ``now``, the position of the run in the event order
        #: (every event at ``now`` with a lower or equal priority has run). A run that stopped at ``until`` has run
        #: every event at ``until``: the priority is then ``PASSED``. The NM heartbeat clock relies on it.
        self.priority: int = -1
        #: ``yarnball.simulation.exact-shortcuts``: False leaves no event out (actors/_shortcuts/__init__.py). Read by
        #: the shortcuts that have no switch of their own (quiet replies, a firing's allocate run in place).
        self.exact_shortcuts: bool = True
        #: The highest event (heap entry) processed so far at ``now`` (a sentinel key when none has, or when a run
        #: stopped at ``until``): an event that would have been queued at ``now`` with a key below it has run, one
        #: with a key above it has not (the heap pops in key order; see _shortcuts/_amdormancy.py, which relies on it).
        self.high: tuple[Any, ...] = (start, -1, "", -1)
        #: Called with every event's entry as it becomes the current event (after the kernel's own bookkeeping), or
        #: None: a test observing every event sets it (:meth:`observe_events`).
        self.enter_observer: Callable[[tuple[Any, ...]], None] | None = None
        #: Whether the current (or last) ``run`` calls ``_enter`` for every event (an observer was set when the run
        #: started: :func:`enter_replaced`; always under ``run_async``). The shortcuts that leave events out read
        #: this instead of looking at the observer at every event: they are off exactly when the run loop shows
        #: every event to the observer. True (off) until a run starts.
        self.enter_hooked = True
        #: The heap entry being processed (its first four fields are the event's canonical key), or None.
        self.event: tuple[Any, ...] | None = None
        self._running = False
        self._stop_requested = False
        #: Whether the current run is :meth:`run_async` (an event may then arrive from outside between two events).
        self.running_async = False
        self.events_processed = 0
        #: The time of the last event processed (``now`` may have moved on to a ``run(until=...)`` bound since).
        self.last_event_time: Ms = start
        # The actor runtime's bookkeeping lives here so that every actor of a process shares it.
        self.actors: dict[str, Any] = {}
        self.dead_letters = 0
        self.handler_failures = 0
        #: The first ``MAX_RECORDED_FAILURES`` handler failures (actors/_actor.py ``HandlerFailure``), in event order.
        self.failure_records: list[Any] = []
        #: Resolves an actor id this kernel does not host into a ref (set by a shard host; None in one process).
        self.remote: Callable[[str], Any] | None = None

    # -- delivering in place ---------------------------------------------------------------------------------------
    def deliver_in_place(self, fn: Callable[[Any], None], arg: Any, owner: str) -> None:
        """A delivery ``fn(arg)`` to ``owner`` at ``now`` with the next key of the current origin (what
        :meth:`send` queues without latency), run at once when it is the next event (:meth:`run_if_next`), else
        queued. The caller's event must end with this call."""
        origin = self.current
        seqs = self._seqs
        seq = seqs.get(origin, 0)
        seqs[origin] = seq + 1
        entry = (self.now + (self._default_latency + 0), NORMAL, origin, seq, fn, arg, owner)
        if not self.run_if_next(entry):
            self.push(*entry)

    def run_if_next(self, entry: tuple[Any, ...]) -> bool:
        """Run ``entry`` (a queued event's entry, its key taken) now, as the run loop would, when it is the event
        the loop would pop next: at ``now``, below every queued key, in a :meth:`run` that is not asked to stop
        (not :meth:`run_async`, where an event may arrive from outside, nor a shard host's window). False (nothing
        done) otherwise: the caller queues it. The caller's own event must end with this call, so that nothing
        it does afterwards runs before ``entry``. Only :attr:`events_processed` differs from popping it."""
        queue = self._queue
        lane = self._now
        if (
            entry[0] != self.now
            or self.remote is not None
            or self._wakeup is not None
            or self._stop_requested
            or (queue and not entry < queue[0])
            or (lane and not entry < lane[0])
        ):
            return False
        # (entries parked are at least FAR_WIDTH ahead of now: every one is above an entry at now)
        if self.enter_hooked and enter_replaced(self):
            self._enter(entry)  # a test observing every event sees this one as the run loop would show it
        else:  # _enter's bookkeeping: the entry is at now
            if entry > self.high:
                self.high = entry
                self.priority = entry[1]
            self.event = entry
            self.current = entry[6]
        entry[4](entry[5])
        return True

    def call_later(self, delay: Ms, fn: Callable[[], None]) -> TimerHandle:
        """Call ``fn()`` after ``delay`` ms unless the returned handle is cancelled first."""
        handle = TimerHandle()

        def fire(_: Any) -> None:
            if not handle.cancelled:
                fn()

        self.schedule(delay, fire)
        return handle

    def spawn(self, actor: Actor, actor_id: str | None = None) -> ActorRef:
        """Register an :class:`~yarnball.actors.Actor` under ``actor_id`` and schedule its ``on_start``."""
        if actor_id is None:
            actor_id = f"{type(actor).__name__}-{len(self.actors)}"
        return actor.spawn_on(self, actor_id)  # (actors/_actor.py: the actor layer sits above this one)

    def lookup(self, actor_id: str) -> Any:
        """The :class:`~yarnball.actors.ActorRef` of ``actor_id`` (messages to an unknown id are dead letters)."""
        actor = self.actors.get(actor_id)  # the common cases of _actor.lookup, without the import
        if actor is not None:
            return actor.ref
        remote = self.remote
        if remote is not None:  # a shard host: an actor on another host (every sender of a batch it delivers)
            ref = remote(actor_id)
            if ref is not None:
                return ref
        return ActorRef(actor_id, self, None)  # its messages become dead letters

    def forget(self, actor_id: str) -> None:
        """Let go of a stopped actor whose id is never used again: its registry entry and its scheduling sequence."""
        self.actors.pop(actor_id, None)
        self._seqs.pop(actor_id, None)

    def shutdown(self) -> None:
        """Orderly stop: every actor is stopped, in reverse order of spawning, with its ``on_stop`` called."""
        actors: list[Any] = list(self.actors.values())
        for actor in actors[::-1]:
            actor.stop()

    def create_future(self) -> Future[Any]:
        return Future(self)

    def sleep(self, delay: Ms) -> Future[None]:
        """A future resolved ``delay`` ms from now: ``await kernel.sleep(1000)``."""
        fut: Future[None] = Future(self)
        self.schedule(delay, lambda _: fut.set_result(None))
        return fut

    def spawn_task(self, coro: Coroutine[Any, Any, T]) -> Task[T]:
        """Run a coroutine on the kernel (it may await kernel futures)."""
        return Task(self, coro)

    def stop(self) -> None:
        """Make the current ``run`` return after the event being processed."""
        self._stop_requested = True
        if self._wakeup is not None:  # a run_async waiting for the wall clock looks again at once
            self._wakeup.set()

    # -- running -----------------------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Whether a :meth:`run` or :meth:`run_async` is under way."""
        return self._running

    def _enter(self, entry: tuple[Any, ...]) -> None:
        """Make ``entry`` (just popped) the current event: its time, its owner, and the priority mark."""
        t = entry[0]
        if t != self.now:
            self.now = t
            self.priority = entry[1]
            self.high = entry
        elif entry > self.high:
            self.high = entry
            self.priority = entry[1]
        # else: a same-time event queued (below the mark) after higher ones ran: keep the mark
        self.event = entry
        self.current = entry[6]
        observer = self.enter_observer
        if observer is not None:
            observer(entry)

    def observe_events(self, observer: Callable[[tuple[Any, ...]], None] | None) -> None:
        """Show every event's entry to ``observer`` as it becomes the current event (None: stop). From the next
        :meth:`run` on, the run loop takes its slow path for every event and the shortcuts that leave events out
        are off (:attr:`enter_hooked`), so that the observer sees every event the run processes."""
        self.enter_observer = observer

    def run(self, until: Ms | None = None) -> Ms:
        """Process events until the queue is empty, ``until`` (ms, inclusive) is reached, or ``stop()``.

        Returns the simulated time at the end. With ``until``, ``now`` ends exactly at ``until``.
        """
        if self._running:
            raise ActorError("Kernel.run() called while the kernel is already running")
        self._running = True
        self._stop_requested = False
        token = current_kernel.set(self)
        queue = self._queue
        lane = self._now
        pop = heapq.heappop
        clock = self.clock
        virtual = isinstance(clock, VirtualClock)
        hooked = self.enter_hooked = enter_replaced(self)  # a test observes every event
        # One comparison per event decides whether the event needs the slow path: ``t > bound`` holds past
        # ``until`` and, under a pacing clock or a hooked _enter, for every event (-inf); the parked edge is
        # compared on its own.
        bound = (_INF if until is None else until) if virtual and not hooked else -_INF
        clock.start(self.now)
        count = 0
        try:
            while True:
                # The head is popped first (a popped entry that must not run yet is pushed back: keys are unique,
                # so the pop order is the same): one heap access per event instead of three.
                if lane:
                    # the now lane's head, unless the heap's head is at now too and comes first (module docstring)
                    entry = pop(queue if queue and queue[0][0] == self.now and queue[0] < lane[0] else lane)
                else:
                    try:
                        entry = pop(queue)
                    except IndexError:
                        if not self._far_keys:
                            break
                        self._unpark()  # (module docstring)
                        continue
                t = entry[0]
                if t >= self._far_edge:  # a parked bucket may hold earlier events (module docstring)
                    heapq.heappush(queue, entry)
                    self._unpark()
                    continue
                if t > bound:
                    if until is not None and t > until:
                        heapq.heappush(queue, entry)
                        break
                    if not virtual:
                        clock.wait_until(t)
                if hooked:
                    self._enter(entry)
                # Kernel._enter, inlined: this loop runs once per event.
                elif t != self.now:
                    self.now = t
                    self.priority = entry[1]
                    self.high = entry
                elif entry > self.high:
                    self.high = entry
                    self.priority = entry[1]
                self.event = entry
                self.current = entry[6]
                count += 1
                entry[4](entry[5])
                if self._stop_requested:
                    break
            if count:
                self.last_event_time = self.now
            if until is not None and not self._stop_requested:
                if self.now < until and not virtual:
                    clock.wait_until(until)
                self.now = until
                self.priority = PASSED
                self.high = (until, PASSED, "", 0)
        finally:
            self.events_processed += count
            self._running = False
            self.current = ""
            self.event = None
            current_kernel.reset(token)
        return self.now

    def run_until_complete(self, fut: Future[T], *, limit: Ms | None = None) -> T:
        """Run until ``fut`` is resolved and return its result (raise if the queue empties first)."""
        done_flag = []

        def done(_: Future[T]) -> None:
            done_flag.append(True)
            self.stop()

        fut.add_done_callback(done)
        while not done_flag:
            head = self.peek()
            if head is None:
                raise ActorError("the event queue ran empty before the awaited future was resolved")
            if limit is not None and head > limit:
                raise ActorError(f"the awaited future was not resolved by t={limit} ms")
            self.run(until=limit)
        return fut.result()

    async def run_async(self, until: Ms | None = None, *, wait_when_idle: bool = False) -> Ms:
        """Like :meth:`run`, but awaits the clock instead of blocking, for live runs inside asyncio (and Ray).

        While waiting for the next event's wall time, an event scheduled from outside (another asyncio task) wakes
        the loop so that it is not missed. With ``wait_when_idle`` an empty queue does not end the run: it waits for
        such an event (or :meth:`stop`, or ``until``): a live shard host whose actors wait for another host's reply
        is idle, not done.
        """
        if self._running:
            raise ActorError("Kernel.run_async() called while the kernel is already running")
        self._running = True
        self._stop_requested = False
        self._wakeup = asyncio.Event()
        self.running_async = True
        self.enter_hooked = True  # (every event goes through _enter here)
        token = current_kernel.set(self)
        queue = self._queue
        self.clock.start(self.now)
        try:
            while not self._stop_requested:
                if self.peek() is None:
                    if until is None:
                        if not wait_when_idle:
                            break
                        self._wakeup.clear()
                        await self._wakeup.wait()
                        continue
                    self._wakeup.clear()
                    if await self.clock.wait_until_async(until, self._wakeup):
                        break
                    continue
                if self._now:  # (entries at now: no wait, and the next is the smaller head of the two heaps)
                    lane = self._now
                    from_heap = queue and queue[0][0] == self.now and queue[0] < lane[0]
                    entry = heapq.heappop(queue if from_heap else lane)
                    self._enter(entry)
                    self.events_processed += 1
                    entry[4](entry[5])
                    continue
                t = queue[0][0]
                if until is not None and t > until:
                    self._wakeup.clear()
                    if await self.clock.wait_until_async(until, self._wakeup):
                        break
                    continue
                self._wakeup.clear()
                if not await self.clock.wait_until_async(t, self._wakeup):
                    continue  # something new was scheduled; look at the head again
                if not queue or queue[0][0] >= self._far_edge:
                    continue  # something was parked below the head meanwhile: unpark first (peek, above)
                entry = heapq.heappop(queue)
                self._enter(entry)
                self.events_processed += 1
                entry[4](entry[5])
            if until is not None and not self._stop_requested:
                self.now = until
                self.priority = PASSED
                self.high = (until, PASSED, "", 0)
        finally:
            self._wakeup = None
            self.running_async = False
            self._running = False
            self.current = ""
            self.event = None
            current_kernel.reset(token)
        return self.now


def enter_replaced(kernel: Kernel) -> bool:
    """Whether a test observes every event of ``kernel`` (:meth:`Kernel.observe_events`)."""
    return kernel.enter_observer is not None
