"""ClientRMService: new application ids, submissions, kills, moves and priority updates with their access checks,
and the read requests (application reports, cluster metrics).

The RM's handlers delegate to :class:`ClientRMService` (actors/_resourcemanager.py); a refusal is answered with a
:class:`~yarnball.protocols.RemoteRefusal` carrying Hadoop's exception name and message, never raised (a raised
handler error would count as a handler failure of the run).

Access (``ClientRMService.checkAccess``): with ``yarn.acl.enable`` false everything is allowed. Otherwise the
caller may modify an application when it is the owner or in ``yarn.admin.acl`` (``ApplicationACLsManager``; the
application's own MODIFY_APP ACL is not modelled, so it is empty) or has ``acl_administer_queue`` on the
application's queue or an ancestor (``QueueACLsManager``). A move also needs ``acl_submit_applications`` or
``acl_administer_queue`` on the target queue (``ClientRMService.accessToTargetQueueAllowed``).

The caller is the request's ``user`` (Hadoop's RPC UGI). With ACLs on, a request without one is refused as the RPC
layer of a secure cluster refuses an unauthenticated client; with ACLs off an empty caller is an in-process client
(a trace, a test) and goes ahead, as every caller does then. Every ``AccessControlException`` is logged and counted
(:func:`counted`, actors/_secretmanagers.py ``Rejections``); a refused request changes nothing.
"""

from __future__ import annotations

from typing import Any

import msgspec

from yarnball.actors._rmapp import RMApp
from yarnball.errors import SchedulingError
from yarnball.policies.scheduler import QueueACL
from yarnball.protocols import (
    AppAddedSchedulerEvent,
    ApplicationId,
    GetApplicationReportRequest,
    GetApplicationReportResponse,
    GetApplicationsRequest,
    GetApplicationsResponse,
    GetClusterMetricsRequest,
    GetClusterMetricsResponse,
    GetNewApplicationRequest,
    GetNewApplicationResponse,
    KillApplicationResponse,
    SubmitApplicationRequest,
    SubmitApplicationResponse,
    keys,
)
from yarnball.protocols._clientprotocol import (
    KillApplicationRequest,
    MoveApplicationAcrossQueuesRequest,
    MoveApplicationAcrossQueuesResponse,
    RemoteRefusal,
    UpdateApplicationPriorityRequest,
    UpdateApplicationPriorityResponse,
    YarnClusterMetrics,
)
from yarnball.protocols._records import Priority, YarnApplicationState

__all__ = [
    "ClientRMService",
    "caller_refusal",
    "can_modify",
    "counted",
    "kill_diagnostics",
    "kill_refusal",
    "modify_refusal",
    "move",
    "update_priority",
    "wake_nodes",
]

ACCESS_DENIED = "AccessControlException"
NOT_FOUND = "ApplicationNotFoundException"
YARN_EXCEPTION = "YarnException"
# org.apache.hadoop.security.SaslRpcClient: an RPC client with neither a token nor Kerberos credentials
UNAUTHENTICATED = "Client cannot authenticate via:[TOKEN, KERBEROS]"

# ClientRMService.moveApplicationAcrossQueues: states in which the scheduler does not track the app
_UNMOVABLE = frozenset(
    {
        YarnApplicationState.NEW,
        YarnApplicationState.NEW_SAVING,
        YarnApplicationState.FINISHED,
        YarnApplicationState.FAILED,
        YarnApplicationState.KILLED,
    }
)
# ClientRMService.ACTIVE_APP_STATES
_ACTIVE = frozenset({YarnApplicationState.ACCEPTED, YarnApplicationState.RUNNING})


def wake_nodes(rm: Any) -> None:
    """A move or a new priority changes what the next NODE_UPDATE may allocate, which the heartbeat-skipping
    shortcuts cannot foresee (they prove a skipped heartbeat a no-op from the scheduler's state): every node sends
    its next heartbeat for real."""
    for node_id in sorted(rm.nodes, key=str):
        rm.wake_node(node_id)


def can_modify(rm: Any, user: str, app: Any) -> bool:
    """``checkAccess(callerUGI, owner, MODIFY_APP, app)``: see the module docstring."""
    scheduler = rm.scheduler
    if not scheduler.acl_enabled:
        return True
    if not user:
        return False  # (refused before this by caller_refusal)
    if user == app.user or scheduler.is_admin(user):
        return True
    return bool(scheduler.check_access(user, QueueACL.ADMINISTER_QUEUE, app.queue))


def caller_refusal(rm: Any, user: str) -> RemoteRefusal | None:
    """``ClientRMService.getCallerUgi``: with ACLs on, a request must name its caller (see the module docstring)."""
    if user or not rm.scheduler.acl_enabled:
        return None
    return RemoteRefusal(exception=ACCESS_DENIED, message=UNAUTHENTICATED)


def counted(rm: Any, msg: Any, reply: Any) -> Any:
    """``reply``, an access refusal among them logged and counted (``RMAuditLogger.logFailure``)."""
    if type(reply) is RemoteRefusal and reply.exception == ACCESS_DENIED:
        reason = "client_unauthenticated" if reply.message == UNAUTHENTICATED else "client_access_denied"
        rm.rejections.reject(
            rm,
            reason,
            reply.exception,
            reply.message,
            request=type(msg).__name__,
            application=str(msg.application_id),
            user=msg.user,
        )
    return reply


def modify_refusal(rm: Any, user: str, app: Any) -> RemoteRefusal | None:
    if can_modify(rm, user, app):
        return None
    return RemoteRefusal(
        exception=ACCESS_DENIED, message=f"User {user} cannot perform operation MODIFY_APP on {app.id}"
    )


def kill_refusal(rm: Any, msg: KillApplicationRequest, app: Any) -> RemoteRefusal | None:
    """``ClientRMService.forceKillApplication``'s checks, for a named caller (None: go ahead)."""
    if not msg.user:
        return caller_refusal(rm, msg.user)  # (None with ACLs off: an in-process kill goes ahead)
    if app is None:
        return RemoteRefusal(exception=NOT_FOUND, message=f"Trying to kill an absent application {msg.application_id}")
    return modify_refusal(rm, msg.user, app)


def kill_diagnostics(msg: KillApplicationRequest, app_id: Any) -> str:
    """The killed app's diagnostics: ``forceKillApplication``'s message for a named caller (no remote address: not
    an RPC call), else the in-process kill's own (or yarnball's default)."""
    if not msg.user:
        return msg.diagnostics or "Application killed by user."
    text = f"Application {app_id} was killed by user {msg.user}"
    if msg.diagnostics.strip():
        text += f" with diagnostic message: {msg.diagnostics.strip()}"
    return text


def move(rm: Any, msg: MoveApplicationAcrossQueuesRequest) -> Any:
    """``ClientRMService.moveApplicationAcrossQueues`` then ``YarnScheduler.moveApplication``."""
    refusal = caller_refusal(rm, msg.user)
    if refusal is not None:
        return refusal
    app = rm.apps.get(msg.application_id)
    if app is None:
        return RemoteRefusal(exception=NOT_FOUND, message=f"Trying to move an absent application {msg.application_id}")
    refusal = modify_refusal(rm, msg.user, app)
    if refusal is not None:
        return refusal
    scheduler = rm.scheduler
    target = msg.target_queue
    if (
        msg.user
        and scheduler.acl_enabled
        and not (
            scheduler.check_access(msg.user, QueueACL.SUBMIT_APPLICATIONS, target)
            or scheduler.check_access(msg.user, QueueACL.ADMINISTER_QUEUE, target)
        )
    ):
        return RemoteRefusal(
            exception=ACCESS_DENIED,
            message=f"User {msg.user} cannot submit applications to target queue or admin target queue",
        )
    if app.state in _UNMOVABLE or app.is_done:
        return RemoteRefusal(exception=YARN_EXCEPTION, message=f"App in {app.state.value} state cannot be moved.")
    try:
        scheduler.move_application(app.id, target)
    except SchedulingError as err:
        return RemoteRefusal(exception=YARN_EXCEPTION, message=str(err))
    rm.log.info("application_moved", application=str(app.id), source=app.queue, target=target, user=msg.user)
    app.queue = target
    wake_nodes(rm)
    return MoveApplicationAcrossQueuesResponse()


def update_priority(rm: Any, msg: UpdateApplicationPriorityRequest) -> Any:
    """``ClientRMService.updateApplicationPriority`` then ``YarnScheduler.updateApplicationPriority``."""
    refusal = caller_refusal(rm, msg.user)
    if refusal is not None:
        return refusal
    app = rm.apps.get(msg.application_id)
    if app is None:
        return RemoteRefusal(
            exception=NOT_FOUND, message=f"Trying to update priority of an absent application {msg.application_id}"
        )
    refusal = modify_refusal(rm, msg.user, app)
    if refusal is not None:
        return refusal
    current = app.context.priority
    if app.state not in _ACTIVE:
        if app.is_done:  # "If Application is in any of the final states, change priority can be skipped"
            return UpdateApplicationPriorityResponse(application_priority=current)
        return RemoteRefusal(
            exception=YARN_EXCEPTION, message=f"Application in {app.state.value} state cannot update priority."
        )
    # CapacityScheduler.checkAndGetApplicationPriority: capped at the cluster's maximum
    cap = rm.conf.get_int(
        keys.YARN_CLUSTER_MAX_APPLICATION_PRIORITY, keys.DEFAULT_YARN_CLUSTER_MAX_APPLICATION_PRIORITY
    )
    wanted = min(msg.application_priority.priority, cap)
    try:
        rm.scheduler.update_application_priority(app.id, wanted)
    except SchedulingError as err:
        return RemoteRefusal(exception=YARN_EXCEPTION, message=str(err))
    new = Priority(wanted)
    app.context = msgspec.structs.replace(app.context, priority=new)
    rm.log.info("application_priority_updated", application=str(app.id), priority=wanted, user=msg.user)
    wake_nodes(rm)
    return UpdateApplicationPriorityResponse(application_priority=new)


class ClientRMService:
    """``ClientRMService`` (ApplicationClientProtocol) of the RM ``rm``: each ``on_*`` method serves one request
    and answers the sender through the RM. Application and attempt state changes go to the RMAppManager
    (``rm.app_manager``, actors/_rmappmanager.py)."""

    __slots__ = ("next_app_id", "rm")

    def __init__(self, rm: Any) -> None:
        self.rm = rm
        self.next_app_id = 1  # ClientRMService.getNewApplicationId: the next id of this RM

    def on_new_application(self, msg: GetNewApplicationRequest) -> None:
        rm = self.rm
        app_id = ApplicationId(rm.cluster_timestamp, self.next_app_id)
        self.next_app_id += 1
        rm.reply(GetNewApplicationResponse(application_id=app_id, maximum_resource_capability=rm.maximum_allocation))

    def on_submit(self, msg: SubmitApplicationRequest) -> None:
        """``ClientRMService.submitApplication`` then ``RMAppManager.submitApplication``."""
        rm = self.rm
        context = msg.application_submission_context
        app_id = context.application_id
        response = SubmitApplicationResponse()
        if app_id in rm.apps:
            rm.log.warning("duplicate_submission", application=str(app_id))
            rm.reply(response)
            return
        max_attempts = context.max_app_attempts
        if max_attempts <= 0 or max_attempts > rm.max_attempts:
            max_attempts = rm.max_attempts  # RMAppImpl: out-of-range values fall back to the global limit
        app = RMApp(context, rm.now, max_attempts, rm.sender)
        rm.apps[app_id] = app
        rm.counters["apps_submitted"] += 1
        rm.app_manager.store.app_submitted(app)  # RMStateStore.storeNewApplication
        rm.log.info("application_submitted", application=str(app_id), queue=app.queue, user=app.user)
        am = context.am_container_resource
        maximum = rm.maximum_allocation
        if not am.fits_in(maximum) or am.memory_mb <= 0:
            # RMAppManager.validateAndCreateResourceRequest: InvalidResourceRequestException at submission.
            rm.app_manager.on_rejected(
                app_id,
                f"Invalid resource request, requested resource type=[memory-mb] < 0 or greater than maximum allowed "
                f"allocation. Requested resource={am}, maximum allowed allocation={maximum}",
            )
        else:
            rm.scheduler.set_am_resource(app_id, am)
            rm.dispatch(
                AppAddedSchedulerEvent(application_id=app_id, queue=app.queue, user=app.user, priority=context.priority)
            )
        rm.reply(response)

    def on_kill(self, msg: KillApplicationRequest) -> None:
        """``ClientRMService.forceKillApplication``."""
        rm = self.rm
        app = rm.apps.get(msg.application_id)
        refusal = kill_refusal(rm, msg, app)
        if refusal is not None:
            rm.reply(counted(rm, msg, refusal))
            return
        if app is None or app.is_done:
            rm.reply(KillApplicationResponse(is_kill_completed=True))
            return
        if msg.user:
            rm.log.info("application_kill", application=str(app.id), diagnostics=msg.diagnostics, user=msg.user)
        else:  # an in-process kill logs as it always did
            rm.log.info("application_kill", application=str(app.id), diagnostics=msg.diagnostics)
        rm.app_manager.kill(app, kill_diagnostics(msg, app.id))
        rm.reply(KillApplicationResponse(is_kill_completed=True))

    def on_move(self, msg: MoveApplicationAcrossQueuesRequest) -> None:
        self.rm.reply(counted(self.rm, msg, move(self.rm, msg)))

    def on_update_priority(self, msg: UpdateApplicationPriorityRequest) -> None:
        self.rm.reply(counted(self.rm, msg, update_priority(self.rm, msg)))

    def on_app_report(self, msg: GetApplicationReportRequest) -> None:
        rm = self.rm
        app = rm.apps.get(msg.application_id)
        if app is None:
            rm.log.warning("unknown_application", application=str(msg.application_id))
            return
        rm.reply(GetApplicationReportResponse(application_report=app.report()))

    def on_apps(self, msg: GetApplicationsRequest) -> None:
        reports = [a.report() for a in self.rm.apps.values()]
        if msg.queues:
            reports = [r for r in reports if r.queue in msg.queues]
        if msg.application_states:
            reports = [r for r in reports if r.state in msg.application_states]
        self.rm.reply(GetApplicationsResponse(application_list=tuple(reports)))

    def on_cluster_metrics(self, msg: GetClusterMetricsRequest) -> None:
        rm = self.rm
        metrics = YarnClusterMetrics(
            num_node_managers=len(rm.nodes),
            num_active_node_managers=len(rm.nodes),
            num_lost_node_managers=len(rm.lost_nodes),
        )
        rm.reply(GetClusterMetricsResponse(cluster_metrics=metrics))
