"""The RM, its services, the launcher and the web reach the scheduler only through ``ResourceScheduler``, built by the
factory from ``yarn.resourcemanager.scheduler.class``; the monitors drive ``SchedulingEditPolicy`` objects."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from yarnball import Cluster
from yarnball.errors import ConfigurationError
from yarnball.launcher import cli
from yarnball.launcher._clusterconf import normalized_conf
from yarnball.launcher.workloads import WorkloadBuilder, task_spec
from yarnball.policies.capacity import CapacityScheduler
from yarnball.policies.capacity._recovery import RecoveringCapacityScheduler
from yarnball.policies.scheduler import (
    CAPACITY_SCHEDULER,
    FAIR_SCHEDULER,
    FIFO_SCHEDULER,
    create_edit_policy,
    create_recovering_scheduler,
    create_scheduler,
    monitor_policies,
    rest_scheduler_type,
    scheduler_class,
)
from yarnball.protocols import Configuration, keys

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "yarnball"
TRACE = ROOT / "examples" / "traces" / "sample-sls.json"
NODES = ROOT / "examples" / "traces" / "sample-nodes.json"


def _conf(settings: dict[str, str] | None = None) -> Configuration:
    """Hadoop's shipped capacity-scheduler.xml (one root.default queue) plus ``settings``."""
    return normalized_conf(dict(settings or {}))


def _reaches_capacity_scheduler(path: Path) -> list[str]:
    """Each place in ``path`` that names CapacityScheduler or imports from yarnball.policies.capacity."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("yarnball.policies.capacity"):
            found.append(f"line {node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Import):
            found += [
                f"line {node.lineno}: import {a.name}"
                for a in node.names
                if a.name.startswith("yarnball.policies.capacity")
            ]
        names = {a.name for a in node.names} if isinstance(node, (ast.Import, ast.ImportFrom)) else set()
        if (
            (isinstance(node, ast.Name) and node.id == "CapacityScheduler")
            or (isinstance(node, ast.Attribute) and node.attr == "CapacityScheduler")
            or "CapacityScheduler" in names
        ):
            found.append(f"line {node.lineno}: CapacityScheduler")
    return found


@pytest.mark.parametrize("package", ["actors", "launcher"])
def test_actors_and_launcher_reach_the_scheduler_only_through_its_interface(package: str) -> None:
    """No module of yarnball/actors or yarnball/launcher (the web included) names CapacityScheduler or imports from
    yarnball.policies.capacity: the factory (policies/scheduler/_factory.py) is the one place that does."""
    offenders = {
        str(path.relative_to(PACKAGE)): where
        for path in sorted((PACKAGE / package).rglob("*.py"))
        if (where := _reaches_capacity_scheduler(path))
    }
    assert offenders == {}


def test_the_scan_finds_a_reach_in() -> None:
    """The scan itself sees a name, an attribute and an import (it is no vacuous pass)."""
    factory = PACKAGE / "policies" / "scheduler" / "_factory.py"
    assert any("CapacityScheduler" in w for w in _reaches_capacity_scheduler(factory))
    assert any("import" in w for w in _reaches_capacity_scheduler(factory))


# -- the factory ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [CAPACITY_SCHEDULER, "CapacityScheduler", f"  {CAPACITY_SCHEDULER}\n"])
def test_the_factory_builds_the_capacity_scheduler_by_its_full_or_simple_name(name: str) -> None:
    """yarn.resourcemanager.scheduler.class names the CapacityScheduler in full or by its simple name (trimmed)."""
    conf = _conf({keys.RM_SCHEDULER: name})
    assert scheduler_class(conf) == CAPACITY_SCHEDULER
    assert type(create_scheduler(conf, cluster_timestamp=7)) is CapacityScheduler


def test_the_factory_builds_the_capacity_scheduler_by_default() -> None:
    """Without the key the scheduler is the CapacityScheduler (Hadoop's default)."""
    scheduler = create_scheduler(_conf(), cluster_timestamp=1)
    assert type(scheduler) is CapacityScheduler
    assert rest_scheduler_type(scheduler) == "capacityScheduler"


def test_the_recovering_scheduler_numbers_containers_from_its_epoch() -> None:
    """The restarted RM's scheduler is the recovering CapacityScheduler of that epoch."""
    scheduler = create_recovering_scheduler(_conf(), cluster_timestamp=1, epoch=3)
    assert isinstance(scheduler, RecoveringCapacityScheduler) and scheduler.epoch == 3


@pytest.mark.parametrize(
    "name", [FAIR_SCHEDULER, "FairScheduler", "org.apache.hadoop.yarn.sls.scheduler.SLSFairScheduler"]
)
def test_the_factory_builds_the_fair_scheduler_by_its_full_or_simple_name(name: str) -> None:
    """A FairScheduler (or SLS's wrapper of it) is built, without a warning, and its REST type is fairScheduler."""
    from yarnball.policies.fair._fairscheduler import FairScheduler

    conf = _conf({keys.RM_SCHEDULER: name})
    scheduler = create_scheduler(conf, cluster_timestamp=1)
    assert type(scheduler) is FairScheduler
    assert rest_scheduler_type(scheduler) == "fairScheduler"


@pytest.mark.parametrize("name", [FIFO_SCHEDULER, "FifoScheduler"])
def test_the_factory_builds_the_fifo_scheduler_by_its_full_or_simple_name(name: str) -> None:
    """A FifoScheduler is built, without a warning, and its REST type is fifoScheduler."""
    from yarnball.policies.fifo import FifoScheduler

    conf = _conf({keys.RM_SCHEDULER: name})
    scheduler = create_scheduler(conf, cluster_timestamp=1)
    assert type(scheduler) is FifoScheduler
    assert rest_scheduler_type(scheduler) == "fifoScheduler"


def test_an_unknown_scheduler_class_is_refused_naming_the_key_and_the_known_classes() -> None:
    """Any other class is a ConfigurationError naming the key, the value and the known classes."""
    conf = _conf({keys.RM_SCHEDULER: "org.example.MyScheduler"})
    with pytest.raises(ConfigurationError) as err:
        create_scheduler(conf, cluster_timestamp=1)
    text = str(err.value)
    assert keys.RM_SCHEDULER in text and "org.example.MyScheduler" in text and CAPACITY_SCHEDULER in text
    with pytest.raises(ConfigurationError):
        scheduler_class(conf)


def test_an_unknown_scheduler_class_exits_2_naming_the_key(tmp_path: Path, capsys: Any) -> None:
    """yarnball simulate --conf yarn.resourcemanager.scheduler.class=<unknown> exits 2 with one line naming the key."""
    argv = [
        "simulate", "--tracelocation", str(TRACE), "--nodes", str(NODES), "--output-dir", str(tmp_path / "out"),
        "--no-plots", "--no-progress", "--conf", f"{keys.RM_SCHEDULER}=org.example.MyScheduler",
    ]  # fmt: skip
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("yarnball: error:")]
    assert len(lines) == 1 and keys.RM_SCHEDULER in lines[0] and "org.example.MyScheduler" in lines[0], err
    assert not (tmp_path / "out" / "summary.json").exists()


def test_an_unknown_scheduler_class_in_a_conf_dir_is_refused(tmp_path: Path) -> None:
    """A conf directory whose yarn-site.xml names an unknown scheduler class is refused as it is read."""
    from yarnball.launcher._settings import load_conf_dir

    (tmp_path / "yarn-site.xml").write_text(
        f"<configuration><property><name>{keys.RM_SCHEDULER}</name><value>Nope</value></property></configuration>"
    )
    with pytest.raises(ConfigurationError, match=keys.RM_SCHEDULER.replace(".", r"\.")):
        load_conf_dir(tmp_path)


def test_sls_runner_scheduler_metrics_keys_are_read_and_checked(tmp_path: Path, caplog: Any) -> None:
    """sls-runner.xml keys SLS's SchedulerMetrics class by each scheduler's class name: known keys (no "not
    modelled" warning for them), and a metrics class that is not the running scheduler's is refused naming the key."""
    from yarnball.launcher._settings import load_conf_dir
    from yarnball.policies.scheduler import validate_scheduler_configuration

    props = "".join(
        f"<property><name>{name}</name><value>{value}</value></property>"
        for name, value in (
            (keys.SLS_CAPACITY_SCHEDULER_METRICS, keys.DEFAULT_SLS_CAPACITY_SCHEDULER_METRICS),
            (keys.SLS_FAIR_SCHEDULER_METRICS, keys.DEFAULT_SLS_FAIR_SCHEDULER_METRICS),
            (keys.SLS_FIFO_SCHEDULER_METRICS, keys.DEFAULT_SLS_FIFO_SCHEDULER_METRICS),
        )
    )
    (tmp_path / "sls-runner.xml").write_text(f"<configuration>{props}</configuration>")
    with caplog.at_level("WARNING"):
        conf = load_conf_dir(tmp_path)
    assert "not modelled" not in caplog.text
    conf = normalized_conf(conf)
    validate_scheduler_configuration(conf)
    conf.set(keys.SLS_CAPACITY_SCHEDULER_METRICS, keys.DEFAULT_SLS_FAIR_SCHEDULER_METRICS)
    with pytest.raises(ConfigurationError, match="CapacitySchedulerMetrics"):
        validate_scheduler_configuration(conf)


# -- the edit policies ---------------------------------------------------------------------------------------------
def test_the_monitor_keys_name_edit_policies_in_full_or_by_simple_name() -> None:
    """yarn.resourcemanager.scheduler.monitor.policies gives the policies' full class names; an unknown one raises."""
    conf = Configuration(
        {
            keys.RM_SCHEDULER_ENABLE_MONITORS: "true",
            keys.RM_SCHEDULER_MONITOR_POLICIES: "ProportionalCapacityPreemptionPolicy,"
            + keys.AUTO_CREATED_QUEUE_DELETION_POLICY,
        }
    )
    named = [keys.DEFAULT_RM_SCHEDULER_MONITOR_POLICIES, keys.AUTO_CREATED_QUEUE_DELETION_POLICY]
    assert monitor_policies(conf) == named
    conf.set(keys.RM_SCHEDULER_MONITOR_POLICIES, "org.example.MyPolicy")
    with pytest.raises(ConfigurationError, match="unsupported scheduling edit policy"):
        monitor_policies(conf)


class _Context:
    """An EditPolicyContext recording what the policy tells the RM."""

    def __init__(self) -> None:
        self.told: list[Any] = []
        self.log = _Log()

    def now_ms(self) -> int:
        return 0

    def tell_rm(self, event: Any) -> None:
        self.told.append(event)


class _Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def info(self, event: str, **_: Any) -> None:
        self.lines.append(event)

    warning = info


@pytest.mark.parametrize(
    "policy",
    [
        keys.DEFAULT_RM_SCHEDULER_MONITOR_POLICIES,
        keys.AUTO_CREATED_QUEUE_DELETION_POLICY,
        keys.QUEUE_MANAGEMENT_DYNAMIC_EDIT_POLICY,
    ],
)
def test_each_edit_policy_runs_through_the_scheduling_edit_policy_calls(policy: str) -> None:
    """Each policy takes init(conf, context, scheduler), names itself, gives a positive interval and runs a round."""
    conf = _conf()
    scheduler = create_scheduler(conf, cluster_timestamp=1)
    edit = create_edit_policy(policy)
    edit.init(conf, _Context(), scheduler)
    assert edit.get_policy_name() == policy.rsplit(".", 1)[1]
    assert edit.get_monitoring_interval() > 0
    edit.edit_schedule()  # an idle cluster: nothing to do, no error


def test_an_edit_policy_refuses_a_scheduler_it_cannot_edit() -> None:
    """As Hadoop's policies cast their scheduler, a policy bound to another scheduler class fails its init."""
    edit = create_edit_policy(keys.DEFAULT_RM_SCHEDULER_MONITOR_POLICIES)
    with pytest.raises(ConfigurationError, match="needs the CapacityScheduler"):
        edit.init(Configuration(), _Context(), object())  # type: ignore[arg-type]


def test_the_rm_holds_the_factory_s_scheduler() -> None:
    """A Cluster's RM runs the scheduler the factory built, and the web's scheduler info is the CapacityScheduler's."""
    workload = WorkloadBuilder().nodes(1, memory_mb=4096, vcores=4).job("j", tasks=[task_spec(1, 1_000)]).build()
    cluster = Cluster({}, workload.nodes)
    assert type(cluster.rm.scheduler) is CapacityScheduler
    assert rest_scheduler_type(cluster.rm.scheduler) == "capacityScheduler"
