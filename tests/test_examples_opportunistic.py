"""examples/opportunistic.py: a small run of the experiment behaves as opportunistic containers should."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "opportunistic.py"


@pytest.fixture(name="results", scope="module")
def fixture_results() -> dict[str, Any]:
    module = runpy.run_path(str(EXAMPLE))
    return {r.setting: r for r in module["run_experiment"](nodes=6, jobs=20, seed=1)}


def test_every_setting_runs_every_task(results: dict[str, Any]) -> None:
    """All five settings complete the same number of tasks."""
    assert len(results) == 5
    assert len({r.tasks for r in results.values()}) == 1


def test_opportunistic_settings_use_opportunistic_containers(results: dict[str, Any]) -> None:
    """Guaranteed-only allocates none; the others allocate at least one per task."""
    assert results["guaranteed-only"].opportunistic_allocated == 0
    for name, r in results.items():
        if name != "guaranteed-only":
            assert r.opportunistic_allocated >= r.tasks


def test_queueing_at_nms_raises_throughput_and_utilisation(results: dict[str, Any]) -> None:
    """Short tasks queued at the NMs beat heartbeat-driven allocation in throughput and utilisation."""
    g = results["guaranteed-only"]
    for name in ("centralized", "distributed"):
        assert results[name].throughput > g.throughput
        assert results[name].utilisation > g.utilisation


def test_example_prints_a_table() -> None:
    """The script prints a Markdown table with one row per setting."""
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "--nodes", "3", "--jobs", "6"], capture_output=True, text=True, check=True
    ).stdout
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + 5
    assert rows[1].startswith("| guaranteed-only |")
