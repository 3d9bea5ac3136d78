"""Container updates of the opportunistic containers (``ContainerUpdateContext`` for OPPORTUNISTIC containers):
promotions and demotions of the execution type, and the increases and decreases of an OPPORTUNISTIC container.

A base of :class:`~yarnball.actors._opportunisticams.OpportunisticContainerAllocatorAMService`, which holds the
state these read (its containers, promotions, updates and errors by attempt). A promotion is a GUARANTEED ask on the
container's node at a promotion request id; when the scheduler allocates it, the temporary container is swapped into
the promoted one (``swapContainer``) and the scheduler holds it from then on. A demotion takes effect at once: the
scheduler releases the GUARANTEED container, which runs on as OPPORTUNISTIC in this service.
"""

from __future__ import annotations

from typing import Any

import msgspec

from yarnball._logs import get_logger
from yarnball.actors._containerresize import UPDATE_OUTSTANDING_ERROR, validate_update
from yarnball.policies.scheduler import ACQUIRED, RUNNING
from yarnball.protocols import (
    ANY,
    AllocateRequest,
    ApplicationAttemptId,
    Container,
    ContainerId,
    ContainerUpdateType,
    ExecutionType,
    ExecutionTypeRequest,
    Resource,
    ResourceRequest,
    UpdateContainerRequest,
    UpdatedContainer,
)
from yarnball.protocols._amprotocol import UpdateContainerError

__all__ = ["PROMOTION_REQUEST_ID_BASE", "ExecutionTypeUpdates", "OppContainer"]

# The service's logger: these lines keep the name they had when this code was part of its module.
log = get_logger("yarnball.actors._opportunisticams")

#: Promotion asks use allocation request ids below this, one per promotion, so the scheduler keeps them apart
#: from the AM's own asks (Hadoop's SchedulerRequestKey carries ``containerToUpdate`` for the same purpose).
PROMOTION_REQUEST_ID_BASE = -(1 << 40)



class OppContainer:
    """An OPPORTUNISTIC container the service holds (its RMContainer), with its outstanding promotion."""

    __slots__ = ("attempt_id", "container", "promotion_capability", "promotion_rid", "state")

    def __init__(self, attempt_id: ApplicationAttemptId, container: Container, state: str = ACQUIRED) -> None:
        self.attempt_id = attempt_id
        self.container = container
        self.promotion_rid: int | None = None  # an outstanding promotion ask
        #: the capability of that ask: the container's size for a promotion, the difference for an increase
        #: (ContainerUpdateContext.getResourceToIncrease); None when the ask is not sent (nothing to increase)
        self.promotion_capability: Resource | None = None
        # RMContainerState: ACQUIRED once allocated (OpportunisticAMSProcessor.allocate moves the RMContainer there),
        # RUNNING once the NM reports it running (RMContainerImpl's LAUNCHED)
        self.state = state



class ExecutionTypeUpdates:
    """The container-update half of the opportunistic AM service (see the module docstring)."""

    rm: Any
    settings: Any
    containers: dict[ContainerId, OppContainer]
    updated: dict[ApplicationAttemptId, list[UpdatedContainer]]
    promotions: dict[int, ContainerId]
    hidden: set[ContainerId]
    demoting: set[ContainerId]
    _unhide: set[ContainerId]
    to_update: dict[Any, list[Container]]
    counters: Any
    _next_promotion: int
    _errors: dict[ApplicationAttemptId, list[UpdateContainerError]]

    # -- container updates -------------------------------------------------------------------------------------
    def _container_updates(self, msg: AllocateRequest, release: list[ContainerId]) -> list[ResourceRequest]:
        """``RMServerUtils.validateAndSplitUpdateResourceRequests``, then promotions as guaranteed asks
        (``checkAndAddToOutstandingIncreases``) and demotions at once (``handleDecreaseRequests``); a demoted
        GUARANTEED container's scheduler-side resources are appended to ``release``."""
        attempt_id = msg.application_attempt_id
        errors = self._errors.setdefault(attempt_id, [])
        asks: list[ResourceRequest] = []
        outstanding: set[ContainerId] = set()  # RMServerUtils' outstandingUpdate: accepted updates only
        accepted: list[tuple[UpdateContainerRequest, Container]] = []
        # Every request is validated before any is applied (validateAndSplit, then handle*Requests), so a
        # demotion granted here does not change the version the next request is checked against.
        for req in msg.update_requests:
            container = self._updatable(req.container_id, attempt_id)
            reason = self._validate_update(req, container, outstanding)
            if reason is not None:
                version = container.version if container is not None else -1
                errors.append(
                    UpdateContainerError(reason=reason, update_container_request=req, current_container_version=version)
                )
                continue
            assert container is not None  # for the type checker: a None container was refused above
            original, target = container.execution_type, req.execution_type
            if target is None or target is original:
                continue  # same-type (or no) target: silently ignored, as Hadoop
            outstanding.add(req.container_id)
            accepted.append((req, container))
        for req, container in accepted:
            if req.execution_type is ExecutionType.GUARANTEED:
                asks.extend(self._promote(req, attempt_id, errors))
            else:
                self._demote(req, attempt_id, container, release)
        if not errors:
            self._errors.pop(attempt_id, None)
        return asks

    def _updatable(self, cid: ContainerId, attempt_id: ApplicationAttemptId) -> Container | None:
        """The container an update names (``scheduler.getRMContainer``): an OPPORTUNISTIC one of this service, or a
        GUARANTEED one of the scheduler (a promoted one included); None if unknown, completed or another attempt's."""
        record = self.containers.get(cid)
        if record is not None:
            return record.container if record.attempt_id == attempt_id else None
        if cid not in self.rm.live or cid in self.hidden or cid.application_attempt_id != attempt_id:
            return None
        app = self.rm.scheduler.get_application(attempt_id)
        rmc = app.live.get(cid) if app is not None else None
        return rmc.container if rmc is not None else None

    def _validate_update(
        self, req: UpdateContainerRequest, container: Container | None, outstanding: set[ContainerId]
    ) -> str | None:
        """``validateContainerIdAndVersion`` (in Hadoop's order)."""
        return validate_update(req, container, outstanding, self.rm.maximum_allocation)

    def _promote(
        self, req: UpdateContainerRequest, attempt_id: ApplicationAttemptId, errors: list[UpdateContainerError]
    ) -> list[ResourceRequest]:
        record = self.containers[req.container_id]
        if record.promotion_rid is not None:
            # checkAndAddToOutstandingIncreases refuses a second promotion still waiting for the scheduler;
            # UpdateContainerError.newInstance(reason, req) leaves the version at its default, 0.
            errors.append(UpdateContainerError(reason=UPDATE_OUTSTANDING_ERROR, update_container_request=req))
            return []
        return self._outstanding_increase(record, record.container.resource)

    def _outstanding_increase(self, record: OppContainer, capability: Resource) -> list[ResourceRequest]:
        """``ContainerUpdateContext.checkAndAddToOutstandingIncreases``: the container is outstanding; a GUARANTEED
        ask for ``capability`` on its node is made unless it is none (``Resources.isNone(resToIncrease)``)."""
        self._next_promotion += 1
        rid = PROMOTION_REQUEST_ID_BASE - self._next_promotion
        record.promotion_rid = rid
        self.promotions[rid] = record.container.id
        if capability.memory_mb == 0 and capability.vcores == 0:
            record.promotion_capability = None
            return []
        record.promotion_capability = capability
        return self._promotion_request(record, rid, 1)

    def increase(
        self, attempt_id: ApplicationAttemptId, container: Container, target: Resource
    ) -> list[ResourceRequest]:
        """An INCREASE_RESOURCE of an OPPORTUNISTIC container, accepted by ``validateAndSplit`` (which does not look
        at the execution type). ``checkAndAddToOutstandingIncreases`` asks for the difference
        (``componentwiseMax(target, current) - current``) as GUARANTEED on the container's node, replacing an
        outstanding increase of it (``cancelPreviousRequest``; a promotion's key is the same, so the promotion's ask
        goes too). When the scheduler allocates it, ``addToNewlyAllocatedContainers`` files it as a promotion (the
        container is not GUARANTEED): the container becomes GUARANTEED at its old size (``swapContainer`` for
        PROMOTE_EXECUTION_TYPE keeps the existing resource) and the AM gets PROMOTE_EXECUTION_TYPE."""
        record = self._cancel_previous_request(container.id)
        current = container.resource
        delta = Resource(
            max(target.memory_mb, current.memory_mb) - current.memory_mb,
            max(target.vcores, current.vcores) - current.vcores,
        )
        return self._outstanding_increase(record, delta)

    def _cancel_previous_request(self, container_id: ContainerId) -> OppContainer:
        """The container's record, its outstanding increase or promotion withdrawn (``cancelPreviousRequest``)."""
        record = self.containers[container_id]
        rid = record.promotion_rid
        self._withdraw_promotion(record)
        if rid is not None:
            self.promotions.pop(rid, None)
        return record

    def decrease(self, attempt_id: ApplicationAttemptId, container: Container, target: Resource) -> None:
        """A DECREASE_RESOURCE of an OPPORTUNISTIC container (``handleDecreaseRequests``): it takes effect in this
        allocate, as a GUARANTEED one's does (``createDecreasedRMContainer`` keeps the execution type, so the
        container stays OPPORTUNISTIC), version + 1, and its NM is told in its next heartbeat response
        (``RMNodeUpdateContainerEvent``: a decrease is always automatic). An outstanding increase or promotion of
        the container is withdrawn (``checkAndAddToOutstandingDecreases``' ``cancelPreviousRequest``)."""
        record = self._cancel_previous_request(container.id)
        current = container.resource
        resource = Resource(min(target.memory_mb, current.memory_mb), min(target.vcores, current.vcores))
        decreased = msgspec.structs.replace(container, resource=resource, version=container.version + 1)
        record.container = decreased
        self.counters["decreased"] += 1
        self.updated.setdefault(attempt_id, []).append(
            UpdatedContainer(update_type=ContainerUpdateType.DECREASE_RESOURCE, container=decreased)
        )
        if not self.settings.auto_update:  # (with auto-update every pulled update is pushed: after_allocate)
            self.to_update.setdefault(decreased.node_id, []).append(decreased)
        log.info("container_decreased", container=str(container.id), resource=str(resource),
                 version=decreased.version)  # fmt: skip

    def _demote(
        self,
        req: UpdateContainerRequest,
        attempt_id: ApplicationAttemptId,
        container: Container,
        release: list[ContainerId],
    ) -> None:
        """Demotion is a decrease: it takes effect in this allocate call (version + 1) and the GUARANTEED resources
        leave the scheduler's books (Hadoop's ``createDemotedRMContainer`` + ``swapContainer``). The container (a
        promoted one too: the scheduler holds it since its promotion) comes back to this service."""
        cid = container.id
        app = self.rm.scheduler.get_application(attempt_id)
        rmc = app.live.get(cid) if app is not None else None
        if rmc is None or rmc.is_am:
            # yarnball keeps an AM container GUARANTEED: releasing it from the scheduler would end the attempt.
            log.warning("demotion_of_am_container_ignored", container=str(cid))
            return
        self.demoting.add(cid)  # the scheduler's release must not end the container (see absorbs_release)
        self.hidden.add(cid)  # nor reach the AM as a completion (until that status is dropped: after_allocate)
        self._unhide.add(cid)
        release.append(cid)
        state = RUNNING if rmc.state == RUNNING else ACQUIRED
        record = self.containers[cid] = OppContainer(attempt_id, container, state)
        demoted = msgspec.structs.replace(
            container, execution_type=ExecutionType.OPPORTUNISTIC, version=container.version + 1
        )
        record.container = demoted
        self.counters["demoted"] += 1
        self.updated.setdefault(attempt_id, []).append(
            UpdatedContainer(update_type=ContainerUpdateType.DEMOTE_EXECUTION_TYPE, container=demoted)
        )
        log.info("container_demoted", container=str(cid), version=demoted.version)

    def absorbs_release(self, cid: ContainerId) -> bool:
        """True once for a demoted container the scheduler just released: it runs on as OPPORTUNISTIC, so the RM
        must neither count it ended nor tell its NM to kill it."""
        if cid in self.demoting:
            self.demoting.discard(cid)
            return True
        return False

    def _promotion_request(self, record: OppContainer, rid: int, count: int) -> list[ResourceRequest]:
        c = record.container
        capability = record.promotion_capability or c.resource
        node = self.rm.nodes.get(c.node_id)
        rack = node.rack if node is not None else "/default-rack"
        g = ExecutionTypeRequest(execution_type=ExecutionType.GUARANTEED)

        def ask(name: str, relax: bool) -> ResourceRequest:
            return ResourceRequest(
                priority=c.priority, capability=capability, resource_name=name, num_containers=count,
                relax_locality=relax, execution_type_request=g, allocation_request_id=rid,
            )

        # The container's own host only: relaxLocality=false on the rack and ANY entries.
        return [ask(c.node_id.host, True), ask(rack, False), ask(ANY, False)]

    def _withdraw_promotion(self, record: OppContainer) -> None:
        rid = record.promotion_rid
        record.promotion_rid = None
        if rid is not None and record.promotion_capability is not None and record.attempt_id in self.rm.attempts:
            self.rm.dispatcher.update_requests(record.attempt_id, tuple(self._promotion_request(record, rid, 0)), ())
        record.promotion_capability = None

    def on_guaranteed_allocated(self, attempt_id: ApplicationAttemptId, container: Container) -> bool:
        """The scheduler allocated a GUARANTEED container; True if it serves a promotion (then the RM must not
        count it as an ordinary allocation)."""
        original = self.promotions.pop(container.allocation_request_id, None)
        if original is None:
            return False
        record = self.containers.get(original)
        # SchedulerApplicationAttempt.addToNewlyAllocatedContainers: the container ended meanwhile (COMPLETED:
        # tempContainerToKill). Its completion may be in the very heartbeat whose NODE_UPDATE allocated this one,
        # handed to this service only after it (on_node_heartbeat): the RM no longer counts it live.
        ended = record is None or original not in self.rm.live
        misplaced = record is not None and container.node_id != record.container.node_id
        if ended or misplaced:
            # Either way the temporary container goes back, unseen by the AM.
            self.hidden.add(container.id)
            self.rm.dispatcher.update_requests(attempt_id, (), (container.id,))
            if record is None:
                return True
            rid = record.promotion_rid
            if ended:
                record.promotion_rid = None
            elif rid is not None:
                # matchContainerToOutstandingIncreaseReq's UNDEFINED: placed on another node; ask again.
                self.promotions[rid] = original
                self.rm.dispatcher.update_requests(attempt_id, tuple(self._promotion_request(record, rid, 1)), ())
            return True
        assert record is not None  # (ended otherwise)
        record.promotion_rid = None
        record.promotion_capability = None
        promoted = msgspec.structs.replace(
            record.container, execution_type=ExecutionType.GUARANTEED, version=record.container.version + 1
        )
        # swapContainer: the scheduler holds the promoted container from now on (it leaves this service)
        swapped = self.rm.scheduler.swap_promoted(container.id, promoted, running=record.state == RUNNING)
        assert swapped, "a promotion's container was allocated on its node just now"
        del self.containers[original]
        self.counters["promoted"] += 1
        self.updated.setdefault(attempt_id, []).append(
            UpdatedContainer(update_type=ContainerUpdateType.PROMOTE_EXECUTION_TYPE, container=promoted)
        )
        log.info("container_promoted", container=str(original), version=promoted.version)
        return True
