"""A promoted container is the CapacityScheduler's (``ContainerUpdateContext.swapContainer``), over tests/mockrm.py."""

from __future__ import annotations

from tests.mockrm import GB, OPPORTUNISTIC_CONF, G, MockAM, MockNM, MockRM, O
from yarnball.protocols import (
    ContainerId,
    ContainerState,
    ContainerStatus,
    ContainerUpdateType,
    ExecutionType,
    ExecutionTypeRequest,
    OpportunisticContainersStatus,
    Priority,
    Resource,
    ResourceRequest,
    UpdateContainerRequest,
)

STATUS = OpportunisticContainersStatus(wait_queue_length=0, opport_queue_capacity=1000)


def one_node() -> tuple[MockRM, MockNM, MockAM]:
    """One 4 GB node running the AM (1 GB) of an application, the node monitor sorted."""
    rm = MockRM(OPPORTUNISTIC_CONF)
    nm = rm.register_node("h1:1234", 4 * GB, 4)
    nm.opportunistic_status = STATUS
    am = rm.launch_and_register_am(rm.submit_app(1 * GB), nm)
    nm.heartbeat()
    rm.advance(1_000)
    return rm, nm, am


def opportunistic(am: MockAM, n: int) -> list[ContainerId]:
    ask = ResourceRequest(
        priority=Priority(1), capability=Resource(1 * GB, 1), resource_name="*", num_containers=n,
        execution_type_request=ExecutionTypeRequest(execution_type=O, enforce_execution_type=True),
    )  # fmt: skip
    return [c.id for c in am.allocate(asks=(ask,)).allocated_containers]


def change_type(version: int, cid: ContainerId, target: ExecutionType) -> UpdateContainerRequest:
    kind = ContainerUpdateType.PROMOTE_EXECUTION_TYPE if target is G else ContainerUpdateType.DEMOTE_EXECUTION_TYPE
    return UpdateContainerRequest(
        container_version=version, container_id=cid, container_update_type=kind, execution_type=target
    )


def state(cid: ContainerId, s: ContainerState) -> ContainerStatus:
    return ContainerStatus(container_id=cid, state=s, exit_status=0)


def used_mb(rm: MockRM) -> int:
    return int(rm.queue("default").used_m)


def test_promoted_container_leaves_the_service_for_the_scheduler() -> None:
    """After promotion the scheduler holds the container under its own id (RUNNING), the service no more."""
    rm, nm, am = one_node()
    (cid,) = opportunistic(am, 1)
    nm.heartbeat(state(cid, ContainerState.RUNNING))
    am.allocate(updates=(change_type(0, cid, G),))
    nm.heartbeat()  # the scheduler allocates the promotion on the node
    assert [u.container.id for u in am.allocate().updated_containers] == [cid]
    service = rm.rm.opportunistic
    assert service is not None and cid not in service.containers
    assert rm.scheduler.container_state(cid) == "RUNNING"
    assert used_mb(rm) == 2 * GB


def test_container_promoted_before_it_starts_is_acquired_then_running() -> None:
    """Promoted while the NM has not started it: ACQUIRED in the scheduler, RUNNING once the NM reports it
    (TestOpportunisticContainerAllocatorAMService.testContainerPromoteAndDemoteBeforeContainerStart's ACQUIRED)."""
    rm, nm, am = one_node()
    (cid,) = opportunistic(am, 1)
    am.allocate(updates=(change_type(0, cid, G),))
    nm.heartbeat()
    assert len(am.allocate().updated_containers) == 1
    assert rm.scheduler.container_state(cid) == "ACQUIRED"
    nm.heartbeat(state(cid, ContainerState.RUNNING))
    assert rm.scheduler.container_state(cid) == "RUNNING"


def test_promotion_allocated_as_the_container_completes_is_given_back() -> None:
    """The heartbeat that reports the container COMPLETE also allocates its promotion (its NODE_UPDATE runs before
    the service hears of the completion): the temporary container is released (addToNewlyAllocatedContainers'
    tempContainerToKill), the AM gets the completion and no update, and the queue is left with the AM only.
    Failed before: the scheduler kept the promoted container for good, its application never finished."""
    rm, nm, am = one_node()
    (cid,) = opportunistic(am, 1)
    nm.heartbeat(state(cid, ContainerState.RUNNING))
    am.allocate(updates=(change_type(0, cid, G),))
    nm.heartbeat(state(cid, ContainerState.COMPLETE))
    response = am.allocate()
    assert [s.container_id for s in response.completed_container_statuses] == [cid]
    assert response.updated_containers == ()
    assert rm.scheduler.container_state(cid) is None
    assert used_mb(rm) == 1 * GB


def test_rm_side_release_keeps_completions_for_the_am() -> None:
    """A GUARANTEED container completes in the heartbeat that also allocates (and releases) the promotion of an
    OPPORTUNISTIC container that completed with it: the AM still hears of both. Failed before: the RM released the
    temporary container through an allocate of its own, whose pull took the GUARANTEED completion away."""
    rm, nm, am = one_node()
    am.ask(1 * GB)
    nm.heartbeat()
    guaranteed = am.allocate().allocated_containers
    assert len(guaranteed) == 1
    g = guaranteed[0].id
    nm.launched(g)
    (o,) = opportunistic(am, 1)
    nm.heartbeat(state(o, ContainerState.RUNNING))
    am.allocate(updates=(change_type(0, o, G),))
    nm.heartbeat(state(g, ContainerState.COMPLETE), state(o, ContainerState.COMPLETE))
    completed = {s.container_id for s in am.allocate().completed_container_statuses}
    assert completed == {g, o}
    assert used_mb(rm) == 1 * GB


def test_demoted_then_promoted_again_container_completion_reaches_the_am() -> None:
    """Promote, demote, promote again, complete: the AM hears of the completion (the demotion hid the container's
    scheduler-side release from the AM, and only that)."""
    rm, nm, am = one_node()
    (cid,) = opportunistic(am, 1)
    nm.heartbeat(state(cid, ContainerState.RUNNING))
    am.allocate(updates=(change_type(0, cid, G),))
    nm.heartbeat()
    assert [u.container.version for u in am.allocate().updated_containers] == [1]
    response = am.allocate(updates=(change_type(1, cid, O),))
    assert [(u.container.execution_type, u.container.version) for u in response.updated_containers] == [(O, 2)]
    assert response.completed_container_statuses == ()  # the scheduler's release of it is not a completion
    assert used_mb(rm) == 1 * GB
    am.allocate(updates=(change_type(2, cid, G),))
    nm.heartbeat()
    assert [u.container.version for u in am.allocate().updated_containers] == [3]
    assert used_mb(rm) == 2 * GB
    nm.heartbeat(state(cid, ContainerState.COMPLETE))
    assert [s.container_id for s in am.allocate().completed_container_statuses] == [cid]
    assert used_mb(rm) == 1 * GB
