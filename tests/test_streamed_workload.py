"""Traces read as the run goes (workloads/_stream.py, ``scan_workload``; ``stream_json_values``): the reading holds
a chunk of the file and an outline per job, the jobs read again are the first reading's, and ``yarnball simulate``
writes the same outputs as with every job read at once."""

from __future__ import annotations

import gc
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from yarnball.errors import TraceFormatError
from yarnball.launcher import cli, workloads
from yarnball.launcher._jobfeed import LOOKAHEAD_MS, PULL_BATCH
from yarnball.launcher.workloads import JobSpec, _json, load_workload, scan_workload
from yarnball.launcher.workloads._json import iter_json_values, stream_json_values

ROOT = Path(__file__).resolve().parent.parent


def _sls_trace(path: Path, jobs: int, *, gap_ms: int = 2_000, array: bool = False, am_type: str = "") -> Path:
    """``jobs`` SLS jobs ``gap_ms`` apart, 3 tasks each on 4 hosts (one job of ``am_type`` when given)."""
    entries = []
    for i in range(jobs):
        entry: dict[str, Any] = {
            "job.start.ms": i * gap_ms,
            "job.end.ms": i * gap_ms + 9_000,
            "job.queue.name": "default",
            "job.id": f"job_{i}",
            "job.user": "ü",  # (a character of two bytes: chunks may cut it)
            "job.tasks": [
                {"container.host": f"/rack{t % 2}/host{t % 4}", "container.duration.ms": 3_000 + 100 * t}
                for t in range(3)
            ],
        }
        if am_type and i == jobs // 2:
            entry["yarn.sls.am.type"] = am_type
        entries.append(entry)
    text = json.dumps(entries, indent=1) if array else "\n".join(json.dumps(e, indent=1) for e in entries)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("array", [False, True])
@pytest.mark.parametrize("chunk", [7, 100, 4096])
def test_a_streamed_file_gives_the_values_of_a_whole_reading(tmp_path: Path, array: bool, chunk: int) -> None:
    """Chunks of any size (cutting values, numbers and two-byte characters), a stream of objects or an array: the
    same values, indices and lines as reading the file whole."""
    path = _sls_trace(tmp_path / "t.json", 12, array=array)
    assert list(stream_json_values(path, chunk)) == list(iter_json_values(path))


def test_the_second_reading_holds_a_chunk_not_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a 380 kB trace's jobs again, one at a time, holds a few 4 kB chunks and a job, not the file (its text
    alone would be 380 kB), and keeps nothing of the jobs it gave; the jobs are the whole reading's."""
    monkeypatch.setattr(_json, "STREAM_CHUNK_BYTES", 4096)
    path = _sls_trace(tmp_path / "t.json", 1000)
    size = path.stat().st_size
    assert size > 380_000
    streamed = scan_workload("SLS", path)
    whole = load_workload("SLS", path)
    same, held = 0, []
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        for i, job in enumerate(streamed.stream()):
            same += job == whole.jobs[i]
            if i % 250 == 0:
                gc.collect()  # (the free lists too: a full collection empties them)
                held.append(tracemalloc.get_traced_memory()[0] - base)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert same == len(whole.jobs) == 1000
    assert peak < size / 2, (peak, size)
    assert max(held) < 32_000, held


@pytest.mark.parametrize(
    ("kind", "trace", "nodes"),
    [
        ("SLS", "sls/inputsls.json", "sls/nodes.json"),
        ("SLS", "sls/inputsls.json,sls/sls_dag.json", None),
        ("RUMEN", "sls/2jobs2min-rumen-jh.json", None),
        ("SYNTH", "sls/syn.json", None),
        ("SYNTH", "sls/syn_generic.json", None),
    ],
)
def test_a_scanned_trace_is_the_loaded_one(shared_data: Path, kind: str, trace: str, nodes: str | None) -> None:
    """The shared samples: the same nodes, refused jobs, source and (read again) jobs; the outlines are theirs."""
    paths = ",".join(str(shared_data / p) for p in trace.split(","))
    node_file = None if nodes is None else shared_data / nodes
    whole = load_workload(kind, paths, node_file, seed=7)
    streamed = scan_workload(kind, paths, node_file, seed=7)
    assert (streamed.nodes, streamed.skipped, streamed.source) == (whole.nodes, whole.skipped, whole.source)
    assert tuple(streamed.stream()) == whole.jobs
    assert [(o.job_id, o.submit_ms, o.end_ms, o.num_containers) for o in streamed.jobs] == [
        (j.job_id, j.submit_ms, j.end_ms, j.num_containers) for j in whole.jobs
    ]
    assert streamed.num_containers == whole.num_containers


def test_a_trace_changed_since_its_first_reading_is_an_error(tmp_path: Path) -> None:
    path = _sls_trace(tmp_path / "t.json", 6)
    streamed = scan_workload("SLS", path)
    _sls_trace(path, 5)
    with pytest.raises(TraceFormatError, match=r"t\.json: the trace changed since it was first read: it has fewer"):
        list(streamed.stream())


def test_the_run_reads_a_job_shortly_before_its_submit_time(tmp_path: Path) -> None:
    """Fed through the job feed: when the run starts, only the jobs within the lookahead and one batch of the feed's
    (launcher/_jobfeed.py PULL_BATCH) have been read again, not the whole trace."""
    from yarnball.launcher import Cluster

    path = _sls_trace(tmp_path / "t.json", 200, gap_ms=5_000)
    streamed = scan_workload("SLS", path)
    read: list[str] = []
    reading = streamed._read

    def counting() -> Any:
        for item in reading():
            if isinstance(item, JobSpec):
                read.append(item.job_id)
            yield item

    streamed._read = counting
    cluster = Cluster({}, streamed.nodes, seed=1)
    cluster.submit_workload(streamed)
    due = sum(1 for j in streamed.jobs if j.submit_ms <= LOOKAHEAD_MS)
    assert len(read) <= due + PULL_BATCH < 200
    cluster.run(until_ms=60_000)
    assert len(read) <= sum(1 for j in streamed.jobs if j.submit_ms <= 60_000 + LOOKAHEAD_MS) + PULL_BATCH < 200


def _outputs(out: Path) -> dict[str, Any]:
    """The run's output files, without what depends on the wall clock."""
    files: dict[str, Any] = {}
    for path in sorted(out.rglob("*")):
        if path.is_dir() or "timecost" in path.name:
            continue
        if path.name == "summary.json":
            summary = json.loads(path.read_text())
            for key in ("wall_seconds", "speedup"):
                summary.pop(key)
            files[path.name] = summary
        else:
            files[str(path.relative_to(out))] = path.read_bytes()
    return files


@pytest.mark.parametrize(
    "args",
    [
        ("--until-ms", "25000"),
        ("--until-ms", "25000", "--track-jobs", "job_3"),
        (),
    ],
)
def test_simulate_writes_the_outputs_of_the_whole_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    """``yarnball simulate`` on a trace read as it goes and on the same trace read at once (``scan_workload`` made
    ``load_workload``): byte-identical outputs, the event log included, also when the run stops before the later
    jobs' submit times (they are listed as not submitted) and with a job of an AM type no AM class plays."""
    trace = _sls_trace(tmp_path / "t.json", 20, gap_ms=3_000, am_type="spark")
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "sls-runner.xml").write_text(
        "<configuration><property><name>yarn.sls.am.type.spark</name><value>x.SparkAM</value></property>"
        "</configuration>"
    )

    def simulate(out: Path) -> dict[str, Any]:
        argv = ["simulate", "--tracelocation", str(trace), "--output-dir", str(out), "--no-plots", "--conf-dir"]
        assert cli.main([*argv, str(conf), "--seed", "3", *args]) in (0, 3)
        return _outputs(out)

    streamed = simulate(tmp_path / "streamed")
    monkeypatch.setattr(workloads, "scan_workload", load_workload)
    whole = simulate(tmp_path / "whole")
    assert streamed == whole
    summary = streamed["summary.json"]
    assert any("spark" in s["reason"] for s in summary["skipped_jobs"]) or summary["jobs"]["skipped"] == 1
    if args:
        assert any(u["state"] == "NOT_SUBMITTED" for u in summary["unfinished"])
