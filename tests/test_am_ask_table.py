"""The AM's ask table sends what a plain reference table (AMRMClientImpl's rules written out) sends."""

from __future__ import annotations

import random
from typing import Any

from am_helpers import ATTEMPT, G, O, container

from yarnball import ApplicationMaster
from yarnball.actors._appmaster import ContainerRequest
from yarnball.actors._asktable import sort_changed
from yarnball.protocols import (
    ANY,
    AllocateRequest,
    Container,
    ContainerId,
    NodeId,
    Priority,
    Resource,
)

HOSTS = ["node0", "node1", "node2", "node3"]
RACKS = ["/r0", "/r1"]
# Two capabilities with the same memory and vcores share an ask key: the last one added or removed is sent.
CAPS = [Resource(1024, 1), Resource(1024, 1, (("yarn.io/gpu", 1),)), Resource(2048, 2)]


class Recording(ApplicationMaster):
    """An AM whose AllocateRequests are collected instead of sent."""

    def __init__(self) -> None:
        super().__init__(name="m")
        self.sent: list[AllocateRequest] = []
        self.attempt_id = ATTEMPT
        self.ref = None  # type: ignore[assignment]

    @property
    def amrm(self) -> Any:
        return self

    def tell(self, msg: AllocateRequest, sender: Any) -> None:
        self.sent.append(msg)


class Reference:
    """The ask table as one flat dict and a set of changed keys, the outstanding requests as lists; an entry of count 0
    leaves the table once sent."""

    def __init__(self) -> None:
        self.asks: dict[tuple[Any, ...], list[Any]] = {}
        self.changed: set[tuple[Any, ...]] = set()
        self.outstanding: dict[int, list[ContainerRequest]] = {}

    @staticmethod
    def key(r: ContainerRequest, name: str) -> tuple[Any, ...]:
        return (r.priority, name, r.execution_type.value, r.capability.memory_mb, r.capability.vcores, r.request_id)

    def add(self, r: ContainerRequest, count: int) -> None:
        self.outstanding.setdefault(r.priority, []).extend([r] * count)
        for name in (*r.nodes, *r.racks, ANY):
            relax = True if name in r.nodes else (r.relax_locality or not r.nodes)
            entry = self.asks.setdefault(self.key(r, name), [0, True, r.capability])
            entry[:] = [entry[0] + count, relax, r.capability]
            self.changed.add(self.key(r, name))

    def remove(self, r: ContainerRequest) -> None:
        queue = self.outstanding.get(r.priority)
        if queue is not None:
            at = next((i for i, q in enumerate(queue) if q is r), None)
            if at is None:
                return
            del queue[at]
        for name in (*r.nodes, *r.racks, ANY):
            entry = self.asks.setdefault(self.key(r, name), [0, True, r.capability])
            entry[0] = max(0, entry[0] - 1)
            entry[2] = r.capability
            self.changed.add(self.key(r, name))

    def send(self) -> list[tuple[Any, ...]]:
        def order(k: tuple[Any, ...]) -> tuple[Any, ...]:
            return (k[0], k[5], k[1] != ANY, k[1], k[2], k[3], k[4])

        out = [(*k, *self.asks[k]) for k in sorted(self.changed, key=order)]
        for k in self.changed:
            if self.asks[k][0] == 0:
                del self.asks[k]  # sent with count 0, then out of the table (AMRMClientImpl.decResourceRequest)
        self.changed = set()
        return out


def sent(request: AllocateRequest) -> list[tuple[Any, ...]]:
    return [
        (
            r.priority.priority,
            r.resource_name,
            r.execution_type_request.execution_type.value,
            r.capability.memory_mb,
            r.capability.vcores,
            r.allocation_request_id,
            r.num_containers,
            r.relax_locality,
            r.capability,
        )
        for r in request.ask
    ]


def random_request_args(rng: random.Random) -> dict[str, Any]:
    nodes = tuple(rng.choice([*HOSTS, ANY if rng.random() < 0.05 else HOSTS[0]]) for _ in range(rng.randint(0, 3)))
    return {
        "nodes": nodes,
        "racks": tuple(rng.choice(RACKS) for _ in range(rng.randint(0, 2))),
        "relax_locality": rng.random() < 0.7,
        "execution_type": rng.choice((G, G, O)),
        "request_id": rng.choice((-1, -1, 3)),
    }


def run_against_reference(seed: int, steps: int) -> int:
    """Random adds, matches, removals (also of requests never added) and resets; returns the asks compared."""
    rng = random.Random(seed)
    am, ref = Recording(), Reference()
    remove = am.remove_container_request
    am.remove_container_request = lambda r: (ref.remove(r), remove(r))[1]  # type: ignore[method-assign]
    compared = 0
    for step in range(steps):
        prio, cap, roll = rng.choice((10, 20)), rng.choice(CAPS), rng.random()
        if roll < 0.4:
            count = rng.choice((0, 1, 1, 2, 3))
            before = len(am._outstanding.get(prio, ()))
            am.add_container_request(cap, prio, count=count, **random_request_args(rng))
            if count > 0:
                ref.add(am._outstanding[prio][before], count)
        elif roll < 0.7 and am._outstanding.get(prio):
            host = rng.choice(HOSTS)
            am._match(
                Container(
                    id=ContainerId(ATTEMPT, step), node_id=NodeId(host, 0), resource=cap, priority=Priority(prio),
                    execution_type=rng.choice((G, G, O)),
                )
            )  # fmt: skip
        elif roll < 0.8 and am._outstanding.get(prio):
            am.remove_container_request(rng.choice(list(am._outstanding[prio])))
        elif roll < 0.85:
            am.remove_container_request(ContainerRequest(cap, rng.choice((10, 20, 30)), **random_request_args(rng)))
        elif roll < 0.87:
            am._reset_attempt_state()
            am.attempt_id = ATTEMPT
            ref = Reference()
        else:
            am._allocate()
            got, want = sent(am.sent[-1]), ref.send()
            assert got == want, f"step {step}"
            compared += len(got)
        flat = {k: (e[0], e[1], e[2]) for k, e in am._asks.items()}
        assert flat == {k: tuple(e) for k, e in ref.asks.items()}, f"step {step}"
        assert am.pending_requests == sum(len(q) for q in ref.outstanding.values())
    return compared


def test_random_requests_send_what_the_reference_sends() -> None:
    """Over random adds, matches and removals each allocate sends the reference table's changed asks, in order."""
    assert run_against_reference(3, 4000) > 2000


def test_another_seed_sends_what_the_reference_sends() -> None:
    """A second random sequence (more resets and foreign removals hit other paths) agrees too."""
    assert run_against_reference(17, 4000) > 2000


def test_unchanged_entries_are_not_sent_again() -> None:
    """An allocate after one that sent the table sends no asks when nothing changed."""
    am = Recording()
    am.add_container_request(CAPS[0], 20, nodes=("node0",), racks=("/r0",))
    am._allocate()
    am._allocate()
    assert [len(r.ask) for r in am.sent] == [3, 0]


def test_request_of_a_previous_attempt_decrements_the_new_table() -> None:
    """Removing a request added before an attempt reset withdraws from the new table (count 0), as a foreign one."""
    am = Recording()
    am.add_container_request(CAPS[0], 20, count=2)
    old = am._outstanding[20][0]
    am._reset_attempt_state()
    am.attempt_id = ATTEMPT
    am.add_container_request(CAPS[0], 20, count=2)
    am.remove_container_request(old)  # priority 20 is outstanding again: the old object is not in its queue
    am._allocate()
    assert [(r.resource_name, r.num_containers) for r in am.sent[-1].ask] == [(ANY, 2)]


def test_entries_sent_with_count_0_leave_the_table() -> None:
    """As AMRMClientImpl.decResourceRequest: a withdrawn ask is sent with count 0 and its entry is then removed, so
    an AM whose maps each named another node holds no entry for the maps it has been given."""
    am = Recording()
    for i in range(40):
        am.add_container_request(CAPS[0], 20, nodes=(f"node{i}",), racks=("/r0",))
    am._allocate()
    assert len(am._asks) == 42  # 40 nodes, the rack and ANY
    for i in range(40):
        am._match(container(100 + i, f"node{i}", 20))
    am._allocate()
    assert len(am.sent[-1].ask) == 42 and {r.num_containers for r in am.sent[-1].ask} == {0}
    assert am._asks == {} and am._tables == {}


def _shuffled_entries(rng: random.Random, shapes: list[tuple[int, int, str, int, int]], n: int) -> list[list[Any]]:
    """``n`` distinct ask-table entries over ``shapes`` (priority, request id, type, memory, vcores), in random order;
    names include ones that sort before ANY's ``*`` as strings."""
    names = [ANY, "!early", "node1", "node10", "node2", "/r0", "/r1", "h\u00e9te", "a", "Z"]
    keys = {(shape, rng.choice(names)) for _ in range(n) for shape in [rng.choice(shapes)]}
    entries = [
        [1, True, CAPS[0], (p, rid, name != ANY, name, etype, mem, vcores), True]
        for (p, rid, etype, mem, vcores), name in keys
    ]
    rng.shuffle(entries)
    return entries


def test_sort_changed_is_the_full_sort_for_one_request_shape_and_for_many() -> None:
    """The changed entries go out in the order of their full sort keys whether they share one request shape (the
    cheaper sort by name) or not (the full sort), including names that sort before ANY as strings."""
    rng = random.Random(5)
    one = [(20, -1, "GUARANTEED", 1024, 1)]
    many = [
        *one,
        (10, -1, "GUARANTEED", 1024, 1),
        (20, 3, "GUARANTEED", 1024, 1),
        (20, -1, "OPPORTUNISTIC", 1024, 1),
        (20, -1, "GUARANTEED", 2048, 2),
    ]
    # (the last: one priority and request id, but other types and sizes, which only the full sort orders)
    for shapes in (one, many, many[1:2], [many[0], many[3], many[4]]):
        for n in (1, 2, 5, 40):
            entries = _shuffled_entries(rng, shapes, n)
            expected = sorted(entries, key=lambda e: e[3])
            sort_changed(entries)
            assert [e[3] for e in entries] == [e[3] for e in expected]
