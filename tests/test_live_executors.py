"""Live executors: containers that run real commands and Python callables, on the wall clock (marked ``live``).

Each run is a small live embedded cluster (``Cluster(..., clock="wall")``) with short real tasks; nothing here
sleeps to synchronise: the cluster run ends when its applications do, bounded by ``LIMIT_MS``.
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
    LIMIT_MS,
    PREEMPTION,
    ContextAM,
    add,
    checkpointing_loop,
    fail,
    grace_checkpoint_loop,
    iterate,
    live_cluster,
    run_live,
    run_one,
    run_preempted,
)

from yarnball import Cluster, Resource
from yarnball.actors import CheckpointingMRAppMaster, RestartingMRAppMaster
from yarnball.actors.executors import callable_context, command_context, container_log_dir, container_work_dir
from yarnball.launcher.workloads import NodeSpec
from yarnball.protocols import ContainerExitStatus, FinalApplicationStatus, KillApplicationRequest, YarnApplicationState
from yarnball.testing import captured_events

pytestmark = pytest.mark.live


def test_command_container_exits_zero_with_its_logs_in_the_nm_layout(tmp_path: Path) -> None:
    """A command runs in its working directory with CONTAINER_ID, APPLICATION_ID and NM_HOST; exit 0 is SUCCESS
    and its stdout and stderr are in <work>/userlogs/<application>/<container>/."""
    cluster, am = run_one(
        tmp_path, command_context('echo "id=$CONTAINER_ID app=$APPLICATION_ID host=$NM_HOST pwd=$(pwd)"; echo oops >&2')
    )
    (status,) = am.statuses
    assert status.exit_status == ContainerExitStatus.SUCCESS and status.diagnostics == ""
    cid = status.container_id
    logs = container_log_dir(tmp_path / "work" / "userlogs", cid)
    host = am.started[0].node_id.host
    work = container_work_dir(tmp_path / "work" / "nm-local-dir", "yarnball", cid)
    assert (logs / "stdout").read_text() == (
        f"id={cid} app={cid.application_attempt_id.application_id} host={host} pwd={work}\n"
    )
    assert (logs / "stderr").read_text() == "oops\n"
    assert cluster.applications[0].final_status is FinalApplicationStatus.SUCCEEDED


def test_callable_container_returns_its_value_to_the_result_path(tmp_path: Path) -> None:
    """A callable runs in a process of its own with the container's environment; its return value is pickled to
    the result path and the container ends SUCCESS."""
    result = tmp_path / "result.pickle"
    _, am = run_one(tmp_path, callable_context(add, (2, 3), result_path=str(result)))
    (status,) = am.statuses
    assert status.exit_status == ContainerExitStatus.SUCCESS
    value = pickle.loads(result.read_bytes())
    cid = str(status.container_id)
    assert value["sum"] == 5 and value["container"] == value["env"] == cid
    assert value["cwd"].endswith(f"/appcache/{status.container_id.application_attempt_id.application_id}/{cid}")


def test_memory_hog_is_killed_with_hadoops_diagnostics(tmp_path: Path) -> None:
    """A process whose RSS exceeds its 256 MB allocation is killed KILLED_EXCEEDED_PMEM (-104) with
    ContainersMonitorImpl's message and process-tree dump; the application still finishes."""
    hog = command_context(
        "exec python3 -c 'import time; b = bytearray(400 << 20); b[::4096] = b\"x\" * len(b[::4096]); "
        "print(\"holding\", flush=True); time.sleep(30)'"
    )
    _, am = run_one(tmp_path, hog, conf={"yarn.nodemanager.vmem-check-enabled": "false"})
    (status,) = am.statuses
    assert status.exit_status == ContainerExitStatus.KILLED_EXCEEDED_PMEM
    cid = status.container_id
    pattern = (
        rf"Container \[pid=\d+,containerID={cid}\] is running beyond physical memory limits\. "
        r"Current usage: [\d.]+ MB of 256 MB physical memory used; [\d.]+ [MG]B of 537\.6 MB virtual memory used\. "
        rf"Killing container\.\nDump of the process-tree for {cid} :\n\t\|- PID PPID PGRPID SESSID CMD_NAME "
    )
    assert re.match(pattern, status.diagnostics), status.diagnostics
    assert "\nContainer killed on request. Exit code is 143\n" in status.diagnostics


def test_virtual_memory_over_the_ratio_is_killed_when_checked(tmp_path: Path) -> None:
    """With yarn.nodemanager.vmem-check-enabled (Hadoop's default), a process mapping more than allocation x
    vmem-pmem-ratio (256 MB x 2.1) is killed KILLED_EXCEEDED_VMEM (-103), however little of it is resident."""
    mapper = command_context(
        "exec python3 -c 'import mmap, time; m = mmap.mmap(-1, 1 << 30); print(\"mapped\", flush=True); "
        "time.sleep(30)'"
    )
    _, am = run_one(tmp_path, mapper)
    (status,) = am.statuses
    assert status.exit_status == ContainerExitStatus.KILLED_EXCEEDED_VMEM
    assert re.match(
        rf"Container \[pid=\d+,containerID={status.container_id}\] is running beyond virtual memory limits\. "
        r"Current usage: [\d.]+ MB of 256 MB physical memory used; [\d.]+ GB of 537\.6 MB virtual memory used\. ",
        status.diagnostics,
    ), status.diagnostics


def test_preemption_sends_sigterm_then_sigkill_after_the_delay(tmp_path: Path) -> None:
    """A preempted container's process group gets SIGTERM, and SIGKILL sleep-delay-before-sigkill.ms (250) later
    when it traps SIGTERM; the AM hears PREEMPTED (-102) and the NM's own status says exit code 137."""
    marker = tmp_path / "term"
    trap = command_context(f"trap 'echo TERM >> {marker}' TERM; for i in $(seq 100); do sleep 0.05; done")
    conf = {**PREEMPTION}
    cluster = live_cluster(tmp_path, conf, nodes=1)
    # App1 fills the node (AM 256 + 3 x 512 of 2048); App2 then needs one of App1's containers.
    app1 = cluster.submit(ContextAM([trap] * 3, resource=Resource(512, 1), name="app1", queue="a", am_resource=AM))
    app2 = cluster.submit(
        ContextAM([command_context("true")], resource=Resource(512, 1), name="app2", queue="b", am_resource=AM,
                  submit_at_ms=1200)
    )
    with captured_events() as events:
        run_live(cluster)
    assert cluster.finished()
    preempted = [s for s in app1.statuses if s.exit_status == ContainerExitStatus.PREEMPTED]
    assert len(preempted) == 1 and app2.statuses[0].exit_status == ContainerExitStatus.SUCCESS
    cid = preempted[0].container_id
    executor = cluster.node_managers["node1"].executor
    kinds = [what for what, _ in executor.history[cid]]
    assert kinds == ["start", "SIGTERM", "SIGKILL", "exit"]
    at = dict(executor.history[cid])
    # Never early; late only by how long the loaded machine takes to run the loop's timer.
    assert 0.25 <= at["SIGKILL"] - at["SIGTERM"] < 0.25 + 1.0
    assert marker.read_text() == "TERM\n"  # the trap ran: the process saw SIGTERM before SIGKILL
    exited = [e for e in events if e["event"] == "container_process_exited" and e["container"] == str(cid)]
    assert [e["exit_code"] for e in exited] == [137]


def test_stopped_container_ends_killed_by_appmaster(tmp_path: Path) -> None:
    """An AM's stop kills the running process (SIGTERM: exit 143) and the container ends KILLED_BY_APPMASTER (-105)
    with the NM's diagnostics and the log directory."""
    cluster = live_cluster(tmp_path)
    am = ContextAM([command_context("sleep 30")], name="app", am_resource=AM)
    # Stopped one heartbeat after the start: the NM launched it at the start's time (no localization delay), so
    # the kernel's event order, not the wall clock, puts the stop after the launch.
    am.on_started = lambda am, container: am.after(50, lambda: am.stop_container(container))
    cluster.submit(am)
    run_live(cluster)
    (status,) = am.statuses
    assert status.exit_status == ContainerExitStatus.KILLED_BY_APPMASTER
    logs = container_log_dir(tmp_path / "work" / "userlogs", status.container_id)
    assert status.diagnostics == (
        "Container killed by the ApplicationMaster.\nContainer killed on request. Exit code is 143\n"
        f"Container exited with a non-zero exit code 143. \nFor more detailed output, check the container logs: {logs}"
    )


@pytest.mark.parametrize(
    ("context", "exit_code", "in_stderr"),
    [
        (command_context("no_such_command_22"), 127, "no_such_command_22: command not found"),
        (callable_context(fail, ("boom",)), 1, "ValueError: boom"),
        (command_context("kill -9 $$"), 137, ""),
    ],
    ids=["missing-command", "raising-callable", "killed-by-signal"],
)
def test_a_failing_container_reports_its_exit_code_diagnostics_and_logs(
    tmp_path: Path, context: object, exit_code: int, in_stderr: str
) -> None:
    """A command that does not exist, a callable that raises and a process killed by a signal end the container
    with the process's exit code (128 + signal), "Exception from container-launch" diagnostics with stderr's tail
    and the log directory; the next container of the application still runs."""
    _, am = run_one(tmp_path, context, command_context("true"))
    failed, ok = sorted(am.statuses, key=lambda s: s.exit_status == 0)
    assert ok.exit_status == ContainerExitStatus.SUCCESS
    assert failed.exit_status == exit_code
    logs = container_log_dir(tmp_path / "work" / "userlogs", failed.container_id)
    assert failed.diagnostics.startswith(
        f"Exception from container-launch.\nContainer id: {failed.container_id}\nExit code: {exit_code}\n\n"
        f"Container exited with a non-zero exit code {exit_code}. Last 4096 bytes of stderr :\n"
    )
    assert in_stderr in failed.diagnostics and in_stderr in (logs / "stderr").read_text()
    assert failed.diagnostics.endswith(f"For more detailed output, check the container logs: {logs}")


def test_checkpointing_task_resumes_from_its_last_checkpoint_in_another_container(tmp_path: Path) -> None:
    """A preempted task of the checkpointing AM saves each step, is stopped, and resumes from its last saved step
    in a new container; every task's result equals the uninterrupted loop's."""
    steps = 30
    _, app1, starts = run_preempted(tmp_path, CheckpointingMRAppMaster, checkpointing_loop, steps=steps)
    assert app1.preempted_task_attempts >= 1 and app1.failed_task_attempts == 0
    expected = iterate(0.3, steps)
    assert app1.results == {task.task_id: expected for task in app1.tasks}
    resumed = [(cid, int(step)) for cid, step in starts if int(step) > 0]
    assert resumed, starts  # a later attempt started from a saved step, not from 0 ...
    first = {cid for cid, step in starts if int(step) == 0}
    assert all(cid not in first for cid, _ in resumed)  # ... in a container of its own


def test_a_checkpoint_written_in_the_grace_period_is_resumed(tmp_path: Path) -> None:
    """A task that saves only when SIGTERM arrives (ctx.cancelled) saves in the grace period before SIGKILL, and
    its next attempt resumes from that step; the results still equal the uninterrupted loop's."""
    steps = 30
    _, app1, starts = run_preempted(tmp_path, CheckpointingMRAppMaster, grace_checkpoint_loop, steps=steps)
    assert app1.preempted_task_attempts >= 1
    assert any(int(step) > 0 for _, step in starts), starts  # resumed from what the grace period saved
    assert app1.results == {task.task_id: iterate(0.3, steps) for task in app1.tasks}


def test_restarting_task_starts_from_zero_again(tmp_path: Path) -> None:
    """The restarting AM hands its tasks no checkpoint directory: a preempted task starts again from step 0 and
    still ends with the uninterrupted result."""
    steps = 30
    _, app1, starts = run_preempted(tmp_path, RestartingMRAppMaster, checkpointing_loop, steps=steps)
    assert app1.preempted_task_attempts >= 1
    assert len(starts) == 3 + app1.preempted_task_attempts and all(step == "0" for _, step in starts)
    assert app1.results == {task.task_id: iterate(0.3, steps) for task in app1.tasks}
    assert not list((tmp_path / "checkpoints").iterdir())  # nothing was saved


@pytest.mark.ray
def test_containers_run_real_work_live_on_ray(ray_cluster: str, tmp_path: Path) -> None:
    """Live mode on Ray: a NodeManager on a shard host runs a command and a callable as processes of the host's
    machine, with their logs under the work directory; the application succeeds only if both exit 0."""
    nodes = [NodeSpec("node1", "/rack1", Resource(2048, 4))]
    cluster = Cluster(FAST, nodes, seed=1, backend="ray", hosts=1, latency_ms=1, clock="wall", work_dir=tmp_path)
    result = tmp_path / "result.pickle"
    contexts = [command_context('echo "ray $CONTAINER_ID"'), callable_context(add, (20, 22), result_path=str(result))]
    am = ContextAM(contexts, name="app", am_resource=AM)
    cluster.submit(am)
    try:
        cluster.run(until_ms=LIMIT_MS)
        (app,) = cluster.applications
    finally:
        cluster.close()
    assert app.final_status is FinalApplicationStatus.SUCCEEDED
    stdouts = {p.parent.name: p.read_text() for p in (tmp_path / "userlogs").glob("*/*/stdout")}
    assert len(stdouts) == 2 and sum(text == f"ray {cid}\n" for cid, text in stdouts.items()) == 1
    value = pickle.loads(result.read_bytes())
    assert value["sum"] == 42 and value["container"] in stdouts


def test_run_returns_after_the_killed_applications_containers_ended(tmp_path: Path) -> None:
    """When the application killed is the last one running, run() returns only once its running container has been
    torn down as Hadoop does: the NM hears of the kill in a heartbeat, SIGTERM goes to the process, which exits; no
    NodeManager holds a container any more when run() returns (before close())."""
    marker = tmp_path / "term"
    trap = command_context(f"trap 'echo TERM >> {marker}; exit 0' TERM; for i in $(seq 400); do sleep 0.05; done")
    cluster = live_cluster(tmp_path)
    am = ContextAM([trap], name="app", am_resource=AM)

    def kill_soon(am: ContextAM, container: object) -> None:
        kill = KillApplicationRequest(application_id=am.application_id)
        am.after(300, lambda: cluster.rm.ref.tell(kill))

    am.on_started = kill_soon
    cluster.submit(am)
    try:
        cluster.run(until_ms=LIMIT_MS)
        assert cluster.finished()
        (app,) = cluster.applications
        assert app.state is YarnApplicationState.KILLED
        (container,) = am.started
        executor = cluster.node_managers[container.node_id.host].executor
        assert [what for what, _ in executor.history[container.id]] == ["start", "SIGTERM", "exit"]
        assert marker.read_text() == "TERM\n"
        assert not any(nm.containers for nm in cluster.node_managers.values())
    finally:
        cluster.close()


class KillingAM(ContextAM):
    """A ContextAM that has its own application killed 300 ms after its first container starts."""

    def on_containers_allocated(self, containers: tuple[Any, ...]) -> None:
        super().on_containers_allocated(containers)
        if self.started:
            kill = KillApplicationRequest(application_id=self.application_id)
            self.after(300, lambda: self.rm.tell(kill, self.ref))


@pytest.mark.ray
def test_run_on_ray_returns_after_the_killed_applications_containers_ended(ray_cluster: str, tmp_path: Path) -> None:
    """Live mode on Ray: with the RM and the NM on two hosts, run() returns only after the killed application's
    container got its SIGTERM and exited (the RM's host runs on until the other host's NM holds nothing)."""
    marker = tmp_path / "term"
    trap = command_context(f"trap 'echo TERM >> {marker}; exit 0' TERM; for i in $(seq 400); do sleep 0.05; done")
    nodes = [NodeSpec("node1", "/rack1", Resource(2048, 4))]
    cluster = Cluster(
        FAST, nodes, seed=1, backend="ray", hosts=2, latency_ms=1, clock="wall", work_dir=tmp_path,
        placement={"nm-node1": 1},
    )  # fmt: skip
    cluster.submit(KillingAM([trap], name="app", am_resource=AM))
    try:
        cluster.run(until_ms=LIMIT_MS)
        (app,) = cluster.applications
        assert app.state is YarnApplicationState.KILLED
        assert marker.read_text() == "TERM\n"  # before close(): the run waited for the teardown
    finally:
        cluster.close()
