"""Regenerate the sweep example's trace (``two-queue-sls.json`` + ``two-queue-nodes.json``).

    python examples/sweeps/make_two_queue_trace.py

The bundled sample trace sends every job to ``default``, so preemption has nothing to take there. This one is the
same generator (``synthetic_workload``: MapReduce jobs, arrivals offering 1.5x the cluster's capacity) on 8 nodes,
with tasks of 1-4 minutes (maps) and 0.5-2 minutes (reduces), and the jobs alternating between ``default`` and
``batch``. Long tasks are what makes preemption matter: short ones end on their own before the policy's
``max_wait_before_kill`` (15 s) runs out. In the ``skewed`` layout (default 80%, batch 20%) ``batch`` grows past its
guarantee and gives containers back when ``default`` asks; in ``even`` (50/50) the queues rarely cross.
"""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec

from yarnball.launcher.workloads import synthetic_workload

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "traces"))

from make_sample_trace import write_trace  # noqa: E402


def main() -> None:
    workload = synthetic_workload(
        40,
        8,
        seed=7,
        nodes_per_rack=4,
        maps=(2, 16),
        reduces=(0, 4),
        map_ms=(60_000, 240_000),
        reduce_ms=(30_000, 120_000),
    )
    jobs = tuple(
        msgspec.structs.replace(job, queue="batch" if i % 2 else "default") for i, job in enumerate(workload.jobs)
    )
    workload = msgspec.structs.replace(workload, jobs=jobs)
    write_trace(workload, HERE / "two-queue-sls.json", HERE / "two-queue-nodes.json")


if __name__ == "__main__":
    main()
