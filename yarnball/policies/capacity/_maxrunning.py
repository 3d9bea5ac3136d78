"""``CSMaxRunningAppsEnforcer``: the CapacityScheduler's ``max-parallel-apps`` limits (Hadoop 3.3+).

An attempt may run when its user is below ``yarn.scheduler.capacity.user.<user>.max-parallel-apps`` (else
``user.max-parallel-apps``) and its leaf and every ancestor are below their ``<queue-path>.max-parallel-apps`` (each
queue's own key, else ``yarn.scheduler.capacity.max-parallel-apps``, root included; ``Integer.MAX_VALUE`` when
neither is set). Otherwise it waits in its leaf's non-runnable list (the application stays ACCEPTED, its AM
unallocated) until an attempt finishing, or a refresh, makes room: then the waiting attempts are made runnable
oldest first. The leaf counts its own runnable attempts (pending and active); parents and users are counted here.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import TYPE_CHECKING

from yarnball._logs import get_logger
from yarnball.policies.capacity._context import SchedulerContext
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._queues import CSQueue
from yarnball.policies.capacity._state import SchedulerApp
from yarnball.protocols import keys as k

if TYPE_CHECKING:
    from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration

__all__ = ["CSMaxRunningAppsEnforcer"]

log = get_logger(__name__)


class CSMaxRunningAppsEnforcer:
    """Runnable counts per user, and each user's non-runnable attempts in creation order. The scheduler calls, as
    ``CapacityScheduler`` does: ``check_runnability_with_update`` then ``track_app`` before the leaf's
    ``submit_attempt`` (``addApplicationAttempt``); ``untrack_app`` after the leaf's ``finish_attempt``, then
    ``update_runnability_on_app_removal`` for a runnable attempt (``doneApplicationAttempt``);
    ``update_runnability_on_reload`` after a refresh (``reinitialize``)."""

    __slots__ = ("attempts_started", "users_non_runnable", "users_num_runnable")

    def __init__(self) -> None:
        self.users_num_runnable: dict[str, int] = {}
        self.users_non_runnable: dict[str, list[SchedulerApp]] = {}
        self.attempts_started = 0

    def stamp(self, app: SchedulerApp) -> None:
        """Give a new attempt its place in creation order (its start time, for the oldest-first order)."""
        self.attempts_started += 1
        app.start_seq = self.attempts_started

    def check_runnability_with_update(self, conf: CapacitySchedulerConfiguration, app: SchedulerApp) -> bool:
        """``checkRunnabilityWithUpdate``: whether the user and every queue up from the leaf have room; sets
        ``app.runnable``."""
        can_run = not self._exceed_user(conf, app.user.name) and not _exceed_queue(app.queue)
        app.runnable = can_run
        return can_run

    def _exceed_user(self, conf: CapacitySchedulerConfiguration, user: str) -> bool:
        if self.users_num_runnable.get(user, 0) >= _user_max_parallel_apps(conf, user):
            log.info(f"Maximum runnable apps exceeded for user {user}")
            return True
        return False

    def track_app(self, app: SchedulerApp) -> None:
        """``trackApp``."""
        if app.runnable:
            self._track_runnable(app)
        else:
            self.users_non_runnable.setdefault(app.user.name, []).append(app)

    def _track_runnable(self, app: SchedulerApp) -> None:
        """``trackRunnableApp``: one more runnable attempt for every ancestor of its leaf, and for its user."""
        parent = app.queue.parent
        while parent is not None:
            parent.runnable_apps += 1
            parent = parent.parent
        user = app.user.name
        self.users_num_runnable[user] = self.users_num_runnable.get(user, 0) + 1

    def untrack_app(self, app: SchedulerApp) -> None:
        """``untrackApp``."""
        user = app.user.name
        if not app.runnable:
            self._forget_waiting(app)
            return
        remaining = self.users_num_runnable[user] - 1
        if remaining == 0:
            del self.users_num_runnable[user]
        else:
            self.users_num_runnable[user] = remaining
        parent = app.queue.parent
        while parent is not None:
            parent.runnable_apps -= 1
            parent = parent.parent

    def update_runnability_on_app_removal(
        self, ctx: SchedulerContext, conf: CapacitySchedulerConfiguration, app: SchedulerApp
    ) -> None:
        """``updateRunnabilityOnAppRemoval``: after the runnable ``app`` left its leaf, the highest queue on its path
        that was at its limit yields the non-runnable attempts below it, and the user's waiting list joins if the user
        was at its limit; oldest first, at most one per list gathered becomes runnable."""
        leaf = app.queue
        highest: CSQueue | None = leaf if leaf.num_runnable_apps() == leaf.max_parallel_apps - 1 else None
        parent = leaf.parent
        while parent is not None:
            if parent.runnable_apps == parent.max_parallel_apps - 1:
                highest = parent
            parent = parent.parent
        lists: list[list[SchedulerApp]] = []
        if highest is not None:
            _gather_possibly_runnable(highest, lists)
        user = app.user.name
        if self.users_num_runnable.get(user, 0) == _user_max_parallel_apps(conf, user) - 1:
            # ListMultimap.get: an empty list for a user with none waiting, which still counts in the limit below
            lists.append(self.users_non_runnable.get(user, []))
        if lists:
            self._update_apps_runnability(ctx, conf, lists, len(lists))

    def update_runnability_on_reload(
        self, ctx: SchedulerContext, conf: CapacitySchedulerConfiguration, root: CSQueue
    ) -> None:
        """``updateRunnabilityOnReload``: after a refresh, every waiting attempt the new limits allow runs, oldest
        first."""
        lists: list[list[SchedulerApp]] = []
        _gather_possibly_runnable(root, lists)
        if lists:
            self._update_apps_runnability(ctx, conf, lists, k.DEFAULT_MAX_PARALLEL_APPLICATIONS)

    def _update_apps_runnability(
        self, ctx: SchedulerContext, conf: CapacitySchedulerConfiguration, lists: list[list[SchedulerApp]], most: int
    ) -> None:
        """``updateAppsRunnability``: walk the lists by start time (an attempt met twice in a row is skipped), submit
        again those the limits now allow, up to ``most``; then take them off the waiting lists."""
        previous: SchedulerApp | None = None
        now_runnable: list[SchedulerApp] = []
        for app in _by_start(lists):
            if app is previous:
                continue
            if self.check_runnability_with_update(conf, app):
                leaf = app.queue
                log.info(f"{app.attempt_id} is now runnable in {leaf.path}")
                self._track_runnable(app)
                leaf.submit_attempt(ctx, app)
                now_runnable.append(app)
                if len(now_runnable) >= most:
                    break
            previous = app
        for app in now_runnable:
            waiting = app.queue.non_runnable
            if app in waiting:
                waiting.remove(app)
            else:
                log.error(
                    f"Can't make app runnable that does not already exist in queue as non-runnable: "
                    f"{app.attempt_id}. This should never happen."
                )
            self._forget_waiting(app)

    def _forget_waiting(self, app: SchedulerApp) -> None:
        user = app.user.name
        waiting = self.users_non_runnable.get(user)
        if waiting is not None and app in waiting:
            waiting.remove(app)
            if not waiting:
                del self.users_non_runnable[user]


def _exceed_queue(queue: CSQueue | None) -> bool:
    """``exceedQueueMaxParallelApps``: the leaf or an ancestor is at its limit."""
    while queue is not None:
        if queue.num_runnable_apps() >= queue.max_parallel_apps:
            log.info(f"Maximum runnable apps exceeded for queue {queue.path}")
            return True
        queue = queue.parent
    return False


def _gather_possibly_runnable(queue: CSQueue, lists: list[list[SchedulerApp]]) -> None:
    """``gatherPossiblyRunnableAppLists``: copies of the non-runnable lists of the leaves below ``queue`` whose path
    from ``queue`` has room."""
    if queue.num_runnable_apps() < queue.max_parallel_apps:
        if isinstance(queue, LeafQueue):
            lists.append(list(queue.non_runnable))
        else:
            for child in queue.children:
                _gather_possibly_runnable(child, lists)


def _by_start(lists: list[list[SchedulerApp]]) -> Iterable[SchedulerApp]:
    """``MultiListStartTimeIterator``: the attempts of lists each in creation order, merged by creation order."""
    return heapq.merge(*lists, key=_start)


def _start(app: SchedulerApp) -> int:
    return app.start_seq


def _user_max_parallel_apps(conf: CapacitySchedulerConfiguration, user: str) -> int:
    """``getUserMaxParallelApps``: the user's own limit, else the users' default, else ``Integer.MAX_VALUE``."""
    maximum = conf.get_max_parallel_apps_for_user(user)
    return maximum if maximum is not None else k.DEFAULT_MAX_PARALLEL_APPLICATIONS
