"""Natural termination: each round asks for only a fraction of what a queue is over by.

With ``natural_termination_factor`` 0.2 (Hadoop's default) and a queue 5 GB over its ideal share, one round
targets round(5120 x 0.2) = 1024 MB; if the AM gives those back, the next round targets 20% of the remaining
4 GB (819 MB), then 655 MB, ... : about 1, 0.8, 0.64 GB, 5 x (1 - 0.8^n) GB in total, so natural container
completions can do most of the work before anything is killed.

The policy runs here on its own, over snapshots (no actors): queue A (guarantee 20 GB of 100 GB) holds 25 GB in
32 MB containers, queue B wants more. After each round the selected containers are handed from A to B, as a
cooperative AM would release them. The dead zone (max_ignored_over_capacity 0.1) ends it once A is within 10%
of its guarantee.

    python examples/preemption_natural_termination.py [--rounds N]
"""

from __future__ import annotations

import argparse

from yarnball.policies.preemption import (
    AppSnapshot,
    ClusterSnapshot,
    ContainerSnapshot,
    PreemptionState,
    ProportionalCapacityPreemptionPolicy,
    QueueSnapshot,
)
from yarnball.protocols import Resource

GB = 1024
CONTAINER_MB = 32
CLUSTER = Resource(100 * GB, 100 * GB // CONTAINER_MB)


def snapshot(a_containers: list[ContainerSnapshot], b_used_mb: int, b_pending_mb: int) -> ClusterSnapshot:
    a_used = sum(c.resource.memory_mb for c in a_containers)

    def res(mb: int) -> Resource:
        return Resource(mb, mb // CONTAINER_MB)

    return ClusterSnapshot(
        cluster=CLUSTER,
        config={"yarn.resourcemanager.scheduler.monitor.enable": "true"},
        queues=(
            QueueSnapshot(path="root", absolute_capacity=1.0, used=res(a_used + b_used_mb)),
            QueueSnapshot(path="root.a", absolute_capacity=0.2, used=res(a_used)),
            QueueSnapshot(path="root.b", absolute_capacity=0.8, used=res(b_used_mb), pending=res(b_pending_mb)),
        ),
        applications=(AppSnapshot(id="app_a", queue="root.a", submission_order=1, containers=tuple(a_containers)),),
    )


def run(rounds: int = 6) -> list[int]:
    """MB reclaimed from A in each round (until the dead zone stops it or ``rounds`` are done)."""
    policy = ProportionalCapacityPreemptionPolicy()
    a = [
        ContainerSnapshot(id=f"c{i:04d}", resource=Resource(CONTAINER_MB, 1), start_order=i)
        for i in range(25 * GB // CONTAINER_MB)
    ]
    b_used, b_pending = 75 * GB, 10 * GB
    state = PreemptionState()
    taken: list[int] = []
    for n in range(rounds):
        rnd = policy.edit_schedule(snapshot(a, b_used, b_pending), now_ms=n * 3000, state=state)
        state = rnd.state
        chosen = {c.container_id for c in rnd.candidates}
        if not chosen:
            break
        mb = sum(c.resource.memory_mb for c in rnd.candidates)
        a = [c for c in a if c.id not in chosen]  # the AM releases them; B gets the room
        b_used, b_pending = b_used + mb, b_pending - mb
        taken.append(mb)
    return taken


def main(argv: list[str] | None = None) -> list[int]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    taken = run(parser.parse_args(argv).rounds)
    total = 0
    print(f"{'round':>5} {'reclaimed':>10} {'ideal 5GB*0.2*0.8^n':>20} {'cumulative':>11}")
    for n, mb in enumerate(taken):
        total += mb
        print(f"{n + 1:>5} {mb / GB:>8.2f}GB {5 * 0.2 * 0.8**n:>18.2f}GB {total / GB:>9.2f}GB")
    print(f"stopped after {len(taken)} rounds: queue A is within the dead zone or the rounds are done")
    return taken


if __name__ == "__main__":
    main()
