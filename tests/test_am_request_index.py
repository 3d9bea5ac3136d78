"""The AM's per-node request index and the SLS AM's per-host task index pick what a scan of the queue picks."""

from __future__ import annotations

import random
from collections import deque
from typing import Any

from am_helpers import RES, G, O, container

from yarnball import ApplicationMaster
from yarnball.actors._appmaster import ContainerRequest
from yarnball.actors._slsam import MRAppMaster, _Task
from yarnball.launcher.workloads import TaskSpec
from yarnball.protocols import (
    ExecutionType,
)

HOSTS = [f"node{i}" for i in range(6)]


def scan_pick(queue: deque[ContainerRequest], host: str, etype: ExecutionType) -> ContainerRequest:
    """The matching rule written as a plain scan of the queue (node-local of the type, else without nodes, else
    first of the type; with none of the type, the same over every request)."""
    for want in (etype, None):
        cands = [r for r in queue if want is None or r.execution_type is want]
        if cands:
            return next((r for r in cands if host in r.nodes), None) or next(
                (r for r in cands if not r.nodes), cands[0]
            )
    raise AssertionError("empty queue")


def node_index_as_scanned(am: ApplicationMaster) -> dict[tuple[int, str], list[int]]:
    """(priority, node) -> ids of the queue's requests naming it, in queue order, from the queue itself."""
    out: dict[tuple[int, str], list[int]] = {}
    for prio, queue in am._outstanding.items():
        for r in queue:
            for node in dict.fromkeys(r.nodes):
                out.setdefault((prio, node), []).append(id(r))
    return out


def test_match_picks_what_a_queue_scan_picks() -> None:
    """Over random requests (nodes, duplicate nodes, types, priorities) each match withdraws the scan's choice."""
    rng = random.Random(7)
    am = ApplicationMaster(name="m")
    chosen: list[ContainerRequest] = []
    remove = am.remove_container_request
    am.remove_container_request = lambda r: (chosen.append(r), remove(r))[1]  # type: ignore[method-assign]
    matched = 0
    for step in range(3000):
        prio = rng.choice((10, 20))
        if rng.random() < 0.45:
            nodes = tuple(rng.choice(HOSTS) for _ in range(rng.randint(0, 3)))
            am.add_container_request(
                RES, prio, nodes=nodes, racks=("/r",) if nodes else (), execution_type=rng.choice((G, G, O)),
                count=rng.randint(1, 3),
            )
        elif am._outstanding.get(prio):
            c = container(step, rng.choice(HOSTS), prio, rng.choice((G, G, O)))
            expected = scan_pick(am._outstanding[prio], c.node_id.host, c.execution_type)
            am._match(c)
            assert chosen[-1] is expected
            matched += 1
        index = {k: [id(r) for r in v] for k, v in am._node_requests.items()}
        assert index == node_index_as_scanned(am)
    assert matched > 1000


def test_removed_requests_leave_no_empty_index_entries() -> None:
    """Withdrawing every node-naming request empties the per-node index."""
    am = ApplicationMaster(name="m")
    am.add_container_request(RES, 20, nodes=("node0", "node0", "node1"), racks=("/r",), count=2)
    for seq in range(2):
        am._match(container(seq, "node1", 20))
    assert am._node_requests == {} and am._noded[20] == 0


def test_remove_of_an_unknown_request_keeps_the_index() -> None:
    """A request object that is not outstanding is ignored by the queue and by the index."""
    am = ApplicationMaster(name="m")
    am.add_container_request(RES, 20, nodes=("node0",))
    am.remove_container_request(ContainerRequest(RES, 20, nodes=("node0",)))
    assert [len(v) for v in am._node_requests.values()] == [1]


def spec(hosts: tuple[str, ...], priority: int = 20) -> TaskSpec:
    return TaskSpec(1, 1000, priority, "map", RES, hosts=hosts, rack="/r" if any(hosts) else None)


def scan_take(pending: deque[_Task], host: str, prio: int) -> _Task | None:
    """The SLS rule as a scan: the first pending task of the priority naming the host, else the first of it."""
    same = [t for t in pending if t.spec.priority == prio]
    return next((t for t in same if host in t.spec.hosts), same[0] if same else None)


def test_take_task_takes_what_a_pending_scan_takes() -> None:
    """Over random pending tasks (hosts, no hosts, two priorities) each container gets the scan's task."""
    rng = random.Random(11)
    am = MRAppMaster(name="m", tasks=())
    am.add_container_request = lambda *a, **k: None  # type: ignore[method-assign]  # only the task side here
    taken = 0
    for step in range(3000):
        prio = rng.choice((10, 20))
        if rng.random() < 0.5:
            hosts = tuple(rng.choice([*HOSTS, ""]) for _ in range(rng.randint(0, 2)))  # "", repeats: traces have both
            am._request(_Task(spec(hosts, prio)))
        else:
            host = rng.choice(HOSTS)
            expected = scan_take(am.pending, host, prio)
            got = am._take_task(container(step, host, prio))
            assert got is expected
            taken += got is not None
        index: dict[tuple[int, str], list[Any]] = {}
        for t in am.pending:
            for h in dict.fromkeys(h for h in t.spec.hosts if h):
                index.setdefault((t.spec.priority, h), []).append(t)
        assert {k: list(v) for k, v in am._host_tasks.items()} == index
    assert taken > 1000


def test_launch_environment_follows_the_remaining_task_count() -> None:
    """Each container's launch environment carries the remaining-task count at its start, also after completions."""
    from yarnball.actors._containerscheduler import APP_REMAINING_TASKS_ENV

    am = MRAppMaster(name="m", tasks=(spec(("node0",)), spec(()), spec(("node1",))))
    am.add_container_request = lambda *a, **k: None  # type: ignore[method-assign]
    started: list[tuple[str, int | None]] = []
    am.start_container = lambda c, *, context: started.append(  # type: ignore[method-assign]
        (dict(context.environment)[APP_REMAINING_TASKS_ENV], context.simulated_duration_ms)
    )
    am.phases = am._phases()  # (what the AM's first phase request makes)
    for task in am.phases[0]:
        am._request(task)
    am.on_containers_allocated((container(1, "node1", 20), container(2, "node5", 20)))
    am.completed_tasks = 2  # as two successful completions would leave it
    am.on_containers_allocated((container(3, "node0", 20),))
    assert started == [("3", 1000), ("3", 1000), ("1", 1000)]
