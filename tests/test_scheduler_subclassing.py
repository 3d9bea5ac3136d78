"""CapacityScheduler compiled (a mypyc native class) or pure: Python subclasses still override it, and the RM's
checks for a replaced or overridden scheduler method (actors/_shortcuts/_ownmethods.py) are exact for both builds."""

from __future__ import annotations

from typing import Any

import pytest
from test_capacity_scheduler_helpers import GB, add_node, ask, attempt_id, heartbeat, make_conf, submit

from yarnball.actors._shortcuts._ownmethods import is_bound, sealed
from yarnball.policies.capacity import CapacityScheduler
from yarnball.policies.capacity._state import SchedulerNode

COMPILED = not hasattr(CapacityScheduler.handle, "__code__")


class _Plain:
    def method(self) -> int:
        return 1


class _Overriding(CapacityScheduler):
    """Counts the scheduling passes the compiled heartbeat path hands to it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.passes = 0

    def allocate_containers_to_node(self, node: SchedulerNode) -> None:
        self.passes += 1
        super().allocate_containers_to_node(node)


class _Inheriting(CapacityScheduler):
    pass


def test_a_subclass_override_is_called_by_the_scheduler_itself() -> None:
    """A Python override of a method the heartbeat path calls internally runs (compiled code honours it)."""
    cs = _Overriding(make_conf())
    nid = add_node(cs, 0)
    submit(cs, 1)
    cs.allocate(attempt_id(1), [ask(GB, 2)], [])
    got = heartbeat(cs, nid)
    assert cs.passes == 1 and got


def test_a_sealed_class_is_the_compiled_one() -> None:
    """Compiled, CapacityScheduler's instances have no __dict__ (methods cannot be set on them); pure, they do."""
    cs = CapacityScheduler(make_conf())
    assert sealed(CapacityScheduler) is (CapacityScheduler if COMPILED else None)
    assert sealed(_Plain) is None
    if COMPILED:
        with pytest.raises(AttributeError):
            cs.handle = print  # type: ignore[method-assign]


def test_is_bound_sees_the_class_method() -> None:
    """A method read from an object of the class or of a subclass not overriding it is the class's own."""
    cs, sub = CapacityScheduler(make_conf()), _Inheriting(make_conf())
    assert is_bound(cs, cs.handle, CapacityScheduler.handle)
    assert is_bound(sub, sub.handle, CapacityScheduler.handle)
    plain = _Plain()
    assert is_bound(plain, plain.method, _Plain.method)


def test_is_bound_sees_overrides_and_replacements() -> None:
    """Another method, an override, a method replaced on the instance or bound to another object is not."""
    cs, sub, over = CapacityScheduler(make_conf()), _Inheriting(make_conf()), _Overriding(make_conf())
    assert not is_bound(cs, cs.allocate, CapacityScheduler.handle)
    assert not is_bound(over, over.allocate_containers_to_node, CapacityScheduler.allocate_containers_to_node)
    sub.handle = lambda event: []  # type: ignore[method-assign]
    assert not is_bound(sub, sub.handle, CapacityScheduler.handle)
    sub.allocate = cs.allocate  # type: ignore[method-assign]
    assert not is_bound(sub, sub.allocate, CapacityScheduler.allocate)
    plain = _Plain()
    plain.method = print  # type: ignore[method-assign]
    assert not is_bound(plain, plain.method, _Plain.method)
    assert not is_bound(cs, print, CapacityScheduler.handle)
