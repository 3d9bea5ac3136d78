"""The end of a live run: the containers of the applications killed last are torn down before the run returns.

When the applications killed are the last ones running, the RM has ended their containers but the NodeManagers still
run them: the kill goes on as in Hadoop (``RMAppImpl`` KILL -> the scheduler ends the RMContainers -> the NM hears of
it in its next heartbeat response -> ``ContainerManagerImpl`` stops the container -> ``ContainerLaunch.
cleanupContainer``: SIGTERM, then SIGKILL ``yarn.nodemanager.sleep-delay-before-sigkill.ms`` later). A live run
(embedded, or a shard host on Ray) keeps its kernel running until every container has reached a final state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["SETTLE_LIMIT_MS", "SETTLE_POLL_S", "settle_containers", "tearing_down"]

#: How often (wall seconds) a live run that waits for its containers' teardown looks at the NodeManagers.
SETTLE_POLL_S = 0.01
#: At most how long (kernel ms) it waits; what has not ended by then is killed outright (the executors' shutdown).
SETTLE_LIMIT_MS = 30_000.0


def tearing_down(node_managers: Iterable[Any]) -> bool:
    """Whether one of these NodeManagers still holds a container that has not reached a final state."""
    return any(nm.tearing_down for nm in node_managers)


async def settle_containers(
    kernel: Any, busy: Callable[[], Any], until_ms: float | None, *, wait_when_idle: bool = False
) -> float:
    """Run the live ``kernel`` again until ``busy()`` is false (looked at every ``SETTLE_POLL_S`` of wall time;
    a coroutine function is awaited), at most ``SETTLE_LIMIT_MS`` and not past ``until_ms``; the kernel's time."""
    if not await _call(busy):
        return float(kernel.now)
    limit = kernel.now + SETTLE_LIMIT_MS
    until = limit if until_ms is None else min(until_ms, limit)

    async def watch() -> None:
        while await _call(busy):
            await asyncio.sleep(SETTLE_POLL_S)
        kernel.stop()

    watcher = asyncio.ensure_future(watch())
    try:
        return float(await kernel.run_async(until=until, wait_when_idle=wait_when_idle))
    finally:
        watcher.cancel()


async def _call(busy: Callable[[], Any]) -> bool:
    value = busy()
    if asyncio.iscoroutine(value):
        value = await value
    return bool(value)
