"""Cheaper AM heartbeat rounds: the RM's pull-only allocate without its pending/notification bookkeeping
(SchedulerEventDispatcher.allocate) and the ask table's stored sort keys give the results of the longer paths, event
for event; a failing heartbeat tick is handled as any failing handler."""

from __future__ import annotations

import gc
from typing import Any

import msgspec
import pytest
from service_spies import spyable_ams
from test_am_dormancy import QUEUES, _Recorder, _snapshot

from yarnball.actors import _schedulerdispatcher
from yarnball.actors._appmaster import ApplicationMaster, AskKey
from yarnball.actors._kernel import enter_replaced
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder, synthetic_workload, task_spec
from yarnball.launcher.workloads._model import Workload
from yarnball.policies.capacity import CapacityScheduler
from yarnball.policies.scheduler import _factory
from yarnball.protocols import ANY, AllocateRequest, Configuration, Resource
from yarnball.testing import captured_events


def _ask_sort_key(key: AskKey) -> tuple[Any, ...]:
    """AMRMClientImpl's send order of asks: priority, request id, ANY first, name, type, memory, vcores."""
    priority, name, etype, mem, vcores, rid = key
    return (priority, rid, name != ANY, name, etype, mem, vcores)


def _run(workload: Workload, fast: bool, monkeypatch: pytest.MonkeyPatch, props: dict | None = None) -> dict:
    cluster = Cluster(Configuration(dict(props or {})), workload.nodes, seed=3)
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(_schedulerdispatcher._CS_ALLOCATE, "func", None)  # every allocate through the general bookkeeping
        rec = _Recorder(cluster)
        cluster.submit_workload(workload)
        with captured_events() as events:
            cluster.run(until_ms=3_600_000)
    return {
        **_snapshot(cluster),
        "events": events,
        "trace": rec.trace,
        "served": rec.served,
        "seqs": dict(cluster.kernel._seqs),
        "op_counts": dict(cluster.rm.op_counts),
    }


def test_busy_trace_is_identical_with_the_short_paths_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Busy two-queue trace: every event key, served allocate, sequence, op count and log line match."""
    workload = synthetic_workload(60, 40, seed=5, queues=("a", "b"), maps=(1, 30), reduces=(0, 6), load=1.5)
    on, off = _run(workload, True, monkeypatch, QUEUES), _run(workload, False, monkeypatch, QUEUES)
    assert len(off["served"]) > 300 and off["skipped"] > 0
    for key in on:
        assert on[key] == off[key], key


class _FailingAM(ApplicationMaster):
    """Asks for a few containers; its third and fifth firings raise before sending anything."""

    quiet_when_idle = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.firings = 0

    def on_registered(self, response: Any) -> None:
        self.add_container_request(Resource(1024, 1), priority=1, count=3)

    def _allocate(self) -> None:
        self.firings += 1
        if self.firings in (3, 5):
            raise RuntimeError(f"firing {self.firings} failed")
        super()._allocate()

    def on_containers_allocated(self, containers: Any) -> None:
        for c in containers:
            self.start_container(c, duration_ms=5_000)

    def on_containers_completed(self, statuses: Any) -> None:
        if self.completed_count(statuses) >= 3:
            self.finish()

    def completed_count(self, statuses: Any) -> int:
        self.done = getattr(self, "done", 0) + len(statuses)
        return self.done


def test_a_failing_tick_is_handled_by_the_supervision_and_the_timer_goes_on() -> None:
    """A firing whose tick raises is logged by the AM's supervision (as a failed tick through the mailbox) and the
    heartbeat timer fires on: the AM gets its containers and finishes."""
    b = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4)
    cluster = Cluster(Configuration({}), b.build().nodes, seed=1)
    am = cluster.submit(_FailingAM(name="failing"))
    with captured_events() as events:
        cluster.run(until_ms=120_000)
    failed = [e for e in events if e["event"] == "handler_failed"]
    assert am.firings > 5 and am.finished and cluster.kernel.handler_failures == 2
    assert [e["message_type"] for e in failed] == ["_Tick", "_Tick"]
    assert any("firing 3 failed" in str(e) for e in failed)


def test_pull_only_allocate_through_an_overridden_scheduler_allocate_keeps_its_bookkeeping(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A scheduler whose ``allocate`` is overridden (a subclass: compiled, it cannot be replaced on the instance)
    gets the RM's full bookkeeping even for pulls: the errors it returns are counted."""
    b = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4)
    b.job("j0", submit_ms=0, tasks=[task_spec(4, 20_000)])
    workload = b.build()
    pulls: list[Any] = []

    class Erring(CapacityScheduler):
        def allocate(self, attempt_id: Any, ask: Any, release: Any, *blacklist: Any) -> Any:  # type: ignore[override]
            allocation = super().allocate(attempt_id, ask, release, *blacklist)
            if not (ask or release):
                pulls.append(attempt_id)
                return msgspec.structs.replace(allocation, errors=("pull flagged",))
            return allocation

    monkeypatch.setattr(_factory, "CapacityScheduler", Erring)  # the cluster builds an Erring
    cluster = Cluster(Configuration({}), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run(until_ms=600_000)
    assert pulls
    assert cluster.rm.counters["invalid_resource_requests"] == len(pulls)


class _Asker(ApplicationMaster):
    """Asks at two priorities and request ids, on hosts whose names sort before and after ``*``; withdraws one."""

    def on_registered(self, response: Any) -> None:
        cap = Resource(512, 1)
        self.add_container_request(cap, priority=5, nodes=("node1", "#node0"), racks=("/r",), request_id=2)
        self.add_container_request(cap, priority=5, nodes=("!n",), request_id=1)
        self.add_container_request(Resource(1024, 1), priority=1, nodes=("node0",), racks=("/default-rack",))
        self.add_container_request(cap, priority=3)
        self.remove_container_request(next(iter(self._outstanding[3])))
        # a withdrawal of a request never asked for: an ask-table entry created by remove_container_request
        from yarnball.actors._appmaster import ContainerRequest

        self.remove_container_request(ContainerRequest(cap, 7, nodes=("node1",)))


def test_sent_asks_are_in_sort_key_order() -> None:
    """The asks of a heartbeat go out in ``_ask_sort_key`` order (priority, request id, ANY first, name, ...),
    whether the entry was made by adding or by withdrawing a request."""
    b = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4)
    cluster = Cluster(Configuration({}), b.build().nodes, seed=1)
    rm = cluster.rm
    serve, sent = spyable_ams(rm).serve_allocate, []

    def served(msg: AllocateRequest) -> Any:
        if msg.ask:
            sent.append(msg.ask)
        return serve(msg)

    rm.application_master_service.serve_allocate = served  # type: ignore[method-assign]
    cluster.submit(_Asker(name="asker"))
    cluster.run(until_ms=30_000)
    first = sent[0]
    keys = [
        (
            r.priority.priority,
            r.resource_name,
            r.execution_type_request.execution_type.value,
            r.capability.memory_mb,
            r.capability.vcores,
            r.allocation_request_id,
        )
        for r in first
    ]
    assert len(keys) == 12 and keys == sorted(keys, key=_ask_sort_key)
    assert [k[1] for k in keys[:3]] == ["*", "/default-rack", "node0"]
    assert [k[1] for k in keys if k[0] == 5] == ["*", "!n", "*", "#node0", "/r", "node1"]  # ANY first, by id
    assert keys[-2][:2] == (7, "*")


def _dict_materialized(obj: object, names: set[str]) -> bool:
    """Whether ``obj``'s attributes live in a real ``__dict__`` (seen by the GC as a dict holding ``names``) rather
    than in CPython's inline attribute values."""
    return any(type(r) is dict and names <= r.keys() for r in gc.get_referents(obj))


def test_kernel_scheduler_and_roles_keep_their_inline_attributes() -> None:
    """No hot path reads the kernel's, the scheduler's, the RM's or an NM's ``__dict__`` (which would slow every
    attribute access of theirs for good): after a busy run, with inline heartbeats and allocates, their attributes
    are still inline."""
    workload = synthetic_workload(20, 10, seed=5, maps=(1, 10), reduces=(0, 3), load=1.5)
    cluster = Cluster(Configuration({}), workload.nodes, seed=3)
    cluster.submit_workload(workload)
    cluster.run(until_ms=600_000)
    assert cluster.rm.op_counts["allocate"] > 100
    kernel, scheduler = cluster.kernel, cluster.rm.scheduler
    assert not _dict_materialized(kernel, {"now", "_queue"})
    assert not _dict_materialized(scheduler, {"attempts"})
    # (CPython keeps an actor's own attributes inline too, its __dict__ slot notwithstanding.)
    assert not _dict_materialized(cluster.rm, {"conf", "cluster_timestamp"})
    assert not any(_dict_materialized(nm, {"node_id"}) for nm in cluster.node_managers.values())
    # (the probe itself works; a compiled kernel has no __dict__ at all)
    assert "conf" in cluster.rm.__dict__ and _dict_materialized(cluster.rm, {"conf", "cluster_timestamp"})


def test_an_event_observer_is_called_for_every_event() -> None:
    """A test observing the kernel's events (``Kernel.observe_events``) sees the events
    run inline (an AM's allocate and its response) as well as the popped ones."""
    workload = synthetic_workload(6, 4, seed=2, maps=(1, 5), reduces=(0, 2), load=1.0)
    cluster = Cluster(Configuration({}), workload.nodes, seed=3)
    kernel, seen = cluster.kernel, []

    def entered(entry: tuple[Any, ...]) -> None:
        seen.append(entry)

    kernel.observe_events(entered)
    cluster.submit_workload(workload)
    cluster.run(until_ms=300_000)
    assert enter_replaced(kernel)
    assert len(seen) > kernel.events_processed  # the inline ones too
