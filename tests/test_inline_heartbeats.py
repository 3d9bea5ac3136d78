"""NM heartbeats handed to the RM inline (_shortcuts/_inlinebeats.py): runs equal the message path, key for key."""

from __future__ import annotations

from typing import Any

import pytest
from service_spies import spyable_services
from skipping_helpers import TWO_QUEUES, run_state

from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.launcher.workloads._model import Workload
from yarnball.protocols import Configuration, NodeHeartbeatResponse, keys
from yarnball.testing import captured_events


def _busy() -> Workload:
    return synthetic_workload(40, 30, seed=7, queues=("a", "b"), maps=(1, 25), reduces=(0, 5), load=1.5)


QUEUES = TWO_QUEUES


def _position(kernel: Any) -> tuple[Any, ...]:
    event = kernel.event
    return (kernel.now, kernel.current, None if event is None else tuple(event[:4]), kernel.high[:4], kernel.priority)


def _run(inline: bool, props: dict[str, object], *, latency: float = 0, until_ms: float = 1_800_000) -> dict:
    """Run the busy workload with inline heartbeats on or off; return everything observable plus, at every NM
    heartbeat the RM handles and every scheduler event, the kernel's position (time, current actor, event key,
    marks)."""
    workload = _busy()
    with spyable_services():  # (node_heartbeat is replaced below)
        cluster = Cluster(Configuration({**QUEUES, **props}), workload.nodes, seed=4)
    cluster.kernel.default_latency = latency
    if not inline:
        cluster.heartbeats.inline = None
    rm, kernel = cluster.rm, cluster.kernel
    positions: list[tuple[Any, ...]] = []
    tracker = rm.resource_tracker
    node_heartbeat, dispatch = tracker.node_heartbeat, rm.dispatch

    def beat(node_id: Any, statuses: Any, status: Any = None) -> Any:
        positions.append(("beat", str(node_id), tuple(statuses), *_position(kernel)))
        return node_heartbeat(node_id, statuses, status)

    def dispatched(event: Any) -> None:
        positions.append(("event", type(event).__name__, *_position(kernel)))
        dispatch(event)

    tracker.node_heartbeat = beat  # type: ignore[method-assign]
    tracker.build_chain()
    rm.dispatch = dispatched  # type: ignore[method-assign]
    cluster.submit_workload(workload)
    with captured_events() as events:
        end = cluster.run(until_ms=until_ms)
    return {"end": end, "events": events, "positions": positions, **run_state(cluster)}


@pytest.mark.parametrize(
    "props",
    [
        {},
        {keys.SIMULATION_SKIP_IDLE_HEARTBEATS: "false", keys.SIMULATION_SKIP_IDLE_AM_HEARTBEATS: "false"},
        {keys.SIMULATION_DORMANT_IDLE_AMS: "false"},
    ],
    ids=["skip", "noskip", "nodormant"],
)
def test_inline_heartbeats_equal_the_message_path(props: dict[str, object]) -> None:
    """A busy run with inline heartbeats equals the message path: logs, results, sequences and kernel positions."""
    on, off = _run(True, props), _run(False, props)
    assert on["counters"]["containers_allocated"] > 200
    for key in ("end", "events", "positions", "sequences", "apps", "counters", "ops", "response_ids",
                "nm_response_ids", "heartbeats"):  # fmt: skip
        assert on[key] == off[key], key
    # one event fewer per real heartbeat (every one is inlined here), and nothing else differs
    assert off["processed"] - on["processed"] == on["heartbeats"][0]


def test_a_modelled_latency_keeps_the_message_path() -> None:
    """With an NM<->RM latency every heartbeat request is a kernel event of its own."""
    on, off = _run(True, {}, latency=5, until_ms=120_000), _run(False, {}, latency=5, until_ms=120_000)
    assert on["heartbeats"][0] > 100
    assert on["processed"] == off["processed"] and on["positions"] == off["positions"]


def test_a_failing_heartbeat_is_reported_as_the_request_would_be() -> None:
    """A heartbeat whose handling raises is logged as a failed NodeHeartbeatRequest, inline or not; the RM runs on."""
    logs = []
    for inline in (True, False):
        workload = _busy()
        with spyable_services():  # (node_heartbeat is replaced below)
            cluster = Cluster(Configuration(QUEUES), workload.nodes, seed=4)
        if not inline:
            cluster.heartbeats.inline = None
        rm = cluster.rm
        tracker = rm.resource_tracker
        original, failures = tracker.node_heartbeat, []

        def flaky(
            node_id: Any, statuses: Any, status: Any = None, original: Any = original, failures: list = failures
        ) -> Any:
            if statuses and len(failures) < 3:
                failures.append(node_id)
                raise RuntimeError("boom")
            return original(node_id, statuses, status)

        tracker.node_heartbeat = flaky  # type: ignore[method-assign]
        tracker.build_chain()
        cluster.submit_workload(workload)
        with captured_events() as events:
            cluster.run(until_ms=300_000)
        failed = [e for e in events if e["event"] == "handler_failed"]
        assert len(failed) == 3 and all(e["message_type"] == "NodeHeartbeatRequest" for e in failed)
        assert cluster.kernel.handler_failures == 3 and cluster.rm.counters["containers_allocated"] > 50
        logs.append(events)
    assert logs[0] == logs[1]


def test_the_rm_returns_each_in_place_heartbeats_response_to_the_route() -> None:
    """The RM's in-place entry returns the tracker's response to the route, which sends it (nothing below the route
    calls back into the delivery layer)."""
    workload = _busy()
    cluster = Cluster(Configuration(QUEUES), workload.nodes, seed=4)
    rm = cluster.rm
    entry = rm.node_heartbeat_in_place
    returned: list[Any] = []

    def in_place(node_id: Any, statuses: Any, sender: Any, response_id: int) -> Any:
        response = entry(node_id, statuses, sender, response_id)
        returned.append(response)
        return response

    rm.node_heartbeat_in_place = in_place  # type: ignore[method-assign]
    cluster.submit_workload(workload)
    cluster.run(until_ms=300_000)
    assert len(returned) > 100 and all(type(r) is NodeHeartbeatResponse for r in returned)
