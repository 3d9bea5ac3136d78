"""Changing a running application: ``CapacityScheduler.updateApplicationPriority`` and ``moveApplication``.

Both are called by the RM between scheduler events (ClientRMService's update-priority and move requests, which
the RM REST API's PUT /apps/{id}/priority and /apps/{id}/queue send). They raise :class:`SchedulingError` with
Hadoop's ``YarnException`` wording when the scheduler refuses.

A move here is limited to an application that holds no containers (none live, none reserved): the usual case of
moving an application that waits in a full queue. Hadoop also moves live containers (``LeafQueue.detachContainer``
and ``attachContainer``), which yarnball's per-queue usage accounting does not offer yet; such a move is refused
with a message that says so.
"""

from __future__ import annotations

import bisect
from typing import Any

from yarnball.errors import SchedulingError
from yarnball.policies.capacity._allocator import add_pending
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.scheduler._acl import QueueState
from yarnball.protocols._records import ApplicationId

__all__ = ["move_application", "update_application_priority"]


def _order(app: Any) -> tuple[int, int, int, int]:
    return app.order  # type: ignore[no-any-return]


def update_application_priority(cs: Any, app_id: ApplicationId, priority: int) -> int:
    """``CapacityScheduler.updateApplicationPriority``: the new priority (capped by the caller), re-ordered in its
    leaf as ``LeafQueue.updateApplicationPriority`` does (remove from the ordering policy, set, add back)."""
    app = cs.applications.get(app_id)
    if app is None:
        raise SchedulingError(f"Application '{app_id}' is not present, hence could not change priority.")
    if app.priority == priority:
        return priority
    app.priority = priority
    attempt = app.attempt
    if attempt is None:
        return priority
    leaf = attempt.queue
    holders = [lst for lst in (leaf.pending, leaf.active, leaf.schedulable) if any(a is attempt for a in lst)]
    for lst in holders:
        lst[:] = [a for a in lst if a is not attempt]
    attempt.order = (-priority, *attempt.order[1:])
    for lst in holders:
        bisect.insort(lst, attempt, key=_order)
    leaf.fair_dirty = True
    return priority


def move_application(cs: Any, app_id: ApplicationId, target_queue: str) -> str:
    """``CapacityScheduler.moveApplication`` for an application without containers; returns the new queue path."""
    app = cs.applications.get(app_id)
    if app is None:
        raise SchedulingError(f"App to be moved {app_id} not found.")
    dest = cs.get_queue(target_queue)
    if dest is None:  # CapacityScheduler.getAndCheckLeafQueue
        raise SchedulingError(f"The specified Queue: {target_queue} doesn't exist")
    if not isinstance(dest, LeafQueue):
        raise SchedulingError(f"The specified Queue: {target_queue} is not a Leaf Queue.")
    source = app.queue
    if dest is source:
        raise SchedulingError(f"App {app_id} is already in queue {dest.path}; move to the same queue is not done")
    # LeafQueue.validateSubmitApplication on the destination (the ACLs were checked by ClientRMService)
    if dest.state != QueueState.RUNNING:
        raise SchedulingError(f"Queue {dest.path} is STOPPED. Cannot accept submission of application: {app_id}")
    n = len(dest.active) + len(dest.pending) + len(dest.non_runnable)  # getNumApplications
    if n >= dest.max_apps:
        raise SchedulingError(
            f"Queue {dest.path} already has {n} applications, cannot accept submission of application: {app_id}"
        )
    user = dest.users.get(app.user)
    total = user.total_applications if user is not None else 0
    if total >= dest.max_apps_per_user:
        raise SchedulingError(
            f"Queue {dest.path} already has {total} applications from user {app.user} "
            f"cannot accept submission of application: {app_id}"
        )
    attempt = app.attempt
    if attempt is not None and (attempt.live or any(attempt.reserved.values())):
        raise SchedulingError(
            f"Cannot move {app_id} from {source.path} to {dest.path}: it holds containers, and yarnball moves only "
            "applications that hold none (LeafQueue.detachContainer/attachContainer are not modelled)"
        )
    ctx = cs.context
    pending_m = pending_v = 0
    if attempt is not None:
        had = attempt.has_pending()
        pending_m, pending_v = attempt.pending_m, attempt.pending_v
        if had:
            add_pending(source, -pending_m, -pending_v)
            source.app_asks_changed(attempt, True, False)
        source.finish_attempt(ctx, attempt)
    q = source
    while q is not None:
        q.num_applications -= 1
        q = q.parent
    app.queue = dest
    q = dest
    while q is not None:
        q.num_applications += 1
        q = q.parent
    if attempt is not None:
        attempt.queue = dest
        attempt.user = dest.get_user(app.user)
        if pending_m > 0 or pending_v > 0:
            add_pending(dest, pending_m, pending_v)
            dest.app_asks_changed(attempt, False, True)
        # CapacityScheduler.moveApplication leaves the max-parallel-apps enforcer alone: the attempt keeps its
        # runnability in dest, and the ancestors' runnable counts are not moved
        dest.submit_attempt(ctx, attempt)
    return str(dest.path)
