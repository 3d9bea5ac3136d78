"""The FairScheduler of a restarted ResourceManager: work-preserving recovery (policies/scheduler/_recovery.py)."""

from __future__ import annotations

from yarnball.policies.capacity._state import RMContainer
from yarnball.policies.fair._fairscheduler import FairScheduler
from yarnball.policies.scheduler._recovery import WorkPreservingRecovery
from yarnball.protocols import Resource

__all__ = ["RecoveringFairScheduler"]


class RecoveringFairScheduler(WorkPreservingRecovery, FairScheduler):
    """A FairScheduler started by a restarted RM: the recovered containers charge its queue tree too."""

    def container_recovered(self, rmc: RMContainer) -> None:
        """``FSAppAttempt.recoverContainer``: the leaf queue's (and its ancestors') usage grows by the container, and
        the AM container sets the attempt's AM resource and the leaf's AM usage. (``FSLeafQueue.recoverContainer``
        itself does nothing in Hadoop.)"""
        app = self.fs_apps.get(rmc.app.attempt_id)
        if app is None:
            return
        resource = Resource(rmc.mem, rmc.vc)
        self.allocated(app, resource)
        if rmc.is_am:
            app.am_resource = resource
            app.queue.add_am_resource_usage(resource)
