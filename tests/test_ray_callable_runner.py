"""Callable containers as Ray tasks (issue 22): ``yarnball.executor.callable-runner`` = ray (marked ``live`` and
``ray``, on the session's ``ray_cluster``).

Each run is a small live embedded cluster whose NodeManager submits its callable containers to the Ray cluster the
test process is connected to; nothing sleeps to synchronise (runs end with their applications, bounded by
``LIMIT_MS``; an AM polls for a file with its own timers).
"""

from __future__ import annotations

import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from live_helpers import (
    AM,
    FAST,
    PREEMPTION,
    ContextAM,
    checkpointing_loop,
    fail,
    grace_checkpoint_loop,
    hog,
    iterate,
    live_cluster,
    run_live,
    run_one,
    run_preempted,
    spin_ignoring_cancel,
    whereabouts,
)

from yarnball import Cluster, Resource
from yarnball.actors import (
    CheckpointingMRAppMaster,
    RestartingMRAppMaster,
    mapreduce_tasks,
)
from yarnball.actors.executors import callable_context, command_context, container_log_dir, container_work_dir
from yarnball.actors.executors._ray import PID_FILE
from yarnball.errors import ConfigurationError
from yarnball.launcher.workloads import NodeSpec
from yarnball.protocols import ContainerExitStatus, RegisterApplicationMasterResponse, keys

pytestmark = [pytest.mark.live, pytest.mark.ray, pytest.mark.usefixtures("ray_cluster")]

ON_RAY = {keys.EXECUTOR_CALLABLE_RUNNER: "ray"}
#: The bound of the preemption runs: three tasks at once need three Ray workers, and a worker's start-up (a new
#: interpreter importing Ray) takes seconds on a loaded machine. A bound only: the runs end with their applications.
RAY_LIMIT_MS = 90_000


class GatedRestartingAM(RestartingMRAppMaster):
    """Registers at once but asks for its tasks only once ``started`` has ``count`` lines (polled on the AM's own
    timers): the other application's tasks are then running in their Ray workers, whatever Ray's start-up took."""

    def __init__(self, started: Path, count: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.started = started
        self.count = count

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        def poll() -> None:
            lines = self.started.read_text().splitlines() if self.started.exists() else []
            if len(lines) >= self.count:
                RestartingMRAppMaster.on_registered(self, response)
            else:
                self.after(50, poll)

        poll()


@pytest.mark.parametrize("runner", ["ray", "process"])
def test_the_runner_key_chooses_a_ray_task_or_a_process(tmp_path: Path, runner: str) -> None:
    """With Ray initialized, runner=ray runs the callable in a Ray task (whose worker pid the NM reads for its
    memory monitor) and runner=process in a process of its own outside Ray; either returns its value."""
    result = tmp_path / "result.pickle"
    _, am = run_one(tmp_path, callable_context(whereabouts, result_path=str(result)),
                    conf={keys.EXECUTOR_CALLABLE_RUNNER: runner})  # fmt: skip
    (status,) = am.statuses
    assert status.exit_status == ContainerExitStatus.SUCCESS
    value = pickle.loads(result.read_bytes())
    work_dir = container_work_dir(tmp_path / "work" / "nm-local-dir", "yarnball", status.container_id)
    assert value["container"] == str(status.container_id) and value["cwd"] == str(work_dir)
    if runner == "ray":
        assert value["task_id"] is not None
        assert int((work_dir / PID_FILE).read_text()) == value["pid"]
    else:
        assert value["task_id"] is None and not (work_dir / PID_FILE).exists()


def test_auto_runs_callables_on_ray_when_ray_is_initialized(tmp_path: Path) -> None:
    """The default (auto) takes Ray when this process is connected to it."""
    result = tmp_path / "result.pickle"
    nodes = [NodeSpec("node1", "/rack1", Resource(2048, 4))]
    cluster = Cluster(FAST, nodes, seed=1, clock="wall", work_dir=tmp_path / "work")
    am = cluster.submit(ContextAM([callable_context(whereabouts, result_path=str(result))], name="app",
                                  am_resource=AM))  # fmt: skip
    run_live(cluster)
    assert [s.exit_status for s in am.statuses] == [ContainerExitStatus.SUCCESS]
    assert pickle.loads(result.read_bytes())["task_id"] is not None


def test_an_unknown_runner_is_a_configuration_error(tmp_path: Path) -> None:
    """A runner other than auto, ray or process is refused, naming the key."""
    with pytest.raises(ConfigurationError, match=r"yarnball\.executor\.callable-runner: expected one of auto, ray, "
                       r"process, got 'threads'"):  # fmt: skip
        live_cluster(tmp_path, {keys.EXECUTOR_CALLABLE_RUNNER: "threads"})


def test_a_raising_callable_on_ray_exits_1_with_its_traceback(tmp_path: Path) -> None:
    """A callable that raises in its Ray task ends the container with exit code 1 and "Exception from
    container-launch" diagnostics holding stderr's tail (the traceback); the next container still runs."""
    _, am = run_one(tmp_path, callable_context(fail, ("boom",)), command_context("true"), conf=ON_RAY)
    failed, ok = sorted(am.statuses, key=lambda s: s.exit_status == 0)
    assert ok.exit_status == ContainerExitStatus.SUCCESS and failed.exit_status == 1
    logs = container_log_dir(tmp_path / "work" / "userlogs", failed.container_id)
    assert failed.diagnostics.startswith(
        f"Exception from container-launch.\nContainer id: {failed.container_id}\nExit code: 1\n\n"
        "Container exited with a non-zero exit code 1. Last 4096 bytes of stderr :\n"
    )
    stderr = (logs / "stderr").read_text()
    assert "Traceback" in stderr and "ValueError: boom" in stderr and "ValueError: boom" in failed.diagnostics
    assert (logs / "stdout").read_text() == "about to fail\n"


def test_a_ray_task_over_its_memory_is_killed_with_hadoops_diagnostics(tmp_path: Path) -> None:
    """The NM's monitor measures the Ray worker whose pid the task reported: a callable holding 400 MB in a 256 MB
    container is killed KILLED_EXCEEDED_PMEM (-104) with ContainersMonitorImpl's message naming that pid, and,
    ignoring its cancellation, force-killed (137)."""
    _, am = run_one(tmp_path, callable_context(hog, (400,)), conf=ON_RAY)
    (status,) = am.statuses
    assert status.exit_status == ContainerExitStatus.KILLED_EXCEEDED_PMEM
    cid = status.container_id
    work_dir = container_work_dir(tmp_path / "work" / "nm-local-dir", "yarnball", cid)
    pid = int((work_dir / PID_FILE).read_text())
    pattern = (
        rf"Container \[pid={pid},containerID={cid}\] is running beyond physical memory limits\. "
        r"Current usage: [\d.]+ MB of 256 MB physical memory used; "
    )
    assert re.match(pattern, status.diagnostics), status.diagnostics
    assert "\nContainer killed on request. Exit code is 137\n" in status.diagnostics


def test_a_callable_ignoring_its_cancellation_is_force_killed_on_ray(tmp_path: Path) -> None:
    """Stopped by its AM, a Ray task that sees ctx.cancelled but goes on is killed (ray.cancel force)
    sleep-delay-before-sigkill.ms later: KILLED_BY_APPMASTER with exit code 137."""
    running, seen = tmp_path / "running", tmp_path / "seen"
    am = ContextAM([callable_context(spin_ignoring_cancel, (str(running), str(seen)))], name="app", am_resource=AM)

    def stop_once_running(am: ContextAM, container: object) -> None:
        def poll() -> None:
            if running.exists():
                am.stop_container(container)  # type: ignore[arg-type]
            else:
                am.after(20, poll)

        am.after(20, poll)

    am.on_started = stop_once_running
    cluster = live_cluster(tmp_path, ON_RAY, nodes=1)
    cluster.submit(am)
    run_live(cluster)
    (status,) = am.statuses
    assert status.exit_status == ContainerExitStatus.KILLED_BY_APPMASTER
    assert "Container killed on request. Exit code is 137" in status.diagnostics
    assert seen.read_text() == str(status.container_id)  # the callable saw its cancellation before the kill
    executor = cluster.node_managers["node1"].executor
    assert [what for what, _ in executor.history[status.container_id]] == ["start", "SIGTERM", "SIGKILL", "exit"]


@pytest.mark.parametrize("loop", [checkpointing_loop, grace_checkpoint_loop], ids=["each-step", "grace-period"])
def test_a_preempted_task_on_ray_resumes_from_its_checkpoint(tmp_path: Path, loop: object) -> None:
    """A preempted task of the checkpointing AM running as Ray tasks (saving each step, or only once cancelled)
    resumes from its saved step in a new container; every result equals the uninterrupted loop's. (The other
    application asks for its task once both are running: Ray's worker start-up varies.)"""
    steps = 60
    # App1 fills the node (AM 256 + 2 x 512 of 1536); app2's AM takes the rest, its task needs one of app1's.
    gated = GatedRestartingAM(
        tmp_path / "started", 2, name="app2", queue="b", am_resource=AM, heartbeat_interval_ms=50,
        tasks=mapreduce_tasks(1, map_ms=100, resource=Resource(512, 1), prefix="b"),
    )  # fmt: skip
    _, app1, starts = run_preempted(
        tmp_path, CheckpointingMRAppMaster, loop, steps=steps, step_s=0.1, tasks=2, map_ms=6000,
        conf={**PREEMPTION, **ON_RAY}, memory_mb=1536, second=gated, limit_ms=RAY_LIMIT_MS,
    )  # fmt: skip
    assert app1.preempted_task_attempts >= 1 and app1.failed_task_attempts == 0
    assert app1.results == {task.task_id: iterate(0.3, steps) for task in app1.tasks}
    resumed = [(cid, int(step)) for cid, step in starts if int(step) > 0]
    assert resumed, starts
    assert all(cid not in {c for c, s in starts if int(s) == 0} for cid, _ in resumed)
    work = tmp_path / "work" / "nm-local-dir"
    assert all(any(work.rglob(f"{cid}/{PID_FILE}")) for cid, _ in starts)  # every attempt ran as a Ray task
