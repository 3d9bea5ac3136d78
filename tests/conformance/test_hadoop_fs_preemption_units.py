"""Hadoop's ``TestFSAppStarvation`` and ``TestFSSchedulerNode`` (their preemption-tracking methods), with
``FSStarvedApps``' order, on yarnball's FairScheduler (shared/reference/fair.md §5.1, §5.4, §5.5). Method names are
Hadoop's, snake-cased, where there is one."""

from __future__ import annotations

import sys
from pathlib import Path

from yarnball.policies.fair._fsapp import FakeFSApp
from yarnball.policies.fair._fsleafqueue import FSLeafQueue
from yarnball.policies.fair._fsstarvedapps import FSStarvedApps
from yarnball.protocols import Resource, keys

sys.path.insert(0, str(Path(__file__).parent))
from test_hadoop_fs_preemption import GB, Harness, rr


# -- TestFSAppStarvation -----------------------------------------------------------------------------------------------
def test_preemption_disabled(tmp_path: Path) -> None:
    h = Harness(tmp_path, "FairSharePreemption", **{keys.PREEMPTION: "false"})
    h.take_all_resources("root.preemptable.child-1")
    h.create_scheduling_request("root.preemptable.child-2", [rr(2 * GB, 2, 4)])
    h.clock.ms += 1000
    h.s.update()
    assert h.s.preemption_thread is None
    assert len(h.s.starved_apps) == 0


def test_preemption_enabled(tmp_path: Path) -> None:
    h = Harness(tmp_path, "FairSharePreemption")
    h.take_all_resources("root.preemptable.child-1")
    starving = [h.create_scheduling_request("root.preemptable.child-2", [rr(GB, 1, 4)]) for _ in range(3)]
    h.clock.ms += 1000
    h.s.update()
    assert len(h.s.starved_apps) == 3
    assert {id(a) for a in h.s.starved_apps.apps_to_process} == {id(a) for a in starving}
    # the preemption thread takes them all; each waits before its next starvation check
    h.s.preemption_thread.run()  # type: ignore[union-attr]
    assert len(h.s.starved_apps) == 0
    h.s.update()
    assert len(h.s.starved_apps) == 0, "not starved again before the next starvation check"


def test_cluster_utilization_threshold(tmp_path: Path) -> None:
    """Half the cluster used, threshold 0.8: no application is found starved, nothing is preempted."""
    h = Harness(tmp_path, "FairSharePreemption", **{keys.PREEMPTION_THRESHOLD: "0.8"})
    greedy = h.create_scheduling_request("root.preemptable.child-1", [rr(GB, 1, 4)])
    h.s.update()
    h.send_enough_node_updates_to_assign_fully()
    assert len(greedy.attempt.live) == 4
    h.create_scheduling_request("root.preemptable.child-2", [rr(4 * GB, 1, 2)])
    h.clock.ms += 1000
    assert not h.s.should_attempt_preemption()
    assert h.update_and_preempt() == []
    assert len(h.s.starved_apps) == 0 and len(greedy.attempt.live) == 4


# -- FSStarvedApps -----------------------------------------------------------------------------------------------------
def _starved(queue: FSLeafQueue, mb: int) -> FakeFSApp:
    app = FakeFSApp(queue)
    app.starvation.fairshare_starvation = Resource(mb, 1)
    return app


def test_starved_apps_smallest_starvation_first(tmp_path: Path) -> None:
    queue = Harness(tmp_path, "FairSharePreemption").s.queue_manager.get_leaf_queue("root.preemptable.child-1", False)
    assert queue is not None
    apps = [_starved(queue, mb) for mb in (4096, 1024, 3072, 2048)]
    starved = FSStarvedApps()
    for app in apps:
        starved.add_starved_app(app)
        starved.add_starved_app(app)  # already queued: once
    assert len(starved) == 4
    taken = [starved.take() for _ in range(4)]
    assert [a.starvation.get_starvation().memory_mb for a in taken] == [1024, 2048, 3072, 4096]  # type: ignore[union-attr]
    # the application being processed is not queued again until the next take
    starved.add_starved_app(taken[-1])  # type: ignore[arg-type]
    assert len(starved) == 0
    assert starved.take() is None
    starved.add_starved_app(taken[-1])  # type: ignore[arg-type]
    assert len(starved) == 1


# -- TestFSSchedulerNode -----------------------------------------------------------------------------------------------
def test_preemption_tracked_and_fulfilled(tmp_path: Path) -> None:
    """``testSimplePreemption``-like: the containers chosen on a node are kept for the starved application; its
    allocation there uses the kept resource up; the list is empty once it got it all."""
    h = Harness(tmp_path, "FairSharePreemption")
    h.take_all_resources("root.preemptable.child-1")
    h.preempt_half_resources("root.preemptable.child-2")
    starving = h.starving
    assert starving is not None
    held = [n.get_preemption_list().get(starving) for n in h.s.fs_nodes.values()]
    # four 1 GB containers of one node make room for the two 2 GB asks there
    assert [r for r in held if r is not None] == [Resource(4 * GB, 4)]
    for fs_node in h.s.fs_nodes.values():
        # killed containers left the node's list; the freed resource is not offered to others first
        assert not fs_node.containers_for_preemption
        assert fs_node.get_total_reserved() == fs_node.total_resources_preempted
    h.send_enough_node_updates_to_assign_fully()
    assert len(starving.attempt.live) == 2
    assert all(not n.get_preemption_list() for n in h.s.fs_nodes.values())
    assert all(n.total_resources_preempted.is_none() for n in h.s.fs_nodes.values())


def test_preempted_resource_goes_to_the_starved_app_first(tmp_path: Path) -> None:
    """``assignPreemptedContainers``: another application of a queue ahead of the starved one in the walk does not
    take the resource freed for the starved application."""
    h = Harness(tmp_path, "FairSharePreemption")
    h.take_all_resources("root.preemptable.child-1")
    h.preempt_half_resources("root.preemptable.child-2")
    other = h.create_scheduling_request("root.preemptable-sibling", [rr(GB, 1, 8)])
    h.s.update()
    h.send_enough_node_updates_to_assign_fully()
    assert h.starving is not None
    assert len(h.starving.attempt.live) == 2
    assert len(other.attempt.live) == 0
