"""Hadoop's ``FSPreemptionThread`` (``scheduler/fair/FSPreemptionThread.java``; fair.md §5.4) with its
``PreemptableContainers`` and the ``VisitedResourceRequestTracker`` that ``FSAppAttempt.getStarvedResourceRequests``
uses.

In Hadoop the thread blocks on ``FSStarvedApps.take()``; the update thread (``FairScheduler.update`` every
``update-interval-ms``) fills that queue, and the thread wakes at once, under the scheduler's read lock, to choose the
containers for each starved application in turn: it tells each container's application (``trackContainerForPreemption``:
the AM's next ``allocate`` carries them in its ``PreemptionMessage``), sets a ``Timer`` that kills them after
``yarn.scheduler.fair.waitTimeBeforeKill`` (``completedContainer`` with ``PREEMPTED``), and makes the application
wait ``waitTimeBeforeKill + allocation delay + waitTimeBeforeNextStarvationCheck`` before it can be starved again.

In virtual time the thread's work follows the update that filled the queue, at the same instant: :meth:`run` takes
the starved applications until the queue is empty and returns, per application, the containers to kill after
:attr:`wait_time_before_kill`; the caller (the RM, actors/_preemption.py) marks them through ``mark`` and schedules
the kill on its clock. The same inputs give the same ticks, the same order (the queue is Hadoop's heap) and the same
choices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from yarnball._logs import get_logger
from yarnball.policies.capacity._state import RMContainer, SchedulerNode
from yarnball.policies.fair._fsleafqueue import subtract_non_negative
from yarnball.policies.fair._fsschedulernode import FSSchedulerNode
from yarnball.protocols import ANY, ApplicationId, Resource, ResourceRequest
from yarnball.protocols import keys as k

if TYPE_CHECKING:
    from yarnball.policies.fair._fairscheduler import FairScheduler
    from yarnball.policies.fair._fsappattempt import FSAppAttempt

__all__ = ["FSPreemptionThread", "PreemptableContainers", "VisitedResourceRequestTracker"]

log = get_logger(__name__)

_NONE = Resource(0, 0)
_INT_MAX = 2**31 - 1


class PreemptableContainers:
    """``PreemptableContainers``: the containers chosen on one node, by application, with the number of AM
    containers among them; adding one more AM container than ``max_am_containers`` allows fails."""

    __slots__ = ("containers_by_app", "max_am_containers", "num_am_containers")

    def __init__(self, max_am_containers: int) -> None:
        self.containers_by_app: dict[ApplicationId, list[RMContainer]] = {}
        self.num_am_containers = 0
        self.max_am_containers = max_am_containers

    def add_container(self, rmc: RMContainer, app_id: ApplicationId) -> bool:
        """``addContainer``: False (nothing added) when the AM containers would reach ``max_am_containers``."""
        if rmc.is_am:
            self.num_am_containers += 1
            if self.num_am_containers >= self.max_am_containers:
                return False
        self.containers_by_app.setdefault(app_id, []).append(rmc)
        return True

    def get_all_containers(self) -> list[RMContainer]:
        """``getAllContainers``: by application, in the order the applications were first chosen (Hadoop's map is a
        ``HashMap``)."""
        return [rmc for containers in self.containers_by_app.values() for rmc in containers]

    def get_resources_to_preempt_for_app(self, app_id: ApplicationId) -> Resource:
        """``getResourcesToPreemptForApp``."""
        total = _NONE
        for rmc in self.containers_by_app.get(app_id, ()):
            total = total + Resource(rmc.mem, rmc.vc)
        return total


class VisitedResourceRequestTracker:
    """``VisitedResourceRequestTracker``: per (priority, capability), whether an ask at another locality level was
    seen. ``ANY`` counts while no rack or node was seen (and stays seen); a rack is refused once ``ANY`` or a node of
    it was seen, a node once ``ANY`` or its rack was. A name is a node if exactly one node matches it, a rack if
    several do (so a one-node rack counts as a node, as in Hadoop); a name matching nothing is refused."""

    __slots__ = ("_by_key", "scheduler")

    def __init__(self, scheduler: FairScheduler) -> None:
        self.scheduler = scheduler
        # (priority, capability) -> [anyVisited, racksVisited, racksWithNodesVisited]
        self._by_key: dict[tuple[int, Resource], tuple[list[bool], set[str], set[str]]] = {}

    def visit(self, rr: ResourceRequest) -> bool:
        """``visit``: True if this is the first visit across all locality levels."""
        key = (rr.priority.priority, rr.capability)
        tracker = self._by_key.get(key)
        if tracker is None:
            tracker = self._by_key[key] = ([False], set(), set())
        any_visited, racks_visited, racks_with_nodes_visited = tracker
        if rr.resource_name == ANY:
            if not racks_visited and not racks_with_nodes_visited:
                any_visited[0] = True
            return any_visited[0]
        nodes = self.scheduler.get_nodes_by_resource_name(rr.resource_name)
        if not nodes:
            return False
        if len(nodes) == 1:
            rack = nodes[0].rack
            if any_visited[0] or rack in racks_visited:
                return False
            racks_with_nodes_visited.add(rack)
            return True
        if any_visited[0] or rr.resource_name in racks_with_nodes_visited:
            return False
        racks_visited.add(rr.resource_name)
        return True


class FSPreemptionThread:
    """``FSPreemptionThread`` over ``scheduler`` (its ``starved_apps`` queue); see the module docstring."""

    __slots__ = ("delay_before_next_starvation_check", "scheduler", "wait_time_before_kill")

    def __init__(self, scheduler: FairScheduler) -> None:
        from yarnball.policies.fair._fairschedulerconfiguration import FairSchedulerConfiguration

        self.scheduler = scheduler
        fs = FairSchedulerConfiguration(scheduler.conf)
        self.wait_time_before_kill = fs.get_wait_time_before_kill()
        conf = scheduler.conf
        if fs.is_continuous_scheduling_enabled():
            alloc_delay = 10 * fs.get_continuous_scheduling_sleep_ms()  # 10 runs
        else:
            heartbeat = conf.get_long(k.RM_NM_HEARTBEAT_INTERVAL_MS, k.DEFAULT_RM_NM_HEARTBEAT_INTERVAL_MS)
            alloc_delay = 4 * heartbeat  # 4 heartbeats
        self.delay_before_next_starvation_check = (
            self.wait_time_before_kill + alloc_delay + fs.get_wait_time_before_next_starvation_check()
        )

    def run(self, mark: Callable[[RMContainer], None] | None = None) -> list[list[RMContainer]]:
        """The thread's loop until ``FSStarvedApps`` is empty: for each starved application taken, the containers
        to preempt (each marked through ``mark``, by default the owner's ``trackContainerForPreemption``), then
        ``preemptionTriggered``. Returns one list of containers per application that got any, to be killed
        :attr:`wait_time_before_kill` ms from now (``preemptContainers``)."""
        s = self.scheduler
        starved = s.starved_apps
        kills: list[list[RMContainer]] = []
        while True:
            app = starved.take()
            if app is None:
                break
            containers = self.identify_containers_to_preempt(app, mark)  # type: ignore[arg-type]
            if containers:
                kills.append(containers)
            app.preemption_triggered(self.delay_before_next_starvation_check)  # type: ignore[attr-defined]
        starved.take()  # the thread blocks again: nothing is being processed
        return kills

    def identify_containers_to_preempt(
        self, starved_app: FSAppAttempt, mark: Callable[[RMContainer], None] | None = None
    ) -> list[RMContainer]:
        """``identifyContainersToPreempt``: for each starved ask and each of its containers, the best set of
        containers on one node (fewest AM containers); a set with AM containers for a local ask that may relax is
        replaced by a better one from the other nodes. The set's node keeps what it frees for ``starved_app``."""
        s = self.scheduler
        out: list[RMContainer] = []
        for rr in starved_app.get_starved_resource_requests():
            potential_nodes = s.get_nodes_by_resource_name(rr.resource_name)
            for _ in range(rr.num_containers):
                best = self.identify_containers_to_preempt_for_one_container(potential_nodes, rr)
                # Don't preempt AM containers just to satisfy local requests if relax locality is enabled.
                if best is not None and best.num_am_containers > 0 and rr.resource_name != ANY and rr.relax_locality:
                    chosen = {n.node_id for n in potential_nodes}
                    others = [n for n in s.nodes.values() if n.node_id not in chosen]
                    spare = self.identify_containers_to_preempt_for_one_container(others, rr)
                    if spare is not None and spare.num_am_containers < best.num_am_containers:
                        best = spare
                if best is None:
                    continue
                containers = best.get_all_containers()
                if not containers:
                    continue
                out.extend(containers)
                # Reserve the containers for the starved app (trackPreemptionsAgainstNode: the first one's node)
                s.fs_node(containers[0].node).add_containers_for_preemption(containers, starved_app)
                for rmc in containers:
                    app = s.fs_apps.get(rmc.app.attempt_id)
                    log.info(
                        f"Preempting container {rmc.cid} from queue: {app.queue.name if app is not None else 'unknown'}"
                    )
                    if app is not None:
                        if mark is not None:
                            mark(rmc)
                        else:
                            app.track_container_for_preemption(rmc)
        return out

    def identify_containers_to_preempt_for_one_container(
        self, potential_nodes: list[SchedulerNode], rr: ResourceRequest
    ) -> PreemptableContainers | None:
        """``identifyContainersToPreemptForOneContainer``: the first node's set, replaced by any later node's set
        with fewer AM containers; a set without AM containers ends the search."""
        best: PreemptableContainers | None = None
        max_am = _INT_MAX
        for node in potential_nodes:
            pc = self.identify_containers_to_preempt_on_node(rr.capability, self.scheduler.fs_node(node), max_am)
            if pc is not None:
                best = pc
                max_am = pc.num_am_containers
                if max_am == 0:
                    break
        return best

    def identify_containers_to_preempt_on_node(
        self, request: Resource, fs_node: FSSchedulerNode, max_am_containers: int
    ) -> PreemptableContainers | None:
        """``identifyContainersToPreemptOnNode``: the node's running containers (AM containers last, those already
        chosen left out) that may be preempted, until the node's unallocated resource (less its reservation and
        what is already preempted for starved applications there) and theirs fit ``request``; None if they never
        do, or if the set would hold ``max_am_containers`` AM containers."""
        s = self.scheduler
        pc = PreemptableContainers(max_am_containers)
        node = fs_node.node
        chosen = fs_node.containers_for_preemption
        candidates = [c for c in fs_node.get_running_containers_with_ams_at_the_end() if c.cid not in chosen]
        potential = subtract_non_negative(Resource(node.unalloc_m, node.unalloc_v), fs_node.get_total_reserved())
        for rmc in candidates:
            app = s.fs_apps.get(rmc.app.attempt_id)
            if app is None:
                log.info(f"Found container {rmc.cid} on node {node.host}without app, skipping preemption")
                continue
            app_id = app.application_id
            if app.can_container_be_preempted(rmc, pc.get_resources_to_preempt_for_app(app_id)):
                if not pc.add_container(rmc, app_id):
                    return None
                potential = potential + Resource(rmc.mem, rmc.vc)
            if request.fits_in(potential):
                return pc
        return None
