"""Helpers for users' own tests of actors and clusters (shipped in the package, like ``trio.testing``).

>>> from yarnball.testing import ActorTestKit
>>> kit = ActorTestKit()
>>> probe = kit.probe("probe")            # an actor that records what it receives
>>> ref = kit.spawn(MyActor(), "mine")
>>> ref.tell(Ping(1), probe.ref)
>>> kit.run(until=1000)                   # virtual time: instant
>>> probe.expect(Pong)                    # the first recorded message, checked for type
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from structlog.testing import capture_logs

from yarnball.actors import Actor, ActorRef, Future, Kernel
from yarnball.actors._actor import _Tick

__all__ = ["ActorTestKit", "Probe", "capture_logs", "captured_events"]

M = TypeVar("M")


class Probe(Actor):
    """An actor that records every message it receives, with the time and the sender."""

    def __init__(self) -> None:
        self.received: list[tuple[float, Any, ActorRef | None]] = []

    def _handle(self, message: Any, sender: ActorRef | None) -> None:
        if type(message) is _Tick:
            message.fn()
            return
        self.received.append((self.kernel.now, message, sender))

    @property
    def messages(self) -> list[Any]:
        return [m for _, m, _ in self.received]

    def expect(self, message_type: type[M]) -> M:
        """Pop the oldest recorded message and check its type."""
        if not self.received:
            raise AssertionError(f"{self.id} received nothing; expected a {message_type.__name__}")
        _, message, _ = self.received.pop(0)
        if not isinstance(message, message_type):
            raise AssertionError(f"{self.id} expected a {message_type.__name__}, got {message!r}")
        return message

    def expect_nothing(self) -> None:
        if self.received:
            raise AssertionError(f"{self.id} expected nothing, got {self.messages!r}")


class ActorTestKit:
    """A kernel on the virtual clock plus conveniences for spawning, probing and running."""

    def __init__(self, *, latency_ms: float = 0) -> None:
        self.kernel = Kernel()
        self.kernel.default_latency = latency_ms

    def spawn(self, actor: Actor, actor_id: str | None = None) -> ActorRef:
        return self.kernel.spawn(actor, actor_id)

    def probe(self, actor_id: str = "probe") -> Probe:
        probe = Probe()
        self.kernel.spawn(probe, actor_id)
        return probe

    def run(self, until: float | None = None) -> float:
        return self.kernel.run(until)

    def ask(self, ref: ActorRef, message: Any, *, timeout: float | None = None) -> Any:
        """Ask and run the kernel until the reply arrives; return it (or raise what the handler raised)."""
        fut: Future[Any] = ref.ask(message, timeout=timeout)
        return self.kernel.run_until_complete(fut)


@contextmanager
def captured_events() -> Iterator[list[dict[str, Any]]]:
    """Capture yarnball's structured log records (dicts with ``event`` and fields) inside the block."""
    with capture_logs() as logs:
        yield logs
