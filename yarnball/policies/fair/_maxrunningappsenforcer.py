"""Hadoop's ``MaxRunningAppsEnforcer``: which applications may run under the queues' ``maxRunningApps`` and the
users' ``maxRunningApps`` (fair.md §4.7), and which become runnable when an application finishes or the allocation
file is reloaded.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from typing import Final

from yarnball.policies.fair._fsapp import FSApp
from yarnball.policies.fair._fsleafqueue import FSLeafQueue
from yarnball.policies.fair._fsqueue import FSQueue
from yarnball.policies.fair._queuemanager import QueueManager

__all__ = ["INACTIVATED", "MaxRunningAppsEnforcer", "multi_list_start_time_iterator"]

INACTIVATED: Final = "INACTIVATED"  # AMState.INACTIVATED: the AM waits on a limit
_INT_MAX: Final = 2**31 - 1
_LONG_MAX: Final = 2**63 - 1


def multi_list_start_time_iterator(app_lists: Sequence[Sequence[FSApp]]) -> Iterator[FSApp]:
    """``MultiListStartTimeIterator``: the applications of lists each ordered by start time, merged by start time.
    Equal start times come in list order (Java's heap leaves their order unspecified)."""
    positions = [0] * len(app_lists)
    heap = [(apps[0].start_time if apps else _LONG_MAX, i) for i, apps in enumerate(app_lists)]
    heapq.heapify(heap)
    while heap and heap[0][0] != _LONG_MAX:
        _, i = heapq.heappop(heap)
        app = app_lists[i][positions[i]]
        positions[i] += 1
        following = app_lists[i][positions[i]].start_time if positions[i] < len(app_lists[i]) else _LONG_MAX
        heapq.heappush(heap, (following, i))
        yield app


class MaxRunningAppsEnforcer:
    """``MaxRunningAppsEnforcer``: the runnable count of every user and the non-runnable applications of every user
    (in submission order); the queues keep their own counts. The scheduler calls, as Hadoop's does:
    ``can_app_be_runnable`` then ``queue.add_app(app, runnable)`` and ``track_runnable_app`` or
    ``track_non_runnable_app`` when an attempt is added; ``queue.remove_app``, then ``untrack_runnable_app`` and
    ``update_runnability_on_app_removal`` (or ``untrack_non_runnable_app``) when it ends."""

    __slots__ = ("queue_manager", "users_non_runnable_apps", "users_num_runnable_apps")

    def __init__(self, queue_manager: QueueManager) -> None:
        self.queue_manager = queue_manager
        self.users_num_runnable_apps: dict[str, int] = {}
        self.users_non_runnable_apps: dict[str, list[FSApp]] = {}

    def can_app_be_runnable(self, queue: FSQueue, app: FSApp) -> bool:
        """``canAppBeRunnable``: the user's limit first, then every queue from ``queue`` up to root; the reason a
        limit is reached goes to the AM's diagnostics (``INACTIVATED``)."""
        if self.exceed_user_max_apps(app.user):
            app.update_am_container_diagnostics(
                INACTIVATED, f'The user "{app.user}" has reached the maximum limit of runnable applications.'
            )
            return False
        if self.exceed_queue_max_running_apps(queue):
            app.update_am_container_diagnostics(
                INACTIVATED, f'The queue "{queue.name}" has reached the maximum limit of runnable applications.'
            )
            return False
        return True

    def exceed_user_max_apps(self, user: str) -> bool:
        """``exceedUserMaxApps``."""
        limit = self.queue_manager.alloc_conf.get_user_max_apps(user)
        return self.users_num_runnable_apps.get(user, 0) >= limit

    @staticmethod
    def exceed_queue_max_running_apps(queue: FSQueue | None) -> bool:
        """``exceedQueueMaxRunningApps``: ``queue`` or an ancestor is at its limit."""
        while queue is not None:
            if queue.num_runnable_apps >= queue.max_running_apps:
                return True
            queue = queue.parent
        return False

    def track_runnable_app(self, app: FSApp) -> None:
        """``trackRunnableApp``: one more runnable application for every ancestor of its leaf and for its user."""
        parent = app.queue.parent
        while parent is not None:
            parent.increment_runnable_apps()
            parent = parent.parent
        self.users_num_runnable_apps[app.user] = self.users_num_runnable_apps.get(app.user, 0) + 1

    def track_non_runnable_app(self, app: FSApp) -> None:
        """``trackNonRunnableApp``."""
        self.users_non_runnable_apps.setdefault(app.user, []).append(app)

    def untrack_runnable_app(self, app: FSApp) -> None:
        """``untrackRunnableApp``."""
        remaining = self.users_num_runnable_apps[app.user] - 1
        if remaining == 0:
            del self.users_num_runnable_apps[app.user]
        else:
            self.users_num_runnable_apps[app.user] = remaining
        parent = app.queue.parent
        while parent is not None:
            parent.decrement_runnable_apps()
            parent = parent.parent

    def untrack_non_runnable_app(self, app: FSApp) -> None:
        """``untrackNonRunnableApp``."""
        self._remove_waiting(app)

    def update_runnability_on_reload(self) -> None:
        """``updateRunnabilityOnReload``: every non-runnable application that the new limits allow becomes runnable,
        oldest first."""
        lists: list[list[FSApp]] = []
        self._gather_possibly_runnable_app_lists(self.queue_manager.root_queue, lists)
        self._update_apps_runnability(lists, _INT_MAX)

    def update_runnability_on_app_removal(self, app: FSApp, queue: FSLeafQueue) -> None:
        """``updateRunnabilityOnAppRemoval``: after a runnable ``app`` left ``queue``, the highest queue on its path
        that was at its limit yields the non-runnable applications below it (where the whole path has room), the
        user's waiting list joins if the user was at its limit; oldest first, at most one per gathered list becomes
        runnable."""
        highest: FSQueue | None = queue if queue.num_runnable_apps == queue.max_running_apps - 1 else None
        parent = queue.parent
        while parent is not None:
            if parent.num_runnable_apps == parent.max_running_apps - 1:
                highest = parent
            parent = parent.parent
        lists: list[list[FSApp]] = []
        if highest is not None:
            self._gather_possibly_runnable_app_lists(highest, lists)
        user = app.user
        running = self.users_num_runnable_apps.get(user, 0)
        if running == self.queue_manager.alloc_conf.get_user_max_apps(user) - 1:
            # ListMultimap.get: an empty list for a user with none waiting, which still counts in the limit below
            lists.append(self.users_non_runnable_apps.get(user, []))
        self._update_apps_runnability(lists, len(lists))

    def _update_apps_runnability(self, lists: list[list[FSApp]], max_runnable_apps: int) -> None:
        """``updateAppsRunnability``: walk the lists by start time (an application met twice in a row is skipped),
        make runnable those the limits allow, up to ``max_runnable_apps``; then take them off the waiting lists."""
        previous: FSApp | None = None
        now_runnable: list[FSApp] = []
        for app in multi_list_start_time_iterator(lists):
            if app is previous:
                continue
            if self.can_app_be_runnable(app.queue, app):
                self.track_runnable_app(app)
                app.queue.add_app(app, True)
                now_runnable.append(app)
                if len(now_runnable) >= max_runnable_apps:
                    break
            previous = app
        for app in now_runnable:
            app.queue.remove_non_runnable_app(app)
            self._remove_waiting(app)

    def _remove_waiting(self, app: FSApp) -> None:
        waiting = self.users_non_runnable_apps.get(app.user)
        if waiting is not None and app in waiting:
            waiting.remove(app)
            if not waiting:
                del self.users_non_runnable_apps[app.user]

    def _gather_possibly_runnable_app_lists(self, queue: FSQueue, lists: list[list[FSApp]]) -> None:
        """``gatherPossiblyRunnableAppLists``: the non-runnable lists of the leaves below ``queue`` whose path from
        ``queue`` has room."""
        if queue.num_runnable_apps < queue.max_running_apps:
            if isinstance(queue, FSLeafQueue):
                lists.append(queue.copy_of_non_runnable_apps())
            else:
                for child in queue.child_queues:
                    self._gather_possibly_runnable_app_lists(child, lists)
