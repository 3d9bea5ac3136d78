"""``yarnball.simulation.container-tokens`` false: no container tokens or NMTokens are made or checked (as in Hadoop's
SLS, whose simulated NMs have no ContainerManager), and a run whose AMs use only what they were given is the same
run as with them."""

from __future__ import annotations

from typing import Any

import pytest
from security_helpers import victim_and_attacker
from service_spies import spyable_ams
from skipping_helpers import TWO_QUEUES, assert_same_except, run_state

from yarnball.actors._nodemanager import NodeManager
from yarnball.launcher import Cluster
from yarnball.launcher._outputs import security_summary
from yarnball.launcher._sharded import ShardedBackend
from yarnball.launcher.workloads import synthetic_workload
from yarnball.protocols import Configuration, ContainerState, StopContainersRequest, keys
from yarnball.testing import captured_events

OFF = {keys.SIMULATION_CONTAINER_TOKENS: "false"}


def test_without_container_tokens_nothing_is_signed_and_the_nm_checks_nothing() -> None:
    """Containers leave the RM unsigned, the AMs get no NMToken, the NM gets no master keys; so another application's
    stop without any NMToken is carried out (with the tokens on it is "Invalid NMToken": test_security_nm.py)."""
    cluster, victim, attacker = victim_and_attacker(OFF)
    nm = cluster.node_managers["node0"]
    assert not nm.secrets.enabled and nm.secrets.nm_key is None and nm.secrets.container_key is None
    for am in (victim, attacker):
        assert am.nm_tokens == {}
        for cid, container in am.running.items():
            assert container.container_token is None
            assert nm.containers[cid].state is ContainerState.RUNNING
    target = next(iter(victim.running))
    attacker.send_to_nm("node0", StopContainersRequest(container_ids=(target,)))
    cluster.run(until_ms=10_001)
    assert target not in nm.containers  # killed at the other application's word (its reply is quiet: a success)
    assert security_summary(cluster)["rejected"] == 0


def _run(props: dict[str, str]) -> dict[str, Any]:
    workload = synthetic_workload(40, 30, seed=7, queues=("a", "b"), maps=(1, 25), reduces=(0, 5), load=1.5)
    cluster = Cluster(Configuration({**TWO_QUEUES, **props}), workload.nodes, seed=4)
    cluster.submit_workload(workload)
    signed: list[bool] = []
    pull = spyable_ams(cluster.rm).pull

    def counting(attempt_id: Any, containers: Any) -> Any:
        out = pull(attempt_id, containers)
        signed.extend(c.container_token is not None for c in out[0])
        return out

    cluster.rm.application_master_service.pull = counting  # type: ignore[method-assign]
    with captured_events() as events:
        end = cluster.run(until_ms=1_800_000)
    return {
        **run_state(cluster),
        "end": end,
        "events": events,
        "security": security_summary(cluster),
        "signed": (sum(signed), len(signed)),
    }


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, Any]]:
    return {"on": _run({}), "off": _run(OFF)}


def test_a_run_without_tokens_equals_the_run_with_them(runs: dict[str, dict[str, Any]]) -> None:
    """The same event log, applications, counters, scheduler operations, sequence numbers and response ids; only
    whether the containers were signed differs."""
    on, off = runs["on"], runs["off"]
    assert on["counters"]["containers_allocated"] > 300
    handed = on["signed"][1]
    assert handed > 300 and on["signed"] == (handed, handed) and off["signed"] == (0, handed)
    assert_same_except(on, off, "signed")


def test_shard_hosts_honour_the_key_with_the_embedded_results() -> None:
    """Two in-process shard hosts (1 ms apart): the NMs on every host get no keys, and the run ends as the embedded
    one without tokens and as the shard hosts with them."""
    from test_sharded_skipping import build, outcome

    results = {}
    with captured_events():
        for name, backend, props in (("embedded", "embedded", OFF), ("off", "inprocess", OFF), ("on", "inprocess", {})):
            cluster = build(backend, Configuration(props), hosts=2, latency_ms=1)
            cluster.run(until_ms=3_600_000)
            results[name] = outcome(cluster)
            if isinstance(cluster.runtime, ShardedBackend):
                hosts = cluster._start().views  # type: ignore[attr-defined]  # (InProcessHosts)
                nms = [a for v in hosts for a in v.host.kernel.actors.values() if type(a) is NodeManager]
                assert len(nms) == 6 and {nm.secrets.enabled for nm in nms} == {name == "on"}
    assert results["off"] == results["embedded"] == results["on"]
