"""Inside a container: the process that runs a Python callable, and the ContainerContext the callable gets.

The child is started by the NodeManager's executor (a ``multiprocessing`` forkserver process per container, the
way the NM forks one process per container). It makes itself a session leader (so the NM signals its whole process
group, as DefaultContainerExecutor's ``setsid``), sends its stdout and stderr to the container's log files, moves
to the working directory, sets the container's environment, and calls ``fn(ctx, *args, **kwargs)``.

SIGTERM sets ``ctx.cancelled``; ``ctx.check()`` then raises :class:`~yarnball.errors.ContainerKilled`. That is the
cancellation a callable observes: it has until ``yarn.nodemanager.sleep-delay-before-sigkill.ms`` after the
SIGTERM to save a checkpoint and return (or let the exception out); then SIGKILL.

As a Ray task (``run_callable_in_worker``, the ``ray`` runner of ``_ray.py``) the callable runs in a Ray worker
instead: no session of its own, its pid written to a file for the NM's monitor, and the SIGTERM is a cancel file
that ``ctx.cancelled`` looks for (the worker keeps Ray's own SIGTERM handler); the exit codes are the same.

Exit codes: 0 when ``fn`` returns (its value is pickled to ``YARNBALL_RESULT_PATH`` if set), 143 when it lets
ContainerKilled out (as a process ended by SIGTERM), 1 when it raises anything else (the traceback goes to stderr).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from yarnball.actors._checkpoint import Checkpoint, FileSystemCheckpointStore
from yarnball.actors.executors._launch import CHECKPOINT_DIR_ENV, LAUNCHED_AT_ENV, RESULT_PATH_ENV, TASK_ID_ENV
from yarnball.errors import ContainerKilled

__all__ = ["ContainerContext", "run_callable", "run_callable_in_worker"]


class ContainerContext:
    """What a callable knows about its container: ids, directories, its cancellation and its checkpoints."""

    def __init__(self, environment: dict[str, str], work_dir: str, cancel_file: str | None = None) -> None:
        self.environment = environment
        self.container_id = environment.get("CONTAINER_ID", "")
        self.application_id = environment.get("APPLICATION_ID", "")
        self.nm_host = environment.get("NM_HOST", "")
        self.work_dir = Path(work_dir)
        self.task_id = environment.get(TASK_ID_ENV)
        directory = environment.get(CHECKPOINT_DIR_ENV)
        self.store = FileSystemCheckpointStore(directory) if directory and self.task_id else None
        self._cancelled = False
        self._cancel_file = cancel_file  # on Ray: the NodeManager's SIGTERM is this file appearing
        # From the NodeManager's launch (process start-up included), as the AM counts the attempt's time.
        self._started = float(environment.get(LAUNCHED_AT_ENV) or time.monotonic())
        restored = self.load_checkpoint()
        #: Work (ms) already done by earlier attempts, from the checkpoint this attempt resumed (0 when none).
        self.restored_ms = restored.work_done_ms if restored is not None else 0
        self._saves = restored.attempt if restored is not None else 0  # checkpoints of the task so far
    # -- cancellation ----------------------------------------------------------------------------------------
    @property
    def cancelled(self) -> bool:
        """Whether the NodeManager asked this container to stop (SIGTERM received, or its cancel file written)."""
        if not self._cancelled and self._cancel_file is not None and os.path.exists(self._cancel_file):
            self._cancelled = True
        return self._cancelled

    def cancel(self) -> None:
        self._cancelled = True

    def check(self) -> None:
        """Raise ContainerKilled if the container was asked to stop; call it between steps."""
        if self.cancelled:
            raise ContainerKilled(f"container {self.container_id} is being killed (SIGTERM)")

    # -- checkpoints -----------------------------------------------------------------------------------------
    def load_checkpoint(self) -> Checkpoint | None:
        """The task's last checkpoint (None without a checkpoint directory, or when there is none yet)."""
        if self.store is None or self.task_id is None:
            return None
        return self.store.load(self.task_id)

    def save_checkpoint(self, state: dict[str, str], *, work_done_ms: int | None = None) -> Checkpoint | None:
        """Save ``state`` as the task's checkpoint (atomically); ``work_done_ms`` defaults to the work restored
        plus this attempt's run time. Returns None (and saves nothing) without a checkpoint directory."""
        if self.store is None or self.task_id is None:
            return None
        done = work_done_ms if work_done_ms is not None else self.restored_ms + self.elapsed_ms()
        self._saves += 1
        checkpoint = Checkpoint(
            task_id=self.task_id,
            work_done_ms=max(0, int(done)),
            saved_at_ms=time.time() * 1000.0,
            attempt=self._saves,
            container_id=self.container_id,
            state=dict(state),
        )
        self.store.save(checkpoint)
        return checkpoint

    def elapsed_ms(self) -> int:
        """Wall-clock ms since the NodeManager launched this attempt's container."""
        return int((time.monotonic() - self._started) * 1000)


def _redirect(fd: int, path: str) -> None:
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(target, fd)
    os.close(target)


def _call(payload: bytes, ctx: ContainerContext, environment: dict[str, str]) -> int:
    """Call the pickled ``fn(ctx, *args, **kwargs)``; its exit code (0, 143 for ContainerKilled, 1 for an error)."""
    try:
        fn, args, kwargs = pickle.loads(payload)
        try:
            result: Any = fn(ctx, *args, **kwargs)
        except ContainerKilled as exc:
            print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
            return 143
        path = environment.get(RESULT_PATH_ENV)
        if path:
            tmp = f"{path}.tmp.{os.getpid()}"
            with open(tmp, "wb") as f:
                pickle.dump(result, f)
            os.replace(tmp, path)
        return 0
    except BaseException:
        traceback.print_exc()
        return 1


def run_callable(payload: bytes, environment: dict[str, str], work_dir: str, stdout: str, stderr: str) -> None:
    """The container process of a callable (the target of the executor's forkserver process); never returns."""
    code = 1
    try:
        os.setsid()
        _redirect(1, stdout)
        _redirect(2, stderr)
        sys.stdout = open(1, "w", buffering=1, closefd=False)
        sys.stderr = open(2, "w", buffering=1, closefd=False)
        os.chdir(work_dir)
        os.environ.update(environment)
        ctx = ContainerContext(environment, work_dir)
        signal.signal(signal.SIGTERM, lambda signum, frame: ctx.cancel())
        code = _call(payload, ctx, environment)
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)  # no atexit handlers of the parent's copy (forkserver children share its imports)


def run_callable_in_worker(
    payload: bytes, environment: dict[str, str], work_dir: str, stdout: str, stderr: str, pid_file: str,
    cancel_file: str,
) -> int:  # fmt: skip
    """A callable container as a Ray task: the body of the remote function the executor submits (``_ray.py``).

    The worker writes its pid to ``pid_file`` first (the NodeManager's /proc monitor measures that process), runs
    ``fn`` with the container's stdout, stderr, working directory and environment, and puts the worker back as it
    found it (Ray reuses workers). The NodeManager's SIGTERM is ``cancel_file`` appearing (a Ray worker's own
    SIGTERM handler shuts the worker down); its SIGKILL is ``ray.cancel(force=True)``. Returns the exit code."""
    with open(f"{pid_file}.tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(f"{pid_file}.tmp", pid_file)
    sys.stdout.flush()
    sys.stderr.flush()
    saved_fds = (os.dup(1), os.dup(2))
    saved_streams = (sys.stdout, sys.stderr)
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    code = 1
    try:
        _redirect(1, stdout)
        _redirect(2, stderr)
        sys.stdout = open(1, "w", buffering=1, closefd=False)
        sys.stderr = open(2, "w", buffering=1, closefd=False)
        os.chdir(work_dir)
        os.environ.update(environment)
        ctx = ContainerContext(environment, work_dir, cancel_file)
        if os.path.exists(cancel_file):
            ctx.cancel()
        code = _call(payload, ctx, environment)
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.close()  # (the wrappers only: closefd=False)
            sys.stderr.close()
        finally:
            sys.stdout, sys.stderr = saved_streams
            os.dup2(saved_fds[0], 1)
            os.dup2(saved_fds[1], 2)
            os.close(saved_fds[0])
            os.close(saved_fds[1])
            os.environ.clear()
            os.environ.update(saved_env)
            os.chdir(saved_cwd)
    return code
