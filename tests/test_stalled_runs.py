"""A run in which no application can ever progress stops by itself and names what blocks it; a run that is only
waiting (for a submit time, for a container to end) goes on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from am_helpers import OneContainerAM

from yarnball import Cluster
from yarnball.launcher import cli
from yarnball.launcher._embedded import EmbeddedBackend
from yarnball.launcher.workloads import WorkloadBuilder, synthetic_jobs, synthetic_nodes, task_spec
from yarnball.protocols import ExecutionType, Resource, YarnApplicationState

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "examples" / "traces" / "sample-sls.json"
NODES = ROOT / "examples" / "traces" / "sample-nodes.json"
DAY_MS = 24 * 3600 * 1000
SMALL_QUEUE = {
    "yarn.scheduler.capacity.root.queues": "a,b",
    "yarn.scheduler.capacity.root.a.capacity": "10",
    "yarn.scheduler.capacity.root.a.maximum-capacity": "10",
    "yarn.scheduler.capacity.root.b.capacity": "90",
}


@pytest.fixture(autouse=True)
def _fails_after_a_day(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every run here stops within a simulated day, or fails (rather than going on for ever without a stall check)."""
    original = EmbeddedBackend.begin_run

    def begin_run(self: EmbeddedBackend, until_ms: float | None = None, on_progress: Any = None) -> bool:
        def guard(_: Any) -> None:
            raise AssertionError(f"the run is still going at {self.kernel.now} ms")

        self.kernel.schedule(DAY_MS, guard)
        return original(self, until_ms, on_progress)

    monkeypatch.setattr(EmbeddedBackend, "begin_run", begin_run)
    yield


def _two_jobs(node_mb: int, *, second_at_ms: int = 0, queue: str = "default", am_mb: int = 1024) -> Any:
    return (
        WorkloadBuilder()
        .nodes(2, memory_mb=node_mb, vcores=8)
        .job("j1", queue=queue, am_memory_mb=am_mb, tasks=[task_spec(2, 5_000)])
        .job("j2", queue="b" if queue == "a" else queue, submit_ms=second_at_ms, tasks=[task_spec(2, 5_000)])
        .build()
    )


def test_cli_run_whose_asks_fit_no_node_stops_and_exits_3(tmp_path: Path, capsys: Any) -> None:
    """--conf yarn.sls.nm.memory.mb=12: no request fits any node; the run stops, writes every output, exits 3 and
    names the ask and the largest node (also in summary.json errors.stalled)."""
    out = tmp_path / "out"
    argv = ["simulate", "--tracelocation", str(TRACE), "--nodes", str(NODES), "--output-dir", str(out),
            "--no-plots", "--no-progress", "--conf", "yarn.sls.nm.memory.mb=12"]  # fmt: skip
    assert cli.main(argv) == 3
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("yarnball: error:")]
    assert len(lines) == 1
    assert "<memory:1024, vCores:1>" in lines[0] and "has <memory:12, vCores:10>" in lines[0]
    for name in ("summary.json", "events.jsonl", "jobruntime.csv", "realtimetrack.json"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert "largest node" in summary["errors"]["stalled"]
    assert summary["applications"]["unfinished"] == summary["applications"]["submitted"] > 0


def test_cluster_run_returns_and_names_the_ask_and_the_largest_node() -> None:
    """Cluster.run() returns once nothing can progress; Cluster.stalled names the application, its ask and the
    largest node."""
    workload = _two_jobs(12)
    cluster = Cluster({}, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run()
    assert cluster.stalled is not None
    assert "application_1700000000000_0001" in cluster.stalled and "<memory:1024, vCores:1>" in cluster.stalled
    assert "largest node, node0, has <memory:12, vCores:8>" in cluster.stalled


def test_an_ask_beyond_its_queue_s_maximum_capacity_stalls_once_the_rest_is_done() -> None:
    """An AM larger than its queue's maximum capacity can never start; the other queue's job runs to the end
    first, then the run stops naming the queue limit."""
    workload = _two_jobs(8192, queue="a", am_mb=2048)
    cluster = Cluster(SMALL_QUEUE, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run()
    states = [a.state for a in cluster.applications]
    assert states == [YarnApplicationState.ACCEPTED, YarnApplicationState.FINISHED]
    assert cluster.stalled is not None and "queue root.a may hold at most <memory:1638" in cluster.stalled


def test_a_job_still_to_be_submitted_is_progress() -> None:
    """A blocked application does not stop the run while another waits for its submit time (here after many
    check intervals): that one is submitted, and it finishes."""
    workload = _two_jobs(12, second_at_ms=900_000)
    cluster = Cluster({}, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run()
    assert len(cluster.applications) == 2 and cluster.now >= 900_000
    assert cluster.stalled is not None


def test_a_run_with_an_end_is_not_cut_short() -> None:
    """run(until_ms=...) ends where it was asked to, stalled or not."""
    workload = _two_jobs(12)
    cluster = Cluster({}, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    assert cluster.run(until_ms=600_000) == 600_000
    assert cluster.stalled is None


def test_healthy_runs_never_stall() -> None:
    """Jobs whose tasks fill the nodes (each ask waits for a release) run to the end, not judged stuck."""
    workload = (
        WorkloadBuilder()
        .nodes(1, memory_mb=3072, vcores=8)
        .job("big", tasks=[task_spec(3, 200_000, memory_mb=2048)])
        .job("late", submit_ms=400_000, tasks=[task_spec(1, 5_000)])
        .build()
    )
    cluster = Cluster({}, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run()
    assert cluster.stalled is None
    assert [a.state for a in cluster.applications] == [YarnApplicationState.FINISHED] * 2


def _mixed_types(priority_opportunistic: int = 20) -> Any:
    """One job: a GUARANTEED and an OPPORTUNISTIC map, anywhere, at priority 20 and ``priority_opportunistic``."""
    return (
        WorkloadBuilder()
        .nodes(2, memory_mb=8192, vcores=8)
        .job(
            "j1",
            tasks=[
                task_spec(1, 5_000),
                task_spec(1, 5_000, priority=priority_opportunistic, execution_type=ExecutionType.OPPORTUNISTIC),
            ],
        )
        .build()
    )


def test_asks_that_replace_each_other_at_the_scheduler_stall_and_say_so() -> None:
    """Without opportunistic allocation, the scheduler keeps one ask per priority and resource name: the AM's
    GUARANTEED and OPPORTUNISTIC asks at one priority replace each other there, and once the GUARANTEED map ran, the
    AM waits for an OPPORTUNISTIC one the scheduler holds no ask for. The run stops and says so."""
    workload = _mixed_types()
    cluster = Cluster({}, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run()
    assert cluster.stalled is not None
    assert "application_1700000000000_0001 (queue root.default) has its AM waiting for 1 container request" in (
        cluster.stalled
    )
    assert "(1 OPPORTUNISTIC at priority 20) that the scheduler holds no ask for" in cluster.stalled
    assert [a.state for a in cluster.applications] == [YarnApplicationState.RUNNING]


def test_the_same_asks_at_their_own_priorities_run_to_the_end() -> None:
    """The OPPORTUNISTIC map at priority 19 (MapReduce's PRIORITY_OPPORTUNISTIC_MAP) keeps an ask of its own."""
    workload = _mixed_types(19)
    cluster = Cluster({}, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run()
    assert cluster.stalled is None
    assert [a.state for a in cluster.applications] == [YarnApplicationState.FINISHED]


@pytest.mark.parametrize("queue_length", [0, 10])
def test_opportunistic_asks_no_node_queues_stall_and_name_the_queue_length(queue_length: int) -> None:
    """With opportunistic allocation on and NodeManagers that queue no OPPORTUNISTIC container (Hadoop's default
    queue length, 0), the OPPORTUNISTIC map is never allocated: the run stops naming the key. With room in the
    queues it runs to the end."""
    workload = _mixed_types()
    conf = {
        "yarn.resourcemanager.opportunistic-container-allocation.enabled": "true",
        "yarn.nodemanager.opportunistic-containers-max-queue-length": str(queue_length),
    }
    cluster = Cluster(conf, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run()
    if queue_length:
        assert cluster.stalled is None
        assert [a.state for a in cluster.applications] == [YarnApplicationState.FINISHED]
    else:
        assert cluster.stalled is not None
        assert "(1 OPPORTUNISTIC at priority 20) that nothing allocated for a whole check interval" in cluster.stalled
        assert "yarn.nodemanager.opportunistic-containers-max-queue-length is 0" in cluster.stalled


def test_a_synthetic_trace_with_opportunistic_maps_runs_to_the_end_without_opportunistic_allocation() -> None:
    """The synthetic trace asks for its OPPORTUNISTIC maps at priority 19: on a cluster without opportunistic
    allocation every job finishes."""
    nodes = synthetic_nodes(6)
    jobs = synthetic_jobs(
        12, nodes, 4, opportunistic_fraction=0.3, maps=(1, 8), reduces=(0, 3), map_ms=(1000, 9000),
        reduce_ms=(1000, 6000), load=2.0,
    )  # fmt: skip
    cluster = Cluster({}, nodes, seed=4)
    cluster.submit_jobs(jobs)
    cluster.run()
    assert cluster.stalled is None
    assert [a.state for a in cluster.applications] == [YarnApplicationState.FINISHED] * 12


class StrictAM(OneContainerAM):
    """A user's AM that asks for one container on ``node0`` only (relax_locality false), naming ``racks``."""

    def __init__(self, racks: tuple[str, ...]) -> None:
        super().__init__(name="strict")
        self.racks = racks

    def on_registered(self, response: Any) -> None:
        self.add_container_request(
            Resource(1024, 1), priority=1, nodes=("node0",), racks=self.racks, relax_locality=False
        )


@pytest.mark.parametrize("racks", [(), ("/rack0",)])
def test_a_strict_ask_no_node_can_take_stalls_and_names_what_it_asks_for(racks: tuple[str, ...]) -> None:
    """A node-local ask that does not relax locality goes on its node only with an ask for the node's rack too
    (RegularContainerAllocator.canAssign; Hadoop's AMRMClient adds the rack itself with its RackResolver). Without
    one no node can ever take it: the run stops and names the node asked for. With it the job finishes."""
    workload = WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8).build()
    assert {n.rack for n in workload.nodes} == {"/rack0"}
    cluster = Cluster({}, workload.nodes, seed=1)
    cluster.submit(StrictAM(racks))
    cluster.run()
    if racks:
        assert cluster.stalled is None
        assert [a.state for a in cluster.applications] == [YarnApplicationState.FINISHED]
    else:
        assert cluster.stalled is not None
        assert "asks for 1 x <memory:1024, vCores:1> at priority 1 only on node0, but no node can take it" in (
            cluster.stalled
        )
        assert [a.state for a in cluster.applications] == [YarnApplicationState.RUNNING]
