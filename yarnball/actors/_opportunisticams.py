"""``OpportunisticContainerAllocatorAMService``: the RM's opportunistic allocation in front of the
ApplicationMasterService (opportunistic.md §4-§6, §8), plus the RM side of distributed scheduling (§7).

The ResourceManager owns one when ``yarn.resourcemanager.opportunistic-container-allocation.enabled`` is true and
calls it at a few points: node added/removed, node heartbeat (NM queue status in, queuing limit out), AM allocate
(before: split the asks, allocate OPPORTUNISTIC ones, turn promotions into guaranteed asks; after: add the
opportunistic containers, their completions and the updated containers to the response), and every guaranteed
allocation (to catch the ones that satisfy a promotion).

Opportunistic containers are not seen by the scheduler (as in Hadoop, where they never charge the queues): this
service keeps them and hands their completions to the AM. A promotion is a GUARANTEED ask on the container's node;
when the scheduler allocates it, the temporary container is swapped into the promoted one (Hadoop's
``ContainerUpdateContext.swapContainer``), which leaves this service: the scheduler holds it from then on, as any
GUARANTEED container (queue and user usage, resize, demotion, release, preemption). A demoted one comes back. The
container updates (promotions, demotions, increases and decreases) are in actors/_opportunisticupdates.py.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec

from yarnball._logs import get_logger
from yarnball.actors._opportunisticupdates import ExecutionTypeUpdates, OppContainer
from yarnball.errors import ConfigurationError
from yarnball.policies.opportunistic import (
    CentralizedOpportunisticContainerAllocator,
    LoadComparator,
    NodeQueueLoadMonitor,
    OpportunisticContainerContext,
    OpportunisticSchedulerMetrics,
    Placement,
    normalize,
    partition_asks,
)
from yarnball.policies.scheduler import (
    ACQUIRED,
    EXPIRED_CONTAINER,
    LOST_CONTAINER,
    RELEASED_CONTAINER,
    RUNNING,
    abnormal_status,
)
from yarnball.protocols import (
    ANY,
    AllocateRequest,
    AllocateResponse,
    ApplicationAttemptId,
    Configuration,
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerQueuingLimit,
    ContainerStatus,
    DistributedSchedulingAllocateResponse,
    ExecutionType,
    NodeId,
    NodeStatus,
    OpportunisticContainersStatus,
    RegisterDistributedSchedulingAMResponse,
    RemoteNode,
    Resource,
    ResourceRequest,
    UpdatedContainer,
    keys,
)
from yarnball.protocols._amprotocol import UpdateContainerError

__all__ = ["OpportunisticContainerAllocatorAMService", "OpportunisticSettings"]

log = get_logger(__name__)

# RMServerUtils' reasons (INCREASE_RESOURCE / DECREASE_RESOURCE requests are the ContainerResizeService's: the RM
# takes them out of the allocate before this service sees it, actors/_containerresize.py).

class OpportunisticSettings:
    """The RM's opportunistic configuration, validated with the offending key named."""

    __slots__ = (
        "auto_update",
        "comparator",
        "max_per_heartbeat",
        "maximum",
        "minimum",
        "nodes_used",
        "sigma",
        "sort_interval_ms",
    )

    def __init__(self, conf: Configuration) -> None:
        self.max_per_heartbeat = conf.get_int(keys.OPP_CONTAINER_MAX_ALLOCATIONS_PER_AM_HEARTBEAT)
        self.nodes_used = conf.get_int(keys.OPP_CONTAINER_ALLOCATION_NODES_NUMBER_USED)
        if self.nodes_used <= 0:
            raise ConfigurationError(
                f"{keys.OPP_CONTAINER_ALLOCATION_NODES_NUMBER_USED}: must be a positive number of nodes, "
                f"got {self.nodes_used}"
            )
        self.sort_interval_ms = conf.get_int(keys.NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS)
        if self.sort_interval_ms <= 0:
            raise ConfigurationError(
                f"{keys.NM_CONTAINER_QUEUING_SORTING_NODES_INTERVAL_MS}: must be positive, got {self.sort_interval_ms}"
            )
        self.comparator = LoadComparator.parse(conf.get(keys.NM_CONTAINER_QUEUING_LOAD_COMPARATOR) or "")
        self.sigma = conf.get_float(keys.NM_CONTAINER_QUEUING_LIMIT_STDEV)
        if self.sigma < 0:
            raise ConfigurationError(f"{keys.NM_CONTAINER_QUEUING_LIMIT_STDEV}: must not be negative, got {self.sigma}")
        if self.comparator is LoadComparator.QUEUE_WAIT_TIME:
            lo_key = keys.NM_CONTAINER_QUEUING_MIN_QUEUE_WAIT_TIME_MS
            hi_key = keys.NM_CONTAINER_QUEUING_MAX_QUEUE_WAIT_TIME_MS
        else:
            lo_key, hi_key = keys.NM_CONTAINER_QUEUING_MIN_QUEUE_LENGTH, keys.NM_CONTAINER_QUEUING_MAX_QUEUE_LENGTH
        self.minimum = conf.get_int(lo_key)
        self.maximum = conf.get_int(hi_key)
        if self.minimum < 0 or self.minimum > self.maximum:
            raise ConfigurationError(
                f"{lo_key} ({self.minimum}) must be >= 0 and not exceed {hi_key} ({self.maximum})"
            )
        self.auto_update = conf.get_bool(keys.RM_AUTO_UPDATE_CONTAINERS)


class OpportunisticContainerAllocatorAMService(ExecutionTypeUpdates):
    """Opportunistic allocation for the ResourceManager ``rm``."""

    def __init__(self, rm: Any, conf: Configuration, rng: random.Random) -> None:
        self.rm = rm
        self.settings = s = OpportunisticSettings(conf)
        self.monitor = NodeQueueLoadMonitor(s.comparator, s.nodes_used, rng)
        self.limits = self.monitor.init_threshold_calculator(s.sigma, s.minimum, s.maximum)
        self.allocator = CentralizedOpportunisticContainerAllocator(self.monitor, s.max_per_heartbeat)
        self.contexts: dict[ApplicationAttemptId, OpportunisticContainerContext] = {}
        self.containers: dict[ContainerId, OppContainer] = {}  # live OPPORTUNISTIC containers
        self.completed: dict[ApplicationAttemptId, list[ContainerStatus]] = {}
        self.updated: dict[ApplicationAttemptId, list[UpdatedContainer]] = {}
        self.new: dict[ApplicationAttemptId, list[Container]] = {}
        self.promotions: dict[int, ContainerId] = {}  # promotion request id -> the container to promote
        self.hidden: set[ContainerId] = set()  # scheduler containers the AM must never see
        self.demoting: set[ContainerId] = set()  # demoted GUARANTEED containers the scheduler is releasing
        self._unhide: set[ContainerId] = set()  # demoted ones, hidden until their release status is dropped
        self.to_update: dict[NodeId, list[Container]] = {}  # auto-update: pushed to NMs on their heartbeat
        self.counters: Counter[str] = Counter()
        self.metrics = OpportunisticSchedulerMetrics()  # Hadoop's, under its names (policies/opportunistic/_metrics.py)
        self._next_promotion = 0
        self._cached: tuple[RemoteNode, ...] = ()
        self._cached_at: float | None = None
        self._errors: dict[ApplicationAttemptId, list[UpdateContainerError]] = {}
        # The NMs' last OpportunisticContainersStatus, for the Nodes page (RMNode.getOpportunisticContainersStatus).
        self.node_status: dict[NodeId, OpportunisticContainersStatus] = {}
        # Containers placed on a node the RM had removed, with their allocation time (_watch_if_node_gone).
        self.stranded: dict[ContainerId, float] = {}

    # -- periodic sort -------------------------------------------------------------------------------------------
    def start(self) -> None:
        self.rm.every(self.settings.sort_interval_ms, self.sort)

    def sort(self) -> None:
        """``NodeQueueLoadMonitor.computeTask``: sort, then recompute the queue limit over the sorted nodes."""
        self.monitor.compute()

    def queuing_limit(self) -> ContainerQueuingLimit:
        """``QueueLimitCalculator.createContainerQueuingLimit``, sent on every node heartbeat response."""
        return self.limits.create_container_queuing_limit()

    def least_loaded_nodes(self) -> tuple[RemoteNode, ...]:
        """``getLeastLoadedNodes``: cached for one sorting interval; refreshed only to a non-empty list."""
        now = self.rm.now
        if self._cached_at is None or now - self._cached_at > self.settings.sort_interval_ms:
            # OpportunisticContainerAllocatorAMService.convertToRemoteNode: node id, rack and node partition
            # (a node the scheduler no longer has is left out: convertToRemoteNode finds no SchedulerNode for it)
            scheduled = self.rm.scheduler.nodes
            nodes = tuple(
                RemoteNode(node_id=n, rack_name=self.monitor.racks.get(n, ""), node_partition=_partition(scheduled, n))
                for n in self.monitor.select_least_loaded_nodes(self.settings.nodes_used)
                if n in scheduled
            )
            self._cached = nodes
            if nodes:
                self._cached_at = now
        return self._cached

    # -- node events ---------------------------------------------------------------------------------------------
    def on_node_added(self, node_id: NodeId, rack: str) -> None:
        self.monitor.add_node(node_id, rack)

    def on_node_removed(self, node_id: NodeId) -> None:
        """A lost node: CapacityScheduler.removeNode ends every container the node held, OPPORTUNISTIC ones too (its
        SchedulerNode lists both), with ``SchedulerUtils.LOST_CONTAINER``; their AMs hear of it on their next
        allocate. (Left out, they stayed live forever and their applications never finished.)"""
        self.monitor.remove_node(node_id)
        self.node_status.pop(node_id, None)
        lost = [record for record in self.containers.values() if record.container.node_id == node_id]
        for record in lost:
            self._lose(record)

    def _lose(self, record: OppContainer) -> None:
        """End an OPPORTUNISTIC container of a lost node with ``SchedulerUtils.LOST_CONTAINER``."""
        cid = record.container.id
        del self.containers[cid]
        status = abnormal_status(cid, LOST_CONTAINER)
        self.rm.dispatcher.container_done(cid, status)
        self._opportunistic_done(record, status)

    def _watch_if_node_gone(self, container: Container) -> None:
        """A container placed on a node the RM removed after handing out its node list (the least-loaded nodes are
        cached for a sorting interval, and an NM's DistributedScheduler places on the list of its last allocate):
        no NM will ever run or report it. Hadoop's RMContainer is ACQUIRED at once
        (``OpportunisticContainerAllocatorAMService.handleNewContainers``), which registers it with the
        ContainerAllocationExpirer: it expires unlaunched after ``yarn.resourcemanager.rm.container-allocation
        .expiry-interval-ms``, and its AM hears of it then. (Left live, its AM waited for it for ever and the
        application never finished.)"""
        if container.node_id not in self.rm.scheduler.nodes:
            self.stranded[container.id] = self.rm.now

    def expire(self, now: float) -> None:
        """The dispatcher's expirer (with the ContainerAllocationExpirer): a container on a removed node that is
        still allocated ``expiry-interval-ms`` after its allocation ends with ``SchedulerUtils.EXPIRED_CONTAINER``
        (``AbstractYarnScheduler.completedContainer`` on CONTAINER_EXPIRED)."""
        if not self.stranded:
            return
        deadline = now - self.rm.alloc_expiry_ms
        for cid, allocated_at in list(self.stranded.items()):
            if allocated_at < deadline:
                del self.stranded[cid]
                record = self.containers.pop(cid, None)
                if record is not None:  # (not released or ended otherwise meanwhile)
                    status = abnormal_status(cid, EXPIRED_CONTAINER)
                    self.rm.dispatcher.container_done(cid, status)
                    self._opportunistic_done(record, status)

    def on_container_running(self, cid: ContainerId) -> None:
        """The NM reported ``cid`` RUNNING (RMNodeImpl's newly launched containers, then the NODE_UPDATE's
        ``containerLaunchedOnNode``): an OPPORTUNISTIC RMContainer goes RUNNING, and so does a promoted one the
        scheduler took over before the NM started it (still ACQUIRED there)."""
        record = self.containers.get(cid)
        if record is not None:
            record.state = RUNNING
        elif self.rm.scheduler.container_state(cid) == ACQUIRED:
            self.rm.scheduler.mark_launched((cid,))

    def container_state(self, cid: ContainerId) -> str | None:
        """``getRMContainer(cid).getState()``: this service's RMContainer of an OPPORTUNISTIC container, the
        scheduler's of a GUARANTEED one (a promoted one included); None once the RM holds no container of that id."""
        record = self.containers.get(cid)
        if record is not None:
            return record.state
        return self.rm.scheduler.container_state(cid)  # type: ignore[no-any-return]

    def recovered_completed(self, completed: list[ContainerStatus]) -> None:
        """ResourceTrackerService's recovered listener: the COMPLETE statuses a registering NM brought end their
        OPPORTUNISTIC containers."""
        for cs in completed:
            record = self.containers.pop(cs.container_id, None)
            if record is not None:
                self._opportunistic_done(record, cs)

    def nm_running(self, cs: ContainerStatus) -> None:
        """ResourceTrackerService's running listener: ``on_container_running`` for a launched container."""
        self.on_container_running(cs.container_id)

    def heartbeat_response_parts(
        self, node_id: NodeId, status: NodeStatus | None, completed: list[ContainerStatus]
    ) -> tuple[ContainerQueuingLimit, tuple[Container, ...]] | None:
        """ResourceTrackerService's response updater: ``on_node_heartbeat`` for a heartbeat that carries its
        NodeStatus (None for a virtual one, which adds nothing)."""
        if status is None:
            return None
        return self.on_node_heartbeat(status, completed)

    def on_node_heartbeat(
        self, status: NodeStatus, completed: list[ContainerStatus]
    ) -> tuple[ContainerQueuingLimit, tuple[Container, ...]]:
        """Update the monitor, hand completed opportunistic containers to their AMs; return the queuing limit and
        the containers to update on the node (``auto-update.containers``)."""
        capability = allocated = None
        if self.settings.comparator is LoadComparator.QUEUE_LENGTH_THEN_RESOURCES:
            capability, allocated = self._node_resources(status)
        # NodeQueueLoadMonitor.onExistingNodeUpdated: a DECOMMISSIONING node leaves the ClusterNodes (and takes no
        # opportunistic containers) until it is RUNNING again.
        draining = self.rm.decommissioning
        self.monitor.update_node(
            status.node_id, status.opportunistic_containers_status, self.rm.now,
            decommissioning=draining is not None and status.node_id in draining.draining,
            capability=capability, allocated=allocated,
        )
        if status.opportunistic_containers_status is not None:
            self.node_status[status.node_id] = status.opportunistic_containers_status
        for cs in completed:
            record = self.containers.pop(cs.container_id, None)
            if record is None:
                continue
            self._opportunistic_done(record, cs)
        updates = tuple(self.to_update.pop(status.node_id, ()))
        return self.queuing_limit(), updates

    def _node_resources(self, status: NodeStatus) -> tuple[Resource | None, Resource | None]:
        """``rmNode.getTotalCapability()`` and ``getAllocatedContainerResource()``. Hadoop sums the capabilities the
        NM reports for its RUNNING containers; yarnball's RM takes the scheduler's GUARANTEED use of the node plus
        the OPPORTUNISTIC use the NM reports (the same containers, counted from the RM's books)."""
        node = self.rm.nodes.get(status.node_id)
        if node is None:
            return None, None
        report = self.rm.scheduler.node_report(status.node_id)
        o = status.opportunistic_containers_status
        mem = (report.used.memory_mb if report is not None else 0) + (o.opport_memory_used if o is not None else 0)
        vc = (report.used.vcores if report is not None else 0) + (o.opport_cores_used if o is not None else 0)
        return node.resource, Resource(mem, vc)

    def _opportunistic_done(self, record: OppContainer, cs: ContainerStatus) -> None:
        if cs.exit_status == ContainerExitStatus.KILLED_BY_CONTAINER_SCHEDULER:
            self.counters["opportunistic_killed"] += 1
        self.metrics.incr_released_opp_containers(1)  # AbstractYarnScheduler.completedContainer
        attempt = self.rm.attempts.get(record.attempt_id)
        if attempt is not None and not attempt.is_done:
            self.completed.setdefault(record.attempt_id, []).append(cs)  # its AM learns on the next allocate
        if record.promotion_rid is not None:
            self.promotions.pop(record.promotion_rid, None)
            self._withdraw_promotion(record)

    # -- the AM heartbeat ------------------------------------------------------------------------------------------
    def _context(self, attempt_id: ApplicationAttemptId) -> OpportunisticContainerContext:
        ctx = self.contexts.get(attempt_id)
        if ctx is None:
            ctx = self.contexts[attempt_id] = OpportunisticContainerContext()
            ctx.metrics = self.metrics
        return ctx

    def normalizer(self) -> Any:
        minimum = self.rm.scheduler.minimum_allocation
        maximum = self.rm.maximum_allocation
        return lambda r: normalize(r, minimum, maximum, minimum)  # increment = the scheduler's minimum, as Hadoop

    def before_allocate(self, msg: AllocateRequest) -> tuple[list[ResourceRequest], list[ContainerId]]:
        """Split the asks, allocate the OPPORTUNISTIC ones, turn promotions into guaranteed asks; return the
        guaranteed asks and the releases for the scheduler."""
        attempt_id = msg.application_attempt_id
        guaranteed, opportunistic = partition_asks(msg.ask)
        release: list[ContainerId] = []
        for cid in msg.release:
            record = self.containers.pop(cid, None)
            if record is None:
                release.append(cid)
            else:
                self._release(record)
        guaranteed.extend(self._container_updates(msg, release))
        ctx = self._context(attempt_id)
        ctx.now_ms = self.rm.now
        # OpportunisticAMSProcessor.allocate: oppCtx.updateNodeList(getLeastLoadedNodes()) (the node map Hadoop's
        # context keeps; the centralized allocator itself selects through the NodeQueueLoadMonitor)
        ctx.update_node_list(self.least_loaded_nodes())
        bl = msg.resource_blacklist_request
        placements = self.allocator.allocate(
            ctx, opportunistic, self.normalizer(), bl.blacklist_additions, bl.blacklist_removals
        )
        if placements:
            self.metrics.incr_allocated_opp_containers(len(placements))  # OpportunisticAMSProcessor.allocate
            self._create(attempt_id, placements)
        return guaranteed, release

    def _release(self, record: OppContainer) -> None:
        """The AM gave an OPPORTUNISTIC container back. ``AbstractYarnScheduler.releaseContainers``: the RM ends it
        at once (``completedContainer`` with ``SchedulerUtils.RELEASED_CONTAINER``, ABORTED, which the AM reads in
        its next allocate) and tells its NM to kill it, started or not; the NM's later report of it is ignored."""
        cid = record.container.id
        status = abnormal_status(cid, RELEASED_CONTAINER)
        self.rm.dispatcher.container_done(cid, status)
        self._opportunistic_done(record, status)
        node = self.rm.nodes.get(record.container.node_id)
        if node is not None:
            node.queue_cleanup(cid)

    def _create(self, attempt_id: ApplicationAttemptId, placements: list[Placement]) -> None:
        app = self.rm.scheduler.get_application(attempt_id)
        rm_app = self.rm.apps.get(attempt_id.application_id)
        out = self.new.setdefault(attempt_id, [])
        for p in placements:
            seq = app.next_seq  # ids shared with the scheduler (appSchedulingInfo.getNewContainerId)
            app.next_seq = seq + 1
            container = Container(
                id=ContainerId(attempt_id, seq),
                node_id=p.node_id,
                resource=p.resource,
                priority=p.priority,
                execution_type=ExecutionType.OPPORTUNISTIC,
                allocation_request_id=p.allocation_request_id,
            )
            # Not registered with the allocation expirer (rm.unlaunched): Hadoop registers it on ACQUIRED, but its NM
            # reports queued containers as RUNNING (sub-state SCHEDULED) and yarnball's NM does not (docs: Fidelity).
            self.containers[container.id] = OppContainer(attempt_id, container)
            self.rm.live.add(container.id)
            if rm_app is not None:
                rm_app.nodes.add(p.node_id)
                if rm_app.first_task_time is None:
                    rm_app.first_task_time = self.rm.now
                rm_app.container_allocated(container.id, self.rm.now, container.resource)
            self.counters["opportunistic_allocated"] += 1
            self._watch_if_node_gone(container)
            # CentralizedOpportunisticContainerAllocator: the loop that placed it (node-local, rack-local, any)
            if p.location == ANY:
                self.metrics.incr_off_switch_opp_containers()
            elif p.location.startswith("/"):
                self.metrics.incr_rack_local_opp_containers()
            else:
                self.metrics.incr_node_local_opp_containers()
            out.append(container)

    def after_allocate(self, msg: AllocateRequest, response: AllocateResponse) -> AllocateResponse:
        attempt_id = msg.application_attempt_id
        hidden = self.hidden
        allocated = [c for c in response.allocated_containers if c.id not in hidden]
        allocated.extend(self.new.pop(attempt_id, ()))
        completed = [s for s in response.completed_container_statuses if s.container_id not in hidden]
        if self._unhide:
            # A demoted container's release status was just dropped: the AM may see it again (promoted anew, say).
            for s in response.completed_container_statuses:
                if s.container_id in self._unhide:
                    self._unhide.discard(s.container_id)
                    hidden.discard(s.container_id)
        completed.extend(self.completed.pop(attempt_id, ()))
        updated = self.updated.pop(attempt_id, [])
        if updated and self.settings.auto_update:
            # SchedulerApplicationAttempt.updateContainerAndNMToken: with auto-update the NM is told (in its next
            # heartbeat response, RMNodeUpdateContainerEvent) when the AM pulls the update, not before.
            for uc in updated:
                self.to_update.setdefault(uc.container.node_id, []).append(uc.container)
        errors = self._errors.pop(attempt_id, [])
        return msgspec.structs.replace(
            response,
            allocated_containers=tuple(allocated),
            completed_container_statuses=tuple(completed),
            updated_containers=(*response.updated_containers, *updated),
            update_errors=(*response.update_errors, *errors),
        )

    # -- DistributedSchedulingAMService ---------------------------------------------------------------------------
    def register_distributed(self, response: Any) -> RegisterDistributedSchedulingAMResponse:
        """The register answer for an NM's DistributedScheduler: allocation parameters and the node list."""
        minimum = self.rm.scheduler.minimum_allocation
        return RegisterDistributedSchedulingAMResponse(
            register_response=response,
            container_token_expiry_interval=self.rm.alloc_expiry_ms,
            # Hadoop: epoch << 40, ids counting down. yarnball's RM has epoch 0, which would make the ids negative;
            # it starts at 1 << 40 instead, so NM-made ids never meet the scheduler's (which count up from 1).
            container_id_start=1 << 40,
            max_container_resource=self.rm.maximum_allocation,
            min_container_resource=minimum,
            incr_container_resource=minimum,
            nodes_for_scheduling=self.least_loaded_nodes(),
        )

    def record_remote_allocations(self, attempt_id: ApplicationAttemptId, containers: Any) -> None:
        """Containers an NM allocated: the RM records them (ACQUIRED) to account and clean them up."""
        rm_app = self.rm.apps.get(attempt_id.application_id)
        for c in containers:
            if c.id in self.containers:
                continue
            self.containers[c.id] = OppContainer(attempt_id, c)
            self.rm.live.add(c.id)
            if rm_app is not None:
                rm_app.nodes.add(c.node_id)
                if rm_app.first_task_time is None:
                    rm_app.first_task_time = self.rm.now
                rm_app.container_allocated(c.id, self.rm.now, c.resource)
            self.counters["opportunistic_allocated"] += 1
            self._watch_if_node_gone(c)

    def distributed_allocate_response(self, response: AllocateResponse) -> DistributedSchedulingAllocateResponse:
        return DistributedSchedulingAllocateResponse(
            allocate_response=response, nodes_for_scheduling=self.least_loaded_nodes()
        )

    def on_attempt_removed(self, attempt_id: ApplicationAttemptId) -> None:
        self.contexts.pop(attempt_id, None)
        self.new.pop(attempt_id, None)
        self.completed.pop(attempt_id, None)
        self.updated.pop(attempt_id, None)
        self._errors.pop(attempt_id, None)

    @property
    def resource_used(self) -> Resource:
        mem = sum(r.container.resource.memory_mb for r in self.containers.values())
        vc = sum(r.container.resource.vcores for r in self.containers.values())
        return Resource(mem, vc)


def _partition(scheduled: Any, node_id: NodeId) -> str:
    """``RMNode.getNodePartition``: the node's (single) label, or NO_LABEL ("")."""
    node = scheduled.get(node_id)
    labels = node.labels if node is not None else ()
    return labels[0] if labels else ""
