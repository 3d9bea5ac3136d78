"""TestContainerSchedulerQueuing ported (issue 19 item 11): the NM's ContainerScheduler and GetContainerStatuses.

Hadoop's test NM has 2048 MB and 4 vcores for containers (its ContainersMonitorImpl override) and an opportunistic
queue of 10; its executor sleeps 10 s per container (20 s for one that was paused). The ports use the same node and
simulated run times, and read what Hadoop's test reads: ``getContainerStatuses`` answers (state, sub-state,
diagnostics) and the ContainerScheduler's queue counts. Hadoop's ``ContainerStateTransitionListener`` is read here
from the NM's event log (one event per pause-cycle transition).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._containerscheduler import PAUSED_FOR_GUARANTEED_DIAGNOSTICS
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
    ExecutionType,
    NodeId,
    Priority,
    Resource,
    StartContainersRequest,
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
        self.nm = NodeManager("h1", "/r", Resource(2048, 4), self.kit.probe("rm").ref, conf=conf)
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

    def run(self, until: float) -> None:
        self.kit.run(until=until)

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
