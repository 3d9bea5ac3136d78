"""The CapacityScheduler of a restarted ResourceManager: work-preserving recovery (YARN-1489).

:class:`RecoveringCapacityScheduler` is a CapacityScheduler that

- adopts the containers the NodeManagers report when they register again
  (``AbstractYarnScheduler.recoverContainersOnNode``: the container is created RUNNING, then
  ``SchedulerNode.recoverContainer``, ``LeafQueue.recoverContainer`` and ``SchedulerApplicationAttempt
  .recoverContainer`` charge it to its node, queues, user and attempt);
- numbers the containers it allocates from this RM's epoch (``SchedulerApplicationAttempt``'s
  ``containerIdCounter`` starts at ``epoch << 40``: ``container_e01_...``), so that they never collide with a
  container of the previous RM that a node has not reported yet;
- allocates nothing until ``allocation_paused`` is cleared (``AbstractYarnScheduler
  .isSchedulerReadyForAllocatingContainers``: the RM clears it after
  ``yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms``), so that the nodes have registered their
  containers before new ones are placed.

A plain Python subclass: the compiled CapacityScheduler allows interpreted subclasses, and only a restarted RM uses
this one, so a run without an RM restart is untouched.
"""

from __future__ import annotations

from typing import Any

from yarnball.policies.capacity._allocator import charge
from yarnball.policies.capacity._scheduler import CapacityScheduler
from yarnball.policies.capacity._state import RUNNING, RMContainer, SchedulerNode
from yarnball.policies.scheduler._notifications import SchedulerNotification
from yarnball.protocols import Container, ContainerId, NodeId, Priority
from yarnball.protocols._schedulerevents import SchedulerEventType

__all__ = ["EPOCH_BIT_SHIFT", "RecoveringCapacityScheduler"]

#: ResourceManager.EPOCH_BIT_SHIFT: the epoch sits above the 40 bits of a container's sequence number.
EPOCH_BIT_SHIFT = 40


class RecoveringCapacityScheduler(CapacityScheduler):
    """A CapacityScheduler started by a restarted RM (see the module docstring)."""

    def __init__(self, *args: Any, epoch: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.epoch = epoch
        #: isSchedulerReadyForAllocatingContainers is false: NODE_UPDATEs allocate nothing.
        self.allocation_paused = False

    def handle(self, event: object) -> list[SchedulerNotification]:
        out = super().handle(event)
        if getattr(event, "event_type", None) is SchedulerEventType.APP_ATTEMPT_ADDED:
            attempt = self.attempts.get(event.application_attempt_id)  # type: ignore[attr-defined]
            first = (self.epoch << EPOCH_BIT_SHIFT) + 1
            if attempt is not None and attempt.next_seq < first:
                attempt.next_seq = first
        return out

    def schedule_on_heartbeat(self, node: SchedulerNode, completed: bool) -> None:
        if self.allocation_paused:
            return  # CapacityScheduler.allocateContainersToNode: "not ready for allocating containers"
        super().schedule_on_heartbeat(node, completed)

    def node_update_is_noop(self, node_id: NodeId) -> bool:
        return self.allocation_paused or super().node_update_is_noop(node_id)

    def attempt_recovering(self, attempt_id: Any) -> None:
        """The recovered attempt has its AM container already (RMAppAttemptImpl recovered as LAUNCHED): no
        container the scheduler allocates to it is its AM container."""
        attempt = self.attempts.get(attempt_id)
        if attempt is not None:
            attempt.am_running = True
            attempt.am_known = True

    def recover_container(self, node_id: NodeId, report: Any, *, is_am: bool, keep_containers: bool) -> str | None:
        """``recoverContainersOnNode`` for one RUNNING ``NMContainerStatus``: None when adopted, else why it was
        skipped (the container is an orphan: the RM kills it on the node)."""
        cid: ContainerId = report.container_id
        app_id = cid.application_attempt_id.application_id
        app = self.applications.get(app_id)
        if app is None:
            return "unknown SchedulerApplication"
        attempt = app.attempt
        if attempt is None:
            return "no current attempt"
        if not keep_containers and (attempt.stopped or attempt.attempt_id != cid.application_attempt_id):
            return "already stopped attempt"
        node = self.nodes.get(node_id)
        if node is None or cid in self._ctx.containers:
            return "unknown node" if node is None else "container already recovered"
        resource = report.allocated_resource
        mem, vc = resource.memory_mb, resource.vcores
        priority = report.priority if report.priority is not None else Priority()
        key = (priority.priority, report.allocation_request_id)
        rmc = RMContainer(cid, attempt, node, key, priority, mem, vc, RUNNING)
        rmc.container = Container(
            id=cid,
            node_id=node_id,
            resource=resource,
            priority=priority,
            allocation_request_id=report.allocation_request_id,
            execution_type=report.execution_type,
            version=report.version,
        )
        rmc.is_am = is_am
        ctx = self._ctx
        ctx.containers[cid] = rmc
        # SchedulerNode.recoverContainer -> allocateContainer
        node.containers[cid] = rmc
        node.unalloc_m -= mem
        node.unalloc_v -= vc
        # SchedulerApplicationAttempt.recoverContainer
        attempt.live[cid] = rmc
        attempt.used_m += mem
        attempt.used_v += vc
        if is_am:
            attempt.am_running = True
        # LeafQueue.recoverContainer -> allocateResource: queue and user usage, the container count
        leaf = attempt.queue
        charge(ctx, leaf, attempt, mem, vc)
        q: Any = leaf
        while q is not None:
            q.num_containers += 1
            q = q.parent
        if leaf.fair:
            leaf.fair_dirty = True
        return None
