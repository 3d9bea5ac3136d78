"""An AM author's own ApplicationMaster, type-checked by tests/test_typing.py with ``mypy --strict``.

A controller actor tells the AM to grow or shrink; the AM's ``@handler`` methods (bare, with the type from the
annotation, and with the types named) must keep their signatures for the type checker. ``check_handlers`` holds
what would fail if ``handler`` made them untyped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_type

from yarnball import ActorRef, ApplicationMaster, Cluster, Configuration, Resource, handler
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import Container, ContainerStatus, RegisterApplicationMasterResponse


@dataclass(frozen=True)
class Grow:
    """Ask for ``count`` more containers."""

    count: int


@dataclass(frozen=True)
class Shrink:
    """Give back up to ``count`` running containers."""

    count: int


@dataclass(frozen=True)
class Report:
    """Ask how many containers the AM holds."""


class ElasticAM(ApplicationMaster):
    """Runs one 10 s task per container; grows and shrinks when told to, finishes after ``tasks`` tasks."""

    def __init__(self, name: str, tasks: int) -> None:
        super().__init__(name=name)
        self.tasks = tasks
        self.done = 0
        self.held: list[Container] = []

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        self.add_container_request(Resource(1024, 1), priority=1, count=1)

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for container in containers:
            self.held.append(container)
            self.start_container(container, duration_ms=10_000)

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        completed = {status.container_id for status in statuses}
        self.held = [c for c in self.held if c.id not in completed]
        self.done += len(statuses)
        if self.done >= self.tasks:
            self.finish()

    @handler
    def on_grow(self, msg: Grow) -> None:
        self.add_container_request(Resource(1024, 1), priority=1, count=msg.count)

    @handler(Shrink, Report)
    def on_shrink_or_report(self, msg: Shrink | Report) -> int:
        if isinstance(msg, Shrink):
            for container in self.held[: msg.count]:
                self.stop_container(container)
        return len(self.held)


def check_handlers(am: ElasticAM) -> None:
    """What the type checker knows of the decorated methods (never called)."""
    assert_type(am.on_grow(Grow(2)), None)
    assert_type(am.on_shrink_or_report(Report()), int)
    am.on_grow(Shrink(1))  # type: ignore[arg-type]


def run() -> ElasticAM:
    """Run the AM for three tasks on a 4-node cluster, growing it by two containers 5 s in."""
    nodes = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8).build().nodes
    cluster = Cluster(Configuration(), nodes, seed=1)
    am = ElasticAM("elastic", tasks=3)
    cluster.submit(am)
    ref: ActorRef = am.ref
    ref.tell(Grow(2), delay=5_000)
    cluster.run()
    return am
