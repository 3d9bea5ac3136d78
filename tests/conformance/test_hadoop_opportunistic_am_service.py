"""Hadoop's TestOpportunisticContainerAllocatorAMService, ported over tests/mockrm.py (a real RM with the
OpportunisticContainerAllocatorAMService in front of its ApplicationMasterService, NMs and AMs driven by hand).

Hadoop's ``createAndStartRM``: the CapacityScheduler, opportunistic allocation on, nodes sorted every 100 ms.
``MockNM("h1:1234", 4096)`` has 4 vcores (4096 * 8 / 8192). The Hadoop test stubs each RMNode's
OpportunisticContainersStatus (wait time -1, queue length 100) and hands NODE_ADDED / NODE_UPDATE to the service
itself; here the NMs report it in every heartbeat, as a real NM does, with a queue capacity of 1000: the centralized
allocator admits a container on a node only while its queue has room (``compareAndIncrement``), and Hadoop's
mocked status (capacity 0) predates that check. ``Thread.sleep`` is simulated time.

Opportunistic containers are not the CapacityScheduler's in yarnball (the service keeps them, with their
RMContainerState: ACQUIRED, then RUNNING once the NM reports it); a promoted container is the scheduler's, as in
Hadoop. ``getRMContainer(id).getState()`` reads either (``OpportunisticContainerAllocatorAMService.container_state``).
"""

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
    keys,
)
from yarnball.protocols._schedulerevents import AppAttemptRemovedSchedulerEvent, NodeRemovedSchedulerEvent

STATUS = OpportunisticContainersStatus(estimated_queue_wait_time=-1, wait_queue_length=100, opport_queue_capacity=1000)


def start(addresses: list[str], am_on: int, **extra: str) -> tuple[MockRM, list[MockNM], MockAM]:
    """Register the nodes, launch and register the AM of a 1 GB application on ``addresses[am_on]``, heartbeat
    every node and let a second pass (the sorts of the node monitor)."""
    rm = MockRM({**OPPORTUNISTIC_CONF, **extra})
    nms = [rm.register_node(a, 4 * GB, 4) for a in addresses]
    for nm in nms:
        nm.opportunistic_status = STATUS
    am = rm.launch_and_register_am(rm.submit_app(1 * GB), nms[am_on])
    for nm in nms:
        nm.heartbeat()
    rm.advance(1_000)
    return rm, nms, am


def verify_metrics(rm: MockRM, available_mb: int, available_vcores: int, allocated_mb: int, allocated_vcores: int,
                   allocated_containers: int) -> None:  # fmt: skip
    """``verifyMetrics`` of the root queue."""
    root = rm.scheduler.queue_metrics()[0]
    assert root.available.memory_mb == available_mb
    assert root.available.vcores == available_vcores
    assert root.allocated.memory_mb == allocated_mb
    assert root.allocated.vcores == allocated_vcores
    assert root.containers_allocated == allocated_containers


def opportunistic_ask(n: int) -> ResourceRequest:
    """``ResourceRequest.newInstance(Priority 1, "*", 1 GB, n, true, null, OPPORTUNISTIC enforced)``."""
    return ResourceRequest(
        priority=Priority(1), capability=Resource(1 * GB, 1), resource_name="*", num_containers=n,
        execution_type_request=ExecutionTypeRequest(execution_type=O, enforce_execution_type=True),
    )  # fmt: skip


def promote(version: int, cid: ContainerId) -> UpdateContainerRequest:
    return UpdateContainerRequest(
        container_version=version, container_id=cid,
        container_update_type=ContainerUpdateType.PROMOTE_EXECUTION_TYPE, execution_type=G,
    )  # fmt: skip


def status(cid: ContainerId, state: ContainerState) -> ContainerStatus:
    """``ContainerStatus.newInstance(cid, OPPORTUNISTIC, state, "", 0)``."""
    return ContainerStatus(container_id=cid, execution_type=O, state=state, diagnostics="", exit_status=0)


def rm_container_state(rm: MockRM, cid: ContainerId) -> str | None:
    """``getApplicationAttempt(..).getRMContainer(cid).getState()``, None for a null RMContainer."""
    service = rm.rm.opportunistic
    assert service is not None
    return service.container_state(cid)


def update(version: int, cid: ContainerId, kind: ContainerUpdateType, capability: Resource | None = None,
           target: ExecutionType | None = None) -> UpdateContainerRequest:  # fmt: skip
    """``UpdateContainerRequest.newInstance(version, cid, kind, capability, target)``."""
    return UpdateContainerRequest(
        container_version=version, container_id=cid, container_update_type=kind, capability=capability,
        execution_type=target,
    )  # fmt: skip


def test_testNodeRemovalDuringAllocate() -> None:
    """The attempt's context lists both nodes; once the scheduler (only) removes one, allocate still works and the
    list shrinks to the other (convertToRemoteNode skips a node the scheduler no longer has)."""
    rm, (nm1, _nm2), am = start(["h1:1234", "h2:1234"], am_on=1)
    service = rm.rm.opportunistic
    assert service is not None
    for _ in range(10):
        am.ask(1 * GB, 2)
        if len(service.contexts[am.attempt_id].nodes) == 2:
            break
        rm.advance(50)
    ctx = service.contexts[am.attempt_id]
    assert len(ctx.nodes) == 2  # ctxt.getNodeMap().size()
    rm.rm.dispatch(NodeRemovedSchedulerEvent(node_id=nm1.node_id))  # scheduler.handle(NodeRemovedSchedulerEvent)
    rm.settle()
    for _ in range(10):
        am.ask(1 * GB, 2)  # "Allocate request should be handled on node removal": no failure
        if len(ctx.nodes) == 1:
            break
        rm.advance(50)
    assert len(ctx.nodes) == 1


def test_testContainerPromoteAfterContainerStart() -> None:
    """A running OPPORTUNISTIC container is promoted once its node heartbeats: a second request meanwhile is
    UPDATE_OUTSTANDING_ERROR; the promoted container (version + 1) now counts in the queue's metrics."""
    rm, nms, am = start(["h1:1234", "h2:1234"], am_on=1)
    nodes = {nm.node_id: nm for nm in nms}
    verify_metrics(rm, 7168, 7, 1024, 1, 1)
    response = am.allocate(asks=(opportunistic_ask(2),))
    assert len(response.allocated_containers) == 2
    container = response.allocated_containers[0]
    alloc_node = nodes[container.node_id]
    alloc_node.heartbeat(status(container.id, ContainerState.RUNNING))  # start it in the NM
    assert rm_container_state(rm, container.id) == "RUNNING"
    verify_metrics(rm, 7168, 7, 1024, 1, 1)  # after the OPPORTUNISTIC allocation: nothing changes

    am.allocate(updates=(promote(0, container.id),))
    verify_metrics(rm, 7168, 7, 1024, 1, 1)  # nothing changes again
    response = am.allocate(updates=(promote(0, container.id),))  # again: an update error
    assert len(response.updated_containers) == 0
    assert len(response.update_errors) == 1
    assert response.update_errors[0].reason == "UPDATE_OUTSTANDING_ERROR"
    assert response.update_errors[0].update_container_request.container_id == container.id

    alloc_node.heartbeat(status(container.id, ContainerState.RUNNING))
    response = am.allocate()
    assert len(response.updated_containers) == 1
    uc = response.updated_containers[0].container
    assert uc.execution_type is G
    assert uc.id == container.id
    assert uc.version == container.version + 1
    assert rm_container_state(rm, uc.id) == "RUNNING"  # still RUNNING, now the scheduler's
    verify_metrics(rm, 6144, 6, 2048, 2, 2)  # allocated cores and memory up, available down


def test_testContainerPromoteAfterContainerComplete() -> None:
    """Promoting a container that completed is INVALID_CONTAINER_ID; its completion reaches the AM in the same
    answer, and the metrics never move."""
    rm, nms, am = start(["h1:1234", "h2:1234"], am_on=1)
    nodes = {nm.node_id: nm for nm in nms}
    verify_metrics(rm, 7168, 7, 1024, 1, 1)
    response = am.allocate(asks=(opportunistic_ask(2),))
    assert len(response.allocated_containers) == 2
    container = response.allocated_containers[0]
    alloc_node = nodes[container.node_id]
    alloc_node.heartbeat(status(container.id, ContainerState.RUNNING))
    assert rm_container_state(rm, container.id) == "RUNNING"
    alloc_node.heartbeat(status(container.id, ContainerState.COMPLETE))  # completed in the NM
    assert rm_container_state(rm, container.id) is None  # removed (getRMContainer is null)
    verify_metrics(rm, 7168, 7, 1024, 1, 1)

    response = am.allocate(updates=(promote(0, container.id),))
    assert len(response.completed_container_statuses) == 1
    assert response.completed_container_statuses[0].container_id == container.id
    assert len(response.updated_containers) == 0
    assert len(response.update_errors) == 1
    assert response.update_errors[0].reason == "INVALID_CONTAINER_ID"
    assert response.update_errors[0].update_container_request.container_id == container.id
    verify_metrics(rm, 7168, 7, 1024, 1, 1)


def test_testContainerAutoUpdateContainer() -> None:
    """With yarn.resourcemanager.auto-update.containers the promoted container reaches the AM and, in a heartbeat
    response, the NM; the promoted container is then the scheduler's, resized like any GUARANTEED one (2 GB, back
    to 1 GB) and demoted, each change pushed to the NM."""
    rm, (nm1,), am = start(["h1:1234"], am_on=0, **{keys.RM_AUTO_UPDATE_CONTAINERS: "true"})
    response = am.allocate(asks=(opportunistic_ask(2),))
    assert len(response.allocated_containers) == 2
    container = response.allocated_containers[0]
    nm1.heartbeat(status(container.id, ContainerState.RUNNING))  # start it in the NM
    assert rm_container_state(rm, container.id) == "RUNNING"
    am.allocate(updates=(promote(0, container.id),))
    nm1.heartbeat(status(container.id, ContainerState.RUNNING))
    response = am.allocate()  # the update response on the next allocate
    assert len(response.updated_containers) == 1
    uc = response.updated_containers[0]
    assert uc.container.id == container.id
    assert uc.container.execution_type is G
    heartbeat = nm1.heartbeat()  # the NM is told through its heartbeat response
    assert len(heartbeat.containers_to_update) == 1
    assert heartbeat.containers_to_update[0].id == container.id
    assert heartbeat.containers_to_update[0].execution_type is G

    # Increase resources (failed before: INVALID_CONTAINER_ID, the promoted container was the service's)
    response = am.allocate(updates=(update(1, container.id, ContainerUpdateType.INCREASE_RESOURCE,
                                           capability=Resource(2 * GB, 1)),))  # fmt: skip
    heartbeat = nm1.heartbeat(
        ContainerStatus(container_id=container.id, execution_type=G, state=ContainerState.RUNNING, exit_status=0)
    )
    if len(response.updated_containers) == 0:
        response = am.allocate()
    assert len(response.updated_containers) == 1
    uc = response.updated_containers[0]
    assert uc.container.id == container.id
    assert uc.container.resource == Resource(2 * GB, 1)
    rm.advance(1_000)
    if len(heartbeat.containers_to_update) == 0:  # the NM is told of the increase through a heartbeat response
        heartbeat = nm1.heartbeat()
    assert len(heartbeat.containers_to_update) == 1
    assert heartbeat.containers_to_update[0].resource == Resource(2 * GB, 1)

    # Decrease resources: in the same allocate
    response = am.allocate(updates=(update(2, container.id, ContainerUpdateType.DECREASE_RESOURCE,
                                           capability=Resource(1 * GB, 1)),))  # fmt: skip
    assert len(response.updated_containers) == 1
    rm.advance(1_000)
    heartbeat = nm1.heartbeat()
    assert len(heartbeat.containers_to_update) == 1
    assert heartbeat.containers_to_update[0].resource == Resource(1 * GB, 1)

    nm1.heartbeat()
    # DEMOTE the container
    response = am.allocate(updates=(update(3, container.id, ContainerUpdateType.DEMOTE_EXECUTION_TYPE, target=O),))
    heartbeat = nm1.heartbeat(
        ContainerStatus(container_id=container.id, execution_type=G, state=ContainerState.RUNNING, exit_status=0)
    )
    if len(response.updated_containers) == 0:
        response = am.allocate()  # the update response on the next allocate
    assert len(response.updated_containers) == 1
    assert response.updated_containers[0].container.execution_type is O
    if len(heartbeat.containers_to_update) == 0:
        heartbeat = nm1.heartbeat()
    assert len(heartbeat.containers_to_update) == 1
    assert heartbeat.containers_to_update[0].execution_type is O


def test_testAppAttemptRemovalAfterNodeRemoval() -> None:
    """YARN-9164/9165: with an OPPORTUNISTIC container allocated on a node, the scheduler removes the node, then the
    attempt (FAILED): neither event fails."""
    rm, (nm,), am = start(["h:1234"], am_on=0)
    assert len(rm.scheduler.nodes) == 1  # waitFor(getNumClusterNodes() == 1)
    response = am.allocate(asks=(opportunistic_ask(2),))
    assert len(response.allocated_containers) >= 1  # (Hadoop's test takes the first one)
    rm.rm.dispatch(NodeRemovedSchedulerEvent(node_id=nm.node_id))
    rm.settle()
    assert len(rm.scheduler.nodes) == 0  # waitFor(getNumClusterNodes() == 0)
    rm.rm.dispatch(AppAttemptRemovedSchedulerEvent(application_attempt_id=am.attempt_id, final_attempt_state="FAILED"))
    rm.settle()
    assert rm.scheduler.get_application(am.attempt_id) is None  # (beyond Hadoop's test: the attempt is gone)
