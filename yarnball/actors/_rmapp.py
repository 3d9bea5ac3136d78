"""The RM's application and attempt records (``RMAppImpl`` / ``RMAppAttemptImpl``, reduced to their states).

RMApp:        NEW -> SUBMITTED -> ACCEPTED -> RUNNING -> FINISHED | FAILED | KILLED   (YarnApplicationState)
RMAppAttempt: SCHEDULED -> ALLOCATED -> LAUNCHED -> RUNNING -> FINISHING -> FINISHED | FAILED | KILLED
"""

from __future__ import annotations

import enum
from typing import Any

from yarnball.actors._actor import ActorRef
from yarnball.protocols import (
    AMRMToken,
    ApplicationAttemptId,
    ApplicationId,
    ApplicationReport,
    Container,
    ContainerExitStatus,
    FinalApplicationStatus,
    NodeId,
    Resource,
    YarnApplicationState,
)
from yarnball.protocols._clientprotocol import ApplicationSubmissionContext

__all__ = ["AttemptState", "RMApp", "RMAppAttempt"]

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


class RMAppAttempt:
    __slots__ = (
        "am_container",
        "amrm_token",
        "attempt_id",
        "final_status",
        "last_heartbeat",
        "last_response",
        "response_id",
        "state",
    )

    def __init__(self, attempt_id: ApplicationAttemptId, now: float, amrm_token: AMRMToken | None = None) -> None:
        self.attempt_id = attempt_id
        self.amrm_token = amrm_token  # the one this attempt's AM must show (AMRMTokenSecretManager)
        self.state = AttemptState.SCHEDULED
        self.am_container: Container | None = None
        self.response_id = 0
        self.last_response: Any = None  # the last AllocateResponse (ApplicationMasterService's AllocateResponseLock)
        self.final_status = FinalApplicationStatus.UNDEFINED
        self.last_heartbeat = now

    @property
    def is_done(self) -> bool:
        return self.state in (AttemptState.FINISHED, AttemptState.FAILED, AttemptState.KILLED)


class RMApp:
    __slots__ = (
        "attempts",
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
        self, context: ApplicationSubmissionContext, now: float, max_attempts: int, submitter: ActorRef | None
    ) -> None:
        self.id: ApplicationId = context.application_id
        self.context = context
        self.user = context.user or "default"
        self.queue = context.queue
        self.state = YarnApplicationState.SUBMITTED
        self.final_status = FinalApplicationStatus.UNDEFINED
        self.diagnostics = ""
        self.rejected = False  # refused at submission (RMAppImpl's AppRejectedTransition): never ran
        self.submit_time = now
        self.start_time = now
        self.launch_time: float | None = None
        # When the RM allocated the application's first container other than an AM's (any attempt): what a user
        # waits for before the work starts. Not in Hadoop's RMAppImpl, nor in its state store (an RM restart loses it).
        self.first_task_time: float | None = None
        self.finish_time: float | None = None
        self.max_attempts = max_attempts
        self.counted_failures = 0
        self.attempts: list[RMAppAttempt] = []
        self.submitter = submitter
        self.nodes: set[NodeId] = set()  # nodes that ran its containers: they get applications_to_cleanup
        self.used = Resource()

    @property
    def current_attempt(self) -> RMAppAttempt | None:
        return self.attempts[-1] if self.attempts else None

    @property
    def is_done(self) -> bool:
        return self.state in FINAL_APP_STATES

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
