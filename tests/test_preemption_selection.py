"""Candidate order (reserved first, last app first, newest first, AM last) and the mark/kill bookkeeping."""

from __future__ import annotations

from yarnball.policies.preemption import (
    AppSnapshot,
    ClusterSnapshot,
    ContainerSnapshot,
    PreemptionEventType,
    PreemptionState,
    ProportionalCapacityPreemptionPolicy,
    QueueSnapshot,
    app_id,
    snapshot_from_hadoop_table,
)
from yarnball.policies.preemption._java import JavaPriorityQueue, f32, hashset_order, string_hash
from yarnball.protocols import Resource

P = "yarn.resourcemanager.monitor.capacity.preemption."
MARK = PreemptionEventType.MARK_CONTAINER_FOR_PREEMPTION
KILL = PreemptionEventType.MARK_CONTAINER_FOR_KILLABLE
KILL_RESERVED = PreemptionEventType.KILL_RESERVED_CONTAINER


def R(mb: int) -> Resource:
    return Resource(mb, mb)


def c(cid: str, start: int, *, prio: int = 1, am: bool = False, reserved: bool = False) -> ContainerSnapshot:
    return ContainerSnapshot(id=cid, resource=R(2), priority=prio, start_order=start, am=am, reserved=reserved)


def order_snapshot(apps: list[AppSnapshot], *, used_a: int = 60) -> ClusterSnapshot:
    """root.a (guaranteed 50) is over by 10 and root.b (guaranteed 50) wants it: a must give back 10."""
    return ClusterSnapshot(
        cluster=R(100),
        config={P + "total_preemption_per_round": 1.0, P + "natural_termination_factor": 1.0},
        queues=(
            QueueSnapshot(path="root", absolute_capacity=1.0, used=R(used_a + 40)),
            QueueSnapshot(path="root.a", absolute_capacity=0.5, used=R(used_a)),
            QueueSnapshot(path="root.b", absolute_capacity=0.5, used=R(40), pending=R(10)),
        ),
        applications=tuple(apps),
    )


APPS = [
    AppSnapshot(id="old", queue="root.a", submission_order=1, containers=(c("old-0", 0), c("old-1", 1), c("old-2", 2))),
    AppSnapshot(
        id="new",
        queue="root.a",
        submission_order=2,
        containers=(
            c("new-am", 0, prio=0, am=True),
            c("new-1", 1),
            c("new-2", 2),
            c("new-3", 3, prio=2),
            c("new-r", 4, reserved=True),
        ),
    ),
    AppSnapshot(id="vip", queue="root.a", priority=5, submission_order=3, containers=(c("vip-0", 0),)),
]


def test_candidate_order():
    """Reserved first, then by request priority (largest number first), newest first; AM skipped; then older app."""
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(order_snapshot(APPS))
    assert [x.container_id for x in rnd.candidates] == ["new-r", "new-3", "new-2", "new-1", "old-2"]


def test_higher_priority_app_is_preempted_last():
    """The FIFO preemption iterator visits lower application priorities first, so 'vip' is untouched."""
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(order_snapshot(APPS))
    assert all(x.application_id != "vip" for x in rnd.candidates)


def test_reserved_container_visit_sends_kill_reserved():
    """Each reserved container the selector visits gets KILL_RESERVED_CONTAINER, before the marks."""
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(order_snapshot(APPS))
    assert (rnd.events[0].type, rnd.events[0].container_id) == (KILL_RESERVED, "new-r")
    assert [e.type for e in rnd.events[1:]] == [MARK] * 5


def test_am_containers_taken_last_newest_app_first():
    """testPreemptSkippedAMContainers: the AMs of appD then appC are the last two picks."""
    q_data = [[100, 10, 90], [100] * 3, [100, 100, 0], [70, 20, 90], [0] * 3, [5, 4, 1], [-1, 5, 5], [2, 0, 0]]
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snapshot_from_hadoop_table(q_data, am_containers=True))
    assert [(x.application_id, x.am) for x in rnd.candidates[-2:]] == [(app_id(3), True), (app_id(2), True)]
    assert not any(x.am for x in rnd.candidates[:-2])


def test_am_allowance_keeps_ams():
    """With the AM share covering all AMs (maxAM >= skipped AM size), no AM container is taken."""
    q_data = [[100, 40, 60], [100] * 3, [100, 100, 0], [70, 20, 90], [0] * 3, [5, 4, 1], [-1, 5, 5], [2, 0, 0]]
    snap = snapshot_from_hadoop_table(q_data, am_containers=True, am_resource_percent=0.5)
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snap)
    assert rnd.candidates and not any(x.am for x in rnd.candidates)


def test_budget_skips_big_container_but_takes_smaller():
    """A container larger than the remaining budget is skipped; a smaller one after it can still be taken."""
    apps = [
        AppSnapshot(
            id="x",
            queue="root.a",
            containers=(
                ContainerSnapshot(id="small", resource=R(3), start_order=0),
                ContainerSnapshot(id="big", resource=R(8), start_order=1),
            ),
        )
    ]
    snap = order_snapshot(apps)
    snap = ClusterSnapshot(
        cluster=snap.cluster,
        config={**snap.config, P + "total_preemption_per_round": 0.05},
        queues=snap.queues,
        applications=snap.applications,
    )
    rnd = ProportionalCapacityPreemptionPolicy().edit_schedule(snap)
    assert [x.container_id for x in rnd.candidates] == ["small"]


# -- bookkeeping (testExpireKill) -------------------------------------------------------------------------
CYCLE = [[100, 40, 40, 20], [100] * 4, [100, 0, 60, 40], [10, 10, 0, 0], [0] * 4,
         [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0]]  # fmt: skip
CALM = [[100, 40, 40, 20], [100] * 4, [100, 0, 60, 40], [0, 0, 0, 0], [0] * 4,
        [3, 1, 1, 1], [-1, 1, 1, 1], [3, 0, 0, 0]]  # fmt: skip


def run(q_data, now: int, state: PreemptionState | None):
    return ProportionalCapacityPreemptionPolicy().edit_schedule(snapshot_from_hadoop_table(q_data), now, state)


def test_expire_kill():
    """testExpireKill: 10 marks at t=0, nothing at t=5000, 10 killable at t=10001."""
    r0 = run(CYCLE, 0, None)
    assert [e.type for e in r0.events] == [MARK] * 10
    r1 = run(CYCLE, 5000, r0.state)
    assert r1.events == ()
    r2 = run(CYCLE, 10001, r1.state)
    assert [e.type for e in r2.events] == [KILL] * 10
    assert {e.application_id for e in r2.events} == {app_id(2)}


def test_kill_at_exactly_max_wait():
    """A mark becomes killable when firstMark + max_wait_before_kill <= now (inclusive)."""
    r0 = run(CYCLE, 0, None)
    assert {e.type for e in run(CYCLE, 10000, r0.state).events} == {KILL}


def test_killed_containers_are_forgotten():
    """After MARK_CONTAINER_FOR_KILLABLE the container's mark is removed from the state."""
    r0 = run(CYCLE, 0, None)
    assert run(CYCLE, 10001, r0.state).state.marks == {}


def test_unselected_marked_container_is_not_killed():
    """If the pressure is gone, marked containers are not killed even after max_wait."""
    r0 = run(CYCLE, 0, None)
    r1 = run(CALM, 10001, r0.state)
    assert r1.candidates == () and r1.events == ()


def test_marks_age_out_after_twice_max_wait():
    """Marks no longer acted on are dropped once firstMark + 2 x max_wait < now; re-selection restarts."""
    r0 = run(CYCLE, 0, None)
    kept = run(CALM, 20000, r0.state)
    assert len(kept.state.marks) == 10
    dropped = run(CALM, 20001, kept.state)
    assert dropped.state.marks == {}
    again = run(CYCLE, 20002, dropped.state)
    assert [e.type for e in again.events] == [MARK] * 10


def test_state_is_not_mutated():
    """edit_schedule returns a new state and leaves the one passed in untouched."""
    r0 = run(CYCLE, 0, None)
    before = dict(r0.state.marks)
    run(CYCLE, 10001, r0.state)
    assert r0.state.marks == before


# -- Java semantics ---------------------------------------------------------------------------------------
def test_float32_config_value():
    """getFloat reads 0.03 as float32 0.0299999993, whose product with 1000 truncates to 29."""
    assert int(1000 * f32(0.03)) == 29


def test_string_hash_matches_java():
    """String.hashCode: "root".hashCode() == 3506402 and "" hashes to 0."""
    assert string_hash("root") == 3506402
    assert string_hash("") == 0


def test_hashset_order_is_by_bucket():
    """HashSet<String> iterates by bucket index, not insertion order."""
    names = ["root.queueA.queueB", "root.queueD.queueE"]
    assert hashset_order(names) == ["root.queueD.queueE", "root.queueA.queueB"]


def test_java_priority_queue_tie_order():
    """Equal elements leave java.util.PriorityQueue in siftDown order, not insertion order."""
    pq: JavaPriorityQueue[tuple[int, str]] = JavaPriorityQueue(lambda a, b: (a[0] > b[0]) - (a[0] < b[0]))
    for item in [(0, "a"), (0, "b"), (0, "c"), (0, "d")]:
        pq.add(item)
    assert [pq.poll()[1] for _ in range(4)] == ["a", "d", "c", "b"]
