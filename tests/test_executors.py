"""The executors' parts that need no live run: launch contexts, /proc reading, Hadoop's number format, and the
promise that virtual time is untouched by real work in a launch context."""

from __future__ import annotations

import asyncio
import os
import select
import subprocess
from pathlib import Path

import pytest
from live_helpers import add, checkpointing_loop

from yarnball import Cluster
from yarnball.actors import CallableWork, CheckpointingMRAppMaster, RestartingMRAppMaster, mapreduce_tasks
from yarnball.actors.executors import ContainerContext, callable_context, command_context, real_work
from yarnball.actors.executors._procfs import ProcessInfo, long2string, process_tree
from yarnball.errors import ContainerKilled, SimulationError
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import ContainerLaunchContext
from yarnball.protocols._executor import PROCESS_ACTOR_ENV
from yarnball.testing import captured_events


@pytest.mark.parametrize(
    ("n", "text"),
    [(0, "0"), (1023, "1023"), (1024, "1 K"), (1536, "1.5 K"), (256 << 20, "256 M"), (2 << 30, "2 G"),
     (int(256 * 1024 * 1024 * 2.1), "537.6 M"), ((1 << 20) - 1, "1.0 M"), (-1536, "-1.5 K")],
)
def test_long2string_formats_as_hadoops_traditional_binary_prefix(n: int, text: str) -> None:
    """long2string(n) is StringUtils.TraditionalBinaryPrefix.long2String(n, "", 1), 1023.9 K rounding to 1 M."""
    assert long2string(n) == text


def test_process_tree_is_the_process_group_with_its_memory(tmp_path: Path) -> None:
    """A session leader's tree holds it and its children, each with a pid, parent and resident memory."""
    # "forked" once both children run `sleep` with pages resident (a child between fork and exec, or just after
    # exec, can show an RSS of 0 for a moment on a loaded machine)
    script = (
        "sleep 5 & a=$!; sleep 5 & b=$!; "
        "ready() { [ \"$(cat /proc/$1/comm)\" = sleep ] && [ \"$(cut -d' ' -f2 /proc/$1/statm)\" -gt 0 ]; }; "
        "until ready $a && ready $b; do :; done; echo forked; wait"
    )
    proc = subprocess.Popen(["/bin/bash", "-c", script], start_new_session=True, stdout=subprocess.PIPE)
    tree: list[ProcessInfo] = []
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"forked\n"  # both children exist now
        tree = process_tree(proc.pid)
        assert tree[0].pid == proc.pid and len(tree) == 3
        assert {p.ppid for p in tree[1:]} == {proc.pid} and all(p.rss_bytes > 0 for p in tree)
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
        # SIGKILL is delivered asynchronously: on a loaded machine a child may still be running for a moment.
        # Wait for each one to end (a pidfd is readable once its process has exited: no polling, no sleep).
        for child in tree[1:]:
            try:
                fd = os.pidfd_open(child.pid)
            except ProcessLookupError:
                continue  # gone already
            try:
                assert select.select([fd], [], [], 30)[0], f"child {child.pid} still alive 30 s after SIGKILL"
            finally:
                os.close(fd)
    assert process_tree(proc.pid) == []


def test_real_work_reads_what_the_context_asks_for() -> None:
    """Commands and callables are real work; a plain simulated container and an actor program (an AM) are not."""
    assert real_work(ContainerLaunchContext(simulated_duration_ms=5)) is None
    assert real_work(ContainerLaunchContext(commands=("am",), environment=((PROCESS_ACTOR_ENV, "am-x"),))) is None
    command = real_work(command_context("echo", "hi", environment={"A": "1"}, task_id="t1"))
    assert command is not None and command.kind == "command" and command.command == "echo hi"
    assert command.environment == {"A": "1", "YARNBALL_TASK_ID": "t1"}
    call = real_work(callable_context(add, (1, 2), simulated_duration_ms=7))
    assert call is not None and call.kind == "python" and call.payload


def test_bad_launch_contexts_are_refused_naming_the_problem() -> None:
    """No command, an empty one, or a callable that cannot be pickled by name: ValueError saying so."""
    with pytest.raises(ValueError, match="one or more non-empty command strings"):
        command_context()
    with pytest.raises(ValueError, match="one or more non-empty command strings"):
        command_context("  ")
    with pytest.raises(ValueError, match="must be picklable"):
        callable_context(lambda ctx: 1)


def test_container_context_raises_container_killed_once_cancelled(tmp_path: Path) -> None:
    """check() passes until the SIGTERM handler cancels the context, then raises ContainerKilled; checkpoints go
    to the directory and come back with the work done counted."""
    env = {"YARNBALL_TASK_ID": "t", "YARNBALL_CHECKPOINT_DIR": str(tmp_path)}
    ctx = ContainerContext({**env, "CONTAINER_ID": "c1"}, str(tmp_path))
    ctx.check()
    saved = ctx.save_checkpoint({"step": "3"}, work_done_ms=30)
    assert saved is not None and ctx.load_checkpoint() == saved and saved.attempt == 1
    resumed = ContainerContext({**env, "CONTAINER_ID": "c2"}, str(tmp_path))
    assert resumed.restored_ms == 30
    ctx.cancel()
    with pytest.raises(ContainerKilled, match="c1 is being killed"):
        ctx.check()


def test_clock_must_be_virtual_or_wall() -> None:
    """An unknown clock is refused; run_async is for live clusters only."""
    with pytest.raises(SimulationError, match="clock must be 'virtual' or 'wall'"):
        Cluster({}, clock="sundial")
    with pytest.raises(SimulationError, match="live clusters"):
        asyncio.run(Cluster({}).run_async())


@pytest.mark.parametrize("am_class", [CheckpointingMRAppMaster, RestartingMRAppMaster])
def test_real_work_changes_nothing_in_virtual_time(am_class: type, tmp_path: Path) -> None:
    """In virtual time an AM whose tasks carry real work runs them as simulated containers: the same events, the
    same figures as without the work, and no process."""
    conf = {
        "yarn.scheduler.capacity.root.queues": "q1,q2",
        "yarn.scheduler.capacity.root.q1.capacity": "50",
        "yarn.scheduler.capacity.root.q2.capacity": "50",
        "yarn.scheduler.capacity.root.q1.maximum-capacity": "100",
        "yarn.scheduler.capacity.root.q1.user-limit-factor": "2",
        "yarn.resourcemanager.scheduler.monitor.enable": "true",
    }  # tests/test_preemptible_am.py's contention: q2's application takes its guarantee back from q1's

    def run(work: CallableWork | None) -> tuple[list[dict], tuple]:
        nodes = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8).build().nodes
        cluster = Cluster(conf, nodes, seed=5)
        tasks = mapreduce_tasks(31, 4, map_ms=300_000, reduce_ms=60_000)
        app1 = cluster.submit(am_class(name="big", queue="q1", tasks=tasks, work=work))
        cluster.submit(RestartingMRAppMaster(name="small", queue="q2", submit_at_ms=60_000,
                                             tasks=mapreduce_tasks(8, map_ms=60_000)))  # fmt: skip
        with captured_events() as events:
            cluster.run()
        figures = (app1.work_lost_ms, app1.preempted_task_attempts, app1.checkpoints_saved, cluster.now)
        return [e for e in events if "container_process" not in e["event"]], figures

    plain = run(None)
    with_work = run(CallableWork(checkpointing_loop, 0.3, 10, 0.0, str(tmp_path / "never")))
    assert with_work == plain
    assert plain[1][1] > 0  # preemption happened: the comparison covers the checkpoint paths
    assert not (tmp_path / "never").exists()
