"""Fault schedules (issue 21): validation, and each kind through ``Cluster.inject`` and ``--faults``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.fault_helpers import simulate_faults
from tests.test_cluster import TWO_QUEUES, small_cluster
from yarnball.actors._appmaster import ApplicationMaster
from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher._faults import parse_faults
from yarnball.launcher.workloads import task_spec
from yarnball.protocols import (
    Container,
    ContainerExitStatus,
    ContainerId,
    ContainerStatus,
    FinalApplicationStatus,
    RegisterApplicationMasterResponse,
    Resource,
    YarnApplicationState,
)
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


def test_cli_rejects_unknown_node_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_faults(tmp_path, [{"at_ms": 1000, "kind": "node_lost", "target": "node999"}]) == 2
    assert "fault 0: field 'target': unknown node 'node999'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # refused before the run


def test_cli_node_lost_is_expired_by_the_rm(tmp_path: Path) -> None:
    assert simulate_faults(tmp_path, [{"at_ms": 10_000, "kind": "node_lost", "target": "node3"}]) == 0
    events = [json.loads(line) for line in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    lost = [e for e in events if e.get("event") == "node_lost"]
    assert len(lost) == 1 and lost[0]["node"].startswith("node3")


# -- the schedule format: every kind's parameters ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ({"kind": "node_decommission", "target": "n", "timeout_s": -1}, "field 'timeout_s' must be an integer from 0"),
        ({"kind": "node_lost", "target": "n", "timeout_s": 5}, "field 'timeout_s' is not a parameter of node_lost"),
        ({"kind": "am_crash", "target": "j", "exit_status": "1"}, "field 'exit_status' must be an integer"),
        (
            {"kind": "message_drop", "target": "am->am", "message": "X", "duration_ms": 1},
            "field 'target' must be a link",
        ),
        (
            {"kind": "message_drop", "target": "am->rm", "message": "AllocateResponse", "duration_ms": 1},
            "field 'message' must be a message type of am->rm, one of AllocateRequest",
        ),
        ({"kind": "message_drop", "target": "am->rm", "message": "AllocateRequest"}, "field 'duration_ms' is required"),
        (
            {"kind": "message_delay", "target": "am->rm", "message": "AllocateRequest", "duration_ms": 5},
            "field 'delay_ms' is required",
        ),
        (
            {"kind": "message_duplicate", "target": "rm->am", "message": "AllocateResponse", "duration_ms": 5,
             "probability": 1.5},
            "field 'probability' must be a number in",
        ),
    ],
)
def test_bad_parameters_name_entry_and_field(entry: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(f"fault 1: {needle}")):
        parse_faults([{"at_ms": 0, "kind": "node_lost", "target": "n"}, {"at_ms": 5, **entry}])


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ({"at_ms": 10**400, "kind": "node_lost", "target": "n"},
         "field 'at_ms' must be an integer from 0 to 1000000000000, got 10000000000000000000... (401 characters)"),
        ({"at_ms": 5, "kind": "rm_restart", "target": "rm", "down_ms": 2**64},
         "field 'down_ms' must be an integer from 0 to 86400000, got 18446744073709551616"),
        ({"at_ms": 5, "kind": "node_restart", "target": "n", "down_ms": 86_400_001},
         "field 'down_ms' must be an integer from 0 to 86400000"),
        ({"at_ms": 5, "kind": "message_drop", "target": "am->rm", "message": "AllocateRequest",
          "duration_ms": 10**12 + 1}, "field 'duration_ms' must be an integer from 1 to 1000000000000"),
        ({"at_ms": 5, "kind": "message_delay", "target": "am->rm", "message": "AllocateRequest", "duration_ms": 5,
          "delay_ms": 2**63}, "field 'delay_ms' must be an integer from 1 to 86400000"),
        ({"at_ms": 5, "kind": "node_decommission", "target": "n", "timeout_s": 10**10},
         "field 'timeout_s' must be an integer from 0 to 1000000000"),
        ({"at_ms": 5, "kind": "am_crash", "target": "j", "exit_status": 2**31},
         "field 'exit_status' must be an integer from -2147483648 to 2147483647"),
    ],
)
def test_out_of_range_times_name_entry_field_and_range(entry: dict[str, object], needle: str) -> None:
    """A time that would overflow the clock or keep the run going for nothing is refused with the accepted range."""
    with pytest.raises(ConfigurationError, match=re.escape(f"faults.json: fault 1: {needle}")):
        parse_faults([{"at_ms": 0, "kind": "node_lost", "target": "n"}, entry], "faults.json")


@pytest.mark.parametrize(
    "entry",
    [
        {"at_ms": 10**400, "kind": "node_lost", "target": "node1"},
        {"at_ms": 1000, "kind": "rm_restart", "target": "rm", "down_ms": 2**64},
    ],
)
def test_cli_refuses_out_of_range_times(tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: object) -> None:
    """``yarnball simulate --faults`` with an at_ms beyond the clock, or an RM down for 2^64 ms, exits 2 with one
    line naming the file, the entry and the field."""
    assert simulate_faults(tmp_path, [entry]) == 2
    err = capsys.readouterr().err
    assert "faults.json: fault 0: field '" in err and "must be an integer from 0 to" in err and "Traceback" not in err


def test_unknown_application_and_container_targets_are_rejected() -> None:
    cluster, builder = small_cluster(dict(TWO_QUEUES), nodes=2)
    builder.job("j", queue="a", tasks=[task_spec(1, 1000)])
    cluster.submit_workload(builder.build())
    with pytest.raises(ConfigurationError, match="fault 0: field 'target': unknown application 'k'"):
        cluster.inject({"at_ms": 5, "kind": "am_crash", "target": "k"})
    with pytest.raises(ConfigurationError, match="unknown application 'application_1700000000000_0002'"):
        cluster.inject({"at_ms": 5, "kind": "am_crash", "target": "application_1700000000000_0002"})
    with pytest.raises(ConfigurationError, match="unknown container 'container_1700000000000_0002_01_000002'"):
        cluster.inject({"at_ms": 5, "kind": "container_fail", "target": "container_1700000000000_0002_01_000002"})
    cluster.inject({"at_ms": 5, "kind": "am_crash", "target": "application_1700000000000_0001"})  # known: accepted


def test_cli_rejects_unknown_application_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_faults(tmp_path, [{"at_ms": 1000, "kind": "am_crash", "target": "job_99"}]) == 2
    assert "fault 0: field 'target': unknown application 'job_99'" in capsys.readouterr().err


def _events(tmp_path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]


def test_cli_counts_every_injected_fault_in_summary(tmp_path: Path) -> None:
    """Every kind from one file: each injected fault is a fault_injected event, and summary.json counts them."""
    schedule = [
        {"at_ms": 3000, "kind": "message_duplicate", "target": "am->rm", "message": "AllocateRequest",
         "duration_ms": 4000},
        {"at_ms": 8000, "kind": "container_fail", "target": "synth_000001", "exit_status": 137},
        {"at_ms": 9000, "kind": "am_crash", "target": "synth_000002"},
        {"at_ms": 10_000, "kind": "node_decommission", "target": "node4", "timeout_s": 30},
    ]
    assert simulate_faults(tmp_path, schedule) == 0
    events = _events(tmp_path)
    injected = [e for e in events if e.get("event") == "fault_injected"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    counted = sum(summary["faults"]["injected"].values()) + sum(summary["faults"]["without_effect"].values())
    assert summary["faults"]["scheduled"] == 4 and counted == len(injected) >= 4
    assert {e["kind"] for e in injected} == {f["kind"] for f in schedule}


# -- the kinds, one behaviour each ---------------------------------------------------------------------------------
def _one_job_cluster(conf: dict[str, str] | None = None, **job: object) -> Cluster:
    cluster, builder = small_cluster({**TWO_QUEUES, **(conf or {})}, nodes=2)
    builder.job("j", queue="a", tasks=[task_spec(4, 60_000)], **job)  # type: ignore[arg-type]
    cluster.submit_workload(builder.build())
    return cluster


def test_am_crash_fails_the_attempt_and_the_next_one_finishes() -> None:
    """The crashed attempt counts (exit 1); attempt 2 runs the job again to SUCCEEDED."""
    cluster = _one_job_cluster()
    cluster.inject({"at_ms": 20_000, "kind": "am_crash", "target": "j"})
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    (failed,) = [e for e in events if e["event"] == "attempt_failed"]
    assert failed["counted"] is True and "exitCode: 1 due to: AM process crashed" in failed["diagnostics"]
    (app,) = cluster.applications
    assert str(app.current_attempt_id).endswith("_000002") and app.final_status is FinalApplicationStatus.SUCCEEDED


def test_am_crash_beyond_max_attempts_fails_the_application() -> None:
    cluster = _one_job_cluster({"yarn.resourcemanager.am.max-attempts": "1"})
    cluster.inject({"at_ms": 20_000, "kind": "am_crash", "target": "j"})
    with captured_events():
        cluster.run(until_ms=3_600_000)
    (app,) = cluster.applications
    assert app.state is YarnApplicationState.FAILED
    assert app.diagnostics.startswith(f"Application {app.application_id} failed 1 times due to AM Container for")


def test_am_crash_before_launch_has_no_effect_and_says_why() -> None:
    cluster = _one_job_cluster(submit_ms=50_000)
    cluster.inject({"at_ms": 10_000, "kind": "am_crash", "target": "j"})
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    (e,) = [e for e in events if e["event"] == "fault_injected"]
    assert e["applied"] is False and e["reason"] == "no AM process is running (not launched yet, or finished)"
    assert cluster.faults.summary()["without_effect"] == {"am_crash": 1}
    (app,) = cluster.applications
    assert str(app.current_attempt_id).endswith("_000001")


class KeepingAM(ApplicationMaster):
    """Runs 2 long containers, keeping them across attempts; a new attempt adopts them and asks for nothing."""

    def __init__(self) -> None:
        super().__init__(name="keeper", queue="a", keep_containers_across_application_attempts=True)
        self.adopted: list[ContainerId] = []
        self.done: list[ContainerStatus] = []

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        self.adopted = [c.id for c in response.containers_from_previous_attempts]
        if not self.adopted:
            self.add_container_request(Resource(1024, 1), priority=1, count=2)

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for c in containers:
            self.start_container(c, duration_ms=60_000)

    def on_containers_completed(self, statuses: tuple[ContainerStatus, ...]) -> None:
        self.done.extend(statuses)
        if len(self.done) == 2:
            self.finish()


def test_am_crash_keeps_containers_when_the_application_asked() -> None:
    """keepContainersAcrossApplicationAttempts: the running containers survive the crash, the next attempt gets them
    in containersFromPreviousAttempts and hears of their SUCCESS."""
    cluster, _ = small_cluster(dict(TWO_QUEUES), nodes=2)
    am = cluster.submit(KeepingAM())
    cluster.inject({"at_ms": 20_000, "kind": "am_crash", "target": "keeper"})
    with captured_events():
        cluster.run(until_ms=3_600_000)
    assert len(am.adopted) == 2 and all(c.application_attempt_id.attempt_id == 1 for c in am.adopted)
    assert {s.container_id for s in am.done} == set(am.adopted)
    assert all(s.exit_status == ContainerExitStatus.SUCCESS for s in am.done)
    (app,) = cluster.applications
    assert str(app.current_attempt_id).endswith("_000002") and app.final_status is FinalApplicationStatus.SUCCEEDED


class StoppingKeeper(KeepingAM):
    """A KeepingAM whose next attempt stops the containers it adopts, with the NMTokens it got at registration."""

    def on_registered(self, response: RegisterApplicationMasterResponse) -> None:
        super().on_registered(response)
        self.tokens = response.nm_tokens_from_previous_attempts
        self.kept = response.containers_from_previous_attempts
        for c in self.kept:
            self.stop_container(c)


def test_the_next_attempt_gets_nm_tokens_for_the_kept_containers() -> None:
    """registerApplicationMaster hands the new attempt an NMToken for each node of a kept container
    (nmTokensFromPreviousAttempts): without it the NM would refuse the new AM's stop as an invalid NMToken."""
    cluster, _ = small_cluster(dict(TWO_QUEUES), nodes=2)
    am = cluster.submit(StoppingKeeper())
    cluster.inject({"at_ms": 20_000, "kind": "am_crash", "target": "keeper"})
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    assert len(am.adopted) == 2
    (second,) = {t.application_attempt_id for t in am.tokens}
    assert second.attempt_id == 2
    assert sorted(str(t.node_id) for t in am.tokens) == sorted({str(c.node_id) for c in am.kept})
    assert [e for e in events if e["event"] == "request_rejected"] == []
    assert {s.container_id for s in am.done} == set(am.adopted)
    assert all(s.exit_status == ContainerExitStatus.KILLED_BY_APPMASTER for s in am.done)


def test_container_fail_reaches_the_am_with_its_exit_status() -> None:
    cluster = _one_job_cluster()
    cluster.inject({"at_ms": 20_000, "kind": "container_fail", "target": "container_1700000000000_0001_01_000003",
                    "exit_status": -104})
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    (end,) = [e for e in events if e["event"] == "container_finished" and e["container"].endswith("_01_000003")]
    assert end["exit_status"] == -104 and end["sim_ms"] >= 20_000
    am = cluster.masters[0]
    assert am.failed_task_attempts == 1  # type: ignore[attr-defined]
    (app,) = cluster.applications
    assert app.final_status is FinalApplicationStatus.SUCCEEDED


def test_node_decommission_drains_then_shuts_the_node_down() -> None:
    """DECOMMISSIONING: no new container there, the ones there end as they would (none LOST), then DECOMMISSIONED
    and SHUTDOWN."""
    cluster = _one_job_cluster()
    cluster.inject({"at_ms": 5_000, "kind": "node_decommission", "target": "node0"})
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    on_node = {e["container"] for e in events if e["event"] == "container_allocated" and e["node"] == "node0:0"}
    assert on_node
    assert all(e["sim_ms"] < 5_000 for e in events if e["event"] == "container_allocated" and e["node"] == "node0:0")
    ended = {e["container"]: e for e in events if e["event"] == "container_finished"}
    assert all(ended[c]["diagnostics"] != "Container released on a *lost* node" for c in on_node)
    assert ended["container_1700000000000_0001_01_000002"]["exit_status"] == ContainerExitStatus.SUCCESS  # ran there
    (done,) = [e for e in events if e["event"] == "node_decommissioned"]
    assert done["reason"] == "drained" and done["sim_ms"] == max(ended[c]["sim_ms"] for c in on_node)
    assert cluster.counters["nodes_decommissioned"] == 1


def _allocate_fault(kind: str, link: str = "am->rm", **params: object) -> dict[str, object]:
    message = "AllocateRequest" if link == "am->rm" else "AllocateResponse"
    return {"at_ms": 10_000, "kind": kind, "target": link, "message": message, "duration_ms": 5_000, **params}


def test_dropped_allocate_is_retried_after_the_retry_interval() -> None:
    cluster = _one_job_cluster({"yarn.resourcemanager.connect.retry-interval.ms": "7000"})
    cluster.inject(_allocate_fault("message_drop"))
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    (drop,) = [e for e in events if e["event"] == "fault_injected"]
    (retry,) = [e for e in events if e["event"] == "allocate_retried"]
    assert retry["sim_ms"] == drop["sim_ms"] + 7000
    (app,) = cluster.applications
    assert app.final_status is FinalApplicationStatus.SUCCEEDED


def test_retry_after_a_lost_response_gets_the_last_response_again() -> None:
    """ApplicationMasterService.allocate: responseId + 1 == last response's id is an old heartbeat."""
    cluster = _one_job_cluster()
    cluster.inject(_allocate_fault("message_drop", "rm->am"))
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    (dup,) = [e for e in events if e["event"] == "allocate_duplicate"]
    (retry,) = [e for e in events if e["event"] == "allocate_retried"]
    assert dup["sim_ms"] == retry["sim_ms"] and dup["response_id"] == retry["response_id"]


def test_duplicated_allocates_change_nothing_and_late_ones_are_refused() -> None:
    """A copy right behind its original gets the last response, which the AM's client drops: the run is the
    fault-free run. A copy arriving after the AM moved on is refused with Hadoop's wording."""
    runs = {}
    for name, faults in (
        ("none", []),
        ("now", [_allocate_fault("message_duplicate", duration_ms=20_000)]),
        ("late", [_allocate_fault("message_duplicate", duration_ms=20_000, delay_ms=2500)]),
    ):
        cluster = _one_job_cluster()
        if faults:
            cluster.inject(faults)
        with captured_events() as events:
            cluster.run(until_ms=3_600_000)
        runs[name] = (cluster, events)
    finish = {n: c.applications[0].finish_time for n, (c, _) in runs.items()}
    assert finish["now"] == finish["none"] == finish["late"]
    copies = [e for e in runs["now"][1] if e["event"] == "fault_injected"]
    assert copies and runs["now"][0].counters["allocate_duplicates"] == len(copies)
    refused = [e for e in runs["late"][1] if e["event"] == "allocate_refused"]
    assert refused and refused[0]["exception"] == "InvalidApplicationMasterRequestException"
    assert re.fullmatch(
        r"Invalid responseId in AllocateRequest from application attempt: appattempt_\S+, expect responseId to be \d+",
        refused[0]["diagnostics"],
    )


def test_message_faults_follow_the_seed() -> None:
    """Which messages a probability picks is drawn from the run's seed: the same seed faults the same messages."""

    def faulted(seed: int) -> list[tuple[object, ...]]:
        cluster, builder = small_cluster(dict(TWO_QUEUES), nodes=2)
        builder.job("j", queue="a", tasks=[task_spec(4, 60_000)])
        cluster = Cluster(cluster.conf, builder.build().nodes, seed=seed)
        cluster.submit_workload(builder.build())
        cluster.inject(_allocate_fault("message_duplicate", duration_ms=40_000, probability=0.5))
        with captured_events() as events:
            cluster.run(until_ms=3_600_000)
        return [(e["sim_ms"], e["source"]) for e in events if e["event"] == "fault_injected"]

    assert faulted(1) == faulted(1)
    assert faulted(1) != faulted(2)


def test_decommissioning_node_state_in_the_rest_api() -> None:
    """/ws/v1/cluster/nodes: DECOMMISSIONING while it drains, DECOMMISSIONED after."""
    from yarnball.launcher.web._snapshot import _node_state

    cluster = _one_job_cluster()
    cluster.inject({"at_ms": 5_000, "kind": "node_decommission", "target": "node0"})
    nm = cluster.node_managers["node0"]
    with captured_events():
        cluster.run(until_ms=30_000)
        assert _node_state(cluster, nm) == "DECOMMISSIONING"
        assert _node_state(cluster, cluster.node_managers["node1"]) == "RUNNING"
        cluster.run(until_ms=3_600_000)
    assert _node_state(cluster, nm) == "DECOMMISSIONED"


def test_a_faulted_cli_run_is_byte_identical_for_its_seed(tmp_path: Path) -> None:
    schedule = [
        {"at_ms": 2000, "kind": "message_drop", "target": "rm->am", "message": "AllocateResponse",
         "duration_ms": 30_000, "probability": 0.3},
        {"at_ms": 9000, "kind": "am_crash", "target": "synth_000002"},
        {"at_ms": 10_000, "kind": "node_lost", "target": "node5"},
    ]
    logs = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        assert simulate_faults(tmp_path / run, schedule) == 0
        logs.append((tmp_path / run / "out" / "events.jsonl").read_bytes())
    assert logs[0] == logs[1] and b'"fault_injected"' in logs[0]
