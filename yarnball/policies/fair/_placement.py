"""The FairScheduler's queue placement: ``QueuePlacementPolicy`` and its placement rules (fair.md §1.7).

A policy is an ordered list of rules, from the allocation file's ``<queuePlacementPolicy>`` or, without one, from
``yarn.scheduler.fair.allow-undeclared-pools`` and ``user-as-default-queue``. Placing an application is a pure
function of the queue it asked for, its user, the user's groups (primary first) and the queues that exist: the
first rule that returns a queue wins (``PlacementManager.placeApplication``); a rule returns its queue only if it
may create it or the queue exists and is static (``FSPlacementRule.configuredQueue``). A rule may have one parent
rule: its queue is then ``<parent's queue>.<name>``, and nothing when the parent gives nothing or an existing leaf.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Final

from yarnball._logs import get_logger
from yarnball.errors import AllocationConfigurationException, one_line
from yarnball.policies.fair._allocationfile import XmlElement, trim_queue_name

__all__ = [
    "DefaultPlacementRule",
    "ExistingQueue",
    "FSPlacementRule",
    "Placement",
    "PrimaryGroupPlacementRule",
    "QueuePlacementPolicy",
    "RejectPlacementRule",
    "SecondaryGroupExistingPlacementRule",
    "SpecifiedPlacementRule",
    "UserPlacementRule",
    "assure_root",
    "clean_name",
    "is_valid_queue_name",
]

log = get_logger(__name__)

ROOT: Final = "root"
DOT: Final = "."
DOT_REPLACEMENT: Final = "_dot_"
#: YarnConfiguration.DEFAULT_QUEUE_NAME: the queue an application names when it names none.
DEFAULT_QUEUE_NAME: Final = "default"
_PACKAGE: Final = "org.apache.hadoop.yarn.server.resourcemanager.placement."


# -- FairQueuePlacementUtils -------------------------------------------------------------------------------------
def clean_name(name: str) -> str:
    """``cleanName``: trimmed (trimQueueName), each ``.`` replaced by ``_dot_``."""
    name = trim_queue_name(name)
    if DOT in name:
        converted = name.replace(DOT, DOT_REPLACEMENT)
        log.warning(f"Name {name} is converted to {converted} when it is used as a queue name.")
        return converted
    return name


def assure_root(queue_name: str) -> str:
    """``assureRoot``: ``root.`` prepended unless the name is ``root`` or starts with ``root.``; "" stays ""."""
    if queue_name and not queue_name.startswith(ROOT + DOT) and queue_name != ROOT:
        return ROOT + DOT + queue_name
    return queue_name


def is_valid_queue_name(queue_name: str | None) -> bool:
    """``isValidQueueName``: not None, equal to its trimQueueName, not starting or ending with a dot."""
    return (
        queue_name is not None
        and queue_name == trim_queue_name(queue_name)
        and not queue_name.startswith(DOT)
        and not queue_name.endswith(DOT)
    )


@dataclass(frozen=True, slots=True)
class ExistingQueue:
    """What placement needs of a queue the QueueManager holds: a leaf or a parent, dynamic (created by placement, not
    named in the allocation file) or static."""

    leaf: bool
    dynamic: bool = False


@dataclass(frozen=True, slots=True)
class Placement:
    """A placement: the full queue name, or None and Hadoop's message when the application is rejected."""

    queue: str | None
    diagnostics: str = ""


class _PlacementFailed(Exception):
    """A ``YarnException`` from a rule: the submission fails with its message."""


class _App:
    """One application being placed (``ApplicationSubmissionContext`` and the scheduler's queues)."""

    __slots__ = ("groups", "queue", "queues", "user")

    def __init__(self, queue: str | None, user: str, groups: Sequence[str], queues: Mapping[str, ExistingQueue]):
        self.queue, self.user, self.groups, self.queues = queue, user, tuple(groups), queues

    def get_queue(self, name: str) -> ExistingQueue | None:
        """``QueueManager.getQueue``: the name with its root prefix ensured."""
        return self.queues.get(assure_root(name) or ROOT + DOT)

    def configured(self, name: str) -> bool:
        """``FSPlacementRule.configuredQueue``: the queue exists and is not dynamic."""
        queue = self.get_queue(name)
        return queue is not None and not queue.dynamic


# -- the rules ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FSPlacementRule:
    """``FSPlacementRule``: a rule with a ``create`` flag and an optional parent rule."""

    create: bool = True
    parent: FSPlacementRule | None = None

    JAVA_CLASS: ClassVar[str] = ""

    def initialize(self) -> None:
        """``initialize``: the parent may not be of the rule's own class (subclasses add their own checks)."""
        if self.parent is not None and self.parent.JAVA_CLASS == self.JAVA_CLASS:
            raise _InitError(f"Parent rule may not be the same type as the child rule: {self.JAVA_CLASS}")

    def get_placement_for_app(self, app: _App) -> str | None:
        raise NotImplementedError

    def _place(self, app: _App, queue_name: str) -> str | None:
        return queue_name if self.create or app.configured(queue_name) else None

    def _under_parent(self, app: _App, name: str) -> str | None:
        """``<parent rule's queue>.<name>``, or None when the parent rule gives nothing or an existing leaf."""
        assert self.parent is not None
        parent = self.parent.get_placement_for_app(app)
        if parent is None:
            return None
        existing = app.get_queue(parent)
        if existing is not None and existing.leaf:
            return None
        return parent + DOT + name


class _InitError(Exception):
    """An IOException from ``PlacementRule.initialize``."""


@dataclass(frozen=True, slots=True)
class SpecifiedPlacementRule(FSPlacementRule):
    """``specified``: the queue the application asked for (``default`` passes to the next rule)."""

    JAVA_CLASS: ClassVar[str] = _PACKAGE + "SpecifiedPlacementRule"

    def initialize(self) -> None:
        FSPlacementRule.initialize(self)
        if self.parent is not None:
            raise _InitError("Parent rule should not be configured for Specified rule.")

    def get_placement_for_app(self, app: _App) -> str | None:
        if not is_valid_queue_name(app.queue):
            log.error(f"Specified queue name not valid: '{app.queue}'")
            raise _PlacementFailed(f"Application submitted by user {app.user}with illegal queue name '{app.queue}'.")
        assert app.queue is not None
        if app.queue == DEFAULT_QUEUE_NAME:
            return None
        return self._place(app, assure_root(app.queue))


@dataclass(frozen=True, slots=True)
class UserPlacementRule(FSPlacementRule):
    """``user`` (and ``nestedUserQueue``): a queue named after the user."""

    JAVA_CLASS: ClassVar[str] = _PACKAGE + "UserPlacementRule"

    def get_placement_for_app(self, app: _App) -> str | None:
        user = clean_name(app.user)
        queue = assure_root(user) if self.parent is None else self._under_parent(app, user)
        return None if queue is None else self._place(app, queue)


@dataclass(frozen=True, slots=True)
class PrimaryGroupPlacementRule(FSPlacementRule):
    """``primaryGroup``: a queue named after the user's first group."""

    JAVA_CLASS: ClassVar[str] = _PACKAGE + "PrimaryGroupPlacementRule"

    def get_placement_for_app(self, app: _App) -> str | None:
        if not app.groups:
            log.error(f"Group placement rule failed: No groups returned for user {app.user}")
            raise _PlacementFailed(f"No groups returned for user {app.user}")
        group = clean_name(app.groups[0])
        queue = assure_root(group) if self.parent is None else self._under_parent(app, group)
        return None if queue is None else self._place(app, queue)


@dataclass(frozen=True, slots=True)
class SecondaryGroupExistingPlacementRule(FSPlacementRule):
    """``secondaryGroupExistingQueue``: the first of the user's groups (primary included) whose queue exists and is
    static; the create flag is not consulted."""

    JAVA_CLASS: ClassVar[str] = _PACKAGE + "SecondaryGroupExistingPlacementRule"

    def get_placement_for_app(self, app: _App) -> str | None:
        parent: str | None = None
        if self.parent is not None:
            parent = self.parent.get_placement_for_app(app)
            existing = None if parent is None else app.get_queue(parent)
            if parent is None or (existing is not None and existing.leaf):
                return None
        for group in app.groups:
            name = clean_name(group)
            queue = assure_root(name) if parent is None else parent + DOT + name
            if app.configured(queue):
                return queue
        return None


@dataclass(frozen=True, slots=True)
class DefaultPlacementRule(FSPlacementRule):
    """``default``: the rule's ``queue`` attribute (``root.default`` when absent or not a valid name)."""

    default_queue_name: str = ROOT + DOT + DEFAULT_QUEUE_NAME

    JAVA_CLASS: ClassVar[str] = _PACKAGE + "DefaultPlacementRule"

    def initialize(self) -> None:
        FSPlacementRule.initialize(self)
        if self.parent is not None:
            raise _InitError("Parent rule must not be configured for Default rule.")

    def get_placement_for_app(self, app: _App) -> str | None:
        return self._place(app, self.default_queue_name)


@dataclass(frozen=True, slots=True)
class RejectPlacementRule(FSPlacementRule):
    """``reject``: places nothing, so the application is rejected."""

    JAVA_CLASS: ClassVar[str] = _PACKAGE + "RejectPlacementRule"

    def initialize(self) -> None:
        FSPlacementRule.initialize(self)
        if self.parent is not None:
            raise _InitError("Parent rule should not be configured for Reject rule.")

    def get_placement_for_app(self, app: _App) -> str | None:
        return None


# QueuePlacementPolicy.RULES: the name in the file -> the class and when it is terminal ("create": as its flag).
_RULES: Final[dict[str, tuple[type[FSPlacementRule], str]]] = {
    "user": (UserPlacementRule, "create"),
    "primaryGroup": (PrimaryGroupPlacementRule, "create"),
    "secondaryGroupExistingQueue": (SecondaryGroupExistingPlacementRule, "false"),
    "specified": (SpecifiedPlacementRule, "false"),
    "nestedUserQueue": (UserPlacementRule, "create"),
    "default": (DefaultPlacementRule, "create"),
    "reject": (RejectPlacementRule, "true"),
}


def _terminal(name: str, rule: FSPlacementRule) -> bool:
    terminal = _RULES[name][1]
    return rule.create if terminal == "create" else terminal == "true"


def _create_flag(element: XmlElement) -> bool:
    """``FSPlacementRule.getCreateFlag``: absent or empty is true, else ``Boolean.parseBoolean``."""
    create = element.attribute("create")
    return not create or create.lower() == "true"


# -- the policy --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class QueuePlacementPolicy:
    """``QueuePlacementPolicy``: the rules the PlacementManager runs, in order."""

    rules: tuple[FSPlacementRule, ...]

    @classmethod
    def from_configuration(
        cls, allow_undeclared_pools: bool = True, user_as_default_queue: bool = True
    ) -> QueuePlacementPolicy:
        """``fromConfiguration``: ``specified`` (and ``user`` when user-as-default-queue), both creating queues iff
        allow-undeclared-pools; then ``default`` (creating) unless the user rule is terminal."""
        create = allow_undeclared_pools
        rules: list[FSPlacementRule] = [SpecifiedPlacementRule(create)]
        if user_as_default_queue:
            rules.append(UserPlacementRule(create))
        if not user_as_default_queue or not create:
            rules.append(DefaultPlacementRule(True))
        return cls(tuple(rules))

    @classmethod
    def from_xml(
        cls, element: XmlElement, source: str, no_terminal_rule_check: bool = False
    ) -> QueuePlacementPolicy | None:
        """``fromXml``: the rules of a ``<queuePlacementPolicy>`` element; None when it holds no rule at all (Hadoop
        then keeps the rules in force: "Empty rule set defined, ignoring update")."""

        def fail(message: str, at: XmlElement = element) -> AllocationConfigurationException:
            return AllocationConfigurationException(f"{source}:{at.line}: {one_line(message)}")

        if not element.has_child_nodes():
            raise fail("Empty configuration for QueuePlacementPolicy is not allowed")
        rules: list[tuple[FSPlacementRule, XmlElement]] = []
        terminals: list[bool] = []
        for node in element.elements():
            if node.tag.lower() != "rule":
                continue
            name = node.attribute("name")
            rule = _create_rule(node, fail)
            parent_element = _parent_rule_element(node, fail)
            if parent_element is not None:
                parent = _create_rule(parent_element, fail)
                rule = replace(rule, parent=parent)
            if name.lower() == "nesteduserqueue" and parent_element is None:
                raise fail(f"Rule '{name}' must have a parent rule set", node)
            terminal = _terminal(name, rule)
            if parent_element is not None and rule.parent is not None:
                terminal = terminal and _terminal(parent_element.attribute("name"), rule.parent)
            rules.append((rule, node))
            terminals.append(terminal)
        if not rules:
            log.debug("Empty rule set defined, ignoring update")
            return None
        for i, terminal in enumerate(terminals[:-1]):
            if terminal:
                message = f"Rules after rule {i + 1} in queue placement policy can never be reached"
                if not no_terminal_rule_check:
                    raise fail(message, rules[i][1])
                log.warning(message)
        if not terminals[-1]:
            raise fail("Could get past last queue placement rule without assigning", rules[-1][1])
        for rule, node in rules:
            try:
                rule.initialize()
            except _InitError as exc:
                raise fail(f"Rule initialisation failed with exception ({exc})", node) from None
        return cls(tuple(rule for rule, _ in rules))

    def place_application(
        self,
        queue: str | None,
        user: str,
        groups: Sequence[str] = (),
        queues: Mapping[str, ExistingQueue] | None = None,
        app_id: str = "",
    ) -> Placement:
        """Place an application that asked for ``queue`` (YARN sets ``default`` when it names none), submitted by
        ``user`` of ``groups`` (primary first), given the ``queues`` the scheduler holds (full names).

        ``PlacementManager.placeApplication`` then ``RMAppManager.placeApplication`` and
        ``FairScheduler.addApplication``'s rejection: a rule's YarnException, an empty requested queue (Hadoop's
        precedence: even when a rule placed it) and "no rule placed it" are rejections with Hadoop's messages."""
        app = _App(queue, user, groups, queues or {})
        placed: str | None = None
        try:
            for rule in self.rules:
                placed = rule.get_placement_for_app(app)
                if placed is not None:
                    break
        except _PlacementFailed as exc:
            return Placement(None, str(exc))
        if (placed is None and queue is None) or not queue:
            message = f"Failed to place application {app_id} in a queue and submit context queue is null or empty"
            log.error(message)
            return Placement(None, message)
        if placed is None:
            return Placement(
                None, f"Reject application {app_id} submitted by user {user} application rejected by placement rules."
            )
        return Placement(placed)


_Fail = Callable[[str, XmlElement], AllocationConfigurationException]


def _create_rule(element: XmlElement, fail: _Fail) -> FSPlacementRule:
    """``createRule`` and ``PlacementFactory.getPlacementRule(class, element)`` (the rule's ``setConfig``)."""
    name = element.attribute("name")
    if name == "":
        raise fail("No name provided for a rule element", element)
    if name not in _RULES:
        raise fail(f"No rule class found for {name}", element)
    rule_class = _RULES[name][0]
    if rule_class is RejectPlacementRule:
        return RejectPlacementRule()  # its setConfig ignores the element
    create = _create_flag(element)
    if rule_class is DefaultPlacementRule:
        queue = element.attribute("queue")
        if not is_valid_queue_name(queue):
            log.error(f"Default rule configured with an illegal queue name: '{queue}'")
            queue = ""
        return DefaultPlacementRule(create, default_queue_name=assure_root(queue or DEFAULT_QUEUE_NAME))
    return rule_class(create)


def _parent_rule_element(node: XmlElement, fail: _Fail) -> XmlElement | None:
    """``getParentRuleElement``: the last nested ``<rule>`` (a warning when there are several); ``reject`` and
    ``nestedUserQueue`` may not be parents."""
    parent: XmlElement | None = None
    for child in node.elements():
        if child.tag.lower() == "rule":
            if parent is not None:
                log.warning(
                    f"Rule '{node.attribute('name')}' has multiple parent rules defined, only the last parent rule "
                    "will be used"
                )
            parent = child
    if parent is not None and parent.attribute("name") in ("reject", "nestedUserQueue"):
        raise fail(f"Rule '{parent.attribute('name')}' is not allowed as a parent rule for any rule", parent)
    return parent
