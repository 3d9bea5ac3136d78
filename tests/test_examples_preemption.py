"""The preemption examples run and show what they claim, from their computed output."""

from __future__ import annotations

import itertools
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str) -> dict[str, object]:
    return runpy.run_path(str(EXAMPLES / name))


@pytest.fixture(scope="module")
def seed_results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, str]:
    out = tmp_path_factory.mktemp("seed")
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "preemption_seed.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    return load("preemption_seed.py"), out, proc.stdout


def test_seed_scenario_preemption_finishes_app2_sooner(seed_results: tuple[dict, Path, str]) -> None:
    """With preemption App2 starts and finishes earlier: T2' < T2 and T3' < T3, both after T1."""
    module, _, _ = seed_results
    without, with_ = module["run"](False), module["run"](True)
    assert without["T1"] == with_["T1"] == module["T1_MS"]
    assert with_["T1"] < with_["T2"] < without["T2"]
    assert with_["T3"] < without["T3"]
    assert without["preempted"] == 0 < with_["preempted"]


def test_seed_scenario_without_preemption_waits_for_app1(seed_results: tuple[dict, Path, str]) -> None:
    """Without preemption App2's AM only starts once App1's 600 s maps end."""
    module, _, _ = seed_results
    assert module["run"](False)["T2"] >= 600_000


def test_seed_scenario_prints_times_and_writes_the_plot(seed_results: tuple[dict, Path, str]) -> None:
    """The script prints T1, T2, T3, T2', T3' and the verdict, and writes a PNG timeline."""
    _, out, stdout = seed_results
    for label in ("T1  =", "T2  =", "T3  =", "T2' =", "T3' =", "T3' < T3"):
        assert label in stdout
    png = out / "preemption_seed.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_hierarchical_preemption_takes_from_both_over_served_queues() -> None:
    """x and y (under p) grow towards their guarantee; b and c, both over theirs, are preempted and shrink."""
    result = load("preemption_hierarchical.py")["run"]()
    for leaf in ("root.p.x", "root.p.y"):
        r = result[leaf]
        assert r["before"] == 0 and r["after"] > 0.5 * r["guaranteed"] and r["preempted"] == 0
    for leaf in ("root.b", "root.c"):
        r = result[leaf]
        assert r["before"] > r["guaranteed"] and r["guaranteed"] <= r["after"] < r["before"] and r["preempted"] > 0


def test_natural_termination_rounds_decay_geometrically() -> None:
    """With factor 0.2 and 5 GB over, rounds reclaim about 1, 0.8 and 0.64 GB (within one container)."""
    taken = load("preemption_natural_termination.py")["run"](6)
    assert len(taken) >= 3
    for n, mb in enumerate(taken[:3]):
        assert abs(mb - 5120 * 0.2 * 0.8**n) <= 32
    assert all(a > b for a, b in itertools.pairwise(taken))


def test_checkpointing_am_loses_less_work_and_finishes_sooner(tmp_path: Path) -> None:
    """The checkpointing AM loses no work and finishes before the restarting one; neither counts failures."""
    module = load("preemption_checkpointing.py")
    results = module["main"](["--store-dir", str(tmp_path)])
    ckpt, restart = results["checkpointing"], results["restarting"]
    assert ckpt["work_lost_s"] < restart["work_lost_s"]
    assert ckpt["app1_finish_s"] < restart["app1_finish_s"]
    assert restart["killed_by_rm"] > 0 and ckpt["preempted_attempts"] > 0
    assert ckpt["failed_attempts"] == restart["failed_attempts"] == 0


def test_checkpointing_am_under_the_fair_scheduler(tmp_path: Path) -> None:
    """The same under the FairScheduler's preemption: the AM gets the PreemptionMessage before the kill."""
    module = load("preemption_checkpointing.py")
    results = module["main"](["--store-dir", str(tmp_path), "--fair"])
    ckpt, restart = results["checkpointing"], results["restarting"]
    assert restart["killed_by_rm"] > 0 and ckpt["preempted_attempts"] > 0
    assert ckpt["work_lost_s"] < restart["work_lost_s"]
    assert ckpt["app1_finish_s"] < restart["app1_finish_s"]
    assert ckpt["failed_attempts"] == restart["failed_attempts"] == 0
