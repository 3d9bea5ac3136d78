"""Dormant idle AMs (yarnball.simulation.dormant-idle-ams): results equal ticking every heartbeat, event for event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from service_spies import spyable_ams
from skipping_helpers import TWO_QUEUES, assert_same_except, sls_outputs_equal_both_ways

from yarnball import ApplicationMaster
from yarnball.actors import handler
from yarnball.actors._kernel import URGENT
from yarnball.actors._shortcuts._amdormancy import HeartbeatTimer
from yarnball.actors._shortcuts._amheartbeats import _at_rm
from yarnball.launcher import Cluster
from yarnball.launcher.workloads import WorkloadBuilder, synthetic_workload, task_spec
from yarnball.launcher.workloads._model import Workload
from yarnball.protocols import Configuration, KillApplicationRequest, Resource, keys
from yarnball.testing import captured_events

DORMANT = keys.SIMULATION_DORMANT_IDLE_AMS
QUEUES = TWO_QUEUES
PREEMPTION = {
    **QUEUES,
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill": "2000",
}


def _is_tick(fn: Any) -> bool:
    # (a firing's fn is a timer's bound ``_fire``: a bound method, or compiled a builtin one, whose __self__ is it)
    return fn is _at_rm or type(getattr(fn, "__self__", None)) is HeartbeatTimer


class _Recorder:
    """Every kernel event but the AM heartbeat ticks (F and A), and every allocate the RM serves, with their keys."""

    def __init__(self, cluster: Cluster) -> None:
        self.trace: list[tuple[Any, ...]] = []
        self.served: list[tuple[Any, ...]] = []
        self.dormant_max = 0
        kernel, rm = cluster.kernel, cluster.rm
        serve = spyable_ams(rm).serve_allocate

        def entered(entry: tuple[Any, ...]) -> None:
            if not _is_tick(entry[4]):
                self.trace.append(entry[:4])
            self.dormant_max = max(self.dormant_max, len(rm.dormant))

        def served(msg: Any) -> Any:
            r = serve(msg)
            self.served.append((kernel.event[:4], str(msg.application_attempt_id), msg.response_id, repr(r)))
            return r

        kernel.observe_events(entered)
        rm.application_master_service.serve_allocate = served  # type: ignore[method-assign]


def _snapshot(cluster: Cluster) -> dict[str, Any]:
    rm = cluster.rm
    apps = cluster.applications
    return {
        "now": cluster.now,
        "apps": [(a.application_id, a.state, a.final_status, a.start_time, a.finish_time) for a in apps],
        "counters": dict(rm.counters),
        "allocates": rm.op_counts.get("allocate", 0),
        "skipped": cluster.heartbeats.skipped_allocates,
        "ams": [(am.attempt_id, am.response_id, am.finished) for am in cluster.masters],
        "attempts": [(str(a.attempt_id), a.response_id, a.last_heartbeat, a.state) for a in rm.attempts.values()],
    }


def _cluster(workload: Workload, dormant: bool, props: dict[str, object] | None = None) -> Cluster:
    conf = Configuration({**(props or {}), DORMANT: "true" if dormant else "false"})
    return Cluster(conf, workload.nodes, seed=3)


def _run(workload: Workload, dormant: bool, props: dict[str, object] | None = None, *, fail: tuple = ()) -> dict:
    cluster = _cluster(workload, dormant, props)
    rec = _Recorder(cluster)
    cluster.submit_workload(workload)
    for host, at_ms in fail:
        cluster.fail_node(host, at_ms)
    with captured_events() as events:
        cluster.run(until_ms=3_600_000)
    return {**_snapshot(cluster), "events": events, "trace": rec.trace, "served": rec.served, "dmax": rec.dormant_max}


@pytest.fixture(scope="module")
def busy_runs() -> tuple[dict, dict]:
    workload = synthetic_workload(60, 40, seed=5, queues=("a", "b"), maps=(1, 30), reduces=(0, 6), load=1.5)
    return _run(workload, True, QUEUES), _run(workload, False, QUEUES)


def test_busy_two_queue_trace_is_identical_event_for_event(busy_runs: tuple[dict, dict]) -> None:
    """A busy two-queue trace: every non-tick event key, every served allocate (with its key), ids, logs match."""
    on, off = busy_runs
    assert len(off["served"]) > 300
    assert_same_except(on, off, "dmax")


def test_dormant_ams_leave_out_their_tick_events(busy_runs: tuple[dict, dict]) -> None:
    """AMs do go dormant, and allocate / skipped counts are those of ticking every heartbeat."""
    on, off = busy_runs
    assert on["dmax"] > 0 and off["dmax"] == 0
    assert on["skipped"] == off["skipped"] > 0


def test_preemption_with_kills_is_identical() -> None:
    """With the preemption monitor on, marks wake dormant AMs at the same allocate; kills and reruns match."""
    workload = synthetic_workload(40, 20, seed=7, queues=("a", "b"), maps=(5, 30), reduces=(0, 4), load=2.0)
    on, off = _run(workload, True, PREEMPTION), _run(workload, False, PREEMPTION)
    assert any("PreemptionMessage(" in r[3] for r in off["served"])
    assert off["counters"].get("containers_preempted", 0) > 0 and on["dmax"] > 0
    assert_same_except(on, off, "dmax")


def test_node_failures_with_am_retries_are_identical() -> None:
    """Lost nodes kill AM containers and tasks of dormant AMs: attempts, retries and response ids match."""
    b = WorkloadBuilder().nodes(4, memory_mb=4096, vcores=4)
    for j in range(4):
        b.job(f"j{j}", submit_ms=500 * j, tasks=[task_spec(4, 120_000)])
    props = {keys.RM_AM_MAX_ATTEMPTS: "2"}
    fail = (("node0", 60_500), ("node2", 90_250))
    on, off = _run(b.build(), True, props, fail=fail), _run(b.build(), False, props, fail=fail)
    assert off["counters"].get("nodes_lost", 0) > 0 and on["dmax"] > 0
    assert len(off["attempts"]) > 4  # some AM was retried
    assert_same_except(on, off, "dmax")


def test_dormant_ams_do_not_expire() -> None:
    """Long tasks under a short AM expiry: a dormant AM counts as heartbeating; nothing expires, all is equal."""
    b = WorkloadBuilder().nodes(4, memory_mb=4096, vcores=4)
    for j in range(3):
        b.job(f"j{j}", submit_ms=1000 * j, tasks=[task_spec(3, 200_000 + 10_000 * j)])
    props = {keys.RM_AM_EXPIRY_INTERVAL_MS: "30000"}
    on, off = _run(b.build(), True, props), _run(b.build(), False, props)
    assert on["dmax"] >= 2 and "am_expired" not in str(on["events"])
    assert_same_except(on, off, "dmax")


def _long_job(jobs: int = 1) -> Workload:
    b = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4)
    for j in range(jobs):
        b.job(f"j{j}", submit_ms=3_000 * j, tasks=[task_spec(2, 300_000)])
    return b.build()


@pytest.mark.parametrize("stop_ms", [61_000, 61_321, 250_999])
def test_a_run_stopped_at_until_and_resumed_is_identical(stop_ms: int) -> None:
    """Stopped at ``until`` (on and off phase points) the settled ids and liveness match; resuming gives the same."""
    snaps = {}
    for dormant in (True, False):
        cluster = _cluster(_long_job(), dormant)
        rec = _Recorder(cluster)
        cluster.submit_workload(_long_job())
        cluster.run(until_ms=stop_ms)
        middle = {**_snapshot(cluster), "dormant": len(cluster.rm.dormant)}
        cluster.run(until_ms=stop_ms + 7_000)
        cluster.run()
        snaps[dormant] = (middle, _snapshot(cluster), rec.trace, rec.served)
    (mid_on, end_on, *rest_on), (mid_off, end_off, *rest_off) = snaps[True], snaps[False]
    assert mid_on.pop("dormant") == 1 and mid_off.pop("dormant") == 0
    assert mid_on == mid_off and end_on == end_off and rest_on == rest_off


@pytest.mark.parametrize("priority", [URGENT, 1, 2])
@pytest.mark.parametrize("offset_ms", [0, 400])
def test_an_app_killed_while_dormant_is_shut_down_at_the_same_allocate(priority: int, offset_ms: int) -> None:
    """A kill exactly at a phase point (before, among and after the skipped allocate's key) or between phase points
    reaches the AM at the same allocate: a wake one tick early or late would move its AM_SHUTDOWN."""
    results = {}
    for dormant in (True, False):
        cluster = _cluster(_long_job(2), dormant)
        rec = _Recorder(cluster)
        cluster.submit_workload(_long_job(2))
        cluster.run(until_ms=40_000)
        am = cluster.masters[0]
        assert am.registered_at is not None
        at = am.registered_at + 60 * am.heartbeat_interval_ms + offset_ms
        request = KillApplicationRequest(application_id=am.application_id)
        kernel = cluster.kernel
        kernel.schedule(at - kernel.now, lambda _, rm=cluster.rm.ref, r=request: rm.tell(r), priority=priority)
        assert (am.attempt_id in cluster.rm.dormant) == dormant
        cluster.run(until_ms=200_000)
        results[dormant] = (_snapshot(cluster), rec.trace, rec.served)
    on, off = results[True], results[False]
    assert off[0]["apps"][0][1].value == "KILLED"
    # A kill before the phase point's allocate is seen by it (later, the NM's cleanup may end the AM first).
    assert any("AM_SHUTDOWN" in s[3] for s in off[2]) or offset_ms or priority == 2
    assert on == off


class Poke:
    """A message a test AM sends itself."""


class PokingAM(ApplicationMaster):
    """A quiet AM that, at its first idle heartbeat, pokes itself just before that heartbeat's allocate; the poke
    sets a one-heartbeat timer that asks for one more container. The AM goes dormant at that allocate, and the
    timer's event falls between the next (skipped) heartbeat's firing and its allocate (the "half-ticked" wake)."""

    quiet_when_idle = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.idle_ticks = 0
        self.done = 0

    def on_registered(self, response: Any) -> None:
        self.add_container_request(Resource(1024, 1), priority=20)

    def _allocate(self) -> None:
        if self.running and not self._changed:
            self.idle_ticks += 1
            if self.idle_ticks == 1:
                self.ref.tell(Poke(), self.ref)
        super()._allocate()

    @handler
    def on_poke(self, msg: Poke) -> None:
        self.after(self.heartbeat_interval_ms, lambda: self.add_container_request(Resource(1024, 1), priority=20))

    def on_containers_allocated(self, containers: Any) -> None:
        for c in containers:
            self.start_container(c, duration_ms=50_000)

    def on_containers_completed(self, statuses: Any) -> None:
        self.done += len(statuses)
        if self.done == 2:
            self.finish()


def test_a_wake_between_a_skipped_firing_and_its_allocate_is_exact() -> None:
    """An AM event between a skipped heartbeat's timer firing and its allocate: the allocate is re-queued with its
    own key, and the AM's own events keep their sequence numbers."""
    results = {}
    for dormant in (True, False):
        workload = WorkloadBuilder().nodes(2, memory_mb=4096, vcores=4).build()
        cluster = _cluster(workload, dormant)
        rec = _Recorder(cluster)
        cluster.submit(PokingAM(name="poker"))
        cluster.run(until_ms=400_000)
        results[dormant] = (_snapshot(cluster), rec.trace, rec.served, dict(cluster.kernel._seqs))
    on, off = results[True], results[False]
    assert on[0]["ams"][0][2] is True and len(on[2]) >= 3
    assert on == off


def test_the_dormancy_switch_defaults_to_on_and_needs_am_skipping() -> None:
    """Dormancy is on by default; with AM skipping off (or a modelled latency) no AM goes dormant."""
    assert keys.DEFAULT_SIMULATION_DORMANT_IDLE_AMS is True
    assert Cluster(Configuration(), ()).rm.dormant.enabled is True
    for props, latency in (({keys.SIMULATION_SKIP_IDLE_AM_HEARTBEATS: "false"}, None), ({}, 1)):
        cluster = Cluster(Configuration(props), _long_job().nodes, seed=1, latency_ms=latency)
        rec = _Recorder(cluster)
        cluster.submit_workload(_long_job())
        cluster.run()
        assert rec.dormant_max == 0


SLS = ("inputsls.json", "SLS"), ("2jobs2min-rumen-jh.json", "RUMEN"), ("syn.json", "SYNTH"), ("sls_dag.json", "SLS")


@pytest.mark.parametrize(("trace", "trace_type"), SLS)
def test_sls_samples_give_identical_outputs(
    shared_data: Path, tmp_path: Path, trace: str, trace_type: str, capsys: Any
) -> None:
    """The shared SLS samples through the CLI: every output file is byte-identical with dormancy on and off."""
    ops_on, ops_off = sls_outputs_equal_both_ways(shared_data, tmp_path, trace, trace_type, DORMANT)
    assert ops_on == ops_off  # dormancy changes no scheduler call: only kernel events disappear
