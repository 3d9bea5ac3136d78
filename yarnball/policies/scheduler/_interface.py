"""``ResourceScheduler``: the one interface through which the RM, its services, the launcher and the web reach a
scheduler (Hadoop's ``YarnScheduler`` + ``ResourceScheduler``).

The CapacityScheduler implements it (policies/capacity); a FairScheduler or a FifoScheduler plugs in by
implementing it too and being named in the factory (_factory.py). The members are exactly what those callers use;
each docstring names the Hadoop method it stands for. The scheduler's own records (nodes, attempts, containers) are
seen through the small read-mostly views below, Hadoop's ``SchedulerNode``, ``SchedulerApplicationAttempt`` and
``RMContainer`` as the RM reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from yarnball.policies.placement import NodePlacementPolicy
from yarnball.policies.scheduler._acl import QueueACL
from yarnball.policies.scheduler._notifications import Allocation, QueueMetrics, SchedulerNotification
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerId,
    ContainerStatus,
    NodeId,
    NodeReport,
    Resource,
    ResourceRequest,
)

__all__ = [
    "RMContainerView",
    "RecoveringScheduler",
    "ResourceScheduler",
    "SchedulerAppView",
    "SchedulerNodeView",
]


class RMContainerView(Protocol):
    """``RMContainer`` as the RM reads it: its state, allocated resource (``getAllocatedResource``, as
    ``memory_mb``/``vcores`` ints) and the record handed to the AM."""

    @property
    def state(self) -> str: ...
    @property
    def mem(self) -> int: ...
    @property
    def vc(self) -> int: ...
    @property
    def is_am(self) -> bool: ...
    @property
    def container(self) -> Container | None: ...


class SchedulerNodeView(Protocol):
    """``SchedulerNode`` as the RM reads it (``getTotalResource``, ``getUnallocatedResource``,
    ``getCopiedListOfRunningContainers``, ``getReservedContainer``, ``getLabels``)."""

    @property
    def total_m(self) -> int: ...
    @property
    def total_v(self) -> int: ...
    @property
    def unalloc_m(self) -> int: ...
    @property
    def unalloc_v(self) -> int: ...
    @property
    def containers(self) -> Mapping[ContainerId, Any]: ...
    @property
    def reserved(self) -> object | None: ...
    @property
    def labels(self) -> tuple[str, ...]: ...


class SchedulerAppView(Protocol):
    """``SchedulerApplicationAttempt`` as the RM reads it: its live containers (``getLiveContainersMap``), the
    completions not yet pulled, its usage, and the container-id counter it shares with the opportunistic allocator
    (``AppSchedulingInfo.getNewContainerId``)."""

    next_seq: int

    @property
    def attempt_id(self) -> ApplicationAttemptId: ...
    @property
    def stopped(self) -> bool: ...
    @property
    def live(self) -> Mapping[ContainerId, RMContainerView]: ...
    @property
    def completed(self) -> list[ContainerStatus]: ...
    @property
    def keys(self) -> Mapping[tuple[int, int], Any]: ...
    @property
    def used_m(self) -> int: ...
    @property
    def used_v(self) -> int: ...
    @property
    def reserved_m(self) -> int: ...
    @property
    def reserved_v(self) -> int: ...
    @property
    def pending_m(self) -> int: ...
    @property
    def pending_v(self) -> int: ...
    def has_pending(self) -> bool: ...


class ResourceCalculatorView(Protocol):
    """``ResourceCalculator`` as the RM uses it (``divide``: the ratio of two resources against the cluster's)."""

    def divide(self, cm: int, cv: int, am: int, av: int, bm: int, bv: int) -> float: ...


class ResourceScheduler(Protocol):
    """Hadoop's ``YarnScheduler`` + ``ResourceScheduler``, as yarnball's RM drives a scheduler (see the module
    docstring)."""

    # -- events and allocation ----------------------------------------------------------------------------------
    def handle(self, event: object) -> list[SchedulerNotification]:
        """``EventHandler<SchedulerEvent>.handle``: apply one scheduler event; the notifications the RM acts on."""
        ...

    def node_update(
        self, node_id: NodeId, launched: Sequence[ContainerStatus] = (), completed: Sequence[ContainerStatus] = ()
    ) -> list[SchedulerNotification]:
        """``handle(NodeUpdateSchedulerEvent)`` without the event record (``CapacityScheduler.nodeUpdate``)."""
        ...

    def allocate(
        self,
        attempt_id: ApplicationAttemptId,
        ask: Sequence[ResourceRequest],
        release: Sequence[ContainerId],
        blacklist_additions: Iterable[str] = (),
        blacklist_removals: Iterable[str] = (),
    ) -> Allocation:
        """``YarnScheduler.allocate``: the AM's asks, releases and blacklist, and what it pulls."""
        ...

    def update_requests(
        self, attempt_id: ApplicationAttemptId, ask: Sequence[ResourceRequest], release: Sequence[ContainerId]
    ) -> tuple[SchedulerNotification, ...]:
        """The RM's own ask and release changes for container updates (``ContainerUpdateContext`` through
        ``AppSchedulingInfo.updateResourceRequests``), without the AM's pull."""
        ...

    def set_am_resource(self, application_id: ApplicationId, resource: Resource) -> None:
        """The AM container's size from the submission context (``getAMContainerResourceRequests``)."""
        ...

    def has_pending(self) -> bool:
        """Whether any application has outstanding asks (``getRootQueueMetrics().getPendingResources()`` > 0)."""
        ...

    @property
    def continuous_scheduling(self) -> bool:
        """``FairScheduler.isContinuousSchedulingEnabled``."""
        ...

    @property
    def continuous_scheduling_sleep_ms(self) -> int:
        """``FairScheduler.getContinuousSchedulingSleepMs``."""
        ...

    def continuous_scheduling_attempt(self) -> list[SchedulerNotification]:
        """``FairScheduler.continuousSchedulingAttempt``: one pass over the nodes."""
        ...

    @property
    def update_interval_ms(self) -> int:
        """``AbstractYarnScheduler.getUpdateInterval``: the update thread's period (ms); not positive: no thread."""
        ...

    def update(self) -> list[SchedulerNotification]:
        """``AbstractYarnScheduler.update``: the update thread's pass (the FairScheduler's fair shares)."""
        ...

    def service_start(self, clock: Callable[[], int]) -> None:
        """``serviceStart``: the RM's clock (virtual ms) for a scheduler that reads the time."""
        ...

    @property
    def placement(self) -> NodePlacementPolicy:
        """The node placement policy (``MultiNodeSortingManager``'s policy)."""
        ...

    def set_placement(self, policy: NodePlacementPolicy) -> None:
        """Use ``policy`` for every later placement (the launcher reseeds packing with the run's seed)."""
        ...

    # -- the event-skipping layer (actors/_shortcuts, actors/_resourcetracker.py) ----------------------------------
    def node_update_is_noop(self, node_id: NodeId) -> bool:
        """Whether a NODE_UPDATE without container statuses provably changes nothing."""
        ...

    def node_update_launched_only(self, node_id: NodeId, launched: Iterable[ContainerStatus]) -> bool:
        """Handle a launched-only NODE_UPDATE that provably allocates nothing (True), or change nothing (False)."""
        ...

    def idle_allocate(self, attempt_id: ApplicationAttemptId) -> Resource | None:
        """The headroom of an empty ``allocate`` that would return nothing else; None when it would."""
        ...

    def mark_launched(self, container_ids: Iterable[ContainerId]) -> None:
        """``SchedulerNode.containerStarted`` / ``RMContainerImpl`` LAUNCHED for each container."""
        ...

    # -- containers ----------------------------------------------------------------------------------------------
    def get_rm_container(self, container_id: ContainerId) -> RMContainerView | None:
        """``getRMContainer``: the scheduler's RMContainer of that id (a reservation included), or None."""
        ...

    def container_state(self, container_id: ContainerId) -> str | None:
        """``getRMContainer(id).getState()``, or None."""
        ...

    def live_container(self, container_id: ContainerId) -> Container | None:
        """``getRMContainer(id).getContainer()`` for an allocated (not reserved) container, or None."""
        ...

    def absorb_increase(self, temp_id: ContainerId, target_id: ContainerId, version: int) -> Container | None:
        """INCREASE_RESOURCE: ``ContainerUpdateContext.swapContainer`` of the temporary container into the target."""
        ...

    def decrease_container(self, container_id: ContainerId, resource: Resource, version: int) -> Container | None:
        """DECREASE_RESOURCE: ``handleDecreaseRequests`` + ``swapContainer``."""
        ...

    def swap_promoted(self, temp_id: ContainerId, promoted: Container, *, running: bool) -> bool:
        """PROMOTE_EXECUTION_TYPE: ``ContainerUpdateContext.swapContainer`` of the temporary GUARANTEED container."""
        ...

    def previous_attempt_containers(self, attempt_id: ApplicationAttemptId) -> tuple[Container, ...]:
        """``AbstractYarnScheduler.getTransferredContainers``."""
        ...

    # -- applications --------------------------------------------------------------------------------------------
    def get_application(self, app_or_attempt: ApplicationId | ApplicationAttemptId) -> SchedulerAppView | None:
        """``getApplicationAttempt`` (or ``getCurrentAttemptForContainer``'s attempt of an application)."""
        ...

    @property
    def attempts(self) -> Mapping[ApplicationAttemptId, SchedulerAppView]:
        """The live attempts (``getSchedulerApplications``' current attempts), by id."""
        ...

    @property
    def applications(self) -> Mapping[ApplicationId, Any]:
        """``getSchedulerApplications``: the scheduler's ``SchedulerApplication`` records, by id."""
        ...

    def move_application(self, app_id: ApplicationId, target_queue: str) -> str:
        """``YarnScheduler.moveApplication``: the queue the application is now in; ``SchedulingError`` if refused."""
        ...

    def update_application_priority(self, app_id: ApplicationId, priority: int) -> int:
        """``YarnScheduler.updateApplicationPriority``: the priority set; ``SchedulingError`` if refused."""
        ...

    # -- nodes, queues and the cluster ----------------------------------------------------------------------------
    @property
    def nodes(self) -> Mapping[NodeId, SchedulerNodeView]:
        """The registered nodes (``ClusterNodeTracker``), by id."""
        ...

    def node_report(self, node_id: NodeId) -> NodeReport | None:
        """``YarnScheduler.getNodeReport``."""
        ...

    @property
    def queues(self) -> Mapping[str, object]:
        """Every queue, by full path (``getQueueInfo`` of each)."""
        ...

    def queue_metrics(self) -> list[QueueMetrics]:
        """Each queue's ``QueueMetrics`` (root first, in configuration order)."""
        ...

    def root_queue_metrics(self) -> QueueMetrics:
        """``YarnScheduler.getRootQueueMetrics``: the root queue's ``QueueMetrics`` (the FifoScheduler's one queue's),
        without the other queues'."""
        ...

    @property
    def cluster_resource(self) -> Resource:
        """``getClusterResource``."""
        ...

    @property
    def minimum_allocation(self) -> Resource:
        """``getMinimumResourceCapability``."""
        ...

    def get_maximum_allocation(self) -> Resource:
        """The configured maximum allocation (``ClusterNodeTracker.configuredMaxAllocation``, re-read by
        ``reinitialize``), which the RM hands out as ``maximumResourceCapability`` to GetNewApplication and checks an
        AM container's size against at submission (a registering AM gets :meth:`maximum_allocation_of`)."""
        ...

    def queue_path_of(self, app: Any) -> str:
        """The full name of the leaf queue the application attempt ``app`` runs in (``root.default``)."""
        ...

    def queue_max_resource_of(self, app: Any, cluster: Resource) -> Resource:
        """The most the queue of ``app`` may ever hold in a cluster of ``cluster`` (a CapacityScheduler leaf's
        maximum capacity, a FairScheduler queue's ``maxResources``): the run's stall rule compares asks with it."""
        ...

    def maximum_allocation_of(self, app: Any) -> Resource:
        """``getMaximumResourceCapability(queue)`` for the application attempt ``app`` (one of :attr:`attempts`):
        the largest container it may ask for now, which ``registerApplicationMaster`` hands out as
        ``maximumResourceCapability`` and ``allocate`` checks the asks against."""
        ...

    @property
    def calculator(self) -> ResourceCalculatorView:
        """``getResourceCalculator``."""
        ...

    # -- access control ------------------------------------------------------------------------------------------
    @property
    def acl_enabled(self) -> bool:
        """``yarn.acl.enable`` (``YarnAuthorizationProvider`` in force)."""
        ...

    def is_admin(self, user: str, groups: tuple[str, ...] = ()) -> bool:
        """``AdminACLsManager.isAdmin`` (``yarn.admin.acl``)."""
        ...

    def check_access(self, user: str, acl: QueueACL, queue_name: str, groups: tuple[str, ...] = ()) -> bool:
        """``YarnScheduler.checkAccess``."""
        ...

    # -- refresh -------------------------------------------------------------------------------------------------
    def reinitialize(self, conf: Configuration) -> None:
        """``ResourceScheduler.reinitialize``: the scheduler's configuration again from ``conf`` (``rmadmin
        -refreshQueues``); a ``ConfigurationError`` changes nothing."""
        ...


class RecoveringScheduler(ResourceScheduler, Protocol):
    """A restarted RM's scheduler (work-preserving recovery): ``AbstractYarnScheduler.recoverContainersOnNode`` and
    ``isSchedulerReadyForAllocatingContainers``."""

    allocation_paused: bool

    def recover_container(self, node_id: NodeId, report: Any, *, is_am: bool, keep_containers: bool) -> str | None:
        """``recoverContainersOnNode`` for one RUNNING ``NMContainerStatus``: None when adopted, else why not."""
        ...

    def attempt_recovering(self, attempt_id: ApplicationAttemptId) -> None:
        """The recovered attempt's AM container runs already (``RMAppAttemptImpl`` recovered as LAUNCHED)."""
        ...
