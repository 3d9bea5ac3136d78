"""Hierarchical preemption: two under-served leaves under one parent reclaim from two over-served queues.

    root ── p (50%) ── x (50% of p = 25%)
        │          └── y (50% of p = 25%)
        ├── b (25%, may grow to 100%)
        └── c (25%, may grow to 100%)

Jobs in b and c fill the cluster (about 50% each, twice their guarantee). At 60 s jobs arrive in x and y. The
policy divides the cluster at the root level first (p is owed its 50%), then inside p (x and y 25% each), and
takes the difference from b and c, which are both above their guarantees.

    python examples/preemption_hierarchical.py

prints, per leaf, its guarantee, what it held before the newcomers arrived and at the end of the contention,
and how many of its containers were preempted.
"""

from __future__ import annotations

from yarnball.actors import RestartingMRAppMaster, mapreduce_tasks
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.testing import captured_events

CS = "yarn.scheduler.capacity.root."
CONF = {
    CS + "queues": "p,b,c",
    CS + "p.capacity": "50",
    CS + "p.queues": "x,y",
    CS + "p.x.capacity": "50",
    CS + "p.y.capacity": "50",
    CS + "b.capacity": "25",
    CS + "c.capacity": "25",
    CS + "b.maximum-capacity": "100",
    CS + "c.maximum-capacity": "100",
    CS + "b.user-limit-factor": "4",
    CS + "c.user-limit-factor": "4",
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
}
LEAVES = ("root.p.x", "root.p.y", "root.b", "root.c")


def run(seed: int = 1, measure_at_ms: int = 480_000) -> dict[str, dict[str, float]]:
    """Run the scenario; per leaf: guarantee, memory held at 55 s and at ``measure_at_ms``, containers preempted."""
    nodes = WorkloadBuilder().nodes(8, memory_mb=8192, vcores=8).build().nodes  # 64 GB
    cluster = Cluster(CONF, nodes, seed=seed)
    masters = {
        "root.b": RestartingMRAppMaster(name="b", queue="b", tasks=mapreduce_tasks(40, map_ms=900_000, prefix="b")),
        "root.c": RestartingMRAppMaster(name="c", queue="c", tasks=mapreduce_tasks(40, map_ms=900_000, prefix="c")),
        "root.p.x": RestartingMRAppMaster(
            name="x", queue="x", submit_at_ms=60_000, tasks=mapreduce_tasks(20, map_ms=600_000, prefix="x")
        ),
        "root.p.y": RestartingMRAppMaster(
            name="y", queue="y", submit_at_ms=60_000, tasks=mapreduce_tasks(20, map_ms=600_000, prefix="y")
        ),
    }
    for am in masters.values():
        cluster.submit(am)
    held: dict[str, dict[str, float]] = {leaf: {} for leaf in LEAVES}
    with captured_events():
        for label, t in (("before", 55_000), ("after", measure_at_ms)):
            cluster.run(until_ms=t)
            for q in cluster.queues:
                if q.path in held:
                    held[q.path][label] = q.allocated.memory_mb / 1024
                    held[q.path]["guaranteed"] = q.effective_min.memory_mb / 1024
    for leaf, am in masters.items():
        held[leaf]["preempted"] = am.preempted_task_attempts
    return held


def main() -> dict[str, dict[str, float]]:
    result = run()
    print(f"{'queue':10} {'guaranteed':>10} {'held@55s':>9} {'held@480s':>10} {'preempted':>9}")
    for leaf in LEAVES:
        r = result[leaf]
        print(f"{leaf:10} {r['guaranteed']:>8.0f}GB {r['before']:>7.0f}GB {r['after']:>8.0f}GB {r['preempted']:>9.0f}")
    return result


if __name__ == "__main__":
    main()
