"""``QueuePlacementConverter``: the FairScheduler's placement rules as the CapacityScheduler's JSON mapping rules
(``MappingRulesDescription``, fair.md §8.7).

Every rule becomes ``{"type": "user", "matches": "*", "fallbackResult": "skip", ...}`` with the policy of the FS rule.
In weight mode the group and user rules place under ``root`` (auto-created queues); in percentage mode queues cannot
be created under ``root``, so a creating rule is reported through the conversion rules instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

from yarnball.policies.fair._placement import (
    DefaultPlacementRule,
    FSPlacementRule,
    PrimaryGroupPlacementRule,
    QueuePlacementPolicy,
    RejectPlacementRule,
    SecondaryGroupExistingPlacementRule,
    SpecifiedPlacementRule,
    UserPlacementRule,
)
from yarnball.policies.fair.converter._output import ConvertedConfiguration
from yarnball.policies.fair.converter._rulehandler import FSConfigToCSConfigRuleHandler

__all__ = ["MappingRule", "QueuePlacementConverter", "mapping_rules_json"]

DEFAULT_QUEUE: Final = "root.default"
MATCH_ALL_USER: Final = "*"
SKIP_RESULT: Final = "skip"
# MappingRulesDescription's Policy: enum name -> JSON value.
SPECIFIED: Final = "specified"
REJECT: Final = "reject"
DEFAULT_QUEUE_POLICY: Final = "defaultQueue"
USER: Final = "user"
PRIMARY_GROUP: Final = "primaryGroup"
SECONDARY_GROUP: Final = "secondaryGroup"
PRIMARY_GROUP_USER: Final = "primaryGroupUser"
SECONDARY_GROUP_USER: Final = "secondaryGroupUser"
CUSTOM: Final = "custom"
_ENUM_NAMES: Final = {
    SPECIFIED: "SPECIFIED",
    REJECT: "REJECT",
    DEFAULT_QUEUE_POLICY: "DEFAULT_QUEUE",
    USER: "USER",
    PRIMARY_GROUP: "PRIMARY_GROUP",
    SECONDARY_GROUP: "SECONDARY_GROUP",
    PRIMARY_GROUP_USER: "PRIMARY_GROUP_USER",
    SECONDARY_GROUP_USER: "SECONDARY_GROUP_USER",
    CUSTOM: "CUSTOM",
}
NEED_ROOT_PARENT: Final = frozenset({USER, PRIMARY_GROUP, PRIMARY_GROUP_USER, SECONDARY_GROUP, SECONDARY_GROUP_USER})


@dataclass(slots=True)
class MappingRule:
    """One ``MappingRulesDescription`` rule; the fields in the schema's order, None ones left out of the JSON."""

    type: str = "user"
    matches: str | None = None
    policy: str | None = None
    parent_queue: str | None = None
    fallback_result: str | None = None
    create: bool | None = None
    value: str | None = None
    custom_placement: str | None = None

    def as_json(self) -> dict[str, object]:
        fields = {
            "type": self.type,
            "matches": self.matches,
            "policy": self.policy,
            "parentQueue": self.parent_queue,
            "fallbackResult": self.fallback_result,
            "create": self.create,
            "value": self.value,
            "customPlacement": self.custom_placement,
        }
        return {key: value for key, value in fields.items() if value is not None}


def mapping_rules_json(rules: list[MappingRule]) -> str:
    """The description as Jackson's ``DefaultPrettyPrinter`` writes it (``"key" : value``, ``[ {`` ... ``} ]``)."""
    if not rules:
        return '{\n  "rules" : [ ]\n}'
    bodies = []
    for rule in rules:
        items = [f"    {json.dumps(key)} : {json.dumps(value)}" for key, value in rule.as_json().items()]
        bodies.append("{\n" + ",\n".join(items) + "\n  }")
    return '{\n  "rules" : [ ' + ", ".join(bodies) + " ]\n}"


class QueuePlacementConverter:
    """``convertPlacementPolicy`` and its nested-rule handling."""

    def convert_placement_policy(
        self,
        policy: QueuePlacementPolicy,
        rule_handler: FSConfigToCSConfigRuleHandler,
        cs_config: ConvertedConfiguration,
        use_percentages: bool,
    ) -> list[MappingRule]:
        rules: list[MappingRule] = []
        for fs_rule in policy.rules:
            create = fs_rule.create
            if isinstance(fs_rule, UserPlacementRule):
                if fs_rule.parent is not None:
                    rules.append(self._nested_rule(fs_rule, rule_handler, create, cs_config, use_percentages))
                else:
                    rules.append(self._create_rule(USER, create, rule_handler, use_percentages))
            elif isinstance(fs_rule, SpecifiedPlacementRule):
                rules.append(self._create_rule(SPECIFIED, create, rule_handler, use_percentages))
            elif isinstance(fs_rule, PrimaryGroupPlacementRule):
                rules.append(self._create_rule(PRIMARY_GROUP, create, rule_handler, use_percentages))
            elif isinstance(fs_rule, DefaultPlacementRule):
                if fs_rule.default_queue_name == DEFAULT_QUEUE:
                    rules.append(self._create_rule(DEFAULT_QUEUE_POLICY, create, rule_handler, use_percentages))
                else:
                    rule = self._create_rule(CUSTOM, create, rule_handler, use_percentages)
                    rule.custom_placement = fs_rule.default_queue_name
                    rules.append(rule)
            elif isinstance(fs_rule, SecondaryGroupExistingPlacementRule):
                rules.append(self._create_rule(SECONDARY_GROUP, create, rule_handler, use_percentages))
            elif isinstance(fs_rule, RejectPlacementRule):
                rules.append(self._create_rule(REJECT, False, rule_handler, use_percentages))
            else:
                raise ValueError(f"Unknown placement rule: {fs_rule}")
        return rules

    def _nested_rule(
        self,
        user_rule: UserPlacementRule,
        rule_handler: FSConfigToCSConfigRuleHandler,
        create: bool,
        cs_config: ConvertedConfiguration,
        use_percentages: bool,
    ) -> MappingRule:
        parent: FSPlacementRule | None = user_rule.parent
        assert parent is not None
        queue: str | None = None
        if isinstance(parent, PrimaryGroupPlacementRule):
            policy = PRIMARY_GROUP_USER
        elif isinstance(parent, SecondaryGroupExistingPlacementRule):
            policy = SECONDARY_GROUP_USER
        elif isinstance(parent, DefaultPlacementRule):
            policy, queue = USER, parent.default_queue_name
        else:
            raise ValueError(f"Unsupported parent nested rule: {parent.JAVA_CLASS}")
        rule = self._create_rule(policy, create, rule_handler, use_percentages)
        if queue is not None:  # the parent set to "root" by _create_rule is overridden
            rule.parent_queue = queue
        parent_create = parent.create
        if use_percentages:
            if parent_create:  # a creating parent rule is not supported
                if policy == PRIMARY_GROUP_USER:
                    rule_handler.handle_fs_parent_create_flag("root.<primaryGroup>")
                elif policy == SECONDARY_GROUP_USER:
                    rule_handler.handle_fs_parent_create_flag("root.<secondaryGroup>")
                else:
                    rule_handler.handle_fs_parent_create_flag(str(queue))
            if create and policy == USER:
                assert queue is not None
                rule_handler.handle_rule_auto_create_flag(queue)
                if cs_config.get_queues(queue):  # static and dynamic queues under one parent
                    rule_handler.handle_child_static_dynamic_conflict(queue)
        else:
            rule.create = parent_create or create
            if parent_create != create:  # nested create flags are not supported: true/false is set to true
                rule_handler.handle_fs_parent_and_child_create_flag_diff(_ENUM_NAMES[policy])
        return rule

    @staticmethod
    def _create_rule(
        policy: str, create: bool, rule_handler: FSConfigToCSConfigRuleHandler, use_percentages: bool
    ) -> MappingRule:
        rule = MappingRule(
            policy=policy, create=create, matches=MATCH_ALL_USER, fallback_result=SKIP_RESULT, type="user"
        )
        if use_percentages and create:  # these queues must exist: nothing can be created under root
            if policy in (PRIMARY_GROUP, PRIMARY_GROUP_USER):
                rule_handler.handle_rule_auto_create_flag("root.<primaryGroup>")
            elif policy in (SECONDARY_GROUP, SECONDARY_GROUP_USER):
                rule_handler.handle_rule_auto_create_flag("root.<secondaryGroup>")
        if not use_percentages and policy in NEED_ROOT_PARENT:
            rule.parent_queue = "root"
        return rule
