"""A job's task specs packed: rows of integers in columns, their shapes numbered once for a whole trace.

A job waiting in its queue holds its tasks packed (~0.8 kB for 100 tasks, against ~20 kB of objects); its AM unpacks
them when it first needs them (actors/_slsam.py DeferredTasks), and again should it need them after letting them go
(launcher/_jobfeed.py feeds the jobs). A task's *shape* is its type, resource, preferred hosts, rack and execution
type: the unpacked specs of every job share one copy of each shape's values (a spec then costs ~140 bytes, against
~500 with its own decoded strings, resource and tuple).
"""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter
from typing import TypeAlias

import msgspec

from yarnball.protocols import ExecutionType, Resource

from ._model import TaskSpec

__all__ = ["Columns", "PackedTasks", "Shape", "TaskValues", "compact_column"]

#: (task type, resource, preferred hosts, rack, execution type)
Shape: TypeAlias = tuple[str, Resource, tuple[str, ...], str | None, ExecutionType]

#: A job's tasks by column: counts, durations (ms), priorities, shape numbers, allocation request ids, request
#: delays (ms); a column whose rows are all equal may be that one integer.
Column: TypeAlias = int | list[int]
Columns: TypeAlias = tuple[Column, Column, Column, list[int], Column, Column]

_NUMBERS = attrgetter("count", "duration_ms", "priority", "allocation_request_id", "request_delay_ms")
_SHAPE = attrgetter("task_type", "resource", "hosts", "rack", "execution_type")


class TaskValues:
    """The distinct shapes of a trace's tasks, each kept once and numbered in order of first sight: about one per
    host and container size."""

    __slots__ = ("_numbers", "values")

    def __init__(self) -> None:
        self.values: list[Shape] = []
        # (keyed by _key)
        self._numbers: dict[tuple[str, Resource, tuple[str, ...], str | None, int], int] = {}

    def number(self, shape: Shape) -> int:
        """``shape``'s number, given it when first seen."""
        key = _key(shape)
        n = self._numbers.get(key)
        if n is None:
            n = self._numbers[key] = len(self.values)
            self.values.append(shape)
        return n

    def columns(self, tasks: tuple[TaskSpec, ...]) -> Columns:
        """``tasks`` as :data:`Columns`."""
        numbers = self._numbers
        shapes = [_SHAPE(t) for t in tasks]
        found = [numbers.get(_key(s)) for s in shapes]
        numbered = [self.number(s) if n is None else n for s, n in zip(shapes, found)] if None in found else found
        rows = list(zip(*map(_NUMBERS, tasks))) if tasks else [(), (), (), (), ()]
        counts, durations, priorities, request_ids, delays = (compact_column(list(c)) for c in rows)  # type: ignore[arg-type]
        return counts, durations, priorities, numbered, request_ids, delays  # type: ignore[return-value]

    def specs(self, columns: Columns) -> tuple[TaskSpec, ...]:
        """The task specs of ``columns``."""
        counts, durations, priorities, shapes, request_ids, delays = columns
        if not shapes:
            return ()
        values = self.values
        kinds, resources, hosts, racks, etypes = zip(*[values[n] for n in shapes])
        n = len(shapes)
        return tuple(
            map(
                TaskSpec,
                _expand(counts, n),
                _expand(durations, n),
                _expand(priorities, n),
                kinds,
                resources,
                hosts,
                racks,
                etypes,
                _expand(request_ids, n),
                _expand(delays, n),
            )
        )


def _key(shape: Shape) -> tuple[str, Resource, tuple[str, ...], str | None, int]:
    """``shape`` as :class:`TaskValues` looks it up: the execution type by identity (an enum member's hash is a
    Python-level call)."""
    kind, resource, hosts, rack, etype = shape
    return kind, resource, hosts, rack, id(etype)


def compact_column(column: list[int]) -> Column:
    """A column as its one value when every row has it."""
    first = column[0] if column else 0
    return first if column and column.count(first) == len(column) else column


def _expand(column: Column, n: int) -> list[int] | repeat[int]:
    return repeat(column, n) if isinstance(column, int) else column


class PackedTasks:
    """A job's task specs as MessagePack :data:`Columns` (~0.8 kB for 100 tasks), their shapes numbered in a
    trace's :class:`TaskValues`."""

    __slots__ = ("_data", "_values", "total")

    def __init__(self, tasks: tuple[TaskSpec, ...], values: TaskValues | None = None) -> None:
        values = TaskValues() if values is None else values
        self._data = _ENCODER.encode(values.columns(tasks))
        self._values = values
        self.total = sum(max(t.count, 0) for t in tasks)

    @classmethod
    def of_columns(cls, columns: Columns, total: int, values: TaskValues) -> PackedTasks:
        """Tasks packed from their columns (shape numbers of ``values``), ``total`` containers in all."""
        packed = cls.__new__(cls)
        packed._data = _ENCODER.encode(columns)
        packed._values = values
        packed.total = total
        return packed

    @property
    def size(self) -> int:
        """The packed form's bytes."""
        return len(self._data)

    def unpack(self) -> tuple[TaskSpec, ...]:
        return self._values.specs(_DECODER.decode(self._data))


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Columns)
