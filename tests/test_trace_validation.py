"""Trace and node-file validation: required keys, unknown keys (warning or --strict error), value domains, names.

Each test feeds one defect to a reader and checks that it is reported naming the file, the job and the field (or,
for an unknown key, warned about with the closest known key). tests/test_fuzz_traces.py covers the same ground at
random; these pin the wording and the individual rules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from yarnball.errors import TraceFormatError
from yarnball.launcher import cli
from yarnball.launcher.workloads import (
    TraceDefaults,
    load_workload,
    read_nodes_file,
    read_rumen_trace,
    read_sls_trace,
    read_synth_trace,
)

_SHARED = (Path(__file__).resolve().parents[2] / "shared", Path("/work/shared"))
DATA = next((d / "data" / "sls" for d in _SHARED if (d / "data" / "sls").is_dir()), _SHARED[0] / "data" / "sls")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "traces"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is not present beside this checkout")


def sls_job(**overrides: Any) -> dict[str, Any]:
    job: dict[str, Any] = {
        "job.id": "job_1",
        "job.queue.name": "default",
        "job.start.ms": 0,
        "job.end.ms": 1000,
        "job.tasks": [{"container.host": "/rack1/node1", "container.duration.ms": 100}],
    }
    for key, value in overrides.items():
        if value is None:
            job.pop(key, None)
        else:
            job[key] = value
    return job


def write(tmp_path: Path, *objects: Any, name: str = "trace.json") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(o) for o in objects))
    return path


def synth(**overrides: Any) -> dict[str, Any]:
    trace = json.loads((DATA / "syn_generic.json").read_text())
    trace.update(overrides)
    return trace


def job_class(trace: dict[str, Any]) -> dict[str, Any]:
    return trace["workloads"][0]["job_classes"][0]


# -- unknown keys --------------------------------------------------------------------------------------------------
def test_misspelt_sls_key_warns_with_the_closest_known_key(tmp_path: Path) -> None:
    """``job.usr`` is not read by SLS: a warning names file, job and key and suggests ``job.user``."""
    path = write(tmp_path, sls_job(**{"job.usr": "alice"}))
    with capture_logs() as logs:
        read_sls_trace(path)
    warnings = [e["event"] for e in logs if e["log_level"] == "warning"]
    assert warnings == [f"{path}: job 'job_1' (#0, line 1): job.usr: unknown key, did you mean job.user?"]


def test_strict_turns_an_unknown_key_into_an_error(tmp_path: Path) -> None:
    """With strict=True the same key is a TraceFormatError naming file, job and key, with the suggestion."""
    path = write(tmp_path, sls_job(**{"job.strat.ms": 5}))
    with pytest.raises(TraceFormatError) as err:
        load_workload("SLS", [path], strict=True)
    assert str(err.value) == (
        f"{path}: job 'job_1' (#0, line 1): field 'job.strat.ms': unknown key, did you mean job.start.ms?"
    )


def test_unknown_key_warns_once_per_file(tmp_path: Path) -> None:
    """A typo repeated in every task and job is reported once, for the first place it occurs."""
    task = {"container.host": "/r/h", "container.duration.ms": 5, "container.priorty": 1}
    path = write(tmp_path, sls_job(**{"job.tasks": [task, task]}), sls_job(**{"job.id": "job_2", "job.tasks": [task]}))
    with capture_logs() as logs:
        read_sls_trace(path)
    warnings = [e["event"] for e in logs if "unknown key" in e["event"]]
    assert len(warnings) == 1
    assert "job.tasks[0].container.priorty: unknown key, did you mean container.priority?" in warnings[0]


def test_resource_type_keys_are_known_when_the_type_is_configured(tmp_path: Path) -> None:
    """``container.yarn.io/gpu`` is an SLS key once yarn.io/gpu is a resource type, and unknown otherwise."""
    task = {"container.host": "/r/h", "container.duration.ms": 5, "container.yarn.io/gpu": 1}
    path = write(tmp_path, sls_job(**{"job.tasks": [task]}))
    read_sls_trace(path, TraceDefaults(resource_types=("yarn.io/gpu",)), strict=True)
    with pytest.raises(TraceFormatError, match=r"container\.yarn\.io/gpu': unknown key"):
        read_sls_trace(path, strict=True)


@needs_data
def test_rumen_attempt_key_typo_is_named(tmp_path: Path) -> None:
    """A Rumen attempt's ``finishTme`` is refused under strict, naming the task, attempt and LoggedTaskAttempt key."""
    jobs = [json.loads(line) for line in _rumen_lines()]
    jobs[0]["mapTasks"][0]["attempts"][0]["finishTme"] = 1
    path = write(tmp_path, *jobs)
    with pytest.raises(TraceFormatError, match=r"mapTasks\[0\]\.attempts\[0\]\.finishTme': unknown key, did you mean"):
        read_rumen_trace(path, strict=True)


@needs_data
def test_synth_sample_key_typo_is_named(tmp_path: Path) -> None:
    """A SYNTH sample's ``sdt`` (for ``std``) is refused under strict, naming its full path."""
    trace = synth()
    job_class(trace)["duration"] = {"val": 60, "sdt": 5}
    with pytest.raises(TraceFormatError, match=r"job_classes\[0\]\.duration\.sdt': unknown key, did you mean std\?"):
        read_synth_trace(write(tmp_path, trace), strict=True)


def test_node_file_key_typo_warns(tmp_path: Path) -> None:
    """``memroy-mb`` in a node file: the node keeps the default size and the user is told the right key."""
    path = write(tmp_path, {"rack": "r1", "nodes": [{"node": "n1", "memroy-mb": 2048}]}, name="nodes.json")
    with capture_logs() as logs:
        nodes = read_nodes_file(path)
    assert nodes[0].resource.memory_mb == TraceDefaults().nm_memory_mb
    assert any("nodes[0].memroy-mb: unknown key, did you mean memory-mb?" in e["event"] for e in logs)


# -- required keys and domains --------------------------------------------------------------------------------------
def test_missing_job_start_is_an_error_naming_file_job_and_key(tmp_path: Path) -> None:
    """SLS cannot place a job in time without ``job.start.ms``."""
    path = write(tmp_path, sls_job(**{"job.start.ms": None}))
    expected = r"trace\.json: job 'job_1' \(#0, line 1\): field 'job\.start\.ms': missing"
    with pytest.raises(TraceFormatError, match=expected):
        read_sls_trace(path)


@pytest.mark.parametrize(
    ("task", "field", "expected"),
    [
        ({"container.memory-mb": 0}, "container.memory-mb", r"must be in \[1, "),
        ({"container.vcores": -2}, "container.vcores", r"must be in \[1, 2147483647\], got -2"),
        ({"container.start.ms": 50, "container.end.ms": 10}, "container.end.ms", r"must be >= container.start.ms"),
        ({"container.priority": 2**40}, "container.priority", r"must be in \[-2147483648, 2147483647\]"),
        ({"count": 10**9}, "count", r"must be in \[0, 10000000\]"),
    ],
)
def test_task_values_outside_their_domain_are_errors(tmp_path: Path, task: dict, field: str, expected: str) -> None:
    """Memory and vcores below 1, an end before the start, a priority beyond a Java int, a count beyond the cap."""
    job = sls_job(**{"job.tasks": [{"container.host": "/r/h", "container.duration.ms": 5, **task}]})
    with pytest.raises(TraceFormatError, match=rf"job 'job_1'.*field 'job\.tasks\[0\]\.{field}': {expected}"):
        read_sls_trace(write(tmp_path, job))


def test_job_that_ends_before_it_starts_is_an_error(tmp_path: Path) -> None:
    """``job.end.ms`` before ``job.start.ms`` names both."""
    path = write(tmp_path, sls_job(**{"job.start.ms": 500, "job.end.ms": 100}))
    with pytest.raises(TraceFormatError, match=r"field 'job\.end\.ms': must be >= job\.start\.ms \(500\), got 100"):
        read_sls_trace(path)


def test_zero_racks_is_an_error(tmp_path: Path) -> None:
    """A cluster header with ``num.racks`` 0 is refused (SLS clamps it to 1, hiding the typo)."""
    path = write(tmp_path, {"num.nodes": 4, "num.racks": 0}, sls_job())
    with pytest.raises(TraceFormatError, match=r"field 'num\.racks': must be in \[1, "):
        read_sls_trace(path)


def test_lone_surrogate_in_a_queue_name_is_refused_when_read(tmp_path: Path) -> None:
    """JSON ``"\\ud800"`` cannot be written as UTF-8: refused at read time, naming file, job and field."""
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(sls_job(**{"job.queue.name": "q\ud800"})))
    with pytest.raises(TraceFormatError, match=r"trace\.json: job 'job_1'.*'job\.queue\.name': not valid UTF-8"):
        read_sls_trace(path)


@needs_data
def test_rumen_finish_before_submit_is_an_error(tmp_path: Path) -> None:
    """A Rumen job's finishTime before its submitTime is refused; -1 (Rumen's "not logged") means no end."""
    jobs = [json.loads(line) for line in _rumen_lines()]
    jobs[0]["finishTime"] = jobs[0]["submitTime"] - 1
    with pytest.raises(TraceFormatError, match=r"field 'finishTime': must be >= submitTime"):
        read_rumen_trace(write(tmp_path, *jobs))
    jobs[0]["finishTime"] = -1
    assert read_rumen_trace(write(tmp_path, *jobs)).jobs[0].end_ms is None


# -- SYNTH domains and bounded loops --------------------------------------------------------------------------------
@needs_data
def test_synth_nodes_per_rack_zero_is_refused_and_absent_means_one(tmp_path: Path) -> None:
    """``nodes_per_rack`` 0 is a typo (SLS divides by it after clamping); absent it is 1, one node per rack."""
    with pytest.raises(TraceFormatError, match=r"field 'nodes_per_rack': must be in \[1, "):
        read_synth_trace(write(tmp_path, synth(nodes_per_rack=0)))
    trace = synth()
    del trace["nodes_per_rack"]
    nodes = read_synth_trace(write(tmp_path, trace)).nodes
    assert len({n.rack for n in nodes}) == len(nodes) == 20


@needs_data
@pytest.mark.parametrize(
    ("sample", "value", "expected"),
    [
        ("duration", {"val": 60, "std": -5}, r"duration\.std': a standard deviation must be >= 0"),
        ("reservation", {"val": 1.5}, r"reservation\.val': must be in \[0, 1\], got 1\.5"),
        ("deadline_factor", {"val": -2}, r"deadline_factor\.val': must be in \[0, inf\]"),
        ("duration", {"val": 1e-200, "std": 1}, r"duration\.std': std 1 is too large for a LOGNORM"),
    ],
)
def test_synth_samples_outside_their_domain_are_errors(tmp_path: Path, sample: str, value: Any, expected: str) -> None:
    """Negative deviations, probabilities outside [0, 1], negative factors and a mean that would divide by zero."""
    trace = synth()
    job_class(trace)[sample] = value
    with pytest.raises(TraceFormatError, match=expected):
        read_synth_trace(write(tmp_path, trace))


@needs_data
@pytest.mark.parametrize(
    ("count", "expected"),
    [
        ({"val": 1e12}, r"tasks\[0\]\.count\.val': must be in \[0, 1e\+07\]"),
        ({"val": 5e6, "std": 1, "dist": "NORM"}, r"tasks\[\d\]\.count': the trace would generate more than 2000000"),
        ({"val": 5, "std": 1e300, "dist": "NORM"}, r"tasks\[0\]\.count': drew .*, outside \["),
    ],
)
def test_synth_task_counts_are_bounded(tmp_path: Path, count: dict[str, Any], expected: str) -> None:
    """A count constant, a sum over jobs or a draw beyond the cap stops the generator with an error, not a hang."""
    trace = synth()
    job_class(trace)["tasks"][0]["count"] = count
    with pytest.raises(TraceFormatError, match=expected):
        read_synth_trace(write(tmp_path, trace))


@needs_data
def test_synth_without_num_jobs_is_refused(tmp_path: Path) -> None:
    """A SYNTH trace must say how many jobs to generate (Jackson would silently make it 0)."""
    trace = synth()
    del trace["num_jobs"]
    with pytest.raises(TraceFormatError, match=r"trace\.json: SYNTH trace: field 'num_jobs': missing"):
        read_synth_trace(write(tmp_path, trace))


# -- node files -----------------------------------------------------------------------------------------------------
def test_node_with_zero_vcores_is_refused(tmp_path: Path) -> None:
    """A node of 0 vcores can run nothing: an error naming the node file, rack and field."""
    path = write(tmp_path, {"rack": "r1", "nodes": [{"node": "n1", "vcores": 0}]}, name="nodes.json")
    with pytest.raises(TraceFormatError, match=r"nodes\.json: rack 'r1': field 'nodes\[0\]\.vcores': must be in \[1, "):
        read_nodes_file(path)


def test_no_node_names_the_nodes_file(tmp_path: Path) -> None:
    """An empty nodes file gives SLS's "No node!", about the nodes file and not the trace."""
    trace = write(tmp_path, sls_job())
    nodes = write(tmp_path, {"rack": "r1", "nodes": []}, name="nodes.json")
    with pytest.raises(TraceFormatError) as err:
        load_workload("SLS", [trace], nodes)
    assert str(err.value).startswith(f"{nodes}: No node!")


# -- every shipped input still loads -------------------------------------------------------------------------------
@needs_data
@pytest.mark.parametrize(
    ("kind", "trace", "nodes"),
    [
        ("SLS", "inputsls.json", None),
        ("SLS", "sls_dag.json", None),
        ("SLS", "inputsls.json", "nodes.json"),
        ("SLS", "inputsls.json", "nodes-with-resources.json"),
        ("RUMEN", "2jobs2min-rumen-jh.json", None),
        ("SYNTH", "syn.json", None),
        ("SYNTH", "syn_generic.json", None),
        ("SYNTH", "syn_stream.json", None),
    ],
)
def test_slss_own_inputs_load_strictly(kind: str, trace: str, nodes: str | None) -> None:
    """Every SLS sample input is accepted with strict=True: the known-key lists are Hadoop's."""
    wl = load_workload(kind, [DATA / trace], None if nodes is None else DATA / nodes, strict=True)
    assert wl.jobs and wl.nodes


def test_example_traces_load_strictly() -> None:
    """The examples/traces sample trace and nodes file are accepted with strict=True."""
    wl = load_workload("SLS", [EXAMPLES / "sample-sls.json"], EXAMPLES / "sample-nodes.json", strict=True)
    assert wl.jobs and wl.nodes


# -- the command line -----------------------------------------------------------------------------------------------
def _simulate(trace: Path, out: Path, *extra: str) -> list[str]:
    return ["simulate", "--tracelocation", str(trace), "--output-dir", str(out), "--no-plots", "--no-progress", *extra]


def _error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("yarnball: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_cli_out_of_domain_value_exits_2_with_one_line(tmp_path: Path, capsys: Any) -> None:
    """A zero-memory container: exit 2, one line naming the file and the field."""
    job = sls_job(**{"job.tasks": [{"container.host": "/r/h", "container.duration.ms": 5, "container.memory-mb": 0}]})
    trace = write(tmp_path, job)
    assert cli.main(_simulate(trace, tmp_path / "out")) == 2
    line = _error_line(capsys.readouterr().err)
    assert str(trace) in line and "'job.tasks[0].container.memory-mb'" in line


def test_cli_strict_refuses_an_unknown_key(tmp_path: Path, capsys: Any) -> None:
    """--strict: an unknown key exits 2, naming it and the key meant."""
    trace = write(tmp_path, sls_job(**{"job.usr": "alice"}))
    assert cli.main(_simulate(trace, tmp_path / "out", "--strict")) == 2
    line = _error_line(capsys.readouterr().err)
    assert str(trace) in line and "'job.usr': unknown key, did you mean job.user?" in line


def test_cli_unknown_key_warns_and_runs(tmp_path: Path, capsys: Any) -> None:
    """Without --strict the same trace runs to the end; stderr carries the warning with the suggestion."""
    out = tmp_path / "out"
    trace = write(tmp_path, sls_job(**{"job.usr": "alice"}))
    assert cli.main(_simulate(trace, out)) == 0
    err = capsys.readouterr().err
    assert "job.usr: unknown key, did you mean job.user?" in err and str(trace) in err
    assert (out / "jobruntime.csv").is_file()


def test_cli_surrogate_user_is_refused_before_the_run(tmp_path: Path, capsys: Any) -> None:
    """A user name holding a lone surrogate exits 2 when the trace is read, and no output is written."""
    out = tmp_path / "out"
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(sls_job(**{"job.user": "\udcff"})))
    assert cli.main(_simulate(trace, out)) == 2
    assert "'job.user': not valid UTF-8" in _error_line(capsys.readouterr().err)
    assert not out.exists()


def _rumen_lines() -> list[str]:
    """SLS's Rumen sample, one job per line, cut to two tasks per job."""
    text, decoder, pos, jobs = (DATA / "2jobs2min-rumen-jh.json").read_text(), json.JSONDecoder(), 0, []
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        job, pos = decoder.raw_decode(text, pos)
        job["mapTasks"] = job.get("mapTasks", [])[:2]
        jobs.append(json.dumps(job))
    return jobs
