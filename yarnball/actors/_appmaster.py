"""The ApplicationMaster base class: submission, registration, the allocate heartbeat and callbacks; its
AMRMClient-like request API is its base :class:`~yarnball.actors._amrmclient.AMRMClient` (actors/_amrmclient.py).

Subclass :class:`ApplicationMaster` and override the callbacks::

    class MyAM(ApplicationMaster):
        def on_registered(self, response):
            self.add_container_request(Resource(1024, 1), priority=20, count=10)

        def on_containers_allocated(self, containers):
            for c in containers:
                self.start_container(c, duration_ms=30_000)

        def on_containers_completed(self, statuses):
            if self.completed_ok >= 10:
                self.finish()

The AM submits its application at ``submit_at_ms`` (GetNewApplication, then SubmitApplication), waits for the RM
to launch its AM container, registers, then heartbeats ``allocate`` every ``heartbeat_interval_ms``. As in
``AMRMClientImpl``, the ask table is keyed by (priority, resource name, execution type, capability) and only the
entries that changed since the previous heartbeat are sent, with absolute counts that replace the RM's; each
allocated container is matched to the oldest outstanding request of its priority (node-local first, then rack,
then any), whose host, rack and ``*`` entries are decremented, like ``removeContainerRequest``.

Tokens are carried as a real AM's client libraries carry them: the AMRMToken from the AM container's credentials
(``ContainerLaunched``'s launch context) goes with every register, allocate and finish; the NMTokens that come with
allocated containers are kept per node (``NMTokenCache``) and go with every call to that node's NodeManager, and each
container carries its own container token (protocols/_tokens.py).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._actor import Actor, handler
from yarnball.actors._amnmclient import NMClient
from yarnball.actors._amresync import AMResync
from yarnball.actors._amrmclient import AMRMClient, AskKey
from yarnball.actors._amrmproxy import AMRMPROXY_ENV
from yarnball.actors._amrpc import AllocateCall
from yarnball.actors._amtasks import (
    ContainerRequest,
    match_containers,
)
from yarnball.actors._asktable import take_changed
from yarnball.actors._nodemanager import nm_actor_id
from yarnball.actors._shortcuts import (
    HeartbeatTimer,
    hold_tell,
    idle_allocate,
    sleep_after_response,
)
from yarnball.protocols import (
    AllocateRequest,
    AllocateResponse,
    AMCommand,
    AMRMToken,
    ApplicationAttemptId,
    ApplicationId,
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerStatus,
    ContainerUpdateType,
    FinalApplicationStatus,
    FinishApplicationMasterRequest,
    FinishApplicationMasterResponse,
    GetNewApplicationRequest,
    GetNewApplicationResponse,
    NMToken,
    NodeId,
    NodeReport,
    PreemptionMessage,
    Priority,
    RegisterApplicationMasterRequest,
    RegisterApplicationMasterResponse,
    RemoteRefusal,
    Resource,
    ResourceBlacklistRequest,
    SubmitApplicationRequest,
    SubmitApplicationResponse,
    UpdatedContainer,
)
from yarnball.protocols._amprotocol import UpdateContainerError
from yarnball.protocols._clientprotocol import ApplicationSubmissionContext
from yarnball.protocols._containermanagement import ContainerLaunchContext
from yarnball.protocols._executor import (
    ATTEMPT_ID_ENV,
    PROCESS_ACTOR_ENV,
    ContainerLaunched,
    ContainerProcessExited,
    ContainerTerminated,
)

__all__ = ["ApplicationMaster", "AskKey", "ContainerRequest"]

DEFAULT_AM_RESOURCE = Resource(1024, 1)
# Records are frozen: one shared instance of this small one (sent with every allocate).
_NO_BLACKLIST_CHANGE = ResourceBlacklistRequest()
# Enum members and values read per container: an Enum class attribute and ``.value`` are each a slow lookup (a
# metaclass / descriptor path), a module constant and the member's ``_value_`` attribute are plain ones.
_AM_SHUTDOWN = AMCommand.AM_SHUTDOWN


class ApplicationMaster(AMRMClient, NMClient, AMResync):
    """Base class of every ApplicationMaster, SLS's simulated ones and users' own."""

    #: May an allocate with nothing to send that would get nothing back be skipped (_shortcuts/_amheartbeats.py), and
    #: may the AM then sleep through its heartbeats until work appears (_shortcuts/_amdormancy.py)? Only for AMs that
    #: act on nothing but the response's containers, preemption message and node updates: such an AM must not read
    #: ``headroom``, ``num_cluster_nodes`` or ``response_id`` between allocates that return something, since the
    #: values of skipped allocates are settled only when it wakes (headroom then being that of its last processed
    #: allocate, not of every skipped one).
    quiet_when_idle = False
    def __init__(
        self,
        *,
        name: str,
        queue: str = "default",
        user: str = "default",
        am_resource: Resource = DEFAULT_AM_RESOURCE,
        priority: int = 0,
        submit_at_ms: float = 0,
        heartbeat_interval_ms: float = 1000,
        max_app_attempts: int = 0,
        application_type: str = "YARN",
        rm_id: str = "rm",
        keep_containers_across_application_attempts: bool = False,
    ) -> None:
        self.name = name
        self.queue = queue
        self.user = user
        self.am_resource = am_resource
        self.app_priority = priority
        self.submit_at_ms = submit_at_ms
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.max_app_attempts = max_app_attempts
        self.application_type = application_type
        self.rm_id = rm_id
        #: ApplicationSubmissionContext.keepContainersAcrossApplicationAttempts: a failed attempt's running containers
        #: stay, and the next attempt gets them in RegisterApplicationMasterResponse.containersFromPreviousAttempts.
        self.keep_containers = keep_containers_across_application_attempts
        #: The allocate RPC client (actors/_amrpc.py) in a run with message faults; None: every tick sends.
        self._rpc: AllocateCall | None = None
        self.application_id: ApplicationId | None = None
        self.attempt_id: ApplicationAttemptId | None = None
        self.am_container: Container | None = None
        self.maximum_capability: Resource | None = None
        self.headroom = Resource()
        self.num_cluster_nodes = 0
        self.finished = False
        self.running: dict[ContainerId, Container] = {}
        self.submitted_at: float | None = None
        self.registered_at: float | None = None
        self._amrm_id: str | None = None
        self.amrm_token: AMRMToken | None = None  # this attempt's, from the AM container's credentials
        self.nm_tokens: dict[NodeId, NMToken] = {}  # NMTokenCache: the attempt's NMToken per node
        #: The AM's Sleeper while it is dormant (actors/_shortcuts/_amdormancy.py), else None.
        self.sleeper: Any = None
        self._reset_attempt_state()

    def retry_allocate_calls(self, retry_ms: float) -> None:
        """Allocate calls wait for their answers and are retried after ``retry_ms`` (RMProxy: a run that restarts the
        RM or has message faults, actors/_amrpc.py); an AM that already retries keeps its client."""
        if self._rpc is None:
            self._rpc = AllocateCall(self, retry_ms)

    def _reset_attempt_state(self) -> None:
        self._new_request_state()
        #: The response id of the last AllocateResponse taken (its next allocate sends it).
        self.response_id = 0
        #: The allocate heartbeat's timer (a HeartbeatTimer once registered; None before, or once it ended).
        self.heartbeat_timer: Any = None
        self._unregistering = False
        self.running = {}
        if self._rpc is not None:
            self._rpc.reset()
        if self._nm_calls is not None:
            self._nm_calls.reset()

    def _exited(self) -> None:
        """The AM process exits once its unregistration is answered: what it kept in memory for its requests and
        its NodeManagers (AMRMClient's request table, NMClient's NMTokenCache) goes with it, so that a long trace
        holds ~20 kB per finished job instead of ~80 kB. Kept: the job's record (its ids, times and status, the
        containers it still counted as running). The emptied dictionaries are replaced, not cleared: a dictionary
        keeps the table of its largest size."""
        self._new_request_state()
        self.nm_tokens = {}
        if not self.running:
            self.running = {}

    @property
    def rm(self) -> Any:
        return self.kernel.lookup(self.rm_id)

    @property
    def amrm(self) -> Any:
        """Where ApplicationMasterProtocol goes: the RM, or the node's AMRMProxy when the NM named one."""
        return self.kernel.lookup(self._amrm_id) if self._amrm_id is not None else self.rm

    # -- callbacks for subclasses -----------------------------------------------------------------------------
    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        """The AM is registered: add the first container requests here."""

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        """New containers: start them with :meth:`start_container` or give them back with :meth:`release`."""

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        """Containers ended (exit status SUCCESS, PREEMPTED, KILLED_*, ABORTED, ...)."""

    def on_preemption_message(self, message: PreemptionMessage) -> None:
        """The RM wants resources back: a strict contract (will be taken) and/or a negotiable one."""

    def on_node_updates(self, reports: tuple[NodeReport, ...]) -> None:
        """Nodes changed state (lost, unhealthy, decommissioned)."""

    def on_attempt_restarted(self) -> None:
        """A new attempt of this application started after the previous AM container died."""

    def on_shutdown_request(self) -> None:
        """The RM told the AM to shut down (its attempt is gone)."""

    def on_containers_updated(self, updated: tuple[UpdatedContainer, ...]) -> None:
        """The RM granted container updates (e.g. a promotion to GUARANTEED); by default the NMs are told (but for
        a resource decrease, which the RM pushes to the NM itself)."""
        for u in updated:
            self.running[u.container.id] = u.container
            if u.update_type is not ContainerUpdateType.DECREASE_RESOURCE:
                self.update_container_on_node(u.container, u.update_type)

    def on_update_errors(self, errors: tuple[UpdateContainerError, ...]) -> None:
        """The RM refused container updates (``UpdateContainerError`` reasons as Hadoop's)."""

    # -- submission (the client side) -------------------------------------------------------------------------
    def on_start(self) -> None:
        self.after(self.submit_at_ms, self._get_new_application)

    def _get_new_application(self) -> None:
        self.rm.tell(GetNewApplicationRequest(), self.ref)

    @handler
    def on_new_application(self, msg: GetNewApplicationResponse) -> None:
        self.application_id = msg.application_id
        self.maximum_capability = msg.maximum_resource_capability
        context = ApplicationSubmissionContext(
            application_id=msg.application_id,
            application_name=self.name,
            queue=self.queue,
            priority=Priority(self.app_priority),
            user=self.user,
            am_container_spec=ContainerLaunchContext(environment=((PROCESS_ACTOR_ENV, self.id),)),
            am_container_resource=self.am_resource,
            application_type=self.application_type,
            max_app_attempts=self.max_app_attempts,
            keep_containers_across_application_attempts=self.keep_containers,
        )
        self.submitted_at = self.now
        self.rm.tell(SubmitApplicationRequest(application_submission_context=context), self.ref)

    @handler
    def on_submitted(self, msg: SubmitApplicationResponse) -> None:
        pass

    # -- launch and registration ------------------------------------------------------------------------------
    @handler
    def on_launched(self, msg: ContainerLaunched) -> None:
        attempt = dict(msg.launch_context.environment).get(ATTEMPT_ID_ENV)
        if attempt is None:
            self.log.warning("am_launched_without_attempt_id", container=str(msg.container.id))
            return
        restarted = self.attempt_id is not None
        if self.heartbeat_timer is not None:
            # the previous process's heartbeat timer (its exit was not reported to us): one heartbeat per process
            self.heartbeat_timer.cancel()
        self._reset_attempt_state()
        self.attempt_id = ApplicationAttemptId.parse(attempt)
        self.am_container = msg.container
        self._amrm_id = dict(msg.launch_context.environment).get(AMRMPROXY_ENV)
        # UserGroupInformation's credentials: the AMRMToken the RM put in the AM container's launch context
        tokens = msg.launch_context.tokens
        self.amrm_token = next((t for t in tokens if t.application_attempt_id == self.attempt_id), None)
        self.nm_tokens = {}
        if restarted:
            self.on_attempt_restarted()
        self.amrm.tell(
            RegisterApplicationMasterRequest(application_attempt_id=self.attempt_id, amrm_token=self.amrm_token),
            self.ref,
        )

    @handler
    def on_registered_response(self, msg: RegisterApplicationMasterResponse) -> None:
        if self._rpc is not None and self._resynced(msg):
            return  # registered again after an RM restart (actors/_amresync.py)
        self.maximum_capability = msg.maximum_resource_capability
        for token in msg.nm_tokens_from_previous_attempts:
            self.nm_tokens[token.node_id] = token
        self.registered_at = self.now
        for container in msg.containers_from_previous_attempts:  # kept across attempts: still running
            self.running[container.id] = container
        self.on_registered(msg)
        # Actor.every's keys, with a timer a dormant AM can suspend and re-arm exactly (_shortcuts/_amdormancy.py).
        self.heartbeat_timer = HeartbeatTimer(self, self.heartbeat_interval_ms, self._allocate)

    @handler
    def on_refusal(self, msg: RemoteRefusal) -> None:
        """A request was refused (a missing or wrong token, an ACL): logged; the AM goes on. A restarted RM's
        ApplicationMasterNotRegisteredException makes the AM register again (actors/_amresync.py)."""
        if self._rpc is not None and self._resync(msg):
            return
        self.log.warning("request_refused", exception_class=msg.exception, message=msg.message)

    def _deliver(self, arg: tuple[Any, Any]) -> None:
        if self.sleeper is not None:
            self.sleeper.wake()  # anything the AM runs wakes it first: it may send, and it takes sequences
        Actor._deliver(self, arg)
        if (
            type(arg[0]) is AllocateResponse
            and self.quiet_when_idle
            and type(self)._allocate is _BASE_ALLOCATE
            and not self.finished
            and self.has_nothing_to_send()
        ):
            # idle after this response: dormant now, not a tick later (_amrounds.py)
            sleep_after_response(self, self.direct_rm(), self.progress)

    def heartbeat_tick(self, tick: Any) -> None:
        """Deliver its heartbeat timer's ``tick`` (``Actor.timer_tick``) now, as the firing's delivery would: a free,
        awake AM whose deliveries run this class's ``_deliver`` (not intercepted on the instance) runs the tick's call
        at once, as ``Actor._deliver`` does for a tick (the sender, a failure handed to the supervision); anything
        else takes the delivery itself (the mailbox of a busy AM, a dormant AM's wake, an interceptor)."""
        if (
            self.sleeper is not None
            or not self.is_free
            or getattr(self._deliver, "__func__", None) is not ApplicationMaster._deliver
        ):
            self._deliver((tick, self.ref))
            return
        ref = self.ref
        self._sender = ref
        try:
            result = tick.fn()
        except Exception as exc:
            self._failed(exc, tick, ref)
            return
        if result is not None:
            self._handled(result, tick, ref)

    def stop(self) -> None:
        if self.sleeper is not None:
            self.sleeper.drop()
        super().stop()

    # -- what the exact shortcuts ask of an ApplicationMaster (actors/_shortcuts) ------------------------------
    def has_nothing_to_send(self) -> bool:
        """Whether its next allocate would carry no changed ask, release or container update."""
        return not (self._changed or self._release or self._updates)

    def direct_rm(self) -> Any:
        """The ResourceManager actor its allocates go to, when they go to it directly (no AMRMProxy in between) and
        it is hosted on this AM's kernel; else None."""
        if self._amrm_id is not None:
            return None
        if type(self).rm is ApplicationMaster.rm:
            return self.kernel.actors.get(self.rm_id)
        return self.rm.actor  # a subclass's own rm

    @property
    def progress(self) -> float:
        """The progress its allocates report: 1.0 once it unregisters, else 0.0."""
        return 1.0 if self._unregistering else 0.0

    def idle_response(self, response_id: int, headroom: Resource, num_cluster_nodes: int) -> None:
        """An allocate that carried and returned nothing, taken as :meth:`on_allocate_response` takes its empty
        response (whose callbacks are all skipped)."""
        self.response_id = response_id
        self.headroom = headroom
        self.num_cluster_nodes = num_cluster_nodes

    @handler
    def on_terminated(self, msg: ContainerTerminated) -> None:
        """Our own AM container was killed: the process is gone; a new attempt may launch us again."""
        if self.am_container is not None and msg.container_id == self.am_container.id:
            if self.heartbeat_timer is not None:
                self.heartbeat_timer.cancel()
            self.heartbeat_timer = None
            if self._rpc is not None:
                self._rpc.reset()  # the process is gone: no call waits, none is retried
            self.am_container = None

    def crash(self, exit_status: int = 1, diagnostics: str = "") -> bool:
        """The AM process exits now (a fault, launcher/_faultinjector.py): no more heartbeats, and the NM sees its
        container exit with ``exit_status``; the RM then fails the attempt and may start another. False when no AM
        process is running (not launched yet, or finished)."""
        container = self.am_container
        if container is None or self.finished or self._unregistering:
            return False
        if self.heartbeat_timer is not None:
            self.heartbeat_timer.cancel()
            self.heartbeat_timer = None
        if self._rpc is not None:
            self._rpc.reset()
        if self._nm_calls is not None:
            self._nm_calls.reset()
        self.am_container = None
        self.kernel.lookup(nm_actor_id(container.node_id.host)).tell(
            ContainerProcessExited(
                container_id=container.id, exit_status=exit_status, diagnostics=diagnostics or "AM process crashed"
            ),
            self.ref,
        )
        return True

    # -- the allocate heartbeat ---------------------------------------------------------------------------------------
    def _allocate(self) -> None:
        if self.attempt_id is None or self.finished:
            return
        if self._rpc is not None and self._rpc.in_flight is not None:
            return  # the heartbeat thread still waits in allocate (one call at a time): this tick does nothing
        if (
            self.quiet_when_idle
            and not (self._changed or self._release or self._updates)
            and idle_allocate(self, self.direct_rm(), self.progress)
        ):
            return
        changed = self._changed
        if changed:
            self._changed = []
            asks = take_changed(changed, self._tables)  # in their send order (actors/_asktable.py)
        else:
            asks = ()
        release, self._release = tuple(self._release), []
        updates, self._updates = tuple(self._updates), []
        request = AllocateRequest(
            application_attempt_id=self.attempt_id,
            response_id=self.response_id,
            progress=1.0 if self._unregistering else 0.0,
            ask=asks,
            release=release,
            update_requests=updates,
            resource_blacklist_request=_NO_BLACKLIST_CHANGE,
            amrm_token=self.amrm_token,
        )
        ref, timer = self.amrm, self.heartbeat_timer
        if self._rpc is not None:
            self._rpc.send(request)  # the call in flight, retried when unanswered (actors/_amrpc.py)
            ref.tell(request, self.ref)
            return
        if type(timer) is HeartbeatTimer and timer.firing:
            hold_tell(timer, ref, request, self.ref)  # delivered at the end of the firing if next (_amrounds.py)
        else:
            ref.tell(request, self.ref)

    @handler
    def on_allocate_response(self, msg: AllocateResponse) -> None:
        rpc = self._rpc
        if rpc is not None and msg.am_command is not _AM_SHUTDOWN and not rpc.answer(msg, self.response_id):
            return  # a second answer to one call: Hadoop RPC's client drops it
        if msg.am_command is _AM_SHUTDOWN:
            if rpc is not None:
                rpc.reset()
            if self.heartbeat_timer is not None:
                self.heartbeat_timer.cancel()
                self.heartbeat_timer = None
            self.on_shutdown_request()
            return
        self.response_id = msg.response_id
        if msg.nm_tokens:
            for token in msg.nm_tokens:  # NMTokenCache.setNMToken
                self.nm_tokens[token.node_id] = token
        self.headroom = msg.available_resources
        self.num_cluster_nodes = msg.num_cluster_nodes
        if msg.updated_nodes:
            self.on_node_updates(msg.updated_nodes)
        if msg.preemption_message is not None:
            self.on_preemption_message(msg.preemption_message)
        if msg.completed_container_statuses:
            for status in msg.completed_container_statuses:
                self.running.pop(status.container_id, None)
            if rpc is not None and rpc.pending_release:
                for status in msg.completed_container_statuses:
                    rpc.pending_release.pop(status.container_id, None)
            self.on_containers_completed(msg.completed_container_statuses)
        if msg.allocated_containers:
            containers = msg.allocated_containers
            if self._plain_match():
                # _match and remove_container_request are the base class's: the whole response in one compiled call
                match_containers(
                    self._outstanding, self._noded, self._node_requests, self._tables, self._changed, containers
                )
            else:
                for container in containers:
                    self._match(container)
            self.on_containers_allocated(containers)
        if msg.updated_containers:
            self.on_containers_updated(msg.updated_containers)
        if msg.update_errors:
            self.on_update_errors(msg.update_errors)

    # -- finishing --------------------------------------------------------------------------------------------
    def finish(self, status: FinalApplicationStatus = FinalApplicationStatus.SUCCEEDED, diagnostics: str = "") -> None:
        """Unregister (``finishApplicationMaster``); the AM process then exits and its container completes."""
        if self.attempt_id is None or self._unregistering:
            return
        self._unregistering = True
        request = FinishApplicationMasterRequest(
            application_attempt_id=self.attempt_id,
            final_application_status=status,
            diagnostics=diagnostics,
            amrm_token=self.amrm_token,
        )
        if self._rpc is not None:
            self._rpc.finish = request  # sent again if a restarted RM asks the AM to register first
        self.amrm.tell(request, self.ref)

    @handler
    def on_finish_response(self, msg: FinishApplicationMasterResponse) -> None:
        self.finished = True
        if self.heartbeat_timer is not None:
            self.heartbeat_timer.cancel()
            self.heartbeat_timer = None
        self._exited()
        if self.am_container is not None:
            self.kernel.lookup(nm_actor_id(self.am_container.node_id.host)).tell(
                ContainerProcessExited(container_id=self.am_container.id, exit_status=ContainerExitStatus.SUCCESS),
                self.ref,
            )


_BASE_ALLOCATE = ApplicationMaster._allocate
