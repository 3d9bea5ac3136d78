"""The sweep spec: a TOML file naming the axes of a scenario sweep, and the scenarios it expands to.

A scenario is one point of the product ``traces x axes (in file order) x seeds``. Each axis value is a table of
settings (a ``label``, ``conf-dir``, Hadoop keys under ``conf``, and ``yarnball simulate`` options such as
``until-ms``), or a bare value when the axis is named after one Hadoop key or one simulate option. ``[[scenarios]]``
is an explicit list: one more axis, named ``scenario``. Relative paths are relative to the spec file.

The spec is validated as a whole before anything runs (msgspec Structs with unknown fields forbidden); a bad spec
raises :class:`~yarnball.errors.ConfigurationError` naming the file and the field. Inputs that only a run can check
(a missing trace, a bad configuration value) fail their own scenario instead.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import msgspec

from yarnball._inputs import check_nesting, read_input_text
from yarnball.errors import ConfigurationError
from yarnball.launcher._scenario import ScenarioSpec

__all__ = ["SIMULATE_OPTIONS", "Scenario", "SweepSpec", "load_spec", "parse_spec"]

Scalar = str | int | float | bool

# The `yarnball simulate` options a spec may set (per axis value or in [fixed]); the rest belong to the sweep:
# the trace options come from [[traces]], --seed from seeds, --output-dir from the sweep's, and the backend is the
# embedded one (each scenario is one embedded simulation in its own worker).
SIMULATE_OPTIONS = ("until-ms", "log-level", "no-plots", "track-jobs", "latency-ms")


class _Trace(msgspec.Struct, forbid_unknown_fields=True, rename="kebab", frozen=True):
    location: str
    name: str | None = None
    type: Literal["SLS", "RUMEN", "SYNTH", "sls", "rumen", "synth"] = "SLS"
    nodes: str | None = None


class _Settings(msgspec.Struct, forbid_unknown_fields=True, rename="kebab", frozen=True):
    label: str | None = None
    conf_dir: str | None = None
    conf: dict[str, Scalar] = {}
    until_ms: int | None = None
    log_level: Literal["debug", "info", "warning", "error"] | None = None
    no_plots: bool | None = None
    track_jobs: str | None = None
    latency_ms: float | None = None


class _Spec(msgspec.Struct, forbid_unknown_fields=True, rename="kebab"):
    traces: list[_Trace]
    seeds: list[int] = msgspec.field(default_factory=lambda: [0])
    fixed: _Settings = _Settings()
    axes: dict[str, list[_Settings | Scalar]] = {}
    scenarios: list[_Settings] = []
    max_failures: int = 2


@dataclass(frozen=True, slots=True)
class Scenario:
    """One simulation of the sweep: its parameters (axis -> label) and what it runs (a :class:`ScenarioSpec` whose
    output directory the sweep sets)."""

    name: str
    params: tuple[tuple[str, str], ...]  # ("trace", label), (axis, label)..., ("seed", "N"), in axis order
    simulation: ScenarioSpec

    @property
    def args(self) -> tuple[str, ...]:
        """The ``yarnball simulate`` options without --output-dir and --no-progress."""
        return tuple(self.simulation.options())

    def spec(self, output_dir: str | os.PathLike[str]) -> ScenarioSpec:
        """The scenario writing into ``output_dir``, without a progress line."""
        return replace(self.simulation, output_dir=output_dir, progress=False)

    def argv(self, output_dir: str | os.PathLike[str]) -> list[str]:
        """The full ``yarnball simulate`` argument list writing into ``output_dir``."""
        return self.spec(output_dir).argv()

    def command(self, output_dir: str | os.PathLike[str]) -> str:
        """The shell command that reproduces this scenario standalone."""
        return shlex.join(["yarnball", *self.argv(output_dir)])

    @property
    def combination(self) -> tuple[tuple[str, str], ...]:
        """The parameters without the seed: scenarios that differ only by seed share it."""
        return tuple(p for p in self.params if p[0] != "seed")


@dataclass(frozen=True, slots=True)
class SweepSpec:
    """A validated spec: where it came from, its axis names (trace, ..., seed) and its scenarios in order."""

    source: str
    axes: tuple[str, ...]
    scenarios: tuple[Scenario, ...]
    max_failures: int


def load_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read and validate a TOML sweep spec (relative paths in it are relative to the file)."""
    source = os.fspath(path)
    text = read_input_text(path, "sweep spec")
    check_nesting(text, source, "TOML")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"{source}: not a valid TOML sweep spec ({exc})") from exc
    return parse_spec(data, source=source, base_dir=Path(path).resolve().parent)


def parse_spec(
    data: Mapping[str, Any], *, source: str = "<sweep spec>", base_dir: str | os.PathLike[str] | None = None
) -> SweepSpec:
    """Validate a spec given as a mapping (the TOML document's shape) and expand it into scenarios."""
    try:
        spec = msgspec.convert(dict(data), _Spec)
    except msgspec.ValidationError as exc:
        raise _field_error(source, exc) from exc
    base = Path(base_dir) if base_dir is not None else Path.cwd()

    def fail(field: str, expected: str) -> ConfigurationError:
        return ConfigurationError(f"{source}: field {field}: {expected}")

    if not spec.traces:
        raise fail("traces", "expected at least one [[traces]] entry")
    if not spec.seeds:
        raise fail("seeds", "expected at least one seed")
    if len(set(spec.seeds)) != len(spec.seeds):
        raise fail("seeds", f"expected distinct seeds, got {spec.seeds}")
    if spec.max_failures < 0:
        raise fail("max-failures", f"expected an integer >= 0, got {spec.max_failures}")
    if spec.fixed.label is not None:
        raise fail("fixed.label", "a label names an axis value; [fixed] has none")
    _check_settings(spec.fixed, "fixed", fail)

    traces: list[tuple[str, _Trace]] = []
    for i, trace in enumerate(spec.traces):
        label = trace.name if trace.name is not None else Path(trace.location.split(",")[0]).stem
        traces.append((_label(label, f"traces[{i}].name", fail), trace))
    _check_unique([t[0] for t in traces], "traces", fail)

    axes: list[tuple[str, list[tuple[str, _Settings]]]] = []
    for name, values in spec.axes.items():
        if name in ("trace", "seed", "scenario"):
            raise fail(f"axes.{name}", "this axis name is reserved (use [[traces]], seeds or [[scenarios]])")
        axes.append((name, _axis_values(name, values, f"axes.{name}", fail)))
    if spec.scenarios:
        axes.append(("scenario", _axis_values("scenario", list(spec.scenarios), "scenarios", fail)))
    _check_unique([_safe(a[0]) for a in axes], "axes", fail)

    scenarios: list[Scenario] = []
    names = [a[0] for a in axes]
    for (trace_label, trace), seed, points in _product(traces, spec.seeds, [a[1] for a in axes]):
        params = (
            ("trace", trace_label),
            *((names[i], label) for i, (label, _s) in enumerate(points)),
            ("seed", str(seed)),
        )
        merged = _merge(spec.fixed, [(names[i], s) for i, (_l, s) in enumerate(points)], fail)
        scenarios.append(Scenario(scenario_name(params), params, _simulation(trace, merged, seed, base)))
    return SweepSpec(
        source=source,
        axes=("trace", *(a[0] for a in axes), "seed"),
        scenarios=tuple(scenarios),
        max_failures=spec.max_failures,
    )


def scenario_name(params: tuple[tuple[str, str], ...]) -> str:
    """The scenario's directory name: ``axis-label`` pairs joined by ``__`` in axis order (stable, readable)."""
    return "__".join(f"{_safe(axis)}-{_safe(label)}" for axis, label in params)


# -- helpers -----------------------------------------------------------------------------------------------------
def _product(
    traces: list[tuple[str, _Trace]], seeds: list[int], axes: list[list[tuple[str, _Settings]]]
) -> Iterator[tuple[tuple[str, _Trace], int, tuple[tuple[str, _Settings], ...]]]:
    """traces x axes x seeds, the seed varying fastest."""
    for trace in traces:
        for points in itertools.product(*axes):
            for seed in seeds:
                yield trace, seed, points


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _safe(text: str) -> str:
    return _UNSAFE.sub("_", text).strip("_") or "_"


def _label(text: str, field: str, fail: Any) -> str:
    if not text.strip():
        raise fail(field, "expected a non-empty label")
    return text


def _check_unique(labels: list[str], field: str, fail: Any) -> None:
    seen: dict[str, str] = {}
    for label in labels:
        key = _safe(label)
        if key in seen:
            raise fail(field, f"labels {seen[key]!r} and {label!r} give the same directory name {key!r}")
        seen[key] = label


def _scalar_text(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _axis_values(name: str, values: list[Any], field: str, fail: Any) -> list[tuple[str, _Settings]]:
    if not values:
        raise fail(field, "expected at least one value")
    out: list[tuple[str, _Settings]] = []
    for i, value in enumerate(values):
        if isinstance(value, _Settings):
            if value.label is None:
                raise fail(f"{field}[{i}].label", "expected a label for this table (it names the scenarios)")
            _check_settings(value, f"{field}[{i}]", fail)
            out.append((_label(value.label, f"{field}[{i}].label", fail), value))
        elif name in SIMULATE_OPTIONS:  # a bare value of an axis named after a simulate option
            try:
                settings = msgspec.convert({name: value}, _Settings)
            except msgspec.ValidationError as exc:
                raise fail(f"{field}[{i}]", _expected(str(exc))) from exc
            out.append((_scalar_text(value), settings))
        else:  # a bare value of an axis named after a Hadoop key
            out.append((_scalar_text(value), _Settings(conf={name: value})))
    _check_unique([label for label, _s in out], field, fail)
    return out


def _check_settings(settings: _Settings, field: str, fail: Any) -> None:
    for key in settings.conf:
        if not key.strip() or any(c.isspace() for c in key):
            raise fail(f"{field}.conf", f"expected Hadoop configuration keys, got {key!r}")
    if settings.until_ms is not None and settings.until_ms < 0:
        raise fail(f"{field}.until-ms", f"expected a time >= 0 ms, got {settings.until_ms}")


def _merge(fixed: _Settings, values: list[tuple[str, _Settings]], fail: Any) -> dict[str, Any]:
    """[fixed] under the axis values; two axes setting one option or one key is an error, not a silent winner."""
    merged: dict[str, Any] = {}
    conf: dict[str, str] = {k: _scalar_text(v) for k, v in fixed.conf.items()}
    for field in ("conf_dir", *(o.replace("-", "_") for o in SIMULATE_OPTIONS)):
        if getattr(fixed, field) is not None:
            merged[field] = getattr(fixed, field)
    owner: dict[str, str] = {}
    for axis, settings in values:
        for field in ("conf_dir", *(o.replace("-", "_") for o in SIMULATE_OPTIONS)):
            value = getattr(settings, field)
            if value is None:
                continue
            if field in owner:
                raise fail(f"axes.{axis}", f"sets {field.replace('_', '-')}, which axis {owner[field]!r} sets too")
            owner[field] = axis
            merged[field] = value
        for key, value in settings.conf.items():
            if f"conf:{key}" in owner:
                raise fail(f"axes.{axis}", f"sets {key}, which axis {owner[f'conf:{key}']!r} sets too")
            owner[f"conf:{key}"] = axis
            conf[key] = _scalar_text(value)
    merged["conf"] = conf
    return merged


def _simulation(trace: _Trace, merged: dict[str, Any], seed: int, base: Path) -> ScenarioSpec:
    def path(text: str) -> str:
        return ",".join(os.fspath(base / p.strip()) for p in text.split(","))

    latency = merged.get("latency_ms")
    return ScenarioSpec(
        trace=path(trace.location),
        output_dir="",
        trace_type=trace.type.upper(),
        nodes=path(trace.nodes) if trace.nodes is not None else None,
        conf_dir=path(merged["conf_dir"]) if merged.get("conf_dir") is not None else None,
        conf=tuple((key, str(value)) for key, value in merged["conf"].items()),
        seed=seed,
        until_ms=merged.get("until_ms"),
        latency_ms=float(latency) if latency is not None else None,
        log_level=merged.get("log_level"),
        track_jobs=merged.get("track_jobs") or "",
        plots=not merged.get("no_plots"),
    )


def _expected(message: str) -> str:
    text, _sep, _at = message.partition(" - at `")
    return text[:1].lower() + text[1:]


def _field_error(source: str, exc: msgspec.ValidationError) -> ConfigurationError:
    """msgspec's ``Expected `int`, got `str` - at `$.seeds[0]``` as ``FILE: field seeds[0]: expected ...``."""
    message = str(exc)
    text, sep, at = message.partition(" - at `")
    field = at.rstrip("`").removeprefix("$").lstrip(".") if sep else ""
    if text.startswith("Object missing required field"):
        missing = text.split("`")[1] if "`" in text else ""
        field = f"{field}.{missing}".lstrip(".")
        text = "required field is missing"
    elif text.startswith("Object contains unknown field"):
        unknown = text.split("`")[1] if "`" in text else ""
        field = f"{field}.{unknown}".lstrip(".")
        text = "unknown field"
    return ConfigurationError(f"{source}: field {field or '(top level)'}: {_expected(text)}")
