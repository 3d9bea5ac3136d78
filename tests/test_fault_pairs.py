"""Fault combinations: every fault kind alone, every pair of kinds and all of them at once, ``rm_restart`` with
``yarn.resourcemanager.recovery.enabled`` on and off, on the bundled trace (examples/traces/sample-sls.json and
sample-nodes.json) and on a busy synthetic workload (tests/test_fault_matrix.py's, preemption on).

Whatever the faults, each run ends by itself (well before a generous ``until_ms``), every application and container
ends in one of Hadoop's final states (yarnball.testing's conservation check and the event-log invariants), and
summary.json, jobruntime.csv and the event log agree. tests/test_fault_matrix.py checks each kind's own outcome.
"""

from __future__ import annotations

import csv
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from tests.test_fault_matrix import busy
from yarnball.launcher import Cluster
from yarnball.launcher._outputs import MetricsRecorder, build_summary, write_jobruntime
from yarnball.launcher.workloads import TraceDefaults, load_workload
from yarnball.launcher.workloads._model import Workload
from yarnball.protocols import Configuration, keys
from yarnball.testing import assert_containers_conserved, assert_invariants, captured_events

TRACE = Path(__file__).resolve().parent.parent / "examples" / "traces"
UNTIL_MS = 6 * 3600 * 1000  # a guard only: every run must end long before
FAULT_MS = 15_000
RESTART_MS = 25_000  # inside the message windows, after the node and application faults
#: Each kind's entry on each workload, aimed where it bites (the busiest nodes and jobs at FAULT_MS).
TARGETS = {
    "bundled": {"lost": "node16", "restart": "node18", "decommission": "node17", "crash": "synth_000006",
                "fail": "synth_000010"},
    "busy": {"lost": "node5", "restart": "node6", "decommission": "node2", "crash": "a1", "fail": "a2"},
}  # fmt: skip
KINDS = (
    "node_lost",
    "node_restart",
    "node_decommission",
    "am_crash",
    "container_fail",
    "message_drop",
    "message_delay",
    "message_duplicate",
    "rm_restart",
)


def fault(kind: str, where: str) -> dict[str, Any]:
    t = TARGETS[where]
    window = {"at_ms": FAULT_MS, "duration_ms": 20_000}
    return {
        "node_lost": {"at_ms": FAULT_MS, "kind": kind, "target": t["lost"]},
        "node_restart": {"at_ms": FAULT_MS, "kind": kind, "target": t["restart"], "down_ms": 5000},
        "node_decommission": {"at_ms": FAULT_MS, "kind": kind, "target": t["decommission"], "timeout_s": 60},
        "am_crash": {"at_ms": FAULT_MS, "kind": kind, "target": t["crash"]},
        "container_fail": {"at_ms": FAULT_MS, "kind": kind, "target": t["fail"], "exit_status": 137},
        "message_drop": {**window, "kind": kind, "target": "am->rm", "message": "AllocateRequest", "probability": 0.3},
        # NM heartbeats late by as long as the window: the case that lost completions across an RM restart
        "message_delay": {**window, "kind": kind, "target": "nm->rm", "message": "NodeHeartbeatRequest",
                          "delay_ms": 20_000},
        "message_duplicate": {**window, "kind": kind, "target": "am->nm", "message": "StartContainersRequest",
                              "delay_ms": 100},
        "rm_restart": {"at_ms": RESTART_MS, "kind": kind, "target": "rm", "down_ms": 5000},
    }[kind]  # fmt: skip


def schedules() -> list[Any]:
    """Every kind alone, every pair and all at once; each with rm_restart twice: recovery on and off."""
    cases = [(kind,) for kind in KINDS] + list(combinations(KINDS, 2)) + [KINDS]
    params = []
    for kinds in cases:
        name = "all" if kinds == KINDS else "+".join(kinds)
        for recovery in (True, False) if "rm_restart" in kinds else (False,):
            suffix = ("-recovery" if recovery else "-no_recovery") if "rm_restart" in kinds else ""
            params.append(pytest.param(kinds, recovery, id=name + suffix))
    return params


def bundled() -> tuple[Configuration, Workload]:
    """The bundled trace, with the NM and AM liveness intervals at 30 s so that a lost node ends early."""
    conf = Configuration(
        {keys.RM_NM_EXPIRY_INTERVAL_MS: "30000", keys.RM_AM_EXPIRY_INTERVAL_MS: "30000"}
    )  # fmt: skip
    defaults = TraceDefaults.from_configuration(conf)
    return conf, load_workload("SLS", [TRACE / "sample-sls.json"], TRACE / "sample-nodes.json", defaults, 1)


def scenario(where: str) -> tuple[Configuration, Workload, int]:
    if where == "bundled":
        conf, workload = bundled()
        return conf, workload, 1
    s = busy()
    conf = s.conf.copy()
    conf.set(keys.RM_AM_EXPIRY_INTERVAL_MS, "30000")
    return conf, s.workload, s.seed


@pytest.mark.parametrize(("kinds", "recovery"), schedules())
@pytest.mark.parametrize("where", ["bundled", "busy"])
def test_faults_end_in_final_states(where: str, kinds: tuple[str, ...], recovery: bool, tmp_path: Path) -> None:
    """The run ends by itself with every application and container in a final state, and its outputs agree."""
    conf, workload, seed = scenario(where)
    conf.set(keys.RECOVERY_ENABLED, str(recovery).lower())
    cluster = Cluster(conf, workload.nodes, seed=seed)
    cluster.submit_workload(workload)
    cluster.inject([fault(kind, where) for kind in kinds])
    with captured_events() as events:
        end = cluster.run(until_ms=UNTIL_MS)
    assert end < UNTIL_MS and cluster.finished(), "the run did not end by itself"
    assert_invariants(events)
    ledger = assert_containers_conserved(cluster)
    apps = cluster.applications
    assert len(apps) == len(cluster.masters)
    assert all(app.state.value in ("FINISHED", "FAILED", "KILLED") for app in apps)

    summary = build_summary(cluster, MetricsRecorder(cluster), wall_seconds=1.0, seed=seed, workload=workload)
    write_jobruntime(tmp_path / "jobruntime.csv", cluster, {job.job_id: job for job in workload.jobs})
    with open(tmp_path / "jobruntime.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    # summary.json <-> the applications <-> jobruntime.csv
    outcomes = Counter((app.state.value, app.final_status.value) for app in apps)
    counts = summary["applications"]
    assert counts["unfinished"] == 0 and summary["unfinished"] == []
    assert counts["finished"] == outcomes[("FINISHED", "SUCCEEDED")]
    assert counts["killed"] == sum(n for (state, _), n in outcomes.items() if state == "KILLED")
    assert counts["finished"] + counts["failed"] + counts["killed"] == counts["submitted"] == len(apps)
    assert len(summary["failed_jobs"]) == sum(n for (state, _), n in outcomes.items() if state == "FAILED")
    assert sorted(r["JobID"] for r in rows) == sorted(app.name for app in apps if app.state.value == "FINISHED")
    # ... <-> the event log: one application_finished per application, with its state; every container ends once
    ended = {e["application"]: (e["state"], e["final_status"]) for e in events if e["event"] == "application_finished"}
    assert ended == {str(app.application_id): (app.state.value, app.final_status.value) for app in apps}
    assert sum(e["event"] == "application_lost" for e in events) == cluster.counters.get("apps_lost", 0)
    containers = summary["containers"]
    finished = Counter(e["event"] for e in events if e["event"] in ("container_allocated", "container_finished"))
    assert containers["allocated"] == ledger.allocated == finished["container_allocated"]
    assert finished["container_finished"] == ledger.ended == ledger.allocated and containers["running_at_end"] == 0
    assert sum(cluster.faults.summary()["injected"].values()) >= 1
