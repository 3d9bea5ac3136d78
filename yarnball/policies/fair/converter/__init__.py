"""fs2cs: Hadoop's FairScheduler-to-CapacityScheduler converter (``FSConfigToCSConfigConverter`` and its parts,
``org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.converter``); the command is ``yarnball fs2cs``."""

from __future__ import annotations

from yarnball.policies.fair.converter._converter import (
    CAPACITY_SCHEDULER_XML,
    MAPPING_RULES_JSON,
    YARN_SITE_XML,
    ConversionResult,
    ConvertedConfigValidator,
    FSConfigToCSConfigConverter,
    FSConfigToCSConfigConverterParams,
)
from yarnball.policies.fair.converter._output import ConvertedConfiguration
from yarnball.policies.fair.converter._placement import MappingRule, QueuePlacementConverter, mapping_rules_json
from yarnball.policies.fair.converter._queueconverter import FSQueueConverter
from yarnball.policies.fair.converter._queues import ConvertedQueue, build_queue_tree
from yarnball.policies.fair.converter._rulehandler import (
    ConversionOptions,
    DryRunResultHolder,
    FSConfigToCSConfigRuleHandler,
    RuleAction,
)
from yarnball.policies.fair.converter._weights import (
    WeightToPercentConverter,
    WeightToWeightConverter,
    get_converter,
)
from yarnball.policies.fair.converter._yarnsite import FSYarnSiteConverter, PreemptionMode

__all__ = [
    "CAPACITY_SCHEDULER_XML",
    "MAPPING_RULES_JSON",
    "YARN_SITE_XML",
    "ConversionOptions",
    "ConversionResult",
    "ConvertedConfigValidator",
    "ConvertedConfiguration",
    "ConvertedQueue",
    "DryRunResultHolder",
    "FSConfigToCSConfigConverter",
    "FSConfigToCSConfigConverterParams",
    "FSConfigToCSConfigRuleHandler",
    "FSQueueConverter",
    "FSYarnSiteConverter",
    "MappingRule",
    "PreemptionMode",
    "QueuePlacementConverter",
    "RuleAction",
    "WeightToPercentConverter",
    "WeightToWeightConverter",
    "build_queue_tree",
    "get_converter",
    "mapping_rules_json",
]
