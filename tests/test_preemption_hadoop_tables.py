"""Hadoop's TestProportionalCapacityPreemptionPolicy int[][] tables, with Hadoop's expected event counts."""

from __future__ import annotations

from collections import Counter

import pytest

from yarnball.policies.preemption import (
    PreemptionEventType,
    ProportionalCapacityPreemptionPolicy,
    app_id,
    snapshot_from_hadoop_table,
)
from yarnball.policies.preemption._ideal import compute_ideal_allocation, leaf_queue_order
from yarnball.policies.preemption._policy import build_queue_tree

MARK = PreemptionEventType.MARK_CONTAINER_FOR_PREEMPTION
A, B, C, D, E, F = 0, 1, 2, 3, 4, 4  # the tests' appA..appF (appF is app 4 again: a quirk of the Java test)


def disabled(*paths: str) -> dict[str, object]:
    return {f"yarn.scheduler.capacity.{p}.disable_preemption": True for p in paths}


def enabled(*paths: str) -> dict[str, object]:
    return {f"yarn.scheduler.capacity.{p}.disable_preemption": False for p in paths}


def marks(q_data, **kw) -> Counter[int]:
    snap = snapshot_from_hadoop_table(q_data, **kw)
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snap, 0)
    by_id = {app_id(n): n for n in range(20)}
    return Counter(by_id[e.application_id] for e in rnd.events if e.type == MARK)


def all_events(q_data, **kw) -> int:
    snap = snapshot_from_hadoop_table(q_data, **kw)
    return len(ProportionalCapacityPreemptionPolicy().edit_schedule(snap, 0).events)


Q_IGNORE = [
    [100, 40, 40, 20], [100, 100, 100, 100], [100, 0, 60, 40], [0, 0, 0, 0],
    [0, 0, 0, 0], [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0],
]  # fmt: skip
Q_CYCLE = [
    [100, 40, 40, 20], [100, 100, 100, 100], [100, 0, 60, 40], [10, 10, 0, 0],
    [0, 0, 0, 0], [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0],
]  # fmt: skip
Q_PROPORTIONAL = [
    [100, 10, 40, 20, 30], [100, 100, 100, 100, 100], [100, 30, 60, 10, 0], [45, 20, 5, 20, 0],
    [0, 0, 0, 0, 0], [3, 1, 1, 1, 0], [-1, 1, 1, 1, 1], [4, 0, 0, 0, 0],
]  # fmt: skip
Q_MAXCAP = [
    [100, 40, 40, 20], [100, 100, 45, 100], [100, 55, 45, 0], [20, 10, 10, 0],
    [0, 0, 0, 0], [2, 1, 1, 0], [-1, 1, 1, 0], [3, 0, 0, 0],
]  # fmt: skip
Q_DEADZONE = [
    [100, 40, 40, 20], [100, 100, 100, 100], [100, 39, 43, 21], [10, 10, 0, 0],
    [0, 0, 0, 0], [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0],
]  # fmt: skip
Q_PER_QUEUE_DISABLE = [
    [100, 55, 25, 20], [100, 100, 100, 100], [100, 0, 54, 46], [10, 10, 0, 0],
    [0, 0, 0, 0], [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0],
]  # fmt: skip
Q_HIERARCHICAL = [
    [200, 100, 50, 50, 100, 10, 90], [200] * 7, [200, 110, 60, 50, 90, 90, 0], [10, 0, 0, 0, 10, 0, 10],
    [0] * 7, [4, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1], [2, 2, 0, 0, 2, 0, 0],
]  # fmt: skip
Q_HIERARCHICAL_RESERVED = [
    [200, 100, 50, 50, 100, 10, 90], [200] * 7, [200, 110, 60, 50, 90, 90, 0], [10, 0, 0, 0, 10, 0, 10],
    [40, 25, 15, 10, 15, 15, 0], [4, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1], [2, 2, 0, 0, 2, 0, 0],
]  # fmt: skip
Q_BROAD = [
    [1000, 350, 150, 200, 400, 200, 200, 250, 100, 150], [1000] * 10,
    [1000, 400, 200, 200, 400, 250, 150, 200, 150, 50], [50, 0, 0, 0, 50, 0, 50, 0, 0, 0], [0] * 10,
    [6, 2, 1, 1, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1, -1, 1, 1], [3, 2, 0, 0, 2, 0, 0, 2, 0, 0],
]  # fmt: skip
Q_INHERIT = [
    [1000, 500, 200, 200, 100, 500, 200, 200, 100], [1000] * 9,
    [1000, 700, 0, 350, 350, 300, 0, 200, 100], [200, 0, 0, 0, 0, 200, 200, 0, 0], [0] * 9,
    [5, 2, 0, 1, 1, 3, 1, 1, 1], [-1, -1, 1, 1, 1, -1, 1, 1, 1], [2, 3, 0, 0, 0, 3, 0, 0, 0],
]  # fmt: skip
Q_NOT_ALL_UNTOUCHABLE = [
    [2000, 1000, 800, 100, 100, 1000, 500, 300, 200], [2000] * 9,
    [2000, 1300, 300, 800, 200, 700, 500, 0, 200], [300, 0, 0, 0, 0, 300, 0, 300, 0], [0] * 9,
    [6, 3, 1, 1, 1, 3, 1, 1, 1], [-1, -1, 1, 1, 1, -1, 1, 1, 1], [2, 3, 0, 0, 0, 3, 0, 0, 0],
]  # fmt: skip
Q_ROOT_DISABLES_ALL = [
    [1000, 500, 250, 250, 250, 100, 150, 250, 100, 150], [1000] * 10,
    [1000, 20, 0, 20, 490, 240, 250, 490, 240, 250], [200, 200, 200, 0, 0, 0, 0, 0, 0, 0], [0] * 10,
    [6, 2, 1, 1, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1, -1, 1, 1], [3, 2, 0, 0, 2, 0, 0, 2, 0, 0],
]  # fmt: skip
Q_OVER_ABS_MAX = [
    [1000, 725, 360, 365, 275, 17, 258], [1000, 1000, 1000, 1000, 550, 109, 1000],
    [1000, 741, 396, 345, 259, 110, 149], [40, 20, 0, 20, 20, 20, 0], [0] * 7,
    [4, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1], [2, 2, 0, 0, 2, 0, 0],
]  # fmt: skip
Q_OVER_CAPACITY_IMBALANCE = [
    [100, 40, 40, 20], [100, 100, 100, 100], [100, 55, 45, 0], [20, 10, 10, 0],
    [0, 0, 0, 0], [2, 1, 1, 0], [-1, 1, 1, 0], [3, 0, 0, 0],
]  # fmt: skip
Q_OBSERVE = [
    [100, 40, 40, 20], [100, 100, 100, 100], [100, 90, 10, 0], [80, 10, 20, 50],
    [0, 0, 0, 0], [2, 1, 1, 0], [-1, 1, 1, 0], [3, 0, 0, 0],
]  # fmt: skip
Q_ZERO_GUAR = [
    [200, 100, 0, 99, 100, 10, 90], [200] * 7, [170, 80, 60, 20, 90, 90, 0], [10, 0, 0, 0, 10, 0, 10],
    [0] * 7, [4, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1], [2, 2, 0, 0, 2, 0, 0],
]  # fmt: skip
Q_ZERO_GUAR_OVER_CAP = [
    [200, 100, 0, 100, 0, 100, 100], [200] * 7, [170, 170, 60, 20, 90, 0, 0], [85, 50, 30, 10, 10, 20, 20],
    [0] * 7, [4, 3, 1, 1, 1, 1, 1], [-1, -1, 1, 1, 1, -1, 1], [2, 3, 0, 0, 0, 1, 0],
]  # fmt: skip
Q_LARGE = [
    [400, 200, 60, 140, 100, 70, 30, 100, 10, 90], [400] * 10,
    [400, 210, 70, 140, 100, 50, 50, 90, 90, 0], [15, 0, 0, 0, 0, 0, 0, 0, 0, 15], [0] * 10,
    [6, 2, 1, 1, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1, -1, 1, 1], [3, 2, 0, 0, 2, 0, 0, 2, 0, 0],
]  # fmt: skip
Q_SKIP_AM = [
    [100, 50, 50], [100, 100, 100], [100, 100, 0], [70, 20, 50], [0, 0, 0], [5, 4, 1], [-1, 1, 1], [2, 0, 0],
]  # fmt: skip
Q_SKIPPED_AM = [
    [100, 10, 90], [100, 100, 100], [100, 100, 0], [70, 20, 90], [0, 0, 0], [5, 4, 1], [-1, 5, 5], [2, 0, 0],
]  # fmt: skip
Q_LARGE_3 = [
    [400, 200, 60, 140, 100, 40, 100, 70, 30, 100, 10, 90], [400] * 12,
    [400, 210, 60, 150, 100, 50, 100, 50, 50, 90, 10, 80], [10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10],
    [0] * 12, [7, 3, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1], [-1, -1, 1, -1, 1, 1, -1, 1, 1, -1, 1, 1],
    [3, 2, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0],
]  # fmt: skip
Q_LARGE_3_RESERVED = [*Q_LARGE_3[:4], [50, 30, 20, 10, 5, 5, 0, 0, 0, 10, 10, 0], *Q_LARGE_3[5:]]
Q_SINGLE_RESERVED = [
    [100, 40, 40, 20], [100, 100, 100, 100], [100, 70, 0, 0], [10, 30, 0, 0],
    [0, 50, 0, 0], [1, 1, 0, 0], [-1, 1, 1, 1], [3, 0, 0, 0],
]  # fmt: skip


def test_ignore():
    """testIgnore: imbalances without demand are not corrected."""
    assert all_events(Q_IGNORE) == 0


def test_proportional_preemption():
    """testProportionalPreemption: 10 containers from appA (trunk, with the YARN-5864 leaf cap)."""
    assert marks(Q_PROPORTIONAL) == {A: 10}


def test_max_cap():
    """testMaxCap: B is at its maximum capacity, so A's excess is not taken for it."""
    assert marks(Q_MAXCAP)[A] == 0


def test_preempt_cycle():
    """testPreemptCycle: all of A's pending is taken from C, the most over its guarantee."""
    assert marks(Q_CYCLE) == {C: 10}


def test_deadzone():
    """testDeadzone: 43 <= trunc(40 x 1.1) and 21 <= 22, so nothing is preempted."""
    cfg = {"yarn.resourcemanager.monitor.capacity.preemption.max_ignored_over_capacity": 0.1}
    assert all_events(Q_DEADZONE, config=cfg) == 0


def test_per_queue_disable_preemption():
    """testPerQueueDisablePreemption#1: queueB is not preemptable, so everything comes from queueC."""
    assert marks(Q_PER_QUEUE_DISABLE, config=disabled("root.queueB")) == {C: 10}


def test_per_queue_disable_preemption_off():
    """testPerQueueDisablePreemption#2: with queueB preemptable, 4 from B and 6 from C."""
    assert marks(Q_PER_QUEUE_DISABLE, config=enabled("root.queueB")) == {B: 4, C: 6}


def test_hierarchical_disable_1():
    """testPerQueueDisablePreemptionHierarchical#1: taken from queueB (appA), whose parent is over."""
    assert marks(Q_HIERARCHICAL) == {A: 10}


def test_hierarchical_disable_2():
    """testPerQueueDisablePreemptionHierarchical#2: queueB disabled, so queueE (appC) gives instead."""
    assert marks(Q_HIERARCHICAL, config=disabled("root.queueA.queueB")) == {C: 10}


def test_broad_hierarchical_1():
    """testPerQueueDisablePreemptionBroadHierarchical#1: 27 from appA and 23 from appC."""
    assert marks(Q_BROAD) == {A: 27, C: 23}


def test_broad_hierarchical_2():
    """testPerQueueDisablePreemptionBroadHierarchical#2: queueB disabled, all 50 from appC."""
    assert marks(Q_BROAD, config=disabled("root.queueA.queueB")) == {C: 50}


def test_broad_hierarchical_3():
    """testPerQueueDisablePreemptionBroadHierarchical#3: queueE and queueB disabled, the request starves."""
    assert marks(Q_BROAD, config=disabled("root.queueD.queueE", "root.queueA.queueB")) == {}


def test_inherit_parent_1():
    """testPerQueueDisablePreemptionInheritParent#1: 17 from appA and 183 from appB."""
    assert marks(Q_INHERIT) == {A: 17, B: 183}


def test_inherit_parent_2():
    """testPerQueueDisablePreemptionInheritParent#2: queueA disabled, its children inherit it."""
    assert marks(Q_INHERIT, config=disabled("root.queueA")) == {}


def test_not_all_untouchable():
    """testPerQueuePreemptionNotAllUntouchable: queueC untouchable, 100 from queueD (appC)."""
    assert marks(Q_NOT_ALL_UNTOUCHABLE, config=disabled("root.queueA.queueC")) == {C: 100}


def test_root_disables_all():
    """testPerQueueDisablePreemptionRootDisablesAll: disabling root disables every queue."""
    assert all_events(Q_ROOT_DISABLES_ALL, config=disabled("root")) == 0


def test_over_abs_max_capacity():
    """testPerQueueDisablePreemptionOverAbsMaxCapacity: queueE inherits queueD's disable, appC is safe."""
    assert marks(Q_OVER_ABS_MAX, config=disabled("root.queueD"))[C] == 0


def test_over_capacity_imbalance():
    """testOverCapacityImbalance: queues above their guarantee do not preempt from each other."""
    assert marks(Q_OVER_CAPACITY_IMBALANCE)[A] == 0


def test_natural_termination_table():
    """testNaturalTermination: factor 0.1 leaves nothing to preempt."""
    cfg = {"yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor": 0.1}
    assert all_events(Q_OVER_CAPACITY_IMBALANCE, config=cfg) == 0


def test_observe_only_table():
    """testObserveOnly: even a severe imbalance sends no event."""
    cfg = {"yarn.resourcemanager.monitor.capacity.preemption.observe_only": True}
    assert all_events(Q_OBSERVE, config=cfg) == 0


def test_hierarchical():
    """testHierarchical: from queueB (appA), not from queueE far over its guarantee."""
    assert marks(Q_HIERARCHICAL) == {A: 10}


def test_hierarchical_with_reserved():
    """testHierarchicalWithReserved: the same with reservations."""
    assert marks(Q_HIERARCHICAL_RESERVED)[A] == 10


def test_zero_guar():
    """testZeroGuar: nothing from appA."""
    assert marks(Q_ZERO_GUAR)[A] == 0


def test_zero_guar_over_cap():
    """testZeroGuarOverCap: zero-guarantee queues never preempt from each other."""
    counts = marks(Q_ZERO_GUAR_OVER_CAP)
    assert [counts[x] for x in (A, B, C, D)] == [0, 0, 0, 0]


def test_hierarchical_large():
    """testHierarchicalLarge: 9 from appA (G drops out on a rounded-down share) and 6 from appE."""
    counts = marks(Q_LARGE)
    assert (counts[A], counts[E]) == (9, 6)


def test_skip_am_container():
    """testSkipAMContainer: 24 each from appD and appC, AMs kept, then 2 from appB."""
    counts = marks(Q_SKIP_AM, am_containers=True)
    assert (counts[D], counts[C], counts[B]) == (24, 24, 2)


def test_preempt_skipped_am_containers():
    """testPreemptSkippedAMContainers: AMs of appD and appC go last, 5/5/4/4."""
    counts = marks(Q_SKIPPED_AM, am_containers=True)
    assert (counts[D], counts[C], counts[B], counts[A]) == (5, 5, 4, 4)


def test_am_resource_percent_for_skipped_am_containers():
    """testAMResourcePercentForSkippedAMContainers: with a 0.5 AM allowance the counts are the same."""
    counts = marks(Q_SKIPPED_AM, am_containers=True, am_resource_percent=0.5)
    assert (counts[D], counts[C], counts[B], counts[A]) == (5, 5, 4, 4)


def test_hierarchical_large_3_levels():
    """testHierarchicalLarge3Levels: 9 from appC."""
    assert marks(Q_LARGE_3)[C] == 9


def test_hierarchical_large_3_levels_extras():
    """testHierarchicalLarge3Levels: queueE's preemptable extra is 10; queueA's is its whole excess."""
    snap = snapshot_from_hadoop_table(Q_LARGE_3)
    root, queues, _ = build_queue_tree(snap, snap.config)
    compute_ideal_allocation(
        root, leaf_queue_order(root), (400, 400), max_ignored_over_capacity=0.1, natural_termination_factor=1.0
    )
    by = {q.path: q for q in queues}
    assert by["root.queueA.queueC.queueE"].preemptable_extra[0] == 10
    qa = by["root.queueA"]
    assert qa.untouchable_extra[0] == 0
    assert qa.preemptable_extra[0] == qa.used[0] - qa.guaranteed[0]


def test_hierarchical_large_3_levels_with_reserved():
    """testHierarchicalLarge3LevelsWithReserved: still 9 from appC (YARN-6081: pending minus reserved)."""
    assert marks(Q_LARGE_3_RESERVED)[C] == 9


def test_preemption_not_happen_for_single_reserved_queue():
    """testPreemptionNotHappenForSingleReservedQueue: reserved > pending, nothing is preempted."""
    assert marks(Q_SINGLE_RESERVED)[A] == 0


@pytest.mark.parametrize(
    ("q_data", "cfg"),
    [(Q_BROAD, {}), (Q_INHERIT, {}), (Q_LARGE, {}), (Q_HIERARCHICAL, {})],
)
def test_no_container_selected_twice(q_data, cfg):
    """Every container appears at most once among a round's candidates."""
    snap = snapshot_from_hadoop_table(q_data, config=cfg)
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snap, 0)
    ids = [c.container_id for c in rnd.candidates]
    assert len(ids) == len(set(ids))
