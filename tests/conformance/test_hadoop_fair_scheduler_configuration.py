"""TestFairSchedulerConfiguration and TestConfigurableResource ported from Hadoop (trunk).

``parseResourceConfigValue``'s three forms and its messages, ``getIncrementAllocation``'s per-type keys; the custom
resource type ``test1`` of Hadoop's ``ResourceUtils.resetResourceTypes`` is passed as ``resource_types``. Hadoop's
``expectMessage`` checks a substring of the message, as ``match`` does here.
"""

from __future__ import annotations

import re

import pytest

from yarnball.errors import AllocationConfigurationException, ConfigurationError
from yarnball.policies.fair import ConfigurableResource, FairSchedulerConfiguration, parse_resource_config_value
from yarnball.protocols import Configuration, Resource
from yarnball.testing import captured_events

LONG_MAX = 2**63 - 1
CLUSTER = Resource(10 * 1024, 4)
EXPECTED = Resource(5 * 1024, 2)


def parse(value: str, missing: int = LONG_MAX, types: tuple[str, ...] = ()) -> ConfigurableResource:
    return parse_resource_config_value(value, missing, types)


def fails(value: str, message: str) -> None:
    with pytest.raises(AllocationConfigurationException, match=re.escape(message)):
        parse(value)


# -- testParseResourceConfigValue --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value",
    [
        "5120 mb 2 vcores", "2 vcores, 5120 mb", "5120 mb, 2 vcores", "2vcores,5120mb", "5120mb,2vcores",
        "5120mb   mb, 2    vcores", "5120 Mb, 2 vCores", "  5120 mb, 2 vcores  ", "  5120.3 mb, 2.35 vcores  ",
        "  5120. mb, 2. vcores  ",
    ],
)  # fmt: skip
def test_old_style_absolute_testParseResourceConfigValue(value: str) -> None:
    assert parse(value).get_resource() == EXPECTED


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("50% memory, 50% cpu", EXPECTED), ("50% Memory, 50% CpU", EXPECTED),
        ("50% memory, 100% cpu", Resource(5 * 1024, 4)), (" 100% cpu, 50% memory", Resource(5 * 1024, 4)),
        ("50% memory, 0% cpu", Resource(5 * 1024, 0)), ("50 % memory, 50 % cpu", EXPECTED),
        ("50%memory,50%cpu", EXPECTED), ("  50  %  memory,  50  %  cpu  ", EXPECTED),
        ("50.% memory, 50.% cpu", EXPECTED), ("10.9% memory, 50.6% cpu", Resource(int(1024 * 10 * 0.109), 2)),
        ("50%", EXPECTED),
    ],
)  # fmt: skip
def test_old_style_percentages_testParseResourceConfigValue(value: str, expected: Resource) -> None:
    assert parse(value).get_resource(CLUSTER) == expected


def test_new_style_with_a_custom_type_testParseResourceConfigValue() -> None:
    """The new ``name=value`` form, with the custom type test1 (missing: Long.MAX_VALUE or the ``missing`` given)."""
    types = ("test1",)
    expected = Resource(5 * 1024, 2, (("test1", LONG_MAX),))
    for value in ("vcores=2, memory-mb=5120", "memory-mb=5120, vcores=2", "vcores=2,memory-mb=5120",
                  " vcores = 2 , memory-mb = 5120 "):  # fmt: skip
        assert parse(value, types=types).get_resource() == expected
    expected = Resource(5 * 1024, 2, (("test1", 0),))
    for value in ("vcores=2, memory-mb=5120", "memory-mb=5120, vcores=2", "vcores=2,memory-mb=5120",
                  " vcores = 2 , memory-mb = 5120 "):  # fmt: skip
        assert parse(value, 0, types).get_resource() == expected
    cluster = Resource(10 * 1024, 4, (("test1", 8),))
    expected = Resource(5 * 1024, 2, (("test1", 4),))
    assert parse("50%", types=types).get_resource(cluster) == expected
    for value in ("vcores=2, memory-mb=5120, test1=4", "test1=4, vcores=2, memory-mb=5120",
                  "memory-mb=5120, test1=4, vcores=2", "vcores=2,memory-mb=5120,test1=4",
                  " vcores = 2 , memory-mb = 5120 , test1 = 4 "):  # fmt: skip
        assert parse(value, types=types).get_resource() == expected
    expected = Resource(4 * 1024, 3, (("test1", 8),))
    for value in ("vcores=75%, memory-mb=40%", "memory-mb=40%, vcores=75%", "vcores=75%,memory-mb=40%",
                  " vcores = 75 % , memory-mb = 40 % "):  # fmt: skip
        assert parse(value, types=types).get_resource(cluster) == expected
    expected = Resource(4 * 1024, 3, (("test1", 4),))
    for value in ("vcores=75%, memory-mb=40%, test1=50%", "test1=50%, vcores=75%, memory-mb=40%",
                  "memory-mb=40%, test1=50%, vcores=75%", "vcores=75%,memory-mb=40%,test1=50%",
                  " vcores = 75 % , memory-mb = 40 % , test1 = 50 % "):  # fmt: skip
        assert parse(value, types=types).get_resource(cluster) == expected


# -- the refusals ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1024", "Cannot parse resource values from input: 1024"),  # testNoUnits
        ("1024mb", "Cannot parse resource values from input: 1024mb"),  # testOnlyMemory
        ("1024vcores", "Cannot parse resource values from input: 1024vcores"),  # testOnlyCPU
        ("1o24vc0res", "Cannot parse resource values from input: 1o24vc0res"),  # testGibberish
        ("95%, 50% memory", "Missing resource: cpu"),  # testNoUnitsPercentage
        ("95A% cpu, 50% memory", "Invalid percentage of cpu: "),  # testInvalidNumPercentage
        ("50% cpu, 1024 mb", "Missing resource: memory"),  # testCpuPercentageMemoryAbsolute
        ("50% memory, 2 vcores", "Missing resource: cpu"),  # testMemoryPercentageCpuAbsolute
        ("1024 mb, 2 4 vcores", "Invalid value of vcores: "),  # testDuplicateVcoresDefinitionAbsolute
        ("2048 1024 mb, 2 vcores", "Invalid value of memory: "),  # testDuplicateMemoryDefinitionAbsolute
        ("50% memory, 50% 100%cpu", "Invalid percentage of cpu: "),  # testDuplicateVcoresDefinitionPercentage
        ("50% 80% memory, 100%cpu", "Invalid percentage of memory: "),  # testDuplicateMemoryDefinitionPercentage
        ("vcores = 75%, memory-mb = 40% 80%", '"40% 80%" is either not a non-negative number'),
        ("vcores = 75% 65%, memory-mb = 40%", '"75% 65%" is either not a non-negative number'),
        ("-10% memory, 50% cpu", "percentage should not be negative"),  # testMemoryPercentageNegativeValue
        ("10% memory, -10% cpu", "percentage should not be negative"),  # testCpuPercentageNegativeValue
        ("-20% memory, -10% cpu", "percentage should not be negative"),
        ("-50% cpu, 1024 mb", "Missing resource: memory"),  # testCpuPercentageMemoryAbsoluteCpuNegative
        ("50% cpu, -1024 mb", "Missing resource: memory"),  # testCpuPercentageMemoryAbsoluteMemoryNegative
        ("50% memory, -2 vcores", "Missing resource: cpu"),  # testMemoryPercentageCpuAbsoluteCpuNegative
        ("-50% memory, 2 vcores", "percentage should not be negative"),
        ("-2 vcores,5120 mb", "Invalid value of vcores"),  # testAbsoluteVcoresNegative
        ("2 vcores,-5120 mb", "Invalid value of memory"),  # testAbsoluteMemoryNegative
        ("-2 vcores, 5120 mb", "Invalid value of vcores"),  # testAbsoluteVcoresNegativeWithSpaces
        ("2 vcores, -5120 mb", "Invalid value of memory"),  # testAbsoluteMemoryNegativeWithSpaces
        ("5120mb   mb, -2    vcores", "Invalid value of vcores"),  # testAbsoluteVcoresNegativeWithMoreSpaces
        ("-5120mb   mb, 2    vcores", "Invalid value of memory"),  # testAbsoluteMemoryNegativeWithMoreSpaces
        ("  5120.3 mb, -2.35 vcores  ", "Invalid value of vcores"),  # testAbsoluteVcoresNegativeFractional
        ("  -5120.3 mb, 2.35 vcores  ", "Invalid value of memory"),  # testAbsoluteMemoryNegativeFractional
        ("2 vcores 5120 mb 555 mb", "Cannot parse resource values from input: 2 vcores 5120 mb 555 mb"),
        ("2 vcores 5120 MB 555 GB", "Cannot parse resource values from input: 2 vcores 5120 MB 555 GB"),
        ("memory-mb=-5120,vcores=2", "Invalid value of memory"),  # testParseNewStyleResourceMemoryNegative
        ("memory-mb=5120,vcores=-2", "Invalid value of vcores"),  # testParseNewStyleResourceVcoresNegative
        ("memory-mb=-5120, vcores=2", "Invalid value of memory"),
        ("memory-mb=5120, vcores=-2", "Invalid value of vcores"),
        (" vcores = 2 ,  memory-mb = -5120 ", "Invalid value of memory"),
        (" vcores = -2 ,  memory-mb = 5120 ", "Invalid value of vcores"),
        ("vcores=-75%,memory-mb=40%", "is either not a non-negative number"),
        ("vcores=75%,memory-mb=-40%", "is either not a non-negative number"),
        ("vcores=-75%, memory-mb=40%", "is either not a non-negative number"),
        ("vcores=75%, memory-mb=-40%", "is either not a non-negative number"),
        ("vcores = -75%, memory-mb = 40%", "is either not a non-negative number"),
        ("vcores = 75%, memory-mb = -40%", "is either not a non-negative number"),
    ],
)
def test_refused_values(value: str, message: str) -> None:
    """testNoUnits ... testParseNewStyleResourceWithPercentagesMemoryNegativeWithMoreSpaces (one case each)."""
    fails(value, message)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("vcores=2,memory-mb=-5120,test1=4", "Invalid value of memory"),
        ("vcores=-2,memory-mb=-5120,test1=4", "Invalid value of vcores"),
        ("vcores=2,memory-mb=5120,test1=-4", "Invalid value of test1"),
        (" vcores = 2 , memory-mb = 5120 , test1 = -4 ", "Invalid value of test1"),
    ],
)
def test_custom_type_refusals_testParseNewStyleResourceWithCustomResourceNegative(value: str, message: str) -> None:
    """testParseNewStyleResourceWithCustomResource{Memory,Vcores,}Negative(WithSpaces) and
    testParseNewStyleResourceWithPercentagesCustomResourceNegativeWithSpaces."""
    with pytest.raises(AllocationConfigurationException, match=re.escape(message)):
        parse(value, types=("test1",))


def test_testOldStyleResourcesSeparatedBySpaces() -> None:
    assert parse("2 vcores, 5120 mb").get_resource() == EXPECTED


def test_full_messages_are_hadoop_s() -> None:
    """The whole messages of parseResourceConfigValue's refusals (Hadoop's strings)."""
    cases = {
        "  ": "Error reading resource config--the resource string is empty.",
        "memory-mb=1024, vcores": "Error reading resource config--invalid resource definition: memory-mb=1024, "
        "vcores. Every resource must be of the form: name=value.",
        "memory-mb=1k, vcores=1": "Error reading resource config--invalid resource definition: memory-mb=1k, "
        'vcores=1. The resource values must all be integers. "1k" is not an integer.',
        "memory=1024, vcores=1": "Error reading resource config--invalid resource definition: memory=1024, "
        'vcores=1. The resource name, "memory" was not recognized. Please check the value of yarn.resource-types '
        "in the Resource Manager's configuration files.",
        "memory-mb=-1, vcores=1": "Invalid value of memory-mb: -1, value should not be negative!",
        "-5% memory, 5% cpu": "Invalid percentage: -5% memory, percentage should not be negative!",
        "99999999999 mb, 1 vcores": "Error reading resource config (NumberFormatException: For input string: "
        '"99999999999")',
    }
    for value, message in cases.items():
        with pytest.raises(AllocationConfigurationException) as err:
            parse(value)
        assert str(err.value) == message


# -- getIncrementAllocation ----------------------------------------------------------------------------------------
def _increment(**values: str) -> Resource:
    return FairSchedulerConfiguration(Configuration(values)).get_increment_allocation()


def test_testAllocationIncrementMemoryDefaultUnit() -> None:
    assert _increment(**{"yarn.resource-types.memory-mb.increment-allocation": "256"}).memory_mb == 256


def test_testAllocationIncrementMemoryNonDefaultUnit() -> None:
    assert _increment(**{"yarn.resource-types.memory-mb.increment-allocation": "1 Gi"}).memory_mb == 1024


def test_testAllocationIncrementInvalidUnit() -> None:
    with pytest.raises(ConfigurationError, match=re.escape("Unknown unit 'Xi'")):
        _increment(**{"yarn.resource-types.memory-mb.increment-allocation": "1 Xi"})


def test_testAllocationIncrementVCoreNoUnit() -> None:
    assert _increment(**{"yarn.resource-types.vcores.increment-allocation": "10"}).vcores == 10


def test_testAllocationIncrementVCoreWithUnit() -> None:
    assert _increment(**{"yarn.resource-types.vcores.increment-allocation": "1k"}).vcores == 1000


def test_testAllocationIncrementCustomResource() -> None:
    conf = Configuration(
        {"yarn.resource-types": "a-custom-resource", "yarn.resource-types.a-custom-resource.increment-allocation": "10"}
    )
    assert FairSchedulerConfiguration(conf).get_increment_allocation().extended == (("a-custom-resource", 10),)


@pytest.mark.parametrize(("kind", "legacy"), [("memory-mb", "mb"), ("vcores", "vcores")])
def test_testMemoryIncrementConfiguredViaMultipleProperties(kind: str, legacy: str) -> None:
    """testMemoryIncrementConfiguredViaMultipleProperties and testCpuIncrementConfiguredViaMultipleProperties: the
    per-type key wins, with Hadoop's warning."""
    conf = Configuration(
        {f"yarn.scheduler.increment-allocation-{legacy}": "7", f"yarn.resource-types.{kind}.increment-allocation": "13"}
    )
    with captured_events() as logs:
        increment = FairSchedulerConfiguration(conf).get_increment_allocation()
    assert (increment.memory_mb if kind == "memory-mb" else increment.vcores) == 13
    assert f"Configuration yarn.resource-types.{kind}.increment-allocation=13 is overriding the " \
           f"yarn.scheduler.increment-allocation-{legacy}=7 property" in [e["event"] for e in logs]  # fmt: skip


def test_increment_without_the_per_type_keys_does_not_warn() -> None:
    """The legacy keys alone (or nothing: their defaults) set the increment without the override warning."""
    with captured_events() as logs:
        assert _increment() == Resource(1024, 1)
        assert _increment(**{"yarn.scheduler.increment-allocation-mb": "512"}) == Resource(512, 1)
    assert [e for e in logs if "overriding" in e["event"]] == []


# -- TestConfigurableResource --------------------------------------------------------------------------------------
def test_testGetResourceWithPercentage() -> None:
    resource = ConfigurableResource(None, (0.5, 0.5))
    assert resource.get_resource(Resource(2048, 2)) == Resource(1024, 1)
    assert resource.get_resource() is None
    assert resource.get_resource(None) is None


def test_testGetResourceWithAbsolute() -> None:
    resource = ConfigurableResource(Resource(3072, 3))
    assert resource.get_resource() == Resource(3072, 3)
    assert resource.get_resource(Resource(2048, 2)) == Resource(3072, 3)
    assert resource.get_resource(None) == Resource(3072, 3)
