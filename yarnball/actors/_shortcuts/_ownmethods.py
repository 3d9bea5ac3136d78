"""Whether an object runs a class's own method, for the shortcuts that must switch off when a test replaces or a
subclass overrides it, pure-Python and mypyc-compiled alike (yarnball/_native.py).

A Python method read from an object is a bound method whose ``__func__`` is the function; a compiled (mypyc native
class) method read from an object is a builtin method without ``__func__``. Both are checked here without reading
the object's ``__dict__`` (that would move its attribute values out of CPython's inline storage for the rest of the
run: see _kernel.enter_replaced).
"""

from __future__ import annotations

from types import BuiltinMethodType
from typing import Any

__all__ = ["OwnMethod", "is_bound", "sealed"]


def sealed(cls: type) -> type | None:
    """``cls`` when its instances have no ``__dict__`` (a mypyc native class), else None.

    Nothing can be set on such an instance, so an object of exactly that class runs the class's own methods: the
    callers then compare the class attribute they captured at import with the one they expect, with no per-call
    method read. A pure-Python class gives None: every check reads the bound method (:func:`is_bound`)."""
    return cls if cls.__dictoffset__ == 0 else None


def is_bound(obj: Any, bound: Any, func: Any) -> bool:
    """Whether ``bound`` (the method read from ``obj``) is ``func`` bound to ``obj``: neither replaced on the
    instance (by anything else, a method of another object included) nor overridden in a subclass.

    A Python function: the bound method's ``__func__`` and ``__self__``. A compiled method (``func`` a method
    descriptor): a builtin method, which CPython finds equal to ``func`` bound to ``obj`` exactly when both are the
    same C function on the same object (and an object of another class, whose compiled methods share a base's, is
    not bound to it)."""
    own = getattr(bound, "__func__", None)
    if own is not None:
        return own is func and getattr(bound, "__self__", None) is obj
    get = getattr(func, "__get__", None)
    if type(bound) is not BuiltinMethodType or get is None:
        return False
    try:
        return bool(bound == get(obj))
    except TypeError:  # a compiled method of another class: ``obj`` is not an instance of ``func``'s class
        return False


class OwnMethod:
    """Whether an object runs ``cls``'s own method ``name``: the check a role actor makes before a shortcut that
    replaces the method's work (``ResourceManager`` before pulling from ``CapacityScheduler.allocate`` or handing
    NODE_UPDATE to it without the event record), with the compiled/pure-Python difference kept here."""

    __slots__ = ("func", "own", "sealed")

    def __init__(self, cls: type, name: str) -> None:
        #: ``cls`` when compiled (:func:`sealed`), else None.
        self.sealed = sealed(cls)
        #: The method expected (tests set it to None: every object then takes the general path).
        self.func: Any = getattr(cls, name)
        self.own: Any = self.func

    def runs(self, obj: Any, bound: Any) -> bool:
        """Whether ``bound`` (the method read from ``obj``) is the expected one, neither replaced nor overridden."""
        return (type(obj) is self.sealed and self.func is self.own) or is_bound(obj, bound, self.func)
