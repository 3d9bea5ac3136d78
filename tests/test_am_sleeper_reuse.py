"""A dormant AM's Sleeper is reused after a wake (_shortcuts/_amdormancy.py DormantAMs.sleep) as a fresh one."""

from __future__ import annotations

from typing import Any

from skipping_helpers import TWO_QUEUES, spy_on_sleeps

from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.protocols import Configuration

_SLOTS = ("rm", "am", "attempt", "attempt_id", "origin", "interval", "t1", "sf", "c", "r0", "progress", "settled")


def _busy_cluster() -> Cluster:
    workload = synthetic_workload(20, 12, seed=5, queues=("a", "b"), maps=(1, 20), reduces=(0, 4), load=1.5)
    cluster = Cluster(Configuration(TWO_QUEUES), workload.nodes, seed=3)
    cluster.submit_workload(workload)
    return cluster


def test_a_reused_sleeper_holds_what_a_new_one_would() -> None:
    """Every sleep after a wake reuses the woken Sleeper, every slot set as Sleeper.__init__ sets it."""
    cluster = _busy_cluster()
    rm, kernel = cluster.rm, cluster.kernel
    reused: list[bool] = []

    def sleeping(sleep: Any, am: Any, attempt: Any, progress: float) -> None:
        spare, timer = dormant.spare, am.heartbeat_timer
        expected = (rm, am, attempt, attempt.attempt_id, am.id, timer.interval, timer.due, timer.seq)
        expected += (kernel.sequence(am.id), attempt.response_id, progress, 0)
        sleep(am, attempt, progress)
        sleeper = am.sleeper
        if sleeper is None:
            return
        assert tuple(getattr(sleeper, name) for name in _SLOTS) == expected
        assert dormant[attempt.attempt_id] is sleeper and not timer.live
        if spare is not None:
            reused.append(sleeper is spare and dormant.spare is None)

    dormant = spy_on_sleeps(rm, sleeping)
    cluster.run(until_ms=200_000)
    assert reused and all(reused)


def test_a_woken_sleeper_becomes_the_spare() -> None:
    """A wake leaves the Sleeper as the RM's spare, no longer the AM's nor in the dormant table."""
    cluster = _busy_cluster()
    cluster.run(until_ms=60_000)
    dormant = cluster.rm.dormant
    sleeper = next(iter(dormant.values()))
    am = sleeper.am
    sleeper.wake()
    assert dormant.spare is sleeper and am.sleeper is None and sleeper.attempt_id not in dormant
