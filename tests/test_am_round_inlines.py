"""The AM round's inlined steps (_shortcuts/_amdormancy.py Sleeper.wake) compute what the calls they replace did."""

from __future__ import annotations

from typing import Any

from skipping_helpers import TWO_QUEUES, spy_on_sleeps

from yarnball.actors._shortcuts._amheartbeats import _at_rm
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.protocols import Configuration


def _dormant_cluster(until_ms: int, further_ms: int = 0) -> Cluster:
    """A busy cluster run to ``until_ms``, then ``further_ms`` more on the bare kernel (skipped ticks unsettled)."""
    workload = synthetic_workload(20, 12, seed=5, queues=("a", "b"), maps=(1, 20), reduces=(0, 4), load=1.5)
    cluster = Cluster(Configuration(TWO_QUEUES), workload.nodes, seed=3)
    cluster.submit_workload(workload)
    cluster.run(until_ms=until_ms)
    if further_ms:
        cluster.kernel.run(until=until_ms + further_ms)  # (Cluster.run would settle every dormant AM at its end)
    return cluster


def _state(cluster: Cluster, attempt_id: Any) -> tuple[Any, ...]:
    rm = cluster.rm
    attempt = rm.attempts[attempt_id]
    am = next(am for am in cluster.masters if am.attempt_id == attempt_id)
    return attempt.response_id, attempt.last_heartbeat, am.response_id, rm.heartbeats.skipped_allocates


def _sleepers_with_ticks(cluster: Cluster) -> list[Any]:
    return sorted(
        (s for s in cluster.rm.dormant.values() if s.position()[0] > s.settled), key=lambda s: str(s.attempt_id)
    )


def test_wake_settles_exactly_as_settle() -> None:
    """Waking a dormant AM leaves the attempt, AM and skip counter as Sleeper.settle of the ticks that ran."""
    settled, woken = _dormant_cluster(60_000, 20_500), _dormant_cluster(60_000, 20_500)
    ones, twos = _sleepers_with_ticks(settled), _sleepers_with_ticks(woken)
    assert ones and [str(s.attempt_id) for s in ones] == [str(s.attempt_id) for s in twos]
    for one, two in zip(ones, twos, strict=True):
        one.settle(one.position()[0])
        two.wake()
        assert _state(woken, two.attempt_id) == _state(settled, one.attempt_id)
        assert two.attempt_id not in woken.rm.dormant


def test_wake_advances_the_am_sequence_past_the_skipped_ticks() -> None:
    """A wake between events sets the AM's next sequence to c + 2n (+2 once the tick's F has run), either branch."""
    cluster = _dormant_cluster(60_000)
    kernel, dormant = cluster.kernel, cluster.rm.dormant
    seen: list[Any] = []

    def entered(entry: tuple[Any, ...]) -> None:
        for sleeper in sorted(dormant.values(), key=lambda s: str(s.attempt_id)):
            n, half = sleeper.position()
            if n > sleeper.settled or half:
                sleeper.wake()
                seen.append((half, kernel.sequence(sleeper.origin), sleeper.c + 2 * n + (2 if half else 0)))

    kernel.observe_events(entered)
    cluster.run(until_ms=90_000)
    assert {half for half, _, _ in seen} == {False, True}
    assert all(actual == expected for _, actual, expected in seen)


def test_sleeper_takes_the_am_id_and_its_next_sequence() -> None:
    """A Sleeper's origin is the AM's id and its first skipped A takes the AM's next sequence at sleep time."""
    cluster = _dormant_cluster(120_000)
    rm = cluster.rm
    made = []

    def sleeping(sleep: Any, am: Any, attempt: Any, progress: float) -> None:
        expected = cluster.kernel.sequence(am.id)
        sleep(am, attempt, progress)
        if am.sleeper is not None:
            made.append((am.sleeper.origin == am.id, am.sleeper.c == expected))

    spy_on_sleeps(rm, sleeping)
    cluster.run(until_ms=300_000)
    assert made and all(a and b for a, b in made)


def test_inline_allocates_are_shown_to_a_hooked_enter_as_the_run_loop_shows_events() -> None:
    """An _enter replaced mid-run sees no event of that run, inline allocates included; from the next run, all."""
    cluster = _dormant_cluster(30_000)
    kernel = cluster.kernel
    seen: list[Any] = []

    def entered(entry: tuple[Any, ...]) -> None:
        seen.append(entry[4])

    def hook() -> None:
        kernel.observe_events(entered)

    kernel.call_later(10_000, hook)
    cluster.run(until_ms=60_000)
    assert kernel.enter_observer is entered and seen == []
    cluster.run(until_ms=90_000)
    assert _at_rm in seen  # the allocate checks, run inside their firings, go through the hook again
