"""CapacitySchedulerConfiguration: Hadoop's defaults, the shared capacity-scheduler.xml files, validation, ACLs."""

from __future__ import annotations

from pathlib import Path

import pytest
from structlog.testing import capture_logs

from yarnball.errors import ConfigurationError
from yarnball.policies.capacity._configuration import (
    AccessControlList,
    CapacitySchedulerConfiguration,
    QueueACL,
    QueueState,
    java_float_str,
)
from yarnball.protocols import Configuration, Resource

P = "yarn.scheduler.capacity."
FIFO_CLASS = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FifoOrderingPolicy"


def cs_of(mapping: dict[str, object]) -> CapacitySchedulerConfiguration:
    return CapacitySchedulerConfiguration(Configuration(mapping))


def two_queues(a: object = 50, b: object = 50, **extra: object) -> dict[str, object]:
    return {P + "root.queues": "a,b", P + "root.a.capacity": a, P + "root.b.capacity": b, **extra}


@pytest.fixture(name="sls_cs")
def fixture_sls_cs(shared_data: Path) -> CapacitySchedulerConfiguration:
    """The SLS sample-conf (yarn-site.xml + capacity-scheduler.xml)."""
    return CapacitySchedulerConfiguration(Configuration.from_conf_dir(shared_data / "sls" / "sample-conf"))


# -- defaults ---------------------------------------------------------------------------------------------------
def test_global_defaults_are_hadoops() -> None:
    """Every global getter returns Hadoop's default on an empty configuration."""
    cs = cs_of({})
    assert cs.get_maximum_system_applications() == 10000
    assert cs.get_maximum_application_master_resource_percent() == pytest.approx(0.1)
    assert cs.get_node_locality_delay() == 40
    assert cs.get_rack_locality_additional_delay() == -1
    assert cs.get_rack_locality_full_reset() is True
    assert cs.get_assign_multiple_enabled() is True
    assert cs.get_max_assign_per_heartbeat() == -1
    assert cs.get_offswitch_per_heartbeat_limit() == 1
    assert cs.get_resource_calculator() == "default"
    assert cs.get_minimum_allocation() == Resource(1024, 1)
    assert cs.get_maximum_allocation() == Resource(8192, 4)
    assert cs.get_reservation_continue_look() is True
    assert cs.get_lazy_preemption_enabled() is False


def test_queue_defaults_are_hadoops() -> None:
    """Per-queue getters return Hadoop's defaults for an unconfigured queue."""
    cs = cs_of({})
    q = "root.a"
    assert cs.get_queues(q) == [] and cs.is_leaf(q)
    assert cs.get_capacity(q) == 0.0
    assert cs.get_maximum_capacity(q) == 100.0
    assert cs.get_user_limit(q) == 100
    assert cs.get_user_limit_factor(q) == 1.0
    assert cs.get_maximum_am_resource_percent(q) == pytest.approx(0.1)
    assert cs.get_maximum_applications_per_queue(q) == -1
    assert cs.get_state(q) is QueueState.RUNNING
    assert cs.get_priority(q) == 0
    assert cs.get_ordering_policy(q) == "fifo"
    assert cs.get_enable_size_based_weight(q) is False
    assert cs.get_max_parallel_apps(q) is None
    assert cs.get_maximum_allocation(q) == Resource(8192, 4)


def test_root_capacity_is_always_100() -> None:
    """Root's capacity is fixed at 100 whatever is configured."""
    assert cs_of({P + "root.capacity": "50"}).get_capacity("root") == 100.0


def test_maximum_capacity_minus_one_means_100() -> None:
    """maximum-capacity -1 (UNDEFINED) reads as 100."""
    assert cs_of({P + "root.a.maximum-capacity": "-1"}).get_maximum_capacity("root.a") == 100.0


def test_queue_values_override_globals() -> None:
    """Queue settings win; the am percent and user-limit-factor fall back to global values."""
    cs = cs_of(
        {
            P + "maximum-am-resource-percent": "0.5",
            P + "user-limit-factor": "2",
            P + "root.a.maximum-am-resource-percent": "0.2",
            P + "root.a.maximum-allocation-mb": "4096",
            P + "root.a.max-parallel-apps": "3",
            P + "max-parallel-apps": "9",
        }
    )
    assert cs.get_maximum_am_resource_percent("root.a") == pytest.approx(0.2)
    assert cs.get_maximum_am_resource_percent("root.b") == pytest.approx(0.5)
    assert cs.get_user_limit_factor("root.b") == 2.0
    assert cs.get_maximum_allocation("root.a") == Resource(4096, 4)
    assert (cs.get_max_parallel_apps("root.a"), cs.get_max_parallel_apps("root.b")) == (3, 9)


def test_state_parsing() -> None:
    """state is case-insensitive; an unknown state names the key."""
    cs = cs_of({P + "root.a.state": "stopped", P + "root.b.state": "PAUSED"})
    assert cs.get_state("root.a") is QueueState.STOPPED
    with pytest.raises(ConfigurationError, match=r"root\.b\.state: No enum constant QueueState\.PAUSED"):
        cs.get_state("root.b")
    # (a value with a line break inside, found by tests/test_fuzz_configuration.py: the error stays on one line)
    cs = cs_of({P + "root.b.state": "0\n0"})
    with pytest.raises(ConfigurationError, match=r"root\.b\.state: No enum constant QueueState\.0\\n0 \(expected"):
        cs.get_state("root.b")


def test_ordering_policies() -> None:
    """fifo/fair (and Hadoop's class names) for leaves; utilization orderings for parents."""
    cs = cs_of(
        {
            P + "root.a.ordering-policy": "fair",
            P + "root.a.ordering-policy.fair.enable-size-based-weight": "true",
            P + "root.b.ordering-policy": FIFO_CLASS,
            P + "root.c.ordering-policy": "lifo",
            P + "root.ordering-policy": "priority-utilization",
        }
    )
    assert cs.get_ordering_policy("root.a") == "fair" and cs.get_enable_size_based_weight("root.a")
    assert cs.get_ordering_policy("root.b") == "fifo"
    assert cs.get_queue_ordering_policy("root") == "priority-utilization"
    assert cs.get_queue_ordering_policy("root.x") == "utilization"
    with pytest.raises(ConfigurationError, match="Unable to construct ordering policy for: lifo"):
        cs.get_ordering_policy("root.c")


def test_resource_calculator_names() -> None:
    """The calculator class maps to "default"/"dominant"; anything else is an error."""
    dominant = "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"
    assert cs_of({P + "resource-calculator": dominant}).get_resource_calculator() == "dominant"
    with pytest.raises(ConfigurationError, match="unknown resource calculator"):
        cs_of({P + "resource-calculator": "com.example.Mine"}).get_resource_calculator()


def test_absolute_resource_capacity_reads_as_percentages() -> None:
    """getNonLabeledQueueCapacity / ...MaximumCapacity: an absolute vector reads as 0 % capacity and 100 % maximum
    (its percentages are derived later); the vector itself is the configured resource. A weight reads as 0 % too,
    its value comes from getNonLabeledQueueWeight (-1 when not a weight)."""
    cs = cs_of(
        {
            P + "root.a.capacity": "[memory=1024,vcores=1]",
            P + "root.a.maximum-capacity": "[memory=4Gi,vcores=4]",
            P + "root.b.capacity": "2w",
        }
    )
    assert cs.get_capacity("root.a") == 0.0
    assert cs.get_maximum_capacity("root.a") == 100.0
    assert cs.is_absolute_resource("root.a")
    assert cs.get_minimum_resource_requirement("root.a") == (1024, 1)
    assert cs.get_maximum_resource_requirement("root.a") == (4096, 4)
    assert cs.get_capacity("root.b") == 0.0
    assert (cs.get_weight("root.b"), cs.get_weight("root.a")) == (2.0, -1.0)


def test_bad_weights_are_refused_naming_the_key() -> None:
    """A weight that does not parse (Float.parseFloat), and a weight as maximum-capacity, name their key."""
    with pytest.raises(ConfigurationError, match=r'root\.b\.capacity: For input string: "x"'):
        cs_of({P + "root.b.capacity": "xw"}).get_weight("root.b")
    with pytest.raises(ConfigurationError, match=r"root\.b\.maximum-capacity: a weight \('2w'\) is a capacity only"):
        cs_of({P + "root.b.maximum-capacity": "2w"}).get_maximum_capacity("root.b")


# -- shared files -----------------------------------------------------------------------------------------------
def test_sls_sample_conf_queues(sls_cs: CapacitySchedulerConfiguration) -> None:
    """The SLS sample tree: three leaves of 25/25/50 %, each max 100 %, and it validates."""
    sls_cs.validate()
    assert sls_cs.get_queues("root") == ["sls_queue_1", "sls_queue_2", "sls_queue_3"]
    assert [sls_cs.get_capacity(f"root.sls_queue_{i}") for i in (1, 2, 3)] == [25.0, 25.0, 50.0]
    assert {sls_cs.get_maximum_capacity(f"root.sls_queue_{i}") for i in (1, 2, 3)} == {100.0}
    assert sls_cs.get_maximum_system_applications() == 1000  # from yarn-site.xml
    assert sls_cs.get_queue_paths() == ["root", "root.sls_queue_1", "root.sls_queue_2", "root.sls_queue_3"]


@pytest.mark.parametrize(
    "name",
    [
        "rm-conf-capacity-scheduler.xml",
        "sls-sample-conf-capacity-scheduler.xml",
        "sls-test-resources-capacity-scheduler.xml",
    ],
)
def test_shared_capacity_files_validate(shared_data: Path, name: str) -> None:
    """Every capacity-scheduler.xml shipped with Hadoop validates."""
    conf = Configuration()
    conf.add_resource(shared_data / "hadoop-conf" / name)
    CapacitySchedulerConfiguration(conf).validate()


def test_hadoop_default_capacity_file(shared_data: Path) -> None:
    """Hadoop's shipped capacity-scheduler.xml: root.default at 100 %, open ACLs."""
    conf = Configuration()
    conf.add_resource(shared_data / "hadoop-conf" / "rm-conf-capacity-scheduler.xml")
    cs = CapacitySchedulerConfiguration(conf)
    assert cs.get_queues("root") == ["default"]
    assert cs.get_capacity("root.default") == 100.0
    assert cs.get_user_limit_factor("root.default") == 1.0
    assert cs.get_acl("root.default", QueueACL.SUBMIT_APPLICATIONS).all_allowed


# -- validation rules and their wording -------------------------------------------------------------------------
def test_children_sum_over_100_is_hadoops_message() -> None:
    """60 + 50 is rejected with ParentQueue's "Illegal capacity of 1.1 for children of queue root"."""
    with pytest.raises(ConfigurationError, match=r"root\.queues: Illegal capacity of 1\.1 for children of queue root$"):
        cs_of(two_queues(60, 50)).validate()


def test_children_sum_precision() -> None:
    """30 + 70.0001 is within ParentQueue.PRECISION; 30 + 70.5 is not (and prints as a Java float)."""
    cs_of(two_queues(30, "70.0001")).validate()
    with pytest.raises(ConfigurationError, match=r"Illegal capacity of 1\.005 for children of queue root"):
        cs_of(two_queues(30, "70.5")).validate()


def test_children_sum_under_100_rejected() -> None:
    """Children summing below 100 % are rejected too."""
    with pytest.raises(ConfigurationError, match=r"Illegal capacity of 0\.9 for children of queue root"):
        cs_of(two_queues(40, 50)).validate()


def test_zero_parent_needs_zero_children() -> None:
    """A parent at 0 % may only have 0 % children; all-zero children are fine."""
    base = {
        P + "root.queues": "a,b",
        P + "root.a.capacity": "0",
        P + "root.b.capacity": "100",
        P + "root.a.queues": "x,y",
    }
    cs_of(base).validate()
    with pytest.raises(ConfigurationError, match=r"root\.a\.queues: Illegal capacity of 0\.5 for children of queue a"):
        cs_of({**base, P + "root.a.x.capacity": "50"}).validate()


def test_nested_children_sum_is_checked() -> None:
    """A second-level parent's children must sum to 100 % of it."""
    mapping = {**two_queues(), P + "root.a.queues": "x,y", P + "root.a.x.capacity": "70", P + "root.a.y.capacity": "70"}
    with pytest.raises(ConfigurationError, match=r"Illegal capacity of 1\.4 for children of queue a"):
        cs_of(mapping).validate()


@pytest.mark.parametrize(("value", "printed"), [("150", "150.0"), ("-5", "-5.0")])
def test_capacity_out_of_range(value: str, printed: str) -> None:
    """A capacity outside [0, 100] is "Illegal capacity of <c> for queue <path>"."""
    with pytest.raises(
        ConfigurationError, match=rf"root\.a\.capacity: Illegal capacity of {printed} for queue root\.a$"
    ):
        cs_of(two_queues(value, 50)).validate()


def test_maximum_capacity_above_100_loads_as_in_hadoop_3() -> None:
    """Hadoop 3.x range-checks maximum-capacity only in setMaximumCapacity, so a file with 120 loads."""
    cs = cs_of(two_queues(**{P + "root.a.maximum-capacity": "120"}))
    cs.validate()
    assert cs.get_maximum_capacity("root.a") == 120.0


def test_negative_maximum_capacity_fails_the_sanity_check() -> None:
    """A negative maximum-capacity gives an absolute maximum of 0, below a positive capacity."""
    with pytest.raises(ConfigurationError, match=r"\(abs-maximum-capacity=0\.0\) for queue=\[root\.a\]"):
        cs_of(two_queues(**{P + "root.a.maximum-capacity": "-5"})).validate()


def test_capacity_above_maximum_capacity() -> None:
    """capacity > maximum-capacity is CSQueueUtils' abs-capacity message."""
    expected = (
        r"root\.a\.maximum-capacity: Illegal queue capacity setting \(abs-capacity=0\.5\) > "
        r"\(abs-maximum-capacity=0\.4\) for queue=\[root\.a\],label=\[\]"
    )
    with pytest.raises(ConfigurationError, match=expected):
        cs_of(two_queues(**{P + "root.a.maximum-capacity": "40"})).validate()


def test_child_absolute_capacity_above_parent_maximum() -> None:
    """Absolute values multiply down the tree: 100 % of a 50 % parent capped at 40 % of its 50 % max fails."""
    mapping = {
        **two_queues(**{P + "root.a.maximum-capacity": "50"}),
        P + "root.a.queues": "x",
        P + "root.a.x.capacity": "100",
        P + "root.a.x.maximum-capacity": "40",
    }
    with pytest.raises(
        ConfigurationError, match=r"abs-capacity=0\.5\) > \(abs-maximum-capacity=0\.2\) for queue=\[root\.a\.x\]"
    ):
        cs_of(mapping).validate()


def test_undeclared_queue_is_loaded_with_a_warning() -> None:
    """A key for a queue its parent does not list loads (Hadoop ignores it) with one warning naming key and queue."""
    with capture_logs() as logs:
        cs_of(two_queues(**{P + "root.c.capacity": "10", P + "root.c.state": "RUNNING"})).validate()
    warnings = [e["event"] for e in logs if e["log_level"] == "warning"]
    assert len(warnings) == 1
    assert "root.c.capacity: configures queue root.c, but its parent root does not declare it" in warnings[0]


def test_queue_properties_of_declared_queues_are_not_unknown() -> None:
    """Multi-part properties (user-settings, ordering-policy options, labels) are not mistaken for queues."""
    cs_of(
        two_queues(
            **{
                P + "root.a.user-settings.alice.weight": "2",
                P + "root.a.ordering-policy.fair.enable-size-based-weight": "true",
                P + "root.accessible-node-labels.gpu.capacity": "100",
                P + "root.b.acl_application_max_priority": "*",
            }
        )
    ).validate()


def test_root_without_children() -> None:
    """Root must have children: "Queue configuration missing child queue names for root"."""
    with pytest.raises(ConfigurationError, match="Queue configuration missing child queue names for root"):
        cs_of({}).validate()


def test_duplicate_leaf_names() -> None:
    """Two leaves with one short name are rejected with Hadoop 3.2's message."""
    mapping = {
        **two_queues(),
        P + "root.a.queues": "x",
        P + "root.b.queues": "x",
        P + "root.a.x.capacity": "100",
        P + "root.b.x.capacity": "100",
    }
    with pytest.raises(ConfigurationError, match=r"Two leaf queues were named x\. Leaf queue names must be distinct"):
        cs_of(mapping).validate()


def test_duplicate_child_in_one_list() -> None:
    """A child listed twice is the same leaf twice, so it is rejected too."""
    with pytest.raises(ConfigurationError, match="Two leaf queues were named a"):
        cs_of({P + "root.queues": "a,a", P + "root.a.capacity": "50"}).validate()


@pytest.mark.parametrize(
    ("overrides", "kind", "shown"),
    [
        ({"yarn.scheduler.minimum-allocation-mb": "9000"}, "memory", "minimum-allocation-mb=9000"),
        ({"yarn.scheduler.minimum-allocation-mb": "0"}, "memory", "minimum-allocation-mb=0"),
        ({"yarn.scheduler.maximum-allocation-vcores": "0"}, "vcores", "maximum-allocation-vcores=0"),
    ],
)
def test_min_max_allocation(overrides: dict[str, str], kind: str, shown: str) -> None:
    """min <= 0 or min > max is CapacitySchedulerConfigValidator's message."""
    expected = (
        rf"Invalid resource scheduler {kind} allocation configuration, .*{shown}.*, "
        r"min and max should be greater than 0, max should be no smaller than min\."
    )
    with pytest.raises(ConfigurationError, match=expected):
        cs_of(two_queues(**overrides)).validate()


def test_queue_maximum_allocation_above_cluster() -> None:
    """A queue's maximum allocation cannot exceed the cluster's."""
    expected = (
        r"Queue maximum allocation cannot be larger than the cluster setting for queue root\.a max allocation per "
        r"queue: <memory:9000, vCores:4> cluster setting: <memory:8192, vCores:4>"
    )
    with pytest.raises(ConfigurationError, match=expected):
        cs_of(two_queues(**{P + "root.a.maximum-allocation-mb": "9000"})).validate()


def test_queue_maximum_allocation_above_a_lowered_cluster_setting_names_the_cluster_key() -> None:
    """Lowering the cluster's maximum below a queue's names the cluster key too: it may be the one to change."""
    mapping = two_queues(
        **{P + "root.a.maximum-allocation-vcores": "4", "yarn.scheduler.maximum-allocation-vcores": "2"}
    )
    with pytest.raises(ConfigurationError) as raised:
        cs_of(mapping).validate()
    message = str(raised.value)
    assert P + "root.a.maximum-allocation-vcores" in message
    assert "(yarn.scheduler.maximum-allocation-vcores from mapping)" in message


@pytest.mark.parametrize(
    ("suffix", "value"),
    [
        ("user-limit-factor", "0"),
        ("user-limit-factor", "-3"),
        ("minimum-user-limit-percent", "1000"),  # TestLeafQueue uses 1000
        ("minimum-user-limit-percent", "0"),
        ("minimum-user-limit-percent", "33.3"),  # a float since Hadoop 3.3 (TestLeafQueue.testDecimalUserLimits)
        ("maximum-am-resource-percent", "1.5"),
        ("maximum-applications", "-7"),
    ],
)
def test_leaf_values_hadoop_loads_are_accepted(suffix: str, value: str) -> None:
    """Hadoop range-checks none of the leaf's user/AM settings (plain getInt/getFloat), so yarnball loads them."""
    cs_of(two_queues(**{P + "root.a." + suffix: value})).validate()


@pytest.mark.parametrize(
    "suffix", ["user-limit-factor", "maximum-am-resource-percent", "capacity", "minimum-user-limit-percent"]
)
@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e39"])
def test_non_finite_queue_floats_are_rejected(suffix: str, value: str) -> None:
    """NaN and Infinity (which Java's Float.parseFloat reads) are refused, naming the key."""
    with pytest.raises(ConfigurationError, match=rf"root\.a\.{suffix}: .*not a finite number"):
        cs_of(two_queues(**{P + "root.a." + suffix: value})).validate()


def test_user_limit_factor_minus_one_is_allowed() -> None:
    """-1 disables the user limit factor (Hadoop 3.3+)."""
    cs_of(two_queues(**{P + "root.a.user-limit-factor": "-1"})).validate()


def test_validation_error_names_file_and_line(tmp_path: Path) -> None:
    """Errors from XML name the file and line of the key at fault."""
    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(
        "<configuration>\n"
        f"<property><name>{P}root.queues</name><value>a,b</value></property>\n"
        f"<property><name>{P}root.a.capacity</name><value>60</value></property>\n"
        f"<property><name>{P}root.b.capacity</name><value>50</value></property>\n"
        "</configuration>\n"
    )
    conf = Configuration()
    conf.add_resource(path)
    with pytest.raises(ConfigurationError, match=rf"^{path}:2: {P}root\.queues: Illegal capacity of 1\.1"):
        CapacitySchedulerConfiguration(conf).validate()


def test_unparsable_number_in_validate_names_key() -> None:
    """A queue number that does not parse fails validate with the key."""
    with pytest.raises(ConfigurationError, match=r"root\.a\.capacity' = 'half': expected a floating-point number"):
        cs_of(two_queues("half")).validate()


# -- ACLs -------------------------------------------------------------------------------------------------------
def test_acl_defaults_root_everyone_others_nobody() -> None:
    """Root defaults to "*", other queues to " " (nobody)."""
    cs = cs_of({})
    assert cs.get_acl("root", QueueACL.SUBMIT_APPLICATIONS).is_user_allowed("anyone")
    child = cs.get_acl("root.a", QueueACL.ADMINISTER_QUEUE)
    assert not child.is_user_allowed("anyone", ["admins"]) and str(child) == " "


def test_acl_configured_keys() -> None:
    """acl_submit_applications / acl_administer_queue are read per queue."""
    cs = cs_of({P + "root.a.acl_submit_applications": "alice,bob devs", P + "root.acl_administer_queue": " "})
    submit = cs.get_acl("root.a", QueueACL.SUBMIT_APPLICATIONS)
    assert submit.is_user_allowed("bob") and submit.is_user_allowed("carol", ["devs"])
    assert not submit.is_user_allowed("carol", ["ops"])
    assert not cs.get_acl("root", QueueACL.ADMINISTER_QUEUE).is_user_allowed("alice")


@pytest.mark.parametrize(
    ("acl", "users", "groups", "everyone", "text"),
    [
        ("*", (), (), True, "*"),
        (" * ", (), (), True, "*"),
        ("", (), (), False, " "),
        (" ", (), (), False, " "),
        ("u1,u2,u1", ("u1", "u2"), (), False, "u1,u2 "),
        # Hadoop quirk: the first space ends the user list even after a comma.
        ("u1, u2 ,u1", ("u1",), ("u2", "u1"), False, "u1 u2,u1"),
        (" g1,g2", (), ("g1", "g2"), False, " g1,g2"),
        ("u1 g1, g2", ("u1",), ("g1", "g2"), False, "u1 g1,g2"),
        ("u1  g1", ("u1",), ("g1",), False, "u1 g1"),
    ],
)
def test_access_control_list_parsing(
    acl: str, users: tuple[str, ...], groups: tuple[str, ...], everyone: bool, text: str
) -> None:
    """Hadoop's "users groups" format: first space splits, commas separate, "*" is everyone."""
    parsed = AccessControlList(acl)
    assert (parsed.users, parsed.groups, parsed.all_allowed, str(parsed)) == (users, groups, everyone, text)


def test_acl_round_trips_through_str() -> None:
    """str() gives an ACL string that parses back to the same ACL."""
    acl = AccessControlList("a,b x,y")
    assert AccessControlList(str(acl)) == acl


def test_queue_acl_key_suffixes() -> None:
    """QueueACL names map to Hadoop's key suffixes."""
    assert QueueACL.SUBMIT_APPLICATIONS.key_suffix == "acl_submit_applications"
    assert QueueACL.ADMINISTER_QUEUE.key_suffix == "acl_administer_queue"


# -- Java float printing ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.1, "1.1"),
        (110, "110.0"),
        (-1, "-1.0"),
        (0.3 + 0.705, "1.005"),
        (1e-4, "1.0E-4"),
        (1e7, "1.0E7"),
        (0.0, "0.0"),
    ],
)
def test_java_float_str(value: float, text: str) -> None:
    """Floats print as Java's Float.toString does."""
    assert java_float_str(value) == text


def test_allow_zero_capacity_sum_lets_children_sum_to_zero() -> None:
    """Hadoop 3.3+: a parent with allow-zero-capacity-sum=true may have children summing to 0; without it, not."""
    mapping = {**two_queues(), P + "root.a.queues": "x,y", P + "root.a.x.capacity": "0", P + "root.a.y.capacity": "0"}
    with pytest.raises(ConfigurationError, match=r"Illegal capacity of 0\.0 for children of queue a"):
        cs_of(mapping).validate()
    cs_of({**mapping, P + "root.a.allow-zero-capacity-sum": "true"}).validate()
