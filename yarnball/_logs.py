"""yarnball's loggers: silent until the program configures logging, and stamped with simulated time when they print.

Every module takes its logger from :func:`get_logger` (``log = get_logger(__name__)``), never from
``structlog.get_logger``: structlog left unconfigured renders every call, debug included, to stdout with a wall-clock
stamp, so a program embedding ``Cluster`` would print the RM's event lines whether it asked for them or not. A
library must stay quiet until the program says where its lines go (structlog's "Logging in libraries" guidance; the
standard library's ``NullHandler`` convention, logging HOWTO "Configuring Logging for a Library"). So each call
goes, at the moment it is made:

- structlog configured by yarnball (``yarnball.configure_logging``: the CLI, the tests, every Ray worker): through
  that chain, which stamps the simulated time itself (``add_sim_time``). Nothing else is added, so the event log
  is byte-identical to what that chain always wrote.
- structlog configured by the program (``structlog.configure``, or ``structlog.testing.capture_logs``): through
  the program's chain, with the simulated time stamped first.
- structlog not configured: to the standard library logger of the same name, level-filtered before anything is
  rendered, as one line ``event key=value ... sim_ms=N``. The ``yarnball`` logger has a ``NullHandler`` and
  Python's root logger passes only warnings, so nothing is printed unless the program configures ``logging``
  (``logging.basicConfig(level=logging.INFO)`` shows the info lines, each with its simulated time).

A record carries ``sim_ms`` when it is logged while a kernel runs (the kernel's clock, in ms); records logged
before any kernel runs (reading a trace or a configuration file) have no simulated time to carry.

This module sits beside ``errors.py``, below every layer (protocols and policies log too); the simulated-time
processor belongs to the actors, which own the kernel, and registers itself here when ``yarnball.actors`` is
imported (:func:`set_sim_time_processor`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

import structlog
from structlog._config import _CONFIG, BoundLoggerLazyProxy

__all__ = ["get_logger", "set_sim_time_processor"]

Processor = Callable[[Any, str, Any], Any]

# The library convention: the package's top logger has a NullHandler, so records that reach no handler of the
# program's are dropped instead of going to logging.lastResort (stderr).
logging.getLogger("yarnball").addHandler(logging.NullHandler())


def _no_sim_time(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    return event_dict


_sim_time: Processor = _no_sim_time


def set_sim_time_processor(processor: Processor) -> None:
    """Register the processor that stamps a record with the simulated time (``yarnball.actors._logging``)."""
    global _sim_time
    _sim_time = processor


def _stamp(logger: Any, method: str, event_dict: MutableMapping[str, Any]) -> Any:
    return _sim_time(logger, method, event_dict)


class _SimTimeFirst:
    """The program's processor chain with the simulated-time stamp in front, read live: ``capture_logs`` swaps the
    contents of the configured list in place, and a logger bound inside its block must follow it back out."""

    __slots__ = ("chain",)

    def __init__(self, chain: list[Any]) -> None:
        self.chain = chain

    def __iter__(self) -> Iterator[Any]:
        yield _stamp
        yield from self.chain

    def __repr__(self) -> str:
        return f"[sim_time, *{self.chain!r}]"


# Without structlog configuration: filter by the stdlib logger's level first (nothing is rendered for a dropped
# record), then render one line with the simulated time.
_STDLIB_CHAIN: list[Any] = [
    structlog.stdlib.filter_by_level,
    structlog.contextvars.merge_contextvars,
    _stamp,
    structlog.dev.ConsoleRenderer(colors=False, pad_event_to=0),
]


class _LibraryLoggerProxy(BoundLoggerLazyProxy):
    """``structlog.get_logger``'s lazy proxy, choosing at each call where the record goes (see the module doc).

    A call on the proxy (``log.info(...)``) binds a logger first (structlog's ``__getattr__``): a processor chain, a
    wrapped logger and a context, ~2.8 us for a record the level then drops (the scheduler's per-application info
    lines). The last logger bound without new values is kept with the configuration it was made under
    (:func:`_configuration`) and served again while that configuration stands, as structlog's own
    ``cache_logger_on_first_use`` would, except that a later ``configure`` (or ``capture_logs``) takes effect.
    """

    _made: tuple[tuple[Any, ...], Any] | None = None  # (configuration, logger)

    def bind(self, **new_values: Any) -> Any:
        if new_values:
            return self._bind(**new_values)
        configuration = _configuration()
        made = self._made
        if made is not None and made[0] == configuration:
            return made[1]
        logger = self._bind()
        self._made = (configuration, logger)
        return logger

    def _bind(self, **new_values: Any) -> Any:
        if not structlog.is_configured():
            name = self._logger_factory_args[0] if self._logger_factory_args else "yarnball"
            context = {**self._initial_values, **new_values}
            return structlog.stdlib.BoundLogger(logging.getLogger(name), _STDLIB_CHAIN, context)
        processors = structlog.get_config()["processors"]
        if _sim_time is _no_sim_time or _sim_time in processors:
            return super().bind(**new_values)  # yarnball's own chain (it stamps the simulated time)
        proxy = BoundLoggerLazyProxy(
            None,
            processors=_SimTimeFirst(processors),
            initial_values=self._initial_values,
            logger_factory_args=self._logger_factory_args,
        )
        return proxy.bind(**new_values)


def _configuration() -> tuple[Any, ...]:
    """What a bound logger depends on besides its name: structlog's configuration (compared by identity; the
    processor list also by whether it holds yarnball's simulated-time stamp, which ``capture_logs`` swaps in place),
    the stamp itself and ``sys.stdout`` (a ``PrintLoggerFactory`` without a file writes to the one it was made
    with)."""
    processors = _CONFIG.default_processors
    return (
        _CONFIG.is_configured,
        processors,  # (held, so that its id is not reused while the key stands)
        id(processors),  # (the same list, not an equal one: the logger keeps the list it was made with)
        _sim_time in processors,  # type: ignore[operator]
        _CONFIG.default_wrapper_class,
        _CONFIG.default_context_class,
        _CONFIG.logger_factory,
        _sim_time,
        sys.stdout,
    )


def get_logger(name: str) -> Any:
    """The logger of module (or actor class module) ``name``: structlog's API, silent until logging is configured."""
    return _LibraryLoggerProxy(None, logger_factory_args=(name,))
