"""An AM's heartbeat timer: ``Actor.every`` with the same event keys, that dormancy (_shortcuts/_amdormancy.py) can
suspend and re-arm at an exact key; AM heartbeat skipping (_shortcuts/_amheartbeats.py) fires it."""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappush
from typing import Any

from yarnball.actors._kernel import FAR_WIDTH, NORMAL, TimerHandle
from yarnball.actors._shortcuts._amrounds import run_next

__all__ = ["HeartbeatTimer"]


class HeartbeatTimer(TimerHandle):
    """``Actor.every`` for an AM's heartbeat, with the same event keys, that can be suspended and re-armed at an
    exact key (a dormant AM's timer)."""

    __slots__ = ("actor", "due", "fire", "firing", "held", "interval", "item", "live", "seq")

    #: ``ApplicationMaster._deliver`` (set by actors/_appmaster.py): a firing of an AM with this very ``_deliver``
    #: runs its tick without the mailbox round (see :meth:`_fire`).
    plain_deliver: Any = None

    def __init__(self, actor: Any, interval: float, what: Callable[[], Any]) -> None:
        super().__init__()
        if interval <= 0:
            raise ValueError(f"timer interval must be > 0, got {interval}")
        from yarnball.actors._actor import _Tick

        self.actor = actor
        self.interval = interval
        self.item = _Tick(what)
        self.live = False
        self.due = 0.0
        self.seq = -1
        #: True while the firing's tick runs; the allocate it sends to the RM is then ``held`` (an event entry) and
        #: run at the end of the firing when it is the very next event (actors/_shortcuts/_amrounds.py).
        self.firing = False
        self.held: tuple[Any, ...] | None = None
        #: ``self._fire``, bound once (the fn of every firing's entry; a slotted timer's methods cannot be replaced).
        self.fire = self._fire
        self._queue(actor.kernel.now + interval)
        actor._track(self)

    def _queue(self, t: float) -> None:
        kernel = self.actor.kernel
        origin, seq = kernel.next_key()  # what Kernel.schedule would take (the owner is the origin: the AM)
        self.rearm(t, seq, origin)

    def rearm(self, t: float, seq: int, origin: str) -> None:
        """Queue the next firing at ``t`` with the exact key ``(t, NORMAL, origin, seq)``."""
        self.due, self.seq, self.live = t, seq, True
        self.actor.kernel.push(t, NORMAL, origin, seq, self.fire, seq, origin)

    def _fire(self, token: int) -> None:
        if token != self.seq or not self.live or self.cancelled:
            return  # suspended (dormant AM) or superseded by a re-armed firing
        actor = self.actor
        if actor._stopped:
            return
        try:  # getattr(actor._deliver, "__func__", None) without the builtin's call (class or instance)
            plain = actor._deliver.__func__ is HeartbeatTimer.plain_deliver
        except AttributeError:  # (a plain function replaced it on the instance)
            plain = False
        self.firing = True
        try:
            if (
                not plain
                or actor._busy
                or actor._sleeper is not None
            ):
                actor._deliver((self.item, actor.ref))
            else:
                # ApplicationMaster._deliver of the tick for a free, awake AM: Actor._deliver's _Tick case inlined
                # (the AllocateResponse check after it does not apply to a tick).
                ref = actor.ref
                actor._sender = ref
                try:
                    result = self.item.fn()
                except Exception as exc:
                    actor._failed(exc, self.item, ref)
                else:
                    if result is not None:
                        actor._handled(result, self.item, ref)
        finally:
            self.firing = False
        kernel = actor.kernel
        # self._queue(kernel.now + self.interval), inline (Kernel.next_key, then rearm): once per firing
        t = kernel.now + self.interval
        origin = kernel.current
        seqs = kernel._seqs
        seq = seqs.get(origin, 0)
        seqs[origin] = seq + 1
        self.due, self.seq, self.live = t, seq, True
        # Kernel.push, inlined (t is after now: the interval is > 0)
        entry = (t, NORMAL, origin, seq, self.fire, seq, origin)
        if t - kernel.now >= FAR_WIDTH:
            kernel.park(entry)
        else:
            heappush(kernel._queue, entry)
            if kernel._wakeup is not None:
                kernel._wakeup.set()
        held = self.held
        if held is not None:
            self.held = None
            run_next(kernel, held)
