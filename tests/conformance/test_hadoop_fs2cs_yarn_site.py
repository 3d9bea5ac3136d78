"""Hadoop's TestFSYarnSiteConverter: the yarn-site keys FSYarnSiteConverter writes."""

from __future__ import annotations

from yarnball.policies.fair.converter import ConvertedConfiguration, FSYarnSiteConverter, PreemptionMode
from yarnball.protocols import Configuration

POLICIES = "yarn.resourcemanager.scheduler.monitor.policies"
PCPP = "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy"
AUTO_REFRESH = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueConfigurationAutoRefreshPolicy"
AUTO_DELETION = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AutoCreatedQueueDeletionPolicy"
ASYNC = "yarn.scheduler.capacity.schedule-asynchronously.enable"


def _convert(
    site: dict[str, object] | None = None,
    drf: bool = False,
    async_scheduler: bool = False,
    percentage: bool = False,
    mode: PreemptionMode = PreemptionMode.ENABLED,
) -> tuple[ConvertedConfiguration, FSYarnSiteConverter]:
    converted = ConvertedConfiguration()
    converter = FSYarnSiteConverter()
    converter.convert_site_properties(Configuration(site or {}), converted, drf, async_scheduler, percentage, mode)
    return converted, converter


def test_testSiteContinuousSchedulingConversion() -> None:
    converted, _ = _convert(
        {
            "yarn.scheduler.fair.continuous-scheduling-enabled": True,
            "yarn.scheduler.fair.continuous-scheduling-sleep-ms": 666,
        }
    )
    assert converted.get(ASYNC) == "true"
    assert converted.get("yarn.scheduler.capacity.schedule-asynchronously.scheduling-interval-ms") == "666"


def test_testSiteQueueConfAutoRefreshConversion() -> None:
    converted, _ = _convert()
    assert converted.get("yarn.resourcemanager.scheduler.monitor.enable") == "true"
    assert AUTO_REFRESH in str(converted.get(POLICIES))


def test_testSitePreemptionConversion() -> None:
    converted, converter = _convert(
        {
            "yarn.scheduler.fair.preemption": True,
            "yarn.scheduler.fair.waitTimeBeforeKill": 123,
            "yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck": 321,
        }
    )
    assert converter.preemption_enabled
    assert converted.get("yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill") == "123"
    assert converted.get("yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval") == "321"
    assert "yarn.resourcemanager.monitor.capacity.preemption.observe_only" not in converted
    assert str(converted.get(POLICIES)).split(",") == [PCPP, AUTO_DELETION, AUTO_REFRESH]


def test_testSiteDisabledPreemptionWithNoPolicyConversion() -> None:
    """FS preemption off: no ProportionalCapacityPreemptionPolicy, with or without -dp nopolicy."""
    for mode in (PreemptionMode.ENABLED, PreemptionMode.NO_POLICY):
        converted, converter = _convert({"yarn.scheduler.fair.preemption": False}, mode=mode)
        assert PCPP not in str(converted.get(POLICIES))
        assert not converter.preemption_enabled


def test_testSiteAssignMultipleConversion() -> None:
    assert (
        _convert({"yarn.scheduler.fair.assignmultiple": True})[0].get(
            "yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled"
        )
        == "true"
    )


def test_testSiteMaxAssignConversion() -> None:
    assert (
        _convert({"yarn.scheduler.fair.max.assign": 111})[0].get(
            "yarn.scheduler.capacity.per-node-heartbeat.maximum-container-assignments"
        )
        == "111"
    )


def test_testSiteLocalityThresholdConversion() -> None:
    """The thresholds are copied as Java floats, unchanged (Hadoop's quirk: the CS keys are delays)."""
    converted, _ = _convert(
        {
            "yarn.scheduler.fair.locality.threshold.node": "123.123",
            "yarn.scheduler.fair.locality.threshold.rack": "321.321",
        }
    )
    assert converted.get("yarn.scheduler.capacity.node-locality-delay") == "123.123"
    assert converted.get("yarn.scheduler.capacity.rack-locality-additional-delay") == "321.321"


def test_testSiteDrfEnabledConversion() -> None:
    assert _convert(drf=True)[0].get("yarn.scheduler.capacity.resource-calculator") == (
        "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"
    )


def test_testSiteDrfDisabledConversion() -> None:
    assert "yarn.scheduler.capacity.resource-calculator" not in _convert()[0]


def test_testAsyncSchedulingEnabledConversion() -> None:
    assert _convert(drf=True, async_scheduler=True)[0].get(ASYNC) == "true"


def test_testAsyncSchedulingDisabledConversion() -> None:
    assert ASYNC not in _convert()[0]


def test_testSiteQueueAutoDeletionConversionWithWeightMode() -> None:
    """Weight mode: the AutoCreatedQueueDeletionPolicy and a 10 s expiration; percentage mode: neither."""
    converted, _ = _convert()
    assert AUTO_DELETION in str(converted.get(POLICIES))
    assert converted.get("yarn.scheduler.capacity.auto-queue-creation-v2.queue-expiration-time") == "10"
    converted, _ = _convert(percentage=True)
    assert AUTO_DELETION not in str(converted.get(POLICIES))
