"""Hadoop's ``FairScheduler`` (``scheduler/fair/FairScheduler.java``; shared/reference/fair.md §3-§4) on
:class:`~yarnball.policies.scheduler.AbstractYarnScheduler`.

The queue tree (QueueManager, FSParentQueue, FSLeafQueue), the running-app limits and the fair-share arithmetic are
the pure parts of this package; this module holds the scheduler around them: the events (_fsevents.py: submission
through the placement policy, attempts and runnability, moves), ``nodeUpdate`` -> ``attemptScheduling`` (a walk from
root through the policies' comparators to :class:`FSAppAttempt.assign_container`, with assignmultiple and a node's
reservation), continuous scheduling, the update thread and the reports.

The base's records do the container bookkeeping: every attempt is charged to one accounting ``LeafQueue`` record
(as the FifoScheduler's pseudo-queue; no CapacityScheduler logic runs on it), and the FairScheduler keeps the queue
tree's usage beside it (``incUsedResource`` on allocation, ``decUsedResource`` when a container ends or shrinks).

The update thread (``AbstractYarnScheduler.UpdateThread``: ``update()`` every ``update-interval-ms``) is a timer of
the RM in virtual time (``update_interval_ms``); ``triggerUpdate`` (a node added or removed) runs the update at once.
So fair shares, demands and starvation are those of the last tick, as in Hadoop, and the same seed gives the same
ticks.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from yarnball._logs import get_logger
from yarnball.policies.capacity._allocator import unreserve
from yarnball.policies.capacity._calculator import DefaultResourceCalculator, DominantResourceCalculator
from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration
from yarnball.policies.capacity._context import SchedulerContext
from yarnball.policies.capacity._leaf import LeafQueue
from yarnball.policies.capacity._state import RMContainer, SchedulerApp, SchedulerNode
from yarnball.policies.fair import _fsevents as events
from yarnball.policies.fair._allocationconfiguration import AllocationConfiguration, reload_allocations
from yarnball.policies.fair._configurableresource import unbounded
from yarnball.policies.fair._demand import queue_max_share
from yarnball.policies.fair._fairschedulerconfiguration import FairSchedulerConfiguration
from yarnball.policies.fair._fsappattempt import CONTAINER_RESERVED, FSAppAttempt
from yarnball.policies.fair._fsleafqueue import FSLeafQueue, subtract_non_negative
from yarnball.policies.fair._fsopdurations import FSOpDurations
from yarnball.policies.fair._fspreemptionthread import FSPreemptionThread
from yarnball.policies.fair._fsqueue import FSParentQueue, FSQueue
from yarnball.policies.fair._fsqueuemetrics import fair_scheduler_info, fs_queue_metrics
from yarnball.policies.fair._fsschedulernode import FSSchedulerNode
from yarnball.policies.fair._fsstarvedapps import FSStarvedApps
from yarnball.policies.fair._maxrunningappsenforcer import MaxRunningAppsEnforcer
from yarnball.policies.fair._queuemanager import QueueManager
from yarnball.policies.fair._resources import componentwise_min
from yarnball.policies.scheduler._abstract import AbstractYarnScheduler, validate_resource_request
from yarnball.policies.scheduler._acl import QueueACL
from yarnball.policies.scheduler._notifications import QueueMetrics, SchedulerNotification
from yarnball.protocols import (
    ANY,
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    Container,
    ContainerId,
    ContainerStatus,
    NodeId,
    Resource,
    ResourceRequest,
)

__all__ = ["FairScheduler", "validate_conf"]

log = get_logger(__name__)

_NONE = Resource(0, 0)
_DRC = DominantResourceCalculator()  # FairScheduler.DOMINANT_RESOURCE_CALCULATOR: normalises the asks


def validate_conf(conf: Configuration) -> None:
    """``FairScheduler.validateConf`` (Hadoop's messages, naming where the key was set)."""
    FairSchedulerConfiguration(conf).validate_conf()


def conf_dir_of(conf: Configuration) -> Path | None:
    """The directory of the configuration's first file (yarn-site.xml of a conf directory): where a relative
    allocation file is looked up, as Hadoop looks it up on the classpath that directory is on."""
    resources = conf.resources
    return Path(resources[0]).parent if resources else None


class FairScheduler(AbstractYarnScheduler):
    """Hadoop's ``FairScheduler`` (see the module docstring)."""

    def __init__(
        self, conf: Configuration, *, cluster_timestamp: int = 0, conf_dir: str | os.PathLike[str] | None = None
    ) -> None:
        fs = FairSchedulerConfiguration(conf)
        fs.validate_conf()
        ctx = SchedulerContext(DefaultResourceCalculator())  # FairScheduler.RESOURCE_CALCULATOR
        AbstractYarnScheduler.__init__(self, ctx, conf, cluster_timestamp=cluster_timestamp)
        self.conf = conf
        self.conf_dir = Path(conf_dir) if conf_dir is not None else conf_dir_of(conf)
        self._read_settings(fs)
        self._clock: Callable[[], int] | None = None
        # read now (a bad file fails the start), logged when the RM starts (service_start), in virtual time
        alloc_conf = reload_allocations(conf, self.conf_dir, quiet=True)
        self.queue_manager = QueueManager(alloc_conf, _NONE, self.now)
        self.queue_manager.update_allocation_configuration(alloc_conf)
        self.max_running_enforcer = MaxRunningAppsEnforcer(self.queue_manager)
        # The accounting record every attempt is charged to (the base's bookkeeping; never scheduled).
        self.accounting_queue = LeafQueue(CapacitySchedulerConfiguration(Configuration()), "root", None)
        self.fs_apps: dict[ApplicationAttemptId, FSAppAttempt] = {}
        self.app_queues: dict[ApplicationId, FSLeafQueue] = {}
        # ApplicationSubmissionContext.getUnmanagedAM of the applications submitted so (set_unmanaged_am)
        self.unmanaged_apps: set[ApplicationId] = set()
        # FSStarvedApps (filled by the update) and FSPreemptionThread (yarn.scheduler.fair.preemption); the nodes'
        # preemption bookkeeping (FSSchedulerNode), created when the thread first looks at a node
        self.starved_apps = FSStarvedApps()
        self.preemption_thread = FSPreemptionThread(self) if self.preemption_enabled else None
        self.fs_nodes: dict[NodeId, FSSchedulerNode] = {}
        self.event_handlers: dict[str, Callable[[FairScheduler, Any], None]] = events.handlers()
        # Groups.getGroups(user) for the placement rules (hadoop.security.group.mapping): the simulated users
        # belong to no group unless a mapping is set here
        self.user_groups: Callable[[str], tuple[str, ...]] = _no_groups
        # initScheduler's FSOpDurations.getInstance(true): the operations' durations on the virtual clock
        self.fs_op_durations = FSOpDurations()

    def _read_settings(self, fs: FairSchedulerConfiguration) -> None:
        """``initScheduler``'s settings from yarn-site."""
        ctx = self._ctx
        minimum, maximum = fs.get_minimum_allocation(), fs.get_maximum_allocation()
        ctx.min_m, ctx.min_v = minimum.memory_mb, minimum.vcores
        ctx.max_m, ctx.max_v = maximum.memory_mb, maximum.vcores
        self.increment = fs.get_increment_allocation()
        self.reservation_threshold = fs.get_reservation_threshold()
        self.node_locality_threshold = fs.get_locality_threshold_node()
        self.rack_locality_threshold = fs.get_locality_threshold_rack()
        self.node_locality_delay_ms = fs.get_locality_delay_node_ms()
        self.rack_locality_delay_ms = fs.get_locality_delay_rack_ms()
        self.assign_multiple = fs.get_assign_multiple()
        self.max_assign_dynamic = fs.is_max_assign_dynamic()
        self.max_assign = fs.get_max_assign()
        self.size_based_weight = fs.get_size_based_weight()
        self.reservable_nodes = fs.get_reservable_nodes()
        self.use_port_for_node_name = fs.get_use_port_for_node_name()
        migration = fs.is_migration_mode()
        self.update_interval_ms = fs.get_effective_update_interval()
        self.preemption_enabled = fs.get_preemption_enabled() and not migration
        self.preemption_threshold = fs.get_preemption_utilization_threshold()
        if self.continuous_scheduling and migration:
            self.continuous_scheduling = False  # migration mode starts no scheduling thread
        if self.continuous_scheduling:
            log.warning(
                "Continuous scheduling is turned ON. It is deprecated because it can cause scheduler slowness due "
                "to locking issues. Schedulers should use assignmultiple as a replacement."
            )

    # -- clock, configuration and cluster ----------------------------------------------------------------------
    def service_start(self, clock: Callable[[], int]) -> None:
        """The RM's virtual clock (attempt start times, locality delays by time, starvation times); the allocation
        file's loading is logged as ``initScheduler`` logs it."""
        AbstractYarnScheduler.service_start(self, clock)
        self._clock = clock
        source = self.alloc_conf.source
        if source is not None:
            log.info(f"Loading allocation file {source}")
        else:
            log.warning(f"{FairSchedulerConfiguration(self.conf).get_allocation_file()} not found on the classpath.")

    def now(self) -> int:
        """``getClock().getTime()`` in ms (0 before the RM hands its clock over)."""
        clock = self._clock
        return clock() if clock is not None else 0

    @property
    def ctx(self) -> SchedulerContext:
        return self._ctx

    @property
    def alloc_conf(self) -> AllocationConfiguration:
        return self.queue_manager.alloc_conf

    @property
    def calculator(self) -> DefaultResourceCalculator:
        """``getResourceCalculator``: FairScheduler.RESOURCE_CALCULATOR (memory only)."""
        return self._ctx.rc  # type: ignore[return-value]

    @property
    def queues(self) -> Mapping[str, object]:
        """Every queue by full name, root first, in creation order."""
        return self.queue_manager.queues

    def get_maximum_allocation(self) -> Resource:
        return Resource(self._ctx.max_m, self._ctx.max_v)

    def maximum_allocation(self, queue: FSQueue | None = None) -> Resource:
        """``getMaximumResourceCapability(queue)``: ``ClusterNodeTracker.getMaxAllowedAllocation``
        (:meth:`max_allowed_allocation`), then capped by the queue's ``maxContainerAllocation`` unless unbounded
        (fair.md §4.8)."""
        result = self.max_allowed_allocation()
        if queue is not None:
            own = queue.maximum_container_allocation()
            if own != unbounded(self.alloc_conf.resource_types):
                result = componentwise_min(result, own)
        return result

    def handle_node_added(self, e: Any) -> None:
        """``addNode``: ``new FSSchedulerNode(node, usePortForNodeName)``; with
        yarn.scheduler.include-port-in-node-name the node's name, which host asks and blacklists name, is
        ``host:port`` (``SchedulerNode``'s constructor)."""
        AbstractYarnScheduler.handle_node_added(self, e)
        node = self.nodes.get(e.node_id)
        if self.use_port_for_node_name and node is not None:
            node.host = f"{e.node_id.host}:{e.node_id.port}"

    def _cluster_changed(self) -> None:
        """``addNode``/``removeNode``/``updateNodeResource``: root's steady share is the cluster, the steady shares
        are recomputed, and ``triggerUpdate`` runs the update."""
        self.queue_manager.set_cluster_resource(self.cluster_resource)
        for node_id in [n for n in self.fs_nodes if n not in self.nodes]:
            del self.fs_nodes[node_id]  # a removed node's preemption bookkeeping goes with it
        self.update()

    def reinitialize(self, conf: Configuration) -> None:
        """``reinitialize`` (``rmadmin -refreshQueues``): the allocation file again (``reloadAllocations`` and
        ``AllocationReloadListener.onReload``); a bad file raises and changes nothing."""
        conf_dir = conf_dir_of(conf) or self.conf_dir
        alloc_conf = reload_allocations(conf, conf_dir, self.alloc_conf)
        self.conf = conf
        self.queue_manager.reload(alloc_conf)
        self.max_running_enforcer.update_runnability_on_reload()
        ctx = self._ctx
        maximum = FairSchedulerConfiguration(conf).get_maximum_allocation()
        ctx.max_m, ctx.max_v = maximum.memory_mb, maximum.vcores

    def set_unmanaged_am(self, application_id: ApplicationId) -> None:
        """The application's AM is unmanaged (``ApplicationSubmissionContext.setUnmanagedAM``): its attempts are not
        held to the queue's AM share and their first container is not counted as AM usage
        (``FSAppAttempt.isOverAMShareLimit``, ``FSAppAttempt.assignContainer``)."""
        self.unmanaged_apps.add(application_id)

    def get_apps_in_queue(self, queue_name: str) -> list[ApplicationAttemptId] | None:
        """``getAppsInQueue``: the attempts of the queue's subtree (runnable ones first per leaf); None for an
        unknown queue."""
        queue = self.queue_manager.get_queue(queue_name)
        if queue is None:
            return None
        apps: list[Any] = []
        queue.collect_scheduler_applications(apps)
        return [app.attempt.attempt_id for app in apps]

    def check_access(self, user: str, acl: QueueACL, queue_name: str, groups: tuple[str, ...] = ()) -> bool:
        """``FairScheduler.checkAccess``: the queue's (or an ancestor's) ACL; an unknown queue denies."""
        queue = self.queue_manager.get_queue(queue_name)
        if queue is None:
            log.debug(f"ACL not found for queue access-type {acl} for queue {queue_name}")
            return False
        return self.alloc_conf.check_permission(queue.name, acl, user, groups)

    # -- events and application calls (_fsevents.py) ---------------------------------------------------------------
    def handle(self, event: object) -> list[SchedulerNotification]:
        return events.handle(self, event)

    def move_application(self, app_id: ApplicationId, target_queue: str) -> str:
        return events.move_application(self, app_id, target_queue)

    def update_application_priority(self, app_id: ApplicationId, priority: int) -> int:
        return events.update_application_priority(self, app_id, priority)

    # -- the update thread -------------------------------------------------------------------------------------
    def update(self) -> list[SchedulerNotification]:
        """``FairScheduler.update``: demands and fair shares down the tree, the root metrics' available resource,
        and the starved applications (into ``FSStarvedApps``) when preemption should be attempted; its duration
        goes to ``FSOpDurations.addUpdateThreadRunDuration``."""
        start = self.now()
        self.queue_manager.update(self.should_attempt_preemption(), self.starved_apps.add_starved_app)
        self.fs_op_durations.add_update_thread_run_duration(self.now() - start)
        return []

    # -- preemption (FSPreemptionThread, FSSchedulerNode; fair.md §5.4-§5.5) -----------------------------------------
    def fs_node(self, node: SchedulerNode) -> FSSchedulerNode:
        """The node's ``FSSchedulerNode`` preemption bookkeeping (created on first use)."""
        fs_node = self.fs_nodes.get(node.node_id)
        if fs_node is None:
            fs_node = self.fs_nodes[node.node_id] = FSSchedulerNode(node)
        return fs_node

    def get_nodes_by_resource_name(self, name: str) -> list[SchedulerNode]:
        """``ClusterNodeTracker.getNodesByResourceName``: every node for ``*``, else the node of that name, else the
        rack's nodes (registration order)."""
        if name == ANY:
            return list(self.nodes.values())
        by_name = [n for n in self.nodes.values() if n.host == name]
        return by_name or [n for n in self.nodes.values() if n.rack == name]

    def track_container_for_preemption(self, container_id: ContainerId) -> None:
        """MARK_CONTAINER_FOR_PREEMPTION: the owner's ``trackContainerForPreemption``."""
        rmc = self._ctx.containers.get(container_id)
        if rmc is None:
            return
        app = self.fs_apps.get(rmc.app.attempt_id)
        if app is not None and container_id in app.attempt.live:
            app.track_container_for_preemption(rmc)

    def should_attempt_preemption(self) -> bool:
        """``shouldAttemptPreemption``: preemption on and the cluster's utilisation above the threshold."""
        if not self.preemption_enabled:
            return False
        used = self.queue_manager.root_queue.resource_usage
        cm, cv = self._ctx.cluster_m, self._ctx.cluster_v
        mem = used.memory_mb / cm if cm else float("nan")
        vc = used.vcores / cv if cv else float("nan")
        return bool(self.preemption_threshold < max(mem, vc))

    # -- usage of the queue tree (beside the base's bookkeeping) -----------------------------------------------
    def allocated(self, app: FSAppAttempt, resource: Resource) -> None:
        """A container was allocated to ``app``: its queue's and every ancestor's usage grows."""
        app.queue.inc_used_resource(resource)
        self._root_available()

    def _root_available(self) -> None:
        """``updateRootQueueMetrics``: the cluster less root's usage."""
        context = self.queue_manager.context
        context.root_available = self.cluster_resource - self.queue_manager.root_queue.resource_usage

    def complete_container(self, rmc: RMContainer, status: ContainerStatus, *, notify: bool) -> None:
        if rmc.cid not in rmc.app.live:
            # FSAppAttempt.containerCompleted: a container already completed (its node removed) is left alone
            log.info(f"Additional complete request on completed container {rmc.cid}")
            return
        app = self.fs_apps.get(rmc.app.attempt_id)
        mem, vc = rmc.mem, rmc.vc
        AbstractYarnScheduler.complete_container(self, rmc, status, notify=notify)
        if app is not None:
            app.queue.dec_used_resource(Resource(mem, vc))
            if app.containers_to_be_preempted:
                app.untrack_container_for_preemption(rmc)  # FSAppAttempt.containerCompleted
            self._root_available()
        if self.fs_nodes:
            fs_node = self.fs_nodes.get(rmc.node.node_id)
            if fs_node is not None:
                fs_node.release_container(rmc.cid)  # FSSchedulerNode.releaseContainer

    def _resized(self, rmc: RMContainer, before: tuple[int, int]) -> None:
        app = self.fs_apps.get(rmc.app.attempt_id)
        if app is not None:
            app.queue.inc_used_resource(Resource(rmc.mem - before[0], rmc.vc - before[1]))
            self._root_available()

    def absorb_increase(self, temp_id: ContainerId, target_id: ContainerId, version: int) -> Container | None:
        target = self._ctx.containers.get(target_id)
        before = (target.mem, target.vc) if target is not None else (0, 0)
        temp = self._ctx.containers.get(temp_id)
        temp_size = (temp.mem, temp.vc) if temp is not None else (0, 0)
        done = AbstractYarnScheduler.absorb_increase(self, temp_id, target_id, version)
        if done is not None and target is not None:
            # the temporary container left the books without a completion: its usage moved to the target
            self._resized(target, (before[0] + temp_size[0], before[1] + temp_size[1]))
        return done

    def decrease_container(self, container_id: ContainerId, resource: Resource, version: int) -> Container | None:
        rmc = self._ctx.containers.get(container_id)
        before = (rmc.mem, rmc.vc) if rmc is not None else (0, 0)
        done = AbstractYarnScheduler.decrease_container(self, container_id, resource, version)
        if done is not None and rmc is not None:
            self._resized(rmc, before)
        return done

    def unreserve(self, rmc: RMContainer) -> None:
        """``FSAppAttempt.unreserve``: the node and the attempt drop the reservation."""
        unreserve(self._ctx, rmc)

    def at_least_reservation_threshold(self, queue: FSQueue, capability: Resource) -> bool:
        """``isAtLeastReservationThreshold`` under the queue policy's calculator."""
        calc = queue.policy.get_resource_calculator()
        cluster, threshold = self.cluster_resource, self.reservation_threshold
        return (
            calc.compare(
                cluster.memory_mb,
                cluster.vcores,
                capability.memory_mb,
                capability.vcores,
                threshold.memory_mb,
                threshold.vcores,
            )
            >= 0
        )

    # -- nodeUpdate / attemptScheduling ------------------------------------------------------------------------
    def _update_node(self, node_id: NodeId, launched: Any, completed: Any) -> None:
        """``FairScheduler.nodeUpdate``: the base's ``nodeUpdate`` and ``attemptScheduling``, timed into
        ``FSOpDurations.addNodeUpdateDuration``."""
        start = self.now()
        AbstractYarnScheduler._update_node(self, node_id, launched, completed)
        self.fs_op_durations.add_node_update_duration(self.now() - start)

    def schedule_on_heartbeat(self, node: SchedulerNode, completed: bool) -> None:
        """``FairScheduler.nodeUpdate``: ``attemptScheduling`` on the heartbeating node."""
        self.attempt_scheduling(node)

    def attempt_scheduling(self, node: SchedulerNode) -> None:
        """``attemptScheduling``: the node's reservation first; then, without a valid one, root's
        ``assignContainer`` until it assigns nothing, the node gets reserved, or assignmultiple says stop."""
        if node.node_id not in self.nodes:
            log.info(f"Skipping scheduling as the node {node.node_id} has been removed")
            return
        self.assign_preempted_containers(node)
        valid = False
        reserved = node.reserved
        if reserved is not None:
            app = self.fs_apps.get(reserved.app.attempt_id)
            if app is not None:
                valid = app.assign_reserved_container(node)
        if not valid:
            assigned_containers = 0
            assigned_m = assigned_v = 0
            # Resources.multiply(unallocated, 0.5f): each component truncated
            max_m, max_v = int(node.unalloc_m * 0.5), int(node.unalloc_v * 0.5)
            root = self.queue_manager.root_queue
            while node.reserved is None:
                assignment = self.assign_queue(root, node)
                if assignment.is_none():
                    break
                assigned_containers += 1
                assigned_m += assignment.memory_mb
                assigned_v += assignment.vcores
                if not self._should_continue_assigning(assigned_containers, max_m, max_v, assigned_m, assigned_v):
                    break
        self._root_available()

    def assign_preempted_containers(self, node: SchedulerNode) -> None:
        """``assignPreemptedContainers``: the applications that preempted containers on the node take them first,
        in the order they preempted there, each until it got that much, assigns nothing or reserves."""
        fs_node = self.fs_nodes.get(node.node_id)
        if fs_node is None or not fs_node.resources_preempted_for_app:
            return
        for app, pending in fs_node.get_preemption_list().items():
            while not app.attempt.stopped and not pending.is_none():
                assigned = app.assign_container(node)
                if assigned.is_none() or assigned == CONTAINER_RESERVED:
                    break  # fail to assign, let's not try further
                pending = subtract_non_negative(pending, assigned)

    def _should_continue_assigning(self, n: int, max_m: int, max_v: int, got_m: int, got_v: int) -> bool:
        """``shouldContinueAssigning``."""
        if not self.assign_multiple:
            return False
        if self.max_assign_dynamic:
            return got_m <= max_m and got_v <= max_v  # fitsIn: "<= half" may allocate one more
        return self.max_assign <= 0 or n < self.max_assign

    def assign_queue(self, queue: FSQueue, node: SchedulerNode) -> Resource:
        """``FSParentQueue.assignContainer`` / ``FSLeafQueue.assignContainer`` (fair.md §4.3)."""
        # assignContainerPreCheck: no reservation on the node, usage within the max share
        if node.reserved is not None or not queue.resource_usage.fits_in(queue.max_share):
            return _NONE
        if isinstance(queue, FSParentQueue):
            for child in queue.sorted_child_queues():
                assigned = self.assign_queue(child, node)
                if not assigned.is_none():
                    return assigned
            return _NONE
        assert isinstance(queue, FSLeafQueue)
        for app in queue.apps_with_demand(True):
            assert isinstance(app, FSAppAttempt)
            blacklist = app.attempt.blacklist
            if blacklist and (node.host in blacklist or node.rack in blacklist):
                continue
            assigned = app.assign_container(node)
            if not assigned.is_none():
                return assigned
        return _NONE

    def continuous_scheduling_attempt(self) -> list[SchedulerNotification]:
        """``continuousSchedulingAttempt``: every node with room for a minimum allocation, most unallocated memory
        first (a ``TreeSet``: nodes of equal unallocated memory collapse to the first), gets ``attemptScheduling``.
        With container packing configured, its order replaces the sort."""
        out: list[SchedulerNotification] = []
        self._ctx.outbox = out
        ctx = self._ctx
        start = self.now()
        if self.placement.packs(len(self.nodes)):
            ordered = self.placement.order(self.nodes.values())
        else:
            ordered = _tree_set_by_memory(self.nodes.values())
        for node in ordered:
            if ctx.min_m <= node.unalloc_m and ctx.min_v <= node.unalloc_v:
                self.attempt_scheduling(node)
        self.fs_op_durations.add_continuous_scheduling_run_duration(self.now() - start)
        return out

    # -- the event-skipping layer: the general path always ---------------------------------------------------------
    def node_update_is_noop(self, node_id: NodeId) -> bool:
        return node_id not in self.nodes

    def node_update_launched_only(self, node_id: NodeId, launched: Any) -> bool:
        return False

    def has_pending(self) -> bool:
        leaf = self.accounting_queue
        return leaf.pending_m > 0 or leaf.pending_v > 0

    # -- allocate hooks ----------------------------------------------------------------------------------------
    def headroom_of(self, app: SchedulerApp) -> Resource:
        fs_app = self.fs_apps.get(app.attempt_id)
        return fs_app.headroom() if fs_app is not None else Resource()

    def headroom(self, attempt_id: ApplicationAttemptId) -> Resource:
        app = self.attempts.get(attempt_id)
        return self.headroom_of(app) if app is not None else Resource()

    def maximum_allocation_of(self, app: SchedulerApp) -> Resource:
        fs_app = self.fs_apps.get(app.attempt_id)
        return self.maximum_allocation(fs_app.queue if fs_app is not None else None)

    def queue_path_of(self, app: SchedulerApp) -> str:
        fs_app = self.fs_apps.get(app.attempt_id)
        return fs_app.queue.name if fs_app is not None else app.queue.path

    def queue_max_resource_of(self, app: SchedulerApp, cluster: Resource) -> Resource:
        """``FSQueue.getMaxShare`` at a cluster of ``cluster``: the configured max resources, never below the min."""
        fs_app = self.fs_apps.get(app.attempt_id)
        if fs_app is None:
            return cluster
        queue = fs_app.queue
        maximum = queue.raw_max_share.get_resource(cluster)
        return cluster if maximum is None else queue_max_share(maximum, queue.min_share)

    def _update_asks(self, app: SchedulerApp, asks: Sequence[ResourceRequest], maximum: Resource) -> None:
        """The base's ask table, then each host and rack ask's own size (``FSAppAttempt.record_name_capabilities``)."""
        AbstractYarnScheduler._update_asks(self, app, asks, maximum)
        fs_app = self.fs_apps.get(app.attempt_id)
        if fs_app is not None:
            fs_app.record_name_capabilities(asks, self.normalize_ask, maximum)

    def normalize_ask(self, cap_m: int, cap_v: int, maximum: Resource) -> tuple[int, int]:
        """``getNormalizedResource``: the DominantResourceCalculator with the increment allocation."""
        ctx, inc = self._ctx, self.increment
        return _DRC.normalize(
            cap_m, cap_v, ctx.min_m, ctx.min_v, maximum.memory_mb, maximum.vcores, inc.memory_mb, inc.vcores
        )

    def ask_errors(self, app: SchedulerApp, ask: Any, maximum: Resource) -> tuple[str, ...]:
        """``validateResourceRequests`` against the leaf's max share (``SchedulerInvalidResoureRequestException``),
        then the ApplicationMasterService's checks against the maximum allocation."""
        fs_app = self.fs_apps.get(app.attempt_id)
        if fs_app is not None:
            invalid = _zero_resource_asks(ask, fs_app.queue.max_share)
            if invalid:
                return (
                    f"Resource request is invalid for application {app.app.app_id} because queue "
                    f"{fs_app.queue.name} has 0 amount of resource for a resource type! Validation result: "
                    f"[{', '.join(invalid)}]",
                )
        return tuple([e for e in [validate_resource_request(r, maximum) for r in ask] if e])

    # -- reports -----------------------------------------------------------------------------------------------
    def _refresh_queue_counters(self) -> None:
        """The queue metrics' container counts and reserved resource, from the attempts (leaves up to root)."""
        for queue in self.queue_manager.queues.values():
            queue.reserved = _NONE
            queue.allocated_containers = queue.pending_containers = queue.reserved_containers = 0
        for app in self.fs_apps.values():
            attempt = app.attempt
            live = len(attempt.live)
            pending = sum(ka.any_count for ka in attempt.keys.values())
            n_reserved = sum(len(by_node) for by_node in attempt.reserved.values())
            reserved = Resource(attempt.reserved_m, attempt.reserved_v)
            q: FSQueue | None = app.queue
            while q is not None:
                q.allocated_containers += live
                q.pending_containers += pending
                q.reserved_containers += n_reserved
                q.reserved = q.reserved + reserved
                q = q.parent

    def queue_metrics(self) -> list[QueueMetrics]:
        """Each queue's ``FSQueueMetrics``, root first, in creation order."""
        self._refresh_queue_counters()
        return [fs_queue_metrics(q) for q in self.queue_manager.queues.values()]

    def root_queue_metrics(self) -> QueueMetrics:
        """``getRootQueueMetrics``: the root queue's ``FSQueueMetrics``."""
        self._refresh_queue_counters()
        return fs_queue_metrics(self.queue_manager.root_queue)

    def fair_scheduler_info(self) -> dict[str, Any]:
        """``FairSchedulerInfo`` (``/ws/v1/cluster/scheduler``'s ``schedulerInfo``)."""
        self._refresh_queue_counters()
        return fair_scheduler_info(self.queue_manager, self.cluster_resource, self.get_maximum_allocation())


def _no_groups(user: str) -> tuple[str, ...]:
    return ()


def _zero_resource_asks(asks: Any, max_share: Resource) -> list[str]:
    """``SchedulerUtils.validateResourceRequestsAgainstQueueMaxResource``: asks with a positive amount of a
    resource the queue's max share has none of."""
    out = []
    for r in asks:
        cap = r.capability
        bad = [
            name
            for name, asked, top in (
                ("memory-mb", cap.memory_mb, max_share.memory_mb),
                ("vcores", cap.vcores, max_share.vcores),
            )
            if asked > 0 and top == 0
        ]
        if bad:
            out.append(f"MaxResourceValidationResult{{resourceRequest={r}, invalidResources={bad}}}")
    return out


def _tree_set_by_memory(nodes: Iterable[SchedulerNode]) -> list[SchedulerNode]:
    """``TreeSet(NodeAvailableResourceComparator)``: most unallocated memory first; a node comparing equal to one
    already in the set (same unallocated memory) is dropped. Equal nodes keep the first registered."""
    ordered = sorted(nodes, key=lambda n: -n.unalloc_m)  # a stable sort: registration order among equals
    kept: list[SchedulerNode] = []
    for node in ordered:
        if not kept or kept[-1].unalloc_m != node.unalloc_m:
            kept.append(node)
    return kept
