"""TestContainerSchedulerQueuing ported (issue 19 item 11): the NM's ContainerScheduler and GetContainerStatuses.

Hadoop's test NM has 2048 MB and 4 vcores for containers (its ContainersMonitorImpl override) and an opportunistic
queue of 10; its executor sleeps 10 s per container (20 s for one that was paused). The ports use the same node and
simulated run times, and read what Hadoop's test reads: ``getContainerStatuses`` answers (state, sub-state,
diagnostics) and the ContainerScheduler's queue counts. Hadoop's ``ContainerStateTransitionListener`` is read here
from the NM's event log (one event per pause-cycle transition).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._containerscheduler import (
    DEQUEUED_DIAGNOSTICS,
    KILLED_FOR_GUARANTEED_DIAGNOSTICS,
    PAUSED_FOR_GUARANTEED_DIAGNOSTICS,
)
from yarnball.actors._nmstates import RESUMED_DIAGNOSTICS, NMContainerState
from yarnball.actors._nodemanager import NodeManager
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerState,
    ContainerSubState,
    ContainerUpdateRequest,
    ContainerUpdateResponse,
    ContainerUpdateType,
    ExecutionType,
    NodeHeartbeatResponse,
    NodeId,
    Priority,
    Resource,
    StartContainersRequest,
    StopContainersRequest,
    UpdateContainerRequest,
    keys,
)
from yarnball.protocols._containermanagement import (
    ContainerLaunchContext,
    GetContainerStatusesRequest,
    GetContainerStatusesResponse,
    StartContainerRequest,
)
from yarnball.testing import ActorTestKit, captured_events

G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741
ATTEMPT = ApplicationAttemptId(ApplicationId(0, 0), 1)
RUN_MS = 10_000  # the test executor's launchContainer sleep


class HadoopTestNM:
    """TestContainerSchedulerQueuing's NodeManager: 2048 MB / 4 vcores, opportunistic queue length 10."""

    def __init__(self, **extra: str) -> None:
        conf = Configuration({keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10", **extra})
        self.kit = ActorTestKit()
        self.am = self.kit.probe("am")
        self.rm = self.kit.probe("rm")  # never answers: stopped containers stay in the context, as with Hadoop's mock
        self.nm = NodeManager("h1", "/r", Resource(2048, 4), self.rm.ref, conf=conf)
        self.ref = self.kit.spawn(self.nm, "nm-h1")

    def start(self, *specs: tuple[int, int, ExecutionType]) -> None:
        """One StartContainersRequest for ``(container number, memory MB, execution type)`` entries."""
        requests = tuple(
            StartContainerRequest(
                container=Container(
                    id=ContainerId(ATTEMPT, n),
                    node_id=NodeId("h1"),
                    resource=Resource(mem, 1),
                    priority=Priority(1),
                    execution_type=etype,
                ),
                launch_context=ContainerLaunchContext(simulated_duration_ms=RUN_MS),
            )
            for n, mem, etype in specs
        )
        self.ref.tell(StartContainersRequest(start_container_requests=requests), self.am.ref)

    def statuses(self, *numbers: int) -> GetContainerStatusesResponse:
        request = GetContainerStatusesRequest(container_ids=tuple(ContainerId(ATTEMPT, n) for n in numbers))
        response = self.kit.ask(self.ref, request)
        assert isinstance(response, GetContainerStatusesResponse)
        return response

    def stop(self, *numbers: int) -> None:
        """``stopContainers``."""
        self.ref.tell(StopContainersRequest(container_ids=tuple(ContainerId(ATTEMPT, n) for n in numbers)), self.am.ref)

    def update(self, n: int, version: int, execution_type: ExecutionType) -> ContainerUpdateResponse:
        """``updateContainer`` with a container token of ``version`` and ``execution_type`` (the resource unchanged)."""
        kind = (
            ContainerUpdateType.PROMOTE_EXECUTION_TYPE
            if execution_type is G
            else ContainerUpdateType.DEMOTE_EXECUTION_TYPE
        )
        request = UpdateContainerRequest(
            container_version=version, container_id=ContainerId(ATTEMPT, n), container_update_type=kind,
            execution_type=execution_type,
        )  # fmt: skip
        response = self.kit.ask(self.ref, ContainerUpdateRequest(containers_to_update=(request,)))
        assert isinstance(response, ContainerUpdateResponse)
        return response

    def run(self, until: float) -> None:
        self.kit.run(until=until)

    def queued(self) -> int:
        """``getNumQueuedContainers``."""
        return len(self.cs.queued_guaranteed) + len(self.cs.queued_opportunistic)

    @property
    def cs(self) -> Any:
        return self.nm.container_scheduler


def test_testStartMultipleContainers() -> None:
    """One GUARANTEED and one OPPORTUNISTIC container of 1 GB each both run; nothing is queued."""
    node = HadoopTestNM()
    node.start((0, 1024, G), (1, 1024, O))
    node.run(5_000)
    statuses = node.statuses(0, 1).container_statuses
    assert [s.state for s in statuses] == [ContainerState.RUNNING, ContainerState.RUNNING]
    assert len(node.cs.queued_opportunistic) == 0 and len(node.cs.queued_guaranteed) == 0


def test_testQueueMultipleContainers() -> None:
    """A GUARANTEED and an OPPORTUNISTIC container of 3 GB each (more than the node) are both queued, sub-state
    SCHEDULED."""
    node = HadoopTestNM()
    node.start((0, 3072, G), (1, 3072, O))
    node.run(5_000)
    statuses = node.statuses(0, 1).container_statuses
    assert [s.container_sub_state for s in statuses] == [ContainerSubState.SCHEDULED] * 2
    assert len(node.cs.queued_guaranteed) + len(node.cs.queued_opportunistic) == 2
    assert len(node.cs.queued_guaranteed) == 1
    assert len(node.cs.queued_opportunistic) == 1


def test_testStartAndQueueMultipleContainers() -> None:
    """A 2 GB OPPORTUNISTIC container takes the node: it runs, the two 1 GB ones behind it are queued."""
    node = HadoopTestNM()
    node.start((0, 2048, O), (1, 1024, O), (2, 1024, O))
    node.run(5_000)
    (first,) = node.statuses(0).container_statuses
    assert first.container_sub_state is ContainerSubState.RUNNING
    assert len(node.cs.queued_guaranteed) + len(node.cs.queued_opportunistic) == 2
    assert len(node.cs.queued_guaranteed) == 0
    assert len(node.cs.queued_opportunistic) == 2
    # (beyond Hadoop's test, which asks for container 0 only: the queued ones are SCHEDULED)
    queued = node.statuses(1, 2).container_statuses
    assert [s.container_sub_state for s in queued] == [ContainerSubState.SCHEDULED] * 2


def test_testPauseOpportunisticForGuaranteedContainer() -> None:
    """With pause-for-preemption a running 2 GB OPPORTUNISTIC container is paused (Hadoop's diagnostics) for a 2 GB
    GUARANTEED one, queued meanwhile, and resumed when the GUARANTEED one is done; its NM states run
    RUNNING -> PAUSING -> PAUSED -> RESUMING -> RUNNING and it ends with success."""
    node = HadoopTestNM(**{keys.NM_OPPORTUNISTIC_CONTAINERS_USE_PAUSE_FOR_PREEMPTION: "true"})
    opp = ContainerId(ATTEMPT, 0)
    with captured_events() as events:
        node.start((0, 2048, O))
        node.run(1_000)
        assert node.nm.container_state(opp) is NMContainerState.RUNNING
        node.start((1, 2048, G))
        node.run(2_000)
        statuses = {s.container_id.container_id: s for s in node.statuses(0, 1).container_statuses}
        assert PAUSED_FOR_GUARANTEED_DIAGNOSTICS in statuses[0].diagnostics
        assert statuses[1].state is ContainerState.RUNNING
        assert statuses[0].container_sub_state is ContainerSubState.PAUSED  # (beyond Hadoop's test: the sub-state)
        assert len(node.cs.queued_opportunistic) == 1
        assert len(node.cs.queued_guaranteed) == 0
        node.run(40_000)
    assert node.nm.container_state(opp) is None  # DONE, and forgotten
    cycle = [e["event"] for e in events if e["event"].startswith("container_") and e.get("container") == str(opp)]
    assert cycle == ["container_pausing", "container_paused", "container_resuming", "container_resumed"]
    (done,) = [s for s in node.nm._changes if s.container_id == opp and s.state is ContainerState.COMPLETE]
    assert done.exit_status == ContainerExitStatus.SUCCESS
    assert done.diagnostics == f"{PAUSED_FOR_GUARANTEED_DIAGNOSTICS}\n{RESUMED_DIAGNOSTICS}\n"


# -- the ports that read stopped containers' statuses (NodeManager.status_updater: a DONE container stays in the
# NM context until the RM has its completion; this NM's RM never answers) ---------------------------------------


def by_number(node: HadoopTestNM, *numbers: int) -> dict[int, Any]:
    return {s.container_id.container_id: s for s in node.statuses(*numbers).container_statuses}


def test_testStartOpportunistcsWhenOppQueueIsFull() -> None:
    """A GUARANTEED container takes the node; of 11 OPPORTUNISTIC ones, 10 (the queue's length) are queued and the
    last is killed with Hadoop's "queue is full" diagnostics, which getContainerStatuses still answers."""
    node = HadoopTestNM()
    max_opp_queue_length = 10
    node.start((0, 2048, G), *((i, 2048, O) for i in range(1, max_opp_queue_length + 2)))
    node.run(5_000)
    statuses = by_number(node, *range(max_opp_queue_length + 2))
    assert len(statuses) == max_opp_queue_length + 2  # (every one answered, the killed one too)
    for n, status in statuses.items():
        if n == 0:
            assert status.container_sub_state is ContainerSubState.RUNNING
        elif n == max_opp_queue_length + 1:
            assert "Opportunistic container queue is full" in status.diagnostics
        else:
            assert status.container_sub_state is ContainerSubState.SCHEDULED
    assert node.queued() == max_opp_queue_length
    assert len(node.cs.queued_guaranteed) == 0
    assert len(node.cs.queued_opportunistic) == max_opp_queue_length  # and metrics.getQueuedOpportunisticContainers
    assert node.cs.metrics.rejected == 1  # (beyond Hadoop's test: the scheduler counted the rejection)


def test_testKillOpportunisticForGuaranteedContainer() -> None:
    """Two 2 GB OPPORTUNISTIC containers and a 2 GB GUARANTEED one: the running OPPORTUNISTIC one is killed for the
    GUARANTEED one, the other waits; it runs once the GUARANTEED one is done."""
    node = HadoopTestNM()
    node.start((0, 2048, O), (1, 2048, O), (2, 2048, G))
    node.run(5_000)  # container 0 DONE, and 5 s
    statuses = by_number(node, 0, 1, 2)
    assert KILLED_FOR_GUARANTEED_DIAGNOSTICS.rstrip(".") in statuses[0].diagnostics
    assert statuses[1].container_sub_state is ContainerSubState.SCHEDULED
    assert statuses[2].container_sub_state is ContainerSubState.RUNNING
    assert len(node.cs.queued_opportunistic) == 1
    assert len(node.cs.queued_guaranteed) == 0
    node.run(15_000)  # container 2 DONE (10 s run), and 5 s
    (status1,) = node.statuses(1).container_statuses
    assert status1.state is ContainerState.RUNNING
    assert len(node.cs.queued_opportunistic) == 0
    assert len(node.cs.queued_guaranteed) == 0


def test_testQueueShedding() -> None:
    """A GUARANTEED container takes the node, six 512 MB OPPORTUNISTIC ones queue; a queuing limit of 2 sheds the
    four newest with Hadoop's "De-queued" diagnostics."""
    node = HadoopTestNM()
    node.start((0, 2048, G))
    node.start(*((i, 512, O) for i in range(1, 7)))
    node.run(1_000)
    assert node.queued() == 6
    assert len(node.cs.queued_opportunistic) == 6
    assert len(node.cs.queued_guaranteed) == 0
    node.cs.update_queuing_limit(2)  # containerScheduler.updateQueuingLimit(maxQueueLength 2)
    node.run(2_000)
    assert node.queued() == 2
    statuses = node.statuses(*range(1, 7)).container_statuses
    dequeued = queued = 0
    for status in statuses:
        if status.execution_type is O:
            if DEQUEUED_DIAGNOSTICS.rstrip(".") in status.diagnostics:
                dequeued += 1
            if status.container_sub_state is ContainerSubState.SCHEDULED:
                queued += 1
    assert dequeued == 4
    assert queued == 2
    assert len(node.cs.queued_opportunistic) == 2
    assert len(node.cs.queued_guaranteed) == 0


def test_testContainerDeQueuedAfterAMKill() -> None:
    """Stopping one of two queued OPPORTUNISTIC containers takes it out of the queue."""
    node = HadoopTestNM()
    node.start((0, 2048, G))
    node.start((1, 512, O), (2, 512, O))
    node.run(1_000)
    assert node.queued() == 2
    node.stop(2)
    node.run(2_000)
    assert node.queued() == 1


def killed_for_guaranteed(node: HadoopTestNM, count: int) -> int:
    statuses = node.statuses(*range(count)).container_statuses
    return sum(1 for s in statuses if KILLED_FOR_GUARANTEED_DIAGNOSTICS.rstrip(".") in s.diagnostics)


def test_testKillMultipleOpportunisticContainers() -> None:
    """Three 512 MB OPPORTUNISTIC containers run; a 1500 MB GUARANTEED one needs two of them killed."""
    node = HadoopTestNM()
    node.start((0, 512, O), (1, 512, O), (2, 512, O))
    node.start((3, 1500, G))
    node.run(15_000)  # container 0 DONE (its 10 s run: the newest two were the victims), and 5 s
    assert node.nm.container_state(ContainerId(ATTEMPT, 0)) is None
    assert killed_for_guaranteed(node, 4) == 2
    assert len(node.cs.queued_opportunistic) == 0
    assert len(node.cs.queued_guaranteed) == 0


def test_testKillOnlyRequiredOpportunisticContainers() -> None:
    """Four 512 MB OPPORTUNISTIC containers fill the node's 4 vcores; two 512 MB GUARANTEED ones kill exactly two."""
    node = HadoopTestNM()
    node.start(*((i, 512, O) for i in range(4)))
    node.start((4, 512, G), (5, 512, G))
    node.run(30_000)  # every container DONE
    assert all(node.nm.container_state(ContainerId(ATTEMPT, i)) is None for i in range(6))
    assert killed_for_guaranteed(node, 6) == 2
    assert len(node.cs.queued_opportunistic) == 0
    assert len(node.cs.queued_guaranteed) == 0


def test_testStopQueuedContainer() -> None:
    """One GUARANTEED container runs, two OPPORTUNISTIC ones queue; the first queued one is stopped: it answers
    sub-state DONE, the other stays SCHEDULED."""
    node = HadoopTestNM()
    node.start((0, 2048, G), (1, 512, O), (2, 512, O))
    node.run(2_000)
    sub_states = [s.container_sub_state for s in node.statuses(0, 1, 2).container_statuses]
    assert sub_states.count(ContainerSubState.RUNNING) == 1
    assert sub_states.count(ContainerSubState.SCHEDULED) == 2
    assert len(node.cs.queued_opportunistic) == 2
    assert len(node.cs.queued_guaranteed) == 0
    node.stop(1)
    node.run(4_000)
    by_sub_state = {s.container_sub_state: s for s in node.statuses(0, 1, 2).container_statuses}
    assert len(node.cs.queued_opportunistic) == 1
    assert by_sub_state[ContainerSubState.RUNNING].container_id == ContainerId(ATTEMPT, 0)
    assert by_sub_state[ContainerSubState.DONE].container_id == ContainerId(ATTEMPT, 1)
    assert by_sub_state[ContainerSubState.SCHEDULED].container_id == ContainerId(ATTEMPT, 2)


def test_testPromotionOfOpportunisticContainers() -> None:
    """A 2 GB OPPORTUNISTIC container runs, a 1 GB one queues; promoting the queued one kills the running one to
    make room, and the promoted one runs GUARANTEED."""
    node = HadoopTestNM()
    node.start((0, 2048, O), (1, 1024, O))
    node.run(5_000)
    (status0,) = node.statuses(0).container_statuses
    assert status0.container_sub_state is ContainerSubState.RUNNING
    assert node.queued() == 1
    assert len(node.cs.queued_guaranteed) == 0
    assert len(node.cs.queued_opportunistic) == 1
    response = node.update(1, 1, G)
    assert len(response.successfully_updated_containers) == 1
    assert len(response.failed_requests) == 0
    node.run(6_000)
    (status0,) = node.statuses(0).container_statuses  # waitForContainerState(0, COMPLETE)
    assert status0.state is ContainerState.COMPLETE
    (status1,) = node.statuses(1).container_statuses  # waitForContainerState(1, RUNNING)
    assert status1.state is ContainerState.RUNNING
    statuses = node.statuses(0).container_statuses
    assert len(statuses) == 1
    for status in statuses:
        if status.state is ContainerState.RUNNING:
            assert status.execution_type is G
    assert status1.execution_type is G  # (the check Hadoop's loop means, on the promoted container)
    assert node.queued() == 0
    assert len(node.cs.queued_opportunistic) == 0
    assert len(node.cs.queued_guaranteed) == 0


def test_testContainerUpdateExecTypeGuaranteedToOpportunistic() -> None:
    """A running GUARANTEED container demoted by an update runs on as OPPORTUNISTIC."""
    node = HadoopTestNM()
    node.start((0, 512, G))
    node.run(1_000)
    assert node.nm.container_state(ContainerId(ATTEMPT, 0)) is NMContainerState.RUNNING
    response = node.update(0, 1, O)
    assert len(response.successfully_updated_containers) == 1
    assert response.failed_requests == ()
    statuses = node.statuses(0).container_statuses
    assert len(statuses) == 1
    assert statuses[0].state is ContainerState.RUNNING and statuses[0].execution_type is O


def test_stopped_container_answered_until_the_rm_has_its_completion() -> None:
    """NodeStatusUpdaterImpl.removeOrTrackCompletedContainersFromContext: a stopped container stays in the NM context
    (its final status answered: exit status, diagnostics, sub-state DONE) until the RM has its completion; here, the
    response to a heartbeat sent after it stopped (one already on its way when it stopped does not count)."""
    node = HadoopTestNM()
    node.start((0, 1024, G))
    node.run(1_000)
    node.stop(0)
    node.run(2_000)
    (status,) = node.statuses(0).container_statuses
    assert status.state is ContainerState.COMPLETE
    assert status.container_sub_state is ContainerSubState.DONE
    assert status.exit_status == ContainerExitStatus.KILLED_BY_APPMASTER
    assert "killed by the ApplicationMaster" in status.diagnostics
    node.ref.tell(NodeHeartbeatResponse(response_id=1), node.rm.ref)  # answers a heartbeat sent before the stop
    node.run(2_500)
    assert len(node.statuses(0).container_statuses) == 1
    node.ref.tell(NodeHeartbeatResponse(response_id=2), node.rm.ref)  # the report of the completion is answered
    node.run(3_000)
    response = node.statuses(0)
    assert response.container_statuses == ()
    assert [f.diagnostics for f in response.failed_requests] == [
        f"Container {ContainerId(ATTEMPT, 0)} is not handled by this NodeManager"
    ]


def test_acknowledged_stopped_containers_do_not_pile_up() -> None:
    """The stopped containers whose completion the RM has do not accumulate in the NM context (they are dropped in
    bulk once the map outgrows its limit), while an unacknowledged one is still answered."""
    node = HadoopTestNM()
    for i in range(200):
        node.start((i, 256, G))
        node.run(100 * i + 50)
        node.stop(i)
        node.ref.tell(NodeHeartbeatResponse(response_id=i + 1), node.rm.ref)
        node.run(100 * i + 90)
    assert len(node.nm.status_updater.recently_stopped) <= 32
    (last,) = node.statuses(199).container_statuses  # stopped at response id 199: acknowledged by 201, not 200
    assert last.container_sub_state is ContainerSubState.DONE
    assert node.statuses(150).container_statuses == ()
