"""TestContainerResizing and TestIncreaseAllocationExpirer ported (issue 19 item 13): container resource updates.

Each test drives a real ResourceManager and CapacityScheduler through tests/mockrm.py as Hadoop's MockRM does:
nodes and AMs are driven by hand, one node heartbeat or AM allocate at a time. The assertions are Hadoop's:
``checkPendingResource`` / ``checkUsedResource`` read the queue's pending and used memory, the application's
attempt usage and the user's usage; ``verifyContainerIncreased`` / ``verifyContainerDecreased`` the allocate
response's updated containers; ``verifyAvailableResourceOfSchedulerNode`` the scheduler node's unallocated memory.
"""

from __future__ import annotations

from typing import Any

from tests.mockrm import GB, MockAM, MockNM, MockRM
from yarnball.protocols import (
    AllocateResponse,
    AppAttemptRemovedSchedulerEvent,
    ContainerId,
    ContainerUpdateType,
    Resource,
    UpdateContainerRequest,
    keys,
)

INCREASE = ContainerUpdateType.INCREASE_RESOURCE
DECREASE = ContainerUpdateType.DECREASE_RESOURCE


def resize(cid: ContainerId, kind: ContainerUpdateType, memory_mb: int, version: int = 0) -> UpdateContainerRequest:
    """``UpdateContainerRequest.newInstance(version, cid, kind, Resources.createResource(memory_mb), null)``."""
    return UpdateContainerRequest(
        container_version=version, container_id=cid, container_update_type=kind, capability=Resource(memory_mb, 1)
    )


def verify_updated(response: AllocateResponse, kind: ContainerUpdateType, cid: ContainerId, memory_mb: int) -> None:
    """``verifyContainerIncreased`` / ``verifyContainerDecreased``."""
    matching = [u for u in response.updated_containers if u.container.id == cid and u.update_type is kind]
    assert len(matching) == 1, response.updated_containers
    assert matching[0].container.resource.memory_mb == memory_mb


def one_app(node_mb: int, am_mb: int = 1 * GB, nodes: int = 1) -> tuple[MockRM, list[MockNM], MockAM]:
    rm = MockRM()
    nms = [rm.register_node(f"h{i + 1}:1234", node_mb) for i in range(nodes)]
    app = rm.submit_app(am_mb)
    am = rm.launch_and_register_am(app, nms[0])
    return rm, nms, am


def with_second_container(rm: MockRM, nm: MockNM, am: MockAM) -> ContainerId:
    """Allocate a 2 GB container on ``nm``, acquire it, and have the NM report it RUNNING."""
    am.ask(2 * GB)
    nm.heartbeat()
    cid = am.container_id(2)
    assert any(c.id == cid for c in am.allocate().allocated_containers)
    nm.launched(cid)
    return cid


def check_pending(rm: MockRM, app: Any, memory_mb: int) -> None:
    """``checkPendingResource``: the queue's and the attempt's pending memory."""
    assert rm.queue("default").pending_m == memory_mb
    assert app.pending_m == memory_mb


def check_books(
    rm: MockRM, app: Any, nm: MockNM | None, *, pending: int, used: int, app_used: int, reserved: int
) -> None:
    """The books after a heartbeat: with ``nm``, whether the attempt and the node hold a reservation (as
    ``reserved`` says); ``checkPendingResource``, ``checkUsedResource`` (the queue's and the user's used memory),
    and the attempt's used and reserved memory."""
    if nm is not None:
        assert bool(app.num_reserved) is (reserved > 0)  # app.getReservedContainers()
        assert (rm.node_reserved(nm) is not None) is (reserved > 0)
    check_pending(rm, app, pending)
    assert rm.queue("default").used_m == used
    assert rm.user_used_mb("default", "user") == used
    assert app.used_m == app_used
    assert app.reserved_m == reserved


def reserved_increase(rm: MockRM, nm1: MockNM, am: MockAM, cid: ContainerId, memory_mb: int, used: int) -> Any:
    """An increase of ``cid`` to ``memory_mb`` that does not fit: 6 GB pending, then reserved on ``nm1`` by its
    heartbeat (the queue and the user use ``used``, 6 GB of it reserved). The attempt."""
    am.allocate(updates=(resize(cid, INCREASE, memory_mb),))
    app = rm.app(am.attempt_id)
    check_pending(rm, app, 6 * GB)
    nm1.heartbeat()
    check_books(rm, app, nm1, pending=6 * GB, used=used, app_used=used - 6 * GB, reserved=6 * GB)
    return app


def test_testSimpleIncreaseContainer() -> None:
    """An increase of the AM container from 1 GB to 3 GB: 2 GB pending, allocated on the next heartbeat."""
    rm, (nm1,), am = one_app(20 * GB)
    c1 = am.container_id(1)
    am.allocate(updates=(resize(c1, INCREASE, 3 * GB),))
    app = rm.app(am.attempt_id)
    check_pending(rm, app, 2 * GB)
    nm1.heartbeat()
    check_pending(rm, app, 0)
    verify_updated(am.allocate(), INCREASE, c1, 3 * GB)
    assert rm.node_available_mb(nm1) == 17 * GB


def test_testSimpleDecreaseContainer() -> None:
    """A decrease of the 3 GB AM container to 1 GB takes effect in the same allocate; the NM is to be told."""
    rm, (nm1,), am = one_app(20 * GB, am_mb=3 * GB)
    app = rm.app(am.attempt_id)
    assert rm.queue("default").used_m == 3 * GB
    assert app.used_m == 3 * GB
    c1 = am.container_id(1)
    response = am.allocate(updates=(resize(c1, DECREASE, 1 * GB),))
    verify_updated(response, DECREASE, c1, 1 * GB)
    assert rm.queue("default").used_m == 1 * GB
    assert app.used_m == 1 * GB
    # RMNodeImpl.getToBeUpdatedContainers: the decreased container, at 1 GB
    to_update = rm.rm.resize.to_update[nm1.node_id]
    assert any(c.id == c1 and c.resource == Resource(1 * GB, 1) for c in to_update.values())


def test_testSimpleIncreaseRequestReservation() -> None:
    """An increase that does not fit is reserved on the node (usage counts the reservation); when a container
    ends, the reservation turns into the increase."""
    rm, (nm1, _nm2), am = one_app(8 * GB, nodes=2)
    c2 = with_second_container(rm, nm1, am)
    c1 = am.container_id(1)
    app = reserved_increase(rm, nm1, am, c1, 7 * GB, used=9 * GB)
    am.allocate(release=(c2,))
    nm1.heartbeat()
    verify_updated(am.allocate(), INCREASE, c1, 7 * GB)
    check_books(rm, app, nm1, pending=0, used=7 * GB, app_used=7 * GB, reserved=0)
    assert rm.node_available_mb(nm1) == 1 * GB


def test_testIncreaseRequestWithNoHeadroomLeft() -> None:
    """An increase beyond the user's limit is neither allocated nor reserved; usage is unchanged."""
    rm, (nm1,), am = one_app(8 * GB)
    c2 = with_second_container(rm, nm1, am)
    am.allocate(updates=(resize(c2, INCREASE, 8 * GB),))
    app = rm.app(am.attempt_id)
    check_pending(rm, app, 6 * GB)
    nm1.heartbeat()
    check_books(rm, app, nm1, pending=6 * GB, used=3 * GB, app_used=3 * GB, reserved=0)


def test_testExcessiveReservationWhenCancelIncreaseRequest() -> None:
    """An increase to the current size cancels the outstanding (reserved) one: the reservation goes away."""
    rm, (nm1, _nm2), am = one_app(8 * GB, nodes=2)
    c2 = with_second_container(rm, nm1, am)
    c1 = am.container_id(1)
    app = reserved_increase(rm, nm1, am, c1, 7 * GB, used=9 * GB)
    am.allocate(release=(c2,))
    am.allocate(updates=(resize(c1, INCREASE, 1 * GB),))
    nm1.heartbeat()
    check_books(rm, app, nm1, pending=0, used=1 * GB, app_used=1 * GB, reserved=0)


def test_testExcessiveReservationWhenDecreaseSameContainer() -> None:
    """A decrease of a container whose increase is reserved cancels the increase: the reservation goes away and
    the container shrinks."""
    rm, (nm1, _nm2), am = one_app(8 * GB, am_mb=2 * GB, nodes=2)
    c2 = with_second_container(rm, nm1, am)
    c1 = am.container_id(1)
    app = reserved_increase(rm, nm1, am, c1, 8 * GB, used=10 * GB)
    am.allocate(release=(c2,))
    am.allocate(updates=(resize(c1, DECREASE, 1 * GB),))
    nm1.heartbeat()
    check_books(rm, app, nm1, pending=0, used=1 * GB, app_used=1 * GB, reserved=0)


def test_testIncreaseContainerUnreservedWhenContainerCompleted() -> None:
    """Releasing a container whose increase is reserved releases the reservation too."""
    rm, (nm1, _nm2), am = one_app(8 * GB, nodes=2)
    c2 = with_second_container(rm, nm1, am)
    app = reserved_increase(rm, nm1, am, c2, 8 * GB, used=9 * GB)
    am.allocate(release=(c2,))
    nm1.heartbeat()
    am.allocate()
    check_books(rm, app, nm1, pending=0, used=1 * GB, app_used=1 * GB, reserved=0)


def test_testIncreaseContainerUnreservedWhenApplicationCompleted() -> None:
    """The application's attempt is killed while an increase of its container is reserved: the reservation, the
    usage and the user go away."""
    rm, (nm1, _nm2), am = one_app(8 * GB, nodes=2)
    c2 = am.container_id(2)
    am.ask(2 * GB)
    nm1.heartbeat()
    assert any(c.id == c2 for c in am.allocate().allocated_containers)
    nm1.launched(c2)
    app = reserved_increase(rm, nm1, am, c2, 8 * GB, used=9 * GB)
    # cs.handle(new AppAttemptRemovedSchedulerEvent(attempt, KILLED, false))
    rm.scheduler.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=am.attempt_id))
    assert not app.num_reserved
    assert rm.node_reserved(nm1) is None
    nm1.heartbeat()
    assert rm.queue("default").pending_m == 0
    assert rm.queue("default").used_m == 0
    assert rm.queue("default").users.get("user") is None  # the user is removed
    assert app.reserved_m == 0
    assert app.used_m == 0


def test_testOrderOfIncreaseContainerRequestAllocation() -> None:
    """Six 1 GB containers at priorities 3, 2 and 4 (two each) all asked up to 2 GB on a 10 GB node with 7 GB used:
    one heartbeat increases the three that fit, by priority then container id (4, 5, then 2)."""
    rm = MockRM()
    nm1 = rm.register_node("h1:1234", 10 * GB)
    am = rm.launch_and_register_am(rm.submit_app(1 * GB), nm1)
    app = rm.app(am.attempt_id)
    for priority, first in ((3, 2), (2, 4), (4, 6)):  # allocateAndLaunchContainers(am, nm, rm, 2, 1 GB, p, first)
        am.ask(1 * GB, 2, priority=priority)
        nm1.heartbeat()
        nm1.heartbeat()
        cids = {c.id for c in am.allocate().allocated_containers}
        assert cids == {am.container_id(first), am.container_id(first + 1)}
        for cid in sorted(cids, key=lambda c: c.container_id):
            nm1.launched(cid)
    am.allocate(updates=tuple(resize(am.container_id(n), INCREASE, 2 * GB) for n in range(2, 8)))
    check_pending(rm, app, 6 * GB)
    nm1.heartbeat()
    response = am.allocate()
    assert len(response.updated_containers) == 3
    for n in (4, 5, 2):
        verify_updated(response, INCREASE, am.container_id(n), 2 * GB)
    check_books(rm, app, None, pending=3 * GB, used=10 * GB, app_used=10 * GB, reserved=0)  # 3 increases still pending


def test_testDecreaseContainerWillNotDeadlockContainerAllocation() -> None:
    """A decrease of the AM container asked while a node heartbeat allocates another container: the decrease is in
    the allocate response. (Hadoop's MyScheduler sleeps in allocateContainersToNode to race the two threads; the
    RM actor handles one message at a time, so there is no lock to deadlock on: the assertions are ported.)"""
    rm, (nm1,), am = one_app(20 * GB, am_mb=3 * GB)
    assert rm.queue("default").used_m == 3 * GB
    assert rm.app(am.attempt_id).used_m == 3 * GB
    c1 = am.container_id(1)
    am.ask(2 * GB)
    nm1.heartbeat()
    response = am.allocate(updates=(resize(c1, DECREASE, 1 * GB),))
    verify_updated(response, DECREASE, c1, 1 * GB)


def test_wrong_version_is_incorrect_container_version_error_RMServerUtils() -> None:
    """``validateContainerIdAndVersion``: a stale version is INCORRECT_CONTAINER_VERSION_ERROR with the current
    version; a second resize of one container in one allocate is UPDATE_OUTSTANDING_ERROR."""
    _, _, am = one_app(20 * GB)
    c1 = am.container_id(1)
    response = am.allocate(updates=(resize(c1, INCREASE, 3 * GB, version=4),))
    assert [(e.reason, e.current_container_version) for e in response.update_errors] == [
        ("INCORRECT_CONTAINER_VERSION_ERROR", 0)
    ]
    response = am.allocate(updates=(resize(c1, DECREASE, 512), resize(c1, DECREASE, 256)))
    assert [e.reason for e in response.update_errors] == ["UPDATE_OUTSTANDING_ERROR"]
    verify_updated(response, DECREASE, c1, 512)


# -- TestIncreaseAllocationExpirer ------------------------------------------------------------------------------
EXPIRY = {keys.RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS: "5000"}


def expirer_app(memory_mb: int = 1 * GB, count: int = 1) -> tuple[MockRM, MockNM, MockAM, list[ContainerId]]:
    """One 20 GB node, an application with a 1 GB AM and ``count`` containers of ``memory_mb``, all RUNNING."""
    rm = MockRM(EXPIRY)
    nm1 = rm.register_node("127.0.0.1:1234", 20 * GB)
    am = rm.launch_and_register_am(rm.submit_app(1 * GB), nm1)
    am.ask(memory_mb, count, host="127.0.0.1")
    nm1.heartbeat()
    cids = [am.container_id(2 + i) for i in range(count)]
    assert [c.id for c in am.allocate().allocated_containers] == cids
    for cid in cids:
        nm1.launched(cid)
    return rm, nm1, am, cids


def increased(rm: MockRM, nm1: MockNM, am: MockAM, cid: ContainerId, memory_mb: int, version: int = 0) -> None:
    am.allocate(updates=(resize(cid, INCREASE, memory_mb, version),))
    nm1.heartbeat()
    verify_updated(am.allocate(), INCREASE, cid, memory_mb)


def allocated_mb(rm: MockRM, cid: ContainerId) -> int:
    container = rm.scheduler.live_container(cid)
    assert container is not None
    return int(container.resource.memory_mb)


def test_testContainerIsRemovedFromAllocationExpirer() -> None:
    """The NM reports the increased container at its new size: it keeps its 3 GB past the expiry."""
    rm, nm1, am, (c2,) = expirer_app()
    app = rm.app(am.attempt_id)
    assert rm.queue("default").used_m == 2 * GB
    assert app.used_m == 2 * GB
    assert rm.node_available_mb(nm1) == 18 * GB
    increased(rm, nm1, am, c2, 3 * GB)
    nm1.launched(c2, Resource(3 * GB, 1))  # nm1.containerIncreaseStatus: the AM used the token
    rm.advance(10_000)
    assert allocated_mb(rm, c2) == 3 * GB
    assert rm.queue("default").used_m == 4 * GB
    assert app.used_m == 4 * GB
    assert rm.node_available_mb(nm1) == 16 * GB


def test_testContainerIncreaseAllocationExpiration() -> None:
    """The increase is never used at the NM: after the expiry it is rolled back to 1 GB (a DECREASE_RESOURCE
    update for the AM, version 2) and the resources return to the queue and the node."""
    rm, nm1, am, (c2,) = expirer_app()
    app = rm.app(am.attempt_id)
    assert rm.queue("default").used_m == 2 * GB
    assert app.used_m == 2 * GB
    assert rm.node_available_mb(nm1) == 18 * GB
    increased(rm, nm1, am, c2, 3 * GB)
    assert rm.queue("default").used_m == 4 * GB
    assert app.used_m == 4 * GB
    assert rm.node_available_mb(nm1) == 16 * GB
    rm.advance(10_000)
    response = am.allocate()
    assert allocated_mb(rm, c2) == 1 * GB
    assert rm.queue("default").used_m == 2 * GB
    assert app.used_m == 2 * GB
    assert rm.node_available_mb(nm1) == 18 * GB
    # (beyond Hadoop's test: what the AM is told)
    verify_updated(response, DECREASE, c2, 1 * GB)
    assert [u.container.version for u in response.updated_containers] == [2]


def test_testConsecutiveContainerIncreaseAllocationExpiration() -> None:
    """Two increases (3 GB, then 5 GB); the NM applies only the first: the second expires and the container is
    rolled back to 3 GB, which the NM is told in its next heartbeat."""
    rm, nm1, am, (c2,) = expirer_app()
    increased(rm, nm1, am, c2, 3 * GB)
    response = am.allocate(updates=(resize(c2, INCREASE, 5 * GB, version=0),))
    assert len(response.update_errors) == 1
    assert response.update_errors[0].reason == "INCORRECT_CONTAINER_VERSION_ERROR"
    assert response.update_errors[0].current_container_version == 1
    increased(rm, nm1, am, c2, 5 * GB, version=1)
    app = rm.app(am.attempt_id)
    assert rm.queue("default").used_m == 6 * GB
    assert app.used_m == 6 * GB
    assert rm.node_available_mb(nm1) == 14 * GB
    nm1.launched(c2, Resource(3 * GB, 1))  # the first token is used
    rm.advance(10_000)
    am.allocate()
    assert allocated_mb(rm, c2) == 3 * GB
    assert rm.queue("default").used_m == 4 * GB
    assert app.used_m == 4 * GB
    assert rm.node_available_mb(nm1) == 16 * GB
    to_decrease = nm1.heartbeat().containers_to_update
    assert len(to_decrease) == 1
    assert to_decrease[0].resource.memory_mb == 3 * GB


def test_testDecreaseAfterIncreaseWithAllocationExpiration() -> None:
    """Three 3 GB containers increased to 6 GB, none confirmed, then decreased: to 2 GB (below the confirmed 3 GB:
    no longer watched), to 4 GB (rolled back to 3 GB at expiry), and to 4 GB with the 6 GB token used at the NM
    (confirmed, kept at 4 GB); the NM is told 2, 3 and 4 GB."""
    rm, nm1, am, (c2, c3, c4) = expirer_app(3 * GB, 3)
    am.allocate(updates=tuple(resize(c, INCREASE, 6 * GB) for c in (c2, c3, c4)))
    nm1.heartbeat()
    am.allocate()
    decreases = (resize(c2, DECREASE, 2 * GB, 1), resize(c3, DECREASE, 4 * GB, 1), resize(c4, DECREASE, 4 * GB, 1))
    response = am.allocate(updates=decreases)
    assert len(response.updated_containers) == 3
    nm1.launched(c4, Resource(6 * GB, 1))
    rm.advance(12_000)
    am.allocate()
    assert allocated_mb(rm, c2) == 2 * GB
    assert allocated_mb(rm, c3) == 3 * GB
    assert allocated_mb(rm, c4) == 4 * GB
    to_decrease = sorted(nm1.heartbeat().containers_to_update, key=lambda c: c.id.container_id)
    assert len(to_decrease) >= 2
    i = 0
    if len(to_decrease) > 2:
        assert to_decrease[i].resource.memory_mb == 2 * GB
        i += 1
    assert to_decrease[i].resource.memory_mb == 3 * GB
    assert to_decrease[i + 1].resource.memory_mb == 4 * GB
