"""RMAppManager: the applications' and attempts' lifecycle in the RM (``RMAppImpl`` / ``RMAppAttemptImpl``
transitions), with the ApplicationMasterLauncher and the AMLivelinessMonitor.

An accepted application gets its first attempt; the attempt asks the scheduler for its AM container, which the
launcher starts on its NodeManager; the attempt fails (an AM container that exited, an AM that stopped
heartbeating) and is retried up to ``yarn.resourcemanager.am.max-attempts`` (counted failures only), or the
application finishes. The state store hears of each step: :attr:`RMAppManager.store`, the RM's restarts
(actors/_rmrestart.py) when recovery is on or an RM restart is scheduled, else a store that keeps nothing (chosen
when the RM is built, and again when the restarts start). The records themselves are actors/_rmapp.py's; the RM
holds them (``rm.apps``, ``rm.attempts``), as Hadoop's RMContext does.
"""

from __future__ import annotations

from collections import deque
from typing import Any, ClassVar

from yarnball.actors._nodemanager import nm_actor_id
from yarnball.actors._rmapp import NOT_COUNTED_EXITS, AttemptState, RMApp, RMAppAttempt
from yarnball.actors._rmcontext import RMContext
from yarnball.protocols import (
    AppAttemptAddedSchedulerEvent,
    AppAttemptRemovedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    AppRemovedSchedulerEvent,
    Container,
    ContainerExitStatus,
    ContainerState,
    ContainerStatus,
    FinalApplicationStatus,
    Priority,
    ResourceRequest,
    StartContainersRequest,
    StartContainersResponse,
    YarnApplicationState,
    keys,
)
from yarnball.protocols._containermanagement import ContainerLaunchContext, StartContainerRequest
from yarnball.protocols._executor import ATTEMPT_ID_ENV

__all__ = ["AM_PRIORITY", "NO_STATE_STORE", "RMAppManager"]

AM_PRIORITY = Priority(0)  # RMAppAttemptImpl.AM_CONTAINER_PRIORITY


class _NoStateStore:
    """The state store without RM restarts: keeps nothing, recovers nothing (RMRestarts' interface)."""

    __slots__ = ()
    awaiting: ClassVar[frozenset[ApplicationAttemptId]] = frozenset()
    restarted: ClassVar[bool] = False

    def app_submitted(self, app: RMApp) -> None:
        pass

    def attempt_stored(self, app: RMApp, attempt: RMAppAttempt) -> None:
        pass

    def attempt_ended(self, attempt: RMAppAttempt, diagnostics: str = "", *, counted: bool = True) -> None:
        pass

    def am_unregistered(self, app: RMApp, attempt: RMAppAttempt) -> None:
        pass

    def app_ended(self, app: RMApp, state: YarnApplicationState, final: FinalApplicationStatus) -> None:
        pass

    def registered(self, attempt_id: ApplicationAttemptId) -> None:
        pass

    def remove_application(self, app_id: ApplicationId) -> None:
        pass

    def not_registered(self, attempt_id: ApplicationAttemptId) -> None:
        return None


#: The state store of an RM without restarts.
NO_STATE_STORE = _NoStateStore()


class RMAppManager:
    """The application and attempt lifecycle of the RM ``rm`` (see the module docstring)."""

    __slots__ = (
        "attempt_removed_listeners",
        "completed",
        "completed_in_store",
        "context",
        "max_completed",
        "max_completed_in_store",
        "removed",
        "removed_from_store",
        "removed_listeners",
        "rm",
        "store",
    )

    def __init__(self, rm: Any) -> None:
        self.rm = rm
        self.context: RMContext = rm.context  # (actors/_rmcontext.py: its fields are native reads)
        # RMAppManager's constructor: the state store keeps at most as many finished applications as memory.
        conf = rm.conf
        limit = conf.get_int(keys.RM_MAX_COMPLETED_APPLICATIONS, keys.DEFAULT_RM_MAX_COMPLETED_APPLICATIONS)
        self.max_completed = limit
        in_store = conf.get_int(keys.RM_STATE_STORE_MAX_COMPLETED_APPLICATIONS, self.max_completed)
        self.max_completed_in_store = min(in_store, self.max_completed)
        #: The finished applications still in the RM, oldest first (RMAppManager.completedApps), and how many of
        #: the newest of them are still in the state store (completedAppsInStateStore).
        self.completed: deque[ApplicationId] = deque()
        self.completed_in_store = 0
        #: Finished applications removed so far, from the RM and from the state store (over the RM's restarts).
        self.removed = self.removed_from_store = 0
        #: Told of each finished application the RM removes (what the launcher's outputs keep of it).
        self.removed_listeners: list[Any] = []
        #: The RM's restarts (actors/_rmrestart.py), or NO_STATE_STORE (chosen by build_chain).
        self.store: Any = NO_STATE_STORE
        #: Told of each removed attempt: the opportunistic service (its containers and context go).
        self.attempt_removed_listeners: tuple[Any, ...] = ()
        self.build_chain()

    def build_chain(self) -> None:
        """Choose the state store and the listeners from the RM's optional services."""
        rm = self.rm
        self.store = rm.restarts if rm.restarts is not None else NO_STATE_STORE
        opportunistic = rm.opportunistic
        self.attempt_removed_listeners = (opportunistic.on_attempt_removed,) if opportunistic is not None else ()

    # -- RMAppImpl ----------------------------------------------------------------------------------------------
    def on_accepted(self, app_id: ApplicationId, placed_queue: str = "") -> None:
        ctx = self.context
        rm = self.rm
        app = ctx.apps[app_id]
        if placed_queue:
            # RMAppManager.copyPlacementQueueToSubmissionContext: the placed queue becomes the application's (its
            # reports, REST and outputs show it); the scheduler sends it only when it differs from the one named
            app.queue = placed_queue
        app.state = YarnApplicationState.ACCEPTED
        rm.log.info("application_accepted", application=str(app_id), queue=app.queue)
        self.new_attempt(app)

    def on_rejected(self, app_id: ApplicationId, diagnostics: str) -> None:
        ctx = self.context
        rm = self.rm
        app = ctx.apps[app_id]
        app.diagnostics = diagnostics
        app.rejected = True
        ctx.counters["apps_rejected"] += 1
        rm.log.warning("application_rejected", application=str(app_id), queue=app.queue, diagnostics=diagnostics)
        self.finish_app(app, YarnApplicationState.FAILED, FinalApplicationStatus.FAILED, rejected=True)

    def kill(self, app: RMApp, diagnostics: str) -> None:
        """RMAppImpl's KILL: the current attempt is killed, then the application."""
        app.diagnostics = diagnostics
        attempt = app.current_attempt
        if attempt is not None and not attempt.is_done:
            attempt.state = AttemptState.KILLED
            self.store.attempt_ended(attempt, app.diagnostics)
            self.remove_attempt(attempt, "KILLED")
        self.finish_app(app, YarnApplicationState.KILLED, FinalApplicationStatus.KILLED)

    def finish_app(
        self, app: RMApp, state: YarnApplicationState, final: FinalApplicationStatus, *, rejected: bool = False
    ) -> None:
        ctx = self.context
        if app.is_done:
            return
        rm = self.rm
        app.state = state
        app.final_status = final
        app.finish_time = ctx.kernel.now
        self.store.app_ended(app, state, final)
        if not rejected:
            rm.dispatch(AppRemovedSchedulerEvent(application_id=app.id, final_state=state.value))
            if state is YarnApplicationState.FINISHED and final is FinalApplicationStatus.SUCCEEDED:
                ctx.counters["apps_finished"] += 1
            elif state is YarnApplicationState.KILLED:
                ctx.counters["apps_killed"] += 1
            else:
                ctx.counters["apps_failed"] += 1
        for node_id in sorted(app.nodes, key=str):
            node = ctx.nodes.get(node_id)
            if node is not None:
                node.queue_app_cleanup(app.id)
                rm.wake_node(node_id)
        rm.log.info(
            "application_finished",
            application=str(app.id),
            state=state.value,
            final_status=final.value,
            diagnostics=app.diagnostics,
        )
        rm.apps_done += 1
        for listener in rm.done_listeners:
            listener(app)
        # RMAppImpl's final transitions send APP_COMPLETED: RMAppManager.finishApplication, then
        # checkAppNumCompletedLimit.
        self.completed.append(app.id)
        self.completed_in_store += 1
        self.check_completed_limit()

    def forget_completed(self) -> None:
        """The RM process stops: a new one starts with an empty ``completedApps``."""
        self.completed.clear()
        self.completed_in_store = 0

    def recovered_completed(self, app: RMApp) -> None:
        """A recovered application in a final state (RMAppImpl.RMAppRecoveredTransition sends APP_COMPLETED)."""
        self.completed.append(app.id)
        self.completed_in_store += 1

    def check_completed_limit(self) -> None:
        """``RMAppManager.checkAppNumCompletedLimit``: the oldest finished applications beyond the limits leave the
        state store, then the RM (its applications and attempts, what the client protocol and REST show)."""
        ctx = self.context
        rm = self.rm
        completed = self.completed
        while self.completed_in_store > self.max_completed_in_store:
            app_id = completed[len(completed) - self.completed_in_store]
            self.store.remove_application(app_id)
            self.completed_in_store -= 1
            self.removed_from_store += 1
        while len(completed) > self.max_completed:
            app = ctx.apps.pop(completed.popleft(), None)
            if app is None:
                continue
            self.removed += 1
            rm.log.debug("application_removed", application=str(app.id), max_completed_applications=self.max_completed)
            for attempt in app.attempts:
                ctx.attempts.pop(attempt.attempt_id, None)
            for listener in self.removed_listeners:
                listener(app)

    # -- RMAppAttemptImpl ---------------------------------------------------------------------------------------
    def new_attempt(self, app: RMApp, *, transfer: bool = False) -> None:
        ctx = self.context
        rm = self.rm
        attempt_id = ApplicationAttemptId(app.id, len(app.attempts) + 1)
        attempt = RMAppAttempt(attempt_id, ctx.kernel.now, ctx.secrets.create_amrm_token(attempt_id))
        app.attempts.append(attempt)
        ctx.attempts[attempt.attempt_id] = attempt
        if transfer:  # the previous attempt's kept containers move to this one
            rm.dispatch(
                AppAttemptAddedSchedulerEvent(
                    application_attempt_id=attempt.attempt_id, transfer_state_from_previous_attempt=True
                )
            )
            return
        rm.dispatch(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt.attempt_id))

    def on_attempt_added(self, attempt_id: ApplicationAttemptId) -> None:
        """RMAppAttemptImpl.ScheduleTransition: the AM container is asked for."""
        ctx = self.context
        app = ctx.apps[attempt_id.application_id]
        request = ResourceRequest(priority=AM_PRIORITY, capability=app.context.am_container_resource, resource_name="*")
        ctx.dispatcher.allocate(attempt_id, (request,), ())

    def am_container_finished(self, attempt_id: ApplicationAttemptId, status: ContainerStatus) -> None:
        ctx = self.context
        attempt = ctx.attempts.get(attempt_id)
        if attempt is None or attempt.is_done:
            return
        if attempt.state is AttemptState.FINISHING:
            attempt.state = AttemptState.FINISHED
            self.store.attempt_ended(attempt)
            self.remove_attempt(attempt, "FINISHED")
            app = ctx.apps[attempt_id.application_id]
            final = attempt.final_status
            state = {
                FinalApplicationStatus.FAILED: YarnApplicationState.FAILED,
                FinalApplicationStatus.KILLED: YarnApplicationState.KILLED,
            }.get(final, YarnApplicationState.FINISHED)
            self.finish_app(app, state, final)
            return
        counted = status.exit_status not in NOT_COUNTED_EXITS
        diagnostics = (
            f"AM Container for {attempt_id} exited with  exitCode: {status.exit_status} "
            f"due to: {status.diagnostics}".rstrip()
        )
        self.fail_attempt(attempt, diagnostics, counted=counted)

    def fail_attempt(self, attempt: RMAppAttempt, diagnostics: str, *, counted: bool) -> None:
        ctx = self.context
        rm = self.rm
        app = ctx.apps[attempt.attempt_id.application_id]
        attempt.state = AttemptState.FAILED
        rm.log.warning("attempt_failed", attempt=str(attempt.attempt_id), diagnostics=diagnostics, counted=counted)
        if attempt.am_container is not None:
            ctx.am_containers.pop(attempt.am_container.id, None)
        if counted:
            app.counted_failures += 1
        retry = app.counted_failures < app.max_attempts
        # RMAppAttemptImpl.BaseFinalTransition: with keepContainersAcrossApplicationAttempts and another attempt to
        # come, the scheduler keeps the attempt's running containers for the next one.
        keep = retry and app.context.keep_containers_across_application_attempts
        self.store.attempt_ended(attempt, diagnostics, counted=counted)
        self.remove_attempt(attempt, "FAILED", keep=keep)
        if not retry:
            app.diagnostics = (
                f"Application {app.id} failed {app.max_attempts} times due to {diagnostics}. Failing the application."
            )
            self.finish_app(app, YarnApplicationState.FAILED, FinalApplicationStatus.FAILED)
        else:
            self.new_attempt(app, transfer=keep)

    def remove_attempt(self, attempt: RMAppAttempt, final_state: str, *, keep: bool = False) -> None:
        ctx = self.context
        rm = self.rm
        ctx.secrets.attempt_removed(attempt.attempt_id)
        if ctx.dormant:
            ctx.dormant.wake(attempt.attempt_id)  # its next allocate gets AM_SHUTDOWN
        for listener in self.attempt_removed_listeners:
            listener(attempt.attempt_id)
        if keep:
            rm.dispatch(
                AppAttemptRemovedSchedulerEvent(
                    application_attempt_id=attempt.attempt_id,
                    final_attempt_state=final_state,
                    keep_containers_across_app_attempts=True,
                )
            )
            return
        rm.dispatch(
            AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt.attempt_id, final_attempt_state=final_state)
        )

    # -- AMLivelinessMonitor ------------------------------------------------------------------------------------
    def check_am_liveness(self) -> None:
        ctx = self.context
        rm = self.rm
        if ctx.dormant:
            ctx.dormant.settle_all()  # a dormant AM heartbeats all along (actors/_shortcuts/_amdormancy.py)
        deadline = ctx.kernel.now - rm.am_expiry_ms
        # (a recovered attempt is watched from its recovery on: AttemptRecoveredTransition registers it)
        awaiting = self.store.awaiting
        for attempt in list(ctx.attempts.values()):
            watched = attempt.state is AttemptState.RUNNING or attempt.attempt_id in awaiting
            if watched and attempt.last_heartbeat < deadline:
                rm.log.warning("am_expired", attempt=str(attempt.attempt_id))
                self.fail_attempt(attempt, "ApplicationMaster for attempt timed out", counted=True)

    # -- ApplicationMasterLauncher ------------------------------------------------------------------------------
    def launch_am(self, app: RMApp, attempt: RMAppAttempt, container: Container) -> None:
        ctx = self.context
        rm = self.rm
        # RMAppAttemptImpl.AMContainerAllocatedTransition pulls the AM container from the scheduler itself.
        ctx.dispatcher.allocate(attempt.attempt_id, (), ())
        attempt.state = AttemptState.ALLOCATED
        attempt.am_container = container
        ctx.am_containers[container.id] = attempt.attempt_id
        spec = app.context.am_container_spec
        # AMLauncher.createAMContainerLaunchContext / setupTokens: the AMRMToken goes into the container's
        # credentials; AMLauncher.getContainerMgrProxy speaks to the NM with an NMToken of the attempt.
        context = ContainerLaunchContext(
            commands=spec.commands,
            environment=(*spec.environment, (ATTEMPT_ID_ENV, str(attempt.attempt_id))),
            payload=spec.payload,
            simulated_duration_ms=spec.simulated_duration_ms,
            tokens=(*spec.tokens, attempt.amrm_token) if attempt.amrm_token is not None else spec.tokens,
        )
        user = app.context.user
        secrets = ctx.secrets
        request = StartContainersRequest(
            start_container_requests=(
                StartContainerRequest(container=secrets.sign(container, user), launch_context=context),
            ),
            nm_token=secrets.create_nm_token(attempt.attempt_id, container.node_id, user),
        )
        ctx.kernel.lookup(nm_actor_id(container.node_id.host)).tell(request, rm.ref)
        attempt.state = AttemptState.LAUNCHED
        if app.launch_time is None:
            app.launch_time = ctx.kernel.now
        self.store.attempt_stored(app, attempt)  # RMStateStore.storeNewApplicationAttempt
        rm.log.info(
            "am_launched", attempt=str(attempt.attempt_id), container=str(container.id), node=str(container.node_id)
        )

    def on_start_response(self, msg: StartContainersResponse) -> None:
        """AMLauncher.launch's answer: an AM container the NM could not start ends its attempt."""
        ctx = self.context
        rm = self.rm
        for failed in msg.failed_requests:
            attempt_id = ctx.am_containers.get(failed.container_id)
            rm.log.warning("am_launch_failed", container=str(failed.container_id), diagnostics=failed.diagnostics)
            if attempt_id is not None:
                status = ContainerStatus(
                    container_id=failed.container_id,
                    state=ContainerState.COMPLETE,
                    exit_status=ContainerExitStatus.INVALID,
                    diagnostics=failed.diagnostics,
                )
                ctx.dispatcher.container_done(failed.container_id, status)
