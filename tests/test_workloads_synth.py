"""SYNTH generator traces (SynthTraceJobProducer / SynthJob / AMDefinitionSynth)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from yarnball.errors import TraceFormatError
from yarnball.launcher.workloads import TraceDefaults, read_synth_trace
from yarnball.protocols import ExecutionType, Resource

DATA = Path("/work/shared/data/sls")
DEFAULTS = TraceDefaults()


def generic() -> dict[str, Any]:
    return json.loads((DATA / "syn_generic.json").read_text())


def write(tmp_path: Path, trace: Any, name: str = "syn.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(trace))
    return path


@pytest.mark.parametrize("name", ["syn.json", "syn_generic.json"])
def test_mapreduce_traces_give_ten_jobs_on_twenty_nodes(name: str) -> None:
    """syn.json and syn_generic.json: num_jobs 10 mapreduce jobs of user foobar in sls_queue_1; 20 nodes, 5 racks."""
    wl = read_synth_trace(DATA / name, DEFAULTS)
    assert len(wl.jobs) == 10 and wl.skipped == ()
    assert {(j.am_type, j.user, j.queue) for j in wl.jobs} == {("mapreduce", "foobar", "sls_queue_1")}
    assert len(wl.nodes) == 20 and len({n.rack for n in wl.nodes}) == 5


@pytest.mark.parametrize("name", ["syn.json", "syn_generic.json"])
def test_mapreduce_tasks_have_the_class_sizes_and_priorities(name: str) -> None:
    """Maps are 1024 MB/1 vcore at priority 20, reduces 2048 MB/2 vcores at priority 10, all GUARANTEED."""
    wl = read_synth_trace(DATA / name, DEFAULTS)
    kinds = {(t.task_type, t.priority, t.resource, t.execution_type) for j in wl.jobs for t in j.tasks}
    assert kinds == {
        ("map", 20, Resource(1024, 1), ExecutionType.GUARANTEED),
        ("reduce", 10, Resource(2048, 2), ExecutionType.GUARANTEED),
    }
    assert all(t.duration_ms > 0 and t.count == 1 for j in wl.jobs for t in j.tasks)


def test_jobs_are_sorted_and_rebased_to_the_first_submission() -> None:
    """Jobs come in submit order, the first at 0, all inside the 1-60 s bucket; ids follow SynthJob's naming."""
    wl = read_synth_trace(DATA / "syn.json", DEFAULTS)
    submits = [j.submit_ms for j in wl.jobs]
    assert submits == sorted(submits) and submits[0] == 0 and submits[-1] < 59_000
    assert [j.job_id for j in wl.jobs][:2] == ["job_job_mock_class_1_000000_0000", "job_job_mock_class_1_000001_0001"]
    assert wl.jobs[0].name == "class_1_000000"


def test_job_length_is_the_duration_sample_in_seconds() -> None:
    """end - submit is the sampled duration (60 s +- 5 s in syn.json), in whole seconds."""
    wl = read_synth_trace(DATA / "syn.json", DEFAULTS)
    lengths = [j.end_ms - j.submit_ms for j in wl.jobs if j.end_ms is not None]
    assert len(lengths) == 10 and all(40_000 <= x <= 80_000 and x % 1000 == 0 for x in lengths)


def test_deadlines_follow_the_deadline_factor() -> None:
    """Jobs with a reservation get deadline = submit + ceil(10 * duration); others have none."""
    wl = read_synth_trace(DATA / "syn_generic.json", DEFAULTS)
    with_deadline = [j for j in wl.jobs if j.deadline_ms is not None]
    assert 0 < len(with_deadline) < 10  # reservation probability 0.5
    for j in with_deadline:
        assert j.end_ms is not None
        assert j.deadline_ms == j.submit_ms + 10 * (j.end_ms - j.submit_ms)


def test_stream_trace_gives_long_lived_stream_containers() -> None:
    """syn_stream.json: 5 stream jobs of two 60000 ms stream containers of 4096 MB / 4 vcores."""
    wl = read_synth_trace(DATA / "syn_stream.json", DEFAULTS)
    assert [j.am_type for j in wl.jobs] == ["stream"] * 5
    assert {(t.task_type, t.duration_ms, t.resource) for j in wl.jobs for t in j.tasks} == {
        ("stream", 60_000, Resource(4096, 4))
    }
    assert [len(j.tasks) for j in wl.jobs] == [2] * 5


def test_tasks_prefer_trace_nodes_with_the_same_sequence_per_job() -> None:
    """Hosts are drawn from the cluster with a fresh Random(seed) per job, so job i's k-th task host repeats."""
    wl = read_synth_trace(DATA / "syn_stream.json", DEFAULTS)
    hosts = {n.hostname: n.rack for n in wl.nodes}
    assert all(t.hosts[0] in hosts and t.rack == hosts[t.hosts[0]] for j in wl.jobs for t in j.tasks)
    assert len({tuple(t.hosts for t in j.tasks) for j in wl.jobs}) == 1


def test_same_seed_same_jobs() -> None:
    """Reading twice with one seed gives equal workloads; seed None is the trace's rand_seed (2)."""
    a = read_synth_trace(DATA / "syn_generic.json", DEFAULTS, 7)
    assert a == read_synth_trace(DATA / "syn_generic.json", DEFAULTS, 7)
    assert read_synth_trace(DATA / "syn_generic.json", DEFAULTS) == read_synth_trace(
        DATA / "syn_generic.json", DEFAULTS, 2
    )


def test_different_seed_different_jobs() -> None:
    """Another seed draws other submit times and task counts."""
    a = read_synth_trace(DATA / "syn_generic.json", DEFAULTS, 1)
    b = read_synth_trace(DATA / "syn_generic.json", DEFAULTS, 2)
    assert [(j.submit_ms, len(j.tasks)) for j in a.jobs] != [(j.submit_ms, len(j.tasks)) for j in b.jobs]


def test_discrete_samples_and_params(tmp_path: Path) -> None:
    """A {discrete, weights} sample only yields its listed values; params reach the job."""
    trace = generic()
    job_class = trace["workloads"][0]["job_classes"][0]
    job_class["tasks"][0]["count"] = {"discrete": [2, 4], "weights": [0, 1]}
    job_class["params"] = {"mode": "fast", "n": 3}
    wl = read_synth_trace(write(tmp_path, trace), DEFAULTS)
    assert all(sum(t.task_type == "map" for t in j.tasks) == 4 for j in wl.jobs)
    assert wl.jobs[0].params == {"mode": "fast", "n": "3"}


def test_memory_is_at_least_1024_mb(tmp_path: Path) -> None:
    """SynthJob raises task memory to MIN_MEMORY 1024 and vcores to 1."""
    trace = generic()
    task = trace["workloads"][0]["job_classes"][0]["tasks"][0]
    task["max_memory"], task["max_vcores"] = {"val": 100}, {"val": 0}
    wl = read_synth_trace(write(tmp_path, trace), DEFAULTS)
    assert {t.resource for t in wl.jobs[0].tasks if t.task_type == "map"} == {Resource(1024, 1)}


def test_non_positive_task_time_skips_the_job(tmp_path: Path) -> None:
    """A task time <= 0 is SLS's "Duration of a task shouldn't be less or equal to 0!"."""
    trace = generic()
    trace["workloads"][0]["job_classes"][0]["tasks"][0]["time"] = {"val": 0}
    wl = read_synth_trace(write(tmp_path, trace), DEFAULTS)
    assert wl.jobs == () and len(wl.skipped) == 10
    assert wl.skipped[0].reason == "Duration of a task shouldn't be less or equal to 0!"


def test_given_nodes_are_used_for_preferred_hosts() -> None:
    """Passing nodes makes the tasks prefer those nodes."""
    nodes = read_synth_trace(DATA / "syn.json", DEFAULTS).nodes[:1]
    wl = read_synth_trace(DATA / "syn.json", DEFAULTS, nodes=nodes)
    assert {t.hosts for j in wl.jobs for t in j.tasks} == {(nodes[0].hostname,)}


def _set(trace: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    trace = copy.deepcopy(trace)
    target = trace
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return trace


_DELETE = object()
_CLASS = ["workloads", 0, "job_classes", 0]


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (["workloads", 0, "queue_name"], _DELETE, "workloads[0].queue_name"),
        ([*_CLASS, "duration"], {"val": 0, "std": 1}, "workloads[0].job_classes[0].duration"),
        ([*_CLASS, "duration"], {"val": 60, "std": 5, "dist": "GAMMA"}, "workloads[0].job_classes[0].duration.dist"),
        ([*_CLASS, "duration"], {"val": 60, "discrete": [1]}, "workloads[0].job_classes[0].duration"),
        (
            [*_CLASS, "tasks", 0, "count"],
            {"discrete": [1, 2], "weights": [1]},
            "workloads[0].job_classes[0].tasks[0].count.weights",
        ),
        ([*_CLASS, "tasks", 0, "time"], _DELETE, "workloads[0].job_classes[0].tasks[0].time"),
        ([*_CLASS, "tasks", 0, "execution_type"], "FAST", "workloads[0].job_classes[0].tasks[0].execution_type"),
        ([*_CLASS, "type"], _DELETE, "workloads[0].job_classes[0].type"),
        (["workloads", 0, "time_distribution"], [], "workloads[0].time_distribution"),
        (["workloads"], "all", "'workloads'"),
        (["num_jobs"], -3, "'num_jobs'"),
    ],
)
def test_bad_traces_name_file_and_field(tmp_path: Path, path: list[Any], value: Any, field: str) -> None:
    """Malformed SYNTH traces raise TraceFormatError naming the file and the JSON path."""
    trace_path = write(tmp_path, _set(generic(), path, value))
    with pytest.raises(TraceFormatError) as err:
        read_synth_trace(trace_path, DEFAULTS)
    assert str(trace_path) in str(err.value) and field in str(err.value)


def test_legacy_field_with_zero_mean_is_refused(tmp_path: Path) -> None:
    """Old-format classes need every *_avg > 0 (SLS fails on a null distribution); the field is named."""
    trace = json.loads((DATA / "syn.json").read_text())
    del trace["workloads"][0]["job_classes"][0]["rtasks_avg"]
    with pytest.raises(TraceFormatError, match=r"field 'workloads\[0\]\.job_classes\[0\]\.rtasks_avg': missing"):
        read_synth_trace(write(tmp_path, trace), DEFAULTS)
    trace["workloads"][0]["job_classes"][0]["rtasks_avg"] = 0
    with pytest.raises(TraceFormatError, match=r"job_classes\[0\]\.rtasks_avg': a distribution needs a positive mean"):
        read_synth_trace(write(tmp_path, trace), DEFAULTS)


def test_two_root_objects_are_refused(tmp_path: Path) -> None:
    """A SYNTH trace is a single JSON object."""
    path = tmp_path / "two.json"
    path.write_text("{} {}")
    with pytest.raises(TraceFormatError, match="expected one JSON object, found 2"):
        read_synth_trace(path, DEFAULTS)
