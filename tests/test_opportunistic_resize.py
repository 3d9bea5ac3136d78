"""Resource updates of OPPORTUNISTIC containers, as Hadoop's RM answers them (no Hadoop test isolates them).

``RMServerUtils.validateAndSplitUpdateResourceRequests`` checks the container id, the version and (for a resource
update) the range, never the execution type; ``AbstractYarnScheduler.handleContainerUpdates`` then treats the
container as any other: a decrease takes effect in the allocate (``handleDecreaseRequests``, the container stays
OPPORTUNISTIC), an increase asks for the difference as GUARANTEED on its node
(``ContainerUpdateContext.checkAndAddToOutstandingIncreases``), and when that is allocated
``SchedulerApplicationAttempt.addToNewlyAllocatedContainers`` files it as a promotion ("If this container was
already GUARANTEED, then it is an increase, else its a promotion"): the container comes back GUARANTEED at its old
size (``swapContainer`` for PROMOTE_EXECUTION_TYPE keeps the existing resource), as PROMOTE_EXECUTION_TYPE.

Over tests/mockrm.py, set up as the TestOpportunisticContainerAllocatorAMService port
(tests/conformance/test_hadoop_opportunistic_am_service.py).
"""

from __future__ import annotations

from tests.conformance.test_hadoop_opportunistic_am_service import (
    O,
    opportunistic_ask,
    promote,
    start,
    status,
    update,
    verify_metrics,
)
from tests.mockrm import GB, MockAM, MockNM, MockRM
from yarnball.protocols import Container, ContainerId, ContainerState, ContainerUpdateType, ExecutionType, Resource

G = ExecutionType.GUARANTEED
INCREASE = ContainerUpdateType.INCREASE_RESOURCE
DECREASE = ContainerUpdateType.DECREASE_RESOURCE
PROMOTE = ContainerUpdateType.PROMOTE_EXECUTION_TYPE
DEMOTE = ContainerUpdateType.DEMOTE_EXECUTION_TYPE


def one_opportunistic() -> tuple[MockRM, MockNM, MockAM, Container]:
    """A 4 GB node running the 1 GB AM and one 1 GB OPPORTUNISTIC container, started."""
    rm, (nm,), am = start(["h1:1234"], am_on=0)
    response = am.allocate(asks=(opportunistic_ask(1),))
    (container,) = response.allocated_containers
    assert container.execution_type is O
    nm.heartbeat(status(container.id, ContainerState.RUNNING))
    return rm, nm, am, container


def errors(response: object) -> list[tuple[str, int]]:
    return [(e.reason, e.current_container_version) for e in response.update_errors]  # type: ignore[attr-defined]


def test_increase_of_opportunistic_container_is_accepted_and_promotes_it() -> None:
    """An INCREASE_RESOURCE of an OPPORTUNISTIC container is no error; once the GUARANTEED difference is allocated
    on its node the AM gets it back as PROMOTE_EXECUTION_TYPE: GUARANTEED, its old size, version 1 (failed before:
    INVALID_CONTAINER_ID)."""
    rm, nm, am, container = one_opportunistic()
    response = am.allocate(updates=(update(0, container.id, INCREASE, capability=Resource(2 * GB, 1)),))
    assert errors(response) == []
    assert response.updated_containers == ()
    nm.heartbeat(status(container.id, ContainerState.RUNNING))  # the scheduler allocates the 1 GB difference
    response = am.allocate()
    assert [(u.update_type, u.container.id) for u in response.updated_containers] == [(PROMOTE, container.id)]
    promoted = response.updated_containers[0].container
    assert promoted.execution_type is G
    assert promoted.resource == Resource(1 * GB, 1)  # swapContainer(PROMOTE) keeps the existing resource
    assert promoted.version == 1
    assert response.allocated_containers == ()  # the temporary container never reaches the AM
    # the queue holds the AM container and the GUARANTEED difference allocated for the increase
    verify_metrics(rm, 2 * GB, 2, 2 * GB, 2, 2)


def test_decrease_of_opportunistic_container_takes_effect_at_once() -> None:
    """A DECREASE_RESOURCE of an OPPORTUNISTIC container comes back in the same allocate, still OPPORTUNISTIC, at
    the target size with version 1, and the NM is told in its next heartbeat response (failed before:
    INVALID_CONTAINER_ID)."""
    rm, nm, am, container = one_opportunistic()
    target = Resource(GB // 2, 1)
    response = am.allocate(updates=(update(0, container.id, DECREASE, capability=target),))
    assert errors(response) == []
    assert [(u.update_type, u.container.execution_type, u.container.resource, u.container.version)
            for u in response.updated_containers] == [(DECREASE, O, target, 1)]  # fmt: skip
    heartbeat = nm.heartbeat()
    assert [(c.id, c.resource, c.execution_type) for c in heartbeat.containers_to_update] == [
        (container.id, target, O)
    ]
    verify_metrics(rm, 3 * GB, 3, 1 * GB, 1, 1)  # the queue never held it


def test_promotion_while_increase_outstanding_is_update_outstanding_error() -> None:
    """An increase to no more than the container's size is outstanding without an ask (``Resources.isNone``); a
    promotion then shares its key and is refused (UPDATE_OUTSTANDING_ERROR, version 0 from
    ``UpdateContainerError.newInstance``); a later increase replaces it (``cancelPreviousRequest``) and promotes."""
    rm, nm, am, container = one_opportunistic()
    response = am.allocate(updates=(update(0, container.id, INCREASE, capability=Resource(1 * GB, 1)),))
    assert errors(response) == []
    nm.heartbeat(status(container.id, ContainerState.RUNNING))
    response = am.allocate(updates=(promote(0, container.id),))
    assert errors(response) == [("UPDATE_OUTSTANDING_ERROR", 0)]
    assert response.updated_containers == ()
    response = am.allocate(updates=(update(0, container.id, INCREASE, capability=Resource(2 * GB, 2)),))
    assert errors(response) == []
    nm.heartbeat(status(container.id, ContainerState.RUNNING))
    response = am.allocate()
    assert [(u.update_type, u.container.resource, u.container.version) for u in response.updated_containers] == [
        (PROMOTE, Resource(1 * GB, 1), 1)
    ]
    verify_metrics(rm, 2 * GB, 2, 2 * GB, 2, 2)  # the AM container and the 1 GB, 1 vcore difference


def test_one_outstanding_update_per_container_across_update_types() -> None:
    """``validateAndSplit`` keeps one outstanding set for all update types, in the request's order: a promotion
    after an increase of one container in one allocate is UPDATE_OUTSTANDING_ERROR, and so is an increase after
    a promotion (current version 0); a demotion to the container's own type is dropped without an error and
    leaves the container free for an update."""
    _, _, am, c1 = one_opportunistic()
    response = am.allocate(asks=(opportunistic_ask(1),))
    (c2,) = response.allocated_containers
    response = am.allocate(updates=(
        update(0, c1.id, INCREASE, capability=Resource(2 * GB, 1)), promote(0, c1.id),
        promote(0, c2.id), update(0, c2.id, INCREASE, capability=Resource(2 * GB, 1)),
    ))  # fmt: skip
    refused = [(e.reason, e.update_container_request.container_id, e.current_container_version)
               for e in response.update_errors]  # fmt: skip
    assert refused == [("UPDATE_OUTSTANDING_ERROR", c1.id, 0), ("UPDATE_OUTSTANDING_ERROR", c2.id, 0)]
    _, _, am2, c = one_opportunistic()
    response = am2.allocate(updates=(
        update(0, c.id, DEMOTE, target=O), update(0, c.id, DECREASE, capability=Resource(GB // 2, 1)),
    ))  # fmt: skip
    assert errors(response) == []
    assert [u.update_type for u in response.updated_containers] == [DECREASE]


def test_unknown_container_and_wrong_version_of_opportunistic_container() -> None:
    """A resource update of an unknown container is INVALID_CONTAINER_ID (version -1); of an OPPORTUNISTIC one
    with a stale version, INCORRECT_CONTAINER_VERSION_ERROR with its current version; out of range,
    RESOURCE_OUTSIDE_ALLOWED_RANGE."""
    _, _, am, container = one_opportunistic()
    unknown = ContainerId(container.id.application_attempt_id, 99)
    response = am.allocate(updates=(
        update(0, unknown, INCREASE, capability=Resource(2 * GB, 1)),
        update(1, container.id, DECREASE, capability=Resource(GB // 2, 1)),
    ))  # fmt: skip
    assert errors(response) == [("INVALID_CONTAINER_ID", -1), ("INCORRECT_CONTAINER_VERSION_ERROR", 0)]
    response = am.allocate(updates=(update(0, container.id, INCREASE, capability=Resource(64 * GB, 1)),))
    assert errors(response) == [("RESOURCE_OUTSIDE_ALLOWED_RANGE", 0)]
    response = am.allocate(updates=(update(0, container.id, DECREASE, capability=Resource(GB // 2, 1)),))
    assert errors(response) == [] and response.updated_containers[0].container.version == 1
    response = am.allocate(updates=(update(0, container.id, DECREASE, capability=Resource(GB // 4, 1)),))
    assert errors(response) == [("INCORRECT_CONTAINER_VERSION_ERROR", 1)]
