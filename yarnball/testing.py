"""Helpers for users' own tests of actors and clusters (shipped in the package, like ``trio.testing``).

>>> from yarnball.testing import ActorTestKit
>>> kit = ActorTestKit()
>>> probe = kit.probe("probe")            # an actor that records what it receives
>>> ref = kit.spawn(MyActor(), "mine")
>>> ref.tell(Ping(1), probe.ref)
>>> kit.run(until=1000)                   # virtual time: instant
>>> probe.expect(Pong)                    # the first recorded message, checked for type

After a cluster run, :func:`assert_containers_conserved` checks that every container it allocated ended (completed,
killed, preempted or lost) and :func:`container_ledger` gives the counts. :func:`check_invariants` and
:func:`assert_invariants` check a run's event log (launcher/_invariants.py: containers end once, nodes stay within
capacity, applications finish once, refused requests change nothing); the test suite runs them on every run.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from structlog.testing import capture_logs

from yarnball.actors import Actor, ActorRef, Future, Kernel
from yarnball.actors._actor import _Tick
from yarnball.launcher._completed import output_applications
from yarnball.launcher._invariants import assert_invariants, check_invariants, read_event_log

__all__ = [
    "ActorTestKit",
    "ContainerLedger",
    "Probe",
    "assert_containers_conserved",
    "assert_invariants",
    "capture_logs",
    "captured_events",
    "check_invariants",
    "conservation_violations",
    "container_ledger",
    "read_event_log",
]

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
def captured_events() -> Iterator[list[MutableMapping[str, Any]]]:
    """Capture yarnball's structured log records (dicts with ``event`` and fields) inside the block."""
    with capture_logs() as logs:
        yield logs


# -- container conservation ----------------------------------------------------------------------------------------
_FINAL_APP_STATES = frozenset({"FINISHED", "FAILED", "KILLED"})
_SHOWN = 10  # violations listed one by one before the rest are counted


@dataclass(frozen=True)
class ContainerLedger:
    """The RM's books of a run's containers, AM containers included: how many were allocated (GUARANTEED by the
    scheduler, OPPORTUNISTIC by the RM's allocator or an NM's AMRMProxy) and how each ended. Conserved when
    ``allocated == ended`` and nothing is ``live``."""

    allocated: int
    completed: int
    killed: int
    preempted: int
    lost: int
    live: int  # allocated and not ended yet, as the RM counts them

    @property
    def ended(self) -> int:
        return self.completed + self.killed + self.preempted + self.lost


def container_ledger(cluster: Any) -> ContainerLedger:
    """The container counts of ``cluster`` (an embedded :class:`~yarnball.Cluster`) as its RM has them now."""
    rm = cluster.rm
    c = rm.counters
    opportunistic = rm.opportunistic.counters["opportunistic_allocated"] if rm.opportunistic is not None else 0
    return ContainerLedger(
        allocated=c["containers_allocated"] + opportunistic,
        completed=c["containers_completed"],
        killed=c["containers_killed"],
        preempted=c["containers_preempted"],
        lost=c["containers_lost"],
        live=len(rm.live),
    )


def conservation_violations(cluster: Any) -> list[str]:
    """What breaks container conservation in ``cluster`` after a run (empty when none): an application not finished
    (the check needs a run in which every one did), a container still live at the RM, in the opportunistic
    allocator's books or on a running NodeManager, or counts where allocated != completed + killed + preempted +
    lost. A failed node's NodeManager is not inspected: the RM reports its containers lost."""
    if getattr(cluster, "node_managers", None) is None:
        raise TypeError("conservation is checked on an embedded Cluster (the sharded backends keep their NMs on hosts)")
    rm = cluster.rm
    problems: list[str] = []
    apps = output_applications(cluster)  # (with those the RM removed, and those an RM restart without recovery lost)
    app_states = {app_id: app.state.value for app_id, app in apps.items()}
    for app_id, state in sorted(app_states.items(), key=lambda kv: str(kv[0])):
        if state not in _FINAL_APP_STATES:
            problems.append(f"application {app_id} is {state}: not every application finished")
    if len(apps) < len(cluster.masters):
        problems.append(f"{len(cluster.masters) - len(apps)} submitted applications never reached the RM")

    def app_of(cid: Any) -> str:
        app_id = cid.application_attempt_id.application_id
        return f"{app_id} ({app_states.get(app_id, 'unknown')})"

    live = sorted(rm.live, key=str)
    for cid in live[:_SHOWN]:
        problems.append(f"container {cid} of application {app_of(cid)} is still live at the RM")
    opportunistic = sorted(rm.opportunistic.containers, key=str) if rm.opportunistic is not None else []
    for cid in opportunistic[:_SHOWN]:
        problems.append(f"OPPORTUNISTIC container {cid} of application {app_of(cid)} is still in the RM's allocator")
    on_nodes = [
        (nm.id, entry)
        for nm in cluster.nodes
        if nm.ref.is_alive
        for entry in nm.containers.values()
    ]
    for nm_id, entry in on_nodes[:_SHOWN]:
        cid = entry.container.id
        problems.append(f"container {cid} of application {app_of(cid)} is still {entry.state.value} on {nm_id}")
    hidden = max(0, len(live) - _SHOWN) + max(0, len(opportunistic) - _SHOWN) + max(0, len(on_nodes) - _SHOWN)
    if hidden:
        problems.append(f"... and {hidden} more such containers")
    ledger = container_ledger(cluster)
    if ledger.allocated != ledger.ended + ledger.live:
        problems.append(
            f"{ledger.allocated} containers allocated but {ledger.ended} ended ({ledger.completed} completed, "
            f"{ledger.killed} killed, {ledger.preempted} preempted, {ledger.lost} lost) and {ledger.live} live"
        )
    return problems


def assert_containers_conserved(cluster: Any) -> ContainerLedger:
    """Check, after a run in which every application finished, that every container allocated ended completed,
    killed, preempted or lost, with nothing left running anywhere; raise AssertionError listing what does not.
    Returns the ledger."""
    problems = conservation_violations(cluster)
    if problems:
        raise AssertionError("containers not conserved:\n  " + "\n  ".join(problems))
    return container_ledger(cluster)
