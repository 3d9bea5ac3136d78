"""Distributed opportunistic allocation: the NM's AMRMProxy, its interceptor chain and the DistributedScheduler."""

from __future__ import annotations

from yarnball import Cluster
from yarnball.actors import DistributedShellAppMaster
from yarnball.actors._amrmproxy import DefaultRequestInterceptor, DistributedScheduler
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import ExecutionType, keys

DISTRIBUTED = {
    keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
    keys.DIST_SCHEDULING_ENABLED: "true",
    keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
}


def _run(conf: dict[str, str], until: float | None = None) -> tuple[Cluster, DistributedShellAppMaster]:
    wl = WorkloadBuilder().nodes(4, memory_mb=4096, vcores=4).build()
    c = Cluster(conf, wl.nodes, seed=5)
    am = DistributedShellAppMaster(
        name="ds", num_containers=12, container_type=ExecutionType.OPPORTUNISTIC, duration_ms=10_000
    )
    c.submit(am)
    g = DistributedShellAppMaster(
        name="g", num_containers=3, container_type=ExecutionType.GUARANTEED, duration_ms=3_000
    )
    c.submit(g)
    c.run(until_ms=until)
    return c, am


def test_every_nm_runs_an_amrmproxy_only_with_distributed_scheduling() -> None:
    """Distributed scheduling starts one AMRMProxy per NM; by default there is none."""
    on, _ = _run(DISTRIBUTED, until=1)
    off, _ = _run({}, until=1)
    assert all(nm.amrm_proxy is not None for nm in on.nodes)
    assert all(nm.amrm_proxy is None for nm in off.nodes)


def test_am_talks_to_the_proxy_of_its_node() -> None:
    """The AM's ApplicationMasterProtocol goes to the AMRMProxy of the node its container runs on."""
    _c, am = _run(DISTRIBUTED, until=5_000)
    assert am.am_container is not None
    assert am._amrm_id == f"amrmproxy-{am.am_container.node_id.host}"


def test_interceptor_chain_puts_distributed_scheduler_first() -> None:
    """The pipeline is DistributedScheduler -> DefaultRequestInterceptor."""
    c, am = _run(DISTRIBUTED, until=5_000)
    assert am.am_container is not None and am.attempt_id is not None
    proxy = c.node_managers[am.am_container.node_id.host].amrm_proxy
    assert proxy is not None
    head = proxy.pipelines[am.attempt_id]
    assert isinstance(head, DistributedScheduler) and isinstance(head.next, DefaultRequestInterceptor)


def test_opportunistic_asks_allocated_on_the_nm_and_guaranteed_forwarded() -> None:
    """OPPORTUNISTIC containers are made by the NM (ids counting down from 1 << 40); GUARANTEED come from the RM."""
    c, am = _run(DISTRIBUTED)
    assert am.succeeded == 12
    assert set(am.allocated_types) == {ExecutionType.OPPORTUNISTIC}
    made_by_nms = sum(nm.amrm_proxy.allocated for nm in c.nodes if nm.amrm_proxy is not None)
    assert made_by_nms >= 12
    assert c.rm.opportunistic is not None
    assert c.rm.opportunistic.counters["opportunistic_allocated"] == made_by_nms  # recorded by the RM
    assert c.rm.counters["containers_allocated"] == 3 + 2  # GUARANTEED tasks and the two AMs, by the scheduler


def test_node_list_comes_in_am_responses_not_heartbeats() -> None:
    """The DistributedScheduler's node list is the RM's least-loaded list, delivered through register/allocate."""
    c, am = _run(DISTRIBUTED, until=8_000)
    assert am.am_container is not None and am.attempt_id is not None
    proxy = c.node_managers[am.am_container.node_id.host].amrm_proxy
    assert proxy is not None
    ds = proxy.pipelines[am.attempt_id]
    assert isinstance(ds, DistributedScheduler)
    assert ds.context.nodes
    assert {n for n, _ in ds.context.nodes} <= set(c.rm.nodes)
    assert ds.next_container_id < 1 << 40


def test_amrmproxy_without_distributed_scheduling_only_forwards() -> None:
    """With the AMRMProxy on but distributed scheduling off, the chain only forwards and the RM allocates."""
    conf = {
        keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
        keys.AMRM_PROXY_ENABLED: "true",
        keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
    }
    c, am = _run(conf)
    assert am.succeeded == 12
    assert sum(nm.amrm_proxy.allocated for nm in c.nodes if nm.amrm_proxy is not None) == 0
    assert c.rm.opportunistic is not None and c.rm.opportunistic.counters["opportunistic_allocated"] >= 12
