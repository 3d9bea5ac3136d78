"""An AM's heartbeat timer: ``Actor.every`` with the same event keys, that dormancy (_amdormancy.py) can suspend and
re-arm at an exact key, and whose firing runs the allocate it sends in place when that is the next event
(_amrounds.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yarnball.actors._kernel import NORMAL, Kernel, TimerHandle
from yarnball.actors._shortcuts._routes import run_next

__all__ = ["HeartbeatTimer"]


class HeartbeatTimer(TimerHandle):
    """``Actor.every`` for an AM's heartbeat, with the same event keys, that can be suspended and re-armed at an
    exact key (a dormant AM's timer)."""

    __slots__ = ("actor", "due", "fire", "firing", "held", "interval", "item", "live", "seq", "token")

    # (times are Any, not float: compiled, a float field would turn a run's int milliseconds into floats, see
    # actors/_heartbeats.py NodeBeat)
    actor: Any
    interval: Any
    item: Any
    due: Any
    fire: Callable[[int], None]

    def __init__(self, actor: Any, interval: Any, what: Callable[[], Any]) -> None:
        super().__init__()
        if interval <= 0:
            raise ValueError(f"timer interval must be > 0, got {interval}")
        self.actor = actor
        self.interval = interval
        self.item = actor.timer_tick(what)
        self.live = False
        self.due = 0.0
        #: The sequence of the queued firing's event, and the firing's own number (an earlier one still queued
        #: after a re-arm is superseded: it finds another token).
        self.seq = -1
        self.token = 0
        #: True while the firing's tick runs; the allocate it sends to the RM is then ``held`` (an event entry) and
        #: run at the end of the firing when it is the very next event (_amrounds.py).
        self.firing = False
        self.held: tuple[Any, ...] | None = None
        #: ``self._fire``, bound once (the fn of every firing's entry; a slotted timer's methods cannot be replaced).
        self.fire = self._fire
        self.rearm(actor.kernel.now + interval)
        actor.track_timer(self)

    def rearm(self, t: Any, key: tuple[str, int] | None = None) -> None:
        """Queue the next firing at ``t`` with the key ``(t, NORMAL, origin, seq)``: ``key`` = ``(origin, seq)``,
        by default the next one of the current origin (what ``Kernel.schedule`` would take; the owner is the
        origin: the AM)."""
        kernel: Kernel = self.actor.kernel
        token = self.token = self.token + 1
        if key is None:
            self.seq = kernel.queue_at(t, NORMAL, self.fire, token)
        else:
            origin, seq = key
            self.seq = seq
            kernel.push(t, NORMAL, origin, seq, self.fire, token, origin)
        self.due, self.live = t, True

    def cancel(self) -> None:
        """Cancelled for good (the AM's process exited or the AM stopped): a queued firing finds it cancelled. The
        bound ``fire`` referred to the timer itself and ``item`` to the AM: that cycle kept the timer, its AM and all
        the AM holds (its tasks) alive until a full collection, which a run's tuned collector (launcher/_gc.py) does
        not make, and never for what was frozen when the run started; without it, reference counting frees them."""
        self.cancelled = True
        self.fire = _cancelled
        self.item = None

    def _fire(self, token: int) -> None:
        if token != self.token or not self.live or self.cancelled:
            return  # suspended (dormant AM) or superseded by a re-armed firing
        actor = self.actor
        if not actor.is_free and actor.is_stopped:
            return
        self.firing = True
        try:
            actor.heartbeat_tick(self.item)  # the tick's delivery, as Actor.every's firing (at once when it may)
        finally:
            self.firing = False
        kernel: Kernel = actor.kernel
        # self.rearm(now + interval): its default key, inline (once per firing)
        t = kernel.now + self.interval
        token = self.token = self.token + 1
        self.seq = kernel.queue_at(t, NORMAL, self.fire, token)
        self.due, self.live = t, True
        held = self.held
        if held is not None:
            self.held = None
            run_next(kernel, held)


def _cancelled(token: int) -> None:
    """A cancelled timer's ``fire``."""
