"""The embedded backend of :class:`~yarnball.launcher.Cluster`: every actor on one kernel in this process."""

from __future__ import annotations

import asyncio
import math
import random
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from yarnball._logs import get_logger
from yarnball.actors import Kernel, WallClock
from yarnball.actors._appmaster import ApplicationMaster
from yarnball.actors._failures import HandlerFailures
from yarnball.actors._heartbeats import HeartbeatClock
from yarnball.actors._nodemanager import NodeManager, nm_actor_id
from yarnball.actors._resourcemanager import ResourceManager
from yarnball.actors._rmrestart import applications_of
from yarnball.actors._shortcuts import ShortcutSettings
from yarnball.errors import ConfigurationError, SimulationError
from yarnball.launcher._clusterconf import DEFAULT_CLUSTER_TIMESTAMP, ConfSource, normalized_conf
from yarnball.launcher._completed import CompletedApplications
from yarnball.launcher._elastic import Autoscaler, ElasticConfig, attach_autoscaler
from yarnball.launcher._gc import tuned_gc
from yarnball.launcher._jobfeed import JobFeed
from yarnball.launcher._memory import huge_page_arenas
from yarnball.launcher._settle import settle_containers, tearing_down
from yarnball.launcher._stall import CHECK_INTERVAL_MS, StallWatch, can_stall_check
from yarnball.launcher.workloads import JobSpec, NodeSpec, SkippedJob
from yarnball.policies.placement import SpreadPlacement, placement_from_conf
from yarnball.policies.scheduler import QueueMetrics, create_scheduler, validate_scheduler_configuration
from yarnball.protocols import ApplicationReport, keys

__all__ = ["EmbeddedBackend"]

log = get_logger(__name__)


class EmbeddedBackend:
    """A ResourceManager with its scheduler and one NodeManager per node, on one virtual-time kernel in this
    process: ``Cluster(..., backend="embedded")``, the default.

    ``clock="wall"`` makes it a live cluster: the kernel is paced by the wall clock (``wall_factor`` simulated ms
    per real ms) and runs on an asyncio loop, and each NodeManager gets a live executor (actors/executors) that
    runs the real work (commands, Python callables) an AM puts in a container's launch context, with its logs and
    working directories under ``work_dir`` (a new temporary directory when not given). The exact shortcuts are off
    (they are proven for virtual time). Simulated containers run as in virtual time, on real timers.
    """

    name = "embedded"

    def __init__(
        self,
        conf: ConfSource = None,
        nodes: Sequence[NodeSpec] = (),
        *,
        seed: int = 0,
        cluster_timestamp: int = DEFAULT_CLUSTER_TIMESTAMP,
        elastic: ElasticConfig | None = None,
        latency_ms: float | None = None,
        clock: str = "virtual",
        wall_factor: float = 1.0,
        work_dir: str | Path | None = None,
    ) -> None:
        if clock not in ("virtual", "wall"):
            raise SimulationError(f"clock must be 'virtual' or 'wall', got {clock!r}")
        #: A live run (wall clock, real executors): see the class docstring.
        self.live = clock == "wall"
        self.work_dir: Path | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        if self.live:
            self.work_dir = Path(work_dir) if work_dir is not None else Path(tempfile.mkdtemp(prefix="yarnball-live-"))
            self.work_dir.mkdir(parents=True, exist_ok=True)
        conf = normalized_conf(conf)
        self.conf = conf
        huge_page_arenas(conf)  # before the cluster's own objects exist (launcher/_memory.py)
        self.seed = seed
        self.rng = random.Random(seed)
        validate_scheduler_configuration(conf)
        self.kernel = Kernel(WallClock(wall_factor) if self.live else None)
        # One modelled latency for every message between actors (0: instant); the Ray backend needs it > 0 and
        # gives the same results as this kernel for the same latency.
        self.kernel.default_latency = float(latency_ms or 0)
        self.scheduler = create_scheduler(conf, cluster_timestamp=cluster_timestamp)
        self.rm = ResourceManager(
            conf,
            self.scheduler,
            cluster_timestamp=cluster_timestamp,
            rng=random.Random(f"opportunistic-{seed}"),
            secret_seed=seed,  # the token master keys (actors/_secretmanagers.py)
        )
        self.kernel.spawn(self.rm, "rm")
        #: NM heartbeat timing for every node (skipping needs atomic heartbeats: zero NM<->RM latency).
        self.heartbeats = HeartbeatClock(self.kernel)
        self.rm.use_heartbeat_clock(self.heartbeats)
        # The exact shortcuts (actors/_shortcuts), all off when yarnball.simulation.exact-shortcuts is false.
        ShortcutSettings.from_conf(conf, proven=not self.live).install(self.kernel, self.heartbeats, self.rm)
        self.heartbeat_interval_ms = conf.get_int(keys.RM_NM_HEARTBEAT_INTERVAL_MS)
        self.node_managers: dict[str, NodeManager] = {}
        #: The AMs submitted, but for those released once the RM removed their finished application.
        self.masters: list[ApplicationMaster] = []
        self.submitted = 0  # every AM submitted so far (the next one's index)
        self.job_feed: JobFeed | None = None  # the jobs of submit_jobs still to come (launcher/_jobfeed.py)
        self.rm.app_manager.removed_listeners.append(self._on_app_removed)
        self.completed = CompletedApplications(self.rm)  # what the outputs keep of removed applications
        self.jobs: dict[str, JobSpec] = {}
        self.skipped: list[SkippedJob] = []
        self.rm.done_listeners.append(self._on_app_done)
        self.faults: Any = None  # the FaultInjector once faults are scheduled (inject)
        for spec in nodes:
            self.add_node(spec)
        # Packing's LOW-set shuffle takes the run's seed; an autoscaler runs when asked for (elastic= or
        # yarnball.elastic.enabled), see launcher/_elastic.py.
        self.scheduler.set_placement(placement_from_conf(conf, seed=seed))
        self.autoscaler: Autoscaler | None = attach_autoscaler(self, elastic)
        self.node_restarts = False  # restart_node was asked for (see _skipping_proven)
        self.refresh_until_ms = -math.inf  # the latest queue refresh scheduled (it may change the queue limits)
        #: Why the last run stopped before its applications finished, when none of them could ever progress
        #: (launcher/_stall.py): the ask, the largest node or the queue limit. None otherwise.
        self.stalled: str | None = None
        self.recorder: Any = None  # the MetricsRecorder of record_metrics

    # -- building ---------------------------------------------------------------------------------------------
    def add_node(self, spec: NodeSpec, *, start_delay_ms: float | None = None) -> NodeManager:
        """Start a NodeManager for ``spec``; by default it registers at a seeded random point of the first
        heartbeat interval, so that heartbeats are spread as on a real cluster."""
        if spec.hostname in self.node_managers:
            raise SimulationError(f"node {spec.hostname!r} is defined twice")
        delay = self.rng.randrange(max(1, self.heartbeat_interval_ms)) if start_delay_ms is None else start_delay_ms
        self.heartbeats.define(spec.hostname)  # heartbeat priority by definition order, as on every shard host
        nm = NodeManager(
            spec.hostname,
            spec.rack,
            spec.resource,
            self.rm.ref,
            start_delay_ms=delay,
            labels=spec.labels,
            conf=self.conf,
            heartbeats=self.heartbeats,
        )
        self.kernel.spawn(nm, nm_actor_id(spec.hostname))
        if self.live:
            from yarnball.actors.executors import LiveExecutor

            nm.executor = LiveExecutor(nm, self.conf, self.work_dir)  # type: ignore[arg-type]
        self.node_managers[spec.hostname] = nm
        return nm

    def submit(self, am: ApplicationMaster) -> ApplicationMaster:
        """Start an ApplicationMaster actor; it submits its application at its ``submit_at_ms``."""
        self.kernel.spawn(am, f"am-{am.name}-{self.submitted}")
        self.submitted += 1
        self.masters.append(am)
        faults = self.faults
        if faults is not None and faults.rpc_retry_ms is not None:
            am.retry_allocate_calls(faults.rpc_retry_ms)  # a run that restarts the RM (launcher/_faultinjector.py)
        return am

    def feed(self, jobs: Iterator[JobSpec], make_am: Callable[..., ApplicationMaster | None]) -> None:
        """``Cluster.submit_jobs``: each job's AM built by ``make_am`` and spawned shortly before its submit time
        (launcher/_jobfeed.py); at once, one by one, at a time that is not a whole ms or with jobs still to come."""
        if self._jobs_to_come() or self.kernel.now != int(self.kernel.now):
            for job in jobs:
                am = make_am(job)
                if am is not None:
                    self.submit(am)
            return
        self.job_feed = JobFeed(self.kernel, jobs, make_am, self.submit)

    def _jobs_to_come(self) -> bool:
        """Whether jobs of submit_jobs are still to be submitted."""
        return self.job_feed is not None and self.job_feed.pending

    def _on_app_removed(self, app: Any) -> None:
        """The RM removed a finished application (yarn.resourcemanager.max-completed-applications): its AM, gone
        since it unregistered, is released."""
        ref = app.submitter
        am = self.kernel.actors.get(ref.id) if ref is not None else None
        if isinstance(am, ApplicationMaster) and am.finished:
            am.stop()
            self.kernel.forget(ref.id)
            self.masters.remove(am)
            job = self.jobs.get(am.name)
            if job is not None and job.tasks:
                self.jobs[am.name] = msgspec.structs.replace(job, tasks=())  # (the outputs need its times only)

    def every(self, interval_ms: float, callback: Callable[[], Any], *, start_ms: float = 0) -> None:
        """Call ``callback()`` every ``interval_ms`` of simulated time (for samplers and progress)."""
        kernel = self.kernel

        def tick(_: Any) -> None:
            callback()
            kernel.schedule(interval_ms, tick)

        kernel.schedule(start_ms, tick)

    def fail_node(self, host: str, at_ms: float) -> None:
        """Make the NodeManager on ``host`` die at ``at_ms``; the RM expires it after the liveness interval."""
        nm = self.node_managers[host]
        # Owned by the NM, so what it sends is ordered as its own messages (the same on every backend).
        self.kernel.schedule(max(0.0, at_ms - self.kernel.now), lambda _: nm.fail(), owner=nm.id)

    def restart_node(self, host: str, at_ms: float, down_ms: float) -> None:
        """Restart the NodeManager on ``host`` at ``at_ms``: it is down for ``down_ms``, then registers again. With
        ``yarn.nodemanager.recovery.enabled`` and ``yarn.nodemanager.recovery.supervised`` its containers survive
        (work-preserving restart), otherwise they are killed (actors/_nmrecovery.py)."""
        if down_ms < 0:
            raise SimulationError(f"restart_node: down_ms must not be negative, got {down_ms}")
        nm = self.node_managers[host]
        # Idle-heartbeat skipping is proven for nodes that heartbeat or are gone, not for one that comes back.
        self.node_restarts = True
        self.kernel.schedule(max(0.0, at_ms - self.kernel.now), lambda _: nm.restart(down_ms), owner=nm.id)

    def inject(self, faults: Any) -> None:
        """Schedule faults (one, a list, or a JSON schedule file path; see launcher/_faults.py and
        docs/reference/faults.md), applied by launcher/_faultinjector.py; message faults apply to the AMs submitted so
        far.

        Unknown targets are rejected here, before the run, naming the entry index and field."""
        from yarnball.launcher._faultinjector import FaultInjector
        from yarnball.launcher._faults import as_faults, check_targets

        parsed = as_faults(faults)
        check_targets(
            parsed,
            list(self.node_managers),
            jobs=[am.name for am in self.masters],
            cluster_timestamp=self.rm.cluster_timestamp,
        )
        if self.faults is None:
            self.faults = FaultInjector(self)
        self.faults.add(parsed)

    def refresh_queues(self, conf: Any, *, at_ms: float | None = None) -> Any:
        """``yarn rmadmin -refreshQueues``: ``conf`` (a Configuration, a mapping or a conf dir) is the new
        capacity-scheduler.xml, told to the RM as a ``RefreshQueuesRequest`` (launcher/_refresh.py).

        With ``at_ms`` it arrives at that simulated time; the outcome is in the event log (``queues_refreshed`` or
        ``queues_refresh_refused``) and the RM's counters. Without it, between runs, it is applied now and its
        ``RefreshQueuesResponse`` returned; a refused refresh raises ConfigurationError with Hadoop's message
        (``Failed to re-init queues : ...``) and leaves the queues as they were. A configuration that would not
        start a cluster raises ConfigurationError at once, either way."""
        from yarnball.launcher._refresh import refresh_request

        request = refresh_request(self.conf, conf)
        rm = self.rm
        if at_ms is None and not self.kernel.running:
            self.begin_run(self.kernel.now)  # the shortcut settings a run would use, before any event runs
            response = self.kernel.run_until_complete(rm.ref.ask(request))
            self.end_run()  # settle what the shortcuts deferred, as after a run
            if not response.accepted:
                raise ConfigurationError(response.diagnostics)
            return response
        delay = 0.0 if at_ms is None else max(0.0, at_ms - self.kernel.now)
        self.refresh_until_ms = max(self.refresh_until_ms, self.kernel.now + delay)
        # Owned by the RM, so the message is ordered as the RM's own (the same on every backend).
        self.kernel.schedule(delay, lambda _: rm.ref.tell(request), owner=rm.id)
        return None

    def record_metrics(self, interval_ms: int, track_jobs: Sequence[str] = ()) -> None:
        """Sample metrics every ``interval_ms`` for :meth:`write_outputs` (launcher/_outputs.py MetricsRecorder)."""
        from yarnball.launcher._outputs import MetricsRecorder

        self.recorder = MetricsRecorder(self, interval_ms, track_jobs=list(track_jobs))
        self.recorder.start()

    def write_outputs(
        self, out_dir: str | Path, *, wall_seconds: float, workload: Any = None, plots: bool = True
    ) -> dict[str, Any]:
        """Write the run's output files (``yarnball simulate``'s) into ``out_dir``; return the summary."""
        from yarnball.launcher._outputs import write_outputs

        if self.recorder is None:
            raise SimulationError("write_outputs needs the samples of record_metrics(); call it before run()")
        return write_outputs(  # type: ignore[no-any-return]
            out_dir, self, self.recorder, wall_seconds=wall_seconds, seed=self.seed, workload=workload, plots=plots
        )

    # -- running ----------------------------------------------------------------------------------------------
    def _on_app_done(self, app: Any) -> None:
        if self._all_done():
            self._stop_when_settled()

    def _stop_when_settled(self) -> None:
        if not self._settled():
            self.kernel.schedule(self.rm.heartbeat_interval_ms, lambda _: self._stop_when_settled(), owner=self.rm.id)
            return
        self.kernel.stop()

    def _settled(self) -> bool:
        """False while, after an RM restart, a running NodeManager still runs a container once every application has
        ended: the RM has ended it (with its application, or lost with it: actors/_rmrestart.py) and the NM kills it
        once it has registered again."""
        restarts = self.rm.restarts
        if restarts is None or not restarts.restarted:
            return True
        return not any(nm.containers for nm in self.node_managers.values() if nm.ref.is_alive)

    def _skipping_proven(self) -> bool:
        """Whether skipping idle heartbeats is proven equal (tests/test_heartbeat_skipping.py) for this setup.

        Opportunistic containers put NM queue state into every heartbeat and the RM's queue limits into every
        response; packing walks every node on any heartbeat and draws from its seeded shuffle; the autoscaler
        watches node idleness. None of these is covered by the equality proof yet, so their heartbeats all run."""
        conf = self.conf
        return not (
            conf.get_bool(keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED)
            or conf.get_bool(keys.DIST_SCHEDULING_ENABLED)
            or not isinstance(self.scheduler.placement, SpreadPlacement)
            or self.autoscaler is not None
            or self.node_restarts
        )

    def _all_done(self) -> bool:
        # The count first: it is O(1) and false until the last application finishes, while the scan is O(jobs) and
        # ran at every application's end (quadratic in the jobs of a run: ~1% of a busy 10,000-node run).
        if self.rm.apps_done < self.submitted or self._jobs_to_come():
            return False
        return all(am.application_id is not None for am in self.masters)

    def run(self, until_ms: float | None = None, on_progress: Callable[[float], None] | None = None) -> float:
        """Run in virtual time until every submitted application has finished (or ``until_ms``); return the time.

        Without ``until_ms``, a run in which no application can ever progress (nothing running or queued, every
        pending ask larger than any node or queue can give) stops by itself, and :attr:`stalled` says why."""
        if not self.begin_run(until_ms, on_progress):
            return self.kernel.now
        if self.live:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass
            else:
                raise SimulationError("Cluster.run() of a live cluster runs its own event loop; inside one, use "
                                      "'await cluster.run_async()'")  # fmt: skip
            if self._loop is None:
                from yarnball.actors.executors import start_forkserver

                start_forkserver()  # before the clock starts: the first callable container does not wait for it
                self._loop = asyncio.new_event_loop()  # kept across runs: it watches the containers' processes
            return self._loop.run_until_complete(self.run_async(until_ms))
        with tuned_gc():  # the cluster built so far lives for the run: out of the collector's way (launcher/_gc.py)
            end = self._run_watched(until_ms)
        self.end_run()
        return end

    def _run_watched(self, until_ms: float | None) -> float:
        """``kernel.run(until=until_ms)``; without ``until_ms``, in slices of simulated time with a look for a stall
        between two (launcher/_stall.py; slicing does not change the run, launcher/web/_driver.py). A stall stops
        the run and sets :attr:`stalled`."""
        kernel = self.kernel
        self.stalled = None
        if not can_stall_check(self, until_ms):
            return kernel.run(until=until_ms)
        watch = StallWatch(self)
        start = kernel.now
        while True:
            target = kernel.now + CHECK_INTERVAL_MS
            kernel.run(until=target)
            if kernel.now < target or (self._all_done() and self._settled()):
                return kernel.now  # finished (the kernel was stopped)
            if kernel.peek() is None:
                # The queue ran dry inside the slice, which then set the clock to the slice's end; one long run
                # would have stopped at the last event.
                kernel.now = max(start, kernel.last_event_time)
                return kernel.now
            self.stalled = watch.check()
            if self.stalled is not None:
                log.warning("run_stalled", reason=self.stalled)
                return kernel.now

    async def run_async(self, until_ms: float | None = None) -> float:
        """Run a live cluster on the running asyncio loop (what :meth:`run` does on its own loop)."""
        if not self.live:
            raise SimulationError("run_async() is for live clusters (Cluster(..., clock='wall'))")
        if not self.begin_run(until_ms):
            return self.kernel.now
        end = await self.kernel.run_async(until=until_ms)
        if self.finished():
            nms = list(self.node_managers.values())  # the killed applications' containers end first
            end = await settle_containers(self.kernel, lambda: tearing_down(nms), until_ms)
            self._stop_executors()  # (only what did not end within the bound: see settle_containers)
        self.end_run()
        return end

    def _stop_executors(self) -> None:
        for nm in self.node_managers.values():
            if nm.executor is not None:
                nm.executor.shutdown()

    def begin_run(self, until_ms: float | None = None, on_progress: Callable[[float], None] | None = None) -> bool:
        """Prepare a run (what :meth:`run` does before its kernel loop); False when there is nothing to run.

        For drivers that run the kernel in slices (the web layer, launcher/web/_driver.py): ``begin_run``, then
        ``kernel.run(until=...)`` until :meth:`finished`, then :meth:`end_run`."""
        faults = getattr(self, "faults", None)  # (launcher/_faultinjector.py)
        every_event = faults is not None and faults.needs_every_event
        if not self.kernel.instant or not self._skipping_proven() or every_event:
            self.heartbeats.skip = False  # modelled NM<->RM latency: heartbeats are not atomic, process them all
            self.heartbeats.skip_am = False  # AM skipping is proven under the same conditions only
            self.rm.dormant.disable()  # and dormancy builds on AM skipping
            if self.heartbeats.lazy is not None:
                self.heartbeats.lazy.disable()  # and deferred RUNNING reports on NM skipping
        if on_progress is not None:
            self.every(1000, lambda: on_progress(self.kernel.now))
        jobs = self.submitted > 0 or self._jobs_to_come()
        if jobs and self._all_done():
            return False
        return jobs or until_ms is not None

    def finished(self) -> bool:
        """Whether every submitted application has finished (what stops :meth:`run` without ``until_ms``)."""
        return bool(self.submitted) and self._all_done() and self._settled()

    def end_run(self) -> None:
        """Settle what the shortcuts deferred (what :meth:`run` does after its kernel loop)."""
        self.rm.dormant.settle_all()  # dormant AMs' skipped heartbeats, for whoever inspects the cluster now
        if self.heartbeats.lazy is not None:
            self.heartbeats.lazy.settle_all()  # and deferred RUNNING reports' (actors/_shortcuts/_lazyrunning.py)

    # -- inspection -------------------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.kernel.now

    @property
    def applications(self) -> list[ApplicationReport]:
        # (with those an RM restart without recovery forgot: actors/_rmrestart.py)
        return [app.report() for app in applications_of(self.rm).values()]

    @property
    def queues(self) -> list[QueueMetrics]:
        return self.scheduler.queue_metrics()

    @property
    def nodes(self) -> list[NodeManager]:
        return list(self.node_managers.values())

    @property
    def running_containers(self) -> int:
        return len(self.rm.live)

    @property
    def counters(self) -> dict[str, int]:
        """The RM's counters (apps_submitted, containers_allocated, nodes_lost, ...)."""
        return dict(self.rm.counters)

    @property
    def handler_failures(self) -> HandlerFailures:
        """Every actor handler that raised so far (a bug or a bad input): the count and the first few, each with its
        actor, message type and exception. Supervision kept the actors running; the CLI exits 3 when any."""
        return HandlerFailures.of_kernel(self.kernel)

    def close(self) -> None:
        """Release the backend's resources (a live cluster's processes and event loop)."""
        if self.live:
            self._stop_executors()
            if self._loop is not None:
                self._loop.close()
                self._loop = None
