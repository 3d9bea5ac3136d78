"""What the preemption policy sees: a frozen snapshot of the cluster, its queues and their applications.

Plain data with no reference to any scheduler class: the live PreemptionMonitor builds one from the
CapacityScheduler every monitoring interval, the what-if tool decodes one from JSON, and the tests build them
from Hadoop's own test tables. It mirrors what ``ProportionalCapacityPreemptionPolicy.cloneQueues`` reads
(preemption.md §3) for the single default partition.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from yarnball.protocols import Resource

__all__ = ["AppSnapshot", "ClusterSnapshot", "ContainerSnapshot", "QueueSnapshot"]

_ZERO = Resource()

# gc=False: these records hold only strings, numbers, Resources and tuples of each other, so they can never be
# part of a reference cycle; keeping 100,000 containers out of the cycle collector's reach keeps rounds fast.


class ContainerSnapshot(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One running (or reserved) container of an application.

    ``priority`` is the container's request priority (a smaller number is more important, AM containers are
    usually 0); ``start_order`` increases with allocation time and stands in for the container id order
    Hadoop uses ("newest first"). ``reserved`` marks a reservation on ``node`` rather than a live container.
    """

    id: str
    resource: Resource
    priority: int = 1
    start_order: int = 0
    am: bool = False
    reserved: bool = False
    node: str = ""


class AppSnapshot(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An application attempt in a leaf queue, with its containers.

    ``priority`` is the application priority (larger is more important) and ``submission_order`` its place in
    submission order; together they give the FIFO ordering policy's preemption order.
    """

    id: str
    queue: str
    user: str = ""
    priority: int = 0
    submission_order: int = 0
    pending: Resource = _ZERO
    containers: tuple[ContainerSnapshot, ...] = ()


class QueueSnapshot(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One queue, parent or leaf, keyed by its full path (``root.a.b``).

    ``absolute_capacity`` and ``absolute_maximum_capacity`` are fractions of the cluster (0..1).
    ``guaranteed`` and ``maximum`` are the effective min/max resources when the scheduler has them (absolute
    resource configuration); when absent or all zero, Hadoop's fallback ``cluster x capacity`` (truncated,
    with the capacity as a float32) is used. ``pending`` of a leaf is its user-limit-aware pending; a parent's
    pending is ignored and recomputed as the sum of its children, as Hadoop does. ``preemption_disabled``
    is an explicit ``disable_preemption`` setting for this queue (None: look up the config key, then inherit
    from the parent). ``maximum_am_resource_percent`` (a fraction) defaults to the capacity-scheduler key.
    """

    path: str
    absolute_capacity: float
    absolute_maximum_capacity: float = 1.0
    guaranteed: Resource | None = None
    maximum: Resource | None = None
    used: Resource = _ZERO
    pending: Resource = _ZERO
    reserved: Resource = _ZERO
    preemption_disabled: bool | None = None
    maximum_am_resource_percent: float | None = None


class ClusterSnapshot(msgspec.Struct, frozen=True, kw_only=True):
    """The whole input of one policy round: the cluster resource, the Hadoop configuration keys in force
    (string, number or bool values, as in a Hadoop ``Configuration``), every queue (root and parents
    included, parents before their children is not required) and every application."""

    cluster: Resource
    config: Mapping[str, str | int | float | bool] = msgspec.field(default_factory=dict)
    queues: tuple[QueueSnapshot, ...] = ()
    applications: tuple[AppSnapshot, ...] = ()
