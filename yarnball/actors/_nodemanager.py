"""The NodeManager actor: registration, heartbeats, the container lifecycle and a simulated executor.

Lifecycle of a container here (``ContainerImpl`` collapsed to what the RM can observe): a StartContainersRequest
puts it in SCHEDULED (localizing), after ``localization_ms`` it is RUNNING, and it ends COMPLETE when its simulated
run time is over (exit status SUCCESS), when the program inside it exits, or when it is killed by the AM
(KILLED_BY_APPMASTER), the RM (containers_to_cleanup: KILLED_BY_RESOURCEMANAGER) or because its application finished
(KILLED_AFTER_APP_COMPLETION).

Heartbeats carry the container statuses that changed since the previous heartbeat. Hadoop's NM sends every status
each time and the RM (``RMNodeImpl``) keeps only what is new — newly RUNNING and newly COMPLETE containers — so
sending just the changes gives the scheduler exactly the same NODE_UPDATE events at a fraction of the cost.
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappush
from typing import Any

import msgspec

from yarnball.actors._actor import Actor, ActorRef, _Once, _Tick, handler
from yarnball.actors._amrmproxy import AMRMPROXY_ENV, AMRMProxyService, amrmproxy_actor_id
from yarnball.actors._containermanagerauth import (
    authorize_ids,
    authorize_starts,
    authorize_updates,
    process_exit_refused,
)
from yarnball.actors._containerscheduler import (
    APP_REMAINING_TASKS_ENV,
    PAUSED_FOR_GUARANTEED_DIAGNOSTICS,
    ContainerScheduler,
)
from yarnball.actors._heartbeats import HeartbeatClock, NodeBeat
from yarnball.actors._kernel import FAR_WIDTH, NORMAL
from yarnball.actors._nmrecovery import NMDowntime, recovery_enabled, shut_down, start_again
from yarnball.actors._nmrpc import NodeCalls
from yarnball.actors._nmstates import RESUMED_DIAGNOSTICS, NMContainerState, container_status, nm_state
from yarnball.actors._nodestatusupdater import STOPPED_LIMIT, NodeStatusUpdater, registration
from yarnball.actors._secretmanagers import NMSecretManagers, Rejections
from yarnball.actors._shortcuts import reply_is_noop
from yarnball.protocols import (
    ApplicationId,
    Configuration,
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerState,
    ContainerStatus,
    ContainerSubState,
    ContainerUpdateRequest,
    ContainerUpdateResponse,
    ContainerUpdateType,
    ExecutionType,
    GetContainerStatusesRequest,
    GetContainerStatusesResponse,
    NodeAction,
    NodeHeartbeatRequest,
    NodeHeartbeatResponse,
    NodeId,
    NodeStatus,
    RegisterNodeManagerRequest,
    RegisterNodeManagerResponse,
    Resource,
    StartContainersRequest,
    StartContainersResponse,
    StopContainersRequest,
    StopContainersResponse,
    UnRegisterNodeManagerRequest,
    UnRegisterNodeManagerResponse,
    UpdateContainerRequest,
    keys,
)
from yarnball.protocols._containermanagement import (
    ContainerLaunchContext,
    FailedContainerRequest,
)
from yarnball.protocols._executor import (
    ATTEMPT_ID_ENV,
    PROCESS_ACTOR_ENV,
    ContainerLaunched,
    ContainerProcessExited,
    ContainerTerminated,
)
from yarnball.protocols._resourcetracker import NMContainerStatus

__all__ = ["NodeManager", "nm_actor_id"]

# Diagnostics as Hadoop's NM words them.
KILLED_BY_AM = "Container killed by the ApplicationMaster."
KILLED_BY_RM = "Container Killed by ResourceManager"
KILLED_AFTER_APP = "Container killed on application-finish event"

_SCHEDULED = ContainerState.SCHEDULED
_RUNNING = ContainerState.RUNNING
_COMPLETE = ContainerState.COMPLETE
_SUCCESS = ContainerExitStatus.SUCCESS
_NORMAL_ACTION = NodeAction.NORMAL
#: NodeManager class -> whether its NodeHeartbeatResponse handler is NodeManager's own (an actor's handler table is
#: fixed when its class is made: see NodeManager._own_response_handler).
_OWN_RESPONSE_HANDLER: dict[type, bool] = {}
_ACTOR_DELIVER = Actor._deliver
# (module constants: reading a member off an Enum class goes through EnumType.__getattr__'s slow attribute hook)


def running_status(container: Container) -> ContainerStatus:
    """The status reporting ``container`` newly RUNNING."""
    return ContainerStatus(
        container_id=container.id,
        state=_RUNNING,
        execution_type=container.execution_type,
        capability=container.resource,
    )


def _fits_in(smaller: Resource, bigger: Resource) -> bool:
    """``Resources.fitsIn`` for memory and vcores."""
    return smaller.memory_mb <= bigger.memory_mb and smaller.vcores <= bigger.vcores


def nm_actor_id(host: str) -> str:
    """The actor id of the NodeManager on ``host``."""
    return f"nm-{host}"


class _Container:
    __slots__ = (
        "container", "context", "diagnostics", "nm", "paused", "phase", "process", "remaining", "seq", "start_seq",
        "started_at", "state", "timer",
    )

    def __init__(self, container: Container, context: ContainerLaunchContext, nm: NodeManager, seq: int) -> None:
        self.container = container
        self.context = context
        self.state = _SCHEDULED
        self.timer: Any = None
        self.process: str | None = None
        # For the ContainerScheduler: arrival order, start order, pause state and the run time still to go.
        self.nm = nm
        self.seq = seq
        self.start_seq = 0
        self.paused = False
        # The pause states (actors/_nmstates.py): None, or PAUSING / PAUSED / RESUMING (SCHEDULED: localizing again
        # after an NM restart, actors/_nmrecovery.py); and the diagnostics the container gathered on the way
        # (ContainerImpl.addDiagnostics), "" until it is paused.
        self.phase: NMContainerState | None = None
        self.diagnostics = ""
        self.started_at = 0.0
        self.remaining: float | None = context.simulated_duration_ms

    def expected_ms(self) -> float | None:
        return self.remaining

    def remaining_ms(self) -> float | None:
        if self.remaining is None or self.paused or self.state is not _RUNNING:
            return self.remaining
        return max(0.0, self.remaining - (self.nm.now - self.started_at))

    def app_remaining_tasks(self) -> int | None:
        for key, value in self.context.environment:
            if key == APP_REMAINING_TASKS_ENV:
                return int(value) if value.isdigit() else None
        return None


def _queue_timer(nm: NodeManager, delay: float, fire: Any, arg: Any) -> None:
    """Queue ``fire(arg)`` with ``Kernel.schedule``'s key ``(now + delay, NORMAL, origin, origin's next sequence)``,
    owned by the origin (a container's run is parked: actors/_kernel.py)."""
    kernel = nm.kernel
    origin = kernel.current
    seqs = kernel._seqs
    seq = seqs.get(origin, 0)
    seqs[origin] = seq + 1
    entry = (kernel.now + delay, NORMAL, origin, seq, fire, arg, origin)
    if delay >= FAR_WIDTH:
        kernel.park(entry)
        return
    heappush(kernel._now if delay == 0 else kernel._queue, entry)
    if kernel._wakeup is not None:
        kernel._wakeup.set()


# The two timers of a container (set per container), without after_call's timer object: the event has the same key,
# and firing does what ``_fire_once`` does for ``after_call(delay, nm._schedule / nm._finish, entry)``. The
# localization timer is never cancelled: its argument is the entry. The run timer's is a 1-tuple holding the entry,
# kept as ``entry.timer`` (its handle) while it is live: cancelling it sets ``entry.timer`` to None (a new run timer
# replaces it), and a timer that is not its entry's ``timer`` any more is cancelled. Under restart supervision (the
# actor tracks its timers) and for a negative delay (which raises) both are after_call's, as before.
def _fire_schedule(entry: _Container) -> None:
    nm = entry.nm
    _fire_timer(nm, nm._schedule, entry)


def _fire_finish(handle: tuple[_Container]) -> None:
    entry = handle[0]
    if entry.timer is not handle:
        return  # cancelled
    nm = entry.nm
    _fire_timer(nm, nm._finish, entry)


def _fire_timer(nm: NodeManager, fn: Callable[[_Container], Any], entry: _Container) -> None:
    """``_fire_once`` of the timer ``_Once(nm, fn, entry)``, which is built only where it is seen (a mailbox, a
    failure)."""
    if nm._stopped:
        return
    if nm._busy or type(nm)._deliver is not _ACTOR_DELIVER:
        nm._deliver((_Tick(_Once(nm, fn, entry).call), nm.ref))
        return
    ref = nm.ref
    nm._sender = ref
    try:
        result = fn(entry)
    except Exception as exc:
        nm._failed(exc, _Tick(_Once(nm, fn, entry).call), ref)
        return
    if result is not None:
        nm._handled(result, _Tick(_Once(nm, fn, entry).call), ref)


def _run_timer(nm: NodeManager, delay: float, entry: _Container) -> Any:
    """``nm.after_call(delay, nm._finish, entry)``: the same event; returns the handle for ``entry.timer``."""
    if delay < 0 or nm.supervision == "restart":
        return nm.after_call(delay, nm._finish, entry)  # raises, or tracks the timer for a restart
    handle = (entry,)
    _queue_timer(nm, delay, _fire_finish, handle)
    return handle


def _cancel(entry: _Container) -> None:
    """Cancel ``entry``'s run timer (it has one)."""
    timer = entry.timer
    if type(timer) is _Once:
        timer.cancelled = True  # TimerHandle.cancel, inline
    entry.timer = None


class NodeManager(Actor):
    """One simulated NodeManager. ``rm`` is the ResourceManager's address."""

    #: NodeStatusUpdaterImpl (actors/_nodestatusupdater.py): the stopped containers' statuses and, in a run that
    #: restarts the RM or has message faults on the NM's heartbeat links, the heartbeat call waiting for its answer.
    #: None until the NM's first container ends (an idle node costs nothing for it) or such a run sets it.
    status_updater: NodeStatusUpdater | None
    #: The same updater where heartbeats are calls that wait for their answers (such a run), else None: what the
    #: heartbeat paths (and actors/_shortcuts/_quietreplies.py) test, one slot read on the ordinary path.
    _hb_call: NodeStatusUpdater | None
    # The NM's memory of repeated AM calls (actors/_nmrpc.py): set only in a run with message faults on the NM's
    # container links (launcher/_faultinjector.py); None keeps the exact ordinary path.
    _calls: NodeCalls | None
    # The three above are slots, not instance-dict attributes: they are set on some runs only or late, and every name
    # an NM ever gets in its __dict__ takes one of the class's ~30 shared inline keys for the whole process; past
    # them, NMs' attributes move into real dicts and every attribute access slows down (tests/test_am_round_costs.py).
    __slots__ = ("_calls", "_hb_call", "status_updater")

    def __init__(
        self,
        host: str,
        rack: str,
        resource: Resource,
        rm: ActorRef,
        *,
        port: int = 0,
        start_delay_ms: float = 0,
        localization_ms: float = 0,
        labels: tuple[str, ...] = (),
        conf: Configuration | None = None,
        heartbeats: HeartbeatClock | None = None,
    ) -> None:
        self.status_updater = None
        self._hb_call = None
        self._calls = None
        self.node_id = NodeId(host, port)
        self.rack = rack
        self.resource = resource
        self.rm = rm
        self.labels = labels
        self.start_delay_ms = start_delay_ms
        self.localization_ms = localization_ms
        self.containers: dict[ContainerId, _Container] = {}
        self.used_mb = 0
        self.used_vcores = 0
        self.response_id = 0
        self.heartbeat_interval_ms = 1000
        self.registered = False
        self._changes: list[ContainerStatus] = []
        self._heartbeat: Any = None
        self.completed_count = 0
        self._seq = 0
        # The ContainerScheduler queues and starts containers; with Hadoop's defaults (opportunistic queue length 0)
        # it starts every GUARANTEED container at once, as the NM did before it existed.
        self.container_scheduler = ContainerScheduler(resource, conf, owner=self)
        self.report_opportunistic = conf is not None and (
            conf.get_bool(keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED)
            or conf.get_bool(keys.DIST_SCHEDULING_ENABLED)
        )
        # AMRMProxy: on with distributed scheduling (ContainerManagerImpl.createAMRMProxyService).
        self.amrm_proxy: AMRMProxyService | None = None
        if conf is not None and (conf.get_bool(keys.DIST_SCHEDULING_ENABLED) or conf.get_bool(keys.AMRM_PROXY_ENABLED)):
            self.amrm_proxy = AMRMProxyService(conf, rm.id)
        # With a HeartbeatClock (a Cluster's), heartbeats run at the clock's canonical priority and may be skipped
        # while they provably change nothing; without one, a plain actor timer (every heartbeat sent).
        self._heartbeats = heartbeats
        self._beat: NodeBeat | None = None
        self._decommissioned = False  # leaving the cluster (decommission): never heartbeat or register again
        # NM restart (actors/_nmrecovery.py): whether a restart keeps the containers, and the NM while it is down.
        self.recovery = recovery_enabled(conf)
        self._down: NMDowntime | None = None
        #: The live executor (actors/executors/_live.py) of a live run: containers whose launch context asks for real
        #: work run as processes. None (virtual time): every container is simulated.
        self.executor: Any = None
        # ContainerManagerImpl's token checks, with the keys the RM sends at registration (_containermanagerauth.py)
        self.secrets = NMSecretManagers(self.node_id)
        if self.amrm_proxy is not None:
            self.amrm_proxy.secrets = self.secrets  # its DistributedScheduler signs the containers it places

    @property
    def rejections(self) -> Rejections:
        """Requests refused for want of a token (actors/_containermanagerauth.py)."""
        return self.secrets.rejections

    # -- registration and heartbeats --------------------------------------------------------------------------
    def on_start(self) -> None:
        if self.amrm_proxy is not None:
            self.kernel.spawn(self.amrm_proxy, amrmproxy_actor_id(self.node_id.host))
        self.after(self.start_delay_ms, self._register)

    def _register(self, statuses: tuple[NMContainerStatus, ...] = (), apps: tuple[ApplicationId, ...] = ()) -> None:
        request = RegisterNodeManagerRequest(
            node_id=self.node_id,
            resource=self.resource,
            rack_name=self.rack,
            node_labels=self.labels,
            container_statuses=statuses,
            running_applications=apps,
        )
        self.rm.tell(request, self.ref)

    def restart(self, down_ms: float) -> None:
        """Stop now and start again after ``down_ms`` (a restart of the NM process): with
        ``yarn.nodemanager.recovery.enabled`` and ``.supervised`` its containers are recovered, otherwise killed
        (actors/_nmrecovery.py)."""
        if self._down is not None or self._decommissioned or self._stopped:
            return
        shut_down(self)
        self.after(down_ms, lambda: start_again(self))

    @property
    def is_down(self) -> bool:
        """Whether the NM process is down (between a restart's stop and start)."""
        return self._down is not None

    @property
    def tearing_down(self) -> bool:
        """Whether this running NM still holds containers that have not reached a final state (a live run waits for
        them: launcher/_cluster.py)."""
        return bool(self.containers) and self._down is None and not self._stopped and not self._decommissioned

    def _defer(self, msg: Any) -> bool:
        """While the NM is down, keep an AM call for when it is back (NMClient retries it); True if kept."""
        down = self._down
        if down is None:
            return False
        down.deferred.append((_HANDLERS[type(msg)], msg, self._sender))
        return True

    @handler
    def on_registered(self, msg: RegisterNodeManagerResponse) -> None:
        if self._down is not None:
            return  # the answer to the NM process that went down
        if msg.node_action is NodeAction.SHUTDOWN:
            self.log.warning("nm_shutdown_by_rm", diagnostics=msg.diagnostics_message)
            self.stop()
            return
        self.registered = True
        if self._hb_call is not None:
            self._hb_call.registered()  # a new StatusUpdaterRunnable
        self.secrets.set_keys(msg.nm_token_master_key, msg.container_token_master_key, msg.rm_identifier)
        if self._heartbeats is not None:
            if self._beat is None:
                self._beat = self._heartbeats.start(self, self.heartbeat_interval_ms)
        elif self._heartbeat is None:
            self._heartbeat = self.every(self.heartbeat_interval_ms, self._send_heartbeat)

    def on_stop(self) -> None:
        if self._beat is not None and not self._decommissioned:
            self._heartbeats.stopped(self._beat)  # type: ignore[union-attr]

    def heartbeat_now(self) -> None:
        """Send a heartbeat now (called by the HeartbeatClock at this node's phase points)."""
        if self._busy:
            self.after(0, self._send_heartbeat)
        else:
            self._send_heartbeat()

    def _changed(self, status: ContainerStatus) -> None:
        self._changes.append(status)
        beat = self._beat
        if beat is not None and not beat.armed:
            self._heartbeats.wake(beat)  # type: ignore[union-attr]

    def _send_heartbeat(self) -> None:
        changes = self.heartbeat_changes()
        if changes is None:
            return
        call = self._hb_call
        status = NodeStatus(
            node_id=self.node_id,
            response_id=self.response_id,
            container_statuses=tuple(changes) if call is None else call.statuses(changes),
            opportunistic_containers_status=self.container_scheduler.status() if self.report_opportunistic else None,
        )
        request = NodeHeartbeatRequest(node_status=status)
        if call is not None:
            call.send(request)
        self.rm.tell(request, self.ref)

    def heartbeat_changes(self) -> list[ContainerStatus] | None:
        """The container changes its heartbeat reports now, taken; None when it sends no heartbeat now: leaving (a
        heartbeat after the unregistration would be answered RESYNC), down, or its heartbeat call still waiting
        for its answer (the status-updater thread still waits in nodeHeartbeat: actors/_nodestatusupdater.py)."""
        if self._decommissioned or self._down is not None:
            return None
        call = self._hb_call
        if call is not None and call.in_flight is not None:
            return None
        changes, self._changes = self._changes, []
        return changes

    # -- what the exact shortcuts ask of a NodeManager (actors/_shortcuts) ----------------------------------------
    def has_news(self) -> bool:
        """Whether its next heartbeat reports something: container changes, or it has had none answered yet."""
        return bool(self._changes) or self.response_id == 0

    def take_plain_response(self, response: NodeHeartbeatResponse) -> bool:
        """Take ``response`` at once when all :meth:`on_heartbeat_response` would do with it is store its response
        id (NORMAL, nothing to clean up, update or limit, the interval in use; the NM not leaving, no heartbeat call
        waiting, "resume" supervision and this class's handler); False (nothing done): it must be delivered."""
        interval = response.next_heartbeat_interval_ms
        if (
            response.node_action is _NORMAL_ACTION
            and not response.containers_to_cleanup
            and not response.applications_to_cleanup
            and response.container_queuing_limit is None
            and not response.containers_to_update
            and (interval == self.heartbeat_interval_ms or interval <= 0)
            and self._hb_call is None  # (a heartbeat call that waits: the handler also ends it)
            and not self._decommissioned
            and self.supervision == "resume"
            and (_OWN_RESPONSE_HANDLER.get(type(self)) or self._own_response_handler())
        ):
            self.response_id = response.response_id
            return True
        return False

    def _own_response_handler(self) -> bool:
        """Whether this class handles NodeHeartbeatResponse with NodeManager's own handler (noted by class)."""
        own = _OWN_RESPONSE_HANDLER[type(self)] = (
            type(self).handler_for(NodeHeartbeatResponse) is NodeManager.on_heartbeat_response
        )
        return own

    def may_defer_running(self, interval: Any) -> bool:
        """Whether a RUNNING report of this NM may wait for a later heartbeat whose plain response, with the RM's
        ``interval``, it would take (:meth:`take_plain_response`): answered before, free, not leaving, not reporting
        its queue, with that interval, "resume" supervision and this class's handler (actors/_shortcuts/
        _lazyrunning.py)."""
        return (
            self.response_id != 0
            and not self._busy
            and not self._decommissioned
            and not self.report_opportunistic
            and self._hb_call is None
            and interval == self.heartbeat_interval_ms
            and self.supervision == "resume"
            and (_OWN_RESPONSE_HANDLER.get(type(self)) or self._own_response_handler())
        )

    def heartbeat_answered(self, response_id: int) -> None:
        """A deferred heartbeat's plain response, settled after the fact: its response id is stored."""
        self.response_id = response_id

    def report_first(self, containers: list[Container]) -> None:
        """Report ``containers`` (as launched) RUNNING in the next heartbeat, ahead of every change pending."""
        self._changes[:0] = [running_status(c) for c in containers]

    @handler
    def on_heartbeat_response(self, msg: NodeHeartbeatResponse) -> None:
        if self._down is not None:
            return  # the answer to the NM process that went down
        call = self._hb_call
        if call is not None and not call.answer(msg):
            return  # an answer to a call no longer waited for: Hadoop RPC's client drops it
        self.response_id = msg.response_id
        for cid in msg.containers_to_cleanup:
            self._kill(cid, ContainerExitStatus.KILLED_BY_RESOURCEMANAGER, KILLED_BY_RM)
        for app in msg.applications_to_cleanup:
            self._cleanup_application(app)
        if msg.container_queuing_limit is not None:
            self.container_scheduler.update_queuing_limit(msg.container_queuing_limit.max_queue_length)
        for updated in msg.containers_to_update:  # auto-update.containers, and every resource decrease
            entry = self.containers.get(updated.id)
            if entry is not None and entry.container.resource != updated.resource:
                # NodeStatusUpdaterImpl: the RM's containersToUpdate go through updateContainerInternal
                grows = not _fits_in(updated.resource, entry.container.resource)
                kind = ContainerUpdateType.INCREASE_RESOURCE if grows else ContainerUpdateType.DECREASE_RESOURCE
            elif updated.execution_type is ExecutionType.GUARANTEED:
                kind = ContainerUpdateType.PROMOTE_EXECUTION_TYPE
            else:
                kind = ContainerUpdateType.DEMOTE_EXECUTION_TYPE
            self._update_container(
                UpdateContainerRequest(
                    container_version=updated.version,
                    container_id=updated.id,
                    container_update_type=kind,
                    execution_type=updated.execution_type,
                    capability=updated.resource,
                )
            )
        if msg.node_action in (NodeAction.SHUTDOWN, NodeAction.RESYNC):
            # RESYNC: the RM does not know this node (it expired or the RM restarted): register again.
            if msg.node_action is NodeAction.SHUTDOWN:
                self.fail()  # (a decommissioned node: its programs end with it)
                return
            if self._decommissioned:
                return  # the answer to a heartbeat that crossed our unregistration: we are leaving, not resyncing
            if call is not None:  # NodeManager.resyncWithRM, work-preserving: with every container it has
                self._register(*registration(self))
            else:
                self._register()
        if self._decommissioned:
            return  # no more phase points to (re)start
        if msg.next_heartbeat_interval_ms != self.heartbeat_interval_ms and msg.next_heartbeat_interval_ms > 0:
            self.heartbeat_interval_ms = msg.next_heartbeat_interval_ms
            if self._heartbeats is not None:
                if self._beat is not None:
                    self._beat = self._heartbeats.start(self, self.heartbeat_interval_ms)
                return
            if self._heartbeat is not None:
                self._heartbeat.cancel()
            self._heartbeat = self.every(self.heartbeat_interval_ms, self._send_heartbeat)

    # -- ContainerManagementProtocol --------------------------------------------------------------------------
    @handler
    def on_start_containers(self, msg: StartContainersRequest) -> None:
        if self._down is not None and self._defer(msg):
            return
        started: list[ContainerId] = []
        requests, failed = authorize_starts(self, msg)  # ContainerManagerImpl.startContainers' checks
        containers = self.containers
        node_id = self.node_id
        delay = self.localization_ms
        plain = delay >= 0 and self.supervision != "restart"  # else after_call: raises, or tracks the timer
        kernel = self.kernel
        due = kernel.now + delay
        seqs = kernel._seqs
        for request in requests:
            container = request.container
            cid = container.id
            target = container.node_id
            if target is not node_id and target != node_id:
                failed.append(
                    FailedContainerRequest(container_id=cid, diagnostics=f"Container {cid} is not for {self.node_id}")
                )
                continue
            if self._calls is not None:
                refused = self._calls.relaunch(cid)  # a second start of one container (actors/_nmrpc.py)
                if refused is not None:
                    failed.append(refused)
                    continue
            # (the entry takes the next arrival number only if it is added: making it changes nothing else)
            seq = self._seq + 1
            entry = _Container(container, request.launch_context, self, seq)
            if containers.setdefault(cid, entry) is not entry:
                failed.append(
                    FailedContainerRequest(
                        container_id=cid, diagnostics=f"Container {cid} already is running on this node"
                    )
                )
                continue
            self._seq = seq
            resource = container.resource
            self.used_mb += resource.memory_mb
            self.used_vcores += resource.vcores
            if plain:
                # _queue_timer(self, delay, _fire_schedule, entry), inline: after_call(delay, self._schedule, entry)
                if delay >= FAR_WIDTH:
                    _queue_timer(self, delay, _fire_schedule, entry)
                else:
                    origin = kernel.current
                    key = seqs.get(origin, 0)
                    seqs[origin] = key + 1
                    heappush(
                        kernel._now if delay == 0 else kernel._queue,
                        (due, NORMAL, origin, key, _fire_schedule, entry, origin),
                    )
                    if kernel._wakeup is not None:
                        kernel._wakeup.set()
            else:
                self.after_call(delay, self._schedule, entry)
            started.append(cid)
        if failed or not reply_is_noop(self, StartContainersResponse):  # actors/_shortcuts/_quietreplies.py
            self.reply(
                StartContainersResponse(successfully_started_containers=tuple(started), failed_requests=tuple(failed))
            )

    @handler
    def on_stop_containers(self, msg: StopContainersRequest) -> None:
        if self._down is not None and self._defer(msg):
            return
        stopped: list[ContainerId] = []
        ids, failed = authorize_ids(self, msg, stop=True)  # authorizeGetAndStopContainerRequest
        for cid in ids:
            if self._kill(cid, ContainerExitStatus.KILLED_BY_APPMASTER, KILLED_BY_AM):
                stopped.append(cid)
            elif self._calls is not None and cid in self._calls.stopped:
                stopped.append(cid)  # isContainerRecentlyStopped: a repeated stop succeeds (actors/_nmrpc.py)
            else:
                failed.append(
                    FailedContainerRequest(
                        container_id=cid, diagnostics=f"Container {cid} is not handled by this NodeManager"
                    )
                )
        if failed or not reply_is_noop(self, StopContainersResponse):  # actors/_shortcuts/_quietreplies.py
            self.reply(
                StopContainersResponse(successfully_stopped_containers=tuple(stopped), failed_requests=tuple(failed))
            )

    @handler
    def on_process_exited(self, msg: ContainerProcessExited) -> None:
        entry = self.containers.get(msg.container_id)
        if entry is None or entry.state is _COMPLETE or process_exit_refused(self, entry.process, msg):
            return
        self._complete(entry, msg.exit_status, msg.diagnostics)

    @handler
    def on_update_containers(self, msg: ContainerUpdateRequest) -> None:
        if self._down is not None and self._defer(msg):
            return
        updated: list[ContainerId] = []
        updates, failed = authorize_updates(self, msg)
        for request in updates:
            error = self._update_container(request)
            if error is None:
                updated.append(request.container_id)
            else:
                failed.append(FailedContainerRequest(container_id=request.container_id, diagnostics=error))
        self.reply(
            ContainerUpdateResponse(successfully_updated_containers=tuple(updated), failed_requests=tuple(failed))
        )

    @handler
    def on_get_container_statuses(self, msg: GetContainerStatusesRequest) -> None:
        """``ContainerManagerImpl.getContainerStatuses``: each live container's ``cloneAndGetContainerStatus``
        (with its sub-state: PAUSED for a paused one), a stopped one's final status (COMPLETE, exit status,
        diagnostics, sub-state DONE) while it is still in the NM context; an unknown one is a failed request with
        ``getContainerStatusInternal``'s message (the stopped ones: actors/_nodestatusupdater.py)."""
        if self._down is not None and self._defer(msg):
            return
        statuses: list[ContainerStatus] = []
        ids, failed = authorize_ids(self, msg, stop=False)  # authorizeGetAndStopContainerRequest
        for cid in ids:
            entry = self.containers.get(cid)
            if entry is not None:
                statuses.append(container_status(entry))
                continue
            stopped = self.status_updater.stopped_status(cid) if self.status_updater is not None else None
            if stopped is not None:
                statuses.append(msgspec.structs.replace(stopped, container_sub_state=ContainerSubState.DONE))
            else:
                failed.append(
                    FailedContainerRequest(
                        container_id=cid, diagnostics=f"Container {cid} is not handled by this NodeManager"
                    )
                )
        self.reply(GetContainerStatusesResponse(container_statuses=tuple(statuses), failed_requests=tuple(failed)))

    def container_state(self, cid: ContainerId) -> NMContainerState | None:
        """The NM state of a live container (PAUSING, PAUSED, RESUMING, ...), None for one it does not have."""
        entry = self.containers.get(cid)
        return None if entry is None else nm_state(entry)

    def _update_container(self, request: UpdateContainerRequest) -> str | None:
        """``ContainerManagerImpl.updateContainerInternal``: an execution-type or resource update; returns an error
        or None."""
        cid = request.container_id
        entry = self.containers.get(cid)
        if entry is None:
            return f"Container {cid} is not handled by this NodeManager"
        current = entry.container.version
        if request.container_version <= current:
            return f"Container {cid} has update version [{current}] >= requested version [{request.container_version}]"
        kind = request.container_update_type
        if kind is ContainerUpdateType.INCREASE_RESOURCE or kind is ContainerUpdateType.DECREASE_RESOURCE:
            return self._update_resource(entry, request)
        wanted = {
            ContainerUpdateType.PROMOTE_EXECUTION_TYPE: ExecutionType.GUARANTEED,
            ContainerUpdateType.DEMOTE_EXECUTION_TYPE: ExecutionType.OPPORTUNISTIC,
        }.get(kind)
        if wanted is None:
            return f"Container {cid}: {kind.value} is not supported by this NodeManager"
        if request.execution_type is not None and request.execution_type is not wanted:
            return (
                f"Container {cid}: {kind.value} needs target execution type {wanted.value}, "
                f"got {request.execution_type.value}"
            )
        old = entry.container.execution_type
        entry.container = msgspec.structs.replace(
            entry.container, execution_type=wanted, version=request.container_version
        )
        if entry.state is not ContainerState.COMPLETE:
            self.container_scheduler.on_update_execution_type(entry, old)
        self.log.info("container_updated", container=str(cid), execution_type=wanted.value)
        return None

    def _update_resource(self, entry: _Container, request: UpdateContainerRequest) -> str | None:
        """The resource half of ``updateContainerInternal``: the container takes the token's resource and version,
        the ContainerScheduler's utilisation follows (``onUpdateContainer``), and a RUNNING one is reported at its
        new size in the next heartbeat (the RM's confirmation of an increase)."""
        target = request.capability
        cid = request.container_id
        if target is None:
            return f"Container {cid}: {request.container_update_type.value} needs the target resource"
        old = entry.container.resource
        entry.container = msgspec.structs.replace(entry.container, resource=target, version=request.container_version)
        self.used_mb += target.memory_mb - old.memory_mb
        self.used_vcores += target.vcores - old.vcores
        self.container_scheduler.on_update_resource(entry, old)
        if entry.state is _RUNNING:
            self._changed(running_status(entry.container))
        self.log.info(
            "container_resource_updated", container=str(cid), resource=str(target), version=request.container_version
        )
        return None

    # -- the ContainerScheduler's hands ------------------------------------------------------------------------
    # The timers of a container carry its entry. An entry still SCHEDULED (RUNNING) is the one its id maps to (an
    # entry leaves ``containers`` only when it completes, and no second one with its id is started before that);
    # one that is not (it ended) looks its id up as the timers did when they carried the id: a later container
    # started with the same id is found then.
    def _schedule(self, entry: _Container) -> None:
        if entry.state is not _SCHEDULED:
            entry = self.containers.get(entry.container.id)  # type: ignore[assignment]
            # (a SCHEDULED phase: localizing again after an NM restart, actors/_nmrecovery.py; not this timer's)
            if entry is None or entry.state is not _SCHEDULED or entry.phase is not None:
                return
        if self.container_scheduler.start_now(entry):
            self._launch(entry)  # _start_entry for a container that is not paused

    def _start_entry(self, entry: _Container) -> None:
        if not entry.paused:
            self._launch(entry)
            return
        # PAUSED --RESUME_CONTAINER--> RESUMING (ContainerImpl.sendLaunchEvent, ResumeContainerTransition): the
        # process goes on where it stopped; the launcher's CONTAINER_RESUMED makes it RUNNING (_resumed).
        entry.paused = False
        entry.phase = NMContainerState.RESUMING
        entry.diagnostics += RESUMED_DIAGNOSTICS + "\n"
        entry.started_at = self.now
        if entry.remaining is not None:
            entry.timer = _run_timer(self, entry.remaining, entry)
        self.log.info("container_resuming", container=str(entry.container.id))
        self.after(0, lambda: self._resumed(entry))

    def _resumed(self, entry: _Container) -> None:
        """RESUMING --CONTAINER_RESUMED--> RUNNING."""
        if entry.phase is NMContainerState.RESUMING and entry.state is _RUNNING:
            entry.phase = None
            self.log.info("container_resumed", container=str(entry.container.id))

    def _scheduler_kill(self, entry: _Container, exit_status: int, diagnostics: str) -> None:
        # Hadoop sends a kill event (asynchronous): the container ends in the next dispatch, not inside the scheduler.
        cid = entry.container.id
        self.after(0, lambda: self._kill(cid, exit_status, diagnostics))

    def _scheduler_pause(self, entry: _Container) -> None:
        self.after(0, lambda: self._pause(entry))

    def _pause(self, entry: _Container) -> None:
        """RUNNING --PAUSE_CONTAINER--> PAUSING (ContainerImpl.PauseContainerTransition): the launcher pauses the
        process (its run stops counting) and the pause event's diagnostics are added; CONTAINER_PAUSED follows."""
        if entry.phase is NMContainerState.RESUMING and entry.state is _RUNNING:
            # "We cannot get a PAUSE_CONTAINER while in RESUMING state" (ContainerImpl): the scheduler already counts
            # it as reclaimed, so the pause waits for CONTAINER_RESUMED (queued before this one) and is taken then.
            self.after(0, lambda: self._pause(entry))
            return
        if (
            entry.state is not ContainerState.RUNNING
            or entry.paused
            or entry.phase is not None
            or entry.container.id not in self.containers
        ):
            return
        if entry.timer is not None:
            _cancel(entry)
        entry.remaining = entry.remaining_ms()
        entry.paused = True
        entry.phase = NMContainerState.PAUSING
        entry.diagnostics += PAUSED_FOR_GUARANTEED_DIAGNOSTICS + "\n"
        self.log.info("container_pausing", container=str(entry.container.id))
        self.after(0, lambda: self._paused(entry))

    def _paused(self, entry: _Container) -> None:
        """PAUSING --CONTAINER_PAUSED--> PAUSED (PausedContainerTransition): the ContainerScheduler reclaims its
        resources (ContainerScheduler.onContainerPaused -> onResourcesReclaimed) and queues it to resume."""
        if entry.phase is not NMContainerState.PAUSING or entry.state is not _RUNNING:
            return  # killed meanwhile
        entry.phase = NMContainerState.PAUSED
        self.log.info("container_paused", container=str(entry.container.id))
        self.container_scheduler.on_resources_reclaimed(entry, paused=True)

    # -- the executor ----------------------------------------------------------------------------------------
    def _launch(self, entry: _Container) -> None:
        # Started by the ContainerScheduler: a SCHEDULED entry is in ``containers`` (see _schedule).
        if entry.state is not _SCHEDULED:
            return
        entry.state = _RUNNING
        entry.started_at = self.kernel.now
        container = entry.container
        # _changed, inline; a dormant clock may leave the report for later (_shortcuts/_lazyrunning.py), which keeps the
        # container (a frozen record: its status is built from it, as here, only if it is reported after all)
        beat = self._beat
        if beat is not None and not beat.armed:
            heartbeats: Any = self._heartbeats
            lazy = heartbeats.lazy
            if lazy is None or self._changes or not lazy.defer(self, beat, container):
                self._changes.append(running_status(container))
                heartbeats.wake(beat)
        else:
            self._changes.append(running_status(container))
        context = entry.context
        if self.amrm_proxy is not None and any(k == ATTEMPT_ID_ENV for k, _ in context.environment):
            # An AM container: its AMRM traffic goes through this node's AMRMProxy.
            context = msgspec.structs.replace(
                context, environment=(*context.environment, (AMRMPROXY_ENV, self.amrm_proxy.ref.id))
            )
        for key, value in context.environment:
            if key == PROCESS_ACTOR_ENV:
                entry.process = value
                self.kernel.lookup(value).tell(
                    ContainerLaunched(container=entry.container, launch_context=context), self.ref
                )
        if self.executor is not None and entry.process is None and self.executor.launch(entry):
            return  # real work: it completes when its process exits (on_process_exited)
        duration = context.simulated_duration_ms
        if duration is not None:
            if duration < 0 or self.supervision == "restart":
                entry.timer = _run_timer(self, duration, entry)
            else:  # _run_timer's common case, inline (once per container)
                entry.timer = handle = (entry,)
                _queue_timer(self, duration, _fire_finish, handle)

    def _finish(self, entry: _Container) -> None:
        if entry.state is not _RUNNING:
            entry = self.containers.get(entry.container.id)  # type: ignore[assignment]  # (see _schedule)
            if entry is None or entry.state is not _RUNNING:
                return
        self._complete(entry, _SUCCESS, "")

    def _kill(self, cid: ContainerId, exit_status: int, diagnostics: str) -> bool:
        entry = self.containers.get(cid)
        if entry is None:
            return False
        if entry.state is _COMPLETE:
            return True
        if self.executor is not None and self.executor.terminate(cid, exit_status, diagnostics):
            return True  # SIGTERM, then SIGKILL: it completes with this status when its process is gone
        if entry.process is not None:
            self.kernel.lookup(entry.process).tell(
                ContainerTerminated(container_id=cid, exit_status=exit_status, diagnostics=diagnostics), self.ref
            )
        self._complete(entry, exit_status, diagnostics)
        return True

    def _cleanup_application(self, app: ApplicationId) -> None:
        self.secrets.app_finished(app)
        for cid in [c for c in self.containers if c.application_attempt_id.application_id == app]:
            self._kill(cid, ContainerExitStatus.KILLED_AFTER_APP_COMPLETION, KILLED_AFTER_APP)

    def _complete(self, entry: _Container, exit_status: int, diagnostics: str) -> None:
        if entry.timer is not None:
            # The timer holds the entry (its argument): dropping it cancels it (_fire_finish) and breaks the cycle,
            # so that refcounting frees both at once instead of leaving cyclic garbage per container for the GC.
            _cancel(entry)
        entry.state = _COMPLETE
        if entry.diagnostics:  # what it gathered while paused and resumed, then the reason it ended
            entry.phase = None
            diagnostics = entry.diagnostics + diagnostics
        container = entry.container
        cid = container.id
        resource = container.resource
        self.used_mb -= resource.memory_mb
        self.used_vcores -= resource.vcores
        self.completed_count += 1
        del self.containers[cid]
        if self._calls is not None:
            self._calls.stopped.add(cid)
        self.container_scheduler.completed(entry)  # on_resources_reclaimed(entry)
        status = ContainerStatus(
            container_id=cid,
            state=_COMPLETE,
            exit_status=exit_status,
            diagnostics=diagnostics,
            execution_type=container.execution_type,
            capability=resource,
        )
        self._changes.append(status)  # _changed, inline
        # DONE, still in the context (getContainerStatuses answers it) until acknowledged (NodeStatusUpdater)
        updater = self.status_updater
        if updater is None:
            updater = NodeStatusUpdater.of(self)
        stopped = updater.recently_stopped
        stopped[cid] = (self.response_id + 2, status)
        n = len(stopped)
        if n >= STOPPED_LIMIT and not n & (n - 1):  # at 32, 64, 128, ...: amortised O(1) while most are acked
            updater.forget_acknowledged()
        beat = self._beat
        if beat is not None and not beat.armed:
            self._heartbeats.wake(beat)  # type: ignore[union-attr]

    def decommission(self) -> None:
        """Leave the cluster gracefully (an elastic downscale): stop heartbeating and unregister from the RM, which
        removes the node from the scheduler (NODE_REMOVED); the NM stops when the RM acknowledges."""
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            self._heartbeat = None
        if self._beat is not None and not self._decommissioned:
            # The HeartbeatClock's phase points too: a heartbeat sent after the unregistration would be answered
            # RESYNC ("Node not found") and the leaving node would register again.
            self._heartbeats.stopped(self._beat)  # type: ignore[union-attr]
        self._decommissioned = True
        self.registered = False
        self.rm.tell(UnRegisterNodeManagerRequest(node_id=self.node_id), self.ref)

    @handler
    def on_unregistered(self, msg: UnRegisterNodeManagerResponse) -> None:
        for cid in list(self.containers):  # nothing should run here; anything that raced in is killed with the node
            self._kill(cid, ContainerExitStatus.KILLED_BY_RESOURCEMANAGER, KILLED_BY_RM)
        self.stop()

    def fail(self) -> None:
        """Simulate the node dying: it stops heartbeating and its programs are killed (the RM will expire it)."""
        if self.executor is not None:
            self.executor.kill_all(ContainerExitStatus.ABORTED, "Container released on a *lost* node")
        for entry in list(self.containers.values()):
            if entry.process is not None:
                self.kernel.lookup(entry.process).tell(
                    ContainerTerminated(
                        container_id=entry.container.id,
                        exit_status=ContainerExitStatus.ABORTED,
                        diagnostics="Container released on a *lost* node",
                    ),
                    self.ref,
                )
        self.stop()


# The AM calls a down NM keeps for later (NodeManager._defer), by message type.
_HANDLERS: dict[type, Callable[[NodeManager, Any], None]] = {
    StartContainersRequest: NodeManager.on_start_containers,
    StopContainersRequest: NodeManager.on_stop_containers,
    ContainerUpdateRequest: NodeManager.on_update_containers,
    GetContainerStatusesRequest: NodeManager.on_get_container_statuses,
}
