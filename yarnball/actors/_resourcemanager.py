"""The ResourceManager actor: a thin actor over Hadoop's RM services, one module each.

The RM holds the state its services share, as Hadoop's RMContext does (nodes, applications and attempts, the
containers allocated and not yet ended, the scheduler, the secret managers, the counters), and hands each message
to the service that serves it:

- ResourceTrackerService (actors/_resourcetracker.py): NM registration, heartbeats, liveness;
- ApplicationMasterService (actors/_applicationmasterservice.py): AM register, allocate heartbeats through the AMS
  processing chain, finish;
- ClientRMService (actors/_clientrmservice.py): new application ids, submissions, kills, moves, priorities and
  reports, with their ACLs; AdminService (actors/_adminservice.py): queue refreshes;
- RMAppManager (actors/_rmappmanager.py): the applications' and attempts' lifecycle, the ApplicationMasterLauncher
  and the AMLivelinessMonitor;
- the dispatcher into the scheduler (actors/_schedulerdispatcher.py, ``rm.dispatch``): every scheduler event, the
  RM's container books and the ContainerAllocationExpirer.

The optional services (container resizing, graceful decommissioning, the opportunistic allocator, message-fault
rules, RM restarts) are members of the services' chains, chosen when the RM is built and again when one joins or
leaves (:meth:`ResourceManager.services_changed`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from yarnball.actors._actor import ActorRef, handler
from yarnball.actors._adminservice import refresh_queues
from yarnball.actors._applicationmasterservice import ApplicationMasterService
from yarnball.actors._clientrmservice import ClientRMService
from yarnball.actors._containerresize import ContainerResizeService
from yarnball.actors._decommission import DecommissioningNodes
from yarnball.actors._heartbeats import HeartbeatClock
from yarnball.actors._kernel import Kernel
from yarnball.actors._nmrpc import NodeHeartbeatRules
from yarnball.actors._opportunisticams import OpportunisticContainerAllocatorAMService
from yarnball.actors._preemption import create_preemption_monitor, run_fs_preemption
from yarnball.actors._queuedeletion import QueueDeletionMonitor, spawn_queue_deletion_monitor
from yarnball.actors._queuemanagement import spawn_queue_management_monitor
from yarnball.actors._resourcetracker import ResourceTrackerService, RMNode
from yarnball.actors._rmappmanager import RMAppManager
from yarnball.actors._rmcontext import RMContext
from yarnball.actors._rmcontextfields import RMContextFields
from yarnball.actors._rmdelivery import RMDeliveryProtocol
from yarnball.actors._rmrestart import RMRestarts
from yarnball.actors._schedulerdispatcher import SchedulerEventDispatcher
from yarnball.actors._secretmanagers import Rejections, RMSecretManagers
from yarnball.actors._shortcuts import DormantAMs
from yarnball.errors import ConfigurationError
from yarnball.policies.scheduler import ResourceScheduler
from yarnball.protocols import (
    Configuration,
    ContainerPreemptEvent,
    DistributedSchedulingAllocateRequest,
    FinishApplicationMasterRequest,
    GetApplicationReportRequest,
    GetApplicationsRequest,
    GetClusterMetricsRequest,
    GetNewApplicationRequest,
    KillApplicationRequest,
    MoveApplicationAcrossQueuesRequest,
    NodeId,
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


class ResourceManager(RMDeliveryProtocol, RMContextFields):
    """The ResourceManager. ``conf`` is the layered yarn-site + capacity-scheduler configuration."""

    # The services, and the optional ones (created on first use, None until then). Slots, not instance
    # attributes: those would take the RM past the 30 attributes CPython keeps inline (tests/test_am_round_costs.py);
    # nor class-level defaults, which the interpreter cannot specialise a read of (each read of ``self.resize`` on the
    # heartbeat path was a full attribute lookup, ~270 instructions, instead of a slot read).
    __slots__ = (
        "app_manager",
        "application_master_service",
        "client_rm_service",
        "context",
        "decommissioning",
        "dispatch",
        "dispatcher",
        "node_rules",
        "queue_deletion_monitor",
        "resize",
        "resource_tracker",
        "restarts",
    )
    #: The state the services share (actors/_rmcontext.py); the attributes below that name it are its fields.
    context: RMContext
    #: RMAppManager: the applications' and attempts' lifecycle, the AM launcher and liveness (actors/_rmappmanager.py).
    app_manager: RMAppManager
    #: ClientRMService: submissions, kills, moves, priorities and reports (actors/_clientrmservice.py).
    client_rm_service: ClientRMService
    #: The dispatcher into the scheduler, with the RM's container books (actors/_schedulerdispatcher.py).
    dispatcher: SchedulerEventDispatcher
    #: ``dispatcher.dispatch``: hand one scheduler event to the scheduler (a slot: tests replace it to record).
    dispatch: Any
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
        scheduler: ResourceScheduler,
        *,
        cluster_timestamp: int = 1,
        rng: random.Random | None = None,
        secret_seed: int = 0,
    ) -> None:
        self.resize = self.decommissioning = self.restarts = self.node_rules = self.queue_deletion_monitor = None
        self.conf = conf
        self.context = RMContext(scheduler, conf.get_int(keys.RM_NM_HEARTBEAT_INTERVAL_MS))
        self.cluster_timestamp = cluster_timestamp
        self.nm_expiry_ms = conf.get_int(keys.RM_NM_EXPIRY_INTERVAL_MS)
        self.alloc_expiry_ms = conf.get_int(keys.RM_CONTAINER_ALLOC_EXPIRY_INTERVAL_MS)
        self.am_expiry_ms = conf.get_int(keys.RM_AM_EXPIRY_INTERVAL_MS)
        self.max_attempts = conf.get_int(keys.RM_AM_MAX_ATTEMPTS)
        validate_configs(conf)
        self.maximum_allocation = scheduler.get_maximum_allocation()
        self.done_listeners: list[Any] = []
        self.expected_applications: int | None = None
        self.apps_done = 0
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
        #: Dormant idle AMs by attempt id (_shortcuts/_amdormancy.py); the hooks below wake them when work appears.
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
        ctx = self.context
        self.dispatcher = ctx.dispatcher = SchedulerEventDispatcher(self)
        self.dispatch = self.dispatcher.dispatch
        self.app_manager = ctx.app_manager = RMAppManager(self)
        self.client_rm_service = ClientRMService(self)
        self.resource_tracker = ctx.resource_tracker = ResourceTrackerService(self)
        self.application_master_service = ctx.application_master_service = ApplicationMasterService(self)

    def services_changed(self) -> None:
        """An optional service joined or left (the first container resize, a graceful decommission, message
        faults, an RM restart): the services choose their chains again."""
        self.dispatcher.build_chain()
        self.app_manager.build_chain()
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

    # -- the delivery an RM restart intercepts (actors/_rmrestart.py) -------------------------------------------
    @property
    def inbox(self) -> Callable[[tuple[Any, ActorRef | None]], None]:
        """What a delivery event of this actor calls with ``(message, sender)``: its ``_deliver``, or whatever
        intercepts it on the instance (:meth:`intercept`)."""
        return self._deliver

    def intercept(self, inbox: Callable[[tuple[Any, ActorRef | None]], None]) -> None:
        """Make ``inbox`` what this actor's delivery events call from now on: an interceptor in front of the actor
        (its down time while it restarts), which passes what it lets through to the :attr:`inbox` it replaced."""
        self._deliver = inbox  # type: ignore[method-assign, assignment]

    def deliver(self, message: Any, sender: ActorRef | None) -> None:
        """Hand ``message`` from ``sender`` to this actor now, exactly as its delivery event would (a stopped actor
        makes it a dead letter, a busy one queues it)."""
        self._deliver((message, sender))

    def _attach(self, kernel: Kernel, actor_id: str) -> ActorRef:
        self.context.kernel = kernel  # (the services read the time from the context)
        return super()._attach(kernel, actor_id)

    def wake_node(self, node_id: NodeId) -> None:
        """A change for ``node_id`` its next heartbeat must see: a skipped heartbeat of it runs after all."""
        clock = self.context.heartbeats
        if clock is not None and clock.skip:
            clock.wake_node(node_id)

    def on_start(self) -> None:
        # Hadoop's AbstractLivenessMonitor checks every expireInterval / 3.
        self.every(max(1, self.nm_expiry_ms // 3), self.resource_tracker.check_node_liveness)
        self.every(max(1, self.alloc_expiry_ms // 3), self.dispatcher.check_container_expiry)
        self.every(max(1, self.am_expiry_ms // 3), self.app_manager.check_am_liveness)
        if self.preemption_monitor is not None:
            self.preemption_monitor.rm_id = self.id
            self.kernel.spawn(self.preemption_monitor, f"{self.id}-preemption-monitor")
        # AutoCreatedQueueDeletionPolicy, when the monitor keys name it
        monitor = spawn_queue_deletion_monitor(self)
        if monitor is not None:
            self.queue_deletion_monitor = monitor
        spawn_queue_management_monitor(self)  # QueueManagementDynamicEditPolicy, likewise
        scheduler = self.scheduler
        scheduler.service_start(lambda: int(self.now))
        if scheduler.update_interval_ms > 0:
            # AbstractYarnScheduler.UpdateThread (the FairScheduler's update every update-interval-ms), as a timer
            self.every(scheduler.update_interval_ms, self._scheduler_update)
        if self.scheduler.continuous_scheduling:
            # FairScheduler's continuous-scheduling thread, as a timer (the scheduler's continuous_scheduling_attempt).
            self.every(self.scheduler.continuous_scheduling_sleep_ms, self.dispatcher.continuous_scheduling)
        if self.opportunistic is not None:
            self.opportunistic.start()

    def _scheduler_update(self) -> None:
        self.dispatcher.on_notifications(self.scheduler.update())
        run_fs_preemption(self)  # the FairScheduler's FSPreemptionThread, on what the update found

    def on_stop(self) -> None:
        clock = self.heartbeats
        if clock is not None and clock.lazy is not None:
            clock.lazy.disable()  # deferred RUNNING reports go to a stopped RM as real heartbeats (_lazyrunning.py)

    # -- the dispatcher (actors/_schedulerdispatcher.py) ---------------------------------------------------------
    @handler
    def on_container_preempt(self, msg: ContainerPreemptEvent) -> None:
        self.dispatcher.on_container_preempt(msg)

    # -- ResourceTrackerService (actors/_resourcetracker.py) -----------------------------------------------------
    @handler
    def on_register_node(self, msg: RegisterNodeManagerRequest) -> None:
        self.resource_tracker.on_register_node(msg)

    @handler
    def on_unregister_node(self, msg: UnRegisterNodeManagerRequest) -> None:
        self.resource_tracker.on_unregister_node(msg)

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
    def on_allocate_distributed(self, msg: DistributedSchedulingAllocateRequest) -> None:
        self.application_master_service.on_allocate_distributed(msg)

    @handler
    def on_finish_am(self, msg: FinishApplicationMasterRequest) -> None:
        self.application_master_service.on_finish_am(msg)
