"""Profile the measured period of bench_simulation.py's busy workload (after its warm-up), not the setup.

    python bench/profile_busy.py --nodes 2000                     # cProfile, top functions by own time
    python bench/profile_busy.py --nodes 2000 --scheduler fair    # the same under the FairScheduler (bench_simulation)
    python bench/profile_busy.py --nodes 10000 --py-spy out.raw   # py-spy (if installed) attached to this process:
                                                                  # compiled (mypyc) frames too, collapsed stacks

Run it from a tree with the compiled build to profile what the benchmark measures (cProfile sees a compiled
function as one call; py-spy ``--native`` sees inside it). The GC settings are the run's own (``Cluster.run``).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_simulation import SCHEDULERS, busy_workload, scheduler_conf

from yarnball.actors import configure_logging
from yarnball.launcher import Cluster
from yarnball.protocols import Configuration


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--warmup-seconds", type=int, default=60)
    parser.add_argument("--sim-seconds", type=int, default=60, help="simulated seconds profiled")
    parser.add_argument("--py-spy", metavar="OUT", help="record with py-spy --native into OUT (raw collapsed stacks)")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--scheduler", choices=tuple(SCHEDULERS), default="capacity", help="as bench_simulation.py's")
    args = parser.parse_args()
    configure_logging(level="warning")
    workload = busy_workload(
        args.nodes, args.warmup_seconds + args.sim_seconds, 1, (5_000, 60_000), (10_000, 120_000), 1.5
    )
    with tempfile.TemporaryDirectory(prefix="profile-busy-") as conf_dir:
        cluster = Cluster(Configuration(scheduler_conf(args.scheduler, Path(conf_dir))), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run(until_ms=args.warmup_seconds * 1000)
    gc.collect()
    allocated0 = cluster.rm.counters["containers_allocated"]
    events0 = cluster.kernel.events_processed
    end_ms = (args.warmup_seconds + args.sim_seconds) * 1000
    spy = None
    profile = None
    if args.py_spy:
        exe = shutil.which("py-spy")
        if exe is None:
            parser.error("py-spy is not installed (pip install py-spy)")
        spy = subprocess.Popen(
            [
                exe,
                "record",
                "--pid",
                str(os.getpid()),
                "--native",
                "--rate",
                "200",
                "--format",
                "raw",
                "--output",
                args.py_spy,
            ],
        )
        time.sleep(2)  # (py-spy attaches)
    else:
        profile = cProfile.Profile()
        profile.enable()
    cpu = time.process_time()
    cluster.run(until_ms=end_ms)
    cpu = time.process_time() - cpu
    if profile is not None:
        profile.disable()
    if spy is not None:
        spy.send_signal(signal.SIGINT)  # (py-spy writes its output when interrupted)
        spy.wait()
    print(
        f"{args.nodes} nodes, {args.sim_seconds} simulated s: {cpu:.2f} CPU s, "
        f"{cluster.rm.counters['containers_allocated'] - allocated0:,} allocations, "
        f"{cluster.kernel.events_processed - events0:,} kernel events"
    )
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
