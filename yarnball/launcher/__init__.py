"""Getting a cluster running: configuration files, traces, the Cluster API, outputs and the CLI."""

from __future__ import annotations

from yarnball.launcher._cluster import Cluster
from yarnball.launcher._elastic import Autoscaler, ElasticConfig, ElasticReport, node_hours
from yarnball.launcher._scenario import RunResult, ScenarioSpec
from yarnball.launcher._simulate import run_scenario

__all__ = [
    "Autoscaler",
    "Cluster",
    "ElasticConfig",
    "ElasticReport",
    "RunResult",
    "ScenarioSpec",
    "node_hours",
    "run_scenario",
]
