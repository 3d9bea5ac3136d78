"""``ProportionalCapacityPreemptionPolicy`` as the ``SchedulingEditPolicy`` a monitor runs on a live scheduler.

Each round (``editSchedule``) snapshots the CapacityScheduler (:func:`snapshot_from_scheduler`, reusing unchanged
containers' snapshots), runs one round of the pure policy and tells the RM one ``ContainerPreemptEvent`` per decision,
as Hadoop's policy hands its events to the RM's dispatcher. The policy requires the CapacityScheduler, as Hadoop's
``init`` does. Marks (``preemptionCandidates``) live in the pure policy's :class:`PreemptionState`: a mark whose
container is gone is dropped at once rather than after ``2 x max_wait_before_kill``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import CapacityScheduler
from yarnball.policies.preemption._live import SnapshotCache, snapshot_from_scheduler
from yarnball.policies.preemption._policy import (
    PreemptionRound,
    PreemptionState,
    ProportionalCapacityPreemptionPolicy,
)
from yarnball.protocols import ContainerPreemptEvent, SchedulerEventType, keys

if TYPE_CHECKING:
    from yarnball.policies.scheduler import EditPolicyContext
    from yarnball.protocols import Configuration

__all__ = ["LivePreemptionPolicy"]


class LivePreemptionPolicy:
    """``ProportionalCapacityPreemptionPolicy`` (the pure ``policy``) as a ``SchedulingEditPolicy``, with the state
    and counts it keeps between rounds."""

    def __init__(self, policy: ProportionalCapacityPreemptionPolicy | None = None) -> None:
        self.policy = policy if policy is not None else ProportionalCapacityPreemptionPolicy()
        self.state = PreemptionState()
        self.rounds = 0
        self.marked = 0  # MARK_CONTAINER_FOR_PREEMPTION events sent
        self.killed = 0  # MARK_CONTAINER_FOR_KILLABLE events sent
        self.last_round: PreemptionRound | None = None
        self.interval_ms = 0  # the policy's value as of its last round (getMonitoringInterval())
        self._scheduler: CapacityScheduler | None = None
        self._context: Any = None
        self._snapshots = SnapshotCache()  # unchanged containers' snapshots, reused round after round

    def init(self, conf: Configuration, context: EditPolicyContext, scheduler: object) -> None:
        """``ProportionalCapacityPreemptionPolicy.init``: the scheduler must be a CapacityScheduler; the interval is
        read from its configuration."""
        if not isinstance(scheduler, CapacityScheduler):
            raise ConfigurationError(
                f"{keys.RM_SCHEDULER_MONITOR_POLICIES}: ProportionalCapacityPreemptionPolicy needs the "
                f"CapacityScheduler, not {type(scheduler).__name__}"
            )
        self._scheduler = scheduler
        self._context = context
        self.interval_ms = self.policy.monitoring_interval_ms(snapshot_from_scheduler(scheduler).snapshot)

    def get_monitoring_interval(self) -> int:
        return self.interval_ms

    def get_policy_name(self) -> str:
        return "ProportionalCapacityPreemptionPolicy"

    def edit_schedule(self) -> None:
        """One ``editSchedule()``: snapshot, policy round, events to the RM."""
        scheduler, context = self._scheduler, self._context
        assert scheduler is not None, "init() first"
        live = snapshot_from_scheduler(scheduler, cache=self._snapshots)
        rnd = self.policy.edit_schedule(live.snapshot, context.now_ms(), self.state)
        self.interval_ms = self.policy.monitoring_interval_ms(live.snapshot)  # updateConfigIfNeeded
        # A mark whose container is gone can never lead to a kill: drop it now rather than after 2 x max_wait.
        self.state = PreemptionState({cid: t for cid, t in rnd.state.marks.items() if cid in live.containers})
        self.rounds += 1
        self.last_round = rnd
        log = context.log
        for warning in rnd.warnings:
            if self.rounds == 1:
                log.warning("preemption_setting_not_modelled", detail=warning)
        for event in rnd.events:
            target = live.containers.get(event.container_id)
            if target is None:
                continue
            attempt_id, container = target
            kind = SchedulerEventType(event.type.value)
            if kind is SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION:
                self.marked += 1
            elif kind is SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE:
                self.killed += 1
            context.tell_rm(
                ContainerPreemptEvent(application_attempt_id=attempt_id, container=container, event_type=kind)
            )
        if rnd.events:
            log.info(
                "preemption_round",
                selected=len(rnd.candidates),
                events=len(rnd.events),
                marks=len(self.state.marks),
            )
