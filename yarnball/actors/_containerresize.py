"""The RM side of container resource updates: INCREASE_RESOURCE and DECREASE_RESOURCE (YARN-1197, YARN-5221).

The ResourceManager creates one ``ContainerResizeService`` at the first resize request it sees (so runs without
any keep every code path they had) and calls it at a few points: the AM's allocate (before: validate and split the
update requests, decrease at once, turn increases into asks; after: hand the AM its updated containers and
errors), every GUARANTEED allocation (to catch the temporary containers that serve an increase), the NM heartbeat
(the NM reporting a container at its increased size; decreases to push to the NM), container completion and the
allocation expirer's tick. As in Hadoop:

- Validation is ``RMServerUtils.validateAndSplitUpdateResourceRequests`` (``INVALID_CONTAINER_ID``,
  ``INCORRECT_CONTAINER_VERSION_ERROR``, ``UPDATE_OUTSTANDING_ERROR``, ``RESOURCE_OUTSIDE_ALLOWED_RANGE``).
- An increase is a new allocation: ``ContainerUpdateContext.checkAndAddToOutstandingIncreases`` asks for the
  difference (``componentwiseMax(target, current) - current``) on the container's own node only; when the
  scheduler allocates that temporary container, ``SchedulerApplicationAttempt.pullNewlyUpdatedContainers`` swaps it
  into the container (``swapContainer``), which gets version + 1 and reaches the AM as INCREASE_RESOURCE. The AM
  must then tell the NM (``ContainerManagementProtocol.updateContainer``); if the NM does not report the new size
  within ``yarn.resourcemanager.rm.container-allocation.expiry-interval-ms``, the RM rolls the increase back
  (``AbstractYarnScheduler.rollbackContainerUpdate``: a decrease to the last confirmed resource). With
  ``yarn.resourcemanager.auto-update.containers`` the RM tells the NM itself and nothing expires.
- A decrease takes effect in the same allocate (``handleDecreaseRequests``): the difference is released at once,
  version + 1, the AM gets DECREASE_RESOURCE in the answer, and the NM is told in its next heartbeat response
  (``RMNodeUpdateContainerEvent``: "Resource Decrease is always automatic").

An OPPORTUNISTIC container is resized too, as Hadoop does: ``validateAndSplitUpdateResourceRequests`` never looks
at the execution type of a resource update (only an unknown container is ``INVALID_CONTAINER_ID``). Its decrease
takes effect at once (it stays OPPORTUNISTIC); its increase asks for the difference as a GUARANTEED request on its
node, and once that is allocated ``SchedulerApplicationAttempt.addToNewlyAllocatedContainers`` files it as a
promotion (the container was not GUARANTEED): the AM gets PROMOTE_EXECUTION_TYPE, the container GUARANTEED at its
old size. The opportunistic service (actors/_opportunisticams.py) carries both out.

With the opportunistic service present, this service validates every update request of the allocate, the
execution-type ones included, in the request's order and with one outstanding set (``validateAndSplit``: an
increase and a promotion of one container in one allocate are one accepted update and one UPDATE_OUTSTANDING_ERROR);
the accepted execution-type requests go on to the opportunistic service.

The RM's own ask and release changes (increase asks withdrawn, temporary containers given back) go through
``SchedulerEventDispatcher.update_requests``, which leaves what the AM has not pulled yet for its next allocate.
"""

from __future__ import annotations

from typing import Any

import msgspec

from yarnball._logs import get_logger
from yarnball.policies.scheduler import RESIZE_REQUEST_ID_BASE
from yarnball.protocols import (
    ANY,
    AllocateRequest,
    AllocateResponse,
    ApplicationAttemptId,
    Container,
    ContainerId,
    ContainerStatus,
    ContainerUpdateType,
    ExecutionType,
    ExecutionTypeRequest,
    NodeId,
    Resource,
    ResourceRequest,
    UpdateContainerRequest,
    UpdatedContainer,
    keys,
)
from yarnball.protocols._amprotocol import UpdateContainerError

__all__ = [
    "INCORRECT_CONTAINER_VERSION_ERROR",
    "INVALID_CONTAINER_ID",
    "RESIZE_REQUEST_ID_BASE",
    "RESIZE_TYPES",
    "RESOURCE_OUTSIDE_ALLOWED_RANGE",
    "UPDATE_OUTSTANDING_ERROR",
    "ContainerResizeService",
    "validate_update",
]

log = get_logger(__name__)

# RMServerUtils' reasons.
UPDATE_OUTSTANDING_ERROR = "UPDATE_OUTSTANDING_ERROR"
INCORRECT_CONTAINER_VERSION_ERROR = "INCORRECT_CONTAINER_VERSION_ERROR"
INVALID_CONTAINER_ID = "INVALID_CONTAINER_ID"
RESOURCE_OUTSIDE_ALLOWED_RANGE = "RESOURCE_OUTSIDE_ALLOWED_RANGE"

INCREASE = ContainerUpdateType.INCREASE_RESOURCE
DECREASE = ContainerUpdateType.DECREASE_RESOURCE
RESIZE_TYPES = (INCREASE, DECREASE)

# Increase asks use allocation request ids below RESIZE_REQUEST_ID_BASE, one per container to grow, apart from the
# AM's own asks and from promotions (Hadoop's SchedulerRequestKey carries ``containerToUpdate`` for the same purpose);
# the scheduler takes their capability as it is. The id grows with the container id, so that the scheduler serves the
# increases of one priority smallest container first, as SchedulerRequestKey.compareTo orders them (priority, then
# allocationRequestId, then containerToUpdate; TestContainerResizing.testOrderOfIncreaseContainerRequestAllocation).
_INCREASE_IDS = RESIZE_REQUEST_ID_BASE - (1 << 62)


def increase_request_id(container_id: ContainerId) -> int:
    """The allocation request id of an increase of ``container_id`` (at most RESIZE_REQUEST_ID_BASE)."""
    return _INCREASE_IDS + container_id.container_id


def validate_update(
    req: UpdateContainerRequest, container: Container | None, outstanding: set[ContainerId], maximum: Resource
) -> str | None:
    """``RMServerUtils.validateAndSplitUpdateResourceRequests`` for one request, in Hadoop's order
    (``validateContainerIdAndVersion``, the outstanding check, then ``validateIncreaseDecreaseRequest``'s range
    check for a resource update); None if it is valid."""
    if container is None:
        return INVALID_CONTAINER_ID
    if req.container_version != container.version:
        return INCORRECT_CONTAINER_VERSION_ERROR
    if req.container_id in outstanding:
        return UPDATE_OUTSTANDING_ERROR
    if req.container_update_type not in RESIZE_TYPES:
        return None
    cap = req.capability
    if cap is None or not (0 <= cap.memory_mb <= maximum.memory_mb and 0 <= cap.vcores <= maximum.vcores):
        return RESOURCE_OUTSIDE_ALLOWED_RANGE
    return None


class _Increase:
    __slots__ = ("attempt_id", "container", "container_id", "delta", "request_id")

    def __init__(
        self, attempt_id: ApplicationAttemptId, container: Container, delta: Resource, request_id: int
    ) -> None:
        self.attempt_id = attempt_id
        self.container = container  # as it was when the increase was asked for (its node, rack and priority)
        self.container_id = container.id
        self.delta = delta
        self.request_id = request_id


class ContainerResizeService:
    """INCREASE_RESOURCE / DECREASE_RESOURCE for the ResourceManager ``rm``."""

    def __init__(self, rm: Any) -> None:
        self.rm = rm
        self.auto_update = rm.conf.get_bool(keys.RM_AUTO_UPDATE_CONTAINERS)
        self.increases: dict[ContainerId, _Increase] = {}  # outstanding increases, by the container to grow
        self.by_request: dict[tuple[ApplicationAttemptId, int], _Increase] = {}  # by (attempt, request id)
        self.updated: dict[ApplicationAttemptId, list[UpdatedContainer]] = {}
        self.errors: dict[ApplicationAttemptId, list[UpdateContainerError]] = {}
        #: ContainerAllocationExpirer entries for increases: container -> (deadline, last confirmed resource).
        self.unconfirmed: dict[ContainerId, tuple[float, Resource]] = {}
        #: pushed to the NM in its next heartbeat response, the latest per container (RMNodeImpl.toBeUpdatedContainers)
        self.to_update: dict[NodeId, dict[ContainerId, Container]] = {}
        self.hidden: set[ContainerId] = set()  # temporary containers the AM must never see
        self.late: list[Container] = []  # pushes for the heartbeat after the current one (see nm_reported)
        self.counters: dict[str, int] = {"increased": 0, "decreased": 0, "rolled_back": 0}

    # -- the AM's allocate -------------------------------------------------------------------------------------
    def before_allocate(self, msg: AllocateRequest) -> tuple[AllocateRequest, list[ResourceRequest]]:
        """``RMServerUtils.validateAndSplitUpdateResourceRequests`` over all the update requests of ``msg``, then
        ``AbstractYarnScheduler.handleContainerUpdates`` for the resource ones: decreases at once, increases as
        asks (returned). The accepted execution-type requests stay in ``msg`` for the opportunistic service."""
        if not any(r.container_update_type in RESIZE_TYPES for r in msg.update_requests):
            return msg, []
        attempt_id = msg.application_attempt_id
        errors: list[UpdateContainerError] = []
        outstanding: set[ContainerId] = set()
        accepted: list[tuple[UpdateContainerRequest, Container]] = []
        exec_type: list[UpdateContainerRequest] = []
        for req in msg.update_requests:  # every request is validated before any is applied (validateAndSplit)
            container = self._updatable(req.container_id, attempt_id)
            reason = validate_update(req, container, outstanding, self.rm.maximum_allocation)
            if reason is not None:
                version = container.version if container is not None else -1
                errors.append(
                    UpdateContainerError(reason=reason, update_container_request=req, current_container_version=version)
                )
                continue
            assert container is not None  # (refused above otherwise)
            if req.container_update_type not in RESIZE_TYPES:
                # PROMOTE / DEMOTE: split by the target execution type against the container's, not by the update
                # type; a target equal to the container's own is dropped without an error (and not outstanding)
                target = req.execution_type
                if target is not None and target is not container.execution_type:
                    outstanding.add(req.container_id)
                    exec_type.append(req)
                continue
            outstanding.add(req.container_id)
            accepted.append((req, container))
        msg = msgspec.structs.replace(msg, update_requests=tuple(exec_type))
        asks: list[ResourceRequest] = []
        scheduler = self.rm.scheduler
        opportunistic = self.rm.opportunistic
        for req, container in accepted:
            capability = req.capability
            assert capability is not None  # (RESOURCE_OUTSIDE_ALLOWED_RANGE otherwise)
            if container.execution_type is ExecutionType.OPPORTUNISTIC:
                assert opportunistic is not None  # (only its containers are OPPORTUNISTIC)
                if req.container_update_type is DECREASE:
                    opportunistic.decrease(attempt_id, container, capability)
                else:
                    asks.extend(opportunistic.increase(attempt_id, container, capability))
            elif req.container_update_type is DECREASE:
                pending = self.increases.pop(req.container_id, None)
                if pending is not None:
                    # checkAndAddToOutstandingDecreases: a decrease cancels the container's outstanding increase
                    # (cancelPreviousRequest), whose reservation goes with its ask
                    del self.by_request[pending.attempt_id, pending.request_id]
                    asks.extend(self._asks(pending.container, pending.delta, pending.request_id, 0))
                self._decrease(attempt_id, container, capability, scheduler)
            else:
                asks.extend(self._increase(attempt_id, container, capability))
        if errors:
            self.errors.setdefault(attempt_id, []).extend(errors)
        return msg, asks

    def _updatable(self, cid: ContainerId, attempt_id: ApplicationAttemptId) -> Container | None:
        """``scheduler.getRMContainer``: the live container of this attempt, an OPPORTUNISTIC one of the
        opportunistic service or one the scheduler holds (a promoted one included); None if unknown."""
        if cid.application_attempt_id != attempt_id or cid in self.hidden or cid not in self.rm.live:
            return None
        opportunistic = self.rm.opportunistic
        if opportunistic is not None:
            if cid in opportunistic.hidden:
                return None
            record = opportunistic.containers.get(cid)
            if record is not None:
                return record.container if record.attempt_id == attempt_id else None
        container: Container | None = self.rm.scheduler.live_container(cid)
        return container

    def after_allocate(self, attempt_id: ApplicationAttemptId, response: AllocateResponse) -> AllocateResponse:
        updated = self.updated.pop(attempt_id, None)
        errors = self.errors.pop(attempt_id, None)
        hidden = self.hidden
        allocated = response.allocated_containers
        completed = response.completed_container_statuses
        if hidden and allocated:
            allocated = tuple(c for c in allocated if c.id not in hidden)
        if hidden and completed:
            # a temporary container released by the RM (RELEASED_CONTAINER): the AM never saw it
            completed = tuple(s for s in completed if s.container_id not in hidden)
        if (
            not updated and not errors and allocated is response.allocated_containers
            and completed is response.completed_container_statuses
        ):  # fmt: skip
            return response
        return msgspec.structs.replace(
            response,
            allocated_containers=allocated,
            completed_container_statuses=completed,
            updated_containers=(*response.updated_containers, *(updated or ())),
            # validateAndSplit's errors before those of handling the accepted updates (the opportunistic service's
            # UPDATE_OUTSTANDING_ERROR for a promotion already outstanding): validateAndSplit runs first
            update_errors=(*(errors or ()), *response.update_errors),
        )

    def has_news(self, attempt_id: ApplicationAttemptId) -> bool:
        """Whether the attempt's next allocate has updates or errors to hand over."""
        return attempt_id in self.updated or attempt_id in self.errors

    # -- decrease ------------------------------------------------------------------------------------------------
    def _decrease(
        self, attempt_id: ApplicationAttemptId, container: Container, target: Resource, scheduler: Any
    ) -> None:
        decreased = scheduler.decrease_container(container.id, target, container.version + 1)
        if decreased is None:
            return
        self.counters["decreased"] += 1
        self._hand_over(attempt_id, DECREASE, decreased)
        self._push(decreased)
        self._check_confirmed(container.id, decreased.resource)
        self.rm.wake_node(decreased.node_id)
        log.info("container_decreased", container=str(container.id), resource=str(decreased.resource),
                 version=decreased.version)  # fmt: skip

    # -- increase ------------------------------------------------------------------------------------------------
    def _increase(
        self, attempt_id: ApplicationAttemptId, container: Container, target: Resource
    ) -> list[ResourceRequest]:
        current = container.resource
        delta = Resource(
            max(target.memory_mb, current.memory_mb) - current.memory_mb,
            max(target.vcores, current.vcores) - current.vcores,
        )
        asks: list[ResourceRequest] = []
        previous = self.increases.pop(container.id, None)
        if previous is not None:
            # checkAndAddToOutstandingIncreases: an increase of a container with one outstanding replaces it
            # (cancelPreviousRequest)
            del self.by_request[previous.attempt_id, previous.request_id]
            asks.extend(self._asks(container, previous.delta, previous.request_id, 0))
        if delta.memory_mb == 0 and delta.vcores == 0:
            return asks  # Resources.isNone(resToIncrease): nothing to ask for
        rid = increase_request_id(container.id)
        increase = _Increase(attempt_id, container, delta, rid)
        self.increases[container.id] = increase
        self.by_request[attempt_id, rid] = increase
        asks.extend(self._asks(container, delta, rid, 1))
        return asks

    def _asks(self, container: Container, delta: Resource, rid: int, count: int) -> list[ResourceRequest]:
        """``ContainerUpdateContext.createResourceRequests``: host, rack and ANY for the difference, on the
        container's node only."""
        node = self.rm.nodes.get(container.node_id)
        rack = node.rack if node is not None else "/default-rack"
        g = ExecutionTypeRequest(execution_type=ExecutionType.GUARANTEED, enforce_execution_type=True)

        def ask(name: str, relax: bool) -> ResourceRequest:
            return ResourceRequest(
                priority=container.priority, capability=delta, resource_name=name, num_containers=count,
                relax_locality=relax, execution_type_request=g, allocation_request_id=rid,
            )  # fmt: skip

        return [ask(container.node_id.host, True), ask(rack, False), ask(ANY, False)]

    def on_guaranteed_allocated(self, attempt_id: ApplicationAttemptId, container: Container) -> bool:
        """The scheduler allocated a GUARANTEED container; True if it is an increase's temporary container (the RM
        must not count it as a container of its own)."""
        increase = self.by_request.pop((attempt_id, container.allocation_request_id), None)
        if increase is None:
            return False
        self.increases.pop(increase.container_id, None)
        self.hidden.add(container.id)
        scheduler = self.rm.scheduler
        target = scheduler.live_container(increase.container_id)
        updated = None
        if target is not None:
            before = target.resource
            updated = scheduler.absorb_increase(container.id, increase.container_id, target.version + 1)
        if updated is None:
            # The container ended meanwhile, or the allocation is on another node: release the temporary one
            # (pullNewlyUpdatedContainers' tempContainerToKill).
            self.rm.dispatcher.update_requests(attempt_id, (), (container.id,))
            return True
        self.counters["increased"] += 1
        self._hand_over(attempt_id, INCREASE, updated)
        if self.auto_update:
            self._push(updated)
        else:
            # RMContainerUpdatesAcquiredEvent(increase=true): the ContainerAllocationExpirer watches the increase
            # (again from now, for a container increased twice); the last confirmed resource stays what it was.
            previous = self.unconfirmed.get(updated.id)
            confirmed = previous[1] if previous is not None else before
            self.unconfirmed[updated.id] = (self.rm.now + self.rm.alloc_expiry_ms, confirmed)
        log.info("container_increased", container=str(updated.id), resource=str(updated.resource),
                 version=updated.version)  # fmt: skip
        return True

    def _push(self, container: Container) -> None:
        """``RMNodeUpdateContainerEvent``: the NM is told in its next heartbeat response."""
        self.to_update.setdefault(container.node_id, {})[container.id] = container
        self.rm.wake_node(container.node_id)

    def _hand_over(self, attempt_id: ApplicationAttemptId, kind: ContainerUpdateType, container: Container) -> None:
        self.updated.setdefault(attempt_id, []).append(UpdatedContainer(update_type=kind, container=container))
        app = self.rm.apps.get(attempt_id.application_id)
        if app is not None:
            app.container_resized(container.id, container.resource)
        dormant = self.rm.dormant
        if dormant:
            dormant.wake(attempt_id)

    # -- NM reports and the expirer ---------------------------------------------------------------------------
    def nm_reported(self, cid: ContainerId, capability: Resource | None) -> None:
        """An NM reported ``cid`` RUNNING at ``capability`` (``RMContainerImpl``'s NM_DONE_CHANGE_RESOURCE): the last
        confirmed resource is what the NM runs, at most what the RM allocated; the expirer lets the container go
        once its allocation fits in that."""
        entry = self.unconfirmed.get(cid)
        if entry is None or capability is None:
            return
        current = self.rm.scheduler.live_container(cid)
        if current is None:
            return
        allocated = current.resource
        confirmed = Resource(min(capability.memory_mb, allocated.memory_mb), min(capability.vcores, allocated.vcores))
        self.unconfirmed[cid] = (entry[0], confirmed)
        self._check_confirmed(cid, allocated)
        if not _fits_in(capability, allocated):
            # AbstractYarnScheduler.containerIncreasedOnNode: the NM runs it bigger than the RM allocated it (a
            # stale increase token was used): the NM is told to decrease it to the allocation. The scheduler does
            # that in its NODE_UPDATE, after this heartbeat's response is built: it goes out with the next one.
            self.late.append(current)

    def _check_confirmed(self, cid: ContainerId, allocated: Resource) -> None:
        """Unregister ``cid`` from the expirer when its allocation fits in its last confirmed resource."""
        entry = self.unconfirmed.get(cid)
        if entry is not None and _fits_in(allocated, entry[1]):
            del self.unconfirmed[cid]

    def check_expiry(self, now: float) -> None:
        """``ContainerAllocationExpirer`` for increases: roll back the ones the NM never applied."""
        expired = [cid for cid, (deadline, _) in self.unconfirmed.items() if deadline <= now]
        for cid in expired:
            _, confirmed = self.unconfirmed.pop(cid)
            container = self.rm.scheduler.live_container(cid)
            if container is None:
                continue
            # rollbackContainerUpdate: a decrease to the last confirmed resource, when it fits in the current one
            if _fits_in(confirmed, container.resource):
                log.info("container_increase_rolled_back", container=str(cid), resource=str(confirmed))
                self.counters["rolled_back"] += 1
                self._decrease(cid.application_attempt_id, container, confirmed, self.rm.scheduler)

    def nm_running(self, cs: ContainerStatus) -> None:
        """ResourceTrackerService's running listener: ``nm_reported`` for a launched container reported RUNNING."""
        self.nm_reported(cs.container_id, cs.capability)

    def heartbeat_response_parts(
        self, node_id: NodeId, status: Any, completed: Any
    ) -> tuple[None, tuple[Container, ...]] | None:
        """ResourceTrackerService's response updater: the decreases to push to ``node_id`` (and the late pushes
        queued for the next heartbeat), or None when there are none."""
        if node_id in self.to_update or self.late:
            return None, self.heartbeat_updates(node_id)
        return None

    def expire(self, now: float) -> None:
        """The dispatcher's expirer (with the ContainerAllocationExpirer): increases the NM never applied are
        rolled back."""
        if self.unconfirmed:
            self.check_expiry(now)

    def heartbeat_updates(self, node_id: NodeId) -> tuple[Container, ...]:
        """The containers to update on ``node_id`` (``NodeHeartbeatResponse.containersToUpdate``)."""
        pushed = self.to_update.pop(node_id, None)
        late, self.late = self.late, []
        for container in late:
            self._push(container)
        return tuple(pushed.values()) if pushed else ()

    def on_container_done(self, cid: ContainerId) -> None:
        """A container ended: its outstanding increase is withdrawn and nothing of it expires."""
        self.unconfirmed.pop(cid, None)
        increase = self.increases.pop(cid, None)
        if increase is not None:
            del self.by_request[increase.attempt_id, increase.request_id]
            if increase.attempt_id in self.rm.attempts:
                withdraw = self._asks(increase.container, increase.delta, increase.request_id, 0)
                self.rm.dispatcher.update_requests(increase.attempt_id, tuple(withdraw), ())


def _fits_in(smaller: Resource, bigger: Resource) -> bool:
    """``Resources.fitsIn`` for memory and vcores."""
    return smaller.memory_mb <= bigger.memory_mb and smaller.vcores <= bigger.vcores
