"""SLS-native JSON traces (AMDefinitionSLS) read into the workload model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yarnball.errors import TraceFormatError
from yarnball.launcher.workloads import TraceDefaults, read_sls_trace
from yarnball.protocols import ExecutionType, Resource

DATA = Path("/work/shared/data/sls")
DEFAULTS = TraceDefaults()


def write(tmp_path: Path, *objects: object, name: str = "trace.json") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(o, indent=2) for o in objects))
    return path


def job(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "job.id": "j1",
        "job.queue.name": "q",
        "job.start.ms": 0,
        "job.tasks": [{"container.host": "/r1/h1", "container.duration.ms": 1000}],
    }
    base.update(overrides)
    return base


def test_inputsls_has_two_jobs_with_their_queues_and_times() -> None:
    """inputsls.json gives job_1 (sls_queue_1, 0-95375 ms) and job_2 (sls_queue_2, 105204-197256 ms)."""
    wl = read_sls_trace(DATA / "inputsls.json", DEFAULTS)
    assert [(j.job_id, j.queue, j.submit_ms, j.end_ms) for j in wl.jobs] == [
        ("job_1", "sls_queue_1", 0, 95375),
        ("job_2", "sls_queue_2", 105204, 197256),
    ]
    assert wl.skipped == ()


def test_inputsls_task_durations_come_from_start_and_end() -> None:
    """Each task's duration is container.end.ms - container.start.ms."""
    wl = read_sls_trace(DATA / "inputsls.json", DEFAULTS)
    assert [t.duration_ms for t in wl.jobs[0].tasks] == [23707 - 6664, 21593 - 6665, 86613 - 68770]
    assert [t.duration_ms for t in wl.jobs[1].tasks] == [133985 - 111822, 131377 - 111788]


def test_inputsls_tasks_keep_host_rack_priority_type_and_allocation_id() -> None:
    """container.host /default-rack/node1 becomes host node1 on rack /default-rack; allocation ids are kept."""
    first = read_sls_trace(DATA / "inputsls.json", DEFAULTS).jobs[0]
    t = first.tasks[0]
    assert (t.hosts, t.rack, t.priority, t.task_type, t.count) == (("node1",), "/default-rack", 20, "map", 1)
    assert t.execution_type is ExecutionType.GUARANTEED
    assert [x.allocation_request_id for x in first.tasks] == [1, 2, 2]
    assert t.resource == Resource(1024, 1)


def test_inputsls_am_type_key_is_not_read_so_jobs_are_mapreduce() -> None:
    """inputsls.json's "am.type" is not SLS's key (yarn.sls.am.type): jobs use the default AM and resources."""
    wl = read_sls_trace(DATA / "inputsls.json", DEFAULTS)
    assert {j.am_type for j in wl.jobs} == {"mapreduce"}
    assert {j.user for j in wl.jobs} == {"default"}
    assert wl.jobs[0].am_resource == Resource(1024, 1)


def test_inputsls_nodes_are_the_hosts_it_names() -> None:
    """Without a node file the cluster is every container.host of the trace (parseNodesFromSLSTrace)."""
    wl = read_sls_trace(DATA / "inputsls.json", DEFAULTS)
    assert [n.path for n in wl.nodes] == ["/default-rack/node1", "/default-rack/node3", "/default-rack/node2"]
    assert {n.resource for n in wl.nodes} == {Resource(10240, 10)}


def test_sls_dag_uses_dag_am_and_request_delays() -> None:
    """sls_dag.json's yarn.sls.am.type selects the DAG AM; container.request.delay is kept per task."""
    wl = read_sls_trace(DATA / "sls_dag.json", DEFAULTS)
    assert [j.am_type for j in wl.jobs] == ["dag", "dag"]
    assert [t.request_delay_ms for t in wl.jobs[0].tasks] == [1000, 1500, 0]


def test_count_gives_identical_containers(tmp_path: Path) -> None:
    """A task group with count N is one TaskSpec of N containers; overrides of size and type are read."""
    task = {
        "count": 4,
        "container.duration.ms": "500",
        "container.memory-mb": 2048,
        "container.vcores": "2",
        "container.type": "reduce",
        "container.priority": 10,
        "container.execution.type": "OPPORTUNISTIC",
    }
    wl = read_sls_trace(write(tmp_path, job(**{"job.tasks": [task]})), DEFAULTS)
    t = wl.jobs[0].tasks[0]
    assert (t.count, t.duration_ms, t.resource, t.task_type, t.priority) == (4, 500, Resource(2048, 2), "reduce", 10)
    assert t.execution_type is ExecutionType.OPPORTUNISTIC
    assert (t.hosts, t.rack) == ((), None)


def test_duration_fields_take_precedence_in_sls_order(tmp_path: Path) -> None:
    """container.duration.ms beats duration.ms, which beats end - start (validateAndGetDuration)."""
    tasks = [
        {"container.duration.ms": 7, "duration.ms": 8, "container.start.ms": 0, "container.end.ms": 9},
        {"duration.ms": 8, "container.start.ms": 0, "container.end.ms": 9},
    ]
    wl = read_sls_trace(write(tmp_path, job(**{"job.tasks": tasks})), DEFAULTS)
    assert [t.duration_ms for t in wl.jobs[0].tasks] == [7, 8]


def test_job_count_replicates_with_running_am_numbers(tmp_path: Path) -> None:
    """job.count 3 starts three AMs named by AMRunner's AM counter, dropping the trace's id."""
    wl = read_sls_trace(write(tmp_path, job(**{"job.id": "solo"}), job(**{"job.count": 3})), DEFAULTS)
    assert [j.job_id for j in wl.jobs] == ["solo", "1", "2", "3"]


def test_job_without_id_is_named_by_am_counter(tmp_path: Path) -> None:
    """A job without job.id gets the number of AMs created before it."""
    second = job()
    del second["job.id"]
    wl = read_sls_trace(write(tmp_path, job(), second), DEFAULTS)
    assert [j.job_id for j in wl.jobs] == ["j1", "1"]


def test_am_resource_and_label_expression_overrides(tmp_path: Path) -> None:
    """am.memory-mb / am.vcores override the AM container; job.label.expression and job.user are kept."""
    wl = read_sls_trace(
        write(
            tmp_path, job(**{"am.memory-mb": 4096, "am.vcores": 2, "job.label.expression": "gpu", "job.user": "alice"})
        ),
        DEFAULTS,
    )
    j = wl.jobs[0]
    assert (j.am_resource, j.label_expression, j.user) == (Resource(4096, 2), "gpu", "alice")


def test_header_object_generates_nodes(tmp_path: Path) -> None:
    """A {num.nodes, num.racks} header adds SLS-generated nodes /rack<i % racks>/node<i> and is not a job."""
    wl = read_sls_trace(write(tmp_path, {"num.nodes": 4, "num.racks": 2}, job()), DEFAULTS)
    assert [n.path for n in wl.nodes] == ["/rack0/node0", "/rack1/node1", "/rack0/node2", "/rack1/node3", "/r1/h1"]
    assert len(wl.jobs) == 1 and wl.skipped == ()


def test_root_level_array_is_unwrapped(tmp_path: Path) -> None:
    """A JSON array of jobs reads like concatenated objects (Jackson's readValues unwraps it)."""
    path = tmp_path / "array.json"
    path.write_text(json.dumps([job(), job(**{"job.id": "j2"})]))
    assert [j.job_id for j in read_sls_trace(path, DEFAULTS).jobs] == ["j1", "j2"]


def test_job_without_tasks_is_skipped_with_sls_reason(tmp_path: Path) -> None:
    """SLS refuses a job without tasks: "No task for the job!"; the other jobs still load."""
    wl = read_sls_trace(write(tmp_path, job(**{"job.id": "empty", "job.tasks": []}), job()), DEFAULTS)
    assert [(s.job_id, s.reason) for s in wl.skipped] == [("empty", "No task for the job!")]
    assert [j.job_id for j in wl.jobs] == ["j1"]


def test_zero_duration_is_skipped_with_sls_reason(tmp_path: Path) -> None:
    """A task without a positive duration makes SLS refuse the job with its message."""
    wl = read_sls_trace(write(tmp_path, job(**{"job.tasks": [{"container.host": "/r/h"}]})), DEFAULTS)
    assert wl.skipped[0].reason == "Duration of a task shouldn't be less or equal to 0!"
    assert wl.jobs == ()


def test_unregistered_am_type_is_skipped(tmp_path: Path) -> None:
    """An AM type without yarn.sls.am.type.<name> cannot be created, so the job is skipped."""
    defaults = TraceDefaults(am_types=("mapreduce",))
    wl = read_sls_trace(write(tmp_path, job(**{"yarn.sls.am.type": "dag"})), defaults)
    assert "dag" in wl.skipped[0].reason and wl.jobs == ()


def test_negative_request_delay_becomes_zero(tmp_path: Path) -> None:
    """withRequestDelay clamps a negative delay to 0."""
    task = {"container.duration.ms": 5, "container.request.delay": -40}
    wl = read_sls_trace(write(tmp_path, job(**{"job.tasks": [task]})), DEFAULTS)
    assert wl.jobs[0].tasks[0].request_delay_ms == 0


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        (job(**{"job.tasks": "x"}), "'job.tasks'"),
        (job(**{"job.tasks": [{"container.duration.ms": -5}]}), "'job.tasks[0].container.duration.ms'"),
        (job(**{"job.tasks": [{"count": -1, "container.duration.ms": 5}]}), "'job.tasks[0].count'"),
        (job(**{"job.tasks": [{"container.start.ms": 9, "container.end.ms": 3}]}), "'job.tasks[0].container.end.ms'"),
        (
            job(**{"job.tasks": [{"container.duration.ms": 5, "container.priority": "high"}]}),
            "'job.tasks[0].container.priority'",
        ),
        (job(**{"job.tasks": [{"container.duration.ms": 5.5}]}), "'job.tasks[0].container.duration.ms'"),
        (
            job(**{"job.tasks": [{"container.duration.ms": 5, "container.execution.type": "guaranteed"}]}),
            "'job.tasks[0].container.execution.type'",
        ),
        (job(**{"job.tasks": [{"container.duration.ms": 5, "container.host": 7}]}), "'job.tasks[0].container.host'"),
        (job(**{"job.count": -2}), "'job.count'"),
        (job(**{"job.start.ms": -1}), "'job.start.ms'"),
        (job(**{"job.user": ["a"]}), "'job.user'"),
        (job(**{"job.queue.name": None}), "'job.queue.name'"),
    ],
)
def test_bad_fields_name_file_job_and_field(tmp_path: Path, entry: dict[str, object], field: str) -> None:
    """Structural problems raise TraceFormatError naming the file, the job and the field."""
    path = write(tmp_path, job(**{"job.id": "ok"}), entry)
    with pytest.raises(TraceFormatError) as err:
        read_sls_trace(path, DEFAULTS)
    message = str(err.value)
    assert str(path) in message and "job 'j1'" in message and field in message


def test_job_without_id_is_named_by_position(tmp_path: Path) -> None:
    """An error in a job without job.id names its position and line."""
    entry = job(**{"job.queue.name": None})
    del entry["job.id"]
    with pytest.raises(TraceFormatError, match=r"job #0 \(line 1\)"):
        read_sls_trace(write(tmp_path, entry), DEFAULTS)


def test_invalid_json_reports_line_and_column(tmp_path: Path) -> None:
    """A syntax error names the file, line and column."""
    path = tmp_path / "broken.json"
    path.write_text('{"job.id": "a",\n  "job.tasks": [\n    {"count": 1,,}\n  ]\n}')
    with pytest.raises(TraceFormatError, match=r"broken\.json: invalid JSON at line 3 column 17"):
        read_sls_trace(path, DEFAULTS)


def test_nan_is_rejected(tmp_path: Path) -> None:
    """NaN is not JSON (Jackson refuses it), so it is a format error."""
    path = tmp_path / "nan.json"
    path.write_text('{"job.queue.name": "q", "job.start.ms": NaN}')
    with pytest.raises(TraceFormatError, match=r"nan\.json"):
        read_sls_trace(path, DEFAULTS)


def test_root_value_must_be_an_object(tmp_path: Path) -> None:
    """A root value that is not an object is refused with its position."""
    path = tmp_path / "num.json"
    path.write_text("42")
    with pytest.raises(TraceFormatError, match=r"num\.json: job #0 \(line 1\): field '<root>'"):
        read_sls_trace(path, DEFAULTS)


def test_missing_file_is_a_trace_format_error(tmp_path: Path) -> None:
    """A trace that does not exist raises TraceFormatError naming it."""
    with pytest.raises(TraceFormatError, match=r"nope\.json: cannot read SLS trace: no such file"):
        read_sls_trace(tmp_path / "nope.json", DEFAULTS)
