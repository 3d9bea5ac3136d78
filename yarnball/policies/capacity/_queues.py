"""The queue tree: the common queue (``AbstractCSQueue``) and the parent queue (``AbstractParentQueue``).

Capacities follow capacity.md §4: ``absoluteCapacity = capacity x parent.absoluteCapacity`` in Java ``float``,
effective min/max = ``(long)(partition x absolute(Max)Capacity)``, ``usedCapacity = used / max(effectiveMin,
minimumAllocation)``. A queue whose capacity is an absolute resource (``[memory=...,vcores=...]``, Hadoop 3.1+) takes
its effective minimum from that configured resource, scaled down by its parent's ratio when the parent has less than
its children's sum, its effective maximum from its configured (or inherited) maximum, and derives its capacities from
them at every cluster resource update (AbstractCSQueue.updateEffectiveResources,
AbstractParentQueue.calculateEffectiveResourcesAndCapacity).

The parent walk (§3) hands each child ``min(limit, effectiveMax) - used + child.used`` rounded down to the minimum
allocation, serves children in ``PriorityUtilizationQueueOrderingPolicy`` order and returns at most one container
per call.
"""

from __future__ import annotations

import functools
import struct
from typing import TYPE_CHECKING

from yarnball.policies.capacity._calculator import _round_down
from yarnball.policies.capacity._context import SKIP_QUEUE_LIMIT, CSAssignment, ResourceLimits, SchedulerContext
from yarnball.policies.scheduler._acl import AccessControlList, QueueACL, QueueState
from yarnball.protocols import Resource
from yarnball.protocols import keys as k

if TYPE_CHECKING:
    from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration
    from yarnball.policies.capacity._state import SchedulerNode

__all__ = ["CSQueue", "ParentQueue", "f32"]

_F32 = struct.Struct("f")


def f32(x: float) -> float:
    """Round to Java ``float`` (Hadoop keeps capacities and many factors as 32-bit floats)."""
    return _F32.unpack(_F32.pack(x))[0]


def java_long(x: float) -> int:
    """Java's ``(long)`` cast of a finite, non-negative float product (toward zero)."""
    return int(x) if x == x else 0


def java_int(x: float) -> int:
    """Java's ``(int)`` cast of a float: toward zero, NaN -> 0, saturating at the int range (a user-limit-factor
    of Float.MAX_VALUE makes Hadoop's product Infinity, which casts to Integer.MAX_VALUE)."""
    if x != x:
        return 0
    if x >= 2147483647.0:
        return 2147483647
    if x <= -2147483648.0:
        return -2147483648
    return int(x)


class CSQueue:
    """State and limits common to parent and leaf queues."""

    __slots__ = (
        "abs_cap",
        "abs_max",
        "absolute",
        "acls",
        "allocated_by_locality",
        "capacity",
        "children",
        "conf_max_m",
        "conf_max_v",
        "conf_min_m",
        "conf_min_v",
        "dynamic",
        "eff_max_m",
        "eff_max_v",
        "eff_min_m",
        "eff_min_v",
        "is_leaf",
        "last_submitted_ms",
        "max_alloc_m",
        "max_alloc_v",
        "max_capacity",
        "max_parallel_apps",
        "name",
        "normalized_weight",
        "num_applications",
        "num_containers",
        "parent",
        "path",
        "pending_m",
        "pending_v",
        "priority",
        "reserved_m",
        "reserved_v",
        "runnable_apps",
        "state",
        "used_m",
        "used_v",
        "weight",
    )

    def __init__(self, conf: CapacitySchedulerConfiguration, path: str, parent: ParentQueue | None) -> None:
        self.path = path
        self.name = path.rsplit(".", 1)[-1]
        self.parent = parent
        self.children: list[CSQueue] = []
        self.is_leaf = False
        if parent is None:
            self.capacity = 1.0
            self.max_capacity = 1.0
            self.abs_cap = 1.0
            self.abs_max = 1.0
        else:
            self.capacity = f32(f32(conf.get_capacity(path)) / 100.0)
            self.max_capacity = f32(f32(conf.get_maximum_capacity(path)) / 100.0)
            # CSQueueUtils.updateAbsoluteCapacitiesByNodeLabels (float products)
            self.abs_cap = f32(self.capacity * parent.abs_cap)
            self.abs_max = f32(self.max_capacity * parent.abs_max)
        # Weight mode (Hadoop 3.3+, QueueCapacities.getWeight / getNormalizedWeight): -1 = no weight configured; the
        # normalized weight (weight / sum of the siblings' weights) is set by the parent at every cluster update.
        self.weight = conf.get_weight(path)
        self.normalized_weight = 0.0
        # A queue created at run time (auto-queue-creation v2, AbstractCSQueue.isDynamicQueue), and the virtual time
        # of its creation or last submission (AbstractCSQueue.getLastSubmittedTimestamp, for its auto deletion).
        self.dynamic = False
        self.last_submitted_ms = 0
        # AbstractCSQueue.updateCapacityConfigType / updateConfigurableResourceLimits: the mode, and the configured
        # minimum and maximum resources ((0, 0) = Resources.none()). A queue with a minimum but no maximum inherits
        # its parent's configured maximum. Root's effective resources are always the cluster's.
        self.absolute = parent is not None and conf.is_absolute_resource(path)
        self.conf_min_m, self.conf_min_v = conf.get_minimum_resource_requirement(path)
        self.conf_max_m, self.conf_max_v = conf.get_maximum_resource_requirement(path)
        if (
            parent is not None
            and self.conf_max_m == 0
            and self.conf_max_v == 0
            and (self.conf_min_m != 0 or self.conf_min_v != 0)
        ):
            self.conf_max_m, self.conf_max_v = parent.conf_max_m, parent.conf_max_v
        state = conf.get_state(path)
        # AbstractCSQueue.initializeQueueState: a STOPPED parent stops its children.
        if parent is not None and parent.state == QueueState.STOPPED:
            state = QueueState.STOPPED
        self.state: QueueState = state
        self.priority = conf.get_priority(path)
        self.acls: dict[QueueACL, AccessControlList] = {acl: conf.get_acl(path, acl) for acl in QueueACL}
        max_alloc = conf.get_maximum_allocation(path)
        self.max_alloc_m = max_alloc.memory_mb
        self.max_alloc_v = max_alloc.vcores
        self.used_m = self.used_v = 0
        self.reserved_m = self.reserved_v = 0
        self.pending_m = self.pending_v = 0
        self.eff_min_m = self.eff_min_v = 0
        self.eff_max_m = self.eff_max_v = 0
        self.num_containers = 0
        # QueueMetrics.aggregate{NodeLocal,RackLocal,OffSwitch}ContainersAllocated, indexed by NODE_LOCAL, RACK_LOCAL,
        # OFF_SWITCH: counted on every allocation, never decremented (incrNodeTypeAggregations, parents included).
        self.allocated_by_locality: list[int] = [0, 0, 0]
        self.num_applications = 0
        # max-parallel-apps (the queue's, else the global default: not inherited, but every ancestor's limit is
        # checked too, CSMaxRunningAppsEnforcer), and a parent's count of runnable attempts below it
        maximum = conf.get_max_parallel_apps(path)
        self.max_parallel_apps = maximum if maximum is not None else k.DEFAULT_MAX_PARALLEL_APPLICATIONS
        self.runnable_apps = 0

    def num_runnable_apps(self) -> int:
        """``getNumRunnableApps``: a parent's count of runnable attempts in its leaves (a leaf counts its own)."""
        return self.runnable_apps

    # -- capacities --------------------------------------------------------------------------------------------
    def update_effective_resources(self, ctx: SchedulerContext) -> None:
        """``updateEffectiveResources``: percentage mode takes truncating products of the partition resource;
        absolute mode its configured resources (below); root the whole partition."""
        cm, cv = ctx.cluster_m, ctx.cluster_v
        parent = self.parent
        if parent is None:
            self.eff_min_m, self.eff_min_v, self.eff_max_m, self.eff_max_v = cm, cv, cm, cv
        elif self.absolute:
            self._update_absolute_effective_resources(ctx, parent)
        else:
            # AbstractCSQueue.updateAbsoluteCapacities -> CSQueueUtils.updateAbsoluteCapacitiesByNodeLabels: the
            # larger of the capacity and the normalized weight (one of them is 0) times the parent's, each set only
            # when positive. For a percentage queue under percentage parents this is the value set at construction.
            share = self.capacity if self.capacity >= self.normalized_weight else self.normalized_weight
            if share > 0:
                self.abs_cap = f32(share * parent.abs_cap)
            if self.max_capacity > 0:
                self.abs_max = f32(self.max_capacity * parent.abs_max)
            self.eff_min_m, self.eff_min_v = int(cm * self.abs_cap), int(cv * self.abs_cap)
            self.eff_max_m, self.eff_max_v = int(cm * self.abs_max), int(cv * self.abs_max)

    def _update_absolute_effective_resources(self, ctx: SchedulerContext, parent: ParentQueue) -> None:
        """AbstractCSQueue.updateEffectiveResources, ABSOLUTE_RESOURCE branch, then
        deriveCapacityFromAbsoluteConfigurations (Hadoop 3.4)."""
        rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
        # createNormalizedMinResource: (long) (configured * ratio) in Java float arithmetic, per resource type for
        # which the parent computed a ratio (only when its children's configured sum exceeds what it has).
        rm, rv = parent.min_ratio_m, parent.min_ratio_v
        self.eff_min_m = self.conf_min_m if rm < 0 else java_long(f32(f32(float(self.conf_min_m)) * rm))
        self.eff_min_v = self.conf_min_v if rv < 0 else java_long(f32(f32(float(self.conf_min_v)) * rv))
        # getOrInheritMaxResource: min(configured max, parent's configured max or, when it has none, the parent's
        # effective max); no configured max inherits the parent's.
        pm, pv = parent.conf_max_m, parent.conf_max_v
        if pm == 0 and pv == 0:
            pm, pv = parent.eff_max_m, parent.eff_max_v
        if self.conf_max_m == 0 and self.conf_max_v == 0:
            self.eff_max_m, self.eff_max_v = pm, pv
        else:
            self.eff_max_m, self.eff_max_v = rc.min(cm, cv, self.conf_max_m, self.conf_max_v, pm, pv)
        # deriveCapacityFromAbsoluteConfigurations: capacities for metrics, ordering and limits (an infinite ratio,
        # a parent with nothing, reads 0).
        self.capacity = f32(rc.divide(cm, cv, self.eff_min_m, self.eff_min_v, parent.eff_min_m, parent.eff_min_v))
        self.max_capacity = f32(
            rc.divide(cm, cv, self.eff_max_m, self.eff_max_v, parent.eff_max_m, parent.eff_max_v)
        )
        self.abs_cap = f32(self.capacity * parent.abs_cap)
        self.abs_max = f32(self.max_capacity * parent.abs_max)

    # Read-only views (QueueResourceQuotas / CSQueue getters), for reports and tests.
    @property
    def configured_min_resource(self) -> Resource:
        """``getQueueResourceQuotas().getConfiguredMinResource()``: the absolute capacity, none (0, 0) if unset."""
        return Resource(self.conf_min_m, self.conf_min_v)

    @property
    def configured_max_resource(self) -> Resource:
        """``getConfiguredMaxResource()``: the absolute maximum-capacity (or the parent's, inherited)."""
        return Resource(self.conf_max_m, self.conf_max_v)

    @property
    def effective_min_resource(self) -> Resource:
        """``getEffectiveMinResource()`` (``getEffectiveCapacity("")``)."""
        return Resource(self.eff_min_m, self.eff_min_v)

    @property
    def effective_max_resource(self) -> Resource:
        """``getEffectiveMaxResource()``."""
        return Resource(self.eff_max_m, self.eff_max_v)

    @property
    def capacity_config_type(self) -> str:
        """``getCapacityConfigType()``: ``ABSOLUTE_RESOURCE`` or ``PERCENTAGE``."""
        return "ABSOLUTE_RESOURCE" if self.absolute else "PERCENTAGE"

    def used_capacity(self, ctx: SchedulerContext) -> float:
        """``usedCapacity = rc.divide(partition, used, max(effectiveMin, minimumAllocation))``."""
        rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
        gm, gv = rc.max(cm, cv, self.eff_min_m, self.eff_min_v, ctx.min_m, ctx.min_v)
        return rc.divide(cm, cv, self.used_m, self.used_v, gm, gv)

    def absolute_used_capacity(self, ctx: SchedulerContext) -> float:
        cm, cv = ctx.cluster_m, ctx.cluster_v
        return ctx.rc.divide(cm, cv, self.used_m, self.used_v, cm, cv)

    def can_assign_to_this_queue(
        self, ctx: SchedulerContext, limits: ResourceLimits, unreservable_m: int, unreservable_v: int
    ) -> bool:
        """``canAssignToThisQueue``: sets ``limits.headroom`` and refuses when ``used >= currentLimit``."""
        rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
        um, uv = self.used_m, self.used_v
        if not rc.dominant:  # fast path: memory decides
            lm, lv = (
                (self.eff_max_m, self.eff_max_v)
                if self.eff_max_m <= limits.limit_m
                else (limits.limit_m, limits.limit_v)
            )
            limits.headroom_m = lm - um
            limits.headroom_v = lv - uv
            if um < lm:
                return True
            if ctx.continue_looking and unreservable_m > 0:
                return um - unreservable_m < lm
            return False
        lm, lv = rc.min(cm, cv, self.eff_max_m, self.eff_max_v, limits.limit_m, limits.limit_v)
        limits.headroom_m = lm - um
        limits.headroom_v = lv - uv
        if rc.compare(cm, cv, um, uv, lm, lv) >= 0:
            # reservations-continue-look-all-nodes: unreserving elsewhere may bring us back under the limit.
            if ctx.continue_looking and rc.is_positive(unreservable_m, unreservable_v):
                return rc.compare(cm, cv, um - unreservable_m, uv - unreservable_v, lm, lv) < 0
            return False
        return True

    def has_access(self, acl: QueueACL, user: str, groups: tuple[str, ...] = ()) -> bool:
        """``ConfiguredYarnAuthorizer.checkPermission``: this queue's ACL, else the parent's, up to root."""
        queue: CSQueue | None = self
        while queue is not None:
            if queue.acls[acl].is_user_allowed(user, groups):
                return True
            queue = queue.parent
        return False

    def queue_user_acl_info(self, user: str, groups: tuple[str, ...] = ()) -> list[tuple[str, list[QueueACL]]]:
        """``getQueueUserAclInfo(user)``: (queue path, the ACLs ``user`` holds there) for this queue, then its
        descendants in order (ParentQueue.getQueueUserAclInfo / LeafQueue.getQueueUserAclInfo)."""
        held = [acl for acl in QueueACL if self.has_access(acl, user, groups)]
        out: list[tuple[str, list[QueueACL]]] = [(self.path, held)]
        for child in self.children:
            out.extend(child.queue_user_acl_info(user, groups))
        return out

    def child_limits(self, ctx: SchedulerContext, child: CSQueue, limits: ResourceLimits, net: bool) -> ResourceLimits:
        """``getResourceLimitsOfChild``: ``min(limit, effectiveMax) [- blocked] - used + child.used``, rounded down."""
        rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
        if not rc.dominant:
            # The same for the memory-only calculator, inline (it runs once per queue level per container).
            lm, lv = limits.limit_m, limits.limit_v
            if self.eff_max_m < lm:
                lm, lv = self.eff_max_m, self.eff_max_v
            limits.limit_m, limits.limit_v = lm, lv
            if net:
                lm -= limits.blocked_m
                lv -= limits.blocked_v
            # _round_down, inline: floor division for non-negative values, Java's truncation otherwise
            out_m, step = lm - self.used_m + child.used_m, ctx.min_m
            if step > 0:
                out_m = (out_m // step) * step if out_m >= 0 else _round_down(out_m, step)
            out_v, step = lv - self.used_v + child.used_v, ctx.min_v
            if step > 0:
                out_v = (out_v // step) * step if out_v >= 0 else _round_down(out_v, step)
            return ResourceLimits(out_m, out_v)
        lm, lv = rc.min(cm, cv, limits.limit_m, limits.limit_v, self.eff_max_m, self.eff_max_v)
        limits.limit_m, limits.limit_v = lm, lv
        if net:
            lm -= limits.blocked_m
            lv -= limits.blocked_v
        cl_m, cl_v = rc.round_down(
            lm - self.used_m + child.used_m, lv - self.used_v + child.used_v, ctx.min_m, ctx.min_v
        )
        return ResourceLimits(cl_m, cl_v)

    def update_cluster_resource(self, ctx: SchedulerContext, limits: ResourceLimits) -> None:
        raise NotImplementedError

    def assign(self, ctx: SchedulerContext, node: SchedulerNode, limits: ResourceLimits) -> CSAssignment | None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.path}>"


def _priority_utilization_cmp(a: tuple[float, float, int, CSQueue], b: tuple[float, float, int, CSQueue]) -> int:
    # PriorityUtilizationQueueOrderingPolicy.PriorityQueueComparator (default partition).
    abs1, used1, p1, q1 = a
    abs2, used2, p2, q2 = b
    if (abs1 > 0) != (abs2 > 0):
        return -1 if abs1 > 0 else 1
    if p1 == p2:
        res = (used1 > used2) - (used1 < used2)
    elif (used1 < 1.0 and used2 < 1.0) or (used1 >= 1.0 and used2 >= 1.0):
        res = -1 if p1 > p2 else 1
    else:
        res = (used1 > used2) - (used1 < used2)
    if res == 0:
        m1, v1, m2, v2 = q1.conf_min_m, q1.conf_min_v, q2.conf_min_m, q2.conf_min_v
        if (m1 != 0 or v1 != 0) and (m2 != 0 or v2 != 0):
            # both have configured minimum resources: minEffRes2.compareTo(minEffRes1), the larger first
            return (m1 < m2) - (m1 > m2) if m1 != m2 else (v1 < v2) - (v1 > v2)
        res = (abs1 < abs2) - (abs1 > abs2)  # larger absolute capacity first
    return res


class ParentQueue(CSQueue):
    """``AbstractParentQueue``: serves its children in utilization order, one container per call."""

    __slots__ = ("min_ratio_m", "min_ratio_v", "respect_priority", "with_configured_min")

    def __init__(self, conf: CapacitySchedulerConfiguration, path: str, parent: ParentQueue | None) -> None:
        super().__init__(conf, path, parent)
        policy = conf.get_queue_ordering_policy(path)
        self.respect_priority = policy == "priority-utilization"
        # effectiveMinRatioPerResource (memory, vcores); -1 = no ratio for that type (no scaling down)
        self.min_ratio_m = -1.0
        self.min_ratio_v = -1.0
        # Whether some child has a configured minimum resource (the ordering policy's tie-break then compares them)
        self.with_configured_min = False

    def ordered_children(self, ctx: SchedulerContext) -> list[CSQueue]:
        """A sorted copy of the children (stable: ties keep the ``queues`` order)."""
        children = self.children
        if len(children) < 2:
            return children
        if self.with_configured_min:
            return self._ordered_children_absolute(ctx)
        decorated: list[tuple[float, float, int, CSQueue]] = []
        if not ctx.rc.dominant and not self.respect_priority:
            # Fast path of the same comparator for the memory-only calculator.
            # The child's index as the last element keeps ties in `queues` order, like the stable sort on a key.
            min_m, cm = ctx.min_m, ctx.cluster_m
            fast: list[tuple[int, float, float, int]] = []
            i = 0
            for q in children:
                ab = q.abs_cap
                if ab > 0:
                    g = q.eff_min_m if q.eff_min_m >= min_m else min_m
                    fast.append((0, q.used_m / g if g else 0.0, -ab, i))
                else:
                    fast.append((1, q.used_m / cm if cm else 0.0, -ab, i))
                i += 1
            fast.sort()
            return [children[d[3]] for d in fast]
        for q in children:
            ab = q.abs_cap
            used = q.used_capacity(ctx) if ab > 0 else q.absolute_used_capacity(ctx)
            decorated.append((ab, used, q.priority if self.respect_priority else 0, q))
        if self.respect_priority:
            decorated.sort(key=functools.cmp_to_key(_priority_utilization_cmp))
        else:
            # Same comparator without priorities, as a key: queues with a guarantee first, then the least
            # relatively used, then the larger absolute capacity.
            decorated.sort(key=lambda d: (0 if d[0] > 0 else 1, d[1], -d[0]))
        return [d[3] for d in decorated]

    def _ordered_children_absolute(self, ctx: SchedulerContext) -> list[CSQueue]:
        """The same order where children have configured minimum resources: PriorityQueueComparator's tie-break
        compares two configured minimums (the larger first, ``Resource.compareTo``: memory, then vcores) before it
        falls back to the absolute capacities."""
        decorated: list[tuple[float, float, int, CSQueue]] = []
        for q in self.children:
            ab = q.abs_cap
            used = q.used_capacity(ctx) if ab > 0 else q.absolute_used_capacity(ctx)
            decorated.append((ab, used, q.priority if self.respect_priority else 0, q))
        decorated.sort(key=functools.cmp_to_key(_priority_utilization_cmp))
        return [d[3] for d in decorated]

    def update_cluster_resource(self, ctx: SchedulerContext, limits: ResourceLimits) -> None:
        # AbstractParentQueue.updateClusterResource -> calculateEffectiveResourcesAndCapacity: this queue's own
        # effective resources first, then the ratio its absolute children scale their minimums by
        # (recalculateEffectiveMinRatio), then the children. In weight mode (Hadoop 3.3 ParentQueue
        # .updateClusterResource) root's normalized weight is 1 and the children's weights are normalized first.
        if self.parent is None and self.weight > 0:
            self.normalized_weight = 1.0
        self.update_effective_resources(ctx)
        self._normalize_child_weights()
        self._recalculate_effective_min_ratio(ctx)
        for child in self.children:
            child.update_cluster_resource(ctx, self.child_limits(ctx, child, limits, net=False))

    def _normalize_child_weights(self) -> None:
        """ParentQueue.updateClusterResource (Hadoop 3.3, "Normalize weight of children"): when the children are in
        weight mode, each one's normalized weight is ``weight / Σ max(0, weight)`` in Java float arithmetic; a sum
        of 0 leaves them unset (0)."""
        children = self.children
        weighted = False
        for child in children:
            if child.weight >= 0:
                weighted = True
                break
        if not weighted:
            return
        total = 0.0
        for child in children:
            total = f32(total + (child.weight if child.weight > 0 else 0.0))
        if abs(total) > 1e-6:
            for child in children:
                child.normalized_weight = f32(f32(child.weight) / total)

    def _recalculate_effective_min_ratio(self, ctx: SchedulerContext) -> None:
        """AbstractParentQueue.recalculateEffectiveMinRatio: when this queue has less than its children's configured
        minimum resources (``Resources.lessThan`` under the calculator: memory only for the default one), each
        resource type gets the ratio ``(float) have / Σ configured``; otherwise none, and the children keep their
        configured minimums. Root compares the cluster resource (and only a non-empty one)."""
        rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
        sm = sv = 0
        for child in self.children:
            sm += child.conf_min_m
            sv += child.conf_min_v
        self.with_configured_min = sm != 0 or sv != 0
        self.min_ratio_m = self.min_ratio_v = -1.0
        if not self.with_configured_min:
            return
        if self.parent is None:
            if cm == 0 and cv == 0:
                return
            nm, nv = cm, cv
        else:
            nm, nv = self.eff_min_m, self.eff_min_v
        if rc.compare(cm, cv, nm, nv, sm, sv) >= 0:
            return
        if sm != 0:
            self.min_ratio_m = f32(float(nm) / float(sm))
        if sv != 0:
            self.min_ratio_v = f32(float(nv) / float(sv))

    def assign(self, ctx: SchedulerContext, node: SchedulerNode, limits: ResourceLimits) -> CSAssignment | None:
        rc = ctx.rc
        if rc.dominant:
            if not rc.is_positive(self.pending_m, self.pending_v):
                return None
            # canAssign(node): no reservation on the node and room for a minimum allocation.
            if node.reserved is not None or not rc.fits_in(ctx.min_m, ctx.min_v, node.unalloc_m, node.unalloc_v):
                return None
        elif self.pending_m <= 0 or node.reserved is not None or ctx.min_m > node.unalloc_m:
            return None  # the same checks, memory only
        if not self.can_assign_to_this_queue(ctx, limits, self.reserved_m, self.reserved_v):
            return None
        result: CSAssignment | None = None
        children = self.children
        for child in children if len(children) < 2 else self.ordered_children(ctx):
            cl = self.child_limits(ctx, child, limits, True)
            a = child.assign(ctx, node, cl)
            if a is None:
                continue
            if a.mem > 0 or (rc.dominant and a.vc > 0):  # rc.is_positive
                return a
            if a.skipped == SKIP_QUEUE_LIMIT:
                if result is None or result.skipped != SKIP_QUEUE_LIMIT:
                    result = a
                # The blocked child's headroom is not offered to later siblings (addBlockedHeadroom).
                if child.is_leaf:
                    bm, bv = cl.headroom_m, cl.headroom_v
                else:
                    bm, bv = cl.blocked_m, cl.blocked_v
                limits.blocked_m += max(bm, 0)
                limits.blocked_v += max(bv, 0)
        return result
