"""Queue refresh (``yarn rmadmin -refreshQueues``): ``CapacityScheduler.reinitialize`` over a new configuration.

Follows Hadoop's ``CapacityScheduler.reinitialize`` -> ``CapacitySchedulerQueueManager.reinitializeQueues``:

1. the new ``capacity-scheduler.xml`` is parsed into a new queue tree (``parseQueue``) and validated
   (``CapacitySchedulerConfiguration`` checks, then ``CapacitySchedulerConfigValidator.validateQueueHierarchy``
   against the live tree, then ``AbstractLeafQueue.reinitialize``'s maximum-allocation check);
2. only then is the live tree changed (``updateQueues`` + ``root.reinitialize``): queues that stay keep their
   objects, applications, users and usage and take the new settings; new queues join; removed queues go; a leaf
   converted to a parent (or back) is replaced;
3. ``root.updateClusterResource`` recomputes every limit and activates pending applications that now fit.

Any failure in 1 leaves the live tree untouched and raises ``ConfigurationError("Failed to re-init queues : ...")``
with Hadoop's wording (Hadoop restores the old configuration the same way). Queue state: a queue configured STOPPED
that still holds applications becomes DRAINING (``AbstractCSQueue.stopQueue``) and STOPPED when its last
application finishes (``appFinished``); either way it accepts no new application.

The minimum allocation and the resource calculator are kept (Hadoop reads them at start-up only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError, YarnballError
from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._managedparent import (
    check_conversions,
    finish_refresh,
    has_managed_parents,
    keep_auto_created_queues,
    prepare_refresh,
)
from yarnball.policies.capacity._queues import CSQueue, ParentQueue
from yarnball.policies.scheduler._acl import QueueState
from yarnball.protocols import keys as k

if TYPE_CHECKING:
    from yarnball.policies.capacity._scheduler import CapacityScheduler

__all__ = ["reinitialize"]

log = get_logger(__name__)

REINIT_FAILED = "Failed to re-init queues : "


def _resource_str(m: int, v: int) -> str:
    """Hadoop's ``Resource.toString``."""
    return f"<memory:{m}, vCores:{v}>"


def _parse(conf: CapacitySchedulerConfiguration, old: dict[str, CSQueue] | None = None) -> dict[str, CSQueue]:
    """``parseQueue``: the new tree, detached from the scheduler (queues by full path, root first). A queue without
    children is a parent when it may create dynamic ones, or when it is a live dynamic parent now made static
    ("Auto created parent queues might not have static children, but they must be kept as a ParentQueue")."""
    queues: dict[str, CSQueue] = {}
    old = old or {}

    def dynamic_parent(path: str) -> bool:
        live = old.get(path)
        return isinstance(live, ParentQueue) and live.dynamic

    def build(path: str, parent: ParentQueue | None) -> CSQueue:
        children = conf.get_queues(path)
        queue: CSQueue
        if children or parent is None or conf.is_auto_creation_parent(path) or dynamic_parent(path):
            queue = ParentQueue(conf, path, parent)
            queues[path] = queue
            for name in children:
                queue.children.append(build(f"{path}.{name}", queue))
        else:
            queue = LeafQueue(conf, path, parent)
            queues[path] = queue
        return queue

    build(k.ROOT, None)
    return queues


def _check_states(conf: CapacitySchedulerConfiguration, new: dict[str, CSQueue]) -> None:
    """``AbstractCSQueue.initializeQueueState``: a child configured RUNNING under a parent that is not."""
    for path, queue in new.items():
        parent = queue.parent
        if parent is not None and conf.get_configured_state(path) == QueueState.RUNNING:
            if parent.state != QueueState.RUNNING:
                raise ConfigurationError(
                    f"The parent queue:{parent.path} cannot be STOPPED as the child queue:{path} is in RUNNING state."
                )


def validate_queue_hierarchy(
    old: dict[str, CSQueue], new: dict[str, CSQueue], conf: CapacitySchedulerConfiguration
) -> None:
    """``CapacitySchedulerConfigValidator.validateQueueHierarchy``: every live queue must stay unless it is (or is
    now configured) STOPPED; a leaf may become a parent only when STOPPED. Queues are keyed by full path, so the
    ``SamePathValidator`` cannot fire; there are no auto-created (managed) parents."""
    for path, old_q in old.items():
        new_q = new.get(path)
        if new_q is None and old_q.dynamic and old_q.num_applications == 0:
            continue  # a dangling dynamic queue (its parent left): removed without a check, as in Hadoop
        if new_q is None:
            # A queue with applications is DRAINING at best (stopQueue): refused even when a leftover
            # `<path>.state = STOPPED` key would let Hadoop drop it with its applications.
            stopped = old_q.state == QueueState.STOPPED or conf.get_configured_state(path) == QueueState.STOPPED
            if stopped and old_q.num_applications == 0:
                log.info(f"Deleting Queue {path}, as it is not present in the modified capacity configuration xml")
                continue
            raise ConfigurationError(
                f"{path} cannot be deleted from the capacity scheduler configuration, as the queue is not yet in "
                f"stopped state. Current State : {_state(old_q).value}"
            )
        if old_q.is_leaf and not new_q.is_leaf:
            stopped = old_q.state == QueueState.STOPPED or new_q.state == QueueState.STOPPED
            if stopped and old_q.num_applications == 0:
                log.info(f"Converting the leaf queue: {path} to parent queue.")
            else:
                raise ConfigurationError(
                    f"Can not convert the leaf queue: {path} to parent queue since it is not yet in stopped state. "
                    f"Current State : {_state(old_q).value}"
                )
        elif not old_q.is_leaf and new_q.is_leaf:
            log.info(f"Converting the parent queue: {path} to leaf queue.")


def keep_dynamic_queues(old: dict[str, CSQueue], new: dict[str, CSQueue], conf: CapacitySchedulerConfiguration) -> None:
    """Add to the parsed tree ``new`` the live dynamic queues the refreshed file does not name
    (``AbstractParentQueue.reinitialize``: "Don't remove dynamic queue if we cannot find it in the config"), each
    parsed again from ``conf`` with its templates (``setDynamicQueueProperties``), so that explicit settings of it in
    the new file apply. A dynamic queue whose parent is neither in the file nor a kept dynamic queue is dangling
    (``CapacitySchedulerQueueManager.isDanglingDynamicQueue``) and left out, so it is removed."""
    from yarnball.policies.capacity._autoqueues import set_dynamic_queue_properties

    grown: list[ParentQueue] = []
    for path in sorted((p for p, q in old.items() if q.dynamic and p not in new), key=lambda p: p.count(".")):
        live = old[path]
        live_parent = live.parent
        if live_parent is None or old.get(live_parent.path) is not live_parent:
            continue  # removed from its parent (removeChildQueue): dangling
        parsed_parent = new.get(live_parent.path)
        if not isinstance(parsed_parent, ParentQueue):
            continue  # the parent left the file, or is a leaf now: dangling
        set_dynamic_queue_properties(conf, path, is_leaf=live.is_leaf)
        queue: CSQueue = (
            LeafQueue(conf, path, parsed_parent) if live.is_leaf else ParentQueue(conf, path, parsed_parent)
        )
        queue.dynamic = True
        parsed_parent.children.append(queue)
        new[path] = queue
        grown.append(parsed_parent)
    for parent in grown:
        _check_mixed_modes(parent)


def _check_mixed_modes(parent: ParentQueue) -> None:
    """``setChildQueues`` -> ``getCapacityConfigurationTypeForQueues`` over the static and the kept dynamic children
    together (the file alone was checked by the validation): weights may not be mixed with other modes."""
    percentage = absolute = weighted = False
    details = ""
    for child in parent.children:
        if child.capacity > 0:
            percentage = True
        if child.weight >= 0:
            weighted = True
            details += f"{{Queue={child.path}, label= uses weight mode}}. "
        if child.conf_min_m != 0 or child.conf_min_v != 0:
            absolute = True
            percentage = False
            details += f"{{Queue={child.path}, label= uses absolute mode}}. "
        if percentage:
            details += f"{{Queue={child.path}, label= uses percentage mode}}. "
    if int(percentage) + int(absolute) + int(weighted) > 1:
        raise ConfigurationError(
            f"Parent queue '{parent.path}' have children queue used mixed of  weight mode, percentage and absolute "
            f"mode, it is not allowed, please double check, details:{details}"
        )


def _state(queue: CSQueue) -> QueueState:
    """The state Hadoop reports for a live queue: a STOPPED queue that still holds applications is DRAINING."""
    if queue.state == QueueState.STOPPED and queue.num_applications > 0:
        return QueueState.DRAINING
    return queue.state


def _check_max_allocation(old: dict[str, CSQueue], new: dict[str, CSQueue]) -> None:
    """``AbstractLeafQueue.reinitialize``: a leaf's maximum allocation may grow, never shrink."""
    for path, old_q in old.items():
        new_q = new.get(path)
        if new_q is None or not old_q.is_leaf or not new_q.is_leaf:
            continue
        if new_q.max_alloc_m < old_q.max_alloc_m or new_q.max_alloc_v < old_q.max_alloc_v:
            raise ConfigurationError(
                f"Trying to reinitialize {path} the maximum allocation size can not be decreased! Current setting: "
                f"{_resource_str(old_q.max_alloc_m, old_q.max_alloc_v)}, trying to set it to: "
                f"{_resource_str(new_q.max_alloc_m, new_q.max_alloc_v)}"
            )


def _take_settings(live: CSQueue, parsed: CSQueue) -> None:
    """``AbstractCSQueue.setupQueueConfigs`` of a queue that stays: the parsed queue's settings, live state kept."""
    live.capacity = parsed.capacity
    live.max_capacity = parsed.max_capacity
    live.abs_cap = parsed.abs_cap
    live.abs_max = parsed.abs_max
    live.absolute = parsed.absolute
    live.conf_min_m, live.conf_min_v = parsed.conf_min_m, parsed.conf_min_v
    live.conf_max_m, live.conf_max_v = parsed.conf_max_m, parsed.conf_max_v
    live.priority = parsed.priority
    live.acls = parsed.acls
    live.max_alloc_m, live.max_alloc_v = parsed.max_alloc_m, parsed.max_alloc_v
    live.weight = parsed.weight
    live.max_parallel_apps = parsed.max_parallel_apps
    live.dynamic = parsed.dynamic  # a dynamic queue now in the file becomes static (AbstractParentQueue.reinitialize)
    state = parsed.state
    if state == QueueState.STOPPED and live.num_applications > 0:
        state = QueueState.DRAINING  # AbstractCSQueue.stopQueue: running applications drain first
    live.state = state
    if isinstance(live, ParentQueue) and isinstance(parsed, ParentQueue):
        live.respect_priority = parsed.respect_priority
    elif isinstance(live, LeafQueue) and isinstance(parsed, LeafQueue):
        _take_leaf_settings(live, parsed)


def _take_leaf_settings(live: LeafQueue, parsed: LeafQueue) -> None:
    conf = parsed.conf
    live.conf = conf
    live.user_limit = parsed.user_limit
    live.user_limit_factor = parsed.user_limit_factor
    live.max_am_percent = parsed.max_am_percent
    was_fair = live.fair
    live.fair = parsed.fair
    live.size_based_weight = parsed.size_based_weight
    if was_fair and not live.fair:
        # FIFO keeps the schedulable apps in `active` order; rebuild it from the (FIFO-sorted) active list.
        live.active.sort(key=lambda a: a.order)
        live.schedulable = [a for a in live.active if a.has_pending()]
    elif live.fair and not was_fair:
        live.schedulable = []
        live.fair_dirty = True
    # UsersManager: user weights come from the configuration.
    weights = 0.0
    for name, user in live.users.items():
        user.weight = conf.get_user_weight(live.path, name)
        if user.apps_with_asks > 0:
            weights += user.weight
    live.active_weights = weights
    live.users_version += 1


def reinitialize(cs: CapacityScheduler, conf: CapacitySchedulerConfiguration) -> None:
    """Refresh ``cs``'s queues from ``conf`` (see the module docstring); raise and change nothing when refused."""
    try:
        conf.validate(cs.cluster_resource)
        owned = False
        legacy = bool(cs.managed_parents) or has_managed_parents(conf)
        if legacy or any(q.dynamic for q in cs.queues.values()):
            # The kept dynamic (or auto-created) queues write their template entries into the configuration: into a
            # copy of it.
            conf = CapacitySchedulerConfiguration(conf.conf.copy())
            owned = True
        new = _parse(conf, cs.queues)
        keep_dynamic_queues(cs.queues, new, conf)
        templates = None
        if legacy:
            check_conversions(cs.queues, new, cs, conf)
            keep_auto_created_queues(cs, cs.queues, new, conf)
            templates = prepare_refresh(cs, conf, new)
        _check_states(conf, new)
        validate_queue_hierarchy(cs.queues, new, conf)
        _check_max_allocation(cs.queues, new)
    except YarnballError as exc:
        raise ConfigurationError(REINIT_FAILED + str(exc)) from exc
    _apply(cs, conf, new)
    cs.owns_conf = owned
    if templates is not None:
        # ManagedParentQueue.reinitialize (inside root.reinitialize in Hadoop), then root.updateClusterResource again
        finish_refresh(cs, conf, templates)
        cs.update_cluster_resource()
    # CapacityScheduler.reinitialize ends with maxRunningEnforcer.updateRunnabilityOnReload: new max-parallel-apps
    cs.max_running.update_runnability_on_reload(cs.context, cs.conf, cs.root)


def _apply(cs: CapacityScheduler, conf: CapacitySchedulerConfiguration, new: dict[str, CSQueue]) -> None:
    old = cs.queues
    live: dict[str, CSQueue] = {}
    # Top-down (new is root first): a queue that stays keeps its object, a new or converted one is the parsed one.
    for path, parsed in new.items():
        current = old.get(path)
        if current is not None and current.is_leaf == parsed.is_leaf:
            _take_settings(current, parsed)
            queue = current
        else:
            queue = parsed
        live[path] = queue
    for path, queue in live.items():
        parsed = new[path]
        queue.children = [live[child.path] for child in parsed.children]
        for child in queue.children:
            child.parent = queue  # type: ignore[assignment]
    cs.store_queues(live)
    cs.conf = conf
    # The scheduler-wide settings CapacityScheduler.reinitialize re-reads (refreshMaximumAllocation and the
    # capacity-scheduler.xml globals).
    cs.read_global_settings(conf)
    # root.updateClusterResource: new capacities, limits, and pending applications activated where they now fit.
    cs.update_cluster_resource()
    removed = [path for path in old if path not in live]
    added = [path for path in live if path not in old]
    log.info("Re-initializing queues...", added=added, removed=removed)
