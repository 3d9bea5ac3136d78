"""RMContext: the ResourceManager's shared state, which its services read and write (Hadoop's ``RMContext`` /
``RMContextImpl``: ``getRMNodes``, ``getInactiveRMNodes``, ``getRMApps``, ``getScheduler``, the services).

The RM actor (actors/_resourcemanager.py) makes one at construction and exposes each field as an attribute of its
own (``rm.apps`` is ``rm.context.apps``), so code outside the RM reads the state as before. The services hold the
context itself: it is a compiled class, so the compiled services read its fields as native attribute loads instead
of looking each one up on the RM actor, a Python object (a lookup costs ~150-250 instructions, a native load a few).
An RM restart (actors/_rmrestart.py) gives the context new, empty books, as Hadoop's ``resetRMContext`` does.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yarnball.actors._applicationmasterservice import ApplicationMasterService
    from yarnball.actors._heartbeats import HeartbeatClock
    from yarnball.actors._kernel import Kernel
    from yarnball.actors._resourcetracker import ResourceTrackerService, RMNode
    from yarnball.actors._rmapp import RMApp, RMAppAttempt
    from yarnball.actors._rmappmanager import RMAppManager
    from yarnball.actors._schedulerdispatcher import SchedulerEventDispatcher
    from yarnball.actors._shortcuts._amdormancy import DormantAMs
    from yarnball.protocols import ApplicationAttemptId, ApplicationId, ContainerId, NodeId

__all__ = ["RMContext"]


class RMContext:
    """The state the RM's services share. ``kernel`` is set when the RM is spawned; the services, ``dormant`` and
    ``secrets`` as the RM builds them."""

    #: The RM's kernel (from its spawn).
    kernel: Kernel
    #: The scheduler, reached only through its interface (policies/scheduler/_interface.py).
    scheduler: Any
    #: The RM nodes by id (``getRMNodes``), and the ids of those declared LOST (``getInactiveRMNodes``).
    nodes: dict[NodeId, RMNode]
    lost_nodes: set[NodeId]
    #: The applications (``getRMApps``) and their attempts.
    apps: dict[ApplicationId, RMApp]
    attempts: dict[ApplicationAttemptId, RMAppAttempt]
    #: AM containers by id: their attempt.
    am_containers: dict[ContainerId, ApplicationAttemptId]
    #: Allocated containers no NM has reported yet: (allocation time, node) (the ContainerAllocationExpirer's).
    unlaunched: dict[ContainerId, tuple[float, NodeId]]
    #: Containers allocated and not yet ended, as the RM counts them.
    live: set[ContainerId]
    #: The run's counters (containers_allocated, ...), and the scheduler calls per operation with their wall seconds
    #: (SLS's SchedulerMetrics; not part of the event log).
    counters: Counter[str]
    op_counts: Counter[str]
    op_seconds: defaultdict[str, float]
    #: ``yarn.resourcemanager.nodemanagers.heartbeat-interval-ms``: the interval each heartbeat response gives.
    heartbeat_interval_ms: int
    #: The cluster's heartbeat clock, when one drives the NMs' heartbeats.
    heartbeats: HeartbeatClock | None
    #: Dormant idle AMs (actors/_shortcuts/_amdormancy.py).
    dormant: DormantAMs
    #: AMRMTokens, NMTokens and container tokens (actors/_secretmanagers.py).
    secrets: Any
    #: The services.
    dispatcher: SchedulerEventDispatcher
    app_manager: RMAppManager
    resource_tracker: ResourceTrackerService
    application_master_service: ApplicationMasterService

    def __init__(self, scheduler: Any, heartbeat_interval_ms: int) -> None:
        self.scheduler = scheduler
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.heartbeats = None
        self.counters = Counter()
        self.op_counts = Counter()
        self.op_seconds = defaultdict(float)
        self.reset_books()

    def reset_books(self) -> None:
        """Empty books: no nodes, applications or containers (construction, and an RM restart's loss of state)."""
        self.nodes = {}
        self.lost_nodes = set()
        self.apps = {}
        self.attempts = {}
        self.am_containers = {}
        self.unlaunched = {}
        self.live = set()
