"""Addresses: :class:`ActorRef` (``tell``, ``ask``) and the one-shot reply address of an ``ask``.

Below the kernel (which hands out refs in ``Kernel.lookup``) and the actors (actors/_actor.py): a ref reaches its
actor only through the ``_deliver`` it was given, and a ref to no actor turns its messages into dead letters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from yarnball._logs import get_logger
from yarnball.actors._future import Future, Ms, current_kernel
from yarnball.errors import DeadLetterError
from yarnball.errors import TimeoutError as AskTimeoutError

if TYPE_CHECKING:
    from yarnball.actors._actor import Actor
    from yarnball.actors._kernel import Kernel

__all__ = ["ActorRef"]

log = get_logger(__name__)


@mypyc_attr(allow_interpreted_subclasses=True)
class ActorRef:
    """The address of an actor. ``tell`` never blocks; ``ask`` returns a future of the reply."""

    __slots__ = ("actor", "id", "kernel")

    def __init__(self, actor_id: str, kernel: Kernel, actor: Actor | None) -> None:
        self.id = actor_id
        self.kernel = kernel
        #: The actor behind this address when it is hosted by this address's kernel and running, else None (an
        #: actor that stopped, one on another host, an ``ask``'s reply): what delivery in place of an event needs
        #: (actors/_shortcuts).
        self.actor = actor

    def __repr__(self) -> str:
        return f"ActorRef({self.id!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ActorRef) and other.id == self.id and other.kernel is self.kernel

    def __hash__(self) -> int:
        return hash(self.id)

    @property
    def is_alive(self) -> bool:
        return self.actor is not None and not self.actor.is_stopped

    def detach(self) -> None:
        """The actor stopped: its messages become dead letters from now on."""
        self.actor = None

    def tell(self, message: Any, sender: ActorRef | None = None, *, delay: Ms = 0) -> None:
        """Deliver ``message`` after the link's latency (plus ``delay`` ms)."""
        actor = self.actor
        if actor is None:
            kernel = self.kernel
            latency = kernel.latency(sender.id if sender is not None else None, self.id) + delay
            kernel.schedule(latency, _dead_letter, (self.id, message, sender), owner=self.id)
            return
        self.kernel.send(actor.delivery_entry, (message, sender), self.id, sender, delay)

    def ask(self, message: Any, *, timeout: Ms | None = None, sender: ActorRef | None = None) -> Future[Any]:
        """Send ``message`` and return a future resolved by the handler's return value.

        ``timeout`` is in ms of the kernel's clock; on expiry the future fails with
        :class:`yarnball.errors.TimeoutError`.
        """
        kernel = self.kernel
        fut: Future[Any] = Future(kernel)
        self.tell(message, _ReplyRef(kernel, fut, sender))
        if timeout is not None:

            def expire(_: Any) -> None:
                fut.set_exception(
                    AskTimeoutError(f"no reply from {self.id} to {type(message).__name__} within {timeout} ms")
                )

            kernel.schedule(timeout, expire)
        return fut

    def stop(self) -> None:
        if self.actor is not None:
            self.actor.stop()


class _ReplyRef(ActorRef):
    """A one-shot address that resolves an ``ask`` future; it stands in as the sender of the asked message."""

    __slots__ = ("_asker", "_future")

    def __init__(self, kernel: Kernel, future: Future[Any], asker: ActorRef | None) -> None:
        super().__init__(asker.id if asker is not None else "<ask>", kernel, None)
        self._future = future
        self._asker = asker

    def tell(self, message: Any, sender: ActorRef | None = None, *, delay: Ms = 0) -> None:
        latency = self.kernel.latency(sender.id if sender is not None else None, self.id) + delay
        self.kernel.schedule(latency, _resolve, (self._future, message, None))

    def fail(self, exc: BaseException, sender: ActorRef | None) -> None:
        latency = self.kernel.latency(sender.id if sender is not None else None, self.id)
        self.kernel.schedule(latency, _resolve, (self._future, None, exc))


def _resolve(arg: tuple[Future[Any], Any, BaseException | None]) -> None:
    fut, value, exc = arg
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(value)


def _dead_letter(arg: tuple[str, Any, ActorRef | None]) -> None:
    target, message, sender = arg
    kernel = sender.kernel if sender is not None else current_kernel.get()
    if kernel is not None:
        kernel.dead_letters += 1
    log.warning(
        "dead_letter",
        target=target,
        message_type=type(message).__name__,
        sender=sender.id if sender is not None else None,
    )
    if isinstance(sender, _ReplyRef):
        sender.fail(DeadLetterError(f"{target} is not running; {type(message).__name__} was not delivered"), None)
