"""Live mode on Ray: the same actors on shard hosts, paced by the wall clock, exchanging messages at once."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from yarnball.actors._appmaster import ApplicationMaster
from yarnball.actors._nodemanager import nm_actor_id
from yarnball.errors import SimulationError
from yarnball.launcher import Cluster
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
    cluster = Cluster(
        conf, nodes, seed=1, backend="ray", hosts=2, latency_ms=1, clock="wall", placement={"am-live-0": 1}
    )
    cluster.submit(QuickAM(name="live", heartbeat_interval_ms=100))
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


def live_run_to_the_end(address: str, placement: dict[str, int]) -> Cluster:
    """One live run with no time limit (it ends when the RM sees the application finish), stopped by a watchdog
    after 60 s if it does not."""
    conf = Configuration({keys.RM_NM_HEARTBEAT_INTERVAL_MS: "100"})
    nodes = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build().nodes
    cluster = Cluster(
        conf, nodes, seed=1, backend="ray", address=address, hosts=2, latency_ms=1, clock="wall", placement=placement
    )
    cluster.submit(QuickAM(name="again", heartbeat_interval_ms=100))
    cluster.group  # noqa: B018 - start the hosts, so that the watchdog can stop them
    watchdog = threading.Timer(60, cluster.group.stop)  # type: ignore[attr-defined]
    watchdog.start()
    try:
        cluster.run()
    finally:
        watchdog.cancel()
    return cluster


def test_two_live_runs_in_a_row_finish_with_an_idle_host(ray_cluster: str) -> None:
    """Two live runs one after the other on the same Ray cluster both finish, with no time limit. The AM is alone
    on host 1: between its messages that host's queue is empty, which must not end the host's run (it did: the AM
    then never saw its registration and the run hung until stopped)."""
    nodes = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build().nodes
    placement = {nm_actor_id(spec.hostname): 0 for spec in nodes} | {"am-again-0": 1}
    for _ in range(2):
        cluster = live_run_to_the_end(ray_cluster, placement)
        try:
            assert cluster.finished()
            (app,) = cluster.applications
            assert app.final_status is FinalApplicationStatus.SUCCEEDED
        finally:
            cluster.close()
