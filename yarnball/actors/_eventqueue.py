"""The kernel's event queue: where events wait, in the order ``(time, priority, origin, sequence)``, until the run
loop (actors/_kernel.py) pops them.

:class:`EventQueue` takes each new event's key (the origin's next sequence, :meth:`EventQueue.schedule`), queues it
in one of three places and says which event is next (:meth:`EventQueue.peek`); the :class:`~yarnball.actors.Kernel`
built on it runs them. Links between actors may add a delivery latency (:meth:`EventQueue.set_latency`).

**Parked far-future events.** A timer due at least ``FAR_WIDTH`` ms ahead may be *parked* (:meth:`EventQueue.park`)
instead of queued: it goes unsorted into the bucket of its time (``t // FAR_WIDTH``) and enters the heap only when
the run gets near it, so the heap the run loop pops from holds the next ~100 ms of events instead of every
running container's completion (~10,000 entries at 1,000 busy nodes: a pop compares ~14 keys instead of ~5). The
heartbeat timers (the NMs' phase points, the AMs' allocate ticks, a second ahead) are parked too: at 10,000 busy
nodes the heap then holds ~300 entries instead of ~4,000, which a pop walks with fewer comparisons and cache misses.
Exact: every parked entry's time is at or above ``_far_edge`` (the start of the earliest bucket; +inf when none),
so an entry at the heap's head below ``_far_edge`` is the smallest key of all, and the loop (and ``peek``) moves the
earliest bucket into the heap whenever the heap is empty or its head is at or above ``_far_edge``: events are
popped in exactly the key order of one heap. Parking takes the same sequence as queueing and changes no key. Since
a parked time is ``>= now + FAR_WIDTH``, ``_far_edge > now`` whenever anything is parked: an event at ``now`` is below
every parked one (:meth:`Kernel.run_if_next` compares it with the heads of the heap and of the now lane only).
``len(_queue)`` counts only the heap's entries.

**The now lane.** An event queued at ``now`` itself (a message without latency, a timer of delay 0: about half of a
busy run's events) goes into a second heap, ``_now``, instead of the main one, so that it is not sifted to the top
of ~100-300 entries on the way in and back down on the way out. Every ``_now`` entry is at ``now`` (an entry is
added only when its time equals ``now``, and ``now`` moves only to the time of an entry popped from the main heap,
which happens only when ``_now`` is empty or holds only larger keys than that entry, i.e. never while ``_now`` holds
an entry at an earlier time), so the next event is the smaller of the two heads: ``_now``'s head, unless the main
heap's head is at ``now`` too (queued before the run reached ``now``) with a smaller key. Events are popped in
exactly the key order of one heap. Pushing an entry at ``now`` into the main heap instead (as the less frequent
sites do) is equally correct, only slower. ``len(_queue)`` does not count ``_now``.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Callable
from typing import Any

from yarnball.actors._future import NORMAL, Ms
from yarnball.errors import ActorError

__all__ = ["FAR_WIDTH", "EventQueue"]

#: Width (ms) of a parked-event bucket, and the least delay a parked event has (see the module docstring).
FAR_WIDTH = 100.0
_INF = float("inf")


def _merge(queue: list[Any], entries: list[Any]) -> None:
    """Push ``entries`` into the heap ``queue``. Canonical keys are unique, so the pop order is the same whether the
    heap is rebuilt or pushed into one by one; a large batch is cheaper to heapify in one C call."""
    if len(entries) * 4 >= len(queue):
        queue.extend(entries)
        heapq.heapify(queue)
    else:
        for entry in entries:
            heapq.heappush(queue, entry)


class EventQueue:
    """The queued events of one kernel and the keys they take: the scheduling half of :class:`Kernel`."""

    def __init__(self, start: Ms = 0) -> None:
        self.now: Ms = start
        # (time, priority, origin, origin's sequence, fn, arg, owner); (origin, sequence) is unique, so the
        # comparison never reaches fn.
        self._queue: list[tuple[Ms, int, str, int, Callable[[Any], None], Any, str]] = []
        #: The now lane: a second heap for events queued at ``now`` itself (see the module docstring).
        self._now: list[tuple[Ms, int, str, int, Callable[[Any], None], Any, str]] = []
        self._seqs: dict[str, int] = {}
        # Parked far-future entries (see the module docstring): bucket index -> entries (unsorted), the heap of
        # bucket indices, and the earliest bucket's start (+inf when nothing is parked).
        self._far: dict[int, list[tuple[Ms, int, str, int, Callable[[Any], None], Any, str]]] = {}
        self._far_keys: list[int] = []
        self._far_edge: float = _INF
        #: The owner of the event being processed ("" outside any actor's event).
        self.current: str = ""
        self._wakeup: asyncio.Event | None = None
        self._default_latency: Ms = 0
        self._latency: dict[tuple[str, str], Ms] = {}
        #: Whether every message arrives at the instant it is sent: no modelled latency on any link (kept by
        #: ``default_latency`` and :meth:`set_latency`).
        self.instant = True

    # -- scheduling ---------------------------------------------------------------------------------------------
    def schedule(
        self,
        delay: Ms,
        fn: Callable[[Any], None],
        arg: Any = None,
        *,
        priority: int = NORMAL,
        owner: str | None = None,
    ) -> None:
        """Call ``fn(arg)`` at ``now + delay``. Equal times run by priority, then by origin, then in the origin's
        scheduling order. ``owner`` is the actor the event runs for (default: the current event's owner)."""
        if delay < 0:
            raise ValueError(f"cannot schedule into the past (delay={delay})")
        origin = self.current
        seq = self._seqs.get(origin, 0)
        self._seqs[origin] = seq + 1
        entry = (self.now + delay, priority, origin, seq, fn, arg, origin if owner is None else owner)
        if delay >= FAR_WIDTH:
            self.park(entry)  # (e.g. the workload's future submissions: module docstring)
            return
        heapq.heappush(self._now if delay == 0 else self._queue, entry)
        if self._wakeup is not None:
            self._wakeup.set()

    def next_key(self) -> tuple[str, int]:
        """Take the next (origin, sequence) of the current origin, as :meth:`schedule` would, without queueing:
        a message leaving for another kernel carries it, so that it is ordered there exactly as here."""
        origin = self.current
        seq = self._seqs.get(origin, 0)
        self._seqs[origin] = seq + 1
        return origin, seq

    def send(self, fn: Callable[[Any], None], arg: Any, owner: str, sender: Any, delay: Ms = 0) -> None:
        """Queue a message delivery ``fn(arg)`` to ``owner`` after the latency of the link from ``sender`` (an
        address with an ``id``, or None) plus ``delay`` ms: what :meth:`ActorRef.tell` queues."""
        if self._latency or delay < 0:
            latency = self.latency(sender.id if sender is not None else None, owner) + delay
            self.schedule(latency, fn, arg, owner=owner)
            return
        # The common case, schedule's work in line (the same key: time, NORMAL, origin, origin's sequence).
        origin = self.current
        seqs = self._seqs
        seq = seqs.get(origin, 0)
        seqs[origin] = seq + 1
        now = self.now
        t = now + (self._default_latency + delay)
        heapq.heappush(self._now if t == now else self._queue, (t, NORMAL, origin, seq, fn, arg, owner))
        if self._wakeup is not None:
            self._wakeup.set()

    def queue_at(self, t: Ms, priority: int, fn: Callable[[Any], None], arg: Any, owner: str | None = None) -> int:
        """Call ``fn(arg)`` at time ``t`` (not in the past), with the next key of the current origin, as
        :meth:`schedule` at ``t - now`` would; the sequence taken is returned (a timer that re-arms at an exact key
        later keeps it)."""
        origin = self.current
        seqs = self._seqs
        seq = seqs.get(origin, 0)
        seqs[origin] = seq + 1
        entry = (t, priority, origin, seq, fn, arg, origin if owner is None else owner)
        if t - self.now >= FAR_WIDTH:
            self.park(entry)
            return seq
        heapq.heappush(self._now if t == self.now else self._queue, entry)
        if self._wakeup is not None:
            self._wakeup.set()
        return seq

    def push(
        self, t: Ms, priority: int, origin: str, seq: int, fn: Callable[[Any], None], arg: Any, owner: str
    ) -> None:
        """Queue an event with an explicit canonical key (a message that arrived from another kernel)."""
        if t < self.now:
            raise ActorError(f"an event for {owner!r} at t={t} ms arrived after its time (now {self.now} ms)")
        entry = (t, priority, origin, seq, fn, arg, owner)
        if t - self.now >= FAR_WIDTH:
            self.park(entry)  # (a heartbeat timer a second ahead, say: module docstring)
            return
        heapq.heappush(self._now if t == self.now else self._queue, entry)
        if self._wakeup is not None:
            self._wakeup.set()

    def park(self, entry: tuple[Ms, int, str, int, Callable[[Any], None], Any, str]) -> None:
        """Queue ``entry`` (a :meth:`push` entry with its key already taken) parked when it is at least
        ``FAR_WIDTH`` ms ahead: popped in the same order, kept out of the heap until the run nears it."""
        t = entry[0]
        if not (self.now + FAR_WIDTH <= t < _INF):  # (near, infinite or NaN: the heap)
            heapq.heappush(self._queue, entry)
        else:
            b = int(t // FAR_WIDTH)
            bucket = self._far.get(b)
            if bucket is None:
                self._far[b] = [entry]
                heapq.heappush(self._far_keys, b)
                start = b * FAR_WIDTH
                if start < self._far_edge:
                    self._far_edge = start
            else:
                bucket.append(entry)
        if self._wakeup is not None:
            self._wakeup.set()

    def _unpark(self) -> None:
        """Move the earliest parked buckets into the heap until its head (if any) is below ``_far_edge``."""
        queue = self._queue
        keys = self._far_keys
        far = self._far
        while keys and (not queue or queue[0][0] >= self._far_edge):
            _merge(queue, far.pop(heapq.heappop(keys)))
            self._far_edge = keys[0] * FAR_WIDTH if keys else _INF

    def push_many(self, entries: list[tuple[Ms, int, str, int, Callable[[Any], None], Any, str]]) -> None:
        """Queue many :meth:`push` entries at once (a batch from another kernel). Canonical keys are unique, so
        the pop order is the same whether the heap is rebuilt or pushed into one by one; a large batch is
        cheaper to heapify in one C call."""
        if not entries:
            return
        earliest = min(entries)
        if earliest[0] < self.now:
            raise ActorError(
                f"an event for {earliest[6]!r} at t={earliest[0]} ms arrived after its time (now {self.now} ms)"
            )
        _merge(self._queue, entries)
        if self._wakeup is not None:
            self._wakeup.set()

    def set_sequence(self, origin: str, seq: int) -> None:
        """Make ``origin``'s next sequence ``seq`` (a coordinator replays setup steps numbered globally; a dormant
        AM catches up with the ticks it skipped)."""
        self._seqs[origin] = seq

    def sequence(self, origin: str) -> int:
        """``origin``'s next sequence (what the next event it schedules will take)."""
        return self._seqs.get(origin, 0)

    def peek(self) -> Ms | None:
        """The time of the next event, or None when the queue is empty."""
        if self._now:
            return self.now
        queue = self._queue
        if self._far_keys and (not queue or queue[0][0] >= self._far_edge):
            self._unpark()
        return queue[0][0] if queue else None

    # -- latency between actors --------------------------------------------------------------------------------
    @property
    def default_latency(self) -> Ms:
        """The delivery latency (ms) of every link without one of its own."""
        return self._default_latency

    @default_latency.setter
    def default_latency(self, ms: Ms) -> None:
        self._default_latency = ms
        self.instant = not self._latency and not ms

    def set_latency(self, src: str, dst: str, ms: Ms) -> None:
        """Model a delivery latency on the link ``src -> dst`` (actor ids)."""
        if ms < 0:
            raise ValueError("latency must be >= 0")
        self._latency[(src, dst)] = ms
        self.instant = False

    def latency(self, src: str | None, dst: str) -> Ms:
        if self._latency and src is not None:
            return self._latency.get((src, dst), self._default_latency)
        return self._default_latency
