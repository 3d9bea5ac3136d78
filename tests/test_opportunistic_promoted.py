"""Promoted containers on the RM, over tests/mockrm.py."""

from __future__ import annotations

from tests.mockrm import GB, MockAM, MockNM, MockRM
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
    keys,
)

G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741
CONF = {
    keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
    keys.NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS: "100",
}
STATUS = OpportunisticContainersStatus(wait_queue_length=0, opport_queue_capacity=1000)


def one_node() -> tuple[MockRM, MockNM, MockAM]:
    """One 4 GB node running the AM (1 GB) of an application, the node monitor sorted."""
    rm = MockRM(CONF)
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
