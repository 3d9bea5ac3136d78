"""examples/elastic_packing.py: node-hours of an autoscaled cluster, packing against spread, on a synthetic trace."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "elastic_packing.py"


@pytest.fixture(name="example", scope="module")
def fixture_example() -> dict[str, Any]:
    return runpy.run_path(str(EXAMPLE))


@pytest.fixture(name="result", scope="module")
def fixture_result(example: dict[str, Any]) -> dict[str, Any]:
    return example["compare"](2.0, 1, min_nodes=2, max_nodes=15, period_ms=1_800_000)


def test_trace_is_deterministic(example: dict[str, Any]) -> None:
    """The same arguments give the same trace; another seed gives another."""
    make = example["elastic_trace"]
    assert make(2.0, 1, max_nodes=15) == make(2.0, 1, max_nodes=15)
    assert make(2.0, 1, max_nodes=15).jobs != make(2.0, 2, max_nodes=15).jobs


def test_every_job_finishes_under_both_policies(result: dict[str, Any]) -> None:
    """Packing and spread both run the whole trace to completion."""
    for run in result["runs"].values():
        assert run["apps_finished"] == run["apps"] == result["jobs"]


def test_packing_saves_node_hours(result: dict[str, Any]) -> None:
    """Packing needs at least 10% fewer node-hours than spread on the same trace and autoscaler."""
    runs = result["runs"]
    assert runs["packing"]["node_hours"] <= 0.9 * runs["spread"]["node_hours"]
    assert result["saving"] == pytest.approx(1 - runs["packing"]["node_hours"] / runs["spread"]["node_hours"])


def test_packing_raises_utilisation(result: dict[str, Any]) -> None:
    """The same work on fewer node-hours: packing's utilisation is higher."""
    runs = result["runs"]
    assert runs["packing"]["utilisation"] > runs["spread"]["utilisation"]


def test_both_policies_scaled_up_and_down(result: dict[str, Any]) -> None:
    """The autoscaler both added and removed nodes under each policy."""
    for run in result["runs"].values():
        assert run["nodes_added"] > 0
        assert run["nodes_removed"] > 0
