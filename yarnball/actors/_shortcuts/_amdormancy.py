"""Dormant idle ApplicationMasters: no kernel event at all while a quiet AM has nothing to send or receive.

With AM heartbeat skipping (_shortcuts/_amheartbeats.py) an idle quiet AM still costs two events a heartbeat: its timer
firing (``F``) and the no-op check at the RM (``A``, which has the key the AllocateRequest's delivery would have).
With ``yarnball.simulation.dormant-idle-ams`` (on by default, and only where AM skipping is on) an AM whose check
was a no-op and which still has nothing to send goes *dormant*: its timer is suspended and nothing is queued for it.

**Why this is exact.** While dormant, its skipped ticks would each be an ``F`` (queueing ``A`` and the next ``F``)
and an ``A`` that changes nothing but the attempt's liveness and response id and the AM's response id, headroom and
cluster size. Removing events whose only effect is to queue one another does not change the order of any other
event (the heap pops in key order). What the skipped ticks *do* consume is sequence numbers of the AM's origin:
tick ``m`` (at ``t1 + m * interval``) takes ``c + 2m`` for its ``A`` and ``c + 2m + 1`` for the next ``F``, where
``c`` is the AM's next sequence when it went dormant (the first ``F`` was already queued, with its own sequence).
Nothing else takes the AM's sequences while it is dormant: every event the AM runs (a message, a timer) wakes it
first (``ApplicationMaster._deliver``).

**Where a skipped tick stands.** The kernel keeps ``high``, the highest event processed at ``now``. An event queued
before ``now`` with a key below ``high`` has run, one with a key above it has not. A skipped ``F`` of ``now`` was
queued a heartbeat earlier, so it "has run" iff ``high`` is above its key; its ``A`` was queued when ``F`` ran and
has run iff ``high`` is above *its* key (any event above it popped after it). Every tick before ``now`` has run.

**Waking.** Whatever can make the AM's next allocate do something wakes it at the event that does it (the RM's
hooks, ``ResourceManager._wake_am``): a container allocated to or completed for the attempt (the scheduler's
notifications, NM-reported completions), a preemption mark, the attempt leaving RUNNING/FINISHING (killed, failed,
finished, AM expiry, node loss). Waking settles the ticks that have run (they were no-ops: no work had appeared), then
re-queues the tick in progress with the keys it would have had: the pending ``A`` (its ``F`` has run: the work is seen
by this ``A``) and the next ``F``, or else the pending ``F``; the AM's sequence is advanced with
``Kernel.set_sequence`` by exactly what the skipped ticks took. The first allocate that sees the work is therefore
the same one as without dormancy; a wake that finds no work (a message to the AM, say) costs one tick.

**Lazily settled.** The attempt's ``last_heartbeat`` and ``response_id``, the AM's response id and the skipped
allocate count are settled when the AM wakes, before the AM liveness monitor looks (a dormant AM never expires), and
at the end of every ``Cluster.run``. The AM's ``headroom`` and ``num_cluster_nodes`` are those of its last
processed allocate until it wakes: the intermediate values of skipped ticks are not observed (quiet AMs must not
read them, see ``ApplicationMaster.quiet_when_idle``). Dormancy is off wherever AM skipping is off (modelled
latency, opportunistic containers, AMRMProxy, packing, autoscaling: ``Cluster._skipping_proven``) and for AMs whose
heartbeat times are not integral milliseconds (their phase points are then computed without rounding error).
"""

from __future__ import annotations

from collections.abc import ValuesView
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from yarnball.actors._kernel import NORMAL, Kernel
from yarnball.actors._shortcuts._amheartbeats import _at_rm
from yarnball.actors._shortcuts._amtimer import HeartbeatTimer

if TYPE_CHECKING:
    from yarnball.actors._rmcontext import RMContext

__all__ = ["DormantAMs", "HeartbeatTimer", "Sleeper"]


class Sleeper:
    """One dormant AM: where its skipped ticks stand and what they settle (see the module docstring)."""

    __slots__ = (
        "am",
        "attempt",
        "attempt_id",
        "c",
        "context",
        "interval",
        "origin",
        "progress",
        "r0",
        "rm",
        "settled",
        "sf",
        "t1",
    )

    # (times and the progress are Any, not float: compiled, a float field would turn a run's int milliseconds into
    # floats, see actors/_heartbeats.py NodeBeat)
    rm: Any
    context: RMContext
    am: Any
    attempt: Any
    attempt_id: Any
    origin: str
    interval: Any
    t1: Any
    sf: int
    c: int
    r0: int
    progress: Any
    settled: int

    def __init__(self, rm: Any, am: Any, attempt: Any, progress: Any) -> None:
        self.begin(rm, am, attempt, progress)

    def begin(self, rm: Any, am: Any, attempt: Any, progress: Any) -> None:
        """``am`` goes dormant now: its timer is suspended, and where its skipped ticks will stand is noted."""
        ctx: RMContext = rm.context
        timer: HeartbeatTimer = am.heartbeat_timer
        kernel: Kernel = ctx.kernel
        self.rm = rm
        self.context = ctx
        self.am = am
        self.attempt = attempt
        self.attempt_id = attempt.attempt_id
        self.origin = origin = am.ref.id  # (am.id without the property call)
        self.interval = timer.interval
        self.t1 = timer.due  # the first skipped tick's time
        self.sf = timer.seq  # the first skipped F's own sequence (it is queued, suspended)
        self.c = kernel.sequence(origin)  # the first skipped A's sequence
        self.r0 = attempt.response_id
        self.progress = progress
        self.settled = 0
        timer.live = False
        am.sleeper = self

    def position(self) -> tuple[int, bool]:
        """(ticks whose A has run, whether the next tick's F has run)."""
        ctx = self.context
        kernel: Kernel = ctx.kernel
        now, interval, t1 = kernel.now, self.interval, self.t1
        if now < t1:
            return 0, False
        m = int((now - t1) // interval)
        t = t1 + m * interval
        if t < now:
            return m + 1, False
        high = kernel.high[:4]
        if high > (t, NORMAL, self.origin, self.c + 2 * m):
            return m + 1, False
        return m, high >= (t, NORMAL, self.origin, self.sf if m == 0 else self.c + 2 * m - 1)

    def settle(self, n: int) -> None:
        """Account for the first ``n`` skipped ticks (no-op allocates) as ``_amheartbeats._at_rm`` would have."""
        ctx = self.context
        new = n - self.settled
        if new <= 0:
            return
        self.settled = n
        rid = self.r0 + n
        self.attempt.response_id = rid
        self.am.response_id = rid
        self.attempt.last_heartbeat = self.t1 + (n - 1) * self.interval
        clock = ctx.heartbeats
        assert clock is not None  # (only a run with a heartbeat clock has dormant AMs)
        clock.skipped_allocates += new

    def wake(self) -> None:
        """Settle the ticks that have run and re-queue the tick in progress with its exact keys."""
        ctx = self.context
        rm, am, origin, c = self.rm, self.am, self.origin, self.c
        kernel: Kernel = ctx.kernel
        n, half = self.position()
        self.settle(n)
        dormant: DormantAMs = ctx.dormant
        del dormant.sleepers[self.attempt_id]
        am.sleeper = None
        dormant.spare = self  # nothing refers to a woken Sleeper any more: the next sleep reuses it
        timer: HeartbeatTimer = am.heartbeat_timer
        t = self.t1 + n * self.interval
        if half:
            arg = (rm, am, self.attempt_id, self.r0 + n, self.progress)
            kernel.push(t, NORMAL, origin, c + 2 * n, _at_rm, arg, rm.ref.id)  # (rm.id without the property call)
            t += self.interval
            seq = c + 2 * n + 1
        elif n == 0:
            timer.live = True  # the first skipped F is still queued (it has not run)
            return
        else:
            seq = c + 2 * n - 1
        kernel.set_sequence(origin, seq + 1)
        timer.rearm(t, (origin, seq))  # (t is at or after now: the tick in progress or a later one)

    def drop(self) -> None:
        """The AM stops while dormant: settle what has run, forget it."""
        ctx = self.context
        self.settle(self.position()[0])
        dormant: DormantAMs = ctx.dormant
        del dormant.sleepers[self.attempt_id]
        self.am.sleeper = None


@mypyc_attr(allow_interpreted_subclasses=True)  # (tests observe its sleeps in a Python subclass)
class DormantAMs:
    """The RM's dormant AMs by attempt id: a mapping (``if rm.dormant:`` is one call when there are none) that
    holds its dict (``sleepers``)."""

    def __init__(self, rm: Any) -> None:
        #: attempt id -> the Sleeper of its dormant AM
        self.sleepers: dict[Any, Sleeper] = {}
        self.rm = rm
        self.context: RMContext = rm.context
        #: Set by the Cluster from ``yarnball.simulation.dormant-idle-ams`` where AM skipping is proven.
        self.enabled = False
        #: Sleep right after a response that leaves the AM idle, one tick early (actors/_shortcuts/_amrounds.py).
        self.early = True
        #: The last woken Sleeper, reused by the next :meth:`sleep` (Sleeper.wake sets it).
        self.spare: Sleeper | None = None

    def __bool__(self) -> bool:
        return bool(self.sleepers)

    def __len__(self) -> int:
        return len(self.sleepers)

    def __contains__(self, attempt_id: object) -> bool:
        return attempt_id in self.sleepers

    def __getitem__(self, attempt_id: Any) -> Sleeper:
        return self.sleepers[attempt_id]

    def get(self, attempt_id: Any) -> Sleeper | None:
        return self.sleepers.get(attempt_id)

    def values(self) -> ValuesView[Sleeper]:
        return self.sleepers.values()

    def disable(self) -> None:
        self.enabled = False
        self.wake_all()

    def sleep(self, am: Any, attempt: Any, progress: Any) -> None:
        """``am``'s allocate at this tick was a no-op: go dormant if nothing can need its next tick."""
        ctx = self.context
        timer: Any = am.heartbeat_timer
        if (
            type(timer) is not HeartbeatTimer
            or not timer.live
            or timer.cancelled
            or not am.is_idle()
            or not am.has_nothing_to_send()
            or am.finished
        ):
            return
        due, interval = timer.due, timer.interval
        kernel: Kernel = ctx.kernel
        if due != kernel.now + interval or due % 1 or interval % 1:
            return  # (x % 1: not an integral number of ms)
        if am.attempt_id is not attempt.attempt_id and am.attempt_id != attempt.attempt_id:
            return
        # a new Sleeper, or the last woken one (an AM sleeps and wakes once per container completion)
        sleeper = self.spare
        if sleeper is None:
            sleeper = Sleeper(self.rm, am, attempt, progress)
        else:
            self.spare = None
            sleeper.begin(self.rm, am, attempt, progress)
        self.sleepers[attempt.attempt_id] = sleeper

    def wake(self, attempt_id: Any) -> None:
        sleeper = self.sleepers.get(attempt_id)
        if sleeper is not None:
            sleeper.wake()

    def wake_all(self) -> None:
        for sleeper in list(self.sleepers.values()):
            sleeper.wake()

    def settle_all(self) -> None:
        """Settle every dormant AM's skipped ticks up to the kernel's position (for whoever looks from outside)."""
        for sleeper in self.sleepers.values():
            sleeper.settle(sleeper.position()[0])
