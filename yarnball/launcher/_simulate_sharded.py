"""``yarnball simulate --backend ray`` (:func:`~yarnball.launcher.run_scenario` of a spec with ``backend="ray"``): the
same run and output files as on the embedded backend, on shard hosts."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from yarnball.actors._logging import close_logging, configure_logging
from yarnball.errors import SimulationError, YarnballError
from yarnball.launcher._cluster import Cluster
from yarnball.launcher._refresh import parse_refresh_spec
from yarnball.launcher._scenario import ScenarioSpec

__all__ = ["simulate_sharded"]


def simulate_sharded(
    spec: ScenarioSpec,
    conf: Any,
    workload: Any,
    out: Path,
    track: list[str],
    interval_ms: int,
    progress: Any,
    *,
    webapp: tuple[str, int] | None = None,
    faults: Any = None,
) -> dict[str, Any]:
    """Run ``workload`` on Ray shard hosts and write the outputs into ``out``; return the summary.

    The hosts write their event logs beside ``events.jsonl`` and the driver merges them when the cluster closes.
    If a host dies, whatever host 0 recorded so far is written (when host 0 is alive), the logs are merged, and the
    :class:`~yarnball.errors.SimulationError` naming the host is raised.

    ``--clock wall`` runs live mode (``--pace X``: X simulated ms per real ms); ``--webapp`` serves the run while it
    goes on (launcher/web/_shardsource.py), ``--pace`` with virtual time paces its slices of windows.
    """
    known = {j.job_id for j in workload.jobs}
    live = spec.clock == "wall"
    configure_logging(level="warning", stream=sys.stderr)  # the driver's own warnings; the hosts log the run
    cluster = Cluster(
        conf,
        workload.nodes,
        seed=spec.seed,
        backend="ray",
        address=spec.address,
        hosts=spec.hosts,
        latency_ms=spec.latency_ms,
        event_log=out / "events.jsonl",
        log_level=spec.log_level_name,
        clock=spec.clock,
        wall_factor=spec.pace if live and spec.pace is not None else 1.0,
    )
    finished: dict[str, Any] = {}

    def finish(wall: float) -> None:
        progress.finish()
        finished["summary"] = cluster.write_outputs(
            out, wall_seconds=wall, workload=workload, plots=spec.plots
        )
        if spec.report:  # as the embedded run: the final REST answers (from the hosts), then the page
            from yarnball.launcher.web.report import write_report, write_state

            write_state(out, cluster)
            write_report(out)

    try:
        cluster.submit_workload(workload)
        for refresh in spec.refreshes:  # checked by _simulate._refresh_arguments
            at_ms, conf_dir = parse_refresh_spec(refresh)
            cluster.refresh_queues(conf_dir, at_ms=at_ms)
        if faults:
            cluster.inject(faults)  # (launcher/_shardfaults.py; after the refreshes, as the embedded CLI)
        cluster.record_metrics(interval_ms, [j for j in track if j in known])
        progress.cluster = cluster
        pace = None if live else spec.pace
        start = time.perf_counter()
        try:
            if webapp is not None:
                from yarnball.launcher.web import serve_cluster

                result = serve_cluster(
                    cluster,
                    *webapp,
                    until_ms=spec.until_ms,
                    pace=pace,
                    keep_serving=not spec.webapp_exit,
                    on_progress=progress,
                    on_finished=finish,
                )
                if result.interrupted:
                    raise KeyboardInterrupt
            else:
                if pace is not None:
                    import asyncio

                    from yarnball.launcher.web._shardsource import drive_sharded

                    asyncio.run(drive_sharded(cluster, until_ms=spec.until_ms, pace=pace, on_progress=progress))
                else:
                    cluster.run(until_ms=spec.until_ms, on_progress=progress)
                finish(time.perf_counter() - start)
        except SimulationError:
            try:  # flush what the RM's host recorded so far
                cluster.write_outputs(
                    out, wall_seconds=time.perf_counter() - start, workload=workload, plots=False
                )
            except YarnballError:
                pass
            raise
    finally:
        cluster.close()
        close_logging()
    return finished["summary"]  # type: ignore[no-any-return]
