"""A user's program over the public API (``yarnball``, ``yarnball.testing``, ``yarnball.launcher``), type-checked by
tests/test_typing.py with ``mypy --strict``: every public name it uses must be typed well enough for strict code."""

from __future__ import annotations

from pathlib import Path

import yarnball
from yarnball import (
    Actor,
    ActorRef,
    ApplicationMaster,
    Cluster,
    Configuration,
    ConfigurationError,
    ContainerRequest,
    Future,
    Kernel,
    Resource,
    YarnballError,
    configure_logging,
    decode,
    encode,
    handler,
    sweep,
)
from yarnball.launcher import Autoscaler, ElasticConfig, ElasticReport, node_hours
from yarnball.launcher.workloads import WorkloadBuilder
from yarnball.protocols import Container, NodeHeartbeatRequest, NodeHeartbeatResponse, NodeId, NodeStatus
from yarnball.testing import (
    ActorTestKit,
    ContainerLedger,
    Probe,
    assert_containers_conserved,
    assert_invariants,
    captured_events,
    check_invariants,
    container_ledger,
    read_event_log,
)


class Tracker(Actor):
    """Answers each NodeHeartbeatRequest with the next response id."""

    def __init__(self) -> None:
        self.beats = 0

    @handler
    def on_heartbeat(self, msg: NodeHeartbeatRequest) -> NodeHeartbeatResponse:
        self.beats += 1
        return NodeHeartbeatResponse(response_id=msg.node_status.response_id + 1)


class OneShotAM(ApplicationMaster):
    """Runs one container for a second."""

    def on_containers_allocated(self, containers: tuple[Container, ...]) -> None:
        for container in containers:
            self.start_container(container, duration_ms=1_000)


def actors() -> int:
    kit = ActorTestKit(latency_ms=1)
    probe: Probe = kit.probe()
    ref: ActorRef = kit.spawn(Tracker(), "tracker")
    request = NodeHeartbeatRequest(node_status=NodeStatus(node_id=NodeId("h", 1), response_id=4))
    ref.tell(request, probe.ref)
    kit.run(until=10)
    response: NodeHeartbeatResponse = probe.expect(NodeHeartbeatResponse)
    probe.expect_nothing()
    asked: Future[object] = ref.ask(request)
    kit.kernel.run_until_complete(asked)
    kernel: Kernel = kit.kernel
    assert decode(encode(request)) == request
    with captured_events() as events:
        kernel.run(until=20)
    return response.response_id + len(events)


def cluster(out: Path) -> ContainerLedger:
    configure_logging(json_path=out / "events.jsonl", level="info")
    nodes = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build().nodes
    conf = Configuration({"yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": "1000"})
    built = Cluster(conf, nodes, seed=1)
    am = built.submit(OneShotAM(name="one", am_resource=Resource(1024, 1)))
    am.add_container_request(Resource(1024, 1), priority=1, count=1)
    request: ContainerRequest | None = None
    del request
    finished_at: float = built.run()
    ledger = assert_containers_conserved(built)
    assert ledger == container_ledger(built)
    assert check_invariants(read_event_log(out / "events.jsonl")) == []
    assert_invariants(out / "events.jsonl")
    hours: float = node_hours(built)
    print(yarnball.__version__, finished_at, hours, [a.final_status.value for a in built.applications])
    return ledger


def elastic(conf: Configuration) -> ElasticReport | None:
    config = ElasticConfig.from_conf(conf)
    if config is None:
        return None
    try:
        config.validate()
    except ConfigurationError as error:
        raise YarnballError(str(error)) from error
    scaler: Autoscaler | None = None
    return scaler.report() if scaler is not None else None


def sweeps(spec: Path, out: Path) -> None:
    result = sweep(spec, out)
    print(result)
