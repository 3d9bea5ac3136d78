"""Getting a cluster running: configuration files, traces, the Cluster API, outputs and the CLI."""

from __future__ import annotations

from yarnball.launcher._cluster import Cluster

__all__ = ["Cluster"]
