"""HOW decisions are made: pure policies over state snapshots (no actors, no I/O)."""

from __future__ import annotations

from yarnball.policies.capacity import CapacityScheduler, CapacitySchedulerConfiguration

__all__ = ["CapacityScheduler", "CapacitySchedulerConfiguration"]
