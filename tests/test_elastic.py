"""The elastic cluster's autoscaler: upscale after the wait, downscale idle stateless nodes after the cooldown."""

from __future__ import annotations

import json
from typing import Any

import pytest

from yarnball import Cluster, ConfigurationError
from yarnball.launcher._elastic import (
    ELASTIC_DOWNSCALE_COOLDOWN_MS,
    ELASTIC_ENABLED,
    ELASTIC_MAX_NODES,
    ELASTIC_MIN_NODES,
    ELASTIC_UPSCALE_WAIT_MS,
    ElasticConfig,
    node_hours,
)
from yarnball.launcher._outputs import MetricsRecorder, write_outputs
from yarnball.launcher.workloads import WorkloadBuilder, task_spec

GB = 1024
CONF = {"yarn.scheduler.capacity.maximum-am-resource-percent": "1.0"}


def _cluster(nodes: int, jobs: list[tuple[str, int, int, int]], **elastic: Any) -> Cluster:
    """``jobs`` are (name, submit ms, tasks, task ms); nodes hold 10 one-GB containers."""
    b = WorkloadBuilder().nodes(nodes, memory_mb=10 * GB, vcores=10)
    for name, submit, count, ms in jobs:
        b.job(name, submit_ms=submit, tasks=[task_spec(count, ms)])
    wl = b.build()
    settings = {"check_interval_ms": 10_000, "node_startup_ms": 0, **elastic}
    cluster = Cluster(CONF, wl.nodes, seed=2, elastic=ElasticConfig(**settings))
    cluster.submit_workload(wl)
    return cluster


def test_no_upscale_before_the_wait() -> None:
    """Requests waiting less than upscale_wait_ms add no node."""
    cluster = _cluster(1, [("big", 0, 30, 600_000)], upscale_wait_ms=180_000, max_nodes=5)
    cluster.run(until_ms=175_000)
    assert cluster.autoscaler is not None
    assert cluster.autoscaler.nodes_added == 0


def test_upscale_after_the_wait() -> None:
    """Once requests have waited upscale_wait_ms, nodes are added for the waiting demand."""
    cluster = _cluster(1, [("big", 0, 30, 600_000)], upscale_wait_ms=180_000, max_nodes=5)
    cluster.run(until_ms=215_000)
    autoscaler = cluster.autoscaler
    assert autoscaler is not None
    (event,) = autoscaler.events
    assert event["action"] == "upscale"
    assert 180_000 <= event["time_ms"] <= 200_000
    assert event["nodes"] == 4  # 21 containers still waiting on a full node: three more 10-slot nodes


def test_upscale_capped_by_max_nodes() -> None:
    """The cluster never grows past max_nodes."""
    cluster = _cluster(1, [("big", 0, 80, 600_000)], upscale_wait_ms=60_000, max_nodes=3)
    cluster.run(until_ms=900_000)
    assert cluster.autoscaler is not None
    assert cluster.autoscaler.peak_nodes == 3
    assert len(cluster.scheduler.nodes) <= 3


def test_added_nodes_register_after_startup() -> None:
    """An added node is billed at once and joins the scheduler after node_startup_ms."""
    cluster = _cluster(1, [("big", 0, 30, 600_000)], upscale_wait_ms=60_000, max_nodes=2, node_startup_ms=120_000)
    cluster.run(until_ms=100_000)
    assert cluster.autoscaler is not None
    assert cluster.autoscaler.alive() == ["node0", "elastic1"]
    assert [n.host for n in cluster.scheduler.nodes] == ["node0"]
    cluster.run(until_ms=200_000)
    assert sorted(n.host for n in cluster.scheduler.nodes) == ["elastic1", "node0"]


def test_downscale_waits_for_the_cooldown() -> None:
    """An idle node is kept until it has been idle for downscale_cooldown_ms."""
    cluster = _cluster(4, [("one", 0, 1, 3_600_000)], downscale_cooldown_ms=120_000)
    cluster.run(until_ms=115_000)
    assert cluster.autoscaler is not None
    assert cluster.autoscaler.nodes_removed == 0
    cluster.run(until_ms=200_000)
    assert cluster.autoscaler.nodes_removed > 0


def test_downscale_removes_only_empty_stateless_nodes() -> None:
    """Nodes running the job's AM or task (its state) stay; the idle ones leave."""
    cluster = _cluster(4, [("one", 0, 1, 3_600_000)], downscale_cooldown_ms=60_000)
    cluster.run(until_ms=600_000)
    rm = cluster.rm
    (app,) = rm.apps.values()
    busy = {nid.host for nid in app.nodes}
    assert cluster.autoscaler is not None
    kept = set(cluster.autoscaler.alive())
    assert busy <= kept
    assert kept == busy
    assert {n.host for n in cluster.scheduler.nodes} == busy


def test_downscale_goes_through_node_removal() -> None:
    """A downscaled node unregisters: the scheduler sees NODE_REMOVED and the NodeManager stops."""
    cluster = _cluster(3, [("one", 0, 1, 3_600_000)], downscale_cooldown_ms=30_000)
    nms = dict(cluster.node_managers)
    cluster.run(until_ms=300_000)
    assert cluster.autoscaler is not None
    removed = [h for e in cluster.autoscaler.events if e["action"] == "downscale" for h in e["hosts"]]
    assert removed
    assert cluster.rm.counters["nodes_shutdown"] == len(removed)
    for host in removed:
        assert all(nid.host != host for nid in cluster.scheduler.nodes)
        assert host not in cluster.node_managers
        assert not nms[host].ref.is_alive


def test_downscale_keeps_min_nodes() -> None:
    """However idle, the cluster keeps min_nodes nodes."""
    cluster = _cluster(5, [("late", 1_800_000, 1, 10_000)], downscale_cooldown_ms=60_000, min_nodes=2)
    cluster.run(until_ms=900_000)
    assert cluster.autoscaler is not None
    assert len(cluster.autoscaler.alive()) == 2
    assert len(cluster.scheduler.nodes) == 2


def test_node_hours_follow_the_ledger() -> None:
    """Node-hours add each node's billed time: 5 nodes for the first minute, then 2 nodes."""
    cluster = _cluster(5, [("late", 7_200_000, 1, 10_000)], downscale_cooldown_ms=50_000, min_nodes=2)
    cluster.run(until_ms=3_600_000)
    assert cluster.autoscaler is not None
    (event,) = cluster.autoscaler.events
    t = event["time_ms"]
    assert node_hours(cluster) == pytest.approx((5 * t + 2 * (3_600_000 - t)) / 3_600_000)


def test_static_cluster_node_hours() -> None:
    """Without an autoscaler node-hours are nodes times the run's length."""
    wl = WorkloadBuilder().nodes(3).job("j", tasks=[task_spec(2, 30_000)]).build()
    cluster = Cluster(CONF, wl.nodes, seed=1)
    cluster.submit_workload(wl)
    end = cluster.run()
    assert cluster.autoscaler is None
    assert node_hours(cluster) == pytest.approx(3 * end / 3_600_000)


def test_summary_json_has_node_hours(tmp_path: Any) -> None:
    """summary.json gains node_hours and the autoscaler's report."""
    cluster = _cluster(5, [("one", 0, 2, 300_000)], downscale_cooldown_ms=30_000)
    recorder = MetricsRecorder(cluster)
    recorder.start()
    cluster.run()
    summary = write_outputs(tmp_path, cluster, recorder, wall_seconds=1.0, seed=2, plots=False)
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk["node_hours"] == summary["node_hours"] == pytest.approx(node_hours(cluster), abs=1e-6)
    assert on_disk["elastic"]["nodes_removed"] >= 1


def test_conf_keys_enable_the_autoscaler() -> None:
    """yarnball.elastic.* keys in the configuration attach an autoscaler with those values."""
    wl = WorkloadBuilder().nodes(2).build()
    conf = {ELASTIC_ENABLED: "true", ELASTIC_MIN_NODES: "1", ELASTIC_MAX_NODES: "7", ELASTIC_UPSCALE_WAIT_MS: "1000"}
    cluster = Cluster(conf, wl.nodes)
    assert cluster.autoscaler is not None
    assert (cluster.autoscaler.config.min_nodes, cluster.autoscaler.max_nodes) == (1, 7)
    assert cluster.autoscaler.config.upscale_wait_ms == 1000


def test_elastic_off_by_default() -> None:
    """Without yarnball.elastic.enabled there is no autoscaler."""
    assert Cluster(CONF, WorkloadBuilder().nodes(2).build().nodes).autoscaler is None


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (ELASTIC_MIN_NODES, "-1"),
        (ELASTIC_MAX_NODES, "0"),
        (ELASTIC_UPSCALE_WAIT_MS, "-5"),
        (ELASTIC_DOWNSCALE_COOLDOWN_MS, "soon"),
        ("yarnball.elastic.check-interval-ms", "0"),
        (ELASTIC_ENABLED, "maybe"),
    ],
)
def test_bad_elastic_values_name_the_key(key: str, value: str) -> None:
    """A bad yarnball.elastic.* value raises ConfigurationError naming the key."""
    conf = {ELASTIC_ENABLED: "true", key: value}
    with pytest.raises(ConfigurationError, match=key.replace(".", r"\.")):
        Cluster(conf, WorkloadBuilder().nodes(2).build().nodes)


def test_max_below_min_is_refused() -> None:
    """max_nodes below min_nodes is refused, naming max-nodes."""
    with pytest.raises(ConfigurationError, match="max-nodes"):
        ElasticConfig(min_nodes=4, max_nodes=2).validate()
