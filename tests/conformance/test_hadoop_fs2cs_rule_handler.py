"""Hadoop's TestFSConfigToCSConfigRuleHandler: the actions of the conversion rules, and what each action does."""

from __future__ import annotations

from pathlib import Path

import pytest
from fs2cs_helpers import Recorder

from yarnball.errors import ConversionException, PreconditionException, UnsupportedPropertyException
from yarnball.policies.fair.converter import ConversionOptions, FSConfigToCSConfigRuleHandler, RuleAction
from yarnball.policies.fair.converter._rulehandler import RULES

_ALL_NAMES = [r.removesuffix(".action") for r in RULES]


def _call_all(handler: FSConfigToCSConfigRuleHandler) -> None:
    """Every handler Hadoop's testAllRules* call."""
    handler.handle_child_queue_count("test", 1)
    handler.handle_dynamic_max_assign()
    handler.handle_max_capacity_percentage("test")
    handler.handle_max_child_capacity()
    handler.handle_min_resources()
    handler.handle_max_resources()
    handler.handle_reservation_system()
    handler.handle_fair_as_drf("test")
    handler.handle_rule_auto_create_flag("test")
    handler.handle_fs_parent_create_flag("test")
    handler.handle_child_static_dynamic_conflict("test")
    handler.handle_fs_parent_and_child_create_flag_diff("USER")


def test_testInitPropertyActionsToWarning() -> None:
    """Without a rules file every rule warns."""
    handler = FSConfigToCSConfigRuleHandler(ConversionOptions())
    assert handler.actions == dict.fromkeys(RULES, RuleAction.WARNING)


def test_testAllRulesWarning() -> None:
    """warning on every rule: nothing aborts, each handler warns."""
    recorder = Recorder()
    handler = recorder.handler(**dict.fromkeys(_ALL_NAMES, "warning"))
    _call_all(handler)
    assert not recorder.errors
    assert "Setting <minResources> is not supported, ignoring conversion" in recorder.warnings
    assert "Queue test will use DRF policy instead of Fair" in recorder.warnings


def test_testAllRulesAbort() -> None:
    """abort on every rule: the first handler raises UnsupportedPropertyException with Hadoop's text."""
    handler = FSConfigToCSConfigRuleHandler(ConversionOptions(), dict.fromkeys(RULES, "abort"))
    handler.handle_child_queue_count("test", 1)  # no maxChildQueue.limit: nothing to check
    with pytest.raises(UnsupportedPropertyException, match=r"^Setting <minResources> is not supported$"):
        handler.handle_min_resources()
    with pytest.raises(UnsupportedPropertyException, match=r"^Conversion of reservation system is not supported$"):
        handler.handle_reservation_system()
    with pytest.raises(UnsupportedPropertyException, match=r"^Setting yarn.scheduler.fair.dynamic.max.assign"):
        handler.handle_dynamic_max_assign()


def test_testMaxChildQueueCountNotInteger() -> None:
    handler = FSConfigToCSConfigRuleHandler(ConversionOptions(), {"maxChildQueue.limit": "abc"})
    with pytest.raises(ConversionException, match=r"^Rule setting: maxChildQueue.limit is not an integer$"):
        handler.handle_child_queue_count("test", 1)


def test_max_child_queue_limit_exceeded() -> None:
    """maxChildQueue.limit=1 and two children: "Queue <q> has too many children: <n>"."""
    handler = FSConfigToCSConfigRuleHandler(ConversionOptions(), {"maxChildQueue.limit": "1"})
    handler.handle_child_queue_count("root.a", 1)
    with pytest.raises(ConversionException, match=r"^Queue root.a has too many children: 2$"):
        handler.handle_child_queue_count("root.a", 2)


def test_testDryRunWarning() -> None:
    """In a dry run a warning is collected."""
    recorder = Recorder()
    recorder.handler(maxChildCapacity="warning").handle_max_child_capacity()
    assert recorder.warnings == {"Setting <maxChildResources> is not supported, ignoring conversion"}
    assert not recorder.errors


def test_testDryRunError() -> None:
    """In a dry run an abort is collected as an error instead of raised."""
    recorder = Recorder()
    recorder.handler(maxChildCapacity="abort").handle_max_child_capacity()
    assert recorder.errors == {"Setting <maxChildResources> is not supported"}
    assert not recorder.warnings


def test_rules_file_with_hadoop_test_resource(tmp_path: Path) -> None:
    """Hadoop's conversion-rules.properties: ABORT and abort in any case; keys fs2cs does not know are ignored."""
    from fs2cs_helpers import FIXTURES

    handler = FSConfigToCSConfigRuleHandler.from_file(FIXTURES / "conversion-rules.properties")
    assert handler.actions["maxChildCapacity.action"] is RuleAction.ABORT
    assert handler.actions["reservationSystem.action"] is RuleAction.ABORT
    assert handler.actions["minResources.action"] is RuleAction.WARNING


def test_unknown_action_names_the_file_and_line(tmp_path: Path) -> None:
    """Hadoop defaults an unknown action to WARNING; yarnball refuses it, naming the file, line and rule."""
    rules = tmp_path / "rules.properties"
    rules.write_text("# rules\nminResources.action=abrot\n")
    with pytest.raises(PreconditionException, match=rf"^{rules}:2: Unknown action abrot set for rule minResources"):
        FSConfigToCSConfigRuleHandler.from_file(rules)
