"""RM-side container updates: demotion as a decrease, promotion's validation, Hadoop's error reasons."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yarnball import Cluster
from yarnball.actors import DistributedShellAppMaster
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import (
    Container,
    ContainerId,
    ContainerUpdateType,
    ExecutionType,
    Resource,
    UpdateContainerRequest,
    UpdatedContainer,
    keys,
)
from yarnball.protocols._amprotocol import UpdateContainerError

G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741
PROMOTE = ContainerUpdateType.PROMOTE_EXECUTION_TYPE
DEMOTE = ContainerUpdateType.DEMOTE_EXECUTION_TYPE
ENABLED = {
    keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
    keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
}


def cluster(conf: dict[str, str] | None = None, nodes: int = 2) -> Cluster:
    wl = WorkloadBuilder().nodes(nodes, memory_mb=4096, vcores=4).build()
    return Cluster(conf or ENABLED, wl.nodes, seed=3)


class Scripted(DistributedShellAppMaster):
    """Runs ``script(am, container)`` ``after_ms`` after its first container is allocated; records the answers."""

    def __init__(self, script: Callable[[Scripted, Container], None], after_ms: float = 2_000, **kw: Any) -> None:
        kw.setdefault("duration_ms", 30_000)
        super().__init__(name="scripted", num_containers=kw.pop("num_containers", 1), **kw)
        self.script = script
        self.after_ms = after_ms
        self.first: Container | None = None
        self.updates: list[tuple[float, UpdatedContainer]] = []
        self.errors: list[UpdateContainerError] = []
        self.sent_at: float | None = None

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        super().on_containers_allocated(containers)
        if self.first is None and containers:
            self.first = containers[0]
            self.after(self.after_ms, self._run_script)

    def _run_script(self) -> None:
        assert self.first is not None
        self.sent_at = self.now
        self.script(self, self.running.get(self.first.id, self.first))

    def raw(self, container: Container, kind: ContainerUpdateType, target: ExecutionType | None, **kw: Any) -> None:
        self._updates.append(
            UpdateContainerRequest(
                container_version=kw.pop("version", container.version),
                container_id=kw.pop("cid", container.id),
                container_update_type=kind,
                execution_type=target,
                **kw,
            )
        )

    def on_containers_updated(self, updated: tuple[UpdatedContainer, ...]) -> None:
        self.updates.extend((self.now, u) for u in updated)
        super().on_containers_updated(updated)

    def on_update_errors(self, errors: tuple[UpdateContainerError, ...]) -> None:
        self.errors.extend(errors)


def scheduler_used_mb(c: Cluster) -> int:
    return sum(c.scheduler.node_report(nm.node_id).used.memory_mb for nm in c.nodes)


def nm_entry(c: Cluster, cid: ContainerId) -> Any:
    return next(nm.containers[cid] for nm in c.nodes if cid in nm.containers)


def test_demoting_a_guaranteed_container_takes_effect_in_the_same_allocate() -> None:
    """A demoted GUARANTEED container comes back OPPORTUNISTIC, version + 1, in the answer to the same heartbeat."""
    c = cluster()
    am = Scripted(lambda am, ct: am.update_execution_type(ct, O), container_type=G)
    c.submit(am)
    c.run(until_ms=8_000)
    assert [(u.update_type, u.container.execution_type, u.container.version) for _, u in am.updates] == [
        (DEMOTE, O, 1)
    ]
    assert am.sent_at is not None and am.updates[0][0] - am.sent_at <= am.heartbeat_interval_ms + 100
    assert c.rm.opportunistic is not None and c.rm.opportunistic.counters["demoted"] == 1


def test_demotion_releases_the_resources_from_the_scheduler_but_the_container_runs_on() -> None:
    """After demotion the scheduler accounts only the AM container; the task still runs and succeeds."""
    c = cluster()
    am = Scripted(lambda am, ct: am.update_execution_type(ct, O), container_type=G)
    c.submit(am)
    c.run(until_ms=8_000)
    assert scheduler_used_mb(c) == 1024  # the AM container only
    assert am.first is not None and nm_entry(c, am.first.id).container.execution_type is O  # the AM told the NM
    c.run()
    assert am.succeeded == 1 and am.failed_attempts == 0
    assert c.rm.counters["containers_killed"] == 0
    assert scheduler_used_mb(c) == 0


def test_demoted_container_can_be_killed_for_guaranteed_work() -> None:
    """A demoted container is a victim when GUARANTEED work needs its node."""
    c = cluster({**ENABLED, "yarn.scheduler.capacity.maximum-am-resource-percent": "1.0"}, nodes=1)
    am = Scripted(
        lambda am, ct: am.update_execution_type(ct, O), container_type=G, container_resource=Resource(3072, 3)
    )
    c.submit(am)
    g = DistributedShellAppMaster(
        name="g", num_containers=1, container_type=G, container_resource=Resource(2048, 1), duration_ms=2_000,
        submit_at_ms=10_000,
    )
    c.submit(g)
    c.run()
    assert g.succeeded == 1
    assert am.failed_attempts >= 1 and am.succeeded == 1
    assert c.rm.opportunistic is not None and c.rm.opportunistic.counters["opportunistic_killed"] >= 1


def test_demoting_a_promoted_container_gives_back_its_guaranteed_resources() -> None:
    """Promote then demote: version 2, OPPORTUNISTIC again, and the scheduler no longer holds its resources."""

    def script(am: Scripted, ct: Container) -> None:
        am.update_execution_type(ct, G)

    c = cluster()
    am = Scripted(script, container_type=O)
    c.submit(am)
    c.run(until_ms=10_000)
    assert [u.container.version for _, u in am.updates] == [1]
    assert scheduler_used_mb(c) == 2048
    assert am.first is not None
    am.update_execution_type(am.running[am.first.id], O)
    c.run(until_ms=14_000)
    assert [(u.update_type, u.container.version) for _, u in am.updates] == [(PROMOTE, 1), (DEMOTE, 2)]
    assert scheduler_used_mb(c) == 1024
    assert nm_entry(c, am.first.id).container.execution_type is O
    c.run()
    assert am.succeeded == 1


def test_auto_update_pushes_demotion_to_the_nm() -> None:
    """With auto-update.containers the RM tells the NM of a demotion in a heartbeat response."""

    class Quiet(Scripted):
        def on_containers_updated(self, updated: tuple[UpdatedContainer, ...]) -> None:
            self.updates.extend((self.now, u) for u in updated)  # the NM is not told by the AM

    results = {}
    for name, conf in (("auto", {**ENABLED, keys.RM_AUTO_UPDATE_CONTAINERS: "true"}), ("manual", ENABLED)):
        c = cluster(conf)
        am = Quiet(lambda am, ct: am.update_execution_type(ct, O), container_type=G)
        c.submit(am)
        c.run(until_ms=8_000)
        assert am.first is not None
        results[name] = nm_entry(c, am.first.id).container.execution_type
    assert results == {"auto": O, "manual": G}


def _errors_of(script: Callable[[Scripted, Container], None], etype: ExecutionType) -> Scripted:
    c = cluster()
    am = Scripted(script, container_type=etype)
    c.submit(am)
    c.run(until_ms=8_000)
    return am


def test_wrong_version_is_incorrect_container_version_error() -> None:
    """An update naming a stale version gets INCORRECT_CONTAINER_VERSION_ERROR with the current version."""
    am = _errors_of(lambda am, ct: am.raw(ct, DEMOTE, O, version=5), G)
    assert [(e.reason, e.current_container_version) for e in am.errors] == [("INCORRECT_CONTAINER_VERSION_ERROR", 0)]
    assert am.updates == []


def test_unknown_container_is_invalid_container_id() -> None:
    """An update for a container the RM does not know gets INVALID_CONTAINER_ID with version -1."""
    am = _errors_of(lambda am, ct: am.raw(ct, DEMOTE, O, cid=ContainerId(ct.id.application_attempt_id, 999)), G)
    assert [(e.reason, e.current_container_version) for e in am.errors] == [("INVALID_CONTAINER_ID", -1)]


def test_demoting_an_opportunistic_container_is_silently_ignored() -> None:
    """Demoting a container that already is OPPORTUNISTIC is neither an update nor an error (as Hadoop)."""
    am = _errors_of(lambda am, ct: am.update_execution_type(ct, O), O)
    assert am.errors == [] and am.updates == []


def test_second_update_in_one_request_is_update_outstanding_error() -> None:
    """Two accepted updates for one container in one allocate: the second is UPDATE_OUTSTANDING_ERROR."""

    def script(am: Scripted, ct: Container) -> None:
        am.update_execution_type(ct, O)
        am.update_execution_type(ct, O)

    am = _errors_of(script, G)
    assert [(e.reason, e.current_container_version) for e in am.errors] == [("UPDATE_OUTSTANDING_ERROR", 0)]
    assert len(am.updates) == 1


def test_ignored_update_does_not_make_the_next_one_outstanding() -> None:
    """A same-type update is not outstanding in Hadoop, so a following real one in the same request goes through."""

    def script(am: Scripted, ct: Container) -> None:
        am.update_execution_type(ct, G)  # already GUARANTEED: ignored
        am.update_execution_type(ct, O)

    am = _errors_of(script, G)
    assert am.errors == [] and [u.container.execution_type for _, u in am.updates] == [O]


def test_promotion_still_waiting_refuses_a_second_one() -> None:
    """A promotion asked again while the first waits for the scheduler is UPDATE_OUTSTANDING_ERROR (version 0)."""

    def script(am: Scripted, ct: Container) -> None:
        am.update_execution_type(ct, G)
        am.after(am.heartbeat_interval_ms, lambda: am.update_execution_type(ct, G))

    # The cluster is full of GUARANTEED work, so the promotion cannot be served quickly.
    c = cluster({**ENABLED, "yarn.scheduler.capacity.maximum-am-resource-percent": "1.0"}, nodes=1)
    hog = DistributedShellAppMaster(
        name="hog", num_containers=1, container_type=G, container_resource=Resource(2048, 2), duration_ms=30_000
    )
    c.submit(hog)
    am = Scripted(script, container_type=O, submit_at_ms=3_000)
    c.submit(am)
    c.run(until_ms=12_000)
    assert [(e.reason, e.current_container_version) for e in am.errors] == [("UPDATE_OUTSTANDING_ERROR", 0)]


def test_resource_update_out_of_range_uses_hadoop_reason() -> None:
    """An increase beyond the maximum allocation is RESOURCE_OUTSIDE_ALLOWED_RANGE."""
    am = _errors_of(
        lambda am, ct: am.raw(ct, ContainerUpdateType.INCREASE_RESOURCE, None, capability=Resource(1 << 30, 1)), G
    )
    assert [e.reason for e in am.errors] == ["RESOURCE_OUTSIDE_ALLOWED_RANGE"]


def test_valid_resource_increase_is_granted_with_opportunistic_allocation_on() -> None:
    """With the opportunistic service in front, a valid resource increase reaches the resize service (issue 19
    item 13: it was refused as UNSUPPORTED_UPDATE before) and is granted: INCREASE_RESOURCE, version 1."""
    am = _errors_of(
        lambda am, ct: am.raw(ct, ContainerUpdateType.INCREASE_RESOURCE, None, capability=Resource(2048, 1)), G
    )
    assert am.errors == []
    assert [(u.update_type, u.container.resource, u.container.version) for _, u in am.updates] == [
        (ContainerUpdateType.INCREASE_RESOURCE, Resource(2048, 1), 1)
    ]
