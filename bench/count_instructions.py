"""Instructions executed in the measured period of bench_simulation.py's run, counted by valgrind's callgrind.

    python bench/count_instructions.py --trees . /path/to/other/checkout           # the long-task benchmark
    python bench/count_instructions.py --trees . --nodes 2000 --map-ms 5000 60000 --reduce-ms 10000 120000 \\
        --load 1.5 --warmup-seconds 60 --sim-seconds 30                             # a busy cluster

Wall time on this shared 2-core VM varies by 5-10% between runs of the same code, so a change worth 2-3% cannot be
seen in a few pairs. An instruction count can: the same tree gives the same count to ~0.3% whatever else the
machine runs. Each tree runs in its own process under ``valgrind --tool=callgrind --instr-atstart=no``, with its own
yarnball first on ``sys.path`` (as bench/compare_trees.py); the child switches instrumentation on (``callgrind_control
--instr=on``) just before the measured period and off after it, so the setup, the warm-up and the interpreter's start
are not counted. A count is a proxy: it does not see cache misses, which dominate at 10,000 nodes and more
(bench/RESULTS.md), so a cut is kept on wall-clock pairs, and the count explains it.

``--own-driver`` counts each tree's own ``bench_simulation.run`` (what bench/compare_trees.py times without
``--same-driver``): the measured period is its ``cluster.run`` up to the run's last simulated second, whatever the
driver does inside it (since the job feed, main's makes each job there; older drivers made them all first).

``--cache-sim`` adds callgrind's cache simulation: first-level instruction and data misses and last-level misses,
with the last level sized as this machine's per-core L2 (512 KiB, 8-way; ``--ll`` to change it), and the estimate
callgrind's manual gives for cycles, ``Ir + 10 x L1 misses + 100 x LL misses``. That sees what the bare count does
not: compiled code touches more distinct instructions than the interpreter's one loop, and equal counts can differ
in misses.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_trees import BUSY_RUN_UNTIL_MEASURED, add_run_arguments, run_params, tree_spec

CHILD = """
import gc, json, os, subprocess, sys
root = sys.argv[1]
sys.path[:0] = [root, root + "/bench"]
"""
CHILD += BUSY_RUN_UNTIL_MEASURED
CHILD += """\
toggle = lambda state: subprocess.run(["callgrind_control", "--instr=" + state, str(os.getpid())], check=True,
                                      capture_output=True)
toggle("on")
cluster.run(until_ms=end * 1000)
toggle("off")
print(json.dumps({"events": cluster.kernel.events_processed - events,
                  "allocations": cluster.rm.counters["containers_allocated"] - allocated}))
"""

# --own-driver's child: the tree's bench_simulation.run, instrumented over its measured period only.
OWN_DRIVER_CHILD = """
import json, os, subprocess, sys
root = sys.argv[1]
sys.path[:0] = [root, root + "/bench"]
import bench_simulation as b
from yarnball.actors import configure_logging
from yarnball.launcher import Cluster
configure_logging(level="warning")
a = json.loads(sys.argv[2])
end = (a["warmup_seconds"] + a["sim_seconds"]) * 1000
toggle = lambda state: subprocess.run(["callgrind_control", "--instr=" + state, str(os.getpid())], check=True,
                                      capture_output=True)
plain = Cluster.run
def run(self, until_ms=None, **kw):
    if until_ms != end:
        return plain(self, until_ms=until_ms, **kw)
    toggle("on")
    try:
        return plain(self, until_ms=until_ms, **kw)
    finally:
        toggle("off")
Cluster.run = run
off = {"container_tokens": False} if sys.argv[3] == "off" else {}
r = b.run(a["nodes"], a["sim_seconds"], warmup_seconds=a["warmup_seconds"], map_ms=tuple(a["map_ms"]),
          reduce_ms=tuple(a["reduce_ms"]), load=a["load"], measure_memory=False, **off)
print(json.dumps({"events": r["events"], "allocations": r["allocations"]}))
"""


def count(
    tree: str, params: str, tokens: str, cache: tuple[str, ...] = (), child: str = CHILD
) -> tuple[list[int], dict[str, int]]:
    """The counts callgrind collected over the measured period (Ir, then with ``cache`` its miss counts: Dr Dw I1mr
    D1mr D1mw ILmr DLmr DLmw), and the run's events and allocations."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                *cache,
                "--instr-atstart=no",
                f"--callgrind-out-file={tmp}/callgrind.out",
                sys.executable,
                "-c",
                child,
                tree,
                params,
                tokens,
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd="/",
        )
    match = re.search(r"Collected : ([\d, ]+)", out.stderr)
    if match is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{out.stderr[-2000:]}")
    counts = [int(c.replace(",", "")) for c in match.group(1).split()]
    return counts, json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    parser.add_argument("--cache-sim", action="store_true", help="simulate the caches too (about 2x slower)")
    parser.add_argument("--own-driver", action="store_true", help="each tree's own bench_simulation.run")
    parser.add_argument("--ll", default="524288,8,64", help="the simulated last level: size,associativity,line")
    args = parser.parse_args()
    cache = ("--cache-sim=yes", f"--LL={args.ll}") if args.cache_sim else ()
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} is not installed (Debian: apt-get install valgrind)")
    params = run_params(args)
    first = first_estimate = None
    for tree, path, tokens in [tree_spec(t) for t in args.trees]:
        counts, run = count(path, params, tokens, cache, OWN_DRIVER_CHILD if args.own_driver else CHILD)
        instructions = counts[0]
        first = first or instructions
        per = instructions / max(run["allocations"], 1)
        print(
            f"{tree}: {instructions:,} instructions ({instructions / first:.3f} x the first tree's), "
            f"{run['events']:,} events, {run['allocations']:,} allocations, {per:,.0f} per allocation",
            flush=True,
        )
        if cache:
            _ir, _dr, _dw, i1, d1r, d1w, ill, dllr, dllw = counts
            estimate = instructions + 10 * (i1 + d1r + d1w) + 100 * (ill + dllr + dllw)
            first_estimate = first_estimate or estimate
            print(
                f"  misses: I1 {i1:,}, D1 {d1r + d1w:,}, LL {ill + dllr + dllw:,} (instructions {ill:,}); "
                f"cycle estimate {estimate:,} ({estimate / first_estimate:.3f} x the first tree's)",
                flush=True,
            )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
