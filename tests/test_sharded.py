"""Shard hosts without Ray: placement, batch envelopes, windows, and results equal to the embedded kernel's."""

from __future__ import annotations

import zlib
from pathlib import Path

import msgspec
import pytest

from yarnball.actors._logging import close_logging, configure_logging, merge_event_logs
from yarnball.errors import ActorError, ProtocolError, SimulationError
from yarnball.launcher import Cluster
from yarnball.launcher._shard import BalancedPlacement, ShardHost, decode_envelope, encode_envelope, host_of
from yarnball.launcher._sharded import HostGroup, ShardedBackend, WindowResult
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.protocols import Configuration, NodeHeartbeatRequest, NodeId, keys
from yarnball.protocols._resourcetracker import NodeStatus
from yarnball.testing import captured_events


def build(backend: str, hosts: int = 2, latency_ms: float = 1) -> Cluster:
    builder = WorkloadBuilder().nodes(6, memory_mb=8192, vcores=8)
    for i in range(4):
        builder.job(f"j{i}", submit_ms=i * 3000, tasks=[task_spec(5, 20_000 + i * 1000)])
    workload = builder.build()
    extra = {} if backend == "embedded" else {"hosts": hosts}
    cluster = Cluster(Configuration(), workload.nodes, seed=3, backend=backend, latency_ms=latency_ms, **extra)
    cluster.submit_workload(workload)
    return cluster


def outcome(cluster: Cluster) -> tuple[object, ...]:
    apps = sorted((str(a.application_id), a.name, a.state.value, a.finish_time) for a in cluster.applications)
    return cluster.now, apps, cluster.counters


def heartbeat(host: str) -> NodeHeartbeatRequest:
    return NodeHeartbeatRequest(node_status=NodeStatus(node_id=NodeId(host, 0), response_id=0))


def test_unplaced_ids_go_by_a_stable_crc32_with_the_rm_on_host_0() -> None:
    """An id the driver did not place goes to CRC-32 of the id modulo the host count; the RM is always on host 0."""
    assert host_of("rm", 4) == 0
    assert host_of("nm-node7", 4) == zlib.crc32(b"nm-node7") % 4
    assert {host_of(f"nm-node{i}", 3) for i in range(30)} == {0, 1, 2}


@pytest.mark.parametrize(("hosts", "expected"), [(2, [25, 75]), (3, [0, 50, 50]), (5, [0, 25, 25, 25, 25])])
def test_balanced_placement_gives_each_host_its_share_and_the_rm_host_to_itself(
    hosts: int, expected: list[int]
) -> None:
    """NMs and AMs are spread by target share, each kind on its own: with 2 hosts a quarter of each beside the RM,
    with 3 or more none beside it; the same sequence of calls gives the same hosts."""
    first, second = BalancedPlacement(hosts), BalancedPlacement(hosts)
    order = ["nm"] * 60 + ["am"] * 20 + ["nm"] * 40 + ["am"] * 80
    placed = [first.place(kind) for kind in order]
    assert placed == [second.place(kind) for kind in order]
    for kind in ("nm", "am"):
        counts = [sum(1 for k, h in zip(order, placed, strict=True) if k == kind and h == i) for i in range(hosts)]
        assert counts == expected


def test_balanced_placement_refuses_a_share_outside_0_1() -> None:
    with pytest.raises(SimulationError, match=r"yarnball.ray.rm-host-share=1.5: expected a share"):
        Cluster(Configuration({keys.RAY_RM_HOST_SHARE: "1.5"}), backend="inprocess", hosts=2)


@pytest.mark.parametrize(("hosts", "share", "rm_alone"), [(2, "0.25", False), (2, "0", True), (3, "0.25", True)])
def test_runs_place_nms_and_ams_by_share_with_the_same_results(hosts: int, share: str, rm_alone: bool) -> None:
    """The driver's placement reaches every host: with 3 hosts (or share 0) host 0 runs the RM alone and the other
    hosts split the 6 NMs and 4 AMs evenly; results equal the embedded run's."""
    builder = WorkloadBuilder().nodes(6, memory_mb=8192, vcores=8)
    for i in range(4):
        builder.job(f"j{i}", submit_ms=i * 3000, tasks=[task_spec(5, 20_000 + i * 1000)])
    workload = builder.build()
    conf = Configuration({keys.RAY_RM_HOST_SHARE: share})
    with captured_events():
        embedded = build("embedded")
        embedded.run(until_ms=3_600_000)
        sharded = Cluster(conf, workload.nodes, seed=3, backend="inprocess", latency_ms=1, hosts=hosts)
        sharded.submit_workload(workload)
        sharded.run(until_ms=3_600_000)
    assert outcome(sharded) == outcome(embedded)
    assert isinstance(sharded.runtime, ShardedBackend)
    actors = [s["actors"] for s in sharded.host_stats()]
    if rm_alone:
        assert actors[0] == 1  # the RM
        assert actors[1:] == [10 // (hosts - 1)] * (hosts - 1)
    else:
        assert actors[0] > 1 and actors[1] > actors[0]


def test_envelope_round_trips_in_canonical_order() -> None:
    """A batch is sorted by (deliver time, origin, sequence) and decodes to the same routed messages."""
    items = [
        (5.0, "nm-b", 0, "rm", "nm-b", heartbeat("b")),
        (5.0, "nm-a", 3, "rm", "nm-a", heartbeat("a")),
        (4.0, "nm-z", 1, "rm", None, heartbeat("z")),
    ]
    decoded = decode_envelope(encode_envelope(list(items)))
    assert [(t, o, s, d, snd) for t, o, s, d, snd, _ in decoded] == [
        (4.0, "nm-z", 1, "rm", None),
        (5.0, "nm-a", 3, "rm", "nm-a"),
        (5.0, "nm-b", 0, "rm", "nm-b"),
    ]
    assert decoded[0][5] == heartbeat("z")


def test_bad_envelope_is_rejected_with_protocol_error() -> None:
    """A frame that is not a shard envelope raises ProtocolError, not a msgspec error."""
    with pytest.raises(ProtocolError, match="shard batch envelope"):
        decode_envelope(msgspec.msgpack.encode({"not": "an envelope"}))


@pytest.mark.parametrize("hosts", [1, 2, 3])
def test_sharded_run_equals_embedded_run(hosts: int) -> None:
    """For one seed and latency, 1, 2 or 3 shard hosts give the embedded kernel's end time, apps and counters."""
    with captured_events():
        embedded = build("embedded")
        embedded.run(until_ms=3_600_000)
        sharded = build("inprocess", hosts)
        sharded.run(until_ms=3_600_000)
    assert outcome(sharded) == outcome(embedded)
    assert embedded.counters["apps_finished"] == 4


def test_two_hosts_exchange_batches_between_windows() -> None:
    """With two hosts, messages really cross: both hosts send and receive, in many windows."""
    cluster = build("inprocess", 2)
    with captured_events():
        cluster.run(until_ms=3_600_000)
    assert isinstance(cluster.runtime, ShardedBackend)
    stats = cluster.host_stats()
    assert all(s["messages_out"] > 0 and s["messages_in"] > 0 for s in stats)
    # Every message sent was delivered, but for those of the last window (the run ended before the next one).
    undelivered = sum(len(decode_envelope(data)) for batches in cluster._inbound for data in batches)
    assert sum(s["messages_out"] for s in stats) == sum(s["messages_in"] for s in stats) + undelivered
    assert cluster.windows > 100


def test_merged_host_logs_equal_the_embedded_event_log(tmp_path: Path) -> None:
    """Key-prefixed host logs merged canonically (cut at the RM's stop event) are byte-identical to embedded's."""
    configure_logging(json_path=tmp_path / "embedded.jsonl", level="debug")
    build("embedded").run(until_ms=3_600_000)
    close_logging()
    configure_logging(json_path=tmp_path / "raw.jsonl", level="debug", event_keys=True)
    sharded = build("inprocess", 3)
    sharded.run(until_ms=3_600_000)
    close_logging()
    assert isinstance(sharded.runtime, ShardedBackend)
    stop_key = sharded._query("stop_key")
    merge_event_logs([tmp_path / "raw.jsonl"], tmp_path / "merged.jsonl", stop_key=stop_key, presorted=False)
    expected = (tmp_path / "embedded.jsonl").read_bytes()
    assert expected.count(b"\n") > 20
    assert (tmp_path / "merged.jsonl").read_bytes() == expected


def test_more_than_one_host_needs_a_positive_latency() -> None:
    """Zero latency between hosts would make the window empty: refused with the reason."""
    with pytest.raises(SimulationError, match="latency > 0"):
        Cluster(Configuration(), backend="inprocess", hosts=2, latency_ms=0)


def test_message_due_inside_the_window_is_refused() -> None:
    """A cross-host message faster than the window (lookahead violated) stops the run with a clear error."""
    host = ShardHost(1, 2, Configuration(), cluster_timestamp=1, latency_ms=1)
    host.window_end = 10.0
    with pytest.raises(SimulationError, match="at least the window length"):
        host.send("rm", heartbeat("a"), None, 0)


def test_ask_across_hosts_is_refused() -> None:
    """ask() to an actor on another host raises ActorError saying to use tell."""
    host = ShardHost(1, 2, Configuration(), cluster_timestamp=1, latency_ms=1)
    with pytest.raises(ActorError, match="crosses shard hosts"):
        host.kernel.lookup("rm").ask(heartbeat("a"))


def test_every_is_refused_on_sharded_backends() -> None:
    """Driver callbacks inside the simulation are not possible on shard hosts: refused, pointing at alternatives."""
    cluster = Cluster(Configuration(), backend="inprocess", hosts=2)
    with pytest.raises(SimulationError, match="record_metrics"):
        cluster.every(1000, lambda: None)


def test_explicit_placement_pins_an_actor_but_never_moves_the_rm() -> None:
    """A placement map overrides the hash for the ids it lists; the RM stays on host 0 whatever it says."""
    assert host_of("nm-node7", 4, {"nm-node7": 3}) == 3
    assert host_of("rm", 4, {"rm": 2}) == 0
    assert host_of("nm-node8", 4, {"nm-node7": 3}) == zlib.crc32(b"nm-node8") % 4


def test_naive_one_host_per_node_placement_gives_the_same_results() -> None:
    """With every NodeManager pinned to its own host, results still equal the embedded kernel's."""
    with captured_events():
        embedded = build("embedded")
        embedded.run(until_ms=3_600_000)
        placement = {f"nm-node{i}": i + 1 for i in range(6)}
        builder = WorkloadBuilder().nodes(6, memory_mb=8192, vcores=8)
        for i in range(4):
            builder.job(f"j{i}", submit_ms=i * 3000, tasks=[task_spec(5, 20_000 + i * 1000)])
        workload = builder.build()
        naive = Cluster(
            Configuration(), workload.nodes, seed=3, backend="inprocess", latency_ms=1, hosts=7, placement=placement
        )
        naive.submit_workload(workload)
        naive.run(until_ms=3_600_000)
    assert outcome(naive) == outcome(embedded)


def test_cli_address_without_ray_backend_is_a_user_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--address` with the embedded backend exits 2 with a one-line error naming both options."""
    from yarnball.launcher.cli import main

    trace = tmp_path / "t.json"
    trace.write_text('{"am.type": "mapreduce", "job.start.ms": 0, "job.end.ms": 10, "job.tasks": []}')
    argv = ["simulate", "--tracelocation", str(trace), "--output-dir", str(tmp_path / "o"), "--address", "auto"]
    assert main(argv) == 2
    assert "--address needs --backend ray" in capsys.readouterr().err


class RecordingHosts(HostGroup):
    """Two busy hosts that record every window they are asked to run."""

    def __init__(self) -> None:
        self.size = 2
        self.windows: list[tuple[float | None, bool]] = []

    def setup(self, steps: list[tuple[object, ...]]) -> None:
        pass

    def run_window(
        self, end: float | None, inclusive: bool, inbound: list[list[bytes]], active: list[bool]
    ) -> list[WindowResult | None]:
        self.windows.append((end, inclusive))
        busy = end  # an event right at the next window's start, on both hosts
        return [({}, busy, None, 0.0, None, 0.0), ({}, busy, None, 0.0, None, 0.0)]

    def call(self, index: int, method: str, *args: object) -> object:
        return None

    def close(self) -> None:
        pass


def test_a_window_never_includes_a_time_a_message_from_its_start_can_reach() -> None:
    """Windows are as long as the latency; the closing window that includes `until` is shorter than the latency."""
    cluster = Cluster(Configuration(), backend="inprocess", hosts=2, latency_ms=5)
    assert isinstance(cluster.runtime, ShardedBackend)
    hosts = RecordingHosts()
    end = cluster._windows(hosts, 20, None)
    assert end == 20
    assert hosts.windows == [(5, False), (10, False), (15, False), (20, False), (20, True)]


def test_message_due_at_the_end_of_an_inclusive_window_is_refused() -> None:
    """In the closing (inclusive) window a message due exactly at its end would arrive too late: refused."""
    host = ShardHost(1, 2, Configuration(), cluster_timestamp=1, latency_ms=1)
    host.run_window(10.0, True)
    host.kernel.now = 9.0
    with pytest.raises(SimulationError, match="inside the current window"):
        host.send("rm", heartbeat("a"), None, 0)


def test_malformed_message_in_a_batch_is_rejected_alone_and_logged() -> None:
    """A batch with one bad heartbeat: the host logs an error naming NodeHeartbeatRequest and the field, queues the
    good messages and keeps running."""
    import msgspec as ms

    sender = ShardHost(1, 2, Configuration(), cluster_timestamp=1, latency_ms=1)
    rm = sender.kernel.lookup("rm")
    for name in ("a", "b", "c"):
        rm.tell(heartbeat(name))
    raw = ms.msgpack.decode(sender.take_outbox()[0])
    raw["batch"][1]["node_status"]["response_id"] = "seven"
    from yarnball.launcher._cluster import normalized_conf

    receiver = ShardHost(0, 2, normalized_conf(None), cluster_timestamp=1, latency_ms=1)
    with captured_events() as events:
        receiver.deliver([ms.msgpack.encode(raw)])
    rejected = [e for e in events if e["event"] == "shard_message_rejected"]
    assert len(rejected) == 1 and rejected[0]["item"] == 1
    assert "NodeHeartbeatRequest" in rejected[0]["error"] and "response_id" in rejected[0]["error"]
    assert receiver.messages_in == 2 and len(receiver.kernel._queue) == 2


def test_unreadable_envelope_routing_is_a_protocol_error() -> None:
    """A routed batch whose routing columns are not as long as its messages is refused whole."""
    from yarnball.protocols import decode_routed, encode_routed

    data = encode_routed([heartbeat("a")], ([1.0], ["x"], [0], ["rm"], [None]))
    raw = msgspec.msgpack.decode(data)
    raw["seq"] = []
    with pytest.raises(ProtocolError, match="routing columns"):
        decode_routed(msgspec.msgpack.encode(raw))
    with pytest.raises(ProtocolError, match="routing column"):
        encode_routed([heartbeat("a")], ([1.0], [], [0], ["rm"], [None]))
