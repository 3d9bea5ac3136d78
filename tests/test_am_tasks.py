"""actors/_amtasks.py: the AM's request queue and the SLS AM's task bookkeeping, batched per allocate response."""

from __future__ import annotations

import pickle
import random
from collections import deque
from typing import Any

import pytest
from am_helpers import ATTEMPT, RES, G, O, container

from yarnball import ApplicationMaster, ContainerRequest
from yarnball.actors._amtasks import RunQueue, SlsTask, take_tasks
from yarnball.actors._asktable import take_changed
from yarnball.actors._slsam import MRAppMaster, _Task
from yarnball.launcher.workloads import TaskSpec
from yarnball.protocols import (
    AllocateResponse,
    ContainerExitStatus,
    ContainerId,
    ContainerState,
    ContainerStatus,
)

HOSTS = [f"node{i}" for i in range(5)]
SUCCESS, PREEMPTED = ContainerExitStatus.SUCCESS, ContainerExitStatus.PREEMPTED


def spec(hosts: tuple[str, ...], priority: int = 20, task_type: str = "map") -> TaskSpec:
    return TaskSpec(1, 1000, priority, task_type, RES, hosts=hosts, rack="/r" if any(hosts) else None)


def sls_rule(pending: list[Any], host: str, prio: int) -> Any:
    """SLS's rule as a scan: the first pending task of the priority naming the host, else the first of it."""
    same = [t for t in pending if t.spec.priority == prio]
    return next((t for t in same if host in t.spec.hosts), same[0] if same else None)


def test_run_queue_behaves_as_a_deque_of_runs() -> None:
    """Appends, counted adds and removals leave the same sequence as a deque doing the same."""
    rng = random.Random(3)
    queue, model = RunQueue(), deque[object]()
    items = [object() for _ in range(300)]
    fresh = iter(items)
    for _ in range(2000):
        if model and rng.random() < 0.5:
            victim = rng.choice(list(model))
            queue.remove(victim)
            model.remove(victim)
        else:
            item, count = next(fresh, None), rng.randint(1, 3)
            if item is None:
                break
            queue.add(item, count)
            model.extend([item] * count)
        assert list(queue) == list(model) and len(queue) == len(model) and bool(queue) == bool(model)
        if model:
            assert queue.first() is model[0] and queue[-1] is model[-1]


def test_run_queue_refuses_what_a_deque_of_runs_cannot_hold() -> None:
    """Removing an item not queued and re-queuing one that is not last are errors that name the item."""
    queue = RunQueue()
    queue.append("a")
    queue.append("b")
    with pytest.raises(ValueError, match="not in queue"):
        queue.remove("z")
    with pytest.raises(ValueError, match="'a' is queued already"):
        queue.append("a")
    queue.append("b")  # the last run grows
    assert list(queue) == ["a", "b", "b"]
    with pytest.raises(IndexError):
        RunQueue().first()


def test_take_tasks_follows_the_sls_rule_with_reruns_and_unnamed_hosts() -> None:
    """Over random tasks (hosts, empty host names, repeats, two priorities, reruns) each batch gets the scan's tasks."""
    rng = random.Random(5)
    am = MRAppMaster(name="m", tasks=())
    am.add_container_request = lambda *a, **k: None  # type: ignore[method-assign]  # only the task side here
    taken: list[Any] = []
    seq = 0
    for _ in range(400):
        if rng.random() < 0.4:
            hosts = tuple(rng.choice([*HOSTS, ""]) for _ in range(rng.randint(0, 3)))
            am._request(_Task(spec(hosts, rng.choice((10, 20)))))
        elif taken and rng.random() < 0.3:
            am._request(taken.pop(rng.randrange(len(taken))))  # a rerun: the same task requested again
        else:
            batch = []
            for _ in range(rng.randint(1, 4)):
                seq += 1
                batch.append(container(seq, rng.choice(HOSTS), rng.choice((10, 20))))
            pending = list(am.pending)
            expected = []
            for c in batch:
                want = sls_rule(pending, c.node_id.host, c.priority.priority)
                if want is not None:
                    pending.remove(want)
                expected.append(want)
            got = take_tasks(am.pending, am._host_tasks, tuple(batch))
            assert got == expected
            taken.extend(t for t in got if t is not None)
        index: dict[tuple[int, str], list[Any]] = {}
        for t in am.pending:
            for h in dict.fromkeys(h for h in t.spec.hosts if h):
                index.setdefault((t.spec.priority, h), []).append(t)
        assert am._host_tasks == index


def test_task_without_host_names_asks_anywhere() -> None:
    """A task whose hosts are all empty names indexes no host and asks for no node or rack."""
    task = SlsTask(spec(("", "")))
    assert (task.keys, task.nodes, task.racks) == ((), (), ())
    named = SlsTask(spec(("", "node1", "node1")))
    assert (named.keys, named.nodes, named.racks) == (((20, "node1"),), ("node1", "node1"), ("/r",))


def status(seq: int, exit_status: int) -> ContainerStatus:
    """The completion of ``ATTEMPT``'s container ``seq`` with ``exit_status``."""
    cid = ContainerId(ATTEMPT, seq)
    return ContainerStatus(container_id=cid, state=ContainerState.COMPLETE, exit_status=exit_status)


def test_failed_task_is_rerun_by_a_later_container() -> None:
    """A container ending ABORTED puts its task back; the next container of the priority runs it again."""
    am = MRAppMaster(name="m", tasks=(spec(("node0",)),))
    am.attempt_id = ATTEMPT
    starts: list[int] = []
    am.start_container = lambda c, *, context: starts.append(c.id.container_id)  # type: ignore[method-assign]
    am._next_phase()
    am.on_allocate_response(AllocateResponse(response_id=1, allocated_containers=(container(2, "node0", 20),)))
    failed = ContainerStatus(
        container_id=ContainerId(ATTEMPT, 2), state=ContainerState.COMPLETE, exit_status=ContainerExitStatus.ABORTED
    )
    am.on_allocate_response(AllocateResponse(response_id=2, completed_container_statuses=(failed,)))
    assert len(am.pending) == 1 and am.failed_task_attempts == 1
    am.on_allocate_response(AllocateResponse(response_id=3, allocated_containers=(container(3, "node4", 20),)))
    assert starts == [2, 3] and am.phases[0][0].attempts == 2 and not am.pending


def test_preempted_map_is_asked_again_and_completes_in_a_new_container() -> None:
    """A map whose container ends PREEMPTED is asked for again at its priority and host (SLS's pendingFailedMaps),
    counted as preempted, not failed; it completes in the next container and the reduces follow."""
    am = MRAppMaster(name="m", tasks=(spec(("node0",)), spec((), priority=10, task_type="reduce")))
    am.attempt_id = ATTEMPT
    starts: list[int] = []
    am.start_container = lambda c, *, context: starts.append(c.id.container_id)  # type: ignore[method-assign]
    am._next_phase()
    take_changed(am._changed, am._tables)
    am._changed = []
    am.on_allocate_response(AllocateResponse(response_id=1, allocated_containers=(container(2, "node0", 20),)))
    take_changed(am._changed, am._tables)
    am._changed = []
    am.on_allocate_response(AllocateResponse(response_id=2, completed_container_statuses=(status(2, PREEMPTED),)))
    asks = {(a.resource_name, a.priority.priority, a.num_containers) for a in take_changed(am._changed, am._tables)}
    assert asks == {("node0", 20, 1), ("/r", 20, 1), ("*", 20, 1)}
    assert (am.preempted_task_attempts, am.failed_task_attempts, len(am.pending)) == (1, 0, 1)
    am.on_allocate_response(AllocateResponse(response_id=3, allocated_containers=(container(3, "node0", 20),)))
    am.on_allocate_response(AllocateResponse(response_id=4, completed_container_statuses=(status(3, SUCCESS),)))
    assert starts == [2, 3] and am.phases[0][0].attempts == 2 and am.completed_tasks == 1
    assert am.phase == 1 and [t.spec.task_type for t in am.pending] == ["reduce"]


def test_container_of_an_unknown_priority_is_released() -> None:
    """A container at a priority no pending task has gets no task and is given back."""
    am = MRAppMaster(name="m", tasks=(spec(("node0",)),))
    am.attempt_id = ATTEMPT
    am.start_container = lambda c, *, context: None  # type: ignore[method-assign]
    am._next_phase()
    am.on_allocate_response(AllocateResponse(response_id=1, allocated_containers=(container(2, "node0", 99),)))
    assert am._release == [ContainerId(ATTEMPT, 2)] and len(am.pending) == 1


def _scripted(am: ApplicationMaster, seed: int) -> list[tuple[Any, ...]]:
    """Random requests and allocate responses; the AM's queues and asks after each step."""
    rng = random.Random(seed)
    states = []
    ordinal: dict[int, int] = {}
    alive: list[ContainerRequest] = []
    for step in range(600):
        prio = rng.choice((10, 20))
        if rng.random() < 0.4:
            nodes = tuple(rng.choice(HOSTS) for _ in range(rng.randint(0, 2)))
            am.add_container_request(
                RES, prio, nodes=nodes, racks=("/r",) if nodes else (), execution_type=rng.choice((G, G, O)),
                count=rng.randint(1, 3),
            )
        else:
            batch = tuple(
                container(step * 10 + i, rng.choice(HOSTS), prio, rng.choice((G, G, O)))
                for i in range(rng.randint(1, 4))
            )
            am.on_allocate_response(AllocateResponse(response_id=step, allocated_containers=batch))
        for q in am._outstanding.values():
            for r in q:
                if id(r) not in ordinal:  # requests numbered as they are made, kept alive (ids are not reused)
                    ordinal[id(r)] = len(ordinal)
                    alive.append(r)
        states.append((
            {p: [ordinal[id(r)] for r in q] for p, q in am._outstanding.items()},
            {k: [ordinal[id(r)] for r in v] for k, v in am._node_requests.items()},
            dict(am._noded),
            {k: v[:3] for k, v in am._asks.items()},
        ))
    return states


def test_batched_matching_equals_matching_container_by_container() -> None:
    """A whole response matched in one call leaves what _match per container leaves (an instance override forces it)."""
    calls: list[ContainerRequest] = []

    def fresh(per_container: bool) -> ApplicationMaster:
        am = ApplicationMaster(name="m")
        if per_container:
            remove = am.remove_container_request
            am.remove_container_request = lambda r: (calls.append(r), remove(r))[1]  # type: ignore[method-assign]
        return am

    batched, single = fresh(False), fresh(True)
    assert batched._plain_match() and not single._plain_match()
    assert _scripted(batched, 9) == _scripted(single, 9) and len(calls) > 200


def test_subclass_overriding_remove_container_request_is_called_per_container() -> None:
    """A user AM's own remove_container_request still sees every matched request."""
    seen: list[ContainerRequest] = []

    class Mine(ApplicationMaster):
        def remove_container_request(self, request: ContainerRequest) -> None:
            seen.append(request)
            super().remove_container_request(request)

    am = Mine(name="m")
    am.add_container_request(RES, 20, nodes=("node0",), racks=("/r",), count=2)
    batch = (container(1, "node0", 20), container(2, "node3", 20))
    am.on_allocate_response(AllocateResponse(response_id=1, allocated_containers=batch))
    assert len(seen) == 2 and not am._outstanding[20]


def test_requests_and_tasks_survive_pickling() -> None:
    """An AM with outstanding requests and pending tasks pickles (the sharded and Ray backends ship AMs)."""
    am = MRAppMaster(name="m", tasks=(spec(("node0", "")), spec(())))
    am._next_phase()
    copy = pickle.loads(pickle.dumps(am))
    q = copy._outstanding[20]
    assert [r.nodes for r in q] == [("node0",), ()] and q.first()._table is copy._tables
    assert [(t.keys, t.attempts) for t in copy.pending] == [(((20, "node0"),), 0), ((), 0)]
    assert copy._host_tasks[(20, "node0")][0] is copy.pending.first()


def _phase_state(am: MRAppMaster) -> tuple[Any, ...]:
    """The requests, pending tasks and asks after a phase was requested, by value (not identity)."""
    queues = {p: [(r.capability, r.nodes, r.racks, r.execution_type, r.request_id) for r in q]
              for p, q in am._outstanding.items()}
    return queues, [t.spec for t in am.pending], sorted(am._host_tasks), dict(am._noded), am._asks.keys()


def test_phase_requested_in_one_call_equals_requesting_task_by_task() -> None:
    """_next_phase's batched requests leave what _request per task leaves (an instance override forces that path)."""
    rng = random.Random(2)
    specs = [spec(tuple(rng.choice([*HOSTS, ""]) for _ in range(rng.randint(0, 2)))) for _ in range(60)]
    batched, single = MRAppMaster(name="m", tasks=specs), MRAppMaster(name="m", tasks=specs)
    asked: list[Any] = []
    add = single.add_container_request
    single.add_container_request = lambda *a, **k: (asked.append(k), add(*a, **k))[1]  # type: ignore[method-assign]
    batched._next_phase()
    single._next_phase()
    assert len(asked) == 60 and _phase_state(batched) == _phase_state(single)
    assert [e[0] for e in batched._asks.values()] == [e[0] for e in single._asks.values()]


def test_opportunistic_maps_are_still_asked_task_by_task() -> None:
    """With opportunistic maps the per-task path runs: the first half of 100 maps is asked OPPORTUNISTIC, no nodes."""
    am = MRAppMaster(name="m", tasks=[spec(("node0",)) for _ in range(4)], opportunistic_maps_percent=50)
    am._next_phase()
    types = [r.execution_type for r in am._outstanding[20]]
    assert types == [O] * 4 and am._noded.get(20, 0) == 0 and am._maps_mod_100 == 4


def test_finished_ams_let_go_of_their_bookkeeping_and_later_jobs_hold_no_tasks() -> None:
    """A long trace's memory: a job submitted later holds no task records until its AM asks for its first phase,
    and a finished AM drops its request table, NMToken cache, task bookkeeping and task records (the job's record and
    counts stay); every job still runs all its tasks."""
    from yarnball.launcher import Cluster
    from yarnball.launcher.workloads import synthetic_workload

    wl = synthetic_workload(30, 6, 3, maps=(2, 12), reduces=(1, 3), map_ms=(2_000, 9_000), reduce_ms=(2_000, 6_000))
    cluster = Cluster({}, wl.nodes, seed=1)
    cluster.submit_workload(wl)
    masters: list[Any] = cluster.masters
    expected = [sum(t.count for t in job.tasks) for job in wl.jobs]
    assert [am.total_tasks for am in masters] == expected and all(am.phases == [] for am in masters)
    t = 0
    while not any(am.finished for am in masters):
        t += 2_000
        cluster.run(until_ms=t)
    waiting = [am for am in masters if am.registered_at is None]
    finished = [am for am in masters if am.finished]
    assert waiting and finished  # the scenario: jobs not started yet (submitted or not), and jobs done
    assert all(am.phases == [] for am in waiting)
    for am in finished:
        assert am.completed_tasks == am.total_tasks and am.phases == []
        assert not (am._tables or am._outstanding or am._node_requests or am.nm_tokens or am.assigned)
        assert am.application_id is not None and am.am_container is not None
    cluster.run()
    assert all(am.finished and am.completed_tasks == am.total_tasks for am in masters)
    assert all(not am._tables and not am.nm_tokens for am in masters)


def test_tasks_of_makes_what_each_spec_makes_task_by_task() -> None:
    """A phase's tasks made at once (``tasks_of``: the first of a spec works out its keys, nodes and racks, the
    others share them) equal tasks made one by one from the spec as the module documents it: ``count`` of each spec
    (none for 0), keys of the named hosts without repeats, nodes without empty names, the rack only with nodes."""
    from yarnball.actors._amtasks import tasks_of

    rng = random.Random(11)
    names = ["node0", "node1", "node2", ""]
    specs = [
        TaskSpec(
            rng.choice([0, 1, 1, 2, 5]),
            1000,
            rng.choice([10, 20]),
            "map",
            RES,
            hosts=tuple(rng.choice(names) for _ in range(rng.randrange(4))),
            rack=rng.choice(["/r", None]),
        )
        for _ in range(300)
    ]
    tasks = tasks_of(specs)
    expected = [s for s in specs for _ in range(s.count)]
    assert [t.spec for t in tasks] == expected and len(tasks) > 300
    for task in tasks:
        s = task.spec
        named = tuple(dict.fromkeys(h for h in s.hosts if h))
        nodes = tuple(h for h in s.hosts if h)
        assert task.keys == tuple((s.priority, h) for h in named)
        assert task.nodes == nodes and task.racks == ((s.rack,) if s.rack and nodes else ())
        assert (task.prio, task.resource, task.rid, task.etype, task.attempts) == (
            s.priority, s.resource, s.allocation_request_id, s.execution_type, 0
        )
    assert len({id(t) for t in tasks}) == len(tasks)  # each task its own record (attempts are counted per task)


def test_tasks_and_requests_naming_one_host_share_their_keys_and_rack() -> None:
    """Tasks of different AMs naming one host (and rack) at one priority share their (priority, host) keys and their
    racks tuple, and so do the requests' index entries: an AM holds no tuple of its own per map it waits for."""
    decoded = [TaskSpec(1, 1000, 20, "map", RES, hosts=("".join(["node", "7"]),), rack="".join(["/r", "1"]))
               for _ in range(2)]  # fmt: skip
    assert decoded[0].hosts is not decoded[1].hosts and decoded[0].rack is not decoded[1].rack
    first, second = (SlsTask(s) for s in decoded)
    assert first.keys == ((20, "node7"),) and first.racks == ("/r1",)
    assert second.keys is first.keys and second.racks is first.racks
    assert SlsTask(spec(("node7",), priority=10)).keys == ((10, "node7"),)
    ams = [MRAppMaster(name=f"m{i}", tasks=(decoded[i],)) for i in range(2)]
    for am in ams:
        am.attempt_id = ATTEMPT
        am._next_phase()
    (key_a,), (key_b,) = (am._node_requests for am in ams)
    assert key_a == (20, "node7") and key_a is key_b is first.keys[0]
