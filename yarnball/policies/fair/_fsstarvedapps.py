"""Hadoop's ``FSStarvedApps`` (``scheduler/fair/FSStarvedApps.java``; fair.md §5.4): the starved applications the
update thread found, waiting for the preemption thread.

Hadoop keeps them in a ``PriorityBlockingQueue`` whose ``StarvationComparator`` says ``-1`` when the first
application's starvation fits in the second's and ``1`` otherwise (never ``0``: the order is not a total order, and
the comparator reads each application's starvation as it is when the heap compares). The queue here is the same
binary heap (``JavaPriorityQueue``: ``java.util.PriorityQueue``'s ``siftUp`` / ``siftDown``), so the preemption
thread takes the applications in exactly Hadoop's order. ``addStarvedApp`` skips the application being processed and
those already queued.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yarnball.policies.preemption._java import JavaPriorityQueue

if TYPE_CHECKING:
    from yarnball.policies.fair._fsapp import FSApp

__all__ = ["FSStarvedApps", "starvation_compare"]


def starvation_compare(app1: FSApp, app2: FSApp) -> int:
    """``FSStarvedApps.StarvationComparator.compare``: ``-1`` if ``app1``'s starvation fits in ``app2``'s, else 1."""
    return -1 if app1.starvation.get_starvation().fits_in(app2.starvation.get_starvation()) else 1


class FSStarvedApps:
    """``FSStarvedApps``: ``add_starved_app`` (the update thread) and ``take`` (the preemption thread). ``take``
    returns None when the queue is empty (Hadoop's thread blocks there)."""

    __slots__ = ("app_being_processed", "apps_to_process")

    def __init__(self) -> None:
        self.apps_to_process: JavaPriorityQueue[FSApp] = JavaPriorityQueue(starvation_compare)
        self.app_being_processed: FSApp | None = None

    def __len__(self) -> int:
        return len(self.apps_to_process)

    def __contains__(self, app: object) -> bool:
        return any(a is app for a in self.apps_to_process)

    def add_starved_app(self, app: FSApp) -> None:
        """``addStarvedApp``: queue ``app`` unless it is being processed or already queued."""
        if app is self.app_being_processed or app in self:
            return
        self.apps_to_process.add(app)

    def take(self) -> FSApp | None:
        """``take``: the head of the queue, tracked as the application being processed until the next call."""
        self.app_being_processed = None
        if not self.apps_to_process:
            return None
        result = self.apps_to_process.poll()
        self.app_being_processed = result
        return result
