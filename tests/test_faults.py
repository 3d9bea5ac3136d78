"""Fault schedules (issue 21): validation and the ``node_lost`` kind through ``Cluster.inject``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cluster import TWO_QUEUES, small_cluster
from yarnball.errors import ConfigurationError
from yarnball.launcher._faults import parse_faults
from yarnball.launcher.workloads import task_spec
from yarnball.protocols import FinalApplicationStatus, YarnApplicationState
from yarnball.testing import assert_containers_conserved, captured_events


@pytest.mark.parametrize(
    ("entries", "needle"),
    [
        ({"at_ms": 1}, "must be a JSON list"),
        ([{"at_ms": -1, "kind": "node_lost", "target": "n"}], "fault 0: field 'at_ms'"),
        (
            [{"at_ms": 1, "kind": "node_lost", "target": "n"}, {"at_ms": 1, "kind": "boom", "target": "n"}],
            "fault 1: field 'kind'",
        ),
        ([{"at_ms": 1, "kind": "node_lost"}], "fault 0: field 'target'"),
    ],
)
def test_bad_schedule_names_entry_and_field(entries: object, needle: str) -> None:
    with pytest.raises(ConfigurationError, match=needle):
        parse_faults(entries)


def test_unknown_node_is_rejected_before_the_run() -> None:
    cluster, _ = small_cluster(dict(TWO_QUEUES), nodes=2)
    with pytest.raises(ConfigurationError, match="fault 0: field 'target': unknown node 'nope'"):
        cluster.inject({"at_ms": 5, "kind": "node_lost", "target": "nope"})


def test_node_lost_from_file_expires_node_and_conserves_containers(tmp_path: Path) -> None:
    conf = dict(TWO_QUEUES)
    conf["yarn.nm.liveness-monitor.expiry-interval-ms"] = "30000"
    cluster, builder = small_cluster(conf, nodes=3)
    builder.job("j", queue="a", tasks=[task_spec(6, 120_000)])
    cluster.submit_workload(builder.build())
    schedule = tmp_path / "faults.json"
    schedule.write_text(json.dumps([{"at_ms": 20_000, "kind": "node_lost", "target": "node1"}]))
    cluster.inject_file(schedule)
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    lost = [e for e in events if e["event"] == "node_lost"]
    assert len(lost) == 1 and lost[0]["node"].startswith("node1")
    assert cluster.rm.counters["nodes_lost"] == 1
    (app,) = cluster.applications
    assert app.state is YarnApplicationState.FINISHED
    assert app.final_status is FinalApplicationStatus.SUCCEEDED
    assert_containers_conserved(cluster)


TRACE = Path(__file__).resolve().parent.parent / "examples" / "traces"


def _simulate(tmp_path: Path, schedule: object) -> int:
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


def test_cli_rejects_unknown_node_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _simulate(tmp_path, [{"at_ms": 1000, "kind": "node_lost", "target": "node999"}]) == 2
    assert "fault 0: field 'target': unknown node 'node999'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # refused before the run


def test_cli_node_lost_is_expired_by_the_rm(tmp_path: Path) -> None:
    assert _simulate(tmp_path, [{"at_ms": 10_000, "kind": "node_lost", "target": "node3"}]) == 0
    events = [json.loads(line) for line in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    lost = [e for e in events if e.get("event") == "node_lost"]
    assert len(lost) == 1 and lost[0]["node"].startswith("node3")
