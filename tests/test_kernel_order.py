"""Canonical event order: equal-time events are ordered by (origin actor, origin's own sequence), not globally."""

from __future__ import annotations

from typing import Any

import pytest

from yarnball.actors import NORMAL, Actor, Kernel, handler
from yarnball.errors import ActorError


class Ping:
    def __init__(self, text: str) -> None:
        self.text = text


class Recorder(Actor):
    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    @handler
    def on_ping(self, msg: Ping) -> None:
        self.seen.append(msg.text)


class Sender(Actor):
    def __init__(self, target: str, texts: list[str]) -> None:
        self.target = target
        self.texts = texts

    def on_start(self) -> None:
        for text in self.texts:
            self.kernel.lookup(self.target).tell(Ping(text), self.ref, delay=10)


def run_senders(order: list[str]) -> list[str]:
    kernel = Kernel()
    seen: list[str] = []
    kernel.spawn(Recorder(seen), "sink")
    texts = {"b": ["b1", "b2"], "a": ["a1", "a2"]}
    for name in order:
        kernel.spawn(Sender("sink", texts[name]), name)
    kernel.run()
    return seen


def test_equal_time_messages_are_ordered_by_sender_id_then_sender_order() -> None:
    """Messages due at one time arrive grouped by sender id (sorted), each sender's in the order it sent them."""
    assert run_senders(["b", "a"]) == ["a1", "a2", "b1", "b2"]


def test_order_does_not_depend_on_spawn_order() -> None:
    """Spawning the senders in another order gives the same delivery order (what lets shards agree)."""
    assert run_senders(["a", "b"]) == run_senders(["b", "a"])


def test_events_scheduled_outside_actors_stay_fifo() -> None:
    """Events scheduled by the driver (no actor running) at one time keep their scheduling order."""
    kernel = Kernel()
    seen: list[int] = []
    for i in (3, 1, 2):
        kernel.schedule(5, seen.append, i)
    kernel.run()
    assert seen == [3, 1, 2]


def test_pushed_event_with_explicit_key_sorts_among_local_ones() -> None:
    """An event pushed with an explicit (origin, sequence) key is ordered as if its origin had scheduled it here."""
    kernel = Kernel()
    seen: list[str] = []
    kernel.schedule(5, seen.append, "driver")  # origin ""
    kernel.push(5, NORMAL, "zz", 0, seen.append, "zz", "x")
    kernel.push(5, NORMAL, "aa", 7, seen.append, "aa", "x")
    kernel.run()
    assert seen == ["driver", "aa", "zz"]


def test_push_into_the_past_is_refused() -> None:
    """A late event (before the kernel's now) is an error naming its owner, never silently reordered."""
    kernel = Kernel()
    kernel.run(until=10)
    with pytest.raises(ActorError, match="'nm-1'"):
        kernel.push(5, NORMAL, "rm", 0, lambda _: None, None, "nm-1")


def test_next_key_consumes_the_origins_sequence() -> None:
    """next_key hands out the same (origin, sequence) that schedule would have used, and advances it."""
    kernel = Kernel()
    keys: list[Any] = []

    def inside(_: Any) -> None:
        keys.append(kernel.next_key())
        kernel.schedule(1, lambda _: None)
        keys.append(kernel.next_key())

    kernel.schedule(0, inside, owner="rm")
    kernel.run()
    assert keys == [("rm", 0), ("rm", 2)]
