"""snapshot_from_scheduler: the preemption policy's view of a live CapacityScheduler (cloneQueues)."""

from __future__ import annotations

from test_capacity_scheduler_helpers import GB, add_node, ask, attempt_id, heartbeat, make_scheduler, run_am, submit

from yarnball.policies.preemption import ProportionalCapacityPreemptionPolicy, SnapshotCache, snapshot_from_scheduler
from yarnball.protocols import Resource

QUEUES = {
    "root.a": {"capacity": 50, "maximum-capacity": 100, "user-limit-factor": 4},
    "root.b": {"capacity": 50, "disable_preemption": "true"},
    "root.b.b1": {"capacity": 100},
}
ALL_AM = {
    "yarn.scheduler.capacity.maximum-am-resource-percent": 1.0,
    # With the monitors off every queue counts as preemption-disabled (isQueueHierarchyPreemptionDisabled).
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
}


def busy_scheduler():
    """Two 8 GB nodes; app 1 in root.a fills both; app 2 in root.b.b1 asks for 20 x 1 GB."""
    cs = make_scheduler(QUEUES, **ALL_AM)
    nodes = [add_node(cs, 0), add_node(cs, 1)]
    submit(cs, 1, queue="a")
    run_am(cs, 1, nodes[0])
    cs.allocate(attempt_id(1), [ask(GB, 15)], [])
    for _ in range(20):
        for n in nodes:
            heartbeat(cs, n)
    cs.allocate(attempt_id(1), [], [])
    submit(cs, 2, queue="b1")
    cs.allocate(attempt_id(2), [ask(GB, 20, priority=1)], [])
    return cs


def test_queues_in_preorder_with_effective_resources() -> None:
    """Every queue is there, root first, with guaranteed/maximum from the effective resources and its usage."""
    live = snapshot_from_scheduler(busy_scheduler())
    by_path = {q.path: q for q in live.snapshot.queues}
    assert [q.path for q in live.snapshot.queues] == ["root", "root.a", "root.b", "root.b.b1"]
    assert live.snapshot.cluster == Resource(16 * GB, 16)
    assert by_path["root.a"].guaranteed.memory_mb == 8 * GB
    assert by_path["root.a"].maximum.memory_mb == 16 * GB
    assert by_path["root.a"].used.memory_mb == 16 * GB


def test_disable_preemption_is_inherited() -> None:
    """root.b's disable_preemption carries down to root.b.b1; root.a stays preemptable."""
    by_path = {q.path: q for q in snapshot_from_scheduler(busy_scheduler()).snapshot.queues}
    assert by_path["root.b.b1"].preemption_disabled is True
    assert by_path["root.a"].preemption_disabled is False


def test_leaf_pending_considers_the_user_limit() -> None:
    """b1's pending is capped by its user's remaining user limit, below the 20 GB the app asks for."""
    cs = busy_scheduler()
    by_path = {q.path: q for q in snapshot_from_scheduler(cs).snapshot.queues}
    raw = cs.get_application(attempt_id(2)).pending_m
    assert raw >= 20 * GB
    assert 0 < by_path["root.b.b1"].pending.memory_mb < raw


def test_containers_carry_am_flag_priority_and_start_order() -> None:
    """The AM container is flagged, start_order follows the container sequence, and ids map back to records."""
    live = snapshot_from_scheduler(busy_scheduler())
    (app1,) = [a for a in live.snapshot.applications if a.queue == "root.a"]
    ams = [c for c in app1.containers if c.am]
    assert len(ams) == 1 and ams[0].start_order == 1 and ams[0].priority == 0
    assert sorted(c.start_order for c in app1.containers) == list(range(1, 17))
    for c in app1.containers:
        attempt, record = live.containers[c.id]
        assert attempt == attempt_id(1) and str(record.id) == c.id


def test_policy_round_on_a_live_snapshot_takes_from_the_over_served_queue() -> None:
    """One policy round on the live snapshot selects non-AM containers of root.a only."""
    live = snapshot_from_scheduler(busy_scheduler())
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(live.snapshot, 0)
    assert rnd.candidates
    assert all(c.queue == "root.a" and not c.container.am for c in rnd.candidates)


def test_snapshot_carries_the_monitor_switch() -> None:
    """With the monitor switched off in the configuration, the policy treats every queue as non-preemptable."""
    cs = busy_scheduler()
    cs.conf.conf.set("yarn.resourcemanager.scheduler.monitor.enable", "false")
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snapshot_from_scheduler(cs).snapshot, 0)
    assert rnd.candidates == ()


def test_cached_snapshot_equals_a_fresh_one_and_forgets_gone_containers() -> None:
    """With a SnapshotCache, later snapshots equal uncached ones, even after containers are released."""
    cs = busy_scheduler()
    cache = SnapshotCache()
    first = snapshot_from_scheduler(cs, cache=cache)
    assert snapshot_from_scheduler(cs, cache=cache).snapshot == first.snapshot
    (app1,) = [a for a in first.snapshot.applications if a.queue == "root.a"]
    gone = [first.containers[c.id][1].id for c in app1.containers if not c.am][:3]
    cs.allocate(attempt_id(1), [], gone)
    cached = snapshot_from_scheduler(cs, cache=cache)
    assert cached.snapshot == snapshot_from_scheduler(cs).snapshot
    assert cached.containers.keys() == snapshot_from_scheduler(cs).containers.keys()
    assert not set(gone) & set(cache.container_ids)
