"""fs2cs's conversion rules: ``FSConfigToCSConfigRuleHandler``, ``ConversionOptions`` and ``DryRunResultHolder``.

A FairScheduler setting that has no CapacityScheduler equivalent goes through a *rule*: the conversion rules file
(Java properties, ``-r``) sets each rule's action to ``warning`` (the default, also for an unknown value) or
``abort``. A warning is logged and the conversion goes on; an abort stops it with an UnsupportedPropertyException.
In a dry run (``-d``) both are collected instead and printed at the end, with the errors of the conversion itself.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Mapping
from typing import Final

from yarnball._inputs import read_input
from yarnball._logs import get_logger
from yarnball.errors import ConversionException, PreconditionException, UnsupportedPropertyException, one_line

__all__ = [
    "ConversionOptions",
    "DryRunResultHolder",
    "FSConfigToCSConfigRuleHandler",
    "RuleAction",
    "load_properties",
]

log = get_logger(__name__)

MAX_CHILD_QUEUE_LIMIT: Final = "maxChildQueue.limit"
MAX_CAPACITY_PERCENTAGE: Final = "maxCapacityPercentage.action"
MAX_CHILD_CAPACITY: Final = "maxChildCapacity.action"
MAX_RESOURCES: Final = "maxResources.action"
MIN_RESOURCES: Final = "minResources.action"
DYNAMIC_MAX_ASSIGN: Final = "dynamicMaxAssign.action"
RESERVATION_SYSTEM: Final = "reservationSystem.action"
QUEUE_AUTO_CREATE: Final = "queueAutoCreate.action"
FAIR_AS_DRF: Final = "fairAsDrf.action"
QUEUE_DYNAMIC_CREATE: Final = "queueDynamicCreate.action"
PARENT_DYNAMIC_CREATE: Final = "parentDynamicCreate.action"
CHILD_STATIC_DYNAMIC_CONFLICT: Final = "childStaticDynamicConflict.action"
PARENT_CHILD_CREATE_DIFFERS: Final = "parentChildCreateDiff.action"
#: initPropertyActions: the rules, in Hadoop's order.
RULES: Final = (
    MAX_CAPACITY_PERCENTAGE,
    MAX_CHILD_CAPACITY,
    MAX_RESOURCES,
    MIN_RESOURCES,
    DYNAMIC_MAX_ASSIGN,
    RESERVATION_SYSTEM,
    QUEUE_AUTO_CREATE,
    FAIR_AS_DRF,
    QUEUE_DYNAMIC_CREATE,
    PARENT_DYNAMIC_CREATE,
    CHILD_STATIC_DYNAMIC_CONFLICT,
    PARENT_CHILD_CREATE_DIFFERS,
)
_DYNAMIC_MAX_ASSIGN_KEY: Final = "yarn.scheduler.fair.dynamic.max.assign"


class RuleAction(enum.Enum):
    WARNING = "WARNING"
    ABORT = "ABORT"


class DryRunResultHolder:
    """The warnings and errors of a dry run (sets, as Hadoop's; printed sorted so a run's output is stable)."""

    __slots__ = ("errors", "verification_failed", "warnings")

    def __init__(self) -> None:
        self.warnings: set[str] = set()
        self.errors: set[str] = set()
        self.verification_failed = False

    def add_dry_run_warning(self, message: str) -> None:
        self.warnings.add(message)

    def add_dry_run_error(self, message: str) -> None:
        self.errors.add(message)

    def set_verification_failed(self) -> None:
        self.verification_failed = True

    def dry_run_results(self) -> list[str]:
        """``printDryRunResults``: the lines Hadoop logs."""
        lines = ["", "Results of dry run:", ""]
        lines += [f"Number of errors: {len(self.errors)}", f"Number of warnings: {len(self.warnings)}"]
        lines.append(f"Verification result: {'FAILED' if self.verification_failed else 'PASSED'}")
        if self.errors:
            lines += ["", "List of errors:", *sorted(self.errors)]
        if self.warnings:
            lines += ["", "List of warnings:", *sorted(self.warnings)]
        return lines


class ConversionOptions:
    """``ConversionOptions``: how warnings and errors are handled (raised, or collected in a dry run)."""

    __slots__ = ("dry_run", "dry_run_result_holder", "enable_async_scheduler", "no_terminal_rule_check", "warn")

    def __init__(
        self,
        dry_run_result_holder: DryRunResultHolder | None = None,
        dry_run: bool = False,
        *,
        no_terminal_rule_check: bool = False,
        enable_async_scheduler: bool = False,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.dry_run_result_holder = dry_run_result_holder or DryRunResultHolder()
        self.dry_run = dry_run
        self.no_terminal_rule_check = no_terminal_rule_check
        self.enable_async_scheduler = enable_async_scheduler
        #: Where a warning goes outside a dry run (the CLI prints it; the default logs it).
        self.warn = warn or log.warning

    def handle_warning(self, message: str) -> None:
        if self.dry_run:
            self.dry_run_result_holder.add_dry_run_warning(message)
        else:
            self.warn(message)

    def handle_error(self, message: str) -> None:
        if self.dry_run:
            self.dry_run_result_holder.add_dry_run_error(message)
        else:
            raise UnsupportedPropertyException(message)

    def handle_conversion_error(self, message: str) -> None:
        if self.dry_run:
            self.dry_run_result_holder.add_dry_run_error(message)
        else:
            raise ConversionException(message)

    def handle_precondition_error(self, message: str) -> None:
        if self.dry_run:
            self.dry_run_result_holder.add_dry_run_error(message)
        else:
            raise PreconditionException(message)


def load_properties(path: str | os.PathLike[str]) -> tuple[dict[str, str], dict[str, int]]:
    """``Properties.load`` of a conversion rules file: its ``key=value`` (or ``key: value``) pairs and the line of
    each key; ``#``/``!`` comments and blank lines are skipped (line continuations and escapes, which rule files do
    not use, are not read). A missing or unreadable file is a PreconditionException naming it."""
    text = read_input(path, "conversion rules file", PreconditionException).decode("latin-1")
    properties: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.lstrip(" \t\f")
        if not line or line[0] in "#!":
            continue
        cuts = [i for i in (line.find("="), line.find(":")) if i != -1]
        if cuts:
            key, value = line[: min(cuts)], line[min(cuts) + 1 :]
        else:
            key, _, value = line.partition(" ")
        key = key.rstrip(" \t\f")
        properties[key], lines[key] = value.strip(" \t\f"), number
    return properties, lines


class FSConfigToCSConfigRuleHandler:
    """``FSConfigToCSConfigRuleHandler``: the action of each rule and the handlers the converters call."""

    __slots__ = ("actions", "conversion_options", "lines", "properties", "source")

    def __init__(
        self,
        conversion_options: ConversionOptions | None = None,
        properties: Mapping[str, str] | None = None,
        *,
        source: str | None = None,
        lines: Mapping[str, int] | None = None,
    ) -> None:
        self.conversion_options = conversion_options or ConversionOptions()
        self.properties = dict(properties or {})
        #: The rules file and the line of each key, for errors.
        self.source = source
        self.lines = dict(lines or {})
        self.actions: dict[str, RuleAction] = {}
        self.init_property_actions()

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], conversion_options: ConversionOptions | None = None
    ) -> FSConfigToCSConfigRuleHandler:
        """``loadRulesFromFile`` then ``initPropertyActions``."""
        log.info(f"Reading conversion rules file from: {os.fspath(path)}")
        properties, lines = load_properties(path)
        return cls(conversion_options, properties, source=one_line(os.fspath(path)), lines=lines)

    def init_property_actions(self) -> None:
        for rule in RULES:
            self._set_action_for_property(rule)

    def _set_action_for_property(self, rule: str) -> None:
        action = self.properties.get(rule)
        if action is None:
            log.info(f"No rule set for {rule}, defaulting to WARNING")
            self.actions[rule] = RuleAction.WARNING
        elif action.lower() == "warning":
            self.actions[rule] = RuleAction.WARNING
        elif action.lower() == "abort":
            self.actions[rule] = RuleAction.ABORT
        else:
            # Hadoop logs "Unknown action <a> set for rule <r>, defaulting to WARNING"; yarnball refuses the value, as
            # a misspelt "abort" would otherwise let the conversion go on past a setting meant to stop it.
            where = "" if self.source is None else f"{self.source}:{self.lines.get(rule, 1)}: "
            raise PreconditionException(
                f"{where}Unknown action {one_line(action)} set for rule {rule} (expected warning or abort)"
            )

    # -- the handlers --------------------------------------------------------------------------------------------
    def handle_max_capacity_percentage(self, queue: str) -> None:
        self._handle(MAX_CAPACITY_PERCENTAGE, None, f"<maxResources> defined in percentages for queue {queue}")

    def handle_max_child_capacity(self) -> None:
        self._handle(MAX_CHILD_CAPACITY, "<maxChildResources>", None)

    def handle_max_resources(self) -> None:
        self._handle(MAX_RESOURCES, "<maxResources>", None)

    def handle_min_resources(self) -> None:
        self._handle(MIN_RESOURCES, "<minResources>", None)

    def handle_child_queue_count(self, queue: str, count: int) -> None:
        """``maxChildQueue.limit``: more children than the limit is a conversion error."""
        value = self.properties.get(MAX_CHILD_QUEUE_LIMIT)
        if value is None:
            return
        if not value or not all("0" <= c <= "9" for c in value):  # StringUtils.isNumeric
            raise ConversionException("Rule setting: maxChildQueue.limit is not an integer")
        if count > int(value):
            raise ConversionException(f"Queue {queue} has too many children: {count}")

    def handle_dynamic_max_assign(self) -> None:
        self._handle(DYNAMIC_MAX_ASSIGN, _DYNAMIC_MAX_ASSIGN_KEY, None)

    def handle_reservation_system(self) -> None:
        self._handle(RESERVATION_SYSTEM, None, "Conversion of reservation system is not supported")

    def handle_fair_as_drf(self, queue: str) -> None:
        self._handle(FAIR_AS_DRF, None, f"Queue {queue} will use DRF policy instead of Fair")

    def handle_rule_auto_create_flag(self, queue: str) -> None:
        self._handle(
            QUEUE_DYNAMIC_CREATE,
            None,
            f"Placement rules: create=true is enabled for path {queue} - you have to make sure that these queues are "
            "managed queues and set auto-create-child-queues=true. Other queues cannot statically exist under this "
            "path!",
        )

    def handle_fs_parent_create_flag(self, parent_path: str) -> None:
        self._handle(
            PARENT_DYNAMIC_CREATE,
            None,
            f"Placement rules: create=true is enabled for parent path {parent_path} - this is not supported in "
            "Capacity Scheduler. The parent must exist as a static queue and cannot be created automatically",
        )

    def handle_child_static_dynamic_conflict(self, parent_path: str) -> None:
        self._handle(
            CHILD_STATIC_DYNAMIC_CONFLICT,
            None,
            f"Placement rules: rule maps to path {parent_path}, but this queue already contains static queue "
            "definitions! This configuration is invalid and *must* be corrected",
        )

    def handle_fs_parent_and_child_create_flag_diff(self, policy_name: str) -> None:
        """``policy_name``: the mapping rule Policy's enum name (``PRIMARY_GROUP_USER``)."""
        self._handle(
            PARENT_CHILD_CREATE_DIFFERS,
            None,
            f'Placement rules: the policy {policy_name} originally uses true/false or false/true "create" settings '
            "on the Fair Scheduler side. This is not supported and create flag will be set to *true* in the "
            "generated JSON rule chain",
        )

    def _handle(self, rule: str, fs_setting: str | None, message: str | None) -> None:
        action = self.actions.get(rule)
        if action is RuleAction.ABORT:
            self.conversion_options.handle_error(message or f"Setting {fs_setting} is not supported")
        elif action is RuleAction.WARNING:
            self.conversion_options.handle_warning(
                message or f"Setting {fs_setting} is not supported, ignoring conversion"
            )
