"""Hadoop's ``CapacitySchedulerConfiguration``: typed getters over ``capacity-scheduler.xml`` and its validation.

Getters follow CapacitySchedulerConfiguration (Hadoop 3.x) key by key. :meth:`validate` gathers the checks Hadoop
makes while it builds the queue tree (CapacitySchedulerQueueManager.parseQueue, ParentQueue.setChildQueues,
CSQueueUtils, CapacitySchedulerConfigValidator) and raises the first failure, as Hadoop does, with Hadoop's own
wording prefixed by the file, line and key at fault.

Java ``float`` arithmetic is reproduced where a message prints a float (capacities are floats in Hadoop, so a
children sum of 60 + 50 reads "1.1" and 30 + 70.5 reads "1.005").
"""

from __future__ import annotations

import math
import re

from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError, one_line
from yarnball.policies.capacity._absolute import parse_resource_vector
from yarnball.policies.capacity._validation import java_float_str, validate_capacity_configuration
from yarnball.policies.scheduler._acl import AccessControlList, QueueACL, QueueState
from yarnball.protocols import Configuration, Resource
from yarnball.protocols import keys as k

__all__ = [
    "AccessControlList",
    "CapacitySchedulerConfiguration",
    "QueueACL",
    "QueueState",
    "java_float_str",
]

log = get_logger(__name__)

# CapacitySchedulerConfiguration.RESOURCE_PATTERN (matched with find(), anywhere in the value)
_RESOURCE_PATTERN = re.compile(r"\[([^\]]+)]")
_APP_ORDERING_POLICIES = {
    "fifo": "fifo",
    "fair": "fair",
    "fifo-with-partitions": "fifo-with-partitions",
    "fifo-for-pending-apps": "fifo-for-pending-apps",
    # Hadoop also accepts the class names.
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicy": "fifo",
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FairOrderingPolicy": "fair",
}
_QUEUE_ORDERING_POLICIES = (k.QUEUE_UTILIZATION_ORDERING_POLICY, k.QUEUE_PRIORITY_UTILIZATION_ORDERING_POLICY)


class CapacitySchedulerConfiguration:
    """Typed, validated view of the ``yarn.scheduler.capacity.*`` keys of a :class:`Configuration`."""

    ROOT = k.ROOT
    PREFIX = k.CS_PREFIX

    __slots__ = ("conf",)

    def __init__(self, conf: Configuration) -> None:
        self.conf = conf

    # -- keys and errors -------------------------------------------------------------------------------------
    @staticmethod
    def get_queue_prefix(path: str) -> str:
        """``yarn.scheduler.capacity.<path>.``"""
        return k.CS_PREFIX + path + k.DOT

    def _key(self, path: str, suffix: str) -> str:
        return self.get_queue_prefix(path) + suffix

    def _error(self, key: str, message: str) -> ConfigurationError:
        return ConfigurationError(f"{self.conf.location_of(key)}: {key}: {message}")

    def _float(self, key: str, default: float) -> float:
        value = self.conf.get_float(key, default)
        if math.isnan(value) or math.isinf(value):
            # yarnball: Java's Float.parseFloat reads "NaN" and "Infinity" and Hadoop computes with them (a NaN
            # capacity passes every range check); yarnball's integer resource arithmetic cannot, so it refuses.
            raise self._error(
                key, f"{self.conf.get(key)!r} is not a finite number (yarnball: expected a finite number)"
            )
        return value

    def _int(self, key: str, default: int) -> int:
        return self.conf.get_int(key, default)

    # -- the queue tree --------------------------------------------------------------------------------------
    def get_queues(self, path: str) -> list[str]:
        """Child short names of ``path`` (``getQueues``: trimmed, comma or newline separated; empty = leaf)."""
        return self.conf.get_strings(self._key(path, k.QUEUES))

    def is_leaf(self, path: str) -> bool:
        """A queue without children."""
        return not self.get_queues(path)

    def get_queue_paths(self) -> list[str]:
        """Every queue path reachable from root, depth first in declaration order (root first)."""
        paths: list[str] = []
        stack = [k.ROOT]
        while stack:
            path = stack.pop()
            paths.append(path)
            stack.extend(f"{path}.{child}" for child in reversed(self.get_queues(path)))
        return paths

    # -- capacities ------------------------------------------------------------------------------------------
    def _reject_weight(self, key: str, value: str) -> None:
        if value.endswith(k.WEIGHT_SUFFIX):
            # CapacitySchedulerConfiguration.getNonLabeledQueueMaximumCapacity: weights are capacities only.
            raise self._error(
                key, f"a weight ({value!r}) is a capacity only (expected a maximum-capacity percentage or vector)"
            )

    def get_capacity(self, path: str) -> float:
        """``capacity`` in percent; root is always 100, a missing value is 0 (Hadoop 3.x). An absolute resource
        vector reads as 0 here (getNonLabeledQueueCapacity): its percentage is derived from the effective minimum
        resource at every cluster resource update (AbstractCSQueue.deriveCapacityFromAbsoluteConfigurations). A
        weight (``2w``) reads as 0 too (``configuredWeightAsCapacity``): see :meth:`get_weight`."""
        key = self._key(path, k.CAPACITY)
        raw = self.conf.get(key)
        if raw is not None:
            if _RESOURCE_PATTERN.search(raw) or raw.endswith(k.WEIGHT_SUFFIX):
                return 100.0 if path == k.ROOT else 0.0
        if path == k.ROOT:
            return 100.0
        capacity = 0.0 if raw is None else self._float(key, 0.0)
        if not k.MINIMUM_CAPACITY_VALUE <= capacity <= k.MAXIMUM_CAPACITY_VALUE:
            # CapacitySchedulerConfiguration.getNonLabeledQueueCapacity
            raise self._error(key, f"Illegal capacity of {java_float_str(capacity)} for queue {path}")
        return capacity

    def get_maximum_capacity(self, path: str) -> float:
        """``maximum-capacity`` in percent; default 100, and -1 (UNDEFINED) also means 100. An absolute resource
        vector reads as 100 (getNonLabeledQueueMaximumCapacity)."""
        key = self._key(path, k.MAXIMUM_CAPACITY)
        raw = self.conf.get(key)
        if raw is None:
            return k.MAXIMUM_CAPACITY_VALUE
        self._reject_weight(key, raw)
        if _RESOURCE_PATTERN.search(raw):
            return k.MAXIMUM_CAPACITY_VALUE
        maximum = self._float(key, k.MAXIMUM_CAPACITY_VALUE)
        return k.MAXIMUM_CAPACITY_VALUE if maximum == k.DEFAULT_MAXIMUM_CAPACITY_VALUE else maximum

    def get_weight(self, path: str) -> float:
        """``getNonLabeledQueueWeight``: the weight of a ``capacity`` written ``<float>w`` (Hadoop 3.3+), else -1
        (not in weight mode). Weights are normalized among siblings (ParentQueue.updateClusterResource)."""
        key = self._key(path, k.CAPACITY)
        raw = self.conf.get(key)
        if raw is None or not raw.endswith(k.WEIGHT_SUFFIX):
            return -1.0
        text = raw[: -len(k.WEIGHT_SUFFIX)].strip()
        try:
            weight = float(text)
        except ValueError:
            # Float.parseFloat's NumberFormatException
            raise self._error(key, f'For input string: "{text}" (expected a weight such as 2w or 0.5w)') from None
        if math.isnan(weight) or math.isinf(weight):
            raise self._error(key, f"{raw!r} is not a finite weight (yarnball: expected a finite number before w)")
        return weight

    def is_auto_queue_creation_v2_enabled(self, path: str) -> bool:
        """``isAutoQueueCreationV2Enabled``: ``<path>.auto-queue-creation-v2.enabled`` (default false)."""
        return self.conf.get_bool(
            self._key(path, k.AUTO_QUEUE_CREATION_V2_ENABLED), k.AUTO_QUEUE_CREATION_V2_ENABLED_DEFAULT
        )

    def is_auto_creation_parent(self, path: str) -> bool:
        """Whether ``path`` creates missing children on submission (auto-queue-creation v2, or legacy auto
        creation: a ManagedParentQueue), and so is a parent even without children of its own
        (``CapacitySchedulerQueueManager.parseQueue``)."""
        return self.is_auto_queue_creation_v2_enabled(path) or self.is_auto_create_child_queue_enabled(path)

    # -- legacy auto-created leaf queues (ManagedParentQueue, Hadoop 3.1+) ----------------------------------------
    def is_auto_create_child_queue_enabled(self, path: str) -> bool:
        """``isAutoCreateChildQueueEnabled``: ``<path>.auto-create-child-queue.enabled`` (default false)."""
        return self.conf.get_bool(
            self._key(path, k.AUTO_CREATE_CHILD_QUEUE_ENABLED), k.AUTO_CREATE_CHILD_QUEUE_ENABLED_DEFAULT
        )

    @staticmethod
    def get_auto_created_queue_template_conf_prefix(path: str) -> str:
        """``getAutoCreatedQueueTemplateConfPrefix``: ``<path>.leaf-queue-template``, the template's queue path."""
        return path + k.DOT + k.AUTO_CREATED_LEAF_QUEUE_TEMPLATE_PREFIX

    def get_auto_created_queues_max_child_queues_limit(self, path: str) -> int:
        """``getAutoCreatedQueuesMaxChildQueuesLimit``: ``auto-create-child-queue.max-queues`` (1000)."""
        return self._int(self._key(path, k.AUTO_CREATE_QUEUE_MAX_QUEUES), k.AUTO_CREATE_QUEUE_MAX_QUEUES_DEFAULT)

    def get_should_fail_auto_queue_creation_when_guaranteed_capacity_exceeded(self, path: str) -> bool:
        """``auto-create-child-queue.fail-on-exceeding-parent-capacity`` (default false)."""
        return self.conf.get_bool(
            self._key(path, k.FAIL_AUTO_CREATION_ON_EXCEEDING_CAPACITY),
            k.FAIL_AUTO_CREATION_ON_EXCEEDING_CAPACITY_DEFAULT,
        )

    def get_auto_created_queue_management_policy(self, path: str) -> str:
        """``getAutoCreatedQueueManagementPolicyClass``: only GuaranteedOrZeroCapacityOverTimePolicy exists (its
        class name or simple name); any other class fails as Hadoop's class loading does."""
        key = self._key(path, k.AUTO_CREATED_QUEUE_MANAGEMENT_POLICY)
        raw = (self.conf.get(key) or k.AUTO_CREATED_QUEUE_MANAGEMENT_POLICY_DEFAULT).strip()
        default = k.AUTO_CREATED_QUEUE_MANAGEMENT_POLICY_DEFAULT
        if raw not in (default, default.rsplit(".", 1)[1]):
            raise self._error(
                key,
                f"Could not instantiate AutoCreatedQueueManagementPolicy: {raw} for queue: {path} "
                f"(yarnball models {default} only)",
            )
        return default

    def get_auto_created_queues_v2_max_child_queues_limit(self, path: str) -> int:
        """``getAutoCreatedQueuesV2MaxChildQueuesLimit``: ``<path>.auto-queue-creation-v2.max-queues`` (1000)."""
        return self._int(
            self._key(path, k.AUTO_QUEUE_CREATION_V2_MAX_QUEUES), k.AUTO_QUEUE_CREATION_V2_MAX_QUEUES_DEFAULT
        )

    def get_maximum_auto_created_queue_depth(self, path: str) -> int:
        """``getMaximumAutoCreatedQueueDepth``: the queue's ``auto-queue-creation-v2.maximum-queue-depth``, else the
        global one, else 2."""
        default = self._int(k.CS_PREFIX + k.MAXIMUM_QUEUE_DEPTH, k.MAXIMUM_QUEUE_DEPTH_DEFAULT)
        return self._int(self._key(path, k.MAXIMUM_QUEUE_DEPTH), default)

    def is_auto_expired_deletion_enabled(self, path: str) -> bool:
        """``isAutoExpiredDeletionEnabled``: ``<path>.auto-queue-creation-v2.queue-auto-removal.enable`` (true)."""
        return self.conf.get_bool(
            self._key(path, k.AUTO_CREATE_CHILD_QUEUE_AUTO_REMOVAL_ENABLE),
            k.AUTO_CREATE_CHILD_QUEUE_AUTO_REMOVAL_ENABLE_DEFAULT,
        )

    def get_auto_expired_deletion_time(self) -> int:
        """``getAutoExpiredDeletionTime``: seconds a dynamic queue stays idle before it is removed (300)."""
        return self._int(k.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME, k.AUTO_CREATE_CHILD_QUEUE_EXPIRED_TIME_DEFAULT)

    def is_absolute_resource(self, path: str) -> bool:
        """``checkConfigTypeIsAbsoluteResource`` (default partition): the queue is in ABSOLUTE_RESOURCE mode when
        its ``capacity`` holds a non-empty ``[...]`` vector (even one without memory, which configures none)."""
        raw = self.conf.get(self._key(path, k.CAPACITY))
        if raw is None:
            return False
        match = _RESOURCE_PATTERN.search(raw)
        return match is not None and bool(match.group(0).strip())

    def get_minimum_resource_requirement(self, path: str) -> tuple[int, int]:
        """``getMinimumResourceRequirement``: the ``capacity`` vector as ``(memory_mb, vcores)``; ``(0, 0)`` is
        Resources.none() (not a vector, or no memory in it)."""
        return self._resource_requirement(self._key(path, k.CAPACITY))

    def get_maximum_resource_requirement(self, path: str) -> tuple[int, int]:
        """``getMaximumResourceRequirement``: the ``maximum-capacity`` vector, ``(0, 0)`` for none."""
        return self._resource_requirement(self._key(path, k.MAXIMUM_CAPACITY))

    def _resource_requirement(self, key: str) -> tuple[int, int]:
        raw = self.conf.get(key)
        if raw is None:
            return (0, 0)
        try:
            vector = parse_resource_vector(key, raw)
        except ConfigurationError as exc:
            raise ConfigurationError(f"{self.conf.location_of(key)}: {exc}") from None
        return (0, 0) if vector is None else vector

    # -- users and applications ------------------------------------------------------------------------------
    def get_user_limit(self, path: str) -> float:
        """``minimum-user-limit-percent`` (default 100; the global ``yarn.scheduler.capacity.`` value if set): a
        float since Hadoop 3.3 (``getFloat``; TestLeafQueue.testDecimalUserLimits uses 50.1)."""
        default = self._float(k.CS_PREFIX + k.USER_LIMIT, float(k.DEFAULT_USER_LIMIT))
        return self._float(self._key(path, k.USER_LIMIT), default)

    def get_user_limit_factor(self, path: str) -> float:
        """``user-limit-factor`` (default 1.0; the global value if set)."""
        default = self._float(k.CS_PREFIX + k.USER_LIMIT_FACTOR, k.DEFAULT_USER_LIMIT_FACTOR)
        return self._float(self._key(path, k.USER_LIMIT_FACTOR), default)

    def get_user_weight(self, path: str, user: str) -> float:
        """``user-settings.<user>.weight`` (default 1.0)."""
        return self._float(self._key(path, f"{k.USER_SETTINGS}.{user}.{k.USER_WEIGHT}"), k.DEFAULT_USER_WEIGHT)

    def get_maximum_system_applications(self) -> int:
        """``maximum-applications`` (default 10000)."""
        return self._int(k.MAXIMUM_SYSTEM_APPLICATIONS, k.DEFAULT_MAXIMUM_SYSTEM_APPLICATIONS)

    def get_maximum_application_master_resource_percent(self) -> float:
        """Global ``maximum-am-resource-percent`` (a fraction, default 0.1)."""
        return self._float(
            k.MAXIMUM_APPLICATION_MASTERS_RESOURCE_PERCENT, k.DEFAULT_MAXIMUM_APPLICATION_MASTERS_RESOURCE_PERCENT
        )

    def get_maximum_am_resource_percent(self, path: str) -> float:
        """The queue's ``maximum-am-resource-percent``, else the global one."""
        return self._float(
            self._key(path, k.MAXIMUM_AM_RESOURCE_SUFFIX), self.get_maximum_application_master_resource_percent()
        )

    def get_maximum_applications_per_queue(self, path: str) -> int:
        """The queue's ``maximum-applications``; -1 (UNDEFINED) when unset."""
        return self._int(self._key(path, k.MAXIMUM_APPLICATIONS_SUFFIX), k.UNDEFINED)

    def get_global_maximum_applications_per_queue(self) -> int:
        """``global-queue-max-application``; -1 when unset."""
        return self._int(k.QUEUE_GLOBAL_MAX_APPLICATION, k.UNDEFINED)

    def get_max_parallel_apps(self, path: str) -> int | None:
        """The queue's ``max-parallel-apps``, else the global one; None when neither is set (unlimited)."""
        value = self.conf.get(self._key(path, k.MAX_PARALLEL_APPLICATIONS))
        if value is not None:
            return self._int(self._key(path, k.MAX_PARALLEL_APPLICATIONS), 0)
        if k.CS_PREFIX + k.MAX_PARALLEL_APPLICATIONS in self.conf:
            return self._int(k.CS_PREFIX + k.MAX_PARALLEL_APPLICATIONS, 0)
        return None

    def get_max_parallel_apps_for_user(self, user: str) -> int | None:
        """``user.<user>.max-parallel-apps``, else ``user.max-parallel-apps``; None when neither is set."""
        own = f"{k.CS_PREFIX}user.{user}.{k.MAX_PARALLEL_APPLICATIONS}"
        default = f"{k.CS_PREFIX}user.{k.MAX_PARALLEL_APPLICATIONS}"
        for key in (own, default):
            if key in self.conf:
                return self._int(key, 0)
        return None

    # -- state, ACLs, priorities, ordering -------------------------------------------------------------------
    def get_configured_state(self, path: str) -> QueueState | None:
        """The ``state`` as configured, or None."""
        key = self._key(path, k.STATE)
        raw = self.conf.get(key)
        if raw is None:
            return None
        value = raw.strip().upper()
        try:
            return QueueState(value)
        except ValueError:
            # Hadoop's wording, the value's unprintable characters escaped (the error stays on one line)
            raise self._error(
                key, f"No enum constant QueueState.{one_line(value)} (expected RUNNING or STOPPED)"
            ) from None

    def get_state(self, path: str) -> QueueState:
        """``state``, RUNNING by default. A STOPPED parent stopping its children is the scheduler's job."""
        return self.get_configured_state(path) or QueueState.RUNNING

    def get_acl(self, path: str, acl: QueueACL) -> AccessControlList:
        """``acl_submit_applications`` / ``acl_administer_queue``: root defaults to "*", other queues to " "."""
        default = k.ALL_ACL if path == k.ROOT else k.NONE_ACL
        # Configuration strips values, so a configured " " reads as "": both mean nobody.
        value = self.conf.get(self._key(path, acl.key_suffix))
        return AccessControlList(default if value is None else value)

    def get_priority(self, path: str) -> int:
        """The queue's ``priority`` (default 0)."""
        return self._int(self._key(path, k.PRIORITY), k.DEFAULT_QUEUE_PRIORITY)

    def get_default_application_priority(self, path: str) -> int:
        """``default-application-priority`` (default 0)."""
        return self._int(self._key(path, k.DEFAULT_APPLICATION_PRIORITY), k.DEFAULT_CONFIGURATION_APPLICATION_PRIORITY)

    def get_ordering_policy(self, path: str) -> str:
        """A leaf's application ordering policy: ``"fifo"`` (default) or ``"fair"`` (also Hadoop's class names)."""
        key = self._key(path, k.ORDERING_POLICY)
        raw = (self.conf.get(key) or k.DEFAULT_APP_ORDERING_POLICY).strip()
        policy = _APP_ORDERING_POLICIES.get(raw)
        if policy is None:
            raise self._error(key, f"Unable to construct ordering policy for: {raw} (expected fifo or fair)")
        return policy

    def get_queue_ordering_policy(self, path: str, parent_policy: str | None = None) -> str:
        """A parent's child ordering: ``utilization`` (default, or the parent's) or ``priority-utilization``."""
        key = self._key(path, k.ORDERING_POLICY)
        raw = (self.conf.get(key) or parent_policy or k.DEFAULT_QUEUE_ORDERING_POLICY).strip()
        if raw not in _QUEUE_ORDERING_POLICIES:
            raise self._error(
                key,
                f"Unable to construct queue ordering policy={raw} queue={path} "
                "(expected utilization or priority-utilization)",
            )
        return raw

    def get_enable_size_based_weight(self, path: str) -> bool:
        """``ordering-policy.fair.enable-size-based-weight`` of the FairOrderingPolicy (default false)."""
        return self.conf.get_bool(self._key(path, f"{k.ORDERING_POLICY}.{k.ENABLE_SIZE_BASED_WEIGHT}"), False)

    def get_preemption_disabled(self, path: str, default: bool) -> bool:
        """``disable_preemption``, with the inherited value as ``default`` (AbstractCSQueue)."""
        return self.conf.get_bool(self._key(path, k.QUEUE_PREEMPTION_DISABLED), default)

    # -- locality and heartbeats -----------------------------------------------------------------------------
    def get_node_locality_delay(self) -> int:
        return self._int(k.NODE_LOCALITY_DELAY, k.DEFAULT_NODE_LOCALITY_DELAY)

    def get_rack_locality_additional_delay(self) -> int:
        return self._int(k.RACK_LOCALITY_ADDITIONAL_DELAY, k.DEFAULT_RACK_LOCALITY_ADDITIONAL_DELAY)

    def get_rack_locality_full_reset(self) -> bool:
        return self.conf.get_bool(k.RACK_LOCALITY_FULL_RESET, k.DEFAULT_RACK_LOCALITY_FULL_RESET)

    def get_reservation_continue_look(self) -> bool:
        return self.conf.get_bool(k.RESERVE_CONT_LOOK_ALL_NODES, k.DEFAULT_RESERVE_CONT_LOOK_ALL_NODES)

    def get_assign_multiple_enabled(self) -> bool:
        return self.conf.get_bool(k.ASSIGN_MULTIPLE_ENABLED, k.DEFAULT_ASSIGN_MULTIPLE_ENABLED)

    def get_max_assign_per_heartbeat(self) -> int:
        return self._int(k.MAX_ASSIGN_PER_HEARTBEAT, k.DEFAULT_MAX_ASSIGN_PER_HEARTBEAT)

    def get_offswitch_per_heartbeat_limit(self) -> int:
        """``per-node-heartbeat.maximum-offswitch-assignments``; Hadoop resets values below 1 to 1 (warns)."""
        limit = self._int(k.OFFSWITCH_PER_HEARTBEAT_LIMIT, k.DEFAULT_OFFSWITCH_PER_HEARTBEAT_LIMIT)
        if limit < 1:
            log.warning(
                "offswitch per heartbeat limit below 1; using the default",
                key=k.OFFSWITCH_PER_HEARTBEAT_LIMIT,
                value=limit,
                default=k.DEFAULT_OFFSWITCH_PER_HEARTBEAT_LIMIT,
            )
            limit = k.DEFAULT_OFFSWITCH_PER_HEARTBEAT_LIMIT
        return limit

    def get_lazy_preemption_enabled(self) -> bool:
        return self.conf.get_bool(k.LAZY_PREEMPTION_ENABLED, k.DEFAULT_LAZY_PREEMPTION_ENABLED)

    def get_resource_calculator(self) -> str:
        """``"default"`` (DefaultResourceCalculator, memory only) or ``"dominant"`` (DominantResourceCalculator)."""
        key = k.RESOURCE_CALCULATOR_CLASS
        name = (self.conf.get(key) or k.DEFAULT_RESOURCE_CALCULATOR_CLASS).strip()
        short = name.rsplit(".", 1)[-1]
        if short == "DefaultResourceCalculator":
            return "default"
        if short == "DominantResourceCalculator":
            return "dominant"
        raise self._error(
            key,
            f"unknown resource calculator {name!r} (expected {k.DEFAULT_RESOURCE_CALCULATOR_CLASS} or "
            f"{k.DOMINANT_RESOURCE_CALCULATOR_CLASS})",
        )

    # -- allocation ------------------------------------------------------------------------------------------
    def get_minimum_allocation(self) -> Resource:
        """``yarn.scheduler.minimum-allocation-mb`` / ``-vcores``."""
        return Resource(
            self._int(k.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, k.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_MB),
            self._int(k.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES, k.DEFAULT_RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES),
        )

    def get_maximum_allocation(self, path: str | None = None) -> Resource:
        """The queue's ``maximum-allocation-mb`` / ``-vcores`` when set, else the cluster's maximum allocation."""
        cluster = Resource(
            self._int(k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB),
            self._int(k.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, k.DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES),
        )
        if path is None:
            return cluster
        memory = self._int(self._key(path, k.MAXIMUM_ALLOCATION_MB), k.UNDEFINED)
        vcores = self._int(self._key(path, k.MAXIMUM_ALLOCATION_VCORES), k.UNDEFINED)
        return Resource(
            cluster.memory_mb if memory == k.UNDEFINED else memory,
            cluster.vcores if vcores == k.UNDEFINED else vcores,
        )

    # -- validation ------------------------------------------------------------------------------------------
    def validate(self, cluster: Resource | None = None) -> None:
        """Raise :class:`ConfigurationError` for the first rule Hadoop would reject the configuration by.
        ``cluster`` is the cluster resource absolute-resource limits are compared against (none at start-up; the
        live one on a refresh, which matters for the DominantResourceCalculator only)."""
        validate_capacity_configuration(self, (0, 0) if cluster is None else (cluster.memory_mb, cluster.vcores))
