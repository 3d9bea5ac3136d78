"""Message faults: drop, delay or duplicate messages of one type on one link, over a window of simulated time.

A :class:`MessageFaults` sits in front of the receiving actors' delivery (installed on the instance: ``_deliver``),
so a message is faulted where it arrives, after its link latency:

- *drop*: it never arrives;
- *delay*: it arrives ``delay_ms`` later (later messages of the link may overtake it);
- *duplicate*: it arrives, and a copy arrives ``delay_ms`` later (0: right after it).

Whether a rule faults a matching message is one draw in [0, 1) from a hash of the run's seed, the rule's index in the
schedule and the message's delivery event key (time, priority, origin, origin's sequence: the key every backend
gives that delivery), so a run is reproduced exactly by its seed, and a sharded run (launcher/_shardfaults.py)
faults the very messages the embedded run does, whichever host delivers them. What the senders and
receivers then do is their protocol's business: the allocate RPC's retries and response-id checks
(actors/_amrpc.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from yarnball._logs import get_logger

__all__ = ["MessageFaultRule", "MessageFaults", "role_of"]

log = get_logger(__name__)


def role_of(actor_id: str | None, rm_id: str = "rm") -> str:
    """The role of an actor id: ``rm``, ``nm`` (``nm-<host>``), ``am`` (``am-<name>-<n>``), else ``other``."""
    if actor_id is None:
        return "other"
    if actor_id == rm_id:
        return "rm"
    if actor_id.startswith("nm-"):
        return "nm"
    if actor_id.startswith("am-"):
        return "am"
    return "other"


@dataclass
class MessageFaultRule:
    index: int  # the entry's index in its schedule
    kind: str  # message_drop | message_delay | message_duplicate
    message: str  # the message type's name
    source: str  # sending role
    dest: str  # receiving role
    start_ms: float
    end_ms: float
    probability: float
    delay_ms: float
    seed: str  # what the draws hash besides the delivery key: the run's seed and the rule's index

    def draw(self, event: Any) -> float:
        """This rule's draw in [0, 1) for the delivery whose kernel event is ``event``."""
        t, priority, origin, seq = event[:4]
        text = f"{self.seed}:{float(t).hex()}:{priority}:{origin}:{seq}"
        digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big") / 2.0**64


class MessageFaults:
    """The message-fault rules of a run, and the delivery hook that applies them."""

    def __init__(self, kernel: Any, on_fault: Callable[[str], None], rm_id: str = "rm") -> None:
        self.kernel = kernel
        self.rules: list[MessageFaultRule] = []
        self.on_fault = on_fault  # called with the kind of every fault applied (the run's counts)
        self.rm_id = rm_id
        self._installed: set[str] = set()

    def add(self, rule: MessageFaultRule) -> None:
        self.rules.append(rule)

    def install(self, actor: Any) -> None:
        """Put the hook in front of ``actor``'s delivery (once per actor)."""
        if actor.id in self._installed:
            return
        self._installed.add(actor.id)
        original = actor._deliver  # the class's bound method
        role = role_of(actor.id, self.rm_id)

        def deliver(arg: tuple[Any, Any]) -> None:
            self._deliver(actor, role, original, arg)

        actor._deliver = deliver

    def _deliver(self, actor: Any, dest: str, original: Callable[[Any], None], arg: tuple[Any, Any]) -> None:
        message, sender = arg
        name = type(message).__name__
        now = self.kernel.now
        for rule in self.rules:
            if rule.message != name or rule.dest != dest or not rule.start_ms <= now < rule.end_ms:
                continue
            source_id = getattr(sender, "id", None)
            if role_of(source_id, self.rm_id) != rule.source:
                continue
            if rule.probability < 1.0 and rule.draw(self.kernel.event) >= rule.probability:
                continue
            self.on_fault(rule.kind)
            log.info(
                "fault_injected",
                kind=rule.kind,
                fault=rule.index,
                message=name,
                source=source_id,
                target=actor.id,
                delay_ms=rule.delay_ms,
            )
            if rule.kind == "message_drop":
                return
            if rule.kind == "message_delay":
                self.kernel.schedule(rule.delay_ms, original, arg, owner=actor.id)
                return
            original(arg)  # message_duplicate: the message, and its copy later
            self.kernel.schedule(rule.delay_ms, original, arg, owner=actor.id)
            return
        original(arg)
