"""Hadoop's TestFSConfigToCSConfigConverter, method by method, on its test resources (tests/fixtures/fs2cs/).

Hadoop's ``setup`` configures fair-scheduler-conversion.xml in migration mode with user-as-default-queue, and
``createConverter`` a converter whose placement rules conversion is off (``convert(params)`` takes the params' flag
instead). Its rule handler is a Mockito mock that does nothing: here the converter's own handler, whose rules all
default to WARNING, does the same. Hadoop reads the converted keys through CapacitySchedulerConfiguration's typed
getters, which fall back to the global values; so does :func:`_typed`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fs2cs_helpers import FIXTURES

from yarnball.errors import (
    AllocationConfigurationException,
    ConfigurationError,
    ConversionException,
    PreconditionException,
    UnsupportedPropertyException,
)
from yarnball.policies.capacity._configuration import CapacitySchedulerConfiguration, QueueACL
from yarnball.policies.fair.converter import (
    ConversionOptions,
    FSConfigToCSConfigConverter,
    FSConfigToCSConfigConverterParams,
    FSConfigToCSConfigRuleHandler,
    PreemptionMode,
    RuleAction,
)
from yarnball.policies.fair.converter._rulehandler import (
    CHILD_STATIC_DYNAMIC_CONFLICT,
    DYNAMIC_MAX_ASSIGN,
    FAIR_AS_DRF,
    MAX_CAPACITY_PERCENTAGE,
    MAX_CHILD_CAPACITY,
    MAX_RESOURCES,
    MIN_RESOURCES,
    PARENT_CHILD_CREATE_DIFFERS,
    PARENT_DYNAMIC_CREATE,
    QUEUE_AUTO_CREATE,
    RESERVATION_SYSTEM,
)
from yarnball.protocols import Configuration, Resource
from yarnball.protocols import keys as k

CLUSTER_RESOURCE_STRING = "vcores=20, memory-mb=240"
FAIR_SCHEDULER_XML = "fair-scheduler-conversion.xml"
YARN_SITE_XML = "yarn-site-with-allocation-file-ref.xml"
ADMINS_ALICE, ADMINS_BOB = "root.admins.alice", "root.admins.bob"
USERS_JOE, USERS_JOHN = "root.users.joe", "root.users.john"
DRC = k.DOMINANT_RESOURCE_CALCULATOR_CLASS


def _file(name: str) -> str:
    """``prepareFileName``: a ``file:`` URI of a test resource."""
    return f"file:{FIXTURES / name}"


def _config(allocation: str = FAIR_SCHEDULER_XML, *, user_as_default_queue: bool = True) -> Configuration:
    """``setup``'s Configuration(false)."""
    conf = Configuration({k.ALLOCATION_FILE: _file(allocation), k.MIGRATION_MODE: "true"})
    if user_as_default_queue:
        conf.set("yarn.scheduler.fair.user-as-default-queue", "true")
    return conf


def _converter(
    rule_handler: FSConfigToCSConfigRuleHandler | None = None, options: ConversionOptions | None = None
) -> FSConfigToCSConfigConverter:
    """``createConverter``: placement rules conversion off (``convert(params)`` sets the params' flag)."""
    converter = FSConfigToCSConfigConverter(rule_handler, options)
    converter.cluster_resource = Resource(16384, 16)
    converter.convert_placement_rules = False
    return converter


def _params(
    output: Path, yarn_site: str | None = YARN_SITE_XML, **settings: object
) -> FSConfigToCSConfigConverterParams:
    """``createDefaultParamsBuilder``: the yarn-site.xml and the output directory."""
    site = None if yarn_site is None else _file(yarn_site)
    return FSConfigToCSConfigConverterParams(yarn_site_xml_config=site, output_directory=str(output), **settings)  # type: ignore[arg-type]


def _typed(converter: FSConfigToCSConfigConverter) -> CapacitySchedulerConfiguration:
    """``getCapacitySchedulerConfig()`` read through CapacitySchedulerConfiguration's getters."""
    return CapacitySchedulerConfiguration(Configuration(dict(converter.cs_config.items())))


def test_testDefaultMaxAMShare() -> None:
    """testDefaultMaxAMShare: the global 0.16, alice's 0.15, joe (0.16, the default) falls back to the global."""
    converter = _converter()
    converter.convert_configuration(_config())
    conf = _typed(converter)
    assert conf.get_maximum_application_master_resource_percent() == pytest.approx(0.16)
    assert conf.get_maximum_am_resource_percent(ADMINS_ALICE) == pytest.approx(0.15)
    assert f"{k.CS_PREFIX}{USERS_JOE}.maximum-am-resource-percent" not in converter.cs_config
    assert conf.get_maximum_am_resource_percent(USERS_JOE) == pytest.approx(0.16)


def test_testDefaultUserLimitFactor() -> None:
    """testDefaultUserLimitFactor: leaves get user-limit-factor -1; root.users is an auto-creating parent."""
    converter = _converter()
    converter.convert_configuration(_config())
    conf = _typed(converter)
    assert conf.get_user_limit_factor("root.users") == 1.0
    assert conf.is_auto_queue_creation_v2_enabled("root.users")
    assert conf.get_user_limit_factor("root.default") == -1.0
    assert conf.get_user_limit_factor(USERS_JOE) == -1.0
    assert conf.get_user_limit_factor(ADMINS_BOB) == -1.0
    assert not conf.is_auto_queue_creation_v2_enabled(ADMINS_BOB)


def test_testDefaultMaxAMShareDisabled(tmp_path: Path) -> None:
    """testDefaultMaxAMShareDisabled: queueMaxAMShareDefault -1 is a global 1.0; bob's -1 and joe fall back to it."""
    converter = _converter()
    params = _params(
        tmp_path,
        cluster_resource=CLUSTER_RESOURCE_STRING,
        fair_scheduler_xml_config=_file("fair-scheduler-defaultMaxAmShareDisabled.xml"),
    )
    converter.convert(params)
    conf = _typed(converter)
    assert conf.get_maximum_application_master_resource_percent() == 1.0
    assert f"{k.CS_PREFIX}{ADMINS_BOB}.maximum-am-resource-percent" not in converter.cs_config
    assert conf.get_maximum_am_resource_percent(ADMINS_BOB) == 1.0
    assert conf.get_maximum_am_resource_percent(ADMINS_ALICE) == pytest.approx(0.15)
    assert conf.get_maximum_am_resource_percent(USERS_JOE) == 1.0


def test_testConvertACLs() -> None:
    """testConvertACLs: the submit and administer ACLs of root, bob, alice, john (*) and joe."""
    converter = _converter()
    converter.convert_configuration(_config())
    conf = _typed(converter)
    expected = {
        "root": "alice,bob,joe,john hadoop_users",
        ADMINS_BOB: "bob ",
        ADMINS_ALICE: "alice ",
        USERS_JOHN: "*",
        USERS_JOE: "joe ",
    }
    for queue, acl in expected.items():
        assert str(conf.get_acl(queue, QueueACL.SUBMIT_APPLICATIONS)) == acl, queue
        assert str(conf.get_acl(queue, QueueACL.ADMINISTER_QUEUE)) == acl, queue


def test_testDefaultQueueMaxParallelApps() -> None:
    """testDefaultQueueMaxParallelApps: queueMaxAppsDefault 15 is the global max-parallel-apps."""
    converter = _converter()
    converter.convert_configuration(_config())
    assert converter.cs_config.get(f"{k.CS_PREFIX}{k.MAX_PARALLEL_APPLICATIONS}") == "15"
    assert _typed(converter).get_max_parallel_apps("root.default") == 15


def test_testSpecificQueueMaxParallelApps() -> None:
    """testSpecificQueueMaxParallelApps: alice's maxRunningApps 2."""
    converter = _converter()
    converter.convert_configuration(_config())
    assert _typed(converter).get_max_parallel_apps(ADMINS_ALICE) == 2


def test_testDefaultUserMaxParallelApps() -> None:
    """testDefaultUserMaxParallelApps: userMaxAppsDefault 10."""
    converter = _converter()
    converter.convert_configuration(_config())
    assert converter.cs_config.get(f"{k.CS_PREFIX}user.{k.MAX_PARALLEL_APPLICATIONS}") == "10"


def test_testSpecificUserMaxParallelApps() -> None:
    """testSpecificUserMaxParallelApps: alice's 30; bob, joe and john fall back to the default 10."""
    converter = _converter()
    converter.convert_configuration(_config())
    conf = _typed(converter)
    assert conf.get_max_parallel_apps_for_user("alice") == 30
    for user in ("bob", "joe", "john"):
        assert f"{k.CS_PREFIX}user.{user}.{k.MAX_PARALLEL_APPLICATIONS}" not in converter.cs_config
        assert conf.get_max_parallel_apps_for_user(user) == 10


def test_testQueueMaxChildCapacityNotSupported() -> None:
    """testQueueMaxChildCapacityNotSupported: root.admins' maxChildResources aborts the conversion (Hadoop stubs the
    handler to throw; here its rule is set to abort)."""
    handler = FSConfigToCSConfigRuleHandler(properties={MAX_CHILD_CAPACITY: "abort"})
    with pytest.raises(UnsupportedPropertyException, match=r"^Setting <maxChildResources> is not supported$"):
        _converter(handler).convert_configuration(_config())


def test_testReservationSystemNotSupported() -> None:
    """testReservationSystemNotSupported: with the reservation system enabled the maxChildResources abort still
    stops the conversion; with reservationSystem=abort the reservation system stops it first."""
    conf = _config()
    conf.set("yarn.resourcemanager.reservation-system.enable", "true")
    handler = FSConfigToCSConfigRuleHandler(properties={MAX_CHILD_CAPACITY: "abort"})
    with pytest.raises(UnsupportedPropertyException, match="maxChildResources"):
        _converter(handler).convert_configuration(conf)
    handler = FSConfigToCSConfigRuleHandler(properties={MAX_CHILD_CAPACITY: "abort", RESERVATION_SYSTEM: "abort"})
    with pytest.raises(UnsupportedPropertyException, match=r"^Conversion of reservation system is not supported$"):
        _converter(handler).convert_configuration(conf)


@pytest.mark.parametrize(
    "method", ["testConvertFSConfigurationClusterResource", "testConvertFSConfigPctModeUsedAndClusterResourceDefined"]
)
def test_cluster_resource_is_parsed(tmp_path: Path, method: str) -> None:
    """testConvertFSConfigurationClusterResource, testConvertFSConfigPctModeUsedAndClusterResourceDefined: -c's
    "vcores=20, memory-mb=240" is <memory:240, vCores:20>."""
    converter = _converter()
    converter.convert(_params(tmp_path, cluster_resource=CLUSTER_RESOURCE_STRING))
    assert converter.cluster_resource == Resource(240, 20)


@pytest.mark.parametrize(
    "resource",
    ["vcores=20, memory-mb=240G", "vcores=20, memmmm=240"],
    ids=["testConvertFSConfigurationClusterResourceInvalid", "testConvertFSConfigurationClusterResourceInvalid2"],
)
def test_invalid_cluster_resource(tmp_path: Path, resource: str) -> None:
    """testConvertFSConfigurationClusterResourceInvalid and ...Invalid2: a ConversionException."""
    with pytest.raises(ConversionException, match=r"^Error while parsing resource\."):
        _converter().convert(_params(tmp_path, cluster_resource=resource))


def test_testConvertFSConfigurationRulesFile(tmp_path: Path) -> None:
    """testConvertFSConfigurationRulesFile: conversion-rules.properties is read (its aborts stop the conversion) and
    its rules are ABORT."""
    converter = _converter(FSConfigToCSConfigRuleHandler())
    params = _params(
        tmp_path,
        conversion_rules_config=str(FIXTURES / "conversion-rules.properties"),
        cluster_resource="vcores=20, memory-mb=2400",
    )
    with pytest.raises(UnsupportedPropertyException):
        converter.convert(params)
    actions = converter.rule_handler.actions
    rules = (MAX_CAPACITY_PERCENTAGE, MAX_CHILD_CAPACITY, DYNAMIC_MAX_ASSIGN, RESERVATION_SYSTEM, QUEUE_AUTO_CREATE)
    for rule in rules:
        assert actions[rule] is RuleAction.ABORT, rule


def test_testConvertFSConfigurationWithoutRulesFile(tmp_path: Path) -> None:
    """testConvertFSConfigurationWithoutRulesFile: every rule defaults to WARNING."""
    converter = _converter(FSConfigToCSConfigRuleHandler())
    converter.convert(_params(tmp_path, cluster_resource=CLUSTER_RESOURCE_STRING))
    actions = converter.rule_handler.actions
    rules = (
        MAX_CAPACITY_PERCENTAGE, MAX_CHILD_CAPACITY, DYNAMIC_MAX_ASSIGN, RESERVATION_SYSTEM, QUEUE_AUTO_CREATE,
        CHILD_STATIC_DYNAMIC_CONFLICT, PARENT_CHILD_CREATE_DIFFERS, FAIR_AS_DRF, MAX_RESOURCES, MIN_RESOURCES,
        PARENT_DYNAMIC_CREATE,
    )  # fmt: skip
    for rule in rules:
        assert actions[rule] is RuleAction.WARNING, rule


def test_testConvertFSConfigurationUndefinedYarnSiteConfig(tmp_path: Path) -> None:
    """testConvertFSConfigurationUndefinedYarnSiteConfig: a PreconditionException."""
    with pytest.raises(PreconditionException, match=r"^yarn-site\.xml configuration is not defined"):
        _converter().convert(_params(tmp_path, yarn_site=None))


def test_testConvertCheckOutputDir(tmp_path: Path) -> None:
    """testConvertCheckOutputDir: capacity-scheduler.xml, yarn-site.xml and (-e) mapping-rules.json are written."""
    params = _params(
        tmp_path, cluster_resource=CLUSTER_RESOURCE_STRING, convert_placement_rules=True, placement_rules_to_file=True
    )
    _converter().convert(params)
    for name in ("capacity-scheduler.xml", "yarn-site.xml", "mapping-rules.json"):
        assert (tmp_path / name).stat().st_size > 0, name
    conf = Configuration()
    conf.add_resource(str(tmp_path / "capacity-scheduler.xml"))
    assert conf.get(f"{k.CS_PREFIX}root.queues") is not None


def test_testFairSchedulerXmlIsNotDefinedNeitherDirectlyNorInYarnSiteXml(tmp_path: Path) -> None:
    """testFairSchedulerXmlIsNotDefinedNeitherDirectlyNorInYarnSiteXml: Hadoop's empty yarn-site.xml and no -f."""
    params = _params(tmp_path, yarn_site="yarn-site.xml", cluster_resource=CLUSTER_RESOURCE_STRING)
    with pytest.raises(PreconditionException, match=r"^fair-scheduler\.xml is not defined"):
        _converter().convert(params)


def test_testInvalidFairSchedulerXml(tmp_path: Path) -> None:
    """testInvalidFairSchedulerXml: malformed XML fails (Hadoop: a RuntimeException), naming the file and line."""
    params = _params(
        tmp_path,
        cluster_resource=CLUSTER_RESOURCE_STRING,
        fair_scheduler_xml_config=_file("fair-scheduler-invalid.xml"),
    )
    with pytest.raises(AllocationConfigurationException, match=r"fair-scheduler-invalid\.xml:\d+: malformed XML"):
        _converter().convert(params)


def test_testInvalidYarnSiteXml(tmp_path: Path) -> None:
    """testInvalidYarnSiteXml: malformed XML fails (Hadoop: a RuntimeException), naming the file and line."""
    params = _params(
        tmp_path, yarn_site="yarn-site-with-invalid-allocation-file-ref.xml", cluster_resource=CLUSTER_RESOURCE_STRING
    )
    with pytest.raises(ConfigurationError, match=r"yarn-site-with-invalid-allocation-file-ref\.xml:\d+: malformed"):
        _converter().convert(params)


def test_testConversionWithInvalidPlacementRules() -> None:
    """testConversionWithInvalidPlacementRules: a rule after a terminal one fails the FairScheduler's start (Hadoop:
    a ServiceStateException)."""
    with pytest.raises(AllocationConfigurationException, match="can never be reached"):
        _converter().convert_configuration(
            _config("fair-scheduler-invalidplacementrules.xml", user_as_default_queue=False)
        )


def test_testConversionWhenInvalidPlacementRulesIgnored(tmp_path: Path) -> None:
    """testConversionWhenInvalidPlacementRulesIgnored: with the terminal rule check off the conversion succeeds."""
    params = _params(
        tmp_path,
        cluster_resource=CLUSTER_RESOURCE_STRING,
        fair_scheduler_xml_config=_file("fair-scheduler-invalidplacementrules.xml"),
    )
    FSConfigToCSConfigConverter(None, ConversionOptions(no_terminal_rule_check=True)).convert(params)
    assert (tmp_path / "capacity-scheduler.xml").exists()


@pytest.mark.parametrize(
    ("method", "allocation", "calculator"),
    [
        ("testConversionWhenOnlyFairPolicyIsUsed", "fair-scheduler-onlyfairpolicy.xml", None),
        ("testConversionWhenMixedPolicyIsUsed", "fair-scheduler-orderingpolicy-mixed.xml", DRC),
    ],
)
def test_resource_calculator(tmp_path: Path, method: str, allocation: str, calculator: str | None) -> None:
    """testConversionWhenOnlyFairPolicyIsUsed, testConversionWhenMixedPolicyIsUsed: the DominantResourceCalculator
    only when a queue uses DRF."""
    converter = _converter()
    converter.convert(
        _params(tmp_path, cluster_resource=CLUSTER_RESOURCE_STRING, fair_scheduler_xml_config=_file(allocation))
    )
    assert converter.yarn_site.get(k.RESOURCE_CALCULATOR_CLASS) == calculator


@pytest.mark.parametrize(
    ("method", "allocation", "rules"),
    [
        ("testUserAsDefaultQueueWithPlacementRules", FAIR_SCHEDULER_XML, 5),
        ("testUserAsDefaultQueueWithoutPlacementRules", "fair-scheduler-noplacementrules.xml", 2),
    ],
)
def test_user_as_default_queue_rules(method: str, allocation: str, rules: int) -> None:
    """testUserAsDefaultQueueWithPlacementRules / ...WithoutPlacementRules: the file's 5 rules, or the 2 the
    FairScheduler creates by default, in mapping-rule-json."""
    converter = _converter()
    converter.convert_placement_rules = True
    converter.convert_configuration(_config(allocation))
    text = converter.cs_config.get(f"{k.CS_PREFIX}mapping-rule-json")
    assert text is not None
    assert len(json.loads(text)["rules"]) == rules


def test_testPlacementRulesConversionDisabled(tmp_path: Path) -> None:
    """testPlacementRulesConversionDisabled: the placement converter is not used (Hadoop verifies a mock): no
    mapping rule keys."""
    converter = _converter()
    params = _params(
        tmp_path,
        cluster_resource=CLUSTER_RESOURCE_STRING,
        fair_scheduler_xml_config=_file(FAIR_SCHEDULER_XML),
        convert_placement_rules=False,
    )
    converter.convert(params)
    assert not [key for key, _ in converter.cs_config.items() if "mapping" in key]


def test_testPlacementRulesConversionEnabled(tmp_path: Path) -> None:
    """testPlacementRulesConversionEnabled: the rules are converted and queue-mappings-override.enable is true."""
    converter = _converter()
    params = _params(
        tmp_path,
        cluster_resource=CLUSTER_RESOURCE_STRING,
        fair_scheduler_xml_config=_file(FAIR_SCHEDULER_XML),
        convert_placement_rules=True,
    )
    converter.convert(params)
    assert converter.cs_config.get(k.ENABLE_QUEUE_MAPPING_OVERRIDE) == "true"
    assert converter.cs_config.get(f"{k.CS_PREFIX}mapping-rule-json") is not None


@pytest.mark.parametrize(
    ("enabled", "expected"),
    [(True, True), (False, k.DEFAULT_SCHEDULE_ASYNCHRONOUSLY_ENABLE)],
    ids=["testConversionWhenAsyncSchedulingIsEnabled", "testConversionWhenAsyncSchedulingIsDisabled"],
)
def test_async_scheduling(tmp_path: Path, enabled: bool, expected: bool) -> None:
    """testConversionWhenAsyncSchedulingIsEnabled / ...Disabled: -a sets schedule-asynchronously.enable."""
    converter = FSConfigToCSConfigConverter(None, ConversionOptions(enable_async_scheduler=enabled))
    params = _params(
        tmp_path, cluster_resource=CLUSTER_RESOURCE_STRING, fair_scheduler_xml_config=_file(FAIR_SCHEDULER_XML)
    )
    converter.convert(params)
    site = Configuration(dict(converter.yarn_site.items()))
    assert site.get_bool(k.SCHEDULE_ASYNCHRONOUSLY_ENABLE, k.DEFAULT_SCHEDULE_ASYNCHRONOUSLY_ENABLE) is expected


def test_testSiteDisabledPreemptionWithObserveOnlyConversion(tmp_path: Path) -> None:
    """testSiteDisabledPreemptionWithObserveOnlyConversion: -dp observeonly sets preemption observe_only."""
    converter = _converter()
    converter.convert(_params(tmp_path, preemption_mode=PreemptionMode.OBSERVE_ONLY))
    cs = Configuration(dict(converter.cs_config.items()))
    assert cs.get_bool(k.PREEMPTION_OBSERVE_ONLY, False) is True
