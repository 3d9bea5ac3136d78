"""Legacy auto-created leaf queues (Hadoop 3.1+): ``ManagedParentQueue``, ``AutoCreatedLeafQueue`` and
``GuaranteedOrZeroCapacityOverTimePolicy``.

A parent with ``yarn.scheduler.capacity.<path>.auto-create-child-queue.enabled = true`` is a ManagedParentQueue: it
has no configured children (yarnball refuses them, see :func:`check_managed_parent`) and creates a leaf for a
submission that names one under it. Follows Hadoop's trunk code (legacy queue mode):

- ``ManagedParentQueue.initializeLeafQueueConfigs``: the template is every ``<path>.leaf-queue-template.*`` key; its
  capacities are read as a queue's (``CSQueueUtils.loadCapacitiesByLabelsFromConf`` on the template path), and when
  the parent is in ABSOLUTE_RESOURCE mode derived from the template's ``[memory=..,vcores=..]`` over the parent's
  configured resources (``updateQueueCapacities``); a percentage parent with an absolute template is refused
  (``setAbsoluteResourceTemplates``: "Managed Parent Queue ... config type is different from leaf queue template
  config type").
- ``CapacityScheduler.autoCreateLeafQueue`` / ``addQueue`` -> ``ManagedParentQueue.addChildQueue``: the max-queues
  and fail-on-exceeding-parent-capacity checks, the template entries written for the new queue
  (``setLeafQueueConfigs``: ``leaf-queue-template`` replaced by the leaf's name in each key), the leaf built from
  them, its initial entitlement from the policy (``getInitialLeafQueueConfiguration``) merged in
  (``AutoCreatedLeafQueue.mergeCapacities``), then the parent's ``updateClusterResource``.
- ``GuaranteedOrZeroCapacityOverTimePolicy`` (_guaranteedorzero.py, with the records it computes): a leaf gets the
  template capacity while the parent's absolute capacity still has room for one more template (``parentAbs -
  activated + EPSILON >= templateAbs``), else zero; the monitor's rounds (``computeQueueManagementChanges``)
  deactivate leaves without applications and activate inactive ones with applications in application order, as
  room allows; ``ManagedParentQueue
  .validateAndApplyQueueManagementChanges`` applies and commits them. As in Hadoop, applying changes does not run
  ``updateClusterResource``: capacities and effective resources change at once, maximum-applications at the next
  cluster resource update.
- ``ManagedParentQueue.reinitialize`` on a refresh: the template is read again, the auto-created leaves are kept and
  re-initialized from it at zero capacity, the policy's state is cleared and its changes computed and applied at once
  (leaves with applications are activated again in application order).

Only the default partition is modelled (node-label template capacities are not).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError, SchedulerDynamicEditException
from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration
from yarnball.policies.capacity._context import ResourceLimits
from yarnball.policies.capacity._guaranteedorzero import (
    AutoCreatedLeafQueueConfig,
    GuaranteedOrZeroCapacityOverTimePolicy,
    QueueCapacities,
    QueueManagementChange,
    merge_capacities,
    update_queue_capacities,
    update_template_absolute_capacities,
)
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._queues import CSQueue, ParentQueue, f32
from yarnball.protocols import keys as k

if TYPE_CHECKING:
    from yarnball.policies.capacity._core import SchedulerCore as CapacityScheduler

__all__ = [
    "AutoCreatedLeafQueueConfig",
    "GuaranteedOrZeroCapacityOverTimePolicy",
    "ManagedParentQueue",
    "QueueCapacities",
    "QueueManagementChange",
    "auto_create_leaf_queue",
    "create_for_submission",
    "has_managed_parents",
    "init_managed_parents",
    "manage_auto_created_leaf_queues",
]

log = get_logger(__name__)


def has_managed_parents(conf: CapacitySchedulerConfiguration) -> bool:
    """Whether any key could enable legacy auto creation (a cheap test: runs without it never look further)."""
    return any(key.endswith(k.AUTO_CREATE_CHILD_QUEUE_ENABLED) for key in conf.conf.keys())


# -- the template ---------------------------------------------------------------------------------------------------
def _template_entries(conf: CapacitySchedulerConfiguration, parent_path: str) -> dict[str, str]:
    """``AbstractManagedParentQueue.initializeLeafQueueConfigs``: the keys under the template prefix."""
    prefix = k.CS_PREFIX + conf.get_auto_created_queue_template_conf_prefix(parent_path) + k.DOT
    entries: dict[str, str] = {}
    for key in sorted(conf.conf.keys(), key=str.lower):  # sortCSConfigurations: case-insensitive order
        if key.startswith(prefix):
            value = conf.conf.get(key)
            if value is not None:
                entries[key[len(prefix) :]] = value
    return entries


def build_leaf_queue_template(
    cs: CapacityScheduler, conf: CapacitySchedulerConfiguration, parent: ParentQueue
) -> AutoCreatedLeafQueueConfig:
    """``ManagedParentQueue.initializeLeafQueueConfigs`` (raises ConfigurationError naming the key at fault)."""
    template_path = conf.get_auto_created_queue_template_conf_prefix(parent.path)
    entries = _template_entries(conf, parent.path)
    # setAbsoluteResourceTemplates
    min_m, min_v = conf.get_minimum_resource_requirement(template_path)
    if not parent.absolute and (min_m, min_v) != (0, 0):
        raise ConfigurationError(
            f"Managed Parent Queue {parent.path} config type is different from leaf queue template config type"
        )
    # CSQueueUtils.loadCapacitiesByLabelsFromConf on the template path (an absolute vector reads 0 / 100 %)
    caps = QueueCapacities(
        f32(f32(conf.get_capacity(template_path)) / 100.0),
        f32(f32(conf.get_maximum_capacity(template_path)) / 100.0),
    )
    template = AutoCreatedLeafQueueConfig(caps, min_m, min_v, entries)
    if parent.absolute:
        update_queue_capacities(cs, conf, parent, template)
    return template


# -- the parent -----------------------------------------------------------------------------------------------------
class ManagedParentQueue:
    """The ManagedParentQueue side of a parent queue (its ParentQueue object stays the tree's): the template, the
    fail-on-exceeding flag and the management policy. ``cs.managed_parents`` maps paths to them."""

    __slots__ = ("fail_on_exceeding", "policy", "queue", "template")

    def __init__(self, cs: CapacityScheduler, conf: CapacitySchedulerConfiguration, queue: ParentQueue) -> None:
        self.queue = queue
        self.fail_on_exceeding = conf.get_should_fail_auto_queue_creation_when_guaranteed_capacity_exceeded(queue.path)
        self.template = build_leaf_queue_template(cs, conf, queue)
        conf.get_auto_created_queue_management_policy(queue.path)
        self.policy = GuaranteedOrZeroCapacityOverTimePolicy(self)

    @property
    def path(self) -> str:
        return self.queue.path

    def get_leaf_queue_template(self) -> AutoCreatedLeafQueueConfig:
        return self.template

    def entitlement(self, caps: QueueCapacities) -> AutoCreatedLeafQueueConfig:
        """``buildTemplate``: the capacities with the parent template's resource quotas."""
        return AutoCreatedLeafQueueConfig(caps, self.template.min_m, self.template.min_v)

    def validate_and_apply_queue_management_changes(
        self, cs: CapacityScheduler, changes: list[QueueManagementChange]
    ) -> None:
        """``validateAndApplyQueueManagementChanges``: capacities in [0, 1], merged into the leaves, committed."""
        for change in changes:
            if change.queue.parent is not self.queue:
                raise SchedulerDynamicEditException(
                    f"Queue {self.queue.path} is not a AutoEnabledParentQueue. Ignoring update {changes}"
                )
            capacity = change.template.capacities.capacity
            if capacity < 0 or capacity > 1.0:
                raise SchedulerDynamicEditException(f"Capacity demand is not in the [0,1] range: {capacity}")
        for change in changes:
            merge_capacities(cs, change.queue, change.template, self.template)
        self.policy.commit_queue_management_changes(cs, changes)
        for change in changes:
            _refresh_derived(cs, change.queue)


def _refresh_derived(cs: CapacityScheduler, leaf: LeafQueue) -> None:
    """What Hadoop computes on demand from a leaf's capacities (user limit, headroom cap, AM limit and the pending
    applications it admits), which yarnball caches per cluster update: recomputed for a leaf whose entitlement
    changed. Maximum-applications is not (Hadoop recomputes it at the next updateClusterResource only)."""
    ctx = cs.context
    leaf.eff_max_norm_m, leaf.eff_max_norm_v = ctx.rc.round_down(leaf.eff_max_m, leaf.eff_max_v, ctx.min_m, ctx.min_v)
    leaf.update_user_limit_static(ctx)
    leaf.users_version += 1
    leaf.activate_applications(ctx)


def check_managed_parent(conf: CapacitySchedulerConfiguration, path: str) -> None:
    """A ManagedParentQueue "does not allow other pre-configured leaf or parent queues to co-exist along with auto
    created leaf queues" (its javadoc); Hadoop loads such a file and fails later (GuaranteedOrZero's rounds cast
    every child to AutoCreatedLeafQueue). yarnball refuses it at once, naming the keys."""
    children = conf.get_queues(path)
    if children:
        key = conf.get_queue_prefix(path) + k.QUEUES
        raise ConfigurationError(
            f"{conf.conf.location_of(key)}: {key}: queue {path} has {k.AUTO_CREATE_CHILD_QUEUE_ENABLED} = true and "
            f"configured children {','.join(children)}: a ManagedParentQueue may only hold auto-created leaf queues "
            "(yarnball refuses it; Hadoop's GuaranteedOrZeroCapacityOverTimePolicy fails on such children)"
        )


def init_managed_parents(cs: CapacityScheduler) -> None:
    """At start-up: a ManagedParentQueue for every parent with auto creation enabled (after the tree's first
    cluster resource update, as Hadoop builds it after ``setupQueueConfigs``)."""
    conf = cs.conf
    for path, queue in cs.queues.items():
        if (
            isinstance(queue, ParentQueue)
            and queue.parent is not None
            and conf.is_auto_create_child_queue_enabled(path)
        ):
            check_managed_parent(conf, path)
            cs.managed_parents[path] = ManagedParentQueue(cs, conf, queue)
            log.info(
                f"Created Managed Parent Queue: {path} with capacity: {queue.capacity} with max capacity: "
                f"{queue.max_capacity}"
            )


# -- creation -------------------------------------------------------------------------------------------------------
def _private_conf(cs: CapacityScheduler) -> CapacitySchedulerConfiguration:
    from yarnball.policies.capacity._autoqueues import _private_conf as private

    return private(cs)


def set_leaf_queue_configs(conf: CapacitySchedulerConfiguration, managed: ManagedParentQueue, name: str) -> None:
    """``ManagedParentQueue.setLeafQueueConfigs``: each template entry becomes the leaf's own key."""
    prefix = conf.get_queue_prefix(f"{managed.path}.{name}")
    for suffix, value in managed.template.entries.items():
        conf.conf.set(prefix + suffix, value)


def auto_create_leaf_queue(cs: CapacityScheduler, parent_path: str, name: str) -> LeafQueue:
    """``new AutoCreatedLeafQueue(cs, name, parent)`` + ``CapacityScheduler.addQueue``; raises
    SchedulerDynamicEditException with Hadoop's message when the parent refuses the child."""
    managed = cs.managed_parents.get(parent_path)
    if managed is None:
        raise SchedulerDynamicEditException(
            f"Could not auto-create leaf queue for {name}. Queue mapping specifies an invalid parent queue which does "
            f"not exist {parent_path}"
        )
    parent = managed.queue
    path = f"{parent.path}.{name}"
    if not name:
        raise SchedulerDynamicEditException(f"Could not auto-create leaf queue for {path}: the leaf name is empty")
    existing = cs.queues.get(path)
    if isinstance(existing, LeafQueue):
        return existing
    conf = cs.conf
    # ManagedParentQueue.addChildQueue's checks
    maximum = conf.get_auto_created_queues_max_child_queues_limit(parent.path)
    if len(parent.children) >= maximum:
        raise SchedulerDynamicEditException(
            f"Cannot auto create leaf queue {path}.Max Child Queue limit exceeded which is configured as : {maximum} "
            f"and number of child queues is : {len(parent.children)}"
        )
    if managed.fail_on_exceeding:
        total = 0.0
        for child in parent.children:
            total = f32(total + child.abs_cap)
        if f32(managed.template.capacities.abs_cap + total) > parent.abs_cap:
            raise SchedulerDynamicEditException(
                f"Cannot auto create leaf queue {path}. Child queues capacities have reached parent queue : "
                f"{parent.path}'s guaranteed capacity"
            )
    conf = _private_conf(cs)
    set_leaf_queue_configs(conf, managed, name)
    try:
        leaf = LeafQueue(conf, path, parent)
    except ConfigurationError as exc:  # a template value that does not parse
        raise SchedulerDynamicEditException(str(exc)) from exc
    # updateCapacitiesToZero (setEntitlement(0, template maximum)), then the policy's initial entitlement
    leaf.capacity = leaf.abs_cap = 0.0
    leaf.max_capacity = managed.template.capacities.max_capacity
    if parent.absolute:
        update_queue_capacities(cs, conf, parent, managed.template)  # "avoid NaN capacities" (addChildQueue)
    update_template_absolute_capacities(managed.template.capacities, parent)
    parent.children.append(leaf)
    cs.store_queue(leaf)
    initial = managed.policy.get_initial_leaf_queue_configuration(cs, leaf)
    merge_capacities(cs, leaf, initial, managed.template)
    # addChildQueue: "one update cluster resource call to make sure all absolute resources effective resources are
    # updated" (the parent's)
    ctx = cs.context
    parent.update_cluster_resource(ctx, ResourceLimits(ctx.cluster_m, ctx.cluster_v))
    log.info(f"Creation of AutoCreatedLeafQueue {path} succeeded")
    return leaf


def create_for_submission(cs: CapacityScheduler, name: str) -> tuple[LeafQueue | None, str | None]:
    """``getOrCreateQueueFromPlacementContext`` for a submission naming ``<parent>.<leaf>`` where ``<parent>`` (a
    full path or a unique short name) is a ManagedParentQueue (the placement context a queue mapping such as
    ``u:%user:<parent>.%user`` gives Hadoop). Returns (the leaf, None), (None, the failure) or (None, None) when the
    name is not for a ManagedParentQueue."""
    parent_name, _, leaf_name = name.rpartition(".")
    if not parent_name:
        return None, None
    parent = cs.get_queue(parent_name)
    if parent is None or parent.path not in cs.managed_parents:
        return None, None
    try:
        return auto_create_leaf_queue(cs, parent.path, leaf_name), None
    except SchedulerDynamicEditException as exc:
        log.error(f"Could not auto-create leaf queue due to : {exc}")
        return None, str(exc)


# -- the monitor (QueueManagementDynamicEditPolicy) -----------------------------------------------------------------
def manage_auto_created_leaf_queues(cs: CapacityScheduler) -> list[QueueManagementChange]:
    """``QueueManagementDynamicEditPolicy.editSchedule``: for each ManagedParentQueue (not failing on exceeding its
    capacity), the policy's changes, applied as the MANAGE_QUEUE event's handler applies them."""
    applied: list[QueueManagementChange] = []
    for managed in list(cs.managed_parents.values()):
        if managed.fail_on_exceeding:
            continue
        try:
            changes = managed.policy.compute_queue_management_changes(cs)
            if changes:
                managed.validate_and_apply_queue_management_changes(cs, changes)
                applied.extend(changes)
        except SchedulerDynamicEditException as exc:
            log.error(f"Queue Management Change event cannot be applied for parent queue : {managed.path}: {exc}")
    return applied


# -- refresh (ManagedParentQueue.reinitialize) ----------------------------------------------------------------------
def keep_auto_created_queues(
    cs: CapacityScheduler, old: dict[str, CSQueue], new: dict[str, CSQueue], conf: CapacitySchedulerConfiguration
) -> None:
    """``CapacitySchedulerQueueManager.updateQueues`` keeps an AutoCreatedLeafQueue whose parent is still a
    ManagedParentQueue: parsed again here, under the new parent, from the new template (``setLeafQueueConfigs``)."""
    managed: ManagedParentQueue
    for path, managed in cs.managed_parents.items():
        parsed = new.get(path)
        if not isinstance(parsed, ParentQueue) or not conf.is_auto_create_child_queue_enabled(path):
            continue
        check_managed_parent(conf, path)
        entries = _template_entries(conf, path)
        for child in managed.queue.children:
            if child.path in new or old.get(child.path) is not child:
                continue
            prefix = conf.get_queue_prefix(child.path)
            for suffix, value in entries.items():
                conf.conf.set(prefix + suffix, value)
            leaf = LeafQueue(conf, child.path, parsed)
            parsed.children.append(leaf)
            new[child.path] = leaf


def check_conversions(old: dict[str, CSQueue], new: dict[str, CSQueue], cs: CapacityScheduler,
                      conf: CapacitySchedulerConfiguration) -> None:  # fmt: skip
    """``CapacitySchedulerConfigValidator.validateParentQueueConversion``: no parent becomes a ManagedParentQueue,
    no ManagedParentQueue stops being one."""
    for path, old_q in old.items():
        new_q = new.get(path)
        if new_q is None or old_q.is_leaf:
            continue
        was = path in cs.managed_parents
        now = not new_q.is_leaf and new_q.parent is not None and conf.is_auto_create_child_queue_enabled(path)
        if not was and now:
            raise ConfigurationError(
                f"Can not convert parent queue: {path} to auto create enabled parent queue since it could have other "
                "pre-configured queues which is not supported"
            )
        if was and not now:
            raise ConfigurationError(
                f"Cannot convert auto create enabled parent queue: {path} to leaf queue. Please check  parent "
                f"queue's configuration {k.AUTO_CREATE_CHILD_QUEUE_ENABLED} is set to true"
            )


def prepare_refresh(
    cs: CapacityScheduler, conf: CapacitySchedulerConfiguration, new: dict[str, CSQueue]
) -> dict[str, AutoCreatedLeafQueueConfig]:
    """The new templates, read before anything changes (a bad template refuses the refresh), and
    ``ManagedParentQueue.reinitialize``'s fail-on-exceeding check."""
    templates: dict[str, AutoCreatedLeafQueueConfig] = {}
    for path, queue in new.items():
        if not isinstance(queue, ParentQueue) or queue.parent is None:
            continue
        if not conf.is_auto_create_child_queue_enabled(path):
            continue
        check_managed_parent(conf, path)
        conf.get_auto_created_queue_management_policy(path)
        templates[path] = build_leaf_queue_template(cs, conf, queue)
        if conf.get_should_fail_auto_queue_creation_when_guaranteed_capacity_exceeded(path):
            managed = cs.managed_parents.get(path)
            if managed is not None:
                total = 0.0
                for child in managed.queue.children:
                    total = f32(total + child.capacity)
                if queue.capacity < total:
                    raise ConfigurationError(
                        f"Total of Auto Created leaf queues guaranteed capacity : {total} exceeds Parent queue's "
                        f"{path} guaranteed capacity {queue.capacity}.Cannot enforce policy to auto create queues "
                        "beyond parent queue's capacity"
                    )
    return templates


def finish_refresh(
    cs: CapacityScheduler, conf: CapacitySchedulerConfiguration, templates: dict[str, AutoCreatedLeafQueueConfig]
) -> None:
    """After the new tree is live: ``ManagedParentQueue.reinitialize`` for each ManagedParentQueue (the template
    read again, every auto-created leaf back at zero, the policy's state cleared, its changes computed and applied),
    new ManagedParentQueues created, gone ones dropped. Hadoop's quirk, kept: an absolute-mode leaf left inactive
    keeps the template's configured minimum (``setupQueueConfigs`` reads it again, and only a deactivation zeroes
    it), so the ``updateClusterResource`` that ends the refresh gives it the template's capacity all the same."""
    managed_parents: dict[str, ManagedParentQueue] = {}
    for path in templates:
        queue = cs.queues[path]
        assert isinstance(queue, ParentQueue)
        managed = cs.managed_parents.get(path)
        if managed is None:
            managed = ManagedParentQueue(cs, conf, queue)
        else:
            managed.queue = queue
            managed.fail_on_exceeding = conf.get_should_fail_auto_queue_creation_when_guaranteed_capacity_exceeded(path)
            managed.template = build_leaf_queue_template(cs, conf, queue)
        managed_parents[path] = managed
        template_max = managed.template.capacities.max_capacity
        for child in queue.children:
            if isinstance(child, LeafQueue):
                # AutoCreatedLeafQueue.reinitialize -> updateCapacitiesToZero
                child.capacity = child.abs_cap = 0.0
                child.max_capacity = template_max
        managed.policy.reinitialize()
        changes = managed.policy.compute_queue_management_changes(cs)
        managed.validate_and_apply_queue_management_changes(cs, changes)
        log.info(
            f"Reinitialized Managed Parent Queue: [{queue.name}] with capacity [{queue.capacity}] with max capacity "
            f"[{queue.max_capacity}]"
        )
    cs.managed_parents = managed_parents
