"""examples/live_checkpoint.py runs (small and short) and shows what it claims, from its computed output."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.live

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "live_checkpoint.py"


def test_live_checkpoint_resumes_and_both_ams_compute_the_uninterrupted_result(tmp_path: Path) -> None:
    """Quick settings (tasks of 2 s of CPU, timed by the example, so that App2 arrives while they run on a quiet or
    a loaded machine): the checkpointing AM's preempted tasks resume from saved steps, the restarting AM's never
    do, and every task of both ends with the grid an uninterrupted loop computes."""
    out = tmp_path / "figures.json"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), "--tasks", "3", "--task-seconds", "2", "--submit-b-ms", "2000",
         "--json", str(out), "--work-dir", str(tmp_path / "work")],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    figures = json.loads(out.read_text())
    steps = figures["checkpointing"]["steps"]
    expected = runpy.run_path(str(EXAMPLE))["uninterrupted"](steps)
    for name in ("checkpointing", "restarting"):
        run = figures[name]
        assert run["app1_state"] == "SUCCEEDED" and run["failed_attempts"] == 0
        assert sorted(run["results"]) == ["task_m_000000", "task_m_000001", "task_m_000002"]
        assert all(grid == expected for grid in run["results"].values())
    ckpt, restart = figures["checkpointing"], figures["restarting"]
    assert ckpt["preempted_attempts"] >= 1 and ckpt["work_resumed_s"] > 0
    assert restart["work_resumed_s"] == 0
    assert "checkpointing" in proc.stdout and "restarting" in proc.stdout
