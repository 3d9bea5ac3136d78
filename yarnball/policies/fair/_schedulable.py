"""Hadoop's ``Schedulable``: what the fair-share computation and the policies' comparators read of a queue or an
application, and :class:`FakeSchedulable`, Hadoop's test double of it.

``FSQueue`` and ``FSAppAttempt`` implement ``Schedulable`` in Hadoop; here any object with these members does
(a ``typing.Protocol``). ``updateDemand`` and ``assignContainer`` belong to the queues and attempts that schedule,
not to the arithmetic, and are left out.
"""

from __future__ import annotations

import itertools
from typing import Protocol

from yarnball.policies.preemption._java import f32
from yarnball.protocols import Priority, Resource

__all__ = ["FSQueueSchedulable", "FakeSchedulable", "Schedulable"]

_INT_MAX = 2**31 - 1
_NONE = Resource(0, 0)
_FAKE_MAX_SHARE = Resource(_INT_MAX, 0)  # Resources.createResource(Integer.MAX_VALUE, 0)
_PRIORITY_0 = Priority(0)
_fake_ids = itertools.count()


class Schedulable(Protocol):
    """``Schedulable``: a queue or an application as fair sharing sees it.

    ``weight`` is a Java float (``getWeight()`` returns ``float``): implementations hold a float32 value (round with
    ``f32``), so that products and quotients match Hadoop's to the last bit. ``fair_share`` is written by the
    policies' ``compute_shares`` (``setFairShare``).
    """

    @property
    def name(self) -> str:
        """``getName``: the queue's full name or the application attempt's id; breaks ordering ties."""
        ...

    @property
    def demand(self) -> Resource:
        """``getDemand``: usage plus outstanding requests (capped at the max share for queues)."""
        ...

    @property
    def resource_usage(self) -> Resource:
        """``getResourceUsage``."""
        ...

    @property
    def min_share(self) -> Resource:
        """``getMinShare``: the configured ``minResources`` of a queue, none for an application."""
        ...

    @property
    def max_share(self) -> Resource:
        """``getMaxShare``: a queue's effective ``maxResources``, unbounded for an application."""
        ...

    @property
    def weight(self) -> float:
        """``getWeight``: a float32 value."""
        ...

    @property
    def start_time(self) -> int:
        """``getStartTime`` (ms): the attempt's creation time, 0 for queues."""
        ...

    @property
    def priority(self) -> Priority:
        """``getPriority``: always 1 for FairScheduler queues and attempts."""
        ...

    fair_share: Resource
    """``getFairShare`` / ``setFairShare``: the instantaneous fair share."""

    def is_active(self) -> bool:
        """``FSQueue.isActive()`` (a runnable application in the subtree) for a queue; True for anything else.

        ``ComputeFairShares`` gives an inactive *queue* a fixed share of 0 (Hadoop tests ``sched instanceof FSQueue
        && !isActive()``); an application is never fixed that way, so it answers True."""
        ...


class FSQueueSchedulable(Schedulable, Protocol):
    """What ``ComputeFairShares.computeSteadyShares`` needs of an ``FSQueue`` besides ``Schedulable``."""

    steady_fair_share: Resource
    """``getSteadyFairShare`` / ``setSteadyFairShare``: the share counting every queue, active or not."""


class FakeSchedulable:
    """Hadoop's ``FakeSchedulable`` (a test class): fixed min/max shares, weight, usage and start time; demand is
    twice the usage; priority 0 (``Records.newRecord(Priority.class)``). Its defaults are Hadoop's no-argument
    constructor: min share none, max share ``<Integer.MAX_VALUE MB, 0 vcores>``, weight 1.

    Hadoop names it ``"FakeSchedulable" + hashCode()``; here the number is a per-process counter unless ``name`` is
    given. ``active`` and ``steady_fair_share`` let it stand for a queue in ``ComputeFairShares``.
    """

    __slots__ = (
        "_weight",
        "active",
        "demand",
        "fair_share",
        "max_share",
        "min_share",
        "name",
        "priority",
        "resource_usage",
        "start_time",
        "steady_fair_share",
    )

    def __init__(
        self,
        min_share: Resource = _NONE,
        max_share: Resource = _FAKE_MAX_SHARE,
        weight: float = 1.0,
        fair_share: Resource = _NONE,
        usage: Resource = _NONE,
        start_time: int = 0,
        *,
        name: str | None = None,
        demand: Resource | None = None,
        priority: Priority = _PRIORITY_0,
        active: bool = True,
    ) -> None:
        self.min_share = min_share
        self.max_share = max_share
        self._weight = f32(weight)
        self.fair_share = fair_share
        self.steady_fair_share = _NONE
        self.resource_usage = usage
        # Resources.multiply(usage, 2.0): each component (long)(value * 2.0).
        self.demand = usage * 2.0 if demand is None else demand
        self.start_time = start_time
        self.name = f"FakeSchedulable{next(_fake_ids)}" if name is None else name
        self.priority = priority
        self.active = active

    @property
    def weight(self) -> float:
        return self._weight

    @weight.setter
    def weight(self, value: float) -> None:
        self._weight = f32(value)

    def is_active(self) -> bool:
        return self.active

    def __repr__(self) -> str:
        return (
            f"FakeSchedulable({self.name}, min={self.min_share}, max={self.max_share}, w={self._weight}, "
            f"usage={self.resource_usage}, demand={self.demand}, start={self.start_time})"
        )
