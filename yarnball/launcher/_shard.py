"""A shard host: one kernel hosting many yarnball actors, one slice of a cluster split over several processes.

This module is plain Python (no Ray): the Ray backend wraps :class:`ShardHost` in a Ray actor, and tests drive
several hosts in one process. The shape is Akka's ShardRegion / Orleans' silo:

- **Placement**: the driver places NodeManagers and ApplicationMasters to balance the hosts
  (:class:`BalancedPlacement`; the ResourceManager on host 0, alone there with 3 or more hosts) and tells every host
  where each one is in its setup steps. Any other id goes by a stable hash (:func:`host_of`, CRC-32, never Python's
  salted ``hash()``).
- A message to an actor on another host goes through a :class:`RemoteRef`: it takes the sender's next canonical
  key ``(origin, sequence)`` from the kernel exactly as a local ``tell`` would, and waits in the outbox. At the end
  of a window the outbox is sorted canonically (deliver time, origin, sequence) and encoded with the codec, one
  batch per destination host. The receiving host queues each message under the same key, so every actor sees its
  events in the order one kernel would have given them (see ``yarnball.actors._kernel``).
- **Conservative synchronous windows**: a coordinator runs every host to the window end; every message between
  hosts is delivered at least the window length later, so nothing sent in a window is due inside it.
"""

from __future__ import annotations

import gc
import math
import zlib
from collections.abc import Iterable, Mapping
from functools import partial
from typing import Any

from yarnball._logs import get_logger
from yarnball.actors import NORMAL, ActorRef, Kernel
from yarnball.actors._actor import _dead_letter, _ReplyRef
from yarnball.actors._heartbeats import HeartbeatClock
from yarnball.actors._nodemanager import NodeManager, nm_actor_id
from yarnball.actors._resourcemanager import ResourceManager
from yarnball.errors import ActorError, ProtocolError, SimulationError
from yarnball.launcher._completed import CompletedApplications
from yarnball.launcher._memory import huge_page_arenas
from yarnball.policies.scheduler import create_scheduler
from yarnball.protocols import Configuration, decode_routed, encode_routed, keys
from yarnball.protocols._codec import Routing
from yarnball.protocols._messages import Message

__all__ = ["RM_ID", "BalancedPlacement", "RemoteRef", "ShardHost", "decode_envelope", "encode_envelope", "host_of"]

log = get_logger(__name__)

RM_ID = "rm"


def host_of(actor_id: str, hosts: int, placement: Mapping[str, int] | None = None) -> int:
    """The host that runs ``actor_id``: the RM on host 0, an id listed in ``placement`` there, anything else by
    CRC-32 of its id (stable in every process)."""
    if actor_id == RM_ID or hosts <= 1:
        return 0
    if placement:
        pinned = placement.get(actor_id)
        if pinned is not None:
            return pinned % hosts
    return zlib.crc32(actor_id.encode("utf-8")) % hosts


class BalancedPlacement:
    """Where the driver places each NodeManager and ApplicationMaster, so that every host has a like share of the
    work of a window: deterministic (it depends only on the order in which nodes and applications are added).

    NMs and AMs are placed separately, each on the host furthest below its target share of that kind (ties: the
    lowest index), so every host gets its share of NMs and of AMs whatever order they come in. With 3 or more hosts
    the ResourceManager has host 0 to itself (it handles every heartbeat of the cluster: as much as a host's worth
    of NMs and AMs at the sizes measured in bench/RESULTS.md); with 2 hosts host 0 takes ``rm_host_share`` of the
    NMs and AMs besides the RM, the other host the rest.
    """

    def __init__(self, hosts: int, rm_host_share: float = 0.25) -> None:
        if not 0.0 <= rm_host_share <= 1.0:
            raise SimulationError(
                f"{keys.RAY_RM_HOST_SHARE}={rm_host_share}: expected a share of the NMs and AMs between 0 and 1"
            )
        self.hosts = hosts
        if hosts <= 1:
            self.targets = [1.0]
        elif hosts == 2:
            self.targets = [rm_host_share, 1.0 - rm_host_share]
        else:
            self.targets = [0.0] + [1.0 / (hosts - 1)] * (hosts - 1)
        self.counts: dict[str, list[int]] = {}

    def place(self, kind: str) -> int:
        """The host of the next actor of ``kind`` ("nm" or "am")."""
        counts = self.counts.setdefault(kind, [0] * self.hosts)
        best, best_load = 0, math.inf
        for index, target in enumerate(self.targets):
            if target <= 0:
                continue
            load = (counts[index] + 1) / target
            if load < best_load:
                best, best_load = index, load
        counts[best] += 1
        return best


# One outgoing message: (deliver time, origin, origin's sequence, target id, sender id or None, message).
Outgoing = tuple[float, str, int, str, "str | None", Message]


def encode_envelope(items: list[Outgoing]) -> bytes:
    """Encode a batch for one host (sorting ``items`` canonically in place): one routed codec frame, the messages
    and their routing keys as columns."""
    # Canonical keys (time, origin, sequence) are unique, so plain tuple order never compares the messages; the
    # outbox is nearly sorted already (sends happen in time order), which Python's sort finishes in one pass.
    items.sort()
    t, origin, seq, dst, sender, messages = zip(*items, strict=True) if items else ((),) * 6
    return encode_routed(messages, (t, origin, seq, dst, sender))  # type: ignore[arg-type]


def decode_envelope(data: bytes) -> list[Outgoing]:
    """Decode :func:`encode_envelope`'s frame into routed messages; a bad frame raises ProtocolError."""
    messages, (t, origin, seq, dst, sender) = _decode(data, None)
    return list(zip(t, origin, seq, dst, sender, messages, strict=True))


def _decode(data: bytes, rejected: list[tuple[int, ProtocolError]] | None) -> tuple[list[Message], Routing]:
    # Decoding builds thousands of small acyclic objects; with the collector on, its generation-0 passes over a
    # large live heap cost about 3/4 of the decode (measured: 22 vs 6 us per heartbeat), so it is paused here.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return decode_routed(data, rejected)
    except ProtocolError as exc:
        raise ProtocolError(f"Cannot decode a shard batch envelope: {exc}") from exc
    finally:
        if collecting:
            gc.enable()


def _tell(rm: ResourceManager, message: Message) -> None:
    """``rm.ref.tell(message)``, its ref read when the event runs."""
    rm.ref.tell(message)


def _undeliverable(dst: str, arg: tuple[Any, ActorRef | None]) -> None:
    """A message for an actor this host does not run (any more): a dead letter, as on one kernel."""
    _dead_letter((dst, arg[0], arg[1]))


class RemoteRef(ActorRef):
    """The address of an actor on another host: ``tell`` puts the message in the host's outbox."""

    __slots__ = ("_dst_host", "_host")

    def __init__(self, actor_id: str, kernel: Kernel, host: ShardHost) -> None:
        super().__init__(actor_id, kernel, None)
        self._host = host
        self._dst_host = host_of(actor_id, host.hosts, host.placement)  # placed once, not per message

    def __repr__(self) -> str:
        return f"RemoteRef({self.id!r}, host={self._dst_host})"

    @property
    def is_alive(self) -> bool:
        return True  # as far as this host can tell; a dead letter is counted where the actor should be

    def tell(self, message: Any, sender: ActorRef | None = None, *, delay: float = 0) -> None:
        # ShardHost.send, inlined: this runs once per message leaving the host (~100 per 10 ms window at 10,000
        # busy nodes), and its call and keyword defaults cost about as much as the rest.
        host = self._host
        if host.on_send is not None or isinstance(sender, _ReplyRef):
            host.send(self.id, message, sender, delay, self._dst_host)
            return
        kernel = self.kernel
        dst = self.id
        sender_id = sender.id if sender is not None else None
        t = kernel.now + kernel.latency(sender_id, dst) + delay
        if t < host.window_end:
            host.send(dst, message, sender, delay, self._dst_host)  # raises the error naming the window
            return
        origin, seq = kernel.next_key()
        box = host.outbox.get(self._dst_host)
        if box is None:
            box = host.outbox[self._dst_host] = []
        box.append((t, origin, seq, dst, sender_id, message))

    def ask(self, message: Any, *, timeout: float | None = None, sender: ActorRef | None = None) -> Any:
        raise ActorError(
            f"ask to {self.id} crosses shard hosts, which the Ray backend does not support: "
            "tell with a sender and handle the reply, or place both actors on one host"
        )


class ShardHost:
    """One kernel with the actors that :func:`host_of` places on host ``index`` of ``hosts``.

    Host 0 also builds the scheduler and the ResourceManager. Setup steps carry the driver's sequence
    numbers (``dseq``) so that their events sort as they would on one kernel.
    """

    def __init__(
        self,
        index: int,
        hosts: int,
        conf: Configuration,
        *,
        cluster_timestamp: int,
        latency_ms: float,
        expected_apps: int = 0,
        placement: Mapping[str, int] | None = None,
    ) -> None:
        huge_page_arenas(conf)  # before the host's actors exist (launcher/_memory.py)
        self.index = index
        self.hosts = hosts
        self.placement = dict(placement or {})
        self.conf = conf
        self.latency_ms = latency_ms
        self.kernel = Kernel()
        self.kernel.default_latency = latency_ms
        self.kernel.remote = self._remote
        # NM heartbeats at the embedded Cluster's canonical priorities (a latency is always modelled: no skipping).
        self.heartbeats = HeartbeatClock(self.kernel, skip=False)
        self._refs: dict[str, RemoteRef] = {}
        self.outbox: dict[int, list[Outgoing]] = {}
        self.window_end = 0.0
        self.messages_out = 0
        self.messages_in = 0
        self.done_at: float | None = None
        self.stop_key: tuple[Any, ...] | None = None
        self.expected_apps = expected_apps
        self.rm: ResourceManager | None = None
        self.completed: CompletedApplications | None = None
        self.recorder: Any = None
        self.faults: Any = None  # the FaultInjector of the faults this host applies (launcher/_shardfaults.py)
        self.last_event_time = 0.0
        #: Live mode (wall clock, no windows): called after each outgoing message so the host can flush soon.
        self.on_send: Any = None
        self.live = False
        if index == 0:
            scheduler = create_scheduler(conf, cluster_timestamp=cluster_timestamp)
            self.rm = ResourceManager(conf, scheduler, cluster_timestamp=cluster_timestamp)
            self.rm.use_heartbeat_clock(self.heartbeats)
            self.rm.done_listeners.append(self._on_app_done)
            self.completed = CompletedApplications(self.rm)  # what the outputs keep of removed applications

    # -- setup --------------------------------------------------------------------------------------------------
    def setup(self, steps: Iterable[tuple[Any, ...]]) -> None:
        """Apply the driver's setup steps; each host acts only on the actors it hosts.

        Steps: ``("rm", dseq)``, ``("nm", dseq, NodeSpec, start_delay_ms[, host])``,
        ``("am", dseq, actor_id, am[, host])`` (``host``: the driver's placement, else :func:`host_of`),
        ``("fail", dseq, host, at_ms)``, ``("refresh", dseq, RefreshQueuesRequest, at_ms)``, ``("expect", n)``,
        ``("fault", dseq, Fault, seed)`` (launcher/_shardfaults.py: applied to the actors hosted here),
        ``("skip", dseq)`` (a driver-side event such as a progress callback: it takes a sequence number
        on one kernel too).
        """
        kernel = self.kernel
        for step in steps:
            kind = step[0]
            if kind == "expect":
                self.expected_apps = step[1]
                continue
            kernel.set_sequence("", step[1])
            if kind == "rm" and self.rm is not None:
                kernel.spawn(self.rm, RM_ID)
            elif kind == "nm":
                _, _, spec, delay, *placed = step
                actor_id = nm_actor_id(spec.hostname)
                self._place(actor_id, placed)
                self.heartbeats.define(spec.hostname)  # placed here or not: every host agrees on the node index
                if host_of(actor_id, self.hosts, self.placement) == self.index:
                    rm_ref = kernel.lookup(RM_ID)
                    nm = NodeManager(
                        spec.hostname,
                        spec.rack,
                        spec.resource,
                        rm_ref,
                        start_delay_ms=delay,
                        labels=spec.labels,
                        conf=self.conf,
                        heartbeats=self.heartbeats,
                    )
                    kernel.spawn(nm, actor_id)
            elif kind == "am":
                _, _, actor_id, am, *placed = step
                self._place(actor_id, placed)
                if host_of(actor_id, self.hosts, self.placement) == self.index:
                    kernel.spawn(am, actor_id)
            elif kind == "fail":
                _, _, host, at_ms = step
                actor_id = nm_actor_id(host)
                failing = kernel.actors.get(actor_id)
                if failing is not None:
                    kernel.schedule(max(0.0, at_ms - kernel.now), lambda nm: nm.fail(), failing, owner=actor_id)
            elif kind == "fault":
                _, _, fault, seed = step
                self._fault(fault, seed)
            elif kind == "refresh":
                _, _, request, at_ms = step
                if self.rm is not None:  # Cluster.refresh_queues: told by the RM's host, ordered as the RM's own
                    kernel.schedule(max(0.0, at_ms - kernel.now), partial(_tell, self.rm), request, owner=RM_ID)
            elif kind != "skip" and kind != "rm":
                raise SimulationError(f"unknown setup step {kind!r} for shard host {self.index}")

    def _fault(self, fault: Any, seed: int) -> None:
        """One fault of a schedule, for the actors hosted here (launcher/_shardfaults.py)."""
        from yarnball.launcher._faultinjector import FaultInjector
        from yarnball.launcher._shardfaults import HostActors

        if self.faults is None:
            self.faults = FaultInjector(HostActors(self, seed))
        self.faults.add([fault])
        if self.faults.needs_every_event:
            self.faults.cluster.every_event()

    def _place(self, actor_id: str, placed: list[int]) -> None:
        """Record the driver's host for ``actor_id`` (every host records it, to route messages to it); an explicit
        placement given to the cluster wins."""
        if placed and actor_id not in self.placement:
            self.placement[actor_id] = placed[0]
            self._refs.pop(actor_id, None)

    def _on_app_done(self, app: Any) -> None:
        assert self.rm is not None
        if self.expected_apps and self.rm.apps_done >= self.expected_apps and self.done_at is None:
            self.done_at = self.kernel.now
            event = self.kernel.event
            self.stop_key = tuple(event[:4]) if event is not None else None
            self.kernel.stop()

    # -- routing ------------------------------------------------------------------------------------------------
    def _remote(self, actor_id: str) -> RemoteRef | None:
        ref = self._refs.get(actor_id)  # (an id placed here is never cached: _place drops a moved one)
        if ref is not None:
            return ref
        if host_of(actor_id, self.hosts, self.placement) == self.index:
            return None
        ref = self._refs[actor_id] = RemoteRef(actor_id, self.kernel, self)
        return ref

    def send(self, dst: str, message: Any, sender: ActorRef | None, delay: float, dst_host: int | None = None) -> None:
        """Queue ``message`` for the host of ``dst`` (``dst_host`` if the caller knows it; called by
        :class:`RemoteRef`)."""
        if isinstance(sender, _ReplyRef):
            raise ActorError(f"a reply to an ask cannot cross shard hosts (to {dst}); use tell with a sender")
        kernel = self.kernel
        sender_id = sender.id if sender is not None else None
        t = kernel.now + kernel.latency(sender_id, dst) + delay
        if t < self.window_end:
            raise SimulationError(
                f"message {type(message).__name__} from {sender_id} to {dst} is due at {t} ms, inside the current "
                f"window (ends {self.window_end} ms): every link between shard hosts needs a latency of at least "
                "the window length"
            )
        origin, seq = kernel.next_key()
        if dst_host is None:
            dst_host = host_of(dst, self.hosts, self.placement)
        box = self.outbox.get(dst_host)
        if box is None:
            box = self.outbox[dst_host] = []
        box.append((t, origin, seq, dst, sender_id, message))
        if self.on_send is not None:
            self.on_send()

    def deliver(self, batches: Iterable[bytes]) -> None:
        """Queue every message of the inbound batches under its canonical key."""
        collecting = gc.isenabled()
        gc.disable()  # thousands of small acyclic heap entries: see decode_envelope
        try:
            self._deliver(batches)
        finally:
            if collecting:
                gc.enable()

    def _deliver(self, batches: Iterable[bytes]) -> None:
        kernel = self.kernel
        actors = kernel.actors
        lookup = kernel.lookup
        live = self.live
        senders: dict[str | None, ActorRef | None] = {None: None}  # one ref per sender id and batch
        targets: dict[str, Any] = {}  # bound delivery method per target id
        count = 0
        for data in batches:
            rejected: list[tuple[int, ProtocolError]] = []
            messages, (ts, origins, seqs, dsts, sender_ids) = _decode(data, rejected)
            for index, error in rejected:
                # A malformed message is refused alone (Hadoop's RPC layer drops a bad call, not the connection);
                # the other messages of the batch are delivered and the host keeps running.
                log.error("shard_message_rejected", host=self.index, item=index, error=str(error))
            if live:  # hosts' wall clocks are not in step: a message is never due before "now"
                now = kernel.now
                ts = [t if t >= now else now for t in ts]
            # Resolve each distinct sender and target once per batch, then build the heap entries in one
            # comprehension (no per-message method calls): most of a batch's cost after decoding.
            for sender_id in sender_ids:
                if sender_id not in senders:
                    senders[sender_id] = lookup(sender_id)  # type: ignore[arg-type]
            for dst in dsts:
                if dst not in targets:
                    actor = actors.get(dst)
                    targets[dst] = actor._deliver if actor is not None else partial(_undeliverable, dst)
            entries = [
                (t, NORMAL, origin, seq, targets[dst], (message, senders[sender_id]), dst)
                for t, origin, seq, dst, sender_id, message in zip(ts, origins, seqs, dsts, sender_ids, messages)
            ]
            kernel.push_many(entries)
            count += len(entries)
        self.messages_in += count

    # -- running ------------------------------------------------------------------------------------------------
    def run_window(
        self, end: float | None, inclusive: bool, inbound: Iterable[bytes] = ()
    ) -> tuple[dict[int, bytes], float | None, float | None, float | None]:
        """Deliver ``inbound``, run the kernel to ``end`` (exclusive unless ``inclusive``; None: until idle) and
        return (encoded batches by destination host, time of the next queued event, done time or None, earliest
        deliver time among the batches)."""
        self.deliver(inbound)
        kernel = self.kernel
        if self.done_at is None:
            # Any message due before window_end would be due inside the window (for an inclusive window: at or
            # before its end).
            self.window_end = math.inf if end is None else (math.nextafter(end, math.inf) if inclusive else end)
            until = end if (end is None or inclusive) else math.nextafter(end, -math.inf)
            before = kernel.events_processed
            kernel.run(until=until)
            if kernel.events_processed != before:
                self.last_event_time = kernel.last_event_time
        out, first = self._encode_outbox()
        return out, kernel.peek(), self.done_at, first

    def take_outbox(self) -> dict[int, bytes]:
        """Encode and empty the outbox, one canonical batch per destination host (live mode)."""
        return self._encode_outbox()[0]

    def _encode_outbox(self) -> tuple[dict[int, bytes], float | None]:
        out: dict[int, bytes] = {}
        first: float | None = None
        collecting = gc.isenabled()
        gc.disable()  # encoding builds many small objects too; see decode_envelope
        try:
            for dst_host in sorted(self.outbox):
                items = self.outbox[dst_host]
                if items:
                    self.messages_out += len(items)
                    out[dst_host] = encode_envelope(items)  # sorts canonically: items[0] is the earliest
                    first = items[0][0] if first is None else min(first, items[0][0])
        finally:
            if collecting:
                gc.enable()
        self.outbox = {}
        return out, first

    def set_now(self, now: float) -> None:
        """Move the kernel's clock to the run's end (the coordinator's notion of "now")."""
        if self.done_at is None and now >= self.kernel.now:
            self.kernel.now = now
