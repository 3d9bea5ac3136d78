"""The scheduler and its edit policies, built from the configuration (``ResourceManager.createScheduler`` and
``createSchedulerMonitors``).

``yarn.resourcemanager.scheduler.class`` names Hadoop's scheduler class, in full or by its simple name. yarnball
simulates the CapacityScheduler, the FifoScheduler (policies/fifo) and the FairScheduler (policies/fair, SLS's
``SLSFairScheduler`` included); any other class is a ``ConfigurationError`` naming the key, the value and the known
classes. ``yarn.resourcemanager.scheduler.monitor
.policies`` names the ``SchedulingEditPolicy`` classes the monitors run (:func:`monitor_policies`).

This is the one module outside the CapacityScheduler's own package (and the policies that require it, as Hadoop's
do) that names the CapacityScheduler: the RM, its services, the launcher and the web reach the scheduler through
:class:`~yarnball.policies.scheduler.ResourceScheduler`. A second scheduler plugs in here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import CapacityScheduler, CapacitySchedulerConfiguration
from yarnball.policies.fair._fairscheduler import FairScheduler
from yarnball.policies.fair._fairscheduler import validate_conf as fair_validate_conf
from yarnball.policies.fifo import FifoScheduler
from yarnball.policies.fifo import validate_conf as fifo_validate_conf
from yarnball.protocols import Configuration, keys

if TYPE_CHECKING:
    from yarnball.policies.scheduler._editpolicy import SchedulingEditPolicy
    from yarnball.policies.scheduler._interface import RecoveringScheduler, ResourceScheduler

__all__ = [
    "CAPACITY_SCHEDULER",
    "FAIR_SCHEDULER",
    "FIFO_SCHEDULER",
    "PROVEN_SCHEDULER_CLASS",
    "create_edit_policy",
    "create_recovering_scheduler",
    "create_scheduler",
    "monitor_policies",
    "policy_enabled",
    "rest_scheduler_type",
    "scheduler_class",
    "validate_scheduler_configuration",
]

CAPACITY_SCHEDULER = keys.DEFAULT_RM_SCHEDULER
FAIR_SCHEDULER = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"
FIFO_SCHEDULER = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"
_SLS_CAPACITY_SCHEDULER = "org.apache.hadoop.yarn.sls.scheduler.SLSCapacityScheduler"
_SLS_FAIR_SCHEDULER = "org.apache.hadoop.yarn.sls.scheduler.SLSFairScheduler"

#: Each class the key may name (in full; the simple name is accepted too) -> the scheduler yarnball runs for it. SLS's
#: wrappers (``SLSCapacityScheduler``, ``SLSFairScheduler``) stand for the scheduler they wrap.
_KNOWN: dict[str, str] = {
    CAPACITY_SCHEDULER: CAPACITY_SCHEDULER,
    FAIR_SCHEDULER: FAIR_SCHEDULER,
    FIFO_SCHEDULER: FIFO_SCHEDULER,
    _SLS_CAPACITY_SCHEDULER: CAPACITY_SCHEDULER,
    _SLS_FAIR_SCHEDULER: FAIR_SCHEDULER,
}
_BY_NAME: dict[str, str] = {**_KNOWN, **{name.rsplit(".", 1)[1]: kind for name, kind in _KNOWN.items()}}

#: The scheduler class whose own ``allocate`` and ``handle`` the RM's fast paths are proven against
#: (actors/_schedulerdispatcher.py): a scheduler of another class, or one that overrides them, takes the general
#: path.
PROVEN_SCHEDULER_CLASS: type[CapacityScheduler] = CapacityScheduler


def scheduler_class(conf: Configuration) -> str:
    """The full Hadoop class name of the scheduler ``yarn.resourcemanager.scheduler.class`` asks for (the
    CapacityScheduler when unset); ``ConfigurationError`` naming the key, the value and the known classes when it
    names none of them."""
    raw = conf.get(keys.RM_SCHEDULER)
    if raw is None or not raw.strip():
        return CAPACITY_SCHEDULER
    kind = _BY_NAME.get(raw.strip())
    if kind is None:
        known = ", ".join(sorted(_KNOWN))
        raise ConfigurationError(
            f"{conf.location_of(keys.RM_SCHEDULER)}: {keys.RM_SCHEDULER}: unknown scheduler class {raw.strip()!r}; "
            f"expected one of {known} (or its simple name)"
        )
    return kind


#: SLS's SchedulerMetrics class for each scheduler (sls-runner.xml keys them by the scheduler's class name).
_SLS_METRICS: dict[str, str] = {
    CAPACITY_SCHEDULER: keys.DEFAULT_SLS_CAPACITY_SCHEDULER_METRICS,
    FAIR_SCHEDULER: keys.DEFAULT_SLS_FAIR_SCHEDULER_METRICS,
    FIFO_SCHEDULER: keys.DEFAULT_SLS_FIFO_SCHEDULER_METRICS,
}


def _check_sls_metrics_class(conf: Configuration, kind: str) -> None:
    """SLS's ``SchedulerMetrics.getSchedulerMetricsClass`` reads the metrics class under the scheduler's class name
    (sls-runner.xml); yarnball writes that scheduler's SLS metrics, so another class for it is refused."""
    value = conf.get(kind)
    if value is not None and value.strip() != _SLS_METRICS[kind]:
        raise ConfigurationError(
            f"{conf.location_of(kind)}: SLS's metrics class for {kind.rsplit('.', 1)[1]} is {value.strip()}; "
            f"yarnball writes {_SLS_METRICS[kind]}'s metrics for it"
        )


def validate_scheduler_configuration(conf: Configuration) -> None:
    """The scheduler's own configuration checks over ``conf`` (the queue tree of capacity-scheduler.xml; the
    FifoScheduler's ``validateConf``), as at start-up and before a refresh: ``ConfigurationError`` naming the file,
    line and key. The monitor's edit policies are checked against the scheduler too (:func:`monitor_policies`)."""
    kind = scheduler_class(conf)
    _check_sls_metrics_class(conf, kind)
    if kind == FIFO_SCHEDULER:
        fifo_validate_conf(conf)
        monitor_policies(conf)
        return
    if kind == FAIR_SCHEDULER:
        # FairScheduler.validateConf and initScheduler's reloadAllocations (a bad file names itself)
        from yarnball.policies.fair._allocationconfiguration import reload_allocations
        from yarnball.policies.fair._fairscheduler import conf_dir_of

        fair_validate_conf(conf)
        reload_allocations(conf, conf_dir_of(conf), quiet=True)
        monitor_policies(conf)
        return
    CapacitySchedulerConfiguration(conf).validate()


def create_scheduler(conf: Configuration, *, cluster_timestamp: int) -> ResourceScheduler:
    """The scheduler ``conf`` names (see the module docstring), with its configuration. (The return types here are
    where mypy checks that the CapacityScheduler implements ``ResourceScheduler`` and its recovering variant
    ``RecoveringScheduler``.)"""
    kind = scheduler_class(conf)
    if kind == FIFO_SCHEDULER:
        return FifoScheduler(conf, cluster_timestamp=cluster_timestamp)
    if kind == FAIR_SCHEDULER:
        return FairScheduler(conf, cluster_timestamp=cluster_timestamp)
    return CapacityScheduler(CapacitySchedulerConfiguration(conf), cluster_timestamp=cluster_timestamp)


def create_recovering_scheduler(conf: Configuration, *, cluster_timestamp: int, epoch: int) -> RecoveringScheduler:
    """A restarted RM's scheduler, of the class ``conf`` names: it adopts the containers the NodeManagers report and
    numbers new ones from ``epoch`` (policies/scheduler/_recovery.py; Hadoop's recovery is scheduler-generic)."""
    kind = scheduler_class(conf)
    if kind == FIFO_SCHEDULER:
        from yarnball.policies.fifo._recovery import RecoveringFifoScheduler

        return RecoveringFifoScheduler(conf, cluster_timestamp=cluster_timestamp, epoch=epoch)
    if kind == FAIR_SCHEDULER:
        from yarnball.policies.fair._recovery import RecoveringFairScheduler

        return RecoveringFairScheduler(conf, cluster_timestamp=cluster_timestamp, epoch=epoch)
    from yarnball.policies.capacity._recovery import RecoveringCapacityScheduler

    return RecoveringCapacityScheduler(
        CapacitySchedulerConfiguration(conf), cluster_timestamp=cluster_timestamp, epoch=epoch
    )


def rest_scheduler_type(scheduler: object) -> str:
    """The ``type`` of ``/ws/v1/cluster/scheduler``'s ``schedulerInfo`` for ``scheduler``
    (``RMWebServices.getSchedulerInfo`` picks ``CapacitySchedulerInfo``, ``FairSchedulerInfo`` or
    ``FifoSchedulerInfo`` by the scheduler's class)."""
    if isinstance(scheduler, CapacityScheduler):
        return "capacityScheduler"
    if isinstance(scheduler, FifoScheduler):
        return "fifoScheduler"
    if isinstance(scheduler, FairScheduler):
        return "fairScheduler"
    raise TypeError(f"no REST scheduler info for {type(scheduler).__name__}")


# -- the edit policies (yarn.resourcemanager.scheduler.monitor.policies) -------------------------------------------
def _preemption_policy() -> SchedulingEditPolicy:
    from yarnball.policies.preemption._monitor import LivePreemptionPolicy

    return LivePreemptionPolicy()


def _queue_deletion_policy() -> SchedulingEditPolicy:
    from yarnball.policies.capacity._autodeletion import AutoCreatedQueueDeletionPolicy

    return AutoCreatedQueueDeletionPolicy()


def _queue_management_policy() -> SchedulingEditPolicy:
    from yarnball.policies.capacity._managementpolicy import QueueManagementDynamicEditPolicy

    return QueueManagementDynamicEditPolicy()


def _queue_auto_refresh_policy() -> SchedulingEditPolicy:
    from yarnball.policies.capacity._autorefresh import QueueConfigurationAutoRefreshPolicy

    return QueueConfigurationAutoRefreshPolicy()


#: The SchedulingEditPolicy classes yarnball implements (Hadoop's class names) -> a new policy of that class.
EDIT_POLICIES: dict[str, Callable[[], Any]] = {
    keys.DEFAULT_RM_SCHEDULER_MONITOR_POLICIES: _preemption_policy,
    keys.AUTO_CREATED_QUEUE_DELETION_POLICY: _queue_deletion_policy,
    keys.QUEUE_MANAGEMENT_DYNAMIC_EDIT_POLICY: _queue_management_policy,
    # accepted, never run: a run's configuration files do not change (policies/capacity/_autorefresh.py)
    "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueConfigurationAutoRefreshPolicy": (
        _queue_auto_refresh_policy
    ),
}


def _names(policy: str) -> tuple[str, str]:
    """How the policies key may name ``policy``: its class in full, or by its simple name."""
    return policy, policy.rsplit(".", 1)[1]


def monitor_policies(conf: Configuration) -> list[str]:
    """The full class names of the policies the monitor keys run (``ResourceManager.createSchedulerMonitors``): none
    with monitors off, else ``yarn.resourcemanager.scheduler.monitor.policies``; ConfigurationError for a policy
    yarnball cannot run (Hadoop fails the RM start on an unknown ``SchedulingEditPolicy`` class too)."""
    if not conf.get_bool(keys.RM_SCHEDULER_ENABLE_MONITORS, keys.DEFAULT_RM_SCHEDULER_ENABLE_MONITORS):
        return []
    named = conf.get_strings(keys.RM_SCHEDULER_MONITOR_POLICIES, [keys.DEFAULT_RM_SCHEDULER_MONITOR_POLICIES])
    by_name = {name: policy for policy in EDIT_POLICIES for name in _names(policy)}
    unknown = [p for p in named if p not in by_name]
    if unknown:
        *others, last = EDIT_POLICIES
        raise ConfigurationError(
            f"{keys.RM_SCHEDULER_MONITOR_POLICIES}: unsupported scheduling edit policy {unknown[0]!r}; "
            f"yarnball implements {', '.join(others)} and {last}"
        )
    policies = [by_name[p] for p in named]
    kind = scheduler_class(conf)
    if policies and kind in (FIFO_SCHEDULER, FAIR_SCHEDULER):
        # Each of the three policies' init refuses any other scheduler (ProportionalCapacityPreemptionPolicy.init:
        # YarnRuntimeException "Class <scheduler> not instance of <CapacityScheduler>"), and the RM fails to start.
        raise ConfigurationError(
            f"{keys.RM_SCHEDULER_ENABLE_MONITORS}: {policies[0]}: Class {kind} not instance of {CAPACITY_SCHEDULER}"
        )
    return policies


def policy_enabled(conf: Configuration, policy: str) -> bool:
    """Whether the monitor keys run ``policy`` (its full class name)."""
    return policy in monitor_policies(conf)


def create_edit_policy(policy: str) -> SchedulingEditPolicy:
    """A new ``SchedulingEditPolicy`` of the class ``policy`` (a full name from :func:`monitor_policies`)."""
    return EDIT_POLICIES[policy]()  # type: ignore[no-any-return]
