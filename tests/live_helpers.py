"""Shared pieces of the live-executor tests: a small live cluster, an AM that runs given launch contexts, and the
Python callables the containers run (module-level, so the container processes import them by name)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from yarnball import ApplicationMaster, Cluster
from yarnball.actors import CallableWork, FileSystemCheckpointStore, RestartingMRAppMaster, mapreduce_tasks
from yarnball.actors.executors import ContainerContext
from yarnball.launcher.workloads import NodeSpec
from yarnball.protocols import (
    Container,
    ContainerLaunchContext,
    ContainerStatus,
    FinalApplicationStatus,
    RegisterApplicationMasterResponse,
    Resource,
)

#: Live runs here are short: NM and AM heartbeats every 50 ms, the ContainersMonitor every 50 ms; containers are
#: allocated in steps of 128 MB (not 1024), so that a 256 MB container's limit is 256 MB.
FAST = {
    "yarn.scheduler.minimum-allocation-mb": 128,
    "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": 50,
    "yarn.nodemanager.container-monitor.interval-ms": 50,
}
SMALL = Resource(256, 1)
AM = Resource(256, 1)
#: A bound on every live test's run (wall ms): a hang fails instead of blocking the suite.
LIMIT_MS = 20_000
#: Two queues of half the cluster each, a able to take it all, and a preemption monitor that acts within 300 ms.
PREEMPTION = {
    "yarn.scheduler.capacity.root.queues": "a,b",
    "yarn.scheduler.capacity.root.a.capacity": "50",
    "yarn.scheduler.capacity.root.b.capacity": "50",
    "yarn.scheduler.capacity.root.a.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.a.user-limit-factor": "2",
    "yarn.scheduler.capacity.maximum-am-resource-percent": "0.5",
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    "yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval": 100,
    "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill": 200,
    "yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round": 1.0,
}


def live_cluster(tmp_path: Path, conf: Mapping[str, object] | None = None, nodes: int = 2, memory_mb: int = 2048,
                 **kwargs: Any) -> Cluster:  # fmt: skip
    """A live embedded cluster of ``nodes`` nodes with its work directory in ``tmp_path``."""
    specs = [NodeSpec(f"node{i}", "/rack1", Resource(memory_mb, 4)) for i in range(1, nodes + 1)]
    # Callables in forkserver processes unless ``conf`` says otherwise: the default (auto) would run them as Ray
    # tasks whenever an earlier test of the session initialized Ray (tests/test_ray_callable_runner.py runs both).
    conf = {"yarnball.executor.callable-runner": "process", **(conf or {})}
    return Cluster({**FAST, **conf}, specs, seed=1, clock="wall", work_dir=tmp_path / "work", **kwargs)


def run_live(cluster: Cluster, limit_ms: float = LIMIT_MS) -> None:
    """Run ``cluster`` until its applications end (at most ``limit_ms`` wall ms), then close it."""
    try:
        cluster.run(until_ms=limit_ms)
    finally:
        cluster.close()


def run_one(tmp_path: Path, *contexts, conf=None, resource=SMALL):  # type: ignore[no-untyped-def]
    """Run one ContextAM with ``contexts`` on a fresh live cluster; the cluster and the AM."""
    cluster = live_cluster(tmp_path, conf)
    am = cluster.submit(ContextAM(list(contexts), resource=resource, name="app", am_resource=AM))
    run_live(cluster)
    assert cluster.finished(), f"the application did not finish within {LIMIT_MS} ms"
    return cluster, am


def run_preempted(
    tmp_path: Path,
    first: type[ApplicationMaster],
    loop: Callable[..., float],
    *,
    steps: int = 30,
    step_s: float = 0.05,
    tasks: int = 3,
    map_ms: int = 1500,
    conf: Mapping[str, object] = PREEMPTION,
    memory_mb: int = 2048,
    second: ApplicationMaster | None = None,
    limit_ms: float = LIMIT_MS,
) -> tuple[Cluster, Any, list[list[str]]]:
    """App1 (``first``: a checkpointing or restarting MR AM, its checkpoints and results under ``tmp_path``) runs
    ``tasks`` tasks of ``loop`` from 0.3 (``steps`` steps of ``step_s`` s) in queue a of a one-node live cluster;
    ``second`` (by default a restarting AM whose one task, submitted at 1.3 s, needs one of app1's containers) runs in
    queue b, so that the preemption monitor takes one of app1's. The finished cluster, app1, and the "<container>
    <first step>" lines the loop wrote at each start."""
    started = tmp_path / "started"
    cluster = live_cluster(tmp_path, conf, nodes=1, memory_mb=memory_mb)
    app1 = cluster.submit(
        first(
            name="app1", queue="a", am_resource=AM, heartbeat_interval_ms=50,
            tasks=mapreduce_tasks(tasks, map_ms=map_ms, resource=Resource(512, 1)),
            work=CallableWork(loop, 0.3, steps, step_s, str(started)),
            store=FileSystemCheckpointStore(tmp_path / "checkpoints"), output_dir=tmp_path / "results",
        )
    )  # fmt: skip
    cluster.submit(
        second
        or RestartingMRAppMaster(
            name="app2", queue="b", am_resource=AM, heartbeat_interval_ms=50, submit_at_ms=1300,
            tasks=mapreduce_tasks(1, map_ms=100, resource=Resource(512, 1), prefix="b"),
        )
    )  # fmt: skip
    run_live(cluster, limit_ms)
    assert cluster.finished()
    return cluster, app1, [line.split() for line in started.read_text().splitlines()]


class ContextAM(ApplicationMaster):
    """Asks for one container per launch context (all of ``resource``) and runs each context in one; finishes
    when every container completed. ``statuses`` keeps the completed statuses in arrival order."""

    def __init__(self, contexts: Sequence[ContainerLaunchContext], resource: Resource = SMALL,
                 **kwargs: Any) -> None:  # fmt: skip
        kwargs.setdefault("heartbeat_interval_ms", 50)
        super().__init__(**kwargs)
        self.contexts = list(contexts)
        self.resource = resource
        self.started: list[Container] = []
        self.statuses: list[ContainerStatus] = []
        self.on_started: Callable[[ContextAM, Container], None] | None = None

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        self.add_container_request(self.resource, 20, count=len(self.contexts))

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for container in containers:
            if not self.contexts:
                self.release(container.id)
                continue
            self.start_container(container, context=self.contexts.pop(0))
            self.started.append(container)
            if self.on_started is not None:
                self.on_started(self, container)

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        ours = {c.id for c in self.started}
        self.statuses.extend(s for s in statuses if s.container_id in ours)  # not the extra ones released
        if not self.contexts and len(self.statuses) >= len(self.started):
            ok = all(s.exit_status == 0 for s in self.statuses)
            self.finish(FinalApplicationStatus.SUCCEEDED if ok else FinalApplicationStatus.FAILED)


# -- what the containers run ----------------------------------------------------------------------------------
def add(ctx: ContainerContext, a: int, b: int) -> dict[str, Any]:
    """Return a + b with the container's identity (the callable sees its environment)."""
    return {"sum": a + b, "container": ctx.container_id, "env": os.environ.get("CONTAINER_ID"), "cwd": os.getcwd()}


def fail(ctx: ContainerContext, message: str) -> None:
    """Print something, then raise."""
    print("about to fail")
    raise ValueError(message)


def hog(ctx: ContainerContext, mb: int) -> None:
    """Take ``mb`` MB of resident memory and hold it until killed."""
    block = bytearray(mb * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1  # touch every page: resident
    print(f"holding {mb} MB", flush=True)
    while True:
        time.sleep(0.01)


def ignore_term(ctx: ContainerContext, marker: str) -> None:
    """Never stop on SIGTERM (only SIGKILL ends it); write ``marker`` when the SIGTERM arrives."""
    signal.signal(signal.SIGTERM, lambda *_: Path(marker).write_text(str(time.monotonic())))
    print("running", flush=True)
    while True:
        time.sleep(0.01)


def iterate(x: float, steps: int) -> float:
    """The numeric loop of the checkpoint tests, uninterrupted: ``steps`` steps of a logistic-map-like recurrence."""
    for _ in range(steps):
        x = step(x)
    return x


def step(x: float) -> float:
    return 3.7 * x * (1.0 - x) * 0.999 + 0.0005


def checkpointing_loop(ctx: ContainerContext, x0: float, steps: int, step_s: float, started: str) -> float:
    """``iterate(x0, steps)``, one step every ``step_s`` s, saving (step, x) after each step and resuming from the
    last checkpoint; appends "<container> <first step>" to ``started`` at each start."""
    saved = ctx.load_checkpoint()
    i, x = (int(saved.state["step"]), float(saved.state["x"])) if saved is not None else (0, x0)
    with open(started, "a") as f:
        f.write(f"{ctx.container_id} {i}\n")
    while i < steps:
        ctx.check()  # ContainerKilled after SIGTERM: the state of step i is saved already
        time.sleep(step_s)
        x = step(x)
        i += 1
        ctx.save_checkpoint({"step": str(i), "x": json.dumps(x)})
    return x


def grace_checkpoint_loop(ctx: ContainerContext, x0: float, steps: int, step_s: float, started: str) -> float:
    """Like :func:`checkpointing_loop`, but saving only when told to stop: in the SIGTERM's grace period."""
    saved = ctx.load_checkpoint()
    i, x = (int(saved.state["step"]), float(saved.state["x"])) if saved is not None else (0, x0)
    with open(started, "a") as f:
        f.write(f"{ctx.container_id} {i}\n")
    while i < steps:
        if ctx.cancelled:
            ctx.save_checkpoint({"step": str(i), "x": json.dumps(x)})
            ctx.check()  # raises ContainerKilled: exit 143, well before the SIGKILL
        time.sleep(step_s)
        x = step(x)
        i += 1
    return x


def whereabouts(ctx: ContainerContext) -> dict[str, Any]:
    """The process and the Ray task (None outside one) the callable runs in."""
    import sys

    ray = sys.modules.get("ray")
    task = ray.get_runtime_context().get_task_id() if ray is not None and ray.is_initialized() else None
    return {"pid": os.getpid(), "task_id": task, "container": ctx.container_id, "cwd": os.getcwd()}


def spin_ignoring_cancel(ctx: ContainerContext, running: str, seen: str) -> None:
    """Write ``running``, then loop forever; write ``seen`` once ``ctx.cancelled`` (only a SIGKILL ends it)."""
    Path(running).write_text(ctx.container_id)
    while True:
        if ctx.cancelled and not os.path.exists(seen):
            Path(seen).write_text(ctx.container_id)
        time.sleep(0.01)
