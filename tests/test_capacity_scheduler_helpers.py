"""Tiny builders shared by the CapacityScheduler tests (no tests here)."""

from __future__ import annotations

from yarnball.policies.capacity import CapacityScheduler, CapacitySchedulerConfiguration, ContainerAllocated
from yarnball.protocols import (
    ANY,
    AppAddedSchedulerEvent,
    AppAttemptAddedSchedulerEvent,
    ApplicationAttemptId,
    ApplicationId,
    Configuration,
    NodeAddedSchedulerEvent,
    NodeId,
    NodeUpdateSchedulerEvent,
    Priority,
    Resource,
    ResourceRequest,
)

GB = 1024
CS = "yarn.scheduler.capacity."


def make_conf(queues: dict[str, dict[str, object]] | None = None, **extra: object) -> CapacitySchedulerConfiguration:
    """``queues`` maps a path to its per-queue settings; ``queues`` lists are derived from the paths."""
    queues = queues or {"root.default": {"capacity": 100}}
    props: dict[str, object] = {}
    children: dict[str, list[str]] = {}
    for path, settings in queues.items():
        parent, _, name = path.rpartition(".")
        children.setdefault(parent, []).append(name)
        for key, value in settings.items():
            props[f"{CS}{path}.{key}"] = value
    for parent, names in children.items():
        props[f"{CS}{parent}.queues"] = ",".join(names)
    for key, value in extra.items():
        props[key] = value
    return CapacitySchedulerConfiguration(Configuration(props))


def make_scheduler(queues: dict[str, dict[str, object]] | None = None, **extra: object) -> CapacityScheduler:
    return CapacityScheduler(make_conf(queues, **extra), cluster_timestamp=1)


def node(i: int, rack: str = "/default-rack") -> NodeId:
    return NodeId(f"host{i}", 8041)


def add_node(cs: CapacityScheduler, i: int, mem: int = 8 * GB, vcores: int = 8, rack: str = "/default-rack") -> NodeId:
    nid = node(i)
    cs.handle(NodeAddedSchedulerEvent(node_id=nid, rack_name=rack, total_resource=Resource(mem, vcores)))
    return nid


def app_id(n: int) -> ApplicationId:
    return ApplicationId(1, n)


def attempt_id(n: int, attempt: int = 1) -> ApplicationAttemptId:
    return ApplicationAttemptId(app_id(n), attempt)


def submit(
    cs: CapacityScheduler, n: int, queue: str = "default", user: str = "user", priority: int = 0, am_mb: int | None = GB
) -> list:
    """Add the app and its first attempt; with ``am_mb`` also ask for the AM container (as the RM does)."""
    out = cs.handle(
        AppAddedSchedulerEvent(application_id=app_id(n), queue=queue, user=user, priority=Priority(priority))
    )
    out += cs.handle(AppAttemptAddedSchedulerEvent(application_attempt_id=attempt_id(n)))
    if am_mb is not None and attempt_id(n) in cs.attempts:
        cs.allocate(attempt_id(n), [ask(am_mb, 1, priority=0)], [])
    return out


def ask(
    mb: int, n: int = 1, priority: int = 1, name: str = ANY, relax: bool = True, vcores: int = 1
) -> ResourceRequest:
    return ResourceRequest(
        priority=Priority(priority),
        capability=Resource(mb, vcores),
        resource_name=name,
        num_containers=n,
        relax_locality=relax,
    )


def heartbeat(cs: CapacityScheduler, nid: NodeId, completed: tuple = ()) -> list[ContainerAllocated]:
    out = cs.handle(NodeUpdateSchedulerEvent(node_id=nid, completed_containers=completed))
    return [n for n in out if isinstance(n, ContainerAllocated)]


def run_am(cs: CapacityScheduler, n: int, nid: NodeId) -> None:
    """Heartbeat until app ``n``'s AM container is allocated, then pull it."""
    for _ in range(50):
        got = heartbeat(cs, nid)
        if any(a.attempt_id == attempt_id(n) and a.is_am for a in got):
            cs.allocate(attempt_id(n), [], [])
            return
    raise AssertionError(f"AM of app {n} never allocated")


# Delay scheduling on (2 missed opportunities before rack-local, 1 more before off-switch) and no AM share limit.
LOCALITY_DELAYS: dict[str, object] = {
    "yarn.scheduler.capacity.node-locality-delay": 2,
    "yarn.scheduler.capacity.rack-locality-additional-delay": 1,
    "yarn.scheduler.capacity.maximum-am-resource-percent": 1.0,
}


def two_rack_scheduler(**extra: object) -> tuple[CapacityScheduler, list[NodeId]]:
    """A scheduler with LOCALITY_DELAYS (plus ``extra`` keys) and four 8 GB nodes: 0 and 1 on /r0, 2 and 3 on /r1."""
    cs = make_scheduler(**LOCALITY_DELAYS, **extra)
    return cs, [add_node(cs, i, rack="/r0" if i < 2 else "/r1") for i in range(4)]
