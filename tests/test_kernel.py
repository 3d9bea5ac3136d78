"""The event kernel: ordering, clocks, futures and coroutines."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from typing import Any

import pytest

from yarnball.actors import URGENT, Kernel, VirtualClock, WallClock
from yarnball.errors import ActorError


@pytest.fixture(name="kernel")
def fixture_kernel() -> Kernel:
    return Kernel()


def test_events_run_in_time_order(kernel: Kernel) -> None:
    """Events scheduled out of order run in order of their time."""
    seen: list[tuple[float, str]] = []
    for delay, name in [(30, "c"), (10, "a"), (20, "b")]:
        kernel.schedule(delay, lambda n: seen.append((kernel.now, n)), name)
    kernel.run()
    assert seen == [(10, "a"), (20, "b"), (30, "c")]


def test_equal_times_run_fifo(kernel: Kernel) -> None:
    """Fifty events due at the same time run in the order they were scheduled (asyncio's heap does not)."""
    seen: list[int] = []
    for i in range(50):
        kernel.schedule(5, seen.append, i)
    kernel.run()
    assert seen == list(range(50))


def test_priority_breaks_ties_before_sequence(kernel: Kernel) -> None:
    """At equal times an URGENT event runs before NORMAL ones scheduled earlier."""
    seen: list[str] = []
    kernel.schedule(1, seen.append, "normal")
    kernel.schedule(1, seen.append, "urgent", priority=URGENT)
    kernel.run()
    assert seen == ["urgent", "normal"]


def test_run_until_stops_inclusive_and_sets_now(kernel: Kernel) -> None:
    """run(until) processes events due at or before `until` and leaves `now` exactly there."""
    seen: list[int] = []
    for t in (5, 10, 15):
        kernel.schedule(t, seen.append, t)
    assert kernel.run(until=10) == 10
    assert seen == [5, 10]
    assert kernel.peek() == 15
    kernel.run(until=12)
    assert kernel.now == 12


def test_virtual_time_is_not_wall_time(kernel: Kernel) -> None:
    """A day of simulated time passes instantly under the virtual clock."""
    kernel.schedule(24 * 3600 * 1000, lambda _: None)
    assert isinstance(kernel.clock, VirtualClock)
    assert kernel.run() == 24 * 3600 * 1000


def test_negative_delay_is_rejected(kernel: Kernel) -> None:
    """Scheduling into the past is an error."""
    with pytest.raises(ValueError, match="past"):
        kernel.schedule(-1, lambda _: None)


def test_call_later_can_be_cancelled(kernel: Kernel) -> None:
    """A cancelled call_later never runs."""
    seen: list[str] = []
    handle = kernel.call_later(5, lambda: seen.append("x"))
    kernel.call_later(6, lambda: seen.append("y"))
    handle.cancel()
    kernel.run()
    assert seen == ["y"]


def test_coroutine_awaits_sleep_in_virtual_time(kernel: Kernel) -> None:
    """A kernel task awaiting sleeps sees simulated time advance by exactly the slept amount."""
    stamps: list[float] = []

    async def proc() -> str:
        stamps.append(kernel.now)
        await kernel.sleep(100)
        stamps.append(kernel.now)
        await kernel.sleep(250)
        stamps.append(kernel.now)
        return "done"

    task = kernel.spawn_task(proc())
    assert kernel.run_until_complete(task) == "done"
    assert stamps == [0, 100, 350]


def test_future_exception_is_raised_in_awaiter(kernel: Kernel) -> None:
    """An exception set on a future is raised where it is awaited."""
    fut = kernel.create_future()

    async def waiter() -> str:
        try:
            await fut
        except KeyError as exc:
            return f"caught {exc}"
        return "no"

    task = kernel.spawn_task(waiter())
    kernel.call_later(3, lambda: fut.set_exception(KeyError("k")))
    assert kernel.run_until_complete(task) == "caught 'k'"


def test_awaiting_asyncio_primitive_fails_clearly(kernel: Kernel) -> None:
    """Awaiting an asyncio sleep inside a kernel coroutine fails with a message saying what to use instead."""

    async def bad() -> None:
        await asyncio.sleep(1)

    task = kernel.spawn_task(bad())
    kernel.run()
    assert isinstance(task.exception(), ActorError)
    assert "self.sleep" in str(task.exception())


def test_run_until_complete_detects_empty_queue(kernel: Kernel) -> None:
    """Waiting for a future nobody will resolve is an error, not a hang."""
    with pytest.raises(ActorError, match="ran empty"):
        kernel.run_until_complete(kernel.create_future())


def test_stop_returns_after_current_event(kernel: Kernel) -> None:
    """kernel.stop() inside an event ends run() after that event."""
    seen: list[int] = []
    kernel.schedule(1, lambda _: (seen.append(1), kernel.stop()))
    kernel.schedule(2, seen.append, 2)
    kernel.run()
    assert seen == [1]
    kernel.run()
    assert seen == [1, 2]


def test_wall_clock_paces_simulated_time() -> None:
    """Under a fast wall clock (1000x), 200 simulated ms take about 0.2 real ms, and order is kept."""
    kernel = Kernel(WallClock(factor=1000.0))
    seen: list[float] = []
    for t in (200, 100):
        kernel.schedule(t, lambda _: seen.append(kernel.now))
    kernel.run()
    assert seen == [100, 200]


def test_wall_clock_rejects_bad_factor() -> None:
    """A non-positive pacing factor is rejected."""
    with pytest.raises(ValueError, match="factor"):
        WallClock(factor=0)


async def test_run_async_wakes_for_events_scheduled_from_outside() -> None:
    """In live mode an event scheduled by another asyncio task while the kernel waits is processed."""
    kernel = Kernel(WallClock(factor=100.0))
    seen: list[str] = []
    kernel.schedule(1000, seen.append, "late")  # 10 real ms away

    async def inject() -> None:
        await asyncio.sleep(0)
        kernel.schedule(0, seen.append, "injected")

    injector = asyncio.create_task(inject())
    await kernel.run_async()
    await injector
    assert seen == ["injected", "late"]


async def test_run_async_waiting_when_idle_runs_what_arrives_later_until_stopped() -> None:
    """With ``wait_when_idle`` an empty queue does not end a live run (a shard host waiting for another host's
    message): an event scheduled from outside afterwards is processed, and stop() ends the run; without it the run
    ends at once, before the event arrives."""
    seen: list[str] = []

    async def later(kernel: Kernel) -> None:
        for _ in range(3):
            await asyncio.sleep(0)  # the run is idle by now
        kernel.schedule(0, lambda _: (seen.append("arrived"), kernel.stop()))

    waiting = Kernel(WallClock(factor=100.0))
    task = asyncio.create_task(later(waiting))
    await waiting.run_async(wait_when_idle=True)
    await task
    assert seen == ["arrived"]

    seen.clear()
    plain = Kernel(WallClock(factor=100.0))
    task = asyncio.create_task(later(plain))
    await plain.run_async()
    assert seen == []
    await task


def test_kernel_matches_bare_heap_order() -> None:
    """The kernel's order equals a bare heap's (time, priority, sequence) order for random schedules."""
    import random

    rng = random.Random(7)
    kernel = Kernel()
    bare: list[tuple[int, int, int]] = []
    seen: list[int] = []
    for i in range(500):
        t, p = rng.randrange(20), rng.randrange(2)
        heapq.heappush(bare, (t, p, i))
        kernel.schedule(t, seen.append, i, priority=p)
    kernel.run()
    assert seen == [heapq.heappop(bare)[2] for _ in range(500)]


def test_now_lane_pops_in_the_key_order_of_one_heap() -> None:
    """Events queued at ``now`` from inside events (the now lane) and earlier-queued events at the same time (the
    main heap) run in exactly the order of one heap of (time, priority, origin, sequence), as a bare model of the
    kernel's keys computes; a lane popped first whatever the main heap's head, or never, fails it."""
    import random

    owners = ["a", "b", "c", "d"]

    def plan(key: tuple[Any, ...]) -> list[tuple[int, int, str]]:
        # the children of an event, from its key alone: (delay, priority, owner); delay 0 goes to the now lane
        r = random.Random(repr(key[:4]))
        if key[0] > 60:
            return []
        return [(r.choice([0, 0, 0, 1, 3]), r.randrange(2), r.choice(owners)) for _ in range(r.randrange(3))]

    # the kernel
    kernel = Kernel()
    ran: list[tuple[Any, ...]] = []

    def fire(owner: str) -> None:
        entry = kernel.event
        assert entry is not None
        ran.append(entry[:4])
        for delay, priority, child in plan(entry):
            kernel.schedule(delay, fire, child, priority=priority, owner=child)

    for i in range(40):
        kernel.schedule(i % 7, fire, owners[i % 4], priority=i % 2, owner=owners[i % 4])
    kernel.run()

    # the model: one heap, keys (time, priority, origin, origin's sequence), as Kernel.schedule numbers them
    heap: list[tuple[Any, ...]] = []
    seqs: dict[str, int] = {}

    def push(t: float, priority: int, origin: str, owner: str) -> None:
        seq = seqs.get(origin, 0)
        seqs[origin] = seq + 1
        heapq.heappush(heap, (t, priority, origin, seq, owner))

    for i in range(40):
        push(i % 7, i % 2, "", owners[i % 4])
    expected: list[tuple[Any, ...]] = []
    while heap:
        t, priority, origin, seq, owner = heapq.heappop(heap)
        expected.append((t, priority, origin, seq))
        for delay, p, child in plan((t, priority, origin, seq)):
            push(t + delay, p, owner, child)
    assert len(ran) > 200 and any(e[0] == f[0] and e[2] != f[2] for e, f in itertools.pairwise(ran))
    assert ran == expected
