"""The NodeManager's RPCs under message faults: node heartbeats (NM <-> RM) and container calls (AM -> NM).

yarnball's ordinary path takes two shortcuts Hadoop does not: an NM heartbeat carries only the container statuses
that changed since the previous one, and the RM does not check the heartbeat's response id. Both are exact while
every message arrives once and in order. A run with a message fault on an NM link (launcher/_faultinjector.py)
switches these objects on, and with them Hadoop's rules:

**The heartbeat call at the NM**: ``NodeStatusUpdaterImpl``'s under these rules (actors/_nodestatusupdater.py),
retried after :func:`nm_retry_interval_ms`.

**At the RM** (``ResourceTrackerService.nodeHeartbeat``, step 3): a heartbeat whose response id + 1 is the last
response's id is a duplicate ("Received duplicate heartbeat from node"): the last response is returned again and
nothing is processed. Any other id that is not the last response's is "Too far behind rm response id:<rm> nm
response id:<nm>": the node is REBOOTING (``RMNodeImpl`` deactivates it as REBOOTED: NODE_REMOVED, whose containers
the scheduler ends as lost) and the answer is RESYNC. Each processed heartbeat's response acknowledges the
completed containers it reported (``containers_to_be_removed_from_nm``). Hadoop acknowledges a completion only once
the AM has pulled it (``RMAppAttemptImpl.sendFinishedContainersToNM``); here the RM acknowledges what it has
recorded, which is what the NM's resending protects.

**Container calls at the AM** (``NMClientAsyncImpl`` over ``NMProxy``): a StartContainers or StopContainers call
that gets no answer is retried, unchanged, every ``yarn.client.nodemanager-connect.retry-interval-ms`` (10000)
until ``yarn.client.nodemanager-connect.max-wait-ms`` (180000) has passed, then fails: the AM hears
``onStartContainerError`` (``ApplicationMaster.on_start_container_error``: an SLS AM releases the container and
runs the task again, as MapReduce's ContainerLauncherImpl does; an AM that keeps it leaves it to the RM's
``yarn.resourcemanager.rm.container-allocation.expiry-interval-ms``, which reclaims a container never started). A
second answer to one call is dropped. At the NM a start of a container id it already started is refused
(``ContainerManagerImpl.authorizeStartAndResourceIncreaseRequest``: "Attempt to relaunch the same container"), and a
stop of a container that already completed succeeds (``isContainerRecentlyStopped``).
"""

from __future__ import annotations

from typing import Any

import msgspec

from yarnball.protocols import (
    ContainerId,
    ContainerState,
    NodeAction,
    NodeHeartbeatResponse,
    NodeRemovedSchedulerEvent,
    keys,
)
from yarnball.protocols._containermanagement import FailedContainerRequest

__all__ = [
    "TOO_FAR_BEHIND",
    "ContainerCalls",
    "NodeCalls",
    "NodeHeartbeatRules",
    "nm_client_timing",
    "nm_retry_interval_ms",
]

_COMPLETE = ContainerState.COMPLETE
_NORMAL = NodeAction.NORMAL
TOO_FAR_BEHIND = "Too far behind rm response id:"


def nm_retry_interval_ms(conf: Any) -> int:
    """``yarn.nodemanager.resourcemanager.connect.retry-interval.ms``, defaulting to the RM client's interval."""
    rm_interval = conf.get_int(keys.RM_CONNECT_RETRY_INTERVAL_MS, keys.DEFAULT_RM_CONNECT_RETRY_INTERVAL_MS)
    return int(conf.get_long(keys.NM_RM_CONNECT_RETRY_INTERVAL_MS, rm_interval))


# -- the NM -----------------------------------------------------------------------------------------------------
class NodeCalls:
    """An NM's memory for repeated AM calls: the containers it started (NMContainerTokenSecretManager's
    recentlyStartedContainerTracker) and those that ended (NodeStatusUpdaterImpl.recentlyStoppedContainers)."""

    __slots__ = ("started", "stopped")

    def __init__(self) -> None:
        self.started: set[ContainerId] = set()
        self.stopped: set[ContainerId] = set()

    def relaunch(self, cid: ContainerId) -> FailedContainerRequest | None:
        """The refusal of a second start of ``cid`` (authorizeStartAndResourceIncreaseRequest), or None."""
        if cid not in self.started:
            self.started.add(cid)
            return None
        return FailedContainerRequest(
            container_id=cid,
            diagnostics=(
                f"Unauthorized request to start container. \n Attempt to relaunch the same container with id {cid}."
            ),
        )


# -- the RM -----------------------------------------------------------------------------------------------------
class NodeHeartbeatRules:
    """ResourceTrackerService.nodeHeartbeat's response-id checks, and the acknowledgement of completions."""

    __slots__ = ("last", "rm")

    def __init__(self, rm: Any) -> None:
        self.rm = rm
        self.last: dict[Any, NodeHeartbeatResponse] = {}  # node -> RMNodeImpl.getLastNodeHeartBeatResponse()

    def intercept(self, next_heartbeat: Any) -> Any:
        """These rules as the outermost member of ResourceTrackerService's heartbeat chain: each processed
        heartbeat's response acknowledges its completions and is kept as the node's last (:meth:`processed`);
        the service's message handler asks :meth:`old_heartbeat` first."""
        processed = self.processed

        def process(node_id: Any, statuses: Any, status: Any = None) -> Any:
            return processed(node_id, next_heartbeat(node_id, statuses, status), statuses)

        return process

    def old_heartbeat(self, node_id: Any, response_id: int) -> NodeHeartbeatResponse | None:
        """The answer to a heartbeat that is not a fresh one (a duplicate, or too far behind), None for a fresh one.
        A node the RM does not know is left to the ordinary path ("Node not found resyncing")."""
        rm = self.rm
        node = rm.nodes.get(node_id)
        if node is None or response_id == node.response_id:
            return None
        node.last_heartbeat = rm.kernel.now  # NMLivelinessMonitor.receivedPing comes before the check
        last = self.last.get(node_id)
        if last is not None and response_id + 1 == node.response_id:
            rm.counters["node_heartbeat_duplicates"] += 1
            rm.log.info("node_heartbeat_duplicate", node=str(node_id), response_id=response_id)
            return last
        message = f"{TOO_FAR_BEHIND}{node.response_id} nm response id:{response_id}"
        rm.counters["nodes_rebooted"] += 1
        rm.log.warning("node_rebooted", node=str(node_id), diagnostics=message)
        # RMNodeEventType.REBOOTING: DeactivateNodeTransition(NodeState.REBOOTED)
        del rm.nodes[node_id]
        self.last.pop(node_id, None)
        if rm.opportunistic is not None:
            rm.opportunistic.on_node_removed(node_id)
        rm.dispatch(NodeRemovedSchedulerEvent(node_id=node_id))
        return NodeHeartbeatResponse(node_action=NodeAction.RESYNC, diagnostics_message=message)

    def processed(self, node_id: Any, response: Any, statuses: Any) -> NodeHeartbeatResponse:
        """The response to a processed heartbeat, acknowledging the completions it reported; kept as the node's last
        response (``RMNodeImpl.setAndUpdateNodeHeartbeatResponse``)."""
        rm = self.rm
        # Only a processed heartbeat acknowledges: "Node not found resyncing" (a restarted RM, an expired node) is
        # ResourceTrackerService's early answer, before the statuses are looked at; the NM registers with them then.
        acked = tuple(s.container_id for s in statuses or () if s.state is _COMPLETE)
        if acked and response.node_action is _NORMAL:
            response = msgspec.structs.replace(response, containers_to_be_removed_from_nm=acked)
        if response.node_action is _NORMAL and node_id in rm.nodes:
            self.last[node_id] = response
        else:
            self.last.pop(node_id, None)
        return response  # type: ignore[no-any-return]


# -- the AM -----------------------------------------------------------------------------------------------------
class _Call:
    __slots__ = ("container", "first", "kind", "nm_id", "request", "timer")

    def __init__(self, kind: str, container: Any, nm_id: str, request: Any, first: float) -> None:
        self.kind = kind
        self.container = container
        self.nm_id = nm_id
        self.request = request
        self.first = first
        self.timer: Any = None


class ContainerCalls:
    """One AM's NMClient: its start and stop calls in flight, by container, retried until answered or failed."""

    __slots__ = ("am", "calls", "max_wait_ms", "retry_ms")

    def __init__(self, am: Any, retry_ms: float, max_wait_ms: float) -> None:
        self.am = am
        self.retry_ms = retry_ms
        self.max_wait_ms = max_wait_ms
        self.calls: dict[tuple[str, ContainerId], _Call] = {}

    def sent(self, kind: str, container: Any, nm_id: str, request: Any) -> None:
        """``kind`` ("start" or "stop") of ``container`` went to ``nm_id``: answered, retried, or failed later."""
        key = (kind, container.id)
        old = self.calls.pop(key, None)
        if old is not None and old.timer is not None:
            old.timer.cancel()
        call = self.calls[key] = _Call(kind, container, nm_id, request, self.am.now)
        call.timer = self.am.after(self.retry_ms, lambda: self._retry(key))

    def _retry(self, key: tuple[str, ContainerId]) -> None:
        call = self.calls.get(key)
        am = self.am
        if call is None:
            return
        call.timer = None
        if am.now - call.first >= self.max_wait_ms:
            del self.calls[key]
            diagnostics = (
                f"Failed to {call.kind} container {call.container.id} on {call.container.node_id}: no answer within "
                f"{keys.CLIENT_NM_CONNECT_MAX_WAIT_MS}={int(self.max_wait_ms)}"
            )
            if call.kind == "start":
                am.on_start_container_error(call.container.id, diagnostics)
            else:
                am.log.warning("container_stop_failed", container=str(call.container.id), diagnostics=diagnostics)
            return
        am.log.info("container_call_retried", call=call.kind, container=str(call.container.id))
        call.timer = am.after(self.retry_ms, lambda: self._retry(key))
        am.kernel.lookup(call.nm_id).tell(call.request, am.ref)

    def answered(self, kind: str, ok: Any, failed: Any) -> tuple[list[Any], list[FailedContainerRequest]]:
        """The parts of a response that answer calls in flight (the rest answer calls already answered: dropped),
        as (succeeded container ids, failed requests); those calls are done."""
        taken_ok = [cid for cid in ok if self._take(kind, cid)]
        taken_failed = [f for f in failed if self._take(kind, f.container_id)]
        return taken_ok, taken_failed

    def _take(self, kind: str, cid: ContainerId) -> bool:
        call = self.calls.pop((kind, cid), None)
        if call is None:
            return False
        if call.timer is not None:
            call.timer.cancel()
        return True

    def reset(self) -> None:
        for call in self.calls.values():
            if call.timer is not None:
                call.timer.cancel()
        self.calls.clear()


def nm_client_timing(conf: Any) -> tuple[int, int]:
    """(retry interval, max wait) of NMProxy's retry policy, from ``conf``."""
    retry = conf.get_long(keys.CLIENT_NM_CONNECT_RETRY_INTERVAL_MS, keys.DEFAULT_CLIENT_NM_CONNECT_RETRY_INTERVAL_MS)
    wait = conf.get_long(keys.CLIENT_NM_CONNECT_MAX_WAIT_MS, keys.DEFAULT_CLIENT_NM_CONNECT_MAX_WAIT_MS)
    return int(retry), int(wait)
