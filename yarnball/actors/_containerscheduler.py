"""The NodeManager's ``ContainerScheduler`` (opportunistic.md §3): SCHEDULED queues, starts, reclaiming, shedding.

Not an actor: the NodeManager owns one and calls it from its handlers (one thread, as Hadoop's NM dispatcher).
The scheduler decides; the NodeManager acts through three callbacks: ``launch`` (start, or resume a paused
container), ``kill`` (exit status and diagnostics) and ``pause``. Resources are accounted by *allocation* as
``AllocationBasedResourceUtilizationTracker`` does (pmem MB, vmem MB = memory * vmem-pmem-ratio, vcores).

This module is compiled with mypyc (yarnball/_native.py): the scheduler and its settings are native classes (no new
attributes, no methods replaced on instances); the containers it queues (``entry``) are whatever the owner gives it.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError
from yarnball.policies.opportunistic import (
    KillPolicy,
    QueuedInfo,
    QueueOrderPolicy,
    RunningInfo,
    order_queue,
    parse_policy,
    select_victims,
)
from yarnball.protocols import (
    Configuration,
    ContainerExitStatus,
    ContainerId,
    ExecutionType,
    OpportunisticContainersStatus,
    Resource,
    keys,
)

__all__ = [
    "APP_REMAINING_TASKS_ENV",
    "DEQUEUED_DIAGNOSTICS",
    "KILLED_FOR_GUARANTEED_DIAGNOSTICS",
    "PAUSED_FOR_GUARANTEED_DIAGNOSTICS",
    "QUEUE_FULL_DIAGNOSTICS",
    "ContainerScheduler",
    "ContainerSchedulerSettings",
    "scheduler_settings",
]

log = get_logger(__name__)

# Diagnostics exactly as ContainerScheduler words them.
QUEUE_FULL_DIAGNOSTICS = "Opportunistic container queue is full."
KILLED_FOR_GUARANTEED_DIAGNOSTICS = "Container Killed to make room for Guaranteed Container."
PAUSED_FOR_GUARANTEED_DIAGNOSTICS = "Container Paused to make room for Guaranteed Container"
DEQUEUED_DIAGNOSTICS = "Container De-queued to meet NM queuing limits."

#: Launch-context variable an AM may set with its number of unfinished tasks (for CLOSEST_TO_COMPLETION).
APP_REMAINING_TASKS_ENV = "YARNBALL_APP_REMAINING_TASKS"

KILLED = ContainerExitStatus.KILLED_BY_CONTAINER_SCHEDULER

_GUARANTEED: Final = ExecutionType.GUARANTEED
_OPPORTUNISTIC: Final = ExecutionType.OPPORTUNISTIC


class ContainerSchedulerSettings:
    """The NodeManager's queue settings, validated with the offending key named. Equal settings are shared by
    every NodeManager of a cluster (see :func:`scheduler_settings`), so a large cluster pays for them once."""

    __slots__ = ("by_resources", "force_start_guaranteed", "kill_policy", "max_opp_queue_length", "queue_order",
                 "use_pause", "vmem_check", "vmem_ratio")  # fmt: skip

    def __init__(
        self,
        max_opp_queue_length: int,
        use_pause: bool,
        vmem_ratio: float,
        vmem_check: bool,
        queue_order: QueueOrderPolicy,
        kill_policy: KillPolicy,
        by_resources: bool = False,
    ) -> None:
        self.max_opp_queue_length = max_opp_queue_length
        self.by_resources = by_resources
        # BY_QUEUE_LEN with a queue length <= 0 starts GUARANTEED containers without any resource check;
        # BY_RESOURCES never does (OpportunisticContainersQueuePolicy, ContainerScheduler's constructor).
        self.force_start_guaranteed = max_opp_queue_length <= 0 and not by_resources
        self.use_pause = use_pause
        self.vmem_ratio = vmem_ratio
        self.vmem_check = vmem_check
        self.queue_order = queue_order
        self.kill_policy = kill_policy


_INTERNED: dict[tuple[Any, ...], ContainerSchedulerSettings] = {}

#: ``OpportunisticContainersQueuePolicy`` values.
QUEUE_POLICIES = ("BY_QUEUE_LEN", "BY_RESOURCES")


def scheduler_settings(conf: Configuration | None) -> ContainerSchedulerSettings:
    """Parse and validate the NM's ContainerScheduler keys; equal results are one shared object."""
    conf = conf if conf is not None else Configuration()
    max_len = max(0, conf.get_int(keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH))
    policy_key = keys.NM_OPPORTUNISTIC_CONTAINERS_QUEUE_POLICY
    policy = (conf.get(policy_key) or keys.DEFAULT_NM_OPPORTUNISTIC_CONTAINERS_QUEUE_POLICY).strip()
    if policy not in QUEUE_POLICIES:
        raise ConfigurationError(
            f"{policy_key}: unknown queue policy {policy!r} (expected one of {list(QUEUE_POLICIES)})"
        )
    by_resources = policy == "BY_RESOURCES"
    if by_resources:
        max_len = 0  # ContainerScheduler's constructor: BY_RESOURCES => maxOppQueueLength = 0, no forced starts
    use_pause = conf.get_bool(keys.NM_OPPORTUNISTIC_CONTAINERS_USE_PAUSE_FOR_PREEMPTION)
    vmem_ratio = conf.get_float(keys.NM_VMEM_PMEM_RATIO)
    if vmem_ratio < 1.0:
        raise ConfigurationError(f"{keys.NM_VMEM_PMEM_RATIO}: must be at least 1.0, got {vmem_ratio}")
    vmem_check = conf.get_bool(keys.NM_VMEM_CHECK_ENABLED)
    order_name = conf.get(keys.NM_OPPORTUNISTIC_QUEUE_ORDER) or keys.DEFAULT_NM_OPPORTUNISTIC_QUEUE_ORDER
    kill_name = conf.get(keys.NM_OPPORTUNISTIC_KILL_POLICY) or keys.DEFAULT_NM_OPPORTUNISTIC_KILL_POLICY
    order = parse_policy(QueueOrderPolicy, keys.NM_OPPORTUNISTIC_QUEUE_ORDER, order_name)
    kill = parse_policy(KillPolicy, keys.NM_OPPORTUNISTIC_KILL_POLICY, kill_name)
    key = (max_len, use_pause, vmem_ratio, vmem_check, order, kill, by_resources)
    settings = _INTERNED.get(key)
    if settings is None:
        settings = _INTERNED[key] = ContainerSchedulerSettings(*key)  # type: ignore[arg-type]
    return settings


class ContainerSchedulerOwner(Protocol):
    """What the scheduler needs of its NodeManager: start (or resume), kill, pause."""

    def _start_entry(self, entry: Any) -> None: ...
    def _scheduler_kill(self, entry: Any, exit_status: int, diagnostics: str) -> None: ...
    def _scheduler_pause(self, entry: Any) -> None: ...


_EMPTY: Final[dict[ContainerId, Any]] = {}  # never written: see ContainerScheduler._own_queues


class ContainerScheduler:
    """Queues and starts the containers of one NodeManager. ``entry`` objects are the NM's containers: they have
    ``container`` (the record, whose ``execution_type`` may change on update), ``context``, ``seq``, ``paused``
    and ``remaining_ms()``."""

    # Slots and lazily created queues: a large cluster has one of these per NodeManager. The counters are
    # NodeManagerMetrics' (``metrics`` is the scheduler itself).
    __slots__ = ("_start_seq", "cap_vmem", "capability", "cpu", "forced", "killed_for_guaranteed",
                 "max_queue_length_limit", "opport_cores_used", "opport_memory_used", "owner", "paused", "pmem",
                 "queued_guaranteed", "queued_opportunistic", "quiet", "rejected", "running", "running_guaranteed",
                 "running_opportunistic", "settings", "shed", "to_kill", "vmem", "vmem_ratio")  # fmt: skip

    def __init__(
        self,
        capability: Resource,
        conf: Configuration | ContainerSchedulerSettings | None,
        *,
        owner: ContainerSchedulerOwner,
    ) -> None:
        self.settings = conf if isinstance(conf, ContainerSchedulerSettings) else scheduler_settings(conf)
        self.capability = capability
        # Copies of two settings read at every container start and end (the settings never change).
        self.forced = self.settings.force_start_guaranteed
        self.vmem_ratio = self.settings.vmem_ratio
        self.cap_vmem = int(capability.memory_mb * self.vmem_ratio)
        self.owner = owner
        # Until something is queued, running (outside the fast path) or being killed, these are the shared empty
        # mapping; _own_queues replaces the four with dicts of this scheduler's own before the first insert.
        self.queued_guaranteed: dict[ContainerId, Any] = _EMPTY
        self.queued_opportunistic: dict[ContainerId, Any] = _EMPTY
        self.running: dict[ContainerId, Any] = _EMPTY  # insertion order = start order
        self.to_kill: dict[ContainerId, Any] = _EMPTY
        #: True until the first insert (_own_queues): nothing has ever been queued, kept running or marked to kill
        #: (start_now and completed then know every queue is empty).
        self.quiet = True
        self.pmem = 0
        self.vmem = 0
        self.cpu = 0.0
        self.max_queue_length_limit = -1  # ContainerQueuingLimit from the RM; -1 = none
        self.running_guaranteed = 0
        self.running_opportunistic = 0
        self.opport_memory_used = 0
        self.opport_cores_used = 0
        self.rejected = 0
        self.killed_for_guaranteed = 0
        self.paused = 0
        self.shed = 0
        self._start_seq = 0

    @property
    def metrics(self) -> ContainerScheduler:
        """NodeManagerMetrics of the scheduler: running/queued containers of each type, and what it killed."""
        return self

    def _own_queues(self) -> None:
        """Before an insert into a queue (or the running set or the kill list): the first one gives the scheduler
        four dicts of its own in place of the shared empty mapping, and ends its quiet."""
        if self.running is _EMPTY:
            self.queued_guaranteed, self.queued_opportunistic, self.running, self.to_kill = {}, {}, {}, {}
            self.quiet = False

    # settings, read through the scheduler for brevity
    @property
    def max_opp_queue_length(self) -> int:
        return self.settings.max_opp_queue_length

    @property
    def force_start_guaranteed(self) -> bool:
        return self.settings.force_start_guaranteed

    @property
    def use_pause(self) -> bool:
        return self.settings.use_pause

    @property
    def vmem_check(self) -> bool:
        return self.settings.vmem_check

    @property
    def queue_order(self) -> QueueOrderPolicy:
        return self.settings.queue_order

    @property
    def kill_policy(self) -> KillPolicy:
        return self.settings.kill_policy

    # -- accounting ---------------------------------------------------------------------------------------------
    def _vmem_of(self, r: Resource) -> int:
        return int(r.memory_mb * self.settings.vmem_ratio)

    def has_resources_available(self, r: Resource) -> bool:
        """``hasResourcesAvailable``: used + asked <= capacity in pmem, vmem (if checked) and vcores."""
        if self.pmem + r.memory_mb > self.capability.memory_mb:
            return False
        if self.vmem_check and self.vmem + self._vmem_of(r) > self.cap_vmem:
            return False
        return self.cpu + r.vcores <= self.capability.vcores

    def _add(self, r: Resource, sign: int) -> None:
        self.pmem += sign * r.memory_mb
        self.vmem += sign * self._vmem_of(r)
        self.cpu += sign * r.vcores

    # -- arrivals -----------------------------------------------------------------------------------------------
    def start_now(self, entry: Any) -> bool:
        """:meth:`schedule` for the owner's own arrivals: in its common case (a GUARANTEED container with forced
        starts, see :meth:`schedule`) account and number the container and return True, the caller then starting
        it as ``_start_entry`` would (it is not paused); otherwise :meth:`schedule` it and return False."""
        container = entry.container
        if self.forced and container.execution_type is _GUARANTEED:
            # _account(entry, +1) and _started without the owner's callback, inline: this runs at every start.
            r = container.resource
            memory = r.memory_mb
            self.pmem += memory
            self.vmem += int(memory * self.vmem_ratio)
            self.cpu += r.vcores
            self.running_guaranteed += 1
            self._start_seq = entry.start_seq = self._start_seq + 1
            return True
        self.schedule(entry)
        return False

    def schedule(self, entry: Any) -> None:
        """``scheduleContainer``: a localized container arrives."""
        if entry.container.execution_type is _GUARANTEED:
            if self.settings.force_start_guaranteed:
                # Queue length <= 0: no OPPORTUNISTIC container can be queued or running here, so Hadoop's
                # enqueue + startPendingContainers(force) just starts it, and nothing will ever be reclaimed: the
                # running set is not kept (it would cost every NodeManager of a large cluster its memory).
                self._account(entry, +1)
                self._started(entry)
                return
            self._own_queues()
            self.queued_guaranteed[entry.container.id] = entry
            self._start_pending(self.force_start_guaranteed)
            if entry.container.id in self.queued_guaranteed:
                self._reclaim_for(entry)
        else:
            self._start_pending(False)
            if self._admits_opportunistic(entry):
                self._own_queues()
                self.queued_opportunistic[entry.container.id] = entry
                self._start_pending(False)
            else:
                self.rejected += 1
                self.owner._scheduler_kill(entry, KILLED, QUEUE_FULL_DIAGNOSTICS)

    def _admits_opportunistic(self, entry: Any) -> bool:
        """``enqueueContainer`` for an OPPORTUNISTIC container, by the NM's queue policy."""
        if not self.settings.by_resources:
            return 0 < self.max_opp_queue_length and len(self.queued_opportunistic) < self.max_opp_queue_length
        # BY_RESOURCES: what runs, plus everything queued, plus this container, must fit in the node.
        mem = entry.container.resource.memory_mb
        vcores = entry.container.resource.vcores
        for queue in (self.queued_guaranteed, self.queued_opportunistic):
            for e in queue.values():
                mem += e.container.resource.memory_mb
                vcores += e.container.resource.vcores
        return self.has_resources_available(Resource(mem, vcores))

    # -- starting -----------------------------------------------------------------------------------------------
    def _start_pending(self, force_guaranteed: bool) -> None:
        if self._start_queue(self.queued_guaranteed, force_guaranteed, ordered=False):
            self._start_queue(self.queued_opportunistic, False, ordered=True)

    def _start_queue(self, queue: dict[ContainerId, Any], force: bool, *, ordered: bool) -> bool:
        entries = list(queue.values())
        if ordered and self.queue_order is not QueueOrderPolicy.FIFO and len(entries) > 1:
            infos = [QueuedInfo(e.seq, e.expected_ms(), e.app_remaining_tasks()) for e in entries]
            entries = [entries[i] for i in order_queue(self.queue_order, infos)]
        for entry in entries:
            if force or self.has_resources_available(entry.container.resource):
                del queue[entry.container.id]
                self._start(entry)
            else:
                return False  # head-of-line blocking, as Hadoop: no overtaking
        return True

    def _start(self, entry: Any) -> None:
        cid = entry.container.id
        if cid not in self.running:
            self._own_queues()
            self.running[cid] = entry
            self._account(entry, +1)
        self._started(entry)

    def _account(self, entry: Any, sign: int) -> None:
        # _add and the guaranteed branch of _count_running, inline: this runs at every container start and end.
        container = entry.container
        r = container.resource
        self.pmem += sign * r.memory_mb
        self.vmem += sign * int(r.memory_mb * self.vmem_ratio)
        self.cpu += sign * r.vcores
        if container.execution_type is _OPPORTUNISTIC:
            self._count_running(entry, sign)
        else:
            self.running_guaranteed += sign

    def _started(self, entry: Any) -> None:
        self._start_seq += 1
        entry.start_seq = self._start_seq
        self.owner._start_entry(entry)

    def _count_running(self, entry: Any, sign: int) -> None:
        r = entry.container.resource
        if entry.container.execution_type is _OPPORTUNISTIC:
            self.running_opportunistic += sign
            self.opport_memory_used += sign * r.memory_mb
            self.opport_cores_used += sign * r.vcores
        else:
            self.running_guaranteed += sign

    # -- making room for a GUARANTEED container ---------------------------------------------------------------
    def _reclaim_for(self, entry: Any) -> None:
        """``reclaimOpportunisticContainerResources``: kill (or pause) running OPPORTUNISTIC containers."""
        pmem, vmem, cpu = self.pmem, self.vmem, self.cpu
        for g in self.queued_guaranteed.values():
            pmem += g.container.resource.memory_mb
            vmem += self._vmem_of(g.container.resource)
            cpu += g.container.resource.vcores
            if g.container.id == entry.container.id:
                break
        for o in self.to_kill.values():
            pmem -= o.container.resource.memory_mb
            vmem -= self._vmem_of(o.container.resource)
            cpu -= o.container.resource.vcores
        need = (pmem - self.capability.memory_mb, vmem - self.cap_vmem, cpu - self.capability.vcores)
        candidates = [
            e
            for e in self.running.values()
            if e.container.execution_type is _OPPORTUNISTIC and e.container.id not in self.to_kill
        ]
        infos = [
            RunningInfo(
                e.start_seq, e.container.resource.memory_mb, self._vmem_of(e.container.resource),
                e.container.resource.vcores, e.remaining_ms(),
            )
            for e in candidates
        ]
        victims = [candidates[i] for i in select_victims(self.kill_policy, need, infos)]
        if not victims and not (need[0] <= 0 and need[1] <= 0 and need[2] <= 0):
            log.warning("no_opportunistic_containers_to_reclaim", container=str(entry.container.id))
        for v in victims:
            self._own_queues()
            self.to_kill[v.container.id] = v
            if self.use_pause:
                self.paused += 1
                self.owner._scheduler_pause(v)
            else:
                self.killed_for_guaranteed += 1
                self.owner._scheduler_kill(v, KILLED, KILLED_FOR_GUARANTEED_DIAGNOSTICS)

    # -- completion and pause -----------------------------------------------------------------------------------
    def completed(self, entry: Any) -> None:
        """``on_resources_reclaimed(entry)`` for a container that completed; while the scheduler is quiet (nothing
        was ever queued, kept running or marked to kill) that is only the fast path's accounting."""
        if not self.quiet:
            self.on_resources_reclaimed(entry)
        elif self.forced and entry.start_seq:
            # _account(entry, -1), inline
            container = entry.container
            r = container.resource
            memory = r.memory_mb
            self.pmem -= memory
            self.vmem -= int(memory * self.vmem_ratio)
            self.cpu -= r.vcores
            if container.execution_type is _OPPORTUNISTIC:
                self._count_running(entry, -1)
            else:
                self.running_guaranteed -= 1

    def on_resources_reclaimed(self, entry: Any, *, paused: bool = False) -> None:
        """``onResourcesReclaimed``: a container completed (or was paused); start what now fits."""
        cid = entry.container.id
        self.to_kill.pop(cid, None)
        if self.queued_opportunistic.pop(cid, None) is None:
            self.queued_guaranteed.pop(cid, None)
        if paused:
            # Back to the tail of its queue; resumed when started again.
            opportunistic = entry.container.execution_type is _OPPORTUNISTIC
            self._own_queues()
            (self.queued_opportunistic if opportunistic else self.queued_guaranteed)[cid] = entry
        if self.running.pop(cid, None) is not None:
            self._account(entry, -1)
            self._start_pending(self.force_start_guaranteed)
        elif self.settings.force_start_guaranteed and entry.start_seq and not paused:
            self._account(entry, -1)  # started by the fast path of schedule()

    # -- NM restart ----------------------------------------------------------------------------------------------
    def recover_active_container(self, entry: Any, *, launched: bool) -> None:
        """``recoverActiveContainer`` on NM restart (actors/_nmrecovery.py): a QUEUED or PAUSED container goes back
        to the queue of its execution type; a LAUNCHED one is running and its resources are in use."""
        cid = entry.container.id
        if not launched:
            opportunistic = entry.container.execution_type is _OPPORTUNISTIC
            self._own_queues()
            (self.queued_opportunistic if opportunistic else self.queued_guaranteed)[cid] = entry
        elif self.forced and entry.container.execution_type is _GUARANTEED:
            self._account(entry, +1)  # as start_now: the forced fast path keeps no running set
        else:
            self._own_queues()
            self.running[cid] = entry
            self._account(entry, +1)

    def is_queued(self, cid: ContainerId) -> bool:
        """Whether ``cid`` waits in one of the queues (localized, not started)."""
        return cid in self.queued_guaranteed or cid in self.queued_opportunistic

    def recovered(self) -> None:
        """After recovery: start the queued containers that fit (as their SCHEDULE_CONTAINER events would)."""
        self._start_pending(self.force_start_guaranteed)

    # -- RM queuing limit -------------------------------------------------------------------------------------
    def update_queuing_limit(self, max_queue_length: int) -> None:
        """``updateQueuingLimit`` + ``shedQueuedOpportunisticContainers``: drop the newest queued O containers."""
        self.max_queue_length_limit = max_queue_length
        if max_queue_length <= -1 or max_queue_length >= len(self.queued_opportunistic):
            return
        allowed = max_queue_length
        for entry in list(self.queued_opportunistic.values()):
            if entry.paused:
                continue  # paused containers are neither shed nor counted
            if allowed <= 0:
                del self.queued_opportunistic[entry.container.id]
                self.shed += 1
                self.owner._scheduler_kill(entry, KILLED, DEQUEUED_DIAGNOSTICS)
            allowed -= 1

    # -- promotion / demotion -------------------------------------------------------------------------------
    def on_update_execution_type(self, entry: Any, old: ExecutionType) -> None:
        """``onUpdateContainer`` after ``entry.container`` got its new execution type."""
        cid = entry.container.id
        new = entry.container.execution_type
        if new is old:
            return
        fast_started = (
            self.settings.force_start_guaranteed
            and entry.start_seq
            and cid not in self.queued_opportunistic
            and cid not in self.queued_guaranteed
        )
        if cid in self.running or fast_started:
            # Running: it simply changes type (a promoted one is no longer a victim, a demoted one is one).
            r = entry.container.resource
            sign = 1 if new is _OPPORTUNISTIC else -1
            self.running_opportunistic += sign
            self.running_guaranteed -= sign
            self.opport_memory_used += sign * r.memory_mb
            self.opport_cores_used += sign * r.vcores
        elif new is _GUARANTEED and self.queued_opportunistic.pop(cid, None) is not None:
            self._own_queues()
            self.queued_guaranteed[cid] = entry
            self._reclaim_for(entry)
        elif new is _OPPORTUNISTIC and self.queued_guaranteed.pop(cid, None) is not None:
            self._own_queues()
            self.queued_opportunistic[cid] = entry
        self._start_pending(self.force_start_guaranteed)

    def on_update_resource(self, entry: Any, old: Resource) -> None:
        """``onUpdateContainer`` for a resource change (``entry.container`` has the new resource): a running
        container's utilisation is its new size; a smaller one leaves room for what is queued."""
        cid = entry.container.id
        fast_started = (
            self.settings.force_start_guaranteed
            and entry.start_seq
            and cid not in self.queued_opportunistic
            and cid not in self.queued_guaranteed
        )
        if cid not in self.running and not fast_started:
            return  # queued (or paused): it is accounted when it starts
        new = entry.container.resource
        self._add(old, -1)
        self._add(new, +1)
        if entry.container.execution_type is _OPPORTUNISTIC:
            self.opport_memory_used += new.memory_mb - old.memory_mb
            self.opport_cores_used += new.vcores - old.vcores
        self._start_pending(self.force_start_guaranteed)

    # -- status ---------------------------------------------------------------------------------------------------
    def status(self) -> OpportunisticContainersStatus:
        """``getOpportunisticContainersStatus``; ``wait_queue_length`` counts G and O queued containers."""
        return OpportunisticContainersStatus(
            running_opport_containers=self.running_opportunistic,
            opport_memory_used=self.opport_memory_used,
            opport_cores_used=self.opport_cores_used,
            queued_opport_containers=len(self.queued_opportunistic),
            wait_queue_length=len(self.queued_guaranteed) + len(self.queued_opportunistic),
            opport_queue_capacity=self.max_opp_queue_length,
        )
