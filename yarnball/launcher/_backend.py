"""The seam under :class:`~yarnball.launcher.Cluster`: what a runtime backend provides.

Two implementations: :class:`~yarnball.launcher._embedded.EmbeddedBackend` (every actor on one kernel in this
process) and :class:`~yarnball.launcher._sharded.ShardedBackend` (the actors on shard hosts, driven window by
window; the in-process hosts and the Ray hosts share it and differ only in their
:class:`~yarnball.launcher._hosts.HostGroup`). ``Cluster(..., backend=...)`` picks one when it is built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from yarnball.actors._appmaster import ApplicationMaster
from yarnball.actors._failures import HandlerFailures
from yarnball.launcher.workloads import JobSpec, NodeSpec, SkippedJob
from yarnball.policies.scheduler import QueueMetrics
from yarnball.protocols import ApplicationReport, Configuration

__all__ = ["BACKENDS", "ClusterBackend"]

#: The names ``Cluster(backend=...)`` and ``yarnball simulate --backend`` take ("inprocess": the shard hosts of the
#: Ray backend run in this process, for tests).
BACKENDS = ("embedded", "inprocess", "ray")


class ClusterBackend(Protocol):
    """Building, running and inspecting a cluster; ``Cluster`` forwards its API here."""

    name: str
    conf: Configuration
    seed: int
    masters: list[ApplicationMaster]
    jobs: dict[str, JobSpec]
    skipped: list[SkippedJob]

    def add_node(self, spec: NodeSpec, *, start_delay_ms: float | None = None) -> Any: ...

    def submit(self, am: ApplicationMaster) -> ApplicationMaster: ...

    def every(self, interval_ms: float, callback: Callable[[], Any], *, start_ms: float = 0) -> None: ...

    def fail_node(self, host: str, at_ms: float) -> None: ...

    def restart_node(self, host: str, at_ms: float, down_ms: float) -> None: ...

    def inject(self, faults: Any) -> None: ...

    def refresh_queues(self, conf: Any, *, at_ms: float | None = None) -> Any: ...

    def record_metrics(self, interval_ms: int, track_jobs: Sequence[str] = ()) -> None: ...

    def write_outputs(
        self, out_dir: str | Path, *, wall_seconds: float, workload: Any = None, plots: bool = True
    ) -> dict[str, Any]: ...

    def run(self, until_ms: float | None = None, on_progress: Callable[[float], None] | None = None) -> float: ...

    def finished(self) -> bool: ...

    def close(self) -> None: ...

    @property
    def now(self) -> float: ...

    @property
    def applications(self) -> list[ApplicationReport]: ...

    @property
    def queues(self) -> list[QueueMetrics]: ...

    @property
    def nodes(self) -> list[Any]: ...

    @property
    def running_containers(self) -> int: ...

    @property
    def counters(self) -> dict[str, int]: ...

    @property
    def handler_failures(self) -> HandlerFailures: ...

