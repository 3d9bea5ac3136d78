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


@pytest.fixture(name="results", scope="module")
def fixture_results(example: dict[str, Any], result: dict[str, Any]) -> list[dict[str, Any]]:
    """Seeds 1-3. One small run is chaotic: a change in how same-time events are ordered (canonical kernel order)
    moved seed 1 from a 16% saving to -7% while seeds 2 and 3 kept 19-23%, so the saving is judged over three seeds,
    as bench/bench_packing.py reports it."""
    return [result] + [example["compare"](2.0, s, min_nodes=2, max_nodes=15, period_ms=1_800_000) for s in (2, 3)]


def test_trace_is_deterministic(example: dict[str, Any]) -> None:
    """The same arguments give the same trace; another seed gives another."""
    make = example["elastic_trace"]
    assert make(2.0, 1, max_nodes=15) == make(2.0, 1, max_nodes=15)
    assert make(2.0, 1, max_nodes=15).jobs != make(2.0, 2, max_nodes=15).jobs


def test_every_job_finishes_under_both_policies(result: dict[str, Any]) -> None:
    """Packing and spread both run the whole trace to completion."""
    for run in result["runs"].values():
        assert run["apps_finished"] == run["apps"] == result["jobs"]


def test_packing_saves_node_hours(results: list[dict[str, Any]]) -> None:
    """Over three seeds packing needs at least 10% fewer node-hours than spread on the same traces and autoscaler."""
    spread = sum(r["runs"]["spread"]["node_hours"] for r in results)
    packing = sum(r["runs"]["packing"]["node_hours"] for r in results)
    assert packing <= 0.9 * spread
    for r in results:
        runs = r["runs"]
        assert r["saving"] == pytest.approx(1 - runs["packing"]["node_hours"] / runs["spread"]["node_hours"])


def test_packing_raises_utilisation(results: list[dict[str, Any]]) -> None:
    """The same work on fewer node-hours: over three seeds packing's utilisation is higher."""

    def overall(policy: str) -> float:
        runs = [r["runs"][policy] for r in results]
        return sum(x["utilisation"] * x["node_hours"] for x in runs) / sum(x["node_hours"] for x in runs)

    assert overall("packing") > overall("spread")


def test_both_policies_scaled_up_and_down(result: dict[str, Any]) -> None:
    """The autoscaler both added and removed nodes under each policy."""
    for run in result["runs"].values():
        assert run["nodes_added"] > 0
        assert run["nodes_removed"] > 0
