"""Work-preserving recovery (YARN-1489) for any scheduler on ``AbstractYarnScheduler``: a restarted RM's scheduler.

:class:`WorkPreservingRecovery` is mixed in before the scheduler class (``RecoveringCapacityScheduler``,
``RecoveringFairScheduler``, ``RecoveringFifoScheduler``); it

- adopts the containers the NodeManagers report when they register again
  (``AbstractYarnScheduler.recoverContainersOnNode``, scheduler-independent in Hadoop: the container is created
  RUNNING, then ``SchedulerNode.recoverContainer``, the queue's ``recoverContainer`` and
  ``SchedulerApplicationAttempt.recoverContainer`` charge it to its node, queue, user and attempt; the scheduler adds
  its own books in :meth:`WorkPreservingRecovery.container_recovered`);
- numbers the containers it allocates from this RM's epoch (``SchedulerApplicationAttempt``'s
  ``containerIdCounter`` starts at ``epoch << 40``: ``container_e01_...``), so that they never collide with a
  container of the previous RM that a node has not reported yet;
- allocates nothing until ``allocation_paused`` is cleared (``AbstractYarnScheduler
  .isSchedulerReadyForAllocatingContainers``: the RM clears it after
  ``yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms``), on node heartbeats and in continuous
  scheduling alike, so that the nodes have registered their containers before new ones are placed.

Every scheduler keeps its usage on the accounting ``LeafQueue`` its attempts are charged to (the CapacityScheduler's
leaf, the FairScheduler's and FifoScheduler's single accounting leaf), which ``release_container`` undoes: the
recovered container is charged there the same way. Only a restarted RM uses these classes, so a run without an RM
restart is untouched.
"""

from __future__ import annotations

from typing import Any

from yarnball.policies.capacity._allocator import charge
from yarnball.policies.capacity._state import RUNNING, RMContainer, SchedulerNode
from yarnball.policies.scheduler._notifications import SchedulerNotification
from yarnball.protocols import Container, ContainerId, NodeId, Priority
from yarnball.protocols._schedulerevents import SchedulerEventType

__all__ = ["EPOCH_BIT_SHIFT", "WorkPreservingRecovery"]

#: ResourceManager.EPOCH_BIT_SHIFT: the epoch sits above the 40 bits of a container's sequence number.
EPOCH_BIT_SHIFT = 40


class WorkPreservingRecovery:
    """A scheduler started by a restarted RM (see the module docstring); mixed in before the scheduler's class."""

    # (the scheduler's, through the class this is mixed into)
    _ctx: Any
    applications: Any
    attempts: Any
    nodes: Any

    def __init__(self, *args: Any, epoch: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.epoch = epoch
        #: isSchedulerReadyForAllocatingContainers is false: NODE_UPDATEs allocate nothing.
        self.allocation_paused = False

    def handle(self, event: object) -> list[SchedulerNotification]:
        out: list[SchedulerNotification] = super().handle(event)  # type: ignore[misc]
        if getattr(event, "event_type", None) is SchedulerEventType.APP_ATTEMPT_ADDED:
            attempt = self.attempts.get(event.application_attempt_id)  # type: ignore[attr-defined]
            first = (self.epoch << EPOCH_BIT_SHIFT) + 1
            if attempt is not None and attempt.next_seq < first:
                attempt.next_seq = first
        return out

    def schedule_on_heartbeat(self, node: SchedulerNode, completed: bool) -> None:
        if self.allocation_paused:
            return  # allocateContainersToNode / attemptScheduling: "not ready for allocating containers"
        super().schedule_on_heartbeat(node, completed)  # type: ignore[misc]

    def continuous_scheduling_attempt(self) -> list[SchedulerNotification]:
        if self.allocation_paused:
            return []  # the continuous scheduling thread's pass goes through the same check
        return super().continuous_scheduling_attempt()  # type: ignore[misc, no-any-return]

    def node_update_is_noop(self, node_id: NodeId) -> bool:
        return self.allocation_paused or super().node_update_is_noop(node_id)  # type: ignore[misc, no-any-return]

    def attempt_recovering(self, attempt_id: Any) -> None:
        """The recovered attempt has its AM container already (RMAppAttemptImpl recovered as LAUNCHED): no
        container the scheduler allocates to it is its AM container."""
        attempt = self.attempts.get(attempt_id)
        if attempt is not None:
            attempt.am_running = True
            attempt.am_known = True

    def container_recovered(self, rmc: RMContainer) -> None:
        """The scheduler's own books for a recovered container (its queue tree, its nodes): nothing here."""

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
        # the queue's recoverContainer -> allocateResource: queue and user usage, the container count
        leaf = attempt.queue
        charge(ctx, leaf, attempt, mem, vc)
        q: Any = leaf
        while q is not None:
            q.num_containers += 1
            q = q.parent
        if leaf.fair:
            leaf.fair_dirty = True
        self.container_recovered(rmc)
        return None
