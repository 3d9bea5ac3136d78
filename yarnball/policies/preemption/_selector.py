"""``FifoCandidatesSelector``: which containers to take, queue by queue, until each leaf's target is met.

Order (preemption.md §6): leaves in ``getLeafQueueNames`` order; within a leaf, applications in the ordering
policy's preemption order (FIFO: lowest application priority first, then the most recently submitted);
within an application its reserved containers first, then live containers by request priority (largest
number, i.e. least important, first) and newest first; AM containers are skipped and taken last, only while
the skipped AM total exceeds the queue's AM allowance. Every pick must fit the round's remaining global budget
(``total_preemption_per_round``), shared by all queues. Node partitions other than the default are not
modelled, so the "ignore-exclusivity containers" pass of Hadoop has nothing to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

import msgspec

from yarnball.policies.preemption import _java as j
from yarnball.policies.preemption._ideal import TempQueue
from yarnball.policies.preemption._java import Res
from yarnball.policies.preemption._snapshot import AppSnapshot, ContainerSnapshot
from yarnball.protocols import Resource

__all__ = ["PreemptionCandidate", "preemption_order", "select_candidates"]


class PreemptionCandidate(msgspec.Struct, frozen=True, gc=False):
    """A container selected this round (Hadoop's ``selectedCandidates``), in the order it was chosen."""

    container: ContainerSnapshot
    application_id: str
    queue: str

    @property
    def container_id(self) -> str:
        return self.container.id

    @property
    def resource(self) -> Resource:
        return self.container.resource

    @property
    def am(self) -> bool:
        return self.container.am

    @property
    def reserved(self) -> bool:
        return self.container.reserved


def preemption_order(apps: Sequence[AppSnapshot]) -> list[AppSnapshot]:
    """``FifoOrderingPolicy.getPreemptionIterator``: the schedule order (higher priority first, then earlier
    submission) reversed. Ties (same priority and submission order) go to the app listed later."""
    keys = [(-a.priority, a.submission_order, i) for i, a in enumerate(apps)]
    keys.sort(reverse=True)
    return [apps[i] for _, _, i in keys]


_LIVE_KEY = attrgetter("priority", "start_order")


def select_candidates(
    leaves: Sequence[TempQueue],
    apps_by_queue: dict[str, list[AppSnapshot]],
    budget: Res,
    *,
    on_reserved_visit: list[PreemptionCandidate] | None = None,
) -> tuple[list[PreemptionCandidate], Res]:
    """Run ``FifoCandidatesSelector.selectCandidates`` over leaves whose targets are already computed.

    Returns the selections in order and what is left of the global budget (``totalPreemptionAllowed``, one
    amount shared by every queue). Every reserved container the selector visits is appended to
    ``on_reserved_visit`` (Hadoop sends KILL_RESERVED_CONTAINER for each, whether or not it was selected).

    ``take`` is ``CapacitySchedulerPreemptionUtils.tryPreemptContainerAndDeductResToObtain`` for the
    DefaultResourceCalculator, inlined for speed: select while the queue still needs memory and the container
    fits the remaining budget. The last container may overshoot the target; a container bigger than what is
    left of the budget is skipped, and smaller ones after it may still be taken.
    """
    selected: list[PreemptionCandidate] = []
    left_m, left_v = budget
    for q in leaves:
        if q.preemption_disabled:
            continue
        need_m, need_v = q.actually_to_be_preempted
        if need_m <= 0:
            continue  # no partition to obtain from: Hadoop's loops all stop at once
        path = q.path

        def take(c: ContainerSnapshot, app: AppSnapshot, path: str = path) -> bool:
            nonlocal need_m, need_v, left_m, left_v
            m = c.resource.memory_mb
            if need_m <= 0 or m > left_m:
                return False
            v = c.resource.vcores
            need_m -= m
            need_v -= v
            left_m -= m
            left_v -= v
            selected.append(PreemptionCandidate(c, app.id, path))
            return True

        skipped_am: list[tuple[ContainerSnapshot, AppSnapshot]] = []
        skipped_am_m = 0
        for app in preemption_order(apps_by_queue.get(path, ())):
            if need_m <= 0:
                break
            # preemptFrom: reserved containers first, in list order; the live ones are gathered on the way.
            live: list[ContainerSnapshot] = []
            for c in app.containers:
                if not c.reserved:
                    live.append(c)
                    continue
                if need_m <= 0:
                    break
                take(c, app)
                if on_reserved_visit is not None:
                    on_reserved_visit.append(PreemptionCandidate(c, app.id, path))
            # PreemptionCandidatesSelector.sortContainers: priority descending, then newest first.
            live.sort(key=_LIVE_KEY, reverse=True)
            for c in live:
                if need_m <= 0:
                    break
                if c.am:
                    skipped_am.append((c, app))
                    skipped_am_m += c.resource.memory_mb
                    continue
                r = c.resource  # take(c, app), inlined: this loop is the hot path
                if r.memory_mb <= left_m:
                    need_m -= r.memory_mb
                    need_v -= r.vcores
                    left_m -= r.memory_mb
                    left_v -= r.vcores
                    selected.append(PreemptionCandidate(c, app.id, path))
        # preemptAMContainers: keep at least the queue's AM allowance (guaranteed x AM percent) of AMs.
        max_am_m = j.multiply(q.guaranteed, q.max_am_percent)[0]
        for c, app in skipped_am:
            if need_m <= 0 or skipped_am_m <= max_am_m:
                break
            if take(c, app):
                skipped_am_m -= c.resource.memory_mb
    return selected, (left_m, left_v)
