"""Opportunistic containers end to end: execution types, the RM's allocator service, promotion, configuration."""

from __future__ import annotations

from typing import Any

import pytest

from yarnball import Cluster
from yarnball.actors import DistributedShellAppMaster
from yarnball.errors import ConfigurationError
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import (
    Container,
    ContainerId,
    ExecutionType,
    YarnApplicationState,
    keys,
)
from yarnball.protocols._amprotocol import UpdateContainerError

G = ExecutionType.GUARANTEED
O = ExecutionType.OPPORTUNISTIC  # noqa: E741
ENABLED = {
    keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
    keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
}


def cluster(conf: dict[str, str] | None = None, nodes: int = 4) -> Cluster:
    wl = WorkloadBuilder().nodes(nodes, memory_mb=4096, vcores=4).build()
    return Cluster(conf or {}, wl.nodes, seed=3)


def dshell(c: Cluster, n: int, etype: ExecutionType, **kw: Any) -> DistributedShellAppMaster:
    am = DistributedShellAppMaster(name=f"ds-{len(c.masters)}", num_containers=n, container_type=etype, **kw)
    c.submit(am)
    return am


def test_disabled_allocation_treats_opportunistic_asks_as_guaranteed() -> None:
    """With the feature off (the default) OPPORTUNISTIC asks are served as GUARANTEED containers."""
    c = cluster()
    am = dshell(c, 4, O, duration_ms=2_000)
    c.run()
    assert set(am.allocated_types) == {G}
    assert c.rm.opportunistic is None


def test_enabled_allocation_gives_opportunistic_containers() -> None:
    """With the feature on, OPPORTUNISTIC asks get OPPORTUNISTIC containers that run to completion."""
    c = cluster(ENABLED)
    am = dshell(c, 6, O, duration_ms=2_000)
    c.run()
    assert set(am.allocated_types) == {O}
    assert am.succeeded == 6
    assert c.rm.opportunistic is not None and c.rm.opportunistic.counters["opportunistic_allocated"] >= 6
    assert c.applications[0].state is YarnApplicationState.FINISHED


def test_guaranteed_asks_still_go_to_the_scheduler() -> None:
    """The allocator service forwards GUARANTEED asks to the CapacityScheduler unchanged."""
    c = cluster(ENABLED)
    g = dshell(c, 3, G, duration_ms=2_000)
    o = dshell(c, 3, O, duration_ms=2_000)
    c.run()
    assert set(g.allocated_types) == {G} and set(o.allocated_types) == {O}
    assert c.rm.counters["containers_allocated"] == 3 + 2  # three tasks and two AM containers


def test_heartbeat_responses_carry_queuing_limit_only_when_enabled() -> None:
    """NMs receive the RM's queue limit (within [min, max]) when the feature is on, and nothing when off."""
    on, off = cluster(ENABLED), cluster()
    for c in (on, off):
        dshell(c, 2, O, duration_ms=2_000)
        c.run()
    assert {nm.container_scheduler.max_queue_length_limit for nm in on.nodes} == {5}  # min-queue-length
    assert {nm.container_scheduler.max_queue_length_limit for nm in off.nodes} == {-1}


def test_opportunistic_containers_queue_behind_busy_nodes_and_finish() -> None:
    """More OPPORTUNISTIC containers than slots queue at the NMs and all finish."""
    c = cluster(ENABLED, nodes=2)
    am = dshell(c, 30, O, duration_ms=1_000)
    c.run()
    assert am.succeeded == 30
    assert max(nm.container_scheduler.metrics.running_opportunistic for nm in c.nodes) == 0


def test_guaranteed_work_preempts_opportunistic_on_a_full_cluster() -> None:
    """GUARANTEED containers arriving on a cluster full of OPPORTUNISTIC ones kill some (exit -108) and re-run them."""
    c = cluster(ENABLED, nodes=2)
    o = dshell(c, 12, O, duration_ms=20_000)
    g = DistributedShellAppMaster(name="g", num_containers=4, container_type=G, duration_ms=2_000, submit_at_ms=5_000)
    c.submit(g)
    c.run()
    assert g.succeeded == 4 and o.succeeded == 12
    assert c.rm.opportunistic is not None and c.rm.opportunistic.counters["opportunistic_killed"] > 0
    assert o.failed_attempts > 0


def test_promotion_turns_a_running_container_guaranteed() -> None:
    """A promoted OPPORTUNISTIC container comes back GUARANTEED with version + 1, and the NM is told."""
    c = cluster(ENABLED)
    am = dshell(c, 2, O, duration_ms=30_000, promote_after_ms=2_000)
    c.run(until_ms=12_000)
    assert len(am.promoted) == 2
    entries = [e for nm in c.nodes for e in nm.containers.values() if e.container.id in am.promoted]
    assert [(e.container.execution_type, e.container.version) for e in entries] == [(G, 1), (G, 1)]
    assert c.rm.opportunistic is not None and c.rm.opportunistic.counters["promoted"] == 2
    c.run()
    assert am.succeeded == 2


def test_promoted_container_holds_guaranteed_resources_until_it_ends() -> None:
    """After promotion the scheduler accounts the container's resources; they are released when it completes."""
    c = cluster(ENABLED)
    dshell(c, 1, O, duration_ms=30_000, promote_after_ms=2_000)
    c.run(until_ms=12_000)
    used = sum(c.scheduler.node_report(nm.node_id).used.memory_mb for nm in c.nodes)
    assert used == 2048  # the AM container and the promoted one
    c.run()
    assert sum(c.scheduler.node_report(nm.node_id).used.memory_mb for nm in c.nodes) == 0


class _BadUpdates(DistributedShellAppMaster):
    """Sends malformed updates for its first container and records the RM's answers."""

    errors: list[UpdateContainerError]

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        super().on_containers_allocated(containers)
        if getattr(self, "errors", None) is not None:
            return
        self.errors = []
        c = containers[0]
        self.update_execution_type(c, G)
        self.update_execution_type(c, G)  # a second update for the same container in one request
        ghost = Container(
            id=ContainerId(c.id.application_attempt_id, 999),
            node_id=c.node_id,
            resource=c.resource,
            priority=c.priority,
        )
        self.update_execution_type(ghost, G)
        # Later, the container was promoted to version 1: an update still naming version 0 is stale.
        self.after(3_000, lambda: self.update_execution_type(c, G))

    def on_update_errors(self, errors: tuple[UpdateContainerError, ...]) -> None:
        self.errors.extend(errors)


def test_malformed_update_requests_rejected_with_hadoop_reasons() -> None:
    """Duplicate, stale-version and unknown-container updates get Hadoop's error reasons; the RM keeps running."""
    c = cluster(ENABLED)
    am = _BadUpdates(name="bad", num_containers=1, container_type=O, duration_ms=5_000)
    c.submit(am)
    c.run()
    reasons = sorted(e.reason for e in am.errors)
    assert reasons == ["INCORRECT_CONTAINER_VERSION_ERROR", "INVALID_CONTAINER_ID", "UPDATE_OUTSTANDING_ERROR"]
    versions = {e.reason: e.current_container_version for e in am.errors}
    assert versions["INVALID_CONTAINER_ID"] == -1 and versions["INCORRECT_CONTAINER_VERSION_ERROR"] == 1
    assert am.succeeded == 1 and len(am.promoted) == 1


def test_sls_trace_execution_type_is_honoured() -> None:
    """A trace task with container.execution.type OPPORTUNISTIC is asked and allocated as OPPORTUNISTIC."""
    wl = (
        WorkloadBuilder()
        .nodes(2, memory_mb=4096, vcores=4)
        .job("j", tasks=[task_spec(3, 2_000, execution_type="OPPORTUNISTIC"), task_spec(2, 2_000)])
        .build()
    )
    c = Cluster(ENABLED, wl.nodes, seed=1)
    c.submit_workload(wl)
    c.run()
    assert c.rm.opportunistic is not None
    counters = c.rm.opportunistic.counters
    assert counters["opportunistic_allocated"] - counters["opportunistic_killed"] == 3  # killed ones are re-run
    assert c.applications[0].state is YarnApplicationState.FINISHED


@pytest.mark.parametrize(("percent", "expected"), [(0, 0), (5, 5), (50, 10), (100, 10)])
def test_mapreduce_opportunistic_maps_percent(percent: int, expected: int) -> None:
    """The percentage applies to each run of 100 first-attempt maps, so 50% of a 10-map job is all 10 (Hadoop's
    mapsMod100 counter)."""
    wl = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).job("j", tasks=[task_spec(10, 1_000)]).build()
    conf = {**ENABLED, keys.MR_NUM_OPPORTUNISTIC_MAPS_PERCENT: str(percent)}
    c = Cluster(conf, wl.nodes, seed=1)
    c.submit_workload(wl)
    c.run()
    assert c.rm.opportunistic is not None
    counters = c.rm.opportunistic.counters
    assert counters["opportunistic_allocated"] - counters["opportunistic_killed"] == expected


def test_mapreduce_opportunistic_maps_percent_out_of_range_rejected() -> None:
    """A percentage outside [0, 100] is a ConfigurationError naming the key."""
    wl = WorkloadBuilder().nodes(1).job("j", tasks=[task_spec(1, 1_000)]).build()
    c = Cluster({keys.MR_NUM_OPPORTUNISTIC_MAPS_PERCENT: "150"}, wl.nodes)
    with pytest.raises(ConfigurationError, match="num-opportunistic-maps-percent"):
        c.submit_workload(wl)


def test_distributed_scheduling_requires_opportunistic_allocation() -> None:
    """Distributed scheduling without opportunistic allocation fails with Hadoop's message."""
    with pytest.raises(ConfigurationError, match="opportunistic container allocation has to be enabled"):
        cluster({keys.DIST_SCHEDULING_ENABLED: "true"})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (keys.OPP_CONTAINER_ALLOCATION_NODES_NUMBER_USED, "0"),
        (keys.NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS, "0"),
        (keys.NM_CONTAINER_QUEUING_LOAD_COMPARATOR, "CPU"),
        (keys.NM_CONTAINER_QUEUING_LIMIT_STDEV, "-1"),
        (keys.NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH, "20"),
        (keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED, "maybe"),
    ],
)
def test_invalid_rm_config_named_by_key(key: str, value: str) -> None:
    """A bad RM opportunistic setting is a ConfigurationError naming the key."""
    with pytest.raises(ConfigurationError, match=key.replace(".", r"\.")):
        cluster({**ENABLED, key: value})


def test_same_seed_same_run() -> None:
    """Two runs with the same seed give the same finish times and counters."""

    def once() -> tuple[Any, ...]:
        c = cluster(ENABLED, nodes=3)
        dshell(c, 20, O, duration_ms=1_500)
        dshell(c, 5, G, duration_ms=3_000)
        end = c.run()
        assert c.rm.opportunistic is not None
        return end, dict(c.rm.counters), dict(c.rm.opportunistic.counters)

    assert once() == once()


class _NoNMUpdate(DistributedShellAppMaster):
    """Records granted updates without telling the NodeManager itself."""

    def on_containers_updated(self, updated: Any) -> None:
        self.promoted.extend(u.container.id for u in updated)


def test_auto_update_pushes_promotion_to_the_nm() -> None:
    """With auto-update.containers the RM sends the promoted container to its NM in a heartbeat response."""
    conf = {**ENABLED, keys.RM_AUTO_UPDATE_CONTAINERS: "true"}
    results = {}
    for name, c in (("auto", cluster(conf)), ("manual", cluster(ENABLED))):
        am = _NoNMUpdate(name="n", num_containers=1, container_type=O, duration_ms=30_000, promote_after_ms=2_000)
        c.submit(am)
        c.run(until_ms=12_000)
        entry = next(e for nm in c.nodes for e in nm.containers.values() if e.container.id in am.promoted)
        results[name] = entry.container.execution_type
    assert results == {"auto": G, "manual": O}


@pytest.mark.parametrize(("field", "value"), [("num_containers", 0), ("duration_ms", 0)])
def test_distributed_shell_rejects_bad_arguments(field: str, value: int) -> None:
    """The distributed-shell AM refuses a non-positive container count or duration, naming the field."""
    kwargs: dict[str, Any] = {"name": "bad", "num_containers": 1, "duration_ms": 1_000, field: value}
    with pytest.raises(ValueError, match=field):
        DistributedShellAppMaster(**kwargs)


def test_finished_attempts_leave_no_opportunistic_bookkeeping() -> None:
    """When applications finish, no completion or update lists are kept for their attempts."""
    c = cluster(ENABLED)
    dshell(c, 8, O, duration_ms=2_000, promote_after_ms=500)
    c.run()
    opp = c.rm.opportunistic
    assert opp is not None
    assert opp.completed == {} and opp.updated == {} and opp.contexts == {}
