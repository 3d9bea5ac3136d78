"""Reading the FairScheduler's allocation file: ``AllocationFileParser`` and ``AllocationFileQueueParser``.

The file (fair.md §1.2) is parsed as Hadoop's ``DocumentBuilder`` with ``setIgnoringComments`` and its secure
factory parse it (a DOCTYPE is refused), into :class:`XmlElement` trees; the two parsers then read them in Hadoop's
order with Hadoop's messages. Where Hadoop fails with a bare Java exception (``NumberFormatException`` for
``<maxRunningApps>x</maxRunningApps>``, ``NullPointerException`` for an empty element) yarnball raises an
AllocationConfigurationException saying what was expected. Every message is prefixed by the file and line.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final
from xml.parsers import expat

from yarnball._inputs import MAX_NESTING_DEPTH
from yarnball._logs import get_logger
from yarnball.errors import AllocationConfigurationException, ConfigurationError, one_line
from yarnball.policies.capacity._acl import AccessControlList, QueueACL
from yarnball.policies.capacity._validation import f32
from yarnball.policies.fair._configurableresource import ConfigurableResource, parse_resource_config_value
from yarnball.policies.fair._fifopolicy import FifoPolicy
from yarnball.policies.fair._policies import DEFAULT_POLICY, parse
from yarnball.policies.fair._schedulingpolicy import SchedulingPolicy
from yarnball.protocols import Resource
from yarnball.protocols._javanumbers import INT_BITS, LONG_BITS, java_float, java_integer, java_trim

__all__ = [
    "FSQueueType",
    "QueueProperties",
    "ReservationACL",
    "TopLevelSettings",
    "XmlElement",
    "parse_allocation_xml",
    "parse_queues",
    "parse_top_level",
    "read_defaults",
    "trim_queue_name",
]

log = get_logger(__name__)

ROOT: Final = "root"
# FairSchedulerUtilities.WHITESPACE_TABLE
_WHITESPACE: Final = frozenset(
    "\u2002\u3000\r\u0085\u200a\u2005\u2000\u3000\u2029\u000b\u3000\u2008\u2003\u205f\u3000\u1680"
    "\u0009\u0020\u2006\u2001\u202f\u00a0\u000c\u2009\u3000\u2004\u3000\u3000\u2028\n\u2007\u3000"
)
_DOCTYPE: Final = (
    'DOCTYPE is disallowed when the feature "http://apache.org/xml/features/disallow-doctype-decl" set to true.'
)


class FSQueueType(enum.StrEnum):
    """``FSQueueType``: how a configured queue is created."""

    LEAF = "LEAF"
    PARENT = "PARENT"


class ReservationACL(enum.StrEnum):
    """``org.apache.hadoop.yarn.api.records.ReservationACL``."""

    ADMINISTER_RESERVATIONS = "ADMINISTER_RESERVATIONS"
    LIST_RESERVATIONS = "LIST_RESERVATIONS"
    SUBMIT_RESERVATIONS = "SUBMIT_RESERVATIONS"


def trim_queue_name(name: str) -> str:
    """``FairSchedulerUtilities.trimQueueName``: strip Hadoop's table of Unicode whitespace at both ends."""
    start, end = 0, len(name) - 1
    while start < len(name) and name[start] in _WHITESPACE:
        start += 1
    while end >= 0 and name[end] in _WHITESPACE and end > start:
        end -= 1
    return name[start : end + 1]


# -- the document ------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class XmlElement:
    """One DOM element: its tag, attributes, line, and children (elements, and the text between them)."""

    tag: str
    attrs: dict[str, str]
    line: int
    children: list[XmlElement | str] = field(default_factory=list)

    def attribute(self, name: str) -> str:
        """``Element.getAttribute``: the value, or "" when absent."""
        return self.attrs.get(name, "")

    def elements(self) -> list[XmlElement]:
        return [c for c in self.children if isinstance(c, XmlElement)]

    def has_child_nodes(self) -> bool:
        return bool(self.children)


def parse_allocation_xml(data: bytes, source: str) -> XmlElement:
    """The document element of an allocation file; malformed XML (or a DOCTYPE) is an error naming the line."""
    parser = expat.ParserCreate()
    stack: list[XmlElement] = []
    root: list[XmlElement] = []

    def fail(message: str, line: int) -> AllocationConfigurationException:
        return AllocationConfigurationException(f"{source}:{line}: {message}")

    def start(tag: str, attrs: dict[str, str]) -> None:
        if len(stack) >= MAX_NESTING_DEPTH:
            raise fail(
                f"XML nested too deeply (more than {MAX_NESTING_DEPTH} levels of elements)", parser.CurrentLineNumber
            )
        element = XmlElement(tag, dict(attrs), parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(element)
        stack.append(element)

    def end(_tag: str) -> None:
        stack.pop()

    def characters(chunk: str) -> None:
        if not stack:
            return
        children = stack[-1].children
        if children and isinstance(children[-1], str):  # one DOM text node (comments are dropped)
            children[-1] += chunk
        else:
            children.append(chunk)

    def doctype(*_args: object) -> None:
        raise fail(f"malformed XML: {_DOCTYPE}", parser.CurrentLineNumber)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    parser.StartDoctypeDeclHandler = doctype
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise fail(f"malformed XML: {expat.ErrorString(exc.code)} at column {exc.offset}", exc.lineno) from exc
    except (LookupError, ValueError) as exc:  # an unknown or unusable encoding in the XML declaration
        raise fail(f"malformed XML declaration: {exc}", parser.CurrentLineNumber or 1) from exc
    return root[0]


# -- reading values ----------------------------------------------------------------------------------------------
class _Reader:
    """Reads element texts as Hadoop does, raising AllocationConfigurationException that names the file and line."""

    __slots__ = ("resource_types", "source")

    def __init__(self, source: str, resource_types: Sequence[str]) -> None:
        self.source = source
        self.resource_types = tuple(resource_types)

    def error(self, element: XmlElement, message: str) -> AllocationConfigurationException:
        return AllocationConfigurationException(f"{self.source}:{element.line}: {one_line(message)}")

    def raw_text(self, element: XmlElement, owner: str, expected: str) -> str:
        """``((Text) element.getFirstChild()).getData()``: Hadoop fails (NullPointerException, ClassCastException)
        on an element that does not start with text."""
        first = element.children[0] if element.children else None
        if not isinstance(first, str):
            raise self.error(element, f"<{element.tag}>{owner} holds no text (expected {expected})")
        return first

    def text(self, element: XmlElement, owner: str, expected: str) -> str:
        """``getTrimmedTextData``: the first text, ``String.trim()``-ed."""
        return java_trim(self.raw_text(element, owner, expected))

    def number(self, element: XmlElement, owner: str, kind: str) -> float:
        """``Integer.parseInt``, ``Long.parseLong``, ``Float.parseFloat`` or ``Double.parseDouble`` of the text."""
        text = self.text(element, owner, _EXPECTED[kind])
        value: float | None
        if kind in ("int", "long"):
            value = java_integer(text, 10, INT_BITS if kind == "int" else LONG_BITS)
        else:
            value = java_float(text)
        if value is None:
            raise self.error(
                element, f'<{element.tag}>{owner}: For input string: "{text}" (expected {_EXPECTED[kind]})'
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise self.error(element, f"<{element.tag}>{owner}: {text} (yarnball: expected a finite number)")
        return f32(value) if kind == "float" else value

    def timeout(self, element: XmlElement, owner: str) -> int:
        """``Long.parseLong(text) * 1000L``: seconds to ms, wrapping as Java's long arithmetic does."""
        return _wrap_long(int(self.number(element, owner, "long")) * 1000)

    def resource(self, element: XmlElement, owner: str, missing: int | None = None) -> ConfigurableResource:
        text = self.text(element, owner, "a resource such as 1024 mb, 2 vcores")
        try:
            if missing is None:
                return parse_resource_config_value(text, resource_types=self.resource_types)
            return parse_resource_config_value(text, missing, self.resource_types)
        except AllocationConfigurationException as exc:
            raise self.error(element, f"<{element.tag}>{owner}: {exc}") from None

    def acl(self, element: XmlElement, owner: str) -> AccessControlList:
        return AccessControlList(self.raw_text(element, owner, 'an ACL such as "user1,user2 group1" or " "'))


_EXPECTED: Final = {
    "int": "an integer",
    "long": "an integer",
    "float": "a number",
    "double": "a number",
}


def _wrap_long(value: int) -> int:
    """Java's long arithmetic wraps: ``Long.parseLong(text) * 1000L`` of a huge timeout."""
    return (value + 2**63) % 2**64 - 2**63


# -- top level: AllocationFileParser -----------------------------------------------------------------------------
_VALID_TAG_NAMES: Final = frozenset(
    {
        "queueMaxResourcesDefault", "userMaxAppsDefault", "defaultFairSharePreemptionTimeout",
        "fairSharePreemptionTimeout", "defaultMinSharePreemptionTimeout", "queueMaxAppsDefault",
        "defaultFairSharePreemptionThreshold", "queueMaxAMShareDefault", "reservation-planner", "reservation-agent",
        "reservation-policy", "queuePlacementPolicy", "queue", "pool", "user", "defaultQueueSchedulingPolicy",
        "defaultQueueSchedulingMode",
    }
)  # fmt: skip


@dataclass(slots=True)
class TopLevelSettings:
    """What ``AllocationFileParser`` reads from the children of ``<allocations>``, with its getters' defaults."""

    queue_elements: list[XmlElement] = field(default_factory=list)
    placement_policy: XmlElement | None = None
    user_max_apps: dict[str, int] = field(default_factory=dict)
    default_scheduling_policy: SchedulingPolicy = DEFAULT_POLICY
    user_max_apps_default: int = 2**31 - 1
    queue_max_apps_default: int = 2**31 - 1
    queue_max_resources_default: ConfigurableResource | None = None  # None: Resources.unbounded()
    queue_max_am_share_default: float = 0.5
    default_fair_share_preemption_timeout: int = 2**63 - 1
    default_min_share_preemption_timeout: int = 2**63 - 1
    default_fair_share_preemption_threshold: float = 0.5
    reservation_planner: str | None = None
    reservation_agent: str | None = None
    reservation_admission_policy: str | None = None
    texts: dict[str, XmlElement] = field(default_factory=dict)


def parse_top_level(root: XmlElement, source: str, resource_types: Sequence[str] = ()) -> TopLevelSettings:
    """``AllocationFileParser.parse``: unknown tags only warn, the last of a repeated tag wins. The defaults are
    read later, by :func:`read_defaults`, where Hadoop's loader calls the parser's getters."""
    reader = _Reader(source, resource_types)
    settings = TopLevelSettings()
    texts = settings.texts
    for element in root.elements():
        tag = element.tag
        if tag not in _VALID_TAG_NAMES:
            log.warning(f"Bad element in allocations file: {tag}", file=source, line=element.line)
        elif tag == "queuePlacementPolicy":
            settings.placement_policy = element
        elif tag in ("defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode"):
            text = reader.text(element, "", "fair or drf")
            if text.lower() == FifoPolicy.NAME.lower():  # extractSchedulingPolicy
                raise reader.error(
                    element,
                    "Bad fair scheduler config file: defaultQueueSchedulingPolicy or defaultQueueSchedulingMode "
                    "can't be FIFO.",
                )
            settings.default_scheduling_policy = _policy(reader, element, text)
        elif tag in ("queue", "pool"):
            settings.queue_elements.append(element)
        elif tag == "user":
            name = element.attribute("name")
            for child in element.elements():
                if child.tag == "maxRunningApps":
                    settings.user_max_apps[name] = int(reader.number(child, f' of user "{name}"', "int"))
        else:
            reader.text(element, "", "a value")  # getTrimmedTextData fails at once on an empty element
            texts[tag] = element
    return settings


def read_defaults(settings: TopLevelSettings, source: str, resource_types: Sequence[str] = ()) -> None:
    """The getters of ``AllocationFileParser`` (``getUserMaxAppsDefault``, ``getDefaultFairSharePreemptionTimeout``,
    ...): the file-level defaults, parsed into ``settings``."""
    reader = _Reader(source, resource_types)
    texts = settings.texts

    def number(tag: str, kind: str) -> float | None:
        return reader.number(texts[tag], "", kind) if tag in texts else None

    if (value := number("userMaxAppsDefault", "int")) is not None:
        settings.user_max_apps_default = int(value)
    if (value := number("queueMaxAppsDefault", "int")) is not None:
        settings.queue_max_apps_default = int(value)
    if "queueMaxResourcesDefault" in texts:
        settings.queue_max_resources_default = reader.resource(texts["queueMaxResourcesDefault"], "")
    if (value := number("queueMaxAMShareDefault", "float")) is not None:
        settings.queue_max_am_share_default = min(value, 1.0)
    # getDefaultFairSharePreemptionTimeout: the legacy top-level fairSharePreemptionTimeout only without the new tag
    legacy = number("fairSharePreemptionTimeout", "long")
    current = number("defaultFairSharePreemptionTimeout", "long")
    timeout = current if current is not None else legacy
    if timeout is not None:
        settings.default_fair_share_preemption_timeout = _wrap_long(int(timeout) * 1000)
    if (value := number("defaultMinSharePreemptionTimeout", "long")) is not None:
        settings.default_min_share_preemption_timeout = _wrap_long(int(value) * 1000)
    if (value := number("defaultFairSharePreemptionThreshold", "float")) is not None:
        settings.default_fair_share_preemption_threshold = max(min(value, 1.0), 0.0)
    for tag, attribute in (
        ("reservation-planner", "reservation_planner"),
        ("reservation-agent", "reservation_agent"),
        ("reservation-policy", "reservation_admission_policy"),
    ):
        if tag in texts:
            setattr(settings, attribute, reader.text(texts[tag], "", "a class name"))


def _policy(reader: _Reader, element: XmlElement, text: str) -> SchedulingPolicy:
    """``SchedulingPolicy.parse``; Java classes cannot be loaded here, so a class name other than the three policies'
    is "not found", as Hadoop reports a class missing from its classpath."""
    try:
        return parse(text)
    except ConfigurationError as exc:
        raise reader.error(element, str(exc)) from None


# -- queues: AllocationFileQueueParser ---------------------------------------------------------------------------
@dataclass(slots=True)
class QueueProperties:
    """Hadoop's ``QueueProperties``: per full queue name, what the file sets (queues in file order)."""

    min_queue_resources: dict[str, Resource | None] = field(default_factory=dict)
    max_queue_resources: dict[str, ConfigurableResource] = field(default_factory=dict)
    max_child_queue_resources: dict[str, ConfigurableResource] = field(default_factory=dict)
    queue_max_apps: dict[str, int] = field(default_factory=dict)
    queue_max_am_shares: dict[str, float] = field(default_factory=dict)
    queue_max_container_allocation: dict[str, Resource | None] = field(default_factory=dict)
    queue_weights: dict[str, float] = field(default_factory=dict)
    queue_policies: dict[str, SchedulingPolicy] = field(default_factory=dict)
    min_share_preemption_timeouts: dict[str, int] = field(default_factory=dict)
    fair_share_preemption_timeouts: dict[str, int] = field(default_factory=dict)
    fair_share_preemption_thresholds: dict[str, float] = field(default_factory=dict)
    queue_acls: dict[str, dict[QueueACL, AccessControlList]] = field(default_factory=dict)
    reservation_acls: dict[str, dict[ReservationACL, AccessControlList]] = field(default_factory=dict)
    reservable_queues: dict[str, None] = field(default_factory=dict)
    non_preemptable_queues: dict[str, None] = field(default_factory=dict)
    configured_queues: dict[FSQueueType, dict[str, None]] = field(
        default_factory=lambda: {FSQueueType.LEAF: {}, FSQueueType.PARENT: {}}
    )


_ACLS: Final = {"aclSubmitApps": QueueACL.SUBMIT_APPLICATIONS, "aclAdministerApps": QueueACL.ADMINISTER_QUEUE}
_RESERVATION_ACLS: Final = {
    "aclAdministerReservations": ReservationACL.ADMINISTER_RESERVATIONS,
    "aclListReservations": ReservationACL.LIST_RESERVATIONS,
    "aclSubmitReservations": ReservationACL.SUBMIT_RESERVATIONS,
}


def parse_queues(elements: Sequence[XmlElement], source: str, resource_types: Sequence[str] = ()) -> QueueProperties:
    """``AllocationFileQueueParser.parse``: a top-level ``root`` queue must be the only one; other top-level queues
    are children of root."""
    reader = _Reader(source, resource_types)
    properties = QueueProperties()
    for element in elements:
        parent: str | None = ROOT
        if element.attribute("name").lower() == ROOT:  # equalsIgnoreCase, on the untrimmed name
            if len(elements) > 1:
                raise reader.error(element, "If configuring root queue, no other queues can be placed alongside it.")
            parent = None
        _load_queue(reader, parent, element, properties)
    return properties


def _load_queue(reader: _Reader, parent: str | None, element: XmlElement, props: QueueProperties) -> None:
    """``AllocationFileQueueParser.loadQueue``."""
    name = trim_queue_name(element.attribute("name"))
    if "." in name:
        raise reader.error(element, f"Bad fair scheduler config file: queue name ({name}) shouldn't contain period.")
    if not name:
        raise reader.error(
            element, "Bad fair scheduler config file: queue name shouldn't be empty or consist only of whitespace."
        )
    if parent is not None:
        name = f"{parent}.{name}"
    owner = f" of queue {name}"
    is_leaf, is_reservable, max_am_share_set = True, False, False
    for field_element in element.elements():
        tag = field_element.tag
        if tag == "minResources":
            props.min_queue_resources[name] = reader.resource(field_element, owner, 0).get_resource()
        elif tag == "maxResources":
            props.max_queue_resources[name] = reader.resource(field_element, owner)
        elif tag == "maxChildResources":
            props.max_child_queue_resources[name] = reader.resource(field_element, owner)
        elif tag == "maxRunningApps":
            props.queue_max_apps[name] = int(reader.number(field_element, owner, "int"))
        elif tag == "maxAMShare":
            props.queue_max_am_shares[name] = min(reader.number(field_element, owner, "float"), 1.0)
            max_am_share_set = True
        elif tag == "maxContainerAllocation":
            props.queue_max_container_allocation[name] = reader.resource(field_element, owner).get_resource()
        elif tag == "weight":
            props.queue_weights[name] = f32(reader.number(field_element, owner, "double"))
        elif tag == "minSharePreemptionTimeout":
            props.min_share_preemption_timeouts[name] = reader.timeout(field_element, owner)
        elif tag == "fairSharePreemptionTimeout":
            props.fair_share_preemption_timeouts[name] = reader.timeout(field_element, owner)
        elif tag == "fairSharePreemptionThreshold":
            value = reader.number(field_element, owner, "float")
            props.fair_share_preemption_thresholds[name] = max(min(value, 1.0), 0.0)
        elif tag in ("schedulingPolicy", "schedulingMode"):
            text = reader.text(field_element, owner, "fair, drf or fifo")
            props.queue_policies[name] = _policy(reader, field_element, text)
        elif tag in _ACLS:
            props.queue_acls.setdefault(name, {})[_ACLS[tag]] = reader.acl(field_element, owner)
        elif tag in _RESERVATION_ACLS:
            props.reservation_acls.setdefault(name, {})[_RESERVATION_ACLS[tag]] = reader.acl(field_element, owner)
        elif tag == "reservation":
            is_reservable = True
            props.reservable_queues[name] = None
            props.configured_queues[FSQueueType.PARENT][name] = None
        elif tag == "allowPreemptionFrom":
            # Boolean.parseBoolean: anything but "true" (any case) is false
            if reader.text(field_element, owner, "true or false").lower() != "true":
                props.non_preemptable_queues[name] = None
        elif "queue".endswith(tag) or tag == "pool":  # Hadoop's test: "queue", "ueue", "eue", "ue", "e"
            _load_queue(reader, name, field_element, props)
            is_leaf = False
    if is_leaf and element.attribute("type") != "parent":
        if not is_reservable:  # a reservable queue is already configured as a parent
            props.configured_queues[FSQueueType.LEAF][name] = None
    else:
        for flag, what in ((is_reservable, "reservation"), (max_am_share_set, "maxAMShare")):
            if flag:
                raise reader.error(
                    element,
                    f"The configuration settings for {name} are invalid. A queue element that contains child queue "
                    "elements or that has the type='parent' attribute cannot also include a " + what + " element.",
                )
        props.configured_queues[FSQueueType.PARENT][name] = None
    acls = props.queue_acls.setdefault(name, {})
    for acl in QueueACL:  # the root queue defaults to all access, every other queue to none
        acls.setdefault(acl, AccessControlList.everyone() if name == ROOT else AccessControlList.nobody())
    _check_min_and_max_resource(props, name)


def _check_min_and_max_resource(props: QueueProperties, name: str) -> None:
    """``checkMinAndMaxResource``: an absolute max below the min only warns."""
    maximum, minimum = props.max_queue_resources.get(name), props.min_queue_resources.get(name)
    if maximum is None or minimum is None or maximum.resource is None:
        return
    if not minimum.fits_in(maximum.resource):
        log.warning(f"Queue {name} has max resources {maximum.resource} less than min resources {minimum}")
