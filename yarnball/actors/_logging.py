"""Library-style structlog: modules call ``structlog.get_logger(__name__)``; only :func:`configure_logging` configures.

It is called by the CLI, by the tests and inside every Ray worker (driver-side configuration does not reach worker
processes). Every record carries the simulated time (``sim_ms``, read from the running kernel only when a line is
emitted) and, for actor records, the actor id (bound once per actor). JSON lines go to a file on request; with
sorted keys and no wall-clock stamp they are byte-identical for the same program and seed.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import IO, Any

import structlog

from yarnball.actors._kernel import current_kernel

__all__ = ["add_sim_time", "configure_logging"]

_open_file: IO[str] | None = None


def add_sim_time(_logger: Any, _method: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """Stamp the record with the simulated time of the kernel being run (ms)."""
    kernel = current_kernel.get()
    if kernel is not None:
        now = kernel.now
        event_dict["sim_ms"] = int(now) if now == int(now) else now
    return event_dict


def configure_logging(
    *,
    json_path: str | Path | None = None,
    level: str = "info",
    stream: IO[str] | None = None,
) -> None:
    """Configure structlog for yarnball.

    Args:
        json_path: write JSON lines (sorted keys, simulated time, no wall time) to this file, replacing it.
        level: the lowest level written ("debug", "info", "warning", "error").
        stream: without ``json_path``, where human-readable lines go (default ``sys.stderr``).
    """
    global _open_file
    if _open_file is not None:
        _open_file.close()
        _open_file = None
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        raise ValueError(f"unknown log level {level!r}; expected debug, info, warning or error")
    processors: list[Any] = [structlog.contextvars.merge_contextvars, structlog.processors.add_log_level, add_sim_time]
    if json_path is not None:
        _open_file = open(json_path, "w", encoding="utf-8")
        processors += [
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(sort_keys=True),
        ]
        factory: Any = structlog.WriteLoggerFactory(file=_open_file)
    else:
        processors += [structlog.dev.ConsoleRenderer(colors=False)]
        factory = structlog.PrintLoggerFactory(file=stream or sys.stderr)
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=factory,
        cache_logger_on_first_use=False,
    )


def close_logging() -> None:
    """Flush and close the JSON lines file, if one is open."""
    global _open_file
    if _open_file is not None:
        _open_file.close()
        _open_file = None
    structlog.reset_defaults()
