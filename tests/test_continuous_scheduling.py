"""Placement-ordered scheduling in the CapacityScheduler: continuous scheduling, packing on heartbeats, locality."""

from __future__ import annotations

from collections import Counter

from test_capacity_scheduler_helpers import GB, add_node, ask, attempt_id, heartbeat, make_scheduler, node, submit

from yarnball import Cluster
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.policies.capacity import ContainerAllocated
from yarnball.protocols import ContainerExitStatus, ContainerState, ContainerStatus
from yarnball.protocols import keys as k

PACKED = {
    k.CONTINUOUS_SCHEDULING_PACKED: "true",
    k.CONTINUOUS_SCHEDULING_PACKED_HIGH_MEMORY_THRESHOLD: 80,
    "yarn.scheduler.capacity.maximum-am-resource-percent": 1.0,
}
CONTINUOUS = {k.CONTINUOUS_SCHEDULING_ENABLED: "true"}


def _scheduler(n: int = 10, **extra: object):
    cs = make_scheduler(**extra)
    nids = [add_node(cs, i, mem=10 * GB, vcores=10) for i in range(n)]
    submit(cs, 1, am_mb=None)
    return cs, nids


def _hosts(notes) -> Counter[str]:
    return Counter(n.container.node_id.host for n in notes if isinstance(n, ContainerAllocated))


def test_packing_attempt_fills_nodes_to_the_threshold() -> None:
    """A packing attempt puts 20 containers on three nodes: 8, 8 and 4 (threshold 80%)."""
    cs, _ = _scheduler(**PACKED, **CONTINUOUS)
    cs.allocate(attempt_id(1), [ask(GB, 20)], [])
    counts = _hosts(cs.continuous_scheduling_attempt())
    assert sorted(counts.values(), reverse=True) == [8, 8, 4]


def test_spread_attempt_spreads_evenly() -> None:
    """A spread continuous-scheduling attempt puts 2 of 20 containers on each of 10 nodes."""
    cs, _ = _scheduler(**CONTINUOUS)
    cs.allocate(attempt_id(1), [ask(GB, 20)], [])
    counts = _hosts(cs.continuous_scheduling_attempt())
    assert sorted(counts.values()) == [2] * 10


def test_packing_fills_medium_node_before_empty_ones() -> None:
    """A partly used node is filled before any empty node is touched."""
    cs, _ = _scheduler(**PACKED, **CONTINUOUS)
    cs.allocate(attempt_id(1), [ask(GB, 3)], [])
    first = _hosts(cs.continuous_scheduling_attempt())
    (host,) = first
    cs.allocate(attempt_id(1), [ask(GB, 2)], [])
    assert _hosts(cs.continuous_scheduling_attempt()) == {host: 2}


LOCALITY = {
    "yarn.scheduler.capacity.node-locality-delay": 40,
    "yarn.scheduler.capacity.rack-locality-additional-delay": 1,
}


def test_packing_respects_node_locality() -> None:
    """Under delay scheduling a request for a host lands on it, though a MEDIUM node is offered first."""
    cs, nids = _scheduler(**PACKED, **CONTINUOUS, **LOCALITY)
    cs.allocate(attempt_id(1), [ask(GB, 2)], [])
    (busy,) = _hosts(cs.continuous_scheduling_attempt())
    target = next(n.host for n in nids if n.host != busy)
    cs.allocate(attempt_id(1), [ask(GB, 1, 2, name=target), ask(GB, 1, 2, name="/default-rack"), ask(GB, 1, 2)], [])
    assert _hosts(cs.continuous_scheduling_attempt()) == {target: 1}


def test_packing_never_breaks_strict_locality() -> None:
    """A request that must not relax (relax_locality false) is placed on its host only."""
    cs, nids = _scheduler(**PACKED, **CONTINUOUS)
    cs.allocate(attempt_id(1), [ask(GB, 2)], [])
    (busy,) = _hosts(cs.continuous_scheduling_attempt())
    target = next(n.host for n in nids if n.host != busy)
    strict = [ask(GB, 3, 2, name=target), ask(GB, 3, 2, name="/default-rack", relax=False), ask(GB, 3, 2, relax=False)]
    cs.allocate(attempt_id(1), strict, [])
    assert _hosts(cs.continuous_scheduling_attempt()) == {target: 3}


def test_packing_on_heartbeat_places_on_the_packed_node() -> None:
    """With packing and no continuous scheduling, another node's heartbeat places on the MEDIUM node."""
    cs, nids = _scheduler(**PACKED)
    cs.allocate(attempt_id(1), [ask(GB, 1)], [])
    (packed,) = {a.container.node_id for a in heartbeat(cs, nids[0])}
    other = next(n for n in nids if n != packed)
    cs.allocate(attempt_id(1), [ask(GB, 2, 2)], [])
    assert [a.container.node_id for a in heartbeat(cs, other)] == [packed, packed]


def test_default_heartbeat_allocates_on_the_heartbeating_node() -> None:
    """By default a heartbeat allocates on its own node (the spread behaviour)."""
    cs, nids = _scheduler()
    cs.allocate(attempt_id(1), [ask(GB, 1)], [])
    heartbeat(cs, nids[0])
    cs.allocate(attempt_id(1), [ask(GB, 1, 2)], [])
    assert [a.container.node_id for a in heartbeat(cs, nids[5])] == [nids[5]]


def test_packing_off_below_min_nodes_on_heartbeat() -> None:
    """Below min.nodes (default 5) a packing scheduler allocates on the heartbeating node, like spread."""
    cs, nids = _scheduler(n=3, **PACKED)
    assert not cs.packing_active
    cs.allocate(attempt_id(1), [ask(GB, 1)], [])
    heartbeat(cs, nids[0])
    cs.allocate(attempt_id(1), [ask(GB, 1, 2)], [])
    assert [a.container.node_id for a in heartbeat(cs, nids[2])] == [nids[2]]


def test_continuous_heartbeat_schedules_only_after_completions() -> None:
    """With continuous scheduling (spread), a heartbeat schedules on its node only when containers completed."""
    cs, _ = _scheduler(**CONTINUOUS)
    cs.allocate(attempt_id(1), [ask(GB, 1)], [])
    first = cs.continuous_scheduling_attempt()
    cid = next(n.container.id for n in first if isinstance(n, ContainerAllocated))
    cs.allocate(attempt_id(1), [ask(GB, 1, 2)], [])
    assert heartbeat(cs, node(3)) == []
    done = ContainerStatus(container_id=cid, state=ContainerState.COMPLETE, exit_status=ContainerExitStatus.SUCCESS)
    owner = next(n.container.node_id for n in first if isinstance(n, ContainerAllocated))
    assert [a.container.node_id for a in heartbeat(cs, owner, completed=(done,))] == [owner]


def _cluster_run(extra: dict[str, object]) -> Cluster:
    wl = WorkloadBuilder().nodes(6, memory_mb=10 * GB, vcores=10).job("j", tasks=[task_spec(8, 20_000)]).build()
    conf = {"yarn.scheduler.capacity.maximum-am-resource-percent": "1.0", **extra}
    cluster = Cluster(conf, wl.nodes, seed=3)
    cluster.submit_workload(wl)
    cluster.run(until_ms=600_000)
    return cluster


def test_cluster_runs_continuous_scheduling_on_a_timer() -> None:
    """With continuous scheduling enabled the RM runs attempts on a timer and the job finishes."""
    cluster = _cluster_run({**CONTINUOUS, k.CONTINUOUS_SCHEDULING_SLEEP_MS: 100})
    assert cluster.rm.op_counts["continuous_scheduling"] > 100
    assert [a.state.value for a in cluster.applications] == ["FINISHED"]


def test_cluster_packs_a_job_on_few_nodes() -> None:
    """In a real run, packing (min.nodes 1) puts the AM and 8 tasks on two nodes; spread uses more."""
    packed = _cluster_run({**PACKED, k.CONTINUOUS_SCHEDULING_PACKED_MIN_NODES: 1})
    spread = _cluster_run({})
    assert len(packed.rm.apps[next(iter(packed.rm.apps))].nodes) == 2
    assert len(spread.rm.apps[next(iter(spread.rm.apps))].nodes) > 2
