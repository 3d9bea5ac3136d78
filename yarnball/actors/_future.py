"""The kernel's building blocks below it: the event priorities, the current kernel, and the futures and tasks
that actors and coroutines await (actors/_kernel.py re-exports them)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Coroutine, Generator
from typing import TYPE_CHECKING, Any, Generic, TypeVar, Union

from mypy_extensions import mypyc_attr

from yarnball.errors import ActorError

if TYPE_CHECKING:
    from yarnball.actors._kernel import Kernel

__all__ = ["NORMAL", "URGENT", "Future", "Ms", "Task", "TimerHandle", "current_kernel"]

T = TypeVar("T")

#: A simulated time or interval in ms: an int stays an int (``1000`` is written as such in every output) and a float a
#: float. Spelled as the union, not ``float``, so that compiled code keeps the value as it came instead of converting
#: it to a C double.
Ms = Union[int, float]  # noqa: UP007 (a runtime alias)

URGENT = 0  # runs before NORMAL events of the same time (internal bookkeeping, wake-ups)
NORMAL = 1  # message deliveries and timers

#: The kernel whose events are being processed; read by the logging processor to stamp simulated time.
current_kernel: contextvars.ContextVar[Kernel | None] = contextvars.ContextVar("yarnball_kernel", default=None)

_PENDING = object()
_ASYNCIO_HINT = "use self.sleep(ms), ref.ask(...) or kernel futures instead of asyncio primitives"


class Future(Generic[T]):
    """A result that arrives later in simulated time; awaitable from kernel-driven coroutines.

    Callbacks run as kernel events (never inline), so resolution order is deterministic and recursion stays flat.
    """

    __slots__ = ("_callbacks", "_exception", "_kernel", "_result")

    def __init__(self, kernel: Kernel) -> None:
        self._kernel = kernel
        self._result: Any = _PENDING
        self._exception: BaseException | None = None
        self._callbacks: list[Callable[[Future[T]], None]] | None = None

    def done(self) -> bool:
        return self._result is not _PENDING or self._exception is not None

    def result(self) -> T:
        if self._exception is not None:
            raise self._exception
        if self._result is _PENDING:
            raise ActorError("Future.result() called before the future was resolved")
        return self._result  # type: ignore[no-any-return]

    def exception(self) -> BaseException | None:
        return self._exception

    def set_result(self, value: T) -> None:
        if self.done():
            return  # first resolution wins: a late reply after a timeout is ignored
        self._result = value
        self._fire()

    def set_exception(self, exc: BaseException) -> None:
        if self.done():
            return
        self._exception = exc
        self._fire()

    def add_done_callback(self, fn: Callable[[Future[T]], None]) -> None:
        if self.done():
            self._kernel.schedule(0, fn, self, priority=URGENT)
        elif self._callbacks is None:
            self._callbacks = [fn]
        else:
            self._callbacks.append(fn)

    def _fire(self) -> None:
        callbacks, self._callbacks = self._callbacks, None
        for fn in callbacks or ():
            self._kernel.schedule(0, fn, self, priority=URGENT)

    def __await__(self) -> Generator[Future[T], None, T]:
        if not self.done():
            yield self
        return self.result()


@mypyc_attr(allow_interpreted_subclasses=True)
class TimerHandle:
    """A scheduled callback that can be cancelled (cancelling is O(1): the event is skipped when popped)."""

    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Task(Future[T]):
    """Drives one coroutine on the kernel; resolves with the coroutine's result."""

    __slots__ = ("_coro", "_on_resume")

    def __init__(
        self,
        kernel: Kernel,
        coro: Coroutine[Any, Any, T],
        on_resume: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(kernel)
        self._coro = coro
        self._on_resume = on_resume
        kernel.schedule(0, self._step, None, priority=URGENT)

    def _wakeup(self, fut: Future[Any]) -> None:
        self._step(fut)

    def _step(self, fut: Future[Any] | None) -> None:
        if self.done():
            return
        if self._on_resume is not None:
            self._on_resume()
        try:
            if fut is not None and fut._exception is not None:
                yielded = self._coro.throw(fut._exception)
            else:
                yielded = self._coro.send(None if fut is None else fut._result)
        except StopIteration as stop:
            self.set_result(stop.value)
            return
        except RuntimeError as exc:
            if "event loop" in str(exc):  # an asyncio primitive was awaited outside asyncio
                error = ActorError(f"{exc}: {_ASYNCIO_HINT}")
                error.__cause__ = exc
                self.set_exception(error)
            else:
                self.set_exception(exc)
            return
        except BaseException as exc:  # reported to whoever awaits the task (the actor's supervisor)
            self.set_exception(exc)
            return
        if isinstance(yielded, Future):
            yielded.add_done_callback(self._wakeup)
        else:
            # e.g. `await asyncio.sleep(1)` inside a kernel-driven coroutine: asyncio's futures cannot be driven here
            error = ActorError(f"a yarnball coroutine awaited {yielded!r}, not a yarnball Future: {_ASYNCIO_HINT}")
            self._coro.close()
            self.set_exception(error)

    def cancel(self) -> None:
        if not self.done():
            self._coro.close()
            self.set_exception(ActorError("task cancelled"))
