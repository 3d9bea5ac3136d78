"""Actors: an address, a mailbox processed one message at a time, typed handlers, timers and supervision.

Handlers are methods marked with :func:`handler`; the message type is taken from the decorator's arguments or from
the annotation of the handler's message parameter. A handler may be ``def`` or ``async def``; an ``async`` handler
may await ``self.sleep(ms)``, ``ref.ask(...)`` or any kernel :class:`~yarnball.actors.Future`, and the actor
processes no other message until it returns (Orleans' non-reentrant turns). Long-running logic that must not block
the mailbox (an ApplicationMaster's main loop) runs in a process started with :meth:`Actor.start_process`.

``tell`` is the primitive; ``ask`` is sugar over it: the message travels with a one-shot reply address as its
sender, and whatever the handler returns (or raises) resolves the asker's future.
"""

from __future__ import annotations

import inspect
import typing
from collections import deque
from collections.abc import Callable, Coroutine
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, overload

from yarnball._logs import get_logger
from yarnball.actors._failures import record_failure as _record_failure
from yarnball.actors._kernel import URGENT, Future, Kernel, Task, TimerHandle
from yarnball.actors._ref import ActorRef, _dead_letter, _ReplyRef
from yarnball.errors import ActorError

__all__ = ["PLAIN_DELIVERY", "Actor", "ActorRef", "SupervisionPolicy", "handler"]

log = get_logger(__name__)

SupervisionPolicy = Literal["resume", "restart", "stop"]

_HANDLER_ATTR = "__yarnball_handles__"


_F = TypeVar("_F", bound=Callable[..., Any])


@overload
def handler(*types: type) -> Callable[[_F], _F]: ...


@overload
def handler(fn: _F, /) -> _F: ...


def handler(*types: Any) -> Any:
    """Mark a method as the handler of one or more message types.

    ``@handler`` alone takes the type(s) from the annotation of the message parameter (a union means several);
    ``@handler(A, B)`` names them explicitly. Either way the method keeps its own signature for type checkers.
    """
    if len(types) == 1 and callable(types[0]) and not isinstance(types[0], type):
        fn = types[0]
        setattr(fn, _HANDLER_ATTR, ())
        return fn

    def mark(fn: _F) -> _F:
        setattr(fn, _HANDLER_ATTR, types)
        return fn

    return mark


def _annotated_types(cls: type, fn: Callable[..., Any]) -> tuple[type, ...]:
    params = list(inspect.signature(fn).parameters.values())
    if len(params) < 2:
        raise ActorError(f"handler {cls.__name__}.{fn.__name__} must take the message as its first argument")
    module = inspect.getmodule(fn)
    hints = typing.get_type_hints(fn, globalns=vars(module) if module else None)
    ann = hints.get(params[1].name)
    if ann is None:
        raise ActorError(f"handler {cls.__name__}.{fn.__name__} needs @handler(Type) or a type annotation")
    args = typing.get_args(ann)
    return tuple(a for a in args if isinstance(a, type)) if args else (ann,)


_PROCESS = object()  # stands for a background process in supervision and logs


class _Tick:
    """A timer firing, delivered through the mailbox so it never interleaves with a running handler."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn


class Actor:
    """Base class of every actor. Subclass it, mark handlers with :func:`handler`, and ``kernel.spawn`` it.

    Runtime state lives in slots so an idle actor costs little beyond the user's own attributes.
    """

    __slots__ = (
        "__dict__",
        "_busy",
        "_log",
        "_mailbox",
        "_restarts",
        "_sender",
        "_stopped",
        "_timers",
        "is_free",
        "kernel",
        "ref",
    )

    #: What happens when a handler raises: keep going ("resume", the default), "restart" (on_restart, then
    #: on_start again) or "stop".
    supervision: ClassVar[SupervisionPolicy] = "resume"
    #: Restarts allowed before the actor is stopped, under the "restart" policy.
    max_restarts: ClassVar[int] = 10

    _handlers: ClassVar[dict[type, Callable[..., Any]]] = {}
    #: Whether the class replaces ``Actor._deliver`` (it sees every message and timer firing): set per class.
    intercepts_delivery: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        table: dict[type, Callable[..., Any]] = {}
        for klass in reversed(cls.__mro__):
            for name, fn in vars(klass).items():
                types = getattr(fn, _HANDLER_ATTR, None)
                if types is None:
                    continue
                for t in types or _annotated_types(klass, fn):
                    table[t] = fn
                del name
        cls._handlers = table
        cls.intercepts_delivery = cls._deliver is not Actor._deliver

    # -- identity and lifecycle --------------------------------------------------------------------------------
    def spawn_on(self, kernel: Kernel, actor_id: str) -> ActorRef:
        """Register on ``kernel`` under ``actor_id`` and schedule ``on_start`` (what ``kernel.spawn`` does)."""
        return _spawn(kernel, self, actor_id)

    def _attach(self, kernel: Kernel, actor_id: str) -> ActorRef:
        self.kernel = kernel
        self.ref = ActorRef(actor_id, kernel, self)
        self._mailbox: deque[tuple[Any, ActorRef | None]] | None = None
        self._busy = False
        self._stopped = False
        #: Running and not inside a handler: a message delivered now is handled at once (kept with the two flags
        #: above; read by the exact shortcuts, actors/_shortcuts, before a delivery in place of an event).
        self.is_free = True
        self._sender: ActorRef | None = None
        self._timers: list[TimerHandle] | None = None
        self._log: Any = None
        self._restarts = 0
        return self.ref

    @property
    def id(self) -> str:
        return self.ref.id

    @property
    def now(self) -> float:
        """The kernel's current time in ms."""
        return self.kernel.now

    if TYPE_CHECKING:

        @property
        def sender(self) -> ActorRef | None:
            """The sender of the message being handled (valid in a handler; captured per coroutine for async
            ones)."""

    else:  # (a property read by the C getter: no Python call on the heartbeat path)
        sender = property(
            attrgetter("_sender"),
            doc="The sender of the message being handled (valid in a handler; captured per coroutine for async "
            "ones).",
        )

    @property
    def log(self) -> Any:
        """A structlog logger bound with this actor's id (created on first use)."""
        if self._log is None:
            self._log = get_logger(type(self).__module__).bind(actor=self.ref.id)
        return self._log

    def reply(self, message: Any) -> None:
        """Answer the sender of the message being handled (an actor, or the future of an ``ask``)."""
        sender = self._sender
        if sender is not None:
            sender.tell(message, self.ref)

    def on_start(self) -> None:
        """Called once when the actor is spawned, before any message (as a kernel event at spawn time)."""

    def on_stop(self) -> None:
        """Called once when the actor stops."""

    def on_restart(self, error: BaseException) -> None:
        """Called before ``on_start`` when the "restart" policy restarts the actor after ``error``."""

    def stop(self) -> None:
        """Stop now: cancel timers, call ``on_stop``; queued and later messages become dead letters."""
        if self._stopped:
            return
        self._stopped = True
        self.is_free = False
        for t in self._timers or ():
            t.cancel()
        self._timers = None
        try:
            self.on_stop()
        except Exception as exc:
            _record_failure(self.kernel, self.ref.id, "on_stop", exc)
            log.exception("on_stop_failed", actor=self.ref.id)
        mailbox, self._mailbox = self._mailbox, None
        for message, sender in mailbox or ():
            _dead_letter((self.ref.id, message, sender))
        if self.kernel.actors.get(self.ref.id) is self:
            del self.kernel.actors[self.ref.id]
        self.ref.detach()

    # -- timers ------------------------------------------------------------------------------------------------
    def every(self, interval: float, what: Any, *, start: float | None = None) -> TimerHandle:
        """Every ``interval`` ms (first after ``start`` ms, default ``interval``): tell self ``what``, or call it
        if it is a callable. The firing goes through the mailbox, so it never interleaves with a handler."""
        if interval <= 0:
            raise ValueError(f"timer interval must be > 0, got {interval}")
        handle = TimerHandle()
        item = _Tick(what) if callable(what) and not isinstance(what, type) else what
        kernel = self.kernel

        def fire(_: Any) -> None:
            if handle.cancelled or self._stopped:
                return
            self._deliver((item, self.ref))
            kernel.schedule(interval, fire)

        kernel.schedule(interval if start is None else start, fire)
        self._track(handle)
        return handle

    def after(self, delay: float, what: Any) -> TimerHandle:
        """Once, after ``delay`` ms: tell self ``what``, or call it if it is a callable (through the mailbox)."""
        handle = TimerHandle()
        item = _Tick(what) if callable(what) and not isinstance(what, type) else what

        def fire(_: Any) -> None:
            if not handle.cancelled and not self._stopped:
                self._deliver((item, self.ref))

        self.kernel.schedule(delay, fire)
        self._track(handle)
        return handle

    def after_call(self, delay: float, fn: Callable[[Any], Any], arg: Any) -> TimerHandle:
        """``after(delay, lambda: fn(arg))`` with the same event key and behaviour, for timers set per container:
        one small object per timer (no closure, tick or tracking: whether the actor stopped is checked when it
        fires, which is what cancelling on stop achieves)."""
        timer = _Once(self, fn, arg)
        self.kernel.schedule(delay, _fire_once, timer)
        if self.supervision == "restart":
            self._track(timer)  # a restart cancels the timers set before it
        return timer

    def _track(self, handle: TimerHandle) -> None:
        if self._timers is None:
            self._timers = [handle]
        else:
            # Drop cancelled handles now and then so one-shot timers do not accumulate.
            if len(self._timers) > 64:
                self._timers = [t for t in self._timers if not t.cancelled]
            self._timers.append(handle)

    def sleep(self, delay: float) -> Future[None]:
        """``await self.sleep(ms)`` inside an async handler or process."""
        return self.kernel.sleep(delay)

    def start_process(self, coro: Coroutine[Any, Any, Any]) -> Task[Any]:
        """Run ``coro`` alongside the mailbox (not one message at a time): an AM's main loop, a poller.

        A failure is handled by the actor's supervision policy like a failing handler.
        """
        task: Task[Any] = Task(self.kernel, coro)
        task.add_done_callback(lambda t: self._task_done(t, _PROCESS, None))
        return task

    # -- delivery in place of an event (for the exact shortcuts, actors/_shortcuts) ---------------------------
    if TYPE_CHECKING:

        @property
        def delivery_entry(self) -> Callable[[tuple[Any, ActorRef | None]], None]:
            """What a delivery event of this actor calls with ``(message, sender)``."""

        @property
        def is_stopped(self) -> bool:
            """Whether the actor has stopped."""

    else:  # (properties read by the C getter: no Python call per message)
        delivery_entry = property(
            attrgetter("_deliver"),
            doc="What a delivery event of this actor calls with ``(message, sender)``: its ``_deliver``, or "
            "whatever intercepts it on the instance (message faults, an RM restart's queue, a test's spy).",
        )
        is_stopped = property(attrgetter("_stopped"), doc="Whether the actor has stopped.")

    def is_idle(self) -> bool:
        """Free, with nothing waiting in the mailbox."""
        return not self._stopped and not self._busy and not self._mailbox

    def delivers_plainly(self) -> bool:
        """Whether deliveries run ``Actor._deliver`` itself: neither overridden by the class nor intercepted on the
        instance."""
        return getattr(self._deliver, "__func__", None) is Actor._deliver

    def deliver_now(self, message: Any, sender: ActorRef | None) -> None:
        """Hand ``message`` from ``sender`` to this actor now, exactly as its delivery event would (a stopped actor
        makes it a dead letter, a busy one queues it)."""
        self._deliver((message, sender))

    def timer_tick(self, fn: Callable[[], Any]) -> Any:
        """The item a timer of this actor delivers (:meth:`deliver_now`) to run ``fn()`` through the mailbox."""
        return _Tick(fn)

    def track_timer(self, handle: TimerHandle) -> None:
        """Cancel ``handle`` when this actor stops or restarts (as the timers of :meth:`every` and :meth:`after`)."""
        self._track(handle)

    @classmethod
    def handler_for(cls, mtype: type) -> Callable[..., Any] | None:
        """The handler this class runs for a message of exactly ``mtype`` (None: none of its own)."""
        return cls._handlers.get(mtype)

    # -- delivery ----------------------------------------------------------------------------------------------
    def _deliver(self, arg: tuple[Any, ActorRef | None]) -> None:
        if self._stopped:
            _dead_letter((self.ref.id, arg[0], arg[1]))
            return
        if self._busy:
            if self._mailbox is None:
                self._mailbox = deque()
            self._mailbox.append(arg)
            return
        # _handle's common case inlined: a handler of the message's exact type that returns None.
        message, sender = arg
        mtype = type(message)
        if mtype is _Tick:
            fn: Any = _call_tick
        else:
            fn = self._handlers.get(mtype)
            if fn is None:
                self._handle(message, sender)  # a subclass of a handled type, or unhandled
                return
        self._sender = sender
        try:
            result = fn(self, message)
        except Exception as exc:
            self._failed(exc, message, sender)
            return
        if result is not None:
            self._handled(result, message, sender)
        elif isinstance(sender, _ReplyRef):
            sender.tell(None, self.ref)

    def _handle(self, message: Any, sender: ActorRef | None) -> None:
        if type(message) is _Tick:
            fn: Callable[..., Any] = _call_tick
        else:
            fn = self._handlers.get(type(message)) or self._lookup(type(message))  # type: ignore[assignment]
            if fn is None:
                self.on_unhandled(message, sender)
                return
        self._sender = sender
        try:
            result = fn(self, message)
        except Exception as exc:
            self._failed(exc, message, sender)
            return
        self._handled(result, message, sender)

    def _handled(self, result: Any, message: Any, sender: ActorRef | None) -> None:
        """A handler returned ``result``: run it on as a task if it is a coroutine, else answer an ``ask``."""
        if result is not None and inspect.iscoroutine(result):
            self._busy = True
            self.is_free = False
            task = Task(self.kernel, result, on_resume=lambda: setattr(self, "_sender", sender))
            task.add_done_callback(lambda t: self._task_done(t, message, sender))
            return
        if isinstance(sender, _ReplyRef):
            sender.tell(result, self.ref)

    def _task_done(self, task: Future[Any], message: Any, sender: ActorRef | None) -> None:
        exc = task.exception()
        is_handler = message is not _PROCESS
        if is_handler:
            self._busy = False
            self.is_free = not self._stopped
        if exc is not None:
            self._failed(exc, message, sender)
        elif isinstance(sender, _ReplyRef):
            sender.tell(task.result(), self.ref)
        if is_handler:
            self._drain()

    def _drain(self) -> None:
        mailbox = self._mailbox
        while mailbox and not self._busy and not self._stopped:
            message, sender = mailbox.popleft()
            self._handle(message, sender)

    def _lookup(self, mtype: type) -> Callable[..., Any] | None:
        for base in mtype.__mro__[1:]:
            fn = self._handlers.get(base)
            if fn is not None:
                type(self)._handlers[mtype] = fn
                return fn
        return None

    def on_unhandled(self, message: Any, sender: ActorRef | None) -> None:
        """A message no handler accepts: rejected, logged and counted; the actor keeps running."""
        self.kernel.dead_letters += 1
        log.warning(
            "unhandled_message",
            actor=self.ref.id,
            message_type=type(message).__name__,
            sender=sender.id if sender is not None else None,
        )
        if isinstance(sender, _ReplyRef):
            sender.fail(ActorError(f"{self.ref.id} has no handler for {type(message).__name__}"), self.ref)

    def _failed(self, exc: BaseException, message: Any, sender: ActorRef | None) -> None:
        message_type = "process" if message is _PROCESS else type(message).__name__
        error = _record_failure(self.kernel, self.ref.id, message_type, exc)
        log.error(
            "handler_failed",
            actor=self.ref.id,
            message_type=message_type,
            message=repr(message)[:500],
            error=error,
            policy=self.supervision,
        )
        if isinstance(sender, _ReplyRef):
            sender.fail(exc, self.ref)
        if self.supervision == "stop":
            self.stop()
        elif self.supervision == "restart":
            self._restarts += 1
            if self._restarts > self.max_restarts:
                log.error("restart_limit_reached", actor=self.ref.id, restarts=self._restarts - 1)
                self.stop()
                return
            for t in self._timers or ():
                t.cancel()
            self._timers = None
            self.on_restart(exc)
            self.on_start()


def _call_tick(actor: Actor, tick: _Tick) -> Any:
    return tick.fn()


class _Once(TimerHandle):
    """A one-shot timer of :meth:`Actor.after_call`."""

    __slots__ = ("actor", "arg", "fn")

    def __init__(self, actor: Actor, fn: Callable[[Any], Any], arg: Any) -> None:
        self.cancelled = False
        self.actor = actor
        self.fn = fn
        self.arg = arg

    def call(self) -> Any:
        return self.fn(self.arg)


def _fire_once(timer: _Once) -> None:
    # Actor.after's firing (through the mailbox as a _Tick), with _deliver and _handle inlined for an actor that is
    # free and does not intercept deliveries.
    actor = timer.actor
    if timer.cancelled or actor._stopped:
        return
    if actor._busy or type(actor)._deliver is not Actor._deliver:
        actor._deliver((_Tick(timer.call), actor.ref))
        return
    ref = actor.ref
    actor._sender = ref
    try:
        result = timer.fn(timer.arg)
    except Exception as exc:
        actor._failed(exc, _Tick(timer.call), ref)
        return
    if result is not None:
        actor._handled(result, _Tick(timer.call), ref)


def _spawn(kernel: Kernel, actor: Actor, actor_id: str) -> ActorRef:
    if actor_id in kernel.actors:
        raise ActorError(f"an actor with id {actor_id!r} is already running")
    if getattr(actor, "ref", None) is not None and getattr(actor, "kernel", None) is not None:
        raise ActorError(f"{type(actor).__name__} instance is already spawned as {actor.ref.id!r}")
    ref = actor._attach(kernel, actor_id)
    kernel.actors[actor_id] = actor

    def start(_: Any) -> None:
        if actor._stopped:
            return
        actor._busy = True
        actor.is_free = False
        try:
            actor.on_start()
        except Exception as exc:
            actor._busy = False
            actor.is_free = not actor._stopped
            actor._failed(exc, _Started(), None)
            return
        actor._busy = False
        actor.is_free = not actor._stopped
        actor._drain()

    kernel.schedule(0, start, priority=URGENT, owner=actor_id)
    return ref


class _Started:
    """Stands for the start hook in failure logs."""


def spawn(kernel: Kernel, actor: Actor, actor_id: str | None = None) -> ActorRef:
    """Register ``actor`` under ``actor_id`` (default: class name + counter) and schedule its ``on_start``."""
    return kernel.spawn(actor, actor_id)


def lookup(kernel: Kernel, actor_id: str) -> ActorRef:
    """The address of ``actor_id``; a ref to an unknown id is valid and its messages become dead letters.

    A kernel that is one shard of a cluster resolves ids hosted elsewhere through its ``remote`` hook."""
    actor = kernel.actors.get(actor_id)
    if actor is not None:
        return actor.ref
    if kernel.remote is not None:
        ref: ActorRef | None = kernel.remote(actor_id)
        if ref is not None:
            return ref
    return ActorRef(actor_id, kernel, None)


#: ``Actor._deliver`` itself: a delivery entry whose ``__func__`` is this runs the stock delivery (neither overridden
#: by the class nor intercepted on the instance), for the delivery layer's checks made before a message is handled.
PLAIN_DELIVERY = Actor._deliver
