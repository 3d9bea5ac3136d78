"""One shard host with no modelled latency skips idle heartbeats exactly as the embedded cluster does."""

from __future__ import annotations

from pathlib import Path

from yarnball.actors._logging import close_logging, configure_logging, merge_event_logs
from yarnball.launcher import Cluster
from yarnball.launcher._sharded import InProcessHosts, ShardedBackend
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import Configuration, keys
from yarnball.testing import captured_events


def build(backend: str, conf: Configuration | None = None, hosts: int = 1, latency_ms: float = 0) -> Cluster:
    builder = WorkloadBuilder().nodes(6, memory_mb=8192, vcores=8)
    for i in range(4):
        builder.job(f"j{i}", submit_ms=i * 3000, tasks=[task_spec(5, 20_000 + i * 1000)])
    workload = builder.build()
    extra = {} if backend == "embedded" else {"hosts": hosts}
    conf = conf or Configuration()
    cluster = Cluster(conf, workload.nodes, seed=3, backend=backend, latency_ms=latency_ms, **extra)
    cluster.submit_workload(workload)
    return cluster


def host_clock(cluster: Cluster) -> object:
    assert isinstance(cluster.runtime, ShardedBackend)
    group = cluster._start()
    assert isinstance(group, InProcessHosts)
    return group.views[0].host.heartbeats


def outcome(cluster: Cluster) -> tuple[object, ...]:
    apps = sorted((str(a.application_id), a.name, a.state.value, a.finish_time) for a in cluster.applications)
    return cluster.now, apps, cluster.counters


def test_one_host_at_zero_latency_skips_idle_heartbeats() -> None:
    """One host, latency 0: idle NM heartbeats are skipped (virtual), as on the embedded kernel."""
    with captured_events():
        sharded = build("inprocess")
        sharded.run(until_ms=3_600_000)
    clock = host_clock(sharded)
    assert clock.skip and clock.skip_am  # type: ignore[attr-defined]
    assert clock.virtual_count > 0  # type: ignore[attr-defined]


def test_one_host_at_zero_latency_equals_embedded_event_log(tmp_path: Path) -> None:
    """With skipping on both, one host's merged event log and results are byte-identical to embedded's."""
    configure_logging(json_path=tmp_path / "embedded.jsonl", level="debug")
    embedded = build("embedded")
    embedded.run(until_ms=3_600_000)
    close_logging()
    configure_logging(json_path=tmp_path / "raw.jsonl", level="debug", event_keys=True)
    sharded = build("inprocess")
    sharded.run(until_ms=3_600_000)
    close_logging()
    assert isinstance(sharded.runtime, ShardedBackend)
    # As ShardedBackend.merge_event_log does: one host's log is already in its kernel's execution order.
    merge_event_logs([tmp_path / "raw.jsonl"], tmp_path / "merged.jsonl", stop_key=sharded._query("stop_key"))
    expected = (tmp_path / "embedded.jsonl").read_bytes()
    assert expected.count(b"\n") > 20
    assert (tmp_path / "merged.jsonl").read_bytes() == expected
    assert outcome(sharded) == outcome(embedded)


def test_skipping_stays_off_when_the_configuration_turns_it_off() -> None:
    """The skip keys are honoured on one host as on the embedded cluster."""
    conf = Configuration(
        {keys.SIMULATION_SKIP_IDLE_HEARTBEATS: "false", keys.SIMULATION_SKIP_IDLE_AM_HEARTBEATS: "false"}
    )
    with captured_events():
        sharded = build("inprocess", conf)
        sharded.run(until_ms=3_600_000)
    clock = host_clock(sharded)
    assert not clock.skip and not clock.skip_am  # type: ignore[attr-defined]
    assert clock.virtual_count == 0  # type: ignore[attr-defined]


def test_two_hosts_never_skip() -> None:
    """With a latency between hosts heartbeats are not atomic, so none is skipped."""
    with captured_events():
        sharded = build("inprocess", hosts=2, latency_ms=1)
        sharded.run(until_ms=3_600_000)
    clock = host_clock(sharded)
    assert not clock.skip and clock.virtual_count == 0  # type: ignore[attr-defined]
