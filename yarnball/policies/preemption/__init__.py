"""YARN's ``ProportionalCapacityPreemptionPolicy`` (CapacityScheduler inter-queue preemption) as a pure policy.

Give :meth:`ProportionalCapacityPreemptionPolicy.edit_schedule` a :class:`ClusterSnapshot`, the time and last
round's :class:`PreemptionState`; get back a :class:`PreemptionRound` with the containers selected, the
events for the scheduler (mark for preemption, make killable, kill reservation) and the next state.
See shared/reference/preemption.md for the algorithm; Hadoop's rounding quirks are reproduced and commented.
"""

from __future__ import annotations

from yarnball.policies.preemption._live import LiveSnapshot, SnapshotCache, snapshot_from_scheduler
from yarnball.policies.preemption._policy import (
    PreemptionCandidate,
    PreemptionEvent,
    PreemptionEventType,
    PreemptionRound,
    PreemptionSettings,
    PreemptionState,
    ProportionalCapacityPreemptionPolicy,
    QueuePreemption,
)
from yarnball.policies.preemption._snapshot import AppSnapshot, ClusterSnapshot, ContainerSnapshot, QueueSnapshot
from yarnball.policies.preemption._testtables import HADOOP_TEST_CONFIG, app_id, snapshot_from_hadoop_table

__all__ = [
    "HADOOP_TEST_CONFIG",
    "AppSnapshot",
    "ClusterSnapshot",
    "ContainerSnapshot",
    "LiveSnapshot",
    "PreemptionCandidate",
    "PreemptionEvent",
    "PreemptionEventType",
    "PreemptionRound",
    "PreemptionSettings",
    "PreemptionState",
    "ProportionalCapacityPreemptionPolicy",
    "QueuePreemption",
    "QueueSnapshot",
    "SnapshotCache",
    "app_id",
    "snapshot_from_hadoop_table",
    "snapshot_from_scheduler",
]
