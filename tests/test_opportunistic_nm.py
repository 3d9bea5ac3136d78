"""The NodeManager's ContainerScheduler: queueing, FIFO starts, reclaiming, shedding, updates and metrics."""

from __future__ import annotations

from typing import Any

import pytest

from yarnball.actors._containerscheduler import (
    DEQUEUED_DIAGNOSTICS,
    KILLED_FOR_GUARANTEED_DIAGNOSTICS,
    QUEUE_FULL_DIAGNOSTICS,
)
from yarnball.actors._nodemanager import NodeManager
from yarnball.errors import ConfigurationError
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerState,
    ContainerUpdateRequest,
    ContainerUpdateResponse,
    ContainerUpdateType,
    ExecutionType,
    NodeHeartbeatResponse,
    NodeId,
    Priority,
    Resource,
    StartContainersRequest,
    UpdateContainerRequest,
    keys,
)
from yarnball.protocols._containermanagement import ContainerLaunchContext, StartContainerRequest
from yarnball.protocols._resourcetracker import ContainerQueuingLimit
from yarnball.testing import ActorTestKit

G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741
ATTEMPT = ApplicationAttemptId(ApplicationId(1, 1), 1)


class Node:
    """A NodeManager of 4 GB / 4 vcores with an AM probe; the RM is a probe that never answers."""

    def __init__(self, queue_length: int = 10, **extra: str) -> None:
        conf = Configuration({keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: str(queue_length), **extra})
        self.kit = ActorTestKit()
        rm = self.kit.probe("rm")
        self.am = self.kit.probe("am")
        self.nm = NodeManager("h1", "/r", Resource(4096, 4), rm.ref, conf=conf)
        self.ref = self.kit.spawn(self.nm, "nm-h1")

    def start(self, n: int, etype: ExecutionType, duration: int = 10_000, mem: int = 1024, **env: str) -> ContainerId:
        cid = ContainerId(ATTEMPT, n)
        c = Container(
            id=cid, node_id=NodeId("h1"), resource=Resource(mem, 1), priority=Priority(1), execution_type=etype
        )
        ctx = ContainerLaunchContext(simulated_duration_ms=duration, environment=tuple(env.items()))
        self.ref.tell(
            StartContainersRequest(start_container_requests=(StartContainerRequest(container=c, launch_context=ctx),)),
            self.am.ref,
        )
        return cid

    def run(self, until: float) -> None:
        self.kit.run(until=until)

    def state(self, cid: ContainerId) -> Any:
        entry = self.nm.containers.get(cid)
        return None if entry is None else entry.state

    def completed(self) -> dict[ContainerId, Any]:
        return {s.container_id: s for s in self.nm._changes if s.state is ContainerState.COMPLETE}

    @property
    def cs(self) -> Any:
        return self.nm.container_scheduler


def test_opportunistic_rejected_at_queue_length_zero_with_hadoop_diagnostic() -> None:
    """At max-queue-length 0 (Hadoop's default) an OPPORTUNISTIC container is killed with -108, even on an idle node."""
    node = Node(queue_length=0)
    cid = node.start(1, O)
    node.run(10)
    status = node.completed()[cid]
    assert status.exit_status == ContainerExitStatus.KILLED_BY_CONTAINER_SCHEDULER == -108
    assert status.diagnostics == QUEUE_FULL_DIAGNOSTICS == "Opportunistic container queue is full."


def test_guaranteed_starts_without_check_at_queue_length_zero() -> None:
    """With max-queue-length 0 GUARANTEED containers are force-started, even beyond the node's size."""
    node = Node(queue_length=0)
    cids = [node.start(i, G, mem=2048) for i in range(3)]  # 6 GB on a 4 GB node
    node.run(10)
    assert [node.state(c) for c in cids] == [ContainerState.RUNNING] * 3


def test_opportunistic_waits_in_queue_when_node_full() -> None:
    """An OPPORTUNISTIC container that does not fit stays SCHEDULED and starts when resources free up."""
    node = Node()
    for i in range(4):
        node.start(i, O, duration=5_000)
    late = node.start(9, O, duration=5_000)
    node.run(10)
    assert node.state(late) is ContainerState.SCHEDULED
    assert node.cs.status().queued_opport_containers == 1
    node.run(5_050)
    assert node.state(late) is ContainerState.RUNNING


def test_queued_containers_start_in_fifo_order() -> None:
    """Queued containers start in arrival order."""
    node = Node()
    for i in range(4):
        node.start(i, O, duration=1_000)
    queued = [node.start(10 + i, O, duration=50_000) for i in range(4)]
    node.run(10)
    node.run(1_010)
    starts = sorted(queued, key=lambda c: node.nm.containers[c].start_seq)
    assert starts == queued


def test_queue_length_bounds_admission() -> None:
    """Beyond max-queue-length queued OPPORTUNISTIC containers, new ones are rejected."""
    node = Node(queue_length=2)
    for i in range(4):
        node.start(i, O, duration=50_000)
    q1, q2, q3 = (node.start(10 + i, O) for i in range(3))
    node.run(10)
    assert node.state(q1) is node.state(q2) is ContainerState.SCHEDULED
    assert node.completed()[q3].diagnostics == QUEUE_FULL_DIAGNOSTICS
    assert node.cs.metrics.rejected == 1


def test_guaranteed_kills_newest_opportunistic_first() -> None:
    """A GUARANTEED container with no room kills running OPPORTUNISTIC containers, most recently started first."""
    node = Node()
    olds = [node.start(i, O, duration=50_000) for i in range(4)]
    node.run(10)
    g = node.start(20, G, mem=2048)
    node.run(20)
    killed = node.completed()
    assert set(killed) == {olds[3], olds[2]}
    assert all(s.diagnostics == KILLED_FOR_GUARANTEED_DIAGNOSTICS for s in killed.values())
    assert all(s.exit_status == -108 for s in killed.values())
    assert node.state(g) is ContainerState.RUNNING


def test_guaranteed_never_kills_guaranteed() -> None:
    """Running GUARANTEED containers are never victims; the new one waits in the queue."""
    node = Node()
    for i in range(4):
        node.start(i, G, duration=50_000)
    g = node.start(20, G)
    node.run(20)
    assert node.completed() == {}
    assert node.state(g) is ContainerState.SCHEDULED


def test_shedding_drops_newest_queued_beyond_limit() -> None:
    """A queuing limit from the RM kills the newest queued OPPORTUNISTIC containers beyond it."""
    node = Node()
    for i in range(4):
        node.start(i, O, duration=50_000)
    queued = [node.start(10 + i, O) for i in range(5)]
    node.run(10)
    node.ref.tell(NodeHeartbeatResponse(container_queuing_limit=ContainerQueuingLimit(max_queue_length=2)), node.am.ref)
    node.run(20)
    shed = node.completed()
    assert set(shed) == set(queued[2:])
    assert all(s.diagnostics == DEQUEUED_DIAGNOSTICS for s in shed.values())
    assert node.cs.metrics.shed == 3


def test_queuing_limit_minus_one_sheds_nothing() -> None:
    """A limit of -1 (no limit) keeps every queued container."""
    node = Node()
    for i in range(4):
        node.start(i, O, duration=50_000)
    for i in range(3):
        node.start(10 + i, O)
    node.run(10)
    node.cs.update_queuing_limit(-1)
    node.run(20)
    assert node.completed() == {}


def test_metrics_count_running_and_queued_of_each_type() -> None:
    """The status reports running and queued containers of each type, and the opportunistic resources used."""
    node = Node()
    node.start(1, G, duration=50_000)
    node.start(2, O, duration=50_000, mem=2048)
    node.start(3, O, duration=50_000, mem=2048)
    node.run(10)
    status = node.cs.status()
    assert node.cs.metrics.running_guaranteed == 1
    assert status.running_opport_containers == 1
    assert status.opport_memory_used == 2048
    assert status.queued_opport_containers == 1
    assert status.wait_queue_length == 1
    assert status.opport_queue_capacity == 10


def test_promotion_through_update_container_request() -> None:
    """A promoted running container becomes GUARANTEED (no longer a victim); the version must increase."""
    node = Node()
    olds = [node.start(i, O, duration=50_000) for i in range(4)]
    node.run(10)
    update = UpdateContainerRequest(
        container_version=1,
        container_id=olds[3],
        container_update_type=ContainerUpdateType.PROMOTE_EXECUTION_TYPE,
        execution_type=G,
    )
    response = node.kit.ask(node.ref, ContainerUpdateRequest(containers_to_update=(update,)))
    assert isinstance(response, ContainerUpdateResponse) and response.successfully_updated_containers == (olds[3],)
    assert node.nm.containers[olds[3]].container.execution_type is G
    node.start(20, G, mem=2048)
    node.run(30)
    assert set(node.completed()) == {olds[2], olds[1]}  # the promoted newest one is spared
    assert node.cs.metrics.running_opportunistic == 1
    assert node.cs.metrics.running_guaranteed == 2


def test_promoting_a_queued_container_moves_it_to_the_guaranteed_queue() -> None:
    """A queued OPPORTUNISTIC container promoted to GUARANTEED reclaims room from running OPPORTUNISTIC ones."""
    node = Node()
    [node.start(i, O, duration=50_000) for i in range(4)]
    q = node.start(10, O, duration=50_000)
    node.run(10)
    node.nm._update_container(
        UpdateContainerRequest(
            container_version=1, container_id=q, container_update_type=ContainerUpdateType.PROMOTE_EXECUTION_TYPE
        )
    )
    node.run(20)
    assert node.state(q) is ContainerState.RUNNING
    assert len(node.completed()) == 1


def test_demotion_makes_a_running_container_a_victim() -> None:
    """A demoted GUARANTEED container can then be reclaimed for a new GUARANTEED one."""
    node = Node()
    cids = [node.start(i, G, duration=50_000) for i in range(4)]
    node.run(10)
    error = node.nm._update_container(
        UpdateContainerRequest(
            container_version=1, container_id=cids[0], container_update_type=ContainerUpdateType.DEMOTE_EXECUTION_TYPE
        )
    )
    assert error is None
    node.start(20, G)
    node.run(20)
    assert set(node.completed()) == {cids[0]}


@pytest.mark.parametrize(
    ("version", "kind", "target", "expected"),
    [
        (0, ContainerUpdateType.PROMOTE_EXECUTION_TYPE, G, "has update version [0] >= requested version [0]"),
        (1, ContainerUpdateType.INCREASE_RESOURCE, None, "needs the target resource"),
        (1, ContainerUpdateType.PROMOTE_EXECUTION_TYPE, O, "needs target execution type GUARANTEED"),
    ],
)
def test_malformed_update_container_request_rejected(
    version: int, kind: ContainerUpdateType, target: Any, expected: str
) -> None:
    """A stale version, a resource change without its target or a promotion to OPPORTUNISTIC is refused and the NM
    keeps running."""
    node = Node()
    cid = node.start(1, O, duration=50_000)
    node.run(10)
    update = UpdateContainerRequest(
        container_version=version, container_id=cid, container_update_type=kind, execution_type=target
    )
    response = node.kit.ask(node.ref, ContainerUpdateRequest(containers_to_update=(update,)))
    assert response.successfully_updated_containers == ()
    assert expected in response.failed_requests[0].diagnostics
    assert node.nm.containers[cid].container.execution_type is O


def test_update_of_unknown_container_rejected() -> None:
    """An update for a container the NM does not have is refused with Hadoop's wording."""
    node = Node()
    update = UpdateContainerRequest(
        container_version=1,
        container_id=ContainerId(ATTEMPT, 99),
        container_update_type=ContainerUpdateType.PROMOTE_EXECUTION_TYPE,
    )
    response = node.kit.ask(node.ref, ContainerUpdateRequest(containers_to_update=(update,)))
    assert "is not handled by this NodeManager" in response.failed_requests[0].diagnostics


def test_pause_instead_of_kill_resumes_later() -> None:
    """With use-pause-for-preemption a victim is paused, not killed, and resumes (finishing later) when room frees."""
    node = Node(**{keys.NM_OPPORTUNISTIC_CONTAINERS_USE_PAUSE_FOR_PREEMPTION: "true"})
    olds = [node.start(i, O, duration=10_000) for i in range(4)]
    node.run(1_000)
    node.start(20, G, duration=3_000)
    node.run(1_010)
    assert node.completed() == {}
    assert node.nm.containers[olds[3]].paused
    node.run(10_500)
    assert olds[3] in node.nm.containers  # paused for ~3 s, so still running past 10 s
    node.run(20_000)
    assert node.completed()[olds[3]].exit_status == ContainerExitStatus.SUCCESS


def test_shortest_task_first_reorders_the_queue() -> None:
    """Under SHORTEST_TASK_FIRST the queued container with the shortest expected run starts first."""
    node = Node(**{keys.NM_OPPORTUNISTIC_QUEUE_ORDER: "SHORTEST_TASK_FIRST"})
    for i in range(4):
        node.start(i, O, duration=1_000)
    long_ = node.start(10, O, duration=90_000)
    short = node.start(11, O, duration=2_000)
    node.run(10)
    node.run(1_005)
    assert node.nm.containers[short].start_seq < node.nm.containers[long_].start_seq


def test_closest_to_completion_reorders_the_queue() -> None:
    """Under CLOSEST_TO_COMPLETION containers of the application with fewest remaining tasks start first."""
    node = Node(**{keys.NM_OPPORTUNISTIC_QUEUE_ORDER: "CLOSEST_TO_COMPLETION"})
    for i in range(4):
        node.start(i, O, duration=1_000)
    big = node.start(10, O, YARNBALL_APP_REMAINING_TASKS="500")
    small = node.start(11, O, YARNBALL_APP_REMAINING_TASKS="3")
    node.run(10)
    node.run(1_005)
    assert node.nm.containers[small].start_seq < node.nm.containers[big].start_seq


def test_fewest_kills_policy_kills_one_big_container_sparing_small_ones() -> None:
    """FEWEST_KILLS reclaims with one kill where LIFO would kill two small containers."""
    results = {}
    for policy in ("LIFO", "FEWEST_KILLS"):
        node = Node(**{keys.NM_OPPORTUNISTIC_KILL_POLICY: policy})
        big = node.start(1, O, duration=50_000, mem=2048)
        node.start(2, O, duration=50_000)
        node.start(3, O, duration=50_000)
        node.run(10)
        node.start(20, G, mem=2048)
        node.run(20)
        results[policy] = set(node.completed())
        if policy == "FEWEST_KILLS":
            assert results[policy] == {big}
    assert len(results["LIFO"]) == 2


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (keys.NM_OPPORTUNISTIC_QUEUE_ORDER, "RANDOM"),
        (keys.NM_OPPORTUNISTIC_KILL_POLICY, "OLDEST"),
        (keys.NM_OPPORTUNISTIC_CONTAINERS_QUEUE_POLICY, "BY_MAGIC"),
        (keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH, "ten"),
        (keys.NM_VMEM_PMEM_RATIO, "0.5"),
    ],
)
def test_invalid_nm_config_named_by_key(key: str, value: str) -> None:
    """A bad NodeManager queue setting is a ConfigurationError naming the key."""
    with pytest.raises(ConfigurationError, match=key.replace(".", r"\.")):
        Node(**{key: value})


def test_default_node_starts_guaranteed_without_keeping_queues() -> None:
    """At queue length 0 GUARANTEED containers are counted but no per-node queue or running set is allocated."""
    from yarnball.actors._containerscheduler import _EMPTY

    node = Node(queue_length=0)
    first = node.start(1, G, duration=1_000)
    node.start(2, G, duration=50_000)
    node.run(10)
    assert node.cs.metrics.running_guaranteed == 2
    assert node.cs.running is _EMPTY and node.cs.queued_guaranteed is _EMPTY
    node.run(2_000)
    assert node.state(first) is None and node.cs.metrics.running_guaranteed == 1


def test_shared_empty_queue_is_never_written() -> None:
    """After queueing, reclaiming, pausing and promoting, the shared empty mapping is still empty."""
    from yarnball.actors._containerscheduler import _EMPTY

    node = Node(**{keys.NM_OPPORTUNISTIC_CONTAINERS_USE_PAUSE_FOR_PREEMPTION: "true"})
    for i in range(5):
        node.start(i, O, duration=5_000)
    node.start(20, G, duration=1_000)
    node.run(20_000)
    assert _EMPTY == {}
    assert node.cs.running is not _EMPTY
