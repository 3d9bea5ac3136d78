"""An attempt's asks and its pull, for every scheduler on the base: Hadoop's
``AppSchedulingInfo.updateResourceRequests`` (the ask table of :class:`~yarnball.policies.capacity._state.SchedulerApp`:
one ``KeyAsks`` per scheduler key, its ANY ask and its host and rack asks) and
``SchedulerApplicationAttempt.getAllocation`` (the new and completed containers, the headroom and the preemption marks
an AM's ``allocate`` takes). ``AbstractYarnScheduler`` offers them as its ``_apply_asks`` and ``_pull``; the
scheduler's hooks (``normalize_ask``, ``headroom_of``) are called where Hadoop calls them. And the end of an attempt
the three schedulers' ``doneApplicationAttempt`` share: its live containers completed or kept, then ``stop``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from yarnball.policies.capacity._allocator import add_pending, retire_key
from yarnball.policies.capacity._state import ACQUIRED, RUNNING, KeyAsks, RMContainer, SchedulerApp
from yarnball.policies.scheduler._notifications import Allocation, SchedulerNotification
from yarnball.policies.scheduler._utils import COMPLETED_APPLICATION, RESIZE_REQUEST_ID_BASE, abnormal_status
from yarnball.protocols import ANY, Container, ContainerId, Resource, ResourceRequest

if TYPE_CHECKING:
    from yarnball.policies.scheduler._abstract import AbstractYarnScheduler

__all__ = ["apply_asks", "complete_live_containers", "has_live_mark", "pull", "stop_attempt"]

_NO_PREEMPT: frozenset[ContainerId] = frozenset()


def apply_asks(
    scheduler: AbstractYarnScheduler, app: SchedulerApp, asks: Sequence[ResourceRequest], maximum: Resource
) -> tuple[int, int]:
    """``AppSchedulingInfo.updateResourceRequests`` after ``normalizeResourceRequests`` (the scheduler's
    ``normalize_ask``): the latest ask per (key, resource name) replaces the last, a key whose ANY count reaches 0
    retires; the attempt's pending resource changes by the returned (memory, vcores), which the caller charges to its
    queues."""
    dm = dv = 0
    touched: list[KeyAsks] = []
    keys = app.keys
    last_pri = last_rid = None
    ka = None
    for r in asks:
        pri, rid = r.priority.priority, r.allocation_request_id
        if pri != last_pri or rid != last_rid or ka is None:
            # An AM sends the asks of one key together: look the key up only when it changes (keys are not
            # deleted inside this loop, so the same key always finds the same KeyAsks).
            key = (pri, rid)
            ka = keys.get(key)
            if ka is None:
                # A key whose ANY reached 0 keeps its host and rack asks (SchedulerApp.idle_keys).
                ka = app.idle_keys.pop(key, None) if app.idle_keys else None
                if ka is None:
                    ka = KeyAsks(key, r.priority, rid)
                keys[key] = ka
                app.sorted_keys = None
            touched.append(ka)
            last_pri, last_rid = pri, rid
        name = r.resource_name
        if name != ANY:
            if r.num_containers > 0:
                ka.names[name] = [r.num_containers, r.relax_locality]
            else:
                ka.names.pop(name, None)
            continue
        cap = r.capability
        if rid <= RESIZE_REQUEST_ID_BASE:
            nm, nv = cap.memory_mb, cap.vcores  # an increase's difference, as it is
        else:
            nm, nv = scheduler.normalize_ask(cap.memory_mb, cap.vcores, maximum)
        count = max(r.num_containers, 0)
        dm += count * nm - ka.any_count * ka.cap_m
        dv += count * nv - ka.any_count * ka.cap_v
        if (nm, nv) != (ka.cap_m, ka.cap_v) or ka.resource is None:
            ka.resource = Resource(nm, nv)
        ka.cap_m, ka.cap_v = nm, nv
        ka.any_count = count
        ka.any_relax = r.relax_locality
    for ka in touched:
        if ka.any_count <= 0 and app.keys.get(ka.key) is ka:
            retire_key(app, ka)
    if dm or dv:
        app.pending_m += dm
        app.pending_v += dv
    return dm, dv


def pull(
    scheduler: AbstractYarnScheduler, app: SchedulerApp, notifications: tuple[SchedulerNotification, ...]
) -> Allocation:
    """``getAllocation``: hand over the new and completed containers, the headroom (the scheduler's ``headroom_of``)
    and the preemption marks."""
    new = app.new_containers
    if new:
        live = app.live
        # FiCaSchedulerApp.containerCompleted removes a container from newlyAllocatedContainers: one that ended
        # before the AM pulled it (preempted, or its node lost, while the AM's allocate was late) is not handed
        # over; the AM hears only of its completion.
        containers = _still_live(new, live)
        new.clear()
        for c in containers:
            live[c.id].state = ACQUIRED
    else:
        containers = ()
    if app.completed:
        completed = tuple(app.completed)
        app.completed.clear()
    else:
        completed = ()
    if app.preempt:
        preempt = _live_marks(app)
        app.clear_preempted()  # FiCaSchedulerApp.getAllocation: each mark reaches the AM once (containersToPreempt)
    else:
        preempt = _NO_PREEMPT
    return Allocation(
        containers=containers,
        completed=completed,
        headroom=scheduler.headroom_of(app),
        preempt=preempt,
        notifications=notifications,
    )


def complete_live_containers(scheduler: AbstractYarnScheduler, attempt: SchedulerApp, keep: bool) -> list[RMContainer]:
    """``doneApplicationAttempt``'s loop over the attempt's live containers: each one completes (COMPLETED_APPLICATION)
    but, with ``keep`` (keepContainersAcrossApplicationAttempts), a RUNNING one that is not the AM's, which the
    application keeps for its next attempt (Hadoop's "Skip killing"); the ones kept."""
    app = attempt.app
    kept: list[RMContainer] = []
    for rmc in list(attempt.live.values()):
        if keep and rmc.state == RUNNING and not rmc.is_am:
            kept.append(rmc)
            app.kept.append(rmc)
            continue
        scheduler.complete_container(rmc, abnormal_status(rmc.cid, COMPLETED_APPLICATION), notify=True)
    return kept


def stop_attempt(scheduler: AbstractYarnScheduler, attempt: SchedulerApp) -> None:
    """``SchedulerApplicationAttempt.stop`` (``AppSchedulingInfo.stop``) once its containers are settled: its asks
    and pending resource go (from its queues too), it is stopped, and it is no longer its application's current
    attempt nor known by id; its application continues the container id sequence in a next attempt."""
    app = attempt.app
    leaf = attempt.queue
    had = attempt.has_pending()
    if had:
        add_pending(leaf, -attempt.pending_m, -attempt.pending_v)
        attempt.pending_m = attempt.pending_v = 0
    attempt.keys.clear()
    attempt.idle_keys.clear()
    attempt.sorted_keys = None
    leaf.app_asks_changed(attempt, had, False)
    attempt.stopped = True
    app.last_seq = attempt.next_seq - 1
    if app.attempt is attempt:
        app.attempt = None
    scheduler.attempts.pop(attempt.attempt_id, None)


# The generator expressions of pull and of idle_allocate and allocate_has_news (has_live_mark), out of line: a
# function with one makes a cell per variable it shares with it on every call (in CPython), the common calls that never
# reach it too.
def _still_live(new: list[Container], live: dict[ContainerId, RMContainer]) -> tuple[Container, ...]:
    return tuple(c for c in new if c.id in live)


def _live_marks(app: SchedulerApp) -> frozenset[ContainerId]:
    live = app.live
    return frozenset(c for c in app.preempt if c in live)


def has_live_mark(app: SchedulerApp) -> bool:
    """Whether a container of ``app`` marked for preemption is still live."""
    live = app.live
    return any(c in live for c in app.preempt)
