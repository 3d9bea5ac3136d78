"""SLS's simulated ApplicationMasters: MapReduce (maps, then reduces), stream and DAG.

They follow ``MRAMSimulator``, ``StreamAMSimulator`` and ``DAGAMSimulator`` of hadoop-sls: each task is one
container request (node-local + rack-local + ANY when the trace names a host), each allocated container runs for
the task's traced duration, and a task whose container ends with anything but SUCCESS (preempted, killed, lost) is
requested again and re-run from scratch — SLS's AMs ignore the PreemptionMessage, so preemption means kill + rerun.
A preempted task is counted in ``preempted_task_attempts``, never in ``failed_task_attempts`` (MAPREDUCE-5900).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from yarnball.actors._amtasks import RunQueue, SlsTask, request_tasks, take_tasks, tasks_of
from yarnball.actors._appmaster import ApplicationMaster
from yarnball.actors._containerscheduler import APP_REMAINING_TASKS_ENV
from yarnball.errors import ConfigurationError
from yarnball.protocols import (
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerStatus,
    ExecutionType,
    FinalApplicationStatus,
    RegisterApplicationMasterResponse,
    Resource,
    keys,
)
from yarnball.protocols._containermanagement import ContainerLaunchContext

__all__ = ["SLS_AM_TYPES", "DAGAppMaster", "DeferredTasks", "MRAppMaster", "StreamAppMaster", "TaskLike"]

# Read per completed container: module constants (an Enum class attribute is a slow lookup).
_SUCCESS = ContainerExitStatus.SUCCESS
_PREEMPTED = ContainerExitStatus.PREEMPTED


class TaskLike(Protocol):
    """What an SLS AM needs of a task group (``yarnball.launcher.workloads.TaskSpec`` satisfies it)."""

    @property
    def count(self) -> int: ...
    @property
    def duration_ms(self) -> int: ...
    @property
    def priority(self) -> int: ...
    @property
    def task_type(self) -> str: ...
    @property
    def resource(self) -> Resource: ...
    @property
    def hosts(self) -> tuple[str, ...]: ...
    @property
    def rack(self) -> str | None: ...
    @property
    def execution_type(self) -> ExecutionType: ...
    @property
    def allocation_request_id(self) -> int: ...
    @property
    def request_delay_ms(self) -> int: ...


# One task: its spec, its attempts, and what the AM reads per request and per container (a compiled native class).
_Task = SlsTask


@runtime_checkable
class DeferredTasks(Protocol):
    """A job's task specs kept packed until its AM needs them: ``total`` containers, ``unpack()`` the specs."""

    total: int

    def unpack(self) -> tuple[TaskLike, ...]: ...


class _TraceAppMaster(ApplicationMaster):
    """Shared machinery: phases of tasks, requests, assignment of containers, reruns, finishing."""

    quiet_when_idle = True  # SLS's AMs act only on allocated and completed containers (_shortcuts/_amheartbeats.py)

    def __init__(self, *, tasks: Sequence[TaskLike] | DeferredTasks, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        # Deferred tasks (a fed trace's, launcher/_jobfeed.py) are unpacked when first read: a job waiting in a queue
        # holds them packed (~1.5 kB instead of ~20 kB for 100 tasks).
        # (the protocol test spelled out: isinstance against a runtime-checkable Protocol costs ~30 us a call)
        deferred = hasattr(tasks, "unpack") and hasattr(tasks, "total")
        self._tasks: tuple[TaskLike, ...] | DeferredTasks = tasks if deferred else tuple(tasks)  # type: ignore[arg-type,assignment]
        self._packed: DeferredTasks | None = tasks if deferred else None  # type: ignore[assignment]
        # The task records are made when the first attempt requests its first phase (_next_phase): a trace's later
        # jobs, submitted at their time, hold none until then (~16 kB per job of a long trace's backlog).
        self.phases: list[list[_Task]] = []
        self.phase = -1
        self.pending = RunQueue()  # the pending tasks in request order: a deque without its O(n) remove
        # Pending tasks naming (priority, host), in the order of ``pending``, for _take_task (short lists).
        self._host_tasks: dict[tuple[int, str], list[_Task]] = {}
        self.assigned: dict[ContainerId, _Task] = {}
        self.completed_tasks = 0
        self.failed_task_attempts = 0
        self.preempted_task_attempts = 0
        total = tasks.total if deferred else sum(max(spec.count, 0) for spec in self.tasks)  # type: ignore[union-attr]
        self.total_tasks = total  # (what _phases makes, in every subclass)
        self._delayed = 0  # DAG: requests still waiting for their container.request.delay
        self._env_left = -1  # the remaining-task count of _env, the launch environment last built
        self._env: tuple[tuple[str, str], ...] = ()

    @property
    def tasks(self) -> tuple[TaskLike, ...]:
        """The job's task specs (unpacked on first use when deferred)."""
        tasks = self._tasks
        if type(tasks) is not tuple:
            tasks = self._tasks = tasks.unpack()  # type: ignore[union-attr]
        return tasks  # type: ignore[return-value]

    def _phases(self) -> list[list[_Task]]:
        return [tasks_of(self.tasks)]

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        # MapReduce's AM refuses a job whose task is larger than the register response's maximumResourceCapability
        # (RMContainerAllocator.handleMapContainerRequest / handleReduceContainerRequest: a JobDiagnosticsUpdateEvent
        # and JOB_KILL; the job ends KILLED and RMCommunicator.unregister sends FinalApplicationStatus.KILLED with
        # the job's diagnostics, each followed by a newline, JobImpl's JOB_KILLED_DIAG last). SLS's MRAMSimulator
        # ignores the register response and sends the asks anyway, which the RM refuses or which never fit (the
        # job waits for ever): yarnball follows the MR AM here, for every SLS AM type (stream and DAG too). As
        # MRAMSimulator, each task keeps its own size (the MR AM gives every map the first map's size), so each
        # size is checked; maps first, as JobImpl schedules them, then reduces.
        maximum = response.maximum_resource_capability
        fitting: set[Resource] = set()  # sizes already checked (traces repeat a few sizes over many task specs)
        for spec in sorted(self.tasks, key=lambda s: s.task_type == "reduce"):
            resource = spec.resource
            if resource in fitting:
                continue
            if not resource.fits_in(maximum):
                self.finish(FinalApplicationStatus.KILLED, too_big_diagnostics(spec.task_type, resource, maximum))
                return
            fitting.add(resource)
        self.phase = -1
        self.pending.clear()
        self._host_tasks.clear()
        self.assigned.clear()
        self.completed_tasks = 0
        self._next_phase()

    def on_attempt_restarted(self) -> None:
        # SLS restart(): the new attempt re-runs every task of the job from the beginning.
        self.phases = self._phases()

    def _exited(self) -> None:
        super()._exited()
        # the AM's own bookkeeping of pending and assigned tasks (empty when every task is done), and then the task
        # records themselves (~200 bytes a task): the counts stay
        if not self.pending:
            self.pending = RunQueue()
            self._host_tasks = {}  # (the pending tasks that name hosts)
        if not self.assigned:
            self.assigned = {}
            if not self.pending:
                self.phases = []
                if self._packed is not None:
                    self._tasks = self._packed  # the unpacked specs too (unpacked again if ever read)

    def _next_phase(self) -> None:
        if not self.phases:
            self.phases = self._phases()  # (the first phase of the first attempt: see __init__)
        while True:
            self.phase += 1
            if self.phase >= len(self.phases):
                self.finish(FinalApplicationStatus.SUCCEEDED)
                return
            if self.phases[self.phase]:
                break
        self._request_all(self.phases[self.phase])

    def _request_all(self, tasks: list[_Task]) -> None:
        """``_request`` each task, in one compiled call when that is what it would do (actors/_amtasks.py)."""
        cls = type(self)
        if (
            cls._request is _TraceAppMaster._request
            and cls.add_container_request is ApplicationMaster.add_container_request
            and self._spec_execution_types()
            and getattr(self._request, "__func__", None) is _TraceAppMaster._request
            and getattr(self.add_container_request, "__func__", None) is ApplicationMaster.add_container_request
            and getattr(self._execution_type, "__func__", None) is cls._execution_type
        ):
            request_tasks(
                self.pending,
                self._host_tasks,
                self._outstanding,
                self._noded,
                self._node_requests,
                self._tables,
                self._changed,
                tasks,
            )
        else:
            for task in tasks:
                self._request(task)

    def _spec_execution_types(self) -> bool:
        """Whether ``_execution_type`` gives every task its spec's type with locality, without side effects."""
        return type(self)._execution_type is _TraceAppMaster._execution_type

    def _request(self, task: _Task) -> None:
        spec = task.spec
        self.pending.append(task)
        by_host = self._host_tasks
        for key in task.keys:
            named = by_host.get(key)
            if named is None:
                by_host[key] = [task]
            else:
                named.append(task)
        execution_type, local = self._execution_type(task)
        self.add_container_request(
            spec.resource,
            task.prio,
            nodes=task.nodes if local else (),
            racks=task.racks if local else (),
            execution_type=execution_type,
            request_id=spec.allocation_request_id,
        )

    def _execution_type(self, task: _Task) -> tuple[ExecutionType, bool]:
        """The trace's ``container.execution.type``, and whether to ask for the task's hosts."""
        return task.spec.execution_type, True

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        tasks: Iterable[_Task | None]
        if type(self)._take_task is _BASE_TAKE_TASK and getattr(self._take_task, "__func__", None) is _BASE_TAKE_TASK:
            # Every container's task in one compiled call (actors/_amtasks.py): what _take_task per container takes,
            # as nothing below changes the pending tasks (start_container and release do not read or touch them).
            tasks = take_tasks(self.pending, self._host_tasks, containers)
        else:
            tasks = map(self._take_task, containers)  # lazily: each taken just before its container is handled
        for container, task in zip(containers, tasks):
            if task is None:
                self.release(container.id)
                continue
            task.attempts += 1
            self.assigned[container.id] = task
            # The remaining-task count lets an NM order its queue by "closest to completion" (a yarnball policy).
            left = self.total_tasks - self.completed_tasks
            if left != self._env_left:  # the same count for every container of a response: built once
                self._env_left = left
                self._env = ((APP_REMAINING_TASKS_ENV, str(left)),)
            context = ContainerLaunchContext(environment=self._env, simulated_duration_ms=task.spec.duration_ms)
            self.start_container(container, context=context)

    def _take_task(self, container: Container) -> _Task | None:
        """The first pending task of the container's priority naming its host, else the first of the priority."""
        task: _Task | None = take_tasks(self.pending, self._host_tasks, (container,))[0]
        return task

    def on_start_container_error(self, container_id: ContainerId, diagnostics: str) -> None:
        """The container could not be started: the task attempt fails, the container is released and the task
        asked for again (MapReduce's ContainerLauncherImpl: TA_CONTAINER_LAUNCH_FAILED, then the container is
        deallocated and a new attempt requested)."""
        super().on_start_container_error(container_id, diagnostics)
        task = self.assigned.pop(container_id, None)
        if task is None:
            return
        self.failed_task_attempts += 1
        self.release(container_id)
        self._request(task)

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        for status in statuses:
            task = self.assigned.pop(status.container_id, None)
            if task is None:
                continue
            if status.exit_status == _SUCCESS:
                self.completed_tasks += 1
                continue
            if status.exit_status == _PREEMPTED:
                self.preempted_task_attempts += 1  # MAPREDUCE-5900: a preempted task is not a failed attempt
            else:
                self.failed_task_attempts += 1
            # MRAMSimulator.processResponseQueue: every exit status but SUCCESS (preempted, killed, lost, failed)
            # puts the task in pendingFailedMaps/Reduces, asked again at its priority and hosts: rerun from scratch
            self._request(task)
        idle = not self.pending and not self.assigned and not self._delayed
        if self.phase < len(self.phases) and idle and not self._unregistering:
            self._next_phase()


class MRAppMaster(_TraceAppMaster):
    """``MRAMSimulator``: all maps first; reduces are requested once every map has finished.

    ``opportunistic_maps_percent`` is ``mapreduce.job.num-opportunistic-maps-percent``: as
    ``RMContainerAllocator.ScheduledRequests.addMap``, a counter cycling 0..99 over first-attempt maps marks a map
    OPPORTUNISTIC while it is below the percentage (without locality: ``addOpportunisticResourceRequest`` asks ANY
    only); a map re-run after a failure is never asked as OPPORTUNISTIC.
    """

    def __init__(self, *, opportunistic_maps_percent: int = 0, **kwargs: object) -> None:
        if not 0 <= opportunistic_maps_percent <= 100:
            raise ConfigurationError(
                f"{keys.MR_NUM_OPPORTUNISTIC_MAPS_PERCENT}: expected a percentage in [0, 100], "
                f"got {opportunistic_maps_percent}"
            )
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.opportunistic_maps_percent = opportunistic_maps_percent
        self._maps_mod_100 = 0

    def _spec_execution_types(self) -> bool:
        # Without opportunistic maps, _execution_type returns the spec's type with locality and counts nothing.
        return type(self)._execution_type is MRAppMaster._execution_type and self.opportunistic_maps_percent <= 0

    def _execution_type(self, task: _Task) -> tuple[ExecutionType, bool]:
        if task.spec.task_type == "reduce" or task.attempts > 0 or self.opportunistic_maps_percent <= 0:
            return task.spec.execution_type, True
        opportunistic = self._maps_mod_100 < self.opportunistic_maps_percent
        self._maps_mod_100 = (self._maps_mod_100 + 1) % 100
        if opportunistic:
            return ExecutionType.OPPORTUNISTIC, False
        return task.spec.execution_type, True

    def _phases(self) -> list[list[_Task]]:
        maps = tasks_of([s for s in self.tasks if s.task_type != "reduce"])
        reduces = tasks_of([s for s in self.tasks if s.task_type == "reduce"])
        return [maps, reduces]


class StreamAppMaster(_TraceAppMaster):
    """``StreamAMSimulator``: one phase of long-lived containers, each running for its traced duration."""


class DAGAppMaster(_TraceAppMaster):
    """``DAGAMSimulator``: each task is requested ``container.request.delay`` ms after the AM starts."""

    def _next_phase(self) -> None:
        if not self.phases:
            self.phases = self._phases()  # (the first phase of the first attempt: see _TraceAppMaster.__init__)
        self.phase += 1
        if self.phase >= len(self.phases) or not self.phases[self.phase]:
            self.finish(FinalApplicationStatus.SUCCEEDED)
            return
        self._delayed = 0
        for task in self.phases[self.phase]:
            delay = task.spec.request_delay_ms
            if delay > 0:
                self._delayed += 1
                self.after(delay, lambda t=task: self._request_delayed(t))
            else:
                self._request(task)

    def _request_delayed(self, task: _Task) -> None:
        self._delayed -= 1
        if not self._unregistering:
            self._request(task)


_BASE_TAKE_TASK = _TraceAppMaster._take_task

#: JobImpl.JOB_KILLED_DIAG, the diagnostic a job killed while RUNNING adds.
JOB_KILLED_DIAG = "Job received Kill while in RUNNING state."


def too_big_diagnostics(task_type: str, resource: Resource, maximum: Resource) -> str:
    """The diagnostics a MapReduce AM unregisters with when a task of ``task_type`` needs more than ``maximum``:
    RMContainerAllocator's message (a reduce's and a map's are worded differently), then JOB_KILLED_DIAG, each line
    ended as RMCommunicator.unregister ends them."""
    if task_type == "reduce":
        first = (
            "REDUCE capability required is more than the supported max container capability in the cluster. "
            f"Killing the Job. reduceResourceRequest: {resource} maxContainerCapability:{maximum}"
        )
    else:
        first = (
            f"The required {task_type.upper()} capability is more than the supported max container capability in "
            f"the cluster. Killing the Job. {task_type}ResourceRequest: {resource} maxContainerCapability:{maximum}"
        )
    return f"{first}\n{JOB_KILLED_DIAG}\n"

#: ``yarn.sls.am.type.<name>`` -> AM class (sls-runner.xml registers mapreduce, stream and dag).
SLS_AM_TYPES: dict[str, type[_TraceAppMaster]] = {
    "mapreduce": MRAppMaster,
    "stream": StreamAppMaster,
    "dag": DAGAppMaster,
}
