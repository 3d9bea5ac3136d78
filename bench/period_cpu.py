"""CPU time of bench_simulation's measured period (command A by default), one line per run, for side-by-side
comparisons of two trees on a noisy machine (``time.process_time()`` excludes time the process was not running):

    for i in 1 2 3 4 5 6 7 8; do for t in BASE_TREE MAIN_TREE; do PYTHONPATH=$t python bench/period_cpu.py; done; done

Same trace, cluster and warm-up as ``bench_simulation.py --nodes 1000 --map-ms 300000 900000 --reduce-ms 300000
900000 --load 6 --warmup-seconds 300 --sim-seconds 300``; a full collection runs before the period, as there.
"""

from __future__ import annotations

import argparse
import gc
import time

from bench_simulation import busy_workload

import yarnball
from yarnball.actors import configure_logging
from yarnball.launcher import Cluster
from yarnball.protocols import Configuration


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--warmup-seconds", type=int, default=300)
    parser.add_argument("--sim-seconds", type=int, default=300)
    args = parser.parse_args()
    configure_logging(level="warning")
    warm, sim = args.warmup_seconds, args.sim_seconds
    workload = busy_workload(args.nodes, warm + sim, 1, (300000, 900000), (300000, 900000), 6)
    cluster = Cluster(Configuration({}), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run(until_ms=warm * 1000)
    gc.collect()
    allocated = cluster.rm.counters["containers_allocated"]
    start = time.process_time()
    cluster.run(until_ms=(warm + sim) * 1000)
    cpu = time.process_time() - start
    allocated = cluster.rm.counters["containers_allocated"] - allocated
    print(f"{yarnball.__file__}: {sim} simulated s in {cpu:.3f} CPU s = {sim / cpu:.1f}x; {allocated:,} allocations")


if __name__ == "__main__":
    main()
