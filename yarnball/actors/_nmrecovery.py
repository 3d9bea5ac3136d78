"""NodeManager restart, work-preserving or not (YARN-1336): what the NM does when it goes down and comes back.

With ``yarn.nodemanager.recovery.enabled`` and ``yarn.nodemanager.recovery.supervised`` both true, the NM's
processes outlive it: ``ContainerManagerImpl.serviceStop`` leaves the applications alone ("do not cleanup apps as
they can be recovered on restart"). While it is down its containers go on running (and finish: their exit codes
are kept, as the launch scripts write them), but nothing starts, nothing heartbeats and nothing answers; AMs' calls
(start, stop, update, status) wait, as NMClient's proxy retries them, and are served once the NM has registered again
(``ContainerManagerImpl`` refuses new containers with NMNotYetReadyException until then). On restart
``ContainerManagerImpl.recover`` rebuilds the ContainerScheduler as ``ContainerScheduler.recoverActiveContainer``
does (launched containers are running and hold their resources; queued and paused ones are queued again; one that
was still localizing, REQUESTED in the state store, is in no queue: it localizes again and is scheduled only then,
``ContainerImpl``'s recovery of a REQUESTED container), and the NM registers with every container it has, the ones
that finished while it was down included (``NodeStatusUpdaterImpl.registerWithRM``: ``getNMContainerStatuses`` and
the running applications), which the RM keeps (``RMNodeImpl.ReconnectNodeTransition`` with running applications:
the node stays, its container statuses are handled as a heartbeat's).

Otherwise the NM kills its containers when it stops (``cleanUpApplicationsOnNMShutDown``: every application finishes
with "Application killed on shutdown") and forgets them; it registers again with none, and the RM removes the node
and adds it back (ReconnectNodeTransition without running applications: NODE_REMOVED, whose containers the scheduler
ends as lost).
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._containerscheduler import ContainerScheduler
from yarnball.actors._nmstates import NMContainerState
from yarnball.protocols import ContainerState, OpportunisticContainersStatus, keys

__all__ = ["KILLED_ON_SHUTDOWN", "DownScheduler", "NMDowntime", "recover", "recovery_enabled"]

#: ApplicationImpl.AppFinishTransition's kill of each container, for CMgrCompletedAppsEvent.Reason.ON_SHUTDOWN.
KILLED_ON_SHUTDOWN = "Container killed on application-finish event: Application killed on shutdown"


def recovery_enabled(conf: Any) -> bool:
    """Whether a restart preserves the NM's containers (recovery enabled and supervised)."""
    return conf is not None and conf.get_bool(keys.NM_RECOVERY_ENABLED) and conf.get_bool(keys.NM_RECOVERY_SUPERVISED)


class NMDowntime:
    """The NM while it is down: the AM calls that wait for it, and its ContainerScheduler (replaced meanwhile)."""

    __slots__ = ("deferred", "scheduler")

    def __init__(self, scheduler: ContainerScheduler) -> None:
        self.deferred: list[tuple[Any, Any, Any]] = []  # (handler, message, sender), in arrival order
        self.scheduler = scheduler


class DownScheduler:
    """The ContainerScheduler of a stopped NM: nothing is started or reclaimed (the NM process is gone); containers
    that end meanwhile are forgotten by it, and the scheduler is rebuilt on restart."""

    metrics = None

    def start_now(self, entry: Any) -> bool:
        return False  # a container whose localization ends now waits: it is queued on restart

    def schedule(self, entry: Any) -> None:
        pass

    def completed(self, entry: Any) -> None:
        pass

    def on_resources_reclaimed(self, entry: Any, *, paused: bool = False) -> None:
        pass

    def on_update_execution_type(self, entry: Any, old: Any) -> None:
        pass

    def update_queuing_limit(self, max_queue_length: int) -> None:
        pass

    def on_update_resource(self, entry: Any, old: Any) -> None:
        pass

    def status(self) -> OpportunisticContainersStatus:
        return OpportunisticContainersStatus()


def _localize_again(nm: Any, stale: Any) -> None:
    """A container that was localizing when the NM went down (REQUESTED): its localization starts over now and it
    reaches the ContainerScheduler when that ends. The entry is replaced by a fresh one marked SCHEDULED in its
    phase, so the localization timer of before the restart, which still holds the old entry, finds the new one
    still localizing and leaves it (ContainerManager.schedule_container)."""
    entry = type(stale)(stale.container, stale.context, nm, stale.seq)
    entry.phase = NMContainerState.SCHEDULED
    nm.containers[entry.container.id] = entry
    stale.state = ContainerState.COMPLETE  # (detached: nothing of the NM holds it any more)
    nm.after_call(nm.localization_ms, _localized, entry)


def _localized(entry: Any) -> None:
    """The localization started on restart ended: the container is scheduled (``scheduleContainer``), unless it was
    killed meanwhile or the NM went down again."""
    nm = entry.nm
    if nm.containers.get(entry.container.id) is entry and entry.phase is NMContainerState.SCHEDULED:
        entry.phase = None
        nm.schedule_container(entry)


def recover(nm: Any, down: NMDowntime) -> None:
    """``ContainerManagerImpl.recover`` on restart: a new ContainerScheduler with the containers kept (with recovery),
    as ``ContainerScheduler.recoverActiveContainer`` rebuilds it, and the queued ones started as room allows."""
    scheduler = ContainerScheduler(nm.resource, down.scheduler.settings, owner=nm)
    nm.container_scheduler = scheduler
    if not nm.recovery:
        return
    for entry in list(nm.containers.values()):  # in arrival order (ContainerManagerImpl.recover)
        if entry.state is ContainerState.RUNNING and entry.phase in (NMContainerState.PAUSING, NMContainerState.PAUSED):
            entry.phase = NMContainerState.PAUSED  # RecoveredContainerStatus.PAUSED
            scheduler.recover_active_container(entry, launched=False)
        elif entry.state is ContainerState.RUNNING:
            if entry.phase is NMContainerState.RESUMING:
                entry.phase = None
            scheduler.recover_active_container(entry, launched=True)
        elif down.scheduler.is_queued(entry.container.id):
            scheduler.recover_active_container(entry, launched=False)  # RecoveredContainerStatus.QUEUED
        else:
            _localize_again(nm, entry)  # REQUESTED: recoverActiveContainer leaves it out of every queue
    scheduler.recovered()  # queued containers start as room allows
