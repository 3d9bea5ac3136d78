"""Shared pieces of the attack tests (tests/test_security_*.py): a victim AM, an attacker AM, a one-node cluster."""

from __future__ import annotations

from typing import Any

from yarnball.actors._appmaster import ApplicationMaster
from yarnball.actors._nodemanager import nm_actor_id
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import (
    AllocateResponse,
    Configuration,
    Container,
    ContainerStatus,
    RemoteRefusal,
    Resource,
)

TASK_MS = 60_000


class VictimAM(ApplicationMaster):
    """Runs ``count`` containers of ``TASK_MS`` each and finishes SUCCEEDED when all of them ended SUCCESS."""

    def __init__(self, count: int = 2, **kw: Any) -> None:
        kw.setdefault("name", "victim")
        kw.setdefault("user", "bob")
        super().__init__(**kw)
        self.count = count
        self.containers: list[Container] = []
        self.statuses: list[ContainerStatus] = []

    def on_registered(self, response: object) -> None:
        self.add_container_request(Resource(1024, 1), priority=1, count=self.count)

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for c in containers:
            if len(self.containers) == self.count:
                self.release(c.id)  # one more than asked (the ask table's lag, as AMRMClient's): given back
                continue
            self.containers.append(c)
            self.start_container(c, duration_ms=TASK_MS)

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        started = {c.id for c in self.containers}
        self.statuses.extend(s for s in statuses if s.container_id in started)  # (not the released extra ones)
        if len(self.statuses) == self.count:
            self.finish()


class AttackerAM(VictimAM):
    """A victim-like AM of its own application that also records every message it receives, to attack from."""

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("name", "attacker")
        kw.setdefault("user", "mallory")
        super().__init__(count=1, **kw)
        self.inbox: list[Any] = []

    def _deliver(self, arg: tuple[Any, Any]) -> None:
        self.inbox.append(arg[0])
        super()._deliver(arg)

    def send_to_rm(self, message: Any) -> None:
        self.rm.tell(message, self.ref)

    def send_to_nm(self, host: str, message: Any) -> None:
        self.kernel.lookup(nm_actor_id(host)).tell(message, self.ref)

    @property
    def refusals(self) -> list[RemoteRefusal]:
        return [m for m in self.inbox if type(m) is RemoteRefusal]

    def completed_ids(self) -> set[Any]:
        """Every container whose completion reached this AM through an allocate response."""
        return {
            s.container_id for m in self.inbox if type(m) is AllocateResponse for s in m.completed_container_statuses
        }


def one_node_cluster(conf: dict[str, str] | None = None, *, seed: int = 5) -> Cluster:
    """One 16 GB / 16 vcore node, so that every application's containers share it (and its NMTokens)."""
    nodes = WorkloadBuilder().nodes(1, memory_mb=16384, vcores=16).build().nodes
    settings = {"yarn.scheduler.capacity.maximum-am-resource-percent": "0.5", **(conf or {})}
    return Cluster(Configuration(settings), nodes, seed=seed)


def victim_and_attacker(
    conf: dict[str, str] | None = None, *, seed: int = 5, **victim_kw: Any
) -> tuple[Cluster, VictimAM, AttackerAM]:
    """Both AMs registered and their containers RUNNING (at 10 s of a one-node cluster)."""
    cluster = one_node_cluster(conf, seed=seed)
    victim = cluster.submit(VictimAM(submit_at_ms=1_000, **victim_kw))
    attacker = cluster.submit(AttackerAM(submit_at_ms=1_000))
    cluster.run(until_ms=10_000)
    assert len(victim.running) == 2 and len(attacker.running) == 1
    return cluster, victim, attacker


def rejected_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == "request_rejected"]
