"""``ProportionalCapacityPreemptionPolicy``: one ``editSchedule()`` round as a pure function.

``edit_schedule(snapshot, now_ms, state)`` computes the ideal assignment, the per-leaf targets and the
containers to take (with the default selector set: one ``FifoCandidatesSelector``), then the marking and
killing bookkeeping of preemption.md §7. The bookkeeping that Hadoop keeps in the policy object
(``preemptionCandidates``: container -> time of its first mark) is an explicit :class:`PreemptionState`
passed in and returned, so the policy itself holds nothing between rounds.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

import msgspec

from yarnball.errors import ConfigurationError
from yarnball.policies.preemption import _java as j
from yarnball.policies.preemption._ideal import TempQueue, compute_ideal_allocation, leaf_queue_order
from yarnball.policies.preemption._java import Res
from yarnball.policies.preemption._selector import PreemptionCandidate, select_candidates
from yarnball.policies.preemption._snapshot import AppSnapshot, ClusterSnapshot
from yarnball.protocols import Resource
from yarnball.protocols import keys as k
from yarnball.protocols._domains import domain_error

__all__ = [
    "PreemptionCandidate",
    "PreemptionEvent",
    "PreemptionEventType",
    "PreemptionRound",
    "PreemptionSettings",
    "PreemptionState",
    "ProportionalCapacityPreemptionPolicy",
    "QueuePreemption",
]

# Features Hadoop has but this policy does not model; switching them on is reported, not silently ignored.
_UNSUPPORTED = (
    k.PREEMPTION_SELECT_CANDIDATES_FOR_RESERVED_CONTAINERS,
    k.INTRAQUEUE_PREEMPTION_ENABLED,
    k.PREEMPTION_TO_BALANCE_QUEUES_BEYOND_GUARANTEED,
    k.QUEUE_PRIORITY_UTILIZATION_UNDERUTILIZED_PREEMPTION_ENABLED,
    k.LAZY_PREEMPTION_ENABLED,
)


class PreemptionEventType(enum.StrEnum):
    """The ``SchedulerEventType`` values the policy sends to the scheduler (``ContainerPreemptEvent``)."""

    MARK_CONTAINER_FOR_PREEMPTION = "MARK_CONTAINER_FOR_PREEMPTION"
    MARK_CONTAINER_FOR_KILLABLE = "MARK_CONTAINER_FOR_KILLABLE"
    KILL_RESERVED_CONTAINER = "KILL_RESERVED_CONTAINER"


class PreemptionSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The policy's keys, read with Hadoop's getters and defaults (``updateConfigIfNeeded``)."""

    observe_only: bool = k.DEFAULT_PREEMPTION_OBSERVE_ONLY
    monitoring_interval_ms: int = k.DEFAULT_PREEMPTION_MONITORING_INTERVAL
    max_wait_before_kill_ms: int = k.DEFAULT_PREEMPTION_WAIT_TIME_BEFORE_KILL
    total_preemption_per_round: float = j.f32(k.DEFAULT_TOTAL_PREEMPTION_PER_ROUND)  # getFloat: a float32
    max_ignored_over_capacity: float = k.DEFAULT_PREEMPTION_MAX_IGNORED_OVER_CAPACITY  # getDouble
    natural_termination_factor: float = k.DEFAULT_PREEMPTION_NATURAL_TERMINATION_FACTOR  # getDouble
    reserved_aware: bool = k.DEFAULT_ADDITIONAL_RESOURCE_BALANCE_BASED_ON_RESERVED_CONTAINERS

    @classmethod
    def from_config(cls, conf: Mapping[str, object]) -> PreemptionSettings:
        """The settings of ``conf``; a value outside its key's domain (:mod:`yarnball.protocols._domains`: a
        NaN or negative fraction) raises ConfigurationError naming the key. The monitoring interval is the
        monitor's business (a non-positive value read at run time stops it, as in Hadoop)."""
        c = dict(conf)
        settings = cls._read(c)
        for key, number in (
            (k.TOTAL_PREEMPTION_PER_ROUND, settings.total_preemption_per_round),
            (k.PREEMPTION_MAX_IGNORED_OVER_CAPACITY, settings.max_ignored_over_capacity),
            (k.PREEMPTION_NATURAL_TERMINATION_FACTOR, settings.natural_termination_factor),
        ):
            problem = domain_error(key, str(c.get(key)), number)
            if problem is not None:
                raise ConfigurationError(f"{key}: {c.get(key)!r}: {problem}")
        return settings

    @classmethod
    def _read(cls, c: dict[str, object]) -> PreemptionSettings:
        return cls(
            observe_only=j.get_boolean(c, k.PREEMPTION_OBSERVE_ONLY, k.DEFAULT_PREEMPTION_OBSERVE_ONLY),
            monitoring_interval_ms=j.get_long(
                c, k.PREEMPTION_MONITORING_INTERVAL, k.DEFAULT_PREEMPTION_MONITORING_INTERVAL
            ),
            max_wait_before_kill_ms=j.get_long(
                c, k.PREEMPTION_WAIT_TIME_BEFORE_KILL, k.DEFAULT_PREEMPTION_WAIT_TIME_BEFORE_KILL
            ),
            total_preemption_per_round=j.get_float(
                c, k.TOTAL_PREEMPTION_PER_ROUND, k.DEFAULT_TOTAL_PREEMPTION_PER_ROUND
            ),
            max_ignored_over_capacity=j.get_double(
                c, k.PREEMPTION_MAX_IGNORED_OVER_CAPACITY, k.DEFAULT_PREEMPTION_MAX_IGNORED_OVER_CAPACITY
            ),
            natural_termination_factor=j.get_double(
                c, k.PREEMPTION_NATURAL_TERMINATION_FACTOR, k.DEFAULT_PREEMPTION_NATURAL_TERMINATION_FACTOR
            ),
            reserved_aware=j.get_boolean(
                c,
                k.ADDITIONAL_RESOURCE_BALANCE_BASED_ON_RESERVED_CONTAINERS,
                k.DEFAULT_ADDITIONAL_RESOURCE_BALANCE_BASED_ON_RESERVED_CONTAINERS,
            ),
        )


class PreemptionState(msgspec.Struct, frozen=True):
    """``preemptionCandidates``: container id -> time (ms) it was first marked. Treat ``marks`` as read-only;
    every round returns a new state."""

    marks: dict[str, int] = msgspec.field(default_factory=dict)


class PreemptionEvent(msgspec.Struct, frozen=True, kw_only=True):
    """A ``ContainerPreemptEvent`` for the scheduler."""

    type: PreemptionEventType
    application_id: str
    container_id: str
    queue: str
    resource: Resource


class QueuePreemption(msgspec.Struct, frozen=True, kw_only=True):
    """One queue's numbers for the round (``TempQueuePerPartition``).

    ``to_be_preempted`` is the level's ideal excess after per-level scaling; for a leaf,
    ``actually_to_be_preempted`` is what the selector tried to reclaim (after the dead zone and the natural
    termination factor); it stays zero for parents and for preemption-disabled leaves.
    """

    path: str
    leaf: bool
    preemption_disabled: bool
    guaranteed: Resource
    maximum: Resource
    used: Resource
    pending: Resource
    ideal_assigned: Resource
    to_be_preempted: Resource
    actually_to_be_preempted: Resource


class PreemptionRound(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one ``editSchedule()``: what was selected, the events to send, the next state."""

    now_ms: int
    observe_only: bool
    candidates: tuple[PreemptionCandidate, ...]
    events: tuple[PreemptionEvent, ...]
    queues: tuple[QueuePreemption, ...]
    budget: Resource  # totalPreemptionAllowed at the start of the round
    budget_left: Resource
    state: PreemptionState
    warnings: tuple[str, ...] = ()  # settings in force that are not modelled (e.g. intra-queue preemption)


def _res(r: Resource) -> Res:
    return (r.memory_mb, r.vcores)


def _resource(r: Res) -> Resource:
    return Resource(r[0], r[1])


def _given(r: Resource | None) -> Res | None:
    """``r`` as a pair, or None when it is unset or zero (then derived from the queue's capacities)."""
    return None if r is None or (r.memory_mb == 0 and r.vcores == 0) else (r.memory_mb, r.vcores)


def build_queue_tree(
    snapshot: ClusterSnapshot, conf: Mapping[str, object]
) -> tuple[TempQueue, list[TempQueue], dict[str, list[AppSnapshot]]]:
    """``cloneQueues``: TempQueues for the default partition, in snapshot order, and each leaf's apps.

    Returns (root, queues in pre-order, applications grouped by leaf path). Raises ConfigurationError when the
    tree is malformed (no single root, a missing parent, a duplicate path, an application in an unknown or
    non-leaf queue).
    """
    c = dict(conf)
    cluster = _res(snapshot.cluster)
    by_path: dict[str, TempQueue] = {}
    order: list[tuple[int, str]] = []
    roots: list[str] = []
    for i, qs in enumerate(snapshot.queues):
        if not qs.path or qs.path in by_path:
            what = "is empty" if not qs.path else f"duplicates queue {qs.path!r}"
            raise ConfigurationError(f"queues[{i}].path: {what}")
        used, reserved, pending = _res(qs.used), _res(qs.reserved), _res(qs.pending)
        abs_cap = j.f32(qs.absolute_capacity)
        guaranteed = _given(qs.guaranteed)
        if guaranteed is None:
            guaranteed = j.multiply(cluster, abs_cap)
        maximum = _given(qs.maximum)
        if maximum is None:
            maximum = j.multiply(cluster, j.f32(qs.absolute_maximum_capacity))
        by_path[qs.path] = TempQueue(
            qs.path,
            index=i,
            used=used,
            reserved=reserved,
            pending=pending,
            pending_deduct_reserved=j.cw_max(j.sub(pending, reserved), j.NONE),
            guaranteed=guaranteed,
            maximum=maximum,
            abs_capacity=abs_cap,
            preemption_disabled=False,
        )
        order.append((i, qs.path))
        if "." not in qs.path:
            roots.append(qs.path)
    if len(roots) != 1:
        raise ConfigurationError(f"queues: expected exactly one root queue (a path without '.'), got {roots}")
    for i, path in order:
        if path == roots[0]:
            continue
        parent_path = path.rpartition(".")[0]
        parent = by_path.get(parent_path)
        if parent is None:
            raise ConfigurationError(f"queues[{i}].path: parent queue {parent_path!r} of {path!r} is missing")
        by_path[parent_path].children.append(by_path[path])
    root = by_path[roots[0]]
    # Parents aggregate their children's pending (addChild): redo it bottom-up, in child order.
    pre_order: list[TempQueue] = []

    def walk(q: TempQueue) -> None:
        pre_order.append(q)
        kids, q.children = q.children, []
        if kids:
            q.pending = q.pending_deduct_reserved = j.NONE
        for child in kids:
            walk(child)
            q.add_child(child)

    walk(root)
    if len(pre_order) != len(by_path):
        raise ConfigurationError("queues: some queues are not reachable from the root")

    _resolve_queue_settings(snapshot, c, by_path, root)

    leaves = {q.path for q in pre_order if q.is_leaf}
    short: dict[str, list[str]] = {}
    for p in leaves:
        short.setdefault(p.rpartition(".")[2], []).append(p)
    apps_by_queue: dict[str, list[AppSnapshot]] = {}
    for i, app in enumerate(snapshot.applications):
        path = app.queue
        if path not in leaves:
            candidates = short.get(path, [])
            if path in by_path:
                raise ConfigurationError(f"applications[{i}].queue: {path!r} is a parent queue, not a leaf")
            if len(candidates) != 1:
                raise ConfigurationError(f"applications[{i}].queue: unknown leaf queue {path!r}")
            path = candidates[0]
        apps_by_queue.setdefault(path, []).append(app)
    return root, pre_order, apps_by_queue


def _resolve_queue_settings(
    snapshot: ClusterSnapshot, conf: dict[str, object], by_path: dict[str, TempQueue], root: TempQueue
) -> None:
    """disable_preemption with inheritance and the AM resource percent (``AbstractCSQueue``, ``LeafQueue``)."""
    # isQueueHierarchyPreemptionDisabled: with the monitors switched off every queue is non-preemptable.
    # The policy only runs when they are on, so a missing key counts as on; an explicit false disables all.
    monitors_on = j.get_boolean(conf, k.RM_SCHEDULER_ENABLE_MONITORS, True)
    global_am = j.get_float(
        conf, k.MAXIMUM_APPLICATION_MASTERS_RESOURCE_PERCENT, k.DEFAULT_MAXIMUM_APPLICATION_MASTERS_RESOURCE_PERCENT
    )
    explicit = {qs.path: qs for qs in snapshot.queues}

    def walk(q: TempQueue, inherited: bool) -> None:
        qs = explicit[q.path]
        prefix = k.CS_PREFIX + q.path + "."
        if qs.preemption_disabled is not None:
            disabled = qs.preemption_disabled
        else:
            disabled = j.get_boolean(conf, prefix + k.QUEUE_PREEMPTION_DISABLED, inherited)
        q.preemption_disabled = disabled or not monitors_on
        if qs.maximum_am_resource_percent is not None:
            q.max_am_percent = j.f32(qs.maximum_am_resource_percent)
        else:
            q.max_am_percent = j.get_float(conf, prefix + k.MAXIMUM_AM_RESOURCE_SUFFIX, global_am)
        for child in q.children:
            walk(child, disabled)

    walk(root, False)


class ProportionalCapacityPreemptionPolicy:
    """Hadoop's inter-queue preemption policy, pure: no clock, no scheduler, no state of its own.

    ``config`` maps Hadoop keys to values; the snapshot's own ``config`` is laid over it each round, the way
    Hadoop re-reads the scheduler's configuration at the start of every ``editSchedule()``.
    """

    def __init__(self, config: Mapping[str, object] | None = None) -> None:
        self._config: dict[str, object] = dict(config or {})

    def settings(self, snapshot: ClusterSnapshot | None = None) -> PreemptionSettings:
        """The settings in force for ``snapshot`` (or for the policy's own config alone)."""
        return PreemptionSettings.from_config(self._merged(snapshot))

    def monitoring_interval_ms(self, snapshot: ClusterSnapshot | None = None) -> int:
        return self.settings(snapshot).monitoring_interval_ms

    def _merged(self, snapshot: ClusterSnapshot | None) -> dict[str, object]:
        if snapshot is None or not snapshot.config:
            return self._config
        merged = dict(self._config)
        merged.update(snapshot.config)
        return merged

    def edit_schedule(
        self, snapshot: ClusterSnapshot, now_ms: int = 0, state: PreemptionState | None = None
    ) -> PreemptionRound:
        """One round: ``containerBasedPreemptOrKill`` at time ``now_ms`` given last round's ``state``."""
        conf = self._merged(snapshot)
        settings = PreemptionSettings.from_config(conf)
        warnings = _unsupported(conf)
        state = state if state is not None else PreemptionState()

        root, queues, apps_by_queue = build_queue_tree(snapshot, conf)
        leaves = leaf_queue_order(root)
        # totalPreemptionAllowed = Resources.multiply(cluster, float32 fraction): truncated per component.
        budget = j.multiply(_res(snapshot.cluster), settings.total_preemption_per_round)
        compute_ideal_allocation(
            root,
            leaves,
            budget,
            max_ignored_over_capacity=settings.max_ignored_over_capacity,
            natural_termination_factor=settings.natural_termination_factor,
            reserved_aware=settings.reserved_aware,
        )
        reserved_visits: list[PreemptionCandidate] = []
        selected, left = select_candidates(leaves, apps_by_queue, budget, on_reserved_visit=reserved_visits)
        candidates = tuple(selected)

        if settings.observe_only:
            events: list[PreemptionEvent] = []
            new_state = state
        else:
            events = [_event(PreemptionEventType.KILL_RESERVED_CONTAINER, s) for s in reserved_visits]
            new_state = _mark_or_kill(selected, state, now_ms, settings.max_wait_before_kill_ms, events)
        outcome = PreemptionRound(
            now_ms=now_ms,
            observe_only=settings.observe_only,
            candidates=candidates,
            events=tuple(events),
            queues=tuple(_queue_outcome(q) for q in queues),
            budget=_resource(budget),
            budget_left=_resource(left),
            state=new_state,
            warnings=warnings,
        )
        return outcome


def _unsupported(conf: dict[str, object]) -> tuple[str, ...]:
    """Settings in force that this policy does not model (reported in the round, not logged: it is pure)."""
    out = [f"{key}=true is not modelled; ignored" for key in _UNSUPPORTED if j.get_boolean(conf, key, False)]
    calc = conf.get(k.RESOURCE_CALCULATOR_CLASS)
    if calc is not None and "Dominant" in str(calc):
        out.append(f"{k.RESOURCE_CALCULATOR_CLASS}={calc} is not modelled; DefaultResourceCalculator used")
    return tuple(out)


def _event(kind: PreemptionEventType, s: PreemptionCandidate) -> PreemptionEvent:
    c = s.container
    return PreemptionEvent(
        type=kind, application_id=s.application_id, container_id=c.id, queue=s.queue, resource=c.resource
    )


def _mark_or_kill(
    selected: list[PreemptionCandidate],
    state: PreemptionState,
    now_ms: int,
    wait_ms: int,
    events: list[PreemptionEvent],
) -> PreemptionState:
    """``preemptOrkillSelectedContainerAfterWait`` then ``cleanupStaledPreemptionCandidates``.

    A selected container is marked the first time; once it has been marked for at least ``wait_ms`` and is
    selected again, it is made killable (and forgotten). Marks of containers that are no longer selected are
    not acted on, and age out after ``2 x wait_ms`` (so a later re-selection starts a new timer).
    """
    marks = dict(state.marks)
    for s in selected:
        cid = s.container.id
        first = marks.get(cid)
        if first is not None and first + wait_ms <= now_ms:
            events.append(_event(PreemptionEventType.MARK_CONTAINER_FOR_KILLABLE, s))
            del marks[cid]
        elif first is None:
            events.append(_event(PreemptionEventType.MARK_CONTAINER_FOR_PREEMPTION, s))
            marks[cid] = now_ms
        # else: already marked and still waiting; no duplicate event (YARN-3941)
    stale = 2 * wait_ms
    return PreemptionState({cid: t for cid, t in marks.items() if not t + stale < now_ms})


def _queue_outcome(q: TempQueue) -> QueuePreemption:
    return QueuePreemption(
        path=q.path,
        leaf=q.is_leaf,
        preemption_disabled=q.preemption_disabled,
        guaranteed=_resource(q.guaranteed),
        maximum=_resource(q.maximum),
        used=_resource(q.used),
        pending=_resource(q.pending),
        ideal_assigned=_resource(q.ideal),
        to_be_preempted=_resource(q.to_be_preempted),
        actually_to_be_preempted=_resource(q.actually_to_be_preempted),
    )
