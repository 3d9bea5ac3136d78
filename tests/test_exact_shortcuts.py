"""``yarnball.simulation.exact-shortcuts`` (actors/_shortcuts): one key turns every exact shortcut off, and runs
with it off equal runs with it on and runs with each shortcut's own key off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from skipping_helpers import TWO_QUEUES, assert_same_except, run_state, sls_outputs_equal_both_ways

from yarnball.launcher import Cluster
from yarnball.launcher.workloads import synthetic_workload
from yarnball.protocols import Configuration, keys
from yarnball.testing import captured_events

EXACT = keys.SIMULATION_EXACT_SHORTCUTS
#: Every shortcut that has a key of its own.
OWN_KEYS = (
    keys.SIMULATION_SKIP_IDLE_HEARTBEATS,
    keys.SIMULATION_SKIP_IDLE_AM_HEARTBEATS,
    keys.SIMULATION_DORMANT_IDLE_AMS,
    keys.SIMULATION_LAZY_RUNNING_REPORTS,
)
ALL_ON = {k: "true" for k in OWN_KEYS}


def _run(props: dict[str, str]) -> dict[str, Any]:
    workload = synthetic_workload(40, 30, seed=7, queues=("a", "b"), maps=(1, 25), reduces=(0, 5), load=1.5)
    cluster = Cluster(Configuration({**TWO_QUEUES, **props}), workload.nodes, seed=4)
    cluster.submit_workload(workload)
    with captured_events() as events:
        end = cluster.run(until_ms=1_800_000)
    clock = cluster.heartbeats
    return {
        **run_state(cluster),
        "end": end,
        "events": events,
        "starts": [(a.application_id, a.start_time) for a in cluster.applications],
        "switches": (clock.skip, clock.skip_am, clock.inline is not None, clock.lazy is not None),
        "dormant": cluster.rm.dormant.enabled,
        "exact": cluster.kernel.exact_shortcuts,
    }


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, Any]]:
    return {
        "on": _run({}),
        # the master key wins over the shortcuts' own keys, even when they ask for their shortcut
        "master_off": _run({**ALL_ON, EXACT: "false"}),
        "own_off": _run({k: "false" for k in OWN_KEYS}),
    }


def test_master_key_switches_every_shortcut_off(runs: dict[str, dict[str, Any]]) -> None:
    on, master_off, own_off = runs["on"], runs["master_off"], runs["own_off"]
    assert on["switches"] == (True, True, True, True) and on["dormant"] and on["exact"]
    assert master_off["switches"] == (False, False, False, False)
    assert not master_off["dormant"] and not master_off["exact"]
    # the own keys leave the shortcuts without a key on (inline heartbeats, quiet replies, a firing's allocate)
    assert own_off["switches"] == (False, False, True, False) and own_off["exact"]


def test_master_off_equals_every_own_key_off(runs: dict[str, dict[str, Any]]) -> None:
    """The same event log, results and operation counts; the master key also queues what the shortcuts without a
    key of their own leave out, so the kernel processes more events and takes more sequence numbers."""
    master_off, own_off = runs["master_off"], runs["own_off"]
    assert own_off["counters"]["containers_allocated"] > 300
    assert_same_except(
        master_off, own_off, "processed", "sequences", "switches", "exact"
    )  # (an event log, op counts and response ids included)
    assert master_off["processed"] > own_off["processed"]


def test_shortcuts_on_equal_master_off(runs: dict[str, dict[str, Any]]) -> None:
    """Everything but the left-out events themselves: their kernel events, sequences, scheduler operations and the
    heartbeat clock's counts of real and virtual heartbeats, and the response ids skipped heartbeats do not advance."""
    on, master_off = runs["on"], runs["master_off"]
    ignored = ("processed", "sequences", "ops", "heartbeats", "response_ids", "nm_response_ids")
    assert_same_except(on, master_off, *ignored, "switches", "dormant", "exact")
    assert on["processed"] < master_off["processed"]
    assert on["ops"]["NODE_UPDATE"] < master_off["ops"]["NODE_UPDATE"]
    assert on["ops"]["allocate"] < master_off["ops"]["allocate"]


SLS = ("inputsls.json", "SLS"), ("2jobs2min-rumen-jh.json", "RUMEN"), ("syn.json", "SYNTH")


@pytest.mark.parametrize(("trace", "trace_type"), SLS)
def test_sls_samples_give_identical_outputs(shared_data: Path, tmp_path: Path, trace: str, trace_type: str) -> None:
    """The shared SLS samples through the CLI: every output file is byte-identical with the key true and false."""
    ops_on, ops_off = sls_outputs_equal_both_ways(shared_data, tmp_path, trace, trace_type, EXACT)
    assert ops_on["NODE_UPDATE"] < ops_off["NODE_UPDATE"]


def test_master_key_switches_a_shard_host_off_too() -> None:
    """One shard host with no modelled latency takes the embedded cluster's shortcuts; the master key false turns
    them off there as well, with the same results."""
    from test_sharded_skipping import build, host_clock, outcome

    results = {}
    for exact in ("true", "false"):
        with captured_events():
            sharded = build("inprocess", Configuration({EXACT: exact}))
            sharded.run(until_ms=3_600_000)
        clock = host_clock(sharded)
        results[exact] = outcome(sharded)
        on = exact == "true"
        assert (clock.skip, clock.skip_am, clock.kernel.exact_shortcuts) == (on, on, on)  # type: ignore[attr-defined]
        assert (clock.virtual_count > 0) is on  # type: ignore[attr-defined]
    assert results["true"] == results["false"]
