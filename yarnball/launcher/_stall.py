"""A run that can never progress stops by itself, and says why.

When no request fits any node (``yarn.sls.nm.memory.mb=12``), YARN waits for ever: heartbeats go on, the clock
ticks, nothing happens. ``Cluster.run()`` without ``until_ms`` runs the kernel in slices of
:data:`CHECK_INTERVAL_MS` of simulated time (slicing does not change a run: launcher/web/_driver.py) and looks,
between two slices, at whether the run is stuck:

- nothing is running or allocated (the RM's live containers), and no NodeManager holds a container (queued or
  running): no release can make room; or all that is live is the AM containers of registered attempts that are
  blocked for ever (below), each holding nothing else;
- every submitted application has been submitted (a job waiting for its submit time is progress to come);
- every unfinished application has an attempt whose every pending ask is larger than the largest node of the
  cluster (every node ever defined, registered or not, labels ignored), or than its leaf queue could ever hold
  (``abs_max`` of the whole cluster; memory always, vcores under the DominantResourceCalculator), or does not relax
  locality to ``*`` and names no place a scheduler would put it (a node whose host and rack both have an ask, or
  whose rack has one that relaxes locality: Hadoop's ``RegularContainerAllocator.canAssign``, which a node-local ask
  without one for its rack never passes);
- an attempt whose AM runs and that has no pending ask is blocked when the RM refused its last asks (larger than
  the maximum allocation: the dispatcher's ``refused_asks``) and it has asked nothing since, or when its AM waits
  for container requests it has sent (nothing left to send) that the scheduler no longer holds: the scheduler keeps
  one ask per priority and resource name (Hadoop's AppSchedulingInfo), so asks that differ only in execution type
  replace each other there, and without opportunistic allocation nothing else holds them (with it, the RM's
  opportunistic allocator holds the OPPORTUNISTIC ones: a whole slice in which it allocated nothing while nothing
  ran, as below, says it never will, as when no NodeManager queues one); any other attempt without a pending ask
  has something on its way;
- when AM containers are live, an unfinished application whose asks would fit is waiting behind the blocked ones
  (the AM room they hold, a user limit their asks exhaust), provided one at least is blocked and nothing was
  allocated in the slice;
- and the asks, the applications, the live AM containers, the count of allocated containers and the state above
  were the same at the check one slice earlier (an AM that changes its asks, a message in flight, is progress).

An AM with a timer of its own that would withdraw an impossible ask much later than a slice cannot be told from
one that never will: SLS's AMs and Hadoop's MapReduce AM never do (yarnball's SLS AMs refuse such a job when they
register, actors/_slsam.py).

Runs that may add capacity or change limits later are never judged: a live cluster, an autoscaler, scheduled
faults or node restarts, a queue refresh still to come. The check reads a few dictionaries once per slice, never
per event. What blocks the run is kept on ``Cluster.stalled`` (and in summary.json ``errors.stalled``); the CLI then
exits 3 with it.
"""

from __future__ import annotations

from typing import Any, Final

from yarnball.actors._rmapp import AttemptState
from yarnball.protocols import ExecutionType, Resource, keys

__all__ = ["CHECK_INTERVAL_MS", "StallWatch", "can_stall_check"]

#: Simulated time between two looks at a run (a stuck run stops within two of them).
CHECK_INTERVAL_MS: Final = 60_000.0


#: Why an ask that does not relax locality and names no place a scheduler would put it is never given.
_NO_PLACE: Final = (
    "but no node can take it: a container goes on a node only with an ask for the node's rack "
    "(RegularContainerAllocator.canAssign), and the ask for * does not relax locality"
)


def _resource(memory: int, vcores: int) -> str:
    """Hadoop's ``Resource.toString``."""
    return f"<memory:{memory}, vCores:{vcores}>"


def can_stall_check(cluster: Any, until_ms: float | None) -> bool:
    """Whether a run of ``cluster`` is watched: one without an end of its own (``until_ms`` stops it anyway), where
    a stall can be told from a run still to progress (see the module docstring)."""
    return until_ms is None and not cluster.live and cluster.autoscaler is None


class StallWatch:
    """Looks at a cluster between kernel slices; :meth:`check` returns why it is stuck, once it has been stuck for
    a whole slice, else None."""

    __slots__ = ("cluster", "drf", "previous")

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.drf = cluster.conf.get(keys.RESOURCE_CALCULATOR_CLASS, "") == keys.DOMINANT_RESOURCE_CALCULATOR_CLASS
        self.previous: tuple[Any, ...] | None = None

    def check(self) -> str | None:
        """The reason the run cannot progress, or None."""
        blocked = self._blocked()
        if blocked is None:
            self.previous = None
            return None
        state, reason = blocked
        stuck = state == self.previous
        self.previous = state
        return reason if stuck else None

    def _blocked(self) -> tuple[tuple[Any, ...], str] | None:
        cluster = self.cluster
        rm = cluster.rm
        if cluster.faults is not None or cluster.node_restarts or cluster.kernel.now < cluster.refresh_until_ms:
            return None
        feed = getattr(cluster, "job_feed", None)
        if any(am.application_id is None for am in cluster.masters) or (feed is not None and feed.pending):
            return None  # a job still to be submitted
        unfinished = [app for app in rm.apps.values() if not app.is_done]
        if not unfinished or not cluster.node_managers:
            return None
        holders = _am_holders(cluster)
        if holders is None:
            return None  # something runs (or is allocated, or queued at a node) that may end and make room
        refused = rm.dispatcher.refused_asks
        masters = {am.attempt_id: am for am in cluster.masters}
        scheduler = cluster.scheduler
        specs = [nm.resource for nm in cluster.node_managers.values()]
        largest_host, largest = max(
            ((host, nm.resource) for host, nm in cluster.node_managers.items()),
            key=lambda hr: (hr[1].memory_mb, hr[1].vcores),
        )
        total_m = sum(r.memory_mb for r in specs)
        total_v = sum(r.vcores for r in specs)
        labelled = any(nm.labels for nm in cluster.node_managers.values())
        places = [(nm.node_id.host, nm.rack) for nm in cluster.node_managers.values()]
        node_m, node_v = max(r.memory_mb for r in specs), max(r.vcores for r in specs)
        state: list[Any] = [tuple(sorted(map(str, holders))), rm.counters["containers_allocated"]]
        first: tuple[Any, str, str] | None = None  # the first blocked application, its queue and what blocks it
        blocked = waiting = 0
        for app in unfinished:
            sched_app = scheduler.applications.get(app.id)
            attempt = sched_app.attempt if sched_app is not None else None
            if attempt is None:
                return None  # an attempt on its way
            holder = attempt.attempt_id in holders
            asks = [
                (ka.cap_m, ka.cap_v, ka.any_count, f"at priority {ka.priority.priority}", ka.key, _strict(ka, places))
                for ka in attempt.keys.values()
                if ka.any_count > 0
            ]
            if not asks and not attempt.am_running:
                # the AM container, whose ask the scheduler refused (an invalid_resource_request warning)
                asks = [(attempt.am_m, attempt.am_v, 1, "for its AM container", None, None)]
            if not asks:
                error = refused.get(attempt.attempt_id) if holder else None
                if error is not None:
                    # its AM runs, and the RM refused what it asked (larger than the maximum allocation): an AM
                    # that does not ask again differently (the state below would change) waits for ever
                    detail = f"had its ask refused: {error}"
                else:
                    am = masters.get(attempt.attempt_id) if holder else None
                    waits = am.pending_by_priority if am is not None and am.has_nothing_to_send() else None
                    if not waits:
                        return None  # no pending ask: something is on its way (an allocate)
                    # its AM has sent all it asks for, and the scheduler holds none of it: it waits for ever
                    error = repr(waits)
                    detail = _unheld(waits, rm.opportunistic is not None, cluster.conf)
                state.append((attempt.attempt_id, error))
                blocked += 1
                if first is None:
                    first = (app, scheduler.queue_path_of(attempt), detail)
                continue
            queue = scheduler.queue_path_of(attempt)
            queue_max = scheduler.queue_max_resource_of(attempt, Resource(total_m, total_v))
            queue_m, queue_v = queue_max.memory_mb, queue_max.vcores
            fits = False
            mine: str | None = None  # its first ask never given, and why (only while no application is named)
            for memory, vcores, count, what, key, strict in asks:
                too_big_for_node = memory > node_m or (self.drf and vcores > node_v)
                too_big_for_queue = not labelled and (memory > queue_m or (self.drf and vcores > queue_v))
                state.append((attempt.attempt_id, key, memory, vcores, count, strict))
                if not (too_big_for_node or too_big_for_queue or strict):
                    fits = True  # it fits somewhere, some day
                elif mine is None and first is None:
                    ask = f"asks for {count} x {_resource(memory, vcores)} {what}"
                    if too_big_for_node:
                        limit = f"the largest node, {largest_host}, has {_resource(largest.memory_mb, largest.vcores)}"
                        mine = f"{ask}, but {limit}"
                    elif too_big_for_queue:
                        mine = f"{ask}, but queue {queue} may hold at most {_resource(queue_m, queue_v)}"
                    else:  # it fits, but no node can take it where it asks
                        mine = f"{ask} only on {strict}, {_NO_PLACE}"
            if not fits:
                blocked += 1
                if first is None and mine is not None:
                    first = (app, queue, mine)
            elif not holders:
                return None  # it may get what it asks for
            else:
                # it fits, but nothing runs that could end and make room but the AM containers of the applications
                # that wait for ever, and nothing was given for a whole slice: it waits behind them (the AM room
                # they hold, a user limit their asks exhaust)
                waiting += 1
        if first is None:
            return None  # no application blocked for ever: those waiting wait for something else
        app, queue, what = first
        detail = f"{app.id} (queue {queue}) {what}"
        others = blocked - 1
        notes = [f"{others} other application{'s' if others != 1 else ''} blocked alike"] if others else []
        if waiting:
            notes.append(f"{waiting} waiting behind them")
        if holders:
            lead = (
                "no application can progress: all that runs is the AM containers of applications whose every "
                "pending ask is larger than any node or queue can ever give, was refused, or is given by nothing; "
            )
        else:
            lead = (
                "no application can progress: nothing runs or is queued at a node, and every pending ask is larger "
                "than any node or queue can ever give; "
            )
        reason = lead + detail + (f" ({', '.join(notes)})" if notes else "")
        return tuple(state), reason


def _unheld(waits: dict[tuple[int, ExecutionType], int], opportunistic: bool, conf: Any) -> str:
    """Why an AM's sent requests are held by no one (``waits``: their counts by priority and execution type)."""
    count = sum(waits.values())
    at = ", ".join(f"{n} {etype.value} at priority {priority}" for (priority, etype), n in waits.items())
    head = f"has its AM waiting for {count} container request{'s' if count != 1 else ''} ({at})"
    if not opportunistic:
        return (
            f"{head} that the scheduler holds no ask for (it keeps one ask per priority and resource name: asks "
            "that differ only in execution type replace each other)"
        )
    why = ""
    key = keys.NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH
    if any(etype is ExecutionType.OPPORTUNISTIC for _, etype in waits) and conf.get_int(key) <= 0:
        why = f" ({key} is {conf.get_int(key)}: no NodeManager queues an OPPORTUNISTIC container)"
    return f"{head} that nothing allocated for a whole check interval while nothing else ran{why}"


def _strict(ka: Any, places: list[tuple[str, str]]) -> str | None:
    """What a pending ask that does not relax locality to ``*`` names, when no node of ``places`` (host, rack) can
    ever take it; else None. As the CapacityScheduler places it (policies/capacity/_allocator.py): node-locally on a
    node whose host and rack both have an outstanding ask, rack-locally on a node whose rack has an outstanding ask
    that relaxes locality."""
    if ka.any_relax:
        return None
    names: dict[str, Any] = ka.names
    for host, rack in places:
        rack_ask = names.get(rack)
        if rack_ask is not None and rack_ask[0] > 0:
            host_ask = names.get(host)
            if rack_ask[1] or (host_ask is not None and host_ask[0] > 0):
                return None
    named = sorted(name for name, ask in names.items() if ask[0] > 0)
    return ", ".join(named) if named else "no node or rack"


def _am_holders(cluster: Any) -> set[Any] | None:
    """The attempts whose AM container, registered and running, is all that runs of them, when nothing else runs,
    is allocated or is queued at a node; else None."""
    rm = cluster.rm
    holders: set[Any] = set()
    for cid in rm.live:
        attempt = rm.attempts.get(cid.application_attempt_id)
        container = attempt.am_container if attempt is not None else None
        if container is None or container.id != cid or attempt.state is not AttemptState.RUNNING:
            return None
        holders.add(attempt.attempt_id)
    for nm in cluster.node_managers.values():
        for cid in nm.containers:
            if cid not in rm.live:
                return None  # a container the RM no longer counts, still at its node
    return holders
