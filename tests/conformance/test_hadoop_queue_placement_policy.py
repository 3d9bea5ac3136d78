"""TestQueuePlacementPolicy, placement/TestPlacementRuleFS and placement/TestFairQueuePlacementUtils ported from
Hadoop (trunk).

Hadoop's tests run the rules against a real QueueManager (``initialize()``: a static root) and group mappings;
here placement is a pure function, handed the queues (``queues``: name -> ExistingQueue, where ``create_queue`` does
what the test's ``createQueue`` does, making the queue and its missing parents static) and the user's groups
(SimpleGroupsMapping, PeriodGroupsMapping and the static ``emptygroupuser=`` override, as functions).
"""

from __future__ import annotations

import pytest

from yarnball.errors import AllocationConfigurationException
from yarnball.policies.fair import (
    DefaultPlacementRule,
    ExistingQueue,
    FSPlacementRule,
    PrimaryGroupPlacementRule,
    QueuePlacementPolicy,
    RejectPlacementRule,
    SecondaryGroupExistingPlacementRule,
    SpecifiedPlacementRule,
    UserPlacementRule,
)
from yarnball.policies.fair._allocationfile import XmlElement, parse_allocation_xml
from yarnball.policies.fair._placement import assure_root, clean_name, is_valid_queue_name

Queues = dict[str, ExistingQueue]


def simple_groups(user: str) -> list[str]:
    """SimpleGroupsMapping.getGroupsSet."""
    if user == "admins":
        return ["root"]
    if user == "nosecondarygroupuser":
        return ["primarygrouponly"]
    if user == "emptygroupuser":  # hadoop.user.group.static.mapping.overrides "emptygroupuser="
        return []
    return [user + "group", user + "subgroup1", user + "subgroup2"]


def period_groups(user: str) -> list[str]:
    """PeriodGroupsMapping.getGroupsSet."""
    return [user + ".group", user + "subgroup1", user + "subgroup2"]


def element(xml: str) -> XmlElement:
    return parse_allocation_xml(xml.encode(), "policy.xml")


def create_policy(xml: str) -> QueuePlacementPolicy | None:
    return QueuePlacementPolicy.from_xml(element(xml), "policy.xml")


def policy_of(*rules: str) -> QueuePlacementPolicy:
    policy = create_policy("<queuePlacementPolicy>" + "".join(rules) + "</queuePlacementPolicy>")
    assert policy is not None
    return policy


def refused(*rules: str) -> None:
    """assertIfExceptionThrown: the policy is an AllocationConfigurationException."""
    with pytest.raises(AllocationConfigurationException):
        policy_of(*rules)


@pytest.fixture(name="queues")
def fixture_queues() -> Queues:
    """QueueManager.initialize() in trunk: a static root, nothing else."""
    return {"root": ExistingQueue(leaf=False)}


def create_queue(queues: Queues, leaf: bool, name: str) -> None:
    """The test's createQueue: QueueManager.createQueue (missing parents as parents, the queue replacing one of the
    same name), everything static."""
    parts = name.split(".")
    for depth in range(1, len(parts)):
        queues.setdefault(".".join(parts[:depth]), ExistingQueue(leaf=False))
    queues[name] = ExistingQueue(leaf=leaf)


def place(
    policy: QueuePlacementPolicy, queue: str, user: str, queues: Queues, groups: object = simple_groups
) -> str | None:
    assert callable(groups)
    placement = policy.place_application(queue, user, groups(user), queues, app_id="application_1_0001")
    return placement.queue


def test_testSpecifiedUserPolicy(queues: Queues) -> None:
    policy = policy_of("<rule name='specified' />", "<rule name='user' />")
    assert place(policy, "specifiedq", "someuser", queues) == "root.specifiedq"
    assert place(policy, "default", "someuser", queues) == "root.someuser"
    assert place(policy, "default", "otheruser", queues) == "root.otheruser"


def test_testNoCreate(queues: Queues) -> None:
    policy = policy_of("<rule name='specified' />", "<rule name='user' create=\"false\" />", "<rule name='default' />")
    create_queue(queues, True, "root.someuser")
    assert place(policy, "specifiedq", "someuser", queues) == "root.specifiedq"
    assert place(policy, "default", "someuser", queues) == "root.someuser"
    assert place(policy, "specifiedq", "otheruser", queues) == "root.specifiedq"
    assert place(policy, "default", "otheruser", queues) == "root.default"


def test_testSpecifiedThenReject(queues: Queues) -> None:
    policy = policy_of("<rule name='specified' />", "<rule name='reject' />")
    assert place(policy, "specifiedq", "someuser", queues) == "root.specifiedq"
    placement = policy.place_application("default", "someuser", simple_groups("someuser"), queues, app_id="app_1")
    assert placement.queue is None
    assert placement.diagnostics == "Reject application app_1 submitted by user someuser application rejected by " \
        "placement rules."  # fmt: skip


def test_testOmittedTerminalRule() -> None:
    with pytest.raises(AllocationConfigurationException, match="Could get past last queue placement rule"):
        policy_of("<rule name='specified' />", "<rule name='user' create=\"false\" />")


def test_testTerminalRuleInMiddle() -> None:
    with pytest.raises(AllocationConfigurationException, match="Rules after rule 2 in queue placement policy can"):
        policy_of("<rule name='specified' />", "<rule name='default' />", "<rule name='user' />")


def test_testTerminals() -> None:
    """The default rule is not terminal when its create flag is false."""
    refused(
        "<rule name='secondaryGroupExistingQueue' create='true'/>",
        "<rule name='default' queue='otherdefault' create='false'/>",
    )


def test_testDefaultRuleWithQueueAttribute(queues: Queues) -> None:
    create_queue(queues, True, "root.someDefaultQueue")
    policy = policy_of(
        "<rule name='specified' create='false' />", "<rule name='default' queue='root.someDefaultQueue'/>"
    )
    assert place(policy, "default", "user1", queues) == "root.someDefaultQueue"


def test_testNestedUserQueueParsingErrors() -> None:
    refused("<rule name='nestedUserQueue'/>")  # no parent rule
    refused("<rule name='nestedUserQueue'><rule name='unknownRule'/></rule>")  # not a known rule
    refused("<rule name='nestedUserQueue'><rule name='reject'/></rule>")  # a parent that cannot be one
    refused("<rule name='nestedUserQueue'><rule name='primaryGroup' create='false'/></rule>")  # not terminal


def test_testMultipleParentRules() -> None:
    policy = policy_of("<rule name='nestedUserQueue'><rule name='primaryGroup'/><rule name='default'/></rule>")
    nested = policy.rules[0]
    assert type(nested) is UserPlacementRule
    assert type(nested.parent) is DefaultPlacementRule


def test_testBrokenRules() -> None:
    refused("<rule />")
    assert create_policy("<queuePlacementPolicy>  <notarule /></queuePlacementPolicy>") is None  # ignored
    refused("<rule name='user'><rule /></rule>")
    assert policy_of("<rule name='user'><notarule /></rule>").rules[0].parent is None


def test_testNestedUserQueueParsing() -> None:
    policy_of("<rule name='specified' />", "<rule name='nestedUserQueue'><rule name='primaryGroup'/></rule>")


def test_testNestedUserQueuePrimaryGroup(queues: Queues) -> None:
    policy = policy_of(
        "<rule name='specified' create='false' />", "<rule name='nestedUserQueue'><rule name='primaryGroup'/></rule>"
    )
    assert place(policy, "default", "user1", queues) == "root.user1group.user1"
    create_queue(queues, True, "root.specifiedq")
    assert place(policy, "root.specifiedq", "user2", queues) == "root.specifiedq"
    create_queue(queues, True, "root.user3group")  # a leaf: the user queue cannot go under it
    assert place(policy, "default", "user3", queues) is None


def test_testNestedUserQueuePrimaryGroupNoCreate(queues: Queues) -> None:
    policy = policy_of(
        "<rule name='nestedUserQueue'><rule name='primaryGroup' create='false'/></rule>", "<rule name='default' />"
    )
    assert place(policy, "default", "user1", queues) == "root.default"
    create_queue(queues, False, "root.user1group")
    assert place(policy, "default", "user1", queues) == "root.user1group.user1"
    # (Hadoop builds a second policy, both rules create='false', but never installs it: the first one runs on.)
    assert place(policy, "default", "user2", queues) == "root.default"
    create_queue(queues, True, "root.user2group.user2")
    assert place(policy, "default", "user2", queues) == "root.user2group.user2"


def test_testNestedUserQueueSecondaryGroup(queues: Queues) -> None:
    rules = (
        "<rule name='nestedUserQueue'><rule name='secondaryGroupExistingQueue'/></rule>",
        "<rule name='default' />",
    )
    policy = policy_of(*rules)
    assert place(policy, "default", "user1", queues) == "root.default"
    create_queue(queues, False, "root.user1subgroup1")
    policy = policy_of(*rules)
    assert place(policy, "default", "user1", queues) == "root.user1subgroup1.user1"


def test_testNestedUserQueueSpecificRule(queues: Queues) -> None:
    create_queue(queues, False, "root.parent1")
    create_queue(queues, False, "root.parent2")
    policy = policy_of(
        "<rule name='nestedUserQueue'><rule name='specified' create='false'/></rule>", "<rule name='default' />"
    )
    assert place(policy, "root.parent1", "user1", queues) == "root.parent1.user1"
    assert place(policy, "root.parent2", "user2", queues) == "root.parent2.user2"


def test_testNestedUserQueueDefaultRule(queues: Queues) -> None:
    specified = "<rule name='specified' create='false' />"
    policy = policy_of(specified, "<rule name='nestedUserQueue'><rule name='default' queue='root.parent'/></rule>")
    assert place(policy, "default", "user1", queues) == "root.parent.user1"
    create_queue(queues, False, "root.parent")
    policy = policy_of(
        specified,
        "<rule name='nestedUserQueue'><rule name='default' queue='root.parent' create='false'/></rule>",
        "<rule name='default' />",
    )
    assert place(policy, "default", "user1", queues) == "root.parent.user1"
    create_queue(queues, True, "root.parent")  # now a configured leaf: no user queue under it
    policy = policy_of(specified, "<rule name='nestedUserQueue'><rule name='default' queue='root.parent' /></rule>")
    assert place(policy, "default", "user1", queues) is None


def test_testUserContainsPeriod(queues: Queues) -> None:
    policy = policy_of("<rule name='user' />")
    assert place(policy, "default", "first.last", queues) == "root.first_dot_last"
    policy = policy_of(
        "<rule name='specified' create='false' />", "<rule name='nestedUserQueue'><rule name='default'/></rule>"
    )
    assert place(policy, "default", "first_dot_last", queues) == "root.default.first_dot_last"


def test_testGroupContainsPeriod(queues: Queues) -> None:
    policy = policy_of(
        "<rule name='specified' create='false' />", "<rule name='nestedUserQueue'><rule name='primaryGroup'/></rule>"
    )
    assert place(policy, "default", "user1", queues, period_groups) == "root.user1_dot_group.user1"


def test_testEmptyGroupsPrimaryGroupRule(queues: Queues) -> None:
    policy = policy_of("<rule name='primaryGroup' create=\"false\" />", "<rule name='default' />")
    placement = policy.place_application("root.fake", "emptygroupuser", [], queues)
    assert placement.queue is None and placement.diagnostics == "No groups returned for user emptygroupuser"


@pytest.mark.parametrize("queue", ["A ", "A\u00a0"])
def test_testSpecifiedQueueWithSpaces(queues: Queues, queue: str) -> None:
    policy = policy_of("<rule name='specified'/>", "<rule name='default'/>")
    placement = policy.place_application(queue, "user1", simple_groups("user1"), queues)
    assert placement.queue is None
    assert placement.diagnostics == f"Application submitted by user user1with illegal queue name '{queue}'."


# -- TestPlacementRuleFS -------------------------------------------------------------------------------------------
CONFIG_RULES = {
    "default": DefaultPlacementRule,
    "primaryGroup": PrimaryGroupPlacementRule,
    "secondaryGroupExistingQueue": SecondaryGroupExistingPlacementRule,
    "specified": SpecifiedPlacementRule,
    "user": UserPlacementRule,
}


def _single_rule(xml: str) -> FSPlacementRule:
    """One rule as the policy builds it from its element (``getPlacementRule(class, element)``); a reject after it
    (the terminal-rule check off, as in migration mode) keeps every rule valid."""
    policy = QueuePlacementPolicy.from_xml(
        element(f"<queuePlacementPolicy>{xml}<rule name='reject'/></queuePlacementPolicy>"), "policy.xml", True
    )
    assert policy is not None
    return policy.rules[0]


@pytest.mark.parametrize("name", sorted(CONFIG_RULES))
def test_testRuleSetups(name: str) -> None:
    """ruleCreateNoConfig, ruleCreateBoolean, ruleCreateElement: the create flag from a boolean or an element
    (absent: true)."""
    rule_class = CONFIG_RULES[name]
    assert rule_class().create is True
    assert rule_class(True).create is True and rule_class(False).create is False
    for create in ("true", "false"):
        rule = _single_rule(f"<rule name='{name}' create=\"{create}\" />")
        assert type(rule) is rule_class
        assert rule.create is (create == "true")
    assert _single_rule(f"<rule name='{name}' />").create is True


@pytest.mark.parametrize("rule_class", [*CONFIG_RULES.values(), RejectPlacementRule])
def test_testRuleInitOnly(rule_class: type[FSPlacementRule]) -> None:
    """ruleInit: initialize passes alone, and fails with the rule as its own parent (same type, or no parent
    allowed)."""
    rule = rule_class()
    rule.initialize()
    with pytest.raises(Exception, match="Parent rule"):
        rule_class(parent=rule).initialize()


# -- TestFairQueuePlacementUtils -----------------------------------------------------------------------------------
def test_testCleanName() -> None:
    assert clean_name("clean") == "clean"
    assert clean_name("not.clean") == "not_dot_clean"
    cleaned = clean_name("more.un.clean")
    assert "." not in cleaned and cleaned.index("_dot_") != cleaned.rindex("_dot_")
    cleaned = clean_name("not..clean")
    assert "." not in cleaned and cleaned.index("_dot_") != cleaned.rindex("_dot_")
    cleaned = clean_name(" .invalid. ")
    assert cleaned.startswith("_dot_") and cleaned.endswith("_dot_")


def test_testAssureRoot() -> None:
    assert assure_root("base").startswith("root.")
    assert assure_root("root") == "root"
    assert assure_root("rootbase").startswith("root.") and assure_root("rootbase").rindex("root") == 5
    assert assure_root("root.base") == "root.base"
    assert assure_root("") == ""


def test_testIsValidQueueName() -> None:
    assert not is_valid_queue_name(None)
    for name in ("", "valid", "root", "root.valid"):
        assert is_valid_queue_name(name), name
    for name in (".invalid", "invalid.", " invalid", "invalid ", "\u00a0invalid"):
        assert not is_valid_queue_name(name), name
