"""Regenerate the bundled trace (``sample-sls.json`` + ``sample-nodes.json``) that the README's first command simulates.

    python examples/traces/make_sample_trace.py

It is ``yarnball.launcher.workloads.synthetic_workload`` written out once as an SLS JSON trace (one object per job,
SLS's ``job.*`` / ``container.*`` keys) and an SLS node file, so a fresh clone can run a real simulation without
the shared Hadoop samples: 24 nodes of 10 GB / 10 vcores on 3 racks, 40 MapReduce jobs for 4 users, maps
preferring a node (delay scheduling), arrivals offering 1.5x the cluster's capacity.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from yarnball.launcher.workloads import synthetic_workload

HERE = Path(__file__).parent


def main() -> None:
    workload = synthetic_workload(
        40,
        24,
        seed=7,
        nodes_per_rack=8,
        maps=(2, 16),
        reduces=(0, 4),
        map_ms=(5_000, 40_000),
        reduce_ms=(10_000, 60_000),
    )
    write_trace(workload, HERE / "sample-sls.json", HERE / "sample-nodes.json")


def write_trace(workload: Any, sls_path: Path, nodes_path: Path) -> None:
    """Write a built workload as an SLS JSON trace and an SLS node file (also used by bench/bench_sweep.py)."""
    jobs = []
    for job in workload.jobs:
        tasks = []
        start = job.submit_ms
        for task in job.tasks:
            for _ in range(task.count):
                entry = {
                    "container.start.ms": start,
                    "container.end.ms": start + task.duration_ms,
                    "container.priority": task.priority,
                    "container.type": task.task_type,
                }
                if task.hosts:
                    entry = {"container.host": f"{task.rack}/{task.hosts[0]}", **entry}
                tasks.append(entry)
        jobs.append({
            "am.type": job.am_type,
            "job.start.ms": job.submit_ms,
            "job.end.ms": job.submit_ms + max(t.duration_ms for t in job.tasks),
            "job.queue.name": job.queue,
            "job.id": job.job_id,
            "job.user": job.user,
            "job.tasks": tasks,
        })  # fmt: skip
    sls_path.write_text("\n".join(json.dumps(j, indent=1) for j in jobs) + "\n")
    racks: dict[str, list[dict[str, str]]] = defaultdict(list)
    for node in workload.nodes:
        racks[node.rack.strip("/")].append({"node": node.hostname})
    files = [{"rack": rack, "nodes": nodes} for rack, nodes in racks.items()]
    nodes_path.write_text("\n".join(json.dumps(r, indent=1) for r in files) + "\n")


if __name__ == "__main__":
    main()
