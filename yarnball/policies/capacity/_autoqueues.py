"""Flexible auto queue creation ("auto-queue-creation v2", Hadoop 3.3+): dynamic queues in weight mode.

A parent with ``<path>.auto-queue-creation-v2.enabled = true`` (a *static* parent, or any dynamic parent below one)
creates the missing queues of a path at run time: ``root.a.x.y`` under ``root.a`` creates the dynamic parent
``root.a.x`` and the dynamic leaf ``root.a.x.y``. Follows Hadoop's code:

- ``CapacitySchedulerQueueManager.createQueue`` / ``createAutoQueue`` / ``determineMissingParents``: the checks (a
  parent path is needed and may not be ambiguous, the distance from the first *static* parent is at most
  ``auto-queue-creation-v2.maximum-queue-depth`` (2), the first existing parent is a ParentQueue eligible for auto
  creation), then the parents top-down and the leaf;
- ``AbstractParentQueue.addDynamicChildQueue``: at most ``auto-queue-creation-v2.max-queues`` children (1000), all of
  them in weight mode, then ``updateClusterResource`` (the siblings' normalized weights change);
- ``AbstractCSQueue.setDynamicQueueProperties`` / ``AutoCreatedQueueTemplate.setTemplateEntriesForChild``: the
  parent's ``auto-queue-creation-v2.template.*`` / ``leaf-template.*`` / ``parent-template.*`` entries (and those of
  the one-level wildcard path, ``root.*``) are written into the scheduler's configuration for the new queue, never
  over a value set explicitly; a dynamic queue without a capacity has weight 1 (``1w``), and a dynamic leaf's
  user-limit-factor defaults to -1 (no limit) and its maximum-am-resource-percent to 1
  (``AbstractLeafQueue.setDynamicQueueProperties``);
- ``CapacityScheduler.removeQueue`` / ``AbstractParentQueue.removeChildQueue``: only a dynamic queue, and only when
  eligible for deletion (a leaf without applications, a parent without children);
- on a refresh (``AbstractParentQueue.reinitialize``, ``CapacitySchedulerQueueManager.updateQueues``): a dynamic
  queue absent from the new file stays (its templates are applied to the new configuration), one present in the file
  becomes static, and one whose parent is gone (a dangling one) is removed (:func:`kept_dynamic_queues`).

Submitting an application to a missing queue under such a parent creates it (``CapacityScheduler.addApplication`` ->
``getOrCreateQueueFromPlacementContext``), see :func:`create_for_submission`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yarnball._logs import get_logger
from yarnball.errors import SchedulerDynamicEditException, SchedulingError
from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._queues import CSQueue, ParentQueue
from yarnball.protocols import keys as k

if TYPE_CHECKING:
    from yarnball.policies.capacity._core import SchedulerCore as CapacityScheduler

__all__ = [
    "SchedulerDynamicEditException",
    "create_for_submission",
    "create_queue",
    "is_eligible_for_auto_deletion",
    "is_eligible_for_auto_queue_creation",
    "remove_child_queue",
    "remove_queue",
    "template_entries",
    "touch_submitted",
]

log = get_logger(__name__)

_WILDCARD = "*"
_MAX_WILDCARD_LEVEL = 1


# -- templates ---------------------------------------------------------------------------------------------------
def template_entries(conf: CapacitySchedulerConfiguration, parent: str) -> tuple[dict[str, str], ...]:
    """``AutoCreatedQueueTemplate(conf, parent)``: (common, leaf-only, parent-only) template properties, the explicit
    path's winning over the one-level wildcard's (``root.a`` before ``root.*``)."""
    common: dict[str, str] = {}
    leaf: dict[str, str] = {}
    parent_only: dict[str, str] = {}
    parts = parent.split(".")
    if len(parts) <= 1 and parent != k.ROOT:
        return common, leaf, parent_only
    max_index = len(parts) - 1
    supported = 0 if parent == k.ROOT else min(max_index - 1, _MAX_WILDCARD_LEVEL)
    keys = conf.conf.keys()
    level = 0
    while level <= supported:
        prefix = conf.get_queue_prefix(".".join(parts))
        for key in keys:
            if not key.startswith(prefix):
                continue
            rest = key[len(prefix) :]
            value = conf.conf.get(key)
            if value is None:
                continue
            for template_prefix, store in (
                (k.AUTO_QUEUE_TEMPLATE_PREFIX, common),
                (k.AUTO_QUEUE_LEAF_TEMPLATE_PREFIX, leaf),
                (k.AUTO_QUEUE_PARENT_TEMPLATE_PREFIX, parent_only),
            ):
                if rest.startswith(template_prefix):
                    store.setdefault(rest[len(template_prefix) :], value)  # an earlier (more explicit) one wins
        parts[max_index - level] = _WILDCARD
        level += 1
    return common, leaf, parent_only


def set_dynamic_queue_properties(conf: CapacitySchedulerConfiguration, path: str, *, is_leaf: bool) -> None:
    """``setDynamicQueueProperties`` of the dynamic queue ``path`` (see the module docstring)."""
    parent = path.rsplit(".", 1)[0]
    common, leaf_only, parent_only = template_entries(conf, parent)
    own = conf.get_queue_prefix(path)
    explicit = {key[len(own) :] for key in conf.conf.keys() if key.startswith(own)}
    specific = leaf_only if is_leaf else parent_only
    for name, value in specific.items():
        if name not in explicit:
            conf.conf.set(own + name, value)
    for name, value in common.items():
        if name not in explicit and name not in specific:
            conf.conf.set(own + name, value)
    # The weight of a dynamic queue: 1 unless configured (explicitly or by a template).
    if conf.conf.get(own + k.CAPACITY) is None:
        conf.conf.set(own + k.CAPACITY, "1" + k.WEIGHT_SUFFIX)
    if is_leaf:
        # AbstractLeafQueue.setDynamicQueueProperties: no user limit factor, and the whole queue for AMs.
        if conf.conf.get(own + k.USER_LIMIT_FACTOR) is None:
            conf.conf.set(own + k.USER_LIMIT_FACTOR, "-1")
        if conf.conf.get(own + k.MAXIMUM_AM_RESOURCE_SUFFIX) is None:
            conf.conf.set(own + k.MAXIMUM_AM_RESOURCE_SUFFIX, "1")


# -- eligibility ---------------------------------------------------------------------------------------------------
def is_eligible_for_auto_queue_creation(conf: CapacitySchedulerConfiguration, queue: CSQueue) -> bool:
    """``AbstractParentQueue.isEligibleForAutoQueueCreation``: a dynamic parent, or one with v2 enabled."""
    return isinstance(queue, ParentQueue) and (queue.dynamic or conf.is_auto_queue_creation_v2_enabled(queue.path))


def is_eligible_for_auto_deletion(conf: CapacitySchedulerConfiguration, queue: CSQueue) -> bool:
    """``isEligibleForAutoDeletion``: a dynamic leaf without applications or a dynamic parent without children,
    with ``auto-queue-creation-v2.queue-auto-removal.enable`` (default true)."""
    if not queue.dynamic or not conf.is_auto_expired_deletion_enabled(queue.path):
        return False
    if isinstance(queue, LeafQueue):
        return queue.num_applications == 0
    return not queue.children


def touch_submitted(cs: CapacityScheduler, queue: CSQueue) -> None:
    """``updateLastSubmittedTimeStamp``: the queue's idle time (for its auto deletion) starts again now."""
    queue.last_submitted_ms = cs.clock() if cs.clock is not None else 0


def is_inactive_dynamic_queue(conf: CapacitySchedulerConfiguration, queue: CSQueue, now_ms: int) -> bool:
    """``AbstractCSQueue.isInactiveDynamicQueue``: eligible for deletion and idle for longer than
    ``auto-queue-creation-v2.queue-expiration-time`` seconds since its creation or last submission."""
    idle_s = (now_ms - queue.last_submitted_ms) // 1000
    return is_eligible_for_auto_deletion(conf, queue) and idle_s > conf.get_auto_expired_deletion_time()


# -- creation ------------------------------------------------------------------------------------------------------
def _private_conf(cs: CapacityScheduler) -> CapacitySchedulerConfiguration:
    """The scheduler's own configuration, copied once so that dynamic queue entries never reach the caller's."""
    if not cs.owns_conf:
        cs.conf = CapacitySchedulerConfiguration(cs.conf.conf.copy())
        cs.owns_conf = True
    return cs.conf


def _is_ambiguous(cs: CapacityScheduler, name: str) -> bool:
    return name not in cs.queues and cs.is_ambiguous(name)


def _determine_missing_parents(cs: CapacityScheduler, path: str) -> tuple[list[str], ParentQueue]:
    """``determineMissingParents``: the parents to create (highest first) and the first existing parent."""
    parent_path, _, _leaf = path.rpartition(".")
    if not parent_path:
        raise SchedulerDynamicEditException(
            f"Could not auto-create leaf queue for {path}. Queue mapping does not specify which parent queue it "
            "needs to be created under."
        )
    if _is_ambiguous(cs, parent_path):
        raise SchedulerDynamicEditException(
            f"Could not auto-create queue {path} due to ParentQueue {parent_path} being ambiguous."
        )
    distance = 1
    candidate = parent_path
    to_create: list[str] = []
    first_existing = cs.get_queue(candidate)
    first_static = first_existing
    while (first_static is None or first_static.dynamic) and candidate:
        distance += 1
        if first_static is None:
            to_create.insert(0, candidate)
        candidate = candidate.rpartition(".")[0]
        if first_existing is None:
            first_existing = cs.get_queue(candidate) if candidate else None
        first_static = cs.get_queue(candidate) if candidate else None
    if first_static is None:
        raise SchedulerDynamicEditException(f"Could not auto-create queue {path} parent queue does not exist.")
    depth = cs.conf.get_maximum_auto_created_queue_depth(first_static.path)
    if distance > depth:
        raise SchedulerDynamicEditException(
            f"Could not auto create queue {path}. The distance of the LeafQueue from the first static ParentQueue "
            f"is {distance}, which is above the limit."
        )
    if not isinstance(first_existing, ParentQueue):
        raise SchedulerDynamicEditException(
            f"Could not auto create hierarchy of {path}. Queue {parent_path} is not a ParentQueue."
        )
    if not is_eligible_for_auto_queue_creation(cs.conf, first_existing):
        raise SchedulerDynamicEditException(
            f"Auto creation of queue {path} is not enabled under parent {first_existing.path}"
        )
    return to_create, first_existing


def create_queue(cs: CapacityScheduler, path: str) -> LeafQueue:
    """``CapacitySchedulerQueueManager.createQueue`` (flexible mode) for the full path ``path``: the dynamic leaf
    (and its missing dynamic parents); raises :class:`SchedulerDynamicEditException` with Hadoop's message."""
    existing = cs.queues.get(path)
    if isinstance(existing, LeafQueue):
        return existing
    if existing is not None:  # Hadoop: a ClassCastException in addDynamicLeafQueue
        raise SchedulerDynamicEditException(f"Could not auto-create leaf queue {path}: it is a ParentQueue")
    to_create, parent = _determine_missing_parents(cs, path)
    for parent_path in to_create:
        queue = cs.queues.get(parent_path)
        if queue is None:
            queue = _add_dynamic_child(cs, parent, parent_path, is_leaf=False)
        assert isinstance(queue, ParentQueue)
        parent = queue
    leaf = _add_dynamic_child(cs, parent, path, is_leaf=True)
    assert isinstance(leaf, LeafQueue)
    return leaf


def _add_dynamic_child(cs: CapacityScheduler, parent: ParentQueue, path: str, *, is_leaf: bool) -> CSQueue:
    """``AbstractParentQueue.addDynamicChildQueue`` + ``createNewQueue`` +
    ``CapacitySchedulerQueueManager.addQueue``."""
    existing = cs.queues.get(path)
    if existing is not None:
        log.warning(f"This should not happen, trying to create queue={path}, however the queue already exists")
        return existing
    conf = _private_conf(cs)
    maximum = conf.get_auto_created_queues_v2_max_child_queues_limit(parent.path)
    if len(parent.children) >= maximum:
        raise SchedulerDynamicEditException(
            f"Cannot auto create queue {path}. Max Child Queue limit exceeded which is configured as: {maximum} and "
            f"number of child queues is: {len(parent.children)}"
        )
    # getCapacityConfigurationTypeForQueues(childQueues) == WEIGHT: weights set, or no child at all.
    if parent.children and not any(child.weight >= 0 for child in parent.children):
        raise SchedulerDynamicEditException(
            f"Trying to create new queue={path} but not all the queues under parent={parent.path} are using "
            "weight-based capacity. Failed to created queue"
        )
    set_dynamic_queue_properties(conf, path, is_leaf=is_leaf)
    queue: CSQueue
    try:
        queue = LeafQueue(conf, path, parent) if is_leaf else ParentQueue(conf, path, parent)
    except SchedulingError:
        raise
    except Exception as exc:  # a template value that does not parse (NumberFormatException in Hadoop)
        raise SchedulerDynamicEditException(str(exc)) from exc
    queue.dynamic = True
    touch_submitted(cs, queue)
    touch_submitted(cs, parent)  # addDynamicChildQueue: updateLastSubmittedTimeStamp
    parent.children.append(queue)
    cs.store_queue(queue)
    log.info(f"Created dynamic queue {path}", leaf=is_leaf)
    cs.update_cluster_resource()  # updateClusterResource: every sibling's normalized weight changes
    return queue


def create_for_submission(cs: CapacityScheduler, name: str) -> LeafQueue | None:
    """``CapacityScheduler.getOrCreateQueueFromPlacementContext`` without a placement context: a full path that
    names no queue yet is auto-created when its parents allow it; on failure the error is logged and None returned
    (the submission is then refused as to an unknown queue)."""
    if "." not in name or _is_ambiguous(cs, name) or any(not part for part in name.split(".")):
        return None
    if not any(key.endswith(k.AUTO_QUEUE_CREATION_V2_ENABLED) for key in cs.conf.conf.keys()):
        return None  # no parent may create queues: nothing to try (and nothing logged)
    try:
        return create_queue(cs, name)
    except SchedulerDynamicEditException as exc:
        log.error(f"Could not auto-create leaf queue {name} due to : {exc}")
        return None


# -- removal -------------------------------------------------------------------------------------------------------
def remove_child_queue(cs: CapacityScheduler, parent: ParentQueue, queue: CSQueue) -> None:
    """``AbstractParentQueue.removeChildQueue``: drop a dynamic child (its own entry only: a dynamic child of it is
    left dangling until the next refresh, as in Hadoop) and recompute the capacities."""
    if not queue.dynamic:
        raise SchedulerDynamicEditException(
            f"Queue {parent.path} can not remove {queue.path} because it is not a dynamic queue"
        )
    if queue.parent is not parent:
        raise SchedulerDynamicEditException(
            f"Queue {parent.path} can not remove {queue.path} because it has a different parent queue"
        )
    parent.children.remove(queue)
    cs.forget_queue(queue)
    cs.update_cluster_resource()


def remove_queue(cs: CapacityScheduler, queue: CSQueue) -> bool:
    """``CapacityScheduler.removeQueue``: a dynamic queue eligible for deletion leaves; an ineligible one stays (a
    warning, False); a static one is refused."""
    if not queue.dynamic:
        raise SchedulerDynamicEditException(
            f"The queue that we are asked to remove ({queue.path}) is not a DynamicQueue"
        )
    if not is_eligible_for_auto_deletion(cs.conf, queue):
        log.warning(f"Queue {queue.path} is marked for deletion, but not eligible for deletion")
        return False
    parent = queue.parent
    if parent is None:
        raise SchedulerDynamicEditException(f"The queue {queue.path} can't be removed because it's parent is null")
    remove_child_queue(cs, parent, queue)
    log.info(f"Removed queue: {queue.path}")
    return True
