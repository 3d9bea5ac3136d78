"""Absolute-resource queue capacities in the CapacityScheduler, the public API and the CLI (issue 19 item 7).

Hadoop's own tests are ported in tests/conformance/test_hadoop_absolute_resources.py; these check the rest of the
behaviour: limits derived from the effective resources, the two calculators, refresh, the launcher.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_capacity_scheduler_helpers import (
    GB,
    add_node,
    ask,
    attempt_id,
    heartbeat,
    make_conf,
    make_scheduler,
    node,
    submit,
)

from yarnball.errors import ConfigurationError
from yarnball.launcher import Cluster
from yarnball.launcher.cli import main
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.policies.capacity import AppRejected
from yarnball.protocols import NodeRemovedSchedulerEvent, Resource
from yarnball.testing import captured_events

CS = "yarn.scheduler.capacity."
DRC = {CS + "resource-calculator": "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"}


def vec(mb: int, vcores: int) -> str:
    return f"[memory={mb},vcores={vcores}]"


# -- the scheduler ---------------------------------------------------------------------------------------------------
def test_absolute_maximum_caps_what_a_queue_gets():
    """A 4 GB absolute maximum holds on a 64 GB cluster: the leaf's limit is its effective maximum."""
    cs = make_scheduler(
        {
            "root.a": {"capacity": vec(2 * GB, 2), "maximum-capacity": vec(4 * GB, 4), "user-limit-factor": 10},
            "root.b": {"capacity": vec(2 * GB, 2)},
        },
        **{CS + "maximum-am-resource-percent": 1.0},
    )
    nid = add_node(cs, 0, 64 * GB, 64)
    submit(cs, 1, queue="a")
    heartbeat(cs, nid)
    cs.allocate(attempt_id(1), [ask(GB, 10)], [])
    for _ in range(20):
        heartbeat(cs, nid)
    a = cs.get_queue("root.a")
    assert a.effective_max_resource == Resource(4 * GB, 4)
    assert a.used_m == 4 * GB  # the AM and 3 of the 10 asks


def test_am_limit_and_max_applications_follow_the_absolute_resources():
    """After the cluster halves, the AM limit still comes from the 20 GB absolute maximum (a 20 % maximum would
    halve it), and maxApplications scales by the derived absolute capacity even with global-queue-max-application
    (AbstractLeafQueue.updateMaximumApplications: a percentage queue would get the global value as is)."""
    cs = make_scheduler(
        {
            "root.a": {"capacity": vec(10 * GB, 10), "maximum-capacity": vec(20 * GB, 20)},
            "root.b": {"capacity": vec(90 * GB, 90)},
        },
        **{CS + "global-queue-max-application": 1000},
    )
    add_node(cs, 0, 50 * GB, 50)
    add_node(cs, 1, 50 * GB, 50)
    a = cs.get_queue("root.a")
    assert (a.am_limit_m, a.max_apps) == (2 * GB, 100)
    cs.handle(NodeRemovedSchedulerEvent(node_id=node(1)))
    assert a.effective_min_resource == Resource(5 * GB, 5)  # scaled by root's ratio 50/100
    assert a.effective_max_resource == Resource(20 * GB, 20)
    assert (a.am_limit_m, a.max_apps) == (2 * GB, 100)
    assert [q.abs_cap for q in (a, cs.get_queue("root.b"))] == [pytest.approx(0.1), pytest.approx(0.9)]


def test_absolute_queue_accepts_nothing_on_an_empty_cluster_as_in_hadoop():
    """Before any node: effective minimum over an empty root reads absoluteCapacity 0, so maxApplications is 0 and
    Hadoop's validateSubmitApplication refuses; once a node registers the queue accepts."""
    cs = make_scheduler({"root.a": {"capacity": vec(GB, 1)}, "root.b": {"capacity": vec(GB, 1)}})
    out = submit(cs, 1, queue="a", am_mb=None)
    assert isinstance(out[0], AppRejected)
    assert "Queue root.a already has 0 applications, cannot accept submission" in out[0].diagnostics
    add_node(cs, 0, 8 * GB, 8)
    assert cs.get_queue("root.a").max_apps == 1250  # (int)(10000 x 1/8)
    assert not isinstance(submit(cs, 2, queue="a", am_mb=None)[0], AppRejected)


def test_effective_minimums_come_back_when_the_node_does():
    """Scaling down is undone by a node coming back (every cluster resource update recomputes the ratio)."""
    cs = make_scheduler({"root.a": {"capacity": vec(6 * GB, 6)}, "root.b": {"capacity": vec(2 * GB, 2)}})
    for i in range(2):
        add_node(cs, i, 4 * GB, 4)
    cs.handle(NodeRemovedSchedulerEvent(node_id=node(1)))
    assert cs.get_queue("root.a").effective_min_resource == Resource(3 * GB, 3)
    add_node(cs, 1, 4 * GB, 4)
    assert cs.get_queue("root.a").effective_min_resource == Resource(6 * GB, 6)


@pytest.mark.parametrize(
    ("extra", "expected_a"),
    [
        # DefaultResourceCalculator: lessThan compares memory only; 100 GB >= 80 GB, so no scaling at all, even
        # though the vcores are short.
        ({}, Resource(40 * GB, 4)),
        # DominantResourceCalculator: the sum dominates the cluster (vcores), so every type gets its own ratio:
        # memory 100/80 scales *up*, vcores 4/8 down (AbstractParentQueue.recalculateEffectiveMinRatio).
        (DRC, Resource(51200, 2)),
    ],
)
def test_scaling_ratio_depends_on_the_calculator(extra: dict[str, object], expected_a: Resource):
    cs = make_scheduler(
        {"root.a": {"capacity": vec(40 * GB, 4)}, "root.b": {"capacity": vec(40 * GB, 4)}},
        **extra,
    )
    add_node(cs, 0, 100 * GB, 4)
    assert cs.get_queue("root.a").effective_min_resource == expected_a


def test_sibling_order_ties_break_on_configured_minimum():
    """PriorityQueueComparator: equal used capacity, both with configured minimums: the larger minimum first."""
    cs = make_scheduler({"root.a": {"capacity": vec(2 * GB, 2)}, "root.b": {"capacity": vec(6 * GB, 6)}})
    add_node(cs, 0, 8 * GB, 8)
    assert [q.name for q in cs.root.ordered_children(cs._ctx)] == ["b", "a"]


# -- validation ------------------------------------------------------------------------------------------------------
def test_min_above_max_is_refused_at_start_up_naming_the_key():
    """AbstractCSQueue.updateConfigurableResourceLimits: Hadoop's message, after the file and key."""
    with pytest.raises(ConfigurationError) as err:
        make_scheduler(
            {
                "root.a": {"capacity": vec(25 * GB, 5), "maximum-capacity": vec(20 * GB, 20)},
                "root.b": {"capacity": vec(5 * GB, 5)},
            }
        )
    message = str(err.value)
    assert "yarn.scheduler.capacity.root.a.capacity: " in message
    assert message.endswith(
        "Min resource configuration <memory:25600, vCores:5> is greater than its max value:"
        "<memory:20480, vCores:20> in queue:root.a"
    )


def test_percentage_sibling_listed_after_an_absolute_one_is_refused():
    """ParentQueue.getCapacityConfigurationTypeForQueues, with Hadoop's message (two spaces included)."""
    with pytest.raises(ConfigurationError) as err:
        make_conf({"root.a": {"capacity": vec(GB, 1)}, "root.b": {"capacity": 50}}).validate()
    assert str(err.value).endswith(
        "Parent queue 'root' have children queue used mixed of  weight mode, percentage and absolute mode, it is not "
        "allowed, please double check, details:{Queue=root.a, label= uses absolute mode}. "
        "{Queue=root.b, label= uses percentage mode}. "
    )


def test_percentage_sibling_listed_before_an_absolute_one_loads_as_in_hadoop():
    """The same check clears its percentage flag at the absolute queue, so this order loads in Hadoop too: a keeps
    50 % of the cluster, b its absolute 1 GB."""
    cs = make_scheduler({"root.a": {"capacity": 50}, "root.b": {"capacity": vec(GB, 1)}})
    add_node(cs, 0, 8 * GB, 8)
    assert cs.get_queue("root.a").effective_min_resource == Resource(4 * GB, 4)
    assert cs.get_queue("root.b").effective_min_resource == Resource(GB, 1)


def test_parent_and_children_must_share_the_mode():
    with pytest.raises(ConfigurationError) as err:
        make_conf({"root.p": {"capacity": vec(4 * GB, 4)}, "root.p.c": {"capacity": 100}}).validate()
    assert str(err.value).endswith(
        "Parent=root.p: When absolute minResource is used, we must make sure both parent and child all use absolute "
        "minResource"
    )


def test_children_above_their_parent_are_refused():
    with pytest.raises(ConfigurationError) as err:
        make_conf(
            {"root.p": {"capacity": vec(4 * GB, 4)}, "root.p.c1": {"capacity": vec(3 * GB, 1)},
             "root.p.c2": {"capacity": vec(2 * GB, 1)}}
        ).validate()  # fmt: skip
    assert str(err.value).endswith(
        "Parent Queues capacity: <memory:4096, vCores:4> is less than to its children:<memory:5120, vCores:2> "
        "for queue:p"
    )


# -- refresh ---------------------------------------------------------------------------------------------------------
def test_refresh_from_percentages_to_absolute_resources_and_back():
    """CapacityScheduler.reinitialize switches a live queue's mode both ways; a refused refresh changes nothing."""
    cs = make_scheduler({"root.a": {"capacity": 50}, "root.b": {"capacity": 50}})
    add_node(cs, 0, 16 * GB, 16)
    a = cs.get_queue("root.a")
    assert a.effective_min_resource == Resource(8 * GB, 8)
    cs.reinitialize(make_conf({"root.a": {"capacity": vec(2 * GB, 2)}, "root.b": {"capacity": vec(6 * GB, 6)}}))
    assert cs.get_queue("root.a") is a  # the live queue took the new settings
    assert (a.capacity_config_type, a.effective_min_resource) == ("ABSOLUTE_RESOURCE", Resource(2 * GB, 2))
    assert a.capacity == pytest.approx(0.125)
    with pytest.raises(ConfigurationError, match=r"^Failed to re-init queues : .*Min resource configuration"):
        cs.reinitialize(
            make_conf({"root.a": {"capacity": vec(2 * GB, 2), "maximum-capacity": vec(GB, 1)},
                       "root.b": {"capacity": vec(6 * GB, 6)}})
        )  # fmt: skip
    assert a.effective_max_resource == Resource(16 * GB, 16)  # unchanged (inherited from root)
    cs.reinitialize(make_conf({"root.a": {"capacity": 25}, "root.b": {"capacity": 75}}))
    assert (a.capacity_config_type, a.effective_min_resource) == ("PERCENTAGE", Resource(4 * GB, 4))


# -- the public API and the CLI --------------------------------------------------------------------------------------
ABSOLUTE = {
    f"{CS}root.queues": "a,b",
    f"{CS}root.a.capacity": vec(12 * GB, 12),
    f"{CS}root.a.maximum-capacity": vec(16 * GB, 16),
    f"{CS}root.b.capacity": vec(20 * GB, 20),
}


def test_cluster_reports_effective_resources_and_rescales_when_a_node_fails():
    """Cluster.queues carries the effective resources; a failed node (expired by the RM) scales them down."""
    builder = WorkloadBuilder().nodes(4, memory_mb=8 * GB, vcores=8)
    builder.job("j", queue="a", submit_ms=2_000, tasks=[task_spec(4, 60_000)])
    workload = builder.build()
    cluster = Cluster({**ABSOLUTE, "yarn.nm.liveness-monitor.expiry-interval-ms": "30000"}, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    with captured_events():
        cluster.run(until_ms=1_500)
    first = {q.path: q for q in cluster.queues}
    assert first["root.a"].effective_min == Resource(12 * GB, 12)
    assert first["root.a"].absolute_capacity == pytest.approx(12 / 32)
    cluster.fail_node(cluster.nodes[-1].node_id.host, at_ms=3_000)
    with captured_events():
        cluster.run(until_ms=3_600_000)
    after = {q.path: q for q in cluster.queues}
    # 24 GB left for 32 GB of minimums: ratio 0.75
    assert after["root.a"].effective_min == Resource(9 * GB, 9)
    assert after["root.b"].effective_min == Resource(15 * GB, 15)
    assert cluster.counters["nodes_lost"] == 1
    assert [a.state.value for a in cluster.applications] == ["FINISHED"]


def _write_conf(directory: Path, props: dict[str, str]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    body = "".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props.items())
    (directory / "capacity-scheduler.xml").write_text(f"<configuration>{body}</configuration>")
    return directory


def _trace(path: Path, start_ms: int = 1000) -> Path:
    task = {"container.host": "/rack0/node0", "container.start.ms": start_ms + 1000, "container.end.ms": 30_000,
            "container.priority": 20, "container.type": "map"}  # fmt: skip
    job = {"am.type": "mapreduce", "job.start.ms": start_ms, "job.end.ms": 40_000, "job.queue.name": "a",
           "job.id": "job_a", "job.user": "u", "job.tasks": [task]}  # fmt: skip
    path.write_text(json.dumps(job))
    return path


def test_cli_reads_absolute_capacities_as_is(tmp_path: Path) -> None:
    conf = _write_conf(tmp_path / "conf", ABSOLUTE)
    out = tmp_path / "out"
    args = ["simulate", "--tracetype", "SLS", "--tracelocation", str(_trace(tmp_path / "t.json"))]
    args += ["--output-dir", str(out), "--conf-dir", str(conf), "--no-plots", "--no-progress"]
    assert main(args) == 0
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    finals = [e.get("final_status") for e in events if e["event"] == "application_finished"]
    assert finals == ["SUCCEEDED"]


def test_cli_refuses_children_above_their_parent_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    bad = _write_conf(tmp_path / "bad", {**ABSOLUTE, f"{CS}root.a.maximum-capacity": vec(4 * GB, 4)})
    args = ["simulate", "--tracetype", "SLS", "--tracelocation", str(_trace(tmp_path / "t.json"))]
    args += ["--output-dir", str(tmp_path / "o"), "--conf-dir", str(bad), "--no-plots", "--no-progress"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert str(bad / "capacity-scheduler.xml") in err and "is greater than its max value" in err


def test_rest_scheduler_info_shows_the_absolute_queues():
    """/ws/v1/cluster/scheduler: isAbsoluteResource, mode and the configured vectors of QueueResourceQuotas."""
    from yarnball.launcher.web._snapshot import take_snapshot

    builder = WorkloadBuilder().nodes(4, memory_mb=8 * GB, vcores=8)
    workload = builder.build()
    cluster = Cluster(ABSOLUTE, workload.nodes, seed=1)
    with captured_events():
        cluster.run(until_ms=2_000)
    info = take_snapshot(cluster).scheduler["schedulerInfo"]
    by_name = {q["queueName"]: q for q in info["queues"]["queue"]}
    a = by_name["a"]
    assert (a["isAbsoluteResource"], a["mode"]) == (True, "absolute")
    part = a["capacities"]["queueCapacitiesByPartition"][0]
    assert (part["configuredMinResource"]["memory"], part["configuredMinResource"]["vCores"]) == (12 * GB, 12)
    assert (part["configuredMaxResource"]["memory"], part["configuredMaxResource"]["vCores"]) == (16 * GB, 16)
    assert part["effectiveMinResource"]["memory"] == 12 * GB


def test_timed_refresh_to_absolute_capacities_in_a_running_cluster():
    """Cluster.refresh_queues at a simulated time: the queues switch to absolute resources mid-run."""
    builder = WorkloadBuilder().nodes(4, memory_mb=8 * GB, vcores=8)
    builder.job("j", queue="a", submit_ms=2_000, tasks=[task_spec(4, 20_000)])
    workload = builder.build()
    percent = {f"{CS}root.queues": "a,b", f"{CS}root.a.capacity": "50", f"{CS}root.b.capacity": "50"}
    cluster = Cluster(percent, workload.nodes, seed=1)
    cluster.submit_workload(workload)
    cluster.refresh_queues(ABSOLUTE, at_ms=10_000)
    with captured_events():
        cluster.run(until_ms=9_000)
    assert {q.path: q for q in cluster.queues}["root.a"].effective_min == Resource(16 * GB, 16)
    with captured_events():
        cluster.run(until_ms=600_000)
    assert {q.path: q for q in cluster.queues}["root.a"].effective_min == Resource(12 * GB, 12)
    assert [a.state.value for a in cluster.applications] == ["FINISHED"]
