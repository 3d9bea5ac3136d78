"""Hadoop's ``TestFSSchedulerNode`` (``scheduler/fair/``) on yarnball's FairScheduler: the node's allocated resource
and ``FSSchedulerNode``'s preemption bookkeeping (containers marked for preemption, the resource kept per starved
application, ``getTotalReserved``) as containers are allocated, preempted for starved applications and released
(shared/reference/fair.md §5.4, §5.5). Method names are Hadoop's, snake-cased.

Hadoop's test builds its containers and applications with Mockito. Here they are real: one 8 GB, 8-vcore node;
``createDefaultContainer`` plus ``allocateContainer`` is a 1 GB ask of an application in ``root.greedy`` allocated
by a node heartbeat; a starving application (``createStarvingApp``) asks for its request in ``root.starving`` and is
found starved by the scheduler's update (fair-share preemption, threshold 1, timeout 0); ``releaseContainer(id,
true)`` is the container completing as the node reports it (``completedContainer``); ``allocateContainers`` is
``FairScheduler.assignPreemptedContainers``. The mock's ``assignContainer`` allocates the whole request while the node
has any resource left, going over the node's capacity; a real ask waits until it fits (testMultiplePreemptionEvents).
"""

from __future__ import annotations

from pathlib import Path

from fair_scheduler_harness import GB, Harness, rr

from yarnball.policies.capacity._state import RMContainer
from yarnball.policies.fair._fsappattempt import FSAppAttempt
from yarnball.policies.fair._fsschedulernode import FSSchedulerNode
from yarnball.protocols import ContainerState, ContainerStatus, Resource, keys

NONE = Resource(0, 0)
DEFAULT = Resource(GB, 1)


def allocations(starving_max: str) -> str:
    """Two leaves of equal weight; an application of ``root.starving`` may preempt as soon as it is below its fair
    share (``starving_max``, when given, is that queue's ``maxResources``)."""
    max_resources = f"<maxResources>{starving_max}</maxResources>" if starving_max else ""
    return (
        "<queue name='greedy'/>"
        f"<queue name='starving'>{max_resources}"
        "<fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>"
        "<fairSharePreemptionTimeout>0</fairSharePreemptionTimeout>"
        "</queue>"
    )


class NodeUnderTest:
    """The test's ``FSSchedulerNode`` (``createNode``: 8192 MB, 8 vcores, ``host.domain.com``) on a started
    FairScheduler, with the containers allocated on it in order (Hadoop's ``containers``)."""

    def __init__(self, tmp_path: Path, starving_max: str = "") -> None:
        # an increment of 512 MB keeps testPartialReservedPreemption's 512 MB ask at its size
        settings = {keys.PREEMPTION: True, keys.RM_SCHEDULER_INCREMENT_ALLOCATION_MB: 512}
        self.h = Harness(tmp_path, allocations(starving_max), **settings)
        nid = self.h.add_node(8 * GB, 8, host="host.domain.com")
        self.node = self.h.s.nodes[nid]
        self.fs_node: FSSchedulerNode = self.h.s.fs_node(self.node)
        self.greedy = self.h.request_asks([], "root.greedy", "greedy")
        self.containers: list[RMContainer] = []

    # -- FSSchedulerNode's reads ---------------------------------------------------------------------------------
    def allocated(self) -> Resource:
        """``getAllocatedResource``."""
        return Resource(self.node.total_m - self.node.unalloc_m, self.node.total_v - self.node.unalloc_v)

    def total(self) -> Resource:
        """``getTotalResource``."""
        return Resource(self.node.total_m, self.node.total_v)

    def unallocated(self) -> Resource:
        """``getUnallocatedResource``."""
        return Resource(self.node.unalloc_m, self.node.unalloc_v)

    # -- the test's helpers ----------------------------------------------------------------------------------------
    def create_default_containers(self, n: int) -> None:
        """``createDefaultContainer`` ``n`` times: 1 GB, 1 vcore asks of the greedy application."""
        self.h.ask(self.greedy, rr(GB, n=n + len(self.h.s.attempts[self.greedy].live), vcores=1))
        self.h.s.update()

    def allocate_container(self) -> RMContainer:
        """``allocateContainer`` and ``containerStarted`` of the next default container: a node heartbeat
        allocates it, the node reports it launched."""
        notes = self.h.heartbeat(self.node.node_id)
        assert len(notes) == 1, notes
        rmc = self.h.s.get_rm_container(notes[0].container.id)
        assert rmc is not None
        self.h.s.mark_launched([rmc.cid])
        self.containers.append(rmc)
        return rmc

    def saturate_cluster(self) -> None:
        """``saturateCluster``: default containers until the node has nothing unallocated."""
        self.create_default_containers(self.node.unalloc_m // GB)
        while not self.unallocated().is_none():
            self.allocate_container()
        assert self.allocated() == Resource(DEFAULT.memory_mb * len(self.containers), len(self.containers))

    def create_starving_app(self, request: Resource) -> FSAppAttempt:
        """``createStarvingApp``: an application asking for ``request`` in one container, starved at the next
        update."""
        aid = self.h.request_asks([rr(request.memory_mb, vcores=request.vcores)], "root.starving", "starving")
        self.h.clock.ms += 1000
        self.h.s.update()
        app = self.h.app(aid)
        assert app.is_starved()
        return app

    def release_container(self, rmc: RMContainer) -> None:
        """``releaseContainer(containerId, true)``: the node reports the container finished (``completedContainer``,
        as NODE_UPDATE hands on its completed containers)."""
        status = ContainerStatus(container_id=rmc.cid, state=ContainerState.COMPLETE, exit_status=0)
        self.h.s.complete_container(rmc, status, notify=False)

    def allocate_containers(self) -> None:
        """``allocateContainers``: ``FairScheduler.assignPreemptedContainers(schedulerNode)``."""
        self.h.s.assign_preempted_containers(self.node)

    def release_all(self, first: int) -> None:
        """Release every container from ``containers[first]`` on, and whatever the starved applications got."""
        for rmc in self.containers[first:]:
            self.release_container(rmc)
        for app in self.h.s.fs_apps.values():
            for rmc in list(app.attempt.live.values()):
                self.release_container(rmc)

    def final_validation(self) -> None:
        """``finalValidation``."""
        assert self.allocated() == NONE, "Everything should have been released"
        assert not self.fs_node.containers_for_preemption, "No containers should be reserved for preemption"
        assert not self.fs_node.resources_preempted_for_app, "No resources should be reserved for preemptors"
        assert self.fs_node.get_total_reserved() == NONE, "No amount of resource should be reserved for preemptees"


def test_simple_allocation(tmp_path: Path) -> None:
    """Allocate and release a single container."""
    t = NodeUnderTest(tmp_path)
    t.create_default_containers(1)
    assert t.allocated() == NONE, "Nothing should have been allocated, yet"
    c0 = t.allocate_container()
    assert t.allocated() == Resource(c0.mem, c0.vc) == DEFAULT, "Container should be allocated"
    t.release_container(c0)
    assert t.allocated() == NONE, "Everything should have been released"
    # Check that we are error prone
    t.release_container(c0)
    t.final_validation()


def test_multiple_allocations(tmp_path: Path) -> None:
    """Allocate and release three containers with launch."""
    t = NodeUnderTest(tmp_path)
    t.create_default_containers(3)
    assert t.allocated() == NONE, "Nothing should have been allocated, yet"
    c = [t.allocate_container() for _ in range(3)]
    assert t.allocated() == Resource(3 * GB, 3), "Container should be allocated"
    for i in (1, 2, 0):
        t.release_container(c[i])
    t.final_validation()


def test_simple_preemption(tmp_path: Path) -> None:
    """A container preempted for a starved application goes to it once released."""
    t = NodeUnderTest(tmp_path)
    t.saturate_cluster()
    starving_app = t.create_starving_app(Resource(GB, 1))
    c0 = t.containers[0]
    t.fs_node.add_containers_for_preemption([c0], starving_app)
    assert t.fs_node.get_total_reserved() == Resource(c0.mem, c0.vc)
    # Preemption occurs release one container
    t.release_container(c0)
    t.allocate_containers()
    assert t.allocated() == t.total(), "Container should be allocated"
    t.release_all(1)
    t.final_validation()


def test_duplicate_preemption(tmp_path: Path) -> None:
    """A container marked for preemption twice is counted once."""
    t = NodeUnderTest(tmp_path)
    t.saturate_cluster()
    starving_app = t.create_starving_app(Resource(GB, 1))
    c0 = t.containers[0]
    t.fs_node.add_containers_for_preemption([c0], starving_app)
    t.fs_node.add_containers_for_preemption([c0], starving_app)
    assert t.fs_node.get_total_reserved() == Resource(c0.mem, c0.vc)
    t.release_container(c0)
    t.allocate_containers()
    assert t.allocated() == t.total(), "Container should be allocated"
    t.release_all(1)
    t.final_validation()


def test_complex_preemption(tmp_path: Path) -> None:
    """Allocate and release three containers requested by two apps."""
    t = NodeUnderTest(tmp_path)
    t.saturate_cluster()
    starving_app1 = t.create_starving_app(Resource(2 * GB, 2))
    starving_app2 = t.create_starving_app(Resource(GB, 1))
    c = t.containers
    # Preemption thread kicks in
    t.fs_node.add_containers_for_preemption([c[0]], starving_app1)
    t.fs_node.add_containers_for_preemption([c[1]], starving_app1)
    t.fs_node.add_containers_for_preemption([c[2]], starving_app2)
    # Preemption happens
    for i in (0, 2, 1):
        t.release_container(c[i])
    t.allocate_containers()
    assert t.allocated() == t.total(), "Container should be allocated"
    assert len(starving_app1.attempt.live) == len(starving_app2.attempt.live) == 1
    t.release_all(3)
    t.final_validation()


def test_multiple_preemption_events(tmp_path: Path) -> None:
    """Allocate and release three containers requested by two apps in two rounds."""
    t = NodeUnderTest(tmp_path)
    t.saturate_cluster()
    starving_app1 = t.create_starving_app(Resource(2 * GB, 2))
    starving_app2 = t.create_starving_app(Resource(GB, 1))
    c = t.containers
    t.fs_node.add_containers_for_preemption([c[0]], starving_app1)
    t.fs_node.add_containers_for_preemption([c[1]], starving_app1)
    t.fs_node.add_containers_for_preemption([c[2]], starving_app2)
    # Preemption happens
    t.release_container(c[1])
    t.allocate_containers()
    # 1 GB free: app1's 2 GB does not fit (nor is the node reserved for it), app2 takes its 1 GB
    assert (len(starving_app1.attempt.live), len(starving_app2.attempt.live)) == (0, 1)
    t.release_container(c[2])
    t.release_container(c[0])
    t.allocate_containers()
    assert t.allocated() == t.total(), "Container should be allocated"
    t.release_all(3)
    t.final_validation()


def test_preemption_to_completed_app(tmp_path: Path) -> None:
    """Allocate and release a single container and delete the app in between."""
    t = NodeUnderTest(tmp_path)
    t.saturate_cluster()
    starving_app = t.create_starving_app(Resource(GB, 1))
    c0 = t.containers[0]
    t.fs_node.add_containers_for_preemption([c0], starving_app)
    t.release_container(c0)
    # Stop the application then try to satisfy the reservation and observe that there are still free resources
    # not allocated to the deleted app
    t.h.remove(starving_app.attempt.attempt_id)
    assert starving_app.attempt.stopped
    t.allocate_containers()
    assert t.allocated() != t.total(), "Container should not be allocated"
    t.release_all(1)
    t.final_validation()


def test_partial_reserved_preemption(tmp_path: Path) -> None:
    """Preempt a bigger container than the preemption request."""
    # The mock application stops being starved once it got its request. A real one is starved while its usage is
    # below its fair share (FSAppAttempt.isStarved), which is not capped at its demand, and its starvation is not
    # recomputed once it has no pending demand (FSLeafQueue.updateStarvedApps): the queue's maximum of 512 MB makes
    # its fair share its request.
    t = NodeUnderTest(tmp_path, starving_max="512 mb, 8 vcores")
    t.saturate_cluster()
    starving_app = t.create_starving_app(Resource(512, 1))
    c0 = t.containers[0]
    t.fs_node.add_containers_for_preemption([c0], starving_app)
    # Preemption occurs
    t.release_container(c0)
    # Container partially reassigned
    t.allocate_containers()
    assert t.allocated() == t.total() - Resource(512, 0), "Container should be allocated"
    # Cleanup simulating node update
    t.fs_node.get_preemption_list()
    t.release_all(1)
    t.final_validation()
