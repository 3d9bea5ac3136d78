"""The event-log invariant checker (yarnball/launcher/_invariants.py): a real run passes, each corruption of its log
is caught, and the check every test run gets (tests/conftest.py) does fail a run that breaks a rule."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from service_spies import spyable_services

from tests.test_cluster import TWO_QUEUES, small_cluster
from yarnball.launcher.workloads import task_spec
from yarnball.testing import assert_invariants, captured_events, check_invariants, read_event_log


@pytest.fixture(name="run_log", scope="module")
def fixture_run_log() -> list[dict[str, Any]]:
    """The captured events (debug included) of a small two-queue run in which everything finished."""
    cluster, builder = small_cluster(dict(TWO_QUEUES), nodes=2)
    builder.job("j1", queue="a", tasks=[task_spec(6, 20_000)])
    builder.job("j2", queue="b1", submit_ms=3000, tasks=[task_spec(4, 10_000)])
    cluster.submit_workload(builder.build())
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    return [dict(e) for e in events]


def _log(run_log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return copy.deepcopy(run_log)


def _index(events: list[dict[str, Any]], name: str, nth: int = 0) -> int:
    return [i for i, e in enumerate(events) if e["event"] == name][nth]


def test_a_real_run_keeps_every_invariant(run_log: list[dict[str, Any]]) -> None:
    assert [e for e in run_log if e["event"] == "container_allocated"]  # (the debug records are there)
    assert check_invariants(run_log) == []


def test_a_container_ending_twice_is_caught(run_log: list[dict[str, Any]]) -> None:
    events = _log(run_log)
    i = _index(events, "container_finished")
    events.insert(i + 1, dict(events[i]))
    (problem,) = check_invariants(events)
    assert f"container {events[i]['container']} ended twice" in problem


def test_a_container_never_ending_is_caught(run_log: list[dict[str, Any]]) -> None:
    events = _log(run_log)
    gone = events.pop(_index(events, "container_finished", 2))
    (problem,) = check_invariants(events)
    assert problem == f"container {gone['container']} was allocated and never ended, though every application finished"


def test_a_container_forgotten_by_an_rm_restart_must_still_end(run_log: list[dict[str, Any]]) -> None:
    """A container live when the RM stopped (``rm_stopped``) and never ended afterwards is caught: an RM restart does
    not excuse a container from ending."""
    events = _log(run_log)
    gone = events.pop(_index(events, "container_finished", 2))
    stop = {"event": "rm_stopped", "sim_ms": gone["sim_ms"], "actor": "rm", "recovery": True}
    events.insert(_index(events, "container_finished", 2), stop)
    (problem,) = check_invariants(events)
    assert problem == f"container {gone['container']} was allocated and never ended, though every application finished"


def test_a_node_over_its_capacity_is_caught(run_log: list[dict[str, Any]]) -> None:
    events = _log(run_log)
    first = events[_index(events, "container_allocated")]
    for e in events:
        if e["event"] == "node_added" and e["node"] == first["node"]:
            e["resource"] = f"<memory:{first['memory_mb']}, vCores:8>"  # room for one container only
    problems = check_invariants(events)
    assert problems and all(f"node {first['node']} holds" in p and "more than its capacity" in p for p in problems)


def test_vcores_over_capacity_count_only_under_the_dominant_resource_calculator(run_log: list[dict[str, Any]]) -> None:
    """Hadoop's DefaultResourceCalculator schedules on memory alone (a node's vcores may be overcommitted); with
    ``vcores=True`` (the DominantResourceCalculator) the same log breaks rule 2."""
    events = _log(run_log)
    first = events[_index(events, "container_allocated")]
    for e in events:
        if e["event"] == "node_added" and e["node"] == first["node"]:
            memory = e["resource"].split(",")[0]
            e["resource"] = f"{memory}, vCores:{first['vcores']}>"  # room for one container's vcores only
    assert check_invariants(events) == []
    problems = check_invariants(events, vcores=True)
    assert problems and all(f"node {first['node']} holds" in p for p in problems)


def test_an_application_finishing_twice_is_caught(run_log: list[dict[str, Any]]) -> None:
    events = _log(run_log)
    i = _index(events, "application_finished")
    again = dict(events[i], state="KILLED")
    events.insert(i + 1, again)
    (problem,) = check_invariants(events)
    assert f"application {again['application']} finished twice (FINISHED, then KILLED)" in problem


def test_a_refused_request_that_touches_its_victim_is_caught(run_log: list[dict[str, Any]]) -> None:
    """A refusal followed, in the same handling, by a change of what it named is a violation; one followed by
    nothing of its victim is not."""
    events = _log(run_log)
    i = _index(events, "application_finished")
    done = events[i]
    refusal = {
        "event": "kill_refused",
        "actor": done["actor"],
        "sim_ms": done["sim_ms"],
        "application": done["application"],
        "log_level": "warning",
    }
    clean = _log(run_log)
    clean.insert(i + 1, dict(refusal))  # after the finish: nothing of the victim follows in the same handling
    assert check_invariants(clean) == []
    events.insert(i, refusal)
    (problem,) = check_invariants(events)
    assert f"application_finished of {done['application']} right after a refused request naming it" in problem


def test_the_checker_reads_an_events_jsonl(tmp_path: Path, run_log: list[dict[str, Any]]) -> None:
    path = tmp_path / "events.jsonl"
    events = _log(run_log)
    events.append(dict(events[_index(events, "application_finished")]))
    path.write_text("".join(json.dumps(e, default=int) + "\n" for e in events))
    assert len(read_event_log(path)) == len(events)
    with pytest.raises(AssertionError, match=f"invariants violated in {path}"):
        assert_invariants(path)
    path.unlink()  # (the per-test check would find the corrupted file too)


def test_every_cluster_run_in_the_suite_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The conftest's check wraps Cluster.run: a run whose RM reports a container's end twice fails there."""
    with spyable_services():  # (the compiled dispatcher's methods cannot be replaced on its instance)
        cluster, builder = small_cluster(dict(TWO_QUEUES), nodes=2)
    builder.job("j", queue="a", tasks=[task_spec(2, 5_000)])
    cluster.submit_workload(builder.build())
    rm = cluster.rm
    done = rm.dispatcher.container_done

    def twice(cid: Any, status: Any) -> None:
        live = cid in rm.live
        done(cid, status)
        if live:
            rm.log.debug("container_finished", container=str(cid), exit_status=status.exit_status)

    monkeypatch.setattr(rm.dispatcher, "container_done", twice)
    with pytest.raises(AssertionError, match="ended twice"):
        cluster.run(until_ms=600_000)
