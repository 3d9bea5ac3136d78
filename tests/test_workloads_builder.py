"""Building workloads in Python: WorkloadBuilder, task_spec and synthetic_workload."""

from __future__ import annotations

import pytest

from yarnball.errors import TraceFormatError
from yarnball.launcher.workloads import TraceDefaults, WorkloadBuilder, synthetic_workload, task_spec
from yarnball.protocols import ExecutionType, Resource


def test_builder_makes_nodes_and_jobs() -> None:
    """node/nodes/job/build give a workload with NM-default nodes and the jobs given."""
    wl = (
        WorkloadBuilder()
        .node("h1", rack="/r1", memory_mb=4096, vcores=4, labels=["gpu"])
        .nodes(3, racks=2)
        .job("j1", queue="a", user="u", submit_ms=5, tasks=[task_spec(2, 1000, host="/r1/h1")])
        .build()
    )
    assert [n.path for n in wl.nodes] == ["/r1/h1", "/rack0/node0", "/rack1/node1", "/rack0/node2"]
    assert wl.nodes[0].resource == Resource(4096, 4) and wl.nodes[0].labels == ("gpu",)
    assert wl.nodes[1].resource == Resource(10240, 10)
    j = wl.jobs[0]
    assert (j.job_id, j.queue, j.user, j.submit_ms, j.am_type, j.am_resource) == (
        "j1",
        "a",
        "u",
        5,
        "mapreduce",
        Resource(1024, 1),
    )
    assert (j.tasks[0].count, j.tasks[0].hosts, j.tasks[0].rack) == (2, ("h1",), "/r1")


def test_tasks_may_be_given_as_mappings() -> None:
    """A mapping of task_spec arguments is accepted in tasks."""
    wl = WorkloadBuilder().nodes(1).job("j", tasks=[{"count": 3, "duration_ms": 50, "memory_mb": 2048}]).build()
    t = wl.jobs[0].tasks[0]
    assert (t.count, t.duration_ms, t.resource, t.priority, t.task_type) == (3, 50, Resource(2048, 1), 20, "map")


def test_jobs_are_sorted_by_submit_time() -> None:
    """build orders jobs by submit time, keeping insertion order for ties."""
    wl = WorkloadBuilder().nodes(1).job("late", submit_ms=10).job("a", submit_ms=0).job("b", submit_ms=0).build()
    assert [j.job_id for j in wl.jobs] == ["a", "b", "late"]


def test_builder_uses_given_defaults() -> None:
    """Node, AM and container sizes come from the TraceDefaults given."""
    d = TraceDefaults(nm_memory_mb=2048, nm_vcores=2, am_container_memory_mb=512, container_memory_mb=256)
    wl = WorkloadBuilder(d).nodes(1).job("j", tasks=[{"duration_ms": 5}]).build()
    assert wl.nodes[0].resource == Resource(2048, 2)
    assert wl.jobs[0].am_resource == Resource(512, 1)
    assert wl.jobs[0].tasks[0].resource == Resource(256, 1)


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda b: b.node("h").node("h"), "node 'h': field 'hostname'"),
        (lambda b: b.node("h", memory_mb=-1), "node 'h': field 'resource'"),
        (lambda b: b.node("h", labels=["a"], non_exclusive_labels=["b"]), "field 'non_exclusive_labels'"),
        (lambda b: b.nodes(1).job("j").job("j"), "job 'j': field 'job_id'"),
        (lambda b: b.nodes(1).job("j", submit_ms=-1), "job 'j': field 'submit_ms'"),
        (lambda b: b.nodes(1).job("j", tasks=[{"count": 0}]), "field 'count'"),
        (lambda b: b.nodes(1).job("j", tasks=[{"duration_ms": -3}]), "field 'duration_ms'"),
        (lambda b: b.build(), "No node!"),
    ],
)
def test_builder_refuses_bad_input(build: object, match: str) -> None:
    """Invalid nodes and jobs raise TraceFormatError naming the node/job and field."""
    with pytest.raises(TraceFormatError, match=match):
        build(WorkloadBuilder()).build()  # type: ignore[operator]


def test_task_spec_reads_execution_type_strings() -> None:
    """task_spec accepts an execution type by name."""
    assert task_spec(execution_type="OPPORTUNISTIC").execution_type is ExecutionType.OPPORTUNISTIC


def test_synthetic_workload_is_deterministic_by_seed() -> None:
    """Same arguments give the same workload; another seed gives another."""
    a = synthetic_workload(50, 20, seed=1)
    assert a == synthetic_workload(50, 20, seed=1)
    assert a.jobs != synthetic_workload(50, 20, seed=2).jobs


def test_synthetic_workload_offers_the_requested_load() -> None:
    """Container-time offered per unit of time is about load x cluster slots (here 2x, within 35%)."""
    wl = synthetic_workload(400, 10, seed=3, load=2.0)
    work = sum(t.count * t.duration_ms for j in wl.jobs for t in j.tasks)
    span = wl.jobs[-1].submit_ms - wl.jobs[0].submit_ms
    slots = 10 * 10  # 10 nodes x min(10240/1024, 10/1)
    assert 1.3 < work / (span * slots) < 2.7


def test_synthetic_workload_shape() -> None:
    """Jobs have 1-40 maps preferring cluster nodes and 0-10 reduces; queues and users come from the lists."""
    wl = synthetic_workload(100, 50, seed=4, queues=("a", "b"), users=3, opportunistic_fraction=0.5)
    hosts = {n.hostname for n in wl.nodes}
    for j in wl.jobs:
        maps = [t for t in j.tasks if t.task_type == "map"]
        assert 1 <= len(maps) <= 40 and all(t.hosts[0] in hosts for t in maps)
        assert sum(t.count for t in j.tasks if t.task_type == "reduce") <= 10
    assert {j.queue for j in wl.jobs} == {"a", "b"} and {j.user for j in wl.jobs} <= {"user0", "user1", "user2"}
    assert {t.execution_type for j in wl.jobs for t in j.tasks} == set(ExecutionType)
    submits = [j.submit_ms for j in wl.jobs]
    assert submits == sorted(submits) and submits[0] == 0


def test_synthetic_workload_scales_to_ten_thousand_nodes() -> None:
    """A 10,000-node cluster on SLS-style racks of 40 is generated."""
    wl = synthetic_workload(200, 10_000, seed=5)
    assert len(wl.nodes) == 10_000 and len({n.rack for n in wl.nodes}) == 250
    assert len({n.hostname for n in wl.nodes}) == 10_000


def test_synthetic_workload_refuses_bad_arguments() -> None:
    """No nodes or an empty range is a TraceFormatError."""
    with pytest.raises(TraceFormatError):
        synthetic_workload(10, 0)
    with pytest.raises(TraceFormatError):
        synthetic_workload(10, 5, maps=(5, 1))
