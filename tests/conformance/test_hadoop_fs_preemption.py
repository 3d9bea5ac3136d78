"""Hadoop's ``TestFairSchedulerPreemption`` (``scheduler/fair/``), its outcome-based methods, on yarnball's
FairScheduler with its ``FSPreemptionThread`` (shared/reference/fair.md §5). Method names are Hadoop's, snake-cased;
the four parametrised modes are Hadoop's (min-share or fair-share preemption, fair or drf).

As in Hadoop's test: unmanaged applications (no AM container, no AM-share limit), two nodes of 4 GB and 12 vcores,
``waitTimeBeforeKill`` 0, the utilisation threshold 0, the update run by hand. Hadoop's preemption thread wakes when
the update queues a starved application; here the test runs the thread after the update and kills what it chose (the
RM does both on its clock: actors/_preemption.py).

Trunk's two relax-locality methods ask on the starved application's priority for 1 or 2 GB on one host and 10 GB on its
rack and ``*``: no 4 GB node can take the rack or ``*`` ask, so the host ask is the one preempted for. They hold as
in Hadoop because each host and rack ask keeps its own size (``FSAppAttempt.record_name_capabilities``) and the test
runs within ``yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms`` of the scheduler's start, where
``ClusterNodeTracker.getMaxAllowedAllocation`` keeps the configured maximum (10 GB in ``createConfiguration``)
rather than the largest node's 4 GB.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fair_scheduler_harness import GB, TEST_BASE, Clock

from yarnball.policies.capacity._state import RMContainer
from yarnball.policies.fair._fairscheduler import FairScheduler
from yarnball.policies.fair._fsappattempt import FSAppAttempt
from yarnball.policies.scheduler import create_scheduler
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    ContainerExitStatus,
    ContainerPreemptEvent,
    NodeAddedSchedulerEvent,
    NodeId,
    NodeUpdateSchedulerEvent,
    Priority,
    Resource,
    ResourceRequest,
    SchedulerEventType,
    keys,
)

NODE_CAPACITY_MULTIPLE = 4
MODES = ["MinSharePreemption", "MinSharePreemptionWithDRF", "FairSharePreemption", "FairSharePreemptionWithDRF"]


def alloc_file(fairshare: bool, drf: bool) -> str:
    """``writeAllocFile``: root.preemptable (child-1, child-2), root.preemptable-sibling, root.nonpreemptable
    (allowPreemptionFrom false; child-1, child-2)."""
    if fairshare:
        params = "<fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>"
        params += "<fairSharePreemptionTimeout>0</fairSharePreemptionTimeout>"
        child = ""
    else:
        params = "<minSharePreemptionTimeout>0</minSharePreemptionTimeout>"
        child = "<minResources>4096mb,4vcores</minResources>"
    return (
        f"<queue name='preemptable'>{params}"
        f"<queue name='child-1'>{child}</queue><queue name='child-2'>{child}</queue></queue>"
        f"<queue name='preemptable-sibling'>{params}</queue>"
        f"<queue name='nonpreemptable'><allowPreemptionFrom>false</allowPreemptionFrom>{params}"
        f"<queue name='child-1'>{child}</queue><queue name='child-2'>{child}</queue></queue>"
        + ("<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>" if drf else "")
        # Hadoop's test applications are unmanaged (no RMApp when the attempt is created): no AM-share limit
        + "<queueMaxAMShareDefault>-1</queueMaxAMShareDefault>"
    )


class Harness:
    """The test's cluster: the scheduler, its clock, the two nodes, the greedy and the starving application."""

    def __init__(self, tmp_path: Path, mode: str, **settings: object) -> None:
        self.fairshare = mode.startswith("FairShare")
        path = tmp_path / "fair-scheduler.xml"
        path.write_text(f"<?xml version='1.0'?><allocations>{alloc_file(self.fairshare, 'DRF' in mode)}</allocations>")
        conf = Configuration(
            {
                **TEST_BASE,  # createConfiguration
                "yarn.scheduler.fair.allocation.file": str(path),
                keys.PREEMPTION: "true",
                keys.PREEMPTION_THRESHOLD: "0",
                keys.WAIT_TIME_BEFORE_KILL: "0",
                "yarn.scheduler.fair.update-interval-ms": "60000",
                **{k: str(v) for k, v in settings.items()},
            }
        )
        s = create_scheduler(conf, cluster_timestamp=1)
        assert isinstance(s, FairScheduler)
        self.s = s
        self.clock = Clock()
        self.clock.ms = 1_000_000
        s.service_start(self.clock)
        self.nodes = [self.add_node(i) for i in range(2)]
        for name in ("nonpreemptable.child-1", "nonpreemptable.child-2"):
            queue = s.queue_manager.get_queue(name)
            assert queue is not None and not queue.preemptable
        self.next_app = 1
        self.greedy: FSAppAttempt | None = None
        self.starving: FSAppAttempt | None = None

    def add_node(self, i: int) -> NodeId:
        nid = NodeId(f"node{i}", 1234)
        total = Resource(NODE_CAPACITY_MULTIPLE * GB, 3 * NODE_CAPACITY_MULTIPLE)
        self.s.handle(NodeAddedSchedulerEvent(node_id=nid, rack_name="/rack1", total_resource=total))
        return nid

    def create_scheduling_request(self, queue: str, requests: list[ResourceRequest]) -> FSAppAttempt:
        n = self.next_app
        self.next_app += 1
        app_id = ApplicationId(1, n)
        self.s.handle(AppAddedSchedulerEvent(application_id=app_id, queue=queue, user="default"))
        attempt_id = ApplicationAttemptId(app_id, 1)
        self.s.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt_id))
        allocation = self.s.allocate(attempt_id, requests, [])
        assert not allocation.errors
        return self.s.fs_apps[attempt_id]

    def send_enough_node_updates_to_assign_fully(self) -> None:
        for nid in self.nodes:
            for _ in range(NODE_CAPACITY_MULTIPLE):
                self.s.handle(NodeUpdateSchedulerEvent(node_id=nid))

    def take_all_resources(self, queue: str) -> None:
        self.greedy = self.create_scheduling_request(queue, [rr(GB, 1, NODE_CAPACITY_MULTIPLE * len(self.nodes))])
        self.s.update()
        self.send_enough_node_updates_to_assign_fully()
        assert len(self.greedy.attempt.live) == 8
        for rmc in self.greedy.attempt.live.values():
            rmc.is_am = False  # an unmanaged application (Hadoop's test): none of its containers is an AM
        assert self.s.queue_manager.get_queue(queue).preemptable == self.greedy.is_preemptable()  # type: ignore[union-attr]

    def preempt_half_resources(self, queue: str, mb: int = 2 * GB, vcores: int = 2) -> None:
        self.starving = self.create_scheduling_request(queue, [rr(mb, vcores, NODE_CAPACITY_MULTIPLE)])
        self.clock.ms += 1000  # move the clock enough to identify starvation
        self.update_and_preempt()

    def update_and_preempt(self) -> list[RMContainer]:
        """``update()``, then the preemption thread's work and its kill (``waitTimeBeforeKill`` 0)."""
        self.s.update()
        thread = self.s.preemption_thread
        assert thread is not None
        chosen = [rmc for batch in thread.run() for rmc in batch]
        for rmc in chosen:
            assert rmc.container is not None
            self.s.handle(
                ContainerPreemptEvent(
                    application_attempt_id=rmc.app.attempt_id,
                    container=rmc.container,
                    event_type=SchedulerEventType.MARK_CONTAINER_FOR_KILLABLE,
                )
            )
        return chosen

    def verify_preemption(self, num_starved_app_containers: int, num_greedy_app_containers: int) -> None:
        greedy, starving = self.greedy, self.starving
        assert greedy is not None and starving is not None
        assert len(greedy.attempt.live) == num_greedy_app_containers, "Incorrect # of containers on the greedy app"
        preempted = [c for c in greedy.attempt.completed if c.exit_status == ContainerExitStatus.PREEMPTED]
        assert len(preempted) == 8 - num_greedy_app_containers
        assert all(c.diagnostics == "Container preempted by scheduler" for c in preempted)
        for fs_node in self.s.fs_nodes.values():
            if fs_node.containers_for_preemption:
                assert starving in fs_node.get_preemption_list(), "node should be reserved for the starvingApp"
        self.send_enough_node_updates_to_assign_fully()
        assert len(starving.attempt.live) == num_starved_app_containers, "Starved app got the wrong # of containers"
        for fs_node in self.s.fs_nodes.values():
            if fs_node.containers_for_preemption:
                assert starving not in fs_node.get_preemption_list()

    def verify_no_preemption(self) -> None:
        assert self.greedy is not None
        assert len(self.greedy.attempt.live) == 8
        for rmc in self.greedy.attempt.live.values():
            rmc.is_am = False  # an unmanaged application (Hadoop's test): none of its containers is an AM

    def set_num_am_containers_on_node(self, n: int, nid: NodeId) -> None:
        """``setNumAMContainersOnNode``: the node's first ``n`` running containers become AM containers."""
        for rmc in list(self.s.nodes[nid].containers.values())[:n]:
            rmc.is_am = True

    def greedy_app_attempt_id_on_node(self, nid: NodeId) -> ApplicationAttemptId:
        """``getGreedyAppAttemptIdOnNode``: the attempt of the node's first running container."""
        return next(iter(self.s.nodes[nid].containers.values())).app.attempt_id

    def update_relax_locality_request_schedule(self, nid: NodeId, node_memory: int, num_node_containers: int) -> None:
        """``updateRelaxLocalityRequestSchedule``: the starving application asks for ``num_node_containers`` of
        ``node_memory`` on ``nid`` and for one of 10 GB on its rack and anywhere (too big for any node, so the
        NODE_LOCAL ask is the one considered for preemption); then starvation is identified."""
        rack = self.s.nodes[nid].rack
        requests = [rr(node_memory, 1, num_node_containers, nid.host), rr(10 * GB, 1, 1, rack), rr(10 * GB, 1, 1)]
        self.starving = self.create_scheduling_request("root.preemptable.child-2", requests)
        self.clock.ms += 1000  # move the clock enough to identify starvation
        self.update_and_preempt()

    def verify_relax_locality_preemption(
        self, not_preempted: NodeId, greedy_attempt_id: ApplicationAttemptId, num_greedy_app_containers: int
    ) -> None:
        """``verifyRelaxLocalityPreemption``: the greedy application lost containers, none on ``not_preempted``
        (every container there is still its AM container), and the starving one got none (YARN-7655)."""
        self.verify_preemption(0, num_greedy_app_containers)
        for rmc in self.s.nodes[not_preempted].containers.values():
            assert rmc.is_am
            assert rmc.app.attempt_id == greedy_attempt_id

    def set_num_am_containers_per_node(self, n: int) -> None:
        """``setNumAMContainersPerNode``: the first ``n`` containers of each node become AM containers."""
        for nid in self.nodes:
            for rmc in list(self.s.nodes[nid].containers.values())[:n]:
                rmc.is_am = True


def rr(mb: int, vcores: int, n: int, name: str = ANY, relax: bool = True) -> ResourceRequest:
    """``createResourceRequest`` at priority 1."""
    return ResourceRequest(
        priority=Priority(1),
        capability=Resource(mb, vcores),
        resource_name=name,
        num_containers=n,
        relax_locality=relax,
    )


@pytest.fixture(params=MODES)
def h(request: pytest.FixtureRequest, tmp_path: Path) -> Harness:
    return Harness(tmp_path, request.param)


def test_preemption_within_same_leaf_queue(h: Harness) -> None:
    queue = "root.preemptable.child-1"
    h.take_all_resources(queue)
    h.preempt_half_resources(queue)
    if h.fairshare:
        h.verify_preemption(2, 4)
    else:
        h.verify_no_preemption()


def test_preemption_between_two_sibling_leaf_queues(h: Harness) -> None:
    h.take_all_resources("root.preemptable.child-1")
    h.preempt_half_resources("root.preemptable.child-2")
    h.verify_preemption(2, 4)


def test_preemption_between_non_sibling_queues(h: Harness) -> None:
    h.take_all_resources("root.preemptable.child-1")
    h.preempt_half_resources("root.nonpreemptable.child-1")
    h.verify_preemption(2, 4)


def test_no_preemption_from_disallowed_queue(h: Harness) -> None:
    h.take_all_resources("root.nonpreemptable.child-1")
    h.preempt_half_resources("root.preemptable.child-1")
    h.verify_no_preemption()


def test_preemption_select_non_am_container(h: Harness) -> None:
    h.take_all_resources("root.preemptable.child-1")
    h.set_num_am_containers_per_node(2)
    h.preempt_half_resources("root.preemptable.child-2")
    h.verify_preemption(2, 4)
    assert h.starving is not None
    hosts = {rmc.node.host for rmc in h.starving.attempt.live.values()}
    assert len(hosts) == 2, "Preempted containers should come from two different nodes."
    assert h.greedy is not None
    assert sum(rmc.is_am for rmc in h.greedy.attempt.live.values()) == 4  # every AM container survived


def test_app_not_preempted_below_fair_share(h: Harness) -> None:
    h.take_all_resources("root.preemptable.child-1")
    h.preempt_half_resources("root.preemptable.child-2", 3 * GB, 3)
    h.verify_preemption(1, 5)


@pytest.mark.parametrize("global_", [False, True], ids=["test_disable_am_preemption", "globally"])
def test_disable_am_preemption(tmp_path: Path, global_: bool) -> None:
    settings = {keys.AM_PREEMPTION: "false"} if global_ else {}
    h = Harness(tmp_path, "FairSharePreemption", **settings)
    h.take_all_resources("root.preemptable.child-1")
    h.set_num_am_containers_per_node(2)
    assert h.greedy is not None
    # another queue's application halves the greedy one's fair share: its non-AM containers may be preempted
    h.create_scheduling_request("root.preemptable.child-2", [rr(2 * GB, 2, NODE_CAPACITY_MULTIPLE)])
    h.s.update()
    container = next(rmc for rmc in h.greedy.attempt.live.values() if rmc.is_am)
    if not global_:
        h.greedy.enable_am_preemption = False
    assert not h.greedy.can_container_be_preempted(container, Resource(0, 0))
    other = next(rmc for rmc in h.greedy.attempt.live.values() if not rmc.is_am)
    assert h.greedy.can_container_be_preempted(other, Resource(0, 0))


def test_preemption_between_sibling_queues_with_parent_at_fair_share(h: Harness) -> None:
    if not h.fairshare:
        return
    h.take_all_resources("root.preemptable.child-1")
    h.preempt_half_resources("root.preemptable-sibling")
    h.verify_preemption(2, 4)
    h.preempt_half_resources("root.preemptable.child-2")
    h.verify_preemption(1, 2)


def test_relax_locality_preemption_with_less_am_in_remaining_nodes(h: Harness) -> None:
    """The host asked for is all AM containers: the 4 GB the NODE_LOCAL ask covers are preempted on the other node."""
    h.take_all_resources("root.preemptable.child-1")
    node1 = h.nodes[0]
    h.set_num_am_containers_on_node(2**31 - 1, node1)
    greedy_attempt_id = h.greedy_app_attempt_id_on_node(node1)
    h.update_relax_locality_request_schedule(node1, GB, 4)
    h.verify_relax_locality_preemption(node1, greedy_attempt_id, 4)


def test_relax_locality_preemption_with_no_less_am_in_remaining_nodes(h: Harness) -> None:
    """The other node holds only AM containers: the 2 GB are preempted on the host asked for, one AM container
    included, and the all-AM node is left alone."""
    h.take_all_resources("root.preemptable.child-1")
    node1, node2 = h.nodes
    h.set_num_am_containers_on_node(3, node1)
    h.set_num_am_containers_on_node(2**31 - 1, node2)
    greedy_attempt_id = h.greedy_app_attempt_id_on_node(node2)
    h.update_relax_locality_request_schedule(node1, 2 * GB, 1)
    h.verify_relax_locality_preemption(node2, greedy_attempt_id, 6)
