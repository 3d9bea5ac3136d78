"""What the run's outputs keep of an application the RM removed (``yarn.resourcemanager.max-completed-applications``).

The RM keeps only its newest finished applications, as Hadoop's ``RMAppManager.checkAppNumCompletedLimit`` does; the
outputs (jobruntime.csv, metrics/applications.csv, summary.json) still list every application of the run. Each one
the RM removes leaves a :class:`CompletedApplication`: the few figures the outputs read, ~200 bytes instead of the
RMApp with its attempts, submission context and AM. :func:`output_applications` gives them back with the RM's own,
in application id order, as the RM alone gave them when it removed none.
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._rmrestart import applications_of
from yarnball.protocols import ApplicationId, FinalApplicationStatus, YarnApplicationState

__all__ = ["CompletedApplication", "CompletedApplications", "output_applications"]


class CompletedApplication:
    """A removed application's figures, read as its RMApp's (``context.application_name``, ``len(attempts)``)."""

    __slots__ = (
        "application_name",
        "diagnostics",
        "final_status",
        "finish_time",
        "first_task_time",
        "id",
        "launch_time",
        "num_attempts",
        "queue",
        "rejected",
        "state",
        "submit_time",
        "user",
    )

    def __init__(self, app: Any) -> None:
        self.id: ApplicationId = app.id
        self.application_name: str = app.context.application_name
        self.queue: str = app.queue
        self.user: str = app.user
        self.state: YarnApplicationState = app.state
        self.final_status: FinalApplicationStatus = app.final_status
        self.diagnostics: str = app.diagnostics
        self.rejected: bool = app.rejected
        self.submit_time: float = app.submit_time
        self.launch_time: float | None = app.launch_time
        self.first_task_time: float | None = app.first_task_time
        self.finish_time: float | None = app.finish_time
        self.num_attempts: int = len(app.attempts)

    @property
    def context(self) -> CompletedApplication:
        return self  # (its application_name, as the submission context's)

    @property
    def attempts(self) -> range:
        return range(self.num_attempts)  # (only their number is kept)

    @property
    def is_done(self) -> bool:
        return True


class CompletedApplications:
    """The applications the RM of ``rm`` removed, kept for the outputs (a listener of its RMAppManager)."""

    __slots__ = ("apps",)

    def __init__(self, rm: Any) -> None:
        self.apps: dict[ApplicationId, CompletedApplication] = {}
        rm.app_manager.removed_listeners.append(self.removed)

    def removed(self, app: Any) -> None:
        self.apps[app.id] = CompletedApplication(app)


def output_applications(cluster: Any) -> dict[ApplicationId, Any]:
    """Every application of the run for its outputs: those the RM removed and the RM's own (with those an RM restart
    without recovery forgot), in application id order."""
    rm_apps = applications_of(cluster.rm)
    completed = getattr(cluster, "completed", None)
    if completed is None or not completed.apps:
        return rm_apps
    apps: dict[ApplicationId, Any] = {**completed.apps, **rm_apps}
    return dict(sorted(apps.items(), key=lambda kv: (kv[0].cluster_timestamp, kv[0].id)))
