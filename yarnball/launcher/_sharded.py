"""The Cluster API over shard hosts: the coordinator of the conservative synchronous windows.

:class:`ShardedBackend` is the backend of ``Cluster(..., backend="ray")`` (and ``"inprocess"``). The driver
keeps the same building calls (``add_node``, ``submit``, ``submit_job``, ``fail_node``) and turns them into setup
steps numbered as one kernel would number them; :meth:`ShardedBackend.run` then drives the hosts window by window:

1. every host delivers the batches addressed to it and runs its kernel to the window end;
2. every host returns one encoded batch per destination host, the time of its next event and whether the RM saw
   every application finish;
3. the coordinator routes the batches and starts the next window at the earliest pending time (idle stretches are
   skipped), each window as long as the smallest latency between hosts.

The hosts live behind :class:`~yarnball.launcher._hosts.HostGroup` (the seam, launcher/_hosts.py):
:class:`~yarnball.launcher._hosts.InProcessHosts` runs them in this process (fast
tests, no Ray), ``yarnball.launcher._ray.RayHosts`` runs each in its own Ray actor.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from yarnball.actors._appmaster import ApplicationMaster
from yarnball.actors._failures import HandlerFailures
from yarnball.actors._resourcemanager import validate_configs
from yarnball.errors import SimulationError, YarnballError
from yarnball.launcher._clusterconf import DEFAULT_CLUSTER_TIMESTAMP, ConfSource, normalized_conf
from yarnball.launcher._gc import tuned_gc
from yarnball.launcher._hosts import HostGroup, HostView, InProcessHosts, WindowResult
from yarnball.launcher._shard import BalancedPlacement
from yarnball.launcher.workloads import NodeSpec, SkippedJob
from yarnball.policies.scheduler import QueueMetrics, validate_scheduler_configuration
from yarnball.protocols import ApplicationReport, keys

__all__ = ["HostGroup", "HostView", "InProcessHosts", "ShardedBackend", "WindowResult"]


class ShardedBackend:
    """The backend of a ``Cluster`` whose actors run on shard hosts (``backend="ray"``, or ``"inprocess"`` for tests).

    Same building and running calls as the embedded cluster and, for the same seed and latency, the same results.
    The actors themselves live on the hosts: ``masters`` holds the driver's copies of the submitted AMs (their
    state does not follow the run), and ``rm``, ``kernel`` and ``nodes`` are not available here; ask
    ``applications``, ``queues``, ``running_containers``, ``counters`` and ``now`` instead.
    """

    def __init__(
        self,
        conf: ConfSource = None,
        nodes: Sequence[NodeSpec] = (),
        *,
        seed: int = 0,
        cluster_timestamp: int = DEFAULT_CLUSTER_TIMESTAMP,
        backend: str = "ray",
        address: str | None = None,
        hosts: int = 2,
        latency_ms: float | None = None,
        event_log: str | Path | None = None,
        log_level: str = "info",
        clock: str = "virtual",
        wall_factor: float = 1.0,
        placement: Mapping[str, int] | None = None,
        work_dir: str | Path | None = None,
    ) -> None:
        if clock not in ("virtual", "wall"):
            raise SimulationError(f"clock must be 'virtual' or 'wall', got {clock!r}")
        if clock == "wall" and backend != "ray":
            raise SimulationError("clock='wall' (live mode) runs on the ray backend only")
        if backend not in ("ray", "inprocess"):
            raise SimulationError(f"unknown sharded backend {backend!r}; expected 'ray' or 'inprocess'")
        if hosts < 1:
            raise SimulationError(f"hosts must be >= 1, got {hosts}")
        latency = 1.0 if latency_ms is None else float(latency_ms)
        if hosts > 1 and latency <= 0:
            raise SimulationError(
                f"latency_ms={latency_ms}: with {hosts} shard hosts every link needs a latency > 0 ms "
                "(it is the length of the synchronous window)"
            )
        self.conf = normalized_conf(conf)
        validate_scheduler_configuration(self.conf)  # fail at build, as the embedded cluster does
        validate_configs(self.conf)  # (what building the RM checks on the embedded backend)
        self.backend = backend
        self.name = backend  # (ClusterBackend)
        self.address = address
        self.hosts = hosts
        self.latency_ms = latency
        self.seed = seed
        self.rng = random.Random(seed)
        self.cluster_timestamp = cluster_timestamp
        self.event_log = Path(event_log) if event_log is not None else None
        self.log_level = log_level
        self.clock = clock
        self.wall_factor = wall_factor
        self.placement = dict(placement or {})  # actor id -> host, overriding the balancing (the RM stays on 0)
        self.balance = BalancedPlacement(
            hosts, self.conf.get_float(keys.RAY_RM_HOST_SHARE, keys.DEFAULT_RAY_RM_HOST_SHARE)
        )
        #: Live runs: where the real containers' logs and working directories go (on the hosts' machines).
        self.work_dir = str(work_dir) if work_dir is not None else None
        if clock == "wall" and self.work_dir is None:
            import tempfile

            self.work_dir = tempfile.mkdtemp(prefix="yarnball-live-")
        self.heartbeat_interval_ms = self.conf.get_int(keys.RM_NM_HEARTBEAT_INTERVAL_MS)
        self.node_specs: dict[str, NodeSpec] = {}
        self.masters: list[ApplicationMaster] = []
        self.jobs: dict[str, Any] = {}
        self.skipped: list[SkippedJob] = []
        self._steps: list[tuple[Any, ...]] = [("rm", 0)]
        self.faults_scheduled = 0  # faults given to inject (summary.json "faults", with the hosts' counts)
        self._dseq = 1  # the driver's (origin "") sequence, as one kernel would count it
        self._group: HostGroup | None = None
        self._inbound: list[list[bytes]] = [[] for _ in range(hosts)]
        self._peeks: list[float | None] = [-math.inf] * hosts  # each host's next event time, as last reported
        self._now = 0.0
        self._done = False
        self.windows = 0
        #: Per window: the coordinator's wall seconds from sending it to having every result, less the busiest
        #: host's own time (what the window protocol itself costs); and each host's busy seconds in all.
        self.window_overheads: list[float] = []
        self.host_busy = [0.0] * hosts
        self.windows_wall = 0.0
        for spec in nodes:
            self.add_node(spec)

    # -- building (recorded as setup steps) ----------------------------------------------------------------------
    def _placed(self, kind: str) -> tuple[int, ...]:
        """The balanced host of the next NM or AM (launcher/_shard.py BalancedPlacement), live runs included."""
        return (self.balance.place(kind),)

    def _step(self, kind: str, *args: Any) -> None:
        self._steps.append((kind, self._dseq, *args))
        self._dseq += 1

    def add_node(self, spec: NodeSpec, *, start_delay_ms: float | None = None) -> Any:
        """Start a NodeManager for ``spec`` on its host (same seeded start delay as the embedded cluster)."""
        if spec.hostname in self.node_specs:
            raise SimulationError(f"node {spec.hostname!r} is defined twice")
        delay = self.rng.randrange(max(1, self.heartbeat_interval_ms)) if start_delay_ms is None else start_delay_ms
        self.node_specs[spec.hostname] = spec
        self._step("nm", spec, delay, *self._placed("nm"))
        return spec

    def submit(self, am: ApplicationMaster) -> ApplicationMaster:
        """Ship an ApplicationMaster to its host; it submits its application at its ``submit_at_ms``."""
        self._step("am", f"am-{am.name}-{len(self.masters)}", am, *self._placed("am"))
        self.masters.append(am)
        return am

    def submit_running(self, am: ApplicationMaster) -> str:
        """Start ``am`` on its host while the run goes on (a REST submission, launcher/web/_shardsource.py) and
        return its actor id: placed as :meth:`submit` places it, and sent to every host at once (each records where
        it is; its own host spawns it at its current time). Call it between two :meth:`run` calls of virtual time,
        when every host is paused at the same window boundary, or at any time in live mode."""
        self.submit(am)
        actor_id: str = self._steps[-1][2]
        self._flush_steps(self._start())
        return actor_id

    def take_driver_sequence(self) -> int:
        """The driver's next sequence number (origin ""), for an event the driver queues on a host between two
        runs (a REST write): every event the driver queues then has its own canonical key, as on one kernel."""
        seq = self._dseq
        self._dseq += 1
        return seq

    def every(self, interval_ms: float, callback: Callable[[], Any], *, start_ms: float = 0) -> None:
        raise SimulationError(
            "Cluster.every runs driver code inside the simulation, which the sharded backends cannot do; "
            "use record_metrics() for metrics and run(on_progress=...) for progress"
        )

    def inject(self, faults: Any) -> None:
        """Schedule faults (as ``Cluster.inject``), before the first run: each shard host applies those of the
        actors it hosts (launcher/_shardfaults.py). A kind no single host can apply as the embedded run does is
        refused, naming the entry and the backend."""
        from yarnball.launcher._faults import MESSAGE_FAULT_KINDS, as_faults, check_targets
        from yarnball.launcher._shardfaults import check_sharded

        if self._group is not None:
            raise SimulationError("inject: the sharded backends take fault schedules before the first run()")
        parsed = as_faults(faults)
        jobs = [am.name for am in self.masters]
        check_targets(parsed, list(self.node_specs), jobs=jobs, cluster_timestamp=self.cluster_timestamp)
        check_sharded(parsed, self.backend)
        for fault in parsed:
            if fault.kind in MESSAGE_FAULT_KINDS:
                self._steps.append(("fault", self._dseq, fault, self.seed))  # schedules nothing: no sequence taken
            else:
                self._step("fault", fault, self.seed)
        self.faults_scheduled += len(parsed)

    def fail_node(self, host: str, at_ms: float) -> None:
        """Make the NodeManager on ``host`` die at ``at_ms`` (on its own host)."""
        if host not in self.node_specs:
            raise SimulationError(f"fail_node: no node {host!r} in this cluster")
        self._step("fail", host, at_ms)

    def restart_node(self, host: str, at_ms: float, down_ms: float) -> None:
        raise SimulationError("restart_node needs the embedded backend (the sharded backends do not restart NMs yet)")

    def refresh_queues(self, conf: Any, *, at_ms: float | None = None) -> Any:
        """A queue refresh told to the RM at ``at_ms`` (0 if not given) on its host; set up before :meth:`run`."""
        from yarnball.launcher._refresh import refresh_request

        if self._group is not None:
            raise SimulationError("refresh_queues: the sharded backends take refreshes before run() (give at_ms)")
        self._step("refresh", refresh_request(self.conf, conf), 0.0 if at_ms is None else float(at_ms))
        return None

    def record_metrics(self, interval_ms: int, track_jobs: Sequence[str] = ()) -> None:
        """Sample metrics on host 0 every ``interval_ms`` (what ``MetricsRecorder(cluster).start()`` does)."""
        self._step("recorder", int(interval_ms), tuple(track_jobs))

    # -- running ----------------------------------------------------------------------------------------------
    def _start(self) -> HostGroup:
        if self._group is None:
            options = {
                "cluster_timestamp": self.cluster_timestamp,
                "latency_ms": self.latency_ms,
                "placement": self.placement,
                "work_dir": self.work_dir,
            }
            log_parts = None
            if self.event_log is not None:
                log_parts = [str(self.event_log) + f".host{i}" for i in range(self.hosts)]
            if self.backend != "inprocess":
                from yarnball.launcher._about import require_ray

                require_ray("backend='ray' (live mode too)")
            if self.backend == "inprocess":
                self._group = InProcessHosts(self.hosts, self.conf, options)
            elif self.clock == "wall":
                from yarnball.launcher._live import RayLiveHosts

                self._group = RayLiveHosts(
                    self.hosts,
                    self.conf,
                    options,
                    address=self.address,
                    log_parts=log_parts,
                    log_level=self.log_level,
                    factor=self.wall_factor,
                )
            else:
                from yarnball.launcher._hostrecovery import recovering
                from yarnball.launcher._ray import RayHosts

                self._group = recovering(
                    RayHosts(
                        self.hosts,
                        self.conf,
                        options,
                        address=self.address,
                        log_parts=log_parts,
                        log_level=self.log_level,
                    ),
                    self.conf,
                )
        return self._group

    def _flush_steps(self, group: HostGroup) -> None:
        if self._steps:
            steps, self._steps = self._steps, []
            group.setup([*steps, ("expect", len(self.masters))])
            self._peeks = [-math.inf] * group.size  # new actors: every host has work to look at

    def run(self, until_ms: float | None = None, on_progress: Callable[[float], None] | None = None) -> float:
        """Run window by window until every submitted application has finished (or ``until_ms``)."""
        if on_progress is not None:
            self._dseq += 1  # the embedded cluster schedules its progress ticker here
        if self._done or (not self.masters and until_ms is None):
            return self._now
        group = self._start()
        self._flush_steps(group)
        if self.clock == "wall":
            now, done_at = group.run_live(until_ms)  # type: ignore[attr-defined]
            self._done = done_at is not None
            self._now = now
            return now
        with tuned_gc():  # the in-process hosts' actors and the driver's own objects live for the run
            self._now = float(self._windows(group, until_ms, on_progress))
        for i in range(group.size):
            group.call(i, "set_now", self._now)
        return self._now

    def _windows(self, group: HostGroup, until: float | None, on_progress: Callable[[float], None] | None) -> float:
        width = self.latency_ms
        start = self._now
        last = self._now
        next_progress = 0.0
        while True:
            if group.size == 1:
                end, inclusive = until, True
            else:
                end, inclusive = start + width, False
                # The last window may include ``until`` itself only if it is shorter than the latency: a message
                # sent at its start must not be due inside it.
                if until is not None and end > until:
                    end, inclusive = until, True
            peeks = self._peeks
            active = [
                bool(self._inbound[i])
                or (peek is not None and (end is None or peek < end or (inclusive and peek == end)))
                for i in range(group.size)
                for peek in (peeks[i],)
            ]
            sent = time.perf_counter()
            results = group.run_window(end, inclusive, self._inbound, active)
            took = time.perf_counter() - sent
            self.windows += 1
            self.windows_wall += took
            busiest = 0.0
            self._inbound = [[] for _ in range(group.size)]
            pending: list[float] = []
            done_at = None
            for index, result in enumerate(results):
                if result is not None:
                    out, peek, done, last_t, first_out, busy = result
                    self.host_busy[index] += busy
                    busiest = max(busiest, busy)
                    for dst, data in out.items():
                        self._inbound[dst].append(data)
                    peeks[index] = peek
                    if first_out is not None:
                        pending.append(first_out)
                    if done is not None:
                        done_at = done
                    last = max(last, last_t)
                peek = peeks[index]
                if peek is not None:
                    pending.append(peek)
            self.window_overheads.append(took - busiest)
            if on_progress is not None and end is not None and end >= next_progress:
                on_progress(min(end, until) if until is not None else end)
                next_progress = end + 1000
            if done_at is not None:
                self._done = True
                return done_at
            if inclusive:
                return end if end is not None else last
            if not pending:
                if until is None:
                    return last
                start = until
                continue
            assert end is not None  # (a window that does not include its end ends at start + width)
            start = max(end, min(pending))

    def close(self) -> None:
        """Stop the shard hosts (and the local Ray this cluster started), then merge their event logs."""
        stop_key = None
        if self._group is not None:
            group, self._group = self._group, None
            try:
                stop_key = group.call(0, "query", "stop_key") if self._done else None
            except SimulationError:
                stop_key = None
            group.close()
        self.merge_event_log(stop_key)

    def merge_event_log(self, stop_key: tuple[Any, ...] | None = None) -> int:
        """Merge the hosts' key-prefixed logs into ``event_log`` (canonical order) and remove the parts."""
        from yarnball.actors._logging import merge_event_logs

        if self.event_log is None:
            return 0
        parts = [Path(str(self.event_log) + f".host{i}") for i in range(self.hosts)]
        if not any(p.is_file() for p in parts):
            return 0
        count = merge_event_logs(parts, self.event_log, stop_key=stop_key)
        for part in parts:
            part.unlink(missing_ok=True)
        return count

    def kill_host(self, index: int) -> None:
        """Kill shard host ``index`` (fault drills; Ray backend only)."""
        group = self._start()
        kill = getattr(group, "kill", None)
        if kill is None:
            raise SimulationError(f"the {self.backend} backend cannot kill a host")
        kill(index)

    # -- serving (launcher/web/_shardsource.py) ---------------------------------------------------------------
    @property
    def hosts_started(self) -> bool:
        """Whether the shard hosts are up (the web layer starts them in a thread and serves meanwhile)."""
        return self._group is not None and not self._steps

    @property
    def group(self) -> HostGroup:
        """The shard hosts (started, with every setup step applied): what the web layer calls."""
        group = self._start()
        self._flush_steps(group)
        return group

    def finished(self) -> bool:
        """Whether the RM saw every submitted application finish (what stops :meth:`run` without ``until_ms``)."""
        return self._done

    def idle(self) -> bool:
        """Whether no host has anything queued and no batch is in flight (a run without ``until_ms`` ends here)."""
        return all(p is None for p in self._peeks) and not any(self._inbound)

    def wake(self, index: int) -> None:
        """Something was queued on host ``index`` from outside the windows (a REST write): look at it next window."""
        self._peeks[index] = -math.inf

    # -- inspection -------------------------------------------------------------------------------------------
    def _query(self, what: str) -> Any:
        group = self._start()
        self._flush_steps(group)
        return group.call(0, "query", what)

    @property
    def now(self) -> float:
        return self._now

    @property
    def applications(self) -> list[ApplicationReport]:
        return self._query("applications")  # type: ignore[no-any-return]

    @property
    def queues(self) -> list[QueueMetrics]:
        return self._query("queues")  # type: ignore[no-any-return]

    @property
    def running_containers(self) -> int:
        return self._query("running_containers")  # type: ignore[no-any-return]

    @property
    def counters(self) -> dict[str, int]:
        return self._query("counters")  # type: ignore[no-any-return]

    @property
    def nodes(self) -> list[Any]:
        raise SimulationError("the NodeManagers live on the shard hosts; use applications, queues or counters")

    @property
    def handler_failures(self) -> HandlerFailures:
        """Every host's handler failures: the total count and the first few by simulated time."""
        group = self._start()
        return HandlerFailures.merge(group.call(i, "failures") for i in range(group.size))

    @staticmethod
    def _reachable_failures(group: HostGroup) -> HandlerFailures:
        """The handler failures of every host that still answers (the outputs of a run whose host died are written
        from host 0 all the same)."""
        parts = []
        for i in range(group.size):
            try:
                parts.append(group.call(i, "failures"))
            except YarnballError:
                continue
        return HandlerFailures.merge(parts)

    def host_stats(self) -> list[dict[str, Any]]:
        """Per host: actors, events processed, messages sent to and received from other hosts."""
        group = self._start()
        return [group.call(i, "stats") for i in range(group.size)]

    def window_stats(self) -> dict[str, Any]:
        """What the window protocol cost: windows run, the median and mean overhead of a window in µs (the
        coordinator's round trip less the busiest host's own time), each host's busy fraction of the windows' wall
        time, the messages between hosts, and per host the events and messages in and out per window."""
        stats = self.host_stats()
        windows = max(self.windows, 1)
        wall = self.windows_wall
        busy = [round(b / wall, 4) if wall > 0 else 0.0 for b in self.host_busy]
        overheads = self.window_overheads
        return {
            "hosts": self.hosts,
            "latency_ms": self.latency_ms,
            "windows": self.windows,
            "compiled_graph": bool(getattr(self._group, "compiled", False)),
            "host_restarts": int(getattr(self._group, "host_restarts", 0)),  # launcher/_hostrecovery.py
            "rm_host_in_driver": getattr(self._group, "local", None) is not None,
            # Where the NMs and AMs went (launcher/_shard.py BalancedPlacement): host 0's share beside the RM.
            "rm_host_share": self.balance.targets[0] if self.hosts > 1 else 1.0,
            "window_overhead_us_median": round(statistics.median(overheads) * 1e6, 1) if overheads else None,
            "window_overhead_us_mean": round(statistics.fmean(overheads) * 1e6, 1) if overheads else None,
            "host_busy_fraction": busy,
            "cross_host_messages": sum(s["messages_out"] for s in stats),
            "per_host": [
                {
                    "host": s["index"],
                    "actors": s["actors"],
                    "busy_fraction": busy[i],
                    "events_per_window": round(s["events"] / windows, 2),
                    "messages_in": s["messages_in"],
                    "messages_out": s["messages_out"],
                    "messages_in_per_window": round(s["messages_in"] / windows, 2),
                    "messages_out_per_window": round(s["messages_out"] / windows, 2),
                }
                for i, s in enumerate(stats)
            ],
        }

    def write_outputs(
        self, out_dir: str | Path, *, wall_seconds: float, workload: Any = None, plots: bool = True
    ) -> dict[str, Any]:
        """Write the same output files as the embedded run (built on host 0) into ``out_dir``; return the summary.

        On Ray the summary also has a ``ray`` section: :meth:`window_stats` (wall-clock figures, not compared
        between runs)."""
        import json

        group = self._start()
        options = {"wall_seconds": wall_seconds, "seed": self.seed, "workload": workload, "plots": plots}
        failures = self._reachable_failures(group)
        if self.faults_scheduled:
            from yarnball.launcher._shardfaults import merge_counts

            parts = []
            for i in range(group.size):
                try:
                    parts.append(group.call(i, "fault_counts"))
                except YarnballError:
                    continue  # a dead host: its counts are lost with it
            group.call(0, "set_fault_summary", merge_counts(parts, self.faults_scheduled))
        files = group.call(0, "write_outputs", self.jobs, self.skipped, options, self.event_log is not None, failures)
        if self.backend == "ray" and self.clock == "virtual":
            try:
                stats = self.window_stats()
            except SimulationError:
                stats = None  # a dead host: the run's own outputs still get written
            if stats is not None:
                summary = json.loads(files["summary.json"])
                summary["ray"] = stats
                files["summary.json"] = (json.dumps(summary, sort_keys=True, indent=2) + "\n").encode("utf-8")
        out = Path(out_dir)
        for name, data in files.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return json.loads(files["summary.json"])  # type: ignore[no-any-return]
