"""Asks larger than the maximum allocation end a run: a MapReduce-style AM kills its own job (as
RMContainerAllocator does), and an AM that does not stops the run by the stall rule, naming the application and the
ask; a run that is only slow goes on."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from am_helpers import OneContainerAM

# every run here stops within a simulated day, or fails (the autouse fixture of the stall tests)
from test_stalled_runs import _fails_after_a_day  # noqa: F401

from yarnball import Cluster
from yarnball.launcher import cli
from yarnball.launcher._outputs import MetricsRecorder, build_summary
from yarnball.launcher._simulate import run_status
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import FinalApplicationStatus, Resource, YarnApplicationState

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "examples" / "traces" / "sample-sls.json"
NODES = ROOT / "examples" / "traces" / "sample-nodes.json"
#: 3 GB nodes, 4 GB task containers, a configured maximum allocation of 8 GB.
OVERSIZED = [
    "--conf", "yarn.sls.nm.memory.mb=3072",
    "--conf", "yarn.sls.container.memory.mb=4096",
    "--conf", "yarn.scheduler.maximum-allocation-mb=8192",
]  # fmt: skip
MAX_8G = {"yarn.scheduler.maximum-allocation-mb": "8192"}
MAP_DIAG = (
    "The required MAP capability is more than the supported max container capability in the cluster. Killing the "
    "Job. mapResourceRequest: <memory:4096, vCores:1> maxContainerCapability:<memory:3072, vCores:4>\n"
    "Job received Kill while in RUNNING state.\n"
)


def _simulate(tmp_path: Path, capsys: Any, *extra: str) -> tuple[int, str, Path]:
    out = tmp_path / "out"
    argv = ["simulate", "--tracelocation", str(TRACE), "--nodes", str(NODES), "--output-dir", str(out),
            "--no-plots", "--no-progress", *OVERSIZED, *extra]  # fmt: skip
    status = cli.main(argv)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("yarnball: error:")]
    assert len(lines) == 1
    return status, lines[0], out


def test_mapreduce_ams_kill_jobs_whose_maps_exceed_the_maximum(tmp_path: Path, capsys: Any) -> None:
    """The README's run with 3 GB nodes and 4 GB tasks, the AMs registering after the RM's first scheduling-wait-ms:
    each job ends KILLED with RMContainerAllocator's diagnostics, and the run exits 3 as when no job finished."""
    status, line, out = _simulate(
        tmp_path, capsys, "--conf", "yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms=0"
    )
    assert status == 3
    assert "no application finished: 40 submitted, 0 failed, 40 killed" in line
    summary = json.loads((out / "summary.json").read_text())
    assert summary["applications"]["killed"] == 40 and "stalled" not in summary["errors"]
    with (out / "metrics" / "applications.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 40
    assert {(r["final_status"], r["diagnostics"]) for r in rows} == {("KILLED", MAP_DIAG)}


def test_the_reproduction_ends_with_the_blocked_applications_named(tmp_path: Path, capsys: Any) -> None:
    """The same run with the RM's default 10 s of configured maximum: the first AMs register inside it (their asks
    are taken, and fit no node), the others wait for the AM room those hold; the run stops and names them."""
    status, line, out = _simulate(tmp_path, capsys)
    assert status == 3
    assert "application_1700000000000_0001 (queue root.default) asks for 7 x <memory:4096, vCores:1>" in line
    assert "but the largest node, node0, has <memory:3072, vCores:10>" in line
    assert "(7 other applications blocked alike, 32 waiting behind them)" in line
    summary = json.loads((out / "summary.json").read_text())
    assert summary["errors"]["stalled"] in line and summary["simulated_seconds"] <= 180


def test_a_reduce_larger_than_the_maximum_kills_the_job_before_any_map_runs() -> None:
    """Maps fit, reduces do not: the job is killed at registration with the REDUCE wording; no map runs."""
    workload = (
        WorkloadBuilder()
        .nodes(2, memory_mb=3072, vcores=8)
        .job("j", submit_ms=20_000, tasks=[task_spec(2, 5_000), task_spec(1, memory_mb=4096, task_type="reduce")])
        .build()
    )
    cluster = Cluster(MAX_8G, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.run()
    (app,) = cluster.applications
    assert app.final_status is FinalApplicationStatus.KILLED
    assert app.diagnostics == (
        "REDUCE capability required is more than the supported max container capability in the cluster. Killing the "
        "Job. reduceResourceRequest: <memory:4096, vCores:1> maxContainerCapability:<memory:3072, vCores:4>\n"
        "Job received Kill while in RUNNING state.\n"
    )
    assert cluster.rm.counters["containers_allocated"] == 1  # its AM container only
    assert cluster.stalled is None


class OversizedAM(OneContainerAM):
    """A user's AM that asks for one container of ``ask`` and runs it, without reading the register response."""

    def __init__(self, ask: Resource, **kw: Any) -> None:
        super().__init__(name="oversized", **kw)
        self.ask = ask

    def on_registered(self, response: Any) -> None:
        self.add_container_request(self.ask, priority=1)


def _run_status(cluster: Cluster) -> tuple[int, str | None]:
    recorder = MetricsRecorder(cluster, 1000)
    recorder.start()
    cluster.run()
    return run_status(build_summary(cluster, recorder, wall_seconds=1.0, seed=1))


def test_a_user_am_whose_ask_is_refused_stops_the_run_by_the_stall_rule() -> None:
    """After the RM's first 10 s, a 4 GB ask on 3 GB nodes is refused at every allocate; the AM keeps running and
    asks nothing else: the run stops (exit 3), naming the application and the refused ask."""
    workload = WorkloadBuilder().nodes(2, memory_mb=3072, vcores=8).build()
    cluster = Cluster(MAX_8G, workload.nodes, seed=1)
    cluster.submit(OversizedAM(Resource(4096, 1), submit_at_ms=20_000))
    status, reason = _run_status(cluster)
    assert status == 3 and reason is not None and cluster.stalled is not None and cluster.stalled in reason
    assert "application_1700000000000_0001 (queue root.default) had its ask refused: Invalid resource request!" in (
        cluster.stalled
    )
    assert "Requested resource=<memory:4096, vCores:1>" in cluster.stalled
    assert cluster.applications[0].state is YarnApplicationState.RUNNING


def test_a_user_am_whose_ask_fits_no_node_stops_the_run_by_the_stall_rule() -> None:
    """Inside the RM's first 10 s the same ask is taken (the configured maximum applies) and can never be given."""
    workload = WorkloadBuilder().nodes(2, memory_mb=3072, vcores=8).build()
    cluster = Cluster(MAX_8G, workload.nodes, seed=1)
    cluster.submit(OversizedAM(Resource(4096, 1)))
    status, reason = _run_status(cluster)
    assert status == 3 and reason is not None and cluster.stalled is not None and cluster.stalled in reason
    assert "all that runs is the AM containers of applications whose every pending ask" in cluster.stalled
    assert "application_1700000000000_0001 (queue root.default) asks for 1 x <memory:4096, vCores:1> at priority 1" in (
        cluster.stalled
    )


class PatientAM(OneContainerAM):
    """A user's AM that holds only its AM container for ``wait_ms``, then asks for a container that fits."""

    def __init__(self, wait_ms: float, **kw: Any) -> None:
        super().__init__(name="patient", **kw)
        self.wait_ms = wait_ms

    def on_registered(self, response: Any) -> None:
        self.after(self.wait_ms, lambda: self.add_container_request(Resource(1024, 1), priority=1))


def test_slow_runs_are_not_stopped() -> None:
    """An AM that holds only its AM container and asks nothing for 10 minutes, beside a job whose tasks run for
    5 minutes (longer than a stall check's slice): both finish, the run is not judged stuck."""
    workload = (
        WorkloadBuilder()
        .nodes(2, memory_mb=3072, vcores=8)
        .job("slow", tasks=[task_spec(2, 300_000)])
        .build()
    )
    cluster = Cluster({**MAX_8G, "yarn.scheduler.capacity.maximum-am-resource-percent": "1.0"}, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    patient = cluster.submit(PatientAM(600_000))
    cluster.run()
    assert cluster.stalled is None
    assert [a.state for a in cluster.applications] == [YarnApplicationState.FINISHED] * 2
    assert patient.registered_at is not None and cluster.now >= patient.registered_at + 600_000


FAIR = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"


def _fair_cluster(tmp_path: Path, queue_xml: str) -> Cluster:
    allocations = tmp_path / "fair-scheduler.xml"
    allocations.write_text(f"<?xml version='1.0'?>\n<allocations>{queue_xml}</allocations>\n")
    workload = WorkloadBuilder().nodes(2, memory_mb=3072, vcores=8).build()
    conf = {**MAX_8G, "yarn.resourcemanager.scheduler.class": FAIR}
    conf["yarn.scheduler.fair.allocation.file"] = str(allocations)
    return Cluster(conf, workload.nodes, seed=1)


def test_the_stall_rule_names_the_fair_schedulers_queue(tmp_path: Path) -> None:
    """On the FairScheduler the blocked application is named with the leaf queue the placement rules chose."""
    cluster = _fair_cluster(tmp_path, "<queue name='etl'/>")
    cluster.submit(OversizedAM(Resource(4096, 1), queue="etl"))
    status, reason = _run_status(cluster)
    assert status == 3 and reason is not None and cluster.stalled is not None
    assert "application_1700000000000_0001 (queue root.etl) asks for 1 x <memory:4096, vCores:1>" in cluster.stalled
    assert "but the largest node, node0, has <memory:3072, vCores:8>" in cluster.stalled


def test_the_stall_rule_bounds_a_fair_queue_by_its_max_resources(tmp_path: Path) -> None:
    """An ask that fits a node but not its queue's maxResources can never be given: the run stops, naming the
    queue's maximum (``FSQueue.getMaxShare``)."""
    cluster = _fair_cluster(tmp_path, "<queue name='small'><maxResources>2048 mb, 8 vcores</maxResources></queue>")
    cluster.submit(OversizedAM(Resource(3072, 1), queue="small"))
    status, reason = _run_status(cluster)
    assert status == 3 and reason is not None and cluster.stalled is not None
    assert "(queue root.small) asks for 1 x <memory:3072, vCores:1> at priority 1" in cluster.stalled
    assert "but queue root.small may hold at most <memory:2048, vCores:8>" in cluster.stalled
