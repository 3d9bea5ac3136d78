"""``yarnball.Cluster``: build a cluster, submit applications, run it in virtual time, inspect it.

>>> from yarnball import Cluster, Configuration
>>> from yarnball.launcher.workloads import WorkloadBuilder
>>> workload = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8).job("job1", tasks=[...]).build()
>>> cluster = Cluster(Configuration(), workload.nodes, seed=1)
>>> cluster.submit_workload(workload)
>>> cluster.run()                     # until every application has finished
>>> [a.state for a in cluster.applications]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from yarnball.actors._appmaster import ApplicationMaster
from yarnball.actors._failures import HandlerFailures
from yarnball.actors._slsam import SLS_AM_TYPES
from yarnball.errors import SimulationError
from yarnball.launcher._backend import BACKENDS, ClusterBackend
from yarnball.launcher._clusterconf import DEFAULT_CLUSTER_TIMESTAMP, DEFAULT_QUEUES, ConfSource, normalized_conf
from yarnball.launcher._elastic import ElasticConfig
from yarnball.launcher._embedded import EmbeddedBackend
from yarnball.launcher._sharded import ShardedBackend
from yarnball.launcher.workloads import JobOutline, JobSpec, NodeSpec, SkippedJob, StreamedWorkload, Workload
from yarnball.policies.scheduler import QueueMetrics
from yarnball.protocols import ApplicationReport, keys

__all__ = ["DEFAULT_CLUSTER_TIMESTAMP", "DEFAULT_QUEUES", "Cluster", "ConfSource", "normalized_conf"]


class Cluster:
    """A ResourceManager with its scheduler and one NodeManager per node, run on a backend chosen by
    ``backend``:

    - ``"embedded"`` (default): every actor on one virtual-time kernel in this process
      (launcher/_embedded.py). ``elastic`` attaches an autoscaler.
    - ``"ray"``: the actors on shard hosts in Ray actors (launcher/_sharded.py): ``address`` joins a running Ray
      cluster, ``hosts`` (default 2) and ``latency_ms`` (default 1) set the sharding, ``placement`` pins actors to
      hosts, ``event_log`` and ``log_level`` are the hosts' event logs. Ray is imported only then.
    - ``"inprocess"``: the same shard hosts run one after the other in this process (no Ray; for tests).

    Every backend gives the same results for the same seed and latency, and the same API; what only one backend
    has (the embedded ``kernel``, ``rm``, ``scheduler``; the sharded ``window_stats``, ``record_metrics``) is
    reached through the cluster as well.

    ``clock="wall"`` makes it a live cluster (embedded or ray): the kernel is paced by the wall clock
    (``wall_factor`` simulated ms per real ms) and each NodeManager gets a live executor that runs the real work
    (commands, Python callables) an AM puts in a container's launch context, with its logs and working directories
    under ``work_dir`` (a new temporary directory when not given).
    """

    __slots__ = ("_am_settings", "_backend")

    def __init__(
        self,
        conf: ConfSource = None,
        nodes: Sequence[NodeSpec] = (),
        *,
        seed: int = 0,
        cluster_timestamp: int = DEFAULT_CLUSTER_TIMESTAMP,
        backend: str = "embedded",
        elastic: ElasticConfig | None = None,
        latency_ms: float | None = None,
        clock: str = "virtual",
        wall_factor: float = 1.0,
        work_dir: str | Path | None = None,
        address: str | None = None,
        hosts: int | None = None,
        event_log: str | Path | None = None,
        log_level: str = "info",
        placement: Mapping[str, int] | None = None,
    ) -> None:
        impl: ClusterBackend
        if backend == "embedded":
            sharded_only = {"address": address, "hosts": hosts, "event_log": event_log, "placement": placement}
            given = [name for name, value in sharded_only.items() if value is not None]
            if given:
                raise SimulationError(f"{', '.join(given)}: for the sharded backends ('ray', 'inprocess') only")
            impl = EmbeddedBackend(
                conf,
                nodes,
                seed=seed,
                cluster_timestamp=cluster_timestamp,
                elastic=elastic,
                latency_ms=latency_ms,
                clock=clock,
                wall_factor=wall_factor,
                work_dir=work_dir,
            )
        elif backend in BACKENDS:
            if elastic is not None:
                raise SimulationError("elastic: the autoscaler runs on the embedded backend only")
            impl = ShardedBackend(
                conf,
                nodes,
                seed=seed,
                cluster_timestamp=cluster_timestamp,
                backend=backend,
                address=address,
                hosts=2 if hosts is None else hosts,
                latency_ms=latency_ms,
                event_log=event_log,
                log_level=log_level,
                clock=clock,
                wall_factor=wall_factor,
                placement=placement,
                work_dir=work_dir,
            )
        else:
            raise SimulationError(f"unknown backend {backend!r}; expected one of {', '.join(map(repr, BACKENDS))}")
        object.__setattr__(self, "_backend", impl)
        # the keys the SLS AMs are built with, each read from the configuration once (_am_setting)
        object.__setattr__(self, "_am_settings", {})

    # What one backend alone has (the embedded kernel, rm and scheduler; the sharded window statistics, ...) is
    # reached through the cluster; the API every backend shares is spelt out below.
    def __getattr__(self, name: str) -> Any:
        if name == "_backend":  # not built (yet): no backend to ask
            raise AttributeError(name)
        return getattr(self._backend, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._backend, name, value)

    def __repr__(self) -> str:
        return f"<Cluster backend={self.backend!r} now={self.now:g} ms applications={len(self._backend.masters)}>"

    @property
    def backend(self) -> str:
        """The backend's name: ``"embedded"``, ``"inprocess"`` or ``"ray"``."""
        return self._backend.name

    @property
    def runtime(self) -> ClusterBackend:
        """The backend itself (launcher/_embedded.py or launcher/_sharded.py)."""
        return self._backend

    # -- building ---------------------------------------------------------------------------------------------
    def add_node(self, spec: NodeSpec, *, start_delay_ms: float | None = None) -> Any:
        """Start a NodeManager for ``spec``; by default it registers at a seeded random point of the first
        heartbeat interval, so that heartbeats are spread as on a real cluster."""
        return self._backend.add_node(spec, start_delay_ms=start_delay_ms)

    def submit(self, am: ApplicationMaster) -> ApplicationMaster:
        """Start an ApplicationMaster actor; it submits its application at its ``submit_at_ms``."""
        return self._backend.submit(am)

    def submit_job(self, job: JobSpec) -> ApplicationMaster | None:
        """Submit one trace job with the SLS AM of its type; an unknown AM type is skipped and reported."""
        am = self._application_master(job)
        return None if am is None else self._backend.submit(am)

    def submit_jobs(self, jobs: Iterable[JobSpec]) -> None:
        """Submit trace jobs given in submit time order, each built and started shortly before its submit time
        (embedded; launcher/_jobfeed.py): a long trace read or generated as the run goes is never all in memory.
        The run is the same as with :meth:`submit_job` for each at once; the other backends do just that."""
        feed = getattr(self._backend, "feed", None)
        if feed is None:
            for job in jobs:
                self.submit_job(job)
            return
        feed(iter(jobs), self._application_master)

    def _application_master(self, job: JobSpec, tasks: Any = None) -> ApplicationMaster | None:
        """The SLS AM of ``job``'s type (with ``tasks`` for the job's own when given), recorded in the cluster's jobs;
        None (reported) for an unknown type."""
        impl = self._backend
        am_class = SLS_AM_TYPES.get(job.am_type)
        if am_class is None:
            impl.skipped.append(_unknown_am_type(job))
            return None
        heartbeat = self._am_setting(keys.SLS_AM_HEARTBEAT_INTERVAL_MS, keys.DEFAULT_SLS_AM_HEARTBEAT_INTERVAL_MS)
        extra: dict[str, Any] = {}
        if job.am_type == "mapreduce":
            extra["opportunistic_maps_percent"] = self._am_setting(
                keys.MR_NUM_OPPORTUNISTIC_MAPS_PERCENT, keys.DEFAULT_MR_NUM_OPPORTUNISTIC_MAPS_PERCENT
            )
        am = am_class(
            tasks=job.tasks if tasks is None else tasks,
            name=job.job_id,
            queue=job.queue,
            user=job.user,
            am_resource=job.am_resource,
            submit_at_ms=job.submit_ms,
            heartbeat_interval_ms=heartbeat,
            application_type="MAPREDUCE" if job.am_type == "mapreduce" else job.am_type.upper(),
            **extra,
        )
        impl.jobs[job.job_id] = job
        return am  # type: ignore[no-any-return]

    def _am_setting(self, key: str, default: int) -> int:
        """``key`` of the cluster's configuration as an integer, parsed at its first use only (a fed trace builds an
        AM per job; parsing the two keys was half the cost of building one)."""
        value = self._am_settings.get(key)
        if value is None:
            value = self._am_settings[key] = self._backend.conf.get_int(key, default)
        return value

    def submit_workload(self, workload: Workload | StreamedWorkload) -> None:
        """Submit every job of a workload (its nodes are given to the constructor); skipped jobs are kept. A trace
        read as the run goes (``scan_workload``) has its jobs fed as the run reaches them (:meth:`submit_jobs`; the
        embedded backend) when their submit times are in order, else submitted as they are read again, at once."""
        impl = self._backend
        impl.skipped.extend(workload.skipped)
        if isinstance(workload, StreamedWorkload):
            if workload.in_order and getattr(impl, "feed", None) is not None:
                # What submitting every job at once records at once: the jobs of a known AM type (their outlines
                # until their AMs are built), the others as skipped; only the former are fed.
                for outline in workload.jobs:
                    if outline.am_type in SLS_AM_TYPES:
                        impl.jobs[outline.job_id] = outline
                    else:
                        impl.skipped.append(_unknown_am_type(outline))
                self.submit_jobs(job for job in workload.stream() if job.am_type in SLS_AM_TYPES)
                return
            jobs: Iterable[JobSpec] = workload.stream()
        else:
            jobs = workload.jobs
        for job in jobs:
            self.submit_job(job)

    def every(self, interval_ms: float, callback: Callable[[], Any], *, start_ms: float = 0) -> None:
        """Call ``callback()`` every ``interval_ms`` of simulated time (for samplers and progress; embedded)."""
        self._backend.every(interval_ms, callback, start_ms=start_ms)

    def fail_node(self, host: str, at_ms: float) -> None:
        """Make the NodeManager on ``host`` die at ``at_ms``; the RM expires it after the liveness interval."""
        self._backend.fail_node(host, at_ms)

    def restart_node(self, host: str, at_ms: float, down_ms: float) -> None:
        """Restart the NodeManager on ``host`` at ``at_ms``: it is down for ``down_ms``, then registers again. With
        ``yarn.nodemanager.recovery.enabled`` and ``yarn.nodemanager.recovery.supervised`` its containers survive
        (work-preserving restart), otherwise they are killed (actors/_nmrecovery.py)."""
        self._backend.restart_node(host, at_ms, down_ms)

    def inject(self, faults: Any) -> None:
        """Schedule faults (one, a list, or a JSON schedule file path; see launcher/_faults.py and
        docs/reference/faults.md). Unknown targets are rejected here, before the run, naming the entry index and
        field; the sharded backends refuse a kind no single host can apply."""
        self._backend.inject(faults)

    def inject_file(self, path: Any) -> None:
        self.inject(str(path))

    def refresh_queues(self, conf: Any, *, at_ms: float | None = None) -> Any:
        """``yarn rmadmin -refreshQueues``: ``conf`` (a Configuration, a mapping or a conf dir) is the new
        capacity-scheduler.xml, told to the RM as a ``RefreshQueuesRequest`` (launcher/_refresh.py).

        With ``at_ms`` it arrives at that simulated time; the outcome is in the event log (``queues_refreshed`` or
        ``queues_refresh_refused``) and the RM's counters. Without it, between runs (embedded), it is applied now
        and its ``RefreshQueuesResponse`` returned; a refused refresh raises ConfigurationError with Hadoop's
        message (``Failed to re-init queues : ...``) and leaves the queues as they were. A configuration that would
        not start a cluster raises ConfigurationError at once, either way."""
        return self._backend.refresh_queues(conf, at_ms=at_ms)

    def record_metrics(self, interval_ms: int, track_jobs: Sequence[str] = ()) -> None:
        """Sample metrics every ``interval_ms`` of simulated time (on the RM's host), for :meth:`write_outputs`;
        ``track_jobs``: the jobs whose live containers are recorded (metrics/tracked_jobs.csv)."""
        self._backend.record_metrics(interval_ms, track_jobs)

    def write_outputs(
        self, out_dir: str | Path, *, wall_seconds: float, workload: Any = None, plots: bool = True
    ) -> dict[str, Any]:
        """Write the output files of ``yarnball simulate`` (summary.json, SLS's metrics, plots) into ``out_dir`` after
        a run, the same on every backend; return the summary."""
        return self._backend.write_outputs(out_dir, wall_seconds=wall_seconds, workload=workload, plots=plots)

    # -- running ----------------------------------------------------------------------------------------------
    def run(self, until_ms: float | None = None, on_progress: Callable[[float], None] | None = None) -> float:
        """Run in virtual time until every submitted application has finished (or ``until_ms``); return the time.

        Without ``until_ms``, a run in which no application can ever progress (nothing running or queued, every
        pending ask larger than any node or queue can give) stops by itself, and :attr:`stalled` says why
        (embedded)."""
        return self._backend.run(until_ms, on_progress)

    def finished(self) -> bool:
        """Whether every submitted application has finished (what stops :meth:`run` without ``until_ms``)."""
        return self._backend.finished()

    def serve(
        self,
        port: int = 8088,
        host: str = "127.0.0.1",
        *,
        until_ms: float | None = None,
        pace: float | None = None,
        keep_serving: bool = True,
    ) -> float:
        """Run while serving the RM REST API and web UI on ``host:port`` (needs the ``web`` extra, aiohttp).

        The run goes as fast as it can (or at ``pace`` times real time); afterwards the final state is served until
        Ctrl-C/SIGTERM unless ``keep_serving`` is false. Returns the simulated end time. A cluster on the Ray backend
        (virtual time, or live with ``clock="wall"``) is served from its shard hosts (launcher/web/_shardsource.py)."""
        from yarnball.launcher.web import serve_cluster

        return serve_cluster(self, host, port, until_ms=until_ms, pace=pace, keep_serving=keep_serving).end_ms

    def close(self) -> None:
        """Release the backend's resources (shard hosts, a live cluster's processes and event loop)."""
        self._backend.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- inspection -------------------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self._backend.now

    @property
    def applications(self) -> list[ApplicationReport]:
        return self._backend.applications

    @property
    def queues(self) -> list[QueueMetrics]:
        return self._backend.queues

    @property
    def nodes(self) -> list[Any]:
        """The NodeManagers (embedded; on the sharded backends they live on the hosts)."""
        return self._backend.nodes

    @property
    def running_containers(self) -> int:
        return self._backend.running_containers

    @property
    def counters(self) -> dict[str, int]:
        """The RM's counters (apps_submitted, containers_allocated, nodes_lost, ...)."""
        return self._backend.counters

    @property
    def handler_failures(self) -> HandlerFailures:
        """Every actor handler that raised so far (a bug or a bad input): the count and the first few, each with its
        actor, message type and exception. Supervision kept the actors running; the CLI exits 3 when any."""
        return self._backend.handler_failures


def _unknown_am_type(job: JobSpec | JobOutline) -> SkippedJob:
    return SkippedJob(job.job_id, f"unknown AM type {job.am_type!r}; known: {sorted(SLS_AM_TYPES)}")
