"""``FSQueueConverter``: each FairScheduler queue's settings as CapacityScheduler keys (fair.md §8.4).

``convert_queue_hierarchy`` walks the tree in pre-order and, for each queue, writes under
``yarn.scheduler.capacity.<full path>.``: its children, AM share, running-app limit, container size limit,
preemption flag, the children's capacities (weight or percentage mode), ``maximum-capacity=100``, the size-based
weight flag, a leaf's ordering policy and a childless queue's ``user-limit-factor=-1``. minResources, maxResources and
maxChildResources have no equivalent: each goes through its conversion rule (a warning, or an abort).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from yarnball.policies.fair.converter._output import ConvertedConfiguration, queue_prefix
from yarnball.policies.fair.converter._queues import ConvertedQueue, is_unbounded
from yarnball.policies.fair.converter._rulehandler import ConversionOptions, FSConfigToCSConfigRuleHandler
from yarnball.policies.fair.converter._weights import get_converter
from yarnball.protocols import Resource

__all__ = ["QUEUE_MAX_AM_SHARE_DISABLED", "FSQueueConverter"]

QUEUE_MAX_AM_SHARE_DISABLED: Final = -1.0
MAX_RUNNING_APPS_UNSET: Final = 2**31 - 1
FAIR_POLICY: Final = "fair"
FIFO_POLICY: Final = "fifo"
_INT_MIN: Final = -(2**31)


@dataclass(slots=True)
class FSQueueConverter:
    """``FSQueueConverter`` (built by ``FSQueueConverterBuilder`` in Hadoop)."""

    rule_handler: FSConfigToCSConfigRuleHandler
    cs_config: ConvertedConfiguration
    conversion_options: ConversionOptions
    preemption_enabled: bool = False
    size_based_weight: bool = False
    cluster_resource: Resource | None = None  # parsed from -c, unused (as in Hadoop's trunk)
    queue_max_am_share_default: float = 0.5
    queue_max_apps_default: int = MAX_RUNNING_APPS_UNSET
    drf_used: bool = False
    use_percentages: bool = False

    def convert_queue_hierarchy(self, queue: ConvertedQueue) -> None:
        name = queue.name
        self._emit_child_queues(name, queue.children)
        self._emit_max_am_share(name, queue)
        self._emit_max_parallel_apps(name, queue)
        self._emit_max_allocations(name, queue)
        self._emit_preemption_disabled(name, queue)
        self._emit_child_capacity(queue)
        self._emit_maximum_capacity(name, queue)
        self._emit_size_based_weight(name)
        self._emit_ordering_policy(name, queue)
        self._check_max_child_capacity_setting(queue)
        self.emit_default_user_limit_factor(name, queue.children)
        for child in queue.children:
            self.convert_queue_hierarchy(child)

    def _emit_child_queues(self, name: str, children: list[ConvertedQueue]) -> None:
        self.rule_handler.handle_child_queue_count(name, len(children))
        if children:
            self.cs_config.set_queues(name, [child.name.rsplit(".", 1)[-1] for child in children])

    def _emit_max_am_share(self, name: str, queue: ConvertedQueue) -> None:
        share = queue.settings.max_am_share  # Java floats compared exactly, as Hadoop does
        default = self.queue_max_am_share_default
        if share not in (0.0, default, QUEUE_MAX_AM_SHARE_DISABLED):
            self.cs_config.set_maximum_am_resource_percent_per_queue(name, share)
        if share == QUEUE_MAX_AM_SHARE_DISABLED and share != default:
            self.cs_config.set_maximum_am_resource_percent_per_queue(name, 1.0)

    def _emit_max_parallel_apps(self, name: str, queue: ConvertedQueue) -> None:
        apps = queue.settings.max_running_apps
        if apps not in (MAX_RUNNING_APPS_UNSET, self.queue_max_apps_default):
            self.cs_config.set_max_parallel_apps_for_queue(name, str(apps))

    def _emit_max_allocations(self, name: str, queue: ConvertedQueue) -> None:
        """Only where the limit differs from the parent's."""
        maximum = queue.get_maximum_container_allocation()
        if is_unbounded(maximum, queue.resource_types):
            return
        parent_vcores, parent_memory = _INT_MIN, _INT_MIN
        if queue.parent is not None:
            parent_max = queue.parent.get_maximum_container_allocation()
            if not is_unbounded(parent_max, queue.resource_types):
                parent_vcores, parent_memory = parent_max.vcores, parent_max.memory_mb
        if maximum.vcores != parent_vcores or maximum.memory_mb != parent_memory:
            memory = (maximum.memory_mb + 2**31) % 2**32 - 2**31  # (int) maxMemory
            self.cs_config.set_queue_maximum_allocation(name, memory, maximum.vcores)

    def _emit_preemption_disabled(self, name: str, queue: ConvertedQueue) -> None:
        if self.preemption_enabled and not queue.settings.preemptable:
            self.cs_config.set_preemption_disabled(name, True)

    def emit_default_user_limit_factor(self, name: str, children: list[ConvertedQueue]) -> None:
        if not children and not self.cs_config.is_auto_queue_creation_v2_enabled(name):
            self.cs_config.set_user_limit_factor(name, -1.0)

    def _emit_size_based_weight(self, name: str) -> None:
        if self.size_based_weight:
            self.cs_config.set_boolean(queue_prefix(name) + "ordering-policy.fair.enable-size-based-weight", True)

    def _emit_ordering_policy(self, name: str, queue: ConvertedQueue) -> None:
        if not queue.leaf:
            return
        policy = queue.policy_name
        if policy == "DRF":
            self.cs_config.set_ordering_policy(name, FAIR_POLICY)
        elif policy == "fair":
            self.cs_config.set_ordering_policy(name, FAIR_POLICY)
            if self.drf_used:
                self.rule_handler.handle_fair_as_drf(name)
        elif policy == "FIFO":
            self.cs_config.set_ordering_policy(name, FIFO_POLICY)
        else:
            # String.format("%s", queue) is FSQueue.toString; the queue's name stands for it.
            self.conversion_options.handle_conversion_error(f"Unexpected ordering policy on queue {name}: {policy}")

    def _emit_child_capacity(self, queue: ConvertedQueue) -> None:
        get_converter(self.use_percentages).convert_weights_for_child_queues(queue, self.cs_config)
        if any(value != 0 for value in _components(queue.settings.min_share)):
            self.rule_handler.handle_min_resources()

    def _emit_maximum_capacity(self, name: str, queue: ConvertedQueue) -> None:
        raw = queue.settings.max_share
        maximum = raw.get_resource()
        if (maximum is None and raw.percentages is not None) or (
            maximum is not None and not is_unbounded(maximum, queue.resource_types)
        ):
            self.rule_handler.handle_max_resources()
        self.cs_config.set_maximum_capacity(name, 100.0)

    def _check_max_child_capacity_setting(self, queue: ConvertedQueue) -> None:
        """``maxChildResources`` has no equivalent ("leaf-queue-template.capacity" takes one percentage only)."""
        child = queue.settings.max_child_resources
        if child is None:
            return
        resource = child.get_resource()
        if (resource is not None and not is_unbounded(resource, queue.resource_types)) or child.percentages is not None:
            self.rule_handler.handle_max_child_capacity()


def _components(resource: Resource) -> tuple[int, ...]:
    return (resource.memory_mb, resource.vcores, *(value for _, value in resource.extended))
