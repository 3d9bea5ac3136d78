"""The CapacityScheduler of a restarted ResourceManager: work-preserving recovery (YARN-1489).

:class:`RecoveringCapacityScheduler` is a CapacityScheduler with the scheduler-independent recovery of
policies/scheduler/_recovery.py (``AbstractYarnScheduler.recoverContainersOnNode``, container ids from the RM's
epoch, no allocation before the scheduling wait is over).

A plain Python subclass: the compiled CapacityScheduler allows interpreted subclasses, and only a restarted RM uses
this one, so a run without an RM restart is untouched.
"""

from __future__ import annotations

from yarnball.policies.capacity._scheduler import CapacityScheduler
from yarnball.policies.scheduler._recovery import EPOCH_BIT_SHIFT, WorkPreservingRecovery

__all__ = ["EPOCH_BIT_SHIFT", "RecoveringCapacityScheduler"]


class RecoveringCapacityScheduler(WorkPreservingRecovery, CapacityScheduler):
    """A CapacityScheduler started by a restarted RM (see policies/scheduler/_recovery.py)."""
