"""Pure opportunistic policies: NodeQueueLoadMonitor, QueueLimitCalculator, the allocators, NM orderings."""

from __future__ import annotations

import random

import pytest

from yarnball.errors import ConfigurationError
from yarnball.policies.opportunistic import (
    CentralizedOpportunisticContainerAllocator,
    DistributedOpportunisticContainerAllocator,
    KillPolicy,
    LoadComparator,
    NodeQueueLoadMonitor,
    OpportunisticContainerContext,
    QueuedInfo,
    QueueLimitCalculator,
    QueueOrderPolicy,
    RunningInfo,
    normalize,
    order_queue,
    partition_asks,
    select_victims,
)
from yarnball.protocols import (
    ExecutionType,
    ExecutionTypeRequest,
    NodeId,
    OpportunisticContainersStatus,
    Priority,
    Resource,
    ResourceRequest,
)

OPP = ExecutionTypeRequest(execution_type=ExecutionType.OPPORTUNISTIC)


def status(queue: int, capacity: int = 10, wait: int = 0) -> OpportunisticContainersStatus:
    return OpportunisticContainersStatus(
        wait_queue_length=queue, opport_queue_capacity=capacity, estimated_queue_wait_time=wait
    )


def monitor(
    loads: dict[str, int],
    *,
    capacity: int = 10,
    nodes_used: int = 10,
    comparator: LoadComparator = LoadComparator.QUEUE_LENGTH,
) -> NodeQueueLoadMonitor:
    m = NodeQueueLoadMonitor(comparator, nodes_used, random.Random(1))
    for i, (host, q) in enumerate(loads.items()):
        m.add_node(NodeId(host), f"/rack{i % 2}")
        m.update_node(NodeId(host), status(q, capacity), now=float(i))
    m.sort()
    return m


def ask(n: int, name: str = "*", mem: int = 1024, prio: int = 1) -> ResourceRequest:
    return ResourceRequest(
        priority=Priority(prio),
        capability=Resource(mem, 1),
        resource_name=name,
        num_containers=n,
        execution_type_request=OPP,
    )


def same(r: Resource) -> Resource:
    return r


# -- NodeQueueLoadMonitor ---------------------------------------------------------------------------------------------
def test_monitor_sorts_least_loaded_first() -> None:
    """Nodes are sorted by queue length, least loaded first."""
    m = monitor({"a": 5, "b": 1, "c": 3})
    assert [n.host for n in m.select_least_loaded_nodes(3)] == ["b", "c", "a"]


def test_monitor_ties_prefer_recently_updated_node() -> None:
    """Equal loads: the node updated most recently comes first (Hadoop's timestamp tie-break)."""
    m = monitor({"a": 2, "b": 2})
    assert [n.host for n in m.sorted_nodes] == ["b", "a"]


def test_monitor_excludes_full_nodes() -> None:
    """A node whose queue is at its capacity is left out of the sorted list; capacity 0 stays in."""
    m = NodeQueueLoadMonitor(LoadComparator.QUEUE_LENGTH, 10, random.Random(1))
    for host, q, cap in (("full", 4, 4), ("ok", 1, 4), ("zero", 3, 0)):
        m.add_node(NodeId(host), "/r")
        m.update_node(NodeId(host), status(q, cap), 0.0)
    m.sort()
    assert {n.host for n in m.sorted_nodes} == {"ok", "zero"}


def test_monitor_node_eligible_only_after_first_status() -> None:
    """NODE_ADDED alone does not make a node selectable."""
    m = NodeQueueLoadMonitor(LoadComparator.QUEUE_LENGTH, 10, random.Random(1))
    m.add_node(NodeId("a"), "/r")
    m.sort()
    assert m.sorted_nodes == []


def test_monitor_queue_capacity_set_only_on_insert() -> None:
    """Hadoop quirk: a later heartbeat does not change a node's queue capacity."""
    m = monitor({"a": 0}, capacity=3)
    m.update_node(NodeId("a"), status(0, 50), 5.0)
    assert m.cluster_nodes[NodeId("a")].queue_capacity == 3


def test_monitor_wait_time_comparator_drops_nodes_reporting_minus_one() -> None:
    """Under QUEUE_WAIT_TIME a node reporting wait time -1 is not eligible."""
    m = NodeQueueLoadMonitor(LoadComparator.QUEUE_WAIT_TIME, 10, random.Random(1))
    m.add_node(NodeId("a"), "/r")
    m.update_node(NodeId("a"), status(0, wait=-1), 0.0)
    assert m.cluster_nodes == {}


def test_monitor_nodes_used_limits_the_candidates() -> None:
    """select_any_node only picks among the nodes-used least-loaded nodes."""
    m = monitor({"a": 0, "b": 0, "c": 9, "d": 9}, nodes_used=2)
    picks = {m.select_any_node(()) for _ in range(8)}
    assert {n.host for n in picks if n} <= {"a", "b"}


def test_monitor_compare_and_increment_respects_capacity() -> None:
    """Each selection bumps the node's queue length; a node at capacity is not selected again."""
    m = monitor({"a": 0}, capacity=2)
    assert m.select_local_node("a", ()) is not None
    assert m.select_local_node("a", ()) is not None
    assert m.select_local_node("a", ()) is None


def test_monitor_blacklisted_host_never_selected() -> None:
    """Blacklisted hosts are skipped."""
    m = monitor({"a": 0, "b": 0})
    picks = {m.select_any_node(("a",)) for _ in range(5)}
    assert picks == {NodeId("b")}


def test_unknown_load_comparator_named_by_key() -> None:
    """An unknown comparator is a ConfigurationError naming the key."""
    with pytest.raises(ConfigurationError, match="load-comparator"):
        LoadComparator.parse("CPU")


# -- QueueLimitCalculator ---------------------------------------------------------------------------------------------
def test_queue_limit_is_mean_plus_k_stdev() -> None:
    """limit = (int)(mean + sigma * round(stdev)) with Java integer mean."""
    calc = QueueLimitCalculator(1.0, 0, 100)
    calc.update([2, 4, 6, 8])  # mean 5, stdev sqrt(5) = 2.236 -> 2
    assert (calc.mean, calc.stdev, calc.limit) == (5, 2, 7)


def test_queue_limit_clamped_to_min_and_max() -> None:
    """The threshold is clamped into [min, max]."""
    low = QueueLimitCalculator(1.0, 5, 15)
    low.update([0, 0, 0])
    high = QueueLimitCalculator(2.0, 5, 15)
    high.update([0, 40])
    assert (low.limit, high.limit) == (5, 15)


def test_queue_limit_keeps_stats_when_no_nodes() -> None:
    """An empty node list keeps the previous statistics."""
    calc = QueueLimitCalculator(1.0, 0, 100)
    calc.update([10, 10])
    calc.update([])
    assert calc.limit == 10


def test_queue_limit_min_above_max_rejected() -> None:
    """min > max is a configuration error naming the keys."""
    with pytest.raises(ConfigurationError, match="min-queue-length"):
        QueueLimitCalculator(1.0, 9, 3)


# -- allocation -------------------------------------------------------------------------------------------------------
def test_partition_asks_splits_by_execution_type() -> None:
    """OPPORTUNISTIC asks go one way, everything else the other."""
    g = ResourceRequest(priority=Priority(1), capability=Resource(1024, 1))
    guaranteed, opportunistic = partition_asks([g, ask(1)])
    assert guaranteed == [g] and len(opportunistic) == 1


def test_normalize_rounds_up_to_increment_within_bounds() -> None:
    """Capabilities are raised to the minimum, rounded up to the increment and capped at the maximum."""
    r = normalize(Resource(1500, 0), Resource(1024, 1), Resource(8192, 4), Resource(1024, 1))
    assert r == Resource(2048, 1)
    assert normalize(Resource(90000, 9), Resource(1024, 1), Resource(8192, 4), Resource(1024, 1)) == Resource(8192, 4)


def test_centralized_allocator_spreads_over_nodes_with_capacity() -> None:
    """Containers go to nodes with queue room; demand beyond every node's room stays outstanding."""
    m = monitor({"a": 0, "b": 0}, capacity=2)
    ctx = OpportunisticContainerContext()
    placed = CentralizedOpportunisticContainerAllocator(m, -1).allocate(ctx, [ask(6)], same)
    assert sorted(p.node_id.host for p in placed) == ["a", "a", "b", "b"]
    assert ctx.pending == 2
    m.cluster_nodes[NodeId("a")].queue_length = 0  # a heartbeat frees room
    assert len(CentralizedOpportunisticContainerAllocator(m, -1).allocate(ctx, [], same)) == 2
    assert ctx.pending == 0


def test_centralized_allocator_prefers_requested_host() -> None:
    """A node-local ask lands on its host when that host has room."""
    m = monitor({"a": 0, "b": 0})
    ctx = OpportunisticContainerContext()
    placed = CentralizedOpportunisticContainerAllocator(m, -1).allocate(ctx, [ask(1), ask(1, "b")], same)
    assert [(p.node_id.host, p.location) for p in placed] == [("b", "b")]


def test_centralized_allocator_max_per_heartbeat() -> None:
    """max.container-allocation.per.am.heartbeat caps one call."""
    m = monitor({"a": 0, "b": 0, "c": 0})
    ctx = OpportunisticContainerContext()
    assert len(CentralizedOpportunisticContainerAllocator(m, 2).allocate(ctx, [ask(5)], same)) == 2
    assert ctx.pending == 3


def test_centralized_allocator_higher_priority_number_first() -> None:
    """Outstanding keys are served in descending order (highest priority number first), as Hadoop iterates."""
    m = monitor({"a": 0})
    ctx = OpportunisticContainerContext()
    placed = CentralizedOpportunisticContainerAllocator(m, 1).allocate(ctx, [ask(1, prio=1), ask(1, prio=5)], same)
    assert [p.priority.priority for p in placed] == [5]


def test_distributed_allocator_one_container_per_node_in_list_order() -> None:
    """The NM-side allocator places at most one container per node per call, head of the list first."""
    ctx = OpportunisticContainerContext()
    ctx.nodes = [(NodeId("x"), "/r"), (NodeId("y"), "/r")]
    placed = DistributedOpportunisticContainerAllocator(-1).allocate(ctx, [ask(3)], same)
    assert [p.node_id.host for p in placed] == ["x", "y"]
    assert ctx.pending == 1


def test_distributed_allocator_without_nodes_allocates_nothing() -> None:
    """An empty node list leaves every ask outstanding."""
    ctx = OpportunisticContainerContext()
    assert DistributedOpportunisticContainerAllocator(-1).allocate(ctx, [ask(2)], same) == []
    assert ctx.pending == 2


def test_zero_count_ask_withdraws_outstanding_demand() -> None:
    """An ANY ask with 0 containers cancels what was outstanding; like Hadoop's OpportunisticContainerContext the
    entry stays, at 0, so a later host ask alone allocates nothing."""
    ctx = OpportunisticContainerContext()
    ctx.add_to_outstanding([ask(3)])
    ctx.add_to_outstanding([ask(0)])
    assert ctx.pending == 0
    ctx.nodes = [(NodeId("x"), "/r")]
    assert DistributedOpportunisticContainerAllocator(-1).allocate(ctx, [ask(2, "x")], same) == []


# -- NM policies ------------------------------------------------------------------------------------------------------
def test_fifo_order_is_arrival_order() -> None:
    """FIFO keeps arrival order whatever the expected durations."""
    q = [QueuedInfo(2, 5.0), QueuedInfo(1, 50.0)]
    assert order_queue(QueueOrderPolicy.FIFO, q) == [1, 0]


def test_shortest_first_puts_unknown_durations_last() -> None:
    """SHORTEST_TASK_FIRST sorts by expected duration, unknown last, ties by arrival."""
    q = [QueuedInfo(1, None), QueuedInfo(2, 30.0), QueuedInfo(3, 10.0), QueuedInfo(4, 10.0)]
    assert order_queue(QueueOrderPolicy.SHORTEST_TASK_FIRST, q) == [2, 3, 1, 0]


def test_lifo_victims_newest_first_until_sufficient() -> None:
    """LIFO picks the most recently started containers until the need is covered."""
    c = [RunningInfo(1, 1024, 2150, 1), RunningInfo(2, 1024, 2150, 1), RunningInfo(3, 1024, 2150, 1)]
    assert select_victims(KillPolicy.LIFO, (1500, 0, 0), c) == [2, 1]


def test_fewest_kills_spares_container_near_completion() -> None:
    """Among single containers that suffice, FEWEST_KILLS kills the one furthest from completion."""
    c = [RunningInfo(1, 2048, 0, 1, remaining_ms=100.0), RunningInfo(2, 2048, 0, 1, remaining_ms=9000.0)]
    assert select_victims(KillPolicy.FEWEST_KILLS, (1024, 0, 0), c) == [1]


def test_no_victims_when_nothing_needed() -> None:
    """Nothing is killed when the need is already covered."""
    assert select_victims(KillPolicy.LIFO, (0, -5, 0), [RunningInfo(1, 1, 1, 1)]) == []
