"""Library-style structlog: modules call ``yarnball._logs.get_logger(__name__)``; only :func:`configure_logging`
configures (until then yarnball prints nothing: see ``yarnball/_logs.py``).

It is called by the CLI, by the tests and inside every Ray worker (driver-side configuration does not reach worker
processes). Every record carries the simulated time (``sim_ms``, read from the running kernel only when a line is
emitted) and, for actor records, the actor id (bound once per actor). JSON lines go to a file on request; with
sorted keys and no wall-clock stamp they are byte-identical for the same program and seed.
"""

from __future__ import annotations

import heapq
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, TextIO

import structlog

from yarnball._logs import set_sim_time_processor
from yarnball.actors._kernel import current_kernel

__all__ = ["add_sim_time", "configure_logging", "flush_logging", "merge_event_logs"]

_open_file: IO[str] | None = None


def add_sim_time(_logger: Any, _method: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """Stamp the record with the simulated time of the kernel being run (ms)."""
    kernel = current_kernel.get()
    if kernel is not None:
        now = kernel.now
        event_dict["sim_ms"] = int(now) if now == int(now) else now
    return event_dict


set_sim_time_processor(add_sim_time)  # yarnball's loggers stamp it on chains yarnball did not configure (_logs)


class _EventKeyPrefix:
    """Prefix each rendered JSON line with the canonical key of the event that logged it, and a tab.

    A shard host writes such lines so that the driver can merge every host's file into the one log a single
    kernel would have written (:func:`merge_event_logs`): events run in key order on every kernel, and the lines
    of one event keep their order through the line counter.
    """

    def __init__(self) -> None:
        self._event: object = None
        self._line = 0

    def __call__(self, _logger: Any, _method: str, rendered: str) -> str:
        kernel = current_kernel.get()
        event = kernel.event if kernel is not None else None
        if event is not self._event:
            self._event = event
            self._line = 0
        else:
            self._line += 1
        key = [-1, 0, "", 0] if event is None else [event[0], event[1], event[2], event[3]]
        key.append(self._line)
        return json.dumps(key, separators=(",", ":")) + "\t" + rendered


def merge_event_logs(
    parts: Sequence[str | Path], dest: str | Path, *, stop_key: tuple[Any, ...] | None = None, presorted: bool = True
) -> int:
    """Merge key-prefixed logs (one per shard host) into ``dest`` in canonical order and strip the keys.

    Lines of events after ``stop_key`` (the event that ended the run on the RM's host; the other hosts may have run
    on to the window's end) are dropped. Returns the number of lines written.
    """

    def read(path: str | Path) -> list[tuple[list[Any], str]]:
        rows = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                key, _, body = line.partition("\t")
                rows.append((json.loads(key), body))
        return rows

    streams = [read(p) for p in parts if Path(p).is_file()]
    merged = (
        heapq.merge(*streams, key=lambda row: row[0])
        if presorted
        else sorted((row for s in streams for row in s), key=lambda row: row[0])
    )
    limit = list(stop_key) if stop_key is not None else None
    count = 0
    with open(dest, "w", encoding="utf-8") as out:
        for key, body in merged:
            if limit is not None and key[:4] > limit:
                continue
            out.write(body)
            count += 1
    return count


def configure_logging(
    *,
    json_path: str | Path | None = None,
    level: str = "info",
    stream: TextIO | None = None,
    event_keys: bool = False,
) -> None:
    """Configure structlog for yarnball.

    Args:
        json_path: write JSON lines (sorted keys, simulated time, no wall time) to this file, replacing it.
        level: the lowest level written ("debug", "info", "warning", "error").
        stream: without ``json_path``, where human-readable lines go (default ``sys.stderr``).
        event_keys: prefix each JSON line with its event's canonical key (shard hosts; see merge_event_logs).
    """
    global _open_file
    if _open_file is not None:
        _open_file.close()
        _open_file = None
    config, _open_file = logging_config(json_path=json_path, level=level, stream=stream, event_keys=event_keys)
    structlog.configure(**config)


def logging_config(
    *,
    json_path: str | Path | None = None,
    level: str = "info",
    stream: TextIO | None = None,
    event_keys: bool = False,
) -> tuple[dict[str, Any], IO[str] | None]:
    """What :func:`configure_logging` applies, without applying it: structlog's configuration and the file it
    opened (None without ``json_path``). A shard host in the driver's process swaps it in around its own work."""
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        raise ValueError(f"unknown log level {level!r}; expected debug, info, warning or error")
    processors: list[Any] = [structlog.contextvars.merge_contextvars, structlog.processors.add_log_level, add_sim_time]
    opened: IO[str] | None = None
    if json_path is not None:
        opened = open(json_path, "w", encoding="utf-8")
        processors += [
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(sort_keys=True),
        ]
        if event_keys:
            processors.append(_EventKeyPrefix())
        factory: Any = structlog.WriteLoggerFactory(file=opened)
    else:
        processors += [structlog.dev.ConsoleRenderer(colors=False)]
        factory = structlog.PrintLoggerFactory(file=stream or sys.stderr)
    config = {
        "processors": processors,
        "wrapper_class": structlog.make_filtering_bound_logger(numeric),
        "logger_factory": factory,
        "cache_logger_on_first_use": False,
    }
    return config, opened


def worker_logging_config(json_path: str | Path | None, level: str) -> tuple[dict[str, Any], IO[str] | None]:
    """:func:`configure_worker_logging`'s configuration and file, not applied (see :func:`logging_config`)."""
    if json_path is not None:
        return logging_config(json_path=json_path, level=level, event_keys=True)
    return logging_config(level=level if level.lower() in ("warning", "error") else "warning")


def configure_worker_logging(json_path: str | Path | None, level: str) -> None:
    """Logging inside a process that hosts actors for a driver elsewhere (a Ray shard host or live host).

    With an event log: its JSON lines at ``level``, each prefixed with its event's canonical key. Without one, the
    info-level event lines have nowhere to go, so only warnings and errors are written (to the worker's stderr, which
    Ray keeps in its worker logs): structlog left at its defaults would render every line, debug included, to
    stdout, which costs as much as the simulation itself.
    """
    global _open_file
    close_logging()
    config, _open_file = worker_logging_config(json_path, level)
    structlog.configure(**config)


def flush_logging() -> None:
    """Flush the JSON lines file, if one is open (a shard host does it after every window)."""
    if _open_file is not None:
        _open_file.flush()


def close_logging() -> None:
    """Flush and close the JSON lines file, if one is open."""
    global _open_file
    if _open_file is not None:
        _open_file.close()
        _open_file = None
    structlog.reset_defaults()
