"""Fault schedules on the sharded backends (``--backend ray --faults FILE``, ``ShardedBackend.inject``).

The driver checks a schedule as the embedded cluster does (launcher/_faults.py) and turns each fault into a setup
step numbered with the driver's sequence as one kernel would number it (a message fault takes none: the embedded
cluster schedules nothing for it). Every shard host then runs launcher/_faultinjector.py's FaultInjector over the
actors it hosts (:class:`HostActors`): a node fault on the NodeManager's host, a graceful decommission on the RM's,
an AM crash on the AM's, and a message fault's hooks in front of every hosted receiver. Each fault is the same
kernel event, owned by the same actor, as in the embedded run, and a message fault's draws hash the delivery's event
key (actors/_messagefaults.py), so the run's outputs are byte-identical to the embedded run's with the same schedule,
seed and latency. What the hosts injected is summed for summary.json.

What cannot be applied on one host is refused before the run (exit 2 from the CLI): ``container_fail`` (its
container, or an application's oldest running one, is looked up on every NodeManager at once), ``am_crash`` of an
``application_<ts>_<seq>`` target (which AM holds that id is known only once the RM has answered it; name the job
instead) and ``rm_restart`` (it rebuilds the RM through the embedded cluster: not ported to shard hosts yet).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from yarnball.errors import ConfigurationError
from yarnball.launcher._faults import Fault

__all__ = ["FixedFaultSummary", "HostActors", "check_sharded", "merge_counts"]


def check_sharded(faults: Sequence[Fault], backend: str, source: str = "<faults>") -> None:
    """Refuse the faults a shard host cannot apply as the embedded run does, naming the entry and the backend."""
    for fault in faults:
        why = None
        if fault.kind == "container_fail":
            why = (
                "its container (or the application's oldest running one) is looked up on every NodeManager at once, "
                "which no single shard host sees"
            )
        elif fault.kind == "rm_restart":
            why = "the restart rebuilds the RM and its scheduler through the embedded cluster (actors/_rmrestart.py)"
        elif fault.kind == "am_crash" and fault.target.startswith("application_"):
            why = (
                "which AM holds an application id is known only once the RM has given it out; target the "
                "application by its job name instead"
            )
        if why is not None:
            raise ConfigurationError(
                f"{source}: fault {fault.index}: kind {fault.kind!r} with target {fault.target!r} is not supported on "
                f"the {backend} backend: {why} (use --backend embedded)"
            )


class HostActors:
    """What FaultInjector reads of a cluster, for one shard host: its kernel and the actors it hosts."""

    def __init__(self, host: Any, seed: int) -> None:
        from yarnball.actors._appmaster import ApplicationMaster
        from yarnball.actors._nodemanager import NodeManager

        self.host = host
        self.kernel = host.kernel
        self.rm = host.rm  # None but on the RM's host
        self.conf = host.conf
        self.heartbeats = host.heartbeats
        self.seed = seed
        actors = list(host.kernel.actors.values())
        self.node_managers = {a.node_id.host: a for a in actors if isinstance(a, NodeManager)}
        self.masters = [a for a in actors if isinstance(a, ApplicationMaster)]
        self.node_restarts = False

    def every_event(self) -> None:
        """What Cluster.begin_run does for a schedule that needs every heartbeat and allocate as a message."""
        clock = self.heartbeats
        clock.skip = False
        clock.skip_am = False
        if self.rm is not None:
            self.rm.dormant.disable()
        if clock.lazy is not None:
            clock.lazy.disable()


def merge_counts(parts: Sequence[tuple[dict[str, int], dict[str, int]]], scheduled: int) -> dict[str, Any]:
    """The summary.json ``faults`` section of a sharded run: every host's counts summed."""
    injected: Counter[str] = Counter()
    without: Counter[str] = Counter()
    for counts, idle in parts:
        injected.update(counts)
        without.update(idle)
    return {
        "scheduled": scheduled,
        "injected": dict(sorted(injected.items())),
        "without_effect": dict(sorted(without.items())),
    }


class FixedFaultSummary:
    """Host 0's stand-in for the FaultInjector when it writes the outputs: the merged counts."""

    def __init__(self, summary: dict[str, Any]) -> None:
        self._summary = summary

    def summary(self) -> dict[str, Any]:
        return self._summary
