"""The simulation's outputs: MetricsRecorder samples and the SLS-compatible files written by write_outputs."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher._cluster import Cluster
from yarnball.launcher._outputs import JOBRUNTIME_COLUMNS, MetricsRecorder, write_outputs
from yarnball.launcher._slsmetrics import WALL_CLOCK_PREFIX
from yarnball.launcher.workloads import TraceDefaults, WorkloadBuilder, load_workload, task_spec
from yarnball.launcher.workloads._json import iter_json_values
from yarnball.protocols import Configuration

WALL_CLOCK_FILES = {"metrics/scheduler_timecost.csv"}
WALL_CLOCK_SUMMARY_KEYS = {"wall_seconds", "speedup"}


def _run(
    shared_data: Path,
    out: Path,
    *,
    seed: int = 0,
    until_ms: int | None = None,
    plots: bool = False,
    track: tuple[str, ...] = (),
    trace: str = "inputsls.json",
) -> tuple[Cluster, MetricsRecorder, dict[str, Any]]:
    sls = shared_data / "sls"
    conf = Configuration.from_conf_dir(sls / "sample-conf")
    conf.add_resource(sls / "sample-conf" / "sls-runner.xml")
    workload = load_workload("SLS", sls / trace, sls / "nodes.json", TraceDefaults.from_configuration(conf), seed)
    cluster = Cluster(conf, workload.nodes, seed=seed)
    cluster.submit_workload(workload)
    recorder = MetricsRecorder(cluster, 1000, track_jobs=track)
    recorder.start()
    cluster.run(until_ms=until_ms)
    summary = write_outputs(out, cluster, recorder, wall_seconds=0.5, seed=seed, workload=workload, plots=plots)
    return cluster, recorder, summary


def _csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(name="run")
def fixture_run(shared_data: Path, tmp_path: Path) -> tuple[Cluster, MetricsRecorder, dict[str, Any], Path]:
    """inputsls.json on nodes.json with SLS's sample-conf, run to the end, outputs in tmp_path/out."""
    out = tmp_path / "out"
    cluster, recorder, summary = _run(shared_data, out, track=("job_1",))
    return cluster, recorder, summary, out


def test_realtimetrack_has_one_record_per_simulated_second(run: Any) -> None:
    """realtimetrack.json is a JSON array with one record per simulated second from 0 to the end."""
    cluster, _, _, out = run
    records = json.loads((out / "realtimetrack.json").read_text())
    end_s = int(cluster.kernel.now) // 1000
    assert [r["time"] for r in records] == [1000 * s for s in range(end_s + 1)]


def test_realtimetrack_is_written_as_sls_writes_it(run: Any) -> None:
    """It opens with '[', each further record starts a line with ',' and it closes with ']' (MetricsLogRunnable)."""
    text = (run[3] / "realtimetrack.json").read_text()
    lines = text.split("\n")
    assert lines[0].startswith("[{")
    assert all(line.startswith(",{") for line in lines[1:-1])
    assert lines[-1] == "]"


def test_realtimetrack_uses_sls_keys_and_gigabytes(run: Any) -> None:
    """Records carry SLSWebApp's keys, memory in GB (MB / 1024), and one allocated pair per leaf queue by name."""
    _, _, _, out = run
    records = json.loads((out / "realtimetrack.json").read_text())
    rows = _csv(out / "metrics" / "cluster.csv")
    for key in (
        "jvm.free.memory",
        "running.applications",
        "running.containers",
        "cluster.allocated.memory",
        "cluster.allocated.vcores",
        "cluster.available.memory",
        "cluster.available.vcores",
        "queue.sls_queue_1.allocated.memory",
        "queue.sls_queue_3.allocated.vcores",
        "scheduler.allocate.timecost",
        "scheduler.handle-NODE_UPDATE.timecost",
    ):
        assert key in records[0], key
    busiest = max(range(len(rows)), key=lambda i: int(rows[i]["cluster.allocated.memory"]))
    assert int(rows[busiest]["cluster.allocated.memory"]) > 0
    assert records[busiest]["cluster.allocated.memory"] == int(rows[busiest]["cluster.allocated.memory"]) / 1024
    assert records[busiest]["running.containers"] == int(rows[busiest]["running.containers"])


def test_jobruntime_has_sls_header_and_one_row_per_finished_job(run: Any) -> None:
    """jobruntime.csv: SLS's header, trace start/end against simulated submit/finish for every finished job."""
    cluster, _, _, out = run
    text = (out / "jobruntime.csv").read_text()
    assert text.splitlines()[0] == ",".join(JOBRUNTIME_COLUMNS)
    rows = {r["JobID"]: r for r in _csv(out / "jobruntime.csv")}
    assert sorted(rows) == ["job_1", "job_2"]
    assert (rows["job_1"]["real_start_time"], rows["job_1"]["real_end_time"]) == ("0", "95375")
    apps = {a.context.application_name: a for a in cluster.rm.apps.values()}
    for job_id, row in rows.items():
        assert int(row["simulate_start_time"]) == int(apps[job_id].submit_time)
        assert int(row["simulate_end_time"]) == int(apps[job_id].finish_time)


def test_queue_metrics_have_every_queue_at_every_sample(run: Any) -> None:
    """queues.csv holds root and each leaf at every sample time, with allocated and pending columns."""
    _, recorder, _, out = run
    rows = _csv(out / "metrics" / "queues.csv")
    queues = sorted({r["queue"] for r in rows})
    assert queues == ["root", "root.sls_queue_1", "root.sls_queue_2", "root.sls_queue_3"]
    assert len(rows) == len(queues) * len(recorder.cluster_rows)
    assert {"allocated.memory", "pending.vcores", "available.memory", "reserved.memory"} <= set(rows[0])
    assert max(int(r["allocated.memory"]) for r in rows if r["queue"] == "root.sls_queue_1") > 0


def test_scheduler_ops_are_cumulative_and_end_at_the_rm_counts(run: Any) -> None:
    """scheduler_ops.csv counts never decrease and its last sample equals the RM's operation counters."""
    cluster, _, _, out = run
    rows = _csv(out / "metrics" / "scheduler_ops.csv")
    last: dict[str, int] = {}
    for r in rows:
        count = int(r["count"])
        assert count >= last.get(r["op"], 0)
        last[r["op"]] = count
    assert last["NODE_UPDATE"] > 0 and last["allocate"] > 0
    # The last sample is at the last whole simulated second, so a few operations may come after it.
    assert set(last) == set(cluster.rm.op_counts)
    assert all(last[op] <= cluster.rm.op_counts[op] for op in last)
    assert last["APP_ADDED"] == cluster.rm.op_counts["APP_ADDED"] == 2


def test_timecost_is_kept_apart_from_the_deterministic_metrics(run: Any) -> None:
    """Wall-clock seconds live only in scheduler_timecost.csv, not in scheduler_ops.csv or realtimetrack.json."""
    _, _, _, out = run
    header = (out / "metrics" / "scheduler_timecost.csv").read_text().splitlines()[0]
    assert header == "time,op,count,wall_seconds"
    assert "wall" not in (out / "metrics" / "scheduler_ops.csv").read_text()
    records = json.loads((out / "realtimetrack.json").read_text())
    assert {r["scheduler.handle.timecost"] for r in records} == {0.0}


def test_summary_matches_the_rm_counters(run: Any) -> None:
    """summary.json's application and container counts are the RM's counters; simulated time is the kernel's."""
    cluster, _, summary, out = run
    on_disk = json.loads((out / "summary.json").read_text())
    assert on_disk == summary
    c = cluster.rm.counters
    assert summary["applications"] == {
        "submitted": c["apps_submitted"],
        "finished": c["apps_finished"],
        "failed": c["apps_failed"],
        "killed": c["apps_killed"],
        "rejected": c["apps_rejected"],
        "unfinished": 0,
    }
    assert summary["applications"]["finished"] == 2
    assert summary["containers"]["allocated"] == c["containers_allocated"] == 7
    assert summary["containers"]["completed"] == c["containers_completed"]
    assert summary["simulated_seconds"] == cluster.kernel.now / 1000
    assert summary["seed"] == 0 and summary["wall_seconds"] == 0.5
    assert summary["speedup"] == round(summary["simulated_seconds"] / 0.5, 6)
    assert summary["skipped_jobs"] == [] and summary["unfinished"] == []


def test_summary_utilization_is_the_mean_over_the_samples(run: Any) -> None:
    """utilization.memory_mean is mean(allocated / total) over the cluster samples with resources."""
    _, _, summary, out = run
    rows = [r for r in _csv(out / "metrics" / "cluster.csv") if int(r["cluster.total.memory"]) > 0]
    mean = sum(int(r["cluster.allocated.memory"]) / int(r["cluster.total.memory"]) for r in rows) / len(rows)
    assert summary["utilization"]["memory_mean"] == pytest.approx(mean, abs=1e-6)
    assert 0 < summary["utilization"]["memory_mean"] < summary["utilization"]["memory_peak"] <= 1


def test_summary_json_is_sorted_and_stable(run: Any) -> None:
    """summary.json is written with sorted keys and a trailing newline."""
    text = (run[3] / "summary.json").read_text()
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2) + "\n"


def test_tracked_jobs_record_live_containers(run: Any) -> None:
    """--track-jobs: tracked_jobs.csv gives the job's live containers per sample (AM included)."""
    out = run[3]
    rows = _csv(out / "metrics" / "tracked_jobs.csv")
    assert {r["job_id"] for r in rows} == {"job_1"}
    live = [int(r["live.containers"]) for r in rows]
    assert max(live) >= 2 and live[-1] == 0


def test_applications_csv_maps_jobs_to_application_ids(run: Any, shared_data: Path) -> None:
    """metrics/applications.csv gives each job's application id, queue, final state and times. The queue is the
    application's after placement: sample-conf's FairScheduler places a job in the queue its trace names (its
    allocation file has no queuePlacementPolicy: the ``specified`` rule, then ``default``), under its full name
    (``QueuePlacementRule.assignAppToQueue`` prefixes ``root.``), which RMAppManager copies to the RMApp."""
    trace = [job for _, _, job in iter_json_values(shared_data / "sls" / "inputsls.json")]
    rows = _csv(run[3] / "metrics" / "applications.csv")
    assert [(r["job_id"], r["queue"], r["state"]) for r in rows] == [
        (job["job.id"], "root." + job["job.queue.name"], "FINISHED") for job in trace
    ]
    assert rows[0]["application_id"].startswith("application_")


def test_stopping_early_reports_every_unfinished_job(shared_data: Path, tmp_path: Path) -> None:
    """With until_ms, a running app and a job not yet submitted are both in 'unfinished' with a reason."""
    _, _, summary = _run(shared_data, tmp_path / "out", until_ms=10_000)
    unfinished = {u["job_id"]: u for u in summary["unfinished"]}
    assert unfinished["job_1"]["state"] in {"ACCEPTED", "RUNNING"}
    assert unfinished["job_2"]["state"] == "NOT_SUBMITTED"
    assert "105204" in unfinished["job_2"]["reason"]
    assert summary["applications"]["unfinished"] == 2
    assert summary["simulated_seconds"] == 10.0


def test_skipped_jobs_carry_their_reason(shared_data: Path, tmp_path: Path) -> None:
    """Jobs SLS would refuse (an AM type no yarn.sls.am.type.<name> registers) are listed with the reason."""
    sls = shared_data / "sls"
    trace = [job for _, _, job in iter_json_values(sls / "sls_dag.json")]
    for job in trace:
        job["yarn.sls.am.type"] = "spark"
    (tmp_path / "spark.json").write_text(json.dumps(trace))
    conf = Configuration.from_conf_dir(sls / "sample-conf")
    conf.add_resource(sls / "sample-conf" / "sls-runner.xml")
    workload = load_workload("SLS", tmp_path / "spark.json", sls / "nodes.json", TraceDefaults.from_configuration(conf))
    assert {s.job_id for s in workload.skipped} == {"job_1", "job_2"}
    assert all("'spark' is not registered" in s.reason for s in workload.skipped)


def test_sls_dag_sample_runs_with_the_sample_configuration(shared_data: Path, tmp_path: Path) -> None:
    """SLS's sls_dag.json runs with SLS's sample-conf, whose sls-runner.xml registers only the mapreduce AM: the
    dag AM is built in."""
    _, _, summary = _run(shared_data, tmp_path / "out", trace="sls_dag.json")
    assert summary["skipped_jobs"] == []
    assert summary["applications"]["finished"] == 2


def test_rejected_application_is_reported_with_diagnostics(tmp_path: Path) -> None:
    """An application to an unknown queue is rejected; failed_jobs names it with the scheduler's diagnostics."""
    wl = WorkloadBuilder().nodes(2).job("good", tasks=[task_spec(1, 2_000)]).job("lost", queue="nope").build()
    cluster = Cluster(Configuration(), wl.nodes, seed=0)
    cluster.submit_workload(wl)
    recorder = MetricsRecorder(cluster)
    recorder.start()
    cluster.run(until_ms=60_000)
    summary = write_outputs(tmp_path, cluster, recorder, wall_seconds=1.0, seed=0, workload=wl, plots=False)
    failed = {f["job_id"]: f for f in summary["failed_jobs"]}
    assert set(failed) == {"lost"}
    assert "nope" in failed["lost"]["diagnostics"]
    assert summary["applications"]["rejected"] == 1


def test_two_runs_with_one_seed_give_identical_files(shared_data: Path, tmp_path: Path) -> None:
    """Every output file is byte-identical across two runs with one seed, except the wall-clock ones."""
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        _run(shared_data, out, seed=7, plots=True, track=("job_2",))
    files = sorted(p.relative_to(outs[0]).as_posix() for p in outs[0].rglob("*") if p.is_file())
    assert "cluster_utilization.png" in files and "queue_usage.png" in files
    assert files == sorted(p.relative_to(outs[1]).as_posix() for p in outs[1].rglob("*") if p.is_file())
    for name in files:
        if name in WALL_CLOCK_FILES or name.startswith(f"metrics/{WALL_CLOCK_PREFIX}"):
            continue
        a, b = (outs[0] / name).read_bytes(), (outs[1] / name).read_bytes()
        if name == "summary.json":
            ja, jb = json.loads(a), json.loads(b)
            for key in WALL_CLOCK_SUMMARY_KEYS:
                ja.pop(key), jb.pop(key)
            assert ja == jb
        else:
            assert a == b, name


def test_plots_are_png_files(shared_data: Path, tmp_path: Path) -> None:
    """cluster_utilization.png and queue_usage.png are written as PNG images and listed in the summary."""
    _, _, summary = _run(shared_data, tmp_path, plots=True)
    for name in ("cluster_utilization.png", "queue_usage.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert name in summary["outputs"]


def test_importing_the_writers_does_not_import_matplotlib() -> None:
    """matplotlib is imported lazily, only when plots are written."""
    code = "import sys, yarnball.launcher._outputs, yarnball.launcher.cli; print('matplotlib' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_recorder_rejects_a_non_positive_interval() -> None:
    """A sampling interval of 0 ms is refused."""
    with pytest.raises(ValueError, match="interval_ms"):
        MetricsRecorder(object(), 0)
