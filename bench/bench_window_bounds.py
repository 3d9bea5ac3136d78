"""How many windows per-host lower bounds on the next cross-host message could save (issue 18 item 2), measured
before building them: an upper bound.

    python bench/bench_window_bounds.py                       # SLS sample + busy synthetic 200 and 1,000 nodes
    python bench/bench_window_bounds.py --nodes 200 1000 --latency-ms 1 10

A 2-host in-process run (no Ray; the results are the embedded ones) records every event's time and every
cross-host send's time. The coordinator's rule today is replayed on those event times (window ``[s, s + L)``,
the next one starting at the first event at or after its end: it matches the windows the run really ran), then the
rule an exact *oracle* bound would allow: window ``[s, T + L)`` with ``T`` the first cross-host send at or after
``s`` (nothing can arrive inside the window before a message is sent). A real bound (a host whose NMs and AMs have
no heartbeat, container event or reply due before T) can only be as late as that oracle, so the oracle's saving is
the most such bounds could give.
"""

from __future__ import annotations

import argparse
import bisect
import time
from typing import Any

from yarnball.actors import configure_logging
from yarnball.actors._kernel import Kernel
from yarnball.launcher import Cluster
from yarnball.launcher._shard import ShardHost
from yarnball.launcher.workloads import load_workload, synthetic_workload
from yarnball.protocols import Configuration

SLS_TRACE = "/work/shared/data/sls/2jobs2min-rumen-jh.json"
SLS_CONF = "/work/shared/data/sls/sample-conf"


def windows(events: list[float], sends: list[float], latency: float) -> tuple[int, int]:
    """(windows by today's rule, windows with the oracle bound) over sorted event and send times."""
    today = oracle = 0
    s: float | None = events[0] if events else None
    while s is not None:
        today += 1
        k = bisect.bisect_left(events, s + latency)
        s = events[k] if k < len(events) else None
    s = events[0] if events else None
    while s is not None:
        oracle += 1
        j = bisect.bisect_left(sends, s)
        end = sends[j] + latency if j < len(sends) else float("inf")
        k = bisect.bisect_left(events, end)
        s = events[k] if k < len(events) else None
    return today, oracle


def measure(label: str, workload: Any, latency: float, conf: Configuration, until: float | None) -> None:
    events: list[float] = []
    sends: list[float] = []
    original = ShardHost.send

    def send(self: ShardHost, dst: str, message: Any, sender: Any, delay: float, dst_host: int | None = None) -> None:
        sends.append(self.kernel.now)
        original(self, dst, message, sender, delay, dst_host)

    cluster = Cluster(conf, workload.nodes, seed=1, backend="inprocess", hosts=2, latency_ms=latency)
    cluster.submit_workload(workload)
    group = cluster._start()  # type: ignore[attr-defined]
    cluster._flush_steps(group)  # type: ignore[attr-defined]
    for view in group.views:
        kernel = view.host.kernel

        def enter(entry: Any, kernel: Kernel = kernel) -> None:  # observes every event (Kernel.run's hook)
            events.append(entry[0])
            Kernel._enter(kernel, entry)

        kernel._enter = enter  # type: ignore[method-assign]
    ShardHost.send = send  # type: ignore[method-assign]
    start = time.perf_counter()
    try:
        cluster.run(until_ms=until)
    finally:
        ShardHost.send = original  # type: ignore[method-assign]
    wall = time.perf_counter() - start
    events.sort()
    sends.sort()
    today, oracle = windows(events, sends, latency)
    ran = cluster.windows  # type: ignore[attr-defined]
    print(
        f"{label}, --latency-ms {latency:g}: {cluster.now / 1000:.0f} simulated s, {len(events):,} events, "
        f"{len(sends):,} cross-host messages; windows run {ran:,} (today's rule replayed: {today:,}); with an exact "
        f"oracle bound {oracle:,} = at most {1 - oracle / max(today, 1):.1%} fewer ({wall:.1f} wall s)",
        flush=True,
    )
    cluster.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, nargs="*", default=[200, 1000])
    parser.add_argument("--latency-ms", type=float, nargs="*", default=[1.0, 10.0])
    parser.add_argument("--sim-seconds", type=float, default=10)
    args = parser.parse_args()
    configure_logging(level="error")
    sls = load_workload("RUMEN", SLS_TRACE)
    for latency in args.latency_ms:
        measure(
            f"SLS sample ({len(sls.nodes)} nodes, 2 jobs)", sls, latency, Configuration.from_conf_dir(SLS_CONF), None
        )
    for nodes in args.nodes:
        workload = synthetic_workload(max(10, nodes // 5), nodes, 1, load=1.5)
        for latency in args.latency_ms:
            until = 1000 + args.sim_seconds * 1000
            measure(f"busy synthetic, {nodes:,} nodes", workload, latency, Configuration(), until)


if __name__ == "__main__":
    main()
