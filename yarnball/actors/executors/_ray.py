"""A callable container as a Ray task: the ``ray`` callable runner of the live executor.

The NodeManager submits ``run_callable_in_worker`` as ``@ray.remote(max_retries=0, num_cpus=0)`` pinned to its own
Ray node (``NodeAffinitySchedulingStrategy``, not soft), so that the container's directories are local and the
NodeManager's /proc monitor can measure the worker. YARN has admitted the container already, hence no CPU is
asked of Ray (vcores stay advisory, as in YARN without cgroups), and a failed container is the AM's to retry,
never Ray's (``max_retries=0``).

What the process runner does with signals, this one does with Ray:

- the worker's pid is written to ``.yarnball-worker-pid`` in the container's working directory as the task starts
  (the memory monitor reads it; until then there is nothing to measure);
- SIGTERM is the file ``.yarnball-cancel`` in the working directory: ``ctx.cancelled`` / ``ctx.check()`` see it
  (a Ray worker's own SIGTERM handler would end the worker, not tell the callable);
- SIGKILL is ``ray.cancel(ref, force=True)``, which kills the worker; the container exits 137 as with SIGKILL.

The exit code is the task's return value (0, 143 for ContainerKilled, 1 with the traceback in stderr); a task
Ray cancelled or whose worker died exits 137, any other Ray error 1 with the error in the container's stderr.
"""

from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path
from typing import Any

from yarnball.actors.executors._task import run_callable_in_worker

__all__ = ["CANCEL_FILE", "PID_FILE", "RayTask", "ray_is_initialized"]

PID_FILE = ".yarnball-worker-pid"
CANCEL_FILE = ".yarnball-cancel"
FORCE_KILLED = 137

_REMOTE: Any = None


def ray_is_initialized() -> bool:
    """Whether this process is connected to Ray (without importing Ray when nothing did yet)."""
    import sys

    ray = sys.modules.get("ray")
    return ray is not None and bool(ray.is_initialized())


def _remote() -> Any:
    global _REMOTE
    if _REMOTE is None:
        import ray

        _REMOTE = ray.remote(max_retries=0, num_cpus=0)(run_callable_in_worker)
    return _REMOTE


class RayTask:
    """One callable container running as a Ray task: what a forkserver ``Process`` is to the process runner."""

    __slots__ = ("cancel_file", "future", "pid_file", "ref", "stderr")

    def __init__(self, name: str, payload: bytes, environment: dict[str, str], work_dir: Path, log_dir: Path) -> None:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self.pid_file = work_dir / PID_FILE
        self.cancel_file = work_dir / CANCEL_FILE
        self.stderr = log_dir / "stderr"
        for stale in (self.pid_file, self.cancel_file):  # (a relaunch in the same directory)
            stale.unlink(missing_ok=True)
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        self.ref = _remote().options(name=name, scheduling_strategy=here).remote(
            payload, environment, str(work_dir), str(log_dir / "stdout"), str(self.stderr), str(self.pid_file),
            str(self.cancel_file),
        )  # fmt: skip
        self.future: concurrent.futures.Future[Any] = self.ref.future()

    @property
    def pid(self) -> int:
        return self.worker_pid()

    def worker_pid(self) -> int:
        """The pid of the worker running the task, or -1 before it started."""
        try:
            return int(self.pid_file.read_text())
        except (OSError, ValueError):
            return -1

    def terminate(self) -> None:
        """The NodeManager's SIGTERM: the callable's ``ctx.cancelled`` becomes true."""
        tmp = self.cancel_file.with_name(f"{CANCEL_FILE}.tmp")
        try:
            tmp.write_text("SIGTERM\n")
            os.replace(tmp, self.cancel_file)
        except OSError:
            pass  # the working directory is gone: so is the container

    def force_kill(self) -> None:
        """The NodeManager's SIGKILL: Ray kills the worker running the task."""
        import ray

        try:
            ray.cancel(self.ref, force=True)
        except Exception:  # finished meanwhile, or Ray is shutting down: nothing left to kill
            pass

    def exit_code(self) -> int:
        """The container's exit code, once ``future`` is done."""
        import ray.exceptions

        try:
            return int(self.future.result(timeout=0))
        except (
            ray.exceptions.TaskCancelledError,
            ray.exceptions.WorkerCrashedError,
            concurrent.futures.CancelledError,
        ):
            return FORCE_KILLED
        except Exception as err:  # Ray's own failure, reported as the container's
            try:
                with open(self.stderr, "a") as f:
                    f.write(f"Ray task failed: {type(err).__name__}: {err}\n")
            except OSError:
                pass
            return 1
