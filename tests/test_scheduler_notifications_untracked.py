"""What the scheduler hands the RM per container is untracked by the cyclic garbage collector, safely; the functions
on a container's path make no cells."""

from __future__ import annotations

import enum
import gc
import types
import typing

import msgspec
import pytest

from yarnball.actors import _containermanagerauth
from yarnball.policies.capacity import _scheduler, _usersmanager
from yarnball.policies.scheduler import (
    Allocation,
    AppAccepted,
    AppRejected,
    AttemptAdded,
    ContainerAllocated,
    ContainerCompleted,
    ContainerReserved,
    _appscheduling,
)
from yarnball.policies.scheduler._utils import abnormal_status, preempted_status
from yarnball.protocols import (
    ApplicationAttemptId,
    ApplicationId,
    Container,
    ContainerId,
    NodeId,
    Priority,
    Resource,
)

UNTRACKED = (
    Allocation, AppAccepted, AppRejected, AttemptAdded, ContainerAllocated, ContainerCompleted, ContainerReserved
)  # fmt: skip
_LEAVES = (int, float, str, bool, bytes, type(None), enum.Enum)

APP = ApplicationId(1, 1)
ATTEMPT = ApplicationAttemptId(APP, 1)
CID = ContainerId(ATTEMPT, 2)
NODE = NodeId("host1", 8041)


def _acyclic(tp: object) -> bool:
    """Whether a value of type ``tp`` can never reach back to what holds it: immutable leaves, frozen untracked
    structs of such fields, and tuples and frozensets of them (a list, dict, set or Any could)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return all(_acyclic(arg) for arg in typing.get_args(tp))
    if origin in (tuple, frozenset):
        return all(arg is Ellipsis or _acyclic(arg) for arg in typing.get_args(tp))
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        config = tp.__struct_config__
        return config.frozen and not config.gc
    return isinstance(tp, type) and issubclass(tp, _LEAVES)


def test_notifications_and_allocation_are_untracked() -> None:
    """A notification made per allocated or ended container, and the Allocation of an AM's pull, are not tracked."""
    container = Container(id=CID, node_id=NODE, resource=Resource(1024, 1), priority=Priority(1))
    allocated = ContainerAllocated(ATTEMPT, container, False, "NODE_LOCAL")
    made = [
        allocated,
        ContainerCompleted(ATTEMPT, CID, NODE, abnormal_status(CID, "released")),
        ContainerReserved(ATTEMPT, NODE, Resource(1024, 1)),
        AppAccepted(APP),
        AppRejected(APP, "no such queue"),
        AttemptAdded(ATTEMPT),
        Allocation(
            containers=(container,),
            completed=(preempted_status(CID),),
            headroom=Resource(2048, 2),
            preempt=frozenset([CID]),
            notifications=(allocated,),
        ),
    ]
    assert {type(m) for m in made} == set(UNTRACKED)
    assert [type(m).__name__ for m in made if gc.is_tracked(m)] == []


@pytest.mark.parametrize("cls", UNTRACKED, ids=lambda c: c.__name__)
def test_untracked_structs_hold_nothing_that_could_close_a_cycle(cls: type[msgspec.Struct]) -> None:
    """Each field of an untracked notification is immutable all the way down: it cannot be part of a cycle."""
    assert cls.__struct_config__.frozen and not cls.__struct_config__.gc
    hints = typing.get_type_hints(cls)
    assert hints  # every class has fields to check
    assert [f"{name}: {tp}" for name, tp in hints.items() if not _acyclic(tp)] == []


# Functions run per container or per heartbeat: a generator expression or comprehension sharing their variables would
# make a cell per shared variable on every call (CPython), the calls that never reach it too.
ON_THE_PATH = [
    _containermanagerauth.authorize_starts,
    _containermanagerauth.authorize_ids,
    _usersmanager.computed_user_limit,
    _scheduler.CapacityScheduler.allocate,
    _scheduler.CapacityScheduler.idle_allocate,
    _scheduler.CapacityScheduler.allocate_has_news,
    _appscheduling.pull,
]


@pytest.mark.parametrize("fn", ON_THE_PATH, ids=lambda f: f.__qualname__)
def test_functions_on_a_containers_path_make_no_cells(fn: typing.Any) -> None:
    """No cell is made per call of a function on a container's path (interpreted; compiled ones have no code)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        pytest.skip("compiled with mypyc: no interpreter cells")
    assert code.co_cellvars == ()
