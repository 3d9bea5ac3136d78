"""Shared by the heartbeat-skipping and other shortcut equality tests (no tests here): run an SLS sample through
the CLI with a skipping key on and off and check that every output file is byte-identical; the two-queue setup."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from yarnball.actors._shortcuts import DormantAMs
from yarnball.launcher.cli import main

#: Two queues (a 60%, elastic to 100%; b 40%, to 70%): the busy two-queue workloads of the shortcut equality tests.
TWO_QUEUES = {
    "yarn.scheduler.capacity.root.queues": "a,b",
    "yarn.scheduler.capacity.root.a.capacity": "60",
    "yarn.scheduler.capacity.root.b.capacity": "40",
    "yarn.scheduler.capacity.root.a.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.b.maximum-capacity": "70",
}

#: Outputs that legitimately differ: the scheduler's operation counts and costs (and summary.json, compared below
#: without them and without the wall-clock figures).
NOT_COMPARED = {"metrics/scheduler_ops.csv", "metrics/scheduler_timecost.csv", "summary.json"}
#: The same figures in SLS's per-metric files (launcher/_slsmetrics.py): operation counters and timecost samplers.
NOT_COMPARED_PREFIXES = ("metrics/counter.scheduler.operation.", "metrics/sampler.scheduler.operation.")


def assert_same_except(on: dict[str, Any], off: dict[str, Any], *ignored: str) -> None:
    """Assert that two runs' results (dicts of the same keys) are equal key by key, except the ``ignored`` ones
    (what the shortcut itself changes, e.g. its own counts); the failing key is named."""
    for key in on:
        if key not in ignored:
            assert on[key] == off[key], key


class _SpiedDormantAMs(DormantAMs):
    """DormantAMs whose ``sleep`` goes through the instance's ``sleeping``: one class for every spy, the callback on
    the instance (a class made per spy, its ``sleep`` closing over the callback, kept the spied run's AMs alive after
    the run, compiled: tests/test_application_memory.py counts them)."""

    sleeping: Callable[..., None]

    def sleep(self, am: Any, attempt: Any, progress: Any) -> None:
        self.sleeping(super().sleep, am, attempt, progress)


def spy_on_sleeps(rm: Any, sleeping: Callable[..., None]) -> DormantAMs:
    """Give ``rm`` a Python subclass of DormantAMs, with the state of its own moved over, whose ``sleep`` is
    ``sleeping(sleep, am, attempt, progress)`` (``sleep``: DormantAMs.sleep of the new one); returns it. Compiled,
    a DormantAMs method cannot be replaced on the instance; the class allows Python subclasses."""
    old, new = rm.dormant, _SpiedDormantAMs(rm)
    new.sleeping = sleeping
    new.sleepers, new.spare, new.enabled, new.early = old.sleepers, old.spare, old.enabled, old.early
    rm.dormant = new
    return new


def run_state(cluster: Any) -> dict[str, Any]:
    """What a shortcut's on/off equality tests compare after a run besides its event log: the kernel's sequence
    numbers and popped-event count, the applications' ends, the RM's counters and scheduler op counts, the response
    ids on both sides of every node heartbeat and the heartbeat clock's counts."""
    rm, kernel = cluster.rm, cluster.kernel
    return {
        "sequences": dict(kernel._seqs),
        "processed": kernel.events_processed,
        "apps": [(a.application_id, a.state, a.final_status, a.finish_time) for a in cluster.applications],
        "counters": dict(rm.counters),
        "ops": dict(rm.op_counts),
        "response_ids": {str(n): node.response_id for n, node in rm.nodes.items()},
        "nm_response_ids": {h: nm.response_id for h, nm in cluster.node_managers.items()},
        "heartbeats": (cluster.heartbeats.real, cluster.heartbeats.virtual_count),
    }


def sls_outputs_equal_both_ways(
    shared_data: Path, tmp_path: Path, trace: str, trace_type: str, key: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Simulate ``trace`` with ``key`` true, then false; assert equal outputs; return the scheduler op counts."""
    sls = shared_data / "sls"
    outs = {}
    for mode in ("true", "false"):
        conf_dir = tmp_path / f"conf-{mode}"
        conf_dir.mkdir()
        (conf_dir / "capacity-scheduler.xml").write_text((sls / "sample-conf" / "capacity-scheduler.xml").read_text())
        (conf_dir / "yarn-site.xml").write_text(
            f"<configuration><property><name>{key}</name><value>{mode}</value></property></configuration>"
        )
        out = outs[mode] = tmp_path / f"out-{mode}"
        argv = ["simulate", "--tracetype", trace_type, "--tracelocation", str(sls / trace), "--nodes"]
        argv += [str(sls / "nodes.json"), "--output-dir", str(out), "--conf-dir", str(conf_dir)]
        assert main([*argv, "--no-plots", "--no-progress", "--log-level", "debug"]) == 0
    files = sorted(p.relative_to(outs["true"]).as_posix() for p in outs["true"].rglob("*") if p.is_file())
    assert "events.jsonl" in files and "jobruntime.csv" in files
    for name in files:
        if name not in NOT_COMPARED and not name.startswith(NOT_COMPARED_PREFIXES):
            assert (outs["true"] / name).read_bytes() == (outs["false"] / name).read_bytes(), name
    on, off = (json.loads((outs[m] / "summary.json").read_text()) for m in ("true", "false"))
    for s in (on, off):
        del s["wall_seconds"], s["speedup"]
    ops_on, ops_off = on.pop("scheduler_operations"), off.pop("scheduler_operations")
    assert on == off
    return ops_on, ops_off
