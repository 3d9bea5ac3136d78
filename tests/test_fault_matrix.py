"""The fault matrix: every fault kind on the bundled SLS sample (its FairScheduler) and on a busy synthetic workload
(the CapacityScheduler), with preemption on; for each, Hadoop's outcome (attempts, exit statuses, LOST containers,
final states) and the event-log invariants (yarnball/launcher/_invariants.py).

Targets are chosen where the fault bites: a run without faults up to the fault time (the same seed gives the same
run up to then) names the busiest node and the containers on it; the expectations are then read against the
faulted run's event log.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from yarnball.launcher import Cluster
from yarnball.launcher.workloads import TraceDefaults, WorkloadBuilder, load_workload, task_spec
from yarnball.launcher.workloads._model import Workload
from yarnball.protocols import Configuration, ContainerExitStatus, keys
from yarnball.testing import assert_containers_conserved, assert_invariants, captured_events

#: The CapacityScheduler's preemption monitor (the busy scenario).
PREEMPTION = {
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill": "2000",
}
#: The FairScheduler's own preemption (the SLS sample's scheduler: the monitor above refuses it, as Hadoop's does).
FAIR_PREEMPTION = {
    keys.PREEMPTION: "true",
    keys.WAIT_TIME_BEFORE_KILL: "2000",
}
LOST = "Container released on a *lost* node"
RETRY_MS = 30_000  # yarn.resourcemanager.connect.retry-interval.ms's default


@dataclass
class Scenario:
    name: str
    conf: Configuration
    workload: Workload
    fault_ms: int
    job: str  # the job the application faults hit
    seed: int = 7


def bundled(shared: Path) -> Scenario:
    """The SLS sample (inputsls.json, nodes.json, sample-conf): its FairScheduler, with its own preemption on."""
    conf = Configuration.from_conf_dir(shared / "sls" / "sample-conf")
    for key, value in FAIR_PREEMPTION.items():
        conf.set(key, value)
    sls = shared / "sls"
    defaults = TraceDefaults.from_configuration(conf)
    workload = load_workload("SLS", [sls / "inputsls.json"], sls / "nodes.json", defaults, 7)
    return Scenario("bundled", conf, workload, fault_ms=12_000, job="job_1")


def busy() -> Scenario:
    """8 nodes kept full by two CapacityScheduler queues, queue b's jobs arriving while a holds everything: the
    preemption monitor takes a's."""
    conf = Configuration(
        {
            "yarn.scheduler.capacity.root.queues": "a,b",
            "yarn.scheduler.capacity.root.a.capacity": "50",
            "yarn.scheduler.capacity.root.a.maximum-capacity": "100",
            "yarn.scheduler.capacity.root.a.user-limit-factor": "2",
            "yarn.scheduler.capacity.root.b.capacity": "50",
            "yarn.scheduler.capacity.root.b.maximum-capacity": "100",
            "yarn.scheduler.capacity.root.b.user-limit-factor": "2",
            "yarn.nm.liveness-monitor.expiry-interval-ms": "30000",
            **PREEMPTION,
        }
    )
    builder = WorkloadBuilder().nodes(8, memory_mb=8192, vcores=8)
    for i in range(6):
        builder.job(f"a{i}", queue="a", submit_ms=i * 2000, tasks=[task_spec(16, 120_000, memory_mb=1024, vcores=1)])
    for i in range(6):
        builder.job(f"b{i}", queue="b", submit_ms=20_000 + i * 2000, tasks=[task_spec(12, 30_000, memory_mb=1024)])
    return Scenario("busy", conf, builder.build(), fault_ms=30_000, job="a1")


def run(scenario: Scenario, faults: list[dict[str, Any]] = (), until_ms: float | None = None) -> tuple[Cluster, list]:
    cluster = Cluster(scenario.conf, scenario.workload.nodes, seed=scenario.seed)
    cluster.submit_workload(scenario.workload)
    if faults:
        cluster.inject(list(faults))
    with captured_events() as events:
        cluster.run(until_ms=until_ms if until_ms is not None else 6 * 3600 * 1000)
    return cluster, events


def live_at(events: list, t: float) -> dict[str, str]:
    """container -> node of every container allocated before ``t`` and not ended before it."""
    live: dict[str, str] = {}
    for e in events:
        if e["sim_ms"] >= t:
            break
        if e["event"] == "container_allocated":
            live[e["container"]] = e["node"].split(":")[0]
        elif e["event"] == "container_finished":
            live.pop(e["container"], None)
    return live


def ends(events: list) -> dict[str, dict[str, Any]]:
    return {e["container"]: e for e in events if e["event"] == "container_finished"}


def finished_ok(cluster: Cluster) -> None:
    for app in cluster.applications:
        assert (app.state.value, app.final_status.value) == ("FINISHED", "SUCCEEDED"), (app.name, app.diagnostics)


def app_id_of(cluster: Cluster, job: str) -> str:
    return str(next(a.application_id for a in cluster.applications if a.name == job))


def attempts(cluster: Cluster, job: str) -> int:
    app = next(a for a in cluster.applications if a.name == job)
    return app.current_attempt_id.attempt_id  # type: ignore[union-attr]


def faulted(events: list, kind: str) -> list:
    return [e for e in events if e["event"] == "fault_injected" and e["kind"] == kind and e.get("applied", True)]


# -- the expectations, one per kind ---------------------------------------------------------------------------------
def node_lost(s: Scenario, before: list) -> None:
    """The busiest node dies: its containers end LOST (ABORTED -100) once the RM expires it, an AM there fails its
    attempt without counting it, and every application still succeeds."""
    live = live_at(before, s.fault_ms)
    node = max(sorted(set(live.values())), key=lambda n: sum(1 for v in live.values() if v == n))
    on_node = {c for c, n in live.items() if n == node}
    cluster, events = run(s, [{"at_ms": s.fault_ms, "kind": "node_lost", "target": node}])
    expiry = cluster.conf.get_int(keys.RM_NM_EXPIRY_INTERVAL_MS)
    (lost,) = [e for e in events if e["event"] == "node_lost"]
    assert s.fault_ms + expiry <= lost["sim_ms"] <= s.fault_ms + expiry * 4 / 3
    end = ends(events)
    at_expiry = {c for c in on_node if end[c]["sim_ms"] == lost["sim_ms"]}
    for cid in on_node - at_expiry:
        # the RM did not know the node was dead: only its own decisions (preemption) end containers there before
        assert end[cid]["sim_ms"] < lost["sim_ms"] and end[cid]["exit_status"] == ContainerExitStatus.PREEMPTED
    for cid in at_expiry:
        assert end[cid]["exit_status"] == ContainerExitStatus.ABORTED and end[cid]["diagnostics"] == LOST
    assert at_expiry and cluster.counters.get("containers_lost", 0) == len(at_expiry)
    am_lost = [c for c in at_expiry if c.endswith("_000001")]
    failed = [e for e in events if e["event"] == "attempt_failed"]
    assert len(failed) == len(am_lost) and all(e["counted"] is False for e in failed)
    assert not [e for e in events if e["event"] == "container_allocated" and e["node"].startswith(node + ":")
                and e["sim_ms"] > s.fault_ms]
    finished_ok(cluster)
    check(cluster, events)


def node_decommission(s: Scenario, before: list) -> None:
    """Graceful decommission with the default timeout: nothing new goes to the node, what runs there finishes as it
    would (no LOST container), then the node is DECOMMISSIONED."""
    live = live_at(before, s.fault_ms)
    node = max(sorted(set(live.values())), key=lambda n: sum(1 for v in live.values() if v == n))
    on_node = {c for c, n in live.items() if n == node}
    cluster, events = run(s, [{"at_ms": s.fault_ms, "kind": "node_decommission", "target": node}])
    end = ends(events)
    (done,) = [e for e in events if e["event"] == "node_decommissioned"]
    assert done["reason"] == "drained" and done["containers_lost"] == 0
    assert done["sim_ms"] == max(end[c]["sim_ms"] for c in on_node)
    assert all(end[c]["diagnostics"] != LOST for c in on_node)
    assert not [e for e in events if e["event"] == "container_allocated" and e["node"].startswith(node + ":")
                and e["sim_ms"] >= s.fault_ms]
    assert cluster.counters.get("containers_lost", 0) == 0 and cluster.counters.get("nodes_decommissioned", 0) == 1
    assert cluster.node_managers[node]._stopped  # told SHUTDOWN ("Disallowed NodeManager")
    finished_ok(cluster)
    check(cluster, events)


def node_decommission_timeout(s: Scenario, before: list) -> None:
    """Graceful decommission with a timeout shorter than the containers there: at the deadline the node is
    DECOMMISSIONED and what still runs there ends LOST (ABORTED -100), as removeNode does."""
    live = live_at(before, s.fault_ms)
    node = max(sorted(set(live.values())), key=lambda n: sum(1 for v in live.values() if v == n))
    cluster, events = run(s, [{"at_ms": s.fault_ms, "kind": "node_decommission", "target": node, "timeout_s": 5}])
    (done,) = [e for e in events if e["event"] == "node_decommissioned"]
    assert done["reason"] == "timeout" and done["sim_ms"] == s.fault_ms + 5000
    still = set(live_at(events, done["sim_ms"]).items()) & {(c, n) for c, n in live.items() if n == node}
    assert still and done["containers_lost"] == len(still)
    end = ends(events)
    for cid, _ in still:
        assert end[cid]["exit_status"] == ContainerExitStatus.ABORTED and end[cid]["diagnostics"] == LOST
    finished_ok(cluster)
    check(cluster, events)


def am_crash(s: Scenario, before: list) -> None:
    """The AM exits 1: the attempt fails and counts, attempt 2 runs the job to success; attempt 1's containers are
    killed with it (no keepContainersAcrossApplicationAttempts)."""
    cluster, events = run(s, [{"at_ms": s.fault_ms, "kind": "am_crash", "target": s.job}])
    app = app_id_of(cluster, s.job)
    (failed,) = [e for e in events if e["event"] == "attempt_failed"]
    assert failed["attempt"].startswith(app.replace("application", "appattempt"))
    assert failed["counted"] is True and "exitCode: 1 " in failed["diagnostics"]
    assert attempts(cluster, s.job) == 2
    first = app.replace("application_", "container_") + "_01_"
    end = ends(events)
    firsts = [c for c in end if c.startswith(first)]
    assert firsts and all(end[c]["sim_ms"] <= failed["sim_ms"] for c in firsts)
    # the attempt's other containers still running go with it: ABORTED (-100), SchedulerUtils.COMPLETED_APPLICATION
    with_it = [c for c in firsts if end[c]["sim_ms"] == failed["sim_ms"] and not c.endswith("_000001")]
    assert with_it and all(
        end[c]["exit_status"] == ContainerExitStatus.ABORTED
        and end[c]["diagnostics"] == "Container of a completed application"
        for c in with_it
    )
    finished_ok(cluster)
    check(cluster, events)


def am_crash_last_attempt(s: Scenario, before: list) -> None:
    """With yarn.resourcemanager.am.max-attempts 1 the crash fails the application, with Hadoop's diagnostics."""
    s.conf.set(keys.RM_AM_MAX_ATTEMPTS, "1")
    cluster, events = run(s, [{"at_ms": s.fault_ms, "kind": "am_crash", "target": s.job}])
    app = next(a for a in cluster.applications if a.name == s.job)
    assert (app.state.value, app.final_status.value) == ("FAILED", "FAILED")
    assert f"Application {app.application_id} failed 1 times due to AM Container for" in app.diagnostics
    others = [a for a in cluster.applications if a.name != s.job]
    assert all(a.final_status.value == "SUCCEEDED" for a in others)
    check(cluster, events)


def container_fail(s: Scenario, before: list) -> None:
    """A task container exits 143: its AM sees that status, re-runs the task (a failed task attempt, not a failed
    application attempt) and the job succeeds."""
    cluster, events = run(s, [{"at_ms": s.fault_ms, "kind": "container_fail", "target": s.job, "exit_status": 143}])
    (fault,) = faulted(events, "container_fail")
    end = ends(events)
    assert end[fault["container"]]["exit_status"] == 143
    am = next(a for a in cluster.masters if a.name == s.job)
    assert am.failed_task_attempts == 1
    assert attempts(cluster, s.job) == 1 and not [e for e in events if e["event"] == "attempt_failed"]
    finished_ok(cluster)
    check(cluster, events)


def _message(kind: str, link: str, message: str, **params: Any) -> Callable[[Scenario], dict[str, Any]]:
    return lambda s: {"at_ms": s.fault_ms, "kind": kind, "target": link, "message": message, **params}


def message_drop_request(s: Scenario, before: list) -> None:
    """Every AllocateRequest of a 5 s window is lost: each is retried, unchanged, after
    yarn.resourcemanager.connect.retry-interval.ms, and served then; nothing is refused."""
    cluster, events = run(s, [_message("message_drop", "am->rm", "AllocateRequest", duration_ms=5000)(s)])
    drops = faulted(events, "message_drop")
    retries = [e for e in events if e["event"] == "allocate_retried"]
    assert drops and len(retries) == len(drops)
    for drop, retry in zip(sorted(drops, key=lambda e: e["source"]), sorted(retries, key=lambda e: e["actor"])):
        assert retry["actor"] == drop["source"] and retry["sim_ms"] == drop["sim_ms"] + RETRY_MS
    assert cluster.counters.get("allocate_refused", 0) == 0
    finished_ok(cluster)
    check(cluster, events)


def message_drop_response(s: Scenario, before: list) -> None:
    """Every AllocateResponse of a 5 s window is lost: the retried request is an old heartbeat (response id one
    behind) and gets the RM's last response again, as ApplicationMasterService.allocate does."""
    cluster, events = run(s, [_message("message_drop", "rm->am", "AllocateResponse", duration_ms=5000)(s)])
    drops = faulted(events, "message_drop")
    assert drops and cluster.counters.get("allocate_duplicates", 0) == len(drops)
    finished_ok(cluster)
    check(cluster, events)


def message_duplicate(s: Scenario, before: list) -> None:
    """Half the AllocateRequests of 20 s arrive twice: each copy is an old heartbeat answered with the last response
    and dropped by the AM's RPC client, so the run is the fault-free one: every application ends at the same time."""
    cluster, events = run(s, [_message("message_duplicate", "am->rm", "AllocateRequest", duration_ms=20_000,
                                       probability=0.5)(s)])
    copies = faulted(events, "message_duplicate")
    assert copies and cluster.counters.get("allocate_duplicates", 0) == len(copies)
    baseline, _ = run(s)
    assert {a.name: a.finish_time for a in cluster.applications} == {
        a.name: a.finish_time for a in baseline.applications
    }
    check(cluster, events)


def message_delay(s: Scenario, before: list) -> None:
    """AllocateRequests delayed 45 s, longer than the retry interval: the retry is served first, and the late
    original, now behind, is refused with InvalidApplicationMasterRequestException."""
    cluster, events = run(s, [_message("message_delay", "am->rm", "AllocateRequest", duration_ms=3000,
                                       delay_ms=45_000)(s)])
    delayed = faulted(events, "message_delay")
    refused = [e for e in events if e["event"] == "allocate_refused"]
    finish = {e["application"]: e["sim_ms"] for e in events if e["event"] == "application_finished"}
    app_of = {am.id: str(am.application_id) for am in cluster.masters}
    # (one that arrives after its attempt finished gets AM_SHUTDOWN, which the AM no longer waits for)
    late = [e for e in delayed if e["sim_ms"] + e["delay_ms"] < finish[app_of[e["source"]]]]
    assert delayed and len(refused) == len(late)
    for e in refused:
        assert e["exception"] == "InvalidApplicationMasterRequestException"
        assert e["diagnostics"].startswith("Invalid responseId in AllocateRequest from application attempt: ")
    finished_ok(cluster)
    check(cluster, events)


def _with(s: Scenario, **conf: str) -> Scenario:
    copy = s.conf.copy()
    for key, value in conf.items():
        copy.set(key, value)
    return Scenario(s.name, copy, s.workload, s.fault_ms, s.job, s.seed)


NM_RETRY = "yarn.nodemanager.resourcemanager.connect.retry-interval.ms"
NM_RETRY_MS = 10_000  # below the busy scenario's 30 s NM expiry (the default 30 s retry would race it)


def heartbeat_drop_request(s: Scenario, before: list) -> None:
    """Every NodeHeartbeatRequest of a 5 s window is lost: the NM waits in the call (no other heartbeat), RMProxy
    retries it unchanged after the retry interval and it is served then; no node is lost, rebooted or resynced,
    no allocation expires."""
    s = _with(s, **{NM_RETRY: str(NM_RETRY_MS)})
    cluster, events = run(s, [_message("message_drop", "nm->rm", "NodeHeartbeatRequest", duration_ms=5000)(s)])
    drops = faulted(events, "message_drop")
    retries = [e for e in events if e["event"] == "node_heartbeat_retried"]
    assert drops and len(retries) == len(drops)
    assert sorted((e["source"], e["sim_ms"] + NM_RETRY_MS) for e in drops) == sorted(
        (e["actor"], e["sim_ms"]) for e in retries
    )
    for key in ("nodes_lost", "nodes_rebooted", "node_heartbeat_duplicates"):
        assert cluster.counters.get(key, 0) == 0, key
    assert not [e for e in events if e["event"] == "container_expired"]
    finished_ok(cluster)
    check(cluster, events)


def heartbeat_drop_response(s: Scenario, before: list) -> None:
    """Every NodeHeartbeatResponse of a 5 s window is lost: the retried heartbeat is one behind, a duplicate, and gets
    the RM's last response again (ResourceTrackerService.nodeHeartbeat), its cleanups and acknowledgements with it."""
    s = _with(s, **{NM_RETRY: str(NM_RETRY_MS)})
    cluster, events = run(s, [_message("message_drop", "rm->nm", "NodeHeartbeatResponse", duration_ms=5000)(s)])
    drops = faulted(events, "message_drop")
    assert drops and cluster.counters.get("node_heartbeat_duplicates", 0) == len(drops)
    assert cluster.counters.get("nodes_rebooted", 0) == 0 and cluster.counters.get("nodes_lost", 0) == 0
    pending = [cid for nm in cluster.node_managers.values() for cid in nm._hb_call.pending_completed]
    assert not [cid for cid in pending if cid in cluster.rm.live]  # unacknowledged ones are recorded: none lost
    finished_ok(cluster)
    check(cluster, events)


def heartbeat_delay(s: Scenario, before: list) -> None:
    """Every NodeHeartbeatRequest of a 5 s window arrives 3 s late (within the retry interval): the NM waits for the
    answer and sends nothing meanwhile, so no heartbeat is a duplicate, retried or too far behind."""
    s = _with(s, **{NM_RETRY: str(NM_RETRY_MS)})
    cluster, events = run(s, [_message("message_delay", "nm->rm", "NodeHeartbeatRequest", duration_ms=5000,
                                       delay_ms=3000)(s)])
    assert faulted(events, "message_delay")
    for key in ("node_heartbeat_duplicates", "nodes_rebooted", "nodes_lost"):
        assert cluster.counters.get(key, 0) == 0, key
    assert not [e for e in events if e["event"] == "node_heartbeat_retried"]
    finished_ok(cluster)
    check(cluster, events)


def heartbeat_duplicate_late(s: Scenario, before: list) -> None:
    """A copy of each NodeHeartbeatRequest of 1 s arrives 2.5 s late, after the NM's next heartbeat: "Too far behind
    rm response id" reboots the node (its containers end LOST, ABORTED -100), the NM resyncs and registers again, and
    every application still succeeds."""
    cluster, events = run(s, [_message("message_duplicate", "nm->rm", "NodeHeartbeatRequest", duration_ms=1000,
                                       delay_ms=2500)(s)])
    copies = faulted(events, "message_duplicate")
    rebooted = [e for e in events if e["event"] == "node_rebooted"]
    assert copies and len(rebooted) == len(copies)
    assert all(e["diagnostics"].startswith("Too far behind rm response id:") for e in rebooted)
    end = ends(events)
    for e in rebooted:
        at, node = e["sim_ms"], e["node"]
        gone = {c for c, n in live_at(events, at).items() if n == node.split(":")[0]} - {
            c for c in end if end[c]["sim_ms"] < at
        }
        assert all(end[c]["exit_status"] == ContainerExitStatus.ABORTED and end[c]["diagnostics"] == LOST
                   for c in gone if end[c]["sim_ms"] == at)
        assert any(a["event"] == "node_added" and a["node"] == node and a["sim_ms"] > at for a in events)
    assert cluster.counters.get("containers_lost", 0) > 0
    finished_ok(cluster)
    check(cluster, events)


def start_drop(s: Scenario, before: list) -> None:
    """StartContainersRequests lost for the first 20 s: NMProxy retries each after
    yarn.client.nodemanager-connect.retry-interval-ms (10 s), until one gets through and the container starts; no task
    attempt fails."""
    # (from 0: the first wave of starts, which both workloads have; the bundled one starts nothing near fault_ms)
    cluster, events = run(s, [{**_message("message_drop", "am->nm", "StartContainersRequest", duration_ms=20_000)(s),
                               "at_ms": 0}])
    drops = faulted(events, "message_drop")
    retries = [e for e in events if e["event"] == "container_call_retried"]
    assert drops and len(retries) == len(drops)
    assert sorted(e["sim_ms"] + 10_000 for e in drops) == sorted(e["sim_ms"] for e in retries)
    assert all(getattr(am, "failed_task_attempts", 0) == 0 for am in cluster.masters)
    finished_ok(cluster)
    check(cluster, events)


def start_response_drop(s: Scenario, before: list) -> None:
    """StartContainersResponses lost for the first 5 s: each retried start is a refused relaunch; the SLS AM's
    onStartContainerError releases the container (it ends KILLED or ABORTED, never SUCCESS) and runs the task
    again; every application succeeds."""
    cluster, events = run(s, [{**_message("message_drop", "nm->am", "StartContainersResponse", duration_ms=5000)(s),
                               "at_ms": 0}])
    drops = faulted(events, "message_drop")
    failed = [e for e in events if e["event"] == "container_start_failed"]
    assert drops and len(failed) == len(drops)
    assert all("Attempt to relaunch the same container with id" in e["diagnostics"] for e in failed)
    end = ends(events)
    assert all(end[e["container"]]["exit_status"] != ContainerExitStatus.SUCCESS for e in failed)
    assert sum(getattr(am, "failed_task_attempts", 0) for am in cluster.masters) == len(failed)
    finished_ok(cluster)
    check(cluster, events)


def _with_recovery(s: Scenario) -> Scenario:
    conf = s.conf.copy()
    conf.set(keys.NM_RECOVERY_ENABLED, "true")
    conf.set(keys.NM_RECOVERY_SUPERVISED, "true")
    return Scenario(s.name, conf, s.workload, s.fault_ms, s.job, s.seed)


def node_restart(s: Scenario, before: list) -> None:
    """A work-preserving NM restart (yarn.nodemanager.recovery.enabled + .supervised) on the busiest node: the NM
    reconnects with its containers, none of them ends LOST or killed by the restart, and every application
    succeeds."""
    s = _with_recovery(s)
    live = live_at(before, s.fault_ms)
    node = max(sorted(set(live.values())), key=lambda n: sum(1 for v in live.values() if v == n))
    on_node = {c for c, n in live.items() if n == node}
    cluster, events = run(s, [{"at_ms": s.fault_ms, "kind": "node_restart", "target": node, "down_ms": 5000}])
    assert len(faulted(events, "node_restart")) == 1
    assert sum(e["event"] == "node_reconnected" for e in events) == 1
    end = ends(events)
    assert on_node and all(end[c]["diagnostics"] != LOST for c in on_node)
    assert cluster.counters.get("containers_lost", 0) == 0
    finished_ok(cluster)
    check(cluster, events)


def node_restart_without_recovery(s: Scenario, before: list) -> None:
    """An NM restart without recovery (Hadoop's default): the node's containers are killed at shutdown, the RM
    forgets them (LOST) when the node registers again, and every application still succeeds."""
    live = live_at(before, s.fault_ms)
    node = max(sorted(set(live.values())), key=lambda n: sum(1 for v in live.values() if v == n))
    on_node = {c for c, n in live.items() if n == node}
    cluster, events = run(s, [{"at_ms": s.fault_ms, "kind": "node_restart", "target": node, "down_ms": 5000}])
    assert len(faulted(events, "node_restart")) == 1
    assert not any(e["event"] == "node_reconnected" for e in events)
    end = ends(events)
    gone = {c for c in on_node if end[c]["sim_ms"] >= s.fault_ms and end[c]["exit_status"] != 0}
    assert gone and cluster.counters.get("containers_lost", 0) > 0
    finished_ok(cluster)
    check(cluster, events)


def _with_rm_recovery(s: Scenario) -> Scenario:
    conf = s.conf.copy()
    conf.set(keys.RECOVERY_ENABLED, "true")
    return Scenario(s.name, conf, s.workload, s.fault_ms, s.job, s.seed)


RM_DOWN_MS = 5000


def rm_restart(s: Scenario, before: list) -> None:
    """A work-preserving RM restart (yarn.resourcemanager.recovery.enabled): the applications come back from the
    state store, the NMs re-register with their containers, which the scheduler adopts (none ends LOST or killed by
    the restart), each AM re-registers after ApplicationMasterNotRegisteredException, nothing is allocated during
    the scheduling wait, the new containers carry the RM's epoch, and every application succeeds."""
    s = _with_rm_recovery(s)
    live = live_at(before, s.fault_ms)
    cluster, events = run(s, [{"at_ms": s.fault_ms, "kind": "rm_restart", "target": "rm", "down_ms": RM_DOWN_MS}])
    assert len(faulted(events, "rm_restart")) == 1
    (up,) = [e for e in events if e["event"] == "rm_restarted"]
    assert up["sim_ms"] == s.fault_ms + RM_DOWN_MS and up["recovery"] is True and up["epoch"] == 1
    running = {e["application"] for e in events if e["event"] == "application_recovered" and e["state"] == "ACCEPTED"}
    submitted = {e["application"] for e in before if e["event"] == "application_submitted" and e["sim_ms"] < s.fault_ms}
    assert running and up["applications_recovered"] == len(submitted)
    recovered = {e["container"] for e in events if e["event"] == "container_recovered"}
    end = ends(events)
    # every container live at the fault that was still running when its node came back was adopted, and ends once
    assert recovered and recovered <= set(live)
    assert all(end[c]["diagnostics"] != LOST and end[c]["exit_status"] != ContainerExitStatus.KILLED_BY_RESOURCEMANAGER
               for c in live)
    assert cluster.counters.get("containers_lost", 0) == 0
    resyncs = [e for e in events if e["event"] == "am_resync"]
    refusals = [e for e in events if e["event"] == "am_not_registered"]
    assert resyncs and len(resyncs) == len({e["attempt"] for e in refusals})
    wait = cluster.conf.get_int(keys.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS)
    (ready,) = [e for e in events if e["event"] == "scheduler_ready"]
    assert ready["sim_ms"] == up["sim_ms"] + wait
    after = [e for e in events if e["event"] == "container_allocated" and e["sim_ms"] >= s.fault_ms]
    assert after and all(e["sim_ms"] >= ready["sim_ms"] and e["container"].startswith("container_e01_") for e in after)
    finished_ok(cluster)
    check(cluster, events)


def rm_restart_without_recovery(s: Scenario, before: list) -> None:
    """An RM restart without recovery (Hadoop's default): the new RM knows nothing, the applications not finished at
    the fault are lost (FAILED, "is lost"), their containers are cleaned up on the nodes, and the applications
    submitted after the restart run to success."""
    cluster, events = run(s, [{"at_ms": s.fault_ms, "kind": "rm_restart", "target": "rm", "down_ms": RM_DOWN_MS}])
    finished_before = {e["application"] for e in before
                       if e["event"] == "application_finished" and e["sim_ms"] < s.fault_ms}  # fmt: skip
    submitted_before = {e["application"] for e in before
                        if e["event"] == "application_submitted" and e["sim_ms"] < s.fault_ms}  # fmt: skip
    lost = {e["application"] for e in events if e["event"] == "application_lost"}
    assert lost == submitted_before - finished_before and lost
    assert not [e for e in events if e["event"] in ("container_recovered", "application_recovered")]
    for app in cluster.applications:
        if str(app.application_id) in lost:
            assert (app.state.value, app.final_status.value) == ("FAILED", "FAILED") and "is lost" in app.diagnostics
        else:
            assert (app.state.value, app.final_status.value) == ("FINISHED", "SUCCEEDED"), app.name
    assert cluster.counters["apps_lost"] == len(lost)
    # (the RM's counts do not balance: the new RM never hears of the lost applications' containers) nothing of
    # theirs runs on any node at the end: the NMs were told to clean them up
    assert not [cid for nm in cluster.nodes for cid in nm.containers]
    assert_invariants(events)
    assert sum(cluster.faults.summary()["injected"].values()) == len(faulted(events, "rm_restart"))


def check(cluster: Cluster, events: list) -> None:
    assert_invariants(events)
    assert_containers_conserved(cluster)
    summary = cluster.faults.summary()
    assert sum(summary["injected"].values()) == len([e for e in events if e["event"] == "fault_injected"])


KINDS = {
    "node_lost": node_lost,
    "node_restart": node_restart,
    "node_restart_without_recovery": node_restart_without_recovery,
    "node_decommission": node_decommission,
    "node_decommission_timeout": node_decommission_timeout,
    "am_crash": am_crash,
    "am_crash_last_attempt": am_crash_last_attempt,
    "container_fail": container_fail,
    "message_drop_request": message_drop_request,
    "message_drop_response": message_drop_response,
    "message_duplicate": message_duplicate,
    "message_delay": message_delay,
    "heartbeat_drop_request": heartbeat_drop_request,
    "heartbeat_drop_response": heartbeat_drop_response,
    "heartbeat_duplicate_late": heartbeat_duplicate_late,
    "heartbeat_delay": heartbeat_delay,
    "start_drop": start_drop,
    "start_response_drop": start_response_drop,
    "rm_restart": rm_restart,
    "rm_restart_without_recovery": rm_restart_without_recovery,
}


@pytest.mark.parametrize("case", sorted(KINDS))
@pytest.mark.parametrize("where", ["bundled", "busy"])
def test_fault_matrix(case: str, where: str, request: pytest.FixtureRequest) -> None:
    scenario = bundled(request.getfixturevalue("shared_data")) if where == "bundled" else busy()
    if where == "bundled" and case == "node_decommission_timeout":
        pytest.skip("the sample's containers on the busiest node end within any timeout that bites later")
    _, before = run(scenario, until_ms=scenario.fault_ms)
    KINDS[case](scenario, before)
