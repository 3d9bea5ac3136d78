"""Hadoop's TestQueuePlacementConverter: FairScheduler placement rules as JSON mapping rules.

Hadoop's mocked rules have ``create=false`` unless the test sets it, and ``convert()`` is percentage mode; the rule
handler is a mock whose calls are verified: here a recording handler lists the calls in order.
"""

from __future__ import annotations

from typing import Any

import pytest

from yarnball.policies.fair import (
    DefaultPlacementRule,
    FSPlacementRule,
    PrimaryGroupPlacementRule,
    QueuePlacementPolicy,
    RejectPlacementRule,
    SecondaryGroupExistingPlacementRule,
    SpecifiedPlacementRule,
    UserPlacementRule,
)
from yarnball.policies.fair.converter import (
    ConvertedConfiguration,
    FSConfigToCSConfigRuleHandler,
    MappingRule,
    QueuePlacementConverter,
    mapping_rules_json,
)


class RecordingHandler(FSConfigToCSConfigRuleHandler):
    """The rule handler as a Mockito mock: each handler call recorded with its argument."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, Any]] = []

    def handle_rule_auto_create_flag(self, queue: str) -> None:
        self.calls.append(("handleRuleAutoCreateFlag", queue))

    def handle_fs_parent_create_flag(self, parent_path: str) -> None:
        self.calls.append(("handleFSParentCreateFlag", parent_path))

    def handle_child_static_dynamic_conflict(self, parent_path: str) -> None:
        self.calls.append(("handleChildStaticDynamicConflict", parent_path))

    def handle_fs_parent_and_child_create_flag_diff(self, policy_name: str) -> None:
        self.calls.append(("handleFSParentAndChildCreateFlagDiff", policy_name))


def _convert(
    *rules: FSPlacementRule, weight_mode: bool = False, cs: ConvertedConfiguration | None = None
) -> tuple[list[MappingRule], RecordingHandler]:
    handler = RecordingHandler()
    result = QueuePlacementConverter().convert_placement_policy(
        QueuePlacementPolicy(tuple(rules)), handler, cs or ConvertedConfiguration(), not weight_mode
    )
    return result, handler


def _verify_rule(rule: MappingRule, policy: str) -> None:
    """``verifyRule``: the policy, matches "*", fallback skip, type user."""
    assert (rule.policy, rule.matches, rule.fallback_result, rule.type) == (policy, "*", "skip", "user")


@pytest.mark.parametrize(
    ("fs_rule", "policy"),
    [
        (UserPlacementRule(False), "user"),
        (SpecifiedPlacementRule(False), "specified"),
        (PrimaryGroupPlacementRule(False), "primaryGroup"),
        (SecondaryGroupExistingPlacementRule(False), "secondaryGroup"),
        (DefaultPlacementRule(False, default_queue_name="abc"), "custom"),
        (DefaultPlacementRule(False), "defaultQueue"),
        (RejectPlacementRule(False), "reject"),
    ],
    ids=[
        "testConvertUserRule",
        "testConvertSpecifiedRule",
        "testConvertPrimaryGroupRule",
        "testConvertSecondaryGroupRule",
        "testConvertDefaultRuleWithQueueName",
        "testConvertDefaultRule",
        "testConvertRejectRule",
    ],
)
def test_single_rules(fs_rule: FSPlacementRule, policy: str) -> None:
    """One FS rule, one mapping rule of its policy; the rule handler is not called."""
    rules, handler = _convert(fs_rule)
    assert len(rules) == 1
    _verify_rule(rules[0], policy)
    assert handler.calls == []


def test_custom_default_rule_keeps_its_queue() -> None:
    assert _convert(DefaultPlacementRule(False, default_queue_name="abc"))[0][0].custom_placement == "abc"


def test_testConvertUnsupportedRule() -> None:
    with pytest.raises(ValueError, match="Unknown placement rule"):
        _convert(FSPlacementRule(False))


def test_testConvertNestedPrimaryGroupRule() -> None:
    rules, handler = _convert(UserPlacementRule(False, PrimaryGroupPlacementRule(False)))
    _verify_rule(rules[0], "primaryGroupUser")
    assert handler.calls == []


def test_testConvertNestedSecondaryGroupRule() -> None:
    rules, handler = _convert(UserPlacementRule(False, SecondaryGroupExistingPlacementRule(False)))
    _verify_rule(rules[0], "secondaryGroupUser")
    assert handler.calls == []


def test_testConvertNestedDefaultRule() -> None:
    rules, handler = _convert(UserPlacementRule(False, DefaultPlacementRule(False, default_queue_name="root.abc")))
    _verify_rule(rules[0], "user")
    assert rules[0].parent_queue == "root.abc"
    assert handler.calls == []


def test_testUnsupportedNestedParentRule() -> None:
    with pytest.raises(ValueError, match="Unsupported parent nested rule"):
        _convert(UserPlacementRule(False, UserPlacementRule(False)))


def test_testConvertMultiplePlacementRules() -> None:
    rules, handler = _convert(
        UserPlacementRule(False), PrimaryGroupPlacementRule(False), SecondaryGroupExistingPlacementRule(False)
    )
    assert [r.policy for r in rules] == ["user", "primaryGroup", "secondaryGroup"]
    assert handler.calls == []


@pytest.mark.parametrize(
    ("fs_rule", "calls"),
    [
        (PrimaryGroupPlacementRule(True), [("handleRuleAutoCreateFlag", "root.<primaryGroup>")]),
        (SecondaryGroupExistingPlacementRule(True), [("handleRuleAutoCreateFlag", "root.<secondaryGroup>")]),
        (
            UserPlacementRule(True, PrimaryGroupPlacementRule(False)),
            [("handleRuleAutoCreateFlag", "root.<primaryGroup>")],
        ),
        (
            UserPlacementRule(True, SecondaryGroupExistingPlacementRule(False)),
            [("handleRuleAutoCreateFlag", "root.<secondaryGroup>")],
        ),
        (
            UserPlacementRule(True, DefaultPlacementRule(False, default_queue_name="root.abc")),
            [("handleRuleAutoCreateFlag", "root.abc")],
        ),
        (
            UserPlacementRule(False, PrimaryGroupPlacementRule(True)),
            [("handleFSParentCreateFlag", "root.<primaryGroup>")],
        ),
        (
            UserPlacementRule(False, SecondaryGroupExistingPlacementRule(True)),
            [("handleFSParentCreateFlag", "root.<secondaryGroup>")],
        ),
        (
            UserPlacementRule(False, DefaultPlacementRule(True, default_queue_name="root.abc")),
            [("handleFSParentCreateFlag", "root.abc")],
        ),
    ],
    ids=[
        "testConvertPrimaryGroupRuleWithCreate",
        "testConvertSecondaryGroupRuleWithCreate",
        "testConvertNestedPrimaryGroupRuleWithCreate",
        "testConvertNestedSecondaryGroupRuleWithCreate",
        "testConvertNestedDefaultGroupWithCreate",
        "testConvertNestedPrimaryGroupRuleWithParentCreate",
        "testConvertNestedSecondaryGroupRuleWithParentCreate",
        "testConvertNestedDefaultGroupWithParentCreate",
    ],
)
def test_percentage_mode_create_flags(fs_rule: FSPlacementRule, calls: list[tuple[str, str]]) -> None:
    """Percentage mode: a creating rule or parent rule is reported (queues cannot be created under root)."""
    assert _convert(fs_rule)[1].calls == calls


@pytest.mark.parametrize(
    ("parent_create", "child_create", "expected", "reported"),
    [(False, False, False, False), (False, True, True, True), (True, False, True, True), (True, True, True, False)],
    ids=[
        "testConvertNestedRuleCreateFalseFalseInWeightMode",
        "testConvertNestedRuleCreateFalseTrueInWeightMode",
        "testConvertNestedRuleCreateTrueFalseInWeightMode",
        "testConvertNestedRuleCreateTrueTrueInWeightMode",
    ],
)
def test_nested_create_flags_in_weight_mode(
    parent_create: bool, child_create: bool, expected: bool, reported: bool
) -> None:
    """Weight mode: the nested rule creates if either flag does; differing flags are reported."""
    rules, handler = _convert(
        UserPlacementRule(child_create, PrimaryGroupPlacementRule(parent_create)), weight_mode=True
    )
    assert rules[0].create is expected
    assert handler.calls == ([("handleFSParentAndChildCreateFlagDiff", "PRIMARY_GROUP_USER")] if reported else [])


@pytest.mark.parametrize(
    "fs_rule",
    [
        UserPlacementRule(False),
        PrimaryGroupPlacementRule(False),
        UserPlacementRule(False, PrimaryGroupPlacementRule(False)),
        SecondaryGroupExistingPlacementRule(False),
        UserPlacementRule(False, SecondaryGroupExistingPlacementRule(False)),
    ],
    ids=[
        "testParentSetToRootInWeightModeUserPolicy",
        "testParentSetToRootInWeightModePrimaryGroupPolicy",
        "testParentSetToRootInWeightModePrimaryGroupUserPolicy",
        "testParentSetToRootInWeightModeSecondaryGroupPolicy",
        "testParentSetToRootInWeightModeSecondaryGroupUserPolicy",
    ],
)
def test_parent_set_to_root_in_weight_mode(fs_rule: FSPlacementRule) -> None:
    assert _convert(fs_rule, weight_mode=True)[0][0].parent_queue == "root"


def test_testConvertNestedDefaultWithConflictingQueues() -> None:
    """A creating nested user rule under root.users, which has static children: both reported."""
    cs = ConvertedConfiguration()
    cs.set_queues("root.users", ["hadoop"])
    _, handler = _convert(UserPlacementRule(True, DefaultPlacementRule(False, default_queue_name="root.users")), cs=cs)
    assert handler.calls == [
        ("handleRuleAutoCreateFlag", "root.users"),
        ("handleChildStaticDynamicConflict", "root.users"),
    ]


def test_mapping_rules_json_is_jacksons_pretty_print() -> None:
    """The JSON as Jackson's DefaultPrettyPrinter writes MappingRulesDescription (null fields left out)."""
    rules, _ = _convert(SpecifiedPlacementRule(True), RejectPlacementRule(), weight_mode=True)
    assert mapping_rules_json(rules) == (
        '{\n  "rules" : [ {\n    "type" : "user",\n    "matches" : "*",\n    "policy" : "specified",\n'
        '    "fallbackResult" : "skip",\n    "create" : true\n  }, {\n    "type" : "user",\n    "matches" : "*",\n'
        '    "policy" : "reject",\n    "fallbackResult" : "skip",\n    "create" : false\n  } ]\n}'
    )
