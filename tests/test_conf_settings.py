"""Every setting counts: explicit keys win over the built-in queue, values are parsed as Hadoop parses them, keys
yarnball does not read are named, and a Hadoop conf directory builds a Cluster."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from yarnball import Cluster
from yarnball.errors import ConfigurationError
from yarnball.launcher import cli
from yarnball.launcher.workloads import TraceDefaults, WorkloadBuilder, task_spec
from yarnball.protocols import Configuration
from yarnball.protocols._javanumbers import hadoop_integer, java_float

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "examples" / "traces" / "sample-sls.json"
NODES = ROOT / "examples" / "traces" / "sample-nodes.json"
DEFAULT_MAX = "yarn.scheduler.capacity.root.default.maximum-capacity"
DEFAULT_CAPACITY = "yarn.scheduler.capacity.root.default.capacity"


def _args(out: Path, *extra: str) -> list[str]:
    return [
        "simulate", "--tracelocation", str(TRACE), "--nodes", str(NODES), "--output-dir", str(out),
        "--no-plots", "--no-progress", *extra,
    ]  # fmt: skip


def _error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("yarnball: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def _nodes() -> Any:
    return WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8).job("j1", tasks=[task_spec(2, 5_000)]).build()


# -- explicit keys win over Hadoop's shipped root.default ----------------------------------------------------------
def test_conf_maximum_capacity_of_the_default_queue_is_not_overwritten(tmp_path: Path, capsys: Any) -> None:
    """--conf root.default.maximum-capacity=10 reaches the queue tree: 10 < the queue's 100 % capacity is Hadoop's
    "Illegal queue capacity setting" (exit 2), not a run identical to one without the key."""
    assert cli.main(_args(tmp_path / "out", "--conf", f"{DEFAULT_MAX}=10")) == 2
    line = _error_line(capsys.readouterr().err)
    assert DEFAULT_MAX in line and "Illegal queue capacity setting" in line


def test_conf_capacity_of_the_default_queue_is_validated(tmp_path: Path, capsys: Any) -> None:
    """--conf root.default.capacity=abc is refused naming the key, as any other capacity would be."""
    assert cli.main(_args(tmp_path / "out", "--conf", f"{DEFAULT_CAPACITY}=abc")) == 2
    assert DEFAULT_CAPACITY in _error_line(capsys.readouterr().err)


def test_cluster_mapping_keys_of_the_default_queue_win() -> None:
    """Cluster(mapping) keeps a root.default key the mapping gives (here a weight) and fills in only the others."""
    cluster = Cluster({DEFAULT_CAPACITY: "1w"}, _nodes().nodes)
    assert cluster.conf.get(DEFAULT_CAPACITY) == "1w"
    assert cluster.conf.get("yarn.scheduler.capacity.root.queues") == "default"
    with pytest.raises(ConfigurationError, match="maximum-capacity"):
        Cluster({DEFAULT_MAX: "10"}, _nodes().nodes)
