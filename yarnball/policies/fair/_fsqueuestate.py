"""Hadoop's ``FSQueue.dumpState`` (``FSLeafQueue.dumpStateInternal``, ``FSParentQueue.dumpStateInternal``): one
line of a queue's state and, for a parent, its subtree's, as the FairScheduler's state-dump log writes them."""

from __future__ import annotations

from yarnball.policies.capacity._validation import java_float_str
from yarnball.policies.fair._fsleafqueue import FSLeafQueue
from yarnball.policies.fair._fsqueue import FSQueue

__all__ = ["dump_state"]


def dump_state(queue: FSQueue) -> str:
    """``dumpState``: the queue's ``{Name: ..., ...}``, then (a parent) each child's, joined by ``", "``."""
    parts: list[str] = []
    _dump(queue, parts)
    return ", ".join(parts)


def _dump(queue: FSQueue, parts: list[str]) -> None:
    head = (
        f"{{Name: {queue.name}, Weight: {java_float_str(queue.weight)}, Policy: {queue.policy.name}, "
        f"FairShare: {queue.fair_share}, SteadyFairShare: {queue.steady_fair_share}, MaxShare: {queue.max_share}, "
        f"MinShare: {queue.min_share}, ResourceUsage: {queue.resource_usage}, Demand: {queue.demand}"
    )
    if isinstance(queue, FSLeafQueue):
        parts.append(
            f"{head}, Runnable: {queue.num_runnable_apps}, NumPendingApps: {queue.num_pending_apps}, "
            f"NonRunnable: {queue.num_non_runnable_apps}, MaxAMShare: {java_float_str(queue.max_am_share)}, "
            f"MaxAMResource: {queue.compute_max_am_resource()}, AMResourceUsage: {queue.am_resource_usage}, "
            f"LastTimeAtMinShare: {queue.last_time_at_min_share}}}"
        )
        return
    parts.append(f"{head}, MaxAMShare: {java_float_str(queue.max_am_share)}, Runnable: {queue.num_runnable_apps}}}")
    for child in queue.child_queues:
        _dump(child, parts)
