"""``yarnball simulate`` with the FifoScheduler: the bundled trace runs to the end with every output, twice
byte-identically, differently from the CapacityScheduler; a bad allocation pair or a preemption monitor exits 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from yarnball.launcher import cli
from yarnball.protocols import keys

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "examples" / "traces" / "sample-sls.json"
NODES = ROOT / "examples" / "traces" / "sample-nodes.json"
FIFO = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler"


def _simulate(out: Path, *conf: str) -> int:
    argv = ["simulate", "--tracetype", "SLS", "--tracelocation", str(TRACE), "--nodes", str(NODES), "--seed", "1",
            "--output-dir", str(out), "--no-progress", "--no-plots"]  # fmt: skip
    for c in conf:
        argv += ["--conf", c]
    return cli.main(argv)


def _files(out: Path) -> dict[str, bytes]:
    skip = ("summary.json", "_yarnball_run.json")
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name not in skip and "timecost" not in p.name
    }


def test_the_bundled_trace_runs_to_the_end_deterministically_and_unlike_the_capacity_scheduler(tmp_path: Path) -> None:
    a, b, cs = tmp_path / "a", tmp_path / "b", tmp_path / "cs"
    assert _simulate(a, f"{keys.RM_SCHEDULER}={FIFO}") == 0
    assert _simulate(b, f"{keys.RM_SCHEDULER}=FifoScheduler") == 0
    assert _simulate(cs) == 0
    summary = json.loads((a / "summary.json").read_text())
    apps = summary["applications"]
    assert apps["submitted"] == apps["finished"] == 40, apps
    fa, fcs = _files(a), _files(cs)
    assert fa == _files(b)  # deterministic: the same inputs give the same bytes
    assert set(fa) == set(fcs)  # every output a CS run writes
    assert fa["events.jsonl"] != fcs["events.jsonl"]  # FIFO schedules differently


def test_min_above_max_allocation_exits_2_with_hadoop_s_message(tmp_path: Path, capsys: Any) -> None:
    code = _simulate(
        tmp_path / "out",
        f"{keys.RM_SCHEDULER}={FIFO}",
        f"{keys.RM_SCHEDULER_MINIMUM_ALLOCATION_MB}=4096",
        f"{keys.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB}=2048",
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "Invalid resource scheduler memory allocation configuration" in err
    assert "max should be no smaller than min." in err


def test_a_preemption_monitor_with_the_fifo_scheduler_exits_2(tmp_path: Path, capsys: Any) -> None:
    code = _simulate(tmp_path / "out", f"{keys.RM_SCHEDULER}={FIFO}", f"{keys.RM_SCHEDULER_ENABLE_MONITORS}=true")
    assert code == 2
    assert f"Class {FIFO} not instance of" in capsys.readouterr().err
