"""ApplicationMasterService: AM registration, allocate heartbeats and unregistration, with Hadoop's AMS processing
chain (``AMSProcessingChain``).

An allocate is authorized (the attempt's AMRMToken, actors/_amrmauth.py), checked for a registered attempt and a
fresh response id (actors/_amrpc.py), then handed to the chain, chosen when the RM is built
(:meth:`ApplicationMasterService.build_chain`):

- ``DefaultAMSProcessor``: the asks, releases and blacklist to the scheduler through the RM's dispatcher, the
  allocated containers pulled with their tokens, the response;
- with container updates: the update requests split first (``ContainerResizeService.before_allocate``: decreases
  now, increases as asks; actors/_containerresize.py), the updated containers signed after;
- ``OpportunisticAMSProcessor`` (actors/_opportunisticams.py) in front: OPPORTUNISTIC asks never reach the
  scheduler, promotions and demotions are handled, and every allocated container is pulled after it;
- with decommissioning nodes (actors/_decommission.py): the node updates (``DefaultAMSProcessor
  .handleNodeUpdates``).

Without optional services the chain is the default processor alone, and the allocate path never asks whether a
service exists; an update request before any container resize takes the update member that starts the resize
service (the chain is chosen again then: ``ResourceManager.services_changed``). An attempt an RM restart recovered
is answered ApplicationMasterNotRegisteredException until it registers again (``RMRestarts.not_registered``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from mypy_extensions import mypyc_attr

from yarnball.actors._amrmauth import am_refusal
from yarnball.actors._amrpc import REFUSED, old_allocate
from yarnball.actors._containerresize import RESIZE_TYPES, ContainerResizeService
from yarnball.actors._preemption import preemption_message
from yarnball.actors._rmapp import AttemptState, RMAppAttempt
from yarnball.actors._rmcontext import RMContext
from yarnball.protocols import (
    AllocateRequest,
    AllocateResponse,
    AMCommand,
    ApplicationAttemptId,
    Container,
    ContainerId,
    DistributedSchedulingAllocateRequest,
    FinishApplicationMasterRequest,
    FinishApplicationMasterResponse,
    RegisterApplicationMasterRequest,
    RegisterApplicationMasterResponse,
    RegisterDistributedSchedulingAMRequest,
    RemoteRefusal,
    ResourceRequest,
    YarnApplicationState,
)

__all__ = ["ApplicationMasterService"]

# Attempt states an allocate is served in (a constant: an Enum class attribute is a slow lookup, and this is read
# on every allocate); none of them is a done state (RMAppAttempt.is_done).
_ALLOCATE_STATES = (AttemptState.RUNNING, AttemptState.FINISHING)
_SHUTDOWN = AMCommand.AM_SHUTDOWN
_replace = msgspec.structs.replace


@mypyc_attr(allow_interpreted_subclasses=True)
class ApplicationMasterService:
    """The ApplicationMasterService of the RM ``rm`` (see the module docstring)."""

    def __init__(self, rm: Any) -> None:
        self.rm = rm
        self.context: RMContext = rm.context  # (actors/_rmcontext.py: its fields are native reads)
        #: The chain's members (chosen by build_chain).
        self.process: Any = None
        self.split_updates: Any = None
        self.split_asks: Any = None
        self.after: tuple[Any, ...] = ()
        self.pull_first = True
        self.not_serving: Any = None
        self.on_register_am_distributed: Any = None
        self.on_allocate_distributed: Any = None
        self.build_chain()

    def build_chain(self) -> None:
        """Choose the processing chain from the RM's optional services (see the module docstring)."""
        rm = self.rm
        opportunistic, resize, decommissioning = rm.opportunistic, rm.resize, rm.decommissioning
        self.split_updates = resize.before_allocate if resize is not None else self._first_updates
        self.split_asks = opportunistic.before_allocate if opportunistic is not None else _asks
        # the GUARANTEED containers are pulled in the default processor, or all of them after the opportunistic one
        self.pull_first = opportunistic is None
        after: list[Any] = []
        if opportunistic is not None:
            after.append(self._after_opportunistic)
        if resize is not None:
            after.append(self._after_resize)
        if decommissioning is not None:
            after.append(decommissioning.after_allocate)
        self.after = tuple(after)
        self.process = self._process_chain if after else self._process
        self.not_serving = self._not_registered if rm.restarts is not None else _am_shutdown
        # DistributedSchedulingAMService: with the opportunistic service only
        if opportunistic is not None:
            self.on_register_am_distributed = self._register_am_distributed
            self.on_allocate_distributed = self._allocate_distributed
        else:
            self.on_register_am_distributed = self._register_distributed_disabled
            self.on_allocate_distributed = self._allocate_distributed_disabled

    def current_attempt(self, attempt_id: ApplicationAttemptId) -> RMAppAttempt | None:
        ctx = self.context
        attempt = ctx.attempts.get(attempt_id)
        if attempt is None or attempt.is_done:
            return None
        return attempt

    # -- registration -------------------------------------------------------------------------------------------
    def on_register_am(self, msg: RegisterApplicationMasterRequest) -> None:
        rm = self.rm
        response: Any = am_refusal(rm, msg.application_attempt_id, msg.amrm_token, msg)
        if response is None:
            response = self.register_am(msg)
        if response is not None:
            rm.reply(response)

    def register_am(self, msg: RegisterApplicationMasterRequest) -> RegisterApplicationMasterResponse | None:
        ctx = self.context
        rm = self.rm
        attempt = self.current_attempt(msg.application_attempt_id)
        if attempt is None:
            rm.log.warning("register_unknown_attempt", attempt=str(msg.application_attempt_id))
            return None
        attempt.state = AttemptState.RUNNING
        attempt.last_heartbeat = ctx.kernel.now
        ctx.app_manager.store.registered(attempt.attempt_id)
        app = ctx.apps[msg.application_attempt_id.application_id]
        app.state = YarnApplicationState.RUNNING
        rm.log.info("am_registered", attempt=str(attempt.attempt_id))
        # ApplicationMasterService.registerApplicationMaster: getMaximumResourceCapability(app.getQueue()), the
        # largest container the attempt may ask for now (capped by the largest node once the RM's first
        # scheduling-wait-ms are over), not the configured maximum
        sched_app = ctx.scheduler.attempts.get(attempt.attempt_id)
        maximum = ctx.scheduler.maximum_allocation_of(sched_app) if sched_app is not None else rm.maximum_allocation
        if app.context.keep_containers_across_application_attempts and attempt.attempt_id.attempt_id > 1:
            # ApplicationMasterService.registerApplicationMaster: getContainersFromPreviousAttempts, and an NMToken for
            # each of their nodes (NMTokenSecretManagerInRM.createAndGetNMToken) so the new AM can stop or query them
            kept = ctx.scheduler.previous_attempt_containers(attempt.attempt_id)
            return RegisterApplicationMasterResponse(
                maximum_resource_capability=maximum,
                queue=app.queue,
                containers_from_previous_attempts=kept,
                nm_tokens_from_previous_attempts=ctx.secrets.nm_tokens_for(attempt.attempt_id, kept, app.context.user),
            )
        return RegisterApplicationMasterResponse(maximum_resource_capability=maximum, queue=app.queue)

    def _register_distributed_disabled(self, msg: RegisterDistributedSchedulingAMRequest) -> None:
        attempt_id = msg.register_request.application_attempt_id
        self.rm.log.warning("distributed_scheduling_disabled", attempt=str(attempt_id))

    def _register_am_distributed(self, msg: RegisterDistributedSchedulingAMRequest) -> None:
        """DistributedSchedulingAMService.registerApplicationMasterForDistributedScheduling (from an AMRMProxy)."""
        rm = self.rm
        refusal = am_refusal(rm, msg.register_request.application_attempt_id, msg.register_request.amrm_token, msg)
        if refusal is not None:
            rm.reply(refusal)
            return
        response = self.register_am(msg.register_request)
        if response is not None:
            rm.reply(rm.opportunistic.register_distributed(response))

    def on_finish_am(self, msg: FinishApplicationMasterRequest) -> None:
        ctx = self.context
        rm = self.rm
        refusal = am_refusal(rm, msg.application_attempt_id, msg.amrm_token, msg)
        if refusal is not None:
            rm.reply(refusal)
            return
        attempt = self.current_attempt(msg.application_attempt_id)
        store = ctx.app_manager.store
        if attempt is not None:
            refusal = store.not_registered(attempt.attempt_id)  # ApplicationMasterService.finishApplicationMaster
            if refusal is not None:
                rm.reply(refusal)
                return
            attempt.state = AttemptState.FINISHING
            attempt.final_status = msg.final_application_status
            app = ctx.apps[msg.application_attempt_id.application_id]
            app.diagnostics = msg.diagnostics
            store.am_unregistered(app, attempt)
            rm.log.info(
                "am_unregistered", attempt=str(attempt.attempt_id), final_status=msg.final_application_status.value
            )
        rm.reply(FinishApplicationMasterResponse(is_unregistered=attempt is not None))

    # -- allocate -------------------------------------------------------------------------------------------------
    def on_allocate(self, msg: AllocateRequest) -> None:
        response = self.serve_allocate(msg)
        if response is not REFUSED:
            self.rm.reply(response)

    def _allocate_distributed_disabled(self, msg: DistributedSchedulingAllocateRequest) -> None:
        self.rm.reply(AllocateResponse(am_command=AMCommand.AM_SHUTDOWN))

    def _allocate_distributed(self, msg: DistributedSchedulingAllocateRequest) -> None:
        """DistributedSchedulingAMService.allocateForDistributedScheduling: record the NM-allocated containers,
        allocate the GUARANTEED asks, return a fresh least-loaded node list."""
        rm = self.rm
        request = msg.allocate_request
        refusal = am_refusal(rm, request.application_attempt_id, request.amrm_token, msg)
        if refusal is not None:
            rm.reply(refusal)  # before the NM-allocated containers are recorded: nothing of the attempt changes
            return
        rm.opportunistic.record_remote_allocations(request.application_attempt_id, msg.allocated_containers)
        response = self.serve_allocate(msg.allocate_request)
        if response is REFUSED:
            return
        # (its authentication was refused above, and an RM restart with opportunistic containers is not modelled)
        assert isinstance(response, AllocateResponse)
        rm.reply(rm.opportunistic.distributed_allocate_response(response))

    def serve_allocate(self, msg: AllocateRequest) -> Any:
        """ApplicationMasterService.allocate: the checks, then the processing chain; the response is kept as the
        attempt's last. An AllocateResponse, a RemoteRefusal, or REFUSED for an allocate too far behind
        (actors/_amrpc.py): the compiled return would check a narrower type."""
        ctx = self.context
        rm = self.rm
        attempt_id = msg.application_attempt_id
        attempt: RMAppAttempt | None = ctx.attempts.get(attempt_id)  # current_attempt: a done attempt's state is not
        token = msg.amrm_token
        if attempt is None or (token is not attempt.amrm_token and token != attempt.amrm_token):
            # ApplicationMasterService.allocate: YarnServerSecurityUtils.authorizeRequest (actors/_amrmauth.py)
            return am_refusal(rm, attempt_id, token, msg)  # (never None here)
        if attempt.state not in _ALLOCATE_STATES:  # one of these
            return self.not_serving(attempt_id)
        attempt.last_heartbeat = ctx.kernel.now  # (Actor.now without the property call)
        if msg.response_id != attempt.response_id:
            old = old_allocate(rm, attempt, msg)  # an old heartbeat, or one refused (actors/_amrpc.py)
            if old is not None:
                return old
        response = self.process(attempt, msg)
        attempt.last_response = response
        return response

    def _not_registered(self, attempt_id: ApplicationAttemptId) -> AllocateResponse | RemoteRefusal:
        """With RM restarts: a recovered attempt not registered again is refused (ApplicationMasterService
        .allocate), any other attempt not RUNNING or FINISHING is told to shut down."""
        refusal = self.rm.restarts.not_registered(attempt_id)
        if refusal is not None:
            return refusal  # type: ignore[no-any-return]
        return AllocateResponse(am_command=_SHUTDOWN)

    def _process(self, attempt: RMAppAttempt, msg: AllocateRequest) -> AllocateResponse:
        """DefaultAMSProcessor.allocate, alone in the chain."""
        ctx = self.context
        if msg.update_requests:
            return self._process_chain(attempt, msg)  # (the update member splits them)
        attempt_id = msg.application_attempt_id
        allocation = ctx.dispatcher.allocate(attempt_id, msg.ask, msg.release, msg.resource_blacklist_request)
        attempt.response_id = response_id = msg.response_id + 1
        containers = allocation.containers
        nm_tokens: tuple[Any, ...] = ()
        if containers:
            containers, nm_tokens = self.pull(attempt_id, containers)
        return AllocateResponse(
            response_id=response_id,
            allocated_containers=containers,
            completed_container_statuses=allocation.completed,
            available_resources=allocation.headroom,
            num_cluster_nodes=len(ctx.nodes),
            # (None without marks: preemption_message is not called then)
            preemption_message=preemption_message(allocation, ctx.scheduler, attempt_id)
            if allocation.preempt
            else None,
            nm_tokens=nm_tokens,
        )

    def _process_chain(self, attempt: RMAppAttempt, msg: AllocateRequest) -> AllocateResponse:
        """The chain with its members: the update requests split, the asks split, the default processor's
        allocate, then the processors after it in order."""
        ctx = self.context
        attempt_id = msg.application_attempt_id
        resize_asks: list[ResourceRequest] = []
        if msg.update_requests:
            msg, resize_asks = self.split_updates(msg)  # decreases now; increases become asks
        ask: Sequence[ResourceRequest]
        release: Sequence[ContainerId]
        ask, release = self.split_asks(msg)  # OPPORTUNISTIC asks never reach the scheduler
        if resize_asks:
            ask = [*ask, *resize_asks]
        allocation = ctx.dispatcher.allocate(attempt_id, ask, release, msg.resource_blacklist_request)
        attempt.response_id = response_id = msg.response_id + 1
        containers = allocation.containers
        nm_tokens: tuple[Any, ...] = ()
        if containers and self.pull_first:
            containers, nm_tokens = self.pull(attempt_id, containers)
        response = AllocateResponse(
            response_id=response_id,
            allocated_containers=containers,
            completed_container_statuses=allocation.completed,
            available_resources=allocation.headroom,
            num_cluster_nodes=len(ctx.nodes),
            # (None without marks: preemption_message is not called then)
            preemption_message=preemption_message(allocation, ctx.scheduler, attempt_id)
            if allocation.preempt
            else None,
            nm_tokens=nm_tokens,
        )
        for processor in self.after:  # (read after the split: a resize service started by it is in the chain now)
            response = processor(attempt_id, msg, response)
        return response

    def _first_updates(self, msg: AllocateRequest) -> tuple[AllocateRequest, list[ResourceRequest]]:
        """The update member before any container resize: the first increase or decrease request starts the
        resize service (actors/_containerresize.py), which splits it; other update requests stay in ``msg``."""
        if not any(r.container_update_type in RESIZE_TYPES for r in msg.update_requests):
            return msg, []
        rm = self.rm
        rm.resize = ContainerResizeService(rm)
        rm.services_changed()
        return rm.resize.before_allocate(msg)  # type: ignore[no-any-return]

    def _after_opportunistic(self, attempt_id: ApplicationAttemptId, msg: AllocateRequest, response: Any) -> Any:
        """OpportunisticAMSProcessor after the default one; the GUARANTEED and the OPPORTUNISTIC containers are
        pulled, with tokens for all."""
        response = self.rm.opportunistic.after_allocate(msg, response)
        if response.allocated_containers:
            containers, nm_tokens = self.pull(attempt_id, response.allocated_containers)
            response = _replace(response, allocated_containers=containers, nm_tokens=nm_tokens)
        return response

    def _after_resize(self, attempt_id: ApplicationAttemptId, msg: AllocateRequest, response: Any) -> Any:
        """The container updates' results; an updated container leaves with its new container token."""
        response = self.rm.resize.after_allocate(attempt_id, response)
        if response.updated_containers:
            response = self.sign_updated(attempt_id, response)
        return response

    def sign_updated(self, attempt_id: ApplicationAttemptId, response: AllocateResponse) -> AllocateResponse:
        """``SchedulerApplicationAttempt.pullNewlyUpdatedContainers``: each updated container (resized, promoted,
        demoted) gets a container token for its new version."""
        ctx = self.context
        user = ctx.apps[attempt_id.application_id].context.user
        sign = ctx.secrets.sign
        updated = tuple([_replace(u, container=sign(u.container, user)) for u in response.updated_containers])
        return _replace(response, updated_containers=updated)

    def pull(self, attempt_id: ApplicationAttemptId, containers: tuple[Container, ...]) -> tuple[Any, Any]:
        """``SchedulerApplicationAttempt.pullNewlyAllocatedContainers``: each container leaves with its container
        token, and with an NMToken for every node the attempt has none for yet (``NMTokenSecretManagerInRM``)."""
        ctx = self.context
        user = ctx.apps[attempt_id.application_id].context.user
        secrets = ctx.secrets
        return secrets.sign_all(containers, user), secrets.nm_tokens_for(attempt_id, containers, user)


def _asks(msg: AllocateRequest) -> tuple[Any, Any]:
    """The asks member without the opportunistic service: every ask and release goes to the scheduler."""
    return msg.ask, msg.release


def _am_shutdown(attempt_id: ApplicationAttemptId) -> AllocateResponse:
    """ApplicationMasterService: ApplicationAttemptNotFoundException / not registered -> the AM shuts down."""
    return AllocateResponse(am_command=_SHUTDOWN)
