"""Simulation speed: simulated seconds per wall second on a busy synthetic trace, 1 s heartbeats.

    python bench/bench_simulation.py                 # 1,000 and 10,000 nodes, SLS-like task lengths
    python bench/bench_simulation.py --nodes 1000 --compare          # also with every heartbeat processed
    python bench/bench_simulation.py --map-ms 300000 900000 --reduce-ms 300000 900000   # long tasks
    python bench/bench_simulation.py --compare --map-ms 300000 900000 --reduce-ms 300000 900000 \
        --load 6 --warmup-seconds 300 --sim-seconds 600   # long tasks, busy: 6x arrivals fill the cluster first

The trace (``busy_jobs``): synthetic MapReduce jobs of 20-200 maps and 0-20 reduces, 1 GB / 1 vcore containers
on 10 GB / 10 vcore nodes, arriving as a Poisson process that offers 1.5x the cluster's capacity over warm-up plus
measured period (``--load``: with long tasks 1.5x never fills the cluster within a short warm-up, since nothing
completes for minutes; a higher load fills it, then keeps a backlog). The cluster runs ``--warmup-seconds`` first
(it fills up), then the measured period; the memory utilisation over the measured period is sampled every simulated
second and printed, so "busy" is shown, not assumed. ``--compare`` also runs with AM skipping off, then
with NM and AM skipping off; ``--compare-dormancy`` also runs with dormant idle AMs off (skipping on).

The jobs are made as the run reaches them (``synthetic_jobs`` and ``Cluster.submit_jobs``), so memory follows the
jobs in the system, not the trace's length; the peak RSS of the process is printed. Hadoop's
``yarn.scheduler.capacity.maximum-applications`` (10,000 pending or running) is raised to the job count when the
trace has more jobs (``max_applications``): a short run of a large cluster (``--nodes 100000 --warmup-seconds 30
--sim-seconds 20``: 17,752 jobs, nearly all still pending or running at the end) would otherwise have thousands
rejected at submission, and measure rejections instead of scheduling.

``--scheduler {capacity,fair,fifo}`` names the scheduler through ``yarn.resourcemanager.scheduler.class``, as a user
would (``scheduler_conf``). The queues and the workload stay the same: the CapacityScheduler's default setup is one
queue, ``root.default``, at 100%, with ``maximum-am-resource-percent`` 0.1; the FairScheduler is given an allocation
file that says the same (``FAIR_ALLOCATIONS``: ``root.default`` with ``maxAMShare`` 0.1, every job placed there),
written for the run into a temporary directory; the FifoScheduler has its one ``default`` queue. Each scheduler keeps
its own defaults otherwise (the FairScheduler's ``assignmultiple`` is off, so a node gets one container per
heartbeat). Utilisation is read from the scheduler's root ``QueueMetrics`` (``root_queue_metrics``: allocated plus
reserved memory), for every scheduler the same way.

Goals (issue 3): >= 500x real time at 1,000 nodes and >= 50x at 10,000 nodes. Also reports peak memory per node
(tracemalloc, goal <= 2 KB beyond the workload itself) and scheduler allocations per wall second during the run.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# This tree's yarnball, not whichever one is installed (an editable install points at one checkout; the benchmark
# compares trees side by side, each run from its own directory).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from yarnball.actors import configure_logging
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import JobSpec, NodeSpec, Workload, synthetic_jobs, synthetic_nodes, synthetic_workload
from yarnball.policies.scheduler import CAPACITY_SCHEDULER, FAIR_SCHEDULER, FIFO_SCHEDULER, ResourceScheduler
from yarnball.protocols import Configuration, keys

MAPS, REDUCES = (20, 200), (0, 20)

#: ``--scheduler``: the class ``yarn.resourcemanager.scheduler.class`` names for each choice.
SCHEDULERS = {"capacity": CAPACITY_SCHEDULER, "fair": FAIR_SCHEDULER, "fifo": FIFO_SCHEDULER}

#: The FairScheduler's allocation file equivalent to the CapacityScheduler's default queues: one leaf root.default
#: taking every job (``specified`` skips the name ``default``, then the ``default`` rule places it), whose
#: application masters may use a tenth of its share, as ``yarn.scheduler.capacity.maximum-am-resource-percent``'s
#: default 0.1 lets them use of root.default's capacity.
FAIR_ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <queue name="default">
    <maxAMShare>0.1</maxAMShare>
  </queue>
  <queuePlacementPolicy>
    <rule name="specified" create="false"/>
    <rule name="default" queue="default"/>
  </queuePlacementPolicy>
</allocations>
"""


def busy_job_count(nodes: int, seconds: int, map_ms: tuple[int, int], reduce_ms: tuple[int, int], load: float) -> int:
    """How many jobs offer ``load`` x the cluster's container capacity for ``seconds`` simulated s."""
    mean_work = (sum(MAPS) / 2) * (sum(map_ms) / 2) + (sum(REDUCES) / 2) * (sum(reduce_ms) / 2)
    slots = nodes * 10  # default NM 10 GB / 10 vcores, 1 GB / 1 vcore containers
    return max(10, int(seconds * 1000 * slots * load / mean_work) + 1)


def busy_jobs(
    nodes: int, seconds: int, seed: int, map_ms: tuple[int, int], reduce_ms: tuple[int, int], load: float = 1.5
) -> tuple[tuple[NodeSpec, ...], int, Iterator[JobSpec]]:
    """A synthetic MapReduce trace offering ``load`` x the cluster's container capacity for ``seconds`` simulated s:
    its nodes, its job count and its jobs, made as the run reaches them (``Cluster.submit_jobs``)."""
    jobs = busy_job_count(nodes, seconds, map_ms, reduce_ms, load)
    node_specs = synthetic_nodes(nodes)
    return node_specs, jobs, synthetic_jobs(
        jobs, node_specs, seed, maps=MAPS, reduces=REDUCES, map_ms=map_ms, reduce_ms=reduce_ms, load=load
    )


def busy_workload(
    nodes: int, seconds: int, seed: int, map_ms: tuple[int, int], reduce_ms: tuple[int, int], load: float = 1.5
) -> Workload:
    """The same trace as :func:`busy_jobs`, every job made at once (``Cluster.submit_workload``): what the other
    benchmark scripts and bench/count_instructions.py run, in every tree they compare."""
    jobs = busy_job_count(nodes, seconds, map_ms, reduce_ms, load)
    return synthetic_workload(
        jobs, nodes, seed, maps=MAPS, reduces=REDUCES, map_ms=map_ms, reduce_ms=reduce_ms, load=load
    )


def max_applications(jobs: int) -> int:
    """``yarn.scheduler.capacity.maximum-applications`` for a run of ``jobs``: Hadoop's 10,000, or the job count when
    larger, so that no job is rejected (nearly all of a short run's jobs are pending or running at its end)."""
    return max(keys.DEFAULT_MAXIMUM_SYSTEM_APPLICATIONS, jobs)


def scheduler_conf(scheduler: str, conf_dir: Path) -> dict[str, str]:
    """The keys selecting ``scheduler`` (a :data:`SCHEDULERS` choice): its class, and for the FairScheduler the
    allocation file :data:`FAIR_ALLOCATIONS`, written into ``conf_dir``."""
    conf = {keys.RM_SCHEDULER: SCHEDULERS[scheduler]}
    if scheduler == "fair":
        allocations = conf_dir / "fair-scheduler.xml"
        allocations.write_text(FAIR_ALLOCATIONS, encoding="utf-8")
        conf[keys.ALLOCATION_FILE] = str(allocations)
    return conf


def memory_utilisation(scheduler: ResourceScheduler) -> float:
    """The root queue's allocated plus reserved memory over the cluster's (``getRootQueueMetrics``)."""
    root = scheduler.root_queue_metrics()
    return (root.allocated.memory_mb + root.reserved.memory_mb) / max(scheduler.cluster_resource.memory_mb, 1)


def peak_rss_mb() -> float:
    """This process's peak resident set size so far (MB; ru_maxrss is in kB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(
    nodes: int,
    sim_seconds: int,
    seed: int = 1,
    *,
    warmup_seconds: int = 60,
    skip: bool = True,
    map_ms: tuple[int, int] = (5_000, 60_000),
    reduce_ms: tuple[int, int] = (10_000, 120_000),
    measure_memory: bool = True,
    load: float = 1.5,
    skip_am: bool | None = None,
    dormant: bool = True,
    huge_pages: bool = True,
    container_tokens: bool = True,
    scheduler: str = "capacity",
) -> dict[str, float]:
    node_specs, num_jobs, jobs = busy_jobs(nodes, warmup_seconds + sim_seconds, seed, map_ms, reduce_ms, load)
    with tempfile.TemporaryDirectory(prefix="bench-simulation-") as conf_dir:
        scheduler_keys = scheduler_conf(scheduler, Path(conf_dir))
        gc.collect()
        if measure_memory:
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
        am = skip if skip_am is None else skip_am  # AM heartbeat skipping follows NM skipping unless given
        conf = Configuration({
            keys.SIMULATION_SKIP_IDLE_HEARTBEATS: str(skip).lower(),
            keys.SIMULATION_SKIP_IDLE_AM_HEARTBEATS: str(am).lower(),
            keys.SIMULATION_DORMANT_IDLE_AMS: str(dormant).lower(),
            keys.SIMULATION_HUGE_PAGE_ARENAS: str(huge_pages).lower(),
            keys.SIMULATION_CONTAINER_TOKENS: str(container_tokens).lower(),
            keys.MAXIMUM_SYSTEM_APPLICATIONS: str(max_applications(num_jobs)),
            **scheduler_keys,
        })
        cluster = Cluster(conf, node_specs, seed=seed)  # (the FairScheduler reads its allocation file here)
    per_node = 0.0
    if measure_memory:
        # memory of an idle registered cluster (before any job is submitted): the cost of the nodes themselves
        cluster.run(until_ms=2000)
        per_node = (tracemalloc.get_traced_memory()[0] - base) / nodes
        tracemalloc.stop()
    cluster.submit_jobs(jobs)
    cluster.run(until_ms=warmup_seconds * 1000)  # fill the cluster first; the measured period starts busy
    samples: list[float] = []
    rs = cluster.scheduler
    cluster.every(1000, lambda: samples.append(memory_utilisation(rs)))
    allocated0 = cluster.rm.counters["containers_allocated"]
    events0 = cluster.kernel.events_processed
    allocates0, skipped0 = cluster.rm.op_counts["allocate"], cluster.heartbeats.skipped_allocates
    t0 = cluster.now
    # A full collection first: otherwise one owed to the warm-up's allocations (the nodes, the workload: ~0.7 s at
    # 10,000 nodes) lands in the measured period or not by chance. The period's own GC work is counted, and shown.
    gc.collect()
    gc_spent = [0.0, 0.0]

    def _gc_timer(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            gc_spent[1] = time.perf_counter()
        else:
            gc_spent[0] += time.perf_counter() - gc_spent[1]

    gc.callbacks.append(_gc_timer)
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        cluster.run(until_ms=(warmup_seconds + sim_seconds) * 1000)
    finally:
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        gc.callbacks.remove(_gc_timer)
    simulated = (cluster.now - t0) / 1000
    allocations = cluster.rm.counters["containers_allocated"] - allocated0
    allocates = cluster.rm.op_counts["allocate"] - allocates0
    skipped = cluster.heartbeats.skipped_allocates - skipped0
    return {
        "nodes": nodes,
        "jobs": num_jobs,
        "simulated_s": simulated,
        "wall_s": wall,
        "cpu_s": cpu,
        "speedup": simulated / wall,
        "allocations": allocations,
        "allocations_per_wall_s": allocations / wall,
        "events": cluster.kernel.events_processed - events0,
        "am_allocates": allocates,
        "am_skipped": skipped,
        "utilization_mean": sum(samples) / max(len(samples), 1),
        "utilization_min": min(samples, default=0.0),
        "bytes_per_node": per_node,
        "gc_seconds": gc_spent[0],
        "peak_rss_mb": peak_rss_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--sim-seconds", type=int, default=120, help="measured simulated seconds")
    parser.add_argument("--warmup-seconds", type=int, default=60, help="simulated seconds before measuring")
    parser.add_argument("--map-ms", type=int, nargs=2, default=[5_000, 60_000], metavar=("LO", "HI"))
    parser.add_argument("--reduce-ms", type=int, nargs=2, default=[10_000, 120_000], metavar=("LO", "HI"))
    parser.add_argument("--load", type=float, default=1.5, help="offered load (x container capacity)")
    parser.add_argument("--compare", action="store_true", help="also run with every heartbeat processed")
    parser.add_argument(
        "--compare-dormancy", action="store_true", help="run with dormant idle AMs on, then off (skipping on)"
    )
    parser.add_argument(
        "--huge-page-arenas",
        choices=("on", "off"),
        default="on",
        help="yarnball.simulation.huge-page-arenas (installed for the process by its first cluster: one value a run)",
    )
    parser.add_argument(
        "--container-tokens",
        choices=("on", "off"),
        default="on",
        help="yarnball.simulation.container-tokens (off: no container token or NMToken made or checked, as in SLS)",
    )
    parser.add_argument(
        "--scheduler",
        choices=tuple(SCHEDULERS),
        default="capacity",
        help="the scheduler (yarn.resourcemanager.scheduler.class), with the same queues: one root.default",
    )
    args = parser.parse_args()
    configure_logging(level="warning")  # the event log is measured separately; console lines would dominate
    label = "" if args.scheduler == "capacity" else f" ({args.scheduler})"
    for n in args.nodes:
        modes = [(True, True, True)]
        if args.compare_dormancy:
            modes.append((True, True, False))
        if args.compare:
            modes += [(True, False, False), (False, False, False)]
        for skip, skip_am, dormant in modes:
            r = run(
                n,
                args.sim_seconds,
                warmup_seconds=args.warmup_seconds,
                skip=skip,
                map_ms=tuple(args.map_ms),
                reduce_ms=tuple(args.reduce_ms),
                load=args.load,
                skip_am=skip_am,
                dormant=dormant,
                huge_pages=args.huge_page_arenas == "on",
                container_tokens=args.container_tokens == "on",
                scheduler=args.scheduler,
            )
            print(
                f"{n:>6} nodes{label}, skip NM={'on ' if skip else 'off'} AM={'on ' if skip_am else 'off'} "
                f"dormant={'on ' if dormant else 'off'}{'' if args.container_tokens == 'on' else ' tokens=off'}: "
                f"{r['jobs']:,} jobs; "
                f"{r['simulated_s']:.0f} simulated s in {r['wall_s']:.2f} wall s = {r['speedup']:.1f}x real time "
                f"({r['gc_seconds']:.2f} s of it in cyclic GC; {r['cpu_s']:.2f} CPU s); "
                f"memory utilisation mean {r['utilization_mean']:.0%} (min {r['utilization_min']:.0%}); "
                f"{r['allocations']:,} allocations ({r['allocations_per_wall_s']:,.0f}/wall s); "
                f"{r['events']:,} kernel events; AM allocates {r['am_allocates']:,} sent, {r['am_skipped']:,} skipped; "
                f"{r['bytes_per_node']:,.0f} bytes per registered node; peak RSS {r['peak_rss_mb']:,.0f} MB",
                flush=True,
            )


if __name__ == "__main__":
    main()
