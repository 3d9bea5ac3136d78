"""Serving a run: the aiohttp application, and ``serve_cluster`` that runs a cluster while serving it.

``build_app(source)`` is the whole web layer as one aiohttp ``Application`` (REST under ``/ws/v1/cluster``, the web
UI under ``/cluster``, ``/`` redirecting to it as the RM does, SLS's live charts at ``/simulate``); tests drive it
in-process with aiohttp's test client.
``serve_cluster`` is what ``yarnball simulate --webapp`` and ``Cluster.serve`` call: it binds the address, runs the
cluster in slices (launcher/web/_driver.py; a cluster on Ray shard hosts, virtual or live, through
launcher/web/_shardsource.py), hands the finished run to ``on_finished`` (the CLI writes its outputs
there) and then keeps serving the final state until Ctrl-C or SIGTERM, unless told to stop with the run.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from yarnball.errors import ConfigurationError
from yarnball.launcher.web._driver import LiveSource, drive
from yarnball.launcher.web._nmrest import add_nm_routes
from yarnball.launcher.web._rest import SOURCE, SnapshotSource, add_rest_routes, remote_exception_middleware
from yarnball.launcher.web._restsubmit import add_submit_routes
from yarnball.launcher.web._restwrite import add_write_routes
from yarnball.launcher.web._shardsource import ShardedSource, drive_sharded, is_sharded
from yarnball.launcher.web._sls import add_sls_routes
from yarnball.launcher.web._ui import add_ui_routes

__all__ = ["ServeResult", "build_app", "parse_address", "serve_cluster"]

DEFAULT_HOST = "127.0.0.1"


def build_app(source: SnapshotSource) -> web.Application:
    """The REST API and the web UI over ``source``'s snapshots."""
    app = web.Application(middlewares=[remote_exception_middleware])
    app[SOURCE] = source
    add_rest_routes(app)
    add_write_routes(app)
    add_submit_routes(app)
    add_nm_routes(app)
    add_ui_routes(app)
    add_sls_routes(app)
    return app


def parse_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` -> (host, port); the host defaults to 127.0.0.1, port 0 picks a free one."""
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host = DEFAULT_HOST
    host = host.strip("[]") or DEFAULT_HOST
    try:
        port = int(port_text)
    except ValueError:
        raise ConfigurationError(f"--webapp: expected [HOST:]PORT, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise ConfigurationError(f"--webapp: port {port} is out of range 0-65535")
    return host, port


@dataclass(slots=True)
class ServeResult:
    end_ms: float  # simulated end time
    wall_seconds: float  # wall time of the run itself (not of the serving after it)
    url: str  # where it was served
    interrupted: bool  # stopped by a signal before the run ended


async def _serve(
    cluster: Any,
    host: str,
    port: int,
    *,
    until_ms: float | None,
    pace: float | None,
    keep_serving: bool,
    on_progress: Callable[[float], None] | None,
    on_started: Callable[[str], None] | None,
    on_finished: Callable[[float], None] | None,
    on_serving_final: Callable[[str], None] | None,
) -> ServeResult:
    source: LiveSource | ShardedSource
    if is_sharded(cluster):  # the Ray backend, virtual or live: snapshots from the shard hosts
        source = ShardedSource(cluster)
        run_cluster: Callable[..., Awaitable[float]] = drive_sharded
    else:
        source = LiveSource(cluster)
        run_cluster = drive
    runner = web.AppRunner(build_app(source), handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as err:
        await runner.cleanup()
        raise ConfigurationError(f"--webapp: cannot listen on {host}:{port}: {err.strerror or err}") from err
    bound = runner.addresses[0] if runner.addresses else (host, port)
    shown = f"[{bound[0]}]" if ":" in str(bound[0]) else str(bound[0])
    url = f"http://{shown}:{bound[1]}"
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
            pass
    try:
        if on_started is not None:
            on_started(url)
        run = asyncio.ensure_future(run_cluster(cluster, source, until_ms=until_ms, pace=pace, on_progress=on_progress))
        waiter = asyncio.ensure_future(stop.wait())
        start = time.perf_counter()
        await asyncio.wait({run, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if not run.done():
            run.cancel()
            waiter.cancel()
            await asyncio.wait({run})  # (a live run stops its hosts when cancelled)
            return ServeResult(float(cluster.now), time.perf_counter() - start, url, True)
        end_ms = run.result()
        wall = time.perf_counter() - start
        if on_finished is not None:
            on_finished(wall)
        if keep_serving:
            if on_serving_final is not None:
                on_serving_final(url)
            while True:  # a REST submission after the end sets source.resume: run again until it is done too
                resumed = asyncio.ensure_future(source.resume.wait())
                await asyncio.wait({waiter, resumed}, return_when=asyncio.FIRST_COMPLETED)
                if waiter.done():
                    resumed.cancel()
                    break
                source.resume.clear()
                again = asyncio.ensure_future(run_cluster(cluster, source, pace=pace))
                await asyncio.wait({again, waiter}, return_when=asyncio.FIRST_COMPLETED)
                if not again.done():  # Ctrl-C/SIGTERM while the late submission runs
                    again.cancel()
                    break
                again.result()  # a failure of the run is the caller's, as for the first run
        else:
            waiter.cancel()
        return ServeResult(end_ms, wall, url, False)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        await runner.cleanup()


def serve_cluster(
    cluster: Any,
    host: str = DEFAULT_HOST,
    port: int = 8088,
    *,
    until_ms: float | None = None,
    pace: float | None = None,
    keep_serving: bool = True,
    on_progress: Callable[[float], None] | None = None,
    on_started: Callable[[str], None] | None = None,
    on_finished: Callable[[float], None] | None = None,
    on_serving_final: Callable[[str], None] | None = None,
) -> ServeResult:
    """Run ``cluster`` while serving it on ``host:port``; see the module docstring."""
    if on_started is None:

        def on_started(url: str) -> None:
            print(
                f"yarnball: serving the RM REST API at {url}/ws/v1/cluster and the web UI at {url}/cluster",
                file=sys.stderr,
            )

    if on_serving_final is None and keep_serving:

        def on_serving_final(url: str) -> None:
            print(
                f"yarnball: the run has ended; still serving its final state at {url}/cluster (Ctrl-C to stop)",
                file=sys.stderr,
            )

    return asyncio.run(
        _serve(
            cluster,
            host,
            port,
            until_ms=until_ms,
            pace=pace,
            keep_serving=keep_serving,
            on_progress=on_progress,
            on_started=on_started,
            on_finished=on_finished,
            on_serving_final=on_serving_final,
        )
    )
