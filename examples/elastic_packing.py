"""Node-hours of an autoscaled cluster under container packing against YARN's spread, on a synthetic trace.

The trace (seeded, the same for the same arguments) mimics a cloud analytics cluster: a few long ETL jobs
(containers of 20 to 60 minutes) run through the day while bursts of short ad-hoc queries (containers of 30 s to
5 minutes) arrive in busy hours and stop in quiet ones. The cluster autoscales between ``--min-nodes`` and
``--max-nodes``: it adds nodes when requests have waited 3 minutes and removes nodes that have run nothing and held
no application state for the cooldown.

With spread, every busy hour leaves a container or an AM of some long job on almost every node, so the cluster
cannot shrink in the quiet hours. With packing the long jobs sit on a few nodes and the rest can go.

Qubole's figures, for comparison: Hike's cluster went from 6,925 to 5,232 node-hours (-24%) with packing, and
Qubole reports hardware savings of "more than 40 percent" (blog post "Container Packing", 2017).

Run it:  python examples/elastic_packing.py [--hours 6] [--max-nodes 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import random
import time
from typing import Any

from yarnball import Cluster, configure_logging
from yarnball.launcher import ElasticConfig
from yarnball.launcher.workloads import Workload, WorkloadBuilder, task_spec
from yarnball.protocols import keys

HOUR_MS = 3_600_000
QUBOLE_HIKE = (6925, 5232)  # node-hours without and with container packing (Qubole blog post)

POLICIES: dict[str, dict[str, object]] = {
    "spread": {},
    "packing": {keys.CONTINUOUS_SCHEDULING_PACKED: "true"},
}


def elastic_trace(hours: float = 6.0, seed: int = 1, *, max_nodes: int = 30, period_ms: int = HOUR_MS) -> Workload:
    """Long ETL jobs plus bursts of short queries in alternate periods (busy, quiet, busy, ...) of ``period_ms``;
    ``max_nodes`` node specs of 10 one-GB slots (the autoscaler's template)."""
    rng = random.Random(seed)
    b = WorkloadBuilder().nodes(max_nodes, memory_mb=10 * 1024, vcores=10)
    end = int(hours * HOUR_MS)
    n = 0
    # Long jobs: one every ~40 minutes, a handful of long containers each.
    t = 0
    while t < end:
        n += 1
        tasks = [task_spec(rng.randint(3, 10), rng.randint(20, 60) * 60_000)]
        b.job(f"etl{n:03d}", submit_ms=t, tasks=tasks)
        t += int(rng.expovariate(1 / (40 * 60_000)))
    # Short queries: a burst in every other hour (the even ones), sized to need most of the cluster.
    for period in range(math.ceil(end / period_ms)):
        if period % 2:
            continue
        t = period * period_ms
        stop = min((period + 1) * period_ms, end)
        while True:
            t += int(rng.expovariate(1 / 90_000))
            if t >= stop:
                break
            n += 1
            maps = task_spec(rng.randint(10, 60), rng.randint(30, 300) * 1000)
            b.job(f"query{n:03d}", submit_ms=t, tasks=[maps])
    return b.build()


def run_policy(
    policy: str, workload: Workload, *, seed: int = 1, min_nodes: int = 2, max_nodes: int = 30, start_nodes: int = 2
) -> dict[str, Any]:
    """Run ``workload`` on an autoscaled cluster under ``policy``; return node-hours, utilisation and more."""
    conf: dict[str, object] = {"yarn.scheduler.capacity.maximum-am-resource-percent": "0.5", **POLICIES[policy]}
    elastic = ElasticConfig(min_nodes=min_nodes, max_nodes=max_nodes)
    cluster = Cluster(conf, workload.nodes[:start_nodes], seed=seed, elastic=elastic)
    cluster.submit_workload(workload)
    started = time.perf_counter()
    end_ms = cluster.run()
    wall = time.perf_counter() - started
    assert cluster.autoscaler is not None
    report = cluster.autoscaler.report()
    apps = cluster.applications
    finished = sum(1 for a in apps if a.state.value == "FINISHED")
    runtimes = [a.finish_time - a.start_time for a in apps if a.finish_time]
    return {
        "policy": policy,
        "node_hours": report.node_hours,
        "utilisation": report.utilisation,
        "peak_nodes": report.peak_nodes,
        "upscales": report.upscales,
        "downscales": report.downscales,
        "nodes_added": report.nodes_added,
        "nodes_removed": report.nodes_removed,
        "apps_finished": finished,
        "apps": len(apps),
        "mean_runtime_s": sum(runtimes) / len(runtimes) / 1000 if runtimes else 0.0,
        "simulated_hours": end_ms / HOUR_MS,
        "wall_seconds": wall,
    }


def compare(
    hours: float = 6.0, seed: int = 1, *, min_nodes: int = 2, max_nodes: int = 30, period_ms: int = HOUR_MS
) -> dict[str, Any]:
    """Spread and packing side by side on the same trace and autoscaler; the saving is packing's."""
    workload = elastic_trace(hours, seed, max_nodes=max_nodes, period_ms=period_ms)
    runs = {p: run_policy(p, workload, seed=seed, min_nodes=min_nodes, max_nodes=max_nodes) for p in POLICIES}
    spread, packing = runs["spread"]["node_hours"], runs["packing"]["node_hours"]
    return {"jobs": len(workload.jobs), "runs": runs, "saving": 1 - packing / spread if spread else 0.0}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=6.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-nodes", type=int, default=2)
    parser.add_argument("--max-nodes", type=int, default=30)
    parser.add_argument("--period-minutes", type=float, default=60.0, help="length of each busy and quiet period")
    args = parser.parse_args(argv)
    configure_logging(level="warning")
    result = compare(
        args.hours,
        args.seed,
        min_nodes=args.min_nodes,
        max_nodes=args.max_nodes,
        period_ms=int(args.period_minutes * 60_000),
    )
    print(f"jobs: {result['jobs']}")
    for policy, r in result["runs"].items():
        print(
            f"{policy}: node-hours {r['node_hours']:.1f}, utilisation {r['utilisation']:.0%}, "
            f"peak nodes {r['peak_nodes']}, finished {r['apps_finished']}/{r['apps']}, "
            f"mean job runtime {r['mean_runtime_s']:.0f} s"
        )
    print(f"packing saves {result['saving']:.0%} of node-hours")
    before, after = QUBOLE_HIKE
    print(f"Qubole (Hike): {before:,} -> {after:,} node-hours ({1 - after / before:.0%} saved)")
    print('Qubole overall: "more than 40 percent" hardware savings')


if __name__ == "__main__":
    main()
