"""The RM/NM/kernel per-container shortcuts (session 6): parked far-future events pop in the one-heap order, and
busy runs with each shortcut on and off are identical."""

from __future__ import annotations

import random
from typing import Any

import pytest
from skipping_helpers import TWO_QUEUES, run_state

from yarnball.actors import _kernel, _nodemanager
from yarnball.actors._kernel import FAR_WIDTH, NORMAL, Kernel
from yarnball.errors import ActorError
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.launcher.workloads._model import Workload
from yarnball.protocols import Configuration
from yarnball.testing import captured_events


def _entry(kernel: Kernel, t: float, log: list[Any], origin: str = "o") -> tuple[Any, ...]:
    seq = kernel._seqs.get(origin, 0)
    kernel._seqs[origin] = seq + 1
    return (t, NORMAL, origin, seq, log.append, t, origin)


def test_parked_and_queued_events_pop_in_key_order() -> None:
    """Entries parked (far) and queued (near), mixed at random, run in exactly the sorted key order."""
    rng = random.Random(5)
    kernel = Kernel()
    ran: list[Any] = []
    entries = []
    for _ in range(2000):
        t = rng.choice([rng.uniform(0, 50_000), float(rng.randrange(0, 50) * 1000), rng.uniform(0, 900)])
        entry = _entry(kernel, t, ran)
        entries.append(entry)
        kernel.park(entry)
    assert len(kernel._queue) < 2000  # most were parked, not heaped
    kernel.run()
    assert ran == [e[0] for e in sorted(entries)]
    assert not kernel._far and kernel._far_edge == float("inf")


def test_events_parked_while_running_keep_the_order() -> None:
    """Events that park and queue new events as they run pop in key order, with ``now`` never going back."""
    rng = random.Random(9)
    kernel = Kernel()
    times: list[tuple[float, int]] = []

    def fire(depth: int) -> None:
        times.append((kernel.now, kernel.event[3]))  # type: ignore[index]
        if depth < 4:
            for _ in range(3):
                delay = rng.choice([0.0, rng.uniform(0, FAR_WIDTH * 3), rng.uniform(FAR_WIDTH, FAR_WIDTH * 40)])
                seq = kernel._seqs.get("o", 0)
                kernel._seqs["o"] = seq + 1
                kernel.park((kernel.now + delay, NORMAL, "o", seq, fire, depth + 1, "o"))

    kernel.schedule(0, fire, 0)
    kernel.run()
    assert len(times) == 1 + 3 + 9 + 27 + 81
    assert times == sorted(times)  # one origin: (time, sequence) is the whole key


def test_peek_and_run_until_see_parked_events() -> None:
    """``peek`` and ``run(until=...)`` treat a parked event as queued: it is next, and runs only when due."""
    kernel = Kernel()
    ran: list[Any] = []
    kernel.park(_entry(kernel, 5 * FAR_WIDTH + 1, ran))
    assert kernel._queue == [] and kernel.peek() == 5 * FAR_WIDTH + 1
    assert kernel.run(until=5 * FAR_WIDTH) == 5 * FAR_WIDTH and ran == []
    kernel.run()
    assert ran == [5 * FAR_WIDTH + 1] and kernel.peek() is None


def test_run_until_complete_waits_for_a_parked_event() -> None:
    """A future resolved only by a parked event is awaited; the queue is not seen as empty."""
    kernel = Kernel()
    fut = kernel.create_future()
    seq = kernel._seqs.get("", 0)
    kernel._seqs[""] = seq + 1
    kernel.park((3 * FAR_WIDTH, NORMAL, "", seq, lambda _: fut.set_result("done"), None, ""))
    assert kernel.run_until_complete(fut) == "done"
    with pytest.raises(ActorError):
        kernel.run_until_complete(kernel.create_future())


def test_near_and_infinite_events_are_not_parked() -> None:
    """An event due within ``FAR_WIDTH`` or at infinity goes to the heap (a bucket needs a finite, later time)."""
    kernel = Kernel()
    ran: list[Any] = []
    kernel.park(_entry(kernel, FAR_WIDTH - 1, ran))
    kernel.park(_entry(kernel, float("inf"), ran))
    assert len(kernel._queue) == 2 and not kernel._far


def _long() -> Workload:
    return synthetic_workload(
        30, 20, seed=3, queues=("a", "b"), maps=(5, 30), reduces=(1, 6), load=6,
        map_ms=(300_000, 900_000), reduce_ms=(300_000, 900_000),
    )  # fmt: skip


def _run(workload: Workload, monkeypatch: pytest.MonkeyPatch, *, park: bool) -> dict[str, Any]:
    with monkeypatch.context() as m:
        if not park:
            # no delay is that long: every event is heaped (Kernel.schedule, Kernel.park, the NM's container timers)
            m.setattr(_kernel, "FAR_WIDTH", float("inf"))
            m.setattr(_nodemanager, "FAR_WIDTH", float("inf"))
        cluster = Cluster(Configuration(TWO_QUEUES), workload.nodes, seed=4)
        cluster.submit_workload(workload)
        with captured_events() as events:
            cluster.run(until_ms=1_800_000)
        return {**run_state(cluster), "events": events, "parked": len(cluster.kernel._far)}


def test_parked_container_timers_leave_a_busy_run_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Far events (long containers' completions, future submissions) parked or heaped: every event, sequence and
    count is the same."""
    on, off = _run(_long(), monkeypatch, park=True), _run(_long(), monkeypatch, park=False)
    assert on.pop("parked") > 0 and off.pop("parked") == 0
    assert len(on["events"]) > 200 and on["counters"]["containers_completed"] > 100
    assert on == off
