"""``FSConfigToCSConfigConverter``: yarn-site.xml and fair-scheduler.xml in, capacity-scheduler.xml, the yarn-site
changes and the placement rules as JSON mapping rules out (fair.md §8); and ``ConvertedConfigValidator``.

The FairScheduler's configuration is loaded as the FairScheduler loads it in migration mode (``reload_allocations``
with ``yarn.scheduler.fair.migration.mode`` set), its queue tree built (:mod:`._queues`), and each part converted by
its converter: :class:`FSYarnSiteConverter`, :class:`FSQueueConverter`, :class:`QueuePlacementConverter`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from yarnball._logs import get_logger
from yarnball.errors import (
    AllocationConfigurationException,
    ConversionException,
    PreconditionException,
    VerificationException,
    YarnballError,
    one_line,
)
from yarnball.policies.capacity._acl import QueueACL
from yarnball.policies.fair._allocationconfiguration import AllocationConfiguration, reload_allocations
from yarnball.policies.fair._fairschedulerconfiguration import FairSchedulerConfiguration
from yarnball.policies.fair.converter._output import MAPPING_RULE_FORMAT_JSON, ConvertedConfiguration
from yarnball.policies.fair.converter._placement import QueuePlacementConverter, mapping_rules_json
from yarnball.policies.fair.converter._queueconverter import QUEUE_MAX_AM_SHARE_DISABLED, FSQueueConverter
from yarnball.policies.fair.converter._queues import ConvertedQueue, build_queue_tree, walk
from yarnball.policies.fair.converter._rulehandler import ConversionOptions, FSConfigToCSConfigRuleHandler
from yarnball.policies.fair.converter._yarnsite import FSYarnSiteConverter, PreemptionMode
from yarnball.protocols import Configuration, Resource
from yarnball.protocols import keys as k
from yarnball.protocols._configuration import DEFAULT_SOURCE

__all__ = [
    "CAPACITY_SCHEDULER_XML",
    "MAPPING_RULES_JSON",
    "YARN_SITE_XML",
    "ConversionResult",
    "ConvertedConfigValidator",
    "FSConfigToCSConfigConverter",
    "FSConfigToCSConfigConverterParams",
]

log = get_logger(__name__)

MAPPING_RULES_JSON: Final = "mapping-rules.json"
YARN_SITE_XML: Final = "yarn-site.xml"
CAPACITY_SCHEDULER_XML: Final = "capacity-scheduler.xml"
FAIR_SCHEDULER_XML: Final = "fair-scheduler.xml"
RM_RESERVATION_SYSTEM_ENABLE: Final = "yarn.resourcemanager.reservation-system.enable"
INT_MAX: Final = 2**31 - 1


@dataclass(frozen=True, slots=True)
class FSConfigToCSConfigConverterParams:
    """``FSConfigToCSConfigConverterParams``: what the command line asked for."""

    yarn_site_xml_config: str | None = None
    fair_scheduler_xml_config: str | None = None
    conversion_rules_config: str | None = None
    cluster_resource: str | None = None
    console: bool = False
    output_directory: str | None = None
    convert_placement_rules: bool = True
    placement_rules_to_file: bool = False
    use_percentages: bool = False
    preemption_mode: PreemptionMode = PreemptionMode.ENABLED


@dataclass(frozen=True, slots=True)
class ConversionResult:
    """The converted files' texts (``mapping_rules`` only when written to its own file, ``-e``)."""

    capacity_scheduler_xml: str
    yarn_site_xml: str
    mapping_rules: str | None = None


def _local_path(name: str) -> str:
    """Hadoop's ``new Path(name)`` for a local file: a ``file:`` URI's path."""
    if name.startswith("file://"):
        return name[len("file://") :]
    return name[len("file:") :] if name.startswith("file:") else name


class FSConfigToCSConfigConverter:
    """One conversion; the converted configurations stay readable afterwards (``yarn_site``, ``cs_config``)."""

    def __init__(
        self,
        rule_handler: FSConfigToCSConfigRuleHandler | None = None,
        conversion_options: ConversionOptions | None = None,
    ) -> None:
        self.conversion_options = conversion_options or ConversionOptions()
        self.rule_handler = rule_handler or FSConfigToCSConfigRuleHandler(self.conversion_options)
        self.placement_converter = QueuePlacementConverter()
        self.cluster_resource: Resource | None = None
        self.convert_placement_rules = True
        self.rules_to_file = False
        self.use_percentages = False
        self.preemption_mode = PreemptionMode.ENABLED
        self.preemption_enabled = False
        self.size_based_weight = False
        self.drf_used = False
        self.yarn_site = ConvertedConfiguration()
        self.cs_config = ConvertedConfiguration()
        self.mapping_rules: str | None = None

    # -- convert(params) --------------------------------------------------------------------------------------
    def convert(self, params: FSConfigToCSConfigConverterParams) -> ConversionResult:
        """Convert the files ``params`` names; write them to its output directory unless it is console mode."""
        self._validate_params(params)
        self.cluster_resource = self._get_cluster_resource(params)
        self.convert_placement_rules = params.convert_placement_rules
        self.rules_to_file = params.placement_rules_to_file
        self.use_percentages = params.use_percentages
        self.preemption_mode = params.preemption_mode
        if params.conversion_rules_config is not None:
            self.rule_handler = FSConfigToCSConfigRuleHandler.from_file(
                params.conversion_rules_config, self.conversion_options
            )
        else:
            log.info("Conversion rules file is not defined, using default conversion config!")
        assert params.yarn_site_xml_config is not None
        site_path = _local_path(params.yarn_site_xml_config)
        input_conf = Configuration()
        input_conf.add_resource(site_path)
        self._handle_fair_scheduler_config(params, input_conf)
        result = self.convert_configuration(input_conf, conf_dir=os.path.dirname(os.path.abspath(site_path)))
        if not params.console and params.output_directory is not None:
            self.write(result, Path(params.output_directory))
        return result

    def _validate_params(self, params: FSConfigToCSConfigConverterParams) -> None:
        if params.yarn_site_xml_config is None:
            raise PreconditionException(f"{YARN_SITE_XML} configuration is not defined but it is mandatory!")
        if params.output_directory is None and not params.console:
            raise PreconditionException("Output directory configuration is not defined but it is mandatory!")

    @staticmethod
    def _get_cluster_resource(params: FSConfigToCSConfigConverterParams) -> Resource | None:
        """``-c``: parsed as a FairScheduler resource value (and otherwise unused, as in Hadoop's trunk)."""
        if params.cluster_resource is None:
            return None
        try:
            return FairSchedulerConfiguration.parse_resource_config_value(params.cluster_resource).get_resource()
        except AllocationConfigurationException as exc:
            raise ConversionException(f"Error while parsing resource. ({exc})") from exc

    @staticmethod
    def _handle_fair_scheduler_config(params: FSConfigToCSConfigConverterParams, conf: Configuration) -> None:
        """``-f`` wins over ``yarn.scheduler.fair.allocation.file``; neither is a precondition error."""
        in_site = conf.get(k.ALLOCATION_FILE) is not None and conf.source_of(k.ALLOCATION_FILE) != DEFAULT_SOURCE
        if params.fair_scheduler_xml_config is not None:
            log.info(f"Using explicitly defined {FAIR_SCHEDULER_XML}")
            conf.set(k.ALLOCATION_FILE, os.path.abspath(_local_path(params.fair_scheduler_xml_config)))
        elif in_site:
            log.info(f"Using {FAIR_SCHEDULER_XML} defined in {YARN_SITE_XML} by key: {k.ALLOCATION_FILE}")
        else:
            raise PreconditionException(
                f"{FAIR_SCHEDULER_XML} is not defined neither in {YARN_SITE_XML}(with property: {k.ALLOCATION_FILE}) "
                "nor directly with its own parameter!"
            )

    # -- convert(Configuration) ---------------------------------------------------------------------------------
    def convert_configuration(self, input_conf: Configuration, conf_dir: str | None = None) -> ConversionResult:
        """Convert the FairScheduler that ``input_conf`` configures (its allocation file looked up in ``conf_dir``
        when relative): the FairScheduler is initialised in migration mode first."""
        fs_conf = input_conf.copy()
        fs_conf.set(k.MIGRATION_MODE, "true")
        fs_conf.set(k.NO_TERMINAL_RULE_CHECK, "true" if self.conversion_options.no_terminal_rule_check else "false")
        FairSchedulerConfiguration(fs_conf).validate_conf()
        alloc = reload_allocations(fs_conf, conf_dir)
        root = build_queue_tree(alloc)
        self.drf_used = _is_drf_used(alloc, root)
        self.yarn_site = ConvertedConfiguration()
        self.cs_config = ConvertedConfiguration()
        self.mapping_rules = None
        self._convert_yarn_site_xml(input_conf)
        self._convert_capacity_scheduler_xml(alloc, root)
        if self.convert_placement_rules:
            self._perform_rule_conversion(alloc)
        return ConversionResult(self.cs_config.write_xml(), self.yarn_site.write_xml(), self.mapping_rules)

    def _convert_yarn_site_xml(self, input_conf: Configuration) -> None:
        site_converter = FSYarnSiteConverter()
        site_converter.convert_site_properties(
            input_conf,
            self.yarn_site,
            self.drf_used,
            self.conversion_options.enable_async_scheduler,
            self.use_percentages,
            self.preemption_mode,
        )
        self.preemption_enabled = site_converter.preemption_enabled
        self.size_based_weight = site_converter.size_based_weight
        if input_conf.get_bool(RM_RESERVATION_SYSTEM_ENABLE, False):
            self.rule_handler.handle_reservation_system()

    def _convert_capacity_scheduler_xml(self, alloc: AllocationConfiguration, root: ConvertedQueue) -> None:
        cs = self.cs_config
        queue_max_apps_default = alloc.get_queue_max_apps_default()
        user_max_apps_default = alloc.get_user_max_apps_default()
        queue_max_am_share_default = alloc.get_queue_max_am_share_default()
        if queue_max_apps_default != INT_MAX:
            cs.set_default_max_parallel_apps(queue_max_apps_default)
        if user_max_apps_default != INT_MAX:
            cs.set_default_max_parallel_apps_per_user(user_max_apps_default)
        for user, apps in alloc.get_user_max_apps_map().items():
            cs.set_max_parallel_apps_for_user(user, apps)
        disabled = queue_max_am_share_default == QUEUE_MAX_AM_SHARE_DISABLED
        cs.set_maximum_application_master_resource_percent(1.0 if disabled else queue_max_am_share_default)
        if self.preemption_mode is PreemptionMode.OBSERVE_ONLY:
            cs.set_preemption_observe_only(True)
        FSQueueConverter(
            rule_handler=self.rule_handler,
            cs_config=cs,
            conversion_options=self.conversion_options,
            preemption_enabled=self.preemption_enabled,
            size_based_weight=self.size_based_weight,
            cluster_resource=self.cluster_resource,
            queue_max_am_share_default=queue_max_am_share_default,
            queue_max_apps_default=queue_max_apps_default,
            drf_used=self.drf_used,
            use_percentages=self.use_percentages,
        ).convert_queue_hierarchy(root)
        self._emit_acls(alloc)

    def _emit_acls(self, alloc: AllocationConfiguration) -> None:
        """The ACLs of the queues the file configures, where they name someone (the " " default is not written)."""
        for queue, acls in alloc.get_queue_acls().items():
            for acl in (QueueACL.SUBMIT_APPLICATIONS, QueueACL.ADMINISTER_QUEUE):
                value = acls.get(acl)
                if value is not None and (value.users or value.groups or value.all_allowed):
                    self.cs_config.set_acl(queue, acl, str(value))

    def _perform_rule_conversion(self, alloc: AllocationConfiguration) -> None:
        log.info("Converting placement rules")
        if not alloc.placement_policy.rules:
            log.info("No rules to convert")
            return
        rules = self.placement_converter.convert_placement_policy(
            alloc.placement_policy, self.rule_handler, self.cs_config, self.use_percentages
        )
        text = mapping_rules_json(rules)
        self.cs_config.set_mapping_rule_format(MAPPING_RULE_FORMAT_JSON)
        self.cs_config.set_override_with_queue_mappings(True)
        if self.rules_to_file:
            self.mapping_rules = text
        else:
            self.cs_config.set_mapping_rule_json(text)

    # -- output ----------------------------------------------------------------------------------------------
    @staticmethod
    def write(result: ConversionResult, directory: Path) -> list[Path]:
        """Write the converted files into ``directory`` (capacity-scheduler.xml, yarn-site.xml, and
        mapping-rules.json with ``-e``); the paths written."""
        log.info(f"Output directory for {YARN_SITE_XML} and {CAPACITY_SCHEDULER_XML} is: {directory}")
        written = []
        files = [(CAPACITY_SCHEDULER_XML, result.capacity_scheduler_xml), (YARN_SITE_XML, result.yarn_site_xml)]
        if result.mapping_rules is not None:
            files.append((MAPPING_RULES_JSON, result.mapping_rules))
        for name, text in files:
            path = directory / name
            path.write_text(text, encoding="utf-8")
            written.append(path)
        return written

    @staticmethod
    def console_text(result: ConversionResult) -> str:
        """What console mode (``-p``) prints."""
        parts = []
        if result.mapping_rules is not None:  # converted (and printed) before the XML files are written
            parts += [f"======= {MAPPING_RULES_JSON} =======", result.mapping_rules]
        parts += [f"======= {CAPACITY_SCHEDULER_XML} =======", result.capacity_scheduler_xml]
        parts += ["", f"======= {YARN_SITE_XML} =======", result.yarn_site_xml]
        return "\n".join(parts)


def _is_drf_used(alloc: AllocationConfiguration, root: ConvertedQueue) -> bool:
    """``isDrfUsed``: the default policy or any queue's policy is DRF."""
    if alloc.get_default_scheduling_policy().name == "DRF":
        return True
    return any(queue.policy_name == "DRF" for queue in walk(root))


class ConvertedConfigValidator:
    """``ConvertedConfigValidator``: the converted directory must start yarnball's CapacityScheduler."""

    def validate_converted_config(self, output_dir: str | os.PathLike[str]) -> None:
        from yarnball.policies.scheduler._factory import (
            create_scheduler,
            monitor_policies,
            validate_scheduler_configuration,
        )

        try:
            conf = Configuration.from_conf_dir(output_dir)
            validate_scheduler_configuration(conf)
            create_scheduler(conf, cluster_timestamp=0)
            monitor_policies(conf)
        except YarnballError as exc:
            log.error(f"Could not start Capacity Scheduler: {exc}")
            raise VerificationException(one_line(exc)) from exc
        log.info("Capacity scheduler was successfully started")
