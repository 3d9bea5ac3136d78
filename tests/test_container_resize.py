"""Container resource increase and decrease end to end (issue 19 item 13): AM -> RM -> NM through the public API."""

from __future__ import annotations

from typing import Any

from tests.test_opportunistic_updates import ENABLED, Scripted, cluster, nm_entry, scheduler_used_mb
from yarnball.actors import DistributedShellAppMaster
from yarnball.protocols import Container, ContainerUpdateType, ExecutionType, Resource, keys
from yarnball.testing import assert_containers_conserved

G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741
INCREASE = ContainerUpdateType.INCREASE_RESOURCE
DECREASE = ContainerUpdateType.DECREASE_RESOURCE
PLAIN: dict[str, str] = {}  # no opportunistic allocation: the RM's own path


def resized(script: Any, conf: dict[str, str] | None = None, etype: ExecutionType = G, **kw: Any) -> tuple[Any, Any]:
    c = cluster(conf if conf is not None else PLAIN)
    am = Scripted(script, container_type=etype, **kw)
    c.submit(am)
    return c, am


def test_increase_reaches_the_nm_and_the_scheduler() -> None:
    """An increase to 2 GB comes back INCREASE_RESOURCE at version 1; the AM tells the NM, which runs the
    container at 2 GB; the scheduler charges 2 GB for it; the application succeeds."""
    c, am = resized(lambda am, ct: am.update_container_resource(ct, Resource(2048, 1)))
    c.run(until_ms=8_000)
    assert [(u.update_type, u.container.resource, u.container.version) for _, u in am.updates] == [
        (INCREASE, Resource(2048, 1), 1)
    ]
    # pullNewlyUpdatedContainers: the updated container leaves with a container token for its new resource
    token = am.updates[0][1].container.container_token
    assert token is not None and token.resource == Resource(2048, 1) and token.container_id == am.first.id
    entry = nm_entry(c, am.first.id)
    assert entry.container.resource == Resource(2048, 1) and entry.container.version == 1
    assert scheduler_used_mb(c) == 1024 + 2048  # the AM container and the increased one
    assert c.rm.resize is not None and not c.rm.resize.unconfirmed  # the NM's report confirmed it
    c.run()
    assert am.succeeded == 1
    assert scheduler_used_mb(c) == 0
    assert_containers_conserved(c)


def test_decrease_is_granted_at_once_and_pushed_to_the_nm() -> None:
    """A decrease to 512 MB is in the answer to the same allocate; the scheduler frees the difference and the NM
    is told in its next heartbeat response (the AM does not call the NM)."""
    c, am = resized(lambda am, ct: am.update_container_resource(ct, Resource(512, 1)))
    c.run(until_ms=8_000)
    assert [(u.update_type, u.container.resource) for _, u in am.updates] == [(DECREASE, Resource(512, 1))]
    assert am.sent_at is not None and am.updates[0][0] - am.sent_at <= am.heartbeat_interval_ms + 100
    assert scheduler_used_mb(c) == 1024 + 512
    entry = nm_entry(c, am.first.id)
    assert entry.container.resource == Resource(512, 1)
    nm = next(nm for nm in c.nodes if am.first.id in nm.containers)
    assert nm.container_scheduler.pmem <= nm.resource.memory_mb
    c.run()
    assert am.succeeded == 1
    assert_containers_conserved(c)


def test_increase_waits_for_room_on_the_node() -> None:
    """On a full node the increase waits (reserved) until another container ends, then is granted."""
    # one node of 4 GB: two AMs and a container each fill it; the hog's container ends after 15 s
    c = cluster({"yarn.scheduler.capacity.maximum-am-resource-percent": "1.0"}, nodes=1)
    hog = DistributedShellAppMaster(name="hog", num_containers=1, container_type=G, duration_ms=15_000)
    c.submit(hog)
    am = Scripted(
        lambda am, ct: am.update_container_resource(ct, Resource(2048, 1)),
        container_type=G,
        duration_ms=60_000,
        submit_at_ms=500,
    )
    c.submit(am)
    c.run(until_ms=12_000)
    assert scheduler_used_mb(c) == 4096
    assert am.updates == []  # no room for the 1 GB more
    c.run()
    ((granted_at, update),) = am.updates
    assert (update.update_type, update.container.resource) == (INCREASE, Resource(2048, 1))
    assert granted_at >= 15_000  # once the hog's container has ended
    assert am.succeeded == 1 and hog.succeeded == 1
    assert_containers_conserved(c)


def test_unapplied_increase_is_rolled_back_after_the_expiry() -> None:
    """An AM that never tells the NM of its increase gets it rolled back after
    yarn.resourcemanager.rm.container-allocation.expiry-interval-ms (a DECREASE_RESOURCE to the old size)."""

    class Forgetful(Scripted):
        def on_containers_updated(self, updated: tuple[Any, ...]) -> None:
            self.updates.extend((self.now, u) for u in updated)  # the NM is never told

    c = cluster({keys.RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS: "6000"})
    am = Forgetful(lambda am, ct: am.update_container_resource(ct, Resource(2048, 1)))
    c.submit(am)
    c.run(until_ms=20_000)
    kinds = [(u.update_type, u.container.resource.memory_mb, u.container.version) for _, u in am.updates]
    assert kinds == [(INCREASE, 2048, 1), (DECREASE, 1024, 2)]
    assert c.rm.resize is not None and c.rm.resize.counters["rolled_back"] == 1
    assert scheduler_used_mb(c) == 1024 + 1024


def test_increasing_an_opportunistic_container_promotes_it() -> None:
    """An OPPORTUNISTIC container's increase is accepted as Hadoop does (``validateAndSplitUpdateResourceRequests``
    does not look at the execution type) and, once the GUARANTEED difference is allocated, comes back as a
    promotion at the old size (``addToNewlyAllocatedContainers``; failed before: INVALID_CONTAINER_ID)."""
    c, am = resized(lambda am, ct: am.update_container_resource(ct, Resource(2048, 1)), ENABLED, etype=O)
    c.run(until_ms=8_000)
    assert am.errors == []
    kinds = [(u.update_type, u.container.execution_type, u.container.resource.memory_mb, u.container.version)
             for _, u in am.updates]  # fmt: skip
    assert kinds == [(ContainerUpdateType.PROMOTE_EXECUTION_TYPE, ExecutionType.GUARANTEED, 1024, 1)]


def test_runs_without_resizes_never_create_the_service() -> None:
    """A run with no resize request keeps the RM's resize service unmade (the code paths of before)."""
    c, am = resized(lambda am, ct: None)
    c.run()
    assert am.succeeded == 1 and c.rm.resize is None


def test_ending_container_withdraws_its_outstanding_increase() -> None:
    """A container that ends with its increase still waiting takes the ask with it: nothing stays pending."""

    def script(am: Scripted, ct: Container) -> None:
        am.update_container_resource(ct, Resource(4096, 4))  # never fits beside the AM container

    c, am = resized(script, duration_ms=10_000)
    c.run(until_ms=7_000)
    assert c.rm.resize is not None and c.rm.resize.increases
    c.run()
    assert am.succeeded == 1
    assert not c.rm.resize.increases and not c.scheduler.has_pending()
