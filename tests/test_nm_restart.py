"""NodeManager restart (issue 19 item 12): work-preserving with yarn.nodemanager.recovery.*, killing without."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fault_helpers import simulate_faults
from tests.test_cluster import TWO_QUEUES, small_cluster
from yarnball.actors._nmstates import NMContainerState
from yarnball.actors._nodemanager import NodeManager
from yarnball.errors import ConfigurationError
from yarnball.launcher._faults import parse_faults
from yarnball.launcher.workloads import task_spec
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerState,
    ExecutionType,
    FinalApplicationStatus,
    NodeId,
    Priority,
    RegisterNodeManagerRequest,
    RegisterNodeManagerResponse,
    Resource,
    StartContainersRequest,
    StartContainersResponse,
    keys,
)
from yarnball.protocols._containermanagement import ContainerLaunchContext, StartContainerRequest
from yarnball.testing import ActorTestKit, assert_containers_conserved, captured_events

RECOVERY = {keys.NM_RECOVERY_ENABLED: "true", keys.NM_RECOVERY_SUPERVISED: "true"}
ATTEMPT = ApplicationAttemptId(ApplicationId(1, 1), 1)


class Node:
    """A NodeManager of 4 GB / 4 vcores talking to probes (the RM never answers unless told to)."""

    def __init__(self, **conf: str) -> None:
        self.kit = ActorTestKit()
        self.rm = self.kit.probe("rm")
        self.am = self.kit.probe("am")
        self.nm = NodeManager("h1", "/r", Resource(4096, 4), self.rm.ref, conf=Configuration({**conf}))
        self.ref = self.kit.spawn(self.nm, "nm-h1")

    def start(self, n: int, duration: int, mem: int = 1024) -> ContainerId:
        cid = ContainerId(ATTEMPT, n)
        c = Container(id=cid, node_id=NodeId("h1"), resource=Resource(mem, 1), priority=Priority(1))
        ctx = ContainerLaunchContext(simulated_duration_ms=duration)
        request = StartContainerRequest(container=c, launch_context=ctx)
        self.ref.tell(StartContainersRequest(start_container_requests=(request,)), self.am.ref)
        return cid

    def registered(self) -> None:
        self.ref.tell(RegisterNodeManagerResponse(), self.rm.ref)

    def registrations(self) -> list[RegisterNodeManagerRequest]:
        return [m for m in self.rm.messages if isinstance(m, RegisterNodeManagerRequest)]


def test_recovering_nm_registers_with_running_and_finished_containers() -> None:
    """With recovery, a container that ends while the NM is down is reported COMPLETE (SUCCESS) in the
    re-registration, a running one RUNNING, with their application; nothing heartbeats while down."""
    node = Node(**RECOVERY)
    node.kit.run(until=10)
    node.registered()
    short = node.start(1, duration=3_000)
    long_ = node.start(2, duration=60_000)
    node.kit.run(until=1_000)
    node.nm.restart(down_ms=5_000)
    node.rm.received.clear()
    node.kit.run(until=5_900)
    assert not node.rm.messages  # down: no heartbeat, no registration
    assert node.nm.is_down
    node.kit.run(until=6_100)
    (request,) = node.registrations()
    by_id = {s.container_id: s for s in request.container_statuses}
    assert by_id[short].container_state is ContainerState.COMPLETE
    assert by_id[short].container_exit_status == ContainerExitStatus.SUCCESS
    assert by_id[long_].container_state is ContainerState.RUNNING
    assert request.running_applications == (ATTEMPT.application_id,)
    assert node.nm.container_state(long_) is NMContainerState.RUNNING


def test_restart_without_recovery_kills_and_forgets() -> None:
    """Without recovery the NM kills its containers when it stops and registers again with none."""
    node = Node()
    node.kit.run(until=10)
    node.registered()
    node.start(1, duration=60_000)
    node.kit.run(until=1_000)
    with captured_events() as events:
        node.nm.restart(down_ms=2_000)
    assert not node.nm.containers
    assert any(e["event"] == "nm_shutdown" for e in events)
    node.rm.received.clear()
    node.kit.run(until=4_000)
    (request,) = node.registrations()
    assert request.container_statuses == () and request.running_applications == ()


def test_calls_to_a_down_nm_are_served_after_it_registers() -> None:
    """A StartContainersRequest sent while the NM is down is answered once it is back (NMClient retries)."""
    node = Node(**RECOVERY)
    node.kit.run(until=10)
    node.registered()
    node.nm.restart(down_ms=2_000)
    node.kit.run(until=500)
    cid = node.start(1, duration=1_000)
    node.kit.run(until=1_500)
    assert not [m for m in node.am.messages if isinstance(m, StartContainersResponse)]
    node.kit.run(until=2_500)
    (response,) = [m for m in node.am.messages if isinstance(m, StartContainersResponse)]
    assert response.successfully_started_containers == (cid,)


def test_recovered_paused_container_is_queued_and_resumed() -> None:
    """ContainerScheduler.recoverActiveContainer: a PAUSED container is queued again on restart, and resumed."""
    conf = {
        **RECOVERY,
        keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
        keys.NM_OPPORTUNISTIC_CONTAINERS_USE_PAUSE_FOR_PREEMPTION: "true",
    }
    node = Node(**conf)
    node.kit.run(until=10)
    node.registered()
    cid = ContainerId(ATTEMPT, 1)
    opp = Container(
        id=cid,
        node_id=NodeId("h1"),
        resource=Resource(4096, 1),
        priority=Priority(1),
        execution_type=ExecutionType.OPPORTUNISTIC,
    )
    ctx = ContainerLaunchContext(simulated_duration_ms=20_000)
    start = StartContainersRequest(start_container_requests=(StartContainerRequest(container=opp, launch_context=ctx),))
    node.ref.tell(start, node.am.ref)
    node.kit.run(until=500)
    guaranteed = node.start(2, duration=30_000, mem=4096)
    node.kit.run(until=1_000)
    assert node.nm.container_state(cid) is NMContainerState.PAUSED
    node.nm.restart(down_ms=1_000)
    node.kit.run(until=2_500)
    assert cid in node.nm.container_scheduler.queued_opportunistic
    assert node.nm.container_state(guaranteed) is NMContainerState.RUNNING
    node.kit.run(until=40_000)  # the GUARANTEED one ends at ~30.5 s: the paused one resumes
    assert node.nm.container_state(cid) is NMContainerState.RUNNING


def _restart_run(conf: dict[str, str], down_ms: int = 5_000) -> tuple[object, list[dict]]:
    conf = {**TWO_QUEUES, **conf}
    cluster, builder = small_cluster(conf, nodes=2)
    builder.job("j", queue="a", tasks=[task_spec(8, 40_000)])
    cluster.submit_workload(builder.build())
    cluster.inject({"at_ms": 20_000, "kind": "node_restart", "target": "node1", "down_ms": down_ms})
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    return cluster, events


def test_work_preserving_restart_keeps_every_container() -> None:
    """With recovery the RM keeps the node and its containers (ReconnectNodeTransition with running applications):
    none is lost or killed, the application succeeds in one pass."""
    cluster, events = _restart_run(RECOVERY)
    assert sum(e["event"] == "node_reconnected" for e in events) == 1
    assert cluster.counters.get("containers_lost", 0) == 0
    assert cluster.counters.get("containers_killed", 0) == 0
    (app,) = cluster.applications
    assert app.final_status is FinalApplicationStatus.SUCCEEDED
    assert_containers_conserved(cluster)


def test_restart_without_recovery_loses_the_nodes_containers() -> None:
    """Without recovery the NM kills its containers and the RM removes and re-adds the node: its containers are
    lost to the AM (which runs the tasks again) and the application still succeeds."""
    cluster, events = _restart_run({})
    assert not any(e["event"] == "node_reconnected" for e in events)
    assert cluster.counters["containers_lost"] > 0
    (app,) = cluster.applications
    assert app.final_status is FinalApplicationStatus.SUCCEEDED
    assert_containers_conserved(cluster)


def test_long_downtime_with_recovery_after_expiry_cleans_up_unknown_containers() -> None:
    """Down longer than the NM expiry: the RM lost the node and its containers; the recovered NM's running
    containers are unknown to it and are cleaned up (containerLaunchedOnNode: "unknown container")."""
    conf = {**RECOVERY, keys.RM_NM_EXPIRY_INTERVAL_MS: "10000"}
    cluster, _ = _restart_run(conf, down_ms=30_000)
    assert cluster.counters["nodes_lost"] == 1
    nm = cluster.node_managers["node1"]
    assert not nm.containers
    (app,) = cluster.applications
    assert app.final_status is FinalApplicationStatus.SUCCEEDED
    assert_containers_conserved(cluster)


@pytest.mark.parametrize("down_ms", [None, -1, "5", True])
def test_node_restart_needs_down_ms(down_ms: object) -> None:
    entry = {"at_ms": 1, "kind": "node_restart", "target": "n"}
    if down_ms is not None:
        entry["down_ms"] = down_ms
    with pytest.raises(ConfigurationError, match="fault 0: field 'down_ms'"):
        parse_faults([entry])


def test_cli_node_restart_fault(tmp_path: Path) -> None:
    """``--faults`` takes node_restart; the run finishes and the event log has the restart."""
    host = "node0"  # (sample-nodes.json's first node)
    code = simulate_faults(tmp_path, [{"at_ms": 20_000, "kind": "node_restart", "target": host, "down_ms": 3_000}])
    assert code == 0
    log = (tmp_path / "out" / "events.jsonl").read_text()
    assert '"nm_shutdown"' in log and '"nm_restarted"' in log


def test_no_heartbeat_while_down_in_a_cluster() -> None:
    """In a cluster, the RM hears no heartbeat from the restarting NM while it is down, and hears it again after."""
    cluster, builder = small_cluster({**TWO_QUEUES, **RECOVERY}, nodes=2)
    builder.job("j", queue="a", tasks=[task_spec(2, 30_000)])
    cluster.submit_workload(builder.build())
    cluster.restart_node("node1", at_ms=10_000, down_ms=8_000)
    node_id = cluster.node_managers["node1"].node_id
    cluster.run(until_ms=17_900)
    assert cluster.rm.nodes[node_id].last_heartbeat <= 10_000
    cluster.run(until_ms=20_000)
    assert cluster.rm.nodes[node_id].last_heartbeat >= 18_000


def _localizing_node(**conf: str) -> tuple[Node, ContainerId]:
    """A recovering NM whose containers take 2 s to localize; container 1 (GUARANTEED, or OPPORTUNISTIC with
    ``opportunistic``) starts at 100 ms and the NM goes down at 500 ms for 1 s, while it is still localizing."""
    node = Node(**RECOVERY, **conf)
    node.nm.localization_ms = 2_000
    node.kit.run(until=10)
    node.registered()
    return node, ContainerId(ATTEMPT, 1)


@pytest.mark.parametrize("execution_type", [ExecutionType.GUARANTEED, ExecutionType.OPPORTUNISTIC])
def test_recovered_requested_container_localizes_again_before_it_is_queued(execution_type: ExecutionType) -> None:
    """TestContainerSchedulerRecovery.testRecoverContainerRequested{Guaranteed,Opportunistic}: a container still
    localizing (REQUESTED) when the NM went down is in no queue and holds nothing after the restart; it localizes
    again from the restart and is scheduled (here: started) only when that ends."""
    node, cid = _localizing_node(**{keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10"})
    c = Container(
        id=cid, node_id=NodeId("h1"), resource=Resource(1024, 1), priority=Priority(1), execution_type=execution_type
    )
    ctx = ContainerLaunchContext(simulated_duration_ms=60_000)
    start = StartContainersRequest(start_container_requests=(StartContainerRequest(container=c, launch_context=ctx),))
    node.kit.run(until=100)
    node.ref.tell(start, node.am.ref)
    node.kit.run(until=500)
    node.nm.restart(down_ms=1_000)
    node.kit.run(until=1_600)  # back at 1.5 s
    scheduler = node.nm.container_scheduler
    assert not node.nm.is_down
    assert not scheduler.is_queued(cid) and cid not in scheduler.running
    assert (scheduler.pmem, scheduler.cpu) == (0, 0)
    assert node.nm.container_state(cid) is NMContainerState.SCHEDULED
    node.kit.run(until=3_400)  # the first localization would have ended at 2.1 s: it started over at 1.5 s
    assert node.nm.container_state(cid) is NMContainerState.SCHEDULED
    assert (scheduler.pmem, scheduler.cpu) == (0, 0)
    node.kit.run(until=3_600)
    assert node.nm.container_state(cid) is NMContainerState.RUNNING
    assert (scheduler.pmem, scheduler.cpu) == (1024, 1)
