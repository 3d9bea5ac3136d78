"""``yarnball simulate`` with the FairScheduler: SLS's sample configuration (which selects it) runs inputsls.json to the
end, twice byte-identically, with every output; the REST scheduler info is FairSchedulerInfo; a bad allocation file
exits 2 naming the file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from yarnball.launcher import cli


def _simulate(out: Path, sls: Path, conf_dir: Path, *extra: str) -> int:
    argv = ["simulate", "--tracetype", "SLS", "--tracelocation", str(sls / "inputsls.json"), "--nodes",
            str(sls / "nodes.json"), "--conf-dir", str(conf_dir), "--seed", "7", "--output-dir", str(out),
            "--no-progress", "--no-plots", *extra]  # fmt: skip
    return cli.main(argv)


def _files(out: Path) -> dict[str, bytes]:
    skip = ("summary.json", "_yarnball_run.json")
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name not in skip and "timecost" not in p.name
    }


def test_sls_sample_conf_runs_the_fair_scheduler_deterministically(tmp_path: Path, shared_data: Path) -> None:
    sls = shared_data / "sls"
    a, b = tmp_path / "a", tmp_path / "b"
    assert _simulate(a, sls, sls / "sample-conf") == 0
    assert _simulate(b, sls, sls / "sample-conf") == 0
    apps = json.loads((a / "summary.json").read_text())["applications"]
    assert apps["submitted"] == apps["finished"] > 0, apps
    assert _files(a) == _files(b)
    queues = (a / "metrics" / "queues.csv").read_text()
    assert "root.sls_queue_1" in queues  # the allocation file's queues


def test_rest_scheduler_info_is_fair_scheduler_info(shared_data: Path) -> None:
    from yarnball.launcher.web._schedulerinfo import scheduler_info
    from yarnball.policies.scheduler import create_scheduler
    from yarnball.protocols import Configuration

    conf = Configuration.from_conf_dir(shared_data / "sls" / "sample-conf")

    class _Cluster:
        class rm:
            scheduler = create_scheduler(conf, cluster_timestamp=1)

    info = scheduler_info(_Cluster(), {}, preemption=False)["schedulerInfo"]
    assert info["type"] == "fairScheduler"
    children = [q["queueName"] for q in info["rootQueue"]["childQueues"]["queue"]]
    assert children == ["root.sls_queue_1", "root.sls_queue_2", "root.sls_queue_3"]
    leaf = info["rootQueue"]["childQueues"]["queue"][0]
    assert leaf["type"] == "fairSchedulerLeafQueueInfo" and leaf["minResources"]["memory"] == 1024


def test_a_bad_allocation_file_exits_2_naming_the_file(tmp_path: Path, shared_data: Path, capsys: Any) -> None:
    sls = shared_data / "sls"
    conf_dir = tmp_path / "conf"
    shutil.copytree(sls / "sample-conf", conf_dir)
    (conf_dir / "fair-scheduler.xml").write_text("<allocations><queue name='a.b'/></allocations>")
    assert _simulate(tmp_path / "out", sls, conf_dir) == 2
    err = capsys.readouterr().err
    assert "fair-scheduler.xml" in err and "shouldn't contain period" in err


def test_web_snapshot_of_a_fair_scheduler_run() -> None:
    """The web layer on a FairScheduler run: FairSchedulerInfo, and a scheduler page that lists the queues."""
    from web_helpers import build_cluster

    from yarnball.launcher.web._fairpage import scheduler_queue_tree as queue_tree
    from yarnball.launcher.web._snapshot import take_snapshot
    from yarnball.protocols import Configuration, keys

    cluster, _ = build_cluster(Configuration({keys.RM_SCHEDULER: "FairScheduler"}))
    cluster.run()
    snap = take_snapshot(cluster, done=True)
    info = snap.scheduler["schedulerInfo"]
    assert info["type"] == "fairScheduler" and snap.metrics["appsCompleted"] == 40
    html = queue_tree(info)
    assert '<div id="cs">' in html  # FairSchedulerPage's queue box (tests/test_web_fair.py)
    assert all(f"'{q['queueName']}' Queue Status" in html for q in info["rootQueue"]["childQueues"]["queue"])
