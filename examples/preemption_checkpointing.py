"""A checkpointing ApplicationMaster against a restarting one, under the same preemption.

App1 (queue Q1, 31 maps of 5 min then 4 reduces of 1 min) fills the cluster; App2 (Q2, 12 maps of 1 min)
arrives at 60 s and the preemption monitor reclaims Q2's guarantee from App1. Run twice:

- App1 = CheckpointingMRAppMaster: on each PreemptionMessage it checkpoints the named containers, releases
  them and later resumes the tasks from their checkpoints in new containers;
- App1 = RestartingMRAppMaster: it ignores the message; its containers are killed after max_wait_before_kill
  (PREEMPTED, -102) and the tasks start again from zero.

    python examples/preemption_checkpointing.py [--store-dir DIR]

prints, for each run, App1's lost work, how many task attempts were preempted (none counts as a failure) and
both applications' completion times. ``--store-dir`` keeps the checkpoints as JSON files in DIR. ``--fair`` runs
the same under the FairScheduler (two queues of equal weight; its preemption thread reclaims q2's fair share after
``fairSharePreemptionTimeout``, with the same PreemptionMessage first and the kill ``waitTimeBeforeKill`` later).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from yarnball.actors import (
    CheckpointingMRAppMaster,
    CheckpointStore,
    FileSystemCheckpointStore,
    PreemptibleAppMaster,
    RestartingMRAppMaster,
    mapreduce_tasks,
)
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.testing import captured_events

CONF = {
    "yarn.scheduler.capacity.root.queues": "q1,q2",
    "yarn.scheduler.capacity.root.q1.capacity": "50",
    "yarn.scheduler.capacity.root.q2.capacity": "50",
    "yarn.scheduler.capacity.root.q1.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.q1.user-limit-factor": "2",
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
}


FAIR_ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <defaultFairSharePreemptionTimeout>5</defaultFairSharePreemptionTimeout>
  <defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
  <queue name="q1"/>
  <queue name="q2"/>
</allocations>
"""


def fair_conf(directory: str) -> dict[str, str]:
    """The FairScheduler with preemption over q1 and q2 (allocation file written to ``directory``)."""
    path = Path(directory) / "fair-scheduler.xml"
    path.write_text(FAIR_ALLOCATIONS)
    return {
        "yarn.resourcemanager.scheduler.class": "FairScheduler",
        "yarn.scheduler.fair.allocation.file": str(path),
        "yarn.scheduler.fair.preemption": "true",
    }


def run(
    am_class: type[PreemptibleAppMaster],
    store: CheckpointStore | None = None,
    seed: int = 1,
    conf: dict[str, Any] | None = None,
) -> dict[str, float]:
    nodes = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8).build().nodes
    cluster = Cluster(CONF if conf is None else conf, nodes, seed=seed)
    app1 = am_class(
        name="app1", queue="q1", tasks=mapreduce_tasks(31, 4, map_ms=300_000, reduce_ms=60_000), store=store
    )
    app2 = RestartingMRAppMaster(
        name="app2", queue="q2", submit_at_ms=60_000, tasks=mapreduce_tasks(12, map_ms=60_000, prefix="b")
    )
    cluster.submit(app1)
    cluster.submit(app2)
    with captured_events():
        cluster.run(until_ms=7_200_000)
    finish = {am.name: cluster.rm.apps[am.application_id].finish_time for am in (app1, app2)}
    return {
        "work_lost_s": app1.work_lost_ms / 1000,
        "work_resumed_s": app1.work_resumed_ms / 1000,
        "preempted_attempts": app1.preempted_task_attempts,
        "failed_attempts": app1.failed_task_attempts,
        "killed_by_rm": cluster.rm.counters["containers_preempted"],
        "app1_finish_s": finish["app1"] / 1000,
        "app2_finish_s": finish["app2"] / 1000,
    }


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store-dir", default=None, help="keep checkpoints as JSON files here (default: memory)")
    parser.add_argument("--fair", action="store_true", help="run under the FairScheduler with its preemption")
    args = parser.parse_args(argv)
    store = FileSystemCheckpointStore(args.store_dir) if args.store_dir else None
    with tempfile.TemporaryDirectory() as tmp:
        conf = fair_conf(tmp) if args.fair else None
        results = {
            "checkpointing": run(CheckpointingMRAppMaster, store, conf=conf),
            "restarting": run(RestartingMRAppMaster, conf=conf),
        }
    print(
        f"{'App1 AM':14} {'work lost':>10} {'resumed':>9} {'preempted':>9} {'failed':>6} {'killed':>6} "
        f"{'App1 done':>10} {'App2 done':>10}"
    )
    for name, r in results.items():
        print(
            f"{name:14} {r['work_lost_s']:>9.0f}s {r['work_resumed_s']:>8.0f}s {r['preempted_attempts']:>9.0f} "
            f"{r['failed_attempts']:>6.0f} {r['killed_by_rm']:>6.0f} {r['app1_finish_s']:>9.1f}s "
            f"{r['app2_finish_s']:>9.1f}s"
        )
    return results


if __name__ == "__main__":
    main()
