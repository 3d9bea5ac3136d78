"""Node-hours of an autoscaled cluster: container packing against spread, on the same synthetic trace (issue 6).

    python bench/bench_packing.py                          # 12 simulated hours, up to 30 nodes, seeds 1 2 3
    python bench/bench_packing.py --hours 6 --seeds 1

Runs examples/elastic_packing.py's trace (long ETL jobs all day, bursts of short queries in alternate hours) for
each seed under both policies, side by side in one process, with the same autoscaler (min 2, max 30 nodes, upscale
after requests wait 3 minutes, downscale after 5 idle minutes, 1 minute node start-up). Everything reported except
the wall time is a function of the seed. Qubole's published figures are printed beside the result.
"""

from __future__ import annotations

import argparse
import runpy
from pathlib import Path

from yarnball.actors import configure_logging

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "elastic_packing.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=12.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--min-nodes", type=int, default=2)
    parser.add_argument("--max-nodes", type=int, default=30)
    args = parser.parse_args()
    configure_logging(level="warning")
    example = runpy.run_path(str(EXAMPLE))
    totals = {"spread": 0.0, "packing": 0.0}
    columns = "seed | jobs | policy | node-hours | utilisation | peak nodes | upscales | downscales | mean job runtime"
    print(f"| {columns} | wall |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for seed in args.seeds:
        result = example["compare"](args.hours, seed, min_nodes=args.min_nodes, max_nodes=args.max_nodes)
        for policy, r in result["runs"].items():
            totals[policy] += r["node_hours"]
            print(
                f"| {seed} | {result['jobs']} | {policy} | {r['node_hours']:.1f} | {r['utilisation']:.0%} | "
                f"{r['peak_nodes']} | {r['upscales']} | {r['downscales']} | {r['mean_runtime_s']:.0f} s | "
                f"{r['wall_seconds']:.1f} s |"
            )
        print(f"| {seed} | | **saving** | **{result['saving']:.1%}** | | | | | | |")
    saving = 1 - totals["packing"] / totals["spread"] if totals["spread"] else 0.0
    print()
    print(f"all seeds: spread {totals['spread']:.1f} node-hours, packing {totals['packing']:.1f}: saving {saving:.1%}")
    before, after = example["QUBOLE_HIKE"]
    print(f"Qubole, Hike: {before:,} -> {after:,} node-hours (saving {1 - after / before:.1%})")
    print('Qubole, overall: "hardware savings of more than 40 percent"')


if __name__ == "__main__":
    main()
