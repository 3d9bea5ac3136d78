"""The shard hosts of a sharded run, behind one seam: :class:`~yarnball.launcher._hostgroup.HostGroup`.

:class:`HostView` is what runs on each host (the :class:`~yarnball.launcher._shard.ShardHost` plus the queries and
outputs the driver asks for); :class:`InProcessHosts` runs every host in this process (fast tests, no Ray),
``yarnball.launcher._ray.RayHosts`` each in its own Ray actor. The coordinator is launcher/_sharded.py.
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from yarnball.actors._failures import HandlerFailures
from yarnball.actors._shortcuts import ShortcutSettings
from yarnball.errors import SimulationError
from yarnball.launcher._hostgroup import HostGroup, WindowResult
from yarnball.launcher._shard import ShardHost
from yarnball.launcher.workloads import NodeSpec, SkippedJob
from yarnball.policies.placement import SpreadPlacement
from yarnball.protocols import Configuration, keys

__all__ = ["HostGroup", "HostView", "InProcessHosts", "WindowResult"]

class HostView:
    """What runs on a host: the :class:`ShardHost` plus the queries and outputs the driver asks for."""

    def __init__(self, index: int, hosts: int, conf: Configuration, options: dict[str, Any]) -> None:
        self.host = ShardHost(
            index,
            hosts,
            conf,
            cluster_timestamp=options["cluster_timestamp"],
            latency_ms=options["latency_ms"],
            placement=options.get("placement"),
        )
        if hosts == 1 and options["latency_ms"] == 0:
            _skip_like_embedded(self.host, conf)
        self.jobs: dict[str, Any] = {}
        self.skipped: list[SkippedJob] = []
        self.handler_failures = HandlerFailures()  # every host's, set by the driver before the outputs are written
        self.node_specs: list[NodeSpec] = []  # every node of the cluster, wherever it runs (the web view's nodes)
        self.web_asks: Any = None  # REST writes in flight on host 0 (launcher/web/_hostview.py)
        self.faults: Any = None  # the merged fault counts of the run, for write_outputs (set_fault_summary)
        self.windows_run = 0  # host recovery (launcher/_hostrecovery.py): which windows a survivor finished
        self.last_result: WindowResult | None = None

    # The attributes MetricsRecorder and write_outputs read from a cluster, served by host 0.
    @property
    def kernel(self) -> Any:
        return self.host.kernel

    @property
    def rm(self) -> Any:
        return self.host.rm

    @property
    def completed(self) -> Any:
        return self.host.completed

    def every(self, interval_ms: float, callback: Callable[[], Any], *, start_ms: float = 0) -> None:
        kernel = self.host.kernel

        def tick(_: Any) -> None:
            callback()
            kernel.schedule(interval_ms, tick)

        kernel.schedule(start_ms, tick)

    def setup(self, steps: list[tuple[Any, ...]]) -> None:
        plain = []
        for step in steps:
            if step[0] == "recorder":
                if self.host.rm is not None:
                    from yarnball.launcher._outputs import MetricsRecorder

                    self.host.kernel.set_sequence("", step[1])
                    self.host.recorder = MetricsRecorder(self, step[2], track_jobs=step[3])
                    self.host.recorder.start()
            else:
                if step[0] == "nm":
                    self.node_specs.append(step[2])
                plain.append(step)
        self.host.setup(plain)

    def run_window(self, end: float | None, inclusive: bool, inbound: list[bytes]) -> WindowResult:
        host = self.host
        start = time.perf_counter()
        out, peek, done, first = host.run_window(end, inclusive, inbound)
        result = out, peek, done, host.last_event_time, first, time.perf_counter() - start
        self.windows_run += 1
        self.last_result = result
        return result

    # Host recovery (launcher/_hostrecovery.py): how many windows this host ran, its last result, and the replay
    # that rebuilds a dead host in a fresh one.
    def window_count(self) -> int:
        return self.windows_run

    def last_window(self) -> WindowResult | None:
        return self.last_result

    def replay(self, ops: list[tuple[Any, ...]]) -> int | None:
        from yarnball.launcher._hostrecovery import replay

        return replay(self, ops)

    def query(self, what: str) -> Any:
        rm = self.host.rm
        if rm is None:
            raise SimulationError(f"shard host {self.host.index} has no ResourceManager; ask host 0")
        if what == "applications":
            return [app.report() for app in rm.apps.values()]
        if what == "queues":
            return rm.scheduler.queue_metrics()
        if what == "running_containers":
            return len(rm.live)
        if what == "counters":
            return dict(rm.counters)
        if what == "stop_key":
            return self.host.stop_key
        raise SimulationError(f"unknown query {what!r}")

    def web(self, what: str, *args: Any) -> Any:
        """The web layer's host side (launcher/web/_hostview.py): a section of the REST view, or a REST write."""
        from yarnball.launcher.web._hostview import host_call

        return host_call(self, what, *args)

    def stats(self) -> dict[str, Any]:
        host = self.host
        return {
            "index": host.index,
            "actors": len(host.kernel.actors),
            "events": host.kernel.events_processed,
            "messages_out": host.messages_out,
            "messages_in": host.messages_in,
        }

    def set_now(self, now: float) -> None:
        self.host.set_now(now)

    def fault_counts(self) -> tuple[dict[str, int], dict[str, int]]:
        """The faults this host applied and those that found nothing to fault (launcher/_shardfaults.py)."""
        faults = self.host.faults
        if faults is None:
            return {}, {}
        return dict(faults.counts), dict(faults.without_effect)

    def set_fault_summary(self, summary: dict[str, Any]) -> None:
        """The run's merged fault counts, for the summary.json host 0 writes."""
        from yarnball.launcher._shardfaults import FixedFaultSummary

        self.faults = FixedFaultSummary(summary)

    def failures(self) -> HandlerFailures:
        """This host's handler failures (the driver merges every host's)."""
        return HandlerFailures.of_kernel(self.host.kernel)

    def write_outputs(
        self,
        jobs: dict[str, Any],
        skipped: list[SkippedJob],
        options: dict[str, Any],
        event_log: bool,
        failures: HandlerFailures | None = None,
    ) -> dict[str, bytes]:
        """Write the run's outputs (host 0) into a scratch directory and return them as {relative path: bytes};
        ``failures`` are every host's handler failures, for the summary (default: this host's)."""
        import tempfile

        from yarnball.launcher._outputs import write_outputs

        if self.host.rm is None or self.host.recorder is None:
            raise SimulationError("outputs are written by host 0 after record_metrics(); call it before run()")
        self.jobs = jobs
        self.skipped = skipped
        self.handler_failures = failures if failures is not None else self.failures()
        with tempfile.TemporaryDirectory(prefix="yarnball-host0-") as tmp:
            root = Path(tmp)
            if event_log:  # merged by the driver; the summary lists it as the embedded run's does
                (root / "events.jsonl").touch()
            write_outputs(tmp, self, self.host.recorder, **options)
            files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
        files.pop("events.jsonl", None)
        return files


def _skip_like_embedded(host: ShardHost, conf: Configuration) -> None:
    """One host with no modelled latency is one kernel with instant messages, exactly the embedded cluster at
    ``latency_ms=0``: skip idle NM and AM heartbeats when the configuration asks for it and the equality proof
    covers it (the same conditions as ``Cluster._skipping_proven``; a shard host never has an autoscaler)."""
    settings = ShortcutSettings.from_conf(conf)  # all shortcuts off when yarnball.simulation.exact-shortcuts is false
    proven = not (
        conf.get_bool(keys.OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED)
        or conf.get_bool(keys.DIST_SCHEDULING_ENABLED)
        or host.rm is None
        or not isinstance(host.rm.scheduler.placement, SpreadPlacement)
    )
    settings.install_on_host(host.kernel, host.heartbeats, proven)


class InProcessHosts(HostGroup):
    """Every host in this process, run one after the other: the Ray backend's logic without Ray (for tests).

    Setup steps are pickled on the way in, as Ray would, so that objects which cannot travel fail here too.
    """

    def __init__(self, hosts: int, conf: Configuration, options: dict[str, Any]) -> None:
        self.size = hosts
        self.views = [HostView(i, hosts, conf, options) for i in range(hosts)]

    def setup(self, steps: list[tuple[Any, ...]]) -> None:
        for view in self.views:
            view.setup(pickle.loads(pickle.dumps(steps)))

    def run_window(
        self, end: float | None, inclusive: bool, inbound: list[list[bytes]], active: list[bool]
    ) -> list[WindowResult | None]:
        return [view.run_window(end, inclusive, inbound[i]) if active[i] else None for i, view in enumerate(self.views)]

    def call(self, index: int, method: str, *args: Any) -> Any:
        return getattr(self.views[index], method)(*args)

    def close(self) -> None:
        pass
