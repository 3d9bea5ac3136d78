"""The ResourceManager actor: its services, the dispatcher into the scheduler, AM launching and liveness.

One actor holds what Hadoop's RM splits into services, each a group of handlers here:

- ResourceTrackerService: NM registration and heartbeats (NODE_ADDED, NODE_UPDATE), NM liveness expiry;
- ApplicationMasterService: AM register, allocate heartbeats, finish;
- ClientRMService: new application ids, submissions, kills and reports;
- the dispatcher: every scheduler event goes through :meth:`ResourceManager.dispatch`, which hands it to the
  CapacityScheduler policy and acts on what the policy answers (accepted/rejected applications, allocated,
  reserved and completed containers);
- ApplicationMasterLauncher: starts the AM container on its NodeManager; attempts fail and retry up to
  ``yarn.resourcemanager.am.max-attempts``;
- ContainerAllocationExpirer: containers allocated but never reported RUNNING are expired.
"""

from __future__ import annotations

import logging
import random
import time
from collections import Counter, defaultdict
from typing import Any

from yarnball.actors._actor import Actor, handler
from yarnball.actors._adminservice import refresh_queues
from yarnball.actors._applicationmasterservice import ApplicationMasterService
from yarnball.actors._clientrmservice import ClientRMService
from yarnball.actors._containerresize import ContainerResizeService
from yarnball.actors._decommission import DecommissioningNodes
from yarnball.actors._heartbeats import HeartbeatClock
from yarnball.actors._nmrpc import NodeHeartbeatRules
from yarnball.actors._opportunisticams import OpportunisticContainerAllocatorAMService
from yarnball.actors._preemption import create_preemption_monitor
from yarnball.actors._queuedeletion import QueueDeletionMonitor, spawn_queue_deletion_monitor
from yarnball.actors._queuemanagement import spawn_queue_management_monitor
from yarnball.actors._resourcetracker import ResourceTrackerService, RMNode
from yarnball.actors._rmapp import AttemptState, RMApp, RMAppAttempt
from yarnball.actors._rmappmanager import RMAppManager
from yarnball.actors._rmrestart import RMRestarts
from yarnball.actors._secretmanagers import Rejections, RMSecretManagers
from yarnball.actors.shortcuts import (
    ROLES,
    DormantAMs,
    OwnMethod,
)
from yarnball.errors import ConfigurationError
from yarnball.policies.capacity import (
    AppAccepted,
    AppRejected,
    AttemptAdded,
    CapacityScheduler,
    ContainerAllocated,
    ContainerCompleted,
    ContainerReserved,
)
from yarnball.protocols import (
    AllocateRequest,
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    ContainerExitStatus,
    ContainerExpiredSchedulerEvent,
    ContainerId,
    ContainerPreemptEvent,
    ContainerState,
    ContainerStatus,
    DistributedSchedulingAllocateRequest,
    FinishApplicationMasterRequest,
    GetApplicationReportRequest,
    GetApplicationsRequest,
    GetClusterMetricsRequest,
    GetNewApplicationRequest,
    KillApplicationRequest,
    MoveApplicationAcrossQueuesRequest,
    NodeHeartbeatRequest,
    NodeId,
    NodeUpdateSchedulerEvent,
    RefreshQueuesRequest,
    RegisterApplicationMasterRequest,
    RegisterDistributedSchedulingAMRequest,
    RegisterNodeManagerRequest,
    StartContainersResponse,
    SubmitApplicationRequest,
    UnRegisterNodeManagerRequest,
    UpdateApplicationPriorityRequest,
    keys,
)

__all__ = ["RMNode", "ResourceManager"]

# Whether the scheduler runs CapacityScheduler's own allocate / handle (shortcuts/_ownmethods.py; tests set
# ``_CS_ALLOCATE.func`` to None to take the general path).
_CS_ALLOCATE = OwnMethod(CapacityScheduler, "allocate")
_CS_HANDLE = OwnMethod(CapacityScheduler, "handle")

_RUNNING = ContainerState.RUNNING
_COMPLETE = ContainerState.COMPLETE
# (module constants: reading a member off an Enum class goes through EnumType.__getattr__'s slow attribute hook)
_SUCCESS = ContainerExitStatus.SUCCESS
_PREEMPTED = ContainerExitStatus.PREEMPTED
_perf_counter = time.perf_counter
# Scheduler event class -> its SchedulerEventType name (the op-count key), looked up once per class: reading an
# enum member's ``value`` costs a descriptor call on every heartbeat.
_EVENT_NAMES: dict[type, str] = {}


def validate_configs(conf: Configuration) -> None:
    """ResourceManager.validateConfigs: the NM expiry interval is no less than the heartbeat interval (checked when
    an RM is built, and by the sharded backends' driver when the cluster is built, before any host exists)."""
    heartbeat_ms = conf.get_int(keys.RM_NM_HEARTBEAT_INTERVAL_MS)
    expiry_ms = conf.get_int(keys.RM_NM_EXPIRY_INTERVAL_MS)
    if expiry_ms < heartbeat_ms:
        # name the file of whichever of the two keys a file set
        expiry_set = conf.source_of(keys.RM_NM_EXPIRY_INTERVAL_MS) != "default"
        where = keys.RM_NM_EXPIRY_INTERVAL_MS if expiry_set else keys.RM_NM_HEARTBEAT_INTERVAL_MS
        raise ConfigurationError(
            f"{conf.location_of(where)}: Nodemanager expiry interval should be no less "
            f"than heartbeat interval, {keys.RM_NM_EXPIRY_INTERVAL_MS}={expiry_ms}, "
            f"{keys.RM_NM_HEARTBEAT_INTERVAL_MS}={heartbeat_ms}"
        )


class ResourceManager(Actor):
    """The ResourceManager. ``conf`` is the layered yarn-site + capacity-scheduler configuration."""

    # Services created on first use, None until then. Slots, not instance attributes: those would take the RM past
    # the 30 attributes CPython keeps inline (tests/test_am_round_costs.py); nor class-level defaults, which the
    # interpreter cannot specialise a read of (each read of ``self.resize`` on the heartbeat path was a full attribute
    # lookup, ~270 instructions, instead of a slot read).
    __slots__ = (
        "app_manager",
        "application_master_service",
        "client_rm_service",
        "decommissioning",
        "node_rules",
        "queue_deletion_monitor",
        "resize",
        "resource_tracker",
        "restarts",
    )
    #: RMAppManager: the applications' and attempts' lifecycle, the AM launcher and liveness (actors/_rmappmanager.py).
    app_manager: RMAppManager
    #: ClientRMService: submissions, kills, moves, priorities and reports (actors/_clientrmservice.py).
    client_rm_service: ClientRMService
    #: ApplicationMasterService with its processing chain (actors/_applicationmasterservice.py).
    application_master_service: ApplicationMasterService
    #: ResourceTrackerService: NM registration, heartbeats and liveness (actors/_resourcetracker.py).
    resource_tracker: ResourceTrackerService
    #: Container resource increases and decreases (actors/_containerresize.py), from the first such request.
    resize: ContainerResizeService | None
    #: DECOMMISSIONING and DECOMMISSIONED nodes, once a graceful decommission starts (actors/_decommission.py).
    decommissioning: DecommissioningNodes | None
    #: The state store and RM restarts (actors/_rmrestart.py), with yarn.resourcemanager.recovery.enabled or once an
    #: RM restart is scheduled.
    restarts: RMRestarts | None
    #: ResourceTrackerService.nodeHeartbeat's response-id checks and completion acknowledgements, in a run with
    #: message faults on the NodeManagers' links (actors/_nmrpc.py); None: the exact ordinary path.
    node_rules: NodeHeartbeatRules | None
    #: AutoCreatedQueueDeletionPolicy's monitor, started with the RM when the monitor keys name it.
    queue_deletion_monitor: QueueDeletionMonitor | None

    def __init__(
        self,
        conf: Configuration,
        scheduler: CapacityScheduler,
        *,
        cluster_timestamp: int = 1,
        rng: random.Random | None = None,
        secret_seed: int = 0,
    ) -> None:
        self.resize = self.decommissioning = self.restarts = self.node_rules = self.queue_deletion_monitor = None
        self.conf = conf
        self.scheduler = scheduler
        self.cluster_timestamp = cluster_timestamp
        self.heartbeat_interval_ms = conf.get_int(keys.RM_NM_HEARTBEAT_INTERVAL_MS)
        self.nm_expiry_ms = conf.get_int(keys.RM_NM_EXPIRY_INTERVAL_MS)
        self.alloc_expiry_ms = conf.get_int(keys.RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS)
        self.am_expiry_ms = conf.get_int(keys.RM_AM_EXPIRY_INTERVAL_MS)
        self.max_attempts = conf.get_int(keys.RM_AM_MAX_ATTEMPTS)
        validate_configs(conf)
        self.maximum_allocation = scheduler.conf.get_maximum_allocation()
        self.nodes: dict[NodeId, RMNode] = {}
        self.lost_nodes: set[NodeId] = set()
        self.apps: dict[ApplicationId, RMApp] = {}
        self.attempts: dict[ApplicationAttemptId, RMAppAttempt] = {}
        self.am_containers: dict[ContainerId, ApplicationAttemptId] = {}
        self.unlaunched: dict[ContainerId, tuple[float, NodeId]] = {}
        self.counters: Counter[str] = Counter()
        self.live: set[ContainerId] = set()  # allocated and not yet ended, as the RM counts them
        self.done_listeners: list[Any] = []
        self.expected_applications: int | None = None
        self.apps_done = 0
        # Wall-clock cost of scheduler calls, per operation, like SLS's SchedulerMetrics (not part of the event log).
        self.op_counts: Counter[str] = Counter()
        self.op_seconds: defaultdict[str, float] = defaultdict(float)  # wall seconds per op (timecost)
        # SchedulingMonitor for ProportionalCapacityPreemptionPolicy, when the monitor keys enable it.
        self.preemption_monitor = create_preemption_monitor(conf, scheduler)
        # OpportunisticContainerAllocatorAMService in front of the ApplicationMasterService, when enabled.
        self.opportunistic: OpportunisticContainerAllocatorAMService | None = None
        if conf.get_bool(keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED):
            self.opportunistic = OpportunisticContainerAllocatorAMService(self, conf, rng or random.Random(0))
        elif conf.get_bool(keys.DIST_SCHEDULING_ENABLED):
            # ResourceManager.createApplicationMasterService
            raise ConfigurationError(
                "Invalid parameters: opportunistic container allocation has to be enabled when distributed "
                f"scheduling is enabled. ({keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED}, "
                f"{keys.DIST_SCHEDULING_ENABLED})"
            )
        self.heartbeats: HeartbeatClock | None = None
        #: Dormant idle AMs by attempt id (shortcuts/_amdormancy.py); the hooks below wake them when work appears.
        self.dormant = DormantAMs(self)
        #: AMRMTokens, NMTokens and container tokens (actors/_secretmanagers.py), keyed from the run's seed; and the
        #: requests refused for want of a token or an ACL (``rejections``: summary.json ``security``).
        self.secrets = RMSecretManagers(
            secret_seed,
            cluster_timestamp,
            container_tokens=conf.get_bool(keys.SIMULATION_CONTAINER_TOKENS, keys.DEFAULT_SIMULATION_CONTAINER_TOKENS),
        )
        if conf.get_bool(keys.RECOVERY_ENABLED):
            self.restarts = RMRestarts(self)  # RMStateStore: written from the start
        self.app_manager = RMAppManager(self)
        self.client_rm_service = ClientRMService(self)
        self.resource_tracker = ResourceTrackerService(self)
        self.application_master_service = ApplicationMasterService(self)

    def services_changed(self) -> None:
        """An optional service joined or left (the first container resize, a graceful decommission, message
        faults, an RM restart): the services choose their chains again."""
        self.resource_tracker.build_chain()
        self.application_master_service.build_chain()

    def restart_service(self) -> RMRestarts:
        """The RM's restart state (actors/_rmrestart.py), made on first use."""
        if self.restarts is None:
            self.restarts = RMRestarts(self)
            self.services_changed()
        return self.restarts

    @property
    def rejections(self) -> Rejections:
        """Requests refused for want of a token or an ACL (a property: the RM's own attributes stay few enough for
        CPython to keep them inline, see tests/test_am_round_costs.py)."""
        return self.secrets.rejections

    def decommission_node(self, node_id: NodeId, timeout_ms: float) -> bool:
        """Start a graceful decommission of ``node_id`` (``rmadmin -refreshNodes -g``); False when the RM has no
        such RUNNING node."""
        if self.decommissioning is None:
            self.decommissioning = DecommissioningNodes(self)
            self.services_changed()
        return self.decommissioning.start(node_id, timeout_ms)

    def use_heartbeat_clock(self, clock: HeartbeatClock) -> None:
        """Drive NM heartbeats with ``clock`` (a Cluster's); with skipping on, the RM answers its questions."""
        self.heartbeats = clock
        clock.needs = self.resource_tracker.needs_heartbeat
        clock.virtual = self.resource_tracker.virtual_heartbeat

    def _wake(self, node_id: NodeId) -> None:
        clock = self.heartbeats
        if clock is not None and clock.skip:
            clock.wake_node(node_id)

    def on_start(self) -> None:
        # Hadoop's AbstractLivenessMonitor checks every expireInterval / 3.
        self.every(max(1, self.nm_expiry_ms // 3), self.resource_tracker.check_node_liveness)
        self.every(max(1, self.alloc_expiry_ms // 3), self._check_container_expiry)
        self.every(max(1, self.am_expiry_ms // 3), self.app_manager.check_am_liveness)
        if self.preemption_monitor is not None:
            self.preemption_monitor.rm_id = self.id
            self.kernel.spawn(self.preemption_monitor, f"{self.id}-preemption-monitor")
        # AutoCreatedQueueDeletionPolicy, when the monitor keys name it
        monitor = spawn_queue_deletion_monitor(self)
        if monitor is not None:
            self.queue_deletion_monitor = monitor
        spawn_queue_management_monitor(self)  # QueueManagementDynamicEditPolicy, likewise
        if self.scheduler.continuous_scheduling:
            # FairScheduler's continuous-scheduling thread, as a timer (policies/capacity/_continuous.py).
            self.every(self.scheduler.continuous_scheduling_sleep_ms, self._continuous_scheduling)
        if self.opportunistic is not None:
            self.opportunistic.start()

    def on_stop(self) -> None:
        clock = self.heartbeats
        if clock is not None and clock.lazy is not None:
            clock.lazy.disable()  # deferred RUNNING reports go to a stopped RM as real heartbeats (_lazyrunning.py)

    def _continuous_scheduling(self) -> None:
        start = time.perf_counter()
        notes = self.scheduler.continuous_scheduling_attempt()
        self.op_seconds["continuous_scheduling"] += time.perf_counter() - start
        self.op_counts["continuous_scheduling"] += 1
        self._on_notifications(notes)

    # -- the dispatcher ---------------------------------------------------------------------------------------
    def dispatch(self, event: Any) -> None:
        """Hand one scheduler event to the CapacityScheduler and act on its notifications."""
        name = _EVENT_NAMES.get(type(event))
        if name is None:
            name = event.event_type.value
            if "event_type" not in getattr(type(event), "__struct_fields__", ("event_type",)):
                _EVENT_NAMES[type(event)] = name  # a class constant (ClassVar), not a field
        start = _perf_counter()
        notes = self.scheduler.handle(event)
        self.op_seconds[name] += _perf_counter() - start
        self.op_counts[name] += 1
        self._on_notifications(notes)

    def _dispatch_node_update(self, node_id: NodeId, launched: list[Any], completed: list[Any]) -> None:
        """``dispatch(NodeUpdateSchedulerEvent(node_id=node_id, newly_launched_containers=tuple(launched),
        completed_containers=tuple(completed)))``, without the event record when nothing can observe it.

        Exact: ``dispatch`` reads only the event's class (its op name, NODE_UPDATE) and hands the event to
        ``CapacityScheduler.handle``, whose NODE_UPDATE handler reads only these three fields;
        ``CapacityScheduler.node_update`` does that handler's work on them and returns the same notifications, and
        the op count and time are recorded under the same name. The record stays where it could be seen: a
        ``dispatch`` replaced on the instance (tests record every scheduler event) or overridden in a subclass, and
        a scheduler whose ``handle`` is replaced or overridden."""
        scheduler = self.scheduler
        if (
            # replaced on the instance or overridden: read through the bound methods, never through the RM's or
            # the scheduler's ``__dict__`` (that would move their attribute values out of CPython's inline
            # storage for the rest of the run: see _kernel.enter_replaced)
            getattr(self.dispatch, "__func__", None) is not _DISPATCH
            or not _CS_HANDLE.runs(scheduler, scheduler.handle)
        ):
            # (the same event as NodeUpdateSchedulerEvent(node_id=node.id) when there is nothing to report)
            self.dispatch(
                NodeUpdateSchedulerEvent(
                    node_id=node_id, newly_launched_containers=tuple(launched), completed_containers=tuple(completed)
                )
            )
            return
        start = _perf_counter()
        notes = scheduler.node_update(node_id, launched, completed)
        self.op_seconds["NODE_UPDATE"] += _perf_counter() - start
        self.op_counts["NODE_UPDATE"] += 1
        self._on_notifications(notes)

    def _on_notifications(self, notes: Any) -> None:
        dormant = self.dormant
        if dormant:
            dormant.notified(notes)  # an allocated / completed container wakes a dormant AM
        for note in notes:
            kind = type(note)
            if kind is ContainerAllocated:
                self._on_allocated(note)
            elif kind is ContainerCompleted:
                self._on_scheduler_completed(note)
            elif kind is AppAccepted:
                self.app_manager.on_accepted(note.application_id)
            elif kind is AppRejected:
                self.app_manager.on_rejected(note.application_id, note.diagnostics)
            elif kind is AttemptAdded:
                self.app_manager.on_attempt_added(note.attempt_id)
            elif kind is ContainerReserved:
                self.counters["containers_reserved"] += 1

    def _on_allocated(self, note: ContainerAllocated) -> None:
        container = note.container
        if self.opportunistic is not None and self.opportunistic.on_guaranteed_allocated(note.attempt_id, container):
            return  # it serves a promotion: not a container of its own
        if self.resize is not None and self.resize.on_guaranteed_allocated(note.attempt_id, container):
            return  # it serves an increase: not a container of its own
        self.counters["containers_allocated"] += 1
        cid = container.id
        node_id = container.node_id
        log = self.log
        if log.is_enabled_for(logging.DEBUG):
            # FiCaSchedulerApp.apply's "allocate: applicationAttemptId=... container=... host=... type=..." (debug)
            log.debug(
                "container_allocated",
                attempt=str(note.attempt_id),
                container=str(cid),
                node=str(node_id),
                type=note.locality,
                memory_mb=container.resource.memory_mb,
                vcores=container.resource.vcores,
            )
        self.live.add(cid)
        self.unlaunched[cid] = (self.kernel.now, node_id)
        attempt_id = note.attempt_id
        app = self.apps.get(attempt_id.application_id)
        if app is not None:
            app.nodes.add(node_id)
            if app.first_task_time is None and not note.is_am:
                app.first_task_time = self.kernel.now
            app.container_allocated(cid, self.kernel.now, container.resource, is_am=note.is_am)
        if note.is_am:  # (the attempt is looked up for an AM container only)
            attempt = self.attempts.get(attempt_id)
            if attempt is not None and attempt.state is AttemptState.SCHEDULED:
                self.app_manager.launch_am(app, attempt, container)  # type: ignore[arg-type]

    def _on_scheduler_completed(self, note: ContainerCompleted) -> None:
        """The scheduler ended a container itself: the NM must kill it, and an AM container ends its attempt."""
        if self.opportunistic is not None and self.opportunistic.absorbs_release(note.container_id):
            return  # a demoted container leaving the scheduler's books: it runs on as OPPORTUNISTIC
        self._container_done(note.container_id, note.status)
        node = self.nodes.get(note.node_id)
        if node is not None:
            node.queue_cleanup(note.container_id)
            self._wake(note.node_id)

    def _container_done(self, cid: ContainerId, status: ContainerStatus) -> None:
        dormant = self.dormant
        if dormant:
            sleeper = dormant.get(cid.application_attempt_id)  # DormantAMs.wake, inline
            if sleeper is not None:
                sleeper.wake()  # its AM will hear of the completion
        self.unlaunched.pop(cid, None)
        live = self.live
        if cid not in live:
            return
        live.discard(cid)
        if self.resize is not None:
            self.resize.on_container_done(cid)
        exit_status = status.exit_status
        log = self.log
        if log.is_enabled_for(logging.DEBUG):
            # (what the invariant checker reads, yarnball/_invariants.py: every container ends exactly once)
            log.debug("container_finished", container=str(cid), exit_status=exit_status, diagnostics=status.diagnostics)
        if exit_status == _PREEMPTED:
            self.counters["containers_preempted"] += 1
        elif exit_status == _SUCCESS:
            self.counters["containers_completed"] += 1
        elif status.diagnostics.startswith("Container released on a *lost* node"):
            self.counters["containers_lost"] += 1
        else:
            self.counters["containers_killed"] += 1
        app = self.apps.get(cid.application_attempt_id.application_id)
        if app is not None:
            app.container_finished(cid, self.kernel.now, exit_status)  # before the attempt hears of it, as Hadoop
        attempt_id = self.am_containers.pop(cid, None)
        if attempt_id is not None:
            self.app_manager.am_container_finished(attempt_id, status)

    @handler
    def on_container_preempt(self, msg: ContainerPreemptEvent) -> None:
        """The preemption monitor's MARK_CONTAINER_FOR_PREEMPTION / MARK_CONTAINER_FOR_KILLABLE /
        KILL_RESERVED_CONTAINER, put through the dispatcher like every scheduler event."""
        self.counters["preemption_" + msg.event_type.value.lower()] += 1
        if self.dormant:
            self.dormant.wake(msg.application_attempt_id)  # a mark reaches the AM in its next allocate
        self.dispatch(msg)

    # -- ResourceTrackerService (actors/_resourcetracker.py) -----------------------------------------------------
    @handler
    def on_register_node(self, msg: RegisterNodeManagerRequest) -> None:
        self.resource_tracker.on_register_node(msg)

    @handler
    def on_node_heartbeat(self, msg: NodeHeartbeatRequest) -> None:
        self.resource_tracker.on_node_heartbeat(msg)

    @handler
    def on_unregister_node(self, msg: UnRegisterNodeManagerRequest) -> None:
        self.resource_tracker.on_unregister_node(msg)

    def needs_heartbeat(self, node_id: NodeId) -> bool:
        """The heartbeat clock's question (ResourceTrackerService.needs_heartbeat)."""
        return self.resource_tracker.needs_heartbeat(node_id)  # type: ignore[no-any-return]

    # -- ContainerAllocationExpirer -------------------------------------------------------------------------------
    def _check_container_expiry(self) -> None:
        clock = self.heartbeats
        if clock is not None and clock.lazy is not None:
            clock.lazy.settle_all()  # deferred RUNNING reports leave unlaunched (actors/shortcuts/_lazyrunning.py)
        deadline = self.now - self.alloc_expiry_ms
        for cid, (allocated_at, _node) in list(self.unlaunched.items()):
            if allocated_at < deadline:
                self.log.info("container_expired", container=str(cid))
                self.dispatch(ContainerExpiredSchedulerEvent(container_id=cid))
        if self.resize is not None and self.resize.unconfirmed:
            self.resize.check_expiry(self.now)  # increases the NM never applied are rolled back

    # -- ClientRMService (actors/_clientrmservice.py) -----------------------------------------------------------
    @handler
    def on_new_application(self, msg: GetNewApplicationRequest) -> None:
        self.client_rm_service.on_new_application(msg)

    @handler
    def on_submit(self, msg: SubmitApplicationRequest) -> None:
        self.client_rm_service.on_submit(msg)

    @handler
    def on_kill(self, msg: KillApplicationRequest) -> None:
        self.client_rm_service.on_kill(msg)

    @handler
    def on_move(self, msg: MoveApplicationAcrossQueuesRequest) -> None:
        self.client_rm_service.on_move(msg)

    @handler
    def on_update_priority(self, msg: UpdateApplicationPriorityRequest) -> None:
        self.client_rm_service.on_update_priority(msg)

    @handler
    def on_app_report(self, msg: GetApplicationReportRequest) -> None:
        self.client_rm_service.on_app_report(msg)

    @handler
    def on_apps(self, msg: GetApplicationsRequest) -> None:
        self.client_rm_service.on_apps(msg)

    @handler
    def on_cluster_metrics(self, msg: GetClusterMetricsRequest) -> None:
        self.client_rm_service.on_cluster_metrics(msg)

    # -- AdminService ---------------------------------------------------------------------------------------------
    @handler
    def on_refresh_queues(self, msg: RefreshQueuesRequest) -> None:
        """``yarn rmadmin -refreshQueues`` (actors/_adminservice.py)."""
        self.reply(refresh_queues(self, msg))

    # -- ApplicationMasterLauncher (actors/_rmappmanager.py) -----------------------------------------------------
    @handler
    def on_start_response(self, msg: StartContainersResponse) -> None:
        self.app_manager.on_start_response(msg)

    # -- ApplicationMasterService (actors/_applicationmasterservice.py) ------------------------------------------
    @handler
    def on_register_am(self, msg: RegisterApplicationMasterRequest) -> None:
        self.application_master_service.on_register_am(msg)

    @handler
    def on_register_am_distributed(self, msg: RegisterDistributedSchedulingAMRequest) -> None:
        self.application_master_service.on_register_am_distributed(msg)

    @handler
    def on_allocate(self, msg: AllocateRequest) -> None:
        self.application_master_service.on_allocate(msg)

    @handler
    def on_allocate_distributed(self, msg: DistributedSchedulingAllocateRequest) -> None:
        self.application_master_service.on_allocate_distributed(msg)

    @handler
    def on_finish_am(self, msg: FinishApplicationMasterRequest) -> None:
        self.application_master_service.on_finish_am(msg)

    # -- the dispatcher: allocate and ask updates -----------------------------------------------------------------
    def _allocate(self, attempt_id: ApplicationAttemptId, ask: Any, release: Any, blacklist: Any = None) -> Any:
        allocate = self.scheduler.allocate
        if (
            not ask
            and not release
            and (blacklist is None or not (blacklist.blacklist_additions or blacklist.blacklist_removals))
            and _CS_ALLOCATE.runs(self.scheduler, allocate)  # (no __dict__ read: _kernel.enter_replaced)
        ):
            # A pull (most AM heartbeats): CapacityScheduler.allocate then only hands over what is there (_pull):
            # no errors, no notifications, pending asks unchanged (so no wake_needed): only the timing remains.
            start = _perf_counter()
            allocation = allocate(attempt_id, (), (), (), ())
            self.op_seconds["allocate"] += _perf_counter() - start
            self.op_counts["allocate"] += 1
            return allocation
        clock = self.heartbeats
        had_pending = clock is None or not clock.skip or self.scheduler.has_pending()
        start = _perf_counter()
        allocation = allocate(
            attempt_id,
            ask,
            release,
            blacklist.blacklist_additions if blacklist is not None else (),
            blacklist.blacklist_removals if blacklist is not None else (),
        )
        self.op_seconds["allocate"] += _perf_counter() - start
        self.op_counts["allocate"] += 1
        for error in allocation.errors:
            self.counters["invalid_resource_requests"] += 1
            self.log.warning("invalid_resource_request", attempt=str(attempt_id), error=error)
        self._on_notifications(allocation.notifications)
        if not had_pending and self.scheduler.has_pending():
            clock.wake_needed()  # type: ignore[union-attr]  # asks appeared: dormant nodes with room matter again
        return allocation

    def _update_requests(self, attempt_id: ApplicationAttemptId, ask: Any, release: Any) -> None:
        """The RM's own ask and release changes for ``attempt_id`` (promotions, increases and their temporary
        containers: actors/_opportunisticams.py, actors/_containerresize.py), without pulling what waits for the
        AM's next allocate (``CapacityScheduler.update_requests``)."""
        clock = self.heartbeats
        had_pending = clock is None or not clock.skip or self.scheduler.has_pending()
        self._on_notifications(self.scheduler.update_requests(attempt_id, ask, release))
        if not had_pending and self.scheduler.has_pending():
            clock.wake_needed()  # type: ignore[union-attr]  # asks appeared: dormant nodes with room matter again

# ResourceManager._dispatch_node_update hands NODE_UPDATE to the scheduler without the event record only while
# dispatch and the scheduler's handle are these (tests set _DISPATCH to None to compare with the record path).
_DISPATCH: Any = ResourceManager.dispatch
ROLES.resource_manager = ResourceManager  # what the shortcuts compare with (actors/shortcuts/_roles.py)
