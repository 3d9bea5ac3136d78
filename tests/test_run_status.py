"""Runs that go wrong say so: handler failures and rejections in the summary, and ``yarnball simulate``'s exit 3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yarnball import Cluster
from yarnball.actors import Actor, HandlerFailure, HandlerFailures, Kernel, handler
from yarnball.actors._failures import MAX_RECORDED_FAILURES
from yarnball.actors._slsam import MRAppMaster
from yarnball.launcher import cli
from yarnball.launcher._outputs import MetricsRecorder, build_summary
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import Configuration

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "examples" / "traces" / "sample-sls.json"
NODES = ROOT / "examples" / "traces" / "sample-nodes.json"
INJECTED = "RuntimeError: injected: the task table is full"


def _args(out: Path, *extra: str) -> list[str]:
    return [
        "simulate", "--tracelocation", str(TRACE), "--nodes", str(NODES), "--output-dir", str(out),
        "--no-plots", "--no-progress", *extra,
    ]


def _error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("yarnball: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())  # type: ignore[no-any-return]


@pytest.fixture
def failing_am(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The first MapReduce AM response with new containers in a run raises once its containers are handled (so no
    work is lost): a handler failure. Returns the list of AM ids it failed in (clear it between runs)."""
    original = MRAppMaster.on_containers_allocated
    failed: list[str] = []

    def on_containers_allocated(self: MRAppMaster, containers: Any) -> None:
        original(self, containers)
        if not failed:
            failed.append(self.id)
            raise RuntimeError("injected: the task table is full")

    monkeypatch.setattr(MRAppMaster, "on_containers_allocated", on_containers_allocated)
    return failed


def _conf_dir(tmp_path: Path, queues: str) -> Path:
    """A configuration directory whose capacity-scheduler.xml has the leaf queues ``queues`` under root."""
    conf = tmp_path / "conf"
    conf.mkdir()
    names = queues.split(",")
    props = [("yarn.scheduler.capacity.root.queues", queues)]
    props += [(f"yarn.scheduler.capacity.root.{q}.capacity", str(100 / len(names))) for q in names]
    body = "".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props)
    (conf / "capacity-scheduler.xml").write_text(f"<configuration>{body}</configuration>")
    return conf


# -- handler failures ----------------------------------------------------------------------------------------------
def test_a_handler_failure_finishes_the_run_then_exits_3(tmp_path: Path, capsys: Any, failing_am: list[str]) -> None:
    """The run goes on to the end and writes every output; then one line names the failure, and the status is 3."""
    out = tmp_path / "out"
    assert cli.main(_args(out)) == 3
    summary = _summary(out)
    assert summary["applications"]["finished"] == summary["applications"]["submitted"] > 0  # nothing was lost
    failures = summary["errors"]["handler_failures"]
    assert failures["count"] == 1
    [first] = failures["first"]
    assert (first["actor"], first["message_type"], first["error"]) == (failing_am[0], "AllocateResponse", INJECTED)
    for name in ("realtimetrack.json", "jobruntime.csv", "metrics/cluster.csv"):
        assert (out / name).is_file(), name
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert [e["actor"] for e in events if e["event"] == "handler_failed"] == [failing_am[0]]
    captured = capsys.readouterr()
    line = _error_line(captured.err)
    assert "1 actor handler failure " in line and failing_am[0] in line and "AllocateResponse" in line
    assert INJECTED in line
    assert "errors:       1 actor handler failures" in captured.out


def test_handler_failures_in_the_summary_are_deterministic(tmp_path: Path, failing_am: list[str]) -> None:
    """The same seed gives the same failures in summary.json and the same event log."""
    outs = []
    for name in ("a", "b"):
        failing_am.clear()
        outs.append(tmp_path / name)
        assert cli.main(_args(outs[-1], "--seed", "5")) == 3
    first, second = (_summary(o) for o in outs)
    assert first["errors"] == second["errors"] and first["errors"]["handler_failures"]["count"] == 1
    assert (outs[0] / "events.jsonl").read_bytes() == (outs[1] / "events.jsonl").read_bytes()


def test_a_clean_run_exits_0_with_no_errors(tmp_path: Path, capsys: Any) -> None:
    """No handler failure, every application finished: status 0, an empty errors section, no error line."""
    out = tmp_path / "out"
    assert cli.main(_args(out)) == 0
    assert _summary(out)["errors"] == {"handler_failures": {"count": 0, "first": []}}
    assert "error" not in capsys.readouterr().err


def test_the_cluster_exposes_handler_failures(failing_am: list[str]) -> None:
    """Cluster.handler_failures gives the count and the first failure with its actor, message type and exception."""
    builder = WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8)
    builder.job("j1", tasks=[task_spec(3, 5_000)])
    workload = builder.build()
    cluster = Cluster(Configuration(), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    assert not cluster.handler_failures
    cluster.run()
    failures = cluster.handler_failures
    assert failures.count == 1 and cluster.kernel.handler_failures == 1
    assert failures.first[0].actor == failing_am[0] and failures.first[0].error == INJECTED
    assert cluster.applications[0].state.value == "FINISHED"


def test_sharded_hosts_report_their_failures_to_the_summary(tmp_path: Path, failing_am: list[str]) -> None:
    """On shard hosts every host's failures are merged: the driver's Cluster and host 0's summary.json list them."""
    builder = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8)
    for i in range(3):
        builder.job(f"j{i}", submit_ms=i * 1000, tasks=[task_spec(3, 5_000)])
    workload = builder.build()
    cluster = Cluster(Configuration(), workload.nodes, seed=1, backend="inprocess", hosts=2, latency_ms=1)
    cluster.submit_workload(workload)
    cluster.record_metrics(1000)  # type: ignore[attr-defined]
    cluster.run()
    failures = cluster.handler_failures
    assert failures.count == 1 and failures.first[0].actor == failing_am[0]
    summary = cluster.write_outputs(tmp_path, wall_seconds=1.0, plots=False)  # type: ignore[attr-defined]
    assert summary["errors"]["handler_failures"] == failures.to_dict()
    cluster.close()


class _Fragile(Actor):
    def __init__(self) -> None:
        self.handled: list[int] = []

    @handler
    def on_int(self, n: int) -> None:
        if n % 2:
            raise ValueError(f"odd {n}")
        self.handled.append(n)


def test_the_kernel_counts_every_failure_and_keeps_the_first_few() -> None:
    """Every failure is counted; the first MAX_RECORDED_FAILURES are kept in order; the actor keeps running."""
    kernel = Kernel()
    actor = _Fragile()
    ref = kernel.spawn(actor, "fragile")
    n = 2 * (MAX_RECORDED_FAILURES + 5)
    for i in range(n):
        ref.tell(i, delay=i)
    kernel.run()
    failures = HandlerFailures.of_kernel(kernel)
    assert failures.count == n // 2 and len(failures.first) == MAX_RECORDED_FAILURES
    assert [f.error for f in failures.first[:2]] == ["ValueError: odd 1", "ValueError: odd 3"]
    assert [f.time_ms for f in failures.first[:2]] == [1, 3]
    assert {(f.actor, f.message_type) for f in failures.first} == {("fragile", "int")}
    assert actor.handled == list(range(0, n, 2))


def test_merged_failures_take_the_earliest_over_all_hosts() -> None:
    """Merging hosts adds the counts and keeps the earliest failures by time, then by host."""
    a = HandlerFailures(12, tuple(HandlerFailure(t, "nm-a", "X", "E: a") for t in range(0, 100, 10)))
    b = HandlerFailures(1, (HandlerFailure(5, "nm-b", "Y", "E: b"),))
    merged = HandlerFailures.merge([a, b])
    assert merged.count == 13 and len(merged.first) == MAX_RECORDED_FAILURES
    assert [f.time_ms for f in merged.first[:3]] == [0, 5, 10] and merged.first[1].actor == "nm-b"


# -- rejections and runs where nothing finished --------------------------------------------------------------------
def test_every_application_rejected_exits_3_with_the_reason(tmp_path: Path, capsys: Any) -> None:
    """A trace whose queue the configuration does not have: every application is rejected; one line says why."""
    out = tmp_path / "out"
    assert cli.main([*_args(out), "--conf-dir", str(_conf_dir(tmp_path, "a"))]) == 3
    summary = _summary(out)
    apps = summary["applications"]
    assert apps["rejected"] == apps["submitted"] > 0 and apps["finished"] == 0
    [(reason, count)] = summary["rejected_by_reason"].items()
    assert count == apps["rejected"] and reason.endswith("to unknown queue: default") and "<user>" in reason
    captured = capsys.readouterr()
    line = _error_line(captured.err)
    assert f"every application ({apps['submitted']}) was rejected" in line and "unknown queue: default" in line
    assert f"rejected:     {count} " in captured.out


def test_a_run_cut_by_until_ms_before_any_finish_is_not_an_error(tmp_path: Path, capsys: Any) -> None:
    """--until-ms asked for a short run: none finished is what was asked, so exit 0 and no error line."""
    out = tmp_path / "out"
    assert cli.main(_args(out, "--until-ms", "2000")) == 0
    assert _summary(out)["applications"]["finished"] == 0
    assert "error" not in capsys.readouterr().err


def test_a_trace_with_no_jobs_exits_3(tmp_path: Path, capsys: Any) -> None:
    """Nothing submitted at all (every job of the trace skipped) is a run where none finished."""
    trace = tmp_path / "empty.json"
    trace.write_text("")
    out = tmp_path / "out"
    status = cli.main(["simulate", "--tracelocation", str(trace), "--nodes", str(NODES), "--output-dir", str(out),
                       "--no-plots", "--no-progress"])
    err = capsys.readouterr().err
    if status == 2:  # the trace reader refuses an empty trace: that is a user error, fine too
        assert "empty.json" in _error_line(err)
        return
    assert status == 3 and "none was submitted" in _error_line(err)


def test_rejections_are_counted_by_reason() -> None:
    """Applications refused for the same reason count together, whatever their ids and users; others apart."""
    builder = WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8)
    for i, (queue, user) in enumerate([("default", "u1"), ("nope", "u1"), ("nope", "u2"), ("other", "u3")]):
        builder.job(f"j{i}", queue=queue, user=user, tasks=[task_spec(1, 1_000)])
    workload = builder.build()
    cluster = Cluster(Configuration(), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    recorder = MetricsRecorder(cluster, 1000)
    recorder.start()
    cluster.run()
    summary = build_summary(cluster, recorder, wall_seconds=1.0, seed=1, workload=workload)
    apps = summary["applications"]
    assert apps["finished"] == 1 and apps["rejected"] == 3
    by_reason = summary["rejected_by_reason"]
    assert sorted(by_reason.values()) == [1, 2] and sum(by_reason.values()) == apps["rejected"]
    top = next(iter(by_reason))
    assert by_reason[top] == 2 and top.endswith("unknown queue: nope") and "u1" not in top and "u2" not in top
