"""The FairScheduler's configuration beyond the Hadoop ports: its yarn-site keys, the allocation file's bad inputs
(each refused with one line naming the file, the line and what was expected), Hadoop's sample file, the effective
per-queue values and the ACLs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fair_allocationfile import AllocationFileQueue, AllocationFileWriter

from yarnball.errors import AllocationConfigurationException, ConfigurationError
from yarnball.launcher._settings import is_read
from yarnball.policies.capacity import AccessControlList, QueueACL
from yarnball.policies.fair import (
    AllocationConfiguration,
    DefaultPlacementRule,
    FairSchedulerConfiguration,
    FSQueueType,
    SpecifiedPlacementRule,
    UserPlacementRule,
    max_share,
    reload_allocations,
)
from yarnball.protocols import Configuration, Resource
from yarnball.testing import captured_events

ALLOCATION_FILE = "yarn.scheduler.fair.allocation.file"


def write(tmp_path: Path, body: str, name: str = "fair-scheduler.xml") -> Path:
    path = tmp_path / name
    path.write_text(f'<?xml version="1.0"?>\n<allocations>\n{body}\n</allocations>\n', encoding="utf-8")
    return path


def load(path: Path, **conf: object) -> AllocationConfiguration:
    return reload_allocations(Configuration({ALLOCATION_FILE: str(path), **conf}))


# -- yarn-site keys ------------------------------------------------------------------------------------------------
def test_fair_scheduler_keys_have_hadoop_s_defaults() -> None:
    """FairSchedulerConfiguration's getters without any key set: Hadoop's defaults (fair.md §1.1)."""
    fs = FairSchedulerConfiguration(Configuration())
    assert fs.get_allocation_file() == "fair-scheduler.xml"
    assert fs.get_allow_undeclared_pools() and fs.get_user_as_default_queue()
    assert not fs.get_preemption_enabled() and fs.get_am_preemption_enabled("root.a")
    assert fs.get_preemption_utilization_threshold() == pytest.approx(0.8) and fs.get_wait_time_before_kill() == 15000
    assert fs.get_wait_time_before_next_starvation_check() == 10000
    assert not fs.get_size_based_weight() and not fs.get_assign_multiple() and fs.is_max_assign_dynamic()
    assert fs.get_max_assign() == -1 and fs.get_update_interval() == 500
    assert fs.get_locality_threshold_node() == -1.0 and fs.get_locality_threshold_rack() == -1.0
    assert fs.get_locality_delay_node_ms() == -1 and fs.get_locality_delay_rack_ms() == -1
    assert fs.get_reservable_nodes() == pytest.approx(0.05) and not fs.get_use_port_for_node_name()
    assert fs.get_increment_allocation() == Resource(1024, 1)
    assert fs.get_reservation_threshold() == Resource(2048, 2)
    assert not fs.is_migration_mode() and not fs.is_no_terminal_rule_check()


def test_fair_scheduler_keys_are_known_keys() -> None:
    """A yarn-site naming FairScheduler keys is not told they are unread (they are protocols/keys.py constants)."""
    for key in ("yarn.scheduler.fair.preemption", "yarn.scheduler.fair.assignmultiple", ALLOCATION_FILE):
        assert is_read(key), key


def test_per_queue_am_preemption_overrides_the_global_key() -> None:
    conf = Configuration(
        {"yarn.scheduler.fair.am.preemption": "false", "yarn.scheduler.fair.am.preemption.root.a": True}
    )
    fs = FairSchedulerConfiguration(conf)
    assert fs.get_am_preemption_enabled("root.a") and not fs.get_am_preemption_enabled("root.b")


def test_negative_update_interval_is_500_ms_with_hadoop_s_warning() -> None:
    fs = FairSchedulerConfiguration(Configuration({"yarn.scheduler.fair.update-interval-ms": -1}))
    with captured_events() as logs:
        assert fs.get_effective_update_interval() == 500
    assert "yarn.scheduler.fair.update-interval-ms is invalid, so using default value 500 ms instead" in [
        e["event"] for e in logs
    ]
    zero = FairSchedulerConfiguration(Configuration({"yarn.scheduler.fair.update-interval-ms": 0}))
    assert zero.get_effective_update_interval() == 0


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"yarn.scheduler.minimum-allocation-mb": 4096, "yarn.scheduler.maximum-allocation-mb": 2048},
            "Invalid resource scheduler memory allocation configuration: yarn.scheduler.minimum-allocation-mb=4096, "
            "yarn.scheduler.maximum-allocation-mb=2048.  Both values must be greater than or equal to 0and the "
            "maximum allocation value must be greater than or equal tothe minimum allocation value.",
        ),
        (
            {"yarn.scheduler.increment-allocation-vcores": 0},
            "Invalid resource scheduler vcores allocation configuration: yarn.scheduler.increment-allocation-vcores=0."
            " Values must be greater than 0.",
        ),
    ],
)
def test_validate_conf_refuses_with_hadoop_s_message(settings: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        FairSchedulerConfiguration(Configuration(settings)).validate_conf()


def test_validate_conf_accepts_a_zero_minimum() -> None:
    """The FairScheduler, unlike the CapacityScheduler, takes a minimum allocation of 0."""
    FairSchedulerConfiguration(Configuration({"yarn.scheduler.minimum-allocation-mb": 0})).validate_conf()


def test_bad_increment_value_names_the_key() -> None:
    conf = Configuration({"yarn.resource-types.memory-mb.increment-allocation": "1,5 Gi"})
    with pytest.raises(ConfigurationError, match=re.escape('is not in "value [unit]" format: 1,5 Gi')):
        FairSchedulerConfiguration(conf).get_increment_allocation()


# -- the allocation file: Hadoop's sample and the location ----------------------------------------------------------
def test_sls_sample_fair_scheduler_xml(shared_data: Path) -> None:
    """Hadoop's SLS sample-conf/fair-scheduler.xml: three weighted leaves with a minimum and a min-share timeout;
    the user's legacy maxRunningJobs is not a setting (only maxRunningApps is), userMaxAppsDefault is."""
    path = shared_data / "sls" / "sample-conf" / "fair-scheduler.xml"
    if not path.exists():
        pytest.skip("no shared sample-conf")
    conf = reload_allocations(Configuration(), path.parent)  # fair-scheduler.xml on the "classpath"
    leaves = ("root.sls_queue_1", "root.sls_queue_2", "root.sls_queue_3")
    assert conf.get_configured_queues(FSQueueType.LEAF) == leaves
    assert [conf.get_queue_weight(q) for q in leaves] == [0.25, 0.25, 0.5]
    assert all(conf.get_min_resources(q) == Resource(1024, 1) for q in leaves)
    assert all(conf.get_min_share_preemption_timeout(q) == 2000 for q in leaves)
    assert all(conf.get_scheduling_policy(q).name == "fair" for q in leaves)
    assert conf.get_user_max_apps("jenkins") == 1000 and conf.get_user_max_apps("anyone") == 1000
    assert conf.get_min_share_preemption_timeout("root") == 2**63 - 1  # no default in the file: Long.MAX_VALUE


def test_no_allocation_file_gives_the_defaults_and_yarn_site_placement(tmp_path: Path) -> None:
    """A relative name not in the configuration directory: Hadoop's warning, every default, placement from the
    yarn-site keys ([specified(false), default])."""
    conf = Configuration(
        {"yarn.scheduler.fair.allow-undeclared-pools": False, "yarn.scheduler.fair.user-as-default-queue": False}
    )
    with captured_events() as logs:
        allocations = reload_allocations(conf, tmp_path)
    assert "fair-scheduler.xml not found on the classpath." in [e["event"] for e in logs]
    assert allocations.source is None
    assert [type(r) for r in allocations.placement_policy.rules] == [SpecifiedPlacementRule, DefaultPlacementRule]
    assert allocations.get_queue_max_apps("root.a") == 2**31 - 1
    assert allocations.get_min_share_preemption_timeout("root") == -1  # setupRootQueueProperties runs only on a file


def test_missing_absolute_allocation_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(AllocationConfigurationException, match=re.escape(f"{tmp_path / 'none.xml'}: cannot read")):
        load(tmp_path / "none.xml")


def test_allocation_file_on_hdfs_cannot_be_read() -> None:
    conf = Configuration({ALLOCATION_FILE: "hdfs://nn:8020/etc/fair-scheduler.xml"})
    with pytest.raises(ConfigurationError, match="is on hdfs, which yarnball cannot read"):
        reload_allocations(conf)


# -- bad files -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ('<queue name="a">\n<maxRunningApps>x</maxRunningApps></queue>', 4,
         '<maxRunningApps> of queue root.a: For input string: "x" (expected an integer)'),
        ('<queue name="a">\n<weight></weight></queue>', 4,
         "<weight> of queue root.a holds no text (expected a number)"),
        ('<queue name="a"><weight>NaN</weight></queue>', 3, "NaN (yarnball: expected a finite number)"),
        ('<queue name="a"><aclSubmitApps/></queue>', 3, "<aclSubmitApps> of queue root.a holds no text"),
        ('<queue name="a"><schedulingPolicy>lottery</schedulingPolicy></queue>', 3,
         "lottery SchedulingPolicy class not found!"),
        ('<queue name="a"><minResources>1024</minResources></queue>', 3,
         "<minResources> of queue root.a: Cannot parse resource values from input: 1024"),
        ('<user name="u"><maxRunningApps>1.5</maxRunningApps></user>', 3,
         '<maxRunningApps> of user "u": For input string: "1.5"'),
        ("<queueMaxAMShareDefault>half</queueMaxAMShareDefault>", 3,
         '<queueMaxAMShareDefault>: For input string: "half" (expected a number)'),
        ("<queuePlacementPolicy/>", 3, "Empty configuration for QueuePlacementPolicy is not allowed"),
        ("<queuePlacementPolicy><rule name='specified'/></queuePlacementPolicy>", 3,
         "Could get past last queue placement rule without assigning"),
        ("<queuePlacementPolicy>\n<rule name='specified'><rule name='user'/></rule>\n<rule name='default'/>"
         "</queuePlacementPolicy>", 4,
         "Rule initialisation failed with exception (Parent rule should not be configured for Specified rule.)"),
        ("<queue name='a'>", 4, "malformed XML: mismatched tag"),
    ],
)  # fmt: skip
def test_bad_allocation_file_is_one_line_naming_file_and_line(
    tmp_path: Path, body: str, line: int, message: str
) -> None:
    path = write(tmp_path, body)
    with pytest.raises(AllocationConfigurationException) as err:
        load(path)
    text = str(err.value)
    assert text.startswith(f"{path}:{line}: "), text
    assert message in text and "\n" not in text


def test_top_level_element_must_be_allocations(tmp_path: Path) -> None:
    path = tmp_path / "fair-scheduler.xml"
    path.write_text("<configuration/>", encoding="utf-8")
    with pytest.raises(AllocationConfigurationException, match="top-level element not <allocations>"):
        load(path)


def test_doctype_is_refused_as_by_hadoop_s_secure_parser(tmp_path: Path) -> None:
    path = tmp_path / "fair-scheduler.xml"
    path.write_text('<!DOCTYPE a [<!ENTITY x "y">]><allocations/>', encoding="utf-8")
    with pytest.raises(AllocationConfigurationException, match="DOCTYPE is disallowed"):
        load(path)


def test_unknown_top_level_element_only_warns(tmp_path: Path) -> None:
    with captured_events() as logs:
        load(write(tmp_path, "<maxRunningJobs>3</maxRunningJobs>"))
    assert "Bad element in allocations file: maxRunningJobs" in [e["event"] for e in logs]


def test_max_below_min_only_warns(tmp_path: Path) -> None:
    queue = AllocationFileQueue("a", min_resources="2048 mb, 2 vcores", max_resources="1024 mb, 4 vcores")
    with captured_events() as logs:
        conf = load(AllocationFileWriter().add_queue(queue).write_to_file(tmp_path / "q.xml"))
    assert any("Queue root.a has max resources <memory:1024, vCores:4> less than min resources" in e["event"]
               for e in logs)  # fmt: skip
    settings = conf.init_fs_queue("root.a", conf.init_fs_queue("root"))
    assert max_share(settings, Resource(10240, 10)) == Resource(2048, 4)  # FSQueue.getMaxShare: componentwise max


def test_huge_timeout_wraps_as_java_s_long(tmp_path: Path) -> None:
    """``Long.parseLong(text) * 1000L`` overflows silently in Hadoop; the value is what Java computes."""
    timeout = "<minSharePreemptionTimeout>9223372036854775807</minSharePreemptionTimeout>"
    conf = load(write(tmp_path, f'<queue name="a">{timeout}</queue>'))
    assert conf.get_min_share_preemption_timeout("root.a") == -1000


# -- effective values ----------------------------------------------------------------------------------------------
def test_init_fs_queue_inherits_preemption_settings(tmp_path: Path) -> None:
    """updatePreemptionVariables: unset timeouts and thresholds come from the parent, root's from the file's
    defaults; a queue under a non-preemptable parent is not preemptable."""
    body = """
    <queue name="p"><fairSharePreemptionTimeout>30</fairSharePreemptionTimeout>
      <allowPreemptionFrom>false</allowPreemptionFrom>
      <queue name="c"><fairSharePreemptionThreshold>0.9</fairSharePreemptionThreshold></queue>
    </queue>
    <defaultMinSharePreemptionTimeout>10</defaultMinSharePreemptionTimeout>
    """
    conf = load(write(tmp_path, body))
    root = conf.init_fs_queue("root")
    parent = conf.init_fs_queue("root.p", root)
    child = conf.init_fs_queue("root.p.c", parent)
    assert (root.min_share_preemption_timeout, root.fair_share_preemption_timeout) == (10000, 2**63 - 1)
    assert root.fair_share_preemption_threshold == 0.5 and root.preemptable
    assert (child.min_share_preemption_timeout, child.fair_share_preemption_timeout) == (10000, 30000)
    assert child.fair_share_preemption_threshold == pytest.approx(0.9)
    assert not parent.preemptable and not child.preemptable and conf.is_preemptable("root.p.c")


def test_percentage_max_resources_follow_the_cluster(tmp_path: Path) -> None:
    """maxResources in percent is kept as a fraction; a percentage minimum counts as none (Hadoop keeps only
    ``getResource()``, null for percentages)."""
    queue = AllocationFileQueue("a", max_resources="50%", min_resources="memory-mb=10%, vcores=10%")
    conf = load(AllocationFileWriter().add_queue(queue).write_to_file(tmp_path / "q.xml"))
    settings = conf.init_fs_queue("root.a", conf.init_fs_queue("root"))
    assert max_share(settings, Resource(8192, 8)) == Resource(4096, 4)
    assert max_share(settings, Resource(16384, 16)) == Resource(8192, 8)
    assert settings.min_share == Resource(0, 0)


def test_acls_walk_up_to_the_root(tmp_path: Path) -> None:
    """ConfiguredYarnAuthorizer.checkPermission: a queue's list or any ancestor's; root allows everyone unless the
    file configures it."""
    queue = AllocationFileQueue("a", acl_submit_apps="alice admins", sub_queues=(AllocationFileQueue("b"),))
    conf = load(AllocationFileWriter().add_queue(queue).write_to_file(tmp_path / "q.xml"))
    assert conf.check_permission("root.a.b", QueueACL.SUBMIT_APPLICATIONS, "bob")  # root's default: everyone
    root = AllocationFileQueue("root", acl_submit_apps=" ", acl_administer_apps=" ", sub_queues=(queue,))
    conf = load(AllocationFileWriter().add_queue(root).write_to_file(tmp_path / "r.xml"))
    assert conf.get_queue_acls()["root"][QueueACL.SUBMIT_APPLICATIONS] == AccessControlList.nobody()
    assert conf.check_permission("root.a.b", QueueACL.SUBMIT_APPLICATIONS, "alice")
    assert conf.check_permission("root.a.b", QueueACL.SUBMIT_APPLICATIONS, "carol", ["admins"])
    assert not conf.check_permission("root.a.b", QueueACL.SUBMIT_APPLICATIONS, "bob")
    assert not conf.check_permission("root.a.b", QueueACL.ADMINISTER_QUEUE, "alice")


def test_empty_rule_set_keeps_the_rules_in_force(tmp_path: Path) -> None:
    """A queuePlacementPolicy holding no rule: Hadoop ignores the update, so the rules in force stay (at start-up,
    yarn-site's)."""
    first = load(write(tmp_path, "<queuePlacementPolicy><rule name='user'/></queuePlacementPolicy>"))
    path = write(tmp_path, "<queuePlacementPolicy> <notarule/> </queuePlacementPolicy>", "second.xml")
    conf = Configuration({ALLOCATION_FILE: str(path)})
    assert reload_allocations(conf, previous=first).placement_policy == first.placement_policy
    assert [type(r) for r in reload_allocations(conf).placement_policy.rules] == [
        SpecifiedPlacementRule, UserPlacementRule,
    ]  # fmt: skip


def test_placement_against_the_configured_queues(tmp_path: Path) -> None:
    """existing_queues: root and the configured queues, all static, as the QueueManager creates them."""
    body = """
    <queue name="eng" type="parent"/>
    <queuePlacementPolicy>
      <rule name="specified" create="false"/>
      <rule name="nestedUserQueue" create="true"><rule name="primaryGroup" create="false"/></rule>
      <rule name="reject"/>
    </queuePlacementPolicy>
    """
    conf = load(write(tmp_path, body))
    queues = conf.existing_queues()
    place = conf.placement_policy.place_application
    assert place("default", "ann", ["eng"], queues).queue == "root.eng.ann"
    assert place("root.eng", "ann", ["eng"], queues).queue == "root.eng"
    rejected = place("default", "bob", ["ops"], queues, app_id="application_1_0002")
    assert rejected.queue is None and "application_1_0002 submitted by user bob" in rejected.diagnostics
