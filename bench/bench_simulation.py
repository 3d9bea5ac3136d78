"""Simulation speed: simulated seconds per wall second on a busy synthetic trace, 1 s heartbeats.

    python bench/bench_simulation.py                 # 1,000 and 10,000 nodes
    python bench/bench_simulation.py --nodes 1000 --sim-seconds 600

Goals (issue 3): >= 500x real time at 1,000 nodes and >= 50x at 10,000 nodes. Also reports peak memory per node
(tracemalloc, goal <= 2 KB beyond the workload itself) and scheduler allocations per wall second during the run.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

from yarnball.actors import configure_logging
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.protocols import Configuration


def run(nodes: int, sim_seconds: int, seed: int = 1, measure_memory: bool = False) -> dict[str, float]:
    # Enough jobs to keep the cluster busy for the whole window (load > 1 means demand exceeds capacity).
    jobs = max(10, nodes // 5)
    workload = synthetic_workload(jobs, nodes, seed, load=1.5)
    gc.collect()
    if measure_memory:
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
    cluster = Cluster(Configuration(), workload.nodes, seed=seed)
    cluster.submit_workload(workload)
    if measure_memory:
        # memory of an idle registered cluster: the cost of the nodes themselves
        cluster.run(until_ms=2000)
        per_node = (tracemalloc.get_traced_memory()[0] - base) / nodes
        tracemalloc.stop()
    start = time.perf_counter()
    cluster.run(until_ms=sim_seconds * 1000)
    wall = time.perf_counter() - start
    simulated = cluster.now / 1000 - (2 if measure_memory else 0)
    result = {
        "nodes": nodes,
        "simulated_s": simulated,
        "wall_s": wall,
        "speedup": simulated / wall,
        "allocations": cluster.rm.counters["containers_allocated"],
        "allocations_per_wall_s": cluster.rm.counters["containers_allocated"] / wall,
        "events": cluster.kernel.events_processed,
    }
    if measure_memory:
        result["bytes_per_node"] = per_node
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--sim-seconds", type=int, default=300)
    args = parser.parse_args()
    configure_logging(level="warning")  # the event log is measured separately; console lines would dominate
    for n in args.nodes:
        r = run(n, args.sim_seconds, measure_memory=True)
        print(
            f"{n:>6} nodes: {r['simulated_s']:.0f} simulated s in {r['wall_s']:.1f} wall s = "
            f"{r['speedup']:.1f}x real time; "
            f"{r['allocations']:,} allocations ({r['allocations_per_wall_s']:,.0f}/wall s); "
            f"{r['events']:,} kernel events; {r['bytes_per_node']:,.0f} bytes per registered node"
        )


if __name__ == "__main__":
    main()
