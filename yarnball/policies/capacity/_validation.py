"""Validation of a capacity-scheduler configuration, in the order and wording Hadoop uses.

Hadoop checks the configuration while it builds the queue tree: CapacitySchedulerConfigValidator (min/max
allocation) first, then CapacitySchedulerQueueManager.parseQueue depth first, each queue's capacities on
creation (CapacitySchedulerConfiguration getters, CSQueueUtils.capacitiesSanityCheck, the maximum allocation in
AbstractCSQueue) and each parent's children sum once its children exist (ParentQueue.setChildQueues, Hadoop
3.2 wording). Absolute-resource capacities (``[memory=...,vcores=...]``) get the checks of Hadoop's legacy queue mode:
AbstractCSQueue.updateConfigurableResourceLimits per queue (min above max, max above the parent's) and
ParentQueue.setChildQueues / getCapacityConfigurationTypeForQueues per parent (modes mixed among siblings or between a
parent and its children, children's minimum resources above the parent's). The first failure is raised. Weight
capacities (``2w``, Hadoop 3.3+) follow ParentQueue.setChildQueues: weights may not be mixed with percentages or
absolute resources among siblings, and weight children need no sum. Nothing Hadoop loads is rejected, with one
exception marked "yarnball": NaN/Infinity values (CapacitySchedulerConfiguration._float). Keys of undeclared queues,
which Hadoop ignores, are only warned about (not those of queues a parent may create dynamically).
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal
from typing import TYPE_CHECKING

from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError
from yarnball.policies.capacity._calculator import make_calculator
from yarnball.protocols import keys as k

if TYPE_CHECKING:
    from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration

__all__ = ["f32", "java_float_str", "validate_capacity_configuration"]

log = get_logger(__name__)

# ParentQueue.PRECISION: 0.05 % on capacity fractions.
PRECISION = 0.0005

# Resources.none() as (memory_mb, vcores), and ParentQueue.QueueCapacityType
NONE = (0, 0)
PERCENT = "PERCENT"
ABSOLUTE_RESOURCE = "ABSOLUTE_RESOURCE"
WEIGHT = "WEIGHT"


def _resource_str(r: tuple[int, int]) -> str:
    """Hadoop's ``Resource.toString``."""
    return f"<memory:{r[0]}, vCores:{r[1]}>"


# First components of a per-queue key suffix that are properties, not child queue names (used to spot keys
# that configure an undeclared queue).
QUEUE_PROPERTY_HEADS = frozenset(
    {
        k.QUEUES,
        k.CAPACITY,
        k.MAXIMUM_CAPACITY,
        k.USER_LIMIT,
        k.USER_LIMIT_FACTOR,
        k.USER_SETTINGS,
        k.STATE,
        k.ACCESSIBLE_NODE_LABELS,
        k.DEFAULT_NODE_LABEL_EXPRESSION,
        "maximum-allocation",
        k.MAXIMUM_ALLOCATION_MB,
        k.MAXIMUM_ALLOCATION_VCORES,
        k.ORDERING_POLICY,
        k.ACL_SUBMIT_APPLICATIONS,
        k.ACL_ADMINISTER_QUEUE,
        "acl_application_max_priority",
        k.PRIORITY,
        k.DEFAULT_APPLICATION_PRIORITY,
        k.QUEUE_PREEMPTION_DISABLED,
        "intra-queue-preemption",
        k.IS_RESERVABLE,
        k.RESERVATION_SHOW_RESERVATION_AS_QUEUE,
        "average-capacity",
        "instantaneous-max-capacity",
        "reservation-policy",
        "reservation-agent",
        "reservation-planner",
        "reservation-move-on-expiry",
        "reservation-enforcement-window",
        "reservation-window",
        k.MAXIMUM_APPLICATIONS_SUFFIX,
        k.MAXIMUM_AM_RESOURCE_SUFFIX,
        k.MAX_PARALLEL_APPLICATIONS,
        k.ALLOW_ZERO_CAPACITY_SUM,
        k.MINIMUM_RESOURCE,
        k.MAXIMUM_RESOURCE,
        "maximum-application-lifetime",
        "default-application-lifetime",
        "auto-create-child-queue",
        "leaf-queue-template",
        "auto-queue-creation-v2",
        "multi-node-placement-enabled",
        "multi-node-sorting",
    }
)


# -- Java float arithmetic ---------------------------------------------------------------------------------------
def f32(value: float) -> float:
    """Round to the nearest Java ``float``. One IEEE operation on two floats done in double and rounded with
    f32 gives exactly Java's float result (+, -, *, / are all safe from double rounding at 53 >= 2*24+2 bits)."""
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return float(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def java_float_str(value: float) -> str:
    """``Float.toString`` of ``value`` rounded to a Java float: ``1.1``, ``110.0``, ``-1.0``, ``1.0E-4``."""
    f = f32(value)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    if f == 0:
        return "-0.0" if math.copysign(1.0, f) < 0 else "0.0"
    shortest = repr(f)
    for digits in range(1, 10):
        candidate = f"{f:.{digits}g}"
        if f32(float(candidate)) == f:
            shortest = candidate
            break
    exact = Decimal(shortest)
    if 1e-3 <= abs(f) < 1e7:
        text = format(exact, "f")
        return text if "." in text else text + ".0"
    sign, digit_tuple, exponent = exact.as_tuple()
    assert isinstance(exponent, int)
    mantissa = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    power = len(digit_tuple) + exponent - 1
    return ("-" if sign else "") + mantissa[0] + "." + (mantissa[1:] or "0") + "E" + str(power)


# -- validation --------------------------------------------------------------------------------------------------
def _error(cs: CapacitySchedulerConfiguration, key: str, message: str) -> ConfigurationError:
    return ConfigurationError(f"{cs.conf.location_of(key)}: {key}: {message}")


def _check_allocation(cs: CapacitySchedulerConfiguration) -> None:
    # CapacitySchedulerConfigValidator.validateMemoryAllocation / validateVCores (YarnRuntimeException).
    minimum = cs.get_minimum_allocation()
    maximum = cs.get_maximum_allocation()
    checks = (
        ("memory", k.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB,
         minimum.memory_mb, maximum.memory_mb),
        ("vcores", k.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES, k.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES,
         minimum.vcores, maximum.vcores),
    )  # fmt: skip
    for kind, min_key, max_key, low, high in checks:
        if low <= 0 or low > high:
            # Name the key the user most likely got wrong: the minimum, unless only the maximum was set.
            explicit_max = cs.conf.source_of(max_key) != "default"
            key = max_key if low > 0 and explicit_max else min_key
            raise _error(
                cs,
                key,
                f"Invalid resource scheduler {kind} allocation configuration, {min_key}={low}, "
                f"{max_key}={high}, min and max should be greater than 0, max should be no smaller than min.",
            )


class _TreeValidator:
    """One depth-first walk of the queue tree, as CapacitySchedulerQueueManager.parseQueue does it."""

    def __init__(self, cs: CapacitySchedulerConfiguration, cluster: tuple[int, int] = (0, 0)) -> None:
        self.cs = cs
        self.leaf_names: dict[str, str] = {}
        self.paths: list[str] = []
        # The cluster resource the absolute-resource comparisons are made against (Resources.greaterThan /
        # lessThan with the scheduler's calculator): none at start-up, the live one on a refresh.
        self.cluster = cluster
        self.rc = make_calculator(cs.get_resource_calculator())
        # QueueResourceQuotas.getConfiguredMin/MaxResource per queue, (0, 0) = none; the maximum after inheritance.
        self.configured_min: dict[str, tuple[int, int]] = {}
        self.configured_max: dict[str, tuple[int, int]] = {}
        self.capacity: dict[str, float] = {}
        self.weight: dict[str, float] = {}

    def walk(self) -> None:
        cs = self.cs
        if not cs.get_queues(k.ROOT):
            raise _error(
                cs,
                cs.get_queue_prefix(k.ROOT) + k.QUEUES,
                "Queue configuration missing child queue names for root",
            )
        self._parse(k.ROOT, None, 1.0, 1.0, None)

    def _parse(
        self,
        path: str,
        parent: str | None,
        parent_abs_capacity: float,
        parent_abs_maximum: float,
        parent_policy: str | None,
    ) -> float:
        """Check one queue and its subtree; return its capacity as a Java float fraction."""
        cs = self.cs
        self.paths.append(path)
        name = path.rsplit(".", 1)[-1]
        children = cs.get_queues(path)

        # CSQueueUtils.loadUpdateAndCheckCapacities: percent getters (range), fractions, absolute values.
        capacity = f32(f32(cs.get_capacity(path)) / f32(100.0))
        # CapacitySchedulerConfiguration.getNonLabeledQueueMaximumCapacity has no range check in Hadoop 3.x (only
        # setMaximumCapacity has, and CSQueueUtils.checkMaxCapacity is "used only by tests"): a maximum above 100
        # loads; a negative one gives an absolute maximum of 0, which capacitiesSanityCheck below rejects unless
        # the capacity is 0 too.
        maximum_percent = cs.get_maximum_capacity(path)
        maximum = f32(f32(maximum_percent) / f32(100.0))
        # updateAbsoluteCapacitiesByNodeLabels only sets an absolute value for a positive fraction (else 0).
        abs_capacity = f32(capacity * parent_abs_capacity) if capacity > 0 else 0.0
        abs_maximum = f32(maximum * parent_abs_maximum) if maximum > 0 else 0.0
        if abs_capacity > abs_maximum:
            raise _error(
                cs,
                cs.get_queue_prefix(path) + k.MAXIMUM_CAPACITY,
                f"Illegal queue capacity setting (abs-capacity={java_float_str(abs_capacity)}) > "
                f"(abs-maximum-capacity={java_float_str(abs_maximum)}) for queue=[{path}],label=[]",
            )

        self.capacity[path] = capacity
        self.weight[path] = cs.get_weight(path)
        self._check_resource_limits(path, parent)

        # AbstractCSQueue.setupQueueConfigs: maximum allocation, state, ordering.
        cluster_max = cs.get_maximum_allocation()
        queue_max = cs.get_maximum_allocation(path)
        if not queue_max.fits_in(cluster_max):
            memory = queue_max.memory_mb > cluster_max.memory_mb
            cluster_key = k.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB if memory else k.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES
            # Hadoop's message, then where the cluster setting comes from (either side may be the one to change)
            raise _error(
                cs,
                cs.get_queue_prefix(path) + (k.MAXIMUM_ALLOCATION_MB if memory else k.MAXIMUM_ALLOCATION_VCORES),
                f"Queue maximum allocation cannot be larger than the cluster setting for queue {path} "
                f"max allocation per queue: {queue_max} cluster setting: {cluster_max} "
                f"({cluster_key} from {cs.conf.location_of(cluster_key)})",
            )
        cs.get_state(path)
        cs.get_priority(path)
        # Read here what the scheduler and the preemption monitor read later (at submission, at their first
        # round), so that a value that does not parse fails the configuration, not a running actor.
        cs.get_preemption_disabled(path, False)
        cs.get_default_application_priority(path)
        cs.get_max_parallel_apps(path)

        if children:
            policy = cs.get_queue_ordering_policy(path, parent_policy)
            self._check_children(path, name, children, capacity, abs_capacity, abs_maximum, policy)
        elif cs.is_auto_queue_creation_v2_enabled(path):
            # CapacitySchedulerQueueManager.parseQueue (Hadoop 3.3+): a queue without children that may create
            # dynamic ones is a ParentQueue (with no child yet, its children's capacity type is WEIGHT).
            cs.get_queue_ordering_policy(path, parent_policy)
            cs.get_auto_created_queues_v2_max_child_queues_limit(path)
            cs.get_maximum_auto_created_queue_depth(path)
        else:
            cs.get_ordering_policy(path)
            cs.get_enable_size_based_weight(path)
            self._check_leaf(path)
            # CapacitySchedulerQueueManager.parseQueue (Hadoop 2.x-3.2): leaf names are looked up without path.
            if name in self.leaf_names:
                raise _error(
                    cs,
                    cs.get_queue_prefix(parent or k.ROOT) + k.QUEUES,
                    f"Two leaf queues were named {name}. Leaf queue names must be distinct "
                    f"({self.leaf_names[name]} and {path})",
                )
            self.leaf_names[name] = path
        return capacity

    def _greater(self, a: tuple[int, int], b: tuple[int, int]) -> bool:
        return self.rc.greater_than(self.cluster[0], self.cluster[1], a[0], a[1], b[0], b[1])

    def _check_resource_limits(self, path: str, parent: str | None) -> None:
        """AbstractCSQueue.updateConfigurableResourceLimits: a queue's maximum resource may not exceed its parent's
        configured one, nor its minimum its own maximum; a queue with a minimum but no maximum inherits the parent's
        configured maximum."""
        cs = self.cs
        minimum = cs.get_minimum_resource_requirement(path)
        maximum = cs.get_maximum_resource_requirement(path)
        if parent is not None:
            parent_max = self.configured_max[parent]
            if parent_max != NONE and self._greater(maximum, parent_max):
                raise _error(
                    cs,
                    cs.get_queue_prefix(path) + k.MAXIMUM_CAPACITY,
                    f"Max resource configuration {_resource_str(maximum)} is greater than parents max value:"
                    f"{_resource_str(parent_max)} in queue:{path}",
                )
            if maximum == NONE and minimum != NONE and parent_max != NONE:
                maximum = parent_max
        if maximum != NONE and self._greater(minimum, maximum):
            raise _error(
                cs,
                cs.get_queue_prefix(path) + k.CAPACITY,
                f"Min resource configuration {_resource_str(minimum)} is greater than its max value:"
                f"{_resource_str(maximum)} in queue:{path}",
            )
        if maximum != NONE and not cs.is_absolute_resource(path) and path != k.ROOT:
            # AbstractCSQueue.updateEffectiveResources: a PERCENTAGE-mode queue's effective maximum is
            # partition x absoluteMaximumCapacity, and an absolute maximum-capacity reads as 100 % there.
            log.warning(
                f"{cs.conf.location_of(cs.get_queue_prefix(path) + k.MAXIMUM_CAPACITY)}: queue {path} has a percentage "
                "capacity and an absolute maximum-capacity: as in Hadoop, its maximum is then 100 % of its parent's "
                "(set capacity as [memory=...,vcores=...] too for the absolute maximum to apply)"
            )
        self.configured_min[path] = minimum
        self.configured_max[path] = maximum

    def _capacity_type(self, paths: list[str], parent: str) -> str:
        """ParentQueue.getCapacityConfigurationTypeForQueues (default partition): WEIGHT, PERCENT or
        ABSOLUTE_RESOURCE, refusing siblings that mix them. Hadoop's flags are kept as it keeps them: an absolute
        queue clears the percentage flag set by earlier siblings, so only a percentage queue listed *after* an
        absolute one is caught."""
        percentage = absolute = weighted = False
        details = ""
        for path in paths:
            if self.capacity[path] > 0:
                percentage = True
            if self.weight[path] >= 0:
                weighted = True
                details += f"{{Queue={path}, label= uses weight mode}}. "
            if self.configured_min[path] != NONE:
                absolute = True
                percentage = False
                details += f"{{Queue={path}, label= uses absolute mode}}. "
            if percentage:
                details += f"{{Queue={path}, label= uses percentage mode}}. "
        if paths[0] != k.ROOT and int(percentage) + int(absolute) + int(weighted) > 1:
            raise _error(
                self.cs,
                self.cs.get_queue_prefix(parent) + k.QUEUES,
                f"Parent queue '{parent}' have children queue used mixed of  weight mode, percentage and absolute "
                f"mode, it is not allowed, please double check, details:{details}",
            )
        if weighted:
            return WEIGHT
        return ABSOLUTE_RESOURCE if absolute else PERCENT

    def _check_children(
        self,
        path: str,
        name: str,
        children: list[str],
        capacity: float,
        abs_capacity: float,
        abs_maximum: float,
        policy: str,
    ) -> None:
        cs = self.cs
        total = 0.0
        for child in children:
            total = f32(total + self._parse(f"{path}.{child}", path, abs_capacity, abs_maximum, policy))
        # ParentQueue.setChildQueues (legacy queue mode): absolute resources on either side need them on both, and
        # the children's minimum resources must fit in the parent's.
        paths = [f"{path}.{child}" for child in children]
        children_type = self._capacity_type(paths, path)
        parent_type = self._capacity_type([path], path)
        if ABSOLUTE_RESOURCE in (children_type, parent_type):
            if children_type != parent_type and path != k.ROOT:
                raise _error(
                    cs,
                    cs.get_queue_prefix(path) + k.QUEUES,
                    f"Parent={path}: When absolute minResource is used, we must make sure both parent and child all "
                    "use absolute minResource",
                )
            sum_m = sum(self.configured_min[p][0] for p in paths)
            sum_v = sum(self.configured_min[p][1] for p in paths)
            parent_min = self.configured_min[path]
            if parent_min != NONE and self._greater((sum_m, sum_v), parent_min):
                raise _error(
                    cs,
                    cs.get_queue_prefix(path) + k.CAPACITY,
                    f"Parent Queues capacity: {_resource_str(parent_min)} is less than to its children:"
                    f"{_resource_str((sum_m, sum_v))} for queue:{name}",
                )
        if children_type != PERCENT:
            return  # weights: "No specific check" (ParentQueue.setChildQueues, Hadoop 3.3+)
        # ParentQueue.setChildQueues (Hadoop 2.x-3.2): float sum, 0.05 % precision; a 0 parent needs 0 children.
        delta = f32(abs(f32(1.0 - total)))
        if parent_type == WEIGHT:
            # Hadoop 3.3+: under a weight-mode parent, percentage children sum to 100 % or to 0.
            if delta > f32(PRECISION) and total > f32(PRECISION):
                raise _error(
                    cs,
                    cs.get_queue_prefix(path) + k.QUEUES,
                    f"Illegal capacity sum of {java_float_str(total)} for children of queue {name} for label=. "
                    "It should be either 0 or 1.0",
                )
            return
        # Hadoop 3.3+ (ParentQueue.allowZeroCapacitySum, the allow-zero-capacity-sum key): children summing to 0
        # under a positive parent load when the parent allows it.
        allow_zero = cs.conf.get_bool(cs.get_queue_prefix(path) + k.ALLOW_ZERO_CAPACITY_SUM, False)
        zero_allowed = total == 0 and allow_zero
        # ... and a parent of 0 % whose children sum to 100 % loads when the parent allows a zero sum (Hadoop 3.3+
        # setChildQueues: "Even if child pct sum == 1.0, we will make sure parent has positive percent", unless
        # allowZeroCapacitySum); TestParentQueue.testQueueCapacitySettingParentZeroChildren100pctZeroSumAllowed.
        full_under_zero = capacity == 0 and delta <= f32(PRECISION) and allow_zero
        if (capacity > 0 and delta > f32(PRECISION) and not zero_allowed) or (
            capacity == 0 and total > 0 and not full_under_zero
        ):
            raise _error(
                cs,
                cs.get_queue_prefix(path) + k.QUEUES,
                f"Illegal capacity of {java_float_str(total)} for children of queue {name}",
            )

    def _check_leaf(self, path: str) -> None:
        """Read the leaf's user and AM settings (LeafQueue.setupQueueConfigs), so that a value that does not parse
        or is not finite fails here, naming its key. Hadoop range-checks none of them
        (CapacitySchedulerConfiguration.getUserLimit / getUserLimitFactor /
        getMaximumApplicationMasterResourcePerQueuePercent are plain getInt/getFloat), so neither does yarnball:
        a minimum-user-limit-percent of 1000 (TestLeafQueue) or an AM share above 1 loads as in Hadoop."""
        cs = self.cs
        cs.get_user_limit(path)
        cs.get_user_limit_factor(path)
        cs.get_maximum_am_resource_percent(path)
        cs.get_maximum_applications_per_queue(path)
        weights = cs.get_queue_prefix(path) + k.USER_SETTINGS + "."
        for key in cs.conf.keys():
            if key.startswith(weights) and key.endswith("." + k.USER_WEIGHT):
                cs.get_user_weight(path, key[len(weights) : -len(k.USER_WEIGHT) - 1])


def _check_undeclared_queues(cs: CapacitySchedulerConfiguration, paths: list[str]) -> None:
    """Warn about keys that configure a queue its parent does not declare: Hadoop loads such a file and ignores
    the keys (CapacitySchedulerQueueManager.parseQueue only visits declared children), so yarnball loads it too,
    but says so (a misspelt queue name silently ignored is a classic misconfiguration). One warning per queue."""
    warned: set[str] = set()
    known = set(paths)
    root_prefix = cs.get_queue_prefix(k.ROOT)
    for key in cs.conf.keys():
        if not key.startswith(root_prefix):
            continue
        parts = key[len(k.CS_PREFIX) :].split(".")
        # The longest declared queue path the key starts with, then what follows it.
        depth = 1
        while depth < len(parts) and ".".join(parts[: depth + 1]) in known:
            depth += 1
        parent, rest = ".".join(parts[:depth]), parts[depth:]
        if len(rest) < 2 or rest[0] in QUEUE_PROPERTY_HEADS:
            continue
        if rest[0] == "*" or cs.is_auto_queue_creation_v2_enabled(parent):
            continue  # a template's wildcard path, or the settings of a queue its parent may create dynamically
        # rest[0] looks like a child queue name if some later component starts a known per-queue property.
        queue = f"{parent}.{rest[0]}"
        if queue not in warned and any(part in QUEUE_PROPERTY_HEADS for part in rest[1:]):
            warned.add(queue)
            log.warning(
                f"{cs.conf.location_of(key)}: {key}: configures queue {queue}, but its parent {parent} does not "
                f"declare it, so it is ignored, as Hadoop ignores it (to use it, add {rest[0]!r} to "
                f"{cs.get_queue_prefix(parent)}{k.QUEUES} = {','.join(cs.get_queues(parent))!r})"
            )


def validate_capacity_configuration(cs: CapacitySchedulerConfiguration, cluster: tuple[int, int] = (0, 0)) -> None:
    """Raise ConfigurationError for the first rule the configuration breaks (``cluster``: the cluster resource the
    absolute-resource comparisons use, none at start-up as in Hadoop)."""
    _check_allocation(cs)
    cs.get_resource_calculator()
    for getter in (
        cs.get_maximum_system_applications,
        cs.get_node_locality_delay,
        cs.get_rack_locality_additional_delay,
        cs.get_rack_locality_full_reset,
        cs.get_assign_multiple_enabled,
        cs.get_max_assign_per_heartbeat,
        cs.get_offswitch_per_heartbeat_limit,
        cs.get_global_maximum_applications_per_queue,
        cs.get_lazy_preemption_enabled,
        cs.get_reservation_continue_look,
    ):
        getter()  # a value that does not parse raises here, naming its file and key
    user_prefix = k.CS_PREFIX + "user."
    for key in cs.conf.keys():
        # user.<name>.max-parallel-apps and user.max-parallel-apps, read when an attempt is added
        if key.startswith(user_prefix) and key.endswith(k.MAX_PARALLEL_APPLICATIONS):
            rest = key[len(user_prefix) : -len(k.MAX_PARALLEL_APPLICATIONS)]
            cs.get_max_parallel_apps_for_user(rest[:-1] if rest.endswith(".") else "")
    # Hadoop range-checks neither maximum-applications nor maximum-am-resource-percent
    # (getMaximumSystemApplications, getMaximumApplicationMasterResourcePercent): a negative maximum-applications
    # loads and makes every submission fail the queue's application limit, as in Hadoop.
    cs.get_maximum_application_master_resource_percent()
    tree = _TreeValidator(cs, cluster)
    tree.walk()
    _check_undeclared_queues(cs, tree.paths)
