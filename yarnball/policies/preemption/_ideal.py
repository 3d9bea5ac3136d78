"""The ideal assignment: how much each queue should hold and how much each leaf must give back.

A transcription of Hadoop's ``PreemptableResourceCalculator`` and ``AbstractPreemptableResourceCalculator``
(trunk = 3.3.0, preemption.md §3-§5) over :class:`TempQueue`, the counterpart of ``TempQueuePerPartition``,
for the default partition only. Java's arithmetic is kept (see ``_java``): float32 ratios, truncating
``Resources.multiply``, round-half-up offers, memory-only comparisons, and the fixpoint's aliasing quirk.
"""

from __future__ import annotations

from collections.abc import Iterable

from yarnball.policies.preemption import _java as j
from yarnball.policies.preemption._java import NONE, Res

__all__ = ["TempQueue", "compute_ideal_allocation", "leaf_queue_order"]

_MAX_PCT = float(2**31 - 1)  # TQComparator: queues without a guarantee sort last (Integer.MAX_VALUE)


class TempQueue:
    """``TempQueuePerPartition``: one queue's numbers for one round, and what the calculator derives."""

    __slots__ = (
        "abs_capacity",
        "actually_to_be_preempted",
        "children",
        "guaranteed",
        "ideal",
        "index",
        "max_am_percent",
        "maximum",
        "normalized_guarantee",
        "parent",
        "path",
        "pct",
        "pending",
        "pending_deduct_reserved",
        "preemptable_extra",
        "preemption_disabled",
        "reserved",
        "to_be_preempted",
        "untouchable_extra",
        "used",
    )

    def __init__(
        self,
        path: str,
        *,
        index: int,
        used: Res,
        reserved: Res,
        pending: Res,
        pending_deduct_reserved: Res,
        guaranteed: Res,
        maximum: Res,
        abs_capacity: float,
        preemption_disabled: bool,
        max_am_percent: float = 0.0,
    ) -> None:
        self.path = path
        self.index = index  # position in the snapshot: stands in for Java's identity-hash iteration order
        self.used = used
        self.reserved = reserved
        self.pending = pending
        self.pending_deduct_reserved = pending_deduct_reserved
        self.guaranteed = guaranteed
        self.maximum = maximum
        self.abs_capacity = abs_capacity
        self.preemption_disabled = preemption_disabled
        self.max_am_percent = max_am_percent
        self.parent: TempQueue | None = None
        self.children: list[TempQueue] = []
        self.ideal: Res = NONE
        self.pct = 0.0  # ideal / guaranteed as TQComparator sees it; refreshed whenever ideal changes
        self.untouchable_extra: Res = NONE
        self.preemptable_extra: Res = NONE
        self.normalized_guarantee = 0.0
        self.to_be_preempted: Res = NONE
        self.actually_to_be_preempted: Res = NONE

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def add_child(self, q: TempQueue) -> None:
        """``TempQueuePerPartition.addChild``: a parent's pending is the sum of its children's."""
        self.children.append(q)
        q.parent = self
        self.pending = j.add(self.pending, q.pending)
        self.pending_deduct_reserved = j.add(self.pending_deduct_reserved, q.pending_deduct_reserved)

    # -- TempQueuePerPartition.updatePreemptableExtras -------------------------------------------------
    def update_preemptable_extras(self) -> None:
        extra = j.sub(self.used, self.guaranteed)
        if extra[0] < 0:
            extra = NONE
        if not self.children:
            if self.preemption_disabled:
                self.untouchable_extra, self.preemptable_extra = extra, NONE
            else:
                self.untouchable_extra, self.preemptable_extra = NONE, extra
            return
        cp = NONE
        for child in self.children:
            cp = j.add(cp, child.preemptable_extra)
        # The part of a parent's over-use that lives in preemption-disabled leaves is untouchable.
        self.untouchable_extra = NONE if cp[0] >= extra[0] else j.sub(extra, cp)
        self.preemptable_extra = j.rc_min(cp, extra)

    # -- TempQueuePerPartition.offer (trunk, after YARN-5864 and YARN-8292) ------------------------------
    def offer(self, avail: Res, considers_reserved: bool) -> Res:
        """Accept what this queue can take of ``avail``; return the rest (``avail - accepted``).

        accepted = componentwiseMin(max(maximum - ideal, 0), rc.min(avail, used + pending' - ideal)), then for
        a leaf rc.min(accepted, rc.max(rc.max(used, guaranteed) - ideal, 0)), then clamped to [0, avail] with
        rc.max/rc.min. Written out on scalars because the fixpoint calls it a lot: ``rc.min``/``rc.max``
        compare memory only and return a whole operand (the left one on ties), componentwise ops do not mix.
        """
        ideal_m, ideal_v = self.ideal
        avail_m, avail_v = avail
        used_m, used_v = self.used
        d_m, d_v = self.maximum[0] - ideal_m, self.maximum[1] - ideal_v
        d_m, d_v = (d_m if d_m > 0 else 0), (d_v if d_v > 0 else 0)
        pend = self.pending if considers_reserved else self.pending_deduct_reserved
        w_m, w_v = used_m + pend[0] - ideal_m, used_v + pend[1] - ideal_v
        x_m, x_v = (avail_m, avail_v) if avail_m <= w_m else (w_m, w_v)
        a_m, a_v = (d_m if d_m < x_m else x_m), (d_v if d_v < x_v else x_v)
        if not self.children:
            # YARN-5864: a leaf never gets more than max(used, guaranteed), so satisfied queues don't preempt.
            g_m, g_v = self.guaranteed
            c_m, c_v = (used_m - ideal_m, used_v - ideal_v) if used_m >= g_m else (g_m - ideal_m, g_v - ideal_v)
            if c_m < 0:
                c_m, c_v = 0, 0
            if a_m > c_m:
                a_m, a_v = c_m, c_v
        if a_m < 0:
            a_m, a_v = 0, 0
        if a_m > avail_m:
            a_m, a_v = avail_m, avail_v
        self.ideal = (ideal_m + a_m, ideal_v + a_v)
        if a_m:
            self.pct = _pct(self)
        return (avail_m - a_m, avail_v - a_v)

    # -- TempQueuePerPartition.assignPreemption ------------------------------------------------------------
    def assign_preemption(self, scaling: float) -> None:
        used_deduct_killable = self.used  # lazy preemption (killable containers) is not modelled
        total = j.add(self.used, self.pending)
        minimum = j.rc_max(j.rc_min(total, self.guaranteed), self.ideal)
        if used_deduct_killable[0] > minimum[0]:
            self.to_be_preempted = j.multiply(j.sub(used_deduct_killable, minimum), scaling)
        else:
            self.to_be_preempted = NONE

    def __repr__(self) -> str:
        return (
            f"TempQueue({self.path} used={self.used} guar={self.guaranteed} pend={self.pending} "
            f"ideal={self.ideal} toBePreempted={self.to_be_preempted} actual={self.actually_to_be_preempted})"
        )


def _pct(q: TempQueue) -> float:
    """TQComparator.getIdealPctOfGuaranteed: float32 ideal/guaranteed, or MAX_VALUE without a guarantee."""
    if q.guaranteed[0] > 0:
        return j.ratio(q.ideal[0], q.guaranteed[0])
    return _MAX_PCT


def _tq_compare(a: TempQueue, b: TempQueue) -> int:
    # PriorityUtilizationQueueOrderingPolicy.compare with equal relative priorities (always 0 here: queue
    # priorities are not part of the snapshot) reduces to Double.compare of the two percentages.
    pa, pb = a.pct, b.pct
    return -1 if pa < pb else (1 if pa > pb else 0)


def _compute_fixpoint_allocation(
    tot_guarant: Res, q_alloc: Iterable[TempQueue], unassigned: list[Res], ignore_guarantee: bool,
    considers_reserved: bool,
) -> None:
    """``computeFixpointAllocation``. ``unassigned`` is a one-element box standing for the caller's Java object.

    Hadoop subtracts from the caller's object until the first ``unassigned = componentwiseMax(...)`` rebinds
    the local variable; after that the caller no longer sees the decrements (preemption.md §4.6). The box is
    written exactly while Java would still be aliasing it.
    """
    local = unassigned[0]
    aliased = True
    pq: j.JavaPriorityQueue[TempQueue] = j.JavaPriorityQueue(_tq_compare)
    for q in q_alloc:
        if q.used[0] > q.guaranteed[0]:
            q.ideal = j.add(j.cw_min(q.guaranteed, q.used), q.untouchable_extra)
        else:
            q.ideal = q.used
        q.pct = _pct(q)
        local = j.sub(local, q.ideal)
        if q.ideal[0] < q.used[0] + q.pending[0]:  # full pending here, not pending - reserved
            pq.add(q)
    unassigned[0] = local

    while len(pq) and local[0] > 0:
        _reset_capacity(pq, ignore_guarantee)
        underserved = _most_underserved(pq)
        dup = local  # the offers of one round all come from the same snapshot
        for sub in underserved:
            if not local[0] > 0:  # rc.isAnyMajorResourceAboveZero
                break
            avail = j.cw_min(j.multiply_and_normalize_up(dup, sub.normalized_guarantee), local)
            idle = sub.offer(avail, considers_reserved)
            done = j.sub(avail, idle)
            if done[0] > 0:
                pq.add(sub)  # still hungry: back in the queue, at its new place
            local = j.sub(local, done)
            if aliased:
                unassigned[0] = local
            local = j.cw_max(local, NONE)  # a new object in Java: the caller stops seeing updates
            aliased = False


def _reset_capacity(pq: j.JavaPriorityQueue[TempQueue], ignore_guarantee: bool) -> None:
    if ignore_guarantee:
        share = j.f32(1.0 / j.f32(float(len(pq))))  # 1.0f / queues.size()
        for q in pq:
            q.normalized_guarantee = share
        return
    active = 0
    for q in pq:
        active += q.guaranteed[0]
    if active != 0:  # Hadoop keeps the previous value when the sum is 0
        for q in pq:
            q.normalized_guarantee = j.ratio(q.guaranteed[0], active)


def _most_underserved(pq: j.JavaPriorityQueue[TempQueue]) -> list[TempQueue]:
    """``getMostUnderservedQueues``: pop the head and every following queue that compares equal to it."""
    out: list[TempQueue] = []
    while len(pq):
        q1 = pq.poll()
        out.append(q1)
        q2 = pq.peek()
        if q2 is None or _tq_compare(q1, q2) < 0:
            break
    return out


def _compute_ideal_resource_distribution(
    queues: list[TempQueue], budget: Res, tot_guarant: Res, considers_reserved: bool
) -> None:
    """``PreemptableResourceCalculator.computeIdealResourceDistribution`` for one level of the tree."""
    unassigned = [tot_guarant]
    # Java keeps these in HashSets of identity-hashed objects (an arbitrary order that changes run to run);
    # the snapshot order is used instead, which no Hadoop test assertion depends on (preemption.md §4.6).
    non_zero = [q for q in queues if q.guaranteed[0] > 0]
    zero = [q for q in queues if not q.guaranteed[0] > 0]
    _compute_fixpoint_allocation(tot_guarant, non_zero, unassigned, False, considers_reserved)
    if zero and unassigned[0][0] > 0:
        _compute_fixpoint_allocation(tot_guarant, zero, unassigned, True, considers_reserved)

    needed = NONE
    for t in queues:
        if t.used[0] > t.ideal[0]:
            needed = j.add(needed, j.sub(t.used, t.ideal))
    scaling = 1.0
    if needed[0] > budget[0]:
        # total_preemption_per_round as per-level scaling: a float32 ratio, later multiplied and truncated.
        scaling = j.ratio(budget[0], needed[0])
    for t in queues:
        t.assign_preemption(scaling)


def _recursively_compute_ideal(q: TempQueue, budget: Res, considers_reserved: bool) -> None:
    if q.children:
        # Each level divides the parent's *ideal*, not its usage: a leaf over its guarantee under a parent
        # within its guarantee keeps what it has.
        _compute_ideal_resource_distribution(q.children, budget, q.ideal, considers_reserved)
        for child in q.children:
            _recursively_compute_ideal(child, budget, considers_reserved)


def _update_preemptable_extras(q: TempQueue) -> None:
    for child in q.children:
        _update_preemptable_extras(child)
    q.update_preemptable_extras()


def compute_ideal_allocation(
    root: TempQueue,
    leaves: list[TempQueue],
    budget: Res,
    *,
    max_ignored_over_capacity: float,
    natural_termination_factor: float,
    reserved_aware: bool = False,
) -> None:
    """``PreemptableResourceCalculator.computeIdealAllocation`` plus the dead zone and natural termination.

    Sets ``ideal``, ``to_be_preempted`` on every queue and ``actually_to_be_preempted`` on the leaves.
    ``reserved_aware`` is the FIFO selector's calculator under additional_res_balance_based_on_reserved_
    containers: offers use the full pending and the natural termination factor is skipped.
    """
    _update_preemptable_extras(root)
    root.ideal = root.guaranteed  # initializeRootIdealWithGuarangeed
    _recursively_compute_ideal(root, budget, reserved_aware)

    threshold_factor = 1.0 + max_ignored_over_capacity
    for q in leaves:
        if q.preemption_disabled:
            continue
        # Dead zone: compare used with guarantee x (1 + max_ignored_over_capacity), truncated.
        if q.used[0] > j.multiply(q.guaranteed, threshold_factor)[0]:
            res = q.to_be_preempted
            if not reserved_aware and res[0] > 0:
                # YARN-8179: rounded half up (it was truncated before Hadoop 3.2).
                res = j.multiply_and_normalize_up(res, natural_termination_factor)
            q.actually_to_be_preempted = res
        else:
            q.actually_to_be_preempted = NONE


def leaf_queue_order(root: TempQueue) -> list[TempQueue]:
    """The order of ``getLeafQueueNames``: nested ``HashSet<String>`` of queue paths, one per parent.

    It only matters when the global per-round budget runs out part-way through the leaves; reproducing it
    makes those cases match Hadoop.
    """
    by_path: dict[str, TempQueue] = {}

    def names(q: TempQueue) -> list[str]:
        if not q.children:
            by_path[q.path] = q
            return [q.path]
        collected: list[str] = []
        for child in q.children:
            collected.extend(names(child))
        return j.hashset_order(collected)

    return [by_path[p] for p in names(root)]
