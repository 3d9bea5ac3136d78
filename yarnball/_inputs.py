"""Reading a user's input file safely: a regular file only, of bounded size, with bounded nesting.

Every reader of a file named on the command line or in a spec (traces, node files, fault schedules, Hadoop XML
files, sweep specs, preemption snapshots) goes through :func:`read_input` / :func:`read_input_text`. A directory,
a FIFO or a device (``/dev/zero``) is refused before it is opened, so nothing blocks on a FIFO or reads an endless
device; the file is opened with ``O_NONBLOCK`` as well, in case it is swapped for a FIFO between the check and the
open. :func:`check_nesting` bounds how deeply JSON, TOML and XML documents nest, well below the depth at which
Python's recursive parsers (json, tomllib, msgspec) raise ``RecursionError``. Every refusal is one line naming the
file, raised as the reader's own :class:`~yarnball.errors.YarnballError` subclass.
"""

from __future__ import annotations

import os
import re
import stat
from typing import Final, Literal

from yarnball.errors import ConfigurationError, YarnballError, one_line

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_NESTING_DEPTH",
    "MAX_TRACE_BYTES",
    "check_nesting",
    "read_input",
    "read_input_text",
]

#: The largest trace or node file read (bytes): a Rumen trace of a busy cluster's day runs to hundreds of MB.
MAX_TRACE_BYTES: Final = 2 * 1024**3
#: The largest of every other input (configuration XML, fault schedules, sweep specs, snapshots).
MAX_FILE_BYTES: Final = 256 * 1024**2
#: The deepest nesting of JSON arrays/objects, TOML arrays/tables or XML elements accepted. The formats read nest a
#: handful of levels; Jackson's default limit (StreamReadConstraints) is 1000, Python's recursive parsers fail near it.
MAX_NESTING_DEPTH: Final = 200

Error = type[YarnballError]


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.4g} {unit}"
    return f"{n} bytes"


def read_input(
    path: str | os.PathLike[str], what: str, error: Error = ConfigurationError, *, limit: int | None = None
) -> bytes:
    """The bytes of the regular file ``path`` (``what`` names it in errors: "trace", "fault schedule"), at most
    ``limit`` of them (default MAX_FILE_BYTES); ``error`` is raised, naming the file, for anything else."""
    name = one_line(os.fspath(path))
    limit = MAX_FILE_BYTES if limit is None else limit

    def fail(reason: str) -> YarnballError:
        return error(f"{name}: cannot read {what}: {reason}")

    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise fail(f"not a regular file ({_file_kind(mode)}); expected a {what} file")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            if not stat.S_ISREG(mode):  # swapped between the stat and the open
                raise fail(f"not a regular file ({_file_kind(mode)}); expected a {what} file")
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise fail("no such file") from None
    except (OSError, ValueError) as exc:  # ValueError: a path holding NUL
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise fail(one_line(reason)) from exc
    if len(data) > limit:
        raise fail(f"larger than {_size(limit)}, the most yarnball reads for a {what}")
    return data


def read_input_text(
    path: str | os.PathLike[str], what: str, error: Error = ConfigurationError, *, limit: int | None = None
) -> str:
    """:func:`read_input` decoded as UTF-8; bytes that are not UTF-8 are an error naming their offset."""
    data = read_input(path, what, error, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{one_line(os.fspath(path))}: cannot read {what}: not UTF-8 text (byte {exc.start})") from None


# What cannot hold a bracket that nests: strings (and TOML comments), removed before counting.
_JSON_SKIP = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_TOML_SKIP = re.compile(
    r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*', re.S
)
_XML_SKIP = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<[?!][^>]*>|<[^>]*/>", re.S)
_XML_CLOSE = re.compile(r"</[^>]*>")
_XML_OPEN = re.compile(r"<[^>]*>")
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PAIR = re.compile(r"\[\]|\{\}")


def nesting_depth(text: str, fmt: Literal["JSON", "TOML", "XML"], limit: int = MAX_NESTING_DEPTH) -> int:
    """How deeply ``text`` nests, counted up to ``limit + 1``; unbalanced brackets (a syntax error the parser will
    report) count only as far as they pair up. Linear passes of the regex engine, one per level: no recursion."""
    if fmt == "XML":
        text = _XML_SKIP.sub("", text)
        text = _XML_OPEN.sub("[", _XML_CLOSE.sub("]", text))
    else:
        text = (_JSON_SKIP if fmt == "JSON" else _TOML_SKIP).sub("", text)
    brackets = _NOT_BRACKET.sub("", text)
    if re.search(f"[\\[{{]{{{limit + 1}}}", brackets):  # a run of openings alone goes deeper: no need to count
        return limit + 1
    depth = 0
    while depth <= limit:
        brackets, removed = _PAIR.subn("", brackets)
        if not removed:
            break
        depth += 1  # each pass removes the innermost pairs: one level
    return depth


def check_nesting(
    text: str,
    source: str,
    fmt: Literal["JSON", "TOML", "XML"],
    error: Error = ConfigurationError,
    *,
    limit: int = MAX_NESTING_DEPTH,
) -> None:
    """Refuse a document nested more than ``limit`` levels deep, naming ``source`` and the limit."""
    if nesting_depth(text, fmt, limit) > limit:
        raise error(f"{one_line(source)}: {fmt} nested too deeply (more than {limit} levels of {_LEVELS[fmt]})")


_LEVELS = {"JSON": "arrays and objects", "TOML": "arrays and tables", "XML": "elements"}
