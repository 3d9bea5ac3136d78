"""The leaf queue (``AbstractLeafQueue`` + ``UsersManager``): applications, users, limits and the leaf walk.

* Applications are kept apart as *pending* (waiting for AM-limit room, §6.3) and *active* (in the ordering policy).
  FIFO order (higher application priority, then submission order) is kept sorted on insertion, so a heartbeat never
  sorts; the fair policy re-sorts only after usage changed.
* FIFO leaves also keep ``schedulable``: the active apps with outstanding asks, in the same order. The leaf walk skips
  apps without asks anyway (the allocator returns SKIP_OTHER for them, touching nothing), so walking this list instead
  of every active app gives the same decisions without an O(apps) scan per heartbeat (about 930 running apps at
  10,000 nodes, most of them with every container already allocated).
* The user limit (§7) is recomputed only when the users' state version changes (any user usage change or
  activation), exactly like ``UsersManager``'s cache, and the sums it needs are maintained incrementally; the
  computations themselves are in _usersmanager.py.
"""

from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING

from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import _usersmanager
from yarnball.policies.capacity._allocator import assign_app, assign_reserved
from yarnball.policies.capacity._context import (
    SKIP_OTHER,
    SKIP_QUEUE_LIMIT,
    CSAssignment,
    ResourceLimits,
    SchedulerContext,
)
from yarnball.policies.capacity._queues import CSQueue, ParentQueue, f32, java_int
from yarnball.policies.capacity._state import SchedulerApp, SchedulerNode, User

if TYPE_CHECKING:
    from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration

__all__ = ["LeafQueue"]

log = get_logger(__name__)


class LeafQueue(CSQueue):
    """A leaf: holds applications and users, enforces user limits, AM limits and maximum applications."""

    __slots__ = (
        "active",
        "active_used_m",
        "active_used_v",
        "active_users",
        "active_weights",
        "am_limit_m",
        "am_limit_v",
        "am_used_m",
        "am_used_v",
        "conf",
        "cur_limit_m",
        "cur_limit_v",
        "eff_max_norm_m",
        "eff_max_norm_v",
        "fair",
        "fair_dirty",
        "max_am_percent",
        "max_apps",
        "max_apps_per_user",
        "non_runnable",
        "pending",
        "schedulable",
        "size_based_weight",
        "ul_cache",
        "ul_memo",
        "ul_static",
        "ul_version",
        "user_limit",
        "user_limit_factor",
        "users",
        "users_version",
    )

    def __init__(self, conf: CapacitySchedulerConfiguration, path: str, parent: ParentQueue | None) -> None:
        super().__init__(conf, path, parent)
        self.conf = conf
        self.is_leaf = True
        self.user_limit = f32(conf.get_user_limit(path))  # UsersManager keeps a Java float
        self.user_limit_factor = conf.get_user_limit_factor(path)
        self.max_am_percent = conf.get_maximum_am_resource_percent(path)
        self.fair = conf.get_ordering_policy(path) == "fair"
        self.size_based_weight = self.fair and conf.get_enable_size_based_weight(path)
        self.fair_dirty = False
        self.users: dict[str, User] = {}
        self.active: list[SchedulerApp] = []
        self.pending: list[SchedulerApp] = []
        # attempts held back by max-parallel-apps (AbstractLeafQueue.nonRunnableApps), oldest first
        self.non_runnable: list[SchedulerApp] = []
        # FIFO only: active apps with outstanding asks, in `active` order (app.order is unique and never changes).
        self.schedulable: list[SchedulerApp] = []
        self.am_used_m = self.am_used_v = 0
        self.am_limit_m = self.am_limit_v = 0
        self.cur_limit_m = self.cur_limit_v = 0
        self.eff_max_norm_m = self.eff_max_norm_v = 0  # normalizeDown(effectiveMax, minAlloc), per cluster update
        self.max_apps = 0
        self.max_apps_per_user = 0
        # UsersManager state: active users (with outstanding asks) and the sum of their usage.
        self.active_users = 0
        self.active_weights = 0.0
        self.active_used_m = self.active_used_v = 0
        self.users_version = 0
        self.ul_version = -1
        self.ul_cache: tuple[int, int] = (0, 0)
        self.ul_static: tuple[int, int, int, int] = (0, 0, 0, 0)  # see update_user_limit_static
        # memory-only user limits by their changing inputs (see computed_user_limit), emptied with ul_static
        self.ul_memo: dict[tuple[int, int, int, float, int, int], tuple[int, int]] = {}

    # -- users -------------------------------------------------------------------------------------------------
    def get_user(self, name: str) -> User:
        user = self.users.get(name)
        if user is None:
            user = self.users[name] = User(name, self.conf.get_user_weight(self.path, name))
        return user

    def user_used_changed(self, user: User, dm: int, dv: int) -> None:
        """Record a change of a user's usage (allocation, reservation, release)."""
        user.used_m += dm
        user.used_v += dv
        if user.apps_with_asks > 0:
            self.active_used_m += dm
            self.active_used_v += dv
        self.users_version += 1
        if self.fair:
            self.fair_dirty = True

    def app_asks_changed(self, app: SchedulerApp, had: bool, has: bool) -> None:
        """``UsersManager.activateApplication`` / ``deactivateApplication`` when an app gains or loses all asks."""
        if had == has:
            return
        if app.is_active and not self.fair:
            if has:
                bisect.insort(self.schedulable, app, key=_order)
            else:
                self._unschedule(app)
        user = app.user
        if has:
            user.apps_with_asks += 1
            if user.apps_with_asks == 1:
                self.active_users += 1
                self.active_weights += user.weight
                self.active_used_m += user.used_m
                self.active_used_v += user.used_v
        else:
            user.apps_with_asks -= 1
            if user.apps_with_asks == 0:
                self.active_users -= 1
                self.active_weights -= user.weight
                self.active_used_m -= user.used_m
                self.active_used_v -= user.used_v
        self.users_version += 1

    def _unschedule(self, app: SchedulerApp) -> None:
        lst = self.schedulable
        i = bisect.bisect_left(lst, app.order, key=_order)
        if i < len(lst) and lst[i] is app:
            del lst[i]

    # -- cluster resource updates ------------------------------------------------------------------------------
    def update_cluster_resource(self, ctx: SchedulerContext, limits: ResourceLimits) -> None:
        self.update_effective_resources(ctx)
        self.eff_max_norm_m, self.eff_max_norm_v = ctx.rc.round_down(
            self.eff_max_m, self.eff_max_v, ctx.min_m, ctx.min_v
        )
        self.update_user_limit_static(ctx)
        self.update_current_limit(ctx, limits)
        self.update_maximum_applications()
        self.users_version += 1
        self.activate_applications(ctx)

    def update_current_limit(self, ctx: SchedulerContext, limits: ResourceLimits) -> None:
        """``updateCurrentResourceLimits``: ``min(normalizeDown(effectiveMax), limit from parent)``."""
        rc = ctx.rc
        nm, nv = self.eff_max_norm_m, self.eff_max_norm_v
        if not rc.dominant:
            if nm <= limits.limit_m:
                self.cur_limit_m, self.cur_limit_v = nm, nv
            else:
                self.cur_limit_m, self.cur_limit_v = limits.limit_m, limits.limit_v
            return
        self.cur_limit_m, self.cur_limit_v = rc.min(
            ctx.cluster_m, ctx.cluster_v, nm, nv, limits.limit_m, limits.limit_v
        )

    def update_maximum_applications(self) -> None:
        """``updateMaximumApplications`` (§6.2), in Java float arithmetic."""
        conf = self.conf
        per_queue = conf.get_maximum_applications_per_queue(self.path)
        global_per_queue = conf.get_global_maximum_applications_per_queue()
        system = conf.get_maximum_system_applications()
        # AbstractLeafQueue.updateMaximumApplications (YARN-10949, Hadoop 3.4): the global per-queue maximum is capped
        # by the system maximum. Hadoop 3.3's LeafQueue.setupQueueConfigs took the global value alone, which is what the
        # 3.3 version of TestApplicationLimits.testApplicationLimitSubmit expects (2 per user in d); trunk's version of
        # that test expects 0, as here (tests/conformance/test_hadoop_application_limits.py).
        base = min(global_per_queue, system) if global_per_queue > 0 else system
        if per_queue < 0:
            # A queue in ABSOLUTE_RESOURCE mode always scales by its (derived) absolute capacity.
            if global_per_queue > 0 and not self.absolute:
                max_apps = base
            else:
                max_apps = java_int(f32(base * self.abs_cap))
        else:
            max_apps = per_queue
        self.max_apps = max_apps
        if self.user_limit_factor == -1:
            self.max_apps_per_user = max_apps
        else:
            # LeafQueue: (int) (maxApplications * (userLimit / 100.0f) * userLimitFactor), a saturating cast
            per_user = java_int(f32(f32(max_apps * f32(self.user_limit / 100.0)) * self.user_limit_factor))
            self.max_apps_per_user = min(max_apps, per_user)

    # -- runtime setters (test and embedding API) ---------------------------------------------------------------
    # Hadoop's @VisibleForTesting LeafQueue setters, used by TestLeafQueue between two assignContainers calls. A
    # running cluster changes these settings through a refresh (CapacityScheduler.reinitialize) instead.
    def set_user_limit(self, ctx: SchedulerContext, percent: float) -> None:
        """``setUserLimit``: ``UsersManager.setUserLimit`` then ``userLimitNeedsRecompute`` (the cached user limits
        are stale; maximum applications per user keep their value until the next cluster resource update)."""
        self.user_limit = f32(percent)
        self.update_user_limit_static(ctx)
        self.users_version += 1

    def set_user_limit_factor(self, ctx: SchedulerContext, factor: float) -> None:
        """``setUserLimitFactor``: ``UsersManager.setUserLimitFactor`` then ``userLimitNeedsRecompute``."""
        self.user_limit_factor = factor
        self.update_user_limit_static(ctx)
        self.users_version += 1

    def set_max_capacity(self, maximum_capacity: float) -> None:
        """``setMaxCapacity`` (a fraction): the maximum and absolute maximum capacity; the effective maximum follows
        at the next cluster resource update (``CapacityScheduler.update_cluster_resource``), as in Hadoop.
        ``CSQueueUtils.checkAbsoluteCapacity`` refuses an absolute maximum below the absolute capacity."""
        parent = self.parent
        absolute_max = f32(maximum_capacity * (parent.abs_max if parent is not None else 1.0))
        if self.abs_cap > absolute_max:
            raise ConfigurationError(
                f"Illegal queue capacity setting (abs-capacity={self.abs_cap}) > "
                f"(abs-maximum-capacity={absolute_max}) for queue=[{self.path}],label=[]"
            )
        self.max_capacity = f32(maximum_capacity)
        self.abs_max = absolute_max

    # -- user limit (§7, UsersManager: _usersmanager.py) ------------------------------------------------------
    def computed_user_limit(self, ctx: SchedulerContext) -> tuple[int, int]:
        """``getComputedResourceLimitForActiveUsers`` (before the per-user weight), cached per users' version."""
        return _usersmanager.computed_user_limit(self, ctx)

    def update_user_limit_static(self, ctx: SchedulerContext) -> None:
        """The parts of the memory-only user limit that change only with the cluster resource."""
        _usersmanager.update_user_limit_static(self, ctx)

    def usage_ratio(self, ctx: SchedulerContext) -> float:
        """``UsersManager.getUsageRatio("")``: the sum of the users' usage shares of the cluster."""
        return _usersmanager.usage_ratio(self, ctx)

    def user_limit_for(self, ctx: SchedulerContext, user: User) -> tuple[int, int]:
        """The per-user limit: ``multiplyAndNormalizeDown(UL, weight(user), minimumAllocation)``."""
        return _usersmanager.user_limit_for(self, ctx, user)

    def headroom(self, ctx: SchedulerContext, user: User, root: CSQueue) -> tuple[int, int]:
        """``getHeadroom`` (§7.1), computed on demand with the current user limit."""
        return _usersmanager.headroom(self, ctx, user, root)

    def total_pending_considering_user_limit(self, ctx: SchedulerContext) -> tuple[int, int]:
        """``getTotalPendingResourcesConsideringUserLimit(cluster, "", false)``."""
        return _usersmanager.total_pending_considering_user_limit(self, ctx)

    # -- AM limits and activation (§6.3) -----------------------------------------------------------------------
    def compute_am_limit(self, ctx: SchedulerContext) -> tuple[int, int]:
        rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
        if rc.dominant:
            # LeafQueue.calculateAndGetAMResourceLimitPerPartition: the current limit when the guarantee fits in it
            # (every resource type), else the guarantee: "nothing less than the queue's guarantee should be used",
            # even when one resource type of the current limit is depleted (TestApplicationLimits
            # .testAMResourceLimitWithDRCAndFullParent). Resources.max by dominant share could pick a limit with less
            # memory than the guarantee.
            if rc.fits_in(self.eff_min_m, self.eff_min_v, self.cur_limit_m, self.cur_limit_v):
                um, uv = self.cur_limit_m, self.cur_limit_v
            else:
                um, uv = self.eff_min_m, self.eff_min_v
        else:
            # The same choice made on memory (fitsIn of the DefaultResourceCalculator); on equal memory Hadoop takes
            # the current limit's vcores, which this calculator never compares.
            um, uv = rc.max(cm, cv, self.eff_min_m, self.eff_min_v, self.cur_limit_m, self.cur_limit_v)
        self.am_limit_m, self.am_limit_v = rc.multiply_and_normalize_up(
            um, uv, self.max_am_percent, ctx.min_m, ctx.min_v
        )
        return self.am_limit_m, self.am_limit_v

    def user_am_limit(self, ctx: SchedulerContext, user: User) -> tuple[int, int]:
        """``getUserAMResourceLimitPerPartition``."""
        rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
        eff_ul = max(self.user_limit / 100.0, 1.0 / max(self.active_users, 1))
        eff_ul_w = min(eff_ul * user.weight, 1.0)
        if self.user_limit_factor == -1:
            by = self.max_am_percent
        else:
            by = self.max_am_percent * eff_ul_w * self.user_limit_factor
        um, uv = rc.multiply_and_normalize_up(self.eff_min_m, self.eff_min_v, by, ctx.min_m, ctx.min_v)
        return rc.min(cm, cv, um, uv, self.am_limit_m, self.am_limit_v)

    def activate_applications(self, ctx: SchedulerContext) -> None:
        """``activateApplications``: move pending attempts into the ordering policy while AM limits allow."""
        # LeafQueue.activateApplications computes the AM limit of every partition first ("AM Resource Limit for
        # accessible labels can be pre-calculated"), so the queue's AMResourceLimit metric is set before any
        # application is submitted and follows cluster resource changes even with nothing pending.
        am_m, am_v = self.compute_am_limit(ctx)
        if not self.pending or (ctx.cluster_m == 0 and ctx.cluster_v == 0):
            return  # CLUSTER_RESOURCE_EMPTY: nothing is activated on an empty cluster
        rc = ctx.rc
        user_am: tuple[int, int] | None = None  # computed once per call with the first app's user (Hadoop)
        for app in list(self.pending):
            blocked_ok = len(self.active) >= 1 and rc.is_positive(self.am_used_m, self.am_used_v)
            if not rc.fits_in(app.am_m + self.am_used_m, app.am_v + self.am_used_v, am_m, am_v):
                if blocked_ok:
                    continue  # QUEUE_AM_RESOURCE_LIMIT_EXCEED: later (smaller) AMs may still fit
                log.warning(
                    "maximum-am-resource-percent is insufficient to start a single application in queue,"
                    " it is likely set too low. skipping enforcement to allow at least one application"
                    " to start",
                    queue=self.path,
                )
            user = app.user
            if user_am is None:
                user_am = self.user_am_limit(ctx, user)
            if not rc.fits_in(app.am_m + user.am_used_m, app.am_v + user.am_used_v, user_am[0], user_am[1]):
                if blocked_ok:
                    continue  # USER_AM_RESOURCE_LIMIT_EXCEED
                log.warning(
                    "maximum-am-resource-percent is insufficient to start a single application in queue"
                    " for user, it is likely set too low. skipping enforcement to allow at least one"
                    " application to start",
                    queue=self.path,
                    user=user.name,
                )
            self.pending.remove(app)
            user.pending_apps -= 1
            user.active_apps += 1
            self.am_used_m += app.am_m
            self.am_used_v += app.am_v
            user.am_used_m += app.am_m
            user.am_used_v += app.am_v
            app.is_active = True
            bisect.insort(self.active, app, key=_order)
            if not self.fair and (app.pending_m > 0 or app.pending_v > 0):
                bisect.insort(self.schedulable, app, key=_order)
            self.fair_dirty = True
            log.debug("application activated", attempt=str(app.attempt_id), queue=self.path)

    def num_runnable_apps(self) -> int:
        """``getNumRunnableApps``: the attempts not held back by max-parallel-apps (pending and active)."""
        return len(self.active) + len(self.pending)

    def submit_attempt(self, ctx: SchedulerContext, app: SchedulerApp) -> None:
        """``submitApplicationAttempt``: the attempt waits in the pending list, then activation runs; one that is not
        runnable (max-parallel-apps) waits apart, unknown to its user's counts, until the enforcer submits it again."""
        if not app.runnable:
            self.non_runnable.append(app)
            log.info(f"Application attempt {app.attempt_id} is not runnable, parallel limit reached")
            return
        app.user.pending_apps += 1
        bisect.insort(self.pending, app, key=_order)
        self.activate_applications(ctx)

    def finish_attempt(self, ctx: SchedulerContext, app: SchedulerApp) -> None:
        """``finishApplicationAttempt``: forget the attempt, release its AM usage, re-run activation."""
        user = app.user
        if app.is_active:
            self.active.remove(app)
            if not self.fair:
                self._unschedule(app)
            user.active_apps -= 1
            self.am_used_m -= app.am_m
            self.am_used_v -= app.am_v
            user.am_used_m -= app.am_m
            user.am_used_v -= app.am_v
            app.is_active = False
        elif app in self.pending:
            self.pending.remove(app)
            user.pending_apps -= 1
        elif app in self.non_runnable:
            # AbstractLeafQueue.removeApplicationAttempt also calls user.finishApplication(false) for it, taking one
            # from the user's pending applications it was never counted in (the count goes negative); not copied.
            self.non_runnable.remove(app)
        # LeafQueue.removeApplicationAttempt: a user left without applications is removed (UsersManager.removeUser;
        # TestContainerResizing.testIncreaseContainerUnreservedWhenApplicationCompleted). yarnball also keeps a user
        # whose containers outlive the attempt (kept across attempts), so that its usage is not lost.
        if user.total_applications == 0 and user.used_m == 0 and user.used_v == 0 and self.users.get(user.name) is user:
            del self.users[user.name]
        self.activate_applications(ctx)

    def reorder_if_fair(self) -> None:
        if self.fair and self.fair_dirty:
            self.fair_dirty = False
            if self.size_based_weight:

                def key(a: SchedulerApp) -> tuple:
                    weight = math.log1p(a.pending_m + a.used_m) / math.log(2)
                    return (a.used_m / weight if weight else 0.0, a.order)

                self.active.sort(key=key)
            else:
                self.active.sort(key=_fair_order)

    # -- the leaf walk (§5) ------------------------------------------------------------------------------------
    def can_assign_to_user(self, ctx: SchedulerContext, app: SchedulerApp, limits: ResourceLimits) -> bool:
        """``canAssignToUser``: strict ``used > limit`` refuses (the current ask is not added)."""
        ul_m, ul_v = _usersmanager.user_limit_for(self, ctx, app.user)
        return self.can_assign_to_user_within(ctx, app, ul_m, ul_v, limits)

    def can_assign_to_user_within(
        self, ctx: SchedulerContext, app: SchedulerApp, ul_m: int, ul_v: int, limits: ResourceLimits
    ) -> bool:
        """``canAssignToUser(cluster, user, limit, app, partition, limits)`` with a given user limit (Hadoop's
        signature; TestReservations.testAssignToUser passes one): sets ``limits``' amount needed to unreserve."""
        rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v
        user = app.user
        limits.unres_m = limits.unres_v = 0
        if rc.compare(cm, cv, user.used_m, user.used_v, ul_m, ul_v) > 0:
            if (
                ctx.continue_looking
                and rc.compare(cm, cv, user.used_m - app.reserved_m, user.used_v - app.reserved_v, ul_m, ul_v) <= 0
            ):
                limits.unres_m = user.used_m - ul_m
                limits.unres_v = user.used_v - ul_v
                return True
            return False
        return True

    def assign(self, ctx: SchedulerContext, node: SchedulerNode, limits: ResourceLimits) -> CSAssignment | None:
        rc = ctx.rc
        if rc.dominant:
            self.update_current_limit(ctx, limits)
            if not rc.is_positive(self.pending_m, self.pending_v):
                return None
            return self._walk(ctx, node, limits)
        # updateCurrentResourceLimits and the pending check, memory only (as update_current_limit does).
        if self.eff_max_norm_m <= limits.limit_m:
            self.cur_limit_m, self.cur_limit_v = self.eff_max_norm_m, self.eff_max_norm_v
        else:
            self.cur_limit_m, self.cur_limit_v = limits.limit_m, limits.limit_v
        if self.pending_m <= 0:
            return None
        return self._walk(ctx, node, limits)

    def _walk(self, ctx: SchedulerContext, node: SchedulerNode, limits: ResourceLimits) -> CSAssignment | None:
        rc = ctx.rc
        dominant = rc.dominant
        if self.fair:
            self.reorder_if_fair()
            apps = self.active
        else:
            apps = self.schedulable
        need_queue_check = True
        for app in apps:
            if app.pending_m <= 0 and app.pending_v <= 0:
                continue  # no outstanding asks: the allocator would skip it (SKIP_OTHER)
            if need_queue_check:
                if not self.can_assign_to_this_queue(ctx, limits, app.reserved_m, app.reserved_v):
                    return None
                if not ctx.continue_looking or (app.reserved_m == 0 and app.reserved_v == 0):
                    need_queue_check = False
            if dominant:
                if not self.can_assign_to_user(ctx, app, limits):
                    continue  # "User capacity has reached its maximum limit."
            else:
                # can_assign_to_user, memory only: the user limit comes from the users-version cache.
                user = app.user
                if self.ul_version == self.users_version:
                    ul_m, ul_v = self.ul_cache
                else:
                    ul_m, ul_v = _usersmanager.computed_user_limit(self, ctx)
                if user.weight != 1.0:
                    ul_m, ul_v = rc.multiply_and_normalize_down(ul_m, ul_v, user.weight, ctx.min_m, ctx.min_v)
                limits.unres_m = limits.unres_v = 0
                if user.used_m > ul_m:
                    if not ctx.continue_looking or user.used_m - app.reserved_m > ul_m:
                        continue  # "User capacity has reached its maximum limit."
                    limits.unres_m = user.used_m - ul_m
                    limits.unres_v = user.used_v - ul_v
            a = assign_app(ctx, self, app, node, limits)
            if a.mem > 0 or (dominant and a.vc > 0):  # rc.is_positive
                return a
            if a.skipped == SKIP_OTHER:
                continue
            if a.skipped == SKIP_QUEUE_LIMIT:
                return a
            return None  # QUEUE_SKIPPED_TO_RESPECT_FIFO
        return None

    def assign_from_reservation(self, ctx: SchedulerContext, node: SchedulerNode) -> CSAssignment | None:
        """``allocateFromReservedContainer``: only the reserving app, limits = the whole partition."""
        self.update_current_limit(ctx, ResourceLimits(ctx.cluster_m, ctx.cluster_v))
        return assign_reserved(ctx, self, node)

    def user_count_active(self) -> int:
        return self.active_users


def _order(app: SchedulerApp) -> tuple[int, int, int, int]:
    return app.order


def _fair_order(app: SchedulerApp) -> tuple:
    # FairOrderingPolicy: less memory used first, then FIFO.
    return (app.used_m, app.order)
