"""``CapacityScheduler`` as a pure policy: scheduler events in, notifications and allocations out.

Driven like Hadoop's: the RM calls :meth:`CapacityScheduler.handle` with the dispatcher's scheduler events
(capacity.md §1) and :meth:`CapacityScheduler.allocate` for each AM heartbeat (YARN's pull model: containers
allocated on NODE_UPDATE wait in the attempt until the AM's next ``allocate``). There are no actors, clocks or I/O
here; every decision is deterministic (dicts keep insertion order, ties break on ids).

AM containers are recognised implicitly, as Hadoop's ``isAmRunning`` does: an attempt's first allocated container
is its AM container. Its size is taken for the AM-limit accounting from the attempt's first ask (or from
:meth:`CapacityScheduler.set_am_resource` if the RM tells it earlier; the minimum allocation until then, as
``FiCaSchedulerApp`` does when the submission context has no AM request).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mypy_extensions import mypyc_attr

from yarnball._logs import get_logger
from yarnball.policies.capacity._allocator import add_pending
from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration
from yarnball.policies.capacity._events import HANDLERS, EventHandlers
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._queues import CSQueue
from yarnball.policies.capacity._state import (
    SchedulerApp,
)
from yarnball.policies.scheduler._acl import QueueACL
from yarnball.policies.scheduler._appscheduling import has_live_mark
from yarnball.policies.scheduler._notifications import (
    Allocation,
    QueueMetrics,
    SchedulerNotification,
)
from yarnball.policies.scheduler._utils import RESIZE_REQUEST_ID_BASE
from yarnball.protocols import (
    ApplicationAttemptId,
    Configuration,
    ContainerId,
    ContainerStatus,
    NodeId,
    Resource,
    ResourceRequest,
)

__all__ = ["RESIZE_REQUEST_ID_BASE", "CapacityScheduler"]

log = get_logger(__name__)


@mypyc_attr(allow_interpreted_subclasses=True)
class CapacityScheduler(EventHandlers):
    """Hadoop's CapacityScheduler (synchronous scheduling, default partition) over plain records.

    Construction, the queue tree and the heartbeat's allocation loop are in ``SchedulerCore`` (_core.py), node
    placement in ``ContinuousScheduling`` (_continuous.py), the scheduler events in ``EventHandlers`` (_events.py).
    Compiled with mypyc it is a native class that Python code may still subclass (its methods cannot be replaced on
    an instance, though: override them in a subclass)."""

    def maximum_allocation(self, queue: CSQueue | None = None) -> Resource:
        """``getMaximumResourceCapability(queue)``: the queue's maximum allocation, component-wise capped by the
        scheduler's (:meth:`max_allowed_allocation`: the largest node, or the configured maximum as the RM starts)."""
        allowed = self.max_allowed_allocation()
        if queue is None:
            return allowed
        return Resource(min(queue.max_alloc_m, allowed.memory_mb), min(queue.max_alloc_v, allowed.vcores))

    def headroom_of(self, app: SchedulerApp) -> Resource:
        """``getHeadroom`` as ``LeafQueue.getHeadroom`` computes it for the attempt's user now."""
        hm, hv = app.queue.headroom(self._ctx, app.user, self.root)
        return Resource(hm, hv)

    def maximum_allocation_of(self, app: SchedulerApp) -> Resource:
        """``getMaximumResourceCapability(app.getQueue())``: :meth:`maximum_allocation` of the application's queue."""
        return self.maximum_allocation(app.queue)

    def check_access(self, user: str, acl: QueueACL, queue_name: str, groups: tuple[str, ...] = ()) -> bool:
        """``CapacityScheduler.checkAccess``: always true while ``yarn.acl.enable`` is false; admins may
        administer every queue."""
        if not self.acl_enabled:
            return True
        queue = self.get_queue(queue_name)
        if queue is None:
            return False
        if acl == QueueACL.ADMINISTER_QUEUE and self.is_admin(user, groups):
            return True
        return queue.has_access(acl, user, groups)

    def reinitialize(self, conf: CapacitySchedulerConfiguration | Configuration) -> None:
        """``CapacityScheduler.reinitialize`` (``yarn rmadmin -refreshQueues``): the queues of ``conf`` (the
        capacity-scheduler configuration of a plain Configuration, as ``loadCapacitySchedulerConfiguration``) replace
        the live ones, or ``ConfigurationError("Failed to re-init queues : ...")`` and nothing changes (_refresh.py)."""
        from yarnball.policies.capacity._refresh import reinitialize

        if isinstance(conf, Configuration):
            conf = CapacitySchedulerConfiguration(conf)
        reinitialize(self, conf)

    def create_queue(self, path: str) -> LeafQueue:
        """``CapacitySchedulerQueueManager.createQueue``: the dynamic leaf ``path`` (full path) and its missing
        dynamic parents, under a parent with auto-queue-creation v2 enabled; ``SchedulerDynamicEditException``
        (a SchedulingError) with Hadoop's message otherwise (_autoqueues.py)."""
        from yarnball.policies.capacity._autoqueues import create_queue

        return create_queue(self, path)

    def remove_queue(self, queue: CSQueue) -> bool:
        """``CapacityScheduler.removeQueue``: a dynamic queue eligible for deletion (a leaf without applications, a
        parent without children) leaves the tree; a static one raises ``SchedulerDynamicEditException``."""
        from yarnball.policies.capacity._autoqueues import remove_queue

        return remove_queue(self, queue)

    def headroom(self, attempt_id: ApplicationAttemptId) -> Resource:
        app = self.attempts.get(attempt_id)
        return self.headroom_of(app) if app is not None else Resource()

    def queue_metrics(self, *, root_only: bool = False) -> list[QueueMetrics]:
        """One snapshot per queue, root first, in configuration (pre-)order (the root's alone with ``root_only``)."""
        ctx = self._ctx
        out: list[QueueMetrics] = []
        rc, cm, cv = ctx.rc, ctx.cluster_m, ctx.cluster_v

        def visit(q: CSQueue) -> None:
            leaf = q if isinstance(q, LeafQueue) else None
            # CSQueueUtils.getMaxAvailableResourceToQueuePartition (via updateQueueStatistics): the queue's guaranteed
            # (effective minimum) resource minus its usage, component-wise floored at zero, and none at all unless
            # the guarantee is greater than the usage under the resource calculator.
            um, uv = q.used_m, q.used_v
            if rc.greater_than(cm, cv, q.eff_min_m, q.eff_min_v, um, uv):
                avail = Resource(max(q.eff_min_m - um, 0), max(q.eff_min_v - uv, 0))
            else:
                avail = Resource()
            if leaf is not None:
                # QueueMetrics.appsPending counts an attempt held back by max-parallel-apps (submitAppAttempt)
                pending_apps = len(leaf.pending) + len(leaf.non_runnable)
                running = len(leaf.active)
                am_used = Resource(leaf.am_used_m, leaf.am_used_v)
                am_limit = Resource(leaf.am_limit_m, leaf.am_limit_v)
                users = leaf.active_users
            else:
                pending_apps = running = users = 0
                for lq in _leaves(q):
                    pending_apps += len(lq.pending) + len(lq.non_runnable)
                    running += len(lq.active)
                am_used = am_limit = Resource()
            out.append(
                QueueMetrics(
                    path=q.path,
                    queue_name=q.name,
                    is_leaf=leaf is not None,
                    state=str(q.state),
                    priority=q.priority,
                    capacity=q.capacity,
                    maximum_capacity=q.max_capacity,
                    absolute_capacity=q.abs_cap,
                    absolute_maximum_capacity=q.abs_max,
                    used_capacity=q.used_capacity(ctx),
                    absolute_used_capacity=q.absolute_used_capacity(ctx),
                    allocated=Resource(q.used_m - q.reserved_m, q.used_v - q.reserved_v),
                    pending=Resource(q.pending_m, q.pending_v),
                    reserved=Resource(q.reserved_m, q.reserved_v),
                    available=avail,
                    effective_min=Resource(q.eff_min_m, q.eff_min_v),
                    effective_max=Resource(q.eff_max_m, q.eff_max_v),
                    am_used=am_used,
                    am_limit=am_limit,
                    apps_pending=pending_apps,
                    apps_running=running,
                    containers_allocated=q.num_containers,
                    num_active_users=users,
                    aggregate_node_local_containers_allocated=q.allocated_by_locality[0],
                    aggregate_rack_local_containers_allocated=q.allocated_by_locality[1],
                    aggregate_off_switch_containers_allocated=q.allocated_by_locality[2],
                )
            )
            for child in () if root_only else q.children:
                visit(child)

        visit(self.root)
        return out

    def root_queue_metrics(self) -> QueueMetrics:
        """``getRootQueueMetrics``: the root queue's snapshot."""
        return self.queue_metrics(root_only=True)[0]

    def handle(self, event: object) -> list[SchedulerNotification]:
        """Apply one scheduler event (``CapacityScheduler.handle``) and return what the RM must act on."""
        ctx = self._ctx
        out: list[SchedulerNotification] = []
        ctx.outbox = out
        cls = type(event)
        handler = self._by_class.get(cls)
        if handler is None:
            handler = HANDLERS.get(getattr(getattr(event, "event_type", None), "name", ""))
            if handler is not None and "event_type" not in getattr(cls, "__struct_fields__", ("event_type",)):
                self._by_class[cls] = handler  # the type is a class constant: dispatch on the class next time
        if handler is None:
            log.error("Invalid eventtype " + str(getattr(event, "event_type", event)) + ". Ignoring!")
            return out
        handler(self, event)
        return out

    def node_update_launched_only(self, node_id: NodeId, launched: Iterable[ContainerStatus]) -> bool:
        """Handle a NODE_UPDATE for ``node_id`` that reports only newly launched containers (``launched``, their
        statuses) when it provably allocates nothing: mark them RUNNING and return True. Return False, having
        changed nothing, when the event must go through :meth:`handle`.

        Exact: ``handle_node_update`` marks the containers RUNNING, then calls ``schedule_on_heartbeat(node, False)``.
        With continuous scheduling that returns at once (a heartbeat schedules only when it reported completed
        containers); without it and without packing it is ``allocate_containers_to_node``, whose first
        ``_allocate_on_node`` returns None before touching anything exactly when :meth:`node_update_is_noop`
        says so. :meth:`handle` would return no notification. The RM uses it for the heartbeats that report a
        container RUNNING on a full node (actors/_resourcetracker.py ``node_heartbeat``).
        """
        node = self.nodes.get(node_id)
        if node is None:
            return False
        if not self.continuous_scheduling:
            # not packing, and node_update_is_noop(node_id) (inline: this runs on most heartbeats)
            if node.reserved is not None or self.placement.packs(len(self.nodes)):
                return False
            ctx = self._ctx
            rc = ctx.rc
            if rc.available_containers(node.unalloc_m, node.unalloc_v, ctx.min_m, ctx.min_v) > 0 and rc.is_positive(
                self.root.pending_m, self.root.pending_v
            ):
                return False
        self.mark_launched([st.container_id for st in launched])
        return True

    def allocate(
        self,
        attempt_id: ApplicationAttemptId,
        ask: Sequence[ResourceRequest],
        release: Sequence[ContainerId],
        blacklist_additions: Iterable[str] = (),
        blacklist_removals: Iterable[str] = (),
    ) -> Allocation:
        """The AM's ``allocate``: validate and normalise asks, release, update asks and blacklist, then pull."""
        app = self.attempts.get(attempt_id)
        if app is None or app.stopped:
            log.info("Calling allocate on removed or non existent application " + str(attempt_id))
            return Allocation()
        if not (ask or release or blacklist_additions or blacklist_removals):
            # A pull only (most AM heartbeats): nothing to validate, release or update, no notifications.
            return self._pull(app, ())
        leaf = app.queue
        maximum = self.maximum_allocation(leaf)
        mm, mv = maximum.memory_mb, maximum.vcores
        for r in ask:
            cap = r.capability
            if not (0 <= cap.memory_mb <= mm and 0 <= cap.vcores <= mv and r.num_containers >= 0):
                errors = self.ask_errors(app, ask, maximum)
                break
        else:
            errors = ()
        if errors:
            # ApplicationMasterService throws InvalidResourceRequestException: nothing of the call is applied.
            return Allocation(headroom=self.headroom_of(app), errors=errors)
        out = self._release_and_ask(app, release, ask, maximum, log_unknown=True)
        app.update_blacklist(blacklist_additions, blacklist_removals)
        return self._pull(app, tuple(out))

    def allocate_has_news(self, attempt_id: ApplicationAttemptId) -> bool:
        """Whether :meth:`idle_allocate` would be None, without its headroom or side effect (actors/_shortcuts/
        _amrounds.py asks it; a subclass overrides both or neither)."""
        app = self.attempts.get(attempt_id)
        if app is None or app.stopped or app.new_containers or app.completed:
            return True
        return bool(app.preempt) and has_live_mark(app)

    def _update_asks(self, app: SchedulerApp, asks: Sequence[ResourceRequest], maximum: Resource) -> None:
        """``AppSchedulingInfo.updateResourceRequests`` (:meth:`_apply_asks`), the change of the pending resource
        charged up to root; the attempt's first ask sizes its AM."""
        leaf = app.queue
        had = app.has_pending()
        first = not app.am_known and not app.am_running and not app.keys
        dm, dv = self._apply_asks(app, asks, maximum)
        if dm or dv:
            add_pending(leaf, dm, dv)
            if leaf.fair and leaf.size_based_weight:
                leaf.fair_dirty = True
        if first and app.keys:
            # The attempt's first ask is its AM request: account the AM by its real size.
            ka = app.keys_in_order()[0]
            self._set_am_size(app, ka.cap_m, ka.cap_v)
        leaf.app_asks_changed(app, had, app.has_pending())

    def _set_am_size(self, app: SchedulerApp, mem: int, vc: int) -> None:
        app.am_known = True
        if app.is_active:
            leaf = app.queue
            dm, dv = mem - app.am_m, vc - app.am_v
            leaf.am_used_m += dm
            leaf.am_used_v += dv
            app.user.am_used_m += dm
            app.user.am_used_v += dv
        app.am_m, app.am_v = mem, vc


def _leaves(q: CSQueue) -> Iterable[LeafQueue]:
    for child in q.children:
        if isinstance(child, LeafQueue):
            yield child
        else:
            yield from _leaves(child)
