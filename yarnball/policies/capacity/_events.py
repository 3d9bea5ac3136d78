"""The scheduler-event handlers of :class:`CapacityScheduler` (capacity.md §1), kept apart from the allocation core.

Rejection texts are Hadoop's (``CapacityScheduler.addApplication``, ``AbstractLeafQueue.validateSubmitApplication``);
queue-level refusals are ``AccessControlException``s in Hadoop and reach the application as ``ace.toString()``, so
they carry the ``org.apache.hadoop.security.AccessControlException: `` prefix. Container-ending statuses use
``SchedulerUtils``' diagnostics and exit codes (policies/scheduler/_utils.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mypy_extensions import mypyc_attr

from yarnball._logs import get_logger
from yarnball.policies.capacity._allocator import unreserve
from yarnball.policies.capacity._autoqueues import create_for_submission, touch_submitted
from yarnball.policies.capacity._continuous import ContinuousScheduling
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._managedparent import create_for_submission as create_legacy_for_submission
from yarnball.policies.capacity._queues import CSQueue
from yarnball.policies.capacity._state import (
    SchedulerApp,
    SchedulerApplication,
)
from yarnball.policies.scheduler import _appscheduling
from yarnball.policies.scheduler._acl import QueueACL, QueueState
from yarnball.policies.scheduler._notifications import (
    AppAccepted,
    AppRejected,
    AttemptAdded,
)
from yarnball.policies.scheduler._utils import (
    COMPLETED_APPLICATION,
    EXPIRED_CONTAINER,
    LOST_CONTAINER,
    PREEMPTED_CONTAINER,
    RELEASED_CONTAINER,
    UNRESERVED_CONTAINER,
    abnormal_status,
    preempted_status,
)

__all__ = [
    "COMPLETED_APPLICATION",
    "EXPIRED_CONTAINER",
    "HANDLERS",
    "LOST_CONTAINER",
    "PREEMPTED_CONTAINER",
    "RELEASED_CONTAINER",
    "UNRESERVED_CONTAINER",
    "EventHandlers",
    "abnormal_status",
    "preempted_status",
]

log = get_logger(__name__)

ACE = "org.apache.hadoop.security.AccessControlException: "


@mypyc_attr(allow_interpreted_subclasses=True)
class EventHandlers(ContinuousScheduling):
    """NODE_*, APP_*, CONTAINER_* handling: a base of :class:`CapacityScheduler` (``handle`` dispatches through
    :data:`HANDLERS`)."""

    def _app_added(self, e: Any) -> None:
        app_id, user, queue_name = e.application_id, e.user, e.queue
        if app_id in self.applications:
            log.warning("Application already added, ignoring", application=str(app_id))
            return
        if self.root.num_applications >= self.max_system_apps:
            self.reject_application(
                app_id, f"Maximum system application limit reached,cannot accept submission of application: {app_id}"
            )
            return
        queue = self.get_queue(queue_name)
        if queue is None and self.managed_parents:
            # CapacityScheduler.autoCreateLeafQueue: a missing leaf under a ManagedParentQueue (_managedparent.py)
            queue, failure = create_legacy_for_submission(self, queue_name)
            if failure is not None:
                # handleQueueCreationError (Hadoop's message, its two spaces included)
                self.reject_application(
                    app_id,
                    f"Application {app_id} submission by user : {user} to  queue : {queue_name} failed : {failure}",
                )
                return
        if queue is None:
            # CapacityScheduler.getOrCreateQueueFromPlacementContext: a missing queue under a parent with
            # auto-queue-creation v2 enabled is created (_autoqueues.py)
            queue = create_for_submission(self, queue_name)
        if queue is None:
            if len(self._short.get(queue_name, ())) > 1:
                self.reject_application(
                    app_id,
                    f"Application {app_id} submitted by user {user} to ambiguous queue: {queue_name} "
                    "please use full queue path instead.",
                )
            else:
                self.reject_application(
                    app_id, f"Application {app_id} submitted by user {user} to unknown queue: {queue_name}"
                )
            return
        if not isinstance(queue, LeafQueue):
            self.reject_application(
                app_id, f"Application {app_id} submitted by user : {user} to non-leaf queue : {queue_name}"
            )
            return
        refusal = self._validate_submit(queue, app_id, user)
        if refusal is not None and not e.is_app_recovering:
            log.info(f"Failed to submit application {app_id} to queue {queue_name} from user {user}")
            self._ctx.outbox.append(AppRejected(app_id, ACE + refusal))
            return
        q: CSQueue | None = queue
        while q is not None:
            q.num_applications += 1
            q = q.parent
        if queue.dynamic:
            touch_submitted(self, queue)  # AbstractCSQueue.updateLastSubmittedTimeStamp
        self.applications[app_id] = SchedulerApplication(app_id, queue, user, e.priority.priority)
        log.info(f"Accepted application {app_id} from user: {user}, in queue: {queue_name}")
        if not e.is_app_recovering:
            self._ctx.outbox.append(AppAccepted(app_id))

    def _validate_submit(self, leaf: LeafQueue, app_id: Any, user: str) -> str | None:
        """``validateSubmitApplication`` plus the submit ACL (checked by RMAppManager when yarn.acl.enable)."""
        if self.acl_enabled and not (
            leaf.has_access(QueueACL.SUBMIT_APPLICATIONS, user) or leaf.has_access(QueueACL.ADMINISTER_QUEUE, user)
        ):
            return f"User {user} cannot submit applications to queue {leaf.path}"
        if leaf.state != QueueState.RUNNING:
            return f"Queue {leaf.path} is STOPPED. Cannot accept submission of application: {app_id}"
        n = len(leaf.active) + len(leaf.pending) + len(leaf.non_runnable)  # getNumApplications
        parent = leaf.parent
        if self.managed_parents and parent is not None and parent.path in self.managed_parents:
            # AbstractLeafQueue.validateSubmitApplication: "!(this instanceof AutoCreatedLeafQueue)" exempts an
            # auto-created leaf from both application limits (its capacity, and so its limits, may be 0).
            return None
        if n >= leaf.max_apps:
            if leaf.absolute and leaf.max_apps == 0 and self._ctx.cluster_m == 0 and self._ctx.cluster_v == 0:
                # Hadoop derives absoluteCapacity 0 (its effective minimum over an empty root) and so maxApplications
                # 0: the rejection is Hadoop's, the hint is yarnball's.
                log.warning(
                    "an absolute-resource queue accepts no application while the cluster has no resource "
                    "(maxApplications = (int)(maximum-applications x absoluteCapacity 0), as in Hadoop): submit after "
                    "the first NodeManager registers, or set the queue's maximum-applications",
                    queue=leaf.path,
                )
            return f"Queue {leaf.path} already has {n} applications, cannot accept submission of application: {app_id}"
        u = leaf.users.get(user)
        total = u.total_applications if u is not None else 0
        if total >= leaf.max_apps_per_user:
            return (
                f"Queue {leaf.path} already has {total} applications from user {user} "
                f"cannot accept submission of application: {app_id}"
            )
        return None

    def _app_removed(self, e: Any) -> None:
        app = self.applications.pop(e.application_id, None)
        if app is None:
            log.warning("Couldn't find application " + str(e.application_id))
            return
        if app.attempt is not None:
            self._remove_attempt(app.attempt, keep=False)
        self.complete_kept(app)
        q: CSQueue | None = app.queue
        while q is not None:
            q.num_applications -= 1
            if q.num_applications == 0 and q.state == QueueState.DRAINING:
                q.state = QueueState.STOPPED  # AbstractCSQueue.appFinished: a drained queue stops
            q = q.parent
        self.am_hints.pop(e.application_id, None)

    def _attempt_added(self, e: Any) -> None:
        ctx = self._ctx
        attempt_id = e.application_attempt_id
        app = self.applications.get(attempt_id.application_id)
        if app is None:
            log.error("Application " + str(attempt_id.application_id) + " not found, cannot add attempt")
            return
        if app.attempt is not None:
            self._remove_attempt(app.attempt, keep=False)
        leaf = app.queue
        attempt = self.create_attempt(attempt_id, app, leaf.get_user(app.user), e.transfer_state_from_previous_attempt)
        enforcer = self.max_running
        enforcer.stamp(attempt)
        enforcer.check_runnability_with_update(self.conf, attempt)
        enforcer.track_app(attempt)
        leaf.submit_attempt(ctx, attempt)
        log.info("Added Application Attempt " + str(attempt_id) + " to scheduler from user " + app.user)
        if not e.is_attempt_recovering:
            ctx.outbox.append(AttemptAdded(attempt_id))

    def _attempt_removed(self, e: Any) -> None:
        attempt = self.attempts.get(e.application_attempt_id)
        if attempt is None:
            log.info("Unknown application " + str(e.application_attempt_id) + " has completed!")
            return
        self._remove_attempt(attempt, keep=e.keep_containers_across_app_attempts)

    def _remove_attempt(self, attempt: SchedulerApp, *, keep: bool) -> None:
        """``doneApplicationAttempt``: kill live containers (RUNNING ones survive with keep-containers), drop
        reservations and asks, and let the leaf re-run activation."""
        ctx = self._ctx
        _appscheduling.complete_live_containers(self, attempt, keep)
        for by_node in list(attempt.reserved.values()):
            for rmc in list(by_node.values()):
                unreserve(ctx, rmc)
        _appscheduling.stop_attempt(self, attempt)
        leaf = attempt.queue
        leaf.finish_attempt(ctx, attempt)
        self.max_running.untrack_app(attempt)
        if attempt.runnable:
            self.max_running.update_runnability_on_app_removal(ctx, self.conf, attempt)


#: Scheduler event type name -> handler (called as ``handler(scheduler, event)``).
HANDLERS: dict[str, Callable[[Any, Any], None]] = {
    "NODE_ADDED": EventHandlers.handle_node_added,
    "NODE_REMOVED": EventHandlers.handle_node_removed,
    "NODE_UPDATE": EventHandlers.handle_node_update,
    "NODE_RESOURCE_UPDATE": EventHandlers.handle_node_resource_update,
    "APP_ADDED": EventHandlers._app_added,
    "APP_REMOVED": EventHandlers._app_removed,
    "APP_ATTEMPT_ADDED": EventHandlers._attempt_added,
    "APP_ATTEMPT_REMOVED": EventHandlers._attempt_removed,
    "CONTAINER_EXPIRED": EventHandlers.handle_container_expired,
    "RELEASE_CONTAINER": EventHandlers.handle_release_container,
    "KILL_RESERVED_CONTAINER": EventHandlers.handle_kill_reserved,
    "MARK_CONTAINER_FOR_PREEMPTION": EventHandlers.handle_mark_for_preemption,
    "MARK_CONTAINER_FOR_KILLABLE": EventHandlers.handle_mark_killable,
    "MARK_CONTAINER_FOR_NONKILLABLE": EventHandlers.handle_mark_nonkillable,
}
