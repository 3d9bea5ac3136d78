"""RMAppMetrics / RMAppAttemptMetrics as the REST API shows them: resource-seconds and preemption figures.

The expected figures are computed here from what the RM did (each container's allocation and end, recorded around
the RM's own handlers), with Hadoop's arithmetic: ``value * usedMillis / 1000`` per container, in long division.
"""

from __future__ import annotations

from typing import Any

from service_spies import spyable_services

from yarnball.actors import RestartingMRAppMaster, mapreduce_tasks
from yarnball.launcher import Cluster
from yarnball.launcher.web._snapshot import take_snapshot
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import ContainerExitStatus, Resource

QUEUES = {
    "yarn.scheduler.capacity.root.queues": "q1,q2",
    "yarn.scheduler.capacity.root.q1.capacity": "50",
    "yarn.scheduler.capacity.root.q2.capacity": "50",
    "yarn.scheduler.capacity.root.q1.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.q1.user-limit-factor": "2",
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
}
NODES = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8).build().nodes


class Books:
    """Each container's (allocation time, memory, vcores, is AM) and (end time, exit status), as the RM saw them."""

    def __init__(self, cluster: Cluster) -> None:
        self.started: dict[Any, tuple[float, int, int, bool]] = {}
        self.ended: dict[Any, tuple[float, int]] = {}
        rm = cluster.rm
        allocated, done = rm.dispatcher.on_allocated, rm.dispatcher.container_done

        def on_allocated(note: Any) -> None:
            r = note.container.resource
            self.started[note.container.id] = (rm.now, r.memory_mb, r.vcores, note.is_am)
            allocated(note)

        def container_done(cid: Any, status: Any) -> None:
            if cid in rm.live and cid not in self.ended:
                self.ended[cid] = (rm.now, status.exit_status)
            done(cid, status)

        rm.dispatcher.on_allocated = on_allocated  # type: ignore[method-assign]
        rm.dispatcher.container_done = container_done  # type: ignore[method-assign]

    def usage(self, app_id: str, now: float, *, preempted_only: bool = False) -> tuple[int, int]:
        """(MB-seconds, vcore-seconds) of the app's containers, the running ones up to ``now``."""
        mem = vc = 0
        for cid, (start, m, v, _) in self.started.items():
            if str(cid.application_attempt_id.application_id) != app_id:
                continue
            end, status = self.ended.get(cid, (now, None))
            if preempted_only and status != ContainerExitStatus.PREEMPTED:
                continue
            used = int(end) - int(start)
            mem += m * used // 1000
            vc += v * used // 1000
        return mem, vc


def _two_apps(until_ms: int) -> tuple[Cluster, Books, dict[str, Any]]:
    with spyable_services():  # (Books replaces two of the dispatcher's methods)
        cluster = Cluster(QUEUES, NODES, seed=3)
    books = Books(cluster)
    big = RestartingMRAppMaster(
        name="app1", queue="q1", tasks=mapreduce_tasks(31, map_ms=400_000, resource=Resource(1024, 1))
    )
    small = RestartingMRAppMaster(name="app2", queue="q2", submit_at_ms=60_000, tasks=mapreduce_tasks(8, map_ms=60_000))
    cluster.submit(big)
    cluster.submit(small)
    cluster.run(until_ms=until_ms)
    return cluster, books, take_snapshot(cluster, done=True).apps


def _entries(value: dict[str, Any]) -> dict[str, int]:
    return {e["key"]: int(e["value"]) for e in value.get("entry", [])}


def test_finished_apps_report_their_containers_resource_seconds() -> None:
    """memorySeconds / vcoreSeconds of a finished app are its containers' MB- and vcore-seconds (each container's
    resource times its allocated milliseconds, over 1000, rounded down), as in resourceSecondsMap."""
    cluster, books, apps = _two_apps(3_600_000)
    finished = [a for a in apps.values() if a["state"] == "FINISHED"]
    assert len(finished) == 2
    for app in finished:
        mem, vc = books.usage(app["id"], cluster.kernel.now)
        assert mem > 0 and vc > 0
        assert (app["memorySeconds"], app["vcoreSeconds"]) == (mem, vc)
        assert _entries(app["resourceSecondsMap"]) == {"memory-mb": mem, "vcores": vc}
        assert all(isinstance(e["value"], str) for e in app["resourceSecondsMap"]["entry"])


def test_preempted_containers_are_counted_and_charged() -> None:
    """A container ended PREEMPTED adds its resource to preemptedResourceMB/VCores, counts as a non-AM container
    preempted, and its resource-seconds go to preemptedMemorySeconds / preemptedVcoreSeconds too."""
    cluster, books, apps = _two_apps(3_600_000)
    app_id = next(a["id"] for a in apps.values() if a["name"] == "app1")
    app = apps[app_id]
    preempted = [
        cid
        for cid, (_, status) in books.ended.items()
        if status == ContainerExitStatus.PREEMPTED and str(cid.application_attempt_id.application_id) == app_id
    ]
    assert preempted
    assert app["numNonAMContainerPreempted"] == len(preempted)
    assert app["numAMContainerPreempted"] == 0
    assert app["preemptedResourceMB"] == sum(books.started[c][1] for c in preempted)
    assert app["preemptedResourceVCores"] == sum(books.started[c][2] for c in preempted)
    mem, vc = books.usage(app_id, cluster.kernel.now, preempted_only=True)
    assert mem > 0
    assert (app["preemptedMemorySeconds"], app["preemptedVcoreSeconds"]) == (mem, vc)
    assert _entries(app["preemptedResourceSecondsMap"]) == {"memory-mb": mem, "vcores": vc}
    other = next(a for a in apps.values() if a["name"] == "app2")
    assert other["preemptedResourceMB"] == other["numNonAMContainerPreempted"] == 0
    assert other["preemptedResourceSecondsMap"] == {}


def test_a_running_app_adds_its_running_containers_usage_so_far() -> None:
    """While an app runs, memorySeconds adds each live container's usage from its allocation to now
    (RMAppAttemptMetrics.getAggregateAppResourceUsage with the scheduler's running usage)."""
    cluster, books, apps = _two_apps(150_000)
    app = next(a for a in apps.values() if a["name"] == "app1")
    assert app["state"] == "RUNNING"
    now = cluster.kernel.now
    mem, vc = books.usage(app["id"], now)
    running = [
        c for c in books.started if c not in books.ended and str(c.application_attempt_id.application_id) == app["id"]
    ]
    assert running and mem > 0
    assert (app["memorySeconds"], app["vcoreSeconds"]) == (mem, vc)
