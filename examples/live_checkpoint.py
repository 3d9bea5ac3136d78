"""Checkpoint-on-preemption with real work: a checkpointing AM against a restarting one, live.

A small live cluster (2 nodes of 2 GB, wall clock, real container processes) with two queues, A and B (50% each;
A may grow to 100%), and the preemption monitor on. App1 in A runs ``--tasks`` tasks, each a real numeric loop in
its own process: ``--steps`` steps of Jacobi relaxation of a 1-D Poisson problem (pure Python, 1,000 sweeps of a
128-point grid per step) that saves its grid to the checkpoint store after every step. App1 fills the cluster;
App2 arrives in B a few seconds later (when App1's tasks are well under way) and the monitor takes B's guarantee
back from App1. Run twice:

- App1 = CheckpointingMRAppMaster: on the PreemptionMessage it stops the named containers (SIGTERM, then SIGKILL
  after ``yarn.nodemanager.sleep-delay-before-sigkill.ms``), and each task resumes from its last saved step in a
  new container;
- App1 = RestartingMRAppMaster: it ignores the message; the RM kills the containers after ``max_wait_before_kill``
  and the tasks start again from step 0.

    python examples/live_checkpoint.py [--tasks 3] [--steps N | --task-seconds 4] [--submit-b-ms 3000]
                                       [--json FILE] [--work-dir DIR]

prints App1's work lost (container time no checkpoint kept), its preempted attempts and both applications'
completion times for each AM, and checks that every task's final grid equals an uninterrupted run's.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from yarnball import Cluster, Resource
from yarnball.actors import (
    CallableWork,
    CheckpointingMRAppMaster,
    FileSystemCheckpointStore,
    PreemptibleAppMaster,
    RestartingMRAppMaster,
    mapreduce_tasks,
)
from yarnball.actors.executors import ContainerContext
from yarnball.launcher.workloads import NodeSpec

GRID = 128
SWEEPS = 1000  # per step (~40 ms of CPU on a quiet machine here): a checkpoint per step costs ~1%

PREFIX = "yarn.resourcemanager.monitor.capacity.preemption."
CONF: dict[str, object] = {
    "yarn.scheduler.capacity.root.queues": "a,b",
    "yarn.scheduler.capacity.root.a.capacity": "50",
    "yarn.scheduler.capacity.root.b.capacity": "50",
    "yarn.scheduler.capacity.root.a.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.a.user-limit-factor": "2",
    "yarn.scheduler.capacity.maximum-am-resource-percent": "0.5",
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    PREFIX + "monitoring_interval": 200,
    PREFIX + "max_wait_before_kill": 500,
    PREFIX + "total_preemption_per_round": 1.0,
    "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": 100,
    "yarn.nodemanager.container-monitor.interval-ms": 200,
    "yarn.nodemanager.vmem-check-enabled": "false",  # a Python process maps far more than it uses, as a JVM does
}
TASK = Resource(1024, 1)
AM = Resource(1024, 1)  # yarn.scheduler.minimum-allocation-mb (1024): every container is a multiple


# -- the real work ------------------------------------------------------------------------------------------------
def relax(u: list[float], sweeps: int = SWEEPS) -> list[float]:
    """``sweeps`` Jacobi sweeps of -u'' = 1 on [0, 1] with u(0) = u(1) = 0."""
    h2 = (1.0 / (len(u) - 1)) ** 2
    for _ in range(sweeps):
        u = [0.0] + [0.5 * (u[i - 1] + u[i + 1] + h2) for i in range(1, len(u) - 1)] + [0.0]
    return u


def uninterrupted(steps: int) -> list[float]:
    """The task's result computed in one go (what every attempt chain must end with)."""
    u = [0.0] * GRID
    for _ in range(steps):
        u = relax(u)
    return u


def jacobi_task(ctx: ContainerContext, steps: int) -> list[float]:
    """A container's work: resume from the last checkpoint (if any), then step, saving the grid after each step."""
    saved = ctx.load_checkpoint()
    step, u = (int(saved.state["step"]), json.loads(saved.state["u"])) if saved is not None else (0, [0.0] * GRID)
    print(f"{ctx.container_id}: starting at step {step}", flush=True)
    while step < steps:
        ctx.check()  # raises ContainerKilled after SIGTERM: the last step is saved already
        u = relax(u)
        step += 1
        ctx.save_checkpoint({"step": str(step), "u": json.dumps(u)})
    return u


# -- the scenario ---------------------------------------------------------------------------------------------------
def run(am_class: type[PreemptibleAppMaster], *, tasks: int, steps: int, work_dir: Path,
        submit_b_ms: int = 3000) -> dict[str, Any]:  # fmt: skip
    """One live run with App1 = ``am_class``; App1's figures and both completion times (s)."""
    nodes = [NodeSpec(f"node{i}", "/rack1", Resource(2048, 4)) for i in (1, 2)]
    cluster = Cluster(CONF, nodes, seed=1, clock="wall", work_dir=work_dir / "cluster")
    app1 = am_class(
        name="app1", queue="a", am_resource=AM, heartbeat_interval_ms=100,
        tasks=mapreduce_tasks(tasks, map_ms=1000 * steps, resource=TASK),
        work=CallableWork(jacobi_task, steps), store=FileSystemCheckpointStore(work_dir / "checkpoints"),
        output_dir=work_dir / "results",
    )  # fmt: skip
    app2 = RestartingMRAppMaster(
        name="app2", queue="b", am_resource=AM, heartbeat_interval_ms=100, submit_at_ms=submit_b_ms,
        tasks=mapreduce_tasks(2, map_ms=1000, resource=TASK, prefix="b"),
        work=CallableWork(jacobi_task, max(1, steps // 5)), output_dir=work_dir / "results-b",
    )  # fmt: skip
    cluster.submit(app1)
    cluster.submit(app2)
    started = time.monotonic()
    try:
        cluster.run(until_ms=600_000)
    finally:
        cluster.close()
    reports = {r.name: r for r in cluster.applications}
    return {
        "work_lost_s": app1.work_lost_ms / 1000,
        "work_resumed_s": app1.work_resumed_ms / 1000,
        "preempted_attempts": app1.preempted_task_attempts,
        "failed_attempts": app1.failed_task_attempts,
        "killed_by_rm": cluster.counters.get("containers_preempted", 0),
        "app1_finish_s": reports["app1"].finish_time / 1000,
        "app2_finish_s": reports["app2"].finish_time / 1000,
        "app1_state": reports["app1"].final_status.value,
        "wall_s": time.monotonic() - started,
        "results": app1.results,
    }


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=3, help="App1's tasks (default 3: with its AM they fill it)")
    parser.add_argument("--steps", type=int, default=None,
                        help="numeric steps per task (default: --task-seconds of CPU, as timed here)")
    parser.add_argument("--task-seconds", type=float, default=4.0,
                        help="CPU seconds per task when --steps is not given (default 4)")
    parser.add_argument("--submit-b-ms", type=int, default=3000, help="when App2 arrives (default 3000)")
    parser.add_argument("--json", default=None, help="also write the figures (and the results check) here")
    parser.add_argument("--work-dir", default=None, help="keep logs, checkpoints and results here")
    args = parser.parse_args(argv)
    root = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="live-checkpoint-"))
    if args.steps is None:
        started = time.process_time()
        relax(relax([0.0] * GRID))
        args.steps = max(1, round(args.task_seconds / max((time.process_time() - started) / 2, 1e-4)))
    print(f"{args.tasks} tasks of {args.steps} steps; App2 at {args.submit_b_ms} ms")
    expected = uninterrupted(args.steps)
    runs: dict[str, dict[str, Any]] = {}
    for name, am_class in (("checkpointing", CheckpointingMRAppMaster), ("restarting", RestartingMRAppMaster)):
        r = run(am_class, tasks=args.tasks, steps=args.steps, work_dir=root / name, submit_b_ms=args.submit_b_ms)
        results = r["results"]
        r["results_ok"] = len(results) == args.tasks and all(v == expected for v in results.values())
        r["steps"] = args.steps
        runs[name] = r
    print(f"{'App1 AM':14} {'work lost':>10} {'resumed':>9} {'preempted':>9} {'failed':>6} {'App1 done':>10} "
          f"{'App2 done':>10} {'results ok':>10}")  # fmt: skip
    for name, r in runs.items():
        print(
            f"{name:14} {r['work_lost_s']:>9.2f}s {r['work_resumed_s']:>8.2f}s {r['preempted_attempts']:>9} "
            f"{r['failed_attempts']:>6} {r['app1_finish_s']:>9.2f}s {r['app2_finish_s']:>9.2f}s {r['results_ok']!s:>10}"
        )
    print(f"(logs, checkpoints and results under {root})")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=2))
    return runs


if __name__ == "__main__":
    main(sys.argv[1:])
