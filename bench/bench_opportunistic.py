"""Benchmark (an experiment, in simulated time): opportunistic containers on a busy cluster of short tasks.

Usage::

    python bench/bench_opportunistic.py [--nodes 50] [--jobs 200] [--seeds 1 2 3] [--load 1.5]

Runs examples/opportunistic.py's settings (guaranteed-only, centralized, distributed, and the two NM queue
reorderings) on the same workload per seed, side by side, and prints one Markdown table per seed plus the mean
task-throughput gain and median-JCT speed-up over the seeds, next to the published anchors: Mercury (ATC'15) more
than 35% task throughput; Yaq-c (EuroSys'16) 1.7x median job completion time. All figures are simulated time,
so they do not depend on the machine's load; the wall time of the whole run is printed for reference.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from opportunistic import SETTINGS, run_experiment, table

from yarnball.actors import configure_logging


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--load", type=float, default=1.5)
    args = parser.parse_args()
    configure_logging(level="warning")
    start = time.perf_counter()
    gains: dict[str, list[float]] = {name: [] for name in SETTINGS}
    speedups: dict[str, list[float]] = {name: [] for name in SETTINGS}
    utilisation: dict[str, list[float]] = {name: [] for name in SETTINGS}
    for seed in args.seeds:
        results = run_experiment(nodes=args.nodes, jobs=args.jobs, seed=seed, load=args.load)
        print(f"\n### seed {seed}: {args.nodes} nodes, {args.jobs} jobs, load {args.load}\n")
        print(table(results))
        base = results[0]
        for r in results:
            gains[r.setting].append((r.throughput / base.throughput - 1) * 100)
            speedups[r.setting].append(base.median_jct_s / r.median_jct_s)
            utilisation[r.setting].append(r.utilisation)
    print(f"\n### mean over seeds {args.seeds}\n")
    print("| setting | task throughput vs G-only | median JCT speed-up | utilisation | published anchor |")
    print("|---|---|---|---|---|")
    anchors = {
        "centralized": "Mercury: > +35% task throughput",
        "distributed": "Mercury: > +35% task throughput",
        "centralized+shortest-task-first": "Yaq-c: 1.7x median JCT",
        "centralized+closest-to-completion": "Yaq-c: 1.7x median JCT",
    }
    for name in SETTINGS:
        print(
            f"| {name} | {statistics.fmean(gains[name]):+.1f}% | {statistics.fmean(speedups[name]):.2f}x "
            f"| {statistics.fmean(utilisation[name]):.1%} | {anchors.get(name, '')} |"
        )
    print(f"\nwall time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
