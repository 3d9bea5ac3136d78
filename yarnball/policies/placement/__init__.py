"""Node placement policies for the scheduler's node choice: spread (YARN's default) and Qubole's container packing."""

from __future__ import annotations

from yarnball.policies.placement._policies import (
    NodeCategory,
    NodePlacementPolicy,
    PackingPlacement,
    PlacementNode,
    SpreadPlacement,
    continuous_scheduling_settings,
    memory_usage_percent,
    order_names,
    placement_from_conf,
)

__all__ = [
    "NodeCategory",
    "NodePlacementPolicy",
    "PackingPlacement",
    "PlacementNode",
    "SpreadPlacement",
    "continuous_scheduling_settings",
    "memory_usage_percent",
    "order_names",
    "placement_from_conf",
]
