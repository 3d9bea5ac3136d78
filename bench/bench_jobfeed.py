"""What the job feed costs a job: bench_simulation.py's busy synthetic trace made, packed and unpacked, per job.

    python bench/bench_jobfeed.py                      # the busy 10,000-node trace, 180 simulated s of jobs
    python bench/bench_jobfeed.py --nodes 1000 --seconds 600 --map-ms 300000 900000 --reduce-ms 300000 900000 --load 6

``Cluster.submit_jobs`` takes each job of the trace shortly before its submit time, inside the run: made and its
tasks packed as they are drawn (``SyntheticJobs.next_packed``), then unpacked when its AM registers. Printed: the
milliseconds per job of each step, of making the jobs as task specs instead (iterating the trace), and the packed
bytes per job.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_simulation import busy_jobs

from yarnball.launcher.workloads import SyntheticJobs
from yarnball.launcher.workloads._packed import PackedTasks, TaskValues


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--seconds", type=int, default=180, help="simulated seconds of jobs")
    parser.add_argument("--map-ms", type=int, nargs=2, default=[5_000, 60_000])
    parser.add_argument("--reduce-ms", type=int, nargs=2, default=[10_000, 120_000])
    parser.add_argument("--load", type=float, default=1.5)
    args = parser.parse_args()

    def trace() -> SyntheticJobs:
        _, _, jobs = busy_jobs(args.nodes, args.seconds, 1, tuple(args.map_ms), tuple(args.reduce_ms), args.load)
        assert isinstance(jobs, SyntheticJobs)
        return jobs

    jobs, values = trace(), TaskValues()
    start = time.perf_counter()
    packed: list[PackedTasks] = []
    while (drawn := jobs.next_packed(values)) is not None:
        packed.append(drawn[1])
    made = time.perf_counter() - start
    start = time.perf_counter()
    tasks = sum(len(p.unpack()) for p in packed)
    unpacked = time.perf_counter() - start
    start = time.perf_counter()
    specs = list(trace())
    iterated = time.perf_counter() - start
    n = max(len(packed), 1)
    print(f"{len(packed):,} jobs, {tasks / n:.1f} task rows a job")
    print(f"made and packed (the feed): {made / n * 1e3:.3f} ms a job, {sum(p.size for p in packed) / n:,.0f} bytes")
    print(f"unpacked (an AM registering): {unpacked / n * 1e3:.3f} ms a job")
    print(f"made as task specs (iterating the trace): {iterated / max(len(specs), 1) * 1e3:.3f} ms a job")


if __name__ == "__main__":
    main()
