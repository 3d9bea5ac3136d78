"""What a fault schedule does to job completion time: the bundled trace with and without ``schedule.json``.

``schedule.json`` loses 3 of the 30 nodes of ``nodes-30.json`` (10%) and crashes 5 ApplicationMasters while the
bundled trace (examples/traces/sample-sls.json, 40 MapReduce jobs) runs. This runs ``yarnball simulate`` twice with
the same seed, once with ``--faults schedule.json``, and prints each run's job completion times (jobruntime.csv's
``simulate_end_time - simulate_start_time``) and what the faults did (summary.json).

Run it:  python examples/faults/compare.py [--seed 1] [--output-dir out-faults]
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
from pathlib import Path
from typing import Any

from yarnball.launcher.cli import main as yarnball

HERE = Path(__file__).resolve().parent
TRACE = HERE.parent / "traces" / "sample-sls.json"


def simulate(out: Path, seed: int, faults: Path | None) -> dict[str, Any]:
    """One ``yarnball simulate`` run; its job completion times (ms, by job) and summary."""
    argv = [
        "simulate",
        "--tracelocation", str(TRACE),
        "--nodes", str(HERE / "nodes-30.json"),
        "--output-dir", str(out),
        "--seed", str(seed),
        "--no-plots",
        "--no-progress",
    ]  # fmt: skip
    if faults is not None:
        argv += ["--faults", str(faults)]
    status = yarnball(argv)
    if status != 0:
        raise SystemExit(f"yarnball simulate exited {status}")
    with open(out / "jobruntime.csv", encoding="utf-8") as f:
        jct = {r["JobID"]: int(r["simulate_end_time"]) - int(r["simulate_start_time"]) for r in csv.DictReader(f)}
    return {"jct": jct, "summary": json.loads((out / "summary.json").read_text())}


def stats(jct: dict[str, int]) -> dict[str, float]:
    values = sorted(jct.values())
    return {
        "jobs": len(values),
        "mean_s": statistics.mean(values) / 1000,
        "median_s": statistics.median(values) / 1000,
        "p90_s": values[int(0.9 * (len(values) - 1))] / 1000,
        "max_s": values[-1] / 1000,
    }


def compare(out_dir: Path, seed: int) -> dict[str, Any]:
    clean = simulate(out_dir / "no-faults", seed, None)
    faulty = simulate(out_dir / "faults", seed, HERE / "schedule.json")
    slower = sorted(j for j in clean["jct"] if faulty["jct"][j] > clean["jct"][j])
    return {
        "no_faults": stats(clean["jct"]),
        "faults": stats(faulty["jct"]),
        "makespan_s": (clean["summary"]["simulated_seconds"], faulty["summary"]["simulated_seconds"]),
        "jobs_slower": slower,
        "summary": faulty["summary"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output-dir", type=Path, default=Path("out-faults"))
    args = parser.parse_args()
    result = compare(args.output_dir, args.seed)
    s = result["summary"]
    print(f"{'':12}{'jobs':>6}{'mean s':>9}{'median s':>10}{'p90 s':>8}{'max s':>8}")
    for name in ("no_faults", "faults"):
        r = result[name]
        print(
            f"{name:12}{r['jobs']:>6}{r['mean_s']:>9.1f}{r['median_s']:>10.1f}{r['p90_s']:>8.1f}{r['max_s']:>8.1f}"
        )
    print(f"makespan: {result['makespan_s'][0]:.1f} s without faults, {result['makespan_s'][1]:.1f} s with them")
    print(f"jobs slower with faults: {len(result['jobs_slower'])} of {result['faults']['jobs']}")
    print(f"faults: {s['faults']}")
    apps, c = s["applications"], s["containers"]
    print(f"applications: {apps['finished']} finished, {apps['failed']} failed; containers: {c['lost']} lost, "
          f"{c['killed']} killed, {c['completed']} completed")  # fmt: skip


if __name__ == "__main__":
    main()
