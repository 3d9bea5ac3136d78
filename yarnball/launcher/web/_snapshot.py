"""The RM's state as the REST API shows it: plain dicts in Hadoop's element names, read between kernel events.

Every function here reads the cluster and returns new plain data (dicts, lists, numbers, strings); nothing keeps a
reference into the live objects, so a :class:`Snapshot` taken while the kernel is paused stays what it was while the
run goes on. The shapes are the JAXB beans of ``RMWebServices`` (``ClusterInfo``, ``ClusterMetricsInfo``,
``CapacitySchedulerInfo``/``CapacitySchedulerQueueInfo``/``CapacitySchedulerLeafQueueInfo``/``UserInfo``,
``AppInfo``, ``AppAttemptInfo``, ``NodeInfo``; shared/reference/rest.md §3; the queue tree is in _schedulerinfo.py).
Timestamps are ms since the epoch:
the simulated clock plus the run's cluster timestamp (the ``application_<clusterTimestamp>_<seq>`` number).
"""

from __future__ import annotations

from typing import Any, Protocol

from yarnball._version import __version__
from yarnball.launcher.web._fairpage import app_fair_shares
from yarnball.launcher.web._nmview import node_managers
from yarnball.launcher.web._resources import r as _r
from yarnball.launcher.web._resources import resource_info
from yarnball.launcher.web._schedulerinfo import scheduler_info
from yarnball.protocols import NodeId, YarnApplicationState

__all__ = ["APP_STATES", "NODE_STATES", "Snapshot", "SnapshotView", "resource_info", "take_snapshot"]

#: YarnApplicationState, in Hadoop's declaration order (the /appstatistics listing order).
APP_STATES: tuple[str, ...] = tuple(s.value for s in YarnApplicationState)
#: NodeState names accepted by /nodes?states= (rest.md §3.8).
NODE_STATES: tuple[str, ...] = (
    "NEW",
    "RUNNING",
    "UNHEALTHY",
    "DECOMMISSIONING",
    "DECOMMISSIONED",
    "LOST",
    "REBOOTED",
    "SHUTDOWN",
)
_FINAL = frozenset({"FINISHED", "FAILED", "KILLED"})
_STATE_STORE = "org.apache.hadoop.yarn.server.resourcemanager.recovery.NullRMStateStore"
_VERSION = f"{__version__}-yarnball"
_BUILD = f"{_VERSION} (yarnball's simulated ResourceManager; no Hadoop build)"
_NM_HTTP_PORT = 8042  # yarn.nodemanager.webapp.address's default port


class SnapshotView(Protocol):
    """What the REST API and the web UI read of a snapshot: a :class:`Snapshot`, or a sharded cluster's
    (launcher/web/_shardsource.py ``RemoteSnapshot``, ``StartingSnapshot``)."""

    @property
    def generation(self) -> int: ...
    @property
    def done(self) -> bool: ...
    @property
    def now_ms(self) -> float: ...
    @property
    def opportunistic(self) -> bool: ...
    @property
    def cluster_info(self) -> dict[str, Any]: ...
    @property
    def metrics(self) -> dict[str, Any]: ...
    @property
    def scheduler(self) -> dict[str, Any]: ...
    @property
    def apps(self) -> dict[str, dict[str, Any]]: ...
    @property
    def attempts(self) -> dict[str, list[dict[str, Any]]]: ...
    @property
    def nodes(self) -> dict[str, dict[str, Any]]: ...
    @property
    def node_managers(self) -> dict[str, dict[str, Any]]: ...


class Snapshot:
    """The REST view of one paused moment of a run, as plain data.

    ``cluster_info``, ``metrics``, ``scheduler``, ``apps`` (id -> app), ``attempts`` (app id -> attempts),
    ``nodes`` (id -> node), plus ``now_ms`` (simulated), ``done`` (the run has ended) and ``opportunistic``.

    :func:`take_snapshot` computes every section at once. A *lazy* snapshot (``lazy=True``, what the live server
    uses) computes each section the first time it is read, so polling ``/metrics`` does not copy every application:
    it is valid only while the kernel stays where it was (between two slices, launcher/web/_driver.py); reading a
    section that was not computed yet after the kernel moved on raises instead of mixing two moments.
    """

    __slots__ = ("_cache", "_cluster", "_events", "_ts", "done", "generation", "now_ms", "opportunistic")

    def __init__(self, cluster: Any, *, generation: int = 0, done: bool = False, lazy: bool = False) -> None:
        rm = cluster.rm
        self._cluster = cluster
        self._ts = int(rm.cluster_timestamp)
        self._events = cluster.kernel.events_processed
        self._cache: dict[str, Any] = {}
        self.generation = generation
        self.done = done
        self.now_ms = float(cluster.kernel.now)
        self.opportunistic = rm.opportunistic is not None  # the Nodes page shows its (G)/(O) columns
        if not lazy:
            for name in ("nodes", "apps", "metrics", "scheduler", "cluster_info", "node_managers", "app_fair_shares"):
                self._section(name)
            self._cluster = None  # a complete snapshot keeps nothing of the cluster

    def _section(self, name: str) -> Any:
        cache = self._cache
        if name in cache:
            return cache[name]
        cluster = self._cluster
        if cluster is None or cluster.kernel.events_processed != self._events:
            raise RuntimeError(
                f"snapshot section {name!r} read after the kernel moved on from generation "
                f"{self.generation}; take a new snapshot"
            )
        rm = cluster.rm
        if name == "nodes":
            cache[name] = _nodes(cluster, self._ts)
        elif name in ("apps", "attempts"):
            cache["apps"], cache["attempts"] = _apps(cluster, self._ts, self.now_ms)
        elif name == "metrics":
            cache[name] = _metrics(cluster, self._queues())
        elif name == "scheduler":
            cache[name] = scheduler_info(cluster, self._queues(), preemption=rm.preemption_monitor is not None)
        elif name == "cluster_info":
            cache[name] = _cluster_info(self._ts)
        elif name == "node_managers":
            cache[name] = node_managers(cluster, self._ts, _VERSION, _BUILD)
        elif name == "app_fair_shares":
            cache[name] = app_fair_shares(rm.scheduler)
        return cache[name]

    def _queues(self) -> dict[str, Any]:
        if "_queues" not in self._cache:
            self._cache["_queues"] = {q.path: q for q in self._cluster.rm.scheduler.queue_metrics()}
        return self._cache["_queues"]

    @property
    def nodes(self) -> dict[str, dict[str, Any]]:
        return self._section("nodes")  # type: ignore[no-any-return]

    @property
    def apps(self) -> dict[str, dict[str, Any]]:
        return self._section("apps")  # type: ignore[no-any-return]

    @property
    def attempts(self) -> dict[str, list[dict[str, Any]]]:
        return self._section("attempts")  # type: ignore[no-any-return]

    @property
    def metrics(self) -> dict[str, Any]:
        return self._section("metrics")  # type: ignore[no-any-return]

    @property
    def scheduler(self) -> dict[str, Any]:
        return self._section("scheduler")  # type: ignore[no-any-return]

    @property
    def node_managers(self) -> dict[str, dict[str, Any]]:
        """node id -> that NodeManager's own view (launcher/web/_nmview.py, the NM REST API)."""
        return self._section("node_managers")  # type: ignore[no-any-return]

    @property
    def cluster_info(self) -> dict[str, Any]:
        return self._section("cluster_info")  # type: ignore[no-any-return]

    @property
    def app_fair_shares(self) -> dict[str, int]:
        """A FairScheduler run's applications held by the scheduler: id -> fair share MB (the scheduler page's
        Fair Share column, launcher/web/_fairpage.py); empty for another scheduler."""
        return self._section("app_fair_shares")  # type: ignore[no-any-return]


def take_snapshot(cluster: Any, *, generation: int = 0, done: bool = False, lazy: bool = False) -> Snapshot:
    """The REST view of ``cluster`` now (call it while the kernel is not running); see :class:`Snapshot`."""
    return Snapshot(cluster, generation=generation, done=done, lazy=lazy)


# -- /ws/v1/cluster/info ---------------------------------------------------------------------------------------------
def _cluster_info(ts: int) -> dict[str, Any]:
    """``ClusterInfo``: the RM started at the cluster timestamp and is STARTED/ACTIVE for the whole run."""
    return {
        "id": ts,
        "startedOn": ts,
        "state": "STARTED",
        "haState": "ACTIVE",
        "rmStateStoreName": _STATE_STORE,
        "resourceManagerVersion": _VERSION,
        "resourceManagerBuildVersion": _BUILD,
        "resourceManagerVersionBuiltOn": "N/A",
        "hadoopVersion": _VERSION,
        "hadoopBuildVersion": _BUILD,
        "hadoopVersionBuiltOn": "N/A",
        "haZooKeeperConnectionState": "ResourceManager HA is not enabled.",
    }


# -- /ws/v1/cluster/nodes --------------------------------------------------------------------------------------------
def _node_state(cluster: Any, nm: Any) -> str:
    rm = cluster.rm
    decommissioning = getattr(rm, "decommissioning", None)  # a graceful decommission (actors/_decommission.py)
    if decommissioning is not None and nm.node_id in decommissioning.draining:
        return "DECOMMISSIONING"
    if nm.node_id in rm.nodes:
        return "RUNNING"
    if nm.node_id in rm.lost_nodes:
        return "LOST"
    if getattr(nm, "decommissioned", False) or (
        decommissioning is not None and nm.node_id in decommissioning.decommissioned
    ):
        return "DECOMMISSIONED"
    return "NEW"  # started, not registered yet


def _nodes(cluster: Any, ts: int) -> dict[str, dict[str, Any]]:
    """``NodeInfo`` per NodeManager, in node-id order; the (G) usage from the scheduler's node, the (O) usage from
    the NM's last OpportunisticContainersStatus (0 when opportunistic containers are off)."""
    rm = cluster.rm
    scheduler = rm.scheduler
    statuses = rm.opportunistic.node_status if rm.opportunistic is not None else {}
    out: dict[str, dict[str, Any]] = {}
    nms = sorted(cluster.node_managers.values(), key=lambda nm: (nm.node_id.host, nm.node_id.port))
    for nm in nms:
        node_id: NodeId = nm.node_id
        state = _node_state(cluster, nm)
        total_m, total_v = nm.resource.memory_mb, nm.resource.vcores
        sched_node = scheduler.nodes.get(node_id) if state in ("RUNNING", "DECOMMISSIONING") else None
        if sched_node is not None:
            used_m = sched_node.total_m - sched_node.unalloc_m
            used_v = sched_node.total_v - sched_node.unalloc_v
            num = len(sched_node.containers)
        else:
            used_m = used_v = num = 0
        rmnode = rm.nodes.get(node_id)
        last = 0
        if rmnode is not None:
            beat = rmnode.last_heartbeat
            clock = rm.heartbeats
            if clock is not None:  # a dormant NM's skipped heartbeats count (actors/_heartbeats.py)
                beat = clock.last_heartbeat(node_id, beat)
            last = ts + int(beat)
        s = statuses.get(node_id)
        opp_run = s.running_opport_containers if s is not None else 0
        opp_mem = s.opport_memory_used if s is not None else 0
        opp_cores = s.opport_cores_used if s is not None else 0
        queued = s.queued_opport_containers if s is not None else 0
        key = str(node_id)
        out[key] = {
            "rack": nm.rack,
            "state": state,
            "id": key,
            "nodeHostName": node_id.host,
            "nodeHTTPAddress": f"{node_id.host}:{_NM_HTTP_PORT}" if state != "LOST" else "",
            "lastHealthUpdate": last,
            "version": _VERSION,
            "healthReport": "",
            "numContainers": num,
            "usedMemoryMB": used_m,
            "availMemoryMB": total_m - used_m if state == "RUNNING" else 0,
            "usedVirtualCores": used_v,
            "availableVirtualCores": total_v - used_v if state == "RUNNING" else 0,
            "memUtilization": _r(used_m / total_m) if total_m else 0.0,
            "cpuUtilization": _r(used_v / total_v) if total_v else 0.0,
            "numRunningOpportContainers": opp_run,
            # NodeInfo.usedMemoryOpportGB: the NM reports MB; Hadoop's field name keeps "GB" (rest.md §3.8)
            "usedMemoryOpportGB": opp_mem,
            "usedVirtualCoresOpport": opp_cores,
            "numQueuedContainers": queued,
            "nodeLabels": sorted(getattr(nm, "labels", ()) or ()),
            "allocationTags": {},
            "resourceUtilization": {
                "nodePhysicalMemoryMB": used_m,
                "nodeVirtualMemoryMB": used_m,
                "nodeCPUUsage": _r(used_v / total_v) if total_v else 0.0,
                "aggregatedContainersPhysicalMemoryMB": used_m,
                "aggregatedContainersVirtualMemoryMB": used_m,
                "containersCPUUsage": _r(used_v / total_v) if total_v else 0.0,
            },
            "usedResource": resource_info(used_m, used_v),
            "availableResource": resource_info(total_m - used_m, total_v - used_v),
            "totalResource": resource_info(total_m, total_v),
            "nodeAttributesInfo": {},
        }
    return out


# -- /ws/v1/cluster/apps ---------------------------------------------------------------------------------------------
def _apps(cluster: Any, ts: int, now_ms: float) -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """``AppInfo`` and ``AppAttemptInfo`` per application, in application-id order."""
    rm = cluster.rm
    scheduler = rm.scheduler
    total = scheduler.cluster_resource
    queue_caps = {q.path: q for q in scheduler.queue_metrics()}
    apps: dict[str, dict[str, Any]] = {}
    attempts: dict[str, list[dict[str, Any]]] = {}
    for app_id, app in sorted(rm.apps.items(), key=lambda kv: (kv[0].cluster_timestamp, kv[0].id)):
        key = str(app_id)
        state = app.state.value
        done = state in _FINAL
        attempt = app.current_attempt
        sched = scheduler.attempts.get(attempt.attempt_id) if attempt is not None else None
        used_m = sched.used_m if sched is not None else 0
        used_v = sched.used_v if sched is not None else 0
        res_m = sched.reserved_m if sched is not None else 0
        res_v = sched.reserved_v if sched is not None else 0
        running = len(sched.live) if sched is not None else 0
        am = attempt.am_container if attempt is not None else None
        started = ts + int(app.start_time)
        finished = ts + int(app.finish_time) if app.finish_time is not None else 0
        elapsed = int((app.finish_time if app.finish_time is not None else now_ms) - app.start_time)
        leaf = queue_caps.get(app.queue) or queue_caps.get(f"root.{app.queue}") or _leaf_named(queue_caps, app.queue)
        queue_total_m = leaf.effective_min.memory_mb if leaf is not None else 0
        m = app.app_metrics(now_ms)  # RMAppImpl.getRMAppMetrics (actors/_rmapp.py)
        if state in ("NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED"):
            tracking_ui = "UNASSIGNED"
        else:
            tracking_ui = "History" if done else "ApplicationMaster"
        apps[key] = {
            "id": key,
            "user": app.user,
            "name": app.context.application_name,
            "queue": app.queue,
            "state": state,
            "finalStatus": app.final_status.value,
            "progress": 100.0 if done else 0.0,
            "trackingUI": tracking_ui,
            # the web proxy's path (RMAppAttemptImpl.generateProxyUriWithScheme): the REST layer puts the address the
            # server runs on in front of it (launcher/web/_rest.py), as the RM's proxy URL has its webapp address
            "trackingUrl": f"/proxy/{key}/" if tracking_ui != "UNASSIGNED" else "",
            "diagnostics": app.diagnostics or "",
            "clusterId": ts,
            "applicationType": app.context.application_type,
            "applicationTags": ",".join(app.context.application_tags),
            "priority": int(app.context.priority.priority),
            "startedTime": started,
            "launchTime": ts + int(app.launch_time) if app.launch_time is not None else 0,
            "finishedTime": finished,
            "elapsedTime": elapsed,
            "amContainerLogs": f"http://{am.node_id.host}:{_NM_HTTP_PORT}/node/containerlogs/{am.id}/{app.user}"
            if am is not None
            else "",
            "amHostHttpAddress": f"{am.node_id.host}:{_NM_HTTP_PORT}" if am is not None else "",
            "amRPCAddress": "N/A",
            "masterNodeId": str(am.node_id) if am is not None else "",
            # AppInfo: -1 once the application is done (RMAppImpl reports no usage then)
            "allocatedMB": -1 if done else used_m,
            "allocatedVCores": -1 if done else used_v,
            "reservedMB": -1 if done else res_m,
            "reservedVCores": -1 if done else res_v,
            "runningContainers": -1 if done else running,
            "memorySeconds": m.memory_seconds,
            "vcoreSeconds": m.vcore_seconds,
            "queueUsagePercentage": _r(100.0 * used_m / queue_total_m) if queue_total_m and not done else 0.0,
            "clusterUsagePercentage": _r(100.0 * used_m / total.memory_mb) if total.memory_mb and not done else 0.0,
            "preemptedResourceMB": m.preempted_mb,
            "preemptedResourceVCores": m.preempted_vcores,
            "numNonAMContainerPreempted": m.num_non_am_preempted,
            "numAMContainerPreempted": m.num_am_preempted,
            "preemptedMemorySeconds": m.preempted_memory_seconds,
            "preemptedVcoreSeconds": m.preempted_vcore_seconds,
            "resourceSecondsMap": _seconds_map(m.resource_seconds),
            "preemptedResourceSecondsMap": _seconds_map(m.preempted_resource_seconds),
            "logAggregationStatus": "DISABLED",
            "unmanagedApplication": bool(app.context.unmanaged_am),
            "appNodeLabelExpression": app.context.node_label_expression,
            "amNodeLabelExpression": app.context.node_label_expression,
            "resourceRequests": _resource_requests(sched),
            "timeouts": {"timeout": [{"type": "LIFETIME", "expiryTime": "UNLIMITED", "remainingTimeInSeconds": -1}]},
            "resourceInfo": {},
        }
        attempts[key] = [_attempt(a, ts, app) for a in app.attempts]
    return apps, attempts


def _seconds_map(seconds: dict[str, int]) -> dict[str, Any]:
    """A ``Map<String, Long>`` of AppInfo as JAXB writes it: ``{"entry": [{"key", "value"}, ...]}``, ``{}`` when
    empty; the values are strings (the map's values are untyped to JAXB: the RM sends ``"value":"63"``)."""
    if not seconds:
        return {}
    return {"entry": [{"key": k, "value": str(v)} for k, v in seconds.items()]}


def _leaf_named(queues: dict[str, Any], name: str) -> Any:
    for q in queues.values():
        if q.is_leaf and q.queue_name == name:
            return q
    return None


def _resource_requests(sched: Any) -> list[dict[str, Any]]:
    """The attempt's outstanding ANY asks (``ResourceRequestInfo``), by scheduler key."""
    if sched is None:
        return []
    out: list[dict[str, Any]] = []
    for key in sorted(sched.keys):  # (not keys_in_order: a snapshot leaves even the scheduler's caches alone)
        ka = sched.keys[key]
        if ka.any_count <= 0:
            continue
        out.append(
            {
                "capability": {"memory": int(ka.cap_m), "virtualCores": int(ka.cap_v)},
                "nodeLabelExpression": "",
                "numContainers": int(ka.any_count),
                "priority": {"priority": int(ka.priority.priority)},
                "relaxLocality": bool(ka.any_relax),
                "resourceName": "*",
            }
        )
    return out


def _attempt(attempt: Any, ts: int, app: Any) -> dict[str, Any]:
    am = attempt.am_container
    node = am.node_id if am is not None else None
    # RMAppAttempt's start is the application's start for the first attempt; yarnball does not keep a separate
    # attempt start, so later attempts start at the launch of their AM (0 when never launched).
    first = attempt is app.attempts[0]
    start = ts + int(app.start_time) if first else (ts + int(app.launch_time) if app.launch_time is not None else 0)
    finished = ts + int(app.finish_time) if attempt.is_done and app.finish_time is not None else 0
    return {
        "id": int(attempt.attempt_id.attempt_id),
        "appAttemptId": str(attempt.attempt_id),
        "startTime": start,
        "finishedTime": finished,
        "containerId": str(am.id) if am is not None else "",
        "nodeId": str(node) if node is not None else "",
        "nodeHttpAddress": f"{node.host}:{_NM_HTTP_PORT}" if node is not None else "",
        "logsLink": f"http://{node.host}:{_NM_HTTP_PORT}/node/containerlogs/{am.id}/{app.user}"
        if am is not None and node is not None
        else "",
        "blacklistedNodes": "",
        "nodesBlacklistedBySystem": "",
        "appAttemptState": attempt.state.value,
        "exportPorts": "",
    }


# -- /ws/v1/cluster/metrics ------------------------------------------------------------------------------------------
def _metrics(cluster: Any, queues: dict[str, Any]) -> dict[str, Any]:
    """``ClusterMetricsInfo`` (CapacityScheduler: totalMB = available + allocated + reserved)."""
    rm = cluster.rm
    c = rm.counters
    root = queues.get("root")
    total = rm.scheduler.cluster_resource
    alloc_m = root.allocated.memory_mb if root is not None else 0
    alloc_v = root.allocated.vcores if root is not None else 0
    res_m = root.reserved.memory_mb if root is not None else 0
    res_v = root.reserved.vcores if root is not None else 0
    pend_m = root.pending.memory_mb if root is not None else 0
    pend_v = root.pending.vcores if root is not None else 0
    states = [app.state.value for app in rm.apps.values()]
    by_node_state = dict.fromkeys(NODE_STATES, 0)
    for nm in cluster.node_managers.values():
        by_node_state[_node_state(cluster, nm)] += 1
    reserved_containers = sum(1 for n in rm.scheduler.nodes.values() if n.reserved is not None)
    pending_containers = sum(
        ka.any_count for sched in rm.scheduler.attempts.values() for ka in sched.keys.values() if ka.any_count > 0
    )
    live = len(rm.live)
    counted = ("RUNNING", "DECOMMISSIONING", "DECOMMISSIONED", "LOST", "UNHEALTHY", "REBOOTED", "SHUTDOWN")
    return {
        "appsSubmitted": int(c["apps_submitted"]),
        "appsCompleted": int(c["apps_finished"]),
        "appsPending": sum(1 for s in states if s in ("NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED")),
        "appsRunning": sum(1 for s in states if s == "RUNNING"),
        "appsFailed": int(c["apps_failed"]),
        "appsKilled": int(c["apps_killed"]),
        "reservedMB": res_m,
        "availableMB": total.memory_mb - alloc_m - res_m,
        "allocatedMB": alloc_m,
        "totalMB": total.memory_mb,
        "reservedVirtualCores": res_v,
        "availableVirtualCores": total.vcores - alloc_v - res_v,
        "allocatedVirtualCores": alloc_v,
        "totalVirtualCores": total.vcores,
        "containersAllocated": live,
        "containersReserved": reserved_containers,
        "containersPending": pending_containers,
        "totalNodes": sum(by_node_state[s] for s in counted),  # ClusterMetricsInfo: the seven per-state counts
        "activeNodes": by_node_state["RUNNING"],
        "lostNodes": by_node_state["LOST"],
        "unhealthyNodes": by_node_state["UNHEALTHY"],
        "decommissioningNodes": by_node_state["DECOMMISSIONING"],
        "decommissionedNodes": by_node_state["DECOMMISSIONED"],
        "rebootedNodes": by_node_state["REBOOTED"],
        "shutdownNodes": by_node_state["SHUTDOWN"],
        "pendingMB": pend_m,
        "pendingVirtualCores": pend_v,
        # Simulated containers use exactly what they were allocated, so "utilised" is the allocated share.
        "utilizedMBPercent": int(100 * alloc_m / total.memory_mb) if total.memory_mb else 0,
        "utilizedVirtualCoresPercent": int(100 * alloc_v / total.vcores) if total.vcores else 0,
        "rmSchedulerBusyPercent": -1,
        "totalUsedResourcesAcrossPartition": resource_info(alloc_m, alloc_v),
        "totalClusterResourcesAcrossPartition": resource_info(total.memory_mb, total.vcores),
        "totalReservedResourcesAcrossPartition": resource_info(res_m, res_v),
        "totalAllocatedContainersAcrossPartition": live,
        "crossPartitionMetricsAvailable": True,
    }
