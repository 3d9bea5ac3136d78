"""Hadoop's ``TestProportionalCapacityPreemptionPolicy`` int[][] tables, decoded into snapshots.

The tables (preemption.md §11) list queues in pre-order with eight rows: abs (guaranteed), maxCap, used,
pending, reserved, apps, container granularity and number of children. This rebuilds exactly what the
Java mocks (``buildPolicy``/``mockNested``/``mockLeafQueue``/``mockApp``) hand to the policy, so Hadoop's
assertions can be checked against this policy unchanged, and so users can write tests the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from yarnball.policies.preemption import _java as j
from yarnball.policies.preemption._snapshot import AppSnapshot, ClusterSnapshot, ContainerSnapshot, QueueSnapshot
from yarnball.protocols import Resource
from yarnball.protocols import keys as k

__all__ = ["HADOOP_TEST_CONFIG", "app_id", "snapshot_from_hadoop_table"]

TS = 3141592653  # the tests' cluster timestamp

# TestProportionalCapacityPreemptionPolicy.setup(): report the "ideal" preemption in one round.
HADOOP_TEST_CONFIG: dict[str, str | int | float | bool] = {
    k.PREEMPTION_WAIT_TIME_BEFORE_KILL: 10000,
    k.PREEMPTION_MONITORING_INTERVAL: 3000,
    k.TOTAL_PREEMPTION_PER_ROUND: 1.0,
    k.PREEMPTION_NATURAL_TERMINATION_FACTOR: 1.0,
    k.RM_SCHEDULER_ENABLE_MONITORS: True,
}


def app_id(n: int) -> str:
    """The id of the test's n-th application (appA = 0, appB = 1, ...; the tests' appF is 4 again)."""
    return f"application_{TS}_{n:04d}"


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def snapshot_from_hadoop_table(
    q_data: Sequence[Sequence[int]],
    *,
    am_containers: bool = False,
    am_resource_percent: float = 0.0,
    config: Mapping[str, str | int | float | bool] | None = None,
    hadoop_setup: bool = True,
) -> ClusterSnapshot:
    """Decode ``int[][] qData`` the way ``buildPolicy(qData)`` does.

    ``am_containers`` is the test's ``setAMContainer`` (the first live container of every app is its AM, at
    priority 0); ``am_resource_percent`` is ``setAMResourcePercent`` (0 unless set, as in the mock).
    ``config`` is laid over :data:`HADOOP_TEST_CONFIG` (or over nothing when ``hadoop_setup`` is False);
    per-queue ``disable_preemption`` keys go there, e.g. ``yarn.scheduler.capacity.root.queueB.disable_preemption``.
    """
    abs_, max_cap, used, pending, reserved, apps, gran, queues = (list(row) for row in q_data)
    n = len(abs_)
    # The cluster resource is the sum of the leaves' guarantees, not root's abs (testZeroGuar: 199 vs 200).
    tot = sum(abs_[i] for i in range(n) if queues[i] == 0)

    def res(x: int) -> Resource:
        return Resource(x, x)

    paths = ["root"] * n
    stack: list[str] = ["root"] * queues[0]
    for i in range(1, n):
        parent = stack.pop()
        paths[i] = f"{parent}.queue{chr(ord('A') + i - 1)}"
        stack.extend([paths[i]] * queues[i])

    qs: list[QueueSnapshot] = []
    app_list: list[AppSnapshot] = []
    next_app = 0
    for i in range(n):
        qs.append(
            QueueSnapshot(
                path=paths[i],
                absolute_capacity=j.ratio(abs_[i], tot),
                absolute_maximum_capacity=j.ratio(max_cap[i], tot),
                guaranteed=res(abs_[i]),  # QueueResourceQuotas: effective min = abs, effective max = maxCap
                maximum=res(max_cap[i]),
                used=res(used[i]),
                pending=res(pending[i]),
                reserved=res(reserved[i]),
                maximum_am_resource_percent=am_resource_percent,
            )
        )
        if queues[i] > 0 or apps[i] == 0:
            continue
        a_used = _ceil_div(used[i], apps[i])
        a_pending = _ceil_div(pending[i], apps[i])
        a_reserved = _ceil_div(reserved[i], apps[i])
        g = gran[i]
        for _ in range(apps[i]):
            aid = app_id(next_app)
            containers: list[ContainerSnapshot] = []
            c_alloc = 0
            it = 0
            while it < a_reserved:  # reserved containers first: ids 0..r-1, priority 1
                containers.append(
                    ContainerSnapshot(
                        id=f"{aid}/c{c_alloc}", resource=res(g), priority=1, start_order=c_alloc, reserved=True
                    )
                )
                c_alloc += 1
                it += g
            it = 0
            first = True
            while it < a_used:  # then live containers; the first one is the AM when asked
                is_am = am_containers and first
                containers.append(
                    ContainerSnapshot(
                        id=f"{aid}/c{c_alloc}",
                        resource=res(g),
                        priority=0 if is_am else 1,
                        start_order=c_alloc,
                        am=is_am,
                    )
                )
                first = False
                c_alloc += 1
                it += g
            app_list.append(
                AppSnapshot(
                    id=aid,
                    queue=paths[i],
                    user="user",
                    submission_order=next_app,
                    pending=res(a_pending),
                    containers=tuple(containers),
                )
            )
            next_app += 1

    merged: dict[str, str | int | float | bool] = dict(HADOOP_TEST_CONFIG) if hadoop_setup else {}
    merged.update(config or {})
    return ClusterSnapshot(cluster=res(tot), config=merged, queues=tuple(qs), applications=tuple(app_list))
