"""Live mode on Ray: the same shard hosts, paced by the wall clock, exchanging messages as soon as they are sent.

There are no windows here. Each host is an asyncio Ray actor running its kernel with ``Kernel.run_async`` under a
:class:`~yarnball.actors.WallClock`, so heartbeats and container run times are real timers, and an AM written for
the simulation runs unchanged. A message for another host is encoded into that host's batch and sent at the next
turn of the host's event loop; the receiver queues it at its deliver time, or at once if its clock is already past
it (hosts' clocks start a few ms apart). Live runs are not deterministic, by nature.

Each NodeManager gets a live executor (actors/executors) once it is set up, so containers whose launch context asks
for real work run as processes of the host's machine, with their logs under ``options["work_dir"]``. When the last
application ends, host 0 (the RM's) keeps running until no host's NodeManagers hold a container that has not ended:
the containers of applications killed last are stopped as Hadoop stops them (launcher/_settle.py) before the run
returns.
"""

from __future__ import annotations

import asyncio
from typing import Any

import ray

from yarnball.actors import WallClock
from yarnball.actors._logging import close_logging, configure_worker_logging, flush_logging
from yarnball.errors import SimulationError
from yarnball.launcher._hosts import HostGroup, HostView, WindowResult
from yarnball.launcher._ray import start_ray
from yarnball.launcher._settle import settle_containers, tearing_down
from yarnball.protocols import Configuration

__all__ = ["RayLiveHosts"]


class _LiveHostActor:
    """One live shard host: a :class:`HostView` whose kernel runs on this actor's asyncio loop."""

    def __init__(self) -> None:
        self.view: HostView | None = None
        self.index = 0
        self.work_dir = "yarnball-live"
        self.peers: list[Any] = []
        self._flush_pending = False
        self._stopped = False

    async def reset(
        self,
        index: int,
        hosts: int,
        conf: Configuration,
        options: dict[str, Any],
        log_part: str | None,
        log_level: str,
        factor: float,
    ) -> None:
        configure_worker_logging(log_part, log_level)
        self.view = HostView(index, hosts, conf, options)
        self.index = index
        self.work_dir = options.get("work_dir") or "yarnball-live"
        host = self.view.host
        host.kernel.clock = WallClock(factor)
        host.live = True
        host.on_send = self._flush_soon

    async def connect(self, peers: list[Any]) -> None:
        self.peers = peers

    async def setup(self, steps: list[tuple[Any, ...]]) -> None:
        assert self.view is not None
        self.view.setup(steps)
        from yarnball.actors._nodemanager import NodeManager
        from yarnball.actors.executors import LiveExecutor, start_forkserver

        host = self.view.host
        for actor in host.kernel.actors.values():
            if isinstance(actor, NodeManager) and actor.executor is None:
                start_forkserver()
                actor.executor = LiveExecutor(actor, host.conf, self.work_dir)

    def _flush_soon(self) -> None:
        if not self._flush_pending:
            self._flush_pending = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_pending = False
        assert self.view is not None
        for dst, data in self.view.host.take_outbox().items():
            self.peers[dst].deliver.remote(data)  # fire and forget; the receiver orders by key

    async def deliver(self, data: bytes) -> None:
        assert self.view is not None
        self.view.host.deliver([data])

    async def run(self, until: float | None) -> tuple[float, float | None]:
        assert self.view is not None
        host = self.view.host
        # An idle host is not done: its actors may be waiting for another host (an AM for the RM's reply, an NM
        # between two heartbeats); host 0 ends the run (every application finished) and stop() ends the others.
        if not self._stopped:
            await host.kernel.run_async(until, wait_when_idle=True)
            if host.done_at is not None and not self._stopped:  # host 0: the last application ended
                settled_from = host.kernel.events_processed
                await settle_containers(host.kernel, self._tearing_down_anywhere, until, wait_when_idle=True)
                if host.kernel.events_processed != settled_from:
                    host.stop_key = None  # the merged event log keeps the teardown (nothing to cut at the end)
        self._stop_executors()  # (only what did not end within settle_containers' bound)
        self._flush()
        flush_logging()
        return host.kernel.now, host.done_at

    def _node_managers(self) -> list[Any]:
        from yarnball.actors._nodemanager import NodeManager

        assert self.view is not None
        return [a for a in self.view.host.kernel.actors.values() if isinstance(a, NodeManager)]

    async def busy(self) -> bool:
        """Whether a NodeManager of this host holds a container that has not ended yet."""
        return tearing_down(self._node_managers())

    async def _tearing_down_anywhere(self) -> bool:
        if tearing_down(self._node_managers()):
            return True
        others = [peer.busy.remote() for i, peer in enumerate(self.peers) if i != self.index]
        return any(await asyncio.gather(*others))

    async def stop(self) -> None:
        assert self.view is not None
        self._stopped = True  # a stop that arrives before run(): the run does not start
        self.view.host.kernel.stop()

    def _stop_executors(self) -> None:
        if self.view is None:
            return
        for actor in self.view.host.kernel.actors.values():
            executor = getattr(actor, "executor", None)
            if executor is not None:
                executor.shutdown()

    async def call(self, method: str, *args: Any) -> Any:
        return getattr(self.view, method)(*args)

    async def close(self) -> None:
        self.view = None
        close_logging()


_RayLiveHostActor = ray.remote(num_cpus=0, max_restarts=0)(_LiveHostActor)


class RayLiveHosts(HostGroup):
    """``hosts`` live shard hosts as asyncio Ray actors (started fresh, killed on close)."""

    def __init__(
        self,
        hosts: int,
        conf: Configuration,
        options: dict[str, Any],
        *,
        address: str | None = None,
        log_parts: list[str] | None = None,
        log_level: str = "info",
        factor: float = 1.0,
    ) -> None:
        self.size = hosts
        self._started_ray = start_ray(address)
        self.actors = [_RayLiveHostActor.remote() for _ in range(hosts)]
        ray.get(
            [
                a.reset.remote(i, hosts, conf, options, log_parts[i] if log_parts else None, log_level, factor)
                for i, a in enumerate(self.actors)
            ]
        )
        ray.get([a.connect.remote(self.actors) for a in self.actors])

    def setup(self, steps: list[tuple[Any, ...]]) -> None:
        ray.get([a.setup.remote(steps) for a in self.actors])

    def run_window(
        self, end: float | None, inclusive: bool, inbound: list[list[bytes]], active: list[bool]
    ) -> list[WindowResult | None]:
        raise SimulationError("a live (wall-clock) cluster has no windows; run() drives it")

    def run_live(self, until: float | None) -> tuple[float, float | None]:
        """Run every host on the wall clock until the RM sees every application finish (or ``until``)."""
        refs = [a.run.remote(until) for a in self.actors]
        try:
            now, done_at = ray.get(refs[0])  # host 0 (the RM) decides when the run is over
            ray.get([a.stop.remote() for a in self.actors[1:]])
            ray.get(refs[1:])
        except ray.exceptions.RayActorError as exc:
            raise SimulationError(f"a live shard host died: {exc}") from exc
        return now, done_at

    def call(self, index: int, method: str, *args: Any) -> Any:
        return ray.get(self.actors[index].call.remote(method, *args))

    def stop(self) -> None:
        """Ask every host to stop its kernel (a served run interrupted by Ctrl-C): ``run_live`` then returns."""
        for actor in self.actors:
            actor.stop.remote()

    def close(self) -> None:
        try:
            ray.get([a.close.remote() for a in self.actors], timeout=30)
        except ray.exceptions.RayError:
            pass
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors = []
        if self._started_ray:
            ray.shutdown()
