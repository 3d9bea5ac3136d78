"""The FairScheduler's queue tree beyond Hadoop's own tests: type conflicts, starvation bookkeeping, the reload,
the REST shape."""

from __future__ import annotations

from pathlib import Path

import pytest
from fair_allocationfile import AllocationFileQueue, AllocationFileWriter
from fair_queue_helpers import ControlledClock, add_app, alloc_conf

from yarnball.errors import SchedulingError
from yarnball.policies.fair import (
    FakeFSApp,
    FSLeafQueue,
    MaxRunningAppsEnforcer,
    QueueManager,
    fair_scheduler_info,
    reload_allocations,
)
from yarnball.protocols import Configuration, Resource


def test_a_parent_is_not_a_leaf_and_a_leaf_is_not_a_parent() -> None:
    """getLeafQueue on a parent, getParentQueue on a leaf, and a leaf below a leaf all answer None."""
    manager = QueueManager(alloc_conf())
    assert manager.get_leaf_queue("root.a.b", True) is not None
    assert manager.get_leaf_queue("root.a", True) is None
    assert manager.get_parent_queue("root.a.b", True) is None
    assert manager.get_leaf_queue("root.a.b.c", True) is None
    assert sorted(manager.queues) == ["root", "root.a", "root.a.b"]


def test_a_configured_queue_blocked_by_a_busy_queue_waits_for_it() -> None:
    """A configured parent whose name is a leaf holding an application is listed as pending until it empties."""
    manager = QueueManager(alloc_conf())
    busy = manager.get_leaf_queue("root.a", True)
    assert busy is not None
    busy.add_app(FakeFSApp(busy), True)
    manager.update_allocation_configuration(alloc_conf(parents=["root.a"]))
    assert manager.pending_incompatible_queues == ("root.a",)
    assert isinstance(manager.get_queue("root.a"), FSLeafQueue)


def test_removing_an_unknown_app_is_an_error() -> None:
    """``removeApp`` of an application the leaf does not hold raises (Hadoop's IllegalStateException)."""
    manager = QueueManager(alloc_conf())
    leaf = manager.get_leaf_queue("root.a", True)
    assert leaf is not None
    with pytest.raises(SchedulingError, match=r"^Given app to remove .* does not exist in queue \[root.a"):
        leaf.remove_app(FakeFSApp(leaf))


def _starving(min_mb: int) -> tuple[QueueManager, FSLeafQueue, list[FakeFSApp], ControlledClock]:
    clock = ControlledClock()
    manager = QueueManager(alloc_conf(), Resource(8192, 8), clock)
    enforcer = MaxRunningAppsEnforcer(manager)
    leaf = manager.get_leaf_queue("root.a", True)
    assert leaf is not None
    leaf.min_share = Resource(min_mb, 0)
    leaf.min_share_preemption_timeout = leaf.fair_share_preemption_timeout = 1000
    leaf.fair_share_preemption_threshold = 0.5
    apps = [add_app(enforcer, leaf, demand=Resource(4096, 0), start_time=0) for _ in range(2)]
    return manager, leaf, apps, clock


def test_apps_are_starved_only_after_the_timeouts() -> None:
    """Below half their fair share, applications are starved once the fair-share timeout has passed."""
    manager, _, apps, clock = _starving(0)
    assert manager.update(preemption=True) == []
    clock.now = 2000
    assert manager.update(preemption=True) == apps
    assert [a.starvation.fairshare_starvation for a in apps] == [Resource(2048, 0)] * 2


def test_min_share_starvation_is_handed_out_as_hadoop_does() -> None:
    """Min-share starvation beyond the fair-share starvation goes to the first application; when its share exceeds
    what is left it gets ``share - pending`` (updateStarvedAppsMinshare's literal arithmetic)."""
    manager, _, apps, clock = _starving(4608)
    clock.now = 2000
    manager.update(preemption=True)
    # pending = 4608 - (2048 + 2048) = 512; app1's share 4096 - 2048 = 2048 > 512 -> 2048 - 512
    assert [a.starvation.minshare_starvation for a in apps] == [Resource(1536, 0), Resource(0, 0)]
    assert apps[0].starvation.get_starvation() == Resource(3584, 0)


def test_reload_makes_dropped_queues_dynamic_and_applies_child_defaults(tmp_path: Path) -> None:
    """Queues dropped from the file become dynamic (removed once empty); a dynamic child takes its parent's
    maxChildResources after the reload."""
    path = tmp_path / "fair-scheduler.xml"
    writer = AllocationFileWriter().add_queue(
        AllocationFileQueue("p", parent=True, max_child_resources="1024 mb, 1 vcores")
    )
    writer.add_queue(AllocationFileQueue("gone"))
    conf = Configuration({"yarn.scheduler.fair.allocation.file": str(writer.write_to_file(path))})
    manager = QueueManager(reload_allocations(conf))
    manager.reload(reload_allocations(conf))
    dynamic = manager.get_leaf_queue("root.p.x", True)
    assert dynamic is not None and dynamic.max_share == Resource(1024, 1)
    gone = manager.get_queue("root.gone")
    assert gone is not None and not gone.is_dynamic
    AllocationFileWriter().add_queue(
        AllocationFileQueue("p", parent=True, max_child_resources="1024 mb, 1 vcores")
    ).write_to_file(path)
    manager.reload(reload_allocations(conf))
    assert gone.is_dynamic and dynamic.max_share == Resource(1024, 1)
    manager.remove_empty_dynamic_queues()
    assert manager.get_queue("root.gone") is None and manager.get_queue("root.p.x") is None


def test_update_runnability_on_reload_starts_waiting_apps_oldest_first() -> None:
    """A raised parent limit makes the oldest waiting application below it runnable on a reload; the diagnostics name
    the leaf, whichever queue is at its limit (Hadoop's canAppBeRunnable)."""
    manager = QueueManager(alloc_conf())
    enforcer = MaxRunningAppsEnforcer(manager)
    leaf1, leaf2 = manager.get_leaf_queue("root.p.a", True), manager.get_leaf_queue("root.p.b", True)
    parent = manager.get_parent_queue("root.p", False)
    assert leaf1 is not None and leaf2 is not None and parent is not None
    parent.max_running_apps = 1
    first = add_app(enforcer, leaf1, start_time=1)
    late, early = add_app(enforcer, leaf1, start_time=9), add_app(enforcer, leaf2, start_time=5)
    assert late.diagnostics == [
        ("INACTIVATED", 'The queue "root.p.a" has reached the maximum limit of runnable applications.')
    ]
    parent.max_running_apps = 2
    enforcer.update_runnability_on_reload()
    assert leaf1.runnable_apps == [first] and leaf1.non_runnable_apps == [late]
    assert leaf2.runnable_apps == [early] and parent.num_runnable_apps == 2


def test_rest_queue_objects_in_jaxb_order() -> None:
    """fairScheduler: root as FairSchedulerQueueInfo, leaves with ``type`` first and their app counts last."""
    manager = QueueManager(alloc_conf(), Resource(8192, 8))
    leaf = manager.get_leaf_queue("root.a", True)
    assert leaf is not None
    leaf.add_app(FakeFSApp(leaf, demand=Resource(1024, 1)), True)
    manager.update()
    info = fair_scheduler_info(manager, Resource(8192, 8))
    assert info["type"] == "fairScheduler"
    root = info["rootQueue"]
    common = [
        "maxApps", "minResources", "maxResources", "usedResources", "amUsedResources", "amMaxResources",
        "demandResources", "steadyFairResources", "fairResources", "clusterResources", "reservedResources",
        "maxContainerAllocation", "pendingContainers", "allocatedContainers", "reservedContainers", "queueName",
        "schedulingPolicy", "preemptable",
    ]  # fmt: skip
    assert list(root) == [*common, "childQueues"]
    (a,) = root["childQueues"]["queue"]
    assert list(a) == ["type", *common, "numPendingApps", "numActiveApps"]
    assert a["type"] == "fairSchedulerLeafQueueInfo" and a["numPendingApps"] == 1 and a["numActiveApps"] == 0
    assert a["maxResources"]["memory"] == 8192 and a["demandResources"]["memory"] == 1024
    assert a["maxContainerAllocation"]["memory"] == 8192 and a["maxContainerAllocation"]["vCores"] == 4
