"""policies/capacity/_recovery.py: the restarted RM's scheduler adopts the NMs' containers, numbers new ones from
its epoch and allocates nothing while paused."""

from __future__ import annotations

from test_capacity_scheduler_helpers import GB, add_node, app_id, ask, attempt_id, heartbeat, make_conf

from yarnball.policies.capacity._recovery import RecoveringCapacityScheduler
from yarnball.protocols import (
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    ContainerId,
    ContainerState,
    Priority,
    Resource,
)
from yarnball.protocols._resourcetracker import NMContainerStatus


def _recovering(epoch: int = 1) -> RecoveringCapacityScheduler:
    cs = RecoveringCapacityScheduler(make_conf(), epoch=epoch)
    cs.handle(AppAddedSchedulerEvent(application_id=app_id(1), queue="default", user="u", is_app_recovering=True))
    cs.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt_id(1), is_attempt_recovering=True))
    cs.attempt_recovering(attempt_id(1))
    return cs


def _report(seq: int, mb: int) -> NMContainerStatus:
    return NMContainerStatus(
        container_id=ContainerId(attempt_id(1), seq),
        container_state=ContainerState.RUNNING,
        allocated_resource=Resource(mb, 1),
        priority=Priority(1),
    )


def test_recovered_containers_are_charged_to_node_queue_and_user() -> None:
    """recoverContainersOnNode: the node's free room, the queue's and the user's usage count the adopted containers,
    the AM container included; a container of an unknown application is refused (the RM kills it)."""
    cs = _recovering()
    nid = add_node(cs, 0)
    assert cs.recover_container(nid, _report(1, GB), is_am=True, keep_containers=False) is None
    assert cs.recover_container(nid, _report(2, 2 * GB), is_am=False, keep_containers=False) is None
    stranger = NMContainerStatus(container_id=ContainerId(attempt_id(9), 1), container_state=ContainerState.RUNNING)
    assert cs.recover_container(nid, stranger, is_am=False, keep_containers=False) == "unknown SchedulerApplication"
    report = cs.node_report(nid)
    assert report is not None and report.used == Resource(3 * GB, 2) and report.num_containers == 2
    (queue,) = [q for q in cs.queue_metrics() if q.path == "root.default"]
    assert queue.allocated == Resource(3 * GB, 2) and queue.containers_allocated == 2
    attempt = cs.attempts[attempt_id(1)]
    assert attempt.user.used_m == 3 * GB and attempt.live[ContainerId(attempt_id(1), 1)].is_am


def test_paused_scheduler_allocates_nothing_then_numbers_from_its_epoch() -> None:
    """While allocation is paused a heartbeat allocates nothing; then new containers carry the epoch
    (container_e01_...), and the recovered AM container keeps the attempt from taking a new AM container."""
    cs = _recovering(epoch=1)
    nid = add_node(cs, 0)
    cs.recover_container(nid, _report(1, GB), is_am=True, keep_containers=False)
    cs.allocate(attempt_id(1), [ask(GB, 2)], [])
    cs.allocation_paused = True
    assert heartbeat(cs, nid) == []
    cs.allocation_paused = False
    got = heartbeat(cs, nid) + heartbeat(cs, nid)  # (one container per heartbeat: assign-multiple is off)
    assert len(got) == 2 and not any(n.is_am for n in got)
    assert [str(n.container.id) for n in got] == [
        f"container_e01_{app_id(1).cluster_timestamp}_0001_01_000001",
        f"container_e01_{app_id(1).cluster_timestamp}_0001_01_000002",
    ]
