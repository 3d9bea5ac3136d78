"""Sweep throughput: 8 scenarios run one after another in this process, then on Ray Tune with 2 workers.

    python bench/bench_sweep.py                          # 8 scenarios of a 4800-job, 800-node trace (~40 s each)
    python bench/bench_sweep.py --jobs 600 --nodes 100   # ~3.5 s scenarios (quicker, start-up bound)

The 8 scenarios are preemption off/on x 4 seeds of one synthetic SLS trace (written with
``examples/traces/make_sample_trace.write_trace``), each a full ``yarnball simulate`` (outputs and plots included).
The sequential path is ``yarnball.sweep(..., workers=0)`` (no Ray); the Ray path starts a local Ray (``num_cpus`` =
workers), then ``yarnball.sweep(..., workers=2)``. Both write the same rows (checked: every metric but
``wall_seconds``), so the ratio of their wall times is the speed-up.

Reported: the speed-up (sequential sweep / (Ray start + Ray sweep)); the Ray start-up S (``ray.init``, then until
the first scenario starts in a worker: Tune's set-up, the worker process and its imports); the mean scenario wall
time w in-process and inside a Ray worker (their ratio c is the CPU contention of running k simulations plus Ray's
own processes on the cores); and the per-scenario overhead o of the Ray path once started,
``(k * (T_sweep - first start) - sum of the scenarios' wall times in the workers) / n``: worker slot time not
spent simulating (Tune's trial loop, serialisation, result collection, the final tables and plots). The model
``T_k = S + ceil(n / k) * (c * w + o)`` is printed beside the measured time. Goal (issue 17): >= 1.7x with 2
workers on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "traces"))

from make_sample_trace import write_trace  # noqa: E402

from yarnball.launcher.sweep import METRICS, sweep  # noqa: E402
from yarnball.launcher.workloads import synthetic_workload  # noqa: E402

MONITOR = "yarn.resourcemanager.scheduler.monitor.enable"


def make_spec(workdir: Path, jobs: int, nodes: int) -> dict[str, Any]:
    workload = synthetic_workload(
        jobs, nodes, seed=7, nodes_per_rack=8, maps=(2, 16), reduces=(0, 4), map_ms=(5_000, 40_000),
        reduce_ms=(10_000, 60_000),
    )  # fmt: skip
    write_trace(workload, workdir / "bench-sls.json", workdir / "bench-nodes.json")
    return {
        "seeds": [1, 2, 3, 4],
        "traces": [
            {"name": "bench", "location": str(workdir / "bench-sls.json"), "nodes": str(workdir / "bench-nodes.json")}
        ],
        "axes": {"preemption": [{"label": v, "conf": {MONITOR: v == "on"}} for v in ("off", "on")]},
    }


def first_start(out: Path) -> float:
    """Wall-clock time at which the first scenario started in a worker (its attempts file was created)."""
    return min(p.stat().st_mtime for p in (out / ".sweep").glob("*.attempts"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=4800, help="jobs in the trace (default 4800)")
    parser.add_argument("--nodes", type=int, default=800, help="nodes in the trace (default 800)")
    parser.add_argument("--workers", type=int, default=2, help="Ray workers (default 2)")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the outputs here (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_sweep_") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        run(workdir, args.jobs, args.nodes, args.workers)


def run(workdir: Path, jobs: int, nodes: int, k: int) -> None:
    import ray

    spec = make_spec(workdir, jobs, nodes)
    load_before = os.getloadavg()
    t = time.perf_counter()
    seq = sweep(spec, workdir / "sequential", workers=0)
    t_seq = time.perf_counter() - t

    t = time.perf_counter()
    ray.init(num_cpus=k, include_dashboard=False, log_to_driver=False, configure_logging=False)
    t_init = time.perf_counter() - t
    wall_start = time.time()
    t = time.perf_counter()
    par = sweep(spec, workdir / "ray", workers=k)
    t_sweep = time.perf_counter() - t
    ray.shutdown()
    load_after = os.getloadavg()

    for a, b in zip(seq.rows, par.rows, strict=True):
        for metric, _d in METRICS:
            if metric != "wall_seconds" and a[metric] != b[metric]:
                raise SystemExit(f"{a['scenario']}: {metric} differs: {a[metric]} in-process, {b[metric]} on Ray")
        if a["status"] != "ok" or b["status"] != "ok":
            raise SystemExit(f"{a['scenario']}: {a['status']} in-process, {b['status']} on Ray: {a['error']}")
    n = len(seq.rows)
    w_seq = [r["wall_seconds"] for r in seq.rows]
    w_ray = [r["wall_seconds"] for r in par.rows]
    t_ray = t_init + t_sweep
    to_first = first_start(workdir / "ray") - wall_start
    startup = t_init + to_first
    steady = (k * (t_sweep - to_first) - sum(w_ray)) / n
    waves = -(-n // k)
    w, c = statistics.fmean(w_seq), statistics.fmean(w_ray) / statistics.fmean(w_seq)
    model = startup + waves * (c * w + steady)
    print(f"bench_sweep: {n} scenarios ({jobs} jobs, {nodes} nodes each), {k} Ray workers, {os.cpu_count()} cores")
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, after "
          f"{load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")  # fmt: skip
    print(f"  sequential, in-process:  {t_seq:8.1f} s  (scenario wall w: mean {w:.2f} s, "
          f"min {min(w_seq):.2f} s, max {max(w_seq):.2f} s)")  # fmt: skip
    print(f"  Ray, {k} workers:         {t_ray:8.1f} s  (ray.init {t_init:.1f} s + sweep {t_sweep:.1f} s; "
          f"scenario wall in a worker: mean {statistics.fmean(w_ray):.2f} s)")  # fmt: skip
    print(f"  speed-up:                {t_seq / t_ray:8.2f}x  (sweep alone {t_seq / t_sweep:.2f}x; goal >= 1.7x)")
    print(f"  start-up S: ray.init {t_init:.1f} s + sweep start -> first scenario running {to_first:.1f} s")
    print(f"  contention c: scenario wall in a worker / in-process = {c:.2f}")
    print(
        f"  overhead per scenario after start-up o = (k * (T_sweep - first start) - sum of walls) / n = {steady:.2f} s"
    )
    print(f"  model S + ceil(n/k) * (c * w + o) = {model:.1f} s (measured {t_ray:.1f} s)")


if __name__ == "__main__":
    main()
