"""What an AM puts in a ContainerLaunchContext to have real work run, and how the NodeManager reads it back.

Two kinds of real work, chosen per container by the AM:

- a **command**: YARN's own ``commands`` (joined with spaces and run by ``/bin/bash -c``, as the NM's
  ``launch_container.sh`` does), with the launch context's environment;
- a **Python callable**: ``fn(ctx, *args, **kwargs)`` pickled into the context's ``payload`` (``fn`` must be
  picklable by reference: a module-level function), with ``YARNBALL_EXECUTOR=python`` in its environment.

Either may carry ``simulated_duration_ms`` too: in virtual time the container then runs as a simulated one of that
duration, so the same AM runs in a simulation and live. A context whose environment names an actor program
(``YARNBALL_PROCESS_ACTOR``: an AM container) is never run for real.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from yarnball.protocols._containermanagement import ContainerLaunchContext
from yarnball.protocols._executor import PROCESS_ACTOR_ENV

__all__ = [
    "CHECKPOINT_DIR_ENV",
    "EXECUTOR_ENV",
    "LAUNCHED_AT_ENV",
    "RESULT_PATH_ENV",
    "TASK_ID_ENV",
    "RealWork",
    "callable_context",
    "command_context",
    "real_work",
]

#: Environment variable marking a callable container (value ``python``).
EXECUTOR_ENV = "YARNBALL_EXECUTOR"
#: The AM's task id for the container's work (checkpoints are saved under it).
TASK_ID_ENV = "YARNBALL_TASK_ID"
#: A directory of :class:`~yarnball.actors.FileSystemCheckpointStore` checkpoints the task may save to and resume from.
CHECKPOINT_DIR_ENV = "YARNBALL_CHECKPOINT_DIR"
#: Where a callable's return value is written (pickled) when it returns normally.
RESULT_PATH_ENV = "YARNBALL_RESULT_PATH"
#: Set by the NodeManager: ``time.monotonic()`` when it launched the container (a task's elapsed time counts from
#: there, as the AM counts an attempt's time from its start request).
LAUNCHED_AT_ENV = "YARNBALL_LAUNCHED_AT"


def _env(
    environment: Mapping[str, str] | None,
    task_id: str | None,
    checkpoint_dir: str | None,
    result_path: str | None,
) -> list[tuple[str, str]]:
    env = [(str(k), str(v)) for k, v in (environment or {}).items()]
    for key, value in ((TASK_ID_ENV, task_id), (CHECKPOINT_DIR_ENV, checkpoint_dir), (RESULT_PATH_ENV, result_path)):
        if value is not None:
            env.append((key, str(value)))
    return env


def command_context(
    *commands: str,
    environment: Mapping[str, str] | None = None,
    simulated_duration_ms: int | None = None,
    task_id: str | None = None,
    checkpoint_dir: str | None = None,
) -> ContainerLaunchContext:
    """A container running ``commands`` (``bash -c "<commands joined by spaces>"``) with ``environment``."""
    if not commands or not all(isinstance(c, str) and c.strip() for c in commands):
        raise ValueError(f"command_context: expected one or more non-empty command strings, got {commands!r}")
    return ContainerLaunchContext(
        commands=tuple(commands),
        environment=tuple(_env(environment, task_id, checkpoint_dir, None)),
        simulated_duration_ms=simulated_duration_ms,
    )


def callable_context(
    fn: Callable[..., Any],
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    environment: Mapping[str, str] | None = None,
    simulated_duration_ms: int | None = None,
    task_id: str | None = None,
    checkpoint_dir: str | None = None,
    result_path: str | None = None,
) -> ContainerLaunchContext:
    """A container running ``fn(ctx, *args, **kwargs)`` in a process of its own (ctx: a ContainerContext)."""
    if not callable(fn):
        raise ValueError(f"callable_context: {fn!r} is not callable")
    try:
        payload = pickle.dumps((fn, tuple(args), dict(kwargs or {})))
    except (pickle.PicklingError, AttributeError, TypeError) as err:
        raise ValueError(
            f"callable_context: {getattr(fn, '__qualname__', fn)!r} and its arguments must be picklable "
            f"(a module-level function): {err}"
        ) from err
    env = [(EXECUTOR_ENV, "python"), *_env(environment, task_id, checkpoint_dir, result_path)]
    return ContainerLaunchContext(environment=tuple(env), payload=payload, simulated_duration_ms=simulated_duration_ms)


@dataclass(frozen=True, slots=True)
class RealWork:
    """The real work of one launch context: ``kind`` is ``"command"`` or ``"python"``."""

    kind: str
    command: str
    payload: bytes
    environment: dict[str, str]


def real_work(context: ContainerLaunchContext) -> RealWork | None:
    """The real work ``context`` asks for, or None (a simulated container, or an actor program)."""
    env = dict(context.environment)
    if PROCESS_ACTOR_ENV in env:
        return None
    if env.get(EXECUTOR_ENV) == "python":
        return RealWork("python", "", context.payload, env)
    if context.commands:
        return RealWork("command", " ".join(context.commands), b"", env)
    return None
