"""The Ray side of the sharded backend: each shard host in its own Ray actor. Imported only for ``backend="ray"``.

One Ray actor per simulated node would cost a process (~80 MB) and a ~1-2 ms call per message; here a handful of
host actors each run a kernel with thousands of yarnball actors, and the coordinator makes one call per host per
window, carrying the encoded batches (Ray's own advice: batch, and avoid ``ray.get`` in a loop).

The window loop is a static graph run thousands of times (coordinator -> every host -> coordinator), so after
``yarnball.ray.compiled-graph-after-windows`` plain windows the coordinator compiles it into a Ray Compiled Graph
(``ray.dag``, ``experimental_compile()``): Ray then sets up shared-memory channels once and each window is a write
and a read on them instead of a scheduled task per host. The compiled loop runs on each actor's own system thread,
so the plain calls between runs (queries, outputs) still reach the actor; the driver makes them only between
windows.

Host 0 (the ResourceManager's) runs in the driver's own process unless ``yarnball.ray.rm-host-in-driver`` is false
(:class:`LocalHost`): the driver writes the other hosts' inputs, runs host 0's window itself and then reads their
results. Ray's channel reads spin while they wait, so a driver that only waited took a core from the hosts (measured:
a 2-host window's second host started only after the first had finished, bench/history/2026-11.md, 2026-11-25);
now it works through that time, and a window needs one Ray process fewer.

Every host configures yarnball's logging in its own worker process (driver-side configuration does not reach Ray
workers), writing key-prefixed JSON lines that the driver merges. Ray's exceptions are translated at this boundary:
a dead host becomes a :class:`~yarnball.errors.SimulationError` naming it, with Ray's error as the cause.
"""

from __future__ import annotations

import gc
import pickle
import statistics
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ray
import structlog
from ray.dag import InputNode, MultiOutputNode
from ray.exceptions import RayActorError, RayError, RayTaskError

from yarnball._logs import get_logger
from yarnball.actors._logging import close_logging, configure_worker_logging, flush_logging, worker_logging_config
from yarnball.errors import SimulationError, YarnballError
from yarnball.launcher._gc import RUN_THRESHOLDS
from yarnball.launcher._hosts import HostGroup, HostView, WindowResult
from yarnball.protocols import Configuration, keys

__all__ = ["RayHosts", "start_ray"]

log = get_logger(__name__)


class _HostActor:
    """The body of one shard host's Ray actor: a :class:`HostView` and its logging.

    An actor is a process that takes about a second to start here, so a closed cluster's host actors are kept
    for the next cluster of the session (on a Ray this process did not start) and re-initialised by :meth:`reset`.
    """

    def __init__(self) -> None:
        self.view: HostView | None = None
        self.thresholds = gc.get_threshold()

    def reset(
        self,
        index: int,
        hosts: int,
        conf: Configuration,
        options: dict[str, Any],
        log_part: str | None,
        log_level: str,
    ) -> None:
        configure_worker_logging(log_part, log_level)
        self.view = HostView(index, hosts, conf, options)

    def setup(self, steps: list[tuple[Any, ...]]) -> None:
        assert self.view is not None
        self.view.setup(steps)
        # The actors just built live for the whole run: keep them out of the collector's generations, and let
        # short-lived objects die before a collection looks at them (launcher/_gc.py; this worker process belongs
        # to the host, close() restores both).
        gc.freeze()
        gc.set_threshold(*RUN_THRESHOLDS)
        flush_logging()

    def run_window(self, end: float | None, inclusive: bool, inbound: list[bytes]) -> WindowResult:
        assert self.view is not None
        try:
            return self.view.run_window(end, inclusive, inbound)
        finally:
            flush_logging()  # what a host logged survives its death

    def window(self, arg: tuple[float | None, bool, list[bytes], bool]) -> WindowResult | None:
        """One window in the compiled graph: (end, inclusive, inbound batches, active); None when not active."""
        end, inclusive, inbound, active = arg
        if not active:
            return None
        return self.run_window(end, inclusive, inbound)

    def ping(self) -> bool:
        return True

    def call(self, method: str, *args: Any) -> Any:
        return getattr(self.view, method)(*args)

    def close(self) -> None:
        self.view = None
        close_logging()
        gc.unfreeze()  # the next cluster on this actor freezes its own setup
        gc.set_threshold(*self.thresholds)


_RayHostActor = ray.remote(num_cpus=0, max_restarts=0)(_HostActor)

#: Idle host actors of closed clusters, reused by the next cluster on the same Ray.
_idle: list[Any] = []


#: Windows over which the compiled loop's overhead is compared with the plain calls' before it is kept.
TRIAL_WINDOWS = 200


def _overhead(start: float, results: list[WindowResult | None]) -> float:
    """A window's cost beyond its busiest host's own work."""
    return time.perf_counter() - start - max((r[5] for r in results if r is not None), default=0.0)


def _host_error(index: int, what: str, exc: RayTaskError) -> YarnballError:
    """A host's own exception, translated at the boundary: a yarnball error keeps its type, with the host named."""
    cause = exc.cause if isinstance(exc.cause, BaseException) else exc
    if isinstance(cause, YarnballError):
        error = type(cause)(f"shard host {index}: {cause}")
    else:
        error = SimulationError(f"shard host {index} failed during {what}: {cause}")
    error.__cause__ = exc
    return error


def start_ray(address: str | None) -> bool:
    """Connect to Ray (``address``) or start a small local one; return True if this call started it."""
    if ray.is_initialized():
        return False
    try:
        if address is None:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    except (RayError, ConnectionError, ValueError, RuntimeError) as exc:
        where = f"the Ray cluster at {address!r}" if address else "a local Ray"
        raise SimulationError(f"could not start or join {where}: {exc}") from exc
    return True


class LocalHost:
    """Shard host 0 in the driver's process (``yarnball.ray.rm-host-in-driver``).

    Logging is per process and each host writes its own key-prefixed part, so every call into this host runs under
    the configuration a host actor would have (its event log part, or warnings only), swapped in and out around
    the call; the driver's own configuration is untouched outside them. Setup steps are copied by pickling, as they
    are for a Ray actor: the driver's copies of the AMs must not follow the run.
    """

    def __init__(
        self, hosts: int, conf: Configuration, options: dict[str, Any], log_part: str | None, log_level: str
    ) -> None:
        self._config, self._file = worker_logging_config(log_part, log_level)
        self._outer: dict[str, Any] | None = None
        with self.logging():
            self.view = HostView(0, hosts, conf, options)

    @contextmanager
    def logging(self) -> Iterator[None]:
        outer = structlog.get_config() if structlog.is_configured() else None
        structlog.configure(**self._config)
        try:
            yield
        finally:
            if self._file is not None:
                self._file.flush()  # what the host logged survives the driver's death, as a host actor's does
            if outer is None:
                structlog.reset_defaults()
            else:
                structlog.configure(**outer)

    def setup(self, steps: list[tuple[Any, ...]]) -> None:
        with self.logging():
            self.view.setup(pickle.loads(pickle.dumps(steps)))

    def run_window(self, end: float | None, inclusive: bool, inbound: list[bytes]) -> WindowResult:
        with self.logging():
            return self.view.run_window(end, inclusive, inbound)

    def call(self, method: str, *args: Any) -> Any:
        with self.logging():
            return getattr(self.view, method)(*args)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class RayHosts(HostGroup):
    """``hosts`` shard hosts, each a Ray actor; Ray is started locally unless it is running or ``address`` is set."""

    def __init__(
        self,
        hosts: int,
        conf: Configuration,
        options: dict[str, Any],
        *,
        address: str | None = None,
        log_parts: list[str] | None = None,
        log_level: str = "info",
    ) -> None:
        self.size = hosts
        #: Plain windows before the loop is compiled (-1: never); a single host runs the whole span in one window.
        self.compile_after = conf.get_int(
            keys.RAY_COMPILED_GRAPH_AFTER_WINDOWS, keys.DEFAULT_RAY_COMPILED_GRAPH_AFTER_WINDOWS
        )
        self._plain_windows = 0
        self._dag: Any = None
        self.compiled = False  # whether any window of this run went through the compiled graph
        # Each window's overhead (round trip less the busiest host's time), the last plain ones and the first
        # compiled ones: see _judge.
        self._plain_overheads: deque[float] = deque(maxlen=TRIAL_WINDOWS)
        self._compiled_overheads: list[float] = []
        self._started_ray = start_ray(address)
        if self._started_ray:
            _idle.clear()  # actors of an earlier Ray are gone
        self._dead: set[int] = set()
        #: Host 0 (the RM's) in this process: its window runs here while the other hosts run theirs, so the driver
        #: works instead of waiting on a channel, and a window needs one Ray process fewer (see the module docs).
        self.local: LocalHost | None = None
        if conf.get_bool(keys.RAY_RM_HOST_IN_DRIVER, keys.DEFAULT_RAY_RM_HOST_IN_DRIVER):
            self.local = LocalHost(hosts, conf, options, log_parts[0] if log_parts else None, log_level)
        #: The hosts in Ray actors, in host order, and the actor of each.
        self.remote = list(range(1 if self.local is not None else 0, hosts))
        self._reset_args = (hosts, conf, options, log_parts, log_level)  # to replace a dead host (replace)
        self.actors = [_idle.pop() if _idle else _RayHostActor.remote() for _ in self.remote]
        refs = [
            actor.reset.remote(i, hosts, conf, options, log_parts[i] if log_parts else None, log_level)
            for i, actor in zip(self.remote, self.actors, strict=True)
        ]
        try:
            ray.get(refs)
        except RayError:  # an idle actor did not survive: start fresh ones
            self.actors = [_RayHostActor.remote() for _ in self.remote]
            refs = [
                actor.reset.remote(i, hosts, conf, options, log_parts[i] if log_parts else None, log_level)
                for i, actor in zip(self.remote, self.actors, strict=True)
            ]
            self._get(refs, "start", self.remote)

    def _get(self, refs: list[Any], what: str, indexes: list[int] | None = None) -> list[Any]:
        try:
            return ray.get(refs)  # type: ignore[no-any-return]
        except RayError:
            pass
        # Find which host failed, in host order, so that the error names the first one.
        for index, ref in zip(indexes if indexes is not None else range(len(refs)), refs, strict=True):
            try:
                ray.get(ref)
            except RayActorError as exc:
                self._dead.add(index)
                raise SimulationError(
                    f"shard host {index} of {self.size} died during {what}; the run stopped "
                    "(outputs and event logs so far are kept)"
                ) from exc
            except RayTaskError as exc:
                raise _host_error(index, what, exc) from exc
        raise SimulationError(f"a shard host failed during {what}")  # pragma: no cover - ray reported, then recovered

    def setup(self, steps: list[tuple[Any, ...]]) -> None:
        # The steps go into the object store only for hosts in Ray actors: one host in the driver would pickle
        # every AM into it once more for nothing.
        refs: list[Any] = []
        if self.actors:
            ref = ray.put(steps)
            refs = [a.setup.remote(ref) for a in self.actors]
        if self.local is not None:
            self.local.setup(steps)
        self._get(refs, "setup", self.remote)

    def run_window(
        self, end: float | None, inclusive: bool, inbound: list[list[bytes]], active: list[bool]
    ) -> list[WindowResult | None]:
        if self._dag is None and self.size > 1 and self.remote and 0 <= self.compile_after <= self._plain_windows:
            self._compile()
        start = time.perf_counter()
        if self._dag is not None:
            results = self._run_compiled(end, inclusive, inbound, active)
            if len(self._compiled_overheads) < TRIAL_WINDOWS:
                self._compiled_overheads.append(_overhead(start, results))
                if len(self._compiled_overheads) == TRIAL_WINDOWS:
                    self._judge()
            return results
        results = self._run_plain(end, inclusive, inbound, active)
        self._plain_overheads.append(_overhead(start, results))
        return results

    def _judge(self) -> None:
        """Keep the compiled loop only if its first windows cost less than the plain windows before it. On a
        machine with fewer cores than hosts + 1, its channels' waits compete with the hosts for the CPU and a
        compiled window measured slower than a plain call (bench/history/2026-11.md, 2026-11-25); the results are the
        same either way, so the cheaper one is kept."""
        plain, compiled = self._plain_overheads, self._compiled_overheads
        if plain and statistics.fmean(compiled) > statistics.fmean(plain):
            log.info(
                "compiled_graph_dropped",
                compiled_us=round(statistics.fmean(compiled) * 1e6),
                plain_us=round(statistics.fmean(plain) * 1e6),
            )
            self._teardown()
            self.compile_after = -1

    def _run_plain(
        self, end: float | None, inclusive: bool, inbound: list[list[bytes]], active: list[bool]
    ) -> list[WindowResult | None]:
        self._plain_windows += 1
        indexes = [i for i in self.remote if active[i]]
        offset = self.remote[0] if self.remote else 0
        refs = [self.actors[i - offset].run_window.remote(end, inclusive, inbound[i]) for i in indexes]
        results: list[WindowResult | None] = [None] * self.size
        if self.local is not None and active[0]:
            results[0] = self.local.run_window(end, inclusive, inbound[0])
        got = self._get(refs, f"the window ending at {end} ms", indexes) if refs else []
        for i, result in zip(indexes, got, strict=True):
            results[i] = result
        return results

    def _compile(self) -> None:
        """Compile the window loop: the input's element i goes to host i's ``window``, every result comes back."""
        with InputNode() as window:
            graph = MultiOutputNode([actor.window.bind(window[i]) for i, actor in enumerate(self.actors)])
        try:
            self._dag = graph.experimental_compile()
        except RayError as exc:  # e.g. a host died before the first window: the plain call names it
            log.warning("compiled_graph_unavailable", error=str(exc))
            self.compile_after = -1
            return
        self.compiled = True

    def _run_compiled(
        self, end: float | None, inclusive: bool, inbound: list[list[bytes]], active: list[bool]
    ) -> list[WindowResult | None]:
        what = f"the window ending at {end} ms"
        results: list[WindowResult | None] = [None] * self.size
        failure: BaseException | None = None
        try:
            refs = self._dag.execute(*[(end, inclusive, inbound[i], active[i]) for i in self.remote])
            if self.local is not None and active[0]:
                results[0] = self.local.run_window(end, inclusive, inbound[0])
            for index, ref in zip(self.remote, refs, strict=True):
                # every result is read, so the graph stays usable after a task error
                try:
                    results[index] = ref.get(timeout=-1)  # a window takes as long as it takes
                except RayTaskError as exc:
                    if failure is None:
                        failure = _host_error(index, what, exc)
        except RayError as exc:  # a host died: the channels are closed (Ray reports it in one of several ways)
            self._teardown()
            self._find_dead(what)
            raise SimulationError(f"the compiled window loop broke during {what}: {exc}") from exc
        if failure is not None:
            raise failure
        return results

    def _find_dead(self, what: str) -> None:
        """Raise the SimulationError naming the first dead host, if any (after the compiled loop broke)."""
        self._get([actor.ping.remote() for actor in self.actors], what, self.remote)

    def _teardown(self) -> None:
        dag, self._dag = self._dag, None
        if dag is not None:
            try:
                dag.teardown()
            except RayError:
                log.warning("compiled_graph_teardown_failed")

    def call(self, index: int, method: str, *args: Any) -> Any:
        if index in self._dead:
            raise SimulationError(f"shard host {index} is dead; {method} is not available")
        if index == 0 and self.local is not None:
            return self.local.call(method, *args)
        actor = self.actors[index - self.remote[0]]
        return self._get([actor.call.remote(method, *args)], method, [index])[0]

    @property
    def dead(self) -> frozenset[int]:
        """The hosts found dead so far (launcher/_hostrecovery.py rebuilds them)."""
        return frozenset(self._dead)

    def replace(self, index: int) -> None:
        """Put a fresh, reset host actor in place of dead host ``index`` (its event-log part starts over). The
        compiled window loop is torn down for good: the windows after a recovery are plain calls."""
        self._teardown()
        self.compile_after = -1
        if index == 0 and self.local is not None:
            raise SimulationError("shard host 0 runs in the driver's process (yarnball.ray.rm-host-in-driver)")
        hosts, conf, options, log_parts, log_level = self._reset_args
        actor = _RayHostActor.remote()
        ref = actor.reset.remote(index, hosts, conf, options, log_parts[index] if log_parts else None, log_level)
        self.actors[index - self.remote[0]] = actor
        self._dead.discard(index)
        self._get([ref], "restart", [index])

    def kill(self, index: int) -> None:
        """Kill one host's Ray actor (fault injection for tests and drills)."""
        if index == 0 and self.local is not None:
            raise SimulationError("shard host 0 runs in the driver's process (yarnball.ray.rm-host-in-driver)")
        ray.kill(self.actors[index - self.remote[0]], no_restart=True)

    def close(self) -> None:
        self._teardown()
        if self.local is not None:
            self.local.close()
        live = [a.close.remote() for i, a in zip(self.remote, self.actors, strict=True) if i not in self._dead]
        try:
            ray.get(live, timeout=30)
        except RayError:
            log.warning("shard_host_close_failed")
        for index, actor in zip(self.remote, self.actors, strict=True):
            if self._started_ray or index in self._dead:
                ray.kill(actor, no_restart=True)
            else:
                _idle.append(actor)
        self.actors = []
        if self._started_ray:
            ray.shutdown()
