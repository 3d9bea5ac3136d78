"""Opportunistic containers on a busy cluster of short tasks: guaranteed-only vs centralized vs distributed
allocation vs NodeManager queue reordering.

Run::

    python examples/opportunistic.py [--nodes 20] [--jobs 60] [--seed 1] [--load 1.5]

The workload is MapReduce-style jobs of map tasks lasting 1-5 s (SLS AMs), arriving as a Poisson process that
offers ``load`` times the cluster's capacity. With guaranteed containers only, every task waits for an NM heartbeat
(the RM allocates), then an AM heartbeat (the AM learns of it) before it starts: about 1-2 s of idle slot per task.
With opportunistic containers (``mapreduce.job.num-opportunistic-maps-percent`` = 100) tasks queue at the
NodeManagers (queue length 10, the value Hadoop's docs suggest) and start the moment a slot frees.

Prints, per setting: task throughput (successful tasks per simulated second), mean utilisation (running containers'
vcores over the cluster's, sampled every second at the NMs, so opportunistic containers count), median and mean job
completion time, and the ratios to guaranteed-only.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from yarnball import Cluster
from yarnball.actors import configure_logging
from yarnball.launcher.workloads import synthetic_workload
from yarnball.protocols import ContainerState, keys

OPPORTUNISTIC = {
    keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED: "true",
    keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH: "10",
    keys.MR_NUM_OPPORTUNISTIC_MAPS_PERCENT: "100",
}

#: The settings compared, in order; each is a configuration on top of Hadoop's defaults.
SETTINGS: dict[str, Mapping[str, str]] = {
    "guaranteed-only": {},
    "centralized": OPPORTUNISTIC,
    "distributed": {**OPPORTUNISTIC, keys.DIST_SCHEDULING_ENABLED: "true"},
    "centralized+shortest-task-first": {**OPPORTUNISTIC, keys.NM_OPPORTUNISTIC_QUEUE_ORDER: "SHORTEST_TASK_FIRST"},
    "centralized+closest-to-completion": {**OPPORTUNISTIC, keys.NM_OPPORTUNISTIC_QUEUE_ORDER: "CLOSEST_TO_COMPLETION"},
}


@dataclass(frozen=True)
class Result:
    setting: str
    tasks: int
    makespan_s: float
    throughput: float  # successful tasks per simulated second
    utilisation: float  # mean running vcores / total vcores
    median_jct_s: float
    mean_jct_s: float
    opportunistic_allocated: int
    opportunistic_killed: int


def run_setting(
    setting: str, conf: Mapping[str, str], *, nodes: int, jobs: int, seed: int, load: float
) -> Result:
    """Run the short-task workload under one setting and measure it."""
    workload = synthetic_workload(
        jobs, nodes, seed, maps=(5, 40), reduces=(0, 0), map_ms=(1_000, 5_000), reduce_ms=(1_000, 2_000), load=load
    )
    cluster = Cluster(dict(conf), workload.nodes, seed=seed)
    cluster.submit_workload(workload)
    total_vcores = sum(n.resource.vcores for n in workload.nodes)
    samples: list[float] = []

    def sample() -> None:
        used = 0
        for nm in cluster.nodes:
            for entry in nm.containers.values():
                if entry.state is ContainerState.RUNNING and not entry.paused:
                    used += entry.container.resource.vcores
        samples.append(used / total_vcores)

    cluster.every(1_000, sample, start_ms=1_000)
    cluster.run()
    reports = [a for a in cluster.applications if a.finish_time]
    first = min(a.start_time for a in reports)
    last = max(a.finish_time for a in reports)
    makespan_s = (last - first) / 1000
    tasks = sum(getattr(am, "completed_tasks", 0) for am in cluster.masters)
    jcts = [(a.finish_time - a.start_time) / 1000 for a in reports]
    busy = samples[: max(1, int(makespan_s))]
    counters: Any = cluster.rm.opportunistic.counters if cluster.rm.opportunistic is not None else {}
    return Result(
        setting=setting,
        tasks=tasks,
        makespan_s=makespan_s,
        throughput=tasks / makespan_s if makespan_s > 0 else 0.0,
        utilisation=sum(busy) / len(busy),
        median_jct_s=statistics.median(jcts),
        mean_jct_s=statistics.fmean(jcts),
        opportunistic_allocated=counters.get("opportunistic_allocated", 0),
        opportunistic_killed=counters.get("opportunistic_killed", 0),
    )


def run_experiment(
    *, nodes: int = 20, jobs: int = 60, seed: int = 1, load: float = 1.5, settings: Sequence[str] | None = None
) -> list[Result]:
    """Every setting on the same workload (same seed), side by side."""
    names = list(settings) if settings is not None else list(SETTINGS)
    return [run_setting(n, SETTINGS[n], nodes=nodes, jobs=jobs, seed=seed, load=load) for n in names]


def table(results: Sequence[Result]) -> str:
    """A Markdown table with ratios to the first (guaranteed-only) row."""
    base = results[0]
    lines = [
        "| setting | tasks/s | vs G-only | utilisation | median JCT (s) | median JCT speed-up | mean JCT (s) "
        "| O allocated | O killed |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        gain = (r.throughput / base.throughput - 1) * 100 if base.throughput else 0.0
        speedup = base.median_jct_s / r.median_jct_s if r.median_jct_s else 0.0
        lines.append(
            f"| {r.setting} | {r.throughput:.2f} | {gain:+.1f}% | {r.utilisation:.1%} | {r.median_jct_s:.1f} "
            f"| {speedup:.2f}x | {r.mean_jct_s:.1f} | {r.opportunistic_allocated} | {r.opportunistic_killed} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--load", type=float, default=1.5)
    args = parser.parse_args(argv)
    configure_logging(level="warning")
    results = run_experiment(nodes=args.nodes, jobs=args.jobs, seed=args.seed, load=args.load)
    print(table(results))


if __name__ == "__main__":
    main()
