"""bench/bench_simulation.py's ``--scheduler``: the busy benchmark under the CapacityScheduler, the FairScheduler or
the FifoScheduler, chosen through yarn.resourcemanager.scheduler.class, with the same queue (root.default) and
workload, its utilisation read from the scheduler's root QueueMetrics."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from yarnball.launcher import Cluster
from yarnball.policies.capacity import CapacityScheduler
from yarnball.policies.fair._fairscheduler import FairScheduler
from yarnball.policies.fifo import FifoScheduler

SCHEDULER_TYPES = {"capacity": CapacityScheduler, "fair": FairScheduler, "fifo": FifoScheduler}


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """bench/bench_simulation.py as a module."""
    path = Path(__file__).resolve().parent.parent / "bench" / "bench_simulation.py"
    spec = importlib.util.spec_from_file_location("bench_simulation", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["capacity", "fair", "fifo"])
def test_each_scheduler_runs_the_busy_cluster_and_reports_its_utilisation(
    bench: ModuleType, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--scheduler NAME runs the benchmark's tiny busy cluster on that scheduler, all jobs in root.default, and its
    memory utilisation is the root queue's (getRootQueueMetrics), sampled every simulated second."""
    made: list[Cluster] = []

    def cluster(*args: Any, **kwargs: Any) -> Cluster:
        made.append(Cluster(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(bench, "Cluster", cluster)
    r = bench.run(20, 15, warmup_seconds=25, measure_memory=False, scheduler=name)
    scheduler = made[0].scheduler
    assert type(scheduler) is SCHEDULER_TYPES[name]
    assert r["allocations"] > 0 and 0.5 < r["utilization_min"] <= r["utilization_mean"] <= 1.0
    root = scheduler.root_queue_metrics()
    assert root == scheduler.queue_metrics()[0]
    assert root.allocated.memory_mb == sum(app.used_m for app in scheduler.attempts.values())
    leaves = [q for q in scheduler.queue_metrics() if q.is_leaf]
    assert [q.path for q in leaves] == ["default" if name == "fifo" else "root.default"]  # one queue for all three
    if name != "fifo":  # AMs may use a tenth of it: maximum-am-resource-percent 0.1, maxAMShare 0.1
        assert round(leaves[0].am_limit.memory_mb / scheduler.cluster_resource.memory_mb, 3) == 0.1


def test_an_unknown_scheduler_exits_2_naming_the_option_and_the_choices(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--scheduler yarn is refused before any run: exit status 2, one line naming the option and its choices."""
    monkeypatch.setattr(sys, "argv", ["bench_simulation.py", "--nodes", "10", "--scheduler", "yarn"])
    with pytest.raises(SystemExit) as exit_info:
        bench.main()
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--scheduler: invalid choice: 'yarn'" in error and "'capacity', 'fair', 'fifo'" in error
