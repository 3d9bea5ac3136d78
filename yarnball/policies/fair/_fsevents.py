"""The FairScheduler's events (``FairScheduler.handle``, fair.md §4.1) and its application calls: submission through
the placement policy (``addApplication``), attempts and their runnability (``addApplicationAttempt``,
``removeApplicationAttempt`` with the ``MaxRunningAppsEnforcer``), ``moveApplication`` and
``updateApplicationPriority``. Functions of the scheduler, dispatched by event type name."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from yarnball._logs import get_logger
from yarnball.errors import InvalidQueueNameException, SchedulingError
from yarnball.policies.capacity._state import RESERVED, SchedulerApp, SchedulerApplication
from yarnball.policies.fair._fsappattempt import FSAppAttempt
from yarnball.policies.fair._fsleafqueue import FSLeafQueue
from yarnball.policies.fair._fsqueue import FSQueue
from yarnball.policies.fair._placement import ExistingQueue
from yarnball.policies.scheduler import _appscheduling
from yarnball.policies.scheduler._abstract import AbstractYarnScheduler
from yarnball.policies.scheduler._acl import QueueACL
from yarnball.policies.scheduler._notifications import AppAccepted, AttemptAdded, SchedulerNotification
from yarnball.protocols import ApplicationId

if TYPE_CHECKING:
    from yarnball.policies.fair._fairscheduler import FairScheduler

__all__ = ["handle", "handlers", "move_application", "update_application_priority"]

log = get_logger(__name__)


def handlers() -> dict[str, Callable[[FairScheduler, Any], None]]:
    """The events ``FairScheduler.handle`` handles, by type name."""
    return {
        "NODE_ADDED": node_added,
        "NODE_REMOVED": AbstractYarnScheduler.handle_node_removed,
        "NODE_RESOURCE_UPDATE": AbstractYarnScheduler.handle_node_resource_update,
        "NODE_UPDATE": AbstractYarnScheduler.handle_node_update,
        "APP_ADDED": app_added,
        "APP_REMOVED": app_removed,
        "APP_ATTEMPT_ADDED": attempt_added,
        "APP_ATTEMPT_REMOVED": attempt_removed,
        "CONTAINER_EXPIRED": AbstractYarnScheduler.handle_container_expired,
        "RELEASE_CONTAINER": AbstractYarnScheduler.handle_release_container,
        "KILL_RESERVED_CONTAINER": AbstractYarnScheduler.handle_kill_reserved,
        "MARK_CONTAINER_FOR_PREEMPTION": mark_for_preemption,
        "MARK_CONTAINER_FOR_KILLABLE": AbstractYarnScheduler.handle_mark_killable,
    }


def node_added(s: FairScheduler, e: Any) -> None:
    """NODE_ADDED: ``addNode`` (the node named as ``FSSchedulerNode`` names it)."""
    s.handle_node_added(e)


def mark_for_preemption(s: FairScheduler, e: Any) -> None:
    """MARK_CONTAINER_FOR_PREEMPTION: ``trackContainerForPreemption`` (the FSPreemptionThread's marks)."""
    s.track_container_for_preemption(e.container.id)


def handle(s: FairScheduler, event: object) -> list[SchedulerNotification]:
    """``FairScheduler.handle``: an event it does not handle is logged as Hadoop logs it and ignored."""
    out: list[SchedulerNotification] = []
    s.ctx.outbox = out
    name = getattr(getattr(event, "event_type", None), "name", "")
    handler = s.event_handlers.get(name)
    if handler is None:
        log.error(f"Unknown event arrived at FairScheduler: {event}")
        return out
    handler(s, event)
    return out


def _existing_queues(s: FairScheduler) -> dict[str, ExistingQueue]:
    return {
        name: ExistingQueue(leaf=isinstance(q, FSLeafQueue), dynamic=q.is_dynamic)
        for name, q in s.queue_manager.queues.items()
    }


def app_added(s: FairScheduler, e: Any) -> None:
    """``addApplication`` after ``PlacementManager.placeApplication``: the placed leaf (created if the rules
    allow), the submit ACL, then accepted (fair.md §1.7, §2)."""
    app_id, user = e.application_id, e.user
    if app_id in s.applications:
        log.warning("Application already added, ignoring", application=str(app_id))
        return
    groups = s.user_groups(user)  # Groups.getGroups: the placement rules' groups, primary first
    placement = s.alloc_conf.placement_policy.place_application(e.queue, user, groups, _existing_queues(s), str(app_id))
    queue_name = placement.queue
    recovering = e.is_app_recovering
    if queue_name is None and not recovering:
        s.reject_application(app_id, placement.diagnostics)
        return
    if queue_name is None:
        queue_name = "root.recovery"
    try:
        queue = s.queue_manager.get_leaf_queue(queue_name, True, app_id)
    except InvalidQueueNameException as exc:
        s.reject_application(app_id, str(exc))
        return
    if queue is None:
        if not recovering:
            s.reject_application(app_id, f"{queue_name} is not a leaf queue")
            return
        queue_name = "root.recovery"
        queue = s.queue_manager.get_leaf_queue(queue_name, True, app_id)
        assert queue is not None
    if not recovering and not (
        s.alloc_conf.check_permission(queue.name, QueueACL.SUBMIT_APPLICATIONS, user)
        or s.alloc_conf.check_permission(queue.name, QueueACL.ADMINISTER_QUEUE, user)
    ):
        s.reject_application(app_id, f"User {user} does not have permission to submit {app_id} to queue {queue_name}")
        queue.remove_assigned_app(app_id)
        return
    hint = s.am_hints.get(app_id)
    if hint is not None and not recovering:
        max_share = queue.max_share
        invalid = [
            name
            for name, asked, top in (
                ("memory-mb", hint.memory_mb, max_share.memory_mb),
                ("vcores", hint.vcores, max_share.vcores),
            )
            if asked > 0 and top == 0
        ]
        if invalid:
            s.reject_application(
                app_id,
                f"Cannot submit application {app_id} to queue {queue_name} because it has zero amount of resource "
                f"for a requested resource! Invalid requested AM resources: {invalid}, maximum queue resources: "
                f"{max_share}",
            )
            queue.remove_assigned_app(app_id)
            return
    s.applications[app_id] = SchedulerApplication(app_id, s.accounting_queue, user, e.priority.priority)
    s.app_queues[app_id] = queue
    s.accounting_queue.num_applications += 1
    log.info(
        f"Accepted application {app_id} from user: {user}, in queue: {queue_name}, currently num of applications: "
        f"{len(s.applications)}"
    )
    if not recovering:
        # RMAppManager.copyPlacementQueueToSubmissionContext: a placed queue that differs from the named one
        # (ignoring case; "sls_queue_1" is placed as "root.sls_queue_1") becomes the application's queue
        placed = queue.name if (e.queue or "").lower() != queue.name.lower() else ""
        s.ctx.outbox.append(AppAccepted(app_id, placed))


def app_removed(s: FairScheduler, e: Any) -> None:
    """``removeApplication``: ``SchedulerApplication.stop`` (its attempt is removed by APP_ATTEMPT_REMOVED)."""
    app = s.applications.pop(e.application_id, None)
    if app is None:
        log.warning("Couldn't find application " + str(e.application_id))
        return
    if app.attempt is not None:
        _remove_attempt(s, app.attempt, keep=False)
    s.complete_kept(app)
    queue = s.app_queues.pop(e.application_id, None)
    if queue is not None:
        queue.remove_assigned_app(e.application_id)
    s.accounting_queue.num_applications -= 1
    s.am_hints.pop(e.application_id, None)
    s.unmanaged_apps.discard(e.application_id)


def attempt_added(s: FairScheduler, e: Any) -> None:
    """``addApplicationAttempt``: a new ``FSAppAttempt`` in the application's leaf, runnable if the running-app
    limits allow (``MaxRunningAppsEnforcer.canAppBeRunnable``)."""
    ctx = s.ctx
    attempt_id = e.application_attempt_id
    app = s.applications.get(attempt_id.application_id)
    queue = s.app_queues.get(attempt_id.application_id)
    if app is None or queue is None:
        log.error("Application " + str(attempt_id.application_id) + " not found, cannot add attempt")
        return
    if app.attempt is not None:
        _remove_attempt(s, app.attempt, keep=False)
    user = s.accounting_queue.get_user(app.user)
    attempt = s.create_attempt(attempt_id, app, user, e.transfer_state_from_previous_attempt)
    fs_app = FSAppAttempt(s, attempt, queue, s.now())
    s.fs_apps[attempt_id] = fs_app
    enforcer = s.max_running_enforcer
    runnable = enforcer.can_app_be_runnable(queue, fs_app)
    queue.add_app(fs_app, runnable)
    if runnable:
        enforcer.track_runnable_app(fs_app)
    else:
        enforcer.track_non_runnable_app(fs_app)
    log.info(f"Added Application Attempt {attempt_id} to scheduler from user: {app.user}")
    if not e.is_attempt_recovering:
        ctx.outbox.append(AttemptAdded(attempt_id))


def attempt_removed(s: FairScheduler, e: Any) -> None:
    """``removeApplicationAttempt``."""
    attempt_id = e.application_attempt_id
    log.info(f"Application {attempt_id} is done. finalState={e.final_attempt_state}")
    attempt = s.attempts.get(attempt_id)
    if attempt is None:
        log.info(f"Unknown application {attempt_id} has completed!")
        return
    _remove_attempt(s, attempt, keep=e.keep_containers_across_app_attempts)


def _remove_attempt(s: FairScheduler, attempt: SchedulerApp, *, keep: bool) -> None:
    """Kill the live containers (RUNNING ones survive a work-preserving AM restart) and the reservations, stop the
    attempt, take it out of its leaf and update the runnability of the applications waiting on it."""
    for rmc in _appscheduling.complete_live_containers(s, attempt, keep):
        log.info(f"Skip killing {rmc.cid}")  # (completing the others logs nothing: the log reads as Hadoop's)
    for by_node in list(attempt.reserved.values()):
        for rmc in list(by_node.values()):
            if rmc.state == RESERVED:
                s.unreserve(rmc)
    _appscheduling.stop_attempt(s, attempt)  # (the containers and reservations are settled above)
    fs_app = s.fs_apps.pop(attempt.attempt_id, None)
    if fs_app is None:
        return
    queue = fs_app.queue
    was_runnable = queue.remove_app(fs_app)
    enforcer = s.max_running_enforcer
    if was_runnable:
        enforcer.untrack_runnable_app(fs_app)
        enforcer.update_runnability_on_app_removal(fs_app, queue)
    else:
        enforcer.untrack_non_runnable_app(fs_app)


# -- moveApplication and priorities ------------------------------------------------------------------------------
def _lowest_common_ancestor(a: FSQueue, b: FSQueue) -> FSQueue | None:
    """``findLowestCommonAncestorQueue``."""
    ancestors: set[str] = set()
    q: FSQueue | None = a
    while q is not None:
        ancestors.add(q.name)
        q = q.parent
    q = b
    while q is not None and q.name not in ancestors:
        q = q.parent
    return q


def move_application(s: FairScheduler, app_id: ApplicationId, target_queue: str) -> str:
    """``moveApplication`` (fair.md §4.7): the checks and messages of Hadoop's, then ``executeMove``."""
    app = s.applications.get(app_id)
    if app is None:
        raise SchedulingError(f"App to be moved {app_id} not found.")
    attempt = app.attempt
    fs_app = s.fs_apps.get(attempt.attempt_id) if attempt is not None else None
    if attempt is None or fs_app is None or attempt.stopped:
        raise SchedulingError(f"Application {app_id} is stopped and can't be moved!")
    old_queue = fs_app.queue
    try:
        target = s.queue_manager.get_leaf_queue(target_queue, False)
    except InvalidQueueNameException:
        target = None
    if target is None:
        raise SchedulingError(f"Target queue {target_queue} not found or is not a leaf queue.")
    if old_queue.is_runnable_app(fs_app):
        ancestor = _lowest_common_ancestor(old_queue, target)
        consumption = fs_app.resource_usage
        cur: FSQueue | None = target
        while cur is not None and cur is not ancestor:
            if cur.num_runnable_apps == cur.max_running_apps:
                raise SchedulingError(
                    f"Moving app attempt {attempt.attempt_id} to queue {target.name} would violate queue "
                    f"maxRunningApps constraints on queue {cur.name}"
                )
            if not (cur.resource_usage + consumption).fits_in(cur.max_share):
                raise SchedulingError(
                    f"Moving app attempt {attempt.attempt_id} to queue {target.name} would violate queue maxShare "
                    f"constraints on queue {cur.name}"
                )
            cur = cur.parent
    _execute_move(s, fs_app, old_queue, target)
    s.app_queues[app_id] = target
    return target.name


def _execute_move(s: FairScheduler, fs_app: FSAppAttempt, old_queue: FSLeafQueue, new_queue: FSLeafQueue) -> None:
    """``executeMove``: out of the old leaf (the running-app counts with it), ``FSAppAttempt.move`` (the AM usage),
    into the new leaf."""
    enforcer = s.max_running_enforcer
    was_runnable = old_queue.is_runnable_app(fs_app)
    now_runnable = enforcer.can_app_be_runnable(new_queue, fs_app)
    if was_runnable and not now_runnable:
        raise SchedulingError(
            f"Should have already verified that app {fs_app.application_id} would be runnable in new queue"
        )
    old_queue.remove_app(fs_app)
    if was_runnable:
        enforcer.untrack_runnable_app(fs_app)
    elif now_runnable:
        enforcer.untrack_non_runnable_app(fs_app)
    fs_app.queue = new_queue
    new_queue.add_app(fs_app, now_runnable)
    if now_runnable and fs_app.is_am_running:
        new_queue.add_am_resource_usage(fs_app.am_resource)
    if now_runnable:
        enforcer.track_runnable_app(fs_app)
    if was_runnable:
        enforcer.update_runnability_on_app_removal(fs_app, old_queue)


def update_application_priority(s: FairScheduler, app_id: ApplicationId, priority: int) -> int:
    """``FairScheduler.updateApplicationPriority``: not supported (Hadoop's ``YarnException``)."""
    raise SchedulingError("Update application priority is not supported in Fair Scheduler")
