"""Kernel and actor micro-benchmarks, each measured side by side with its baseline in one run.

    python bench/bench_kernel.py

1. kernel events/s against a bare ``heapq`` push/pop loop of the same tuples (goal: >= 50% of the bare rate);
2. ``tell`` throughput between in-process actors (goal: >= 300k messages/s);
3. ``ask`` round trips per second;
4. memory per idle actor beyond the user's own state (goal: <= 1 KB).
"""

from __future__ import annotations

import gc
import heapq
import itertools
import time
import tracemalloc
from typing import Any

import msgspec

from yarnball.actors import Actor, Kernel, handler

N = 300_000


class Ping(msgspec.Struct, frozen=True):
    n: int


def best_of(fn: Any, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bare_heap() -> None:
    q: list[Any] = []
    seq = itertools.count()
    push, pop = heapq.heappush, heapq.heappop
    noop = _noop
    for i in range(N):
        push(q, (float(i % 100), 1, next(seq), noop, None))
    while q:
        _t, _p, _s, fn, arg = pop(q)
        fn(arg)


def _noop(_: Any) -> None:
    pass


def kernel_events() -> None:
    k = Kernel()
    schedule = k.schedule
    for i in range(N):
        schedule(float(i % 100), _noop)
    k.run()


class Counter(Actor):
    def __init__(self) -> None:
        self.count = 0

    @handler
    def on_ping(self, msg: Ping) -> int:
        self.count += 1
        return msg.n


class Relay(Actor):
    """Tells its peer a Ping for every Ping it gets, until the budget is spent."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.peer: Any = None

    @handler
    def on_ping(self, msg: Ping) -> None:
        if msg.n < self.budget:
            self.peer.tell(Ping(msg.n + 1), self.ref)


def tell_throughput() -> None:
    k = Kernel()
    a, b = Relay(N), Relay(N)
    ra, rb = k.spawn(a, "a"), k.spawn(b, "b")
    a.peer, b.peer = rb, ra
    ra.tell(Ping(0))
    k.run()


ASKS = 50_000


def ask_round_trips() -> None:
    k = Kernel()
    ref = k.spawn(Counter(), "c")

    class Asker(Actor):
        async def main(self) -> None:
            for i in range(ASKS):
                await ref.ask(Ping(i), sender=self.ref)

    asker = Asker()
    k.spawn(asker, "asker")
    asker.start_process(asker.main())
    k.run()


class Idle(Actor):
    pass


def memory_per_actor(count: int = 20_000) -> float:
    # Idle has no state of its own, so everything counted here is the runtime's: the instance with its slots,
    # its ActorRef, the registry entry and the id string.
    k = Kernel()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(count):
        k.spawn(Idle(), f"nm-{i}")
    k.run()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / count


def main() -> None:
    bare = best_of(bare_heap)
    kern = best_of(kernel_events)
    tell = best_of(tell_throughput, 3)
    ask = best_of(ask_round_trips, 3)
    mem = memory_per_actor()
    print(f"bare heapq push/pop:     {N / bare:>12,.0f} events/s")
    print(f"kernel schedule/run:     {N / kern:>12,.0f} events/s  ({bare / kern:.0%} of bare; goal >= 50%)")
    print(f"tell between actors:     {N / tell:>12,.0f} messages/s (goal >= 300,000)")
    print(f"ask round trips:         {ASKS / ask:>12,.0f} round trips/s")
    print(f"memory per idle actor:   {mem:>12,.0f} bytes (goal <= 1024)")


if __name__ == "__main__":
    main()
