"""The CapacityScheduler's ``max-parallel-apps`` (CSMaxRunningAppsEnforcer): applications over a queue's, an
ancestor's or a user's limit wait ACCEPTED, their AMs unallocated, and run as others finish or a refresh makes room;
the queue metrics and REST count them as Hadoop does."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from test_capacity_scheduler_helpers import CS, GB, add_node, attempt_id, heartbeat, make_conf, make_scheduler, submit

from yarnball.errors import ConfigurationError
from yarnball.launcher import cli
from yarnball.launcher.web._schedulerinfo import capacity_scheduler_info
from yarnball.policies.capacity import CapacityScheduler, LeafQueue
from yarnball.protocols import AppAttemptRemovedSchedulerEvent

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "examples" / "traces" / "sample-sls.json"
NODES = ROOT / "examples" / "traces" / "sample-nodes.json"
TWO_LEAVES: dict[str, dict[str, object]] = {"root.a": {"capacity": 50}, "root.b": {"capacity": 50}}


def _leaf(cs: CapacityScheduler, path: str) -> LeafQueue:
    leaf = cs.get_queue(path)
    assert isinstance(leaf, LeafQueue)
    return leaf


def _am_allocated(cs: CapacityScheduler, n: int) -> bool:
    attempt = cs.attempts[attempt_id(n)]
    return attempt.am_running or bool(attempt.live)


def _finish(cs: CapacityScheduler, n: int) -> None:
    cs.handle(AppAttemptRemovedSchedulerEvent(application_attempt_id=attempt_id(n)))


def _max_running(applications_csv: Path) -> int:
    """The most applications between their AM's launch and their finish at once (a finish before a launch at the
    same millisecond)."""
    edges: list[tuple[int, int]] = []
    with applications_csv.open() as f:
        for row in csv.DictReader(f):
            edges += [(int(row["launch_time"]), 1), (int(row["finish_time"]), -1)]
    running = most = 0
    for _, step in sorted(edges):
        running += step
        most = max(most, running)
    return most


def test_the_bundled_trace_never_runs_more_than_the_queue_limit(tmp_path: Path) -> None:
    """root.default.max-parallel-apps=2: at most two of the 40 applications run at once, and every one finishes."""
    out = tmp_path / "out"
    argv = ["simulate", "--tracetype", "SLS", "--tracelocation", str(TRACE), "--nodes", str(NODES), "--seed", "1",
            "--output-dir", str(out), "--no-progress", "--no-plots",
            "--conf", CS + "root.default.max-parallel-apps=2"]  # fmt: skip
    assert cli.main(argv) == 0
    apps = json.loads((out / "summary.json").read_text())["applications"]
    assert apps["submitted"] == apps["finished"] == 40, apps
    assert _max_running(out / "metrics" / "applications.csv") == 2


def test_an_application_over_the_limit_waits_for_one_to_finish() -> None:
    """The second application of a queue limited to one gets no AM container until the first attempt is removed."""
    cs = make_scheduler(TWO_LEAVES, **{CS + "root.a.max-parallel-apps": 1})
    nid = add_node(cs, 0, 16 * GB, 16)
    submit(cs, 1, queue="a")
    submit(cs, 2, queue="a")
    leaf = _leaf(cs, "root.a")
    for _ in range(3):
        heartbeat(cs, nid)
    assert _am_allocated(cs, 1) and not _am_allocated(cs, 2)
    assert (leaf.num_runnable_apps(), [a.attempt_id for a in leaf.non_runnable]) == (1, [attempt_id(2)])
    _finish(cs, 1)
    heartbeat(cs, nid)
    assert _am_allocated(cs, 2) and not leaf.non_runnable


def test_the_global_default_limits_root_too() -> None:
    """yarn.scheduler.capacity.max-parallel-apps is every queue's own default, root's included: with 1, an
    application in b waits for the one running in a."""
    cs = make_scheduler(TWO_LEAVES, **{CS + "max-parallel-apps": 1})
    submit(cs, 1, queue="a")
    submit(cs, 2, queue="b")
    assert cs.root.max_parallel_apps == 1 and len(_leaf(cs, "root.b").non_runnable) == 1
    _finish(cs, 1)
    assert not _leaf(cs, "root.b").non_runnable and _leaf(cs, "root.b").num_runnable_apps() == 1


def test_a_parent_limit_holds_back_its_leaves_and_a_queue_limit_overrides_the_default() -> None:
    """root.p at 1 holds back p.y behind p.x while root.c (its own 5 over the global 1) runs two."""
    queues: dict[str, dict[str, object]] = {
        "root.p": {"capacity": 50, "max-parallel-apps": 1},
        "root.p.x": {"capacity": 50, "max-parallel-apps": 5},
        "root.p.y": {"capacity": 50, "max-parallel-apps": 5},
        "root.c": {"capacity": 50, "max-parallel-apps": 5},
    }
    cs = make_scheduler(queues, **{CS + "max-parallel-apps": 1, CS + "root.max-parallel-apps": 5})
    for n, queue in enumerate(("x", "y", "c", "c"), start=1):
        submit(cs, n, queue=queue)
    assert [len(_leaf(cs, q).non_runnable) for q in ("root.p.x", "root.p.y", "root.c")] == [0, 1, 0]
    assert (cs.queues["root.p"].runnable_apps, cs.root.runnable_apps) == (1, 3)


def test_a_user_limit_holds_back_that_users_applications_only() -> None:
    """user.alice.max-parallel-apps=1 over user.max-parallel-apps=3: alice's second waits, bob's third runs."""
    cs = make_scheduler(TWO_LEAVES, **{CS + "user.alice.max-parallel-apps": 1, CS + "user.max-parallel-apps": 3})
    for n, user in enumerate(("alice", "alice", "bob", "bob", "bob", "bob"), start=1):
        submit(cs, n, queue="a", user=user)
    assert [a.attempt_id for a in _leaf(cs, "root.a").non_runnable] == [attempt_id(2), attempt_id(6)]


def test_waiting_applications_count_as_pending_and_against_maximum_applications() -> None:
    """QueueMetrics and REST numApplications count a waiting application, numPendingApplications does not, REST shows
    the queue's limit; it counts against maximum-applications."""
    queues: dict[str, dict[str, object]] = {
        "root.a": {"capacity": 50, "max-parallel-apps": 1, "maximum-applications": 2},
        "root.b": {"capacity": 50},
    }
    cs = make_scheduler(queues)
    add_node(cs, 0, 16 * GB, 16)
    submit(cs, 1, queue="a")
    submit(cs, 2, queue="a")
    metrics = {m.path: m for m in cs.queue_metrics()}
    assert (metrics["root.a"].apps_pending, metrics["root.a"].apps_running) == (1, 1)
    assert metrics["root"].apps_pending == 1
    info = capacity_scheduler_info(cs, metrics, preemption=False)["schedulerInfo"]
    a = info["queues"]["queue"][0]
    assert (a["numApplications"], a["numPendingApplications"], a["numActiveApplications"]) == (2, 0, 1)
    assert (a["maxParallelApps"], info["queues"]["queue"][1]["maxParallelApps"]) == (1, 2**31 - 1)
    rejected = submit(cs, 3, queue="a")
    assert any("already has 2 applications" in str(getattr(r, "diagnostics", "")) for r in rejected), rejected


def test_a_waiting_application_that_ends_leaves_no_trace() -> None:
    """Removing a waiting attempt frees nothing and leaves the counts of the running one."""
    cs = make_scheduler(TWO_LEAVES, **{CS + "root.a.max-parallel-apps": 1})
    submit(cs, 1, queue="a")
    submit(cs, 2, queue="a")
    _finish(cs, 2)
    leaf = _leaf(cs, "root.a")
    assert (leaf.num_runnable_apps(), leaf.non_runnable, cs.root.runnable_apps) == (1, [], 1)
    assert cs.max_running.users_non_runnable == {} and cs.max_running.users_num_runnable == {"user": 1}


def test_a_refresh_that_raises_the_limit_runs_the_waiting_applications() -> None:
    """updateRunnabilityOnReload: from 1 to 3, both waiting applications become runnable, oldest first."""
    cs = make_scheduler(TWO_LEAVES, **{CS + "root.a.max-parallel-apps": 1})
    for n in (1, 2, 3):
        submit(cs, n, queue="a")
    leaf = _leaf(cs, "root.a")
    assert len(leaf.non_runnable) == 2
    cs.reinitialize(make_conf(TWO_LEAVES, **{CS + "root.a.max-parallel-apps": 3}))
    assert (leaf.max_parallel_apps, leaf.non_runnable, leaf.num_runnable_apps()) == (3, [], 3)


def test_a_user_limit_that_does_not_parse_is_refused_naming_the_key() -> None:
    with pytest.raises(ConfigurationError, match=r"user\.bob\.max-parallel-apps' = 'many'"):
        make_scheduler(TWO_LEAVES, **{CS + "user.bob.max-parallel-apps": "many"})
