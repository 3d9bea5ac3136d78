"""Reading SLS-style JSON: a stream of concatenated objects (or arrays of them), and typed field access.

SLS reads its inputs with Jackson's ``ObjectMapper.readValues`` (AMRunner, SLSUtils), which accepts a sequence of
root-level objects and unwraps a root-level array. We do the same with ``json.JSONDecoder.raw_decode`` and report
syntax errors with the line and column. Field helpers parse numbers the way SLS's ``Long.parseLong(v.toString())``
does (an integer or a string holding one) and raise :class:`TraceFormatError` naming file, job and field.
"""

from __future__ import annotations

import codecs
import difflib
import json
import os
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn

from yarnball import _inputs
from yarnball._inputs import check_nesting, read_input_text
from yarnball._logs import get_logger
from yarnball.errors import TraceFormatError

__all__ = [
    "INT_MAX",
    "LONG_MAX",
    "MAX_EXPANSION",
    "KeyPolicy",
    "Where",
    "clean",
    "iter_json_values",
    "read_text",
    "stream_json_values",
]

log = get_logger(__name__)

_WS = re.compile(r"\s*")
_JAVA_LONG = re.compile(r"[+-]?[0-9]+")
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
LONG_MAX = _LONG_MAX  # Java's Long.MAX_VALUE: the largest time, size or count a trace may hold
INT_MAX = 2**31 - 1  # Java's Integer.MAX_VALUE: fields SLS parses with Integer.parseInt
_INDEX = re.compile(r"\[[0-9]+\]")
# Guard against a typo expanding into billions of objects: job.count, num.nodes, num_nodes, num_jobs.
MAX_EXPANSION = 10_000_000


def read_text(path: str | os.PathLike[str], what: str = "trace") -> str:
    """The file's text (UTF-8), or TraceFormatError if it is not a readable regular file of at most
    MAX_TRACE_BYTES."""
    return read_input_text(path, what, TraceFormatError, limit=_inputs.MAX_TRACE_BYTES)


def _reject_constant(name: str) -> NoReturn:
    # Jackson refuses NaN/Infinity by default; Python's json would accept them.
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def iter_json_values(
    path: str | os.PathLike[str], text: str | None = None, what: str = "trace"
) -> Iterator[tuple[int, int, Any]]:
    """Yield ``(index, line, value)`` for every root-level value; elements of a root-level array count as values.

    ``what`` names the file in a read error ("SLS trace", "node file")."""
    name = os.fspath(path)
    if text is None:
        text = read_text(path, what)
    check_nesting(text, name, "JSON", TraceFormatError)
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    index = 0
    line, counted = 1, 0  # line number of `pos`, counted incrementally (big traces hold many objects)
    while pos < len(text):
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise TraceFormatError(f"{name}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
        except ValueError as e:  # NaN / Infinity, integers too long to convert
            raise TraceFormatError(f"{name}: invalid JSON in the value starting at line {line}: {e}") from None
        except RecursionError:
            raise TraceFormatError(f"{name}: JSON nested too deeply at line {line}") from None
        if isinstance(value, list):
            for item in value:
                yield index, line, item
                index += 1
        else:
            yield index, line, value
            index += 1
        pos = _WS.match(text, end).end()  # type: ignore[union-attr]


#: How much of a trace :func:`stream_json_values` reads at a time (doubled while a value does not fit).
STREAM_CHUNK_BYTES = 1 << 20


def stream_json_values(path: str | os.PathLike[str], chunk: int | None = None) -> Iterator[tuple[int, int, Any]]:
    """:func:`iter_json_values` of a file that already read cleanly with it, read ``chunk`` bytes at a time (default
    :data:`STREAM_CHUNK_BYTES`): what is held is the chunk at hand, not the file, and the elements of a root-level
    array are decoded one at a time. The file is opened for each chunk, not held open.

    For a trace's second reading (a run fed as it goes, workloads/_stream.py): a value that does not decode is
    taken for one the chunk cuts, and one the file's end cuts for a file changed since its first reading."""
    name = os.fspath(path)
    chunk = chunk or STREAM_CHUNK_BYTES
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0  # bytes of the file read so far
    buf, pos, eof = "", 0, False
    line, counted = 1, 0  # the line of buf[counted]
    index, array_line = 0, 0  # array_line: inside a root-level array, the line it starts on

    def more(size: int) -> bool:
        nonlocal buf, pos, offset, eof, line, counted
        if eof:
            return False
        with open(name, "rb") as f:
            f.seek(offset)
            data = f.read(size)
        offset += len(data)
        eof = len(data) < size
        line += buf.count("\n", counted, pos)
        buf = buf[pos:] + decoder.decode(data, final=eof)
        pos = counted = 0
        return True

    def skip() -> str:
        """Skip white space; the next character ("" at the end of the file)."""
        nonlocal pos
        while True:
            pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]
            if pos < len(buf) or not more(chunk):
                return buf[pos] if pos < len(buf) else ""

    while True:
        c = skip()
        if array_line:
            if c == "]":
                pos += 1
                array_line = 0
                continue
            if c == ",":
                pos += 1
                c = skip()
        if c == "":
            return
        line += buf.count("\n", counted, pos)
        counted = pos
        if c == "[" and not array_line:
            pos += 1
            array_line = line
            continue
        size = chunk
        while True:
            try:
                value, end = _DECODER.raw_decode(buf, pos)
                break
            except ValueError:
                size *= 2
                if not more(size):
                    raise TraceFormatError(
                        f"{name}: the trace changed since it was first read (a value at line {line} is cut short)"
                    ) from None
        pos = end
        yield index, array_line or line, value
        index += 1


def clean(text: str) -> str:
    """``text`` safe to print: a lone surrogate (JSON ``"\\ud800"``) is shown as its escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


@dataclass(slots=True)
class KeyPolicy:
    """How a reader treats keys it does not know: a warning with a suggestion, or (``strict``) an error.

    One policy per trace file: each unknown key (indices dropped, ``job.tasks[].x``) is reported once per file.
    """

    strict: bool = False
    seen: set[str] = field(default_factory=set)
    #: Nothing logged: a trace read again, after a first reading reported its warnings (workloads/_stream.py).
    quiet: bool = False


@dataclass(slots=True)
class Where:
    """Names the place in a trace that an error is about: file, job (id or position) and, per call, the field."""

    path: str
    what: str  # e.g. "job 'job_1'" or "object #3 (line 42)"
    policy: KeyPolicy = field(default_factory=KeyPolicy)

    def at(self, what: str) -> Where:
        """The same file and key policy, another place in it."""
        return Where(self.path, what, self.policy)

    def fail(self, field: str, message: str) -> NoReturn:
        raise TraceFormatError(f"{clean(self.path)}: {clean(self.what)}: field '{clean(field)}': {clean(message)}")

    def check_keys(self, d: dict[str, Any], known: Collection[str], prefix: str = "") -> None:
        """Warn about (or, strict, refuse) every key of ``d`` not in ``known``, suggesting the closest known key.

        SLS itself ignores such keys (Jackson with FAIL_ON_UNKNOWN_PROPERTIES off; Rumen's LoggedJob prints "we saw
        the unknown attribute"), so a misspelt ``job.strat.ms`` silently falls back to a default.
        """
        for key in d:
            if key in known:
                continue
            name = f"{prefix}.{key}" if prefix else key
            guess = difflib.get_close_matches(key, list(known), n=1)
            hint = f", did you mean {guess[0]}?" if guess else f" (known keys: {', '.join(sorted(known))})"
            if self.policy.strict:
                self.fail(name, f"unknown key{hint}")
            pattern = _INDEX.sub("[]", name)
            if pattern in self.policy.seen or self.policy.quiet:
                continue
            self.policy.seen.add(pattern)
            log.warning(f"{clean(self.path)}: {clean(self.what)}: {clean(name)}: unknown key{clean(hint)}")

    def warning(self, event: str, **fields: Any) -> None:
        """Log a warning about the trace, unless its key policy is quiet."""
        if not self.policy.quiet:
            log.warning(event, **fields)

    def obj(self, value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(field, f"expected a JSON object, got {_kind(value)}")
        return value

    def list(self, value: Any, field: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(field, f"expected a JSON array, got {_kind(value)}")
        return value

    def long(self, value: Any, field: str, *, minimum: int | None = None, maximum: int = _LONG_MAX) -> int:
        """``Long.parseLong(value.toString())``: an integer, or a string holding one; no fractions."""
        if isinstance(value, bool) or not isinstance(value, int | str):
            self.fail(field, f"expected an integer, got {_kind(value)} {_short(value)}")
        if isinstance(value, str):
            if not _JAVA_LONG.fullmatch(value):
                self.fail(field, f"expected an integer, got the string {_short(value)}")
            try:
                value = int(value)
            except ValueError:  # more digits than Python converts; far beyond a Java long anyway
                self.fail(field, "integer out of range")
        if not _LONG_MIN <= value <= _LONG_MAX:
            self.fail(field, "integer out of range for a Java long")
        if minimum is not None and not minimum <= value <= maximum:
            self.fail(field, f"must be in [{minimum}, {maximum}], got {value}")
        if value > maximum:
            self.fail(field, f"must be <= {maximum}, got {value}")
        return value

    def opt_long(
        self, d: dict[str, Any], field: str, default: int, *, minimum: int | None = None, maximum: int = _LONG_MAX
    ) -> int:
        if field not in d or d[field] is None:
            return default
        return self.long(d[field], field, minimum=minimum, maximum=maximum)

    def number(self, value: Any, field: str) -> float:
        """A JSON number (or a numeric string) bound to a Java double/int field by Jackson."""
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            self.fail(field, f"expected a number, got {_kind(value)} {_short(value)}")
        try:
            result = float(value)
        except (ValueError, OverflowError):
            self.fail(field, f"expected a number, got {_short(value)}")
        if result != result or result in (float("inf"), float("-inf")):
            self.fail(field, f"expected a finite number, got {_short(value)}")
        return result

    def string(self, value: Any, field: str) -> str:
        if not isinstance(value, str):
            self.fail(field, f"expected a string, got {_kind(value)} {_short(value)}")
        return self._utf8(value, field)

    def _utf8(self, value: str, field: str) -> str:
        # A JSON "\ud800" decodes to a lone surrogate, which no output (CSV, JSON lines, the web UI) can encode.
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            self.fail(field, f"not valid UTF-8 text: lone surrogate {value[e.start]!a} at character {e.start}")
        return value

    def text(self, value: Any, field: str) -> str:
        """``value.toString()``: strings and numbers are accepted, containers are not."""
        if isinstance(value, str):
            return self._utf8(value, field)
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return str(value)
        self.fail(field, f"expected a string, got {_kind(value)}")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except ValueError:  # an int with more digits than Python will print
        return "<huge integer>"
    return text if len(text) <= 60 else text[:57] + "..."
