"""The NodeManager's per-container path and the heartbeat handling around it: cheaper, with the same behaviour."""

from __future__ import annotations

from typing import Any

from service_spies import spyable_services
from skipping_helpers import TWO_QUEUES, run_state

from yarnball.actors import Actor, Kernel
from yarnball.actors._containerscheduler import ContainerScheduler
from yarnball.actors._nodemanager import NodeManager
from yarnball.actors._shortcuts._routes import deliver_heartbeat_response
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.launcher.workloads._model import Workload
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerId,
    ContainerState,
    ExecutionType,
    NodeHeartbeatResponse,
    NodeId,
    Priority,
    Resource,
    StartContainersRequest,
    StopContainersRequest,
    keys,
)
from yarnball.protocols._containermanagement import ContainerLaunchContext, StartContainerRequest
from yarnball.testing import ActorTestKit, captured_events

ATTEMPT = ApplicationAttemptId(ApplicationId(1, 1), 1)
G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741


def _busy() -> Workload:
    return synthetic_workload(40, 30, seed=7, queues=("a", "b"), maps=(1, 25), reduces=(0, 5), load=1.5)


QUEUES = TWO_QUEUES


def _run(settle: bool, props: dict[str, object] | None = None) -> dict[str, Any]:
    """A busy run; with ``settle`` off every heartbeat ends with HeartbeatClock.processed (as before the shortcut)."""
    workload = _busy()
    with spyable_services():  # (node_heartbeat is replaced below)
        cluster = Cluster(Configuration({**QUEUES, **(props or {})}), workload.nodes, seed=4)
    rm = cluster.rm
    tracker = rm.resource_tracker
    node_heartbeat = tracker.node_heartbeat
    settled: list[bool] = []

    def beat(node_id: Any, statuses: Any, status: Any = None) -> Any:
        tracker.settled = False  # (a virtual heartbeat does not reset it: it always ends with processed())
        response = node_heartbeat(node_id, statuses, status)
        if tracker.settled:
            # the shortcut's claim: processed() would arm nothing (an empty heartbeat could change nothing)
            settled.append(rm.needs_heartbeat(node_id))
            if not settle:
                tracker.settled = False
        return response

    tracker.node_heartbeat = beat  # type: ignore[method-assign]
    tracker.build_chain()
    cluster.submit_workload(workload)
    with captured_events() as events:
        end = cluster.run(until_ms=1_800_000)
    return {"end": end, "events": events, "settled": settled, **run_state(cluster)}


def test_settled_heartbeats_need_no_next_phase_point() -> None:
    """Whenever a heartbeat leaves out HeartbeatClock.processed, the RM would not need the node's next heartbeat."""
    on = _run(True)
    assert len(on["settled"]) > 200 and not any(on["settled"])


def test_leaving_out_processed_changes_nothing() -> None:
    """A busy run equals one that calls HeartbeatClock.processed after every heartbeat: logs, results, keys."""
    on, off = _run(True), _run(False)
    assert on["counters"]["containers_allocated"] > 200
    for key in ("end", "events", "sequences", "processed", "apps", "counters", "ops", "response_ids",
                "nm_response_ids", "heartbeats"):  # fmt: skip
        assert on[key] == off[key], key


def test_no_settling_with_continuous_scheduling() -> None:
    """With continuous scheduling the launched-only shortcut does not check for room: processed() always runs."""
    on = _run(True, {keys.CONTINUOUS_SCHEDULING_ENABLED: "true"})
    assert on["settled"] == [] and on["counters"]["containers_allocated"] > 200


class _RM(Actor):
    def on_unhandled(self, message: Any, sender: Any) -> None:
        pass  # the NM's registration: not answered here


def _nm_and_rm(interval: int = 1000) -> tuple[Kernel, Any, NodeManager, list[NodeHeartbeatResponse]]:
    kernel = Kernel()
    rm = _RM()
    rm.heartbeat_interval_ms = interval  # type: ignore[attr-defined]
    kernel.spawn(rm, "rm")
    nm = NodeManager("h", "/r", Resource(1024, 1), rm.ref)
    kernel.spawn(nm, "nm-h")
    kernel.run(until=0)
    delivered: list[NodeHeartbeatResponse] = []

    def entered(entry: tuple[Any, ...]) -> None:
        if isinstance(entry[5], tuple) and isinstance(entry[5][0], NodeHeartbeatResponse):
            delivered.append(entry[5][0])

    kernel.observe_events(entered)
    return kernel, rm, nm, delivered


def test_plain_response_id_is_stored_at_once() -> None:
    """A plain response for a free NM with the RM's interval is not sent: only its response id is stored."""
    kernel, rm, nm, delivered = _nm_and_rm()
    deliver_heartbeat_response(rm, nm.ref, NodeHeartbeatResponse(response_id=7, next_heartbeat_interval_ms=1000))
    kernel.run(until=1)
    assert nm.response_id == 7 and delivered == []


def test_plain_response_with_a_new_interval_is_sent_in_full() -> None:
    """A plain response carrying an interval the NM does not use yet is delivered, equal to the full response."""
    kernel, rm, nm, delivered = _nm_and_rm(interval=3000)
    deliver_heartbeat_response(rm, nm.ref, NodeHeartbeatResponse(response_id=5, next_heartbeat_interval_ms=3000))
    assert nm.response_id == 0
    kernel.run(until=1)
    full = NodeHeartbeatResponse(
        response_id=5, containers_to_cleanup=(), applications_to_cleanup=(), next_heartbeat_interval_ms=3000,
        container_queuing_limit=None, containers_to_update=(),
    )  # fmt: skip
    assert delivered == [full] and nm.response_id == 5 and nm.heartbeat_interval_ms == 3000


def test_node_heartbeat_returns_a_plain_response_unless_there_is_cleanup() -> None:
    """The RM's response is plain (NORMAL, nothing to clean up, its interval) when there is nothing to clean up on
    the node, and carries the cleanup otherwise: always a NodeHeartbeatResponse."""
    workload = _busy()
    cluster = Cluster(Configuration(QUEUES), workload.nodes, seed=4)
    cluster.run(until_ms=5_000)
    rm = cluster.rm
    node_id = next(iter(rm.nodes))
    plain = rm.resource_tracker.node_heartbeat(node_id, ())
    assert plain == NodeHeartbeatResponse(
        response_id=rm.nodes[node_id].response_id, next_heartbeat_interval_ms=rm.heartbeat_interval_ms
    )
    cid = ContainerId(ATTEMPT, 99)
    rm.nodes[node_id].queue_cleanup(cid)
    full = rm.resource_tracker.node_heartbeat(node_id, ())
    assert isinstance(full, NodeHeartbeatResponse) and full.containers_to_cleanup == (cid,)
    assert full.response_id == plain.response_id + 1
    assert isinstance(rm.resource_tracker.node_heartbeat(NodeId("nowhere"), ()), NodeHeartbeatResponse)  # RESYNC


class _Node:
    """A NodeManager with localization time and an AM probe; the RM is a probe that never answers."""

    def __init__(self, localization_ms: float = 100, queue_length: int = 0) -> None:
        self.kit = ActorTestKit()
        rm = self.kit.probe("rm")
        self.am = self.kit.probe("am")
        conf = Configuration({keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: str(queue_length)})
        self.nm = NodeManager("h1", "/r", Resource(4096, 4), rm.ref, localization_ms=localization_ms, conf=conf)
        self.ref = self.kit.spawn(self.nm, "nm-h1")

    def start(self, n: int, etype: ExecutionType = G, duration: int = 10_000) -> ContainerId:
        cid = ContainerId(ATTEMPT, n)
        c = Container(id=cid, node_id=NodeId("h1"), resource=Resource(1024, 1), priority=Priority(1),
                      execution_type=etype)  # fmt: skip
        ctx = ContainerLaunchContext(simulated_duration_ms=duration)
        request = StartContainersRequest(
            start_container_requests=(StartContainerRequest(container=c, launch_context=ctx),)
        )
        self.ref.tell(request, self.am.ref)
        return cid

    def running_since(self, cid: ContainerId) -> float | None:
        entry = self.nm.containers.get(cid)
        return entry.started_at if entry is not None and entry.state is ContainerState.RUNNING else None


def test_a_container_started_again_with_its_id_is_launched_by_the_first_timer() -> None:
    """Killed while localizing and started again under the same id, a container is launched when the first
    localization timer fires (the timers look the id up, as they always did), and completes once."""
    node = _Node(localization_ms=100)
    cid = node.start(1, duration=1_000)
    node.kit.run(until=10)
    node.ref.tell(StopContainersRequest(container_ids=(cid,)), node.am.ref)
    node.kit.run(until=50)
    assert cid not in node.nm.containers
    node.start(1, duration=1_000)
    node.kit.run(until=120)
    assert node.running_since(cid) == 100
    node.kit.run(until=1_200)
    assert node.nm.completed_count == 2 and not node.nm.containers  # the kill, then the run of 100..1,100 ms
    completions = [s for s in node.nm._changes if s.state is ContainerState.COMPLETE]
    assert [s.exit_status for s in completions] == [-105, 0]


def test_duplicate_start_is_rejected_and_takes_no_arrival_number() -> None:
    """A second start of a running container's id fails and does not advance the NM's arrival numbers."""
    node = _Node(localization_ms=0)
    cid = node.start(1)
    node.kit.run(until=1)
    assert node.nm._seq == 1
    node.start(1)
    node.kit.run(until=2)
    assert node.nm._seq == 1 and node.nm.containers[cid].seq == 1
    assert node.nm.used_mb == 1024


def _scheduler_state(cs: ContainerScheduler) -> tuple[Any, ...]:
    return (cs.pmem, cs.vmem, cs.cpu, cs.running_guaranteed, cs.running_opportunistic, cs.opport_memory_used,
            cs._start_seq)  # fmt: skip


def test_forced_starts_account_as_the_general_path() -> None:
    """start_now/completed keep the same books as schedule/on_resources_reclaimed for forced GUARANTEED starts."""
    fast, slow = _Node(localization_ms=0), _Node(localization_ms=0)
    for n in range(6):
        fast.start(n, duration=1_000 + 300 * n)
    fast.kit.run(until=1)
    # the same containers through the general path (no quiet shortcut)
    slow.nm.container_scheduler.quiet = False
    for n in range(6):
        slow.start(n, duration=1_000 + 300 * n)
    slow.kit.run(until=1)
    assert _scheduler_state(fast.nm.container_scheduler) == _scheduler_state(slow.nm.container_scheduler)
    assert fast.nm.container_scheduler.running_guaranteed == 6 and fast.nm.container_scheduler.pmem == 6 * 1024
    for t in (1_500, 2_200, 5_000):
        fast.kit.run(until=t)
        slow.kit.run(until=t)
        assert _scheduler_state(fast.nm.container_scheduler) == _scheduler_state(slow.nm.container_scheduler)
    assert fast.nm.container_scheduler.pmem == 0 and fast.nm.container_scheduler.cpu == 0


def test_a_queue_ends_the_quiet_books() -> None:
    """Once anything was queued the scheduler is no longer quiet, and completions take the general path."""
    node = _Node(localization_ms=0, queue_length=5)
    assert node.nm.container_scheduler.quiet
    node.start(1, G)
    node.kit.run(until=1)
    assert not node.nm.container_scheduler.quiet  # not forced: GUARANTEED containers are queued, then started
    assert node.running_since(ContainerId(ATTEMPT, 1)) == 0


def test_completed_containers_leave_no_cyclic_garbage() -> None:
    """A completed container's entry and its timer are freed by refcounting: the cyclic GC finds none of them."""
    import gc

    from yarnball.actors._containerimpl import ContainerImpl

    workload = _busy()
    cluster = Cluster(Configuration(QUEUES), workload.nodes, seed=4)
    cluster.submit_workload(workload)
    gc.collect()
    gc.disable()
    try:
        cluster.run(until_ms=600_000)
        assert cluster.rm.counters["containers_completed"] > 50
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        leaked = [o for o in gc.garbage if type(o) is ContainerImpl]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert leaked == []
