"""Rumen job traces (AMDefinitionRumen) read into the workload model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yarnball.errors import TraceFormatError
from yarnball.launcher.workloads import TraceDefaults, load_workload, read_rumen_trace
from yarnball.protocols import Resource

DATA = Path("/work/shared/data/sls")
RUMEN = DATA / "2jobs2min-rumen-jh.json"
DEFAULTS = TraceDefaults()
FIRST_SUBMIT = 1371222054499  # job_1369942127770_1205's submitTime


def attempt(host: str = "/default-rack/h1", start: int = 100, finish: int = 600) -> dict[str, Any]:
    return {"hostName": host, "startTime": start, "finishTime": finish}


def rumen_job(job_id: str = "job_1", submit: int = 1000, **extra: Any) -> dict[str, Any]:
    job: dict[str, Any] = {
        "jobID": job_id,
        "user": "u",
        "queue": "q",
        "submitTime": submit,
        "finishTime": submit + 5000,
        "mapTasks": [{"attempts": [attempt()]}],
        "reduceTasks": [],
    }
    job.update(extra)
    return job


def write(tmp_path: Path, *jobs: dict[str, Any], name: str = "rumen.json") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(j) for j in jobs))
    return path


def test_sample_trace_has_two_jobs_of_96_maps() -> None:
    """2jobs2min-rumen-jh.json: jobs 1205 and 1206 load, 96 maps each, no reduces, queue sls_queue_1."""
    wl = read_rumen_trace(RUMEN, DEFAULTS)
    assert [(j.job_id, len(j.tasks), j.queue, j.user) for j in wl.jobs] == [
        ("job_1369942127770_1205", 96, "sls_queue_1", "jenkins"),
        ("job_1369942127770_1206", 96, "sls_queue_1", "jenkins"),
    ]
    assert {t.task_type for j in wl.jobs for t in j.tasks} == {"map"}


def test_third_job_is_skipped_with_sls_reason() -> None:
    """Job 1207's only map has no attempts: SLS's "Invalid map task, no attempt for a mapper!"."""
    wl = read_rumen_trace(RUMEN, DEFAULTS)
    assert [(s.job_id, s.reason) for s in wl.skipped] == [
        ("job_1369942127770_1207", "Invalid map task, no attempt for a mapper!")
    ]


def test_times_are_rebased_to_the_first_job() -> None:
    """Submit and finish times are relative to the first job's submitTime."""
    wl = read_rumen_trace(RUMEN, DEFAULTS)
    assert [(j.submit_ms, j.end_ms) for j in wl.jobs] == [
        (0, 1371222153874 - FIRST_SUBMIT),
        (1371222159703 - FIRST_SUBMIT, 1371222251755 - FIRST_SUBMIT),
    ]


def test_task_uses_last_attempt_and_default_container() -> None:
    """A map's duration and host come from its last attempt; size is yarn.sls.container.*, priority 20."""
    task = read_rumen_trace(RUMEN, DEFAULTS).jobs[0].tasks[0]
    assert task.duration_ms == 1371222078206 - 1371222061163
    assert (task.hosts, task.rack, task.priority) == (("a2118.smile.com",), "/default-rack", 20)
    assert task.resource == Resource(1024, 1)


def test_nodes_are_the_attempt_hosts() -> None:
    """Without a node file the cluster is the hosts of last attempts: a2115..a2118 on /default-rack."""
    wl = read_rumen_trace(RUMEN, DEFAULTS)
    assert sorted(n.path for n in wl.nodes) == [f"/default-rack/a211{i}.smile.com" for i in range(5, 9)]


def test_am_type_is_always_mapreduce_with_default_am_size() -> None:
    """Rumen jobs run the MapReduce AM with yarn.sls.am.container.* resources."""
    wl = read_rumen_trace(RUMEN, TraceDefaults(am_container_memory_mb=2048, am_container_vcores=2))
    assert {(j.am_type, j.am_resource) for j in wl.jobs} == {("mapreduce", Resource(2048, 2))}


def test_reduces_get_priority_10(tmp_path: Path) -> None:
    """Reduce tasks are type reduce with priority 10."""
    wl = read_rumen_trace(
        write(tmp_path, rumen_job(reduceTasks=[{"attempts": [attempt(start=0, finish=70)]}])), DEFAULTS
    )
    reduce = wl.jobs[0].tasks[-1]
    assert (reduce.task_type, reduce.priority, reduce.duration_ms) == ("reduce", 10, 70)


def test_missing_user_is_default(tmp_path: Path) -> None:
    """A job without user runs as "default"."""
    job = rumen_job()
    del job["user"]
    assert read_rumen_trace(write(tmp_path, job), DEFAULTS).jobs[0].user == "default"


def test_reduce_without_attempts_is_skipped(tmp_path: Path) -> None:
    """A reduce without attempts gives SLS's reducer message."""
    wl = read_rumen_trace(write(tmp_path, rumen_job(reduceTasks=[{"attempts": []}])), DEFAULTS)
    assert wl.skipped[0].reason == "Invalid reduce task, no attempt for a reducer!"


def test_attempt_without_positive_duration_is_skipped(tmp_path: Path) -> None:
    """A last attempt with finishTime <= startTime (e.g. -1) makes SLS refuse the job."""
    job = rumen_job(mapTasks=[{"attempts": [attempt(start=500, finish=-1)]}])
    wl = read_rumen_trace(write(tmp_path, job), DEFAULTS)
    assert wl.skipped[0].reason == "Duration of a task shouldn't be less or equal to 0!"


def test_earlier_job_is_reset_to_zero_keeping_its_length(tmp_path: Path) -> None:
    """A job submitted before the baseline starts at 0 and keeps its length (adjustTimeValuesToBaselineTime)."""
    wl = read_rumen_trace(write(tmp_path, rumen_job("a", 10_000), rumen_job("b", 4_000)), DEFAULTS)
    assert [(j.job_id, j.submit_ms, j.end_ms) for j in wl.jobs] == [("a", 0, 5000), ("b", 0, 5000)]


def test_baseline_is_shared_across_trace_files(tmp_path: Path) -> None:
    """With several Rumen files the first job of the first file is time 0 for all."""
    first = write(tmp_path, rumen_job("a", 10_000), name="one.json")
    second = write(tmp_path, rumen_job("b", 25_000), name="two.json")
    wl = load_workload("RUMEN", [first, second], None, DEFAULTS)
    assert [(j.job_id, j.submit_ms) for j in wl.jobs] == [("a", 0), ("b", 15_000)]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"queue": None}, "'queue'"),
        ({"submitTime": "soon"}, "'submitTime'"),
        ({"mapTasks": {"x": 1}}, "'mapTasks'"),
        ({"mapTasks": [{"attempts": [{"startTime": 1, "finishTime": 2}]}]}, "'mapTasks[0].attempts[0].hostName'"),
        ({"mapTasks": [{"attempts": [attempt(start="x")]}]}, "'mapTasks[0].attempts[0].startTime'"),
    ],
)
def test_bad_fields_name_file_job_and_field(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    """Structural problems raise TraceFormatError naming the file, the job and the field."""
    path = write(tmp_path, rumen_job(**change))
    with pytest.raises(TraceFormatError) as err:
        read_rumen_trace(path, DEFAULTS)
    assert str(path) in str(err.value) and "job 'job_1'" in str(err.value) and field in str(err.value)


def test_missing_job_id_names_position(tmp_path: Path) -> None:
    """A job without jobID is refused, named by its position."""
    job = rumen_job()
    del job["jobID"]
    with pytest.raises(TraceFormatError, match=r"job #0 \(line 1\): field 'jobID'"):
        read_rumen_trace(write(tmp_path, job), DEFAULTS)
