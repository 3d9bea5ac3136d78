"""The RM's application and attempt records (``RMAppImpl`` / ``RMAppAttemptImpl``, reduced to their states).

RMApp:        NEW -> SUBMITTED -> ACCEPTED -> RUNNING -> FINISHED | FAILED | KILLED   (YarnApplicationState)
RMAppAttempt: SCHEDULED -> ALLOCATED -> LAUNCHED -> RUNNING -> FINISHING -> FINISHED | FAILED | KILLED
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

from yarnball.actors._future import Ms
from yarnball.actors._ref import ActorRef
from yarnball.protocols import (
    AMRMToken,
    ApplicationAttemptId,
    ApplicationId,
    ApplicationReport,
    Container,
    ContainerExitStatus,
    ContainerId,
    FinalApplicationStatus,
    NodeId,
    Resource,
    YarnApplicationState,
)
from yarnball.protocols._clientprotocol import ApplicationSubmissionContext

__all__ = ["AttemptState", "RMApp", "RMAppAttempt", "RMAppAttemptMetrics", "RMAppMetrics"]

# (a module constant: reading a member off an Enum class costs a slow class attribute lookup per finished container)
_PREEMPTED = ContainerExitStatus.PREEMPTED

FINAL_APP_STATES = frozenset({YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED})

# RMAppAttemptImpl.shouldCountTowardsMaxAttemptRetry: these AM exits are not the application's fault.
NOT_COUNTED_EXITS = frozenset(
    {
        ContainerExitStatus.PREEMPTED,
        ContainerExitStatus.ABORTED,
        ContainerExitStatus.DISKS_FAILED,
        ContainerExitStatus.KILLED_BY_RESOURCEMANAGER,
    }
)


class AttemptState(enum.Enum):
    SCHEDULED = "SCHEDULED"
    ALLOCATED = "ALLOCATED"
    LAUNCHED = "LAUNCHED"
    RUNNING = "RUNNING"
    FINISHING = "FINISHING"
    FINISHED = "FINISHED"
    FAILED = "FAILED"
    KILLED = "KILLED"


class RMAppAttemptMetrics:
    """``RMAppAttemptMetrics``: the aggregate resource usage of an attempt's finished containers (MB-seconds and
    vcore-seconds) and what preemption took from it.

    ``*_seconds`` are ``resourceUsageMap`` / ``preemptedResourceMap``; ``charged`` / ``charged_preempted`` say whether
    those maps have their entries yet (Hadoop's maps are empty until the first update, and the REST
    ``resourceSecondsMap`` shows that).
    """

    __slots__ = (
        "charged",
        "charged_preempted",
        "is_preempted",
        "memory_seconds",
        "num_non_am_preempted",
        "preempted_mb",
        "preempted_memory_seconds",
        "preempted_vcore_seconds",
        "preempted_vcores",
        "vcore_seconds",
    )

    def __init__(self) -> None:
        self.memory_seconds = self.vcore_seconds = 0
        self.preempted_memory_seconds = self.preempted_vcore_seconds = 0
        self.preempted_mb = self.preempted_vcores = 0
        self.num_non_am_preempted = 0
        self.is_preempted = False  # its AM container was preempted
        self.charged = self.charged_preempted = False

    def container_finished(self, memory_mb: int, vcores: int, used_ms: int, preempted: bool, is_am: bool) -> None:
        """``RMContainerImpl.FinishedTransition.updateAttemptMetrics``: ``updateAggregateAppResourceUsage``, and for a
        PREEMPTED exit ``updatePreemptionInfo`` and ``updateAggregatePreemptedAppResourceUsage``. Each resource adds
        ``value * usedMillis / 1000`` in long arithmetic (``updateUsageMap``): per container, rounded down."""
        mem_s = memory_mb * used_ms // 1000
        vc_s = vcores * used_ms // 1000
        self.memory_seconds += mem_s
        self.vcore_seconds += vc_s
        self.charged = True
        if preempted:
            self.preempted_mb += memory_mb
            self.preempted_vcores += vcores
            if is_am:
                self.is_preempted = True
            else:
                self.num_non_am_preempted += 1
            self.preempted_memory_seconds += mem_s
            self.preempted_vcore_seconds += vc_s
            self.charged_preempted = True


class RMAppMetrics(NamedTuple):
    """``RMAppMetrics`` (``RMAppImpl.getRMAppMetrics``): the figures of all the application's attempts, with the
    running containers' usage so far. ``resource_seconds`` / ``preempted_resource_seconds`` are the
    ``resourceSecondsMap`` / ``preemptedResourceSecondsMap`` entries (resource name -> value; empty until charged)."""

    preempted_mb: int
    preempted_vcores: int
    num_non_am_preempted: int
    num_am_preempted: int
    memory_seconds: int
    vcore_seconds: int
    preempted_memory_seconds: int
    preempted_vcore_seconds: int
    resource_seconds: dict[str, int]
    preempted_resource_seconds: dict[str, int]


class RMAppAttempt:
    __slots__ = (
        "am_container",
        "amrm_token",
        "attempt_id",
        "final_status",
        "last_heartbeat",
        "last_response",
        "metrics",
        "response_id",
        "state",
    )

    def __init__(self, attempt_id: ApplicationAttemptId, now: Ms, amrm_token: AMRMToken | None = None) -> None:
        self.attempt_id = attempt_id
        self.amrm_token = amrm_token  # the one this attempt's AM must show (AMRMTokenSecretManager)
        self.state = AttemptState.SCHEDULED
        self.am_container: Container | None = None
        self.response_id = 0
        self.last_response: Any = None  # the last AllocateResponse (ApplicationMasterService's AllocateResponseLock)
        self.final_status = FinalApplicationStatus.UNDEFINED
        self.last_heartbeat: Ms = now  # (Ms, not float: a compiled float attribute would make an int time a float)
        self.metrics = RMAppAttemptMetrics()

    @property
    def is_done(self) -> bool:
        return self.state in (AttemptState.FINISHED, AttemptState.FAILED, AttemptState.KILLED)


class RMApp:
    __slots__ = (
        "attempts",
        "containers",
        "context",
        "counted_failures",
        "diagnostics",
        "final_status",
        "finish_time",
        "first_task_time",
        "id",
        "launch_time",
        "max_attempts",
        "nodes",
        "queue",
        "rejected",
        "start_time",
        "state",
        "submit_time",
        "submitter",
        "used",
        "user",
    )

    def __init__(
        self, context: ApplicationSubmissionContext, now: Ms, max_attempts: int, submitter: ActorRef | None
    ) -> None:
        self.id: ApplicationId = context.application_id
        self.context = context
        self.user = context.user or "default"
        self.queue = context.queue
        self.state = YarnApplicationState.SUBMITTED
        self.final_status = FinalApplicationStatus.UNDEFINED
        self.diagnostics = ""
        self.rejected = False  # refused at submission (RMAppImpl's AppRejectedTransition): never ran
        # (times are Ms, not float: a compiled float attribute would make an int time a float in the outputs)
        self.submit_time: Ms = now
        self.start_time: Ms = now
        self.launch_time: Ms | None = None
        # When the RM allocated the application's first container other than an AM's (any attempt): what a user
        # waits for before the work starts. Not in Hadoop's RMAppImpl, nor in its state store (an RM restart loses it).
        self.first_task_time: Ms | None = None
        self.finish_time: Ms | None = None
        self.max_attempts = max_attempts
        self.counted_failures = 0
        self.attempts: list[RMAppAttempt] = []
        self.submitter = submitter
        self.nodes: set[NodeId] = set()  # nodes that ran its containers: they get applications_to_cleanup
        self.used = Resource()
        #: Its allocated containers not finished yet: id -> (creation time, memory MB, vcores, is the AM container)
        #: (what RMContainerImpl keeps for the usage figures: creationTime, the container's resource, isAMContainer).
        #: Tuples of atomic values, which the cyclic collector stops tracking: a busy cluster holds one per container.
        self.containers: dict[ContainerId, tuple[Ms, int, int, bool]] = {}

    @property
    def current_attempt(self) -> RMAppAttempt | None:
        return self.attempts[-1] if self.attempts else None

    @property
    def is_done(self) -> bool:
        return self.state in FINAL_APP_STATES

    # -- RMAppMetrics -----------------------------------------------------------------------------------------------
    def container_allocated(self, cid: ContainerId, now: Ms, resource: Resource, *, is_am: bool = False) -> None:
        """An RMContainer of this application was created (allocated) ``now``."""
        self.containers[cid] = (now, resource.memory_mb, resource.vcores, is_am)

    def container_resized(self, cid: ContainerId, resource: Resource) -> None:
        """An increase or decrease took effect: the container is charged at its resource when it finishes
        (``updateAttemptMetrics`` reads ``container.getContainer().getResource()``), for its whole life."""
        record = self.containers.get(cid)
        if record is not None:
            self.containers[cid] = (record[0], resource.memory_mb, resource.vcores, record[3])

    def container_finished(self, cid: ContainerId, now: Ms, exit_status: int) -> None:
        """``RMContainerImpl.FinishedTransition.updateAttemptMetrics``: the finished container's usage goes to the
        application's *current* attempt (``app.getCurrentAppAttempt()``), whichever attempt allocated it."""
        record = self.containers.pop(cid, None)
        if record is None or not self.attempts:
            return
        created, memory_mb, vcores, is_am = record
        self.attempts[-1].metrics.container_finished(
            memory_mb,
            vcores,
            int(now) - int(created),  # finishTime - creationTime, in whole ms as the RM's timestamps are
            exit_status == _PREEMPTED,  # preempted
            is_am,
        )

    def app_metrics(self, now: Ms) -> RMAppMetrics:
        """``RMAppImpl.getRMAppMetrics`` at ``now``: every attempt's figures summed, plus, while the application
        runs, its live containers' usage so far (``RMAppAttemptMetrics.getAggregateAppResourceUsage`` adds the
        scheduler's ``getRunningAggregateAppResourceUsage`` for the current attempt; Hadoop caches that walk for 3 s,
        yarnball computes it at ``now``)."""
        pm = pv = non_am = am = mem_s = vc_s = pmem_s = pvc_s = 0
        charged = charged_preempted = False
        for attempt in self.attempts:
            m = attempt.metrics
            pm += m.preempted_mb
            pv += m.preempted_vcores
            non_am += m.num_non_am_preempted
            am += 1 if m.is_preempted else 0
            mem_s += m.memory_seconds
            vc_s += m.vcore_seconds
            pmem_s += m.preempted_memory_seconds
            pvc_s += m.preempted_vcore_seconds
            charged = charged or m.charged
            charged_preempted = charged_preempted or m.charged_preempted
        if self.containers and not self.is_done:
            end = int(now)
            for created, memory_mb, vcores, _ in self.containers.values():
                used = end - int(created)
                mem_s += memory_mb * used // 1000
                vc_s += vcores * used // 1000
            charged = True
        seconds = {"memory-mb": mem_s, "vcores": vc_s} if charged else {}
        preempted = {"memory-mb": pmem_s, "vcores": pvc_s} if charged_preempted else {}
        return RMAppMetrics(pm, pv, non_am, am, mem_s, vc_s, pmem_s, pvc_s, seconds, preempted)

    def report(self) -> ApplicationReport:
        attempt = self.current_attempt
        return ApplicationReport(
            application_id=self.id,
            name=self.context.application_name,
            user=self.user,
            queue=self.queue,
            state=self.state,
            final_status=self.final_status,
            start_time=int(self.start_time),
            finish_time=int(self.finish_time or 0),
            progress=1.0 if self.is_done else 0.0,
            diagnostics=self.diagnostics,
            current_attempt_id=attempt.attempt_id if attempt else None,
        )
