"""Node placement and continuous scheduling for :class:`CapacityScheduler`, kept apart from the core.

Hadoop's CapacityScheduler allocates on the node that heartbeats. FairScheduler can instead schedule
*continuously*: every ``yarn.scheduler.fair.continuous-scheduling-sleep-ms`` it sorts all nodes and offers each in
turn to the pending requests (``FairScheduler.continuousSchedulingAttempt``), and a heartbeat then only schedules
on its node when it reported completed containers (``FairScheduler.nodeUpdate``). Qubole's container packing
replaces that sort with its three-set order. Both are brought to the CapacityScheduler here, behind a
:class:`~yarnball.policies.placement.NodePlacementPolicy`:

- :meth:`ContinuousScheduling.continuous_scheduling_attempt` places one container at a time on the first node,
  in the policy's order, that takes it, and sorts again after each allocation. Qubole's docs say the order applies
  to *each container request*; re-sorting is what lets a node move from LOW to MEDIUM to HIGH while it fills (FS
  sorts once per attempt). The queue walk, limits, locality and delay scheduling are the CapacityScheduler's own.
- on a heartbeat (:meth:`ContinuousScheduling.schedule_on_heartbeat`), the default (spread, continuous
  scheduling off) is unchanged: allocate on the heartbeating node. With packing in effect and continuous scheduling
  off, a heartbeat triggers one placement walk instead (allocating on the heartbeating node would spread
  containers). With continuous scheduling on, a heartbeat schedules on its node only when it reported completed
  containers, as FairScheduler does, and never while packing is in effect.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from yarnball.policies.capacity._core import SchedulerCore
from yarnball.policies.capacity._state import SchedulerNode
from yarnball.policies.scheduler._notifications import SchedulerNotification

__all__ = ["ContinuousScheduling"]


@mypyc_attr(allow_interpreted_subclasses=True)
class ContinuousScheduling(SchedulerCore):
    """Placement-ordered scheduling: a base of :class:`CapacityScheduler` (the policy and the continuous-scheduling
    settings are read in ``SchedulerCore.__init__``)."""

    @property
    def packing_active(self) -> bool:
        """Whether containers are being packed now (packing configured and the cluster at its minimum size)."""
        return self.placement.packs(len(self.nodes))

    def continuous_scheduling_attempt(self) -> list[SchedulerNotification]:
        """One continuous-scheduling attempt over all nodes, in the placement policy's order."""
        out: list[SchedulerNotification] = []
        self._ctx.outbox = out
        self._placement_walk()
        return out

    def _placement_walk(self) -> int:
        """Allocate one container at a time on the first node (in policy order) that takes one; return how many."""
        ctx = self._ctx
        root = self.root
        allocated = 0
        while root.pending_m > 0 or root.pending_v > 0:
            placed = False
            for node in self.placement.order(self.nodes.values()):
                if (
                    node.reserved is None
                    and ctx.rc.available_containers(node.unalloc_m, node.unalloc_v, ctx.min_m, ctx.min_v) <= 0
                ):
                    continue  # FS: only nodes with at least the minimum allocation free are offered
                a = self._allocate_on_node(node)
                if a is not None and not a.reserved:
                    placed = True
                    allocated += 1
                    break
            if not placed:
                break
        return allocated

    def schedule_on_heartbeat(self, node: SchedulerNode, completed: bool) -> None:
        """Scheduling triggered by a NODE_UPDATE for ``node`` (``completed``: it reported finished containers)."""
        if self.continuous_scheduling:
            if completed and not self.packing_active:
                self.allocate_containers_to_node(node)
            return
        if self.packing_active:
            self._placement_walk()
        else:
            self.allocate_containers_to_node(node)
