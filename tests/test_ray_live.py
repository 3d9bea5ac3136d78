"""Live mode on Ray: the same actors on shard hosts, paced by the wall clock, exchanging messages at once."""

from __future__ import annotations

import time
from typing import Any

import pytest

from yarnball.actors._appmaster import ApplicationMaster
from yarnball.errors import SimulationError
from yarnball.launcher import Cluster
from yarnball.launcher._shard import host_of
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import Configuration, FinalApplicationStatus, Resource, keys

pytestmark = pytest.mark.ray


class QuickAM(ApplicationMaster):
    """The kind of AM written for the simulation: two 300 ms containers, then finish."""

    def on_registered(self, response: object) -> None:
        self.add_container_request(Resource(1024, 1), priority=1, count=2)
        self.completed = 0

    def on_containers_allocated(self, containers: tuple[Any, ...]) -> None:
        for c in containers:
            self.start_container(c, duration_ms=300)

    def on_containers_completed(self, statuses: tuple[Any, ...]) -> None:
        self.completed += len(statuses)
        if self.completed == 2:
            self.finish()


def test_small_app_finishes_live_on_two_hosts(ray_cluster: None) -> None:
    """An unchanged simulation AM finishes its application in wall-clock time, with the RM and AM on two hosts."""
    conf = Configuration({keys.RM_NM_HEARTBEAT_INTERVAL_MS: "100"})
    nodes = WorkloadBuilder().nodes(3, memory_mb=4096, vcores=4).build().nodes
    cluster = Cluster(conf, nodes, seed=1, backend="ray", hosts=2, latency_ms=1, clock="wall")
    name = next(n for n in (f"live{i}" for i in range(100)) if host_of(f"am-{n}-0", 2) == 1)
    cluster.submit(QuickAM(name=name, heartbeat_interval_ms=100))
    try:
        start = time.monotonic()
        end_ms = cluster.run(until_ms=8_000)
        wall = time.monotonic() - start
        (app,) = cluster.applications
    finally:
        cluster.close()
    assert app.final_status is FinalApplicationStatus.SUCCEEDED
    assert 300 <= end_ms < 8_000  # it finished before the limit, and took at least a container's run time
    assert wall >= end_ms / 1000 * 0.8  # the clock was the wall clock, not virtual time


def test_wall_clock_needs_the_ray_backend() -> None:
    """Live mode is refused on the in-process test backend, with the reason."""
    with pytest.raises(SimulationError, match="ray backend only"):
        Cluster(Configuration(), backend="inprocess", clock="wall")
