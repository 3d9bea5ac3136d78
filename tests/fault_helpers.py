"""``yarnball simulate --faults`` on the bundled sample trace, for the fault tests."""

from __future__ import annotations

import json
from pathlib import Path

TRACE = Path(__file__).resolve().parent.parent / "examples" / "traces"


def simulate_faults(tmp_path: Path, schedule: object) -> int:
    """Run the CLI on sample-sls.json / sample-nodes.json with ``schedule`` as its faults file (output in
    ``tmp_path / "out"``, no plots); its exit code."""
    from yarnball.launcher.cli import main

    faults = tmp_path / "faults.json"
    faults.write_text(json.dumps(schedule))
    return main(
        [
            "simulate",
            "--tracelocation",
            str(TRACE / "sample-sls.json"),
            "--nodes",
            str(TRACE / "sample-nodes.json"),
            "--output-dir",
            str(tmp_path / "out"),
            "--no-plots",
            "--no-progress",
            "--faults",
            str(faults),
        ]
    )
