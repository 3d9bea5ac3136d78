"""ResourceManager restart (YARN-556), work-preserving with ``yarn.resourcemanager.recovery.enabled`` (YARN-1489).

:class:`RMRestarts` is the RM's cold state for restarts (``ResourceManager.restarts``, None in a run that neither
enables recovery nor restarts the RM): the state store it writes, and the restart itself.

**Writing the store** (with recovery enabled, from the RM's start): RMStateStore's records as Hadoop writes them
(actors/_rmstatestore.py): an application at submission and at its end (at the AM's unregistration already, as
RMAppImpl's FINAL_SAVING), an attempt when its AM container is allocated and when it ends.

**Down** (:meth:`RMRestarts.stop`): the RM process is gone with everything it held in memory: nodes, applications,
attempts, the scheduler's queues and containers, the preemption monitor. While it is down nothing answers: each
call waits in its client's retry loop (``RMProxy``: every ``yarn.resourcemanager.connect.retry-interval.ms``), which
is modelled by delivering the same call again that much later (a NodeManager's heartbeat thread waits in its
``nodeHeartbeat``: it sends no other heartbeat meanwhile, actors/_nodestatusupdater.py); an AM's allocate is retried
by the AM's own RPC client (actors/_amrpc.py). The RM's own timers do nothing.

**Up** (:meth:`RMRestarts.start`): a new scheduler and, with recovery, ``RMAppManager.recover``: every stored
application comes back (``RMAppImpl.RMAppRecoveredTransition``): a finished one stays finished; one whose attempt was
never stored is submitted again (SUBMITTED); otherwise it is added to the scheduler as recovering, its finished
attempts with their final states (counted failures included), and its last attempt, if it had not ended, as
LAUNCHED and recovering (``RMAppAttemptImpl.AttemptRecoveredTransition``: added to the scheduler and to the AM
liveness monitor) with its master container; a last attempt that had ended starts the next one.
Then the NodeManagers, answered RESYNC ("Node not found resyncing"), register again with their containers
(``NMContainerStatus``) and running applications; the scheduler adopts the RUNNING containers of known attempts
(``AbstractYarnScheduler.recoverContainersOnNode``, policies/capacity/_recovery.py) and kills the others
(``killOrphanContainerOnNode``); containers that ended while the RM was down end now (their AM hears of them); a
running application the RM does not know, or knows as finished, is cleaned up on the node
(``RMNodeImpl.handleRunningAppOnNode``). The AMs' calls get ``ApplicationMasterNotRegisteredException`` ("AM is not
registered for known application attempt: ... AM should re-register."): the AM re-registers and sends again every
outstanding ask and release (``AMRMClientImpl``'s resync). New containers are allocated only after
``yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms``.

Without recovery the new RM knows nothing: the NodeManagers register again and are told to clean up every
application they run, the AMs' calls are refused (their AMRMTokens name attempts the RM does not know), and the
applications that were not finished are lost (``application_lost``, then ``application_finished`` FAILED: the run
counts them as failed). The run's books keep every application of the stopped RM (:func:`applications_of`: the
outputs list them, finished or lost), though the new RM does not.

**The stopped RM's containers** (its live ones, which Hadoop's state store does not hold) end once each in the run's
books: adopted by the new RM (``container_recovered``, then as any other); reported by their NodeManager when it
registers again (a completion, or a container the RM has the NM kill: its end when the NM reports it); or, when no
NodeManager brings one back within ``yarn.nm.liveness-monitor.expiry-interval-ms`` of the restart (its node died),
LOST (ABORTED -100, "Container released on a *lost* node"), as the stopped RM would have ended it when it expired the
node; a recovered attempt's AM hears of it then. (Hadoop's RM never hears of such a container and leaves it to the
AM's own timeouts: MapReduce's ``mapreduce.task.timeout``; SLS's AMs have none. An AM container there is left to the
AM liveness monitor, which fails its attempt as Hadoop's does.) A container the stopped RM had ended but not yet told
its NodeManager to kill (preempted, say) is killed when the NM brings it back, not adopted again (Hadoop's new RM,
knowing nothing of it, would adopt it, and it would end twice).

Completed container statuses the AMs had not pulled yet come back to the recovered attempts (in Hadoop the NMs keep
them until the RM acknowledges that the AM pulled them, and report them again when they register).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yarnball.actors._rmapp import AttemptState, RMApp, RMAppAttempt
from yarnball.actors._rmstatestore import (
    ApplicationAttemptStateData,
    ApplicationStateData,
    RMStateStore,
    create_state_store,
)
from yarnball.policies.scheduler import COMPLETED_APPLICATION, LOST_CONTAINER, RecoveringScheduler, abnormal_status
from yarnball.protocols import (
    AllocateRequest,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    ContainerId,
    ContainerState,
    ContainerStatus,
    DistributedSchedulingAllocateRequest,
    FinalApplicationStatus,
    RemoteRefusal,
    StartContainersResponse,
    YarnApplicationState,
    keys,
)

__all__ = ["NOT_REGISTERED", "RMRestarts", "applications_of"]

NOT_REGISTERED = "ApplicationMasterNotRegisteredException"
#: Messages nobody retries when the RM is down: an allocate (the AM's RPC client retries it itself), the answer to a
#: call of the RM process that died, and the RM's own monitor's events.
_DROPPED = (AllocateRequest, DistributedSchedulingAllocateRequest, StartContainersResponse)
_FINAL_APP_STATES = {
    FinalApplicationStatus.FAILED: YarnApplicationState.FAILED,
    FinalApplicationStatus.KILLED: YarnApplicationState.KILLED,
}


class RMRestarts:
    """The state store and the restarts of one ResourceManager (see the module docstring)."""

    def __init__(self, rm: Any) -> None:
        conf = rm.conf
        self.rm = rm
        self.recovery = conf.get_bool(keys.RECOVERY_ENABLED)
        self.work_preserving = self.recovery and conf.get_bool(keys.RM_WORK_PRESERVING_RECOVERY_ENABLED)
        self.wait_ms = conf.get_int(keys.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS)
        self.retry_ms = conf.get_int(keys.RM_CONNECT_RETRY_INTERVAL_MS)
        self.store: RMStateStore | None = create_state_store(conf) if self.recovery else None
        self.epoch = self.store.get_and_increment_epoch() if self.store is not None else 0
        self.restarts = 0
        self.down = False
        #: Builds the restarted RM's scheduler for an epoch (the launcher's: placement and the cluster's view).
        self.new_scheduler: Callable[[int], RecoveringScheduler] | None = None
        self.awaiting: set[ApplicationAttemptId] = set()  # recovered attempts whose AM has not re-registered
        #: Every application of an RM that restarted without recovery (the new RM does not know them); ``lost``: those
        #: not finished when it stopped.
        self.forgotten: dict[ApplicationId, RMApp] = {}
        self.lost: dict[ApplicationId, RMApp] = {}
        #: The stopped RM's live containers no NodeManager has brought back yet (see the module docstring).
        self._orphans: dict[ContainerId, bool] = {}
        self._ended: set[ContainerId] = set()  # orphans ended meanwhile: a NodeManager bringing one back kills it
        self._unpulled: dict[ApplicationAttemptId, list[ContainerStatus]] = {}
        self._hooked = False
        self._timers: list[Any] = []  # this RM process's one-shot timers: they die with it

    # -- the store (RMStateStore's writes) --------------------------------------------------------------------------
    def app_submitted(self, app: RMApp) -> None:
        if self.store is not None:
            self.store.store_application(
                ApplicationStateData(context=app.context, submit_time=app.submit_time, start_time=app.start_time)
            )

    def attempt_stored(self, app: RMApp, attempt: RMAppAttempt) -> None:
        """The AM container is allocated (RMAppAttemptImpl's ALLOCATED_SAVING)."""
        if self.store is not None:
            self.store.store_attempt(
                ApplicationAttemptStateData(
                    attempt_id=attempt.attempt_id, master_container=attempt.am_container, start_time=self.rm.now
                )
            )
            self.store.update_application(app.id, launch_time=app.launch_time)

    def attempt_ended(self, attempt: RMAppAttempt, diagnostics: str = "", *, counted: bool = True) -> None:
        if self.store is not None:
            self.store.update_attempt(
                attempt.attempt_id,
                state=attempt.state.value,
                final_status=attempt.final_status.value,
                diagnostics=diagnostics,
                counted=counted,
                finish_time=self.rm.now,
            )

    def am_unregistered(self, app: RMApp, attempt: RMAppAttempt) -> None:
        """FINAL_SAVING at the AM's unregistration: attempt and application stored as ended."""
        if self.store is not None:
            final = attempt.final_status
            self.store.update_attempt(
                attempt.attempt_id, state=AttemptState.FINISHED.value, final_status=final.value, finish_time=self.rm.now
            )
            self.app_ended(app, _FINAL_APP_STATES.get(final, YarnApplicationState.FINISHED), final)

    def remove_application(self, app_id: ApplicationId) -> None:
        if self.store is not None:
            self.store.remove_application(app_id)

    def app_ended(self, app: RMApp, state: YarnApplicationState, final: FinalApplicationStatus) -> None:
        if self.store is not None:
            self.store.update_application(
                app.id, state=state.value, final_status=final.value, diagnostics=app.diagnostics,
                finish_time=app.finish_time if app.finish_time is not None else self.rm.now,
            )  # fmt: skip

    # -- down ---------------------------------------------------------------------------------------------------
    def install(self) -> None:
        """Put the down-time delivery in front of the RM's (once; a run that restarts the RM)."""
        if self._hooked:
            return
        self._hooked = True
        rm = self.rm
        rm.done_listeners.insert(0, self.app_done)  # (before the run's, which may stop it)
        original = rm.inbox

        def deliver(arg: tuple[Any, Any]) -> None:
            if self.down:
                self._while_down(arg)
            else:
                original(arg)

        rm.intercept(deliver)

    def _while_down(self, arg: tuple[Any, Any]) -> None:
        message, sender = arg
        if sender is None or sender == self.rm.ref or isinstance(message, _DROPPED) or sender.id.endswith("-monitor"):
            return  # the RM's own timers and monitor, an allocate (retried by the AM), an answer to the old RM
        # RMProxy's retry policy: the same call again after the retry interval (a heartbeat thread blocks in it)
        rm = self.rm
        rm.kernel.schedule(self.retry_ms, lambda _: rm.deliver(message, sender), owner=sender.id)

    def stop(self) -> None:
        """The RM process stops: everything it held in memory is gone."""
        rm = self.rm
        self.down = True
        self.restarts += 1
        rm.log.warning("rm_stopped", recovery=self.recovery, work_preserving=self.work_preserving)
        if rm.preemption_monitor is not None:
            rm.preemption_monitor.stop()
        for timer in self._timers:
            timer.cancel()
        self._timers = []
        scheduler = rm.scheduler
        if self.work_preserving:
            # what the AMs had not pulled yet: the NMs would report it again (see the module docstring)
            for attempt_id, attempt in scheduler.attempts.items():
                if attempt.completed:
                    self._unpulled[attempt_id] = list(attempt.completed)
        if not self.recovery:
            for app in rm.apps.values():
                self.forgotten[app.id] = app
                if not app.is_done:
                    self.lost[app.id] = app
        self._orphans.update(dict.fromkeys(sorted(rm.live, key=_container_order), True))
        # what it had ended and not yet told the NMs to kill (an NM bringing one back has it killed, not adopted)
        self._ended.update(cid for node in rm.nodes.values() for cid in node.pending_cleanup)
        rm.context.reset_books()  # (ResourceManager.resetRMContext: the RMContext starts empty)
        rm.app_manager.forget_completed()
        rm.resize = None
        rm.decommissioning = None
        rm.services_changed()
        rm.secrets.nm_tokens_sent = {}
        self.awaiting = set()

    # -- up -----------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """The RM starts again: a new scheduler, and with recovery the stored applications."""
        rm = self.rm
        if self.store is not None:
            self.epoch = self.store.get_and_increment_epoch()  # (without a store the epoch stays 0, as Hadoop's)
        assert self.new_scheduler is not None
        scheduler = self.new_scheduler(self.epoch)
        rm.scheduler = scheduler
        self.down = False
        recovered = 0
        if self.work_preserving:
            scheduler.allocation_paused = True
            self._timers.append(rm.after(self.wait_ms, self._ready))
        if self.store is not None:
            state = self.store.load_state()
            for data in state.applications:
                self._recover_application(data)
                recovered += 1
        rm.log.info(
            "rm_restarted",
            recovery=self.recovery,
            work_preserving=self.work_preserving,
            epoch=self.epoch,
            applications_recovered=recovered,
        )
        manager = rm.app_manager
        for app in rm.apps.values():
            if app.is_done:
                manager.recovered_completed(app)
        manager.check_completed_limit()
        # (with the finished applications removed from the state store, or from the RM, by their limits)
        removed = manager.removed_from_store if self.store is not None else manager.removed
        rm.apps_done = sum(1 for app in rm.apps.values() if app.is_done) + len(self.forgotten) + removed
        newly_lost = [app for app in self.lost.values() if not app.is_done]
        for app in newly_lost:
            app.state = YarnApplicationState.FAILED
            app.final_status = FinalApplicationStatus.FAILED
            app.finish_time = rm.now
            app.diagnostics = (
                f"Application {app.id} is lost: the ResourceManager restarted without {keys.RECOVERY_ENABLED}, "
                "and the new one does not know it"
            )
            rm.counters["apps_lost"] += 1
            rm.counters["apps_failed"] += 1
            rm.log.warning("application_lost", application=str(app.id), diagnostics=app.diagnostics)
            rm.log.info(
                "application_finished",
                application=str(app.id),
                state=app.state.value,
                final_status=app.final_status.value,
                diagnostics=app.diagnostics,
            )
        if self._orphans:
            self._timers.append(rm.after(rm.nm_expiry_ms, self._expire_orphans))
        monitor = _new_monitor(rm, scheduler)
        if monitor is not None:
            rm.kernel.spawn(monitor, f"{rm.id}-preemption-monitor")
        for app in newly_lost:
            for listener in rm.done_listeners:
                listener(app)

    def _expire_orphans(self) -> None:
        """The stopped RM's containers no NodeManager brought back within the NM liveness interval end LOST (see the
        module docstring); a recovered attempt's AM hears of them."""
        orphans, self._orphans = self._orphans, {}
        for cid in orphans:
            self._end_orphan(cid, abnormal_status(cid, LOST_CONTAINER))

    def app_done(self, app: RMApp) -> None:
        """An application ended (a done listener): the stopped RM's containers it still had end with it, as the
        scheduler ends a finished application's containers (``SchedulerUtils.COMPLETED_APPLICATION``)."""
        if not self._orphans:
            return
        app_id = app.id
        for cid in [c for c in self._orphans if c.application_attempt_id.application_id == app_id]:
            del self._orphans[cid]
            self._end_orphan(cid, abnormal_status(cid, COMPLETED_APPLICATION))

    def _end_orphan(self, cid: ContainerId, status: ContainerStatus) -> None:
        rm = self.rm
        self._ended.add(cid)
        rm.am_containers.pop(cid, None)  # (a recovered AM container's attempt is the AM liveness monitor's to end)
        app = rm.apps.get(cid.application_attempt_id.application_id)
        attempt = rm.scheduler.attempts.get(cid.application_attempt_id) if app is not None and not app.is_done else None
        if attempt is not None:
            attempt.completed.append(status)
        rm.live.add(cid)
        rm.dispatcher.container_done(cid, status)

    def _ready(self) -> None:
        self.rm.scheduler.allocation_paused = False
        self.rm.log.info("scheduler_ready", wait_ms=self.wait_ms)

    def _recover_application(self, data: ApplicationStateData) -> None:
        """``RMAppImpl.RMAppRecoveredTransition`` and ``RMAppAttemptImpl.AttemptRecoveredTransition``."""
        rm = self.rm
        context = data.context
        max_attempts = context.max_app_attempts
        if max_attempts <= 0 or max_attempts > rm.max_attempts:
            max_attempts = rm.max_attempts
        app = RMApp(context, data.submit_time, max_attempts, None)
        app.start_time = data.start_time
        app.launch_time = data.launch_time
        rm.apps[app.id] = app
        for a in data.attempts:
            attempt = RMAppAttempt(a.attempt_id, a.start_time, rm.secrets.create_amrm_token(a.attempt_id))
            attempt.am_container = a.master_container
            if a.state is not None:
                attempt.state = AttemptState(a.state)
                attempt.final_status = FinalApplicationStatus(a.final_status)
                if attempt.state is AttemptState.FAILED and a.counted:
                    app.counted_failures += 1
            app.attempts.append(attempt)
            rm.attempts[attempt.attempt_id] = attempt
        if data.state is not None:
            app.state = YarnApplicationState(data.state)
            app.final_status = FinalApplicationStatus(data.final_status)
            app.diagnostics = data.diagnostics
            app.finish_time = data.finish_time
            rm.log.info("application_recovered", application=str(app.id), state=app.state.value)
            return
        rm.scheduler.set_am_resource(app.id, context.am_container_resource)
        if not app.attempts:
            # no attempt stored: the application is submitted again (SUBMITTED)
            rm.log.info("application_recovered", application=str(app.id), state=app.state.value)
            rm.dispatch(AppAddedSchedulerEvent(application_id=app.id, queue=app.queue, user=app.user,
                                               priority=context.priority))  # fmt: skip
            return
        rm.dispatch(
            AppAddedSchedulerEvent(
                application_id=app.id, queue=app.queue, user=app.user, priority=context.priority,
                is_app_recovering=True,
            )
        )  # fmt: skip
        app.state = YarnApplicationState.ACCEPTED
        last = app.attempts[-1]
        rm.log.info("application_recovered", application=str(app.id), state=app.state.value)
        if last.is_done:
            # the last attempt had ended and its successor was not stored yet
            if last.state is AttemptState.FAILED and app.counted_failures >= app.max_attempts:
                app.diagnostics = f"Application {app.id} failed {app.max_attempts} times. Failing the application."
                rm.app_manager.finish_app(app, YarnApplicationState.FAILED, FinalApplicationStatus.FAILED)
            else:
                rm.app_manager.new_attempt(app)
            return
        last.state = AttemptState.LAUNCHED
        last.last_heartbeat = rm.now  # AMLivelinessMonitor.register
        rm.dispatch(AppAttemptAddedSchedulerEvent(application_attempt_id=last.attempt_id, is_attempt_recovering=True))
        rm.scheduler.attempt_recovering(last.attempt_id)
        if last.am_container is not None:
            rm.am_containers[last.am_container.id] = last.attempt_id
        self.awaiting.add(last.attempt_id)
        rm.log.info("attempt_recovered", attempt=str(last.attempt_id), state=last.state.value)
        unpulled = self._unpulled.pop(last.attempt_id, None)
        attempt = rm.scheduler.attempts.get(last.attempt_id)
        if unpulled and attempt is not None:
            attempt.completed.extend(unpulled)

    # -- the AMs --------------------------------------------------------------------------------------------------
    def not_registered(self, attempt_id: ApplicationAttemptId) -> RemoteRefusal | None:
        """ApplicationMasterService's answer to a recovered attempt's AM before it registers again, else None."""
        if attempt_id not in self.awaiting:
            return None
        attempt = self.rm.attempts.get(attempt_id)
        if attempt is None or attempt.state is not AttemptState.LAUNCHED:
            self.awaiting.discard(attempt_id)  # it ended meanwhile: the AM gets what an ended attempt's AM gets
            return None
        message = (
            f"AM is not registered for known application attempt: {attempt_id} or RM had restarted after AM "
            "registered . AM should re-register."
        )
        rm = self.rm
        rm.counters["am_not_registered"] += 1
        rm.log.info("am_not_registered", attempt=str(attempt_id), exception=NOT_REGISTERED)
        return RemoteRefusal(exception=NOT_REGISTERED, message=message)

    def registered(self, attempt_id: ApplicationAttemptId) -> None:
        self.awaiting.discard(attempt_id)

    # -- the NodeManagers -----------------------------------------------------------------------------------------
    def node_registered(self, node: Any, statuses: Any, running_apps: Any) -> None:
        """A node registered with this (restarted) RM: recover its containers, clean up what the RM does not know."""
        rm = self.rm
        scheduler = rm.scheduler
        for s in statuses:
            cid = s.container_id
            attempt_id = cid.application_attempt_id
            app = rm.apps.get(attempt_id.application_id)
            orphan = self._orphans.pop(cid, False)
            if s.container_state is ContainerState.COMPLETE:
                if orphan:
                    rm.live.add(cid)
                elif cid not in rm.live:
                    continue  # its end is recorded already
                # ended while the RM was down: it ends now, and its AM (of a recovered attempt) hears of it
                status = ContainerStatus(
                    container_id=cid,
                    state=ContainerState.COMPLETE,
                    exit_status=s.container_exit_status,
                    diagnostics=s.diagnostics,
                    execution_type=s.execution_type,
                    capability=s.allocated_resource,
                )
                attempt = scheduler.attempts.get(attempt_id) if app is not None and not app.is_done else None
                if attempt is not None:
                    attempt.completed.append(status)
                rm.dispatcher.container_done(cid, status)
                continue
            reason = "work-preserving recovery is off" if not self.work_preserving else None
            if reason is None and cid in self._ended:
                reason = "ended already"
            if reason is None and (app is None or app.is_done):
                reason = "unknown application" if app is None else "finished application"
            if reason is None:
                current = app.current_attempt
                is_am = current is not None and current.am_container is not None and current.am_container.id == cid
                reason = scheduler.recover_container(
                    node.id, s, is_am=is_am, keep_containers=app.context.keep_containers_across_application_attempts
                )
            if reason is not None:
                rm.log.info("container_not_recovered", container=str(cid), node=str(node.id), reason=reason)
                if orphan:
                    # killed: its end reaches the RM when the NM reports it, and closes the stopped RM's books; a
                    # recovered application's AM container's ends its attempt (not counted: KILLED_BY_RESOURCEMANAGER)
                    rm.live.add(cid)
                node.queue_cleanup(cid)  # killOrphanContainerOnNode
                continue
            rm.live.add(cid)
            app.nodes.add(node.id)
            resource = s.allocated_resource
            rm.counters["containers_recovered"] += 1
            rm.log.info(
                "container_recovered",
                container=str(cid),
                node=str(node.id),
                memory_mb=resource.memory_mb,
                vcores=resource.vcores,
            )
        for app_id in running_apps:
            app = rm.apps.get(app_id)
            if app is None or app.is_done:
                node.queue_app_cleanup(app_id)  # RMNodeImpl.handleRunningAppOnNode

    @property
    def restarted(self) -> bool:
        """Whether the RM has restarted (a node registering is then a node coming back with its containers)."""
        return self.restarts > 0


def applications_of(rm: Any) -> dict[ApplicationId, RMApp]:
    """Every application of the run, in submission order: the RM's, and those a restart without recovery forgot
    (the new RM does not know them; the run's outputs report them)."""
    restarts = rm.restarts
    if restarts is None or not restarts.forgotten:
        return rm.apps  # type: ignore[no-any-return]
    apps = {**restarts.forgotten, **rm.apps}
    return dict(sorted(apps.items(), key=lambda kv: (kv[0].cluster_timestamp, kv[0].id)))


def _container_order(cid: ContainerId) -> tuple[int, int, int, int]:
    attempt = cid.application_attempt_id
    return (attempt.application_id.cluster_timestamp, attempt.application_id.id, attempt.attempt_id, cid.container_id)


def _new_monitor(rm: Any, scheduler: Any) -> Any:
    from yarnball.actors._preemption import create_preemption_monitor

    monitor = create_preemption_monitor(rm.conf, scheduler)
    rm.preemption_monitor = monitor
    if monitor is not None:
        monitor.rm_id = rm.id
    return monitor
