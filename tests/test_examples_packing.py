"""examples/container_packing.py: the seed's 10-node cluster under spread and under packing."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "container_packing.py"


@pytest.fixture(name="place", scope="module")
def fixture_place() -> Any:
    return runpy.run_path(str(EXAMPLE))["place"]


def test_spread_puts_two_containers_on_every_node(place: Any) -> None:
    """Spread: 2 containers on each of the 10 nodes, no node free, 20% utilisation."""
    r = place("spread")
    assert r["used_nodes"] == [2] * 10
    assert r["free_nodes"] == 0
    assert round(r["utilisation_after_downscaling"], 2) == 0.20


def test_packing_fills_three_nodes(place: Any) -> None:
    """Packing at 80%: 8, 8 and 4 containers, the other seven nodes free, 67% after downscaling."""
    r = place("packing", threshold=80)
    assert r["used_nodes"] == [8, 8, 4]
    assert r["free_nodes"] == 7
    assert round(r["utilisation_after_downscaling"], 2) == 0.67
    assert round(r["utilisation_before"], 2) == 0.20


def test_packing_result_does_not_depend_on_the_seed(place: Any) -> None:
    """The seed picks which empty nodes are filled, not how many containers each gets."""
    picks = [place("packing", seed=s) for s in (0, 1, 2)]
    assert {tuple(p["used_nodes"]) for p in picks} == {(8, 8, 4)}
    assert len({tuple(sorted(h for h, c in p["containers_per_node"].items() if c)) for p in picks}) > 1


def test_lower_threshold_uses_more_nodes(place: Any) -> None:
    """At a 60% threshold nodes fill to 6 containers: 6, 6, 6 and 2."""
    assert place("packing", threshold=60)["used_nodes"] == [6, 6, 6, 2]


def test_example_prints_free_nodes_and_utilisation() -> None:
    """The script prints the free nodes and the utilisation of each policy."""
    out = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, check=True).stdout
    assert "spread: free nodes 0" in out
    assert "spread: utilisation after downscaling 20%" in out
    assert "packing: free nodes 7" in out
    assert "packing: utilisation after downscaling 67%" in out
