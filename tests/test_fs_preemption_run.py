"""End to end: the two-queue SLS trace under the FairScheduler with preemption (examples/sweeps/fair-preemption)
preempts, ends every job, is deterministic, and, as Hadoop's FairScheduler would, makes the starved batch queue wait
longer than without preemption (examples/sweeps/fair): most preemptions are for applications whose AM the queue's
maxAMShare does not let start (see the last test)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher import cli

ROOT = Path(__file__).resolve().parent.parent
SWEEPS = ROOT / "examples" / "sweeps"


def _simulate(out: Path, conf_dir: str) -> dict[str, Any]:
    argv = [
        "simulate", "--no-progress", "--tracetype", "SLS",
        "--tracelocation", str(SWEEPS / "two-queue-sls.json"), "--nodes", str(SWEEPS / "two-queue-nodes.json"),
        "--conf-dir", str(SWEEPS / conf_dir), "--seed", "1", "--output-dir", str(out),
    ]  # fmt: skip
    assert cli.main(argv) == 0
    return json.loads((out / "summary.json").read_text())  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    out = {}
    for name, conf_dir in (("fair", "fair"), ("preempt", "fair-preemption"), ("again", "fair-preemption")):
        path = tmp_path_factory.mktemp(name)
        out[name] = (path, _simulate(path, conf_dir))
    return out


def test_preemption_run_preempts_and_every_job_ends(runs: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    _, summary = runs["preempt"]
    assert summary["containers"]["preempted"] > 0
    assert summary["applications"]["finished"] == summary["applications"]["submitted"] == 40
    assert summary["applications"]["unfinished"] == 0 and summary["containers"]["running_at_end"] == 0
    _, plain = runs["fair"]
    assert plain["containers"]["preempted"] == 0


def test_preemption_run_is_deterministic(runs: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    a, _ = runs["preempt"]
    b, _ = runs["again"]
    for name in ("events.jsonl", "jobruntime.csv", "metrics/applications.csv", "metrics/queues.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_preemption_for_blocked_ams_makes_the_starved_queue_wait_longer(
    runs: dict[str, tuple[Path, dict[str, Any]]],
) -> None:
    """batch (weight 1) starts behind default (weight 3), yet with preemption its jobs wait longer for their first
    task (215 s -> 256 s with seed 1), as they would under Hadoop's FairScheduler.

    The jobs wait for their AM (the first-task wait is the AM wait plus the AM's first heartbeat), and the AMs wait
    for the queue's maxAMShare, not for room: the fair-share policy gives queues a memory-only fair share, so
    ``FSLeafQueue.computeMaxAMResource`` takes the vcores from the root's available vcores, about none on this busy
    cluster, and ``canRunAppAM`` refuses. ``FSAppAttempt.fairShareStarvation`` does not consult
    ``isOverAMShareLimit``: an application waiting so is starved (usage 0, below min(fair share x 0.5, demand)) and
    the FSPreemptionThread preempts for it every ``waitTimeBeforeKill + 4 heartbeats +
    waitTimeBeforeNextStarvationCheck`` (29 s); ``FairScheduler.assignPreemptedContainers`` cannot give it the freed
    room (``assignContainer`` returns none over the AM share), so another application takes it. About 160 of the
    ~180 preempted containers go that way, most of them taken from batch's running tasks, which SLS's AMs then
    run again."""
    summary = {name: runs[name][1]["job_times"]["by_queue"]["root.batch"] for name in runs}
    wait = {name: times["first_task_wait_s"]["mean"] for name, times in summary.items()}
    for times in summary.values():
        assert times["first_task_wait_s"]["mean"] - times["am_wait_s"]["mean"] < 5  # the wait is the AM's
    assert wait["preempt"] > wait["fair"]
