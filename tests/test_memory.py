"""Huge-page arenas (``yarnball.simulation.huge-page-arenas``, launcher/_memory.py, yarnball/_hugearena.c): a
cluster installs them for its process, the small objects then live on transparent huge pages, and no output
depends on it. Each case runs in a fresh process: the allocator is per process, installed once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher._memory import transparent_huge_pages
from yarnball.protocols import keys

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "traces"

PROBE = """
import json, sys
from yarnball import _hugearena
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder
before = _hugearena.installed()
cluster = Cluster({"yarnball.simulation.huge-page-arenas": sys.argv[1]},
                  WorkloadBuilder().nodes(50, memory_mb=8192, vcores=8).build().nodes)
arenas = _hugearena.arenas()
objects = [(i, str(i)) for i in range(1_000_000)]  # ~100 MB of small objects
huge_kb = sum(int(line.split()[1]) for line in open("/proc/self/smaps_rollup") if line.startswith("AnonHugePages:"))
print(json.dumps({"before": before, "installed": _hugearena.installed(), "arenas": arenas,
                  "arenas_after": _hugearena.arenas(), "huge_kb": huge_kb}))
"""


def probe(value: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", PROBE, value], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_a_cluster_puts_the_small_objects_on_huge_pages() -> None:
    """Building a cluster installs the arena allocator (not before); new small objects take arenas from it, and
    where the kernel has transparent huge pages the process holds some."""
    pytest.importorskip("yarnball._hugearena")
    seen = probe("true")
    assert seen["before"] is False and seen["installed"] is True
    assert isinstance(seen["arenas_after"], int) and isinstance(seen["arenas"], int)
    assert seen["arenas_after"] >= seen["arenas"] + 50  # 100 MB of new objects: 1 MiB arenas from the chunks
    if transparent_huge_pages() in ("always", "madvise"):
        assert isinstance(seen["huge_kb"], int) and seen["huge_kb"] >= 2048


def test_the_key_keeps_cpythons_own_arenas() -> None:
    """``yarnball.simulation.huge-page-arenas=false``: nothing is installed, no arena comes from huge pages."""
    pytest.importorskip("yarnball._hugearena")
    seen = probe("false")
    assert seen["installed"] is False and seen["arenas_after"] == 0


def test_a_bad_value_names_the_key() -> None:
    with pytest.raises(ConfigurationError, match=keys.SIMULATION_HUGE_PAGE_ARENAS):
        Cluster({keys.SIMULATION_HUGE_PAGE_ARENAS: "sometimes"})


def test_outputs_are_the_same_with_and_without_huge_page_arenas(tmp_path: Path) -> None:
    """The README's main job with the key on and off: the event log, SLS's outputs and the metrics are equal."""
    runs = {}
    for value in ("true", "false"):
        out = tmp_path / value
        command = [
            sys.executable, "-m", "yarnball.launcher", "simulate", "--tracetype", "SLS",
            "--tracelocation", str(SAMPLE / "sample-sls.json"), "--nodes", str(SAMPLE / "sample-nodes.json"),
            "--output-dir", str(out), "--seed", "1", "--no-plots",
            "--conf", f"{keys.SIMULATION_HUGE_PAGE_ARENAS}={value}",
        ]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        runs[value] = out
    for name in ("events.jsonl", "jobruntime.csv", "realtimetrack.json", "metrics/cluster.csv"):
        assert (runs["true"] / name).read_bytes() == (runs["false"] / name).read_bytes(), name
