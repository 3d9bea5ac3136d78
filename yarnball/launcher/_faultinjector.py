"""Applying a fault schedule (launcher/_faults.py) to an embedded Cluster.

Each fault runs as a kernel event at its ``at_ms``, owned by the actor it acts on (the NM, the RM or the AM), so it
is ordered as that actor's own messages. It is logged as a ``fault_injected`` event (``applied`` false, with a
``reason``, when its target had nothing to fault at that time: an AM not running yet, a container already done)
and counted in :attr:`FaultInjector.counts`, which summary.json reports under ``faults``.

What each kind does, and the Hadoop behaviour it exercises:

- ``node_restart``: the NM stops and starts again ``down_ms`` later, work-preserving with
  ``yarn.nodemanager.recovery.enabled`` + ``.supervised`` (actors/_nmrecovery.py).
- ``node_lost``: the NM stops (its programs die); the RM expires it after ``yarn.nm.liveness-monitor.expiry-
  interval-ms`` and its containers end LOST (ABORTED -100); AM containers there fail their attempt (not counted).
- ``node_decommission``: graceful decommission (actors/_decommission.py).
- ``am_crash``: the AM process exits with ``exit_status``; the RM fails the attempt (counted towards
  ``yarn.resourcemanager.am.max-attempts`` / the application's max attempts) and starts another, which keeps the
  running containers when the application asked for keepContainersAcrossApplicationAttempts.
- ``container_fail``: a RUNNING container's process exits with ``exit_status``; its AM hears it in the completed
  statuses (an SLS AM re-runs the task); an AM container's exit is an AM crash.
- ``rm_restart``: the RM is down for ``down_ms`` and starts again; with ``yarn.resourcemanager.recovery.enabled``
  it recovers the applications from its state store and the NMs' containers (work-preserving), otherwise the
  running applications are lost (actors/_rmrestart.py). Every AM gets the allocate RPC client (actors/_amrpc.py) and
  every NM's heartbeat client waits for answers (actors/_nodestatusupdater.py), so that calls wait while it is down.
- ``message_*``: actors/_messagefaults.py, with the allocate RPC's retries and response-id rules
  (actors/_amrpc.py), and on the NodeManager's links Hadoop's heartbeat and container-call rules
  (actors/_nmrpc.py). Message faults and every kind but node_lost run with the exact shortcuts' skipping off
  (every heartbeat and allocate is a real message), which changes no result (actors/_shortcuts).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from yarnball._logs import get_logger
from yarnball.actors._messagefaults import MessageFaultRule, MessageFaults
from yarnball.actors._nmrpc import NodeHeartbeatRules, nm_client_timing, nm_retry_interval_ms
from yarnball.errors import SimulationError
from yarnball.launcher._faults import MESSAGE_FAULT_KINDS, NM_CONTAINER_LINKS, NM_HEARTBEAT_LINKS, Fault
from yarnball.policies.placement import placement_from_conf
from yarnball.policies.scheduler import RecoveringScheduler, create_recovering_scheduler
from yarnball.protocols import ApplicationId, ContainerId, ContainerState, NodeId, keys
from yarnball.protocols._executor import ContainerProcessExited

__all__ = ["FaultInjector"]

log = get_logger(__name__)


class FaultInjector:
    """A cluster's scheduled faults and what they did."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.scheduled: list[Fault] = []
        self.counts: Counter[str] = Counter()  # kind -> faults applied (each faulted message counts)
        self.without_effect: Counter[str] = Counter()  # kind -> faults whose target had nothing to fault
        self.messages: MessageFaults | None = None
        #: Whether the run must process every heartbeat and allocate as a message (shortcuts' skipping off).
        self.needs_every_event = False
        #: With an RM restart scheduled: the allocate RPC client's retry interval, for AMs submitted later.
        self.rpc_retry_ms: int | None = None

    def summary(self) -> dict[str, Any]:
        return {
            "scheduled": len(self.scheduled),
            "injected": dict(sorted(self.counts.items())),
            "without_effect": dict(sorted(self.without_effect.items())),
        }

    def _record(self, fault: Fault, applied: bool, reason: str = "", **fields: Any) -> None:
        if applied:
            self.counts[fault.kind] += 1
            log.info("fault_injected", kind=fault.kind, fault=fault.index, target=fault.target, **fields)
        else:
            self.without_effect[fault.kind] += 1
            log.warning(
                "fault_injected",
                kind=fault.kind,
                fault=fault.index,
                target=fault.target,
                applied=False,
                reason=reason,
                **fields,
            )

    def add(self, faults: list[Fault]) -> None:
        """Schedule ``faults``. On a shard host (launcher/_shardfaults.py) ``cluster`` holds the host's own actors
        only: a fault whose actor lives on another host is left to that host."""
        cluster = self.cluster
        kernel = cluster.kernel
        rm = cluster.rm
        for fault in faults:
            self.scheduled.append(fault)
            delay = max(0.0, fault.at_ms - kernel.now)
            kind = fault.kind
            if kind != "node_lost" and not self.needs_every_event:
                shortcuts_on = cluster.heartbeats.skip or cluster.heartbeats.skip_am or (
                    rm is not None and rm.dormant.enabled
                )
                if kernel.now > 0 and shortcuts_on:
                    raise SimulationError(
                        f"fault {fault.index} ({kind}): inject faults other than node_lost before the cluster first "
                        "runs: they need every heartbeat and allocate as a message from the start"
                    )
                self.needs_every_event = True
            if kind == "node_lost" or kind == "node_restart":
                nm = cluster.node_managers.get(fault.target.split(":", 1)[0])
                if nm is None:
                    continue  # on another shard host
                if kind == "node_lost":
                    kernel.schedule(delay, lambda _, f=fault, nm=nm: self._node_lost(f, nm), owner=nm.id)
                else:
                    cluster.node_restarts = True  # (see Cluster.restart_node)
                    kernel.schedule(delay, lambda _, f=fault, nm=nm: self._node_restart(f, nm), owner=nm.id)
            elif kind == "node_decommission" or kind == "container_fail" or (
                kind == "am_crash" and fault.target.startswith("application_")
            ):
                if rm is None:
                    continue  # the RM's host acts
                act = {"node_decommission": self._decommission, "am_crash": self._am_crash}.get(
                    kind, self._container_fail
                )
                kernel.schedule(delay, lambda _, f=fault, act=act: act(f), owner=rm.id)
            elif kind == "am_crash":
                # The AM process exits: an event of the AM's own (what it sends is ordered as its own messages, on
                # every backend), found by its job name now (check_targets: a submitted job).
                am = self._master(fault.target)
                if am is None:
                    continue  # on another shard host
                kernel.schedule(delay, lambda _, f=fault: self._am_crash(f), owner=am.id)
            elif kind in MESSAGE_FAULT_KINDS:
                self._message_rule(fault)
            elif kind == "rm_restart":
                self._prepare_rm_restart(fault)
                kernel.schedule(delay, lambda _, f=fault: self._rm_restart(f), owner=cluster.rm.id)

    # -- the kinds ------------------------------------------------------------------------------------------------
    def _node_lost(self, fault: Fault, nm: Any) -> None:
        if not nm.ref.is_alive:
            self._record(fault, False, "the NodeManager is not running")
            return
        self._record(fault, True, node=str(nm.node_id))
        nm.fail()

    def _node_restart(self, fault: Fault, nm: Any) -> None:
        if not nm.ref.is_alive or nm.is_down:
            self._record(fault, False, "the NodeManager is not running")
            return
        down_ms = fault.get("down_ms", 0)
        self._record(fault, True, node=str(nm.node_id), down_ms=down_ms)
        nm.restart(down_ms)  # actors/_nmrecovery.py (Cluster.restart_node)

    def _decommission(self, fault: Fault) -> None:
        cluster = self.cluster
        host = fault.target.split(":", 1)[0]
        nm = cluster.node_managers.get(host)
        node_id = nm.node_id if nm is not None else NodeId(host, 0)  # (a node of another shard host: port 0)
        timeout_s = fault.get("timeout_s")
        if timeout_s is None:
            timeout_s = cluster.conf.get_int(
                keys.RM_NM_GRACEFUL_DECOMMISSION_TIMEOUT_SECS, keys.DEFAULT_RM_NM_GRACEFUL_DECOMMISSION_TIMEOUT_SECS
            )
        if cluster.rm.decommission_node(node_id, timeout_s * 1000.0):
            self._record(fault, True, node=str(node_id), timeout_s=timeout_s)
        else:
            self._record(fault, False, "the RM has no RUNNING node of that name", node=str(node_id))

    def _master(self, target: str) -> Any:
        """The AM of a job name or an application id (None if none has it yet)."""
        masters = self.cluster.masters
        if target.startswith("application_"):
            app_id = ApplicationId.parse(target)
            return next((am for am in masters if am.application_id == app_id), None)
        return next((am for am in masters if am.name == target), None)

    def _am_crash(self, fault: Fault) -> None:
        am = self._master(fault.target)
        if am is None:
            self._record(fault, False, "the application has not been submitted yet")
            return
        attempt = str(am.attempt_id) if am.attempt_id is not None else None
        # (an event owned by the RM calls into the AM: the AM's own tell is ordered as the AM's)
        if am.crash(fault.get("exit_status", 1), "AM process crashed (fault injected)"):
            self._record(fault, True, attempt=attempt, exit_status=fault.get("exit_status", 1))
        else:
            self._record(fault, False, "no AM process is running (not launched yet, or finished)")

    def _running_container(self, fault: Fault) -> tuple[Any, Any] | None:
        """(NM, container entry) of the targeted RUNNING container, if any."""
        nms = self.cluster.node_managers
        target = fault.target
        if target.startswith("container_"):
            cid = ContainerId.parse(target)
            for nm in nms.values():
                entry = nm.containers.get(cid)
                if entry is not None and not not nm.ref.is_alive and entry.state is ContainerState.RUNNING:
                    return nm, entry
            return None
        am = self._master(target)
        if am is None or am.attempt_id is None:
            return None
        am_cid = am.am_container.id if am.am_container is not None else None
        found = [
            (entry.container.id.container_id, nm.id, nm, entry)
            for nm in nms.values()
            if not not nm.ref.is_alive
            for cid, entry in nm.containers.items()
            if cid.application_attempt_id.application_id == am.application_id
            and cid != am_cid
            and entry.state is ContainerState.RUNNING
        ]
        if not found:
            return None
        _, _, nm, entry = min(found, key=lambda f: (f[0], f[1]))
        return nm, entry

    def _container_fail(self, fault: Fault) -> None:
        hit = self._running_container(fault)
        status = fault.get("exit_status", 1)
        if hit is None:
            self._record(fault, False, "no such RUNNING container")
            return
        nm, entry = hit
        cid = entry.container.id
        am = next((a for a in self.cluster.masters if a.am_container is not None and a.am_container.id == cid), None)
        self._record(fault, True, container=str(cid), node=str(nm.node_id), exit_status=status)
        if am is not None:
            am.crash(status, "AM container failed (fault injected)")
            return
        exited = ContainerProcessExited(
            container_id=cid, exit_status=status, diagnostics="Container failed (fault injected)"
        )
        nm.ref.tell(exited)

    def _message_rule(self, fault: Fault) -> None:
        cluster = self.cluster
        if self.messages is None:
            rm_id = cluster.rm.id if cluster.rm is not None else "rm"  # (a shard host without the RM: its id)
            self.messages = MessageFaults(cluster.kernel, self._count_message, rm_id=rm_id)
            retry_ms = cluster.conf.get_int(
                keys.RM_CONNECT_RETRY_INTERVAL_MS, keys.DEFAULT_RM_CONNECT_RETRY_INTERVAL_MS
            )
            if cluster.rm is not None:
                self.messages.install(cluster.rm)
            for am in cluster.masters:
                self.messages.install(am)
                am.retry_allocate_calls(retry_ms)
        if fault.target in NM_HEARTBEAT_LINKS or fault.target in NM_CONTAINER_LINKS:
            self._nm_rules(fault.target)
        source, dest = fault.target.split("->")
        self.messages.add(
            MessageFaultRule(
                index=fault.index,
                kind=fault.kind,
                message=fault.get("message"),
                source=source,
                dest=dest,
                start_ms=float(fault.at_ms),
                end_ms=float(fault.at_ms + fault.get("duration_ms")),
                probability=fault.get("probability", 1.0),
                delay_ms=float(fault.get("delay_ms", 0)),
                seed=f"{cluster.seed}:fault:{fault.index}",
            )
        )

    def _nm_rules(self, link: str) -> None:
        """Hadoop's rules for the NodeManager's RPCs (actors/_nmrpc.py) on the link's both ends, and every message
        of the NM's links a real one: the exact shortcuts that hand heartbeats inline, store plain responses' ids
        and leave out quiet replies are off (they change no result: actors/_shortcuts)."""
        cluster = self.cluster
        messages = self.messages
        assert messages is not None
        cluster.kernel.exact_shortcuts = False
        cluster.heartbeats.inline = None
        conf = cluster.conf
        for nm in cluster.node_managers.values():
            messages.install(nm)
        if link in NM_HEARTBEAT_LINKS:
            if cluster.rm is not None and cluster.rm.node_rules is None:
                cluster.rm.node_rules = NodeHeartbeatRules(cluster.rm)
                cluster.rm.services_changed()  # the heartbeat chain takes the rules
            retry_ms = nm_retry_interval_ms(conf)
            for nm in cluster.node_managers.values():
                nm.wait_for_heartbeat_answers(retry_ms)
        else:
            retry_ms, max_wait_ms = nm_client_timing(conf)
            for nm in cluster.node_managers.values():
                nm.remember_calls()
            for am in cluster.masters:
                am.retry_container_calls(retry_ms, max_wait_ms)

    def _prepare_rm_restart(self, fault: Fault) -> None:
        """What a run that restarts the RM needs from the start: the RM's restart state with the launcher's scheduler
        factory, its down-time delivery, and clients that wait and retry (see the module docstring)."""
        cluster = self.cluster
        conf = cluster.conf
        opportunistic = keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED
        if conf.get_bool(opportunistic) or conf.get_bool(keys.DIST_SCHEDULING_ENABLED):
            raise SimulationError(
                f"fault {fault.index} (rm_restart): an RM restart with opportunistic containers is not modelled "
                f"({keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED})"
            )
        if cluster.autoscaler is not None:
            raise SimulationError(
                f"fault {fault.index} (rm_restart): an RM restart with the autoscaler is not modelled"
            )
        rm = cluster.rm
        restarts = rm.restart_service()
        if restarts.new_scheduler is None:
            restarts.new_scheduler = self._new_scheduler
            restarts.install()
        cluster.heartbeats.inline = None  # every heartbeat through the RM's delivery (its down-time hook sees it)
        for nm in cluster.node_managers.values():
            nm.wait_for_heartbeat_answers()
        self.rpc_retry_ms = conf.get_int(keys.RM_CONNECT_RETRY_INTERVAL_MS, keys.DEFAULT_RM_CONNECT_RETRY_INTERVAL_MS)
        for am in cluster.masters:
            am.retry_allocate_calls(self.rpc_retry_ms)

    def _new_scheduler(self, epoch: int) -> RecoveringScheduler:
        """The restarted RM's scheduler: a new one from the RM's configuration, numbering containers from ``epoch``
        (policies/capacity/_recovery.py), which the cluster then shows."""
        cluster = self.cluster
        rm = cluster.rm
        scheduler = create_recovering_scheduler(rm.conf, cluster_timestamp=rm.cluster_timestamp, epoch=epoch)
        scheduler.set_placement(placement_from_conf(cluster.conf, seed=cluster.seed))
        scheduler.service_start(lambda: int(rm.now))  # serviceStart: the FairScheduler reads the RM's clock
        cluster.scheduler = scheduler
        return scheduler

    def _rm_restart(self, fault: Fault) -> None:
        rm = self.cluster.rm
        restarts = rm.restarts
        if restarts is None or restarts.down:
            self._record(fault, False, "the ResourceManager is down already")
            return
        down_ms = fault.get("down_ms", 0)
        self._record(fault, True, down_ms=down_ms, recovery=restarts.recovery)
        restarts.stop()
        self.cluster.kernel.schedule(down_ms, lambda _: restarts.start(), owner=rm.id)

    def _count_message(self, kind: str) -> None:
        self.counts[kind] += 1
