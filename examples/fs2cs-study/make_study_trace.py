"""Regenerate the FairScheduler-to-CapacityScheduler study's trace (``study-sls.json`` + ``study-nodes.json``).

    python examples/fs2cs-study/make_study_trace.py

4 nodes of 10 GB / 10 vcores (40 containers of 1 GB) and four queues of ``fair/fair-scheduler.xml`` whose demand
comes at different times, so that the FairScheduler's fair shares and the converted CapacityScheduler's capacities
part ways:

- ``analytics`` (weight 2): two large jobs at the start, long tasks; alone, it takes the whole cluster.
- ``prod`` (weight 4): a steady stream of medium jobs, one every 30 s from 30 s on.
- ``adhoc`` (weight 1, ``maxRunningApps`` 2): ten small jobs at once at 60 s; two run at a time.
- ``etl`` (weight 1, ``minResources`` 16 GB): a burst of four wide jobs at 150 s.

Tasks carry no host (off-switch asks: no delay scheduling), so the runs are short: a few seconds each.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
NODES = 4
RACKS = 2


def _job(job_id: str, queue: str, user: str, submit_ms: int, tasks: int, task_ms: tuple[int, int],
         rng: random.Random) -> dict[str, Any]:
    durations = [rng.randint(*task_ms) for _ in range(tasks)]
    entries = [
        {"container.start.ms": submit_ms, "container.end.ms": submit_ms + d, "container.priority": 20,
         "container.type": "map"}
        for d in durations
    ]  # fmt: skip
    return {
        "am.type": "mapreduce",
        "job.start.ms": submit_ms,
        "job.end.ms": submit_ms + max(durations),
        "job.queue.name": queue,
        "job.id": job_id,
        "job.user": user,
        "job.tasks": entries,
    }


def jobs(seed: int = 11) -> list[dict[str, Any]]:
    """The study's jobs, in submission order."""
    rng = random.Random(seed)
    out: list[tuple[int, str, str, int, tuple[int, int]]] = []  # (submit ms, queue, user, tasks, task ms range)
    out += [(0, "analytics", "ana", 30, (150_000, 240_000)), (5_000, "analytics", "ana", 30, (150_000, 240_000))]
    out += [(30_000 + 30_000 * i, "prod", "svc", 8, (40_000, 80_000)) for i in range(12)]
    out += [(60_000 + 500 * i, "adhoc", f"analyst{i % 3}", 2, (20_000, 40_000)) for i in range(10)]
    out += [(150_000 + 2_000 * i, "etl", "etl", 12, (60_000, 90_000)) for i in range(4)]
    out.sort(key=lambda j: j[0])
    return [
        _job(f"job_{n:03d}", queue, user, submit, tasks, task_ms, rng)
        for n, (submit, queue, user, tasks, task_ms) in enumerate(out)
    ]


def main() -> None:
    trace = jobs()
    (HERE / "study-sls.json").write_text("\n".join(json.dumps(j, indent=1) for j in trace) + "\n")
    racks = [
        {"rack": f"rack{r}", "nodes": [{"node": f"node{n}"} for n in range(r, NODES, RACKS)]} for r in range(RACKS)
    ]
    (HERE / "study-nodes.json").write_text("\n".join(json.dumps(r, indent=1) for r in racks) + "\n")


if __name__ == "__main__":
    main()
