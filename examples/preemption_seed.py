"""The seed scenario of preemption: two queues at 50%, App1 fills the cluster, App2 arrives at T1.

Queues Q1 and Q2 are guaranteed 50% each; Q1 may grow to 100% (user-limit-factor 2 lets one user do so). App1
(Q1, SLS-style MapReduce, long maps) takes the whole cluster; App2 (Q2, short maps) is submitted at T1. Without
preemption App2 waits until App1's maps end; with the ProportionalCapacityPreemptionPolicy on, the monitor
marks App1's newest containers, kills them after max_wait_before_kill, and App2 gets its guarantee.

    python examples/preemption_seed.py [--out DIR]

prints T1, T2 (App2's AM container starts), T3 (App2 finishes) without preemption, T2' and T3' with it, and
writes DIR/preemption_seed.png (containers held by each application over time, both runs; DIR defaults to
out/preemption_seed, which git ignores).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.testing import captured_events

T1_MS = 60_000
QUEUES = {
    "yarn.scheduler.capacity.root.queues": "q1,q2",
    "yarn.scheduler.capacity.root.q1.capacity": "50",
    "yarn.scheduler.capacity.root.q2.capacity": "50",
    "yarn.scheduler.capacity.root.q1.maximum-capacity": "100",
    "yarn.scheduler.capacity.root.q1.user-limit-factor": "2",
}


def run(preemption: bool, seed: int = 1) -> dict[str, object]:
    """Run the scenario; return T1, T2, T3 (ms), preempted containers and the per-application timeline."""
    conf = dict(QUEUES)
    conf["yarn.resourcemanager.scheduler.monitor.enable"] = "true" if preemption else "false"
    builder = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8)
    builder.job("app1", queue="q1", tasks=[task_spec(31, 600_000, memory_mb=1024, vcores=1)])
    builder.job("app2", queue="q2", submit_ms=T1_MS, tasks=[task_spec(8, 60_000, memory_mb=1024, vcores=1)])
    workload = builder.build()
    cluster = Cluster(conf, workload.nodes, seed=seed)
    cluster.submit_workload(workload)
    timeline: list[tuple[float, int, int]] = []

    def sample() -> None:
        held = Counter(c.application_attempt_id.application_id.id for c in cluster.rm.live)
        timeline.append((cluster.now / 1000, held[1], held[2]))

    cluster.every(5000, sample)
    with captured_events():
        cluster.run(until_ms=3_600_000)
    app2 = next(a for a in cluster.rm.apps.values() if a.context.application_name == "app2")
    return {
        "T1": app2.submit_time,
        "T2": app2.launch_time,
        "T3": app2.finish_time,
        "preempted": cluster.rm.counters["containers_preempted"],
        "timeline": timeline,
    }


def plot(without: dict[str, object], with_: dict[str, object], path: Path) -> None:
    """Containers held by App1 and App2 over time, without and with preemption (PNG, matplotlib Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for ax, result, title, suffix in (
        (axes[0], without, "without preemption", ""),
        (axes[1], with_, "with preemption", "'"),
    ):
        rows = result["timeline"]
        t = [r[0] for r in rows]  # type: ignore[union-attr]
        ax.step(t, [r[1] for r in rows], where="post", label="App1 (Q1)")  # type: ignore[union-attr]
        ax.step(t, [r[2] for r in rows], where="post", label="App2 (Q2)")  # type: ignore[union-attr]
        for name in ("T1", "T2", "T3"):
            x = float(result[name]) / 1000  # type: ignore[arg-type]
            ax.axvline(x, linestyle="--", color="grey")
            ax.annotate(name + (suffix if name != "T1" else ""), (x, ax.get_ylim()[1] * 0.9))
        ax.set_title(title)
        ax.set_ylabel("containers")
        ax.legend(loc="center right")
    axes[1].set_xlabel("simulated time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict[str, dict[str, object]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="out/preemption_seed", help="directory for the PNG")
    args = parser.parse_args(argv)
    without, with_ = run(False), run(True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    png = out / "preemption_seed.png"
    plot(without, with_, png)
    print(f"T1  = {without['T1'] / 1000:.1f} s (App2 submitted)")
    print(f"T2  = {without['T2'] / 1000:.1f} s, T3  = {without['T3'] / 1000:.1f} s (no preemption)")
    print(
        f"T2' = {with_['T2'] / 1000:.1f} s, T3' = {with_['T3'] / 1000:.1f} s (preemption, "
        f"{with_['preempted']} containers preempted)"
    )
    verdict = "T3' < T3" if with_["T3"] < without["T3"] else "T3' >= T3"  # type: ignore[operator]
    print(f"{verdict}: App2 finishes {(without['T3'] - with_['T3']) / 1000:.1f} s earlier")  # type: ignore[operator]
    print(f"timeline: {png}")
    return {"without": without, "with": with_}


if __name__ == "__main__":
    main()
