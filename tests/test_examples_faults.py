"""examples/faults/: the schedule loses 10% of the nodes and crashes 5 AMs; the SLS user's guide's job-completion
figures are what examples/faults/compare.py computes now."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "faults"


@pytest.fixture(name="result", scope="module")
def fixture_result(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    compare = runpy.run_path(str(EXAMPLE / "compare.py"))["compare"]
    return compare(tmp_path_factory.mktemp("faults"), 1)  # type: ignore[no-any-return]


def test_the_schedule_loses_ten_percent_of_the_nodes_and_crashes_five_ams() -> None:
    schedule = json.loads((EXAMPLE / "schedule.json").read_text())
    nodes = [n for rack in (EXAMPLE / "nodes-30.json").read_text().split("\n{") for n in re.findall(r'"node": "', rack)]
    lost = [f for f in schedule if f["kind"] == "node_lost"]
    assert len(lost) * 10 == len(nodes)
    assert len([f for f in schedule if f["kind"] == "am_crash"]) == 5


def test_every_fault_bites_and_every_job_still_succeeds(result: dict[str, Any]) -> None:
    """All 8 faults hit a running target; the crashed jobs run again from the start, so each is slower."""
    summary = result["summary"]
    assert summary["faults"]["injected"] == {"am_crash": 5, "node_lost": 3}
    assert summary["faults"]["without_effect"] == {}
    assert summary["applications"]["finished"] == 40 and summary["applications"]["failed"] == 0
    assert summary["containers"]["lost"] > 0
    crashed = [f["target"] for f in json.loads((EXAMPLE / "schedule.json").read_text()) if f["kind"] == "am_crash"]
    assert set(crashed) <= set(result["jobs_slower"])


def test_the_guide_figures_are_what_the_example_computes(result: dict[str, Any]) -> None:
    readme = (ROOT / "docs" / "guides" / "sls-user.md").read_text(encoding="utf-8")
    rows = {}
    for name, key in (("no faults", "no_faults"), ("3 nodes lost, 5 AMs crashed", "faults")):
        cells = r" \| ".join([r"(\d+)"] + [r"([\d.]+)"] * 5)
        m = re.search(rf"^\| {re.escape(name)} \| {cells} \|$", readme, re.M)
        assert m is not None, f"the guide's '{name}' row changed: update this test with it"
        rows[key] = m.groups()
    for i, key in enumerate(("no_faults", "faults")):
        r = result[key]
        expected = (str(r["jobs"]), *(f"{r[k]:.1f}" for k in ("mean_s", "median_s", "p90_s", "max_s")),
                    f"{result['makespan_s'][i]:.1f}")
        assert rows[key] == expected
    text = " ".join(readme.split())
    assert f"{len(result['jobs_slower'])} are slower" in text
    c = result["summary"]["containers"]
    assert f"{c['lost']} containers were lost and {c['killed']} killed" in text
