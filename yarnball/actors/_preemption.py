"""The PreemptionMonitor actor and the RM side of preemption (``SchedulingMonitor`` + ``ApplicationMasterService``).

The monitor is a :class:`~yarnball.actors._schedulingmonitor.SchedulingMonitor` running the
``ProportionalCapacityPreemptionPolicy`` (policies/preemption/_monitor.py) when the monitor keys name it. Every
interval the policy snapshots the scheduler, runs one round of the pure policy and tells the RM one
``ContainerPreemptEvent`` per decision; the RM puts them through its dispatcher into the scheduler, exactly like the
Hadoop events:

- MARK_CONTAINER_FOR_PREEMPTION: the scheduler remembers the container for the attempt (``containersToPreempt``);
  the AM's next ``allocate`` response carries a :class:`PreemptionMessage` (:func:`preemption_message`);
- MARK_CONTAINER_FOR_KILLABLE (a container still selected ``max_wait_before_kill`` after its first mark): the
  scheduler completes it with exit status PREEMPTED (-102), the RM counts it, tells the NodeManager to kill it,
  and the AM sees the status in its next ``allocate`` response;
- KILL_RESERVED_CONTAINER: a reservation in the way is cancelled.

The FairScheduler preempts with its own ``FSPreemptionThread`` (policies/fair/_fspreemptionthread.py), not with this
monitor: :func:`run_fs_preemption` does the thread's work after each update of the scheduler and puts its decisions
through the same events (MARK_CONTAINER_FOR_PREEMPTION when a container is chosen, MARK_CONTAINER_FOR_KILLABLE
``yarn.scheduler.fair.waitTimeBeforeKill`` later, for a container still held), so the AM's notice, the kill, the
counters and the metrics are the same as the CapacityScheduler's. Its AMs get the strict contract alone, as from
Hadoop's FairScheduler.

Marks (``preemptionCandidates``) live in the policy's :class:`PreemptionState`: a container that is not selected
again is never killed, its mark ages out after ``2 x max_wait_before_kill`` as in Hadoop, and the policy also
drops at once the marks of containers that no longer exist (released, finished or killed), which Hadoop only
forgets when they age out.
"""

from __future__ import annotations

import math
from typing import Any

from yarnball.actors._schedulingmonitor import SchedulingMonitor
from yarnball.policies.preemption import PreemptionRound, PreemptionState
from yarnball.policies.scheduler import (
    Allocation,
    ResourceScheduler,
    create_edit_policy,
    monitor_policies,
    policy_enabled,
)
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

__all__ = [
    "PROPORTIONAL_POLICY",
    "PreemptionMonitor",
    "create_preemption_monitor",
    "monitor_enabled",
    "policy_enabled",
    "preemption_message",
    "run_fs_preemption",
]

#: The preemption policy's Hadoop class name (the simple name is accepted too).
PROPORTIONAL_POLICY = keys.DEFAULT_RM_SCHEDULER_MONITOR_POLICIES

#: ``Priority.UNDEFINED`` (-1), the priority of the negotiable contract's resource request.
UNDEFINED_PRIORITY = Priority(-1)


class PreemptionMonitor(SchedulingMonitor):
    """``SchedulingMonitor`` running ``ProportionalCapacityPreemptionPolicy`` every monitoring interval; its counts
    and marks are the policy's."""

    event_prefix = "preemption_monitor"
    interval_key = keys.PREEMPTION_MONITORING_INTERVAL

    def __init__(self, scheduler: ResourceScheduler, conf: Configuration, *, rm_id: str = "rm") -> None:
        super().__init__(create_edit_policy(PROPORTIONAL_POLICY), conf, scheduler, rm_id=rm_id)

    @property
    def rounds(self) -> int:
        return self.policy.rounds  # type: ignore[attr-defined,no-any-return]

    @property
    def marked(self) -> int:
        """MARK_CONTAINER_FOR_PREEMPTION events sent."""
        return self.policy.marked  # type: ignore[attr-defined,no-any-return]

    @property
    def killed(self) -> int:
        """MARK_CONTAINER_FOR_KILLABLE events sent."""
        return self.policy.killed  # type: ignore[attr-defined,no-any-return]

    @property
    def last_round(self) -> PreemptionRound | None:
        return self.policy.last_round  # type: ignore[attr-defined,no-any-return]

    @property
    def state(self) -> PreemptionState:
        return self.policy.state  # type: ignore[attr-defined,no-any-return]


def monitor_enabled(conf: Configuration) -> bool:
    """Whether ``conf`` switches the preemption monitor on; raises ConfigurationError for a policy yarnball
    cannot run (policies/scheduler/_factory.py)."""
    return PROPORTIONAL_POLICY in monitor_policies(conf)


def create_preemption_monitor(conf: Configuration, scheduler: ResourceScheduler) -> PreemptionMonitor | None:
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
    return PreemptionMonitor(scheduler, conf)


def preemption_message(
    allocation: Allocation, scheduler: ResourceScheduler, attempt_id: ApplicationAttemptId
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
    live = app.live
    ids = sorted((c for c in allocation.preempt if c in live), key=lambda c: c.container_id)
    if not ids:
        return None
    tot_m = sum(live[c].mem for c in ids)
    tot_v = sum(live[c].vc for c in ids)
    minimum = scheduler.minimum_allocation
    cluster = scheduler.cluster_resource
    ratio = scheduler.calculator.divide(
        cluster.memory_mb, cluster.vcores, tot_m, tot_v, minimum.memory_mb, minimum.vcores
    )
    request = ResourceRequest(
        priority=UNDEFINED_PRIORITY, capability=minimum, resource_name=ANY, num_containers=math.ceil(ratio)
    )
    containers = tuple(PreemptionContainer(id=c) for c in ids)
    if getattr(scheduler, "preemption_thread", None) is not None:
        # FairScheduler.allocate: only the strict contract (FSAppAttempt.getPreemptionContainerIds)
        return PreemptionMessage(strict_contract=StrictPreemptionContract(containers=containers))
    return PreemptionMessage(
        strict_contract=StrictPreemptionContract(containers=containers),
        contract=PreemptionContract(
            resource_request=(PreemptionResourceRequest(resource_request=request),), containers=containers
        ),
    )


def run_fs_preemption(rm: Any) -> None:
    """The FairScheduler's ``FSPreemptionThread`` after an update filled ``FSStarvedApps`` (the RM's update timer):
    each container it chooses is marked through the RM's dispatcher (MARK_CONTAINER_FOR_PREEMPTION, which the
    scheduler turns into ``trackContainerForPreemption`` at once, as the thread does), and the kill is set on the RM's
    clock ``waitTimeBeforeKill`` ms later (Hadoop's ``Preemption Timer``)."""
    thread = getattr(rm.scheduler, "preemption_thread", None)
    if thread is None:
        return
    dispatcher = rm.dispatcher

    def mark(rmc: Any) -> None:
        dispatcher.on_container_preempt(
            ContainerPreemptEvent(application_attempt_id=rmc.app.attempt_id, container=rmc.container)
        )

    for containers in thread.run(mark):
        batch = [(rmc.app.attempt_id, rmc.container) for rmc in containers]
        rm.after_call(thread.wait_time_before_kill, _kill_preempted, (rm, batch))


def _kill_preempted(arg: tuple[Any, list[Any]]) -> None:
    """``PreemptContainersTask``: each container still held is completed with PREEMPTED (MARK_CONTAINER_FOR_KILLABLE,
    ``Container preempted by scheduler``); one that ended meanwhile is left alone."""
    rm, batch = arg
    for attempt_id, container in batch:
        if rm.scheduler.live_container(container.id) is None:
            continue
        rm.log.info(f"Killing container {container.id}")
        rm.dispatcher.on_container_preempt(
            ContainerPreemptEvent(
                application_attempt_id=attempt_id,
                container=container,
                event_type=SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE,
            )
        )
