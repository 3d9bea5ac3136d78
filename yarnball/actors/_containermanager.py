"""The NodeManager's ContainerManagerImpl: the ContainerManagementProtocol, the container lifecycle and a simulated
executor (the NodeManager actor, actors/_nodemanager.py, is a :class:`ContainerManager`).

Lifecycle of a container here (``ContainerImpl`` collapsed to what the RM can observe): a StartContainersRequest
puts it in SCHEDULED (localizing), after ``localization_ms`` it is RUNNING, and it ends COMPLETE when its simulated
run time is over (exit status SUCCESS), when the program inside it exits, or when it is killed by the AM
(KILLED_BY_APPMASTER), the RM (containers_to_cleanup: KILLED_BY_RESOURCEMANAGER) or because its application finished
(KILLED_AFTER_APP_COMPLETION). Each change of a container's status is kept for the NM's next heartbeat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from yarnball.actors._actor import Actor, _Once, _Tick, handler
from yarnball.actors._amrmproxy import AMRMPROXY_ENV, AMRMProxyService
from yarnball.actors._containerimpl import ContainerImpl, running_status
from yarnball.actors._containermanagerauth import (
    authorize_ids,
    authorize_starts,
    authorize_updates,
    process_exit_refused,
)
from yarnball.actors._containerscheduler import PAUSED_FOR_GUARANTEED_DIAGNOSTICS
from yarnball.actors._heartbeats import HeartbeatClock, NodeBeat
from yarnball.actors._kernel import NORMAL
from yarnball.actors._nmrecovery import NMDowntime
from yarnball.actors._nmrpc import NodeCalls
from yarnball.actors._nmstates import RESUMED_DIAGNOSTICS, NMContainerState, container_status, nm_state
from yarnball.actors._nodestatusupdater import STOPPED_LIMIT, NodeStatusUpdater
from yarnball.actors._secretmanagers import NMSecretManagers
from yarnball.actors._shortcuts import reply_is_noop
from yarnball.protocols import (
    ApplicationId,
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
    NodeId,
    StartContainersRequest,
    StartContainersResponse,
    StopContainersRequest,
    StopContainersResponse,
    UpdateContainerRequest,
)
from yarnball.protocols._containermanagement import (
    FailedContainerRequest,
)
from yarnball.protocols._executor import (
    ATTEMPT_ID_ENV,
    PROCESS_ACTOR_ENV,
    ContainerLaunched,
    ContainerProcessExited,
    ContainerTerminated,
)

__all__ = ["KILLED_AFTER_APP", "KILLED_BY_AM", "KILLED_BY_RM", "ContainerManager", "running_status"]

# Diagnostics as Hadoop's NM words them.
KILLED_BY_AM = "Container killed by the ApplicationMaster."
KILLED_BY_RM = "Container Killed by ResourceManager"
KILLED_AFTER_APP = "Container killed on application-finish event"

_SCHEDULED = ContainerState.SCHEDULED
_RUNNING = ContainerState.RUNNING
_COMPLETE = ContainerState.COMPLETE
_SUCCESS = ContainerExitStatus.SUCCESS
# (module constants: reading a member off an Enum class goes through EnumType.__getattr__'s slow attribute hook)


# The two timers of a container (set per container), without after_call's timer object: the event has the same key
# (``Kernel.schedule``'s), and firing does what ``_fire_once`` does for ``after_call(delay, nm.schedule_container /
# nm._finish, entry)`` (``ContainerManager._fire``). The localization timer is never cancelled: its argument is the
# entry. The run timer's is a 1-tuple holding the entry, kept as ``entry.timer`` (its handle) while it is live:
# cancelling it sets ``entry.timer`` to None (a new run timer replaces it), and a timer that is not its entry's
# ``timer`` any more is cancelled. Under restart supervision (the actor tracks its timers) and for a negative delay
# (which raises) both are after_call's, as before.
def _fire_schedule(entry: ContainerImpl) -> None:
    nm = entry.nm
    nm._fire(nm.schedule_container, entry)


def _fire_finish(handle: tuple[ContainerImpl]) -> None:
    entry = handle[0]
    if entry.timer is not handle:
        return  # cancelled
    nm = entry.nm
    nm._fire(nm._finish, entry)


def _run_timer(nm: ContainerManager, delay: float, entry: ContainerImpl) -> Any:
    """``nm.after_call(delay, nm._finish, entry)``: the same event; returns the handle for ``entry.timer``."""
    if delay < 0 or nm.supervision == "restart":
        return nm.after_call(delay, nm._finish, entry)  # raises, or tracks the timer for a restart
    handle = (entry,)
    nm.kernel.schedule(delay, _fire_finish, handle)
    return handle


def _cancel(entry: ContainerImpl) -> None:
    """Cancel ``entry``'s run timer (it has one)."""
    timer = entry.timer
    if type(timer) is _Once:
        timer.cancelled = True  # TimerHandle.cancel, inline
    entry.timer = None


class ContainerManager(Actor):
    """The container half of a NodeManager (``ContainerManagerImpl``): the AM's calls, the ContainerScheduler's
    hands, the executor. :class:`~yarnball.actors._nodemanager.NodeManager` builds the state below and adds the
    registration, the heartbeats and the restarts."""

    __slots__ = ()

    node_id: NodeId
    localization_ms: float
    containers: dict[ContainerId, ContainerImpl]
    used_mb: int
    used_vcores: int
    response_id: int
    completed_count: int
    container_scheduler: Any  # a ContainerScheduler, or a stopped NM's stand-in (actors/_nmrecovery.py)
    amrm_proxy: AMRMProxyService | None
    #: The live executor (actors/executors/_live.py) of a live run, else None.
    executor: Any
    secrets: NMSecretManagers
    status_updater: NodeStatusUpdater | None
    _calls: NodeCalls | None
    _changes: list[ContainerStatus]
    _heartbeats: HeartbeatClock | None
    _beat: NodeBeat | None
    _down: NMDowntime | None
    _seq: int

    def _fire(self, fn: Callable[[ContainerImpl], Any], entry: ContainerImpl) -> None:
        """``_fire_once`` of the timer ``_Once(self, fn, entry)``, which is built only where it is seen (a mailbox, a
        failure)."""
        if self._stopped:
            return
        if self._busy or self.intercepts_delivery:
            self._deliver((_Tick(_Once(self, fn, entry).call), self.ref))
            return
        ref = self.ref
        self._sender = ref
        try:
            result = fn(entry)
        except Exception as exc:
            self._failed(exc, _Tick(_Once(self, fn, entry).call), ref)
            return
        if result is not None:
            self._handled(result, _Tick(_Once(self, fn, entry).call), ref)

    def remember_calls(self) -> None:
        """Remember the AM's calls, so that a repeated one is answered as Hadoop's NM answers it (a run with message
        faults on the AM -> NM links: actors/_nmrpc.py)."""
        if self._calls is None:
            self._calls = NodeCalls()

    def post(self, t: float, origin: str, seq: int, message: Any) -> None:
        """Deliver ``message`` to this NM at time ``t`` under the event key ``(origin, seq)``: news from outside the
        kernel (a real process's exit, actors/executors/_live.py), ordered by its own origin's sequence."""
        self.kernel.push(t, NORMAL, origin, seq, self._deliver, (message, None), self.ref.id)

    def _defer(self, msg: Any) -> bool:
        """While the NM is down, keep an AM call for when it is back (NMClient retries it); True if kept."""
        down = self._down
        if down is None:
            return False
        down.deferred.append((_HANDLERS[type(msg)], msg, self._sender))
        return True

    def take_changes(self) -> list[ContainerStatus]:
        """The container statuses changed since the last report, taken: the next report starts from none."""
        changes, self._changes = self._changes, []
        return changes

    def _changed(self, status: ContainerStatus) -> None:
        self._changes.append(status)
        beat = self._beat
        if beat is not None and not beat.armed:
            self._heartbeats.wake(beat)  # type: ignore[union-attr]

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
            entry = ContainerImpl(container, request.launch_context, self, seq)
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
            if plain:  # (kernel.schedule called, not kept: a start request holds one container, seldom more)
                self.kernel.schedule(delay, _fire_schedule, entry)  # after_call(delay, self.schedule_container, entry)
            else:
                self.after_call(delay, self.schedule_container, entry)
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

    def _update_resource(self, entry: ContainerImpl, request: UpdateContainerRequest) -> str | None:
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
    def schedule_container(self, entry: ContainerImpl) -> None:
        """``entry`` is localized (``ContainerImpl``'s LOCALIZED): the ContainerScheduler starts or queues it."""
        if entry.state is not _SCHEDULED:
            entry = self.containers.get(entry.container.id)  # type: ignore[assignment]
            # (a SCHEDULED phase: localizing again after an NM restart, actors/_nmrecovery.py; not this timer's)
            if entry is None or entry.state is not _SCHEDULED or entry.phase is not None:
                return
        if self.container_scheduler.start_now(entry):
            self._launch(entry)  # _start_entry for a container that is not paused

    def _start_entry(self, entry: ContainerImpl) -> None:
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

    def _resumed(self, entry: ContainerImpl) -> None:
        """RESUMING --CONTAINER_RESUMED--> RUNNING."""
        if entry.phase is NMContainerState.RESUMING and entry.state is _RUNNING:
            entry.phase = None
            self.log.info("container_resumed", container=str(entry.container.id))

    def _scheduler_kill(self, entry: ContainerImpl, exit_status: int, diagnostics: str) -> None:
        # Hadoop sends a kill event (asynchronous): the container ends in the next dispatch, not inside the scheduler.
        cid = entry.container.id
        self.after(0, lambda: self._kill(cid, exit_status, diagnostics))

    def _scheduler_pause(self, entry: ContainerImpl) -> None:
        self.after(0, lambda: self._pause(entry))

    def _pause(self, entry: ContainerImpl) -> None:
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

    def _paused(self, entry: ContainerImpl) -> None:
        """PAUSING --CONTAINER_PAUSED--> PAUSED (PausedContainerTransition): the ContainerScheduler reclaims its
        resources (ContainerScheduler.onContainerPaused -> onResourcesReclaimed) and queues it to resume."""
        if entry.phase is not NMContainerState.PAUSING or entry.state is not _RUNNING:
            return  # killed meanwhile
        entry.phase = NMContainerState.PAUSED
        self.log.info("container_paused", container=str(entry.container.id))
        self.container_scheduler.on_resources_reclaimed(entry, paused=True)

    # -- the executor ----------------------------------------------------------------------------------------
    def _launch(self, entry: ContainerImpl) -> None:
        # Started by the ContainerScheduler: a SCHEDULED entry is in ``containers`` (see schedule_container).
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
                self.kernel.schedule(duration, _fire_finish, handle)

    def _finish(self, entry: ContainerImpl) -> None:
        if entry.state is not _RUNNING:
            entry = self.containers.get(entry.container.id)  # type: ignore[assignment]  # (see schedule_container)
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

    def _complete(self, entry: ContainerImpl, exit_status: int, diagnostics: str) -> None:
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


# The AM calls a down NM keeps for later (ContainerManager._defer), by message type.
_HANDLERS: dict[type, Callable[[ContainerManager, Any], None]] = {
    StartContainersRequest: ContainerManager.on_start_containers,
    StopContainersRequest: ContainerManager.on_stop_containers,
    ContainerUpdateRequest: ContainerManager.on_update_containers,
    GetContainerStatusesRequest: ContainerManager.on_get_container_statuses,
}
