"""Overhead of serving a run (issue 20): ``--webapp`` with nobody polling, and with a client polling
``/ws/v1/cluster/metrics`` 10 times a second, against the same run without it.

The workload is bench_simulation.py's busy synthetic trace. Each repetition runs the three modes in turn (plain
``cluster.run()``; ``serve_cluster`` with nobody polling; ``serve_cluster`` with a poller in another process) on
fresh clusters, and the table gives the median wall time of each and the ratios to plain. Run it from the repo root:

    python bench/bench_webapp.py --nodes 500 --seconds 120 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_simulation import busy_workload

from yarnball.launcher import Cluster
from yarnball.launcher.web import serve_cluster
from yarnball.protocols import Configuration

POLLER = """
import sys, time, urllib.request
url, n = sys.argv[1] + "/ws/v1/cluster/metrics", 0
while True:
    t = time.perf_counter()
    try:
        urllib.request.urlopen(url, timeout=10).read(); n += 1
    except OSError:
        pass
    time.sleep(max(0.0, 0.1 - (time.perf_counter() - t)))
"""


def fresh(nodes: int, seconds: int) -> Cluster:
    workload = busy_workload(nodes, seconds, 1, (5_000, 60_000), (10_000, 120_000))
    cluster = Cluster(Configuration(), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    return cluster


def plain(nodes: int, seconds: int) -> tuple[float, float]:
    cluster = fresh(nodes, seconds)
    start, cpu = time.perf_counter(), time.process_time()
    cluster.run(until_ms=seconds * 1000)
    return time.perf_counter() - start, time.process_time() - cpu


def served(nodes: int, seconds: int, *, poll: bool) -> tuple[float, float, int]:
    cluster = fresh(nodes, seconds)
    procs: list[subprocess.Popen[bytes]] = []

    def started(url: str) -> None:
        if poll:
            procs.append(subprocess.Popen([sys.executable, "-c", POLLER, url]))

    from yarnball.launcher.web._driver import LiveSource

    taken = [0]
    real_latest = LiveSource.latest

    def counting(self: LiveSource) -> object:
        before = self.snapshots_taken
        snap = real_latest(self)
        taken[0] += self.snapshots_taken - before
        return snap

    LiveSource.latest = counting  # type: ignore[method-assign]
    cpu = time.process_time()
    try:
        result = serve_cluster(cluster, "127.0.0.1", 0, until_ms=seconds * 1000, keep_serving=False, on_started=started)
    finally:
        LiveSource.latest = real_latest  # type: ignore[method-assign]
        for p in procs:
            p.kill()
            p.wait()
    # CPU of this process (the run, the server, the snapshots; not the poller's), server start and stop included
    return result.wall_seconds, time.process_time() - cpu, taken[0]


def main() -> None:
    import io

    from yarnball.actors._logging import configure_logging

    configure_logging(level="error", stream=io.StringIO())  # as the CLI: the run's log is not the benchmark's
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--seconds", type=int, default=120, help="simulated seconds")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    walls: dict[str, list[float]] = {"plain": [], "webapp": [], "webapp+poll": []}
    cpus: dict[str, list[float]] = {"plain": [], "webapp": [], "webapp+poll": []}
    snaps: list[int] = []
    for _ in range(args.repeat):
        for mode in walls:
            if mode == "plain":
                wall, cpu = plain(args.nodes, args.seconds)
            else:
                wall, cpu, taken = served(args.nodes, args.seconds, poll=mode == "webapp+poll")
                if mode == "webapp+poll":
                    snaps.append(taken)
            walls[mode].append(wall)
            cpus[mode].append(cpu)
    print(f"nodes={args.nodes} simulated={args.seconds}s repeat={args.repeat}")
    for label, table in (("wall", walls), ("cpu", cpus)):
        base = statistics.median(table["plain"])
        for mode, values in table.items():
            med = statistics.median(values)
            runs = ", ".join(f"{v:.2f}" for v in values)
            print(f"{label:4s} {mode:12s} median {med:.2f} s  ({runs})  x{med / base:.3f} of plain")
    print(f"snapshots taken while polled: {snaps}")


if __name__ == "__main__":
    main()
