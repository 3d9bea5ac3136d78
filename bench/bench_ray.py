"""The Ray backend: batched messages between hosts, simulation speed against embedded, and the naive design.

    python bench/bench_ray.py                                  # everything, defaults below
    python bench/bench_ray.py --skip-sim --skip-naive          # only the batch throughput
    python bench/bench_ray.py --skip-sim --skip-naive --mix-nodes 1000   # plus the real cross-host mix

1. Batched messages between shard hosts per second (goal >= 250k/s): host 1's kernel sends NodeHeartbeatRequests
   to host 0 through the real path (RemoteRef -> outbox -> canonical sort -> codec batch envelope), and host 0
   decodes each batch and queues every message in its kernel under its canonical key. Batches go from actor to
   actor as Ray object refs, pipelined. Besides the two synthetic heartbeat shapes, ``--mix-nodes N`` records the
   batches that really cross between 2 hosts in a simulation of N nodes (in-process hosts, ``synthetic_workload``,
   ``--mix-latency-ms``) and replays exactly those messages, in order, through the same path. Each shape is run
   ``--repeat`` times and the median is reported.
2. Simulation speed at ``--nodes`` (default 10,000) on ``synthetic_workload(nodes/5 jobs, load 1.5)``: embedded,
   Ray with 1 host and Ray with 2 hosts, the same latency on all three, the same simulated span, side by side.
3. The naive design, one Ray actor per simulated node (the RM on its own actor, every NodeManager on its own
   actor, the AMs spread over the node actors), with the same window protocol, side by side with 1 and 2 shard
   hosts on the same workload at the same node count (``--naive-nodes``, as many as this machine can start).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import time
from collections import Counter
from typing import Any

import ray

from yarnball.actors import configure_logging
from yarnball.launcher import Cluster
from yarnball.launcher._cluster import normalized_conf
from yarnball.launcher._shard import ShardHost, decode_envelope
from yarnball.launcher.workloads import synthetic_workload
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    ContainerId,
    ContainerState,
    ContainerStatus,
    NodeHeartbeatRequest,
    NodeId,
    keys,
)
from yarnball.protocols._resourcetracker import NodeStatus


def heartbeat(i: int, containers: int = 2) -> NodeHeartbeatRequest:
    attempt = ApplicationAttemptId(ApplicationId(1_700_000_000_000, 1 + i % 50), 1)
    statuses = tuple(
        ContainerStatus(container_id=ContainerId(attempt, 1 + (i + k) % 1000), state=ContainerState.RUNNING)
        for k in range(containers)
    )
    return NodeHeartbeatRequest(
        node_status=NodeStatus(node_id=NodeId(f"node{i}", 0), response_id=i, container_statuses=statuses)
    )


@ray.remote(num_cpus=0)
class Producer:
    def __init__(self, batch: int, containers: int, sender: bool, mix: list[bytes] | None = None) -> None:
        if mix is None:
            self.host = ShardHost(1, 2, normalized_conf(None), cluster_timestamp=1, latency_ms=1)
            rm = self.host.kernel.lookup("rm")
            nm = self.host.kernel.lookup("nm-node1") if sender else None
            self.sends = [(rm, heartbeat(i, containers), nm) for i in range(batch)]
        else:
            # The recorded mix goes both ways (NMs and AMs to the RM, the RM to them): every target is placed on
            # the consumer (host 0), so each message crosses once, in its recorded order, with its sender's id.
            items = [item for data in mix for item in decode_envelope(data)]
            placement = {dst: 0 for _, _, _, dst, _, _ in items}
            self.host = ShardHost(1, 2, normalized_conf(None), cluster_timestamp=1, latency_ms=1, placement=placement)
            lookup = self.host.kernel.lookup
            self.sends = [(lookup(dst), m, None if src is None else lookup(src)) for _, _, _, dst, src, m in items]
            self.sends = [self.sends[i % len(self.sends)] for i in range(batch)]
        gc.freeze()  # as a shard host does after setup

    def produce(self) -> bytes:
        host = self.host
        for ref, message, sender in self.sends:
            ref.tell(message, sender)
        return host.take_outbox()[0]


@ray.remote(num_cpus=0)
class Consumer:
    def __init__(self) -> None:
        self.host = ShardHost(0, 2, normalized_conf(None), cluster_timestamp=1, latency_ms=1)
        self.received = 0
        gc.freeze()

    def consume(self, data: bytes) -> int:
        self.host.deliver([data])
        queued = len(self.host.kernel._queue)
        self.host.kernel._queue.clear()  # the events are not run here; only delivery is measured
        self.received += queued
        return queued

    def ping(self) -> int:
        return self.received


def bench_batches(
    batch: int, rounds: int, containers: int, sender: bool = False, repeat: int = 1, mix: list[bytes] | None = None
) -> float:
    """Messages per second (median of ``repeat`` runs) from host 1 to host 0; prints the figure and returns it."""
    producer, consumer = Producer.remote(batch, containers, sender, mix), Consumer.remote()
    ray.get([consumer.ping.remote(), producer.produce.remote()])  # warm up both processes
    size = len(ray.get(producer.produce.remote()))
    rates = []
    for _ in range(repeat):
        start = time.perf_counter()
        refs = [consumer.consume.remote(producer.produce.remote()) for _ in range(rounds)]
        total = sum(ray.get(refs))
        rates.append(total / (time.perf_counter() - start))
    rates.sort()
    median = rates[len(rates) // 2]
    shape = (
        "the real cross-host mix"
        if mix is not None
        else f"heartbeats with {containers} container statuses{' and a sender' if sender else ''}"
    )
    print(
        f"batched host->host, {shape}: {rounds} batches of {batch:,} ({size / batch:.0f} B/msg), median of "
        f"{repeat} = {median:,.0f} messages/s (min {rates[0]:,.0f}, max {rates[-1]:,.0f}; "
        "send+sort+encode, Ray transfer, decode+queue)"
    )
    for actor in (producer, consumer):
        ray.kill(actor)
    return median


def record_mix(nodes: int, sim_seconds: float, latency: float) -> tuple[list[bytes], int]:
    """The batches that cross between 2 shard hosts (both ways) in a simulation, as encoded on the way."""
    from yarnball.launcher import _shard

    recorded: list[bytes] = []
    encode = _shard.encode_envelope

    def recording(items: list[Any]) -> bytes:
        data = encode(items)
        recorded.append(data)
        return data

    workload = synthetic_workload(max(10, nodes // 5), nodes, 1, load=1.5)
    cluster = Cluster(Configuration(), workload.nodes, seed=1, backend="inprocess", hosts=2, latency_ms=latency)
    cluster.submit_workload(workload)
    cluster.run(until_ms=1000)  # setup and node registration, as in the simulation rows
    before = cluster.windows
    _shard.encode_envelope = recording  # type: ignore[assignment]
    try:
        cluster.run(until_ms=1000 + sim_seconds * 1000)
    finally:
        _shard.encode_envelope = encode  # type: ignore[assignment]
        cluster.close()
    return recorded, cluster.windows - before


def describe_mix(mix: list[bytes], windows: int) -> None:
    items = [item for data in mix for item in decode_envelope(data)]
    kinds = Counter(type(m).__name__ for *_, m in items)
    beats = [m for *_, m in items if isinstance(m, NodeHeartbeatRequest)]
    statuses = sum(len(m.node_status.container_statuses) for m in beats) / max(1, len(beats))
    size = sum(len(d) for d in mix) / max(1, len(items))
    print(
        f"real mix: {len(items):,} messages in {len(mix):,} batches over {windows:,} windows "
        f"({len(items) / max(1, len(mix)):.1f} per batch), {size:.0f} B/msg; "
        + ", ".join(f"{k} {v / len(items):.1%}" for k, v in kinds.most_common())
        + f"; {statuses:.2f} container statuses per NodeHeartbeatRequest on average"
    )


def sim(
    nodes: int,
    sim_seconds: float,
    latency: float,
    backend: str,
    hosts: int = 1,
    jobs: int = 0,
    compile_after: int | None = None,
    in_driver: bool | None = None,
    **kw: Any,
) -> dict[str, Any]:
    workload = synthetic_workload(jobs or max(10, nodes // 5), nodes, 1, load=1.5)
    extra = {} if backend == "embedded" else {"hosts": hosts, **kw}
    conf = Configuration()
    if compile_after is not None:
        conf.set(keys.RAY_COMPILED_GRAPH_AFTER_WINDOWS, str(compile_after))
    if in_driver is not None:
        conf.set(keys.RAY_RM_HOST_IN_DRIVER, str(in_driver).lower())
    cluster = Cluster(conf, workload.nodes, seed=1, backend=backend, latency_ms=latency, **extra)
    cluster.submit_workload(workload)
    t0 = time.perf_counter()
    cluster.run(until_ms=1000)  # setup shipped, every node started
    setup = time.perf_counter() - t0
    windows0, overheads0 = getattr(cluster, "windows", 0), len(getattr(cluster, "window_overheads", ()))
    busy0 = list(getattr(cluster, "host_busy", ()))
    wall0 = getattr(cluster, "windows_wall", 0.0)
    start = time.perf_counter()
    cpu = time.process_time()
    cluster.run(until_ms=1000 + sim_seconds * 1000)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu  # this process only: all of embedded and 1 host in the driver, host 0 else
    span = (cluster.now - 1000) / 1000  # shorter than asked if every application finished first
    counters = cluster.counters
    result = {
        "wall": wall,
        "cpu": cpu,
        "setup": setup,
        "span": span,
        "speed": span / wall,
        "allocated": counters.get("containers_allocated", 0),
        "windows": getattr(cluster, "windows", 0),
        "cross": sum(s["messages_out"] for s in cluster.host_stats()) if backend != "embedded" else 0,
    }
    if backend != "embedded":
        # The measured span only (setup's windows left out): the window protocol's cost, per window and per host.
        overheads = sorted(cluster.window_overheads[overheads0:])  # type: ignore[attr-defined]
        windows = cluster.windows - windows0  # type: ignore[attr-defined]
        loop = cluster.windows_wall - wall0  # type: ignore[attr-defined]
        busy = [b - b0 for b, b0 in zip(cluster.host_busy, busy0, strict=True)]  # type: ignore[attr-defined]
        stats = cluster.window_stats()  # type: ignore[attr-defined]
        result.update(
            measured_windows=windows,
            overhead_us=overheads[len(overheads) // 2] * 1e6 if overheads else float("nan"),
            overhead_p90_us=overheads[int(len(overheads) * 0.9)] * 1e6 if overheads else float("nan"),
            overhead_mean_us=sum(overheads) / len(overheads) * 1e6 if overheads else float("nan"),
            busy=[b / loop if loop else 0.0 for b in busy],
            compiled=stats["compiled_graph"],
            per_host=stats["per_host"],
        )
    cluster.close()
    return result


def sim_rate(
    nodes: int, span: float, latency: float, hosts: int, repeat: int, min_wall: float, **kw: Any
) -> tuple[dict[str, Any], list[float]]:
    """Ray runs on ``synthetic_workload`` at ``nodes`` nodes, each simulating at least ``span`` s and, if that
    takes under ``min_wall`` wall seconds, a span long enough to take about that long (more jobs, arriving at the
    same rate: the same workload shape for longer); ``repeat`` runs at the final span, the median by speed."""
    base = max(10, nodes // 5)  # jobs for 10 simulated s, as everywhere in this bench
    r = sim(nodes, span, latency, "ray", hosts, jobs=base * max(1, math.ceil(span / 10)), **kw)
    while r["wall"] < min_wall and r["span"] >= span * 0.99:
        span = span * min(50, math.ceil(1.25 * min_wall / max(r["wall"], 0.01)))
        r = sim(nodes, span, latency, "ray", hosts, jobs=base * max(1, math.ceil(span / 10)), **kw)
    runs = [r]
    for _ in range(repeat - 1):
        runs.append(sim(nodes, span, latency, "ray", hosts, jobs=base * max(1, math.ceil(span / 10)), **kw))
    runs.sort(key=lambda x: x["speed"])
    median = dict(runs[len(runs) // 2])
    median["setup"] = runs[0]["setup"] if len(runs) == 1 else min(x["setup"] for x in runs)
    return median, [x["speed"] * nodes for x in runs]


def same_span_rate(
    nodes: int, span: float, latency: float, hosts: int, repeat: int, min_wall: float
) -> tuple[dict[str, Any], list[float]]:
    """The naive design's exact workload and span, run on fresh clusters back to back until they add up to at
    least ``min_wall`` wall seconds (rate = simulated s / wall s summed over them); median of ``repeat`` such."""
    groups = []
    for _ in range(repeat):
        runs = [sim(nodes, span, latency, "ray", hosts)]
        while sum(r["wall"] for r in runs) < min_wall:
            runs.append(sim(nodes, span, latency, "ray", hosts))
        wall = sum(r["wall"] for r in runs)
        total = sum(r["span"] for r in runs)
        groups.append({**runs[0], "wall": wall, "span": total, "speed": total / wall, "runs": len(runs)})
    groups.sort(key=lambda g: g["speed"])
    return groups[len(groups) // 2], [g["speed"] * nodes for g in groups]


def report(label: str, nodes: int, sim_seconds: float, r: dict[str, Any], base: dict[str, Any] | None) -> None:
    same = (
        ""
        if base is None
        else (
            "; same allocations as embedded"
            if r["allocated"] == base["allocated"]
            else f"; ALLOCATIONS DIFFER ({r['allocated']} vs {base['allocated']})"
        )
    )
    load = os.getloadavg()
    print(
        f"{label:<28} {nodes:>6} nodes: {r['span']:.0f} simulated s in {r['wall']:.1f} wall s = "
        f"{r['speed']:.2f}x real time ({nodes * r['speed']:,.0f} node-s per wall s), driver CPU {r['cpu']:.1f} s; "
        f"windows {r['windows']:,}, "
        f"cross-host messages {r['cross']:,}; setup {r['setup']:.1f} s{same}; load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end (1 / 5 / 15 min)",
        flush=True,
    )
    if "overhead_us" in r and r["measured_windows"] > 1:
        hosts = "; ".join(
            f"host {h['host']}: busy {b:.0%}, {h['events_per_window']:.1f} events, "
            f"{h['messages_in_per_window']:.1f} in / {h['messages_out_per_window']:.1f} out per window"
            for h, b in zip(r["per_host"], r["busy"], strict=True)
        )
        print(
            f"{'':<28} {'compiled graph' if r['compiled'] else 'plain actor calls'}: {r['measured_windows']:,} "
            f"measured windows, overhead per window median {r['overhead_us']:.0f} us (p90 {r['overhead_p90_us']:.0f}"
            f" us, mean {r['overhead_mean_us']:.0f} us); {hosts} (per window: whole run)"
        )


def naive_vs_ours(n: int, seconds: float, latency: float, repeat: int, min_wall: float) -> None:
    """The naive design and the shard hosts side by side at ``n`` nodes. The machine's load drifts, so the runs
    are interleaved: each of ``repeat`` rounds runs the naive design once and then every configuration of ours,
    and the ratio is taken within the round; medians over the rounds are reported."""
    workload = synthetic_workload(max(10, n // 5), n, 1, load=1.5)
    placement = {f"nm-{spec.hostname}": 1 + i for i, spec in enumerate(workload.nodes)}
    # AM actor ids are am-<job>-<submission index>; the naive design spreads them over the node actors.
    placement.update({f"am-{job.job_id}-{k}": 1 + k % n for k, job in enumerate(workload.jobs)})
    print(f"-- naive design vs shard hosts at {n} nodes, synthetic_workload(load 1.5), {repeat} interleaved rounds")
    t0 = time.perf_counter()
    sim(n, 0.001, latency, "ray", n + 1, placement=placement)  # starts the n + 1 Ray actors (kept for the runs)
    print(f"naive: starting {n + 1} Ray actors and shipping the setup took {time.perf_counter() - t0:.1f} s")
    configs = [(1, latency, False), (1, latency, True), (2, latency, False), (1, 0.0, False), (1, 0.0, True)]
    spans: dict[tuple[int, float], float] = {}  # the long span found for a configuration in round 1
    naive_speeds: list[float] = []
    results: dict[tuple[int, float, bool], list[tuple[float, float, dict[str, Any]]]] = {c: [] for c in configs}
    for _ in range(repeat):
        naive = sim(n, seconds, latency, "ray", n + 1, placement=placement)
        naive_speeds.append(naive["speed"] * n)
        report(f"naive: {n + 1} Ray actors, {latency:g} ms", n, seconds, naive, None)
        for hosts, lat, long in configs:
            if long:
                if (hosts, lat) not in spans:
                    continue  # one run of the naive span already takes >= min_wall: no longer span needed
                r, _ = sim_rate(n, spans[(hosts, lat)], lat, hosts, 1, 0.0)
            else:
                r, _ = same_span_rate(n, seconds, lat, hosts, 1, min_wall)
                if r["runs"] > 1 and (hosts, lat) not in spans:
                    spans[(hosts, lat)] = sim_rate(n, seconds, lat, hosts, 1, min_wall)[0]["span"]
            results[(hosts, lat, long)].append((r["speed"] * n, r["speed"] / naive["speed"], r))
    naive_speeds.sort()
    print(
        f"naive, {n + 1} Ray actors, {latency:g} ms: median {naive_speeds[len(naive_speeds) // 2]:,.0f} node-s per "
        f"wall s over {seconds:g} simulated s (rounds: {', '.join(f'{v:,.0f}' for v in naive_speeds)})"
    )
    for (hosts, lat, long), rows in results.items():
        if not rows:
            continue
        speeds = sorted(v for v, _, _ in rows)
        ratios = sorted(q for _, q, _ in rows)
        r = rows[0][2]
        what = (
            f"long span {r['span']:.0f} s per run"
            if long
            else f"the naive span, {r.get('runs', 1)} run(s) back to back = {r['span']:.0f} s"
        )
        label = f"ours: {hosts} host(s), {lat:g} ms" + (" (skipping)" if hosts == 1 and lat == 0 else "")
        print(
            f"{label}, {what}: median {speeds[len(speeds) // 2]:,.0f} node-s per wall s "
            f"(rounds: {', '.join(f'{v:,.0f}' for v in speeds)}); ratio to naive in the same round: median "
            f"{ratios[len(ratios) // 2]:.1f}x (rounds: {', '.join(f'{q:.1f}x' for q in ratios)}); "
            f"wall {r['wall']:.1f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--sim-seconds", type=float, default=10)
    parser.add_argument("--latency-ms", type=float, nargs="*", default=[1.0, 10.0])
    parser.add_argument("--hosts", type=int, nargs="*", default=[2], help="host counts beside 1 (plain, compiled)")
    parser.add_argument("--naive-nodes", type=int, nargs="*", default=[64])
    parser.add_argument("--naive-latency-ms", type=float, default=1.0)
    parser.add_argument("--naive-sim-seconds", type=float, default=10)
    parser.add_argument("--min-wall", type=float, default=2.0, help="ours simulates a longer span if quicker")
    parser.add_argument("--with-sender", action="store_true", help="also send the heartbeats with the NM as sender")
    parser.add_argument("--repeat", type=int, default=3, help="runs per batch shape; the median is reported")
    parser.add_argument("--mix-nodes", type=int, default=1000, help="record the real cross-host mix (0: skip)")
    parser.add_argument("--mix-latency-ms", type=float, default=1.0)
    parser.add_argument("--mix-sim-seconds", type=float, default=5)
    parser.add_argument(
        "--rm-host-in-driver",
        choices=["true", "false", "both"],
        default="true",
        help="yarnball.ray.rm-host-in-driver for the Ray rows (both: each Ray row twice, side by side)",
    )
    parser.add_argument(
        "--window-loop",
        choices=["plain", "compiled", "both"],
        default="both",
        help="2+ hosts: plain actor calls from the first window, the compiled graph from the first window, or both",
    )
    parser.add_argument("--sim-rounds", type=int, default=1, help="simulation rows: rounds of every configuration")
    parser.add_argument("--skip-batches", action="store_true")
    parser.add_argument("--skip-sim", action="store_true")
    parser.add_argument("--skip-naive", action="store_true")
    args = parser.parse_args()
    configure_logging(level="warning")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        for containers in () if args.skip_batches else (0, 2):
            bench_batches(args.batch, args.rounds, containers, repeat=args.repeat)
        if args.with_sender and not args.skip_batches:
            for containers in (0, 2):
                bench_batches(args.batch, args.rounds, containers, sender=True, repeat=args.repeat)
        if args.mix_nodes and not args.skip_batches:
            mix, windows = record_mix(args.mix_nodes, args.mix_sim_seconds, args.mix_latency_ms)
            print(
                f"-- the real mix: 2 in-process hosts, {args.mix_nodes:,} nodes, synthetic_workload, latency "
                f"{args.mix_latency_ms} ms, simulated 1 s -> {1 + args.mix_sim_seconds:.0f} s"
            )
            describe_mix(mix, windows)
            bench_batches(args.batch, args.rounds, 0, repeat=args.repeat, mix=mix)
        if not args.skip_sim:
            drivers = {"true": [True], "false": [False], "both": [True, False]}[args.rm_host_in_driver]
            for latency in args.latency_ms:
                # Each round runs every configuration once, embedded first; the ratio to embedded is taken within
                # the round (the machine's load drifts), and its median over the rounds is printed at the end.
                ratios: dict[str, list[float]] = {}
                for round_ in range(args.sim_rounds):
                    print(f"-- latency {latency} ms between actors (the window on 2 hosts), round {round_ + 1}")
                    base = sim(args.nodes, args.sim_seconds, latency, "embedded")
                    report("embedded", args.nodes, args.sim_seconds, base, None)
                    for hosts in (1, *args.hosts) if latency > 0 else (1,):  # 2+ hosts need a window > 0
                        loops = {"plain": [(-1, ", plain")], "compiled": [(0, ", compiled")]}
                        loops["both"] = loops["plain"] + loops["compiled"]
                        modes = [(None, "")] if hosts == 1 else loops[args.window_loop]
                        for in_driver in drivers:
                            where = ", host 0 in driver" if in_driver else ", host 0 in actor"
                            for after, how in modes:
                                r = sim(
                                    args.nodes,
                                    args.sim_seconds,
                                    latency,
                                    "ray",
                                    hosts,
                                    compile_after=after,
                                    in_driver=in_driver,
                                )
                                label = f"ray, {hosts} host(s){how}{where}"
                                report(label, args.nodes, args.sim_seconds, r, base)
                                ratios.setdefault(label, []).append(r["speed"] / base["speed"])
                if args.sim_rounds > 1:
                    for label, values in ratios.items():
                        values.sort()
                        print(
                            f"{label}: speed / embedded's in the same round, median of {len(values)} = "
                            f"{values[len(values) // 2]:.2f} (rounds: {', '.join(f'{v:.2f}' for v in values)})"
                        )
        if not args.skip_naive:
            for n in args.naive_nodes:
                naive_vs_ours(n, args.naive_sim_seconds, args.naive_latency_ms, args.repeat, args.min_wall)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
