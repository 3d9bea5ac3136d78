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
