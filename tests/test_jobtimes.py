"""Job completion and waiting times in summary.json, the terminal summary and report.html, on every backend."""

from __future__ import annotations

import csv
import io
import statistics
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher._cluster import Cluster
from yarnball.launcher._console import print_summary as _print_summary
from yarnball.launcher._jobtimes import distribution, percentile
from yarnball.launcher._outputs import MetricsRecorder, write_outputs
from yarnball.launcher.web.report import write_report
from yarnball.launcher.workloads import Workload, WorkloadBuilder, task_spec
from yarnball.protocols import Configuration
from yarnball.testing import captured_events

QUEUES = {
    "yarn.scheduler.capacity.root.queues": "a,b",
    "yarn.scheduler.capacity.root.a.capacity": "30",
    "yarn.scheduler.capacity.root.b.capacity": "70",
}


def _workload() -> Workload:
    """Nine jobs in two queues on a small cluster, so that some wait for room: a spread of completion times."""
    builder = WorkloadBuilder().nodes(3, memory_mb=8192, vcores=8)
    for i in range(9):
        queue = "a" if i % 3 == 0 else "b"
        builder.job(f"j{i}", queue=queue, submit_ms=i * 2_000, tasks=[task_spec(2 + i % 4, 8_000 + 1_500 * i)])
    return builder.build()


def _conf() -> Configuration:
    conf = Configuration()
    for key, value in QUEUES.items():
        conf.set(key, value)
    return conf


def _run(out: Path, backend: str = "embedded") -> tuple[Cluster, dict[str, Any]]:
    workload = _workload()
    extra: dict[str, Any] = {"latency_ms": 1}
    if backend != "embedded":
        extra["hosts"] = 2
    cluster = Cluster(_conf(), workload.nodes, seed=5, backend=backend, **extra)
    cluster.submit_workload(workload)
    if backend == "embedded":
        recorder = MetricsRecorder(cluster, 1000)
        recorder.start()
        cluster.run(until_ms=3_600_000)
        summary = write_outputs(out, cluster, recorder, wall_seconds=1.0, seed=5, workload=workload, plots=False)
    else:
        cluster.record_metrics(1000)  # type: ignore[attr-defined]
        cluster.run(until_ms=3_600_000)
        summary = cluster.write_outputs(out, wall_seconds=1.0, workload=workload, plots=False)  # type: ignore[attr-defined]
        cluster.close()
    return cluster, summary


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _expected(values: list[float]) -> dict[str, Any]:
    """mean, median, p95, p99 and max computed here, with the standard library's inclusive quantiles."""
    cuts = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else [values[0]] * 99
    return {
        "count": len(values),
        "mean": pytest.approx(sum(values) / len(values), abs=1e-6),
        "median": pytest.approx(statistics.median(values), abs=1e-6),
        "p95": pytest.approx(cuts[94], abs=1e-6),
        "p99": pytest.approx(cuts[98], abs=1e-6),
        "max": pytest.approx(max(values), abs=1e-6),
    }


@pytest.fixture(name="run", scope="module")
def fixture_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Cluster, dict[str, Any], Path]:
    """The nine-job workload run to the end on the embedded backend, outputs written."""
    out = tmp_path_factory.mktemp("jobtimes")
    with captured_events():
        cluster, summary = _run(out)
    return cluster, summary, out


def test_completion_times_equal_those_from_jobruntime_csv(run: Any) -> None:
    """summary.json job_times completion_s, overall and per queue, is what jobruntime.csv's rows give."""
    _, summary, out = run
    queue_of = {r["job_id"]: r["queue"] for r in _rows(out / "metrics" / "applications.csv")}
    overall: list[float] = []
    by_queue: dict[str, list[float]] = {}
    for row in _rows(out / "jobruntime.csv"):
        seconds = (int(row["simulate_end_time"]) - int(row["simulate_start_time"])) / 1000
        overall.append(seconds)
        by_queue.setdefault(queue_of[row["JobID"]], []).append(seconds)
    assert len(overall) == 9 and len(set(overall)) > 5 and sorted(by_queue) == ["a", "b"]
    times = summary["job_times"]
    assert times["overall"]["completion_s"] == _expected(overall)
    for queue, values in by_queue.items():
        assert times["by_queue"][queue]["completion_s"] == _expected(values)


def test_am_wait_is_submission_to_am_launch(run: Any) -> None:
    """am_wait_s is computed from applications.csv's launch_time - submit_time."""
    _, summary, out = run
    apps = _rows(out / "metrics" / "applications.csv")
    waits = [(float(r["launch_time"]) - float(r["submit_time"])) / 1000 for r in apps]
    assert summary["job_times"]["overall"]["am_wait_s"] == _expected(waits)


def test_first_task_wait_is_submission_to_the_first_non_am_container(tmp_path: Path) -> None:
    """first_task_wait_s: submission to the RM's first allocation of a container other than the AM's, as the
    debug event log records the allocations."""
    with captured_events() as events:
        cluster, summary = _run(tmp_path)
    submit = {str(app.id): app.submit_time for app in cluster.rm.apps.values()}
    first: dict[str, float] = {}
    for e in events:
        if e["event"] == "container_allocated" and not e["container"].endswith("_000001"):
            app_id = "application_" + e["attempt"].removeprefix("appattempt_").rsplit("_", 1)[0]
            first.setdefault(app_id, e["sim_ms"])
    assert len(first) == 9
    waits = [(first[a] - submit[a]) / 1000 for a in first]
    assert summary["job_times"]["overall"]["first_task_wait_s"] == _expected(waits)
    am = summary["job_times"]["overall"]["am_wait_s"]
    assert summary["job_times"]["overall"]["first_task_wait_s"]["mean"] > am["mean"]


def test_the_sharded_backend_gives_the_same_job_times(run: Any, tmp_path: Path) -> None:
    """Shard hosts (in process) write the embedded run's job_times for one seed and latency."""
    with captured_events():
        _, sharded = _run(tmp_path, backend="inprocess")
    assert sharded["job_times"] == run[1]["job_times"]


def test_terminal_summary_shows_the_job_times(run: Any) -> None:
    """The terminal summary has one line per time with its mean, median, p95, p99, max and count."""
    _, summary, out = run
    stream = io.StringIO()
    _print_summary(summary, out, stream)
    text = stream.getvalue()
    completion = summary["job_times"]["overall"]["completion_s"]
    line = next(line for line in text.splitlines() if line.strip().startswith("completion"))
    assert line.split()[1:] == [f"{completion[s]:,.2f}" for s in ("mean", "median", "p95", "p99", "max")] + ["9"]
    assert "wait for AM" in text and "first task" in text


def test_report_shows_the_job_times_per_queue(run: Any) -> None:
    """report.html has a job-times table with the overall row and one row per queue and time."""
    _, summary, out = run
    html = write_report(out).read_text(encoding="utf-8")
    table = html[html.index('id="job-times"') :].split("</table>")[0]
    assert table.count("<tr>") == 1 + 3 * 3
    assert "<td>a</td><td>completion (submit to finish)</td><td class=\"num\">3</td>" in table
    assert str(summary["job_times"]["by_queue"]["b"]["completion_s"]["p95"]) in table


def test_distribution_of_nothing_has_a_zero_count() -> None:
    """No value: the count is 0 and every statistic None (a queue whose jobs never finished)."""
    assert distribution([]) == {"count": 0, "mean": None, "median": None, "p95": None, "p99": None, "max": None}


def test_percentile_interpolates_between_closest_ranks() -> None:
    """p95 of 1..21 is 20.0 (rank 19 of 0..20), p50 of four values the mean of the middle two."""
    assert percentile([float(x) for x in range(1, 22)], 95) == 20.0
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
