"""Side-by-side wall time of bench_simulation.py's run() for several source trees, in fresh processes, alternating.

    python bench/compare_trees.py --trees . /path/to/other/checkout --rounds 7 \\
        --nodes 1000 --map-ms 300000 900000 --reduce-ms 300000 900000 --load 6 --warmup-seconds 300 --sim-seconds 300

Each round runs every tree once, in turn, each in a new Python process with that tree first on ``sys.path`` (its own
yarnball, compiled in place or not, and its own bench_simulation.py); the measured period's wall seconds are printed
to four places and the medians compared at the end. For runs too short for bench_simulation.py's two decimals (the
long-task benchmark measures ~0.3 s), and for noisy machines: the median of alternating runs, as bench/RESULTS.md
asks for ratios measured side by side.

``--same-driver`` times the trees' yarnball with one driver for all, instead of each tree's bench_simulation.run: the
busy workload made whole before the run (``busy_workload`` and ``Cluster.submit_workload``, as
bench/count_instructions.py runs it), then ``cluster.run`` over the measured period. Use it to compare the core of
trees whose benchmark drivers differ: since the job feed (``Cluster.submit_jobs``), bench_simulation.run makes each
job as the run reaches it, inside the measured period, where an older driver made every job before it.

A tree given as ``PATH:tokens-off`` runs with ``yarnball.simulation.container-tokens`` false (what the tokens cost:
``--trees . .:tokens-off``); a tree whose yarnball predates the key has no such tokens and ignores it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, sys
root = sys.argv[1]
sys.path[:0] = [root, root + "/bench"]
import bench_simulation as b
from yarnball.actors import configure_logging
configure_logging(level="warning")
a = json.loads(sys.argv[2])
off = {"container_tokens": False} if sys.argv[3] == "off" else {}  # (keyword absent before the key existed)
r = b.run(a["nodes"], a["sim_seconds"], warmup_seconds=a["warmup_seconds"], map_ms=tuple(a["map_ms"]),
          reduce_ms=tuple(a["reduce_ms"]), load=a["load"], **off)
print(json.dumps({"wall_s": r["wall_s"], "allocations": r["allocations"], "events": r["events"]}))
"""


# The set-up bench/count_instructions.py's and bench/count_objects.py's children share, once the tree is first on
# sys.path (json, sys and gc imported; argv[2] run_params' JSON, argv[3] "off" for container tokens off): the tree's
# bench_simulation.py busy workload, run up to the measured period. It leaves ``cluster``, ``end`` (the run's last
# simulated second) and the period's starting counts ``events`` and ``allocated``.
BUSY_RUN_UNTIL_MEASURED = """\
import bench_simulation as b
from yarnball.actors import configure_logging
from yarnball.launcher import Cluster
from yarnball.protocols import Configuration
configure_logging(level="warning")
a = json.loads(sys.argv[2])
end = a["warmup_seconds"] + a["sim_seconds"]
w = b.busy_workload(a["nodes"], end, 1, tuple(a["map_ms"]), tuple(a["reduce_ms"]), a["load"])
off = {"yarnball.simulation.container-tokens": "false"} if sys.argv[3] == "off" else {}
cluster = Cluster(Configuration(off), w.nodes, seed=1)
cluster.submit_workload(w)
cluster.run(until_ms=a["warmup_seconds"] * 1000)
gc.collect()
events = cluster.kernel.events_processed
allocated = cluster.rm.counters["containers_allocated"]
"""


# --same-driver's child: the shared set-up, then the measured period timed.
SAME_DRIVER_CHILD = """
import gc, json, sys, time
root = sys.argv[1]
sys.path[:0] = [root, root + "/bench"]
""" + BUSY_RUN_UNTIL_MEASURED + """\
start = time.perf_counter()
cluster.run(until_ms=end * 1000)
wall = time.perf_counter() - start
print(json.dumps({"wall_s": wall, "events": cluster.kernel.events_processed - events,
                  "allocations": cluster.rm.counters["containers_allocated"] - allocated}))
"""


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The trees and the run's arguments (defaults: the long-task benchmark); bench/count_instructions.py's too."""
    parser.add_argument(
        "--trees", nargs="+", required=True, help="source trees (checkouts) to compare; PATH:tokens-off for tokens off"
    )
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--sim-seconds", type=int, default=300)
    parser.add_argument("--warmup-seconds", type=int, default=300)
    parser.add_argument("--map-ms", type=int, nargs=2, default=[300_000, 900_000])
    parser.add_argument("--reduce-ms", type=int, nargs=2, default=[300_000, 900_000])
    parser.add_argument("--load", type=float, default=6)


def run_params(args: argparse.Namespace) -> str:
    """The run's arguments as the JSON a child process reads."""
    return json.dumps({
        "nodes": args.nodes, "sim_seconds": args.sim_seconds, "warmup_seconds": args.warmup_seconds,
        "map_ms": args.map_ms, "reduce_ms": args.reduce_ms, "load": args.load,
    })  # fmt: skip


def tree_spec(spec: str) -> tuple[str, str, str]:
    """A ``--trees`` entry: how the output names it, its resolved path, and "off" when it ends in ``:tokens-off``
    (else "on")."""
    off = spec.endswith(":tokens-off")
    path = str(Path(spec.removesuffix(":tokens-off")).resolve())
    return (f"{path}:tokens-off" if off else path), path, "off" if off else "on"


def main() -> None:
    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--same-driver", action="store_true", help="one driver for every tree: the workload made before the run"
    )
    args = parser.parse_args()
    child = SAME_DRIVER_CHILD if args.same_driver else CHILD
    params = run_params(args)
    specs = [tree_spec(t) for t in args.trees]
    trees = [tree for tree, _, _ in specs]
    walls: dict[str, list[float]] = {t: [] for t in trees}
    for i in range(args.rounds):
        for tree, path, tokens in specs:
            out = subprocess.run(
                [sys.executable, "-c", child, path, params, tokens], capture_output=True, text=True, check=True, cwd="/"
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            walls[tree].append(r["wall_s"])
            print(f"round {i + 1}: {tree}: {r['wall_s']:.4f} wall s ({r['allocations']:,} allocations, "
                  f"{r['events']:,} events)", flush=True)  # fmt: skip
    base = statistics.median(walls[trees[0]])
    for tree in trees:
        median = statistics.median(walls[tree])
        print(
            f"{tree}: median {median:.4f} s, min {min(walls[tree]):.4f} s; {median / base:.3f} x the first tree's time"
        )


if __name__ == "__main__":
    main()
