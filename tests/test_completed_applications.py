"""yarn.resourcemanager.max-completed-applications: the RM keeps its newest finished applications only (Hadoop's
RMAppManager.checkAppNumCompletedLimit), REST answers as Hadoop's, and the run's outputs still list every job."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher._outputs import MetricsRecorder, write_outputs
from yarnball.launcher.workloads import Workload, synthetic_workload
from yarnball.protocols import Configuration, YarnApplicationState, keys
from yarnball.testing import conservation_violations

LIMIT = keys.RM_MAX_COMPLETED_APPLICATIONS
STORE_LIMIT = keys.RM_STATE_STORE_MAX_COMPLETED_APPLICATIONS


@pytest.fixture(scope="module")
def workload() -> Workload:
    """12 short MapReduce jobs on 6 nodes, arriving faster than they finish."""
    return synthetic_workload(12, 6, 4, maps=(1, 6), reduces=(0, 2), map_ms=(1_000, 5_000), reduce_ms=(1_000, 4_000))


def _run(workload: Workload, out: Path, conf: dict[str, str]) -> Cluster:
    cluster = Cluster(Configuration(conf), workload.nodes, seed=1)
    cluster.submit_workload(workload)
    recorder = MetricsRecorder(cluster, 1000)
    recorder.start()
    cluster.run()
    write_outputs(out, cluster, recorder, wall_seconds=1.0, seed=1, workload=workload, plots=False)
    return cluster


def _outputs(out: Path) -> dict[str, Any]:
    summary = json.loads((out / "summary.json").read_text())
    for key in ("wall_seconds", "speedup"):
        summary.pop(key)
    return {
        "summary": summary,
        "jobruntime": (out / "jobruntime.csv").read_text(),
        "applications": (out / "metrics" / "applications.csv").read_text(),
    }


@pytest.fixture(scope="module")
def runs(workload: Workload, tmp_path_factory: pytest.TempPathFactory) -> tuple[Cluster, Path, Path]:
    kept = tmp_path_factory.mktemp("kept")
    limited = tmp_path_factory.mktemp("limited")
    _run(workload, kept, {})
    cluster = _run(workload, limited, {LIMIT: "5"})
    return cluster, kept, limited


def test_the_rm_keeps_the_newest_finished_applications(runs: tuple[Cluster, Path, Path]) -> None:
    """With a limit of 5 the RM holds the 5 applications that finished last, and their attempts only."""
    cluster, _, _ = runs
    rm = cluster.rm
    assert rm.apps_done == 12 and len(rm.apps) == 5
    removed = cluster.completed.apps.values()  # (what the outputs keep of them)
    assert len(removed) == 7
    assert max(a.finish_time for a in removed) <= min(a.finish_time for a in rm.apps.values())
    assert {a.application_id for a in rm.attempts} == set(rm.apps)
    assert len(cluster.applications) == 5  # the client protocol's getApplications
    assert not conservation_violations(cluster)


def test_outputs_list_every_job_whatever_the_rm_removed(runs: tuple[Cluster, Path, Path]) -> None:
    """jobruntime.csv, metrics/applications.csv and summary.json are those of a run that removed nothing."""
    _, kept, limited = runs
    assert _outputs(limited) == _outputs(kept)
    assert _outputs(limited)["applications"].count("\n") == 13  # header + every job


def test_a_removed_application_releases_its_am(runs: tuple[Cluster, Path, Path]) -> None:
    """The finished AMs of removed applications leave the kernel and the cluster's masters; the jobs their tasks."""
    cluster, _, _ = runs
    assert len(cluster.masters) == 5 and cluster.submitted == 12
    names = {app.context.application_name for app in cluster.rm.apps.values()}
    assert {am.name for am in cluster.masters} == names
    assert sum(1 for actor_id in cluster.kernel.actors if actor_id.startswith("am-")) == 5
    assert [job_id for job_id, job in cluster.jobs.items() if job.tasks] == sorted(names)


def test_rest_shows_the_kept_applications_and_404s_a_removed_one(runs: tuple[Cluster, Path, Path]) -> None:
    """/ws/v1/cluster/apps lists the 5 kept (finished) applications; a removed one's lookup is Hadoop's 404."""
    pytest.importorskip("aiohttp")
    from aiohttp.test_utils import TestClient, TestServer

    from yarnball.launcher.web._driver import StaticSource
    from yarnball.launcher.web._server import build_app
    from yarnball.launcher.web._snapshot import take_snapshot

    cluster, _, _ = runs
    removed = str(min(cluster.completed.apps, key=lambda a: a.id))

    async def go() -> tuple[Any, int, Any]:
        async with TestClient(TestServer(build_app(StaticSource(take_snapshot(cluster, done=True))))) as client:
            apps = await (await client.get("/ws/v1/cluster/apps")).json()
            r = await client.get(f"/ws/v1/cluster/apps/{removed}")
            return apps, r.status, await r.json()

    apps, status, body = asyncio.run(go())
    listed = apps["apps"]["app"]
    assert len(listed) == 5 and {a["state"] for a in listed} == {"FINISHED"}
    assert status == 404
    assert body["RemoteException"]["message"] == f"java.lang.Exception: app with id: {removed} not found"


def test_zero_keeps_no_finished_application(workload: Workload, tmp_path: Path) -> None:
    """A limit of 0 removes each application as it finishes; the run still ends when all have."""
    cluster = _run(workload, tmp_path, {LIMIT: "0"})
    assert cluster.rm.apps_done == 12 and not cluster.rm.apps and not cluster.masters
    assert (tmp_path / "jobruntime.csv").read_text().count("\n") == 13


def test_the_state_store_keeps_at_most_its_own_limit(workload: Workload, tmp_path: Path) -> None:
    """With recovery on, the state store keeps the newest state-store.max-completed-applications (3) finished
    applications, the RM the newest max-completed-applications (5)."""
    conf = {keys.RECOVERY_ENABLED: "true", LIMIT: "5", STORE_LIMIT: "3"}
    cluster = _run(workload, tmp_path, conf)
    stored = cluster.rm.restarts.store.load_state().applications
    kept = sorted(cluster.rm.apps.values(), key=lambda a: a.finish_time)
    assert len(kept) == 5
    assert {d.context.application_id for d in stored} == {a.id for a in kept[2:]}
    assert all(d.state == YarnApplicationState.FINISHED.value for d in stored)


def test_the_state_store_never_keeps_more_than_the_rm(workload: Workload, tmp_path: Path) -> None:
    """state-store.max-completed-applications above max-completed-applications is capped to it (RMAppManager)."""
    conf = {keys.RECOVERY_ENABLED: "true", LIMIT: "2", STORE_LIMIT: "8"}
    cluster = _run(workload, tmp_path, conf)
    assert cluster.rm.app_manager.max_completed_in_store == 2
    assert len(cluster.rm.restarts.store.load_state().applications) == 2


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        (LIMIT, "-1", "an integer >= 0"),
        (LIMIT, "many", "expected an integer"),
        (LIMIT, "2.5", "expected an integer"),
        (STORE_LIMIT, "-3", "an integer >= 0"),
    ],
)
def test_bad_limits_are_refused_naming_the_key(key: str, value: str, expected: str) -> None:
    """A negative limit (which stops Hadoop's RM at the first finished application) or a non-integer (Hadoop's
    Configuration.getInt: NumberFormatException at start) is a configuration error naming the key."""
    with pytest.raises(ConfigurationError, match=expected) as caught:
        Cluster(Configuration({key: value}), synthetic_workload(1, 1).nodes)
    assert key in str(caught.value)
