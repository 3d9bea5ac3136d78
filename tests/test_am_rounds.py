"""Shorter AM allocate rounds (_shortcuts/_amrounds.py): early sleep and a firing with its allocate in one event give
the results of the longer rounds, event for event."""

from __future__ import annotations

import heapq
from typing import Any

import pytest
from service_spies import spyable_ams
from skipping_helpers import assert_same_except, spy_on_sleeps
from test_am_dormancy import PREEMPTION, QUEUES, PokingAM, _Recorder, _snapshot

from yarnball.actors._kernel import NORMAL
from yarnball.actors._shortcuts import _amrounds, _routes
from yarnball.actors._shortcuts._amheartbeats import _at_rm
from yarnball.actors._shortcuts._amtimer import HeartbeatTimer
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder, synthetic_workload, task_spec
from yarnball.launcher.workloads._model import Workload
from yarnball.policies.capacity import CapacityScheduler
from yarnball.policies.scheduler import _factory
from yarnball.protocols import AllocateResponse, Configuration, ContainerPreemptEvent, keys
from yarnball.testing import captured_events


class _NewsCounted(CapacityScheduler):
    """Counts the early checks that found work (appeared after the RM served the allocate): only the early sleep's
    check (``_amrounds.scheduler_has_news``) asks ``allocate_has_news``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.found_work = 0

    def allocate_has_news(self, attempt_id: Any) -> bool:
        found = super().allocate_has_news(attempt_id)
        self.found_work += found
        return found


def _counted_cluster(props: dict[str, object], nodes: Any) -> Cluster:
    """A Cluster whose scheduler is a _NewsCounted (built through the scheduler factory)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_factory, "CapacityScheduler", _NewsCounted)
        cluster = Cluster(Configuration(dict(props)), nodes, seed=3)
    assert type(cluster.scheduler) is _NewsCounted
    return cluster


class _Early:
    """Counts early sleeps (in a Python subclass of the RM's DormantAMs) and the early checks that found work (the
    cluster's scheduler is a _NewsCounted)."""

    def __init__(self, cluster: Cluster) -> None:
        self.slept = 0
        self.scheduler = cluster.scheduler
        rm, kernel = cluster.rm, cluster.kernel

        def sleeping(sleep: Any, am: Any, attempt: Any, progress: float) -> None:
            before = len(rm.dormant)
            sleep(am, attempt, progress)
            if kernel.current != rm.id and len(rm.dormant) > before:
                self.slept += 1

        spy_on_sleeps(rm, sleeping)

    @property
    def found_work(self) -> int:
        return self.scheduler.found_work  # type: ignore[attr-defined,no-any-return]


def _run(workload: Workload, early: bool, props: dict[str, object] | None = None, *, fail: tuple = ()) -> dict:
    cluster = _counted_cluster(props or {}, workload.nodes)
    cluster.rm.dormant.early = early
    rec = _Recorder(cluster)
    counts = _Early(cluster)
    cluster.submit_workload(workload)
    for host, at_ms in fail:
        cluster.fail_node(host, at_ms)
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    return {
        **_snapshot(cluster),
        "events": events,
        "trace": rec.trace,
        "served": rec.served,
        "seqs": dict(cluster.kernel._seqs),
        "early": (counts.slept, counts.found_work),
    }


@pytest.fixture(scope="module")
def busy_runs() -> tuple[dict, dict]:
    workload = synthetic_workload(60, 40, seed=5, queues=("a", "b"), maps=(1, 30), reduces=(0, 6), load=1.5)
    return _run(workload, True, QUEUES), _run(workload, False, QUEUES)


def test_busy_trace_is_identical_event_for_event(busy_runs: tuple[dict, dict]) -> None:
    """Busy two-queue trace: every non-tick event key, served allocate, id, sequence and log line match."""
    on, off = busy_runs
    assert len(off["served"]) > 300
    assert_same_except(on, off, "early")


def test_ams_sleep_right_after_responses(busy_runs: tuple[dict, dict]) -> None:
    """AMs do go dormant right at responses (and not at all with the shortcut off); skipped counts match."""
    on, off = busy_runs
    assert on["early"][0] > 100
    assert off["early"][0] == 0
    assert on["skipped"] == off["skipped"] > 0


def test_preemption_marks_are_identical() -> None:
    """Preemption monitor on: marks wake early sleepers at the same allocate; kills and reruns match."""
    workload = synthetic_workload(40, 20, seed=7, queues=("a", "b"), maps=(5, 30), reduces=(0, 4), load=2.0)
    on, off = _run(workload, True, PREEMPTION), _run(workload, False, PREEMPTION)
    assert off["counters"].get("containers_preempted", 0) > 0 and on["early"][0] > 0
    assert_same_except(on, off, "early")


def test_node_failures_and_am_retries_are_identical() -> None:
    """Lost nodes kill tasks and AM containers of early sleepers: attempts, retries and response ids match."""
    b = WorkloadBuilder().nodes(4, memory_mb=4096, vcores=4)
    for j in range(4):
        b.job(f"j{j}", submit_ms=500 * j, tasks=[task_spec(4, 120_000)])
    props = {keys.RM_AM_MAX_ATTEMPTS: "2"}
    fail = (("node0", 60_500), ("node2", 90_250))
    on, off = _run(b.build(), True, props, fail=fail), _run(b.build(), False, props, fail=fail)
    assert off["counters"].get("nodes_lost", 0) > 0 and on["early"][0] > 0
    assert len(off["attempts"]) > 4
    assert_same_except(on, off, "early")


def test_no_early_sleep_without_dormancy() -> None:
    """Dormancy off: no AM sleeps, early or not (the shortcut builds on it)."""
    workload = synthetic_workload(10, 10, seed=2, maps=(1, 5), reduces=(0, 2), load=1.0)
    run = _run(workload, True, {keys.SIMULATION_DORMANT_IDLE_AMS: "false"})
    assert run["early"] == (0, 0) and run["skipped"] > 0


def _run_with_mark_between(early: bool) -> tuple[Any, ...]:
    """A 10-task job; the first empty allocate served after 60 s gets a preemption mark on one of the AM's running
    containers queued right behind it: same time, between the serving event (origin am-...) and the response
    (origin rm)."""
    b = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4)
    b.job("j0", submit_ms=0, tasks=[task_spec(10, 300_000)])
    workload = b.build()
    cluster = _counted_cluster({}, workload.nodes)
    cluster.rm.dormant.early = early
    rec = _Recorder(cluster)
    counts = _Early(cluster)
    rm, kernel = cluster.rm, cluster.kernel
    serve, injected = spyable_ams(rm).serve_allocate, []

    def served(msg: Any) -> Any:
        response = serve(msg)
        am = next(a for a in cluster.masters if a.attempt_id == msg.application_attempt_id)
        quiet = not (response.allocated_containers or response.completed_container_statuses)
        if not injected and quiet and am.running:
            event = ContainerPreemptEvent(
                application_attempt_id=am.attempt_id, container=next(iter(am.running.values()))
            )
            kernel.push(kernel.now, NORMAL, am.id + "~", 0, lambda _: rm.on_container_preempt(event), None, rm.id)
            injected.append(kernel.now)
        return response

    rm.application_master_service.serve_allocate = served  # type: ignore[method-assign]
    cluster.submit_workload(workload)
    cluster.run(until_ms=1_000_000)
    return _snapshot(cluster), rec.trace, rec.served, injected, (counts.slept, counts.found_work)


def test_work_appearing_between_serving_and_response_is_seen() -> None:
    """Work that appears after the RM served an empty allocate but before the AM handles its response (no hook
    wakes an AM that is not dormant yet): the AM must not sleep early, and its next allocate carries the mark."""
    on, off = _run_with_mark_between(True), _run_with_mark_between(False)
    assert on[3] and on[3] == off[3]
    assert any("PreemptionMessage(" in s[3] for s in off[2])
    assert on[4][1] >= 1  # the early check found the mark
    assert on[:4] == off[:4]


_HEAPPUSH = heapq.heappush


class _Everything:
    """Every event entered (inline ones included), with the kernel's position marks after entering it; and the
    firings' skipped-allocate checks queued rather than run in place (``_routes.run_next``: pushed into the kernel's
    heap while the current event is a heartbeat timer's firing)."""

    def __init__(self, cluster: Cluster) -> None:
        self.trace: list[tuple[Any, ...]] = []
        self.pushed_allocates = 0
        kernel = cluster.kernel

        def entered(entry: tuple[Any, ...]) -> None:
            self.trace.append((entry[:4], kernel.high[:4], kernel.priority, kernel.current))

        def pushing(queue: list[Any], entry: Any) -> None:
            if type(entry) is tuple and len(entry) == 7 and entry[4] is _at_rm and kernel.event is not None:
                self.pushed_allocates += type(getattr(kernel.event[4], "__self__", None)) is HeartbeatTimer
            _HEAPPUSH(queue, entry)

        kernel.observe_events(entered)
        heapq.heappush = pushing  # (the callers put it back)


class _Marks:
    """Without hooking the kernel: the current event, position marks and owner as the RM sees them when it serves
    an allocate or is asked about a node's heartbeat."""

    def __init__(self, cluster: Cluster) -> None:
        self.trace: list[tuple[Any, ...]] = []
        kernel, rm = cluster.kernel, cluster.rm
        serve, needs = spyable_ams(rm).serve_allocate, rm.needs_heartbeat

        def mark() -> None:
            self.trace.append((kernel.event[:4], kernel.high[:4], kernel.priority, kernel.current))  # type: ignore[index]

        def served(msg: Any) -> Any:
            mark()
            return serve(msg)

        def needed(node_id: Any) -> bool:
            mark()
            return needs(node_id)

        rm.application_master_service.serve_allocate = served  # type: ignore[method-assign]
        rm.needs_heartbeat = needed  # type: ignore[method-assign]
        cluster.heartbeats.needs = needed


def _run_inline(workload: Workload, inline: bool, props: dict[str, object] | None = None, hooked: bool = True) -> dict:
    _routes.inline_allocates = inline
    try:
        cluster = Cluster(Configuration(dict(props or {})), workload.nodes, seed=3)
        rec = _Everything(cluster) if hooked else _Marks(cluster)
        cluster.submit_workload(workload)
        with captured_events() as events:
            cluster.run(until_ms=3_600_000)
    finally:
        _routes.inline_allocates = True
        heapq.heappush = _HEAPPUSH
    return {
        **_snapshot(cluster),
        "events": events,
        "trace": rec.trace,
        "seqs": dict(cluster.kernel._seqs),
        "heap": len(cluster.kernel._queue),
    }


def test_firing_and_allocate_in_one_event_is_identical() -> None:
    """A busy trace with each firing's allocate run inside the firing: every event (allocates included), position
    mark, owner, sequence and log line equals queueing it."""
    workload = synthetic_workload(40, 30, seed=11, queues=("a", "b"), maps=(1, 20), reduces=(0, 5), load=1.5)
    on, off = _run_inline(workload, True, QUEUES), _run_inline(workload, False, QUEUES)
    assert sum(1 for e in off["trace"] if e[3] == "rm") > 500
    assert on == off


def test_firing_and_allocate_in_one_event_keeps_the_marks_unobserved() -> None:
    """The same without an observed ``Kernel._enter`` (the run loop's own bookkeeping): what the RM sees of the
    current event, the position marks and the owner when it serves allocates and heartbeat questions is equal."""
    workload = synthetic_workload(30, 20, seed=12, maps=(1, 20), reduces=(0, 5), load=1.5)
    on, off = _run_inline(workload, True, hooked=False), _run_inline(workload, False, hooked=False)
    assert len(off["trace"]) > 300
    assert on == off


def _popped_allocate_responses(monkeypatch: pytest.MonkeyPatch, inline: bool) -> tuple[int, dict]:
    """A busy two-queue run: how many AllocateResponse deliveries the kernel popped, and the run's outputs."""
    popped = 0
    pop = heapq.heappop

    def counting(queue: list[Any]) -> Any:
        nonlocal popped
        entry = pop(queue)
        if type(entry) is tuple and type(entry[5]) is tuple and entry[5] and type(entry[5][0]) is AllocateResponse:
            popped += 1
        return entry

    workload = synthetic_workload(40, 30, seed=11, queues=("a", "b"), maps=(1, 20), reduces=(0, 5), load=1.5)
    monkeypatch.setattr(_routes, "inline_allocates", inline)
    cluster = Cluster(Configuration(dict(QUEUES)), workload.nodes, seed=3)
    cluster.submit_workload(workload)
    monkeypatch.setattr(heapq, "heappop", counting)
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    monkeypatch.undo()
    return popped, {**_snapshot(cluster), "events": events}


def test_the_reply_to_a_firings_allocate_runs_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """The RM's AllocateResponse to the allocate of a firing (a request, or a skipped allocate that turned out to
    return something) is handled by the AM within the same event when it is the next one: the kernel pops few
    AllocateResponse deliveries, and everything else equals queueing each reply."""
    on, on_run = _popped_allocate_responses(monkeypatch, True)
    off, off_run = _popped_allocate_responses(monkeypatch, False)
    assert off > 300 and on * 4 < off
    assert on_run == off_run


def test_an_allocate_with_an_event_before_it_is_queued() -> None:
    """An AM that tells itself something in its tick before allocating (same time, a lower sequence): the allocate
    is not the next event, so it is queued, and everything matches queueing it always."""
    runs = {}
    for inline in (True, False):
        _routes.inline_allocates = inline
        try:
            cluster = Cluster(Configuration({}), WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build().nodes)
            rec = _Everything(cluster)
            cluster.submit(PokingAM(name="poker"))
            cluster.run(until_ms=400_000)
        finally:
            _routes.inline_allocates = True
            heapq.heappush = _HEAPPUSH
        runs[inline] = (_snapshot(cluster), rec.trace, dict(cluster.kernel._seqs), rec.pushed_allocates)
    on, off = runs[True], runs[False]
    assert 1 <= on[3] < off[3]  # some allocates ran inline, the poked one was queued
    assert on[:3] == off[:3]


def test_an_observed_rm_delivery_still_sees_every_allocate() -> None:
    """An RM whose ``_deliver`` is replaced on the instance (a test observing it) gets every AllocateRequest
    through it: the inlined delivery steps aside."""
    workload = synthetic_workload(8, 8, seed=4, maps=(1, 6), reduces=(0, 2), load=1.0)
    cluster = Cluster(Configuration({}), workload.nodes, seed=3)
    rm = cluster.rm
    deliver, serve, seen, served = rm._deliver, spyable_ams(rm).serve_allocate, [], []

    def delivered(arg: Any) -> None:
        if type(arg[0]).__name__ == "AllocateRequest":
            seen.append(arg[0].response_id)
        deliver(arg)

    def serving(msg: Any) -> Any:
        served.append(msg.response_id)
        return serve(msg)

    rm._deliver = delivered  # type: ignore[method-assign]
    rm.application_master_service.serve_allocate = serving  # type: ignore[method-assign]
    cluster.submit_workload(workload)
    cluster.run(until_ms=3_600_000)
    assert len(served) > 20 and seen == served


def test_scheduler_news_agrees_with_idle_allocate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The early check's reading of the scheduler agrees with ``idle_allocate`` returning None, at every skipped
    allocate check of a busy trace with preemption (marks, live and dead, included)."""
    answers: list[tuple[bool, bool, bool]] = []

    class Checked(CapacityScheduler):
        """Records, at each ``idle_allocate``, the early check's answer (read before: it drops dead marks)."""

        def idle_allocate(self, attempt_id: Any) -> Any:
            news = _amrounds.scheduler_has_news(self, attempt_id)
            app = self.attempts.get(attempt_id)
            headroom = super().idle_allocate(attempt_id)
            answers.append((news, headroom is None, bool(app is not None and app.preempt)))
            return headroom

    # The cluster builds a Checked; the early check asks its allocate_has_news (CapacityScheduler's).
    monkeypatch.setattr(_factory, "CapacityScheduler", Checked)
    workload = synthetic_workload(40, 20, seed=7, queues=("a", "b"), maps=(5, 30), reduces=(0, 4), load=2.0)
    cluster = Cluster(Configuration(dict(PREEMPTION)), workload.nodes, seed=4)  # both answers occur in this run
    assert type(cluster.scheduler) is Checked
    cluster.submit_workload(workload)
    cluster.run(until_ms=3_600_000)
    assert all(news == none for news, none, _ in answers)
    assert any(news for news, _, _ in answers) and any(not news for news, _, _ in answers)
    assert any(marks for _, _, marks in answers)
