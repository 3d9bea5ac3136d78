"""load_workload (SLSRunner's trace/node wiring), TraceDefaults, the public surface and a fuzzed SLS reader."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import yarnball.launcher.workloads as workloads
from yarnball.errors import ConfigurationError, TraceFormatError
from yarnball.launcher.workloads import TraceDefaults, Workload, load_workload, read_sls_trace
from yarnball.protocols import Resource

DATA = Path("/work/shared/data/sls")


def sls_job(job_id: str | None = None, host: str = "/r1/h1", count: int = 1) -> dict[str, object]:
    job: dict[str, object] = {
        "job.queue.name": "q",
        "job.start.ms": 0,
        "job.count": count,
        "job.tasks": [{"container.host": host, "container.duration.ms": 10}],
    }
    if job_id is not None:
        job["job.id"] = job_id
    return job


def write(tmp_path: Path, name: str, *objects: object) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(o) for o in objects))
    return path


def test_public_names_are_pinned() -> None:
    """The subpackage exports exactly its documented API."""
    assert sorted(workloads.__all__) == sorted(
        [
            "DEFAULT_RACK",
            "KNOWN_AM_TYPES",
            "TRACE_TYPES",
            "JobOutline",
            "JobSpec",
            "NodeSpec",
            "SLSKeys",
            "SkippedJob",
            "StreamedWorkload",
            "SyntheticJobs",
            "TaskSpec",
            "TraceDefaults",
            "Workload",
            "WorkloadBuilder",
            "generate_nodes",
            "load_workload",
            "read_nodes_file",
            "read_rumen_trace",
            "read_sls_trace",
            "read_synth_trace",
            "scan_workload",
            "split_host_path",
            "synthetic_jobs",
            "synthetic_nodes",
            "synthetic_workload",
            "task_spec",
        ]
    )


def test_defaults_are_sls_code_defaults() -> None:
    """TraceDefaults() holds SLSConfiguration's code defaults."""
    d = TraceDefaults()
    assert (d.nm_resource, d.am_resource, d.container_resource) == (
        Resource(10240, 10),
        Resource(1024, 1),
        Resource(1024, 1),
    )
    assert (d.nm_heartbeat_interval_ms, d.am_heartbeat_interval_ms, d.runner_pool_size) == (1000, 1000, 10)


def test_defaults_from_configuration_read_sls_runner_keys() -> None:
    """from_configuration reads yarn.sls.* strings (as a Configuration returns them) and the AM types set."""
    conf = {
        "yarn.sls.nm.memory.mb": "100240",
        "yarn.sls.nm.vcores": "100",
        "yarn.sls.container.memory.mb": "2048",
        "yarn.sls.am.container.vcores": "2",
        "yarn.sls.nm.heartbeat.interval.ms": "500",
        "yarn.sls.am.type.mapreduce": "org.apache.hadoop.yarn.sls.appmaster.MRAMSimulator",
        "yarn.sls.am.type.custom": "my.AM",
    }
    d = TraceDefaults.from_configuration(conf)
    assert (d.nm_resource, d.container_resource, d.am_resource) == (
        Resource(100240, 100),
        Resource(2048, 1),
        Resource(1024, 2),
    )
    assert d.nm_heartbeat_interval_ms == 500
    assert d.am_types == ("mapreduce", "stream", "dag", "custom")


def test_built_in_am_types_are_registered_without_their_keys() -> None:
    """SLS's three AM simulators are built in: registered whatever the configuration names (SLS's sample-conf
    sls-runner.xml names only mapreduce), and when the configuration cannot list its keys."""

    class Conf:
        def get(self, key: str, default: object = None) -> object:
            return default

    only_mr = {"yarn.sls.am.type.mapreduce": "org.apache.hadoop.yarn.sls.appmaster.MRAMSimulator"}
    assert TraceDefaults.from_configuration(only_mr).am_types == ("mapreduce", "stream", "dag")
    assert TraceDefaults.from_configuration(Conf()).am_types == ("mapreduce", "stream", "dag")


def test_defaults_reject_non_integer_values() -> None:
    """A bad number is a ConfigurationError naming the key."""
    with pytest.raises(ConfigurationError, match=r"yarn\.sls\.nm\.vcores"):
        TraceDefaults.from_configuration({"yarn.sls.nm.vcores": "ten"})


def test_sls_traces_merge_with_continued_am_numbers(tmp_path: Path) -> None:
    """Two SLS files: jobs in order, unnamed jobs numbered across files, nodes the union."""
    a = write(tmp_path, "a.json", sls_job("x", "/r1/h1"))
    b = write(tmp_path, "b.json", sls_job(None, "/r2/h2", count=2))
    wl = load_workload("SLS", [a, b], None, TraceDefaults())
    assert [j.job_id for j in wl.jobs] == ["x", "1", "2"]
    assert [n.path for n in wl.nodes] == ["/r1/h1", "/r2/h2"]
    assert wl.source == f"SLS:{a},{b}"


def test_comma_separated_trace_location(tmp_path: Path) -> None:
    """A single string is split on commas like --tracelocation."""
    a = write(tmp_path, "a.json", sls_job("x"))
    b = write(tmp_path, "b.json", sls_job("y"))
    assert [j.job_id for j in load_workload("sls", f"{a},{b}").jobs] == ["x", "y"]


def test_nodes_file_replaces_trace_hosts() -> None:
    """With a node file the cluster is the file's nodes, not the trace's hosts."""
    wl = load_workload("SLS", [DATA / "inputsls.json"], DATA / "nodes.json", TraceDefaults())
    assert len(wl.nodes) == 20 and wl.nodes[0].path == "/rack1/node1"
    assert len(wl.jobs) == 2


def test_synth_uses_the_nodes_file_for_preferred_hosts() -> None:
    """SYNTH with --nodes draws preferred hosts from the node file."""
    wl = load_workload("SYNTH", [DATA / "syn.json"], DATA / "nodes-with-resources.json", TraceDefaults(), seed=3)
    names = {n.hostname for n in wl.nodes}
    assert names == {"node1", "node2", "node3", "node4"}
    assert {h for j in wl.jobs for t in j.tasks for h in t.hosts} <= names


def test_rumen_via_load_workload_keeps_skipped_jobs() -> None:
    """The Rumen sample loads with its third job skipped and four nodes."""
    wl = load_workload("RUMEN", [DATA / "2jobs2min-rumen-jh.json"])
    assert (len(wl.jobs), len(wl.skipped), len(wl.nodes)) == (2, 1, 4)


def test_unknown_trace_type_is_refused() -> None:
    """Only SLS, RUMEN and SYNTH are trace types."""
    with pytest.raises(TraceFormatError, match="trace type should be SLS, RUMEN, or SYNTH"):
        load_workload("CSV", [DATA / "inputsls.json"])


def test_no_nodes_is_refused(tmp_path: Path) -> None:
    """A trace naming no host and no node file leaves no cluster: SLS's "No node! Please configure nodes."."""
    job = {"job.queue.name": "q", "job.start.ms": 0, "job.tasks": [{"container.duration.ms": 5}]}
    trace = write(tmp_path, "t.json", job)
    with pytest.raises(TraceFormatError, match=r"t\.json: No node! Please configure nodes"):
        load_workload("SLS", [trace])


def test_missing_trace_file_is_refused(tmp_path: Path) -> None:
    """A missing trace is a TraceFormatError naming it."""
    with pytest.raises(TraceFormatError, match=r"gone\.json"):
        load_workload("RUMEN", [tmp_path / "gone.json"])


def test_workload_round_trips_through_msgpack() -> None:
    """A workload encodes to MessagePack and decodes equal, so it can be shipped to a shard host."""
    wl = load_workload("SYNTH", [DATA / "syn_generic.json"])
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(wl), type=Workload) == wl


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_keys = st.sampled_from(
    [
        "job.id",
        "job.queue.name",
        "job.tasks",
        "job.count",
        "job.start.ms",
        "job.end.ms",
        "job.user",
        "yarn.sls.am.type",
        "am.memory-mb",
        "num.nodes",
        "num.racks",
        "job.label.expression",
    ]
)
_task_keys = st.sampled_from(
    [
        "count",
        "container.host",
        "container.duration.ms",
        "duration.ms",
        "container.start.ms",
        "container.end.ms",
        "container.priority",
        "container.type",
        "container.execution.type",
        "container.memory-mb",
        "container.allocation.id",
        "container.request.delay",
    ]
)
_VALID_TASK = {"container.host": "/r/h", "container.duration.ms": 10}
_VALID_JOB = {"job.id": "j", "job.queue.name": "q", "job.start.ms": 0}
# Mostly-valid jobs with a few fields replaced by arbitrary JSON, so the fuzz reaches deep into the reader.
_tasks = st.lists(st.dictionaries(_task_keys, _json_values, max_size=3).map(lambda d: {**_VALID_TASK, **d}), max_size=3)
_jobs = st.tuples(st.dictionaries(_keys, _json_values, max_size=3), _tasks).map(
    lambda p: {**_VALID_JOB, "job.tasks": p[1], **p[0]}
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(_jobs | _json_values, max_size=3))
def test_fuzzed_sls_traces_only_raise_trace_format_errors(tmp_path: Path, entries: list[object]) -> None:
    """Any JSON fed to the SLS reader gives a workload or a TraceFormatError, never another exception."""
    path = tmp_path / "fuzz.json"
    path.write_text("\n".join(json.dumps(e) for e in entries))
    try:
        wl = read_sls_trace(path, TraceDefaults())
    except TraceFormatError:
        return
    assert all(t.count >= 1 and t.duration_ms > 0 for j in wl.jobs for t in j.tasks)
