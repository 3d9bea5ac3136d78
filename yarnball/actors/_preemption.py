"""The PreemptionMonitor actor and the RM side of preemption (``SchedulingMonitor`` + ``ApplicationMasterService``).

Hadoop runs each policy named in ``yarn.resourcemanager.scheduler.monitor.policies`` in a ``SchedulingMonitor``
when ``yarn.resourcemanager.scheduler.monitor.enable`` is true: ``scheduleAtFixedRate(editSchedule, 0,
monitoring_interval)``. Here the monitor is an actor living next to the ResourceManager (it reads the
CapacityScheduler's state directly, as Hadoop's monitor holds the scheduler). Every interval it snapshots the
scheduler (:func:`~yarnball.policies.preemption.snapshot_from_scheduler`), runs one round of the pure
``ProportionalCapacityPreemptionPolicy`` and tells the RM one ``ContainerPreemptEvent`` per decision; the RM puts
them through its dispatcher into the scheduler, exactly like the Hadoop events:

- MARK_CONTAINER_FOR_PREEMPTION: the scheduler remembers the container for the attempt (``containersToPreempt``);
  the AM's next ``allocate`` response carries a :class:`PreemptionMessage` (:func:`preemption_message`);
- MARK_CONTAINER_FOR_KILLABLE (a container still selected ``max_wait_before_kill`` after its first mark): the
  scheduler completes it with exit status PREEMPTED (-102), the RM counts it, tells the NodeManager to kill it,
  and the AM sees the status in its next ``allocate`` response;
- KILL_RESERVED_CONTAINER: a reservation in the way is cancelled.

Marks (``preemptionCandidates``) live in the policy's :class:`PreemptionState`: a container that is not selected
again is never killed, its mark ages out after ``2 x max_wait_before_kill`` as in Hadoop, and the monitor also
drops at once the marks of containers that no longer exist (released, finished or killed), which Hadoop only
forgets when they age out.
"""

from __future__ import annotations

import math

from yarnball.actors._actor import Actor, ActorRef, TimerHandle
from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import Allocation, CapacityScheduler
from yarnball.policies.preemption import (
    PreemptionRound,
    PreemptionState,
    ProportionalCapacityPreemptionPolicy,
)
from yarnball.policies.preemption._live import SnapshotCache, snapshot_from_scheduler
from yarnball.protocols import (
    ANY,
    ApplicationAttemptId,
    Configuration,
    ContainerPreemptEvent,
    PreemptionContainer,
    PreemptionContract,
    PreemptionMessage,
    PreemptionResourceRequest,
    Priority,
    ResourceRequest,
    SchedulerEventType,
    StrictPreemptionContract,
    keys,
)

__all__ = ["PROPORTIONAL_POLICY", "PreemptionMonitor", "create_preemption_monitor", "preemption_message"]

#: The one monitor policy yarnball implements (its Hadoop class name; the simple name is accepted too).
PROPORTIONAL_POLICY = keys.DEFAULT_RM_SCHEDULER_MONITOR_POLICIES

#: ``Priority.UNDEFINED`` (-1), the priority of the negotiable contract's resource request.
UNDEFINED_PRIORITY = Priority(-1)


class PreemptionMonitor(Actor):
    """``SchedulingMonitor`` running ``ProportionalCapacityPreemptionPolicy`` every monitoring interval."""

    def __init__(
        self,
        scheduler: CapacityScheduler,
        *,
        policy: ProportionalCapacityPreemptionPolicy | None = None,
        rm_id: str = "rm",
    ) -> None:
        self.scheduler = scheduler
        self.policy = policy if policy is not None else ProportionalCapacityPreemptionPolicy()
        self.rm_id = rm_id
        self.state = PreemptionState()
        self.rounds = 0
        self.marked = 0  # MARK_CONTAINER_FOR_PREEMPTION events sent
        self.killed = 0  # MARK_CONTAINER_FOR_KILLABLE events sent
        self.last_round: PreemptionRound | None = None
        self.interval_ms = 0  # the period the timer runs at (SchedulingMonitor.monitorInterval)
        self.policy_interval_ms = 0  # the policy's value as of its last round (getMonitoringInterval())
        self._timer: TimerHandle | None = None
        self._snapshots = SnapshotCache()  # unchanged containers' snapshots, reused round after round

    def on_start(self) -> None:
        # SchedulingMonitor.serviceInit: the interval is read once here from the policy's configuration ...
        snapshot = snapshot_from_scheduler(self.scheduler).snapshot
        self.interval_ms = self.policy_interval_ms = self.policy.monitoring_interval_ms(snapshot)
        if self.interval_ms <= 0:
            raise ConfigurationError(
                f"{keys.PREEMPTION_MONITORING_INTERVAL}: expected a positive number of ms, got {self.interval_ms}"
            )
        # serviceStart: scheduleAtFixedRate(PolicyInvoker, initialDelay 0, monitorInterval)
        self._timer = self.every(self.interval_ms, self._invoke, start=0)

    def _invoke(self) -> None:
        """``SchedulingMonitor.PolicyInvoker.run``.

        ... and a changed interval is picked up only as Hadoop 3.x does it (YARN-7370): each round re-reads the
        policy's keys from the scheduler's configuration (``updateConfigIfNeeded``, here the snapshot's config),
        which updates the policy's ``monitoring_interval``; the monitor compares it with its own period at the
        *next* tick and, if it differs, cancels the timer and reschedules at the new period with initial delay 0
        instead of running a round at that tick. So the new value takes effect one old period after the round
        that read it, and that tick's round runs at once on the new schedule. A non-positive new value makes
        Hadoop's ``scheduleAtFixedRate`` throw after the old task was cancelled: the monitor stops (logged).
        """
        if self.policy_interval_ms == self.interval_ms:
            self.edit_schedule()
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.policy_interval_ms <= 0:
            self.log.error(
                "preemption_monitor_stopped",
                key=keys.PREEMPTION_MONITORING_INTERVAL,
                expected="a positive number of ms",
                got=self.policy_interval_ms,
            )
            return
        self.log.info("preemption_monitor_rescheduled", old_ms=self.interval_ms, new_ms=self.policy_interval_ms)
        self.interval_ms = self.policy_interval_ms
        self._timer = self.every(self.interval_ms, self._invoke, start=0)

    @property
    def rm(self) -> ActorRef:
        return self.kernel.lookup(self.rm_id)  # type: ignore[no-any-return]

    def edit_schedule(self) -> PreemptionRound:
        """One ``editSchedule()``: snapshot, policy round, events to the RM."""
        live = snapshot_from_scheduler(self.scheduler, cache=self._snapshots)
        now = int(self.now)
        rnd = self.policy.edit_schedule(live.snapshot, now, self.state)
        self.policy_interval_ms = self.policy.monitoring_interval_ms(live.snapshot)  # updateConfigIfNeeded
        # A mark whose container is gone can never lead to a kill: drop it now rather than after 2 x max_wait.
        self.state = PreemptionState({cid: t for cid, t in rnd.state.marks.items() if cid in live.containers})
        self.rounds += 1
        self.last_round = rnd
        for warning in rnd.warnings:
            if self.rounds == 1:
                self.log.warning("preemption_setting_not_modelled", detail=warning)
        rm = self.rm
        for event in rnd.events:
            target = live.containers.get(event.container_id)
            if target is None:
                continue
            attempt_id, container = target
            kind = SchedulerEventType(event.type.value)
            if kind is SchedulerEventType.MARK_CONTAINER_FOR_PREEMPTION:
                self.marked += 1
            elif kind is SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE:
                self.killed += 1
            rm.tell(
                ContainerPreemptEvent(application_attempt_id=attempt_id, container=container, event_type=kind),
                self.ref,
            )
        if rnd.events:
            self.log.info(
                "preemption_round",
                selected=len(rnd.candidates),
                events=len(rnd.events),
                marks=len(self.state.marks),
            )
        return rnd


def _monitor_policies(conf: Configuration) -> list[str]:
    """The policies the monitor keys run (``ResourceManager.createSchedulerMonitors``): none with monitors off, else
    ``yarn.resourcemanager.scheduler.monitor.policies``."""
    if not conf.get_bool(keys.RM_SCHEDULER_ENABLE_MONITORS, keys.DEFAULT_RM_SCHEDULER_ENABLE_MONITORS):
        return []
    return conf.get_strings(keys.RM_SCHEDULER_MONITOR_POLICIES, [keys.DEFAULT_RM_SCHEDULER_MONITOR_POLICIES])


def _names(policy: str) -> tuple[str, str]:
    """How the policies key may name ``policy``: its class in full, or by its simple name."""
    return policy, policy.rsplit(".", 1)[1]


def policy_enabled(conf: Configuration, policy: str) -> bool:
    """Whether the monitor keys run ``policy`` (named in full or by its simple name)."""
    policies = _monitor_policies(conf)
    return any(name in policies for name in _names(policy))


def monitor_enabled(conf: Configuration) -> bool:
    """Whether ``conf`` switches the preemption monitor on; raises ConfigurationError for a policy yarnball
    cannot run (Hadoop fails the RM start on an unknown ``SchedulingEditPolicy`` class too)."""
    policies = _monitor_policies(conf)
    # The AutoCreatedQueueDeletionPolicy and the QueueManagementDynamicEditPolicy run in their own monitors
    # (actors/_queuedeletion.py, actors/_queuemanagement.py).
    others = (keys.AUTO_CREATED_QUEUE_DELETION_POLICY, keys.QUEUE_MANAGEMENT_DYNAMIC_EDIT_POLICY)
    known = {name for policy in (PROPORTIONAL_POLICY, *others) for name in _names(policy)}
    unknown = [p for p in policies if p not in known]
    if unknown:
        raise ConfigurationError(
            f"{keys.RM_SCHEDULER_MONITOR_POLICIES}: unsupported scheduling edit policy {unknown[0]!r}; "
            f"yarnball implements {PROPORTIONAL_POLICY}, {others[0]} and {others[1]}"
        )
    return any(name in policies for name in _names(PROPORTIONAL_POLICY))


def create_preemption_monitor(conf: Configuration, scheduler: CapacityScheduler) -> PreemptionMonitor | None:
    """A monitor for the RM when ``conf`` enables it (``ResourceManager.createSchedulerMonitors``), else None."""
    if not monitor_enabled(conf):
        return None
    # Read the policy's numeric keys once here, so that a value outside its domain (protocols/_domains.py) fails
    # the RM's construction naming its file and key, before the first round would.
    conf.get_long(keys.PREEMPTION_MONITORING_INTERVAL, keys.DEFAULT_PREEMPTION_MONITORING_INTERVAL)
    conf.get_long(keys.PREEMPTION_WAIT_TIME_BEFORE_KILL, keys.DEFAULT_PREEMPTION_WAIT_TIME_BEFORE_KILL)
    for key, default in (
        (keys.TOTAL_PREEMPTION_PER_ROUND, keys.DEFAULT_TOTAL_PREEMPTION_PER_ROUND),
        (keys.PREEMPTION_MAX_IGNORED_OVER_CAPACITY, keys.DEFAULT_PREEMPTION_MAX_IGNORED_OVER_CAPACITY),
        (keys.PREEMPTION_NATURAL_TERMINATION_FACTOR, keys.DEFAULT_PREEMPTION_NATURAL_TERMINATION_FACTOR),
    ):
        conf.get_float(key, default)
    return PreemptionMonitor(scheduler)


def preemption_message(
    allocation: Allocation, scheduler: CapacityScheduler, attempt_id: ApplicationAttemptId
) -> PreemptionMessage | None:
    """The ``PreemptionMessage`` of an allocate response (``DefaultAMSProcessor.generatePreemptionMessage``).

    The negotiable :class:`PreemptionContract` is Hadoop's (``FiCaSchedulerApp.getAllocation``): the containers
    marked since the last allocate, and one ResourceRequest at ``Priority.UNDEFINED`` on ``*`` for
    ``ceil(total marked / minimum allocation)`` containers of the minimum allocation: giving back that much,
    from any containers, satisfies the RM. Hadoop's CapacityScheduler leaves the strict contract null; yarnball
    also fills the :class:`StrictPreemptionContract` with the same containers, which are the ones the monitor
    will kill after ``max_wait_before_kill`` if the queue still needs them and the AM still holds them.
    """
    if not allocation.preempt:
        return None
    app = scheduler.get_application(attempt_id)
    if app is None:
        return None
    ids = sorted((c for c in allocation.preempt if c in app.live), key=lambda c: c.container_id)
    if not ids:
        return None
    tot_m = sum(app.live[c].mem for c in ids)
    tot_v = sum(app.live[c].vc for c in ids)
    minimum = scheduler.minimum_allocation
    cluster = scheduler.cluster_resource
    ratio = scheduler.calculator.divide(  # type: ignore[attr-defined]
        cluster.memory_mb, cluster.vcores, tot_m, tot_v, minimum.memory_mb, minimum.vcores
    )
    request = ResourceRequest(
        priority=UNDEFINED_PRIORITY, capability=minimum, resource_name=ANY, num_containers=math.ceil(ratio)
    )
    containers = tuple(PreemptionContainer(id=c) for c in ids)
    return PreemptionMessage(
        strict_contract=StrictPreemptionContract(containers=containers),
        contract=PreemptionContract(
            resource_request=(PreemptionResourceRequest(resource_request=request),), containers=containers
        ),
    )
