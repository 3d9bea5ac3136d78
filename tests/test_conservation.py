"""Container conservation: every container a run allocates ends completed, killed, preempted or lost.

Checked with ``yarnball.testing.assert_containers_conserved`` over the sample traces (examples/traces and Hadoop's
SLS inputs in /work/shared/data/sls) under preemption, opportunistic containers (centralized and distributed),
container packing and node loss (alone and with opportunistic containers). The opportunistic runs carry two extra
applications that give back the OPPORTUNISTIC containers they do not need (``SurplusAppMaster``): the release path of
the RM's opportunistic allocator, which once raised and left those containers RUNNING after their application
finished.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from yarnball import Cluster
from yarnball.actors import DistributedShellAppMaster
from yarnball.launcher._simulate import load_configuration as _load_configuration
from yarnball.launcher.workloads import TraceDefaults, Workload, WorkloadBuilder, load_workload
from yarnball.policies.scheduler import FAIR_SCHEDULER, scheduler_class
from yarnball.protocols import (
    Configuration,
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerStatus,
    ExecutionType,
    FinalApplicationStatus,
    NodeId,
    Priority,
    RegisterApplicationMasterResponse,
    Resource,
    keys,
)
from yarnball.testing import assert_containers_conserved, conservation_violations, container_ledger

ROOT = Path(__file__).resolve().parent.parent
SLS_DATA = Path("/work/shared/data/sls")
needs_sls_data = pytest.mark.skipif(not SLS_DATA.is_dir(), reason="Hadoop's SLS sample inputs are not on this machine")

OPPORTUNISTIC = {
    keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
    keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
    keys.MR_NUM_OPPORTUNISTIC_MAPS_PERCENT: "100",
}
PREEMPTION = {
    keys.RM_SCHEDULER_ENABLE_MONITORS: "true",
    keys.PREEMPTION_MONITORING_INTERVAL: "1000",
    keys.PREEMPTION_WAIT_TIME_BEFORE_KILL: "2000",
    keys.PREEMPTION_NATURAL_TERMINATION_FACTOR: "1.0",
}
#: The FairScheduler's own preemption (FSPreemptionThread), for a configuration directory that selects it: the
#: CapacityScheduler's monitor refuses any other scheduler, as Hadoop's does. The starvation timeouts are the
#: allocation file's (SLS's sample: minSharePreemptionTimeout 2 s per queue); marked containers are killed after 2 s.
FAIR_PREEMPTION = {
    keys.PREEMPTION: "true",
    keys.WAIT_TIME_BEFORE_KILL: "2000",
}
TWO_QUEUES = {
    "yarn.scheduler.capacity.root.queues": "a,b",
    "yarn.scheduler.capacity.root.a.capacity": "50",
    "yarn.scheduler.capacity.root.b.capacity": "50",
    "yarn.scheduler.capacity.root.a.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.b.maximum-capacity": "100",
    "yarn.scheduler.capacity.maximum-am-resource-percent": "0.5",
    "yarn.scheduler.capacity.root.a.user-limit-factor": "2",
    "yarn.scheduler.capacity.root.b.user-limit-factor": "2",
}
SETTINGS: dict[str, dict[str, str]] = {
    "preemption": PREEMPTION,
    "opportunistic-centralized": OPPORTUNISTIC,
    "opportunistic-distributed": {**OPPORTUNISTIC, keys.DIST_SCHEDULING_ENABLED: "true"},
    "packing": {
        keys.CONTINUOUS_SCHEDULING_ENABLED: "true",
        keys.CONTINUOUS_SCHEDULING_PACKED: "true",
    },
    "node-loss": {},
    "opportunistic-centralized+node-loss": OPPORTUNISTIC,
    "opportunistic-distributed+node-loss": {**OPPORTUNISTIC, keys.DIST_SCHEDULING_ENABLED: "true"},
}
#: (trace type, trace, nodes file, configuration directory)
TRACES: dict[str, tuple[str, Path, Path | None, Path | None]] = {
    "sample-sls": ("SLS", ROOT / "examples/traces/sample-sls.json", ROOT / "examples/traces/sample-nodes.json", None),
    "inputsls": ("SLS", SLS_DATA / "inputsls.json", SLS_DATA / "nodes.json", SLS_DATA / "sample-conf"),
    "rumen-2jobs": ("RUMEN", SLS_DATA / "2jobs2min-rumen-jh.json", None, SLS_DATA / "sample-conf"),
    "syn": ("SYNTH", SLS_DATA / "syn.json", None, SLS_DATA / "sample-conf"),
}


class SurplusAppMaster(DistributedShellAppMaster):
    """Asks ``extra`` containers more than its ``num_containers`` tasks need and gives the surplus back: the ones
    allocated after its tasks all had one at once (never started), or, with ``start_surplus``, runs them as
    speculative attempts and releases them once every task succeeded (like MapReduce's speculative execution)."""

    def __init__(self, *, extra: int, start_surplus: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.extra = extra
        self.start_surplus = start_surplus
        self.speculative: list[Any] = []
        self.given_back: set[Any] = set()
        self.released = 0
        self.surplus_killed = 0  # speculative ones its node's ContainerScheduler killed before it could give them back

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        self.add_container_request(
            self.container_resource, 0, execution_type=self.container_type, count=self.num_containers + self.extra
        )

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for c in containers:
            if len(self.running) - len(self.speculative) + self.succeeded < self.num_containers:
                self.start_container(c, duration_ms=self.duration_ms)
            elif self.start_surplus:
                self.speculative.append(c.id)
                self.start_container(c, duration_ms=20 * self.duration_ms)
            else:
                self.release(c.id)
                self.given_back.add(c.id)
                self.released += 1

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        for s in statuses:
            if s.container_id in self.speculative:
                self.speculative.remove(s.container_id)  # killed by its node's ContainerScheduler
                self.surplus_killed += 1
            elif s.container_id in self.given_back:
                pass
            elif s.exit_status == ContainerExitStatus.SUCCESS:
                self.succeeded += 1
            else:  # a task's container killed (by a GUARANTEED one, say): ask again
                self.add_container_request(self.container_resource, 0, execution_type=self.container_type)
        if self.succeeded >= self.num_containers and not self.finished:
            for cid in self.speculative:
                self.release(cid)
                self.given_back.add(cid)
                self.released += 1
            self.speculative = []
            self.after(3_000, lambda: self.finish(FinalApplicationStatus.SUCCEEDED))


def _workload(trace: str, conf: Configuration) -> Workload:
    trace_type, path, nodes, _ = TRACES[trace]
    defaults = TraceDefaults.from_configuration(conf)
    return load_workload(trace_type, str(path), str(nodes) if nodes else None, defaults, 0)


def _configuration(trace: str, setting: str) -> Configuration:
    conf_dir = TRACES[trace][3]
    conf = _load_configuration(str(conf_dir)) if conf_dir is not None else Configuration()
    if setting == "preemption" and conf_dir is None:
        for key, value in TWO_QUEUES.items():
            conf.set(key, value)
    setting_keys = SETTINGS[setting]
    if setting == "preemption" and scheduler_class(conf) == FAIR_SCHEDULER:
        setting_keys = FAIR_PREEMPTION
    for key, value in setting_keys.items():
        conf.set(key, value)
    return conf


def run_scenario(trace: str, setting: str) -> Cluster:
    """Replay ``trace`` under ``setting`` until every application has finished (or 3 simulated hours)."""
    conf = _configuration(trace, setting)
    workload = _workload(trace, conf)
    if setting == "preemption" and TRACES[trace][3] is None:
        # The sample trace has one queue: its first half of jobs go to queue a, which fills the cluster, the second
        # half to b, which preempts a back to its guaranteed capacity.
        half = len(workload.jobs) // 2
        jobs = tuple(msgspec.structs.replace(j, queue="a" if i < half else "b") for i, j in enumerate(workload.jobs))
        # and run it on a quarter of the nodes, so that the queues compete.
        workload = msgspec.structs.replace(workload, jobs=jobs, nodes=workload.nodes[: len(workload.nodes) // 4])
    cluster = Cluster(conf, workload.nodes, seed=7)
    cluster.submit_workload(workload)
    if setting.startswith("opportunistic"):
        queue = next(iter(sorted({j.queue for j in workload.jobs})), "default")
        for start_surplus in (False, True):
            cluster.submit(
                SurplusAppMaster(
                    name=f"surplus-{start_surplus}",
                    queue=queue,
                    num_containers=3,
                    extra=3,
                    start_surplus=start_surplus,
                    container_type=ExecutionType.OPPORTUNISTIC,
                    duration_ms=4_000,
                    submit_at_ms=2_000,
                )
            )
    if setting.endswith("node-loss"):
        hosts = sorted(n.hostname for n in workload.nodes)
        cluster.fail_node(hosts[0], 5_000)
        if len(hosts) > 2:
            cluster.fail_node(hosts[len(hosts) // 2], 30_000)
    cluster.run(until_ms=3 * 3_600_000)
    return cluster


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize(
    "trace", ["sample-sls", *(pytest.param(t, marks=needs_sls_data) for t in ("inputsls", "rumen-2jobs", "syn"))]
)
def test_every_allocated_container_ends(trace: str, setting: str) -> None:
    """Every container allocated in the run ends completed, killed, preempted or lost; every application finished."""
    cluster = run_scenario(trace, setting)
    ledger = assert_containers_conserved(cluster)
    assert ledger.allocated > 0 and ledger.live == 0
    assert not cluster.handler_failures, cluster.handler_failures.first
    if setting.endswith("node-loss") and trace == "sample-sls":
        assert cluster.counters.get("nodes_lost", 0) == 2 and ledger.lost > 0
    if setting == "preemption" and trace == "sample-sls":
        assert ledger.preempted > 0
    if setting.startswith("opportunistic"):
        surplus = [am for am in cluster.masters if isinstance(am, SurplusAppMaster)]
        # Each had its surplus and every surplus container ended: given back, or (a speculative one) killed by its
        # node's ContainerScheduler first, when GUARANTEED containers fill the nodes (a FairScheduler queue may take
        # the whole cluster).
        assert len(surplus) == 2 and all(am.released + am.surplus_killed > 0 for am in surplus)
        assert any(am.released > 0 for am in surplus)
        assert cluster.rm.opportunistic is not None and cluster.rm.opportunistic.counters["opportunistic_allocated"]


def _recording_opportunistic_am(
    *, num_containers: int, extra: int, start_surplus: bool, duration_ms: int
) -> tuple[SurplusAppMaster, list[ContainerStatus]]:
    """A SurplusAppMaster of OPPORTUNISTIC containers, and the list its completed containers' statuses go to."""
    am = SurplusAppMaster(
        name="s", num_containers=num_containers, extra=extra, start_surplus=start_surplus,
        container_type=ExecutionType.OPPORTUNISTIC, duration_ms=duration_ms,
    )
    seen: list[ContainerStatus] = []
    original = am.on_containers_completed

    def record(statuses: tuple[ContainerStatus, ...]) -> None:
        seen.extend(statuses)
        original(statuses)

    am.on_containers_completed = record  # type: ignore[method-assign]
    return am, seen


@pytest.mark.parametrize("distributed", [False, True])
@pytest.mark.parametrize("start_surplus", [False, True])
def test_released_opportunistic_containers_end_and_reach_the_am(distributed: bool, start_surplus: bool) -> None:
    """An AM's release of OPPORTUNISTIC containers (started or not) ends them at once, ABORTED, as Hadoop's
    releaseContainers does, and kills the started ones on their nodes; nothing is left RUNNING."""
    conf = {**OPPORTUNISTIC, keys.DIST_SCHEDULING_ENABLED: str(distributed).lower()}
    wl = WorkloadBuilder().nodes(4, memory_mb=4096, vcores=4).build()
    cluster = Cluster(conf, wl.nodes, seed=3)
    am, seen = _recording_opportunistic_am(num_containers=4, extra=3, start_surplus=start_surplus, duration_ms=5_000)
    cluster.submit(am)
    cluster.run(until_ms=600_000)
    assert am.released == 3 and not cluster.handler_failures
    released = [s for s in seen if s.exit_status == ContainerExitStatus.ABORTED]
    assert len(released) == 3 and {s.diagnostics for s in released} == {"Container released by application"}
    assert_containers_conserved(cluster)


def test_the_check_names_a_container_left_running() -> None:
    """A container still RUNNING on its node when the run ends is reported with its node and application."""
    wl = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build()
    cluster = Cluster({}, wl.nodes, seed=1)
    cluster.submit(DistributedShellAppMaster(name="long", num_containers=2, duration_ms=60_000))
    cluster.run(until_ms=20_000)
    problems = conservation_violations(cluster)
    assert any("not every application finished" in p for p in problems)
    assert any("is still RUNNING on" in p for p in problems)
    assert container_ledger(cluster).live == 3  # the AM container and its two tasks
    with pytest.raises(AssertionError, match="containers not conserved"):
        assert_containers_conserved(cluster)


def test_an_opportunistic_container_placed_on_a_removed_node_expires() -> None:
    """A container an NM's DistributedScheduler placed on a node the RM has removed since (its node list is from the
    last allocate) is never run nor reported by any NM: like Hadoop's ACQUIRED RMContainer it expires unlaunched
    after the container-allocation expiry interval, and its AM hears of it; nothing is left live."""
    conf = {
        **OPPORTUNISTIC,
        keys.DIST_SCHEDULING_ENABLED: "true",
        keys.RM_NM_EXPIRY_INTERVAL_MS: "10000",
        keys.RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS: "30000",
    }
    wl = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build()
    cluster = Cluster(conf, wl.nodes, seed=3)
    am, seen = _recording_opportunistic_am(num_containers=2, extra=0, start_surplus=False, duration_ms=100_000)
    cluster.submit(am)
    cluster.run(until_ms=5_000)
    attempt = next(iter(cluster.rm.attempts.values()))
    assert attempt.am_container is not None
    gone = next(n.hostname for n in wl.nodes if n.hostname != attempt.am_container.node_id.host)
    cluster.fail_node(gone, 6_000)
    cluster.run(until_ms=20_000)  # the RM removed it (10 s liveness)
    assert all(n.host != gone for n in cluster.rm.scheduler.nodes)
    attempt_id = attempt.attempt_id
    stranded = Container(
        id=ContainerId(attempt_id, (1 << 40) - 100), node_id=NodeId(gone, 0), resource=Resource(1024, 1),
        priority=Priority(0), execution_type=ExecutionType.OPPORTUNISTIC,
    )
    cluster.rm.opportunistic.record_remote_allocations(attempt_id, (stranded,))
    cluster.run(until_ms=600_000)
    expired = [s for s in seen if s.container_id == stranded.id]
    assert [s.exit_status for s in expired] == [ContainerExitStatus.ABORTED]
    assert "expired" in expired[0].diagnostics
    assert_containers_conserved(cluster)
