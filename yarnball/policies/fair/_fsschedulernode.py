"""The preemption part of Hadoop's ``FSSchedulerNode`` (``scheduler/fair/FSSchedulerNode.java``; fair.md §5.4-§5.5):
per node, the containers chosen for preemption and, per starved application, the resource preempted for it there, so
that what the kills free goes to that application (``FairScheduler.assignPreemptedContainers``).

The node's own record (``SchedulerNode``: its containers, unallocated resource and reservation) is the base's; this
object sits beside it, one per node the FairScheduler knows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from yarnball.policies.capacity._state import RMContainer, SchedulerNode
from yarnball.policies.fair._resources import componentwise_min
from yarnball.protocols import ContainerId, Resource

if TYPE_CHECKING:
    from yarnball.policies.fair._fsappattempt import FSAppAttempt

__all__ = ["FSSchedulerNode"]

_NONE = Resource(0, 0)


class FSSchedulerNode:
    """``FSSchedulerNode``'s preemption bookkeeping for ``node``: ``containers_for_preemption`` (by id, in the order
    chosen), ``resources_preempted_for_app`` (insertion-ordered, as Hadoop's ``LinkedHashMap``) and their sum."""

    __slots__ = ("containers_for_preemption", "node", "resources_preempted_for_app", "total_resources_preempted")

    def __init__(self, node: SchedulerNode) -> None:
        self.node = node
        self.containers_for_preemption: dict[ContainerId, RMContainer] = {}
        self.resources_preempted_for_app: dict[FSAppAttempt, Resource] = {}
        self.total_resources_preempted = _NONE

    def get_total_reserved(self) -> Resource:
        """``getTotalReserved``: the node's reservation plus every resource preempted here for a starved app."""
        reserved = self.node.reserved
        base = Resource(reserved.mem, reserved.vc) if reserved is not None else _NONE
        return base + self.total_resources_preempted

    def get_running_containers_with_ams_at_the_end(self) -> list[RMContainer]:
        """``SchedulerNode.getRunningContainersWithAMsAtTheEnd``: Hadoop walks the node's container map putting
        each non-AM container first and each AM container last; the map here is in allocation order, so the newest
        non-AM container comes first and the AM containers, oldest first, end the list."""
        non_am: list[RMContainer] = []
        am: list[RMContainer] = []
        for rmc in self.node.containers.values():
            (am if rmc.is_am else non_am).append(rmc)
        non_am.reverse()
        return non_am + am

    def add_containers_for_preemption(self, containers: Iterable[RMContainer], app: FSAppAttempt) -> None:
        """``addContainersForPreemption``: the containers will not be chosen again; what they free is kept for
        ``app``."""
        app_reserved = _NONE
        for rmc in containers:
            if rmc.cid not in self.containers_for_preemption:
                self.containers_for_preemption[rmc.cid] = rmc
                app_reserved = app_reserved + Resource(rmc.mem, rmc.vc)
        if not app_reserved.is_none():
            self.total_resources_preempted = self.total_resources_preempted + app_reserved
            held = self.resources_preempted_for_app.get(app, _NONE)
            self.resources_preempted_for_app[app] = held + app_reserved

    def is_preempted_for_app(self, app: FSAppAttempt) -> bool:
        """``isPreemptedForApp``."""
        return app in self.resources_preempted_for_app

    def get_preemption_list(self) -> dict[FSAppAttempt, Resource]:
        """``getPreemptionList``: after ``cleanupPreemptionList`` (applications stopped, no longer starved, or with
        neither starvation any more are dropped), a copy."""
        for app in list(self.resources_preempted_for_app):
            state = app.starvation
            if (
                app.attempt.stopped
                or not app.is_starved()
                or (state.fairshare_starvation.is_none() and state.minshare_starvation.is_none())
            ):
                removed = self.resources_preempted_for_app.pop(app)
                self.total_resources_preempted = self.total_resources_preempted - removed
        return dict(self.resources_preempted_for_app)

    def allocate_container(self, app: FSAppAttempt, allocated: Resource) -> None:
        """``allocateContainer``'s bookkeeping: an allocation to an application with resource preempted for it
        here uses that up."""
        reserved = self.resources_preempted_for_app.get(app)
        if reserved is None or allocated.is_none():
            return
        fulfilled = componentwise_min(reserved, allocated)
        reserved = reserved - fulfilled
        self.total_resources_preempted = self.total_resources_preempted - fulfilled
        if reserved.is_none():
            del self.resources_preempted_for_app[app]
        else:
            self.resources_preempted_for_app[app] = reserved

    def release_container(self, container_id: ContainerId) -> None:
        """``releaseContainer``: a container that ended is no longer waiting for its preemption."""
        self.containers_for_preemption.pop(container_id, None)

