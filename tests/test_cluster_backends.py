"""Cluster is one class over a backend chosen by ``backend=``: the same type, constructor and API on every one."""

from __future__ import annotations

import pytest

from yarnball import Cluster
from yarnball.errors import SimulationError
from yarnball.launcher._embedded import EmbeddedBackend
from yarnball.launcher._sharded import ShardedBackend
from yarnball.launcher.workloads import WorkloadBuilder, task_spec

NODES = WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8).build().nodes


@pytest.mark.parametrize(
    ("options", "runtime"),
    [
        ({}, EmbeddedBackend),
        ({"backend": "inprocess"}, ShardedBackend),
        ({"backend": "inprocess", "hosts": 1}, ShardedBackend),
    ],
)
def test_every_backend_is_a_plain_cluster(options: dict[str, object], runtime: type) -> None:
    """Whatever the backend, the cluster is a Cluster itself (not a subclass), over the backend's implementation."""
    with Cluster(None, NODES, latency_ms=1, **options) as cluster:  # type: ignore[arg-type]
        assert type(cluster) is Cluster
        assert isinstance(cluster.runtime, runtime)
        assert cluster.backend == options.get("backend", "embedded")


def test_no_constructor_picks_a_subclass() -> None:
    """Cluster has no __new__ of its own: the backend is an object it holds, not the class it returns."""
    assert "__new__" not in vars(Cluster)


def test_the_same_calls_run_on_every_backend() -> None:
    """Building, running and inspecting through the same calls gives the same applications on each backend."""
    finals = []
    for options in ({}, {"backend": "inprocess", "hosts": 2}):
        builder = WorkloadBuilder().nodes(2, memory_mb=8192, vcores=8).job("j", tasks=[task_spec(2, 5_000)])
        workload = builder.build()
        with Cluster(None, workload.nodes, seed=2, latency_ms=1, **options) as cluster:  # type: ignore[arg-type]
            cluster.submit_workload(workload)
            end = cluster.run()
            finals.append((end, [(a.name, a.state, a.final_status) for a in cluster.applications]))
    assert finals[0] == finals[1]


def test_an_unknown_backend_is_named() -> None:
    """An unknown backend name is refused with the names that exist."""
    with pytest.raises(SimulationError, match=r"unknown backend 'rya'.*'embedded', 'inprocess', 'ray'"):
        Cluster(None, NODES, backend="rya")


def test_shard_options_are_refused_on_the_embedded_backend() -> None:
    """Options of the sharded backends given to the embedded one are named, not silently ignored."""
    with pytest.raises(SimulationError, match="hosts, placement: for the sharded backends"):
        Cluster(None, NODES, hosts=2, placement={"rm": 0})


def test_the_autoscaler_is_refused_on_the_sharded_backends() -> None:
    """elastic= needs the embedded backend, and says so."""
    from yarnball.launcher import ElasticConfig

    with pytest.raises(SimulationError, match="embedded backend only"):
        Cluster(None, NODES, backend="inprocess", elastic=ElasticConfig())


def test_what_one_backend_alone_has_is_reached_through_the_cluster() -> None:
    """The embedded kernel and RM, the sharded window statistics: reached through the cluster as before."""
    embedded = Cluster(None, NODES)
    assert embedded.kernel is embedded.runtime.kernel and embedded.rm is embedded.runtime.rm  # type: ignore[attr-defined]
    with Cluster(None, NODES, backend="inprocess", latency_ms=1) as sharded:
        assert sharded.hosts == 2 and sharded.window_stats()["hosts"] == 2
