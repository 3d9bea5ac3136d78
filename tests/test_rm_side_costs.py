"""The RM/NM/kernel per-container shortcuts (session 6): parked far-future events pop in the one-heap order, and
busy runs with each shortcut on and off are identical."""

from __future__ import annotations

import random
from typing import Any

import pytest
from skipping_helpers import TWO_QUEUES, run_state

from yarnball.actors import _eventqueue
from yarnball.actors._actor import _Once
from yarnball.actors._eventqueue import FAR_WIDTH
from yarnball.actors._kernel import NORMAL, Kernel
from yarnball.actors._nodemanager import NodeManager
from yarnball.errors import ActorError
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.launcher.workloads._model import Workload
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerState,
    NodeId,
    Priority,
    Resource,
    StartContainersRequest,
    StopContainersRequest,
)
from yarnball.protocols._containermanagement import ContainerLaunchContext, StartContainerRequest
from yarnball.testing import ActorTestKit, captured_events


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
            # no delay is that long: every event is heaped (Kernel.schedule, Kernel.park; the NM's container timers)
            m.setattr(_eventqueue, "FAR_WIDTH", float("inf"))
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


class _Node:
    """A NodeManager of 4 GB / 4 vcores started by a probe AM; the RM is a probe that never answers."""

    def __init__(self, **conf: str) -> None:
        self.kit = ActorTestKit()
        self.am = self.kit.probe("am")
        self.nm = NodeManager("h1", "/r", Resource(4096, 4), self.kit.probe("rm").ref, conf=Configuration(conf))
        self.ref = self.kit.spawn(self.nm, "nm-h1")

    def start(self, n: int, duration: int) -> ContainerId:
        cid = ContainerId(ATTEMPT, n)
        container = Container(id=cid, node_id=NodeId("h1"), resource=Resource(1024, 1), priority=Priority(1))
        ctx = ContainerLaunchContext(simulated_duration_ms=duration)
        request = StartContainerRequest(container=container, launch_context=ctx)
        self.ref.tell(StartContainersRequest(start_container_requests=(request,)), self.am.ref)
        return cid

    def completions(self) -> list[tuple[ContainerId, int]]:
        return [(s.container_id, s.exit_status) for s in self.nm._changes if s.state is ContainerState.COMPLETE]


ATTEMPT = ApplicationAttemptId(ApplicationId(1, 1), 1)


def test_a_killed_containers_run_timer_does_not_end_its_successor() -> None:
    """Killed at 1 s and started again under the same id, a container runs its own full time: the first run's
    timer (due at 5 s) was cancelled with the kill."""
    node = _Node()
    cid = node.start(1, 5_000)
    node.kit.run(until=1_000)
    node.ref.tell(StopContainersRequest(container_ids=(cid,)), node.am.ref)
    node.kit.run(until=1_000)
    node.start(1, 8_000)
    node.kit.run(until=8_000)
    assert [s[1] for s in node.completions()] == [ContainerExitStatus.KILLED_BY_APPMASTER]
    assert node.nm.containers[cid].state is ContainerState.RUNNING  # not ended at 5 s by the stale timer
    node.kit.run(until=9_001)
    assert [s[1] for s in node.completions()] == [ContainerExitStatus.KILLED_BY_APPMASTER, ContainerExitStatus.SUCCESS]


def test_a_failing_localization_goes_to_the_supervisor_and_the_node_lives_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A localization timer whose work raises is a handler failure (resume policy): logged, counted, NM running."""
    node = _Node()
    calls: list[Any] = []

    def broken(self: NodeManager, entry: Any) -> None:
        calls.append(entry)
        raise RuntimeError("localizer down")

    monkeypatch.setattr(NodeManager, "schedule_container", broken)
    node.start(1, 5_000)
    node.kit.run(until=100)
    assert len(calls) == 1 and node.kit.kernel.handler_failures == 1 and not node.nm._stopped


def test_restart_supervision_keeps_tracked_timers_for_the_containers() -> None:
    """Under restart supervision a container's timers are the tracked after_call ones; the container still runs
    its time and completes."""
    node = _Node()
    node.nm.supervision = "restart"
    cid = node.start(1, 2_000)
    node.kit.run(until=10)
    assert node.nm.containers[cid].state is ContainerState.RUNNING
    assert type(node.nm.containers[cid].timer) is _Once and node.nm._timers
    node.kit.run(until=2_001)
    assert [s[0] for s in node.completions()] == [cid]


def test_enter_hooked_follows_the_hook_at_each_run_start() -> None:
    """``Kernel.enter_hooked`` is True before any run and, from each run's start, says whether ``_enter`` is hooked,
    as the run loop sees it (the shortcuts that leave events out read it)."""
    kernel = Kernel()
    assert kernel.enter_hooked
    kernel.run()
    assert not kernel.enter_hooked
    seen: list[Any] = []

    def entered(entry: tuple[Any, ...]) -> None:
        seen.append(entry[:4])

    kernel.observe_events(entered)
    kernel.schedule(5, lambda _: None)
    kernel.run()
    assert kernel.enter_hooked and len(seen) == 1


def test_a_hooked_run_sees_every_node_heartbeat_as_an_event() -> None:
    """With ``_enter`` hooked from the start, no heartbeat is handed over inline: the hook sees the requests."""
    workload = synthetic_workload(6, 4, seed=2, maps=(2, 6), reduces=(0, 2))
    cluster = Cluster(Configuration({}), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    kernel = cluster.kernel
    requests: list[Any] = []

    def entered(entry: tuple[Any, ...]) -> None:
        arg = entry[5]
        if type(arg) is tuple and len(arg) == 2 and type(arg[0]).__name__ == "NodeHeartbeatRequest":
            requests.append(entry[:4])

    kernel.observe_events(entered)
    cluster.run(until_ms=600_000)
    assert len(requests) >= cluster.heartbeats.real > 0


async def test_run_async_pops_parked_events_in_key_order() -> None:
    """Under ``run_async`` (virtual clock) parked and queued events run in the sorted key order too."""
    rng = random.Random(3)
    kernel = Kernel()
    ran: list[Any] = []
    entries = [_entry(kernel, rng.choice([rng.uniform(0, 20_000), rng.uniform(0, 500)]), ran) for _ in range(300)]
    for entry in entries:
        kernel.park(entry)
    await kernel.run_async()
    assert ran == [e[0] for e in sorted(entries)]
