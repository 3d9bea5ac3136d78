"""The per-container path's shortcuts: left-out no-op replies, one-object container timers, indexed matching."""

from __future__ import annotations

import random
from collections import Counter, deque
from typing import Any

from yarnball.actors import Actor, Kernel, handler
from yarnball.actors._appmaster import ApplicationMaster, ContainerRequest
from yarnball.actors._slsam import MRAppMaster
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerId,
    ExecutionType,
    FinalApplicationStatus,
    NodeHeartbeatResponse,
    NodeId,
    Priority,
    Resource,
    StartContainersResponse,
)


def _count_events(cluster: Cluster, until_ms: float = 3_600_000) -> Counter[str]:
    """Run ``cluster`` (a simulated hour by default), counting delivered messages by type."""
    counts: Counter[str] = Counter()
    kernel = cluster.kernel

    def entered(entry: tuple[Any, ...]) -> None:
        arg = entry[5]
        if isinstance(arg, tuple) and len(arg) == 2:
            counts[type(arg[0]).__name__] += 1

    kernel.observe_events(entered)
    cluster.run(until_ms=until_ms)
    return counts


def _cluster(am_class: type | None = None) -> Cluster:
    workload = synthetic_workload(6, 4, seed=2, maps=(2, 6), reduces=(0, 2))
    cluster = Cluster(Configuration({}), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    if am_class is not None:
        for am in cluster.kernel.actors.values():
            if isinstance(am, MRAppMaster):
                am.__class__ = am_class
    return cluster


class _LoudAM(MRAppMaster):
    """Overrides the start response handler, so every StartContainersResponse must reach it."""

    started: list[int] = []

    @handler
    def on_start_response(self, msg: StartContainersResponse) -> None:
        _LoudAM.started.append(len(msg.successfully_started_containers))


def test_start_responses_without_failures_are_left_out_for_base_handlers() -> None:
    """An SLS AM (base start-response handler) is sent no StartContainersResponse; its containers still run."""
    cluster = _cluster()
    counts = _count_events(cluster)
    assert counts["StartContainersRequest"] > 10
    # only the RM's AM-container launches are answered (the RM acts on them)
    assert counts["StartContainersResponse"] == len(cluster.applications)
    assert all(a.final_status is FinalApplicationStatus.SUCCEEDED for a in cluster.applications)


def test_start_responses_reach_an_overriding_handler() -> None:
    """An AM overriding on_start_response gets one response per StartContainersRequest."""
    _LoudAM.started = []
    cluster = _cluster(_LoudAM)
    counts = _count_events(cluster)
    assert len(_LoudAM.started) > 10
    assert counts["StartContainersResponse"] == len(_LoudAM.started) + len(cluster.applications)


def test_bookkeeping_heartbeat_responses_store_the_response_id() -> None:
    """Few NodeHeartbeatResponses are delivered, yet every NM holds the RM's last response id for it."""
    cluster = _cluster()
    # (a run that ends mid-way, before every application finished, processes everything up to its end)
    counts = _count_events(cluster, 40_000)
    assert any(a.final_status is FinalApplicationStatus.UNDEFINED for a in cluster.applications)
    assert counts["NodeHeartbeatResponse"] < counts["NodeHeartbeatRequest"] / 2
    for node_id, node in cluster.rm.nodes.items():
        nm = cluster.kernel.actors[f"nm-{node_id.host}"]
        assert nm.response_id == node.response_id > 0


class _Timers(Actor):
    def on_start(self) -> None:
        self.fired: list[tuple[float, str]] = []

    def note(self, what: str) -> None:
        self.fired.append((self.now, what))

    @handler
    def on_str(self, msg: str) -> None:
        self.note("msg:" + msg)


def test_after_call_fires_once_with_its_argument_unless_cancelled() -> None:
    """after_call(delay, fn, arg) calls fn(arg) at now + delay; a cancelled one never fires."""
    kernel = Kernel()
    actor = _Timers()
    kernel.spawn(actor, "t")
    kernel.run(until=0)
    actor.after_call(5, actor.note, "a")
    actor.after_call(3, actor.note, "b").cancel()
    actor.after_call(7, actor.note, "c")
    kernel.run()
    assert actor.fired == [(5, "a"), (7, "c")]


def test_after_call_keeps_after_order_and_skips_a_stopped_actor() -> None:
    """Same-time after_call and after timers fire in scheduling order; a stopped actor's timers do not fire."""
    kernel = Kernel()
    actor = _Timers()
    kernel.spawn(actor, "t")
    kernel.run(until=0)
    actor.after_call(5, actor.note, "1")
    actor.after(5, lambda: actor.note("2"))
    actor.after_call(5, actor.note, "3")
    kernel.run(until=5)
    assert actor.fired == [(5, "1"), (5, "2"), (5, "3")]
    actor.after_call(5, actor.note, "late")
    actor.stop()
    kernel.run()
    assert actor.fired[-1] == (5, "3")


def _container(host: str, priority: int, etype: ExecutionType, n: int) -> Container:
    attempt = ApplicationAttemptId(ApplicationId(1, 1), 1)
    return Container(
        id=ContainerId(attempt, n),
        node_id=NodeId(host, 0),
        resource=Resource(1024, 1),
        priority=Priority(priority),
        execution_type=etype,
    )


def test_match_takes_the_request_pick_would_take() -> None:
    """With node-naming requests indexed, each allocated container removes exactly the request _pick chooses."""
    rng = random.Random(4)
    hosts = ["h1", "h2", "h3", "h4"]
    am = ApplicationMaster(name="x")
    model: dict[int, deque[ContainerRequest]] = {}
    for n in range(400):
        if rng.random() < 0.55 or not any(model.values()):
            prio = rng.choice([1, 2])
            nodes = tuple(rng.sample(hosts, rng.choice([0, 0, 1, 2])))
            etype = rng.choice([ExecutionType.GUARANTEED, ExecutionType.GUARANTEED, ExecutionType.OPPORTUNISTIC])
            before = len(am._outstanding.get(prio, ()))
            am.add_container_request(Resource(1024, 1), prio, nodes=nodes, execution_type=etype)
            model.setdefault(prio, deque()).append(am._outstanding[prio][before])
            continue
        prio = rng.choice([p for p, q in model.items() if q])
        container = _container(rng.choice(hosts), prio, rng.choice(list(ExecutionType)), n)
        queue = model[prio]
        expected = ApplicationMaster._pick(queue, container.node_id.host, container.execution_type)
        expected = expected or ApplicationMaster._pick(queue, container.node_id.host, None)
        queue.remove(expected)
        am._match(container)
        assert list(am._outstanding[prio]) == list(queue)


def test_heartbeat_response_with_work_is_delivered() -> None:
    """A bookkeeping-only response is stored at once; one carrying cleanup is delivered as a message."""
    from yarnball.actors._nodemanager import NodeManager
    from yarnball.actors._shortcuts._routes import deliver_heartbeat_response

    kernel = Kernel()
    delivered: list[int] = []

    class _RM(Actor):
        def on_unhandled(self, message: Any, sender: Any) -> None:
            pass  # the NM's registration: not answered here

    rm = _RM()
    kernel.spawn(rm, "rm")
    nm = NodeManager("h", "/r", Resource(1024, 1), rm.ref)
    kernel.spawn(nm, "nm-h")
    kernel.run(until=0)

    def entered(entry: tuple[Any, ...]) -> None:
        if isinstance(entry[5], tuple) and isinstance(entry[5][0], NodeHeartbeatResponse):
            delivered.append(entry[5][0].response_id)

    kernel.observe_events(entered)
    cid = _container("h", 1, ExecutionType.GUARANTEED, 1).id
    deliver_heartbeat_response(rm, nm.ref, NodeHeartbeatResponse(response_id=3))
    assert nm.response_id == 3 and delivered == []
    work = NodeHeartbeatResponse(response_id=4, containers_to_cleanup=(cid,))
    deliver_heartbeat_response(rm, nm.ref, work)
    assert nm.response_id == 3
    kernel.run(until=1)
    assert delivered == [4] and nm.response_id == 4
