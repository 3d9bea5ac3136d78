"""The legacy auto-created leaves' management policy, ``queuemanagement.GuaranteedOrZeroCapacityOverTimePolicy``,
and the records it computes: ``QueueCapacities``, ``AutoCreatedLeafQueueConfig`` (an entitlement),
``QueueManagementChange``, with ``AutoCreatedLeafQueue.mergeCapacities`` that applies one to a leaf.

A leaf gets the template capacity while the parent's absolute capacity still has room for one more template
(``parentAbs - activated + EPSILON >= templateAbs``), else zero; the monitor's rounds
(``computeQueueManagementChanges``) deactivate leaves without applications and activate inactive ones with
applications in application order, as room allows; the ``ManagedParentQueue`` (_managedparent.py) validates, applies
and commits them. Only the default partition is modelled.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from yarnball._logs import get_logger
from yarnball.errors import SchedulerDynamicEditException
from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._queues import CSQueue, ParentQueue, f32

if TYPE_CHECKING:
    from yarnball.policies.capacity._core import SchedulerCore as CapacityScheduler
    from yarnball.policies.capacity._managedparent import ManagedParentQueue

__all__ = [
    "EPSILON",
    "AutoCreatedLeafQueueConfig",
    "GuaranteedOrZeroCapacityOverTimePolicy",
    "QueueCapacities",
    "QueueManagementChange",
    "merge_capacities",
    "update_queue_capacities",
    "update_template_absolute_capacities",
]

log = get_logger(__name__)

#: CSQueueUtils.EPSILON (a Java float).
EPSILON = f32(0.0001)


class QueueCapacities:
    """``QueueCapacities`` of the default partition: capacity, maximum capacity and their absolute values (Java
    floats; an unset absolute value reads 0, as in Hadoop)."""

    __slots__ = ("abs_cap", "abs_max", "capacity", "max_capacity")

    def __init__(self, capacity: float = 0.0, max_capacity: float = 0.0, abs_cap: float = 0.0, abs_max: float = 0.0):
        self.capacity = capacity
        self.max_capacity = max_capacity
        self.abs_cap = abs_cap
        self.abs_max = abs_max

    def __repr__(self) -> str:
        return (
            f"QueueCapacities(capacity={self.capacity}, max_capacity={self.max_capacity}, abs_cap={self.abs_cap}, "
            f"abs_max={self.abs_max})"
        )


class AutoCreatedLeafQueueConfig:
    """``AutoCreatedLeafQueueConfig``: capacities, the template's configured minimum resource
    (``getResourceQuotas().getConfiguredMinResource()``) and, for the parent's template, its configuration entries
    (key suffixes after ``leaf-queue-template.``)."""

    __slots__ = ("capacities", "entries", "min_m", "min_v")

    def __init__(
        self, capacities: QueueCapacities, min_m: int = 0, min_v: int = 0, entries: dict[str, str] | None = None
    ) -> None:
        self.capacities = capacities
        self.min_m = min_m
        self.min_v = min_v
        self.entries = entries if entries is not None else {}


class QueueManagementChange:
    """``QueueManagementChange.UpdateQueue``: a leaf and its new entitlement."""

    __slots__ = ("queue", "template")

    def __init__(self, queue: LeafQueue, template: AutoCreatedLeafQueueConfig) -> None:
        self.queue = queue
        self.template = template

    def __repr__(self) -> str:
        return f"UpdateQueue({self.queue.path}, {self.template.capacities})"


# -- the template's capacities -----------------------------------------------------------------------------------------
def update_queue_capacities(
    cs: CapacityScheduler,
    conf: CapacitySchedulerConfiguration,
    parent: ParentQueue,
    template: AutoCreatedLeafQueueConfig,
) -> None:
    """``ManagedParentQueue.updateQueueCapacities`` (ABSOLUTE_RESOURCE parent): the template's capacity is its
    configured minimum over the parent's configured minimum, its maximum the smaller of its maximum (or the parent's)
    and the parent's, over the parent's; the absolute values scale the parent's."""
    ctx = cs.context
    rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
    template_path = conf.get_auto_created_queue_template_conf_prefix(parent.path)
    caps = template.capacities
    caps.capacity = f32(rc.divide(cm, cv, template.min_m, template.min_v, parent.conf_min_m, parent.conf_min_v))
    child_max = conf.get_maximum_resource_requirement(template_path)
    parent_max = (parent.conf_max_m, parent.conf_max_v)
    eff_max = rc.min(cm, cv, *(parent_max if child_max == (0, 0) else child_max), *parent_max)
    caps.max_capacity = f32(rc.divide(cm, cv, eff_max[0], eff_max[1], *parent_max))
    caps.abs_cap = f32(caps.capacity * parent.abs_cap)
    caps.abs_max = f32(caps.max_capacity * parent.abs_max)


def update_template_absolute_capacities(caps: QueueCapacities, parent: CSQueue) -> None:
    """``CSQueueUtils.updateAbsoluteCapacitiesByNodeLabels`` on the template: each absolute value scales the
    parent's, set only when the relative one is positive."""
    if caps.capacity > 0:
        caps.abs_cap = f32(caps.capacity * parent.abs_cap)
    if caps.max_capacity > 0:
        caps.abs_max = f32(caps.max_capacity * parent.abs_max)


# -- the policy -----------------------------------------------------------------------------------------------------
class GuaranteedOrZeroCapacityOverTimePolicy:
    """``queuemanagement.GuaranteedOrZeroCapacityOverTimePolicy`` for the default partition."""

    __slots__ = ("_activated", "_active", "managed")

    def __init__(self, managed: ManagedParentQueue) -> None:
        self.managed = managed
        self._active: dict[str, bool] = {}  # LeafQueueState: leaf path -> active
        self._activated: float | None = None  # ParentQueueState: the activated children's absolute capacity

    # ParentQueueState
    def get_absolute_activated_child_queue_capacity(self, label: str = "") -> float:
        """``getAbsoluteActivatedChildQueueCapacity``: 0 until a leaf was activated."""
        return self._activated if self._activated is not None and label == "" else 0.0

    def _inc(self, value: float) -> None:
        self._activated = value if self._activated is None else f32(self._activated + value)

    def _dec(self, value: float) -> None:
        # ParentQueueState.decAbsoluteActivatedChildCapacity: with nothing recorded it *sets* the value (Hadoop's).
        self._activated = value if self._activated is None else f32(self._activated - value)

    def is_active(self, leaf: CSQueue, label: str = "") -> bool:
        """``isActive``; a leaf the policy does not know is a SchedulerDynamicEditException, as in Hadoop."""
        active = self._active.get(leaf.path)
        if active is None:
            raise SchedulerDynamicEditException(f"Could not find leaf queue in state {leaf.path}")
        return active

    def _template_caps(self) -> QueueCapacities:
        return self.managed.template.capacities

    def _activate(self, leaf: CSQueue) -> None:
        self.is_active(leaf)
        self._active[leaf.path] = True
        self._inc(self._template_caps().abs_cap)

    def _deactivate(self, leaf: CSQueue) -> None:
        self.is_active(leaf)
        self._active[leaf.path] = False
        self._dec(self._template_caps().abs_cap)

    def reinitialize(self) -> None:
        """``reinitialize``: the template is read again by the parent; the state is cleared."""
        self._active.clear()
        self._activated = None

    def _zero(self, leaf: LeafQueue) -> QueueCapacities:
        """``updateToZeroCapacity``: capacity 0, the template's maximum; the leaf's configured minimum resource is
        set to none at once (a side effect of computing, as in Hadoop)."""
        leaf.conf_min_m = leaf.conf_min_v = 0
        return QueueCapacities(0.0, self._template_caps().max_capacity)

    def _from_template(self) -> QueueCapacities:
        t = self._template_caps()
        return QueueCapacities(t.capacity, t.max_capacity, t.abs_cap, t.abs_max)

    def get_initial_leaf_queue_configuration(
        self, cs: CapacityScheduler, leaf: LeafQueue
    ) -> AutoCreatedLeafQueueConfig:
        """``getInitialLeafQueueConfiguration``: the template's capacities when the parent has room, else zero.

        YARN-11682 (apache/hadoop#8618): an absolute-mode leaf created while the cluster has no resource (an RM
        recovering applications before any NodeManager registered) gets zero and is not activated; the monitor's
        next round, with the template's capacities derived again from the cluster resource, activates it.
        (Reconstructed from the change's description and its test, testAutoCreatedLeafQueueRecoversCapacityAfter
        NodeRegisters: the patch itself was not read.)"""
        managed = self.managed
        if leaf.path in self._active:
            log.error(f"Leaf queue already exists in state : {leaf.path}")
        else:
            self._active[leaf.path] = False
        parent = managed.queue
        available = f32(f32(parent.abs_cap - self.get_absolute_activated_child_queue_capacity()) + EPSILON)
        ctx = cs.context
        empty_cluster = parent.absolute and ctx.cluster_m == 0 and ctx.cluster_v == 0
        if not empty_cluster and available >= self._template_caps().abs_cap:
            caps = self._from_template()
            self._activate(leaf)
        else:
            caps = self._zero(leaf)
        return managed.entitlement(caps)

    def compute_queue_management_changes(self, cs: CapacityScheduler) -> list[QueueManagementChange]:
        """``computeQueueManagementChanges``: the entitlement changes, not applied (the leaf state is not changed;
        a deactivated leaf's configured minimum resource is, as in Hadoop)."""
        managed = self.managed
        parent = managed.queue
        if parent.absolute:
            # YARN-11682: the absolute template's capacities follow the current cluster resource.
            update_queue_capacities(cs, cs.conf, parent, managed.template)
        update_template_absolute_capacities(self._template_caps(), parent)
        self._update_leaf_queue_state()
        template_abs = self._template_caps().abs_cap
        entitlements: dict[str, QueueCapacities] = {}
        # deactivateLeafQueuesIfInActive: active leaves without applications
        deactivated: list[str] = []
        for child in parent.children:
            if isinstance(child, LeafQueue) and self.is_active(child) and not _has_pending_apps(child):
                entitlements[child.path] = self._zero(child)
                deactivated.append(child.path)
        # DeactivatedLeafQueuesByLabel: the deactivated leaves count at the template's absolute capacity
        total_deactivated = 0.0
        for _ in deactivated:
            total_deactivated = f32(total_deactivated + template_abs)
        available = f32(
            f32(f32(parent.abs_cap - self.get_absolute_activated_child_queue_capacity()) + total_deactivated) + EPSILON
        )
        if available >= template_abs:  # canActivateLeafQueues
            apps = _sorted_applications(parent)
            if apps:
                needed = 0
                if template_abs > 0:  # getMaxLeavesToBeActivated
                    needed = min(math.floor(f32(available / template_abs)), len(apps))
                chosen: list[str] = []
                for app in apps:  # getSortedLeafQueues
                    if len(chosen) >= needed:
                        break
                    leaf = app.queue
                    if not self.is_active(leaf) and leaf.path not in deactivated and leaf.path not in chosen:
                        chosen.append(leaf.path)
                for path in chosen:
                    entitlements[path] = self._from_template()
        changes: list[QueueManagementChange] = []
        for path, caps in entitlements.items():
            queue = cs.queues.get(path)
            assert isinstance(queue, LeafQueue)
            changes.append(QueueManagementChange(queue, managed.entitlement(caps)))
        return changes

    def _update_leaf_queue_state(self) -> None:
        """``updateLeafQueueState``: a state for every child leaf, none for leaves gone."""
        paths = [child.path for child in self.managed.queue.children if isinstance(child, LeafQueue)]
        for path in paths:
            self._active.setdefault(path, False)
        for path in [p for p in self._active if p not in paths]:
            del self._active[path]
            log.info(f"{self.managed.queue.path} : Removed queue{path} from leaf queue state from partition ")

    def commit_queue_management_changes(self, cs: CapacityScheduler, changes: list[QueueManagementChange]) -> None:
        """``commitQueueManagementChanges``: activate the leaves given a capacity, deactivate the others (their
        configured minimum resource becomes the cluster resource times 0, i.e. none)."""
        for change in changes:
            leaf = change.queue
            if change.template.capacities.capacity > 0:
                if not self.is_active(leaf):
                    self._activate(leaf)
            elif self.is_active(leaf):
                merge_capacities(cs, leaf, change.template, self.managed.template)
                leaf.conf_min_m = leaf.conf_min_v = 0
                self._deactivate(leaf)


def _has_pending_apps(leaf: LeafQueue) -> bool:
    """``hasPendingApps``: ``getNumApplications() > 0`` (pending, active and non-runnable application attempts)."""
    return bool(leaf.active or leaf.pending or leaf.non_runnable)


def _sorted_applications(parent: ParentQueue) -> list:  # type: ignore[type-arg]
    """``getSortedPendingApplications``: every child's applications (``getAllApplications``) in the scheduler's
    application order (by application id)."""
    apps = []
    for child in parent.children:
        if isinstance(child, LeafQueue):
            apps.extend(child.pending)
            apps.extend(child.active)
    apps.sort(key=lambda a: (a.attempt_id.application_id.cluster_timestamp, a.attempt_id.application_id.id))
    return apps


def merge_capacities(
    cs: CapacityScheduler, leaf: LeafQueue, entitlement: AutoCreatedLeafQueueConfig, quotas: AutoCreatedLeafQueueConfig
) -> None:
    """``AutoCreatedLeafQueue.mergeCapacities``: the four capacities, then the effective minimum (an active
    absolute-mode leaf: the template's configured minimum; else cluster x absolute capacity) and maximum."""
    caps = entitlement.capacities
    leaf.capacity, leaf.max_capacity = caps.capacity, caps.max_capacity
    leaf.abs_cap, leaf.abs_max = caps.abs_cap, caps.abs_max
    ctx = cs.context
    cm, cv = ctx.cluster_m, ctx.cluster_v
    if leaf.absolute and leaf.abs_cap > 0:
        leaf.eff_min_m, leaf.eff_min_v = quotas.min_m, quotas.min_v
    else:
        leaf.eff_min_m, leaf.eff_min_v = _multiply(cm, cv, leaf.abs_cap)
    leaf.eff_max_m, leaf.eff_max_v = _multiply(cm, cv, leaf.abs_max)


def _multiply(m: int, v: int, by: float) -> tuple[int, int]:
    """``Resources.multiply``: each value times ``by`` (a float widened to double), truncated."""
    return int(m * by), int(v * by)
