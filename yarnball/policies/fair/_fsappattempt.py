"""Hadoop's ``FSAppAttempt``: one application attempt as the FairScheduler schedules it (fair.md §4.4-§4.6).

It is the queue tree's :class:`~yarnball.policies.fair.FSApp` over the base's attempt record (``SchedulerApp``,
which holds the ask table, the containers and the reservations, as ``SchedulerApplicationAttempt`` does in Hadoop):
demand, usage, weight and fair share for the policies; ``assignContainer`` on a node with the locality delay
(count-based, or time-based under continuous scheduling), the node's reservation and the reservation threshold; the
AM-share limit; the headroom.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from yarnball._logs import get_logger
from yarnball.policies.capacity._allocator import _allocate, _reserve
from yarnball.policies.capacity._state import (
    NODE_LOCAL,
    OFF_SWITCH,
    RACK_LOCAL,
    KeyAsks,
    RMContainer,
    SchedulerApp,
    SchedulerNode,
)
from yarnball.policies.fair._configurableresource import unbounded
from yarnball.policies.fair._demand import app_demand, app_headroom, app_weight
from yarnball.policies.fair._fairschedulerconfiguration import FairSchedulerConfiguration
from yarnball.policies.fair._fsapp import AppStarvation
from yarnball.policies.fair._fsleafqueue import FSLeafQueue, _usage_below_share, subtract_non_negative
from yarnball.protocols import ANY, ApplicationId, ContainerId, Priority, Resource, ResourceRequest

if TYPE_CHECKING:
    from yarnball.policies.fair._fairscheduler import FairScheduler

__all__ = ["CONTAINER_RESERVED", "FSAppAttempt"]

log = get_logger(__name__)

_NONE: Final = Resource(0, 0)
#: FairScheduler.CONTAINER_RESERVED: what assignContainer returns for a reservation (<-1 MB, 0 vcores>)
CONTAINER_RESERVED: Final = Resource(-1, 0)
_APP_PRIORITY: Final = Priority(1)
_LOCALITY: Final = ("NODE_LOCAL", "RACK_LOCAL", "OFF_SWITCH")


class FSAppAttempt:
    """``FSAppAttempt`` (see the module docstring); ``attempt`` is the base's record of the same attempt."""

    __slots__ = (
        "_demand",
        "allowed_locality",
        "am_resource",
        "attempt",
        "containers_to_be_preempted",
        "diagnostics",
        "enable_am_preemption",
        "fair_share",
        "last_scheduled",
        "name",
        "name_capabilities",
        "queue",
        "resources_to_be_preempted",
        "scheduler",
        "start_time",
        "starvation",
        "unmanaged_am",
    )

    def __init__(self, scheduler: FairScheduler, attempt: SchedulerApp, queue: FSLeafQueue, start_time: int) -> None:
        self.scheduler = scheduler
        self.attempt = attempt
        self.queue = queue
        self.start_time = start_time
        # getName: the application id's text, read by the policies' comparators (their last tie-break)
        self.name = str(attempt.app.app_id)
        self.fair_share = _NONE
        self.starvation = AppStarvation(start_time)
        self._demand = _NONE
        self.am_resource = _NONE
        self.diagnostics = ""
        # allowedLocalityLevel and lastScheduledContainer, by scheduler key
        self.allowed_locality: dict[tuple[int, int], int] = {}
        self.last_scheduled: dict[tuple[int, int], int] = {}
        # (scheduler key, host or rack) -> that ask's normalised capability: LocalityAppPlacementAllocator keeps one
        # ResourceRequest per resource name, each with its own size (the base's ask table keeps the ANY ask's)
        self.name_capabilities: dict[tuple[tuple[int, int], str], Resource] = {}
        # containersToBePreempted / resourcesToBePreempted; enableAMPreemption is read once, for the attempt's queue
        self.containers_to_be_preempted: dict[ContainerId, RMContainer] = {}
        self.resources_to_be_preempted = _NONE
        self.enable_am_preemption = FairSchedulerConfiguration(scheduler.conf).get_am_preemption_enabled(queue.name)
        # SchedulerApplicationAttempt.unmanagedAM, read from the submission context when the attempt is created: no AM
        # share check, no AM resource usage (Hadoop's FairSchedulerTestBase.createSchedulingRequest submits so)
        self.unmanaged_am = attempt.app.app_id in scheduler.unmanaged_apps

    # -- Schedulable / FSApp ------------------------------------------------------------------------------------------
    @property
    def application_id(self) -> ApplicationId:
        return self.attempt.app.app_id

    @property
    def user(self) -> str:
        return self.attempt.app.user

    @property
    def demand(self) -> Resource:
        return self._demand

    @property
    def resource_usage(self) -> Resource:
        """``getResourceUsage``: the attempt's allocated containers (a reservation is not usage)."""
        return Resource(self.attempt.used_m, self.attempt.used_v)

    @property
    def min_share(self) -> Resource:
        return _NONE

    @property
    def max_share(self) -> Resource:
        return unbounded()

    @property
    def weight(self) -> float:
        """``getWeight``: 1, or log2(1 + demand MB) with ``sizebasedweight``."""
        return app_weight(self._demand.memory_mb, self.scheduler.size_based_weight)

    @property
    def priority(self) -> Priority:
        return _APP_PRIORITY

    def is_active(self) -> bool:
        return True

    @property
    def is_am_running(self) -> bool:
        return self.attempt.am_running

    def update_demand(self) -> None:
        """``updateDemand``: usage plus every key's outstanding ANY ask."""
        asks = [(Resource(ka.cap_m, ka.cap_v), ka.any_count) for ka in self.attempt.keys.values()]
        self._demand = app_demand(self.resource_usage, asks)

    def is_pending(self) -> bool:
        """``AppSchedulingInfo.isPending``: no container allocated yet."""
        return not self.attempt.am_running

    def update_am_container_diagnostics(self, state: str, diagnostics: str) -> None:
        self.diagnostics = diagnostics

    def _am_diagnostic(self, resource: Resource, reason: str) -> None:
        """``updateAMDiagnosticMsg``: recorded only while the AM waits for its container."""
        if not self.attempt.am_running:
            self.diagnostics = f" (Resource request: {resource}{reason}"

    def __repr__(self) -> str:
        return f"FSAppAttempt({self.attempt.attempt_id}, queue={self.queue.name})"

    # -- starvation and headroom ----------------------------------------------------------------------------------
    def is_starved(self) -> bool:
        """``isStarved``: usage below the fair share (policy calculator) or a min-share starvation."""
        queue = self.queue
        calc = queue.policy.get_resource_calculator()
        below = _usage_below_share(calc, queue.context.cluster_resource, self.resource_usage, self.fair_share)
        return below or not self.starvation.minshare_starvation.is_none()

    def headroom(self) -> Resource:
        """``getHeadroom`` (fair.md §3.5)."""
        s = self.scheduler
        queue = self.queue
        blacklist = self.attempt.blacklist
        blacklisted = (
            [Resource(n.unalloc_m, n.unalloc_v) for n in s.nodes.values() if n.host in blacklist or n.rack in blacklist]
            if blacklist
            else []
        )
        return app_headroom(
            queue.policy,
            queue.fair_share,
            queue.resource_usage,
            queue.max_share,
            s.cluster_resource,
            s.queue_manager.root_queue.resource_usage,
            blacklisted,
        )

    # -- preemption (fair.md §5.4) --------------------------------------------------------------------------------
    def is_preemptable(self) -> bool:
        """``isPreemptable``: the queue's (``allowPreemptionFrom``, inherited)."""
        return self.queue.preemptable

    def track_container_for_preemption(self, rmc: RMContainer) -> None:
        """``trackContainerForPreemption``: the container is to be preempted (the AM hears of it in its next
        ``allocate``); its resource no longer counts as the attempt's in ``canContainerBePreempted``."""
        if rmc.cid not in self.containers_to_be_preempted:
            self.containers_to_be_preempted[rmc.cid] = rmc
            self.resources_to_be_preempted = self.resources_to_be_preempted + Resource(rmc.mem, rmc.vc)
            self.attempt.mark_preempted(rmc.cid)

    def untrack_container_for_preemption(self, rmc: RMContainer) -> None:
        """``untrackContainerForPreemption`` (the container completed)."""
        if self.containers_to_be_preempted.pop(rmc.cid, None) is not None:
            self.resources_to_be_preempted = self.resources_to_be_preempted - Resource(rmc.mem, rmc.vc)

    def can_container_be_preempted(self, rmc: RMContainer, already_considering: Resource) -> bool:
        """``canContainerBePreempted``: the queue is preemptable, an AM container only with AM preemption on for
        the queue, the container is the attempt's and not already marked, and the attempt's usage without the
        marked containers, this one and ``already_considering`` stays at or above its fair share."""
        if not self.is_preemptable():
            return False
        if rmc.is_am and not self.enable_am_preemption:
            return False
        if rmc.cid not in self.attempt.live:
            log.error(
                f"Looking to preempt container {rmc.cid}. Container does not belong to app {self.application_id}"
            )
            return False
        if rmc.cid in self.containers_to_be_preempted:
            return False  # already under consideration for preemption
        after = self.resource_usage - self.resources_to_be_preempted - Resource(rmc.mem, rmc.vc) - already_considering
        queue = self.queue
        calc = queue.policy.get_resource_calculator()
        return not _usage_below_share(calc, queue.context.cluster_resource, after, self.fair_share)

    def get_all_resource_requests(self) -> list[ResourceRequest]:
        """``AppSchedulingInfo.getAllResourceRequests``: per scheduler key (in key order) the ANY ask, then the rack
        and host asks in the order they were made (Hadoop walks hash maps here: fair.md §9), each with its own
        size (:meth:`record_name_capabilities`)."""
        out: list[ResourceRequest] = []
        for ka in self.attempt.keys_in_order():
            capability = Resource(ka.cap_m, ka.cap_v)
            sizes = self.name_capabilities
            out.append(
                ResourceRequest(
                    priority=ka.priority,
                    capability=capability,
                    resource_name=ANY,
                    num_containers=ka.any_count,
                    relax_locality=ka.any_relax,
                    allocation_request_id=ka.request_id,
                )
            )
            for name, (count, relax) in ka.names.items():
                out.append(
                    ResourceRequest(
                        priority=ka.priority,
                        capability=sizes.get((ka.key, name), capability),
                        resource_name=name,
                        num_containers=count,
                        relax_locality=relax,
                        allocation_request_id=ka.request_id,
                    )
                )
        return out

    def record_name_capabilities(
        self,
        asks: Sequence[ResourceRequest],
        normalize: Callable[[int, int, Resource], tuple[int, int]],
        maximum: Resource,
    ) -> None:
        """Keep each host and rack ask's own normalised size (``normalizeResourceRequests`` normalises every
        ResourceRequest; ``LocalityAppPlacementAllocator`` keeps one per resource name), for
        :meth:`get_all_resource_requests`. Allocation still sizes a container by the ANY ask."""
        sizes = self.name_capabilities
        for r in asks:
            if r.resource_name != ANY:
                cap = r.capability
                sizes[((r.priority.priority, r.allocation_request_id), r.resource_name)] = Resource(
                    *normalize(cap.memory_mb, cap.vcores, maximum)
                )

    def get_starved_resource_requests(self) -> list[ResourceRequest]:
        """``getStarvedResourceRequests``: asks covering the attempt's starvation, one locality level per
        (priority, capability) (``VisitedResourceRequestTracker``), each cut to the containers that fit in what is
        still to cover (memory ratio, ``DefaultResourceCalculator``)."""
        from yarnball.policies.fair._fspreemptionthread import VisitedResourceRequestTracker

        out: list[ResourceRequest] = []
        visited = VisitedResourceRequestTracker(self.scheduler)
        pending = self.starvation.get_starvation()
        for rr in self.get_all_resource_requests():
            if pending.is_none():
                break
            if not visited.visit(rr):
                continue
            cap_m = rr.capability.memory_mb
            # (int) Math.floor(ratio): a zero-memory capability gives Infinity, i.e. Integer.MAX_VALUE
            fit = math.floor(pending.memory_mb / cap_m) if cap_m else 2**31 - 1
            if fit == 0:
                continue
            if fit < rr.num_containers:
                rr = ResourceRequest(
                    priority=rr.priority, capability=rr.capability, resource_name=rr.resource_name, num_containers=fit
                )
            out.append(rr)
            pending = subtract_non_negative(pending, rr.capability * rr.num_containers)
        return out

    def preemption_triggered(self, delay_before_next_starvation_check: int) -> None:
        """``preemptionTriggered``: not starved again before ``now + delay``."""
        self.starvation.preemption_triggered(self.scheduler.now(), delay_before_next_starvation_check)

    # -- assignContainer ------------------------------------------------------------------------------------------
    def is_over_am_share_limit(self) -> bool:
        """``isOverAMShareLimit``: a managed AM is not allocated yet and the first key's ask is 0 or does not fit
        the queue's AM share."""
        attempt = self.attempt
        if attempt.am_running or self.unmanaged_am:
            return False
        keys = attempt.keys_in_order()
        if not keys or keys[0].any_count == 0:
            return True
        ka = keys[0]
        return not self.queue.can_run_app_am(Resource(ka.cap_m, ka.cap_v))

    def assign_container(self, node: SchedulerNode) -> Resource:
        """``assignContainer(node)``: the resource allocated, :data:`CONTAINER_RESERVED`, or none."""
        if self.is_over_am_share_limit():
            keys = self.attempt.keys_in_order()
            if keys:
                self._am_diagnostic(Resource(keys[0].cap_m, keys[0].cap_v), " exceeds maximum AM resource allowed).")
            return _NONE
        return self._assign(node, False)

    def _assign(self, node: SchedulerNode, reserved: bool) -> Resource:
        attempt = self.attempt
        if reserved:
            assert node.reserved is not None
            ka0 = attempt.keys.get(node.reserved.key)
            keys = [ka0] if ka0 is not None else []
        else:
            keys = list(attempt.keys_in_order())
        s = self.scheduler
        for ka in keys:
            if not reserved and not self.has_container_for_node(ka, node):
                continue
            key = ka.key
            attempt.opportunities[key] = attempt.opportunities.get(key, 0) + 1  # addSchedulingOpportunity
            rack = ka.names.get(node.rack)
            host = ka.names.get(node.host)
            rack_count = rack[0] if rack is not None else 0
            host_count = host[0] if host is not None else 0
            if s.continuous_scheduling:
                allowed = self.allowed_locality_by_time(key, s.node_locality_delay_ms, s.rack_locality_delay_ms)
            else:
                allowed = self.allowed_locality_by_count(
                    key, len(s.nodes), s.node_locality_threshold, s.rack_locality_threshold
                )
            if rack_count > 0 and host_count > 0:
                return self._assign_on(node, ka, NODE_LOCAL, reserved)
            if rack is not None and not rack[1]:
                continue  # !canDelayTo(key, rack)
            if rack_count > 0 and allowed in (RACK_LOCAL, OFF_SWITCH):
                return self._assign_on(node, ka, RACK_LOCAL, reserved)
            if not ka.any_relax:
                continue
            if ka.any_count > 0 and (ka.unique_location_asks() <= 1 or allowed == OFF_SWITCH):
                return self._assign_on(node, ka, OFF_SWITCH, reserved)
        return _NONE

    def has_container_for_node(self, ka: KeyAsks, node: SchedulerNode) -> bool:
        """``hasContainerForNode``: an outstanding ANY ask that locality relaxation lets reach this node, fitting
        the node's total resource and the queue's (and its parents') max share."""
        rack = ka.names.get(node.rack)
        for_rack = rack is not None and rack[0] > 0
        host = ka.names.get(node.host)
        for_node = host is not None and host[0] > 0
        if not (
            ka.any_count > 0
            and (ka.any_relax or for_rack)
            and (not for_rack or (rack is not None and rack[1]) or for_node)
            and ka.cap_m <= node.total_m
            and ka.cap_v <= node.total_v
        ):
            return False
        resource = Resource(ka.cap_m, ka.cap_v)
        if not self.queue.fits_in_max_share(resource):
            self._am_diagnostic(
                resource,
                " exceeds current queue or its parents maximum resource allowed). Max share of queue: "
                f"{self.queue.max_share}",
            )
            return False
        return True

    def allowed_locality_by_count(self, key: tuple[int, int], num_nodes: int, node_thr: float, rack_thr: float) -> int:
        """``getAllowedLocalityLevel``: relax a level once the key missed more than ``num_nodes x threshold``
        scheduling opportunities at it."""
        node_thr, rack_thr = min(node_thr, 1.0), min(rack_thr, 1.0)
        if node_thr < 0.0 or rack_thr < 0.0:
            return OFF_SWITCH
        allowed = self.allowed_locality.get(key)
        if allowed is None:
            self.allowed_locality[key] = NODE_LOCAL
            return NODE_LOCAL
        if allowed == OFF_SWITCH:
            return OFF_SWITCH
        threshold = node_thr if allowed == NODE_LOCAL else rack_thr
        if self.attempt.opportunities.get(key, 0) > num_nodes * threshold:
            self.allowed_locality[key] = allowed + 1
            self._reset_opportunities(key)
        return self.allowed_locality[key]

    def allowed_locality_by_time(self, key: tuple[int, int], node_delay_ms: int, rack_delay_ms: int) -> int:
        """``getAllowedLocalityLevelByTime``: relax a level once the key waited longer than the delay since its
        last container (or since the level was first set)."""
        if node_delay_ms < 0 or rack_delay_ms < 0:
            return OFF_SWITCH
        now = self.scheduler.now()
        allowed = self.allowed_locality.get(key)
        if allowed is None:
            self.last_scheduled[key] = now
            self.allowed_locality[key] = NODE_LOCAL
            return NODE_LOCAL
        if allowed == OFF_SWITCH:
            return OFF_SWITCH
        wait = now - self.last_scheduled.get(key, self.start_time)
        if wait > (node_delay_ms if allowed == NODE_LOCAL else rack_delay_ms):
            self.allowed_locality[key] = allowed + 1
            self._reset_opportunities(key)
        return self.allowed_locality[key]

    def _reset_opportunities(self, key: tuple[int, int]) -> None:
        """``resetSchedulingOpportunities(key, now)``."""
        self.last_scheduled[key] = self.scheduler.now()
        self.attempt.opportunities[key] = 0

    def _assign_on(self, node: SchedulerNode, ka: KeyAsks, locality: int, reserved: bool) -> Resource:
        """The private ``assignContainer(node, pendingAsk, type, reserved, key)``: allocate if the ask fits the
        node's unallocated resource, else reserve the node when the attempt is starved and the ask reaches the
        reservation threshold."""
        s = self.scheduler
        ctx = s.ctx
        capability = Resource(ka.cap_m, ka.cap_v)
        attempt = self.attempt
        reserved_rmc = node.reserved if reserved else None
        if ka.cap_m <= node.unalloc_m and ka.cap_v <= node.unalloc_v:
            if ka.any_count <= 0:  # allocate() returns null: nothing outstanding at the key
                if reserved_rmc is not None:
                    s.unreserve(reserved_rmc)
                return _NONE
            # allocate(): a more local allocation than allowed lowers the allowed level
            allowed = self.allowed_locality.get(ka.key)
            if allowed is not None and locality < allowed:
                log.info(
                    f"Raising locality level from {_LOCALITY[allowed]} to {_LOCALITY[locality]} at  priority "
                    f"{ka.priority.priority}"
                )
                self.allowed_locality[ka.key] = locality
            was_am = attempt.am_running
            # The reservation becomes the container (its id kept): FSAppAttempt.allocate with reservedContainer.
            _allocate(ctx, s.accounting_queue, attempt, node, ka, locality, reserved_rmc, None)
            s.allocated(self, capability)
            fs_node = s.fs_nodes.get(node.node_id)
            if fs_node is not None:
                fs_node.allocate_container(self, capability)  # FSSchedulerNode.allocateContainer
            if not was_am and not self.unmanaged_am:  # an unmanaged AM runs outside the cluster
                self.am_resource = capability
                self.queue.add_am_resource_usage(capability)
            return capability
        # reserve only if the attempt does not wait for resource preempted for it on the node
        fs_node = s.fs_nodes.get(node.node_id)
        if (
            self.is_starved()
            and s.at_least_reservation_threshold(self.queue, capability)
            and not (fs_node is not None and fs_node.is_preempted_for_app(self))
            and self._reserve(node, ka, locality, reserved_rmc is not None)
        ):
            self._am_diagnostic(capability, " exceeds the available resources of the node and the request is reserved)")
            return CONTAINER_RESERVED
        self._am_diagnostic(
            capability, " exceeds the available resources of the node and the request cannot be reserved)"
        )
        return _NONE

    def _reserve(self, node: SchedulerNode, ka: KeyAsks, locality: int, again: bool) -> bool:
        """``reserve``: the node is free or reserved by this attempt, and the attempt's reservations in the rack
        (rack-local) or the cluster (off-switch) stay below ``ceil(nodes x reservable-nodes)``."""
        s = self.scheduler
        attempt = self.attempt
        held = node.reserved
        if held is not None and held.app is not attempt:
            return False
        if locality != NODE_LOCAL:
            anywhere = locality == OFF_SWITCH
            existing = sum(
                1
                for by_node in attempt.reserved.values()
                for rmc in by_node.values()
                if anywhere or rmc.node.rack == node.rack
            )
            total = len(s.nodes) if anywhere else sum(1 for n in s.nodes.values() if n.rack == node.rack)
            allowed = math.ceil(total * s.reservable_nodes)
            if existing >= allowed:
                log.info(
                    f"Reservation Exceeds Allowed number of nodes: app_id={attempt.app.app_id} "
                    f"existingReservations={existing} totalAvailableNodes={total} "
                    f"reservableNodesRatio={round(s.reservable_nodes, 2):g} numAllowedReservations={allowed}"
                )
                return False
        log.info(f"Making reservation: node={node.host} app_id={attempt.app.app_id}")
        _reserve(s.ctx, s.accounting_queue, attempt, node, ka, locality, held if again else None)
        return True

    def assign_reserved_container(self, node: SchedulerNode) -> bool:
        """``assignReservedContainer``: release a reservation the attempt can no longer use (False: the node is
        scheduled normally), else try to turn it into a container when it fits (True either way)."""
        rmc = node.reserved
        assert rmc is not None
        ka = self.attempt.keys.get(rmc.key)
        if ka is None or not self.has_container_for_node(ka, node) or self.is_over_am_share_limit():
            log.info(
                f"Releasing reservation that cannot be satisfied for application {self.attempt.attempt_id} on node "
                f"{node.node_id}"
            )
            self.scheduler.unreserve(rmc)
            return False
        if rmc.mem <= node.unalloc_m and rmc.vc <= node.unalloc_v:
            self._assign(node, True)
        return True
