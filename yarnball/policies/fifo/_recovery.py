"""The FifoScheduler of a restarted ResourceManager: work-preserving recovery (policies/scheduler/_recovery.py)."""

from __future__ import annotations

from yarnball.policies.fifo._scheduler import FifoScheduler
from yarnball.policies.scheduler._recovery import WorkPreservingRecovery

__all__ = ["RecoveringFifoScheduler"]


class RecoveringFifoScheduler(WorkPreservingRecovery, FifoScheduler):
    """A FifoScheduler started by a restarted RM: its one pseudo-queue's accounting leaf takes the recovered
    containers (``FifoScheduler``'s ``DEFAULT_QUEUE.recoverContainer`` updates the queue metrics only)."""
