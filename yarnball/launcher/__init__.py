"""Getting a cluster running: configuration files, traces, the Cluster API, outputs and the CLI."""

from __future__ import annotations

from yarnball.launcher._cluster import Cluster
from yarnball.launcher._elastic import Autoscaler, ElasticConfig, ElasticReport, node_hours

__all__ = ["Autoscaler", "Cluster", "ElasticConfig", "ElasticReport", "node_hours"]
