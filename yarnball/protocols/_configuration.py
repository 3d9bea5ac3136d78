"""Hadoop's ``org.apache.hadoop.conf.Configuration``: layered XML resources, final keys, ``${var}`` substitution.

Lookup order, as in Hadoop:

1. values given in the mapping or with :meth:`Configuration.set` (Hadoop's *overlay*: they win over every
   resource, even one added later, and even over a ``<final>`` key);
2. the XML resources in the order they were added; a later resource wins, except that a key marked
   ``<final>true</final>`` in an earlier resource keeps its value (with a warning, as Hadoop logs one);
3. the built-in defaults of :mod:`yarnball.protocols.keys` (Hadoop's ``yarn-default.xml``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final, TypeVar
from xml.parsers import expat

from yarnball._inputs import MAX_NESTING_DEPTH, read_input
from yarnball._logs import get_logger
from yarnball.errors import ConfigurationError
from yarnball.protocols import keys as _keys
from yarnball.protocols._domains import domain_error
from yarnball.protocols._javanumbers import LONG_BITS, hadoop_integer, java_float, java_integer, java_trim

__all__ = ["Configuration"]

log = get_logger(__name__)

#: Hadoop's ``Configuration.MAX_SUBST``: how many ``${var}`` expansions one value may go through.
MAX_SUBST: Final = 20

MAPPING_SOURCE: Final = "mapping"
DEFAULT_SOURCE: Final = "default"

# Hadoop's findSubVariable: "${" then a name without '$', '{', '}' or whitespace, then "}".
_VAR = re.compile(r"\$\{([^${}\s]+)\}")

_T = TypeVar("_T")
_N = TypeVar("_N", int, float)

# Float.MAX_VALUE plus half an ulp: the smallest magnitude Float.parseFloat rounds to Infinity.
_FLOAT_OVERFLOW: Final = 3.4028235677973366e38

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_INT_BITS = {"32-bit int": 32, "64-bit long": LONG_BITS}

# Hadoop's Configuration.ParsedTimeDuration, in the order Hadoop tries the suffixes, with nanoseconds per unit.
_TIME_UNITS: Final[dict[str, int]] = {
    "ns": 1,
    "us": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60 * 1_000_000_000,
    "h": 3600 * 1_000_000_000,
    "d": 86400 * 1_000_000_000,
}


class _Property:
    """One value as loaded from a resource."""

    __slots__ = ("final", "line", "source", "value")

    def __init__(self, value: str, source: str, line: int | None, final: bool) -> None:
        self.value = value
        self.source = source
        self.line = line
        self.final = final


def _default_system_properties() -> dict[str, str]:
    # Python has no JVM system properties; these two are the ones Hadoop XML files commonly reference.
    return {"user.name": os.environ.get("USER", os.environ.get("USERNAME", "")), "user.home": str(Path.home())}


class Configuration:
    """A Hadoop ``Configuration``: string key -> string value, read from XML resources and a mapping.

    ``system_properties`` stand in for Java's ``System.getProperty`` in ``${var}`` substitution.
    """

    __slots__ = ("_defaults", "_overlay", "_overlay_sources", "_props", "_resources", "_system_properties")

    def __init__(
        self,
        mapping: Mapping[str, object] | None = None,
        *,
        load_defaults: bool = True,
        system_properties: Mapping[str, str] | None = None,
    ) -> None:
        self._defaults: dict[str, str] = _keys.defaults() if load_defaults else {}
        self._props: dict[str, _Property] = {}
        self._overlay: dict[str, str] = {}
        self._overlay_sources: dict[str, str] = {}  # where a set() value came from, when not "mapping"
        self._resources: list[str] = []
        self._system_properties: dict[str, str] = (
            dict(system_properties) if system_properties is not None else _default_system_properties()
        )
        for key, value in (mapping or {}).items():
            self.set(key, value)

    # -- loading ---------------------------------------------------------------------------------------------
    @classmethod
    def from_conf_dir(cls, path: str | os.PathLike[str], *, load_defaults: bool = True) -> Configuration:
        """Load ``yarn-site.xml`` then ``capacity-scheduler.xml`` from a Hadoop conf directory, if present."""
        directory = Path(path)
        if not directory.is_dir():
            raise ConfigurationError(
                f"{directory}: configuration directory does not exist or is not a directory "
                f"(expected a directory holding {_keys.YARN_SITE_CONFIGURATION_FILE} and/or "
                f"{_keys.CS_CONFIGURATION_FILE})"
            )
        conf = cls(load_defaults=load_defaults)
        for name in (_keys.YARN_SITE_CONFIGURATION_FILE, _keys.CS_CONFIGURATION_FILE):
            if os.path.lexists(directory / name):  # a directory, FIFO or broken link of that name is refused
                conf.add_resource(directory / name)
        return conf

    def add_resource(self, path: str | os.PathLike[str]) -> None:
        """Read a Hadoop XML file and layer its properties over the resources added before it."""
        source = str(path)
        data = read_input(path, "configuration file")
        for name, value, line, final in _parse_configuration_xml(data, source):
            self._load_property(name, value, source, line, final)
        self._resources.append(source)

    def _load_property(self, name: str, value: str, source: str, line: int, final: bool) -> None:
        previous = self._props.get(name)
        if previous is not None and previous.final:
            # Hadoop (Configuration.checkForOverride) warns only when the value actually differs.
            if previous.value != value:
                log.warning(
                    "an attempt to override final parameter; ignoring",
                    key=name,
                    final_source=previous.source,
                    final_value=previous.value,
                    source=source,
                    line=line,
                    ignored_value=value,
                )
            return
        self._props[name] = _Property(value, source, line, final)

    # -- raw access ------------------------------------------------------------------------------------------
    def set(self, key: str, value: object, source: str = MAPPING_SOURCE) -> None:
        """Set a value programmatically (it wins over every XML resource, as Hadoop's overlay does); ``source`` names
        where it came from in messages (Hadoop's ``set(name, value, source)``; e.g. ``--conf``)."""
        if not isinstance(key, str) or not key.strip():
            raise ConfigurationError(f"{MAPPING_SOURCE}: property name {key!r} must be a non-empty string")
        if value is None:
            raise ConfigurationError(f"{MAPPING_SOURCE}: property {key!r} has value None (expected a value)")
        if isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        self._overlay[key.strip()] = java_trim(text)  # Hadoop's getTrimmed: String.trim(), not Unicode spaces
        if source != MAPPING_SOURCE:
            self._overlay_sources[key.strip()] = source
        else:
            self._overlay_sources.pop(key.strip(), None)

    def unset(self, key: str) -> None:
        """Remove a key from the mapping and from every loaded resource (Hadoop's ``unset``)."""
        self._overlay.pop(key, None)
        self._overlay_sources.pop(key, None)
        self._props.pop(key, None)

    def get_raw(self, key: str) -> str | None:
        """The value without ``${var}`` substitution, or None (Hadoop's ``getRaw``)."""
        if key in self._overlay:
            return self._overlay[key]
        prop = self._props.get(key)
        if prop is not None:
            return prop.value
        return self._defaults.get(key)

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value with ``${var}`` substituted, else ``default``."""
        raw = self.get_raw(key)
        if raw is None:
            return default
        return self._substitute(key, raw)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get_raw(key) is not None

    def keys(self) -> list[str]:
        """Every key that has a value (defaults included), sorted."""
        return sorted(set(self._defaults) | set(self._props) | set(self._overlay))

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def source_of(self, key: str) -> str:
        """Where the value of ``key`` comes from: the XML file path, ``"mapping"`` (or the source given to
        :meth:`set`) or ``"default"``."""
        if key in self._overlay:
            return self._overlay_sources.get(key, MAPPING_SOURCE)
        prop = self._props.get(key)
        if prop is not None:
            return prop.source
        return DEFAULT_SOURCE

    def location_of(self, key: str) -> str:
        """``file:line`` of the value of ``key`` when it came from a file, else :meth:`source_of`."""
        prop = None if key in self._overlay else self._props.get(key)
        if prop is not None and prop.line is not None:
            return f"{prop.source}:{prop.line}"
        return self.source_of(key)

    def is_final(self, key: str) -> bool:
        """Whether a resource marked ``key`` final."""
        prop = self._props.get(key)
        return prop is not None and prop.final

    @property
    def resources(self) -> list[str]:
        """The XML files loaded, in order."""
        return list(self._resources)

    def copy(self) -> Configuration:
        """An independent copy (Hadoop's copy constructor)."""
        clone = Configuration.__new__(Configuration)
        clone._defaults = dict(self._defaults)
        clone._props = {k: _Property(p.value, p.source, p.line, p.final) for k, p in self._props.items()}
        clone._overlay = dict(self._overlay)
        clone._overlay_sources = dict(self._overlay_sources)
        clone._resources = list(self._resources)
        clone._system_properties = dict(self._system_properties)
        return clone

    def __repr__(self) -> str:
        return f"Configuration(resources={self._resources!r}, overlay_keys={len(self._overlay)})"

    # -- substitution ----------------------------------------------------------------------------------------
    def _substitute(self, key: str, expr: str) -> str:
        """Hadoop's ``substituteVars``: expand the first ``${var}`` up to MAX_SUBST times.

        Like Hadoop, an unbound variable stops the expansion and the value is returned as it stands then (later
        ``${...}`` in the same value stay unexpanded too), and a self-referencing value is returned unexpanded.
        Lookup order is Hadoop's: ``env.NAME`` (with ``env.NAME:-default`` / ``env.NAME-default``) from the
        environment, otherwise a system property, otherwise another key of this configuration.
        """
        current = expr
        for _ in range(MAX_SUBST):
            match = _VAR.search(current)
            if match is None:
                return current
            var = match.group(1)
            value = self._lookup_variable(var)
            if value is None:
                return current
            if match.group(0) in value:
                return expr
            current = current[: match.start()] + value + current[match.end() :]
        raise ConfigurationError(
            f"{self.location_of(key)}: property {key!r}: variable substitution depth too large: "
            f"{MAX_SUBST} {expr} (expected at most {MAX_SUBST} nested ${{...}} expansions)"
        )

    def _lookup_variable(self, var: str) -> str | None:
        if var.startswith("env.") and len(var) > 4:
            name = var[4:]
            for i, char in enumerate(name):
                if char == ":" and i < len(name) - 1 and name[i + 1] == "-":
                    value = os.environ.get(name[:i])
                    return value if value else name[i + 2 :]
                if char == "-":
                    value = os.environ.get(name[:i])
                    return value if value is not None else name[i + 1 :]
            value = os.environ.get(name)
        else:
            value = self._system_properties.get(var)
        if value is None:
            value = self.get_raw(var)
        return value

    # -- typed getters ---------------------------------------------------------------------------------------
    def _bad_value(self, key: str, value: str, expected: str) -> ConfigurationError:
        return ConfigurationError(f"{self.location_of(key)}: property {key!r} = {value!r}: expected {expected}")

    def _parse_integer(self, key: str, value: str, low: int, high: int, kind: str) -> int:
        # Configuration.getInt/getLong: getHexDigits (a 0x prefix), then Integer.parseInt / Long.parseLong, which
        # take any Unicode decimal digit (Character.digit): full-width "12" is 12 to Hadoop too (_javanumbers.py).
        if hadoop_integer(value, LONG_BITS * 2) is None:
            raise self._bad_value(key, value, f"an integer ({kind})")
        number = hadoop_integer(value, _INT_BITS[kind])
        if number is None:
            raise self._bad_value(key, value, f"an integer within the {kind} range [{low}, {high}]")
        return self._in_domain(key, value, number)

    def _in_domain(self, key: str, value: str, number: _N) -> _N:
        """``number`` if it is inside ``key``'s domain (:mod:`yarnball.protocols._domains`), else the error."""
        problem = domain_error(key, value.strip(), number)
        if problem is not None:
            raise ConfigurationError(f"{self.location_of(key)}: property {key!r} = {value!r}: {problem}")
        return number

    def get_int(self, key: str, default: int | None = None) -> int:
        """A Java ``int`` (32 bits; ``0x`` hex accepted)."""
        value = self.get(key)
        if value is None:
            return self._require_default(key, default, "int")
        return self._parse_integer(key, value, _INT_MIN, _INT_MAX, "32-bit int")

    def get_long(self, key: str, default: int | None = None) -> int:
        """A Java ``long`` (64 bits; ``0x`` hex accepted)."""
        value = self.get(key)
        if value is None:
            return self._require_default(key, default, "long")
        return self._parse_integer(key, value, _LONG_MIN, _LONG_MAX, "64-bit long")

    def get_float(self, key: str, default: float | None = None) -> float:
        """A float as Java's ``Float.parseFloat`` reads it (``1.5``, ``1e3``, ``2f``, ``NaN``, ``Infinity``)."""
        value = self.get(key)
        if value is None:
            return self._require_default(key, default, "float")
        number = java_float(value)  # Float.parseFloat: ASCII digits only (full-width digits refused, as by Hadoop)
        if number is None:
            raise self._bad_value(key, value, "a floating-point number")
        if abs(number) >= _FLOAT_OVERFLOW:
            number = number * float("inf")  # beyond Java's float range Float.parseFloat gives Infinity
        return self._in_domain(key, value, number)

    def get_bool(self, key: str, default: bool | None = None) -> bool:
        """``true``/``false`` in any case.

        Hadoop's ``getBoolean`` silently returns the default for anything else; yarnball rejects it, because a
        misspelt boolean silently ignored is the classic misconfiguration.
        """
        value = self.get(key)
        if value is None:
            return self._require_default(key, default, "boolean")
        lowered = java_trim(value).lower()
        if lowered == "true":
            return True
        if lowered == "false":
            return False
        raise self._bad_value(key, value, '"true" or "false"')

    def get_strings(self, key: str, default: list[str] | None = None) -> list[str]:
        """A comma (or newline) separated list, items trimmed, empty items dropped (Hadoop's ``getTrimmedStrings``)."""
        value = self.get(key)
        if value is None:
            return list(default) if default is not None else []
        # StringUtils.getTrimmedStrings splits on commas and newlines.
        return [item.strip() for item in re.split(r"[,\n]", value) if item.strip()]

    def get_time_duration(self, key: str, default: int | str, unit: str = "ms") -> int:
        """A duration in ``unit``; the value may carry a suffix ns/us/ms/s/m/h/d, else it is in ``unit``.

        Conversion truncates toward zero, like Java's ``TimeUnit.convert``.
        """
        if unit not in _TIME_UNITS:
            raise ConfigurationError(
                f"property {key!r}: unknown time unit {unit!r} (expected one of {', '.join(_TIME_UNITS)})"
            )
        raw = self.get(key)
        text = str(default) if raw is None else raw
        # Configuration.getTimeDurationHelper: trim, lower-case, the suffix cut off, then Long.parseLong of the rest
        # as it stands ("5 s" leaves "5 ", which Java refuses).
        lowered = java_trim(text).lower()
        value_unit = unit
        for suffix in _TIME_UNITS:
            if lowered.endswith(suffix):
                value_unit = suffix
                lowered = lowered[: lowered.rindex(suffix)]
                break
        else:
            if raw is not None:
                log.debug("no time unit; assuming the default", key=key, value=raw, unit=unit)
        number = java_integer(lowered, 10, LONG_BITS)
        if number is None:
            raise self._bad_value(key, text, "a duration: an integer with an optional suffix ns, us, ms, s, m, h or d")
        nanos = number * _TIME_UNITS[value_unit]
        per_unit = _TIME_UNITS[unit]
        quotient = abs(nanos) // per_unit
        return self._in_domain(key, text, quotient if nanos >= 0 else -quotient)

    def _require_default(self, key: str, default: _T | None, kind: str) -> _T:
        if default is None:
            raise ConfigurationError(f"{self.source_of(key)}: required {kind} property {key!r} is not set")
        return default


# -- XML ---------------------------------------------------------------------------------------------------------
def _parse_configuration_xml(data: bytes, source: str) -> list[tuple[str, str, int, bool]]:
    """Parse a Hadoop ``<configuration>`` document into (name, value, line, final) tuples, in file order."""
    parser = expat.ParserCreate()
    properties: list[tuple[str, str, int, bool]] = []
    stack: list[str] = []
    fields: dict[str, str] = {}
    text: list[str] = []
    property_line = 0

    def fail(message: str, line: int | None = None) -> ConfigurationError:
        where = f"{source}:{line}" if line is not None else source
        return ConfigurationError(f"{where}: {message}")

    def start(tag: str, _attrs: dict[str, str]) -> None:
        nonlocal property_line
        line = parser.CurrentLineNumber
        if not stack and tag != "configuration":
            raise fail(f"top-level element is <{tag}> (expected <configuration>)", line)
        if len(stack) >= MAX_NESTING_DEPTH:
            raise fail(f"XML nested too deeply (more than {MAX_NESTING_DEPTH} levels of elements)", line)
        if len(stack) == 1 and tag == "property":
            fields.clear()
            property_line = line
        stack.append(tag)
        text.clear()

    def end(tag: str) -> None:
        stack.pop()
        if len(stack) == 2 and stack[1] == "property" and tag in ("name", "value", "final"):
            fields[tag] = "".join(text)
        elif len(stack) == 1 and tag == "property":
            name = fields.get("name", "").strip()
            if not name:
                raise fail("<property> without a <name> (expected <name>key</name>)", property_line)
            if "value" not in fields:
                # Hadoop drops a property without a value (allowNullValueProperties is false).
                return
            final_text = fields.get("final", "false").strip().lower()
            if final_text not in ("true", "false"):
                raise fail(
                    f"property {name!r}: <final>{fields['final'].strip()}</final> (expected true or false)",
                    property_line,
                )
            properties.append((name, java_trim(fields["value"]), property_line, final_text == "true"))
        text.clear()

    def characters(chunk: str) -> None:
        text.append(chunk)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise fail(
            f"malformed XML: {expat.ErrorString(exc.code)} at column {exc.offset} "
            "(expected a Hadoop <configuration> of <property><name/><value/></property>)",
            exc.lineno,
        ) from exc
    except (LookupError, ValueError) as exc:
        # expat asks Python's codecs for the encoding named in the XML declaration: an unknown name is a
        # LookupError, a codec that is not a single-byte text encoding (idna, utf-32 in expat) a ValueError.
        # Hadoop's parser (Configuration.parse, StAX) rejects such a document too.
        raise fail(
            f"malformed XML declaration: {exc} (expected encoding=\"UTF-8\", or another single-byte text "
            "encoding such as ISO-8859-1)",
            parser.CurrentLineNumber or 1,
        ) from exc
    return properties
