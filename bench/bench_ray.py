"""The Ray backend: batched messages between hosts, simulation speed against embedded, and the naive design.

    python bench/bench_ray.py                                  # everything, defaults below
    python bench/bench_ray.py --skip-sim --skip-naive          # only the batch throughput

1. Batched messages between shard hosts per second (goal >= 250k/s): host 1's kernel sends NodeHeartbeatRequests
   to host 0 through the real path (RemoteRef -> outbox -> canonical sort -> codec batch envelope), and host 0
   decodes each batch and queues every message in its kernel under its canonical key. Batches go from actor to
   actor as Ray object refs, pipelined.
2. Simulation speed at ``--nodes`` (default 10,000) on ``synthetic_workload(nodes/5 jobs, load 1.5)``: embedded,
   Ray with 1 host and Ray with 2 hosts, the same latency on all three, the same simulated span, side by side.
3. The naive design, one Ray actor per simulated node (the RM on its own actor, every NodeManager on its own
   actor, the AMs spread over the node actors), with the same window protocol, side by side with 1 and 2 shard
   hosts on the same workload at the same node count (``--naive-nodes``, as many as this machine can start).
"""

from __future__ import annotations

import argparse
import gc
import time
from typing import Any

import ray

from yarnball.actors import configure_logging
from yarnball.launcher import Cluster
from yarnball.launcher._cluster import normalized_conf
from yarnball.launcher._shard import ShardHost
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
    def __init__(self, batch: int, containers: int, sender: bool) -> None:
        self.host = ShardHost(1, 2, normalized_conf(None), cluster_timestamp=1, latency_ms=1)
        self.messages = [heartbeat(i, containers) for i in range(batch)]
        self.sender = self.host.kernel.lookup("nm-node1") if sender else None
        gc.freeze()  # as a shard host does after setup

    def produce(self) -> bytes:
        host = self.host
        rm = host.kernel.lookup("rm")
        sender = self.sender
        for message in self.messages:
            rm.tell(message, sender)
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


def bench_batches(batch: int, rounds: int, containers: int, sender: bool = False) -> None:
    producer, consumer = Producer.remote(batch, containers, sender), Consumer.remote()
    ray.get([consumer.ping.remote(), producer.produce.remote()])  # warm up both processes
    size = len(ray.get(producer.produce.remote()))
    start = time.perf_counter()
    refs = [consumer.consume.remote(producer.produce.remote()) for _ in range(rounds)]
    total = sum(ray.get(refs))
    wall = time.perf_counter() - start
    print(
        f"batched host->host, heartbeats with {containers} container statuses{' and a sender' if sender else ''}: "
        f"{total:,} messages in {rounds} "
        f"batches of {batch:,} ({size / batch:.0f} B/msg) "
        f"in {wall:.2f} s = {total / wall:,.0f} messages/s (send+sort+encode, Ray transfer, decode+queue)"
    )
    for actor in (producer, consumer):
        ray.kill(actor)


def sim(nodes: int, sim_seconds: float, latency: float, backend: str, hosts: int = 1, **kw: Any) -> dict[str, Any]:
    workload = synthetic_workload(max(10, nodes // 5), nodes, 1, load=1.5)
    extra = {} if backend == "embedded" else {"hosts": hosts, **kw}
    cluster = Cluster(Configuration(), workload.nodes, seed=1, backend=backend, latency_ms=latency, **extra)
    cluster.submit_workload(workload)
    t0 = time.perf_counter()
    cluster.run(until_ms=1000)  # setup shipped, every node started
    setup = time.perf_counter() - t0
    start = time.perf_counter()
    cluster.run(until_ms=1000 + sim_seconds * 1000)
    wall = time.perf_counter() - start
    counters = cluster.counters
    result = {
        "wall": wall,
        "setup": setup,
        "speed": sim_seconds / wall,
        "allocated": counters.get("containers_allocated", 0),
        "windows": getattr(cluster, "windows", 0),
        "cross": sum(s["messages_out"] for s in cluster.host_stats()) if backend != "embedded" else 0,
    }
    cluster.close()
    return result


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
    print(
        f"{label:<28} {nodes:>6} nodes: {sim_seconds:.0f} simulated s in {r['wall']:.1f} wall s = "
        f"{r['speed']:.2f}x real time ({nodes * r['speed']:,.0f} node-s per wall s); windows {r['windows']:,}, "
        f"cross-host messages {r['cross']:,}; setup {r['setup']:.1f} s{same}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--sim-seconds", type=float, default=10)
    parser.add_argument("--latency-ms", type=float, nargs="*", default=[1.0, 10.0])
    parser.add_argument("--naive-nodes", type=int, default=32)
    parser.add_argument("--naive-latency-ms", type=float, default=1.0)
    parser.add_argument("--naive-sim-seconds", type=float, default=10)
    parser.add_argument("--with-sender", action="store_true", help="also send the heartbeats with the NM as sender")
    parser.add_argument("--skip-batches", action="store_true")
    parser.add_argument("--skip-sim", action="store_true")
    parser.add_argument("--skip-naive", action="store_true")
    args = parser.parse_args()
    configure_logging(level="warning")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        for containers in () if args.skip_batches else (0, 2):
            bench_batches(args.batch, args.rounds, containers)
        if args.with_sender and not args.skip_batches:
            for containers in (0, 2):
                bench_batches(args.batch, args.rounds, containers, sender=True)
        if not args.skip_sim:
            for latency in args.latency_ms:
                print(f"-- latency {latency} ms between actors (the window on 2 hosts)")
                base = sim(args.nodes, args.sim_seconds, latency, "embedded")
                report("embedded", args.nodes, args.sim_seconds, base, None)
                for hosts in (1, 2):
                    r = sim(args.nodes, args.sim_seconds, latency, "ray", hosts)
                    report(f"ray, {hosts} host(s)", args.nodes, args.sim_seconds, r, base)
        if not args.skip_naive:
            n, seconds, latency = args.naive_nodes, args.naive_sim_seconds, args.naive_latency_ms
            workload = synthetic_workload(max(10, n // 5), n, 1, load=1.5)
            placement = {f"nm-{spec.hostname}": 1 + i for i, spec in enumerate(workload.nodes)}
            placement.update({f"am-{job.job_id}-{k}": 1 + k % n for k, job in enumerate(workload.jobs)})
            print(f"-- naive design vs shard hosts, side by side at {n} nodes, latency {latency} ms")
            naive = sim(n, seconds, latency, "ray", n + 1, placement=placement)
            report(f"naive: {n + 1} Ray actors", n, seconds, naive, None)
            for hosts in (1, 2):
                ours = sim(n, seconds, latency, "ray", hosts)
                report(f"shard hosts: {hosts} Ray actor(s)", n, seconds, ours, naive)
                print(
                    f"  {hosts} shard host(s) / naive at {n} nodes: {ours['speed'] / naive['speed']:.1f}x "
                    f"node-simulated-seconds per wall second"
                )
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
