"""Hadoop's ``AllocationFileWriter`` family (``fair/allocationfile/``), for the FairScheduler tests: builders that
render an allocation file, as the Hadoop tests write theirs (no tests here).

``AllocationFileWriter().add_queue(AllocationFileQueue("a", max_running_apps=1)).write_to_file(path)``; a queue's
settings are its keyword arguments, named as the Java builder's methods (``min_resources`` for ``minResources``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# AllocationFileQueue.render: the child elements in Hadoop's order.
_QUEUE_FIELDS = (
    ("min_resources", "minResources"),
    ("max_resources", "maxResources"),
    ("acl_administer_apps", "aclAdministerApps"),
    ("acl_submit_apps", "aclSubmitApps"),
    ("acl_submit_reservations", "aclSubmitReservations"),
    ("acl_administer_reservations", "aclAdministerReservations"),
    ("acl_list_reservations", "aclListReservations"),
    ("scheduling_policy", "schedulingPolicy"),
    ("max_running_apps", "maxRunningApps"),
    ("max_am_share", "maxAMShare"),
    ("allow_preemption_from", "allowPreemptionFrom"),
    ("min_share_preemption_timeout", "minSharePreemptionTimeout"),
    ("max_child_resources", "maxChildResources"),
    ("fair_share_preemption_timeout", "fairSharePreemptionTimeout"),
    ("fair_share_preemption_threshold", "fairSharePreemptionThreshold"),
    ("max_container_allocation", "maxContainerAllocation"),
    ("weight", "weight"),
)


def _java(value: object) -> str:
    """``Object.toString`` of a Java Integer, Double, Boolean or String."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _tag(tag: str, value: object) -> str:
    return "" if value is None else f"<{tag}>{_java(value)}</{tag}>\n"


class AllocationFileQueue:
    """``AllocationFileQueue.Builder(name)...build()``: ``parent=True`` adds ``type="parent"``, ``reservation=True``
    an empty ``<reservation>``, ``sub_queues`` nested queues."""

    def __init__(
        self,
        name: str,
        *,
        parent: bool = False,
        reservation: bool = False,
        sub_queues: tuple[AllocationFileQueue, ...] = (),
        **settings: object,
    ) -> None:
        unknown = set(settings) - {attr for attr, _ in _QUEUE_FIELDS}
        assert not unknown, unknown
        self.name, self.parent, self.reservation, self.sub_queues, self.settings = (
            name, parent, reservation, sub_queues, settings,
        )  # fmt: skip

    def render(self, tag: str = "queue") -> str:
        out = f'<{tag} name="{self.name}"' + (' type="parent"' if self.parent else "") + ">\n"
        out += "".join(q.render(tag) for q in self.sub_queues)
        out += "".join(_tag(xml, self.settings.get(attr)) for attr, xml in _QUEUE_FIELDS)
        out += "<reservation></reservation>\n" if self.reservation else ""
        return out + f"</{tag}>\n"


@dataclass
class AllocationFileQueuePlacementRule:
    """``AllocationFileQueuePlacementRule``: ``<rule name=".." create="..">`` with nested (parent) rules."""

    name: str
    create: bool = True
    queue: str | None = None
    nested: list[AllocationFileQueuePlacementRule] = field(default_factory=list)

    def add_nested_rule(self, rule: AllocationFileQueuePlacementRule) -> AllocationFileQueuePlacementRule:
        self.nested.append(rule)
        return self

    def render(self) -> str:
        queue = f' queue="{self.queue}"' if self.queue is not None else ""
        inner = "".join(rule.render() for rule in self.nested)
        return f'<rule name="{self.name}" create="{_java(self.create)}"{queue}>\n{inner}</rule>\n'


@dataclass
class AllocationFileQueuePlacementPolicy:
    rules: list[AllocationFileQueuePlacementRule] = field(default_factory=list)

    def add_rule(self, rule: AllocationFileQueuePlacementRule) -> AllocationFileQueuePlacementPolicy:
        self.rules.append(rule)
        return self

    def render(self) -> str:
        return "<queuePlacementPolicy>\n" + "".join(r.render() for r in self.rules) + "</queuePlacementPolicy>\n"


class AllocationFileWriter:
    """``AllocationFileWriter.create()...writeToFile(path)``: queues, user settings, the placement policy, then the
    file-level defaults, in Hadoop's order."""

    _DEFAULTS = (
        "queueMaxAppsDefault", "queueMaxResourcesDefault", "userMaxAppsDefault", "queueMaxAMShareDefault",
        "defaultMinSharePreemptionTimeout", "defaultFairSharePreemptionTimeout", "defaultFairSharePreemptionThreshold",
        "defaultQueueSchedulingPolicy", "reservation-agent", "reservation-policy",
    )  # fmt: skip

    def __init__(self) -> None:
        self.queues: list[AllocationFileQueue] = []
        self.users: dict[str, int] = {}
        self.placement: AllocationFileQueuePlacementPolicy | None = None
        self.defaults: dict[str, object] = {}
        self.legacy_tag = False

    def add_queue(self, queue: AllocationFileQueue) -> AllocationFileWriter:
        self.queues.append(queue)
        return self

    def user_settings(self, user: str, max_running_apps: int) -> AllocationFileWriter:
        self.users[user] = max_running_apps
        return self

    def queue_placement_policy(self, policy: AllocationFileQueuePlacementPolicy) -> AllocationFileWriter:
        self.placement = policy
        return self

    def use_legacy_tag_name_for_queues(self) -> AllocationFileWriter:
        self.legacy_tag = True
        return self

    def set(self, tag: str, value: object) -> AllocationFileWriter:
        """One file-level default (``queueMaxAppsDefault``, ``defaultQueueSchedulingPolicy``, ...)."""
        assert tag in self._DEFAULTS, tag
        self.defaults[tag] = value
        return self

    def render(self) -> str:
        out = '<?xml version="1.0" encoding="UTF-8"?>\n<allocations>\n'
        out += "".join(q.render("pool" if self.legacy_tag else "queue") for q in self.queues)
        for user, apps in self.users.items():
            out += f'<user name="{user}">\n<maxRunningApps>{apps}</maxRunningApps>\n</user>\n'
        out += self.placement.render() if self.placement is not None else ""
        out += "".join(_tag(tag, self.defaults.get(tag)) for tag in self._DEFAULTS)
        return out + "</allocations>\n"

    def write_to_file(self, path: Path) -> Path:
        path.write_text(self.render(), encoding="utf-8")
        return path
