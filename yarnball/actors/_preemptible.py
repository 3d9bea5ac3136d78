"""Preemption-aware ApplicationMasters: checkpoint, give back, resume.

:class:`PreemptibleAppMaster` runs tasks of known work (``TaskWork``: so many ms of run time in a container of
some size), phase after phase (MapReduce: maps, then reduces), and gives AM authors the helpers preemption needs:

- :meth:`~PreemptibleAppMaster.preempted_containers`: the containers of ours a ``PreemptionMessage`` names, from
  the strict contract and the negotiable one;
- :meth:`~PreemptibleAppMaster.checkpoint_container`: save the task's progress in that container to the
  :class:`~yarnball.actors.CheckpointStore`;
- :meth:`~PreemptibleAppMaster.release_preempted`: checkpoint (optionally), release the container voluntarily
  (the RM frees it at once, so the queue stops needing the kill) and ask for a new one for the task;
- :meth:`~PreemptibleAppMaster.resume_task`: start a task in a new container from its last checkpoint.

A container that ends PREEMPTED (-102), or that the AM released because of a PreemptionMessage, is never a task
failure (MAPREDUCE-5900: ``TaskAttemptImpl`` turns a preempted container into a KILLED attempt, which does not
count against ``mapreduce.map.maxattempts``): it is counted in ``preempted_task_attempts`` and the task is
simply requested again. Other abnormal exits count in ``failed_task_attempts``.

Two ready-made AMs: :class:`CheckpointingMRAppMaster` checkpoints and releases every container it is asked
for; :class:`RestartingMRAppMaster` ignores the message (as SLS's AMs and MapReduce's default
``NoopAMPreemptionPolicy`` do), so its containers are killed after ``max_wait_before_kill`` and the tasks start
again from zero. Compare ``work_lost_ms`` and finish times (examples/preemption_checkpointing.py).

**Real work.** Give the AM ``work=CallableWork(fn, ...)`` (or ``CommandWork``) and each task's container also
carries that work. In virtual time nothing changes (the container still waits out the task's remaining
``work_ms``); in a live run (``Cluster(..., clock="wall")``) the NodeManager runs the work for real, and then:

- the task saves its own checkpoints (``ctx.save_checkpoint``) into the AM's store, which must be a
  :class:`~yarnball.actors.FileSystemCheckpointStore` (the tasks' processes reach it as HDFS would be reached);
  the AM hands its directory to tasks only if it resumes them (:attr:`PreemptibleAppMaster.resumes_tasks`:
  the restarting AM does not);
- :meth:`~PreemptibleAppMaster.release_preempted` stops the container (KILLED_BY_APPMASTER: SIGTERM, then SIGKILL
  after the NM's delay, in which the task saves a last checkpoint) and asks for a new one once it is gone, so two
  attempts of a task never run at once;
- progress is wall time since the attempt started on top of the checkpoint it resumed from, and a successful
  task's return value is read from ``output_dir`` into :attr:`PreemptibleAppMaster.results`.
"""

from __future__ import annotations

import os
import pickle
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec

from yarnball.actors._actor import handler
from yarnball.actors._appmaster import ApplicationMaster
from yarnball.actors._checkpoint import (
    Checkpoint,
    CheckpointStore,
    FileSystemCheckpointStore,
    InMemoryCheckpointStore,
)
from yarnball.actors._kernel import WallClock
from yarnball.protocols import (
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerStatus,
    FinalApplicationStatus,
    PreemptionMessage,
    RegisterApplicationMasterResponse,
    Resource,
)
from yarnball.protocols._containermanagement import ContainerLaunchContext
from yarnball.protocols._executor import ContainerTerminated

__all__ = [
    "CallableWork",
    "CheckpointingMRAppMaster",
    "CommandWork",
    "PreemptibleAppMaster",
    "RestartingMRAppMaster",
    "TaskWork",
    "mapreduce_tasks",
]

_DEFAULT_TASK_RESOURCE = Resource(1024, 1)
MAP_PRIORITY = 20  # RMContainerAllocator.PRIORITY_MAP
REDUCE_PRIORITY = 10  # RMContainerAllocator.PRIORITY_REDUCE


class TaskWork(msgspec.Struct, frozen=True, kw_only=True):
    """A task: ``work_ms`` of run time in a container of ``resource``, requested at ``priority`` in ``phase``."""

    task_id: str
    work_ms: Annotated[int, msgspec.Meta(gt=0)]
    resource: Resource = _DEFAULT_TASK_RESOURCE
    priority: int = MAP_PRIORITY
    phase: Annotated[int, msgspec.Meta(ge=0)] = 0

    def __post_init__(self) -> None:
        # msgspec checks the Meta constraints when decoding; direct construction is checked here.
        if self.work_ms <= 0 or self.phase < 0:
            raise ValueError(f"task {self.task_id!r}: work_ms must be > 0 and phase >= 0")


def mapreduce_tasks(
    maps: int,
    reduces: int = 0,
    *,
    map_ms: int,
    reduce_ms: int = 0,
    resource: Resource = _DEFAULT_TASK_RESOURCE,
    prefix: str = "task",
) -> list[TaskWork]:
    """``maps`` map tasks (phase 0, priority 20) then ``reduces`` reduce tasks (phase 1, priority 10)."""
    out = [TaskWork(task_id=f"{prefix}_m_{i:06d}", work_ms=map_ms, resource=resource) for i in range(maps)]
    out += [
        TaskWork(task_id=f"{prefix}_r_{i:06d}", work_ms=reduce_ms, resource=resource, priority=REDUCE_PRIORITY, phase=1)
        for i in range(reduces)
    ]
    return out


def _check_one_capability_per_priority(name: str, tasks: Sequence[TaskWork]) -> None:
    """YARN keeps one outstanding ask per priority (and allocation request id) and resource name: the RM's
    ``AppSchedulingInfo`` replaces an ask by the next one with the same ``SchedulerRequestKey`` whatever its
    capability, so two sizes at one priority would overwrite each other's counts. MapReduce's
    ``RMContainerAllocator`` therefore gives maps and reduces their own priorities; tasks here must do the same."""
    seen: dict[int, TaskWork] = {}
    for task in tasks:
        first = seen.setdefault(task.priority, task)
        if first.resource != task.resource:
            raise ValueError(
                f"{name}: tasks {first.task_id!r} ({first.resource}) and {task.task_id!r} ({task.resource}) ask "
                f"for different resources at priority {task.priority}; YARN keeps one ask per priority "
                "(AppSchedulingInfo), so give each task size its own priority"
            )


class CallableWork:
    """Real work for every task: ``fn(ctx, *args, **kwargs)`` in the task's container (see actors/executors).
    ``fn`` is a module-level function; ``ctx.task_id`` says which task it is."""

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.fn = fn
        self.args = args
        self.kwargs = kwargs

    def context(self, task: TaskWork, *, simulated_duration_ms: int, environment: Mapping[str, str],
                checkpoint_dir: str | None, result_path: str | None) -> ContainerLaunchContext:  # fmt: skip
        from yarnball.actors.executors import callable_context

        return callable_context(
            self.fn, self.args, self.kwargs, environment=environment, simulated_duration_ms=simulated_duration_ms,
            task_id=task.task_id, checkpoint_dir=checkpoint_dir, result_path=result_path,
        )  # fmt: skip


class CommandWork:
    """Real work for every task: a shell command (``command`` itself, or ``command(task)``); the task's id and
    checkpoint directory are in its environment (``YARNBALL_TASK_ID``, ``YARNBALL_CHECKPOINT_DIR``)."""

    def __init__(self, command: str | Callable[[TaskWork], str]) -> None:
        self.command = command

    def context(self, task: TaskWork, *, simulated_duration_ms: int, environment: Mapping[str, str],
                checkpoint_dir: str | None, result_path: str | None) -> ContainerLaunchContext:  # fmt: skip
        from yarnball.actors.executors import command_context

        command = self.command(task) if callable(self.command) else self.command
        return command_context(
            command, environment=environment, simulated_duration_ms=simulated_duration_ms, task_id=task.task_id,
            checkpoint_dir=checkpoint_dir,
        )  # fmt: skip


class _Run:
    """One task attempt in one container."""

    __slots__ = ("base_ms", "container", "overhead_ms", "started_at", "task")

    def __init__(self, task: TaskWork, container: Container, started_at: float, base_ms: int, overhead_ms: int):
        self.task = task
        self.container = container
        self.started_at = started_at
        self.base_ms = base_ms  # work already saved when this attempt started
        self.overhead_ms = overhead_ms  # restore time before new work is done


class PreemptibleAppMaster(ApplicationMaster):
    """Runs :class:`TaskWork` phase by phase and offers the checkpoint / release / resume helpers.

    ``store`` keeps checkpoints (default: in memory); ``restore_overhead_ms`` is the time a resumed task spends
    reading its checkpoint before doing new work. Subclasses decide what to do with a PreemptionMessage in
    :meth:`on_preemption_message` (this base class only records it). ``work`` (a :class:`CallableWork` or
    :class:`CommandWork`) is what every task runs in a live run, ``output_dir`` where their results go (module
    docstring).
    """

    #: Whether a task resumes from its checkpoint in a new container (in a live run: whether the task is handed
    #: the checkpoint directory at all).
    resumes_tasks = True

    def __init__(
        self,
        *,
        tasks: Sequence[TaskWork],
        store: CheckpointStore | None = None,
        restore_overhead_ms: int = 0,
        work: CallableWork | CommandWork | None = None,
        output_dir: str | os.PathLike[str] | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        if not tasks:
            raise ValueError(f"{self.name}: an application needs at least one task")
        self.tasks = tuple(tasks)
        _check_one_capability_per_priority(self.name, self.tasks)
        self.store: CheckpointStore = store if store is not None else InMemoryCheckpointStore()
        self.restore_overhead_ms = restore_overhead_ms
        self.phase_ids = sorted({t.phase for t in self.tasks})
        self.phase = -1
        self.pending: deque[TaskWork] = deque()
        self.runs: dict[ContainerId, _Run] = {}
        self.done: dict[str, float] = {}  # task id -> finish time
        self.failed_task_attempts = 0
        self.preempted_task_attempts = 0  # killed with PREEMPTED or released for a PreemptionMessage
        self.released_for_preemption = 0
        self.checkpoints_saved = 0
        self.work_lost_ms = 0.0  # run time whose result was thrown away
        self.work_resumed_ms = 0.0  # run time saved by resuming from checkpoints
        self.preemption_messages: list[tuple[float, PreemptionMessage]] = []
        self._am_died_at: float | None = None
        self.work = work
        self.output_dir = Path(output_dir) if output_dir is not None else None
        #: A live run's task results (task id -> the callable's return value), read from ``output_dir``.
        self.results: dict[str, Any] = {}
        # stopped for preemption (-> when), waiting for their processes to go
        self._stopping: dict[ContainerId, float] = {}

    @property
    def live(self) -> bool:
        """Whether the tasks run real work: ``work`` was given and the run is live (wall clock)."""
        return self.work is not None and isinstance(self.kernel.clock, WallClock)

    def _work_now(self) -> float:
        """The time an attempt's progress is measured at: ``now``, or with real work the wall clock's time now (an
        event's simulated time is when it was due; a loaded machine runs it later, and real work goes on)."""
        clock = self.kernel.clock
        return clock.now_ms() if self.live and isinstance(clock, WallClock) else self.now

    # -- the helpers ------------------------------------------------------------------------------------------
    def preempted_containers(self, message: PreemptionMessage) -> list[ContainerId]:
        """Our running containers named by ``message`` (strict contract first, then the negotiable one)."""
        out: list[ContainerId] = []
        for contract in (message.strict_contract, message.contract):
            if contract is None:
                continue
            for pc in contract.containers:
                if pc.id in self.runs and pc.id not in out:
                    out.append(pc.id)
        return out

    @staticmethod
    def named_containers(message: PreemptionMessage) -> set[ContainerId]:
        """Every container ``message`` names, ours or not, the AM's own included."""
        return {
            pc.id for contract in (message.strict_contract, message.contract) if contract is not None
            for pc in contract.containers
        }  # fmt: skip

    def progress_ms(self, container_id: ContainerId, at: float | None = None) -> int:
        """Work done on the task in this container by ``at`` (default: now), saved part included."""
        run = self.runs[container_id]
        fresh = (self._work_now() if at is None else at) - run.started_at - run.overhead_ms
        if self.live:
            return run.base_ms + int(max(fresh, 0.0))  # real work: its length is what it takes
        fresh = min(max(fresh, 0.0), run.task.work_ms - run.base_ms)
        return run.base_ms + int(fresh)

    def checkpoint_container(self, container_id: ContainerId, state: dict[str, str] | None = None) -> Checkpoint:
        """Save the progress of the task running in ``container_id`` to the store and return the checkpoint.
        With real work the task saves its own checkpoints: this returns the last one (None if there is none)."""
        run = self.runs[container_id]
        previous = self.store.load(run.task.task_id)
        if self.live:
            return previous  # type: ignore[return-value]
        checkpoint = Checkpoint(
            task_id=run.task.task_id,
            work_done_ms=self.progress_ms(container_id),
            saved_at_ms=self.now,
            attempt=(previous.attempt + 1) if previous is not None else 1,
            container_id=str(container_id),
            state=dict(state or {}),
        )
        self.store.save(checkpoint)
        self.checkpoints_saved += 1
        self.log.info("task_checkpointed", task=run.task.task_id, work_done_ms=checkpoint.work_done_ms)
        return checkpoint

    def release_preempted(self, container_id: ContainerId, *, checkpoint: bool = True) -> None:
        """Give ``container_id`` back because of preemption: checkpoint it first (unless ``checkpoint`` is
        False, which loses its progress), release it, and request a container for its task again."""
        run = self.runs.get(container_id)
        if run is None:
            return
        if self.live and checkpoint:
            # The task checkpoints itself: stop it (SIGTERM, its grace period, SIGKILL) and ask for a container
            # for it again once it is gone (on_containers_completed), never two attempts at once.
            if container_id not in self._stopping:
                self._stopping[container_id] = self._work_now()
                self.released_for_preemption += 1
                self.stop_container(run.container)
            return
        if checkpoint:
            self.checkpoint_container(container_id)
        else:
            self.work_lost_ms += self.progress_ms(container_id) - run.base_ms
        del self.runs[container_id]
        self.release(container_id)
        self.released_for_preemption += 1
        self.preempted_task_attempts += 1
        self._request(run.task)

    def resume_task(self, task: TaskWork, container: Container) -> int:
        """Start ``task`` in ``container`` from its last checkpoint (from zero if there is none); returns the
        work already done. A corrupt checkpoint raises CheckpointError: the task is not silently redone."""
        saved = self.store.load(task.task_id) if self.resumes_tasks or not self.live else None
        base = min(saved.work_done_ms, task.work_ms) if saved is not None else 0
        if saved is not None and self.live:
            base = saved.work_done_ms  # real work: what the task itself saved
        overhead = self.restore_overhead_ms if base > 0 and not self.live else 0
        self.work_resumed_ms += base
        self.runs[container.id] = _Run(task, container, self._work_now(), base, overhead)
        duration = max(task.work_ms - base, 0) + overhead
        if self.work is None:
            self.start_container(container, duration_ms=duration)
        else:
            self.start_container(container, context=self._work_context(task, duration))
        return base

    def _work_context(self, task: TaskWork, duration_ms: int) -> ContainerLaunchContext:
        assert self.work is not None
        store = self.store
        checkpoint_dir = None
        if self.resumes_tasks and isinstance(store, FileSystemCheckpointStore):
            checkpoint_dir = str(store.directory)
        elif self.resumes_tasks and self.live:
            self.log.warning("checkpoints_not_shared", task=task.task_id,
                             reason="real tasks save checkpoints only to a FileSystemCheckpointStore")  # fmt: skip
        result_path = None
        if self.output_dir is not None:
            self.output_dir.mkdir(parents=True, exist_ok=True)
            result_path = str(self._result_path(task.task_id))
        return self.work.context(
            task, simulated_duration_ms=duration_ms, environment={"USER": self.user}, checkpoint_dir=checkpoint_dir,
            result_path=result_path,
        )  # fmt: skip

    def _result_path(self, task_id: str) -> Path:
        assert self.output_dir is not None
        return self.output_dir / f"{task_id}.result"

    # -- the task machinery -----------------------------------------------------------------------------------
    def on_preemption_message(self, message: PreemptionMessage) -> None:
        self.preemption_messages.append((self.now, message))

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        maximum = response.maximum_resource_capability
        too_big = next((t for t in self.tasks if not t.resource.fits_in(maximum)), None)
        if too_big is not None:
            self.finish(
                FinalApplicationStatus.FAILED,
                f"task {too_big.task_id} needs {too_big.resource}, more than the maximum allocation {maximum}",
            )
            return
        self.phase = -1
        self.pending.clear()
        self._next_phase()

    @handler
    def on_terminated(self, msg: ContainerTerminated) -> None:
        if self.am_container is not None and msg.container_id == self.am_container.id:
            self._am_died_at = self._work_now()  # our task containers die with us (the RM kills them with the attempt)
        super().on_terminated(msg)

    def on_attempt_restarted(self) -> None:
        # The old attempt's containers died with its AM container: the work they did after their last checkpoint
        # is lost, counted up to the AM's death, not to this new launch (finished tasks are recovered, as
        # MapReduce's AM recovery does). Whatever killed the AM, these are not task failures: the attempts of
        # the next AM start the tasks again (from their checkpoints).
        died = self._am_died_at if self._am_died_at is not None else self._work_now()
        for cid in list(self.runs):
            self.work_lost_ms += self._unsaved_ms(cid, died)
        self.runs.clear()
        self._am_died_at = None

    def _unsaved_ms(self, container_id: ContainerId, at: float | None = None) -> int:
        """Work in this container by ``at`` that no checkpoint holds (progress minus the latest save)."""
        run = self.runs[container_id]
        saved = self.store.load(run.task.task_id)
        kept = max(run.base_ms, saved.work_done_ms if saved is not None else 0)
        return max(self.progress_ms(container_id, at) - kept, 0)

    def _next_phase(self) -> None:
        while True:
            self.phase += 1
            if self.phase >= len(self.phase_ids):
                self.finish(FinalApplicationStatus.SUCCEEDED)
                return
            todo = [t for t in self.tasks if t.phase == self.phase_ids[self.phase] and t.task_id not in self.done]
            if todo:
                break
        for task in todo:
            self._request(task)

    def _request(self, task: TaskWork) -> None:
        self.pending.append(task)
        self.add_container_request(task.resource, task.priority)

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for container in containers:
            task = self._matching_task(container)
            if task is None:
                self.release(container.id)
                continue
            self.pending.remove(task)
            self.resume_task(task, container)

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        for status in statuses:
            run = self.runs.get(status.container_id)
            if run is None:
                continue  # released by us, or not a task container
            task = run.task
            stopped_at = self._stopping.pop(status.container_id, None)
            if status.exit_status == ContainerExitStatus.SUCCESS:
                del self.runs[status.container_id]
                self.done[task.task_id] = self.now
                if self.live and self.output_dir is not None:
                    self._read_result(task.task_id)
                self.store.delete(task.task_id)
                continue
            self.work_lost_ms += self._unsaved_ms(status.container_id, stopped_at)
            del self.runs[status.container_id]
            if status.exit_status == ContainerExitStatus.PREEMPTED or stopped_at is not None:
                self.preempted_task_attempts += 1  # MAPREDUCE-5900: not a task failure
            else:
                self.failed_task_attempts += 1
            self._request(task)
        if not self.pending and not self.runs and not self._unregistering and self.phase < len(self.phase_ids):
            self._next_phase()

    def _read_result(self, task_id: str) -> None:
        path = self._result_path(task_id)
        try:
            with open(path, "rb") as f:
                self.results[task_id] = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError) as err:
            self.log.warning("task_result_unreadable", task=task_id, path=str(path), error=str(err))

    def _matching_task(self, container: Container) -> TaskWork | None:
        """The pending task ``container`` was allocated for, as ``AMRMClient.getMatchingRequests(priority, *,
        capability)`` finds it: same priority, the exact capability if one is pending, else the largest pending
        capability that fits in the container (the RM rounds asks up to its increment; RemoteRequestsTable's
        ``tailMap`` under ResourceReverseMemoryThenCpuComparator), oldest request first."""
        prio = container.priority.priority
        size = container.resource
        best: TaskWork | None = None
        for task in self.pending:
            if task.priority != prio or not task.resource.fits_in(size):
                continue
            if task.resource == size:
                return task
            if best is None or (task.resource.memory_mb, task.resource.vcores) > (
                best.resource.memory_mb,
                best.resource.vcores,
            ):
                best = task
        return best

    @property
    def completed_tasks(self) -> int:
        return len(self.done)


class CheckpointingMRAppMaster(PreemptibleAppMaster):
    """A MapReduce-style AM that, when asked, checkpoints each named container, releases it and resumes the
    task later in a new container."""

    def on_preemption_message(self, message: PreemptionMessage) -> None:
        super().on_preemption_message(message)
        for cid in self.preempted_containers(message):
            self.release_preempted(cid, checkpoint=True)
        if self.am_container is not None and self.am_container.id in self.named_containers(message):
            # Our own container will be taken (AM containers are selected last, once the queue's AM resources
            # exceed its allowance). It cannot be given back without ending the attempt, and every task
            # container dies with it: save them all, so that the next attempt resumes them.
            for cid in list(self.runs):
                self.checkpoint_container(cid)


class RestartingMRAppMaster(PreemptibleAppMaster):
    """A MapReduce-style AM that ignores PreemptionMessages: its containers are killed after
    ``max_wait_before_kill`` and their tasks restart from zero (never counted as failures)."""

    resumes_tasks = False
