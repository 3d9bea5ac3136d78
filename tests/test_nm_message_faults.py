"""Message faults on the NodeManager's links (issue 21): node heartbeats and container calls under Hadoop's RPC rules
(actors/_nmrpc.py), and the AMs hearing of decommissioning nodes."""

from __future__ import annotations

import re

import pytest

from tests.test_cluster import TWO_QUEUES, small_cluster
from yarnball.actors._appmaster import ApplicationMaster
from yarnball.actors._nodestatusupdater import NodeStatusUpdater
from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher._faults import parse_faults
from yarnball.launcher.workloads import task_spec
from yarnball.protocols import (
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerState,
    ContainerStatus,
    FinalApplicationStatus,
    NodeHeartbeatRequest,
    NodeHeartbeatResponse,
    NodeId,
    NodeReport,
    NodeState,
    NodeStatus,
    NodeUpdateType,
    RegisterApplicationMasterResponse,
    Resource,
)
from yarnball.testing import assert_containers_conserved, assert_invariants, captured_events

LOST = "Container released on a *lost* node"


def _cluster(conf: dict[str, str] | None = None, *, tasks: int = 4, duration_ms: int = 20_000) -> Cluster:
    cluster, builder = small_cluster({**TWO_QUEUES, **(conf or {})}, nodes=2)
    builder.job("j", queue="a", tasks=[task_spec(tasks, duration_ms)])
    cluster.submit_workload(builder.build())
    return cluster


def _fault(kind: str, link: str, message: str, at_ms: int = 10_000, **params: object) -> dict[str, object]:
    return {"at_ms": at_ms, "kind": kind, "target": link, "message": message, "duration_ms": 5_000, **params}


def _run(cluster: Cluster, *faults: dict[str, object]) -> list[dict[str, object]]:
    if faults:
        cluster.inject(list(faults))
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    assert_invariants(events)
    assert_containers_conserved(cluster)
    return events


def _succeeded(cluster: Cluster) -> None:
    for app in cluster.applications:
        assert app.final_status is FinalApplicationStatus.SUCCEEDED, app.diagnostics


def _of(events: list[dict[str, object]], name: str) -> list[dict[str, object]]:
    return [e for e in events if e["event"] == name]


# -- the schedule format ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        (
            {"kind": "message_drop", "target": "nm->rm", "message": "AllocateRequest", "duration_ms": 5},
            "field 'message' must be a message type of nm->rm, one of NodeHeartbeatRequest, got 'AllocateRequest'",
        ),
        (
            {"kind": "message_delay", "target": "am->nm", "message": "NodeHeartbeatRequest", "duration_ms": 5,
             "delay_ms": 5},
            "field 'message' must be a message type of am->nm, one of StartContainersRequest, StopContainersRequest",
        ),
        (
            {"kind": "message_drop", "target": "nm->am", "message": "StartContainersResponse", "duration_ms": 5,
             "probability": 0},
            "field 'probability' must be a number in (0, 1], got 0",
        ),
        (
            {"kind": "message_duplicate", "target": "rm->nm", "message": "NodeHeartbeatResponse", "duration_ms": 0},
            "field 'duration_ms' must be an integer from 1 to 1000000000000, got 0",
        ),
        (
            {"kind": "message_drop", "target": "nm->nm", "message": "NodeHeartbeatRequest", "duration_ms": 5},
            "field 'target' must be a link, one of am->rm, rm->am, nm->rm, rm->nm, am->nm, nm->am, got 'nm->nm'",
        ),
    ],
)
def test_bad_nm_link_entries_name_the_entry_and_field(entry: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(f"fault 1: {needle}")):
        parse_faults([{"at_ms": 0, "kind": "node_lost", "target": "n"}, {"at_ms": 5, **entry}])


# -- node heartbeats -------------------------------------------------------------------------------------------------
def test_dropped_heartbeat_is_retried_unchanged_after_the_nm_retry_interval() -> None:
    """NodeStatusUpdaterImpl waits in nodeHeartbeat: no heartbeat goes while the lost one is unanswered, and RMProxy
    retries it, with the same response id, after yarn.nodemanager.resourcemanager.connect.retry-interval.ms."""
    cluster = _cluster({"yarn.nodemanager.resourcemanager.connect.retry-interval.ms": "4000"})
    events = _run(cluster, _fault("message_drop", "nm->rm", "NodeHeartbeatRequest", duration_ms=1500))
    drops = _of(events, "fault_injected")
    retries = _of(events, "node_heartbeat_retried")
    assert drops and len(retries) == len(drops)
    for drop, retry in zip(sorted(drops, key=lambda e: e["source"]), sorted(retries, key=lambda e: e["actor"])):
        assert retry["actor"] == drop["source"] and retry["sim_ms"] == drop["sim_ms"] + 4000
    assert cluster.counters.get("nodes_rebooted", 0) == 0 and not _of(events, "container_expired")
    _succeeded(cluster)


def test_retry_after_a_lost_heartbeat_response_gets_the_last_response_again() -> None:
    """ResourceTrackerService.nodeHeartbeat: a response id one behind is a duplicate, answered with the last
    response, not processed again; nothing is lost or counted twice."""
    cluster = _cluster()
    events = _run(cluster, _fault("message_drop", "rm->nm", "NodeHeartbeatResponse", duration_ms=2000))
    drops = _of(events, "fault_injected")
    duplicates = _of(events, "node_heartbeat_duplicate")
    assert drops and len(duplicates) == len(drops) == cluster.counters["node_heartbeat_duplicates"]
    retries = _of(events, "node_heartbeat_retried")
    assert sorted((e["sim_ms"], e["response_id"]) for e in retries) == sorted(
        (e["sim_ms"], e["response_id"]) for e in duplicates
    )
    assert cluster.counters.get("nodes_rebooted", 0) == 0
    # nothing lost: what still waits for its acknowledgement (the run stops with the last heartbeat's answer in
    # flight) is a completion the RM has recorded
    pending = [cid for nm in cluster.node_managers.values() for cid in nm._hb_call.pending_completed]
    assert not [cid for cid in pending if cid in cluster.rm.live]
    _succeeded(cluster)


def test_a_stale_heartbeat_is_too_far_behind_and_reboots_the_node() -> None:
    """A heartbeat copy arriving after the NM moved on: "Too far behind rm response id:..." (RMNodeEventType
    .REBOOTING): the node's containers end LOST, the NM resyncs and registers again, and the job still succeeds."""
    cluster = _cluster(duration_ms=60_000)
    events = _run(
        cluster,
        {"at_ms": 10_000, "kind": "message_duplicate", "target": "nm->rm", "message": "NodeHeartbeatRequest",
         "duration_ms": 1000, "delay_ms": 2500},
    )
    rebooted = _of(events, "node_rebooted")
    copies = _of(events, "fault_injected")
    assert rebooted and len(rebooted) == len(copies) == cluster.counters["nodes_rebooted"]
    for e in rebooted:
        assert re.fullmatch(r"Too far behind rm response id:\d+ nm response id:\d+", str(e["diagnostics"]))
    lost = [e for e in _of(events, "container_finished") if e["diagnostics"] == LOST]
    assert lost and all(e["exit_status"] == ContainerExitStatus.ABORTED for e in lost)
    rebooted_at = {str(e["node"]): e["sim_ms"] for e in rebooted}
    added = [e for e in _of(events, "node_added") if str(e["node"]) in rebooted_at]
    assert {str(e["node"]) for e in added if e["sim_ms"] > rebooted_at[str(e["node"])]} == set(rebooted_at)
    _succeeded(cluster)


def test_completions_stay_in_every_heartbeat_until_acknowledged() -> None:
    """pendingCompletedContainers: a completion goes in each heartbeat until a response lists it in
    containersToBeRemovedFromNM; an answer to an older call is dropped and acknowledges nothing."""

    class _NM:
        def after(self, delay: float, what: object) -> object:
            return type("T", (), {"cancel": lambda self: None})()

    call = NodeStatusUpdater(_NM())
    call.wait_for_answers(1000)
    cid = ContainerId.parse("container_1_0001_01_000002")
    done = ContainerStatus(container_id=cid, state=ContainerState.COMPLETE, exit_status=0)
    other = ContainerId.parse("container_1_0001_01_000003")
    running = ContainerStatus(container_id=other, state=ContainerState.RUNNING)
    assert call.statuses([done, running]) == (running, done)

    def request(response_id: int) -> NodeHeartbeatRequest:
        return NodeHeartbeatRequest(node_status=NodeStatus(node_id=NodeId("h", 0), response_id=response_id))

    assert call.send(request(4)) and not call.send(request(4))  # one call at a time
    assert not call.answer(NodeHeartbeatResponse(response_id=4, containers_to_be_removed_from_nm=(cid,)))
    assert call.statuses([]) == (done,)  # still pending: that answer was not to this call
    assert call.answer(NodeHeartbeatResponse(response_id=5))
    assert call.statuses([]) == (done,)  # answered, but not acknowledged
    call.send(request(5))
    assert call.answer(NodeHeartbeatResponse(response_id=6, containers_to_be_removed_from_nm=(cid,)))
    assert call.statuses([]) == ()


def test_without_nm_faults_heartbeats_carry_only_changes_and_no_response_id_check() -> None:
    """The exact ordinary path is untouched: no heartbeat call state, no RM checks, no acknowledgements."""
    cluster = _cluster()
    cluster.inject(_fault("message_drop", "am->rm", "AllocateRequest"))
    assert cluster.rm.node_rules is None and all(nm._hb_call is None for nm in cluster.node_managers.values())


# -- container calls -------------------------------------------------------------------------------------------------
def test_dropped_start_is_retried_by_nmclient_and_the_container_starts_then() -> None:
    """NMProxy retries StartContainers every yarn.client.nodemanager-connect.retry-interval-ms: the container starts
    on the retry, and the task runs once."""
    cluster = _cluster({"yarn.client.nodemanager-connect.retry-interval-ms": "3000"})
    events = _run(cluster, _fault("message_drop", "am->nm", "StartContainersRequest", at_ms=0, duration_ms=30_000))
    drops = _of(events, "fault_injected")
    retries = _of(events, "container_call_retried")
    assert drops and len(retries) == len(drops)
    dropped_at = {e["sim_ms"] for e in drops}
    assert all(e["sim_ms"] - 3000 in dropped_at for e in retries)
    am = cluster.masters[0]
    assert am.failed_task_attempts == 0  # type: ignore[attr-defined]
    _succeeded(cluster)


def test_lost_start_answer_makes_the_retry_a_refused_relaunch_and_the_task_runs_again() -> None:
    """The start's answer is lost; the retried start is refused ("Attempt to relaunch the same container", as
    ContainerManagerImpl), the AM's onStartContainerError releases the container (killed on the NM) and runs the
    task in a new one."""
    cluster = _cluster({"yarn.client.nodemanager-connect.retry-interval-ms": "3000"})
    # (a window that ends before the retries: their answers get through)
    events = _run(cluster, _fault("message_drop", "nm->am", "StartContainersResponse", at_ms=3000, duration_ms=1500))
    drops = _of(events, "fault_injected")
    failed = _of(events, "container_start_failed")
    assert drops and len(failed) == len(drops)
    for e in failed:
        assert str(e["diagnostics"]).endswith(f"Attempt to relaunch the same container with id {e['container']}.")
    am = cluster.masters[0]
    assert am.failed_task_attempts == len(failed)  # type: ignore[attr-defined]
    ended = {e["container"]: e for e in _of(events, "container_finished")}
    for e in failed:
        assert ended[e["container"]]["exit_status"] != ContainerExitStatus.SUCCESS  # released, not run to the end
    _succeeded(cluster)


class KeepOnStartError(ApplicationMaster):
    """Starts one container and keeps it when the start fails (the RM's allocation expiry reclaims it)."""

    def __init__(self) -> None:
        super().__init__(name="keeper", queue="a")
        self.errors: list[str] = []
        self.done: list[ContainerStatus] = []

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        self.add_container_request(Resource(1024, 1), priority=1, count=1)

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for c in containers:
            self.start_container(c, duration_ms=10_000)

    def on_start_container_error(self, container_id: ContainerId, diagnostics: str) -> None:
        self.errors.append(diagnostics)

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        self.done.extend(statuses)
        self.finish()


def test_a_start_that_never_gets_through_fails_and_the_allocation_expires() -> None:
    """After yarn.client.nodemanager-connect.max-wait-ms the call fails (onStartContainerError); a container never
    started is then reclaimed by yarn.resourcemanager.rm.container-allocation.expiry-interval-ms."""
    conf = {
        "yarn.client.nodemanager-connect.retry-interval-ms": "2000",
        "yarn.client.nodemanager-connect.max-wait-ms": "6000",
        "yarn.resourcemanager.rm.container-allocation.expiry-interval-ms": "30000",
    }
    cluster, _ = small_cluster({**TWO_QUEUES, **conf}, nodes=2)
    am = cluster.submit(KeepOnStartError())
    events = _run(cluster, _fault("message_drop", "am->nm", "StartContainersRequest", at_ms=0, duration_ms=60_000))
    assert len(am.errors) == 1 and "yarn.client.nodemanager-connect.max-wait-ms=6000" in am.errors[0]
    (expired,) = _of(events, "container_expired")
    (status,) = am.done
    assert str(status.container_id) == expired["container"]
    (failed_at,) = [e["sim_ms"] for e in events if e["event"] == "fault_injected"][:1]
    assert 30_000 <= expired["sim_ms"] - failed_at <= 30_000 + 30_000 / 3 + 1000


class StopsOne(ApplicationMaster):
    """Starts two long containers and stops the first at 20 s; finishes when both have ended."""

    def __init__(self) -> None:
        super().__init__(name="stopper", queue="a")
        self.started: list[Container] = []
        self.done: list[ContainerStatus] = []

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        self.add_container_request(Resource(1024, 1), priority=1, count=2)

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for c in containers:
            self.start_container(c, duration_ms=60_000)
            self.started.append(c)
        if len(self.started) == 2:
            first = self.started[0]
            self.after(20_000 - self.now, lambda: self.stop_container(first))

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        self.done.extend(statuses)
        if len(self.done) == 2:
            self.finish()


@pytest.mark.parametrize("link", ["am->nm", "nm->am"])
def test_a_lost_stop_or_its_answer_is_retried_and_the_container_stopped_once(link: str) -> None:
    """A lost StopContainers is retried after the retry interval and stops the container then; after a lost answer
    the retried stop of a container already stopped succeeds (isContainerRecentlyStopped): no error either way."""
    conf = {"yarn.client.nodemanager-connect.retry-interval-ms": "3000"}
    cluster, _ = small_cluster({**TWO_QUEUES, **conf}, nodes=2)
    am = cluster.submit(StopsOne())
    message = "StopContainersRequest" if link == "am->nm" else "StopContainersResponse"
    events = _run(cluster, _fault("message_drop", link, message, at_ms=19_000, duration_ms=2000))
    assert len(_of(events, "fault_injected")) == 1
    (retry,) = _of(events, "container_call_retried")
    assert retry["call"] == "stop" and retry["sim_ms"] == 23_000
    stopped = [s for s in am.done if s.exit_status == ContainerExitStatus.KILLED_BY_APPMASTER]
    assert [s.container_id for s in stopped] == [am.started[0].id]
    (end,) = [e for e in _of(events, "container_finished") if e["container"] == str(am.started[0].id)]
    assert end["sim_ms"] >= (23_000 if link == "am->nm" else 20_000)
    assert end["sim_ms"] < (24_000 if link == "am->nm" else 21_000)
    assert not _of(events, "container_stop_failed")


# -- decommission tells the AMs ----------------------------------------------------------------------------------------
class NodeWatcher(ApplicationMaster):
    """Runs five long containers and records the node updates of every allocate."""

    def __init__(self) -> None:
        super().__init__(name="watcher", queue="a")
        self.updates: list[tuple[float, NodeReport]] = []
        self.done = 0

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        self.add_container_request(Resource(1024, 1), priority=1, count=5)

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for c in containers:
            self.start_container(c, duration_ms=30_000)

    def on_node_updates(self, reports: tuple[NodeReport, ...]) -> None:
        self.updates.extend((self.now, r) for r in reports)

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        self.done += len(statuses)
        if self.done == 5:
            self.finish()


def _watched() -> tuple[Cluster, NodeWatcher]:
    cluster, _ = small_cluster(dict(TWO_QUEUES), nodes=2, memory_mb=4096)  # 4 containers a node: both get some
    return cluster, cluster.submit(NodeWatcher())  # type: ignore[return-value]


def test_the_am_hears_of_a_node_decommissioning_then_decommissioned() -> None:
    """RMAppImpl.updatedNodes pulled by the next allocate (DefaultAMSProcessor.handleNodeUpdates): the node as
    DECOMMISSIONING with its timeout (NODE_DECOMMISSIONING), then DECOMMISSIONED (NODE_UNUSABLE), once each."""
    before, am = _watched()
    with captured_events():
        before.run(until_ms=8_000)
    assert am.am_container is not None
    node = "node1" if am.am_container.node_id.host == "node0" else "node0"  # not the AM's: it drains while it runs
    cluster, am = _watched()
    cluster.inject({"at_ms": 10_000, "kind": "node_decommission", "target": node, "timeout_s": 600})
    events = _run(cluster)
    (done,) = _of(events, "node_decommissioned")
    assert [(r.node_id, r.node_state, r.node_update_type, r.decommissioning_timeout) for _, r in am.updates] == [
        (NodeId(node, 0), NodeState.DECOMMISSIONING, NodeUpdateType.NODE_DECOMMISSIONING, 600),
        (NodeId(node, 0), NodeState.DECOMMISSIONED, NodeUpdateType.NODE_UNUSABLE, None),
    ]
    first, second = (t for t, _ in am.updates)
    assert 10_000 <= first <= 10_000 + am.heartbeat_interval_ms
    assert done["sim_ms"] <= second <= done["sim_ms"] + am.heartbeat_interval_ms
    report = am.updates[0][1]
    assert report.capability == Resource(4096, 8) and report.rack_name == cluster.node_managers[node].rack
    assert report.num_containers > 0  # what still ran there when the AM pulled it
