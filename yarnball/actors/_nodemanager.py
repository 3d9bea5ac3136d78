"""The NodeManager actor: registration, heartbeats, restarts and decommissioning; its containers are handled by the
:class:`~yarnball.actors._containermanager.ContainerManager` it is (Hadoop's ContainerManagerImpl).

Heartbeats carry the container statuses that changed since the previous heartbeat. Hadoop's NM sends every status
each time and the RM (``RMNodeImpl``) keeps only what is new — newly RUNNING and newly COMPLETE containers — so
sending just the changes gives the scheduler exactly the same NODE_UPDATE events at a fraction of the cost.
"""

from __future__ import annotations

from typing import Any

from yarnball.actors._actor import ActorRef, handler
from yarnball.actors._amrmproxy import AMRMProxyService, amrmproxy_actor_id
from yarnball.actors._containermanager import KILLED_BY_RM, ContainerManager, running_status
from yarnball.actors._containerscheduler import ContainerScheduler
from yarnball.actors._heartbeats import HeartbeatClock, NodeBeat
from yarnball.actors._nmrecovery import KILLED_ON_SHUTDOWN, DownScheduler, NMDowntime, recover, recovery_enabled
from yarnball.actors._nmrpc import NodeCalls
from yarnball.actors._nodestatusupdater import NodeStatusUpdater, registration
from yarnball.actors._secretmanagers import NMSecretManagers, Rejections
from yarnball.protocols import (
    ApplicationId,
    Configuration,
    ContainerExitStatus,
    ContainerStatus,
    ContainerUpdateType,
    ExecutionType,
    NodeAction,
    NodeHeartbeatRequest,
    NodeHeartbeatResponse,
    NodeId,
    NodeStatus,
    RegisterNodeManagerRequest,
    RegisterNodeManagerResponse,
    Resource,
    UnRegisterNodeManagerRequest,
    UnRegisterNodeManagerResponse,
    UpdateContainerRequest,
    keys,
)
from yarnball.protocols._executor import ContainerTerminated
from yarnball.protocols._resourcetracker import NMContainerStatus

__all__ = ["NodeManager", "nm_actor_id"]

_NORMAL_ACTION = NodeAction.NORMAL  # (a module constant: an Enum class attribute is a slow lookup)
_KILLED_BY_RESOURCEMANAGER = ContainerExitStatus.KILLED_BY_RESOURCEMANAGER
#: NodeManager class -> whether its NodeHeartbeatResponse handler is NodeManager's own (an actor's handler table is
#: fixed when its class is made: see NodeManager._own_response_handler).
_OWN_RESPONSE_HANDLER: dict[type, bool] = {}


def _fits_in(smaller: Resource, bigger: Resource) -> bool:
    """``Resources.fitsIn`` for memory and vcores."""
    return smaller.memory_mb <= bigger.memory_mb and smaller.vcores <= bigger.vcores


def nm_actor_id(host: str) -> str:
    """The actor id of the NodeManager on ``host``."""
    return f"nm-{host}"


class NodeManager(ContainerManager):
    """One simulated NodeManager. ``rm`` is the ResourceManager's address."""

    #: NodeStatusUpdaterImpl (actors/_nodestatusupdater.py): the stopped containers' statuses and, in a run that
    #: restarts the RM or has message faults on the NM's heartbeat links, the heartbeat call waiting for its answer.
    #: None until the NM's first container ends (an idle node costs nothing for it) or such a run sets it.
    status_updater: NodeStatusUpdater | None
    #: The same updater where heartbeats are calls that wait for their answers (such a run), else None: what the
    #: heartbeat paths (and the exact shortcuts, actors/_shortcuts/_routes.py) test, one slot read on the ordinary path.
    _hb_call: NodeStatusUpdater | None
    # The NM's memory of repeated AM calls (actors/_nmrpc.py): set only in a run with message faults on the NM's
    # container links (launcher/_faultinjector.py); None keeps the exact ordinary path.
    _calls: NodeCalls | None
    # The three above are slots, not instance-dict attributes: they are set on some runs only or late, and every name
    # an NM ever gets in its __dict__ takes one of the class's ~30 shared inline keys for the whole process; past
    # them, NMs' attributes move into real dicts and every attribute access slows down (tests/test_am_round_costs.py).
    __slots__ = ("_calls", "_hb_call", "status_updater")

    def __init__(
        self,
        host: str,
        rack: str,
        resource: Resource,
        rm: ActorRef,
        *,
        port: int = 0,
        start_delay_ms: float = 0,
        localization_ms: float = 0,
        labels: tuple[str, ...] = (),
        conf: Configuration | None = None,
        heartbeats: HeartbeatClock | None = None,
    ) -> None:
        self.status_updater = None
        self._hb_call = None
        self._calls = None
        self.node_id = NodeId(host, port)
        self.rack = rack
        self.resource = resource
        self.rm = rm
        self.labels = labels
        self.start_delay_ms = start_delay_ms
        self.localization_ms = localization_ms
        self.containers = {}
        self.used_mb = 0
        self.used_vcores = 0
        self.response_id = 0
        self.heartbeat_interval_ms = 1000
        self.registered = False
        self._changes: list[ContainerStatus] = []
        self._heartbeat: Any = None
        self.completed_count = 0
        self._seq = 0
        # The ContainerScheduler queues and starts containers; with Hadoop's defaults (opportunistic queue length 0)
        # it starts every GUARANTEED container at once, as the NM did before it existed.
        self.container_scheduler = ContainerScheduler(resource, conf, owner=self)
        self.report_opportunistic = conf is not None and (
            conf.get_bool(keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED)
            or conf.get_bool(keys.DIST_SCHEDULING_ENABLED)
        )
        # AMRMProxy: on with distributed scheduling (ContainerManagerImpl.createAMRMProxyService).
        self.amrm_proxy: AMRMProxyService | None = None
        if conf is not None and (conf.get_bool(keys.DIST_SCHEDULING_ENABLED) or conf.get_bool(keys.AMRM_PROXY_ENABLED)):
            self.amrm_proxy = AMRMProxyService(conf, rm.id)
        # With a HeartbeatClock (a Cluster's), heartbeats run at the clock's canonical priority and may be skipped
        # while they provably change nothing; without one, a plain actor timer (every heartbeat sent).
        self._heartbeats = heartbeats
        self._beat: NodeBeat | None = None
        self._decommissioned = False  # leaving the cluster (decommission): never heartbeat or register again
        # NM restart (actors/_nmrecovery.py): whether a restart keeps the containers, and the NM while it is down.
        self.recovery = recovery_enabled(conf)
        self._down: NMDowntime | None = None
        #: The live executor (actors/executors/_live.py) of a live run: containers whose launch context asks for real
        #: work run as processes. None (virtual time): every container is simulated.
        self.executor: Any = None
        # ContainerManagerImpl's token checks, with the keys the RM sends at registration (_containermanagerauth.py)
        self.secrets = NMSecretManagers(self.node_id)
        if self.amrm_proxy is not None:
            self.amrm_proxy.secrets = self.secrets  # its DistributedScheduler signs the containers it places

    @property
    def rejections(self) -> Rejections:
        """Requests refused for want of a token (actors/_containermanagerauth.py)."""
        return self.secrets.rejections

    # -- registration and heartbeats --------------------------------------------------------------------------
    def on_start(self) -> None:
        if self.amrm_proxy is not None:
            self.kernel.spawn(self.amrm_proxy, amrmproxy_actor_id(self.node_id.host))
        # (after_call: the same event as ``after``, and nothing of it is kept once it has fired; a cluster has one
        # per node)
        self.after_call(self.start_delay_ms, self._register_at_start, None)

    def _register_at_start(self, _: None) -> None:
        self._register()

    def _register(self, statuses: tuple[NMContainerStatus, ...] = (), apps: tuple[ApplicationId, ...] = ()) -> None:
        request = RegisterNodeManagerRequest(
            node_id=self.node_id,
            resource=self.resource,
            rack_name=self.rack,
            node_labels=self.labels,
            container_statuses=statuses,
            running_applications=apps,
        )
        self.rm.tell(request, self.ref)

    def restart(self, down_ms: float) -> None:
        """Stop now and start again after ``down_ms`` (a restart of the NM process): with
        ``yarn.nodemanager.recovery.enabled`` and ``.supervised`` its containers are recovered, otherwise killed
        (actors/_nmrecovery.py)."""
        if self._down is not None or self._decommissioned or self._stopped:
            return
        self._shut_down()
        self.after(down_ms, self._start_again)

    def _shut_down(self) -> None:
        """The NM process stops: heartbeats end; with recovery its containers run on, otherwise they are killed
        (``ContainerManagerImpl.cleanUpApplicationsOnNMShutDown``)."""
        self.log.info("nm_shutdown", node=str(self.node_id), recovery=self.recovery)
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            self._heartbeat = None
        if self._beat is not None:
            self._heartbeats.stopped(self._beat)  # type: ignore[union-attr]
            self._beat = None
        self.registered = False
        self._down = NMDowntime(self.container_scheduler)
        self.container_scheduler = DownScheduler()
        if not self.recovery:
            for cid in list(self.containers):
                self._kill(cid, ContainerExitStatus.KILLED_AFTER_APP_COMPLETION, KILLED_ON_SHUTDOWN)
            self._changes = []  # no state store: what it knew is gone
        if self.status_updater is not None:
            self.status_updater.nm_stopped(keep=self.recovery)  # (nor are the stopped containers in a new NM's context)

    def _start_again(self) -> None:
        """The NM starts again: recover (or start empty), register with what it has, then serve the waiting calls."""
        down = self._down
        assert down is not None
        recover(self, down)
        statuses, apps = registration(self)  # with the completions the RM may not have (actors/_nodestatusupdater.py)
        self._down = None
        self.log.info("nm_restarted", node=str(self.node_id), containers=len(statuses))
        self._register(statuses, apps)
        for serve, message, sender in down.deferred:  # the calls that waited, in their order
            self._sender = sender
            serve(self, message)

    @property
    def decommissioned(self) -> bool:
        """Whether the NM left the cluster (decommission): it never heartbeats or registers again."""
        return self._decommissioned

    def wait_for_heartbeat_answers(self, retry_ms: float | None = None) -> None:
        """Heartbeats become calls that wait for their answers (a run that restarts the RM; with ``retry_ms``, one
        with message faults on the heartbeat links, under Hadoop's RPC rules: actors/_nodestatusupdater.py)."""
        updater = NodeStatusUpdater.of(self)
        updater.wait_for_answers(retry_ms)
        self._hb_call = updater

    @property
    def is_down(self) -> bool:
        """Whether the NM process is down (between a restart's stop and start)."""
        return self._down is not None

    @property
    def tearing_down(self) -> bool:
        """Whether this running NM still holds containers that have not reached a final state (a live run waits for
        them: launcher/_cluster.py)."""
        return bool(self.containers) and self._down is None and not self._stopped and not self._decommissioned

    @handler
    def on_registered(self, msg: RegisterNodeManagerResponse) -> None:
        if self._down is not None:
            return  # the answer to the NM process that went down
        if msg.node_action is NodeAction.SHUTDOWN:
            self.log.warning("nm_shutdown_by_rm", diagnostics=msg.diagnostics_message)
            self.stop()
            return
        self.registered = True
        if self._hb_call is not None:
            self._hb_call.registered()  # a new StatusUpdaterRunnable
        self.secrets.set_keys(msg.nm_token_master_key, msg.container_token_master_key, msg.rm_identifier)
        if self._heartbeats is not None:
            if self._beat is None:
                self._beat = self._heartbeats.start(self, self.heartbeat_interval_ms)
        elif self._heartbeat is None:
            self._heartbeat = self.every(self.heartbeat_interval_ms, self._send_heartbeat)

    def on_stop(self) -> None:
        if self._beat is not None and not self._decommissioned:
            self._heartbeats.stopped(self._beat)  # type: ignore[union-attr]

    def heartbeat_now(self) -> None:
        """Send a heartbeat now (called by the HeartbeatClock at this node's phase points)."""
        if self._busy:
            self.after(0, self._send_heartbeat)
        else:
            self._send_heartbeat()

    def _send_heartbeat(self) -> None:
        changes = self.heartbeat_changes()
        if changes is None:
            return
        call = self._hb_call
        status = NodeStatus(
            node_id=self.node_id,
            response_id=self.response_id,
            container_statuses=tuple(changes) if call is None else call.statuses(changes),
            opportunistic_containers_status=self.container_scheduler.status() if self.report_opportunistic else None,
        )
        request = NodeHeartbeatRequest(node_status=status)
        if call is not None:
            call.send(request)
        self.rm.tell(request, self.ref)

    def heartbeat_changes(self) -> list[ContainerStatus] | None:
        """The container changes its heartbeat reports now, taken; None when it sends no heartbeat now: leaving (a
        heartbeat after the unregistration would be answered RESYNC), down, or its heartbeat call still waiting
        for its answer (the status-updater thread still waits in nodeHeartbeat: actors/_nodestatusupdater.py)."""
        if self._decommissioned or self._down is not None:
            return None
        call = self._hb_call
        if call is not None and call.in_flight is not None:
            return None
        changes, self._changes = self._changes, []
        return changes

    # -- what the exact shortcuts ask of a NodeManager (actors/_shortcuts) ----------------------------------------
    def has_news(self) -> bool:
        """Whether its next heartbeat reports something: container changes, or it has had none answered yet."""
        return bool(self._changes) or self.response_id == 0

    def take_plain_response(self, response: NodeHeartbeatResponse) -> bool:
        """Take ``response`` at once when all :meth:`on_heartbeat_response` would do with it is store its response
        id (NORMAL, nothing to clean up, update or limit, the interval in use; the NM not leaving, no heartbeat call
        waiting, "resume" supervision and this class's handler); False (nothing done): it must be delivered."""
        interval = response.next_heartbeat_interval_ms
        if (
            response.node_action is _NORMAL_ACTION
            and not response.containers_to_cleanup
            and not response.applications_to_cleanup
            and response.container_queuing_limit is None
            and not response.containers_to_update
            and (interval == self.heartbeat_interval_ms or interval <= 0)
            and self._hb_call is None  # (a heartbeat call that waits: the handler also ends it)
            and not self._decommissioned
            and self.supervision == "resume"
            and (_OWN_RESPONSE_HANDLER.get(type(self)) or self._own_response_handler())
        ):
            self.response_id = response.response_id
            return True
        return False

    def _own_response_handler(self) -> bool:
        """Whether this class handles NodeHeartbeatResponse with NodeManager's own handler (noted by class)."""
        own = _OWN_RESPONSE_HANDLER[type(self)] = (
            type(self).handler_for(NodeHeartbeatResponse) is NodeManager.on_heartbeat_response
        )
        return own

    def may_defer_running(self, interval: Any) -> bool:
        """Whether a RUNNING report of this NM may wait for a later heartbeat whose plain response, with the RM's
        ``interval``, it would take (:meth:`take_plain_response`): answered before, free, not leaving, not reporting
        its queue, with that interval, "resume" supervision and this class's handler (actors/_shortcuts/
        _lazyrunning.py)."""
        return (
            self.response_id != 0
            and not self._busy
            and not self._decommissioned
            and not self.report_opportunistic
            and self._hb_call is None
            and interval == self.heartbeat_interval_ms
            and self.supervision == "resume"
            and (_OWN_RESPONSE_HANDLER.get(type(self)) or self._own_response_handler())
        )

    def heartbeat_answered(self, response_id: int) -> None:
        """A deferred heartbeat's plain response, settled after the fact: its response id is stored."""
        self.response_id = response_id

    def report_first(self, containers: list[Any]) -> None:
        """Report ``containers`` (as launched) RUNNING in the next heartbeat, ahead of every change pending."""
        self._changes[:0] = [running_status(c) for c in containers]

    @handler
    def on_heartbeat_response(self, msg: NodeHeartbeatResponse) -> None:
        if self._down is not None:
            return  # the answer to the NM process that went down
        call = self._hb_call
        if call is not None and not call.answer(msg):
            return  # an answer to a call no longer waited for: Hadoop RPC's client drops it
        self.response_id = msg.response_id
        # (each list tested first: most responses carry none, and iterating an empty tuple still makes an iterator)
        if msg.containers_to_cleanup:
            for cid in msg.containers_to_cleanup:
                self._kill(cid, _KILLED_BY_RESOURCEMANAGER, KILLED_BY_RM)
        if msg.applications_to_cleanup:
            for app in msg.applications_to_cleanup:
                self._cleanup_application(app)
        if msg.container_queuing_limit is not None:
            self.container_scheduler.update_queuing_limit(msg.container_queuing_limit.max_queue_length)
        if msg.containers_to_update:
            for updated in msg.containers_to_update:  # auto-update.containers, and every resource decrease
                entry = self.containers.get(updated.id)
                if entry is not None and entry.container.resource != updated.resource:
                    # NodeStatusUpdaterImpl: the RM's containersToUpdate go through updateContainerInternal
                    grows = not _fits_in(updated.resource, entry.container.resource)
                    kind = ContainerUpdateType.INCREASE_RESOURCE if grows else ContainerUpdateType.DECREASE_RESOURCE
                elif updated.execution_type is ExecutionType.GUARANTEED:
                    kind = ContainerUpdateType.PROMOTE_EXECUTION_TYPE
                else:
                    kind = ContainerUpdateType.DEMOTE_EXECUTION_TYPE
                self._update_container(
                    UpdateContainerRequest(
                        container_version=updated.version,
                        container_id=updated.id,
                        container_update_type=kind,
                        execution_type=updated.execution_type,
                        capability=updated.resource,
                    )
                )
        if msg.node_action is not _NORMAL_ACTION and msg.node_action in (NodeAction.SHUTDOWN, NodeAction.RESYNC):
            # RESYNC: the RM does not know this node (it expired or the RM restarted): register again.
            if msg.node_action is NodeAction.SHUTDOWN:
                self.fail()  # (a decommissioned node: its programs end with it)
                return
            if self._decommissioned:
                return  # the answer to a heartbeat that crossed our unregistration: we are leaving, not resyncing
            if call is not None:  # NodeManager.resyncWithRM, work-preserving: with every container it has
                self._register(*registration(self))
            else:
                self._register()
        if self._decommissioned:
            return  # no more phase points to (re)start
        if msg.next_heartbeat_interval_ms != self.heartbeat_interval_ms and msg.next_heartbeat_interval_ms > 0:
            self.heartbeat_interval_ms = msg.next_heartbeat_interval_ms
            if self._heartbeats is not None:
                if self._beat is not None:
                    self._beat = self._heartbeats.start(self, self.heartbeat_interval_ms)
                return
            if self._heartbeat is not None:
                self._heartbeat.cancel()
            self._heartbeat = self.every(self.heartbeat_interval_ms, self._send_heartbeat)

    def decommission(self) -> None:
        """Leave the cluster gracefully (an elastic downscale): stop heartbeating and unregister from the RM, which
        removes the node from the scheduler (NODE_REMOVED); the NM stops when the RM acknowledges."""
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            self._heartbeat = None
        if self._beat is not None and not self._decommissioned:
            # The HeartbeatClock's phase points too: a heartbeat sent after the unregistration would be answered
            # RESYNC ("Node not found") and the leaving node would register again.
            self._heartbeats.stopped(self._beat)  # type: ignore[union-attr]
        self._decommissioned = True
        self.registered = False
        self.rm.tell(UnRegisterNodeManagerRequest(node_id=self.node_id), self.ref)

    @handler
    def on_unregistered(self, msg: UnRegisterNodeManagerResponse) -> None:
        for cid in list(self.containers):  # nothing should run here; anything that raced in is killed with the node
            self._kill(cid, ContainerExitStatus.KILLED_BY_RESOURCEMANAGER, KILLED_BY_RM)
        self.stop()

    def fail(self) -> None:
        """Simulate the node dying: it stops heartbeating and its programs are killed (the RM will expire it)."""
        if self.executor is not None:
            self.executor.kill_all(ContainerExitStatus.ABORTED, "Container released on a *lost* node")
        for entry in list(self.containers.values()):
            if entry.process is not None:
                self.kernel.lookup(entry.process).tell(
                    ContainerTerminated(
                        container_id=entry.container.id,
                        exit_status=ContainerExitStatus.ABORTED,
                        diagnostics="Container released on a *lost* node",
                    ),
                    self.ref,
                )
        self.stop()
