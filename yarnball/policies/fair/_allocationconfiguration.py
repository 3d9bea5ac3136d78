"""Hadoop's ``AllocationConfiguration`` and ``AllocationFileLoaderService``: the FairScheduler's allocation file,
loaded into an immutable object with Hadoop's effective-value getters (fair.md §1.2, §1.4-§1.6).

:func:`reload_allocations` reads the file named by ``yarn.scheduler.fair.allocation.file`` (a relative name is looked
up in the configuration directory, Hadoop's classpath) and returns a new :class:`AllocationConfiguration`, so a
refresh can swap the old one for it; with no file every queue takes the defaults (``AllocationConfiguration(
FairScheduler)``). :func:`reload_due` is the reload thread's test of the file's modification time.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Final

from yarnball._inputs import read_input
from yarnball._logs import get_logger
from yarnball.errors import AllocationConfigurationException, ConfigurationError, one_line
from yarnball.policies.capacity._acl import AccessControlList, QueueACL
from yarnball.policies.fair._allocationfile import (
    ROOT,
    FSQueueType,
    QueueProperties,
    ReservationACL,
    TopLevelSettings,
    parse_allocation_xml,
    parse_queues,
    parse_top_level,
    read_defaults,
)
from yarnball.policies.fair._configurableresource import ConfigurableResource, unbounded
from yarnball.policies.fair._demand import queue_max_share
from yarnball.policies.fair._fairschedulerconfiguration import FairSchedulerConfiguration
from yarnball.policies.fair._placement import ExistingQueue, QueuePlacementPolicy
from yarnball.policies.fair._schedulingpolicy import SchedulingPolicy
from yarnball.protocols import Configuration, Resource

__all__ = [
    "ALLOC_RELOAD_INTERVAL_MS",
    "ALLOC_RELOAD_WAIT_MS",
    "AllocationConfiguration",
    "FSQueueSettings",
    "ReservationQueueConfiguration",
    "get_allocation_file",
    "max_share",
    "reload_allocations",
    "reload_due",
]

log = get_logger(__name__)

#: AllocationFileLoaderService: the reload thread's period, and how long a change must settle before it is read.
ALLOC_RELOAD_INTERVAL_MS: Final = 10_000
ALLOC_RELOAD_WAIT_MS: Final = 5_000
_SUPPORTED_FS: Final = re.compile(r"(hdfs)|(file)|(s3a)|(viewfs)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ReservationQueueConfiguration:
    """``ReservationQueueConfiguration``: the reservation system's settings (ReservationSchedulerConfiguration's
    defaults; the file sets the agent, admission policy and planner)."""

    reservation_window: int = 24 * 60 * 60 * 1000
    enforcement_window: int = 60 * 60 * 1000
    reservation_admission_policy: str = (
        "org.apache.hadoop.yarn.server.resourcemanager.reservation.CapacityOverTimePolicy"
    )
    reservation_agent: str = (
        "org.apache.hadoop.yarn.server.resourcemanager.reservation.planning.AlignedPlannerWithGreedy"
    )
    planner: str = "org.apache.hadoop.yarn.server.resourcemanager.reservation.planning.SimpleCapacityReplanner"
    show_reservation_as_queues: bool = False
    move_on_expiry: bool = True
    avg_over_time_multiplier: float = 1.0
    max_over_time_multiplier: float = 1.0


@dataclass(frozen=True, slots=True)
class FSQueueSettings:
    """What ``AllocationConfiguration.initFSQueue`` sets on a queue, with the preemption settings
    ``FSQueue.updatePreemptionVariables`` derives (inherited from the parent where the queue sets none)."""

    name: str
    weight: float
    min_share: Resource
    max_share: ConfigurableResource
    max_running_apps: int
    max_am_share: float
    max_child_resources: ConfigurableResource | None
    max_container_allocation: Resource
    scheduling_policy: SchedulingPolicy
    min_share_preemption_timeout: int
    fair_share_preemption_timeout: int
    fair_share_preemption_threshold: float
    preemptable: bool


class AllocationConfiguration:
    """The FairScheduler's queue settings, immutable: Hadoop's getters, each falling back on the file's defaults."""

    __slots__ = ("_props", "_settings", "placement_policy", "reservation_config", "resource_types", "source")

    def __init__(
        self,
        queue_properties: QueueProperties,
        settings: TopLevelSettings,
        placement_policy: QueuePlacementPolicy,
        reservation_config: ReservationQueueConfiguration = ReservationQueueConfiguration(),
        *,
        resource_types: Sequence[str] = (),
        source: str | None = None,
    ) -> None:
        self._props = queue_properties
        self._settings = settings
        self.placement_policy = placement_policy
        self.reservation_config = reservation_config
        self.resource_types = tuple(resource_types)
        #: The allocation file it was read from; None for the defaults (no file).
        self.source = source

    @classmethod
    def defaults(cls, conf: Configuration) -> AllocationConfiguration:
        """``AllocationConfiguration(FairScheduler)``: no allocation file; placement from yarn-site."""
        fs = FairSchedulerConfiguration(conf)
        policy = QueuePlacementPolicy.from_configuration(
            fs.get_allow_undeclared_pools(), fs.get_user_as_default_queue()
        )
        return cls(QueueProperties(), TopLevelSettings(), policy, resource_types=fs.get_resource_types())

    # -- defaults of the file --------------------------------------------------------------------------------------
    def get_user_max_apps_default(self) -> int:
        return self._settings.user_max_apps_default

    def get_queue_max_apps_default(self) -> int:
        return self._settings.queue_max_apps_default

    def get_queue_max_am_share_default(self) -> float:
        return self._settings.queue_max_am_share_default

    def get_default_scheduling_policy(self) -> SchedulingPolicy:
        """The policy of queues that set none (``fair`` unless the file says ``drf``)."""
        return self._settings.default_scheduling_policy

    def get_queue_max_resources_default(self) -> ConfigurableResource:
        default = self._settings.queue_max_resources_default
        return default if default is not None else ConfigurableResource(unbounded(self.resource_types))

    # -- per queue -------------------------------------------------------------------------------------------------
    def get_queue_weight(self, queue: str) -> float:
        return self._props.queue_weights.get(queue, 1.0)

    def get_min_resources(self, queue: str) -> Resource:
        """``getMinResources``: the configured minimum (a percentage counts as none), else none."""
        minimum = self._props.min_queue_resources.get(queue)
        return minimum if minimum is not None else Resource(0, 0, tuple((t, 0) for t in self.resource_types))

    def get_max_resources(self, queue: str) -> ConfigurableResource:
        """``getMaxResources``: the configured maximum, else queueMaxResourcesDefault."""
        maximum = self._props.max_queue_resources.get(queue)
        return maximum if maximum is not None else self.get_queue_max_resources_default()

    def get_max_child_resources(self, queue: str) -> ConfigurableResource | None:
        """``getMaxChildResources``: the limit of the queue's dynamically created children, or None."""
        return self._props.max_child_queue_resources.get(queue)

    def get_queue_max_container_allocation(self, queue: str) -> Resource:
        """``getQueueMaxContainerAllocation``: configured (a percentage counts as none), else unbounded."""
        allocation = self._props.queue_max_container_allocation.get(queue)
        return allocation if allocation is not None else unbounded(self.resource_types)

    def get_queue_max_apps(self, queue: str) -> int:
        return self._props.queue_max_apps.get(queue, self._settings.queue_max_apps_default)

    def get_user_max_apps(self, user: str) -> int:
        return self._settings.user_max_apps.get(user, self._settings.user_max_apps_default)

    def get_queue_max_am_share(self, queue: str) -> float:
        return self._props.queue_max_am_shares.get(queue, self._settings.queue_max_am_share_default)

    def get_scheduling_policy(self, queue: str) -> SchedulingPolicy:
        """The queue's policy, else the default policy."""
        return self._props.queue_policies.get(queue, self._settings.default_scheduling_policy)

    def get_min_share_preemption_timeout(self, queue: str) -> int:
        """ms; -1 when the queue sets none (it inherits its parent's)."""
        return self._props.min_share_preemption_timeouts.get(queue, -1)

    def get_fair_share_preemption_timeout(self, queue: str) -> int:
        """ms; -1 when the queue sets none (it inherits its parent's)."""
        return self._props.fair_share_preemption_timeouts.get(queue, -1)

    def get_fair_share_preemption_threshold(self, queue: str) -> float:
        """-1 when the queue sets none (it inherits its parent's)."""
        return self._props.fair_share_preemption_thresholds.get(queue, -1.0)

    def is_preemptable(self, queue: str) -> bool:
        """False only for a queue whose ``allowPreemptionFrom`` is false (see :meth:`init_fs_queue` for the
        inheritance from the parent)."""
        return queue not in self._props.non_preemptable_queues

    def is_reservable(self, queue: str) -> bool:
        return queue in self._props.reservable_queues

    def get_queue_acls(self) -> Mapping[str, Mapping[QueueACL, AccessControlList]]:
        """The ACLs of the queues the file configures (every ACL set: the root queue's default is everyone, the
        others' nobody)."""
        return MappingProxyType({q: MappingProxyType(a) for q, a in self._props.queue_acls.items()})

    def get_reservation_acls(self, queue: str) -> Mapping[ReservationACL, AccessControlList] | None:
        acls = self._props.reservation_acls.get(queue)
        return None if acls is None else MappingProxyType(acls)

    def check_permission(self, queue: str, acl: QueueACL, user: str, groups: Sequence[str] = ()) -> bool:
        """``ConfiguredYarnAuthorizer.checkPermission`` over these ACLs: the queue's or any ancestor's list allows
        the user; the root queue's default (``getDefaultPermissions``) is everyone."""
        acls = self._props.queue_acls
        name: str | None = queue
        while name is not None:
            queue_acls = acls.get(name)
            if queue_acls is None and name == ROOT:
                return True
            if queue_acls is not None and acl in queue_acls and queue_acls[acl].is_user_allowed(user, groups):
                return True
            name = name.rsplit(".", 1)[0] if "." in name else None
        return False

    def get_user_max_apps_map(self) -> Mapping[str, int]:
        return MappingProxyType(self._settings.user_max_apps)

    def get_configured_queues(self, queue_type: FSQueueType) -> tuple[str, ...]:
        """The queues the file names, of ``queue_type``, in file order."""
        return tuple(self._props.configured_queues[queue_type])

    def existing_queues(self) -> dict[str, ExistingQueue]:
        """The static queues the QueueManager creates from this configuration (root and every configured queue), as
        placement sees them."""
        queues = {ROOT: ExistingQueue(leaf=False)}
        for name in self._props.configured_queues[FSQueueType.PARENT]:
            queues[name] = ExistingQueue(leaf=False)
        for name in self._props.configured_queues[FSQueueType.LEAF]:
            queues.setdefault(name, ExistingQueue(leaf=True))
        return queues

    def init_fs_queue(self, queue: str, parent: FSQueueSettings | None = None) -> FSQueueSettings:
        """``initFSQueue`` and ``FSQueue.updatePreemptionVariables`` for ``queue`` under ``parent`` (None for root):
        a timeout of -1 or a negative threshold takes the parent's; a queue under a non-preemptable parent is not
        preemptable."""
        min_timeout = self.get_min_share_preemption_timeout(queue)
        fair_timeout = self.get_fair_share_preemption_timeout(queue)
        threshold = self.get_fair_share_preemption_threshold(queue)
        if parent is not None:
            min_timeout = parent.min_share_preemption_timeout if min_timeout == -1 else min_timeout
            fair_timeout = parent.fair_share_preemption_timeout if fair_timeout == -1 else fair_timeout
            threshold = parent.fair_share_preemption_threshold if threshold < 0 else threshold
        return FSQueueSettings(
            name=queue,
            weight=self.get_queue_weight(queue),
            min_share=self.get_min_resources(queue),
            max_share=self.get_max_resources(queue),
            max_running_apps=self.get_queue_max_apps(queue),
            max_am_share=self.get_queue_max_am_share(queue),
            max_child_resources=self.get_max_child_resources(queue),
            max_container_allocation=self.get_queue_max_container_allocation(queue),
            scheduling_policy=self.get_scheduling_policy(queue),
            min_share_preemption_timeout=min_timeout,
            fair_share_preemption_timeout=fair_timeout,
            fair_share_preemption_threshold=threshold,
            preemptable=(parent is None or parent.preemptable) and self.is_preemptable(queue),
        )

    def __repr__(self) -> str:
        leaves = len(self._props.configured_queues[FSQueueType.LEAF])
        return f"AllocationConfiguration(source={self.source!r}, leaf_queues={leaves})"


def max_share(settings: FSQueueSettings, cluster: Resource) -> Resource:
    """``FSQueue.getMaxShare``: the max share at ``cluster``'s size, never below the min share (componentwise)."""
    maximum = settings.max_share.get_resource(cluster)
    assert maximum is not None
    result = queue_max_share(maximum, settings.min_share)
    if result != maximum:
        log.warning(f"Queue {settings.name} has max resources {maximum} less than min resources {settings.min_share}")
    return result


# -- AllocationFileLoaderService ---------------------------------------------------------------------------------
def _scheme(path: str) -> str | None:
    """``new Path(path).toUri().getScheme()``: the text before a colon that comes before any slash."""
    colon, slash = path.find(":"), path.find("/")
    return path[:colon] if colon != -1 and (slash == -1 or colon < slash) else None


def get_allocation_file(
    conf: Configuration, conf_dir: str | os.PathLike[str] | None = None, *, quiet: bool = False
) -> Path | None:
    """``getAllocationFile``: the allocation file's path, or None when a relative name is not in ``conf_dir`` (Hadoop's
    classpath; a warning unless ``quiet``). Only local files can be read: ``file:`` URIs and plain paths."""
    name = FairSchedulerConfiguration(conf).get_allocation_file()
    scheme = _scheme(name)
    where = conf.location_of("yarn.scheduler.fair.allocation.file")
    if scheme is not None and not _SUPPORTED_FS.fullmatch(scheme):
        raise ConfigurationError(f"{where}: Allocation file {one_line(name)} uses an unsupported filesystem")
    if scheme is not None and scheme.lower() != "file":
        raise ConfigurationError(
            f"{where}: Allocation file {one_line(name)} is on {scheme}, which yarnball cannot read (expected a local "
            "path or a file: URI)"
        )
    path = name[len(scheme) + 1 :] if scheme is not None else name
    if scheme is not None and path.startswith("//"):  # file://<authority>/path: the authority is not a path
        path = "/" + path[2:].split("/", 1)[-1] if "/" in path[2:] else "/"
    if os.path.isabs(path):
        return Path(path)
    found = Path(conf_dir) / name if conf_dir is not None else None
    if found is None or not os.path.lexists(found):
        if not quiet:
            log.warning(f"{name} not found on the classpath.")
        return None
    return found


def _or(value: str | None, default: str) -> str:
    return default if value is None else value


def reload_due(now_ms: int, modified_ms: int, last_successful_reload_ms: int) -> bool:
    """The reload thread's test: the file changed since the last successful load and has been still for
    ALLOC_RELOAD_WAIT_MS."""
    return modified_ms > last_successful_reload_ms and now_ms > modified_ms + ALLOC_RELOAD_WAIT_MS


def reload_allocations(
    conf: Configuration,
    conf_dir: str | os.PathLike[str] | None = None,
    previous: AllocationConfiguration | None = None,
    *,
    quiet: bool = False,
) -> AllocationConfiguration:
    """``reloadAllocations``: a new AllocationConfiguration from the allocation file, or the defaults without one.

    ``previous`` is the configuration in force: a ``<queuePlacementPolicy>`` holding no rule keeps its rules (Hadoop
    ignores an empty rule set), or the yarn-site placement when there is none. A bad file raises
    AllocationConfigurationException naming the file and line (Hadoop's message). ``quiet``: nothing is logged (a
    check before the run, or a scheduler that logs its start-up when the RM starts)."""
    path = get_allocation_file(conf, conf_dir, quiet=quiet)
    if path is None:
        return AllocationConfiguration.defaults(conf)
    fs = FairSchedulerConfiguration(conf)
    source = one_line(os.fspath(path))
    if not quiet:
        log.info(f"Loading allocation file {source}")
    root = parse_allocation_xml(read_input(path, "allocation file", AllocationConfigurationException), source)
    if root.tag != "allocations":
        raise AllocationConfigurationException(
            f"{source}:{root.line}: Bad fair scheduler config file: top-level element not <allocations>"
        )
    types = fs.get_resource_types()
    settings = parse_top_level(root, source, types)
    queues = parse_queues(settings.queue_elements, source, types)
    policy: QueuePlacementPolicy | None = None
    if settings.placement_policy is not None:
        policy = QueuePlacementPolicy.from_xml(settings.placement_policy, source, fs.is_no_terminal_rule_check())
        if policy is None and previous is not None:  # an empty rule set: the rules in force stay
            policy = previous.placement_policy
    if policy is None:
        policy = QueuePlacementPolicy.from_configuration(
            fs.get_allow_undeclared_pools(), fs.get_user_as_default_queue()
        )
    read_defaults(settings, source, types)
    # setupRootQueueProperties: the file-level preemption defaults are the root queue's unless it sets its own
    queues.min_share_preemption_timeouts.setdefault(ROOT, settings.default_min_share_preemption_timeout)
    queues.fair_share_preemption_timeouts.setdefault(ROOT, settings.default_fair_share_preemption_timeout)
    queues.fair_share_preemption_thresholds.setdefault(ROOT, settings.default_fair_share_preemption_threshold)
    default = ReservationQueueConfiguration()
    reservations = ReservationQueueConfiguration(
        reservation_admission_policy=_or(settings.reservation_admission_policy, default.reservation_admission_policy),
        reservation_agent=_or(settings.reservation_agent, default.reservation_agent),
        planner=_or(settings.reservation_planner, default.planner),
    )
    return AllocationConfiguration(queues, settings, policy, reservations, resource_types=types, source=source)
