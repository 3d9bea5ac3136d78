"""Serving a cluster on shard hosts (the Ray backend: virtual time, or live mode with ``clock="wall"``).

The RM and the NodeManagers live on the hosts, so a snapshot here is assembled from the hosts' answers
(launcher/web/_hostview.py) fetched through the host-call mechanism, ``HostGroup.call(index, "web", ...)``:

* :class:`RemoteSnapshot` has the same sections as the embedded :class:`~yarnball.launcher.web._snapshot.Snapshot`
  and fetches each the first time a request reads it: an RM section is one call to host 0; ``node_managers`` (the NM
  REST API) is one call to host 0 for what the NM views read from the RM, then one call per host.
* :class:`ShardedSource` hands out one snapshot per generation. **Virtual time**: :func:`drive_sharded` runs the
  cluster in slices of windows (``run(until_ms=...)``) and bumps the generation after each, so requests are answered
  between slices, when every host is paused, and every section of a snapshot is of the same moment. **Live mode**:
  the hosts run on their own (``run`` in a thread of this process); a snapshot is kept for
  :data:`LIVE_SNAPSHOT_S` of wall time, and each of its sections is what the host had between two of its events
  when the section was first asked for (the hosts of a live run have no common "now"; host 0's sections are always
  consistent among themselves; one consistent cut of a live run would need every host to pause at one moment, which
  is not built).
* Writes (kill, move, priority, new-application) are ClientRMService messages to the RM on host 0
  (host call ``"ask"``), whose reply the source collects with ``"reply"``: in virtual time after the slices that deliver
  it (a run paused between two drives is run just until then, as the embedded server runs its kernel), in live mode
  by polling every few ms. A write to a run that has ended is refused (503). Submitting an application
  (``POST /apps``) also starts its AM actor (:meth:`ShardedSource.start_am`): it is placed as the workload's AMs are
  (``ShardedBackend.submit_running``, the deterministic placement of launcher/_shard.py) and sent to every host at
  once; in virtual time that happens between two slices, when every host is paused at the same window boundary, so
  the run goes on deterministically from there; live, as soon as the hosts take the call.
* **Starting.** Ray takes seconds to start the hosts (10-40 s when the machine's cores are busy).
  :func:`drive_sharded` starts them in a thread and the server answers at once: until they are up, from a
  :class:`StartingSnapshot` (Hadoop's RM between
  starting its web app and becoming active: ``clusterInfo`` state STARTED, haState INITIALIZING, no nodes, no
  applications); writes are refused with a 503 saying so, and the web UI says the cluster is starting.

A host computes a section in one call, between two of its events: that is the longest a request holds up the run.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

from yarnball.errors import RestRequestError, SimulationError
from yarnball.launcher.web import _driver
from yarnball.launcher.web._driver import PACE_TICK_S, check_pace, paced_target
from yarnball.launcher.web._hostview import RM_SECTIONS, rm_sections

__all__ = ["LIVE_SNAPSHOT_S", "RemoteSnapshot", "ShardedSource", "StartingSnapshot", "drive_sharded", "is_sharded"]

#: In live mode a snapshot is reused for this long (wall seconds): a 10 Hz poller costs the hosts 5 copies a second.
LIVE_SNAPSHOT_S = 0.2
#: How often a live REST write looks for the RM's reply, and how long it waits for it (wall seconds).
LIVE_REPLY_POLL_S = 0.01
LIVE_REPLY_TIMEOUT_S = 30.0
_YARN = ("YarnException", "org.apache.hadoop.yarn.exceptions.YarnException")


def is_sharded(cluster: Any) -> bool:
    """Whether ``cluster`` runs on shard hosts (``backend="ray"`` or ``"inprocess"``)."""
    return getattr(cluster, "backend", "embedded") in ("ray", "inprocess")


def _node_order(key: str) -> tuple[str, int]:
    host, _, port = key.rpartition(":")
    return host, int(port)


class RemoteSnapshot:
    """The REST view of a sharded cluster, section by section from its hosts (see the module docstring).

    Same attributes as :class:`~yarnball.launcher.web._snapshot.Snapshot`. A section not fetched yet is fetched from
    the hosts when read; reading one after the source moved to a later generation raises instead of mixing two
    moments (virtual time), as the embedded lazy snapshot does."""

    def __init__(self, source: ShardedSource, generation: int, done: bool) -> None:
        self._source = source
        self._cache: dict[str, Any] = {}
        self.generation = generation
        self.done = done
        self.taken_at = time.monotonic()

    def _fetch_rm(self, name: str) -> Any:
        cache = self._cache
        if name not in cache:
            self._check()
            names = ["apps", "attempts"] if name in ("apps", "attempts") else [name]
            got = self._source.cluster.group.call(0, "web", "sections", names)
            cache.setdefault("_meta", (got["now_ms"], got["opportunistic"]))
            for key in names:
                cache[key] = got[key]
        return cache[name]

    def _check(self) -> None:
        source = self._source
        if source.generation != self.generation and not source.live:
            raise RuntimeError(
                f"snapshot read after the run moved on from generation {self.generation}; take a new snapshot"
            )

    def _meta(self) -> tuple[float, bool]:
        if "_meta" not in self._cache:
            self._fetch_rm("cluster_info")
        return self._cache["_meta"]  # type: ignore[no-any-return]

    @property
    def now_ms(self) -> float:
        return self._meta()[0]

    @property
    def opportunistic(self) -> bool:
        return self._meta()[1]

    @property
    def cluster_info(self) -> dict[str, Any]:
        return self._fetch_rm("cluster_info")  # type: ignore[no-any-return]

    @property
    def metrics(self) -> dict[str, Any]:
        return self._fetch_rm("metrics")  # type: ignore[no-any-return]

    @property
    def scheduler(self) -> dict[str, Any]:
        return self._fetch_rm("scheduler")  # type: ignore[no-any-return]

    @property
    def apps(self) -> dict[str, dict[str, Any]]:
        return self._fetch_rm("apps")  # type: ignore[no-any-return]

    @property
    def attempts(self) -> dict[str, list[dict[str, Any]]]:
        return self._fetch_rm("attempts")  # type: ignore[no-any-return]

    @property
    def nodes(self) -> dict[str, dict[str, Any]]:
        return self._fetch_rm("nodes")  # type: ignore[no-any-return]

    @property
    def node_managers(self) -> dict[str, dict[str, Any]]:
        """node id -> that NM's view, gathered from every host, in node-id order (as the embedded snapshot)."""
        cache = self._cache
        if "node_managers" not in cache:
            self._check()
            group = self._source.cluster.group
            rm_view = group.call(0, "web", "rm_for_nms")
            views: dict[str, dict[str, Any]] = {}
            for index in range(group.size):
                views.update(group.call(index, "web", "nm_sections", rm_view)["node_managers"])
            cache["node_managers"] = {key: views[key] for key in sorted(views, key=_node_order)}
        return cache["node_managers"]  # type: ignore[no-any-return]


class StartingSnapshot:
    """The REST view of a cluster whose shard hosts are still starting: an RM that has started its web app but is
    not active yet, with its queue tree and no nodes or applications.

    Hadoop's ``ResourceManager.serviceStart`` starts the web app (``startWepApp``) before ``transitionToActive``, and
    ``AbstractService.start`` enters STARTED before it calls ``serviceStart``: in that span ``ClusterInfo`` says
    state STARTED and haState INITIALIZING (the RMContext's initial HAServiceState), and the other read endpoints
    answer from the empty RM (``RMWebAppFilter`` redirects only a STANDBY RM). The sections come from the same code as
    host 0's (launcher/web/_hostview.py), over an RM built here from the cluster's configuration."""

    starting = True  # (the web UI says so)

    def __init__(self, cluster: Any) -> None:
        from yarnball.launcher._shard import ShardHost

        host = ShardHost(
            0, cluster.hosts, cluster.conf, cluster_timestamp=cluster.cluster_timestamp, latency_ms=cluster.latency_ms
        )
        got = rm_sections(host, (), RM_SECTIONS)
        self.generation = 0
        self.done = False
        self.now_ms = 0.0
        self.opportunistic = bool(got["opportunistic"])
        self.cluster_info: dict[str, Any] = {**got["cluster_info"], "haState": "INITIALIZING"}
        self.metrics: dict[str, Any] = got["metrics"]
        self.scheduler: dict[str, Any] = got["scheduler"]
        self.apps: dict[str, dict[str, Any]] = got["apps"]
        self.attempts: dict[str, list[dict[str, Any]]] = got["attempts"]
        self.nodes: dict[str, dict[str, Any]] = got["nodes"]
        self.node_managers: dict[str, dict[str, Any]] = {}


class ShardedSource:
    """The latest snapshot of a cluster on shard hosts, and its REST writes (the embedded ``LiveSource``'s
    interface: ``latest``, ``ask_rm``, ``start_am``, ``advance``, ``resume``)."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.live = getattr(cluster, "clock", "virtual") == "wall"
        self.generation = 0
        self.done = False
        self.driving = False
        self.snapshots_taken = 0
        #: Whether the hosts are up; until then (drive_sharded starts them in a thread) requests see the
        #: StartingSnapshot and writes are refused.
        self.ready = bool(cluster.hosts_started)
        self._starting: StartingSnapshot | None = None
        self._snapshot: RemoteSnapshot | None = None
        self._waiters: list[asyncio.Future[None]] = []
        self.resume = asyncio.Event()  # never set: a sharded run is not driven again after its end

    def hosts_up(self) -> None:
        """The hosts are up with every setup step applied: later requests are answered from them (no snapshot of
        them was taken before, so the generation stays)."""
        self.ready = True

    def advance(self, *, done: bool = False) -> None:
        """The run moved on (a slice of windows ran, or the live run ended): later requests get a new snapshot."""
        self.generation += 1
        self.done = done
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def latest(self) -> RemoteSnapshot | StartingSnapshot:
        if not self.ready:
            if self._starting is None:
                self._starting = StartingSnapshot(self.cluster)
            return self._starting
        snap = self._snapshot
        if self.live and snap is not None and not self.done and time.monotonic() - snap.taken_at >= LIVE_SNAPSHOT_S:
            self.generation += 1
        if snap is None or snap.generation != self.generation:
            snap = self._snapshot = RemoteSnapshot(self, self.generation, self.done)
            self.snapshots_taken += 1
        return snap

    def _check_running(self, what: str) -> None:
        """Refuse a write (503 YarnException) while the hosts start and once the run has ended."""
        if not self.ready:
            raise RestRequestError(
                503,
                *_YARN,
                "the cluster is starting (its shard hosts are coming up): its ResourceManager takes client requests "
                f"({what}) once /ws/v1/cluster/info says haState ACTIVE",
            )
        if self.cluster.finished() or (self.live and not self.driving):
            raise RestRequestError(
                503,
                *_YARN,
                "this Ray run is not running (it has ended): its ResourceManager takes no more client requests",
            )

    def start_am(self, am: Any) -> str:
        """``POST /apps``: start the submitted application's AM on its host now and return its actor id (see the
        module docstring). Refused (503) while the hosts start and once the run has ended (a sharded run is not
        driven again after its end)."""
        self._check_running("a submission")
        return str(self.cluster.submit_running(am))

    async def ask_rm(self, message: Any) -> Any:
        """Send ``message`` to the RM on host 0 as a client would and return its reply (a REST write).

        While the run goes on, the reply comes with a later slice of windows (virtual time) or is polled for (live).
        A virtual-time run paused between two drives (``drive_sharded(..., until_ms=t)``) is run here window by
        window just until the reply is there, as the embedded ``LiveSource`` runs its kernel."""
        self._check_running(type(message).__name__)
        cluster = self.cluster
        group = cluster.group
        token = group.call(0, "web", "ask", message, cluster.take_driver_sequence())
        paused = not self.live and not self.driving
        if not self.live:
            cluster.wake(0)
        deadline = time.monotonic() + LIVE_REPLY_TIMEOUT_S
        while True:
            got, reply = group.call(0, "web", "reply", token)
            if got:
                break
            if paused:
                if cluster.finished():
                    raise RestRequestError(503, *_YARN, "the run ended before the ResourceManager answered")
                cluster.run(until_ms=cluster.now + max(float(cluster.latency_ms), 1.0))
                continue
            if not self.driving:
                raise RestRequestError(503, *_YARN, "the run ended before the ResourceManager answered")
            if not self.live:  # the reply comes with a later slice of windows
                waiter = asyncio.get_running_loop().create_future()
                self._waiters.append(waiter)
                await waiter
                continue
            if time.monotonic() > deadline:
                raise RestRequestError(
                    503,
                    *_YARN,
                    f"no reply from the ResourceManager to {type(message).__name__} "
                    f"within {LIVE_REPLY_TIMEOUT_S:.0f} s",
                )
            await asyncio.sleep(LIVE_REPLY_POLL_S)
        if paused:
            self.advance(done=self.done)  # later requests see the write's effect
        elif self.live:
            self.generation += 1
        return reply


async def drive_sharded(
    cluster: Any,
    source: ShardedSource | None = None,
    *,
    until_ms: float | None = None,
    pace: float | None = None,
    on_progress: Callable[[float], None] | None = None,
    wall_clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Run a sharded ``cluster`` like ``cluster.run(until_ms, on_progress)`` while the event loop serves requests.

    With a ``source`` whose hosts are not up yet, they are started in a thread while the loop answers from the
    starting snapshot. Virtual time: slices of windows, each ``cluster.run(until_ms=t)``, sized like the embedded
    driver's (or paced); a window never straddles two slices, so the run is the one ``cluster.run`` makes (the windows
    of a sharded run may end anywhere: every message between hosts is due at least one latency after it was sent).
    Live mode: the run goes on in a thread; ``pace`` does not apply (the wall-clock factor is the cluster's
    ``wall_factor``).
    Returns the simulated end time."""
    check_pace(pace)
    if getattr(cluster, "clock", "virtual") == "wall":
        if pace is not None:
            raise SimulationError("--pace does not apply to live mode: the hosts already run on the wall clock")
        return await _run_live(cluster, source, until_ms, on_progress)
    if source is not None:
        source.driving = True
        source.done = False
    try:
        if source is not None and not source.ready:
            await asyncio.get_running_loop().run_in_executor(None, _start_hosts, cluster)
            source.hosts_up()
        now = await _slices(cluster, source, until_ms, pace, on_progress, wall_clock)
    finally:
        if source is not None:
            source.driving = False
            source.advance(done=True)
    return now


def _start_hosts(cluster: Any) -> None:
    """Start the shard hosts and apply every setup step (in a thread: Ray takes seconds)."""
    cluster.group  # noqa: B018 - the property starts them


async def _slices(
    cluster: Any,
    source: ShardedSource | None,
    until_ms: float | None,
    pace: float | None,
    on_progress: Callable[[float], None] | None,
    wall_clock: Callable[[], float],
) -> float:
    slice_ms = 1000.0
    start_ms = float(cluster.now)
    wall0 = wall_clock()
    first = True
    while True:
        if pace is not None:
            target = paced_target(start_ms, wall_clock() - wall0, pace)
        else:
            target = cluster.now + slice_ms
        if until_ms is not None:
            target = min(target, float(until_ms))
        if target > cluster.now or first:
            began = wall_clock()
            # on_progress goes to the first slice only: cluster.run counts one driver event for it, once per run
            now = cluster.run(until_ms=target, on_progress=on_progress if first else None)
            first = False
            if on_progress is not None:
                on_progress(now)
            spent = wall_clock() - began
            if pace is None:
                slice_ms = _driver.next_slice_ms(slice_ms, spent)
        if cluster.finished() or (until_ms is not None and cluster.now >= until_ms):
            return float(cluster.now)
        if until_ms is None and cluster.idle():
            return float(cluster.now)
        if source is not None:
            source.advance()
        await asyncio.sleep(PACE_TICK_S if pace is not None else 0)


async def _run_live(
    cluster: Any, source: ShardedSource | None, until_ms: float | None, on_progress: Callable[[float], None] | None
) -> float:
    """Run a live cluster in a thread (its ``run`` waits on the hosts) while this loop serves requests; the thread
    starts the hosts first, so the server answers (from the starting snapshot) while Ray brings them up."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[float] = loop.create_future()
    cancelled = threading.Event()

    def settle(value: float | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(float(value))  # type: ignore[arg-type]

    def run() -> None:
        try:
            _start_hosts(cluster)  # a failure to start is raised in the driving task, through settle
            if source is not None:
                loop.call_soon_threadsafe(source.hosts_up)
            value = cluster.now if cancelled.is_set() else cluster.run(until_ms=until_ms)
        except BaseException as exc:  # handed to the event loop's task, which raises it
            loop.call_soon_threadsafe(settle, None, exc)
        else:
            loop.call_soon_threadsafe(settle, value, None)

    if source is not None:
        source.driving = True
    thread = threading.Thread(target=run, name="yarnball-live-run", daemon=True)
    thread.start()
    try:
        return await done
    except asyncio.CancelledError:
        # Ctrl-C/SIGTERM while serving: stop the hosts so that the thread's run returns (hosts still starting
        # are not run at all)
        cancelled.set()
        if cluster.hosts_started:
            stop_live(cluster)
        thread.join(timeout=30)
        raise
    finally:
        if source is not None:
            source.driving = False
            source.advance(done=True)
        if on_progress is not None and done.done() and not done.cancelled() and done.exception() is None:
            on_progress(done.result())


def stop_live(cluster: Any) -> None:
    """Ask every host of a live cluster to stop its kernel (its run then returns)."""
    group = cluster.group
    stop = getattr(group, "stop", None)
    if stop is not None:
        stop()
