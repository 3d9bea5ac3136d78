"""Containers that do real work: the executors of live (wall-clock) runs.

In virtual time a container waits out its ``simulated_duration_ms``; that stays the default. In a live run
(``Cluster(..., clock="wall")``, or the Ray backend's live hosts) each NodeManager also has a
:class:`LiveExecutor`, and a container whose launch context asks for real work runs it:

- :func:`command_context`: YARN's ``commands``, run by ``bash -c`` in a process group of its own, with
  ``CONTAINER_ID``, ``APPLICATION_ID``, ``NM_HOST`` and the working directory, stdout and stderr in the NM's
  container log directory;
- :func:`callable_context`: a Python callable ``fn(ctx, *args, **kwargs)``; ``ctx`` is a :class:`ContainerContext`
  with the container's ids, its cancellation (``ctx.cancelled``, ``ctx.check()`` raising
  :class:`~yarnball.errors.ContainerKilled` after SIGTERM) and its checkpoints. Which runner, by
  ``yarnball.executor.callable-runner``: ``process`` runs it in a forkserver process of its own (``_task.py``);
  ``ray`` as a Ray task pinned to the NodeManager's Ray node (``_ray.py``); ``auto`` (the default) takes ``ray``
  when the NodeManager's process is connected to Ray (``ray.is_initialized()``), else ``process``.

Memory is enforced through the measured RSS, as the NM's ContainersMonitor does; kills are SIGTERM, then SIGKILL
after ``yarn.nodemanager.sleep-delay-before-sigkill.ms``. See ``_live.py`` for the details and Hadoop's classes.
"""

from __future__ import annotations

from yarnball.actors.executors._launch import (
    CHECKPOINT_DIR_ENV,
    EXECUTOR_ENV,
    RESULT_PATH_ENV,
    TASK_ID_ENV,
    RealWork,
    callable_context,
    command_context,
    real_work,
)
from yarnball.actors.executors._live import LiveExecutor, container_log_dir, container_work_dir, start_forkserver
from yarnball.actors.executors._task import ContainerContext

__all__ = [
    "CHECKPOINT_DIR_ENV",
    "EXECUTOR_ENV",
    "RESULT_PATH_ENV",
    "TASK_ID_ENV",
    "ContainerContext",
    "LiveExecutor",
    "RealWork",
    "callable_context",
    "command_context",
    "container_log_dir",
    "container_work_dir",
    "real_work",
    "start_forkserver",
]
