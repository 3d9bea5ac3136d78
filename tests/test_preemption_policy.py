"""ProportionalCapacityPreemptionPolicy: worked examples, dead zone, natural termination, budget, settings."""

from __future__ import annotations

import pytest

from yarnball.errors import ConfigurationError
from yarnball.policies.preemption import (
    AppSnapshot,
    ClusterSnapshot,
    ContainerSnapshot,
    PreemptionEventType,
    PreemptionSettings,
    ProportionalCapacityPreemptionPolicy,
    QueueSnapshot,
    app_id,
    snapshot_from_hadoop_table,
)
from yarnball.protocols import Resource

P = "yarn.resourcemanager.monitor.capacity.preemption."
TEST_CONF = {P + "total_preemption_per_round": 1.0, P + "natural_termination_factor": 1.0}


def R(mb: int) -> Resource:
    return Resource(mb, mb)


def cluster(
    total: int, leaves: list[tuple[str, int, int, int]], *, config=None, apps=(), parents=None
) -> ClusterSnapshot:
    """root plus (path, guaranteed, used, pending) leaves; root's used is the sum of the leaves'."""
    queues = [QueueSnapshot(path="root", absolute_capacity=1.0, used=R(sum(u for _, _, u, _ in leaves)))]
    queues += parents or []
    for path, guar, used, pending in leaves:
        queues.append(
            QueueSnapshot(
                path=path, absolute_capacity=guar / total, guaranteed=R(guar), used=R(used), pending=R(pending)
            )
        )
    return ClusterSnapshot(cluster=R(total), config=dict(config or {}), queues=tuple(queues), applications=tuple(apps))


def by_path(rnd):
    return {q.path: q for q in rnd.queues}


E1 = [[100, 40, 40, 20], [100] * 4, [100, 0, 60, 40], [10, 10, 0, 0], [0] * 4,
      [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0]]  # fmt: skip


def test_e1_ideal_assignment():
    """E1 (testPreemptCycle): ideal A=10, B=60, C=30; C gives back 10."""
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snapshot_from_hadoop_table(E1))
    q = by_path(rnd)
    assert [q[p].ideal_assigned.memory_mb for p in ("root.queueA", "root.queueB", "root.queueC")] == [10, 60, 30]
    assert q["root.queueC"].actually_to_be_preempted.memory_mb == 10


def test_e1_newest_containers_first():
    """E1: the 10 newest containers of appC (ids 39..30) are the ones marked."""
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snapshot_from_hadoop_table(E1))
    assert [c.container_id for c in rnd.candidates] == [f"{app_id(2)}/c{i}" for i in range(39, 29, -1)]


def test_e1_with_hadoop_defaults_takes_two():
    """E1 with Hadoop's defaults (0.1 per round, NTF 0.2): C's target is round(10 x 0.2) = 2."""
    snap = snapshot_from_hadoop_table(E1, hadoop_setup=False)
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snap)
    assert by_path(rnd)["root.queueC"].actually_to_be_preempted.memory_mb == 2
    assert len(rnd.candidates) == 2


def test_e2_proportional_ideal():
    """E2 (testProportionalPreemption): A=20, B=60, C=20, D=0 after the leaf cap; 10 from A."""
    q_data = [[100, 10, 40, 20, 30], [100] * 5, [100, 30, 60, 10, 0], [45, 20, 5, 20, 0], [0] * 5,
              [3, 1, 1, 1, 0], [-1, 1, 1, 1, 1], [4, 0, 0, 0, 0]]  # fmt: skip
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snapshot_from_hadoop_table(q_data))
    q = by_path(rnd)
    assert [q[f"root.queue{x}"].ideal_assigned.memory_mb for x in "ABCD"] == [20, 60, 20, 0]
    assert q["root.queueA"].to_be_preempted.memory_mb == 10


def test_e3_parent_protects_leaf():
    """E3 (testHierarchical): queueE at 9x its guarantee keeps it all because queueD is within guarantee."""
    q_data = [[200, 100, 50, 50, 100, 10, 90], [200] * 7, [200, 110, 60, 50, 90, 90, 0],
              [10, 0, 0, 0, 10, 0, 10], [0] * 7, [4, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1],
              [2, 2, 0, 0, 2, 0, 0]]  # fmt: skip
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snapshot_from_hadoop_table(q_data))
    q = by_path(rnd)
    assert q["root.queueD.queueE"].ideal_assigned.memory_mb == 90
    assert q["root.queueD.queueE"].actually_to_be_preempted.memory_mb == 0
    assert q["root.queueA.queueB"].actually_to_be_preempted.memory_mb == 10


def test_dead_zone_suppresses_small_excess():
    """E5: B at 43 vs trunc(40 x 1.1) = 44 is in the dead zone even though its ideal is lower."""
    snap = cluster(100, [("root.a", 40, 39, 10), ("root.b", 40, 43, 0), ("root.c", 20, 21, 0)], config=TEST_CONF)
    q = by_path(ProportionalCapacityPreemptionPolicy().edit_schedule(snap))
    assert q["root.b"].to_be_preempted.memory_mb > 0
    assert q["root.b"].actually_to_be_preempted.memory_mb == 0


def test_dead_zone_can_be_turned_off():
    """With max_ignored_over_capacity 0 the same small excess is reclaimed."""
    conf = {**TEST_CONF, P + "max_ignored_over_capacity": 0}
    snap = cluster(100, [("root.a", 40, 39, 10), ("root.b", 40, 43, 0), ("root.c", 20, 21, 0)], config=conf)
    q = by_path(ProportionalCapacityPreemptionPolicy().edit_schedule(snap))
    assert q["root.b"].actually_to_be_preempted.memory_mb == q["root.b"].to_be_preempted.memory_mb > 0


def test_natural_termination_geometric_decay():
    """E5: NTF 0.2 with 5 GB to reclaim asks for 1024, then 819, then 655 MB as usage drops."""
    targets = []
    used = 25600
    for _ in range(3):
        snap = cluster(102400, [("root.a", 20480, used, 0), ("root.b", 81920, 76800, 40960)])
        q = by_path(ProportionalCapacityPreemptionPolicy().edit_schedule(snap))
        target = q["root.a"].actually_to_be_preempted.memory_mb
        targets.append(target)
        used -= target
    assert targets == [1024, 819, 655]


def test_natural_termination_rounds_half_up():
    """YARN-8179: the factor's result is rounded half up (2.5 -> 3), not truncated."""
    conf = {P + "natural_termination_factor": 0.5, P + "total_preemption_per_round": 1.0}
    snap = cluster(100, [("root.a", 40, 65, 0), ("root.b", 60, 35, 40)], config=conf)
    q = by_path(ProportionalCapacityPreemptionPolicy().edit_schedule(snap))
    assert q["root.a"].to_be_preempted.memory_mb == 25
    assert q["root.a"].actually_to_be_preempted.memory_mb == 13


def test_per_round_budget_is_float32_truncated():
    """E6: total_preemption_per_round 0.03 of 1000 is trunc(1000 x 0.03f) = 29, not 30."""
    q_data = [[1000, 350, 150, 200, 400, 200, 200, 250, 100, 150], [1000] * 10,
              [1000, 400, 200, 200, 400, 250, 150, 200, 150, 50], [50, 0, 0, 0, 50, 0, 50, 0, 0, 0], [0] * 10,
              [6, 2, 1, 1, 2, 1, 1, 2, 1, 1], [-1, -1, 1, 1, -1, 1, 1, -1, 1, 1],
              [3, 2, 0, 0, 2, 0, 0, 2, 0, 0]]  # fmt: skip
    snap = snapshot_from_hadoop_table(q_data, config={P + "total_preemption_per_round": 0.03})
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snap)
    assert rnd.budget.memory_mb == 29
    per_app = {a: sum(1 for c in rnd.candidates if c.application_id == app_id(a)) for a in (0, 2)}
    # Hadoop's HashSet order visits queueE before queueB: 23 from appC, then the 6 left for appA.
    assert per_app == {2: 23, 0: 6}
    assert rnd.budget_left.memory_mb == 0


def test_per_round_budget_scales_each_level():
    """E6: needed 50 > allowed 10 gives scaling 0.2, so A's target is 10, then 2 after NTF 0.2."""
    q_data = [[100, 50, 50], [100] * 3, [100, 100, 0], [70, 20, 50], [0] * 3, [5, 4, 1], [-1, 1, 1], [2, 0, 0]]
    snap = snapshot_from_hadoop_table(q_data, am_containers=True, hadoop_setup=False)
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snap)
    qa = by_path(rnd)["root.queueA"]
    assert (qa.to_be_preempted.memory_mb, qa.actually_to_be_preempted.memory_mb) == (10, 2)
    assert len(rnd.candidates) == 2


def test_parent_disable_is_inherited():
    """disable_preemption on a parent is inherited by its leaves."""
    parents = [QueueSnapshot(path="root.p", absolute_capacity=0.6, guaranteed=R(60), used=R(80))]
    conf = {**TEST_CONF, "yarn.scheduler.capacity.root.p.disable_preemption": "true"}
    snap = cluster(100, [("root.p.x", 60, 80, 0), ("root.y", 40, 20, 20)], config=conf, parents=parents)
    q = by_path(ProportionalCapacityPreemptionPolicy().edit_schedule(snap))
    assert q["root.p.x"].preemption_disabled
    assert q["root.p.x"].actually_to_be_preempted.memory_mb == 0


def test_child_setting_overrides_inherited_disable():
    """An explicit disable_preemption=false on the leaf overrides its parent's true."""
    parents = [QueueSnapshot(path="root.p", absolute_capacity=0.6, guaranteed=R(60), used=R(80))]
    conf = {
        **TEST_CONF,
        "yarn.scheduler.capacity.root.p.disable_preemption": "true",
        "yarn.scheduler.capacity.root.p.x.disable_preemption": "false",
    }
    snap = cluster(100, [("root.p.x", 60, 80, 0), ("root.y", 40, 20, 20)], config=conf, parents=parents)
    q = by_path(ProportionalCapacityPreemptionPolicy().edit_schedule(snap))
    assert not q["root.p.x"].preemption_disabled
    # 19, not 20: root.y's last share round(1 x 0.4) = 0 makes it drop out a unit short (as in E4).
    assert q["root.p.x"].actually_to_be_preempted.memory_mb == 19


def test_snapshot_field_disables_and_is_inherited():
    """QueueSnapshot.preemption_disabled on a parent applies to the subtree, like the config key."""
    parents = [
        QueueSnapshot(path="root.p", absolute_capacity=0.6, guaranteed=R(60), used=R(80), preemption_disabled=True)
    ]
    snap = cluster(100, [("root.p.x", 60, 80, 0), ("root.y", 40, 20, 20)], config=TEST_CONF, parents=parents)
    assert by_path(ProportionalCapacityPreemptionPolicy().edit_schedule(snap))["root.p.x"].preemption_disabled


def test_monitors_explicitly_off_disables_every_queue():
    """isQueueHierarchyPreemptionDisabled: monitor.enable=false makes every queue non-preemptable."""
    conf = {**TEST_CONF, "yarn.resourcemanager.scheduler.monitor.enable": False}
    snap = cluster(100, [("root.a", 40, 80, 0), ("root.b", 60, 20, 40)], config=conf)
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snap)
    assert all(q.preemption_disabled for q in rnd.queues)
    assert rnd.candidates == ()


def test_observe_only_selects_but_sends_nothing():
    """observe_only: the candidates are computed, but no event is sent and the state does not change."""
    snap = snapshot_from_hadoop_table(E1, config={P + "observe_only": "true"})
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snap, 0)
    assert len(rnd.candidates) == 10
    assert rnd.events == ()
    assert rnd.state.marks == {}
    assert rnd.observe_only


def test_policy_config_is_overridden_by_snapshot_config():
    """The snapshot's config is laid over the policy's, as Hadoop re-reads the scheduler conf each round."""
    policy = ProportionalCapacityPreemptionPolicy({P + "observe_only": True, P + "monitoring_interval": 5000})
    snap = cluster(100, [("root.a", 40, 80, 0), ("root.b", 60, 20, 40)], config={P + "observe_only": False})
    assert policy.settings().observe_only
    assert not policy.settings(snap).observe_only
    assert not policy.edit_schedule(snap).observe_only
    assert policy.monitoring_interval_ms(snap) == 5000


def test_hadoop_defaults():
    """An empty configuration gives Hadoop's defaults for every key."""
    s = PreemptionSettings.from_config({})
    assert (s.observe_only, s.monitoring_interval_ms, s.max_wait_before_kill_ms) == (False, 3000, 15000)
    assert s.total_preemption_per_round == pytest.approx(0.1, rel=1e-7)
    assert (s.max_ignored_over_capacity, s.natural_termination_factor) == (0.1, 0.2)


def test_bad_config_value_names_the_key():
    """A value that Hadoop could not parse is a ConfigurationError naming the key."""
    with pytest.raises(ConfigurationError, match="total_preemption_per_round: expected a float"):
        PreemptionSettings.from_config({P + "total_preemption_per_round": "lots"})


def test_missing_parent_queue_is_an_error():
    """A queue whose parent is not in the snapshot is rejected, naming the queue."""
    snap = cluster(100, [("root.p.x", 60, 80, 0)])
    with pytest.raises(ConfigurationError, match=r"queues\[1\].path: parent queue 'root.p'"):
        ProportionalCapacityPreemptionPolicy().edit_schedule(snap)


def test_application_in_parent_queue_is_an_error():
    """Applications must sit in leaf queues."""
    app = AppSnapshot(id="app1", queue="root", containers=(ContainerSnapshot(id="c1", resource=R(1)),))
    snap = cluster(100, [("root.a", 100, 0, 0)], apps=[app])
    with pytest.raises(ConfigurationError, match=r"applications\[0\].queue: 'root' is a parent queue"):
        ProportionalCapacityPreemptionPolicy().edit_schedule(snap)


def test_event_types_are_hadoop_names():
    """Events carry Hadoop's SchedulerEventType names."""
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snapshot_from_hadoop_table(E1))
    assert {e.type for e in rnd.events} == {PreemptionEventType.MARK_CONTAINER_FOR_PREEMPTION}
    assert str(rnd.events[0].type) == "MARK_CONTAINER_FOR_PREEMPTION"
