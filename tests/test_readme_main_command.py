"""The README's first command: a real simulation of the trace bundled in examples/traces/."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from yarnball.launcher.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _readme_command() -> list[str]:
    """The ``yarnball ...`` part of the first bash block of README.md, as argv."""
    block = re.search(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)
    assert block is not None
    line = block.group(1).strip()
    assert line.startswith("pip install -e . && yarnball simulate "), line
    return shlex.split(line.split("&& yarnball ", 1)[1])


def test_readme_main_command_simulates_the_bundled_trace(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    """Exactly the README's command line, run from the repository root, finishes every bundled job."""
    argv = _readme_command()
    assert argv[argv.index("--output-dir") + 1] == "out"
    monkeypatch.chdir(ROOT)
    out = tmp_path / "out"
    argv[argv.index("--output-dir") + 1] = str(out)
    assert main([*argv, "--no-plots", "--no-progress"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    # the README's "(N MapReduce jobs on M nodes ..." about this trace
    figures = re.search(r"\((\d+) MapReduce jobs on (\d+) nodes", " ".join((ROOT / "README.md").read_text().split()))
    assert figures is not None
    jobs, nodes = map(int, figures.groups())
    assert summary["cluster"]["nodes"] == nodes
    assert summary["applications"]["submitted"] == jobs
    assert summary["applications"]["finished"] == jobs
    assert summary["containers"]["allocated"] > 40  # AMs plus their tasks were scheduled
    assert (out / "jobruntime.csv").read_text().count("\n") == jobs + 1  # header + one line per job
    assert "simulated" in capsys.readouterr().out


def test_bundled_trace_files_are_in_the_repository() -> None:
    """The trace and node file the README names exist beside the script that generated them."""
    argv = _readme_command()
    for flag in ("--tracelocation", "--nodes"):
        assert (ROOT / argv[argv.index(flag) + 1]).is_file()
    assert (ROOT / "examples" / "traces" / "make_sample_trace.py").is_file()
