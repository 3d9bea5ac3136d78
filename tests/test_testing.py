"""yarnball.testing: the harness users get for their own actor tests."""

from __future__ import annotations

import msgspec
import pytest

from yarnball.actors import Actor, handler
from yarnball.testing import ActorTestKit, captured_events


class Ping(msgspec.Struct, frozen=True):
    n: int


class Echo(Actor):
    @handler
    def on_ping(self, msg: Ping) -> int:
        assert self.sender is not None
        self.sender.tell(Ping(msg.n + 1), self.ref)
        return msg.n


def test_probe_records_replies_with_time() -> None:
    """A probe records what it receives, when, and from whom."""
    kit = ActorTestKit(latency_ms=5)
    probe = kit.probe()
    echo = kit.spawn(Echo(), "echo")
    echo.tell(Ping(1), probe.ref)
    kit.run()
    assert probe.received[0][0] == 10
    assert probe.received[0][2] == echo
    assert probe.expect(Ping) == Ping(2)
    probe.expect_nothing()


def test_probe_expect_fails_on_wrong_type() -> None:
    """expect() raises AssertionError naming the expected type."""
    kit = ActorTestKit()
    probe = kit.probe()
    probe.ref.tell("text")
    kit.run()
    with pytest.raises(AssertionError, match="expected a Ping"):
        probe.expect(Ping)


def test_kit_ask_returns_reply() -> None:
    """ActorTestKit.ask runs the kernel until the reply; an explicit reply to the sender comes before the return."""
    kit = ActorTestKit()
    assert kit.ask(kit.spawn(Echo()), Ping(7)) == Ping(8)


def test_captured_events_sees_dead_letters() -> None:
    """captured_events collects the structured records."""
    kit = ActorTestKit()
    with captured_events() as events:
        kit.kernel.lookup("nobody").tell(Ping(1))
        kit.run()
    assert [e["event"] for e in events] == ["dead_letter"]
