"""Actors: typed handlers, mailboxes, tell/ask, timers, latency, supervision, dead letters, stop."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from structlog.testing import capture_logs

from yarnball.actors import Actor, Kernel, handler
from yarnball.errors import ActorError, DeadLetterError, TimeoutError


class Ping(msgspec.Struct, frozen=True):
    n: int


class Pong(msgspec.Struct, frozen=True):
    n: int


class Boom(msgspec.Struct, frozen=True):
    pass


class Recorder(Actor):
    def __init__(self) -> None:
        self.seen: list[tuple[float, Any]] = []

    @handler
    def on_ping(self, msg: Ping) -> int:
        self.seen.append((self.now, msg))
        return msg.n * 2

    @handler(Pong)
    def on_pong(self, msg: Pong) -> None:
        self.seen.append((self.now, msg))

    @handler
    def on_boom(self, msg: Boom) -> None:
        raise RuntimeError("handler exploded")


class Slow(Actor):
    """An async handler that takes 10 ms; messages arriving meanwhile wait in the mailbox."""

    def __init__(self) -> None:
        self.log_: list[tuple[str, float]] = []

    @handler
    async def on_ping(self, msg: Ping) -> int:
        self.log_.append((f"start{msg.n}", self.now))
        await self.sleep(10)
        self.log_.append((f"end{msg.n}", self.now))
        return msg.n


@pytest.fixture(name="kernel")
def fixture_kernel() -> Kernel:
    return Kernel()


def test_handlers_are_chosen_by_message_type(kernel: Kernel) -> None:
    """Ping and Pong reach their own handlers, by annotation and by decorator argument."""
    rec = Recorder()
    ref = kernel.spawn(rec, "rec")
    ref.tell(Ping(1))
    ref.tell(Pong(2))
    kernel.run()
    assert [m for _, m in rec.seen] == [Ping(1), Pong(2)]


def test_ask_resolves_with_handler_return_value(kernel: Kernel) -> None:
    """ask returns a future of what the handler returned."""
    ref = kernel.spawn(Recorder(), "rec")
    assert kernel.run_until_complete(ref.ask(Ping(21))) == 42


def test_async_handler_processes_one_message_at_a_time(kernel: Kernel) -> None:
    """A second message waits until the running async handler finishes."""
    slow = Slow()
    ref = kernel.spawn(slow, "slow")
    f1, f2 = ref.ask(Ping(1)), ref.ask(Ping(2))
    kernel.run()
    assert slow.log_ == [("start1", 0), ("end1", 10), ("start2", 10), ("end2", 20)]
    assert (f1.result(), f2.result()) == (1, 2)


def test_async_handler_can_ask_another_actor(kernel: Kernel) -> None:
    """An async handler awaits an ask reply from another actor under the virtual clock."""

    class Asker(Actor):
        @handler
        async def on_pong(self, msg: Pong) -> tuple[int, float]:
            reply = await self.kernel.lookup("rec").ask(Ping(msg.n), timeout=100, sender=self.ref)
            return reply, self.now

    kernel.default_latency = 3
    kernel.spawn(Recorder(), "rec")
    asker = kernel.spawn(Asker(), "asker")
    assert kernel.run_until_complete(asker.ask(Pong(5))) == (10, 9)


def test_link_latency_delays_delivery(kernel: Kernel) -> None:
    """A per-link latency applies to messages on that link only."""
    a, b = Recorder(), Recorder()
    ra, rb = kernel.spawn(a, "a"), kernel.spawn(b, "b")
    kernel.set_latency("a", "b", 7)
    rb.tell(Ping(1), ra)
    ra.tell(Ping(2), rb)
    kernel.run()
    assert b.seen[0][0] == 7
    assert a.seen[0][0] == 0


def test_ask_times_out_in_kernel_time(kernel: Kernel) -> None:
    """An ask whose reply would come after the timeout fails with TimeoutError at the timeout."""
    kernel.spawn(Slow(), "slow")
    fut = kernel.lookup("slow").ask(Ping(1), timeout=5)
    with pytest.raises(TimeoutError, match="within 5 ms"):
        kernel.run_until_complete(fut)
    assert kernel.now == 5


def test_periodic_timer_fires_every_interval(kernel: Kernel) -> None:
    """every(interval) delivers at interval, 2*interval, ... until cancelled."""

    class Beater(Actor):
        def __init__(self) -> None:
            self.beats: list[float] = []

        def on_start(self) -> None:
            self.timer = self.every(1000, lambda: self.beats.append(self.now))

    beater = Beater()
    kernel.spawn(beater, "b")
    kernel.run(until=3500)
    beater.timer.cancel()
    kernel.run(until=10_000)
    assert beater.beats == [1000, 2000, 3000]


def test_timer_can_send_a_message_to_self(kernel: Kernel) -> None:
    """A timer given a message delivers it to the actor's own handler."""
    rec = Recorder()
    kernel.spawn(rec, "rec")
    rec.every(10, Pong(0), start=5)
    kernel.run(until=30)
    assert [t for t, _ in rec.seen] == [5, 15, 25]


def test_failing_handler_is_logged_and_actor_keeps_working(kernel: Kernel) -> None:
    """Under the default 'resume' policy a failure is logged with its message and the next message is handled."""
    rec = Recorder()
    ref = kernel.spawn(rec, "rec")
    with capture_logs() as logs:
        ref.tell(Boom())
        ref.tell(Ping(3))
        kernel.run()
    failure = next(e for e in logs if e["event"] == "handler_failed")
    assert failure["message_type"] == "Boom" and "handler exploded" in failure["error"]
    assert failure["actor"] == "rec"
    assert rec.seen == [(0, Ping(3))]
    assert kernel.handler_failures == 1


def test_failing_ask_propagates_exception_to_asker(kernel: Kernel) -> None:
    """The asker of a failing handler gets the exception."""
    ref = kernel.spawn(Recorder(), "rec")
    with capture_logs(), pytest.raises(RuntimeError, match="exploded"):
        kernel.run_until_complete(ref.ask(Boom()))


def test_restart_policy_reruns_on_start(kernel: Kernel) -> None:
    """Under the 'restart' policy a failure calls on_restart then on_start again."""

    class Restartable(Recorder):
        supervision = "restart"

        def __init__(self) -> None:
            super().__init__()
            self.starts = 0
            self.restarted_for: list[str] = []

        def on_start(self) -> None:
            self.starts += 1

        def on_restart(self, error: BaseException) -> None:
            self.restarted_for.append(str(error))

    actor = Restartable()
    ref = kernel.spawn(actor, "r")
    with capture_logs():
        ref.tell(Boom())
        ref.tell(Ping(1))
        kernel.run()
    assert actor.starts == 2
    assert actor.restarted_for == ["handler exploded"]
    assert actor.seen == [(0, Ping(1))]


def test_stop_policy_stops_actor(kernel: Kernel) -> None:
    """Under the 'stop' policy the actor stops and later messages are dead letters."""

    class Fragile(Recorder):
        supervision = "stop"

    ref = kernel.spawn(Fragile(), "f")
    with capture_logs():
        ref.tell(Boom())
        ref.tell(Ping(1))
        kernel.run()
    assert not ref.is_alive
    assert kernel.dead_letters == 1


def test_message_to_unknown_actor_is_a_logged_dead_letter(kernel: Kernel) -> None:
    """A message to an id nobody has is logged and counted, not dropped silently."""
    with capture_logs() as logs:
        kernel.lookup("ghost").tell(Ping(1))
        kernel.run()
    assert kernel.dead_letters == 1
    assert logs[0]["event"] == "dead_letter" and logs[0]["target"] == "ghost"


def test_ask_to_stopped_actor_fails_with_dead_letter_error(kernel: Kernel) -> None:
    """Asking a stopped actor fails the future instead of waiting forever."""
    ref = kernel.spawn(Recorder(), "rec")
    kernel.run()
    ref.stop()
    with capture_logs(), pytest.raises(DeadLetterError, match="rec"):
        kernel.run_until_complete(ref.ask(Ping(1)))


def test_unhandled_message_type_is_rejected_and_actor_keeps_running(kernel: Kernel) -> None:
    """A message with no handler is logged as unhandled; the actor handles the next one."""
    rec = Recorder()
    ref = kernel.spawn(rec, "rec")
    with capture_logs() as logs:
        ref.tell("not a message type it knows")
        ref.tell(Ping(1))
        kernel.run()
    assert logs[0]["event"] == "unhandled_message" and logs[0]["message_type"] == "str"
    assert rec.seen == [(0, Ping(1))]


def test_stop_calls_on_stop_and_cancels_timers(kernel: Kernel) -> None:
    """stop() calls on_stop once, cancels timers and turns queued messages into dead letters."""

    class Stoppable(Actor):
        def __init__(self) -> None:
            self.stopped = 0
            self.ticks = 0

        def on_start(self) -> None:
            self.every(1, lambda: setattr(self, "ticks", self.ticks + 1))

        def on_stop(self) -> None:
            self.stopped += 1

    actor = Stoppable()
    ref = kernel.spawn(actor, "s")
    kernel.run(until=5)
    ref.stop()
    ref.stop()
    kernel.run(until=50)
    assert actor.stopped == 1 and actor.ticks == 5


def test_shutdown_stops_every_actor_in_reverse_order(kernel: Kernel) -> None:
    """Kernel.shutdown stops actors in reverse spawn order."""
    order: list[str] = []

    class Named(Actor):
        def on_stop(self) -> None:
            order.append(self.id)

    for name in ("a", "b", "c"):
        kernel.spawn(Named(), name)
    kernel.run()
    kernel.shutdown()
    assert order == ["c", "b", "a"] and not kernel.actors


def test_duplicate_actor_id_is_rejected(kernel: Kernel) -> None:
    """Two actors cannot share an id."""
    kernel.spawn(Recorder(), "x")
    with pytest.raises(ActorError, match="already running"):
        kernel.spawn(Recorder(), "x")


def test_process_runs_alongside_the_mailbox(kernel: Kernel) -> None:
    """A process started by an actor does not block its handlers."""

    class WithLoop(Recorder):
        def on_start(self) -> None:
            self.loops: list[float] = []
            self.start_process(self.main())

        async def main(self) -> None:
            for _ in range(3):
                await self.sleep(10)
                self.loops.append(self.now)

    actor = WithLoop()
    ref = kernel.spawn(actor, "w")
    ref.tell(Ping(1), delay=15)
    kernel.run()
    assert actor.loops == [10, 20, 30]
    assert actor.seen == [(15, Ping(1))]


def test_handler_without_type_is_rejected_at_class_creation() -> None:
    """A handler with neither a decorator type nor an annotation is a definition error."""
    with pytest.raises(ActorError, match="annotation"):

        class Bad(Actor):
            @handler
            def on_x(self, msg):  # type: ignore[no-untyped-def]
                pass
